// Internal declarations shared by the core's translation units.
#pragma once

#include "core/captures.hpp"
#include "ek.h"

#include <atomic>
#include <cstdarg>
#include <cstdint>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>

#include "core/pool.hpp"
#include "ops/tensor_desc.hpp"

namespace ek {

// ---- errors: every public entry names itself so messages can name it.
class ApiScope {
 public:
  explicit ApiScope(const char *function);
  ~ApiScope();
  ApiScope(const ApiScope &) = delete;
  ApiScope &operator=(const ApiScope &) = delete;

 private:
  const char *previous_;
};
#define EK_API_ENTRY ::ek::ApiScope ek_api_scope_(__func__)

// Records "function: message" as this thread's last error and returns status.
ek_status fail(ek_status status, const char *format, ...)
    __attribute__((format(printf, 2, 3)));

// How many failures this thread has recorded with fail(): a profiled call that
// saw the count move failed, and is not recorded.
uint64_t thread_failure_count();

// This thread's message, saved around an internal step whose failure the call
// recovers from (a kernel-cache write), so a successful call leaves it as it was.
std::string last_error_message();
void restore_last_error(std::string message);

#define EK_CHECK(cond, status, ...)                  \
  do {                                               \
    if (!(cond)) return ::ek::fail(status, __VA_ARGS__); \
  } while (0)
#define EK_CHECK_NULL(ptr) \
  EK_CHECK((ptr) != nullptr, EK_ERROR_NULL_POINTER, "%s is NULL", #ptr)
#define EK_FORWARD(expr)                       \
  do {                                         \
    ek_status ek_forward_ = (expr);            \
    if (ek_forward_ != EK_SUCCESS) return ek_forward_; \
  } while (0)

std::string format_shape(int ndim, const int64_t *shape);

// An enum field as the int a C caller stored in it: C may pass any int, and
// loading an out-of-range value through the C++ enum type is undefined.
template <class E>
int raw_enum(const E &e) {
  static_assert(sizeof(E) == sizeof(int), "C enums are int-sized");
  int v;
  std::memcpy(&v, &e, sizeof v);
  return v;
}


// printf into a std::string of any length.
std::string vformat(const char *format, va_list args);

// Writes text to path. A regular file or nothing there: a temporary file beside
// path (fsynced) is renamed onto it, so readers see the old file or the whole
// new one, and a failure leaves no file behind. A FIFO or device (or a symlink
// to one) is written in place, a FIFO with no reader failing at once; a symlink
// to a regular file is refused. EK_ERROR_IO naming path and the system's
// reason; EK_ERROR_INVALID_ARGUMENT for "".
ek_status write_file_replacing(const char *path, const std::string &text);

// Appends text as a quoted JSON string: quotes, backslashes and control
// characters escaped, valid UTF-8 kept, any other byte as U+FFFD (names can
// come from users' kernels and may be cut mid-character).
void append_json_string(std::string &out, const char *text);

// snprintf's contract for text out of the library: up to capacity - 1 bytes
// and a NUL into buffer (untouched when capacity is 0), the full length into
// *length.
inline void copy_text_out(const std::string &text, char *buffer, size_t capacity,
                          size_t *length) {
  if (capacity > 0) {
    size_t n = text.size() < capacity - 1 ? text.size() : capacity - 1;
    std::memcpy(buffer, text.data(), n);
    buffer[n] = '\0';
  }
  *length = text.size();
}

// ---- logging (log.cpp): threshold is the context's config.log_level, or
// process_log_level() for a message about no context. Check log_enabled
// first where the arguments cost something to compute.
inline bool log_enabled(ek_log_level level, ek_log_level threshold) {
  return level != EK_LOG_OFF && level <= threshold;
}
void log_message(ek_log_level level, ek_log_level threshold, const char *format, ...)
    __attribute__((format(printf, 3, 4)));
// EK_LOG_LEVEL as read at the first call (EK_LOG_OFF when unset or invalid).
ek_log_level process_log_level();
// "off", "error", "warn", "info", "debug" (any case).
bool parse_log_level(const char *text, ek_log_level *level);

// ---- live handle accounting (ek_live_handles)
void handle_created();
void handle_destroyed();

// ---- handles
constexpr uint32_t kContextMagic = 0x454b4358;  // "EKCX"
constexpr uint32_t kStreamMagic = 0x454b5354;
constexpr uint32_t kEventMagic = 0x454b4556;
constexpr uint32_t kTensorMagic = 0x454b5453;
constexpr uint32_t kDeadMagic = 0xdeaddead;
// The magic checks catch a wrong or already-dead handle while its memory is
// still mapped, as a debugging aid only: ek.h makes a released handle
// undefined behaviour, so the messages promise no detection.
#define EK_STALE_HANDLE_NOTE "(using a released handle is undefined behaviour: see ek.h)"

// A handle argument's check, one for every handle type: not NULL, and its
// magic that of a live `type` (the messages name the argument and the type).
template <typename H>
ek_status check_handle(const H *h, uint32_t magic, const char *type, const char *name) {
  EK_CHECK(h != nullptr, EK_ERROR_NULL_POINTER, "%s is NULL", name);
  EK_CHECK(h->magic == magic, EK_ERROR_INVALID_ARGUMENT, "%s is not a live %s " EK_STALE_HANDLE_NOTE,
           name, type);
  return EK_SUCCESS;
}

struct Backend;
namespace fusion {
struct Group;
struct State;
}  // namespace fusion
// How many ek_* calls this thread is inside (1 in a call made by the user).
int api_depth();
class PoolSync;
class PoolMemory;
class Profiler;

}  // namespace ek

struct ek_stream_s {
  uint32_t magic = ek::kStreamMagic;
  ek_context ctx = nullptr;
  void *native = nullptr;  // cudaStream_t; nullptr on CPU
  uint64_t id = 0;         // identity in the pool (cudaStreamGetId on CUDA)
  bool owned = false;      // we created the native stream
  bool is_default = false;
  std::atomic<void *> scratch{nullptr};  // see stream_scratch()
  std::mutex pinned_mutex;               // see StreamPinned; guards the two below
  void *pinned_host = nullptr;
  void *pinned_device = nullptr;
  ek::fusion::Group *fusion_group = nullptr;  // pending ops (src/core/fusion.cpp), under ctx's fusion mutex
  std::atomic<int> fusion_mode{0};            // ek_stream_set_fusion; 0: the context's
};

struct ek_event_s {
  uint32_t magic = ek::kEventMagic;
  ek_context ctx = nullptr;
  void *native = nullptr;     // cudaEvent_t; nullptr on CPU
  // Atomic: one thread may record the event while others query or time it.
  std::atomic<double> host_ms{0};   // CPU: time of the last record
  std::atomic<bool> recorded{false};  // set after host_ms (release)
};

struct ek_context_s {
  uint32_t magic = ek::kContextMagic;
  ek_device device{};
  const ek::Backend *backend = nullptr;  // src/core/backend.hpp: chosen once, at creation
  ek_context_config config{};
  // Guards config's memory_limit and memory_fraction, which the limit setters
  // change after creation (the other fields never change); held by no pool call.
  std::mutex config_mutex;
  std::string cache_dir;
  std::unique_ptr<ek::PoolMemory> memory;
  std::unique_ptr<ek::PoolSync> sync;
  std::unique_ptr<ek::Pool> pool;
  std::unique_ptr<ek::GraphPools> graph_pools;  // src/core/graph.cpp
  ek_stream_s default_stream;
  std::atomic<int64_t> live_objects{0};  // streams, events, tensors of this context
  std::atomic<uint64_t> next_cpu_stream_id{1};
  std::mutex callback_mutex;
  ek_memory_callback callback = nullptr;
  void *callback_user = nullptr;
  // ek_random's generator (src/ops/random.cpp); ek.h documents the default seed.
  std::mutex rng_mutex;
  uint64_t rng_seed = 0x853c49e6748fea9bull;
  uint64_t rng_offset = 0;
  std::atomic<void *> blas{nullptr};                // cuBLAS handle (kernels/cublas.cpp), made on first use
  void (*release_blas)(ek_context ctx) = nullptr;   // set with it; destroy_context calls it
  // ek_profiler_* (src/core/profiler.cpp): made at the first start, freed with the context.
  std::atomic<bool> profiling{false};
  std::mutex profiler_mutex;
  ek::Profiler *profiler = nullptr;
  ek::fusion::State *fusion = nullptr;  // src/core/fusion.cpp: made at creation
  bool is_cuda() const { return device.type == EK_CUDA; }
  ek_context_s();
  ~ek_context_s();  // in memory.cpp, where the pool's parts are complete types
};

namespace ek {

struct Storage {
  std::atomic<int64_t> refs{1};
  ek_context ctx = nullptr;
  void *data = nullptr;
  uint64_t bytes = 0;
  bool pooled = false;       // from ctx's pool: freed on alloc_stream
  uint64_t alloc_stream = 0; // pool stream id
  ek_deleter deleter = nullptr;
  void *deleter_user = nullptr;
  void *deleter_data = nullptr;  // pointer handed to ek_tensor_wrap
  // The pending fusion group reading or writing this storage (src/core/fusion.cpp).
  std::atomic<fusion::Group *> fusion_group{nullptr};
};
void release_storage(Storage *st);

}  // namespace ek

struct ek_tensor_s {
  uint32_t magic = ek::kTensorMagic;
  std::atomic<int64_t> refs{1};
  ek::Storage *storage = nullptr;
  ek_dtype dtype = EK_FLOAT32;
  int ndim = 0;
  int64_t shape[EK_MAX_DIMS] = {};
  int64_t strides[EK_MAX_DIMS] = {};
  int64_t offset = 0;
};

namespace ek {

// ---- handle validation (a released handle is caught while its memory is ours)
ek_status check_context(ek_context ctx, const char *name);
ek_status check_stream(ek_stream s, const char *name);
ek_status check_event(ek_event e, const char *name);
ek_status check_tensor(ek_tensor t, const char *name);
#define EK_CHECK_CONTEXT(x) EK_FORWARD(::ek::check_context((x), #x))
#define EK_CHECK_STREAM(x) EK_FORWARD(::ek::check_stream((x), #x))
#define EK_CHECK_EVENT(x) EK_FORWARD(::ek::check_event((x), #x))
#define EK_CHECK_TENSOR(x) EK_FORWARD(::ek::check_tensor((x), #x))

// NULL stream -> ctx's default; a stream of another context is an error.
ek_status resolve_stream(ek_context ctx, ek_stream s, ek_stream *out);
// Makes ctx's device current on this thread (CUDA only; no-op on CPU).
ek_status activate(ek_context ctx);

// ---- shapes
bool checked_numel(int ndim, const int64_t *shape, int64_t *numel);
ek_status check_shape(int ndim, const int64_t *shape, ek_dtype dtype, int64_t *numel,
                      uint64_t *bytes);
bool dtype_valid(int dtype);
int64_t tensor_numel(const ek_tensor_s *t);
bool tensor_contiguous(const ek_tensor_s *t);
void contiguous_strides(int ndim, const int64_t *shape, int64_t *strides);
ek_status wrap_dim(int dim, int ndim, const char *what, int *out);
TensorDesc tensor_desc(const ek_tensor_s *t);
void *tensor_data(const ek_tensor_s *t);

// ---- tensors
ek_status new_tensor(ek_context ctx, int ndim, const int64_t *shape, ek_dtype dtype,
                     ek_stream stream, ek_tensor *out);
ek_tensor new_view(const ek_tensor_s *base);  // shares storage, copies the layout
// ek_tensor_wrap without its entry checks (ctx and out already checked).
ek_status wrap_memory(ek_context ctx, void *data, int ndim, const int64_t *shape,
                      const int64_t *strides, ek_dtype dtype, ek_deleter deleter,
                      void *user_data, ek_tensor *out);
// EK_ERROR_INDEX unless every element of the layout lies inside base's storage.
// EK_ERROR_OVERFLOW when a stride times the element size leaves int64.
ek_status check_byte_strides(int ndim, const int64_t *strides, ek_dtype dtype);
ek_status check_layout_in_storage(const ek_tensor_s *base, int ndim, const int64_t *shape,
                                  const int64_t *strides, int64_t offset);
void tensor_set_layout(ek_tensor t, int ndim, const int64_t *shape, const int64_t *strides,
                       int64_t offset);

// ---- data movement (copy_ops.cpp)
// src's layout broadcast to dst's shape (NumPy rules), as a descriptor.
ek_status broadcast_to(const ek_tensor_s *src, const ek_tensor_s *dst, TensorDesc *out);
bool writes_overlap(const ek_tensor_s *dst);  // a stride-0 dim of size > 1
bool same_layout(const TensorDesc &a, const TensorDesc &b);  // same elements, same order
// Whether a and b may share a byte: exact (a bounded search over their
// indices, so interleaved disjoint views do not overlap), "true" only if the
// search runs out of steps. See the out-parameter convention in ek.h.
bool ranges_overlap(const TensorDesc &a, const TensorDesc &b);
// ---- arguments every entry shares (args.cpp)
// ek.h's struct_size rule: EK_ERROR_INVALID_ARGUMENT naming type and sizes
// when struct_size is below size_1_0 (the struct's size in API 1.0).
ek_status check_struct_size(size_t struct_size, size_t size_1_0, const char *type);
// sizeof(type) is each struct's 1.0 size as long as no field has been
// appended; the release that appends one passes offsetof(type, new_field).
#define EK_CHECK_STRUCT(p, type) \
  EK_FORWARD(::ek::check_struct_size((p)->struct_size, sizeof(type), #type))
// Writes value into dst, the caller's struct of struct_size bytes (checked
// with check_struct_size), with that struct_size: never a byte past it.
template <class T>
void write_struct(void *dst, T value, size_t struct_size) {
  value.struct_size = struct_size;
  std::memcpy(dst, &value, struct_size < sizeof(T) ? struct_size : sizeof(T));
}
// Element i of the caller's array whose elements are stride bytes apart
// (ek.h: the first element's struct_size).
template <class T>
void write_struct_at(T *array, size_t stride, size_t i, T value) {
  write_struct(reinterpret_cast<char *>(array) + i * stride, value, stride);
}
// The (stream, ctx) of a function that creates on a context: ctx may be NULL
// when stream is given; both given must agree. *s_out is never NULL.
ek_status resolve_creator(ek_stream stream, ek_context ctx, ek_context *ctx_out,
                          ek_stream *s_out);
// An unknown kind, a nonzero reserved_ or imag, a bool holding other than 0
// or 1: EK_ERROR_INVALID_ARGUMENT naming the parameter.
// A complex kind is EK_ERROR_DTYPE here; check_scalar_or_complex takes it
// (the functions ek.h says take complex values).
ek_status check_scalar(const ek_scalar &v, const char *name);
ek_status check_scalar_or_complex(const ek_scalar &v, const char *name);
#define EK_CHECK_SCALAR(v) EK_FORWARD(::ek::check_scalar((v), #v))
std::string format_scalar(const ek_scalar &v);
bool scalar_is_float(const ek_scalar &v);
// Conversions of a checked scalar: to double (one rounding); to int64 when
// the value is an integer in int64's range (false otherwise).
double scalar_to_double(const ek_scalar &v);
bool scalar_to_int64(const ek_scalar &v, int64_t *out);
// v rounded once to the float dtype (as ek_fill stores it), as a double.
double scalar_rounded_to(const ek_scalar &v, ek_dtype dtype);
bool scalar_is_integral(const ek_scalar &v);  // integer kinds, or a finite integral float
// -1, 0 or 1 as v is below, equal to or above x, exactly.
int scalar_compare_int(const ek_scalar &v, int64_t x);
// value as one element of dtype (ek.h's ek_scalar rule; fill and masked_fill):
// EK_ERROR_INVALID_ARGUMENT naming the value when it does not fit.
ek_status scalar_to_element(const ek_scalar &value, ek_dtype dtype, uint64_t *elem);
// Internal callers' ek_fill values.
inline ek_scalar int_scalar(int64_t i) {
  ek_scalar v{};
  v.kind = EK_SCALAR_INT64;
  v.i = i;
  return v;
}
// The op-output convention: creates *out when NULL, else checks its context,
// dtype and shape (*created says which).
ek_status prepare_out(ek_context ctx, ek_stream s, int ndim, const int64_t *shape,
                      ek_dtype dtype, ek_tensor *out, bool *created);
// Runs body(out) and releases a freshly created out if body fails.
template <typename Body>  // Body: ek_status(ek_tensor out)
ek_status fill_out(ek_context ctx, ek_stream s, int ndim, const int64_t *shape, ek_dtype dtype,
                   ek_tensor *out, Body body) {
  ek_tensor o = *out;
  bool created = false;
  EK_FORWARD(prepare_out(ctx, s, ndim, shape, dtype, &o, &created));
  ek_status st = body(o);
  if (st != EK_SUCCESS) {
    if (created) ek_tensor_release(o);
    return st;
  }
  *out = o;
  return EK_SUCCESS;
}

// dst = src on one device (same shapes; src may have stride-0 dims), with cast.
ek_status device_copy(ek_context ctx, ek_stream s, const TensorDesc &dst, const TensorDesc &src);
// ---- complex dtypes (src/ops/complex_copy.cpp)
// Part 0 (real) or 1 (imaginary) of a complex layout, as a float layout.
TensorDesc complex_part(const TensorDesc &d, int part);
// device_copy when either side is complex (the backends move real dtypes only).
ek_status complex_device_copy(ek_context ctx, ek_stream s, const TensorDesc &dst, const TensorDesc &src);
// EK_ERROR_DTYPE for complex -> real (ek.h: the imaginary part is not dropped silently).
ek_status check_cast(ek_dtype from, ek_dtype to);
// Every element of d (not empty) = value, converted as ek_fill does; complex dtypes too.
ek_status fill_value(ek_context ctx, ek_stream s, const TensorDesc &d, const ek_scalar &value);

// The elementwise ops' out (ek.h: a given *out may have another dtype than
// the result when the result's category is not above its own). The common
// case, no *out or one of the result's dtype, costs one compare more than
// fill_out; the other computes into a pool temporary on s and converts.
inline bool out_converts(const ek_tensor_s *o, ek_dtype dtype) {
  return o && o->magic == kTensorMagic && o->dtype != dtype;
}
// o's checks but its dtype, the category rule, then *tmp of the result's dtype.
ek_status converting_out(ek_context ctx, ek_stream s, int ndim, const int64_t *shape,
                         ek_dtype dtype, ek_tensor o, ek_tensor *tmp);
template <typename Body>  // Body: ek_status(ek_tensor out)
ek_status fill_out_converting(ek_context ctx, ek_stream s, int ndim, const int64_t *shape,
                              ek_dtype dtype, ek_tensor *out, Body body) {
  if (!out_converts(*out, dtype)) return fill_out(ctx, s, ndim, shape, dtype, out, body);
  ek_tensor tmp = nullptr;
  EK_FORWARD(converting_out(ctx, s, ndim, shape, dtype, *out, &tmp));
  ek_status st = body(tmp);
  if (st == EK_SUCCESS) st = device_copy(ctx, s, tensor_desc(*out), tensor_desc(tmp));
  ek_tensor_release(tmp);
  return st;
}
// t's values, C order, into host memory; returns when dst holds them.
ek_status copy_to_host_contiguous(const ek_tensor_s *t, void *dst, ek_stream s);

// ---- memory
ek_status pool_allocate(ek_context ctx, size_t bytes, ek_stream stream, void **ptr);
// record_stream of a block of ctx's pool or of one of its graph pools.
ek_status pool_record_stream(ek_context ctx, void *ptr, uint64_t stream_id);
ek_status pool_free(ek_context ctx, void *ptr, uint64_t stream_id);

// A block from ctx's pool for one call's temporary data, returned to the pool
// on the same stream when the call's scope ends (stream order keeps it alive
// for the work already enqueued).
class Scratch {
 public:
  Scratch(ek_context ctx, ek_stream s) : ctx_(ctx), s_(s) {}
  ~Scratch() {
    if (ptr_) pool_free(ctx_, ptr_, s_->id);
  }
  Scratch(const Scratch &) = delete;
  Scratch &operator=(const Scratch &) = delete;
  ek_status allocate(size_t bytes) { return bytes ? pool_allocate(ctx_, bytes, s_, &ptr_) : EK_SUCCESS; }
  void *get() const { return ptr_; }

 private:
  ek_context ctx_;
  ek_stream s_;
  void *ptr_ = nullptr;
};
ek_status init_memory(ek_context ctx);
void shutdown_memory(ek_context ctx);
void register_pool_stream(ek_context ctx, uint64_t id, void *native);
void unregister_pool_stream(ek_context ctx, uint64_t id);
ek_status memcpy_any(ek_context ctx, void *dst, const void *src, size_t bytes, ek_stream s);
// The pool's statistics as the public struct (ek_memory_get_stats).
ek_memory_stats public_stats(const PoolStats &p, uint64_t limit);

// ---- per-stream device scratch (CUDA streams)
// kStreamScratchBytes of device memory owned by stream s, zeroed when first
// made, outside the pool (so pool statistics do not see it). Kernels on s run
// in order, so they may keep state in it between launches (reduce.cu's
// last-block counter must be zero again when its kernel ends).
constexpr size_t kStreamScratchBytes = 64 * 1024;
ek_status stream_scratch(ek_stream s, void **ptr);
void release_stream_scratch(ek_stream s);

// ---- per-stream pinned words (CUDA streams)
// kStreamPinnedWords int64 words of pinned host memory mapped into the device,
// owned by stream s and made on first use: a kernel or copy on s leaves a
// small result there that the host reads right after synchronizing s, with no
// copy into pageable memory. A StreamPinned holds s's lock from setting a word
// to reading it back, so threads sharing s cannot mix up their results; each
// use has its own word.
// The checked gathers' words hold 0 or a bad index one of them met (never 0
// itself: the kernels only check dims of size >= 1), a word per op so that a
// deferred report can name it.
enum StreamWord : int {
  kWordBadIndexSelect = 0,
  kWordMaskCount = 1,
  kWordUniqueCount = 2,
  kWordBadGather = 3
};
constexpr int kStreamPinnedWords = 8;  // 64 bytes

class StreamPinned {
 public:
  explicit StreamPinned(ek_stream s) : s_(s), lock_(s->pinned_mutex) {}
  ek_status init();  // s's device must be current
  int64_t *host(StreamWord w) const { return static_cast<int64_t *>(s_->pinned_host) + w; }
  int64_t *device(StreamWord w) const { return static_cast<int64_t *>(s_->pinned_device) + w; }
  // Volatile: the device writes these words behind the compiler's back.
  void set(StreamWord w, int64_t v) const { *static_cast<volatile int64_t *>(host(w)) = v; }
  int64_t get(StreamWord w) const { return *static_cast<volatile int64_t *>(host(w)); }

 private:
  ek_stream s_;
  std::lock_guard<std::mutex> lock_;
};
// The stream has been synchronized: nothing on it writes the words any more.
void release_stream_pinned(ek_stream s);

// ---- CUDA graphs (graph.cpp); captures_underway() in core/captures.hpp
const std::atomic<int> *capture_freeze_flag();
// Whether s captures a graph (its own or one it joined); one atomic load
// while no capture is underway.
bool stream_capturing(ek_stream s);
// The graph pool serving allocations on s, which is capturing, or nullptr.
GraphPool *capture_pool(ek_stream s);
// A block of ctx's pool freed on a capturing stream (native) is kept by the
// capture until its graph goes: true when a capture took it.
bool capture_keeps(ek_context ctx, void *native, void *ptr, uint64_t stream_id);
// ek_random with the context's generator on a capturing stream s: *offset is
// relative to the device word *base, which each replay sets to the
// generator's offset (and then advances it by what the graph draws).
ek_status capture_random(ek_stream s, uint64_t n, uint64_t *offset, const uint64_t **base);
// EK_ERROR_CAPTURE when s captures, for the calls that wait for the device or
// read a result back: checked before they enqueue anything (a captured copy
// to pageable memory would invalidate the capture).
ek_status refuse_capture(ek_stream s);
// After s was synchronized: EK_ERROR_INDEX when a checked gather whose check
// was deferred (config.index_check, or captured and replayed) met a bad index
// (the device error words are then cleared).
ek_status pending_index_error(ek_stream s);

}  // namespace ek
