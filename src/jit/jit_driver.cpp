// The CUDA driver's module and launch calls, reached through the runtime's
// cudaGetDriverEntryPointByVersion: cuda.h gives the types only, so libek links
// no libcuda (cudart, linked statically, opens it at run time). Built only with
// CUDA (meson.build).
#include <cuda.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <string>

#include "core/internal.hpp"
#include "jit/jit.hpp"
#include "kernels/pdl_host.hpp"

namespace ek::jit {
namespace {

// The driver's entry points; `error` says why one could not be found.
struct Driver {
  decltype(&::cuGetErrorName) error_name = nullptr;
  decltype(&::cuGetErrorString) error_string = nullptr;
  decltype(&::cuCtxGetCurrent) ctx_get_current = nullptr;
  decltype(&::cuModuleLoadDataEx) module_load = nullptr;
  decltype(&::cuModuleUnload) module_unload = nullptr;
  decltype(&::cuModuleGetFunction) module_get_function = nullptr;
  decltype(&::cuFuncGetAttribute) func_get_attribute = nullptr;
  decltype(&::cuFuncSetAttribute) func_set_attribute = nullptr;
  decltype(&::cuLaunchKernel) launch_kernel = nullptr;
  // Optional (driver 12.4+), and spelled out so that older toolkits' cuda.h,
  // which lack its declaration, still build this file.
  CUresult (*func_get_param_info)(CUfunction, size_t, size_t *, size_t *) = nullptr;
  decltype(&::cuLaunchKernelEx) launch_kernel_ex = nullptr;  // optional (driver 11.8+)
  std::string error;
};

template <typename Fn>
bool entry_point(const char *symbol, Fn *fn) {
  void *p = nullptr;
  cudaDriverEntryPointQueryResult found = cudaDriverEntryPointSymbolNotFound;
#if CUDART_VERSION >= 12050
  cudaError_t err = cudaGetDriverEntryPointByVersion(symbol, &p, CUDART_VERSION,
                                                     cudaEnableDefault, &found);
#else
  cudaError_t err = cudaGetDriverEntryPoint(symbol, &p, cudaEnableDefault, &found);
#endif
  if (err != cudaSuccess) cudaGetLastError();
  *fn = err == cudaSuccess && found == cudaDriverEntryPointSuccess ? reinterpret_cast<Fn>(p)
                                                                   : nullptr;
  return *fn != nullptr;
}

// The required entry points; the first one missing, or nullptr.
const char *resolve_required(Driver *d) {
  if (!entry_point("cuGetErrorName", &d->error_name)) return "cuGetErrorName";
  if (!entry_point("cuGetErrorString", &d->error_string)) return "cuGetErrorString";
  if (!entry_point("cuCtxGetCurrent", &d->ctx_get_current)) return "cuCtxGetCurrent";
  if (!entry_point("cuModuleLoadDataEx", &d->module_load)) return "cuModuleLoadDataEx";
  if (!entry_point("cuModuleUnload", &d->module_unload)) return "cuModuleUnload";
  if (!entry_point("cuModuleGetFunction", &d->module_get_function)) return "cuModuleGetFunction";
  if (!entry_point("cuFuncGetAttribute", &d->func_get_attribute)) return "cuFuncGetAttribute";
  if (!entry_point("cuFuncSetAttribute", &d->func_set_attribute)) return "cuFuncSetAttribute";
  if (!entry_point("cuLaunchKernel", &d->launch_kernel)) return "cuLaunchKernel";
  return nullptr;
}

Driver load() {
  Driver d;
  if (const char *missing = resolve_required(&d)) {
    d.error = std::string("the CUDA driver does not provide ") + missing;
    return d;
  }
  entry_point("cuFuncGetParamInfo", &d.func_get_param_info);
  entry_point("cuLaunchKernelEx", &d.launch_kernel_ex);
  return d;
}

// Only reached with a CUDA context, so the runtime has found a driver already.
const Driver &driver() {
  static const Driver d = load();
  return d;
}

#define EK_CHECK_DRIVER(d) EK_CHECK((d).error.empty(), EK_ERROR_LIBRARY, "%s", (d).error.c_str())

ek_status check(CUresult r, const char *call, const char *detail = "") {
  if (r == CUDA_SUCCESS) return EK_SUCCESS;
  const Driver &d = driver();
  const char *name = nullptr, *text = nullptr;
  d.error_name(r, &name);
  d.error_string(r, &text);
  ek_status status = EK_ERROR_DEVICE;
  if (r == CUDA_ERROR_OUT_OF_MEMORY) status = EK_ERROR_OUT_OF_MEMORY;
  if (r == CUDA_ERROR_NO_DEVICE || r == CUDA_ERROR_INVALID_DEVICE) status = EK_ERROR_NO_DEVICE;
  return fail(status, "%s failed: %s (%s)%s", call, name ? name : "CUDA error",
              text ? text : "no description", detail);
}

ek_status attribute(CUfunction f, CUfunction_attribute which, int *value) {
  return check(driver().func_get_attribute(value, which, f), "cuFuncGetAttribute");
}

ek_status read_attributes(CUfunction f, ek_kernel_attributes *a) {
  int shared = 0, constant = 0, local = 0;
  EK_FORWARD(attribute(f, CU_FUNC_ATTRIBUTE_NUM_REGS, &a->num_regs));
  EK_FORWARD(attribute(f, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, &a->max_threads_per_block));
  EK_FORWARD(attribute(f, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, &shared));
  EK_FORWARD(attribute(f, CU_FUNC_ATTRIBUTE_CONST_SIZE_BYTES, &constant));
  EK_FORWARD(attribute(f, CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES, &local));
  EK_FORWARD(attribute(f, CU_FUNC_ATTRIBUTE_PTX_VERSION, &a->ptx_version));
  EK_FORWARD(attribute(f, CU_FUNC_ATTRIBUTE_BINARY_VERSION, &a->binary_version));
  a->shared_bytes = static_cast<size_t>(shared);
  a->const_bytes = static_cast<size_t>(constant);
  a->local_bytes = static_cast<size_t>(local);
  return EK_SUCCESS;
}

// Each parameter's size, asking for index 0, 1, ... until the driver says
// there is no such parameter; the total counts padding (last offset + size).
ek_status read_params(CUfunction f, std::vector<size_t> *sizes, size_t *total) {
  const Driver &d = driver();
  EK_CHECK(d.func_get_param_info, EK_ERROR_NOT_SUPPORTED,
           "the CUDA driver lacks cuFuncGetParamInfo (driver 12.4 or newer is needed to "
           "check kernel arguments)");
  sizes->clear();
  *total = 0;
  // Parameters take at most 32764 bytes, so this bound is never the one that stops.
  for (size_t i = 0; i < 32768; ++i) {
    size_t offset = 0, size = 0;
    CUresult r = d.func_get_param_info(f, i, &offset, &size);
    if (r == CUDA_ERROR_INVALID_VALUE) break;
    EK_FORWARD(check(r, "cuFuncGetParamInfo"));
    sizes->push_back(size);
    *total = offset + size;
  }
  return EK_SUCCESS;
}

}  // namespace

ek_status bind_context(int device) {
  const Driver &d = driver();
  EK_CHECK_DRIVER(d);
  CUcontext current = nullptr;
  EK_FORWARD(check(d.ctx_get_current(&current), "cuCtxGetCurrent"));
  if (current) return EK_SUCCESS;
  // A thread that has made no runtime call yet has no context; cudaSetDevice
  // makes the device's primary context (the one cudart uses) current.
  cudaError_t err = cudaSetDevice(device);
  if (err != cudaSuccess) cudaGetLastError();
  EK_CHECK(err == cudaSuccess, EK_ERROR_DEVICE, "cudaSetDevice(%d) failed: %s", device,
           cudaGetErrorString(err));
  return EK_SUCCESS;
}

ek_status module_load(const void *image, void **module) {
  const Driver &d = driver();
  EK_CHECK_DRIVER(d);
  // PTX is compiled here, and its compiler's complaints only reach this buffer.
  char log[4096] = {};
  CUjit_option options[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
  void *values[] = {log, reinterpret_cast<void *>(static_cast<uintptr_t>(sizeof log))};
  CUmodule m = nullptr;
  CUresult r = d.module_load(&m, image, 2, options, values);
  if (r != CUDA_SUCCESS) {
    log[sizeof log - 1] = '\0';
    std::string detail = log[0] ? std::string(":\n") + log : std::string();
    return check(r, "cuModuleLoadDataEx", detail.c_str());
  }
  *module = m;
  return EK_SUCCESS;
}

void module_unload(void *module) {
  if (module && driver().error.empty()) driver().module_unload(static_cast<CUmodule>(module));
}

ek_status function_get(void *module, const char *name, void **function) {
  const Driver &d = driver();
  EK_CHECK_DRIVER(d);
  CUfunction f = nullptr;
  CUresult r = d.module_get_function(&f, static_cast<CUmodule>(module), name);
  *function = nullptr;
  if (r == CUDA_ERROR_NOT_FOUND) return EK_SUCCESS;
  EK_FORWARD(check(r, "cuModuleGetFunction"));
  *function = f;
  return EK_SUCCESS;
}

ek_status function_info(void *function, int device, const KnownParams *known, FunctionInfo *out) {
  EK_CHECK_DRIVER(driver());
  auto f = static_cast<CUfunction>(function);
  FunctionInfo info;
  EK_FORWARD(read_attributes(f, &info.attributes));
  if (known) {
    info.param_sizes = known->sizes;
    info.attributes.param_bytes = known->bytes;
  } else {
    EK_FORWARD(read_params(f, &info.param_sizes, &info.attributes.param_bytes));
  }
  info.attributes.num_params = static_cast<int>(info.param_sizes.size());
  int optin = 0;
  cudaError_t err = cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device);
  if (err != cudaSuccess) cudaGetLastError();
  EK_CHECK(err == cudaSuccess, EK_ERROR_DEVICE, "cudaDeviceGetAttribute failed: %s",
           cudaGetErrorString(err));
  // Static and dynamic shared memory share the block's opt-in limit.
  const size_t limit = static_cast<size_t>(optin);
  const size_t used = info.attributes.shared_bytes;
  info.max_shared_bytes = limit > used ? limit - used : 0;
  *out = std::move(info);
  return EK_SUCCESS;
}

ek_status function_set_max_dynamic_shared(void *function, size_t bytes) {
  EK_CHECK_DRIVER(driver());
  return check(driver().func_set_attribute(static_cast<CUfunction>(function),
                                           CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                           static_cast<int>(bytes)),
               "cuFuncSetAttribute(MAX_DYNAMIC_SHARED_SIZE_BYTES)");
}

ek_status launch(void *function, const unsigned grid[3], const unsigned block[3],
                 size_t shared_bytes, void *stream, void **params, bool dependent) {
  const Driver &d = driver();
  EK_CHECK_DRIVER(d);
  if (dependent && d.launch_kernel_ex && cuda::pdl_supported()) {
    CUlaunchAttribute attr = {};
    attr.id = CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION;
    attr.value.programmaticStreamSerializationAllowed = 1;
    CUlaunchConfig cfg = {};
    cfg.gridDimX = grid[0], cfg.gridDimY = grid[1], cfg.gridDimZ = grid[2];
    cfg.blockDimX = block[0], cfg.blockDimY = block[1], cfg.blockDimZ = block[2];
    cfg.sharedMemBytes = static_cast<unsigned>(shared_bytes);
    cfg.hStream = static_cast<CUstream>(stream);
    cfg.attrs = &attr;
    cfg.numAttrs = 1;
    return check(d.launch_kernel_ex(&cfg, static_cast<CUfunction>(function), params, nullptr), "cuLaunchKernelEx");
  }
  return check(d.launch_kernel(static_cast<CUfunction>(function), grid[0], grid[1], grid[2],
                               block[0], block[1], block[2],
                               static_cast<unsigned>(shared_bytes),
                               static_cast<CUstream>(stream), params, nullptr),
               "cuLaunchKernel");
}

}  // namespace ek::jit
