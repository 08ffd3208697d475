// Modules of users' CUDA code: from source (compiled on first use: the memory
// cache, then the disk cache, then NVRTC) or from an image built ahead of time;
// reference counted, unloaded with their last kernel. Kernels: kernel.cpp.
#include <cstring>
#include <mutex>
#include <set>

#include "core/gpu.hpp"
#include "jit/image_check.hpp"
#include "jit/kernel_cache.hpp"
#include "jit/module.hpp"
#include "jit/nvrtc_hint.hpp"

namespace ek {
namespace {

bool sets_architecture(const char *option) {
  return std::strncmp(option, "-arch", 5) == 0 ||
         std::strncmp(option, "--gpu-architecture", 18) == 0;
}

ek_status check_options(const char *const *options, int n_options) {
  EK_CHECK(n_options >= 0, EK_ERROR_INVALID_ARGUMENT, "n_options is %d", n_options);
  EK_CHECK(n_options == 0 || options, EK_ERROR_NULL_POINTER,
           "options is NULL and n_options is %d", n_options);
  for (int i = 0; i < n_options; ++i) {
    EK_CHECK(options[i], EK_ERROR_NULL_POINTER, "options[%d] is NULL", i);
    EK_CHECK(!sets_architecture(options[i]), EK_ERROR_INVALID_ARGUMENT,
             "options[%d] \"%s\" sets the architecture; libek compiles for the context's "
             "device (-arch=sm_XY), so leave it out",
             i, options[i]);
  }
  return EK_SUCCESS;
}

ek_module new_module(ek_context ctx) {
  auto *m = new ek_module_s;
  m->ctx = ctx;
  ctx->live_objects++;
  handle_created();
  return m;
}

bool from_disk(ek_module m, const std::string &key, std::vector<char> *image) {
  if (!kcache::disk_usable(m->ctx->cache_dir, m->ctx->config.log_level)) return false;
  std::string why;
  switch (kcache::load(m->ctx->cache_dir, key, image, &why)) {
    case kcache::Load::kHit:
      return true;
    case kcache::Load::kRejected:
      log_message(EK_LOG_WARN, m->ctx->config.log_level,
                  "kernel cache entry %s in %s rejected (%s); compiling %s again", key.c_str(),
                  m->ctx->cache_dir.c_str(), why.c_str(), m->name.c_str());
      return false;
    case kcache::Load::kMiss:
      break;
  }
  return false;
}

// A cache that cannot be written costs the next process a compilation, no
// more: the failure is logged and this thread's last error left as it was.
void to_disk(ek_module m, const std::string &key, const std::vector<char> &image) {
  if (!kcache::disk_usable(m->ctx->cache_dir, m->ctx->config.log_level)) return;
  std::string saved = last_error_message();
  if (kcache::store(m->ctx->cache_dir, key, image.data(), image.size()) != EK_SUCCESS)
    log_message(EK_LOG_WARN, m->ctx->config.log_level, "%s was not written to the kernel cache: %s",
                m->name.c_str(), last_error_message().c_str());
  restore_last_error(std::move(saved));
}

ek_status compile(ek_module m, const jit::Target &target, const std::string &key,
                  std::vector<char> *image) {
  std::string log;
  EK_CHECK(captures_underway() == 0, EK_ERROR_CAPTURE,
           "%s is not in the kernel cache, and compiling it with NVRTC is not allowed while a "
           "graph capture is underway: compile or launch it once before the capture",
           m->name.c_str());
  EK_FORWARD(jit::nvrtc_compile(m->source, m->name, m->options, target, image, &log));
  if (!log.empty())
    log_message(EK_LOG_INFO, m->ctx->config.log_level, "NVRTC's messages for %s:\n%s",
                m->name.c_str(), log.c_str());
  kcache::memory_put(key, *image);
  to_disk(m, key, *image);
  return EK_SUCCESS;
}

std::string key_of(ek_module m, const jit::Target &target) {
  return kcache::make_key(m->source, m->options, target.arch, target.nvrtc_version, ek_version());
}

// The image from the memory cache or the disk cache; false when neither has it.
bool find_cached(ek_module m, const std::string &key, std::vector<char> *image,
                 ek_module_origin *origin) {
  if (kcache::memory_get(key, image)) {
    *origin = EK_MODULE_MEMORY_CACHE;
  } else if (from_disk(m, key, image)) {
    *origin = EK_MODULE_DISK_CACHE;
    kcache::memory_put(key, *image);
  } else {
    return false;
  }
  return true;
}

// Records the loaded NVRTC in the cache directory's hint (nvrtc_hint.hpp),
// once per directory and process; best effort, last error untouched.
void record_hint(ek_context ctx) {
  static std::mutex mutex;
  static std::set<std::string> recorded;
  std::lock_guard<std::mutex> lock(mutex);
  if (!recorded.insert(ctx->cache_dir).second) return;
  std::string saved = last_error_message();
  jit::NvrtcIdentity id, old;
  if (jit::nvrtc_identity(&id) != EK_SUCCESS)
    log_message(EK_LOG_DEBUG, ctx->config.log_level, "NVRTC hint not written: %s",
                last_error_message().c_str());
  else if (!jit::read_hint(ctx->cache_dir, &old) || !(old == id))
    jit::write_hint(ctx->cache_dir, id, ctx->config.log_level);
  restore_last_error(std::move(saved));
}

// The target from the loaded NVRTC (loading it if need be).
ek_status loaded_target(ek_context ctx, const ek_device_info &d, jit::Target *target) {
  EK_FORWARD(jit::nvrtc_target(d.compute_major, d.compute_minor, target));
  record_hint(ctx);
  return EK_SUCCESS;
}

bool same_target(const jit::Target &a, const jit::Target &b) {
  return a.arch == b.arch && a.ptx == b.ptx && a.nvrtc_version == b.nvrtc_version;
}

// The image from the memory cache, the disk cache or NVRTC, in that order.
// Until this process loads NVRTC, the key comes from the hint when there is
// one; on a miss NVRTC is loaded, and its own target rules from then on.
ek_status find_or_compile(ek_module m, const ek_device_info &d, jit::Target *target,
                          std::vector<char> *image, ek_module_origin *origin) {
  ek_context ctx = m->ctx;
  const bool hinted = !jit::nvrtc_loaded() &&
                      jit::hinted_target(ctx->cache_dir, d.compute_major, d.compute_minor, target);
  if (!hinted) EK_FORWARD(loaded_target(ctx, d, target));
  if (find_cached(m, key_of(m, *target), image, origin)) return EK_SUCCESS;
  if (hinted) {
    jit::Target real;
    EK_FORWARD(loaded_target(ctx, d, &real));
    if (!same_target(real, *target)) {
      *target = real;
      if (find_cached(m, key_of(m, *target), image, origin)) return EK_SUCCESS;
    }
  }
  *origin = EK_MODULE_COMPILED;
  return compile(m, *target, key_of(m, *target), image);
}

ek_status compile_and_load(ek_module m) {
  ek_context ctx = m->ctx;
  EK_FORWARD(bind_device(ctx));
  ek_device_info device{};
  EK_FORWARD(gpu::device_info(ctx->device.index, &device));
  jit::Target target;
  std::vector<char> image;
  ek_module_origin origin = EK_MODULE_NOT_LOADED;
  EK_FORWARD(find_or_compile(m, device, &target, &image, &origin));
  EK_FORWARD(jit::module_load(image.data(), &m->native));
  m->origin = origin;
  log_message(EK_LOG_DEBUG, ctx->config.log_level, "%s loaded for %s (%zu bytes, %s)",
              m->name.c_str(), target.arch.c_str(), image.size(),
              origin == EK_MODULE_COMPILED ? "compiled"
              : origin == EK_MODULE_MEMORY_CACHE ? "memory cache" : "disk cache");
  return EK_SUCCESS;
}

// "ek_module_compile: NVRTC failed ..." -> "NVRTC failed ...", to be repeated
// later under the name of the function then called.
std::string without_function(const std::string &message) {
  size_t colon = message.find(": ");
  return colon == std::string::npos ? message : message.substr(colon + 2);
}

}  // namespace

ek_status check_module(ek_module m, const char *name) {
  EK_CHECK(m != nullptr, EK_ERROR_NULL_POINTER, "%s is NULL", name);
  EK_CHECK(m->magic == kModuleMagic && m->caller_refs.load() > 0, EK_ERROR_INVALID_ARGUMENT,
           "%s is not a live ek_module " EK_STALE_HANDLE_NOTE, name);
  return EK_SUCCESS;
}

ek_status require_cuda(ek_context ctx) {
  EK_CHECK(ctx->is_cuda(), EK_ERROR_NOT_SUPPORTED,
           "custom kernels need a CUDA context; this context is on the CPU");
  return EK_SUCCESS;
}

ek_status bind_device(ek_context ctx) {
  EK_FORWARD(activate(ctx));
  return jit::bind_context(ctx->device.index);
}

ek_status module_ensure_loaded(ek_module m) {
  std::lock_guard<std::mutex> lock(m->mutex);
  if (m->native) return EK_SUCCESS;
  if (m->error != EK_SUCCESS) return fail(m->error, "%s", m->error_message.c_str());
  ek_status st = compile_and_load(m);
  if (st == EK_ERROR_COMPILE) {  // other failures (no NVRTC, device errors) may pass
    m->error = st;
    m->error_message = without_function(last_error_message());
  }
  return st;
}

void module_unref(ek_module m) {
  if (m->refs.fetch_sub(1) != 1) return;
  ek_context ctx = m->ctx;
  if (m->native) {
    // Unloading code that queued kernels still run is undefined behaviour
    // (cuda.h), and kernels may be queued on any stream: wait for the device.
    std::string saved = last_error_message();
    if (bind_device(ctx) == EK_SUCCESS) {
      gpu::device_synchronize();
      jit::module_unload(m->native);
    }
    restore_last_error(std::move(saved));
  }
  m->magic = kDeadMagic;
  delete m;
  ctx->live_objects--;
  handle_destroyed();
}

}  // namespace ek

