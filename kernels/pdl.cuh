// Programmatic dependent launch (compute capability 9.0): a kernel launched
// with launch_pdl may be scheduled while the kernel before it in the stream
// is still finishing, so back-to-back small kernels (and the nodes of a CUDA
// graph captured from them) do not each pay the full launch gap.
//
// The contract, for every kernel launched with launch_pdl: pdl_wait() before
// its first global memory access. It returns once the previous kernel has
// completed and its writes are visible, so reads see them and writes cannot
// overtake its reads. pdl_trigger() lets the next such kernel be scheduled
// once every block of this one has started; it orders nothing. Both are
// no-ops below sm_90 and for kernels launched without the attribute, and the
// attribute has no effect after anything but a kernel (copies, event waits,
// host functions serialize as usual).
#pragma once

#include <cuda_runtime.h>

#include "core/captures.hpp"
#include "kernels/pdl_host.hpp"

#include <utility>

namespace ek {
namespace cuda {

__device__ __forceinline__ void pdl_wait() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
}

__device__ __forceinline__ void pdl_trigger() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.launch_dependents;" :::);
#endif
}

// Whether st is being captured into a CUDA graph while an ek capture
// (ek_graph_capture_begin) is underway. One atomic load while none is, so
// eager launches cost what they did without PDL.
inline bool capturing(cudaStream_t st) { return native_capture_id(st) != 0; }

// When launch_pdl asks for the attribute. kCaptureOnly: in a graph, where a
// replay gains about a microsecond a kernel boundary (the 36-op step of
// bench/graph_step: 81 -> 72 us); eagerly, a row reduction of 1M f32 launched
// with it measured 7.07 -> 7.20 us of device time on the H100.
enum class Pdl { kAlways, kCaptureOnly };

// kernel<<<grid, block, shared, st>>>(args...) with programmatic stream
// serialization where the device has it and `when` allows it; otherwise
// exactly that launch.
template <typename... Params, typename... Args>
cudaError_t launch_pdl(Pdl when, size_t shared, void (*kernel)(Params...), dim3 grid, dim3 block,
                       cudaStream_t st, Args &&...args) {
  if (when == Pdl::kCaptureOnly && !capturing(st)) {
    kernel<<<grid, block, shared, st>>>(std::forward<Args>(args)...);
    return cudaPeekAtLastError();  // left set, as cudaLaunchKernelEx leaves it
  }
  cudaLaunchConfig_t cfg = {};
  cfg.gridDim = grid;
  cfg.blockDim = block;
  cfg.dynamicSmemBytes = shared;
  cfg.stream = st;
  cudaLaunchAttribute attr = {};
  attr.id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attr.val.programmaticStreamSerializationAllowed = 1;
  cfg.attrs = &attr;
  cfg.numAttrs = pdl_supported() ? 1 : 0;
  return cudaLaunchKernelEx(&cfg, kernel, std::forward<Args>(args)...);
}

// The same without dynamic shared memory.
template <typename... Params, typename... Args>
cudaError_t launch_pdl(Pdl when, void (*kernel)(Params...), dim3 grid, dim3 block, cudaStream_t st,
                       Args &&...args) {
  return launch_pdl(when, size_t(0), kernel, grid, block, st, std::forward<Args>(args)...);
}

}  // namespace cuda
}  // namespace ek
