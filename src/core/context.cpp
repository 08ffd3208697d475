// Devices, contexts and the configuration they read from the environment.
#include <cctype>
#include <charconv>
#include <cinttypes>
#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <unistd.h>

#include "core/backend.hpp"
#include "core/gpu.hpp"
#include "core/internal.hpp"
#include "core/fusion.hpp"
#include "core/profiler.hpp"

namespace ek {
namespace {

// The one grammar of EK_MEMORY_LIMIT and EK_MEMORY_FRACTION (README,
// "Environment"): a decimal number DIGITS[.DIGITS][(e|E)[+|-]DIGITS], with no
// sign, spaces, hex, inf or nan. `positive` is true when a digit of the
// mantissa is nonzero, so that a value that underflows to 0 is told apart
// from a spelled zero.
struct Decimal {
  double value = 0;
  bool positive = false;
  const char *end = nullptr;  // first character after the number
};

bool parse_decimal(const char *text, Decimal *d) {
  const char *p = text;
  auto digits = [&p, d](bool mantissa) {
    const char *first = p;
    for (; *p >= '0' && *p <= '9'; ++p) d->positive |= mantissa && *p != '0';
    return p > first;
  };
  if (!digits(true)) return false;
  if (*p == '.') {
    ++p;
    if (!digits(true)) return false;
  }
  bool tiny = false;  // negative exponent: out of range means underflow
  if (*p == 'e' || *p == 'E') {
    tiny = *++p == '-';
    if (*p == '+' || *p == '-') ++p;
    if (!digits(false)) return false;
  }
  // from_chars, not strtod: the decimal point must not depend on the locale.
  auto r = std::from_chars(text, p, d->value, std::chars_format::general);
  if (r.ec == std::errc::result_out_of_range) d->value = tiny ? 0.0 : HUGE_VAL;
  d->end = p;
  return r.ptr == p || r.ec == std::errc::result_out_of_range;
}

// EK_MEMORY_LIMIT -> bytes: a decimal number and an optional unit K, M, G or T
// (powers of 1024; KiB, KB and K alike, any case) or B. "0" exactly is no
// limit; any other zero, and a positive value under one byte, is refused, as
// is 2^64 or more. Fractions of a byte are dropped. Returns why it is refused,
// or nullptr.
const char *parse_bytes(const char *text, uint64_t *bytes) {
  *bytes = 0;
  if (std::strcmp(text, "0") == 0) return nullptr;
  Decimal d;
  static const char grammar[] =
      "is not a byte count: a decimal number with an optional unit K, M, G, T "
      "(KiB, MB, ...: powers of 1024) or B, no spaces, e.g. 4G, 512MiB, 1.5G, 1048576";
  if (!parse_decimal(text, &d)) return grammar;
  const char *end = d.end;
  static const char units[] = "KMGT";
  double scale = 1;
  if (const char *u = *end ? std::strchr(units, std::toupper(static_cast<unsigned char>(*end)))
                           : nullptr) {
    scale = std::ldexp(1.0, 10 * static_cast<int>(u - units + 1));
    if (*++end == 'i' || *end == 'I') ++end;
  }
  if (*end == 'b' || *end == 'B') ++end;
  if (*end != '\0') return grammar;
  double value = d.value * scale;
  if (!d.positive) return "is zero: write 0, or leave it unset, for no limit";
  if (value < 1) return "is less than one byte (a limit of 0 would mean no limit)";
  if (value >= 0x1p64) return "is 2^64 bytes or more";
  *bytes = static_cast<uint64_t>(value);
  return nullptr;
}

// EK_MEMORY_FRACTION: a decimal number in (0, 1]. Returns why it is refused, or nullptr.
const char *parse_fraction(const char *text, double *fraction) {
  Decimal d;
  if (!parse_decimal(text, &d) || *d.end != '\0')
    return "is not a decimal number in (0, 1] (e.g. 0.5, 1e-3; no sign, no spaces)";
  if (d.positive && d.value == 0) return "is too small: the limit would be 0 bytes";
  if (!(d.value > 0 && d.value <= 1)) return "is not in (0, 1]";
  *fraction = d.value;
  return nullptr;
}

// The most threads a context may ask for: more is surely a mistake (a
// negative number converted, a byte count), and each is a real thread.
constexpr int kMaxThreads = 1024;

// EK_NUM_THREADS: a decimal integer in [0, kMaxThreads]. Returns why it is refused, or nullptr.
const char *parse_threads(const char *text, int64_t *threads) {
  char *end = nullptr;
  errno = 0;
  const long v = std::isdigit(static_cast<unsigned char>(*text)) ? std::strtol(text, &end, 10) : -1;
  if (v < 0 || *end != '\0') return "is not a thread count (a decimal integer, 0 for one per hardware thread)";
  if (errno == ERANGE || v > kMaxThreads) return "is more than 1024 threads";
  *threads = v;
  return nullptr;
}

std::string default_cache_dir() {
  if (const char *xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg)
    return std::string(xdg) + "/libek/kernels";
  if (const char *home = std::getenv("HOME"); home && *home)
    return std::string(home) + "/.cache/libek/kernels";
  return ".ek-kernel-cache";
}

// ek_context_config as API 1.0 declared it (before num_threads): its size is
// the smallest struct_size accepted.
struct ConfigV1_0 {
  size_t struct_size;
  uint64_t memory_limit;
  double memory_fraction;
  int allow_tf32;
  const char *kernel_cache_dir;
  ek_log_level log_level;
};
constexpr size_t kConfigSize_1_0 = sizeof(ConfigV1_0);
static_assert(offsetof(ek_context_config, num_threads) >= sizeof(ConfigV1_0),
              "fields are only appended, past the 1.0 struct's size (its padding included)");

// num_threads as configured (0: not set) -> the count in use.
int64_t threads_in_use(int64_t configured) {
  const unsigned n = std::thread::hardware_concurrency();
  return configured > 0 ? configured : n > 0 ? static_cast<int64_t>(n) : 1;
}

// The caller's config over the environment's. Reads only the fields within
// given->struct_size (ek.h: how structs grow).
ek_status apply_given(const ek_context_config *caller, ek_context_config *cfg,
                      std::string *cache_dir) {
  EK_FORWARD(check_struct_size(caller->struct_size, kConfigSize_1_0, "ek_context_config"));
  ek_context_config copy = EK_CONTEXT_CONFIG_INIT;
  std::memcpy(&copy, caller, std::min(caller->struct_size, sizeof copy));
  const ek_context_config *given = &copy;
  EK_CHECK(given->memory_fraction >= 0 && given->memory_fraction <= 1,
           EK_ERROR_INVALID_ARGUMENT, "config->memory_fraction %g is not in (0, 1]",
           given->memory_fraction);
  const int level = raw_enum(given->log_level);
  EK_CHECK(level >= EK_LOG_OFF && level <= EK_LOG_DEBUG, EK_ERROR_INVALID_ARGUMENT,
           "config->log_level %d is not an ek_log_level", level);
  // An explicit limit of either kind replaces both limits from the environment.
  if (given->memory_limit || given->memory_fraction > 0) {
    cfg->memory_limit = given->memory_limit;
    cfg->memory_fraction = given->memory_fraction;
  }
  if (given->allow_tf32) cfg->allow_tf32 = 1;
  if (given->kernel_cache_dir && *given->kernel_cache_dir) *cache_dir = given->kernel_cache_dir;
  if (given->log_level != EK_LOG_OFF) cfg->log_level = given->log_level;
  EK_CHECK(given->num_threads >= 0 && given->num_threads <= kMaxThreads, EK_ERROR_INVALID_ARGUMENT,
           "config->num_threads %lld is not in [0, %d] (0: one per hardware thread)",
           static_cast<long long>(given->num_threads), kMaxThreads);
  if (given->num_threads) cfg->num_threads = given->num_threads;
  EK_CHECK(given->index_check == 0 || given->index_check == EK_INDEX_CHECK_AT_CALL ||
               given->index_check == EK_INDEX_CHECK_DEFERRED,
           EK_ERROR_INVALID_ARGUMENT, "config->index_check %lld is not an ek_index_check",
           static_cast<long long>(given->index_check));
  if (given->index_check) cfg->index_check = given->index_check;
  EK_CHECK(given->fusion == 0 || given->fusion == EK_FUSION_OFF || given->fusion == EK_FUSION_ON ||
               given->fusion == EK_FUSION_ROUNDED,
           EK_ERROR_INVALID_ARGUMENT, "config->fusion %lld is not an ek_fusion",
           static_cast<long long>(given->fusion));
  if (given->fusion) cfg->fusion = given->fusion;
  EK_CHECK(given->fusion_max_kernels >= 0, EK_ERROR_INVALID_ARGUMENT,
           "config->fusion_max_kernels %lld is negative", static_cast<long long>(given->fusion_max_kernels));
  if (given->fusion_max_kernels) cfg->fusion_max_kernels = given->fusion_max_kernels;
  return EK_SUCCESS;
}

// EK_FUSION (0, 1 or "rounded") and EK_FUSION_MAX_KERNELS (a count >= 1).
ek_status fusion_from_env(ek_context_config *cfg) {
  if (const char *v = std::getenv("EK_FUSION"); v && *v) {
    const std::string mode = v;
    EK_CHECK(mode == "0" || mode == "1" || mode == "rounded", EK_ERROR_INVALID_ARGUMENT,
             "EK_FUSION=\"%s\" is not one of 0, 1, rounded", v);
    cfg->fusion = mode == "0" ? EK_FUSION_OFF : (mode == "1" ? EK_FUSION_ON : EK_FUSION_ROUNDED);
  }
  if (const char *v = std::getenv("EK_FUSION_MAX_KERNELS"); v && *v) {
    char *end = nullptr;
    errno = 0;
    const long long n = std::strtoll(v, &end, 10);
    EK_CHECK(*end == '\0' && errno == 0 && n >= 1, EK_ERROR_INVALID_ARGUMENT,
             "EK_FUSION_MAX_KERNELS=\"%s\" is not a count >= 1", v);
    cfg->fusion_max_kernels = n;
  }
  return EK_SUCCESS;
}

// CUDA gathers report a bad index at the stream's next synchronization unless
// told otherwise: a wait per gather would cost more than the gather (as in
// PyTorch, whose device-side asserts are asynchronous). The CPU backend is
// synchronous anyway and always reports at the call.
constexpr ek_index_check kDefaultCudaIndexCheck = EK_INDEX_CHECK_DEFERRED;

// Environment first, then the explicit config on top of it.
ek_status resolve_config(ek_device_type type, const ek_context_config *given,
                         ek_context_config *cfg, std::string *cache_dir) {
  ek_context_config_init(cfg);
  *cache_dir = default_cache_dir();
  if (const char *v = std::getenv("EK_MEMORY_LIMIT"); v && *v) {
    const char *why = parse_bytes(v, &cfg->memory_limit);
    EK_CHECK(!why, EK_ERROR_INVALID_ARGUMENT, "EK_MEMORY_LIMIT=\"%s\" %s", v, why);
  }
  if (const char *v = std::getenv("EK_MEMORY_FRACTION"); v && *v) {
    const char *why = parse_fraction(v, &cfg->memory_fraction);
    EK_CHECK(!why, EK_ERROR_INVALID_ARGUMENT, "EK_MEMORY_FRACTION=\"%s\" %s", v, why);
  }
  if (const char *v = std::getenv("EK_KERNEL_CACHE_DIR"); v && *v) *cache_dir = v;
  if (const char *v = std::getenv("EK_LOG_LEVEL"); v && *v)
    EK_CHECK(parse_log_level(v, &cfg->log_level), EK_ERROR_INVALID_ARGUMENT,
             "EK_LOG_LEVEL=\"%s\" is not one of off, error, warn, info, debug", v);
  if (const char *v = std::getenv("EK_NUM_THREADS"); v && *v) {
    const char *why = parse_threads(v, &cfg->num_threads);
    EK_CHECK(!why, EK_ERROR_INVALID_ARGUMENT, "EK_NUM_THREADS=\"%s\" %s", v, why);
  }
  if (const char *v = std::getenv("EK_INDEX_CHECK"); v && *v) {
    const std::string mode = v;
    EK_CHECK(mode == "call" || mode == "deferred", EK_ERROR_INVALID_ARGUMENT,
             "EK_INDEX_CHECK=\"%s\" is not one of call, deferred", v);
    cfg->index_check = mode == "call" ? EK_INDEX_CHECK_AT_CALL : EK_INDEX_CHECK_DEFERRED;
  }
  EK_FORWARD(fusion_from_env(cfg));
  if (given) EK_FORWARD(apply_given(given, cfg, cache_dir));
  cfg->num_threads = threads_in_use(cfg->num_threads);
  if (cfg->index_check == 0)
    cfg->index_check = type == EK_CUDA ? kDefaultCudaIndexCheck : EK_INDEX_CHECK_AT_CALL;
  if (cfg->fusion == 0) cfg->fusion = fusion::kDefaultMode;
  if (cfg->fusion_max_kernels == 0) cfg->fusion_max_kernels = fusion::kDefaultMaxKernels;
  return EK_SUCCESS;
}

ek_status check_device(ek_device device) {
  const int type = raw_enum(device.type);
  if (type == EK_CPU) {
    EK_CHECK(device.index == 0, EK_ERROR_NO_DEVICE, "CPU device index %d does not exist (only 0)",
             device.index);
    return EK_SUCCESS;
  }
  EK_CHECK(type == EK_CUDA, EK_ERROR_INVALID_ARGUMENT, "unknown device type %d", type);
  int count = gpu::device_count();
  EK_CHECK(device.index >= 0 && device.index < count, EK_ERROR_NO_DEVICE,
           "CUDA device %d does not exist (%d CUDA devices%s)", device.index, count,
           gpu::compiled_in() ? "" : "; libek was built without CUDA");
  return EK_SUCCESS;
}

// About no context, so at the process's level; once, as callers poll the count.
void log_no_cuda_device() {
  static std::atomic<bool> logged{false};
  if (!log_enabled(EK_LOG_DEBUG, process_log_level()) || logged.exchange(true)) return;
  log_message(EK_LOG_DEBUG, process_log_level(), "no CUDA device: %s",
              gpu::compiled_in() ? "no driver, or no GPU visible (CUDA_VISIBLE_DEVICES?)"
                                 : "libek was built without CUDA");
}

ek_status init_default_stream(ek_context ctx) {
  ek_stream_s &s = ctx->default_stream;
  s.ctx = ctx;
  s.is_default = true;
  if (!ctx->is_cuda()) {
    s.id = ctx->next_cpu_stream_id++;
    return EK_SUCCESS;
  }
  EK_FORWARD(gpu::stream_create(&s.native));
  s.owned = true;
  return gpu::stream_id(s.native, &s.id);
}

void destroy_context(ek_context ctx) {
  fusion::destroy_state(ctx);
  destroy_profiler(ctx);
  if (ctx->release_blas) ctx->release_blas(ctx);
  release_stream_scratch(&ctx->default_stream);
  release_stream_pinned(&ctx->default_stream);
  shutdown_memory(ctx);
  if (ctx->default_stream.owned) gpu::stream_destroy(ctx->default_stream.native);
  ctx->magic = kDeadMagic;
  delete ctx;
  handle_destroyed();
}

}  // namespace

ek_status check_context(ek_context ctx, const char *name) {
  return check_handle(ctx, kContextMagic, "ek_context", name);
}

ek_status activate(ek_context ctx) {
  if (!ctx->is_cuda()) return EK_SUCCESS;
  return gpu::set_device(ctx->device.index);
}

}  // namespace ek