using namespace ek;

extern "C" {

EK_API ek_status ek_module_from_source(ek_context ctx, const char *source, const char *name,
                                       const char *const *options, int n_options,
                                       ek_module *out) {
  EK_API_ENTRY;
  EK_CHECK_CONTEXT(ctx);
  EK_CHECK_NULL(source);
  EK_CHECK_NULL(out);
  EK_FORWARD(require_cuda(ctx));
  EK_FORWARD(check_options(options, n_options));
  ek_module m = new_module(ctx);
  m->source = source;
  m->name = name ? name : "ek_module.cu";
  m->options.assign(options, options + n_options);
  *out = m;
  return EK_SUCCESS;
}

EK_API ek_status ek_module_from_image(ek_context ctx, const void *image, size_t size,
                                      ek_module *out) {
  EK_API_ENTRY;
  EK_CHECK_CONTEXT(ctx);
  EK_CHECK_NULL(image);
  EK_CHECK_NULL(out);
  EK_CHECK(size > 0, EK_ERROR_INVALID_ARGUMENT, "size is 0");
  EK_FORWARD(require_cuda(ctx));
  EK_FORWARD(check_image(image, size));
  // The driver reads PTX up to its NUL, which the caller need not have counted.
  std::vector<char> bytes(size + 1, '\0');
  std::memcpy(bytes.data(), image, size);
  EK_FORWARD(bind_device(ctx));
  void *native = nullptr;
  EK_FORWARD(jit::module_load(bytes.data(), &native));
  ek_module m = new_module(ctx);
  m->name = "image";
  m->native = native;
  m->origin = EK_MODULE_IMAGE;
  *out = m;
  return EK_SUCCESS;
}

EK_API ek_status ek_module_compile(ek_module m) {
  EK_API_ENTRY;
  EK_CHECK_MODULE(m);
  return module_ensure_loaded(m);
}

EK_API ek_status ek_module_get_origin(ek_module m, ek_module_origin *origin) {
  EK_API_ENTRY;
  EK_CHECK_MODULE(m);
  EK_CHECK_NULL(origin);
  std::lock_guard<std::mutex> lock(m->mutex);
  *origin = m->origin;
  return EK_SUCCESS;
}

EK_API ek_status ek_module_retain(ek_module m) {
  EK_API_ENTRY;
  EK_CHECK_MODULE(m);
  m->caller_refs.fetch_add(1, std::memory_order_relaxed);
  m->refs.fetch_add(1, std::memory_order_relaxed);
  return EK_SUCCESS;
}

EK_API ek_status ek_module_release(ek_module m) {
  EK_API_ENTRY;
  if (!m) return EK_SUCCESS;
  EK_CHECK_MODULE(m);  // refuses a module whose caller references are all gone
  m->caller_refs.fetch_sub(1);
  module_unref(m);
  return EK_SUCCESS;
}

EK_API ek_status ek_kernel_cache_clear(ek_context ctx) {
  EK_API_ENTRY;
  EK_CHECK_CONTEXT(ctx);
  EK_FORWARD(require_cuda(ctx));
  kcache::memory_clear();
  return kcache::clear(ctx->cache_dir);
}

}  // extern "C"
