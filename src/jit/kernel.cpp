// Kernels of modules (module.cpp): lookup, attributes, launches with their
// arguments checked against the kernel's parameters, and the autotuned launch.
#include <algorithm>
#include <cinttypes>
#include <cstring>
#include <string>
#include <vector>

#include "core/gpu.hpp"
#include "jit/module.hpp"
#include "core/profiler.hpp"

namespace ek {
namespace {

constexpr uint64_t kMaxGridX = (1ull << 31) - 1;
constexpr unsigned kMaxGridYZ = 65535;
constexpr unsigned kMaxBlockXY = 1024, kMaxBlockZ = 64;
constexpr size_t kDefaultSharedLimit = 48 * 1024;  // beyond it a kernel must opt in
constexpr int kTimedLaunches = 5;                 // per candidate, after one warm-up

ek_status check_dims(const ek_kernel_s *k, const unsigned grid[3], const unsigned block[3]) {
  EK_CHECK(grid[0] && grid[1] && grid[2] && block[0] && block[1] && block[2],
           EK_ERROR_INVALID_ARGUMENT, "grid {%u,%u,%u} and block {%u,%u,%u} must not be 0",
           grid[0], grid[1], grid[2], block[0], block[1], block[2]);
  EK_CHECK(grid[0] <= kMaxGridX && grid[1] <= kMaxGridYZ && grid[2] <= kMaxGridYZ,
           EK_ERROR_INVALID_ARGUMENT, "grid {%u,%u,%u} exceeds {2^31-1, 65535, 65535}", grid[0],
           grid[1], grid[2]);
  EK_CHECK(block[0] <= kMaxBlockXY && block[1] <= kMaxBlockXY && block[2] <= kMaxBlockZ,
           EK_ERROR_INVALID_ARGUMENT, "block {%u,%u,%u} exceeds {1024, 1024, 64}", block[0],
           block[1], block[2]);
  const uint64_t threads = uint64_t{block[0]} * block[1] * block[2];
  const int most = k->info.attributes.max_threads_per_block;
  EK_CHECK(threads <= static_cast<uint64_t>(most), EK_ERROR_INVALID_ARGUMENT,
           "block {%u,%u,%u} has %" PRIu64 " threads; kernel %s allows at most %d", block[0],
           block[1], block[2], threads, k->name.c_str(), most);
  return EK_SUCCESS;
}

ek_status check_shared(const ek_kernel_s *k, size_t shared_bytes) {
  EK_CHECK(shared_bytes <= k->info.max_shared_bytes, EK_ERROR_INVALID_ARGUMENT,
           "shared_bytes %zu exceeds the %zu bytes of dynamic shared memory a block of kernel "
           "%s may have (the device's limit less its %zu bytes of static shared memory)",
           shared_bytes, k->info.max_shared_bytes, k->name.c_str(),
           k->info.attributes.shared_bytes);
  return EK_SUCCESS;
}

ek_status check_args(const ek_kernel_s *k, const ek_kernel_arg *args, int n_args) {
  const std::vector<size_t> &sizes = k->info.param_sizes;
  EK_CHECK(n_args >= 0 && static_cast<size_t>(n_args) == sizes.size(),
           EK_ERROR_INVALID_ARGUMENT, "kernel %s takes %zu arguments; n_args is %d",
           k->name.c_str(), sizes.size(), n_args);
  EK_CHECK(n_args == 0 || args, EK_ERROR_NULL_POINTER, "args is NULL and n_args is %d", n_args);
  for (int i = 0; i < n_args; ++i) {
    EK_CHECK(args[i].value, EK_ERROR_NULL_POINTER, "args[%d].value is NULL", i);
    EK_CHECK(args[i].size == sizes[static_cast<size_t>(i)], EK_ERROR_INVALID_ARGUMENT,
             "args[%d].size is %zu; parameter %d of kernel %s takes %zu bytes", i, args[i].size,
             i, k->name.c_str(), sizes[static_cast<size_t>(i)]);
  }
  return EK_SUCCESS;
}

// ---- typed arguments (ek_kernel_value) -> ek_kernel_arg

// The bytes each converted argument points to live here, one slot per
// argument (never reallocated, so the pointers stay valid for the launch).
struct Marshalled {
  std::vector<ek_kernel_arg> args;
  std::vector<uint64_t> slots;
};

ek_status check_value_fields(const ek_kernel_value &v, int i) {
  const int kind = raw_enum(v.kind);
  const bool tensor = kind == EK_KERNEL_VALUE_TENSOR, scalar = kind == EK_KERNEL_VALUE_SCALAR;
  const bool bytes = kind == EK_KERNEL_VALUE_BYTES;
  EK_CHECK(tensor || scalar || bytes, EK_ERROR_INVALID_ARGUMENT,
           "args[%d].kind is %d; expected EK_KERNEL_VALUE_TENSOR, _SCALAR or _BYTES", i, kind);
  const ek_scalar zero{};
  EK_CHECK((tensor || !v.tensor) && (bytes || (!v.bytes && !v.size)) &&
               (scalar || (raw_enum(v.dtype) == 0 && !std::memcmp(&v.scalar, &zero, sizeof zero))),
           EK_ERROR_INVALID_ARGUMENT,
           "args[%d] (kind %d) has a nonzero field its kind does not use (must be 0 / NULL)", i,
           kind);
  return EK_SUCCESS;
}

const char *device_name(ek_device d) { return d.type == EK_CUDA ? "cuda" : "cpu"; }

ek_status tensor_arg(const ek_kernel_s *k, const ek_kernel_value &v, int i, uint64_t *slot) {
  EK_CHECK(v.tensor, EK_ERROR_NULL_POINTER, "args[%d].tensor is NULL", i);
  EK_FORWARD(check_tensor(v.tensor, ("args[" + std::to_string(i) + "].tensor").c_str()));
  const ek_device have = v.tensor->storage->ctx->device, want = k->module->ctx->device;
  EK_CHECK(have.type == want.type && have.index == want.index, EK_ERROR_INVALID_ARGUMENT,
           "args[%d].tensor lives on %s:%d; kernel %s runs on %s:%d", i,
           device_name(have), have.index, k->name.c_str(), device_name(want), want.index);
  void *data = tensor_data(v.tensor);
  std::memcpy(slot, &data, sizeof data);
  return EK_SUCCESS;
}

ek_status scalar_arg(const ek_kernel_value &v, int i, uint64_t *slot, size_t *size) {
  EK_CHECK(dtype_valid(raw_enum(v.dtype)), EK_ERROR_DTYPE, "args[%d].dtype %d is not an ek_dtype",
           i, raw_enum(v.dtype));
  const ek_status st = scalar_to_element(v.scalar, v.dtype, slot);
  if (st != EK_SUCCESS) {  // its message, less the "function: " prefix, names args[i]
    const std::string why = last_error_message();
    const size_t colon = why.find(": ");
    return fail(st, "args[%d].scalar as %s: %s", i, ek_dtype_name(v.dtype),
                why.c_str() + (colon == std::string::npos ? 0 : colon + 2));
  }
  *size = ek_dtype_size(v.dtype);  // the element's bytes are the low bytes of *slot
  return EK_SUCCESS;
}

ek_status marshal(const ek_kernel_s *k, const ek_kernel_value *values, int n, Marshalled *m) {
  EK_CHECK(n >= 0, EK_ERROR_INVALID_ARGUMENT, "n_args is %d", n);
  EK_CHECK(n == 0 || values, EK_ERROR_NULL_POINTER, "args is NULL and n_args is %d", n);
  m->args.resize(static_cast<size_t>(n));
  m->slots.assign(static_cast<size_t>(n), 0);
  for (int i = 0; i < n; ++i) {
    const ek_kernel_value &v = values[i];
    ek_kernel_arg &a = m->args[static_cast<size_t>(i)];
    uint64_t *slot = &m->slots[static_cast<size_t>(i)];
    EK_FORWARD(check_value_fields(v, i));
    if (raw_enum(v.kind) == EK_KERNEL_VALUE_BYTES) {
      EK_CHECK(v.bytes || v.size == 0, EK_ERROR_NULL_POINTER,
               "args[%d].bytes is NULL and its size is %zu", i, v.size);
      a = ek_kernel_arg{v.bytes ? v.bytes : static_cast<const void *>(slot), v.size};
    } else if (raw_enum(v.kind) == EK_KERNEL_VALUE_TENSOR) {
      EK_FORWARD(tensor_arg(k, v, i, slot));
      a = ek_kernel_arg{slot, sizeof(void *)};
    } else {
      a.value = slot;
      EK_FORWARD(scalar_arg(v, i, slot, &a.size));
    }
  }
  return EK_SUCCESS;
}

// Above 48 KiB in all, a kernel's shared memory must be allowed explicitly.
ek_status allow_shared(ek_kernel k, size_t shared_bytes) {
  if (shared_bytes + k->info.attributes.shared_bytes <= kDefaultSharedLimit) return EK_SUCCESS;
  std::lock_guard<std::mutex> lock(k->mutex);
  if (shared_bytes <= k->dynamic_shared_set) return EK_SUCCESS;
  EK_FORWARD(jit::function_set_max_dynamic_shared(k->native, shared_bytes));
  k->dynamic_shared_set = shared_bytes;
  return EK_SUCCESS;
}

// The launch itself; the arguments have been checked.
ek_status enqueue(ek_kernel k, ek_stream s, const unsigned grid[3], const unsigned block[3],
                  size_t shared_bytes, const ek_kernel_arg *args, int n_args, bool dependent = false) {
  EK_FORWARD(bind_device(k->module->ctx));
  EK_FORWARD(allow_shared(k, shared_bytes));
  std::vector<void *> params(static_cast<size_t>(n_args));
  for (int i = 0; i < n_args; ++i) params[static_cast<size_t>(i)] = const_cast<void *>(args[i].value);
  return jit::launch(k->native, grid, block, shared_bytes, s->native,
                     n_args ? params.data() : nullptr, dependent);
}

// ---- ek_kernel_launch_auto

int log2_bucket(uint64_t n) {  // n rounded up to a power of two, as its exponent
  int e = 0;
  while (e < 64 && (uint64_t{1} << e) < n) ++e;
  return e;
}

// Block sizes 32..1024 the kernel allows whose grid for n fits in 2^31-1 blocks.
std::vector<unsigned> candidates(const ek_kernel_s *k, uint64_t n) {
  std::vector<unsigned> out;
  for (unsigned b = 32; b <= kMaxBlockXY; b *= 2)
    if (b <= static_cast<unsigned>(k->info.attributes.max_threads_per_block) &&
        (n + b - 1) / b <= kMaxGridX)
      out.push_back(b);
  return out;
}

ek_status launch_1d(ek_kernel k, ek_stream s, uint64_t n, unsigned b, size_t shared_bytes,
                    const ek_kernel_arg *args, int n_args) {
  const unsigned grid[3] = {static_cast<unsigned>((n + b - 1) / b), 1, 1};
  const unsigned block[3] = {b, 1, 1};
  return enqueue(k, s, grid, block, shared_bytes, args, n_args);
}

// Events on the stream around launches; destroyed with the object.
struct Events {
  void *e[kTimedLaunches + 1] = {};
  ~Events() {
    for (void *x : e)
      if (x) gpu::event_destroy(x);  // destroying NULL would leave cudart an error to report
  }
  ek_status create() {
    for (void *&x : e) EK_FORWARD(gpu::event_create(true, &x));
    return EK_SUCCESS;
  }
};

// The median time of kTimedLaunches launches with block size b, after a warm-up.
ek_status time_block(ek_kernel k, ek_stream s, uint64_t n, unsigned b, size_t shared_bytes,
                     const ek_kernel_arg *args, int n_args, Events *ev, float *median_ms) {
  EK_FORWARD(launch_1d(k, s, n, b, shared_bytes, args, n_args));
  EK_FORWARD(gpu::event_record(ev->e[0], s->native));
  for (int i = 1; i <= kTimedLaunches; ++i) {
    EK_FORWARD(launch_1d(k, s, n, b, shared_bytes, args, n_args));
    EK_FORWARD(gpu::event_record(ev->e[i], s->native));
  }
  EK_FORWARD(gpu::event_synchronize(ev->e[kTimedLaunches]));
  float ms[kTimedLaunches];
  for (int i = 0; i < kTimedLaunches; ++i)
    EK_FORWARD(gpu::event_elapsed(ev->e[i], ev->e[i + 1], &ms[i]));
  std::sort(ms, ms + kTimedLaunches);
  *median_ms = ms[kTimedLaunches / 2];
  return EK_SUCCESS;
}

// Times every candidate; the fastest (the smallest of equals) wins.
ek_status tune(ek_kernel k, ek_stream s, uint64_t n, const std::vector<unsigned> &blocks,
               size_t shared_bytes, const ek_kernel_arg *args, int n_args, unsigned *best) {
  EK_FORWARD(bind_device(k->module->ctx));
  Events ev;
  EK_FORWARD(ev.create());
  float best_ms = 0;
  for (unsigned b : blocks) {
    float ms = 0;
    EK_FORWARD(time_block(k, s, n, b, shared_bytes, args, n_args, &ev, &ms));
    log_message(EK_LOG_DEBUG, k->module->ctx->config.log_level,
                "%s, n = %" PRIu64 ": block %u takes %.4f ms", k->name.c_str(), n, b, ms);
    if (b == blocks.front() || ms < best_ms) {
      best_ms = ms;
      *best = b;
    }
  }
  return EK_SUCCESS;
}

// The remembered block for n's bucket, or a new choice, remembered.
ek_status choose_block(ek_kernel k, ek_stream s, uint64_t n, size_t shared_bytes,
                       const ek_kernel_arg *args, int n_args, unsigned *block) {
  const std::vector<unsigned> blocks = candidates(k, n);
  EK_CHECK(!blocks.empty(), EK_ERROR_INVALID_ARGUMENT,
           "n = %" PRIu64 " needs more than 2^31-1 blocks (or kernel %s allows fewer than 32 "
           "threads a block)", n, k->name.c_str());
  const auto key = std::make_pair(log2_bucket(n), shared_bytes);
  {
    std::lock_guard<std::mutex> lock(k->mutex);
    auto it = k->best_block.find(key);
    if (it != k->best_block.end() &&
        std::find(blocks.begin(), blocks.end(), it->second) != blocks.end()) {
      *block = it->second;
      return EK_SUCCESS;
    }
  }
  unsigned best = blocks.front();
  EK_FORWARD(tune(k, s, n, blocks, shared_bytes, args, n_args, &best));
  std::lock_guard<std::mutex> lock(k->mutex);
  // Two threads may have timed at once: both launch what was remembered first.
  *block = k->best_block.emplace(key, best).first->second;
  if (std::find(blocks.begin(), blocks.end(), *block) == blocks.end()) *block = best;
  return EK_SUCCESS;
}

// ek_kernel_launch after its handle checks: the checks every launch shares.
ek_status launch(ek_stream stream, ek_kernel k, const unsigned grid[3], const unsigned block[3],
                 size_t shared_bytes, const ek_kernel_arg *args, int n_args, bool dependent = false) {
  ek_stream s = nullptr;
  EK_FORWARD(resolve_stream(k->module->ctx, stream, &s));
  EK_FORWARD(check_dims(k, grid, block));
  EK_FORWARD(check_shared(k, shared_bytes));
  EK_FORWARD(check_args(k, args, n_args));
  return enqueue(k, s, grid, block, shared_bytes, args, n_args, dependent);
}

ek_status launch_auto(ek_stream stream, ek_kernel k, uint64_t n, size_t shared_bytes,
                      const ek_kernel_arg *args, int n_args, unsigned *block_used) {
  ek_stream s = nullptr;
  EK_FORWARD(resolve_stream(k->module->ctx, stream, &s));
  EK_FORWARD(check_shared(k, shared_bytes));
  EK_FORWARD(check_args(k, args, n_args));
  unsigned block = 0;
  if (n > 0) {
    EK_FORWARD(choose_block(k, s, n, shared_bytes, args, n_args, &block));
    EK_FORWARD(launch_1d(k, s, n, block, shared_bytes, args, n_args));
  }
  if (block_used) *block_used = block;
  return EK_SUCCESS;
}

}  // namespace

ek_status module_kernel(ek_module m, const char *name, const jit::KnownParams *known, ek_kernel *out) {
  EK_FORWARD(module_ensure_loaded(m));
  EK_FORWARD(bind_device(m->ctx));
  void *function = nullptr;
  EK_FORWARD(jit::function_get(m->native, name, &function));
  EK_CHECK(function, EK_ERROR_INVALID_ARGUMENT,
           "module %s has no kernel \"%s\" (kernels are found by symbol name: declare them "
           "extern \"C\" or pass the mangled name)",
           m->name.c_str(), name);
  auto k = std::make_unique<ek_kernel_s>();
  EK_FORWARD(jit::function_info(function, m->ctx->device.index, known, &k->info));
  k->module = m;
  k->native = function;
  k->name = name;
  m->refs++;
  m->ctx->live_objects++;
  handle_created();
  *out = k.release();
  return EK_SUCCESS;
}

ek_status launch_generated(ek_stream s, ek_kernel k, const unsigned grid[3], const unsigned block[3], size_t shared,
                          const ek_kernel_arg *args, int n_args, bool dependent) {
  return launch(s, k, grid, block, shared, args, n_args, dependent);
}

ek_status check_kernel(ek_kernel k, const char *name) {
  return check_handle(k, kKernelMagic, "ek_kernel", name);
}

}  // namespace ek

