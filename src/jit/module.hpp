// Modules and kernels of users' CUDA code (ek.h, "custom kernels"): the
// handles shared by module.cpp (modules, compilation, the caches) and
// kernel.cpp (kernels and launches).
#pragma once

#include <atomic>
#include <map>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

#include "core/internal.hpp"
#include "jit/jit.hpp"

namespace ek {
constexpr uint32_t kModuleMagic = 0x454b4d44;  // "EKMD"
constexpr uint32_t kKernelMagic = 0x454b4b4e;  // "EKKN"
}  // namespace ek

struct ek_module_s {
  uint32_t magic = ek::kModuleMagic;
  ek_context ctx = nullptr;
  // The caller's references plus one per kernel: the last one unloads the
  // module, so kernels stay launchable after the caller's last
  // ek_module_release.
  std::atomic<int64_t> refs{1};
  std::atomic<int64_t> caller_refs{1};  // ek_module_retain/release's; 0: gone for the caller
  std::string source, name;           // empty source: from an image
  std::vector<std::string> options;
  std::mutex mutex;  // one thread compiles and loads; guards what follows
  ek_module_origin origin = EK_MODULE_NOT_LOADED;
  void *native = nullptr;        // CUmodule once loaded
  ek_status error = EK_SUCCESS;  // a failed compilation, not retried
  std::string error_message;     // its message, without the function name
};

struct ek_kernel_s {
  uint32_t magic = ek::kKernelMagic;
  std::atomic<int64_t> refs{1};  // ek_kernel_retain/release
  ek_module module = nullptr;    // holds a reference
  void *native = nullptr;      // CUfunction
  std::string name;
  ek::jit::FunctionInfo info;  // attributes and parameter sizes, read once
  std::mutex mutex;            // guards what follows
  size_t dynamic_shared_set = 0;  // MAX_DYNAMIC_SHARED_SIZE_BYTES we set (0: default)
  // ek_kernel_launch_auto's choices: (log2 of the bucket, shared bytes) -> block size.
  std::map<std::pair<int, size_t>, unsigned> best_block;
};

namespace ek {

ek_status check_module(ek_module m, const char *name);
ek_status check_kernel(ek_kernel k, const char *name);
// ek_module_get_kernel without its checks; known: the parameters of a kernel
// libek generated (no driver probing; nullptr: probe, as for users' kernels).
ek_status module_kernel(ek_module m, const char *name, const jit::KnownParams *known, ek_kernel *out);
// ek_kernel_launch (without its profiler record) of a kernel libek generated,
// with `shared` bytes of dynamic shared memory; dependent: as jit::launch's
// (the kernel waits for its prerequisite first).
ek_status launch_generated(ek_stream s, ek_kernel k, const unsigned grid[3], const unsigned block[3], size_t shared,
                          const ek_kernel_arg *args, int n_args, bool dependent);
#define EK_CHECK_MODULE(x) EK_FORWARD(::ek::check_module((x), #x))
#define EK_CHECK_KERNEL(x) EK_FORWARD(::ek::check_kernel((x), #x))

// EK_ERROR_NOT_SUPPORTED for a CPU context.
ek_status require_cuda(ek_context ctx);
// Makes ctx's device and its primary context current on this thread.
ek_status bind_device(ek_context ctx);
// Compiles (or finds in the caches) and loads the module once; a failed
// compilation fails the same way on every later call.
ek_status module_ensure_loaded(ek_module m);
// Drops a reference; the last unloads the module and frees it.
void module_unref(ek_module m);

}  // namespace ek