using namespace ek;

extern "C" {

EK_API ek_status ek_device_get_count(ek_device_type type, int *count) {
  EK_API_ENTRY;
  EK_CHECK_NULL(count);
  const int t = raw_enum(type);
  EK_CHECK(t == EK_CPU || t == EK_CUDA, EK_ERROR_INVALID_ARGUMENT, "unknown device type %d", t);
  *count = t == EK_CPU ? 1 : gpu::device_count();
  if (t == EK_CUDA && *count == 0) log_no_cuda_device();
  return EK_SUCCESS;
}

EK_API ek_status ek_device_get_info(ek_device device, ek_device_info *info) {
  EK_API_ENTRY;
  EK_CHECK_NULL(info);
  EK_CHECK_STRUCT(info, ek_device_info);
  EK_FORWARD(check_device(device));
  ek_device_info d{};
  if (device.type == EK_CUDA) {
    EK_FORWARD(gpu::device_info(device.index, &d));
  } else {
    std::strncpy(d.name, "cpu", sizeof d.name - 1);
    d.type = EK_CPU;
    d.multiprocessors = static_cast<int>(std::thread::hardware_concurrency());
    uint64_t pages = static_cast<uint64_t>(sysconf(_SC_PHYS_PAGES));
    d.total_memory = pages * static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
  }
  write_struct(info, d, info->struct_size);
  return EK_SUCCESS;
}

EK_API ek_status ek_context_config_init(ek_context_config *config) {
  EK_API_ENTRY;
  EK_CHECK_NULL(config);
  *config = ek_context_config EK_CONTEXT_CONFIG_INIT;
  return EK_SUCCESS;
}

EK_API ek_status ek_context_create(ek_device device, const ek_context_config *config,
                                   ek_context *out) {
  EK_API_ENTRY;
  EK_CHECK_NULL(out);
  EK_FORWARD(check_device(device));
  const Backend *backend = device.type == EK_CUDA ? cuda_backend() : &cpu_backend();
  // Without CUDA, check_device has already refused every CUDA device; this is
  // the one place that would name the missing backend.
  EK_CHECK(backend, EK_ERROR_NO_DEVICE, "libek was built without CUDA");
  auto ctx = std::make_unique<ek_context_s>();
  ctx->device = device;
  ctx->backend = backend;
  EK_FORWARD(resolve_config(device.type, config, &ctx->config, &ctx->cache_dir));
  ctx->config.kernel_cache_dir = ctx->cache_dir.c_str();
  if (device.type == EK_CUDA) EK_FORWARD(gpu::set_device(device.index));
  if (ek_status s = init_default_stream(ctx.get()); s != EK_SUCCESS) {
    if (ctx->default_stream.owned) gpu::stream_destroy(ctx->default_stream.native);
    return s;
  }
  if (ek_status s = init_memory(ctx.get()); s != EK_SUCCESS) {
    if (ctx->default_stream.owned) gpu::stream_destroy(ctx->default_stream.native);
    return s;
  }
  ctx->fusion = fusion::create_state();
  handle_created();
  log_message(EK_LOG_INFO, ctx->config.log_level, "context created on %s:%d",
              device.type == EK_CUDA ? "cuda" : "cpu", device.index);
  *out = ctx.release();
  return EK_SUCCESS;
}

EK_API ek_status ek_context_destroy(ek_context ctx) {
  EK_API_ENTRY;
  if (!ctx) return EK_SUCCESS;
  EK_CHECK_CONTEXT(ctx);
  int64_t live = ctx->live_objects.load() - fusion::cached_objects(ctx);
  EK_CHECK(live == 0, EK_ERROR_INVALID_ARGUMENT,
           "%" PRId64 " tensors, streams or events (or modules, kernels, elementwise builders) "
           "of this context are still alive", live);
  EK_FORWARD(fusion::flush_context(ctx));
  EK_FORWARD(activate(ctx));
  if (ctx->is_cuda()) EK_FORWARD(gpu::stream_synchronize(ctx->default_stream.native));
  log_message(EK_LOG_DEBUG, ctx->config.log_level, "context on %s:%d destroyed",
              ctx->is_cuda() ? "cuda" : "cpu", ctx->device.index);
  destroy_context(ctx);
  return EK_SUCCESS;
}

EK_API ek_status ek_context_get_device(ek_context ctx, ek_device *device) {
  EK_API_ENTRY;
  EK_CHECK_CONTEXT(ctx);
  EK_CHECK_NULL(device);
  *device = ctx->device;
  return EK_SUCCESS;
}

EK_API ek_status ek_context_get_config(ek_context ctx, ek_context_config *config) {
  EK_API_ENTRY;
  EK_CHECK_CONTEXT(ctx);
  EK_CHECK_NULL(config);
  EK_FORWARD(check_struct_size(config->struct_size, kConfigSize_1_0, "ek_context_config"));
  std::lock_guard<std::mutex> lock(ctx->config_mutex);
  write_struct(config, ctx->config, config->struct_size);
  return EK_SUCCESS;
}

EK_API ek_status ek_context_synchronize(ek_context ctx) {
  EK_API_ENTRY;
  EK_CHECK_CONTEXT(ctx);
  EK_FORWARD(fusion::flush_context(ctx));
  if (!ctx->is_cuda()) return EK_SUCCESS;
  EK_FORWARD(activate(ctx));
  EK_FORWARD(gpu::device_synchronize());
  return pending_index_error(&ctx->default_stream);
}

EK_API ek_status ek_context_get_default_stream(ek_context ctx, ek_stream *out) {
  EK_API_ENTRY;
  EK_CHECK_CONTEXT(ctx);
  EK_CHECK_NULL(out);
  *out = &ctx->default_stream;
  return EK_SUCCESS;
}

}  // extern "C"