using namespace ek;

extern "C" {

EK_API ek_status ek_module_get_kernel(ek_module m, const char *name, ek_kernel *out) {
  EK_API_ENTRY;
  EK_CHECK_MODULE(m);
  EK_CHECK_NULL(name);
  EK_CHECK_NULL(out);
  return module_kernel(m, name, nullptr, out);
}

EK_API ek_status ek_kernel_retain(ek_kernel k) {
  EK_API_ENTRY;
  EK_CHECK_KERNEL(k);
  k->refs.fetch_add(1, std::memory_order_relaxed);
  return EK_SUCCESS;
}

EK_API ek_status ek_kernel_release(ek_kernel k) {
  EK_API_ENTRY;
  if (!k) return EK_SUCCESS;
  EK_CHECK_KERNEL(k);
  if (k->refs.fetch_sub(1, std::memory_order_acq_rel) != 1) return EK_SUCCESS;
  ek_module m = k->module;
  ek_context ctx = m->ctx;
  k->magic = kDeadMagic;
  delete k;
  ctx->live_objects--;
  handle_destroyed();
  module_unref(m);
  return EK_SUCCESS;
}

EK_API ek_status ek_kernel_get_attributes(ek_kernel k, ek_kernel_attributes *attributes) {
  EK_API_ENTRY;
  EK_CHECK_KERNEL(k);
  EK_CHECK_NULL(attributes);
  EK_CHECK_STRUCT(attributes, ek_kernel_attributes);
  write_struct(attributes, k->info.attributes, attributes->struct_size);
  return EK_SUCCESS;
}

EK_API ek_status ek_kernel_launch(ek_stream stream, ek_kernel k, const unsigned *grid,
                                  const unsigned *block, size_t shared_bytes,
                                  const ek_kernel_arg *args, int n_args) {
  EK_API_ENTRY;
  EK_CHECK_KERNEL(k);
  EK_CHECK_NULL(grid);
  EK_CHECK_NULL(block);
  EK_PROFILE_NAMED("ek_kernel", k->name.c_str(), k->module->ctx, stream, EK_IN(), EK_OUT());
  return launch(stream, k, grid, block, shared_bytes, args, n_args);
}

EK_API ek_status ek_kernel_launch_values(ek_stream stream, ek_kernel k, const unsigned *grid,
                                         const unsigned *block, size_t shared_bytes,
                                         const ek_kernel_value *args, int n_args) {
  EK_API_ENTRY;
  EK_CHECK_KERNEL(k);
  EK_CHECK_NULL(grid);
  EK_CHECK_NULL(block);
  EK_PROFILE_NAMED("ek_kernel", k->name.c_str(), k->module->ctx, stream, EK_IN(), EK_OUT());
  Marshalled m;
  EK_FORWARD(marshal(k, args, n_args, &m));
  return launch(stream, k, grid, block, shared_bytes, m.args.data(), n_args);
}

EK_API ek_status ek_kernel_launch_auto(ek_stream stream, ek_kernel k, uint64_t n,
                                       size_t shared_bytes, const ek_kernel_value *args,
                                       int n_args, unsigned *block_used) {
  EK_API_ENTRY;
  EK_CHECK_KERNEL(k);
  EK_PROFILE_NAMED("ek_kernel", k->name.c_str(), k->module->ctx, stream, EK_IN(), EK_OUT());
  Marshalled m;
  EK_FORWARD(marshal(k, args, n_args, &m));
  return launch_auto(stream, k, n, shared_bytes, m.args.data(), n_args, block_used);
}

}  // extern "C"
