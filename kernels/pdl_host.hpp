// Programmatic dependent launch, the host side: what the built-in kernels'
// launches (kernels/pdl.cuh) and the driver's launches of generated kernels
// (src/jit/jit_driver.cpp) both ask.
#pragma once

#include <cuda_runtime.h>

#include <atomic>

namespace ek {
namespace cuda {

// Whether the current device runs programmatic dependent launches (cached per
// device: the check is on every launch).
inline bool pdl_supported() {
  constexpr int kDevices = 64;
  static std::atomic<signed char> known[kDevices];  // 0 unknown, 1 yes, -1 no
  int device = 0;
  if (cudaGetDevice(&device) != cudaSuccess) return false;
  if (device < 0 || device >= kDevices) return false;
  signed char k = known[device].load(std::memory_order_relaxed);
  if (k == 0) {
    int major = 0;
    const bool yes = cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device) == cudaSuccess &&
                     major >= 9;
    k = yes ? 1 : -1;
    known[device].store(k, std::memory_order_relaxed);
  }
  return k > 0;
}

}  // namespace cuda
}  // namespace ek
