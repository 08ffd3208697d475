// Users' kernels below the C API: NVRTC (jit_nvrtc.cpp) and the CUDA driver's
// module and launch calls (jit_driver.cpp), behind an interface without CUDA
// types so module.cpp and kernel.cpp build without CUDA; jit_none.cpp stands in
// when CUDA is not built. Neither libnvrtc nor libcuda is linked: NVRTC is
// opened with dlopen on first use, the driver's entry points come through the
// CUDA runtime (cudaGetDriverEntryPointByVersion).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "ek.h"

namespace ek::jit {

// ---- NVRTC

// What NVRTC builds for a device: a cubin for "sm_XY", or PTX for
// "compute_XY" when this NVRTC does not know the device's architecture.
struct Target {
  std::string arch;        // "sm_90" or "compute_90"
  bool ptx = false;
  int nvrtc_version = 0;   // major * 1000 + minor * 10, as CUDA_VERSION
};

// Loads NVRTC (EK_ERROR_LIBRARY naming the files tried) and picks the target
// for compute capability major.minor.
ek_status nvrtc_target(int major, int minor, Target *out);

// The target choice itself, for compute capability cc (as 90) and an NVRTC of
// that version knowing archs (empty: it cannot say): the loaded library's and
// the hint's (nvrtc_hint.hpp) targets both come from here.
ek_status pick_target(int cc, int nvrtc_version, const std::vector<int> &archs, Target *out);

// Whether this process has loaded NVRTC (tried to, even): nvrtc_target is cheap then.
bool nvrtc_loaded();

struct NvrtcIdentity;
// Loads NVRTC and describes it: its file (dladdr, realpath, stat) and what it reports.
ek_status nvrtc_identity(NvrtcIdentity *out);

// Compiles source for target; name labels it in NVRTC's messages. A compile
// error is EK_ERROR_COMPILE with NVRTC's whole log in the message. *log gets
// the log of a successful compilation (warnings), often empty.
ek_status nvrtc_compile(const std::string &source, const std::string &name,
                        const std::vector<std::string> &options, const Target &target,
                        std::vector<char> *image, std::string *log);

// ---- the driver (every call expects the context's device to be current: activate())

// Makes the device's primary context current on this thread when no context is.
ek_status bind_context(int device);

// Loads a cubin, fatbin or NUL-terminated PTX; EK_ERROR_DEVICE with the
// driver's message (and its JIT log) when the device cannot load it.
ek_status module_load(const void *image, void **module);
void module_unload(void *module);

// *function is NULL (and the status success) when the module has no such symbol.
ek_status function_get(void *module, const char *name, void **function);

struct FunctionInfo {
  ek_kernel_attributes attributes{};
  std::vector<size_t> param_sizes;
  size_t max_shared_bytes = 0;  // dynamic shared memory a block may have at most
};
// The parameters of a kernel whose source the caller wrote (the fused
// kernels): its sizes in order and their total with padding.
struct KnownParams {
  std::vector<size_t> sizes;
  size_t bytes = 0;
};
// known == nullptr: the parameters are read from the driver, probing index
// 0, 1, ... until it reports INVALID_VALUE (CUDA has no parameter count
// before cuFuncGetParamCount), a failing call that compute-sanitizer lists.
// Given, they are taken as they are and the driver is not asked.
ek_status function_info(void *function, int device, const KnownParams *known, FunctionInfo *out);
// Raises the function's dynamic shared memory limit (needed above 48 KiB).
ek_status function_set_max_dynamic_shared(void *function, size_t bytes);

// dependent: as a programmatic dependent of the kernel before it in the
// stream (kernels/pdl.cuh) where the device and driver have it; the
// function must wait (griddepcontrol.wait) before touching memory.
ek_status launch(void *function, const unsigned grid[3], const unsigned block[3],
                 size_t shared_bytes, void *stream, void **params, bool dependent = false);

}  // namespace ek::jit
