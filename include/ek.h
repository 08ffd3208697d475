/*
 * ek.h — the public C API of libek, a GPU tensor runtime with a stable C ABI.
 *
 * Conventions (apply to every function below unless its comment says otherwise):
 *  - Every function returns ek_status; 0 (EK_SUCCESS) is success. Results come
 *    back through out-parameters, which are left untouched on failure.
 *  - On failure, ek_last_error() returns this OS thread's message naming the
 *    function and the offending values. The message is never NULL.
 *  - Handles are opaque and owned by the caller. Reference-counted handles
 *    (tensors, modules, kernels) have ek_<object>_retain and _release; the
 *    others (contexts, streams, events, elementwise builders) have _create
 *    and _destroy. destroy/release of NULL is a no-op.
 *  - Passing a handle after its last release or its destroy (a stale handle:
 *    a second release included) is undefined behaviour, as in libuv and zstd:
 *    the library may catch it while the memory is still mapped and return
 *    EK_ERROR_INVALID_ARGUMENT, but it cannot tell a stale handle from a new
 *    object at the same address. Checking every handle against a registry of
 *    live ones would cost a lookup per handle per call (+23 ns on a 14 ns
 *    call, bench/bench_handles); the bindings (Python, Rust, Go) instead make
 *    a stale handle impossible to pass.
 *  - Argument order: the stream comes first in every function that enqueues
 *    work (ops, copies, fills, tensor creators, memory, kernel launches,
 *    ek_event_record); then the inputs; the outputs last (ek_copy(stream,
 *    src, dst), ek_fill(stream, value, t)). A NULL ek_stream means the
 *    default stream of the context involved. Functions that create something
 *    on a context take (stream, ctx, ...): ctx may be NULL when stream is
 *    given; when both are given they must agree (EK_ERROR_INVALID_ARGUMENT).
 *  - Ops take their output tensor last as ek_tensor *out: when *out is NULL a
 *    new tensor is allocated and returned (caller releases it); otherwise the
 *    result is written into *out, whose shape and dtype are checked.
 *    Elementwise ops (ek_unary, ek_binary, ek_binary_scalar, ek_where,
 *    ek_clamp, ek_lerp, ek_axpby) also accept a *out whose dtype differs from
 *    the result's when the result's category (bool < integer < float) is not
 *    above *out's, as PyTorch's in-place ops: the result is converted on
 *    store as by ek_cast (x_f32 += y_f64 works; x_int += y_f32 is
 *    EK_ERROR_DTYPE). Every binding's in-place forms rely on this rule.
 *  - Names: getters are ek_<object>_get_<what>; a variant of an operation is
 *    an enum value of one function (ek_softmax's kind, ek_scan's op), never a
 *    second symbol or a flag.
 *  - Values (fill values, scalar operands, bounds, coefficients, distribution
 *    parameters) are passed as ek_scalar, which carries its kind, so 64-bit
 *    integers stay exact.
 *  - Structs the library fills begin with `size_t struct_size`, which the
 *    caller sets to sizeof the struct it was compiled with (the _INIT macros
 *    do). The library writes only that many bytes, so a newer library never
 *    writes past an older caller's struct, and fields added later are not
 *    written for old callers; a struct_size below the 1.0 size is
 *    EK_ERROR_INVALID_ARGUMENT. For arrays of them, the first element's
 *    struct_size gives the stride.
 *  - Declarations inside `#ifdef EK_EXPERIMENTAL` (the profiler, elementwise
 *    builders, autotuned launches) are not yet covered by the ABI promise
 *    (docs/ABI.md): define EK_EXPERIMENTAL before including ek.h to use them,
 *    and expect them to change in a minor release.
 *  - "Overlap" between a given *out and an input means sharing a byte, decided
 *    exactly for any strides: interleaved views that share no element (out =
 *    x[1::2] with input x[::2]) do not overlap. The test is a search over both
 *    layouts' indices bounded to a few thousand steps; a layout pair it cannot
 *    settle within them counts as overlapping (never the other way round).
 *  - Shapes, strides (in elements) and indices are int64_t; sizes in bytes are
 *    size_t. Every size product is checked for overflow (EK_ERROR_OVERFLOW).
 *  - Dims may be negative and count from the end, as in Python.
 *
 * Threads: every function may be called from any thread, and one context,
 * stream, event or tensor may be used by several threads at once (tensors'
 * reference counts, the pool, the kernel caches, the profiler and the
 * context's configuration are synchronized inside), with three exceptions
 * the caller orders: destroying or releasing a handle's last reference while
 * another thread still uses it; writing to memory (an op's *out, a fill, a
 * copy's dst) that another thread reads or writes at the same time on
 * another stream or the CPU backend, as with any shared buffer; and a
 * callback that waits for a thread calling into the library (see
 * ek_log_set_callback). Error messages are per OS thread.
 *
 * Asynchrony: on CUDA, work is enqueued on a stream and the call returns
 * before the device has done it: ops, copies between device tensors, fills,
 * ek_memcpy (device to device or pinned memory), allocation and free (stream
 * ordered) and kernel launches. Calls that return only when the work is done
 * say "Synchronous": ek_tensor_to_host, ek_*_synchronize, and the ops that must
 * read a count or check indices on the host (the indexing section names
 * them). ek_tensor_from_host returns once the host buffer may be reused. Work
 * on two streams is unordered unless an event (ek_stream_wait_event) orders
 * it. On the CPU backend every call does its work before it returns, on the
 * calling thread (large ops with the help of worker threads:
 * ek_context_config.num_threads).
 */
#ifndef EK_H
#define EK_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(_WIN32)
#  if defined(EK_BUILDING)
#    define EK_API __declspec(dllexport)
#  else
#    define EK_API __declspec(dllimport)
#  endif
#elif defined(__GNUC__)
#  define EK_API __attribute__((visibility("default")))
#else
#  define EK_API
#endif

/* ---------------------------------------------------------------- version */

/* EK_VERSION_MAJOR, _MINOR, _PATCH and EK_VERSION_STRING of this header come
   from ek_version.h, which the build generates from the one version in
   meson.build and installs next to ek.h. Compare them with ek_version() /
   ek_version_string() to tell the header compiled against from the library
   loaded. docs/ABI.md states what a version change promises. */
#include "ek_version.h"
#define EK_VERSION_NUMBER \
  (EK_VERSION_MAJOR * 10000 + EK_VERSION_MINOR * 100 + EK_VERSION_PATCH)
/** MAJOR * 10000 + MINOR * 100 + PATCH, of the library actually loaded. */
EK_API unsigned ek_version(void);
/** "MAJOR.MINOR.PATCH" of the library actually loaded: three decimal numbers
 *  and nothing else (no build suffix). Static storage; never NULL. */
EK_API const char *ek_version_string(void);

/* ---------------------------------------------------------------- status */

/* X(name, value, description): one list feeds the enum and ek_status_string. */
#define EK_STATUS_LIST(X)                                                    \
  X(EK_SUCCESS, 0, "success")                                                \
  X(EK_ERROR_INVALID_ARGUMENT, 1, "invalid argument")                        \
  X(EK_ERROR_NULL_POINTER, 2, "null pointer")                                \
  X(EK_ERROR_SHAPE, 3, "shape mismatch")                                     \
  X(EK_ERROR_DTYPE, 4, "unsupported or mismatched dtype")                    \
  X(EK_ERROR_INDEX, 5, "index out of range")                                 \
  X(EK_ERROR_OVERFLOW, 6, "size overflow")                                   \
  X(EK_ERROR_OUT_OF_MEMORY, 7, "out of memory")                              \
  X(EK_ERROR_NO_DEVICE, 8, "no such device")                                 \
  X(EK_ERROR_DEVICE, 9, "device error")                                      \
  X(EK_ERROR_NOT_SUPPORTED, 10, "not supported")                             \
  X(EK_ERROR_NOT_READY, 11, "not ready")                                     \
  X(EK_ERROR_COMPILE, 12, "compilation failed")                              \
  X(EK_ERROR_LIBRARY, 13, "library not found")                               \
  X(EK_ERROR_IO, 14, "input/output error")                                   \
  X(EK_ERROR_INTERNAL, 15, "internal error")                                 \
  X(EK_ERROR_CAPTURE, 16, "not allowed while a stream is capturing a graph")   \
  X(EK_ERROR_TIMEOUT, 17, "timed out")

typedef enum {
#define EK_STATUS_ENUM_(name, value, text) name = value,
  EK_STATUS_LIST(EK_STATUS_ENUM_)
#undef EK_STATUS_ENUM_
} ek_status;

/** Static string naming the status ("EK_ERROR_SHAPE"); "EK_UNKNOWN_STATUS" for
 *  values outside the list. Never NULL; not freed. */
EK_API const char *ek_status_string(ek_status status);
/** Static description of the status ("shape mismatch"). Never NULL. */
EK_API const char *ek_status_description(ek_status status);
/** This OS thread's message for its last failed call ("" when none). Borrowed:
 *  valid until this thread's next failing ek_* call. Never NULL. */
EK_API const char *ek_last_error(void);
/** Forget this thread's last error message. */
EK_API void ek_clear_error(void);

/* ---------------------------------------------------------------- devices */

typedef enum { EK_CPU = 0, EK_CUDA = 1 } ek_device_type;

/** A device by value, like DLDevice. */
typedef struct {
  ek_device_type type;
  int index;
} ek_device;

typedef struct {
  size_t struct_size;       /* set by the caller: sizeof(ek_device_info) */
  char name[256];
  ek_device_type type;
  int index;
  int compute_major;        /* CUDA compute capability; 0 on CPU */
  int compute_minor;
  int multiprocessors;      /* SMs on CUDA; logical cores on CPU */
  uint64_t total_memory;    /* bytes */
  uint64_t l2_cache_size;   /* bytes; 0 when unknown */
} ek_device_info;
#define EK_DEVICE_INFO_INIT {sizeof(ek_device_info), {0}, EK_CPU, 0, 0, 0, 0, 0, 0}

/** Number of devices of a type. CPU: always 1. CUDA: 0 (and EK_SUCCESS) on a
 *  machine without a driver or GPU; this is the only CUDA query that never
 *  returns EK_ERROR_NO_DEVICE. */
EK_API ek_status ek_device_get_count(ek_device_type type, int *count);
/** Fills *info. EK_ERROR_NO_DEVICE when the device does not exist. */
EK_API ek_status ek_device_get_info(ek_device device, ek_device_info *info);

/* ---------------------------------------------------------------- handles */

typedef struct ek_context_s *ek_context;
typedef struct ek_stream_s *ek_stream;
typedef struct ek_event_s *ek_event;
typedef struct ek_tensor_s *ek_tensor;

/* ---------------------------------------------------------------- contexts */

typedef enum {
  EK_LOG_OFF = 0,
  EK_LOG_ERROR = 1,
  EK_LOG_WARN = 2,
  EK_LOG_INFO = 3,
  EK_LOG_DEBUG = 4
} ek_log_level;

/** Receives one log message: level is never EK_LOG_OFF; message is one line or
 *  more, without a trailing newline, borrowed for the duration of the call
 *  (copy it to keep it). */
typedef void (*ek_log_callback)(ek_log_level level, const char *message, void *user_data);
/** Process-wide: messages that pass a context's log level go to callback
 *  instead of stderr ("[ek info] message"); callback NULL restores stderr.
 *  Nothing is logged unless a level asks for it: a context's config.log_level
 *  (or EK_LOG_LEVEL when it was created; default EK_LOG_OFF) filters the
 *  messages about it, and messages about no context (e.g. "no CUDA device",
 *  once per process) pass EK_LOG_LEVEL as read at the first such message.
 *  Filtered messages cost no formatting.
 *  Threads: the callback may run concurrently on any thread that calls ek_*
 *  (often with a pool or stream busy, so it should return quickly). Setting or
 *  replacing it is safe while other threads log: each message goes wholly to
 *  one (callback, user_data) pair or to stderr, and once ek_log_set_callback
 *  returns, calls to the previous callback have finished and none begins, so
 *  the caller may free the previous user_data. The callback may call ek_*
 *  functions; a message those log on the same thread goes to stderr, never
 *  back into the callback. Calling ek_log_set_callback from inside the
 *  callback is EK_ERROR_INVALID_ARGUMENT (it would wait for itself), and the
 *  callback must not wait for a thread that is calling it (a deadlock). */
EK_API ek_status ek_log_set_callback(ek_log_callback callback, void *user_data);

/** When a CUDA gather (ek_index_select, ek_gather, and the key indexing that
 *  gathers) reports an index out of range. CUDA contexts default to
 *  EK_INDEX_CHECK_DEFERRED (0.1.0 checked at the call): a wait per
 *  gather cost more than many gathers themselves. CPU contexts always check
 *  at the call. */
typedef enum {
  EK_INDEX_CHECK_AT_CALL = 1,  /* the call fails, naming the first bad index (one
                                  stream synchronization per call; see the
                                  indexing section) */
  EK_INDEX_CHECK_DEFERRED = 2  /* CUDA's default: the call returns without waiting,
                                  as PyTorch's asynchronous checks; the next
                                  ek_stream_synchronize or ek_tensor_to_host on that
                                  stream (ek_context_synchronize: the default stream)
                                  fails with EK_ERROR_INDEX, once, naming the op
                                  (ek_index_select, ek_gather) and one bad index it met,
                                  and the gather's output is not valid */
} ek_index_check;

/** Context options. Zero/NULL fields mean "not set": the environment variable
 *  (read once, at creation) applies, then the default. A set field wins over
 *  the environment. Initialise with EK_CONTEXT_CONFIG_INIT or
 *  ek_context_config_init() so struct_size is set and fields added later get
 *  their defaults; ek_context_create reads only struct_size bytes. */
typedef struct {
  size_t struct_size;          /* sizeof(ek_context_config) */
  uint64_t memory_limit;       /* pool limit in bytes (EK_MEMORY_LIMIT; its grammar: README) */
  double memory_fraction;      /* of device memory, (0, 1] (EK_MEMORY_FRACTION); one that
                                  gives less than one byte fails the creation */
  int allow_tf32;              /* 1: float32 matrix products may use TF32 */
  const char *kernel_cache_dir;/* copied at creation (EK_KERNEL_CACHE_DIR) */
  ek_log_level log_level;      /* EK_LOG_LEVEL: off, error, warn, info, debug */
  int64_t num_threads;         /* CPU contexts: threads for large ops (EK_NUM_THREADS), 1 to
                                  1024; 0: one per hardware thread. Negative or above 1024
                                  fails the creation. Results do not depend on it (reductions
                                  keep one summation order). ek_context_get_config reports the
                                  count in use. 64 bits, not int: an int would sit in
                                  the 1.0 struct's tail padding, and struct_size could not
                                  tell a 1.0 caller's leftover bytes from a count */
  int64_t index_check;         /* an ek_index_check (EK_INDEX_CHECK: "call" or "deferred");
                                  0: not set, EK_INDEX_CHECK_DEFERRED on CUDA,
                                  EK_INDEX_CHECK_AT_CALL on the CPU, whose contexts always
                                  check at the call. ek_context_get_config reports the mode */
  int64_t fusion;              /* an ek_fusion (EK_FUSION: 0, 1 or "rounded"); 0: not set, the
                                  default, EK_FUSION_OFF (see the fusion section).
                                  ek_context_get_config reports the mode in use */
  int64_t fusion_max_kernels;  /* distinct fused kernels the context may compile
                                  (EK_FUSION_MAX_KERNELS), >= 0; 0: not set, 256. Past it
                                  groups that need a new kernel run eagerly (one log line) */
} ek_context_config;

#define EK_CONTEXT_CONFIG_INIT {sizeof(ek_context_config), 0, 0.0, 0, NULL, EK_LOG_OFF, 0, 0, 0, 0}
/** Sets every field to "not set" and struct_size to sizeof(ek_context_config). */
EK_API ek_status ek_context_config_init(ek_context_config *config);

/** Creates a context on a device: its memory pool, default stream and caches.
 *  config may be NULL. A CPU context never touches the CUDA API. EK_ERROR_NO_DEVICE
 *  for a CUDA device that is absent (or when there is no driver). Destroy with
 *  ek_context_destroy. */
EK_API ek_status ek_context_create(ek_device device, const ek_context_config *config,
                                   ek_context *out);
/** Waits for the context's work, then frees it. Tensors, streams, events,
 *  modules, kernels and elementwise builders of the context must have been
 *  released or destroyed first; otherwise EK_ERROR_INVALID_ARGUMENT and
 *  nothing is freed.
 *  NULL is a no-op. */
EK_API ek_status ek_context_destroy(ek_context ctx);
EK_API ek_status ek_context_get_device(ek_context ctx, ek_device *device);
/** Effective configuration after environment and defaults were applied
 *  (config->struct_size set by the caller). The kernel_cache_dir string is
 *  borrowed from the context. */
EK_API ek_status ek_context_get_config(ek_context ctx, ek_context_config *config);
/** Waits for all work on all streams of the context. */
EK_API ek_status ek_context_synchronize(ek_context ctx);
/** The context's default stream; borrowed (never destroy it). */
EK_API ek_status ek_context_get_default_stream(ek_context ctx, ek_stream *out);

/* ---------------------------------------------------------------- streams */

/** A new stream of the context (a non-blocking cudaStream_t on CUDA; on CPU
 *  work runs synchronously on the calling thread). Destroy with ek_stream_destroy. */
EK_API ek_status ek_stream_create(ek_context ctx, ek_stream *out);
/** Wraps an existing cudaStream_t (e.g. torch.cuda.current_stream().cuda_stream)
 *  without taking ownership: ek_stream_destroy leaves the native stream alive.
 *  native may be NULL for the legacy default stream. CUDA contexts only. */
EK_API ek_status ek_stream_wrap(ek_context ctx, void *native, ek_stream *out);
/** Frees a stream created or wrapped by the caller, after its pending work.
 *  Destroying a context's default stream is an error. NULL is a no-op. */
EK_API ek_status ek_stream_destroy(ek_stream stream);
EK_API ek_status ek_stream_synchronize(ek_stream stream);
/** *done = 1 when all work submitted to the stream has completed. */
EK_API ek_status ek_stream_query(ek_stream stream, int *done);
/** Later work on stream waits until event completes (no host wait). */
EK_API ek_status ek_stream_wait_event(ek_stream stream, ek_event event);
/** The native handle: cudaStream_t on CUDA, NULL on CPU. Borrowed. */
EK_API ek_status ek_stream_get_native(ek_stream stream, void **native);
EK_API ek_status ek_stream_get_context(ek_stream stream, ek_context *ctx);

/* ---------------------------------------------------------------- events */

/** An event with timing enabled. Destroy with ek_event_destroy.
 *  Events may be shared between threads: ek_event_record on one thread while
 *  others call ek_event_query, ek_event_synchronize, ek_event_get_elapsed_ms or
 *  ek_stream_wait_event on the same event is safe, and each reader sees the
 *  event as of one record or the other (as with CUDA events). Only
 *  ek_event_destroy must not race any other use of the event. */
EK_API ek_status ek_event_create(ek_context ctx, ek_event *out);
EK_API ek_status ek_event_destroy(ek_event event);
/** Captures the work submitted to stream so far (NULL: the default stream of
 *  the event's context). */
EK_API ek_status ek_event_record(ek_stream stream, ek_event event);
EK_API ek_status ek_event_synchronize(ek_event event);
/** *done = 1 when the captured work has completed (1 for a never-recorded event). */
EK_API ek_status ek_event_query(ek_event event, int *done);
/** Milliseconds between two recorded, completed events of one context.
 *  EK_ERROR_NOT_READY if either has not completed. */
EK_API ek_status ek_event_get_elapsed_ms(ek_event start, ek_event end, float *ms);

/* ---------------------------------------------------------------- memory */

/** Stream-ordered allocation from the context's caching pool, 512-byte
 *  aligned (ctx may be NULL when stream is given). The block may be used on
 *  `stream` at once; other streams need ek_record_stream or an event.
 *  bytes == 0 returns *ptr == NULL. Free with ek_free. EK_ERROR_OUT_OF_MEMORY (message gives the pool's numbers and the
 *  segment it last tried) after the pool has released its cache and retried,
 *  the last time with a segment of the request's own size when the limit or
 *  the device had no room for the usual one. */
EK_API ek_status ek_malloc(ek_stream stream, ek_context ctx, size_t bytes, void **ptr);
/** Returns a block to the pool, ordered after the work already submitted to
 *  `stream`: that stream may reuse it at once, other streams only after that
 *  work completes. NULL ptr is a no-op; an unknown or already-freed pointer is
 *  EK_ERROR_INVALID_ARGUMENT and changes nothing. ctx may be NULL when stream
 *  is given, here and in ek_record_stream and ek_memcpy. */
EK_API ek_status ek_free(ek_stream stream, ek_context ctx, void *ptr);
/** Declares that the block at ptr is also used on `stream`: its reuse after
 *  ek_free waits for that stream's work too. */
EK_API ek_status ek_record_stream(ek_stream stream, ek_context ctx, void *ptr);
/** Copies bytes from src to dst (note the order: output last), between any
 *  mix of host and this context's device memory, asynchronously on stream
 *  (ordered with the stream's other work; pageable host memory may make it
 *  synchronous). On CPU contexts a plain memcpy. */
EK_API ek_status ek_memcpy(ek_stream stream, ek_context ctx, const void *src, void *dst,
                           size_t bytes);

typedef struct {
  size_t struct_size;              /* set by the caller: sizeof(ek_memory_stats) */
  uint64_t allocated_bytes;        /* live blocks, rounded sizes */
  uint64_t reserved_bytes;         /* segments obtained from the device */
  uint64_t requested_bytes;        /* live blocks, sizes as asked */
  uint64_t peak_allocated_bytes;
  uint64_t peak_reserved_bytes;
  uint64_t peak_requested_bytes;
  uint64_t total_allocated_bytes;  /* cumulative */
  uint64_t total_freed_bytes;
  uint64_t active_blocks;          /* live allocations */
  uint64_t cached_blocks;          /* free blocks held by the pool */
  uint64_t segments;
  uint64_t alloc_count;
  uint64_t free_count;
  uint64_t cache_hits;             /* allocations served without a device malloc */
  uint64_t device_mallocs;
  uint64_t device_frees;
  uint64_t retries;                /* allocations that released the cache and retried */
  uint64_t oom_count;
  uint64_t largest_free_block;
  uint64_t cached_free_bytes;
  uint64_t limit_bytes;            /* 0: no limit */
  double fragmentation;            /* 1 - largest_free_block / cached_free_bytes */
} ek_memory_stats;
#define EK_MEMORY_STATS_INIT \
  {sizeof(ek_memory_stats), 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0.0}

EK_API ek_status ek_memory_get_stats(ek_context ctx, ek_memory_stats *stats);
/** Peaks restart from the current values. */
EK_API ek_status ek_memory_reset_peaks(ek_context ctx);
/** Returns every cached, fully free segment to the device. */
EK_API ek_status ek_memory_empty_cache(ek_context ctx);
/** Limit on reserved bytes; 0, and only 0, means no limit. */
EK_API ek_status ek_memory_set_limit(ek_context ctx, uint64_t bytes);
/** Limit as a fraction (0, 1] of the device's total memory, rounded down to
 *  whole bytes. A fraction outside (0, 1], or one that gives less than one
 *  byte (it would read as "no limit"), is EK_ERROR_INVALID_ARGUMENT and
 *  changes nothing. */
EK_API ek_status ek_memory_set_fraction(ek_context ctx, double fraction);

typedef struct {
  size_t struct_size;     /* set by the caller in blocks[0]: sizeof(ek_memory_block) */
  uint64_t segment_address;
  uint64_t segment_size;
  uint64_t address;
  uint64_t size;          /* rounded */
  uint64_t requested;     /* as asked; 0 for free blocks */
  int allocated;          /* 1 live, 0 cached free */
  uint64_t stream_id;     /* stream the block belongs to */
} ek_memory_block;

/** Two-phase snapshot: writes up to capacity blocks (segment by segment, in
 *  address order) and the total number into *count. Call with blocks NULL to
 *  size the array. blocks[0].struct_size (when capacity > 0) is the stride;
 *  every written element gets it too. */
EK_API ek_status ek_memory_get_snapshot(ek_context ctx, ek_memory_block *blocks,
                                        size_t capacity, size_t *count);

/** Writes the pool's snapshot and statistics, taken together under the pool's
 *  lock, as JSON (UTF-8) to the file at path, for scripts/plot_memory.py or
 *  any reader:
 *    {"version": 1,
 *     "device": {"type": "cuda" | "cpu", "index": N, "name": "..."},
 *     "stats": {every field of ek_memory_stats but struct_size, by its name},
 *     "segments": [{"address", "size", "stream_id",
 *                   "blocks": [{"address", "size", "requested",
 *                               "allocated": true | false, "stream_id"}]}]}
 *  Segments and their blocks are in address order, as ek_memory_get_snapshot
 *  lists them (the same blocks, same count); a segment's stream_id is the
 *  stream that created it. Integers are written exactly, in decimal:
 *  addresses (48-bit virtual addresses on current 64-bit platforms) and
 *  sizes stay below 2^53, so doubles (e.g. JavaScript numbers) hold them
 *  exactly; the exception is the stream_id 18446744073709551615 (UINT64_MAX)
 *  of blocks that destroyed streams left to the pool's shared list.
 *  Where path is a regular file or nothing, the text is written to a short
 *  temporary name beside it, fsynced and renamed into place: readers never see
 *  a partial file, and on failure no file is left. A FIFO or a device at path
 *  (/dev/stdout, /dev/null, or a symbolic link to one) is written in place and
 *  never replaced; a FIFO that no process reads fails at once with
 *  EK_ERROR_IO instead of blocking. A symbolic link to a regular file is
 *  refused (EK_ERROR_IO): replacing it would turn the link into a file, and
 *  writing through it would let whoever made the link choose the file
 *  overwritten; pass the file's own path. EK_ERROR_IO (naming path and the
 *  system's reason) when it cannot be written; EK_ERROR_INVALID_ARGUMENT for "". */
EK_API ek_status ek_memory_write_snapshot_json(ek_context ctx, const char *path);
/** The same JSON text into buffer, like snprintf: *length receives the text's
 *  length in bytes (without the NUL); up to capacity - 1 bytes of it and a NUL
 *  are written. The text is complete when *length < capacity; call with buffer
 *  NULL and capacity 0 to size it (the pool may change before the next call:
 *  check again). */
EK_API ek_status ek_memory_get_snapshot_json(ek_context ctx, char *buffer, size_t capacity,
                                             size_t *length);

typedef enum {
  EK_MEMORY_EVENT_OOM = 0,        /* bytes: the failing request; the pool retries once after */
  EK_MEMORY_EVENT_THRESHOLD = 1   /* bytes: reserved bytes after crossing the threshold */
} ek_memory_event;
typedef void (*ek_memory_callback)(ek_context ctx, ek_memory_event event, uint64_t bytes,
                                   void *user_data);
/** Called (with the pool unlocked, on the allocating thread) when an allocation
 *  cannot be served, before the final retry — it may free memory — and when
 *  reserved memory rises past threshold_bytes (0: never). NULL callback clears.
 *  The callback may call ek_* functions, ek_malloc included; while it runs,
 *  memory events on its thread (of any context) call no memory callback, so an
 *  allocation made from inside it that runs out of memory fails with
 *  EK_ERROR_OUT_OF_MEMORY on its own (or succeeds) instead of recursing. */
EK_API ek_status ek_memory_set_callback(ek_context ctx, ek_memory_callback callback,
                                        void *user_data, uint64_t threshold_bytes);

/* ---------------------------------------------------------------- graphs
 * CUDA graphs: the work enqueued on a stream between ek_graph_capture_begin
 * and ek_graph_capture_end is recorded, not run, and ek_graph_launch replays
 * it with one launch (well under a microsecond of host time per captured op).
 * Any op on any stream of the context can be captured: cuBLAS products, user
 * kernels (compiled before the capture: a kernel-cache miss would compile
 * with NVRTC, which is refused), elementwise-builder kernels, indexing and
 * random ops. Another stream joins the capture by waiting on an event
 * recorded on a capturing stream (ek_stream_wait_event), and must be joined
 * back the same way before the capture ends, as in CUDA.
 *
 * Memory: while a stream is capturing, allocations on it (and on streams
 * joined into its capture) come from the capture's graph pool, not from the
 * context's pool; tensors created during the capture keep their addresses in
 * every replay. A block freed during the capture goes back to the graph pool
 * and may serve later allocations of the same capture on the same stream
 * (graph order); it never returns to the context's pool. A block of the
 * context's pool freed on a capturing stream is kept by the graph until
 * ek_graph_destroy (the graph's nodes may still read it). The graph pool's
 * memory is given back to the device when the pool handle, every graph
 * captured into it and every block still allocated from it are gone.
 * Graphs that share one pool (ek_graph_pool_create) may reuse each other's
 * freed blocks, so they must be replayed in the order they were captured
 * (as with torch.cuda.graph_pool_handle). A graph reads and writes the
 * addresses it was captured with: to replay on new data, overwrite its input
 * tensors in place (ek_copy) and read its outputs after the launch.
 * ek_graph_pool_get_stats reports a graph pool; the JSON snapshot (ek_memory_write_snapshot_json) has a last member
 * "graph_pools": [{"id": N, "stats": {...}, "segments": [...]}], each pool's
 * stats and segments in the format of the context pool's. While any capture of the context is underway,
 * no pool of the context queries or waits on events (CUDA forbids it): a
 * stream then reuses only blocks freed on itself and the cache is not
 * released on out of memory.
 *
 * Capture safety: calls that wait for the device or read a device value on
 * the host return EK_ERROR_CAPTURE (the capture stays valid) when their
 * stream is capturing: ek_stream_synchronize, ek_tensor_to_host,
 * ek_tensor_from_host and the other synchronous copies (checked before they
 * enqueue anything), ek_masked_select, ek_nonzero and the other ops the
 * indexing section calls synchronous, ek_memory_empty_cache, an NVRTC compile
 * (kernel-cache miss) and ek_context_synchronize while any capture is
 * underway in the process; ek_record_stream on a capturing stream.
 * Destroying a capturing stream fails the same way. Checked gathers
 * (index_select, gather, ...) do not wait during a capture: an index out of
 * range met by a replay is reported (EK_ERROR_INDEX) by the next
 * ek_stream_synchronize of the stream that captured the gather.
 *
 * Random numbers: ek_random with the context's generator (state NULL) is
 * captured with the seed of that moment and an offset relative to a device
 * word that ek_graph_launch sets to the generator's offset before each replay,
 * advancing the generator by the replay's draws: every replay draws new
 * numbers, the same ones the captured calls would draw eagerly at that point
 * of the generator's sequence. An explicit ek_philox_state is captured as a
 * constant: every replay then draws the same numbers.
 *
 * Errors: beginning a capture on a stream that is already capturing, on a
 * graph pool that is capturing elsewhere, ending one on a stream that does
 * not capture, or a capture that CUDA invalidated (an illegal call in between)
 * is EK_ERROR_CAPTURE with CUDA's reason; a failed end leaves the stream not
 * capturing and frees what the capture allocated.
 *
 * CPU backend: there is nothing to capture (work runs when called), so
 * ek_graph_capture_begin and ek_graph_pool_create return EK_ERROR_NOT_SUPPORTED;
 * ek_stream_is_capturing reports 0. Programs run the same step eagerly there. */

typedef struct ek_graph_s *ek_graph;
typedef struct ek_graph_pool_s *ek_graph_pool;

/* The modes of cudaStreamCaptureMode (same values): which other calls CUDA
 * refuses while the capture runs. GLOBAL: potentially unsafe calls
 * (cudaMalloc, synchronization) from any thread; THREAD_LOCAL: from this
 * thread only; RELAXED: none. */
#define EK_CAPTURE_MODE_LIST(X)                       \
  X(EK_CAPTURE_GLOBAL, 0, "global")                   \
  X(EK_CAPTURE_THREAD_LOCAL, 1, "thread_local")       \
  X(EK_CAPTURE_RELAXED, 2, "relaxed")

typedef enum {
#define EK_OP_ENUM_(name, value, text) name = value,
  EK_CAPTURE_MODE_LIST(EK_OP_ENUM_)
#undef EK_OP_ENUM_
} ek_capture_mode;

/** A graph pool that several captures may share (torch.cuda.graph_pool_handle).
 *  Destroy with ek_graph_pool_destroy; its memory lives on while graphs
 *  captured into it or blocks allocated from it live. CUDA contexts only. */
EK_API ek_status ek_graph_pool_create(ek_context ctx, ek_graph_pool *out);
/** Drops the handle. NULL is a no-op. */
EK_API ek_status ek_graph_pool_destroy(ek_graph_pool pool);
/** The graph pool's statistics (stats->struct_size set by the caller), as
 *  ek_memory_get_stats reports the context's pool; limit_bytes is 0. */
EK_API ek_status ek_graph_pool_get_stats(ek_graph_pool pool, ek_memory_stats *stats);

/** Starts capturing the work enqueued on stream (not NULL:
 *  ek_context_get_default_stream gives the default one) into a graph. pool NULL: a new pool private to the graph; else the
 *  given pool (of the stream's context), which must not be capturing already.
 *  End with ek_graph_capture_end on the same stream. */
EK_API ek_status ek_graph_capture_begin(ek_stream stream, ek_graph_pool pool,
                                        ek_capture_mode mode);
/** Ends the capture begun on stream and instantiates it as *out (destroy with
 *  ek_graph_destroy). */
EK_API ek_status ek_graph_capture_end(ek_stream stream, ek_graph *out);
/** Uploads the graph to the device ahead of its first launch, on stream, so
 *  that launch costs no setup. Optional. */
EK_API ek_status ek_graph_upload(ek_stream stream, ek_graph graph);
/** Replays the graph on stream (NULL: the default stream of the graph's
 *  context), after the work already enqueued there. When the graph draws
 *  from the context's generator, a one-element fill runs first (see above). */
EK_API ek_status ek_graph_launch(ek_stream stream, ek_graph graph);
/** Frees the graph and its hold on its pool. The context-pool blocks it kept
 *  go back after the device finished its replays (a device-wide wait, skipped
 *  while another capture is underway). NULL is a no-op. */
EK_API ek_status ek_graph_destroy(ek_graph graph);
/** *capturing = 1 when stream is capturing a graph, its own or one it joined
 *  (stream must not be NULL: ek_context_get_default_stream gives the default). */
EK_API ek_status ek_stream_is_capturing(ek_stream stream, int *capturing);

/* ---------------------------------------------------------------- dtypes */

typedef enum {
  EK_BOOL = 0,
  EK_UINT8 = 1,
  EK_INT8 = 2,
  EK_INT16 = 3,
  EK_INT32 = 4,
  EK_INT64 = 5,
  EK_FLOAT16 = 6,
  EK_BFLOAT16 = 7,
  EK_FLOAT32 = 8,
  EK_FLOAT64 = 9,
  EK_UINT16 = 10,
  EK_UINT32 = 11,
  EK_UINT64 = 12,
  EK_COMPLEX64 = 13,  /* two float32: real, imag (see "complex numbers") */
  EK_COMPLEX128 = 14  /* two float64 */
} ek_dtype;
#define EK_NUM_DTYPES 15
/* The most dims a tensor may have. No struct of the ABI depends on it, so a
 * minor release may raise it. */
#define EK_MAX_DIMS 8

/* Casts. Every conversion between dtypes (ek_cast, ek_copy, and every op that
 * stores into a dtype other than its compute type) follows one rule:
 *  - float -> integer (uint8 ... int64): truncate toward zero, then saturate:
 *    NaN gives 0, +inf and values above the dtype's maximum give the maximum,
 *    -inf and values below its minimum give the minimum (as CUDA's
 *    __float2int_rz; 3e9 -> int32 is 2147483647, -1.0 -> uint8 is 0). The same
 *    on the CPU and CUDA.
 *  - integer -> narrower integer: wraps (two's complement), as C and PyTorch.
 *  - anything -> bool: x != 0 (NaN is true). bool -> number: 0 or 1.
 *  - -> float16/bfloat16: through float32, round to nearest even, overflow to
 *    inf; -> float32/float64: one round to nearest even. NaN keeps its sign
 *    only (payloads are dropped; a float16 NaN is 0x7fff with the sign, as
 *    the GPU's conversion gives, a bfloat16 NaN 0x7fc0).
 *  - uint64 -> float: from the exact unsigned value (2^64 - 1 -> 1.8e19);
 *    float -> uint64 saturates to [0, 2^64 - 1] like the other integers.
 * Values passed as ek_scalar to ek_fill and ek_masked_fill are stricter:
 * see ek_scalar.
 *
 * Unsigned dtypes (uint8, uint16, uint32, uint64) promote as NumPy: with a
 * wider signed integer they take that type; with a signed integer of the same
 * or greater width the next wider signed type (uint16 + int16 -> int32,
 * uint32 + int32 -> int64); uint64 with any signed integer -> float64, as
 * NumPy (there is no wider signed type). Arithmetic wraps modulo 2^bits; the
 * order-dependent ops (compare, maximum/minimum, floor_divide, remainder,
 * shift_right, abs, sign, reductions max/min/argmax/argmin) use the unsigned
 * order. sum/prod/cumsum/cumprod of uint64 give uint64 (the same
 * bits as the int64 that smaller integers give). */

/** Bytes per element; 0 for an unknown dtype. */
EK_API size_t ek_dtype_size(ek_dtype dtype);
/** "float32", "bfloat16", …; "unknown" otherwise. Static. */
EK_API const char *ek_dtype_name(ek_dtype dtype);

/* Values are fixed: new kinds are appended. */
typedef enum {
  EK_SCALAR_BOOL = 0,     /* reads i, which must be 0 or 1 */
  EK_SCALAR_INT64 = 1,    /* reads i */
  EK_SCALAR_UINT64 = 2,   /* reads u */
  EK_SCALAR_FLOAT64 = 3,  /* reads f */
  EK_SCALAR_COMPLEX = 4   /* reads f (real part) and imag */
} ek_scalar_kind;

/** A value with its kind, passed by value: exactly one field is read, chosen by
 *  kind, so 64-bit integers stay exact (ek_scalar_int(x) and the
 *  other constructors below); the other
 *  value fields are ignored. reserved_ must be 0, and imag too except for
 *  EK_SCALAR_COMPLEX (ek_scalar_complex, see "complex numbers"). Each function says how it uses the value; stored into
 *  a tensor of dtype dt (ek_fill, ek_masked_fill):
 *  - integer dt: the value truncated toward zero must lie in dt's range, and
 *    a NaN or infinite float never does: otherwise EK_ERROR_INVALID_ARGUMENT
 *    naming the value and the dtype (int8 and 300, int64 and 9.25e18, uint8
 *    and -1). No saturation and no wrap-around, unlike the cast rule above.
 *  - bool dt: value != 0 (NaN is true).
 *  - float dt: rounded once to nearest even (float16/bfloat16 through
 *    float32), overflow to inf, as ek_cast.
 *  - complex dt: a real kind gives (value, 0); EK_SCALAR_COMPLEX (re, im),
 *    each part rounded as for the float dtype of the parts. A complex scalar
 *    stored into a real dtype, or passed where a function takes no complex
 *    value, is EK_ERROR_DTYPE.
 *  An unknown kind, a bool kind whose i is not 0 or 1, a nonzero reserved_
 *  or (for a non-complex kind) imag is EK_ERROR_INVALID_ARGUMENT, everywhere
 *  a scalar is taken. */
typedef struct ek_scalar {
  ek_scalar_kind kind;
  int32_t reserved_;
  int64_t i;
  uint64_t u;
  double f;
  double imag;
} ek_scalar;

/* Constructors (header-only: not library symbols). */
static inline ek_scalar ek_scalar_of_kind_(ek_scalar_kind kind) {
  ek_scalar s;
  s.kind = kind;
  s.reserved_ = 0;
  s.i = 0;
  s.u = 0;
  s.f = 0.0;
  s.imag = 0.0;
  return s;
}
static inline ek_scalar ek_scalar_bool(int v) {
  ek_scalar s = ek_scalar_of_kind_(EK_SCALAR_BOOL);
  s.i = v != 0;
  return s;
}
static inline ek_scalar ek_scalar_int(int64_t v) {
  ek_scalar s = ek_scalar_of_kind_(EK_SCALAR_INT64);
  s.i = v;
  return s;
}
static inline ek_scalar ek_scalar_uint(uint64_t v) {
  ek_scalar s = ek_scalar_of_kind_(EK_SCALAR_UINT64);
  s.u = v;
  return s;
}
static inline ek_scalar ek_scalar_float(double v) {
  ek_scalar s = ek_scalar_of_kind_(EK_SCALAR_FLOAT64);
  s.f = v;
  return s;
}

/* ---------------------------------------------------------------- tensors */

/** New uninitialised C-contiguous tensor, its storage allocated on stream
 *  (ctx may be NULL when stream is given). */
EK_API ek_status ek_tensor_empty(ek_stream stream, ek_context ctx, int ndim,
                                 const int64_t *shape, ek_dtype dtype, ek_tensor *out);
/** New C-contiguous tensor holding a copy of host data (numel * dtype size
 *  bytes, C order). Returns once the host buffer may be reused. */
EK_API ek_status ek_tensor_from_host(ek_stream stream, ek_context ctx, int ndim,
                                     const int64_t *shape, ek_dtype dtype, const void *data,
                                     ek_tensor *out);
/** Copies the tensor (any strides) into host memory in C order; bytes must be
 *  numel * dtype size. stream NULL: t's context's default stream.
 *  Synchronous: returns when dst holds the data. */
EK_API ek_status ek_tensor_to_host(ek_stream stream, ek_tensor t, void *dst, size_t bytes);

typedef void (*ek_deleter)(void *data, void *user_data);
/** Wraps memory owned elsewhere: device memory for a CUDA context, host memory
 *  for a CPU context. strides (elements) may be NULL for C-contiguous. With a
 *  deleter, it is called with (data, user_data) when the last view is released;
 *  without one, libek never frees the memory. */
EK_API ek_status ek_tensor_wrap(ek_context ctx, void *data, int ndim, const int64_t *shape,
                                const int64_t *strides, ek_dtype dtype, ek_deleter deleter,
                                void *user_data, ek_tensor *out);
/** Adds a reference to the handle t; each retain needs one more release. */
EK_API ek_status ek_tensor_retain(ek_tensor t);
/** Drops a reference; the storage goes with its last view. NULL is a no-op. */
EK_API ek_status ek_tensor_release(ek_tensor t);

/** shape and strides point into the tensor handle: borrowed, valid while t
 *  lives (views never change them); ndim entries each (NULL when ndim is 0). */
typedef struct {
  size_t struct_size;             /* set by the caller: sizeof(ek_tensor_info) */
  ek_dtype dtype;
  int ndim;
  const int64_t *shape;
  const int64_t *strides;         /* elements */
  int64_t offset;                 /* elements from the start of the storage */
  int64_t numel;
  uint64_t nbytes;                /* numel * element size */
  int is_contiguous;              /* C-contiguous */
  void *data;                     /* element 0 (storage start + offset); borrowed */
  ek_device device;
  uint64_t storage_bytes;
} ek_tensor_info;
#define EK_TENSOR_INFO_INIT \
  {sizeof(ek_tensor_info), EK_BOOL, 0, NULL, NULL, 0, 0, 0, 0, NULL, {EK_CPU, 0}, 0}

EK_API ek_status ek_tensor_get_info(ek_tensor t, ek_tensor_info *info);
/** Pointer to element 0; borrowed, valid while t lives. */
EK_API ek_status ek_tensor_get_data(ek_tensor t, void **data);
/** The tensor's context; borrowed. */
EK_API ek_status ek_tensor_get_context(ek_tensor t, ek_context *ctx);
/** Marks the storage as used on stream, so its release waits for that stream. */
EK_API ek_status ek_tensor_record_stream(ek_stream stream, ek_tensor t);

/* ---------------------------------------------------------------- DLPack
 * Zero-copy exchange with other frameworks through DLPack 1.x's
 * DLManagedTensorVersioned (https://dmlc.github.io/dlpack/latest/). ek.h only
 * names the struct; include the official dlpack.h (1.x) to read its fields.
 * Devices: EK_CPU is kDLCPU, EK_CUDA index N is kDLCUDA device_id N. Dtypes:
 * bool is kDLBool (8 bits), uint8 kDLUInt, int8..int64 kDLInt, float16/32/64
 * kDLFloat, bfloat16 kDLBfloat; lanes is 1. Strides are in elements. */

struct DLManagedTensorVersioned;

/** Flags of ek_tensor_from_dlpack (0: share, or copy only a read-only source). */
#define EK_DLPACK_COPY 1     /* always copy into a new ek tensor */
#define EK_DLPACK_NO_COPY 2  /* never copy: a read-only source is EK_ERROR_NOT_SUPPORTED */

/** Exports a view of t: *out (version 1.0, flags 0: writable) has t's data
 *  pointer at element 0 (byte_offset 0), device, dtype, shape and strides
 *  (never NULL; a broadcast dim has stride 0, a reversed one a negative
 *  stride). It holds a reference to t's storage, not to the handle: t may be
 *  released at once. Whoever ends up owning *out calls (*out)->deleter(*out)
 *  exactly once, from any thread; until then t's context counts it as a live
 *  tensor (ek_context_destroy fails). No device work is done or waited for:
 *  on CUDA the consumer orders its use after ek's (e.g. ek_stream_synchronize,
 *  or an event its stream waits for). */
EK_API ek_status ek_tensor_to_dlpack(ek_tensor t, struct DLManagedTensorVersioned **out);
/** A tensor of ctx over src's memory. src must be DLPack major version 1 (any
 *  minor; another major is EK_ERROR_NOT_SUPPORTED, and then only src->deleter
 *  may be read), on ctx's device: kDLCPU or kDLCUDAHost for a CPU context,
 *  kDLCUDA or kDLCUDAManaged with ctx's index for a CUDA one (another device of
 *  a supported kind: EK_ERROR_INVALID_ARGUMENT; other kinds such as ROCm:
 *  EK_ERROR_NOT_SUPPORTED). ndim in [0, EK_MAX_DIMS]; strides NULL means
 *  compact row-major; data + byte_offset is element 0 and must be aligned to
 *  the element size. A dtype ek lacks or lanes != 1 is EK_ERROR_DTYPE; a
 *  shape, stride or byte_offset whose extent leaves int64 or the address space
 *  is EK_ERROR_OVERFLOW.
 *  Copies: ek tensors are writable, so a source flagged
 *  DLPACK_FLAG_BITMASK_READ_ONLY is copied into a new contiguous tensor
 *  (EK_ERROR_NOT_SUPPORTED under EK_DLPACK_NO_COPY); EK_DLPACK_COPY copies
 *  any source. A copy is complete when the call returns. Unknown flag bits,
 *  or both flags: EK_ERROR_INVALID_ARGUMENT.
 *  Ownership: on EK_SUCCESS src is consumed and must not be used again: when
 *  shared, *out owns it and calls src->deleter(src) (if not NULL) once its
 *  last view is released (on CUDA after waiting for the context's work, so the
 *  producer may reuse the memory at once); when copied, src->deleter has
 *  already been called. On any failure src is untouched and still the
 *  caller's, who calls its deleter (DLPack's rule for a version mismatch too). */
EK_API ek_status ek_tensor_from_dlpack(ek_context ctx, struct DLManagedTensorVersioned *src,
                                       int flags, ek_tensor *out);

/* ---------------------------------------------------------------- views
 * Views share storage with their source, copy nothing and return a new handle
 * the caller releases; whatever *out held before is ignored (not released). */

/** Bounds for ek_view_slice meaning "from the start"/"to the end" whatever the
 *  step's sign (Python's None); out-of-range bounds are clamped as in Python. */
#define EK_SLICE_MAX INT64_MAX
#define EK_SLICE_MIN INT64_MIN

/** t[..., start:stop:step, ...] along dim; step != 0, negative steps allowed. */
EK_API ek_status ek_view_slice(ek_tensor t, int dim, int64_t start, int64_t stop,
                               int64_t step, ek_tensor *out);
/** t[..., index, ...]: removes dim; index may be negative. */
EK_API ek_status ek_view_select(ek_tensor t, int dim, int64_t index, ek_tensor *out);
/** Reorders dims: out dim i is t's dim perm[i]; ndim must equal t's. */
EK_API ek_status ek_view_permute(ek_tensor t, int ndim, const int *perm, ek_tensor *out);
EK_API ek_status ek_view_transpose(ek_tensor t, int dim0, int dim1, ek_tensor *out);
/** A view with a new shape (one entry may be -1). EK_ERROR_SHAPE when the
 *  strides do not allow a view; ek_reshape copies in that case. */
EK_API ek_status ek_view_reshape(ek_tensor t, int ndim, const int64_t *shape, ek_tensor *out);
/** Broadcasts size-1 dims (stride 0) and prepends dims; -1 keeps a size. */
EK_API ek_status ek_view_expand(ek_tensor t, int ndim, const int64_t *shape, ek_tensor *out);
/** Removes the listed size-1 dims; ndims == 0 removes every size-1 dim. */
EK_API ek_status ek_view_squeeze(ek_tensor t, int ndims, const int *dims, ek_tensor *out);
/** Inserts a size-1 dim at dim (in [-ndim-1, ndim]). */
EK_API ek_status ek_view_unsqueeze(ek_tensor t, int dim, ek_tensor *out);
/** Merges dims start..end (inclusive) into one; a view when strides allow,
 *  otherwise EK_ERROR_SHAPE (ek_reshape copies). */
EK_API ek_status ek_view_flatten(ek_tensor t, int start_dim, int end_dim, ek_tensor *out);
/** Any shape/strides/offset (elements) over t's storage; every reachable
 *  element must lie inside the storage (EK_ERROR_INDEX otherwise). */
EK_API ek_status ek_view_as_strided(ek_tensor t, int ndim, const int64_t *shape,
                                    const int64_t *strides, int64_t offset, ek_tensor *out);

/* ---------------------------------------------------------------- data movement */

/** dst[...] = src broadcast to dst's shape, cast to dst's dtype; any strides;
 *  src and dst may live on different devices (CPU <-> CUDA, or two CUDA
 *  contexts: see "multi-GPU" below). stream NULL: dst's
 *  context default stream (src's when dst is on the CPU). dst must not be a
 *  broadcast (stride-0) view; when dst and src overlap, the result is as if src
 *  had been copied to a temporary first. */
EK_API ek_status ek_copy(ek_stream stream, ek_tensor src, ek_tensor dst);
/** Reshape that copies into a new contiguous tensor when no view exists. */
EK_API ek_status ek_reshape(ek_stream stream, ek_tensor t, int ndim, const int64_t *shape,
                            ek_tensor *out);
/** A C-contiguous tensor with t's values. When *out is NULL and t is already
 *  contiguous, *out is a new reference to t. */
EK_API ek_status ek_contiguous(ek_stream stream, ek_tensor t, ek_tensor *out);
/** t's values converted to dtype by the cast rule (see "Casts" above: float
 *  -> integer truncates and saturates, -> bool is x != 0). */
EK_API ek_status ek_cast(ek_stream stream, ek_tensor t, ek_dtype dtype, ek_tensor *out);
/** Sets every element of t to value, converted as ek_scalar says: a value
 *  that does not fit an integer dtype is EK_ERROR_INVALID_ARGUMENT and t is
 *  left untouched. */
EK_API ek_status ek_fill(ek_stream stream, ek_scalar value, ek_tensor t);
/** 1-D tensor start, start+step, … < stop (> stop for a negative step), as
 *  numpy.arange. For an integer dtype, start, stop and step must be integral
 *  (of any scalar kind) and every element must fit the dtype
 *  (EK_ERROR_INVALID_ARGUMENT otherwise, e.g. start 1e300 with int64, or
 *  0..300 with int8); the length and the elements are then computed exactly
 *  in integers (2^62 .. 2^62 + 3 has 3 elements). For a float dtype they are
 *  computed in double: element k is start + k * step, the length
 *  ceil((stop - start) / step). ctx may be NULL when stream is given. */
EK_API ek_status ek_arange(ek_stream stream, ek_context ctx, ek_scalar start, ek_scalar stop,
                           ek_scalar step, ek_dtype dtype, ek_tensor *out);

/* ---------------------------------------------------------------- joining and rearranging
 * PyTorch semantics. The copying functions (concat, stack, flip, roll,
 * repeat, meshgrid) follow the op-output convention (*out NULL allocates a
 * C-contiguous result; a given *out must have the result's shape and dtype and
 * must not overlap an input, EK_ERROR_INVALID_ARGUMENT) and run ek_copy's
 * kernels into slices of the result; every argument is checked before
 * anything is written. The view functions (ek_view_split*, ek_view_chunk,
 * ek_view_moveaxis, ek_broadcast_tensors) copy nothing and return new handles,
 * as the views section says. Every input of one call belongs to one context
 * (EK_ERROR_INVALID_ARGUMENT otherwise). */

/** out = xs[0..n-1] joined along dim (torch.cat): the n >= 1 tensors have
 *  one ndim >= 1 and equal sizes outside dim (EK_ERROR_SHAPE naming the
 *  first that differs); dim counts in that ndim. As torch.cat, a 1-D tensor
 *  of size 0 is skipped whatever the others' shape (it still takes part in
 *  the dtype). The result's dtype promotes every input's (as ek_binary: int32
 *  with float16 gives float16; bool with uint8 gives uint8); each input is
 *  converted by the cast rule. */
EK_API ek_status ek_concat(ek_stream stream, int n, const ek_tensor *xs, int dim, ek_tensor *out);
/** out = xs[0..n-1] joined along a new dim (torch.stack): the n >= 1 tensors
 *  have one shape; dim is in [-ndim-1, ndim]; the dtype promotes as
 *  ek_concat. */
EK_API ek_status ek_stack(ek_stream stream, int n, const ek_tensor *xs, int dim, ek_tensor *out);
/** out = x reversed along each of the ndims dims (torch.flip, a copy); a dim
 *  listed twice is EK_ERROR_INVALID_ARGUMENT; ndims 0 copies x. */
EK_API ek_status ek_flip(ek_stream stream, ek_tensor x, int ndims, const int *dims, ek_tensor *out);
/** out = x with its elements shifted by shifts[i] along dims[i] (torch.roll):
 *  element j moves to (j + shift) mod size; shifts may be negative or larger
 *  than the size; a dim listed twice rolls by the sum. dims NULL: x is rolled
 *  as if flattened in C order and nshifts must be 1. nshifts in
 *  [1, EK_MAX_DIMS]. */
EK_API ek_status ek_roll(ek_stream stream, ek_tensor x, int nshifts, const int64_t *shifts,
                         const int *dims, ek_tensor *out);
/** out = x tiled repeats[i] times along dim i (torch.Tensor.repeat, which is
 *  numpy.tile): with ndim > x's ndim, x gains leading size-1 dims first; with
 *  ndim < x's ndim, repeats gains leading 1s (numpy.tile; torch refuses it).
 *  repeats >= 0 (0 gives an empty dim); ndim in [0, EK_MAX_DIMS]. */
EK_API ek_status ek_repeat(ek_stream stream, ek_tensor x, int ndim, const int64_t *repeats,
                           ek_tensor *out);

/* The splitting views are two-phase: with outs NULL and capacity 0 they only
 * write the number of pieces into *count; otherwise capacity must be at least
 * that number (EK_ERROR_INVALID_ARGUMENT naming both, nothing written) and
 * outs[0..count-1] receive new views, which the caller releases. */
/** x cut along dim into pieces of split_size (the last may be smaller), as
 *  torch.split(x, split_size, dim): ceil(size / split_size) pieces; a dim of
 *  size 0 gives one empty piece, and only then may split_size be 0. */
EK_API ek_status ek_view_split(ek_tensor x, int dim, int64_t split_size, int64_t capacity,
                               ek_tensor *outs, int64_t *count);
/** x cut along dim into n pieces of sizes[0..n-1] (torch.split with a list),
 *  which must be >= 0 and add up to dim's size (EK_ERROR_SHAPE); outs has n
 *  entries. */
EK_API ek_status ek_view_split_sizes(ek_tensor x, int dim, int64_t n, const int64_t *sizes,
                                     ek_tensor *outs);
/** torch.chunk: x cut along dim into pieces of ceil(size / chunks), which
 *  may be fewer than chunks (size 5 in 4 chunks: 2, 2, 1); a dim of size 0
 *  gives chunks empty pieces. chunks >= 1. Two-phase as ek_view_split. */
EK_API ek_status ek_view_chunk(ek_tensor x, int dim, int64_t chunks, int64_t capacity,
                               ek_tensor *outs, int64_t *count);
/** Moves x's dims src[i] to positions dst[i] (torch.movedim, numpy.moveaxis);
 *  the other dims keep their order. Entries of each list are distinct. */
EK_API ek_status ek_view_moveaxis(ek_tensor x, int n, const int *src, const int *dst,
                                  ek_tensor *out);
/** outs[i] = xs[i] expanded to the broadcast shape of all n >= 1 tensors
 *  (torch.broadcast_tensors; stride-0 views: an op cannot write into them).
 *  Whatever outs held is ignored. */
EK_API ek_status ek_broadcast_tensors(int n, const ek_tensor *xs, ek_tensor *outs);

typedef enum {
  EK_MESHGRID_IJ = 0,  /* matrix indexing: outs[i] varies along dim i */
  EK_MESHGRID_XY = 1   /* Cartesian (numpy's default): dims 0 and 1 swapped */
} ek_meshgrid_indexing;
/** n >= 1 tensors of one dtype, each 1-D (or 0-d, taken as one element),
 *  to n grids of shape [len(xs[0]), ..., len(xs[n-1])] (XY: the first two
 *  sizes swapped), outs[i] holding xs[i]'s values along its own dim
 *  (torch.meshgrid, numpy.meshgrid). Copies, not views: each outs[i] follows
 *  the op-output convention (NULL allocates; on failure the ones allocated
 *  are released and outs is unchanged). n <= EK_MAX_DIMS. */
EK_API ek_status ek_meshgrid(ek_stream stream, int n, const ek_tensor *xs,
                             ek_meshgrid_indexing indexing, ek_tensor *outs);

/* ---------------------------------------------------------------- creation
 * Creators take (stream, ctx) as ek_arange does (ctx may be NULL when stream
 * is given) and, like every op, write into *out when it is given (its shape
 * and dtype checked) or return a new C-contiguous tensor. */

/** A tensor of shape and dtype with every element value, converted as
 *  ek_fill converts it (see ek_scalar: a value that does not fit an integer
 *  dtype is EK_ERROR_INVALID_ARGUMENT, e.g. 300 with int8). */
EK_API ek_status ek_full(ek_stream stream, ek_context ctx, int ndim, const int64_t *shape,
                         ek_dtype dtype, ek_scalar value, ek_tensor *out);
/** 1-D tensor of num (>= 0) evenly spaced values from start to stop, stop
 *  included when endpoint != 0, as numpy.linspace (NumPy 2): computed in
 *  double, with div = num - 1 (endpoint) or num, step = (stop - start) / div,
 *  element k = start + k * step (start + (k / div) * (stop - start) when step
 *  underflows to 0), the last element exactly stop when endpoint and num > 1;
 *  num 1 gives start. Then stored in dtype: float dtypes by the cast rule
 *  (float16/bfloat16 through float32, so a value may differ from NumPy's one
 *  rounding by an ulp of float16); integer dtypes rounded toward -inf first
 *  (floor, as NumPy since 1.20: linspace(-1, 1, 5) as int32 is -1 -1 0 0 1),
 *  and every element must fit the dtype (EK_ERROR_INVALID_ARGUMENT otherwise,
 *  as for NaN or infinite bounds); bool: x != 0. Float dtypes accept any
 *  bounds (infinities and NaN give what NumPy gives). */
EK_API ek_status ek_linspace(ek_stream stream, ek_context ctx, ek_scalar start, ek_scalar stop,
                             int64_t num, int endpoint, ek_dtype dtype, ek_tensor *out);
/** n x m tensor (n, m >= 0) with ones on diagonal k (0: the main diagonal,
 *  k > 0 above it, k < 0 below it; a k beyond the matrix gives all zeros)
 *  and zeros elsewhere, as numpy.eye(n, m, k). Any dtype (bool: true). */
EK_API ek_status ek_eye(ek_stream stream, ek_context ctx, int64_t n, int64_t m, int64_t k,
                        ek_dtype dtype, ek_tensor *out);
/** The lower triangle of each matrix over x's last two dims (x has at least
 *  2 dims; the rest are batch dims): element (..., i, j) is x's where
 *  j - i <= k, else 0, as numpy.tril and torch.tril (k 0: the main diagonal
 *  and below; k > 0 keeps k diagonals above it). Any k, any strides, any
 *  dtype; out has x's shape and dtype. In place when *out == x; any other
 *  overlap between out and x is EK_ERROR_INVALID_ARGUMENT. */
EK_API ek_status ek_tril(ek_stream stream, ek_tensor x, int64_t k, ek_tensor *out);
/** The upper triangle, as ek_tril: element (..., i, j) is x's where
 *  j - i >= k, else 0 (numpy.triu, torch.triu). */
EK_API ek_status ek_triu(ek_stream stream, ek_tensor x, int64_t k, ek_tensor *out);

/* ---------------------------------------------------------------- elementwise
 * Semantics follow PyTorch. Operands broadcast (NumPy rules) and promote:
 * bool < integers < floats; within integers the wider type (uint8 with int8:
 * int16), within floats the wider (float16 with bfloat16: float32), integer
 * with float: the float. Each tensor operand is converted to the promoted type
 * first (the cast rule), so an integer meeting float16 or bfloat16 is rounded
 * to it (int16 30001 == float16 30000 is true, as PyTorch); float16/bfloat16
 * then compute in float32. Any strides and offsets. *out may be an operand
 * exactly (in place: out == a); any other
 * overlap with an operand is EK_ERROR_INVALID_ARGUMENT. A given *out must have
 * the result's shape (EK_ERROR_SHAPE) and dtype (EK_ERROR_DTYPE). stream NULL:
 * the operands' context's default stream. Unknown ops: EK_ERROR_INVALID_ARGUMENT.
 * NaN propagates (maximum/minimum included). */

/* Op lists, X(name, value, short_name): one entry per value of the enum that
 * follows, in value order. Values are fixed: new ops are appended with the
 * next value. short_name is the enum name's suffix in lower case, as profiler
 * records and the bindings name the op. A caller may expand a list with its
 * own X(name, value, short_name) macro (to name ops in a log, say). Inside
 * libek each list keys a table of the ops' traits (result dtype, accepted
 * dtypes, ...), and the build fails when an entry has no trait row. */
#define EK_UNARY_OP_LIST(X)                                              \
  X(EK_UNARY_NEG, 0, "neg")                                              \
  X(EK_UNARY_ABS, 1, "abs")                                              \
  X(EK_UNARY_SIGN, 2, "sign")            /* sign(NaN) = NaN, as PyTorch */\
  X(EK_UNARY_EXP, 3, "exp")                                              \
  X(EK_UNARY_EXP2, 4, "exp2")                                            \
  X(EK_UNARY_EXPM1, 5, "expm1")                                          \
  X(EK_UNARY_LOG, 6, "log")                                              \
  X(EK_UNARY_LOG2, 7, "log2")                                            \
  X(EK_UNARY_LOG1P, 8, "log1p")                                          \
  X(EK_UNARY_SQRT, 9, "sqrt")                                            \
  X(EK_UNARY_RSQRT, 10, "rsqrt")                                         \
  X(EK_UNARY_SQUARE, 11, "square")                                       \
  X(EK_UNARY_RECIPROCAL, 12, "reciprocal")                               \
  X(EK_UNARY_SIN, 13, "sin")                                             \
  X(EK_UNARY_COS, 14, "cos")                                             \
  X(EK_UNARY_TAN, 15, "tan")                                             \
  X(EK_UNARY_TANH, 16, "tanh")                                           \
  X(EK_UNARY_SIGMOID, 17, "sigmoid")                                     \
  X(EK_UNARY_RELU, 18, "relu")                                           \
  X(EK_UNARY_GELU, 19, "gelu")           /* exact (erf) form */          \
  X(EK_UNARY_GELU_TANH, 20, "gelu_tanh") /* tanh approximation */        \
  X(EK_UNARY_SILU, 21, "silu")                                           \
  X(EK_UNARY_ERF, 22, "erf")                                             \
  X(EK_UNARY_FLOOR, 23, "floor")                                         \
  X(EK_UNARY_CEIL, 24, "ceil")                                           \
  X(EK_UNARY_ROUND, 25, "round")         /* half to even */              \
  X(EK_UNARY_TRUNC, 26, "trunc")                                         \
  X(EK_UNARY_LOGICAL_NOT, 27, "logical_not")                             \
  X(EK_UNARY_ISNAN, 28, "isnan")                                         \
  X(EK_UNARY_ISINF, 29, "isinf")                                         \
  X(EK_UNARY_ISFINITE, 30, "isfinite")                                   \
  X(EK_UNARY_ASIN, 31, "asin")                                           \
  X(EK_UNARY_ACOS, 32, "acos")                                           \
  X(EK_UNARY_ATAN, 33, "atan")                                           \
  X(EK_UNARY_SINH, 34, "sinh")                                           \
  X(EK_UNARY_COSH, 35, "cosh")                                           \
  X(EK_UNARY_ASINH, 36, "asinh")                                         \
  X(EK_UNARY_ACOSH, 37, "acosh")                                         \
  X(EK_UNARY_ATANH, 38, "atanh")                                         \
  X(EK_UNARY_LOG10, 39, "log10")                                         \
  X(EK_UNARY_SIGNBIT, 40, "signbit")     /* the sign bit set (-0.0, -NaN) */

typedef enum {
#define EK_OP_ENUM_(name, value, text) name = value,
  EK_UNARY_OP_LIST(EK_OP_ENUM_)
#undef EK_OP_ENUM_
} ek_unary_op;

#define EK_BINARY_OP_LIST(X)                                                 \
  X(EK_BINARY_ADD, 0, "add")                                                 \
  X(EK_BINARY_SUB, 1, "sub")                                                 \
  X(EK_BINARY_MUL, 2, "mul")                                                 \
  X(EK_BINARY_DIV, 3, "div")               /* true division: integers give float32 */\
  X(EK_BINARY_FLOOR_DIV, 4, "floor_div")   /* Python's //: rounds toward -inf */\
  X(EK_BINARY_REMAINDER, 5, "remainder")   /* Python's %: the divisor's sign */\
  X(EK_BINARY_POW, 6, "pow")               /* integers: see ek_binary */     \
  X(EK_BINARY_ATAN2, 7, "atan2")           /* integers give float32 */       \
  X(EK_BINARY_MAXIMUM, 8, "maximum")                                         \
  X(EK_BINARY_MINIMUM, 9, "minimum")                                         \
  X(EK_BINARY_EQ, 10, "eq")                                                  \
  X(EK_BINARY_NE, 11, "ne")                                                  \
  X(EK_BINARY_LT, 12, "lt")                                                  \
  X(EK_BINARY_LE, 13, "le")                                                  \
  X(EK_BINARY_GT, 14, "gt")                                                  \
  X(EK_BINARY_GE, 15, "ge")                                                  \
  X(EK_BINARY_LOGICAL_AND, 16, "logical_and")                                \
  X(EK_BINARY_LOGICAL_OR, 17, "logical_or")                                  \
  X(EK_BINARY_LOGICAL_XOR, 18, "logical_xor")                                \
  X(EK_BINARY_BITWISE_AND, 19, "bitwise_and") /* bitwise ops and shifts: */  \
  X(EK_BINARY_BITWISE_OR, 20, "bitwise_or")   /* integer or bool only */     \
  X(EK_BINARY_BITWISE_XOR, 21, "bitwise_xor")                                \
  X(EK_BINARY_SHIFT_LEFT, 22, "shift_left")                                  \
  X(EK_BINARY_SHIFT_RIGHT, 23, "shift_right")                                \
  X(EK_BINARY_LOGADDEXP, 24, "logaddexp")   /* log(e^a + e^b), stable */     \
  X(EK_BINARY_HYPOT, 25, "hypot")           /* sqrt(a^2 + b^2) */            \
  X(EK_BINARY_COPYSIGN, 26, "copysign")     /* |a| with b's sign bit */      \
  X(EK_BINARY_NEXTAFTER, 27, "nextafter")   /* the next value after a toward b */

typedef enum {
#define EK_OP_ENUM_(name, value, text) name = value,
  EK_BINARY_OP_LIST(EK_OP_ENUM_)
#undef EK_OP_ENUM_
} ek_binary_op;

/** out = op(x), x's shape. Result dtype: x's, except bool for LOGICAL_NOT,
 *  ISNAN, ISINF, ISFINITE, SIGNBIT, and float32 for the float-only ops (exp,
 *  exp2, expm1, log, log2, log10, log1p, sqrt, rsqrt, reciprocal, sin, cos,
 *  tan, asin, acos, atan, sinh, cosh, tanh, asinh, acosh, atanh, sigmoid,
 *  gelu, gelu_tanh, silu, erf) on integer or bool input. Rounding ops on
 *  integers are the identity. SIGN of NaN is NaN; SIGNBIT is true for -0.0
 *  and a NaN with its sign bit set. NEG of bool: EK_ERROR_DTYPE. */
EK_API ek_status ek_unary(ek_stream stream, ek_unary_op op, ek_tensor x, ek_tensor *out);
/** out = a op b, broadcast; the shape is the broadcast of a's and b's
 *  (EK_ERROR_SHAPE naming both when they do not broadcast). Result dtype: the
 *  promoted one; bool for comparisons and logical ops; float32 for the
 *  float-only ops (DIV, ATAN2, LOGADDEXP, HYPOT, COPYSIGN, NEXTAFTER) of
 *  integers. Bitwise ops and shifts on floats: EK_ERROR_DTYPE. POW of
 *  integers is exact and wraps; a negative exponent gives 0 unless |a| = 1.
 *  Integer division or remainder by zero gives an unspecified value (no trap).
 *  Float FLOOR_DIV and REMAINDER are Python's and NumPy's, signed zeros
 *  included (a zero remainder has b's sign), except that FLOOR_DIV with an
 *  infinite operand is a / b, as the Python array API standard says (inf // 1
 *  is inf, 1 // -inf is -0.0; NumPy and PyTorch give NaN and -1.0).
 *  LOGADDEXP is max + log1p(exp(-|a - b|)) (logaddexp(inf, inf) = inf, NaN
 *  propagates); NEXTAFTER of float16 or bfloat16 steps by one of their ulps.
 *  a and b must share a context. */
EK_API ek_status ek_binary(ek_stream stream, ek_binary_op op, ek_tensor a, ek_tensor b,
                           ek_tensor *out);
/** out = a op scalar, or scalar op a when scalar_first is nonzero; a's shape.
 *  The scalar is weakly typed, as a Python number in PyTorch: its kind's
 *  category (bool < integer < float) only raises a's (int tensor + 2.5:
 *  float32; float16 tensor * 2.0: float16; bool tensor + 2: int64). An
 *  integer scalar takes part exactly in integer arithmetic (int64 tensor +
 *  2^62 + 1 is exact; a uint64 scalar above INT64_MAX there is
 *  EK_ERROR_INVALID_ARGUMENT) and is converted to a float compute type once.
 *  Otherwise as ek_binary. */
EK_API ek_status ek_binary_scalar(ek_stream stream, ek_binary_op op, ek_tensor a,
                                  ek_scalar scalar, int scalar_first, ek_tensor *out);

/* ---------------------------------------------------------------- reductions
 * PyTorch semantics. Result dtypes: sum/prod of bool or integers -> int64, of
 * floats -> the same dtype (f16/bf16 accumulate in f32); mean, norms, var and
 * std need a float input (EK_ERROR_DTYPE otherwise, as PyTorch); max/min keep
 * the dtype (NaN propagates); argmax/argmin -> int64, first occurrence, NaN
 * counts as the maximum (and the minimum); any/all -> bool. Over zero
 * elements: sum 0, prod 1, mean/var NaN, any false, all true; max, min,
 * argmax, argmin and norm_inf fail with EK_ERROR_SHAPE. Results are the same
 * bits from run to run (fixed summation order, no atomics). SUM and PROD of
 * bool or integers also write into a given *out of another integer dtype
 * (uint8 ... int32; not bool): the int64 result wrapped to its width, which
 * equals wrapping arithmetic in that dtype (how the bindings honour
 * dtype=int32; for a float dtype= they cast the input first, as the array API
 * says). ndims == 0 always means every dim: to reduce none (the bindings'
 * dim=()), a caller copies x instead. */

#define EK_REDUCE_OP_LIST(X)            \
  X(EK_REDUCE_SUM, 0, "sum")            \
  X(EK_REDUCE_MEAN, 1, "mean")          \
  X(EK_REDUCE_PROD, 2, "prod")          \
  X(EK_REDUCE_MAX, 3, "max")            \
  X(EK_REDUCE_MIN, 4, "min")            \
  X(EK_REDUCE_ARGMAX, 5, "argmax")      \
  X(EK_REDUCE_ARGMIN, 6, "argmin")      \
  X(EK_REDUCE_ANY, 7, "any")            \
  X(EK_REDUCE_ALL, 8, "all")            \
  X(EK_REDUCE_NORM_L1, 9, "norm_l1")    \
  X(EK_REDUCE_NORM_L2, 10, "norm_l2")   \
  X(EK_REDUCE_NORM_INF, 11, "norm_inf")

typedef enum {
#define EK_OP_ENUM_(name, value, text) name = value,
  EK_REDUCE_OP_LIST(EK_OP_ENUM_)
#undef EK_OP_ENUM_
} ek_reduce_op;

/** Reduces x over the ndims dims listed in dims (negative dims count from the
 *  end; ndims == 0: every dim, dims may then be NULL). keepdim keeps reduced
 *  dims with size 1. ARGMAX/ARGMIN over several dims index x's flattened
 *  reduced dims (over all dims: the C-order flat index, as torch.argmax). */
EK_API ek_status ek_reduce(ek_stream stream, ek_reduce_op op, ek_tensor x, int ndims,
                           const int *dims, int keepdim, ek_tensor *out);
#define EK_VAR_KIND_LIST(X)            \
  X(EK_VAR_VARIANCE, 0, "variance")    \
  X(EK_VAR_STD, 1, "std") /* the square root of the variance */

typedef enum {
#define EK_OP_ENUM_(name, value, text) name = value,
  EK_VAR_KIND_LIST(EK_OP_ENUM_)
#undef EK_OP_ENUM_
} ek_var_kind;

/** Variance (or, with EK_VAR_STD, standard deviation) over dims (ndims == 0:
 *  every dim) with divisor max(0, N - correction). Float inputs only. */
EK_API ek_status ek_var(ek_stream stream, ek_var_kind kind, ek_tensor x, int ndims,
                        const int *dims, double correction, int keepdim, ek_tensor *out);
/** op is EK_REDUCE_MAX or EK_REDUCE_MIN (any other op:
 *  EK_ERROR_INVALID_ARGUMENT), along one dim: values in x's dtype and int64
 *  indices of their first occurrence (NaN wins), as torch.max(x, dim). */
EK_API ek_status ek_reduce_with_indices(ek_stream stream, ek_reduce_op op, ek_tensor x, int dim,
                                        int keepdim, ek_tensor *values, ek_tensor *indices);

/* ---------------------------------------------------------------- selection and fused updates
 * Elementwise rules as above: broadcasting, promotion, any strides, *out may be
 * an operand exactly (any other overlap: EK_ERROR_INVALID_ARGUMENT), operands
 * must share a context. f16/bf16 compute in f32; lerp and axpby use one fused
 * multiply-add per product, so the CPU and CUDA give the same bits. */

/** out = cond ? a : b, broadcast over all three; cond is any dtype (nonzero is
 *  true: NaN and 0.5 are true, -0.0 false); the result has a's and b's
 *  promoted dtype. */
EK_API ek_status ek_where(ek_stream stream, ek_tensor cond, ek_tensor a, ek_tensor b,
                          ek_tensor *out);
/** out = min(max(x, *lo), *hi); lo or hi NULL: no bound on that side (both
 *  NULL: a copy of x, as the array API's clip without bounds). x's
 *  dtype, shape; NaN in x stays NaN, and a NaN bound makes every element NaN
 *  (as PyTorch). lo > hi gives hi everywhere (as PyTorch). Bounds are cast to
 *  x's dtype (f16/bf16 round through f32, as ek_cast); for integer x they are
 *  truncated toward zero and saturated to x's range, so the result is the
 *  exact clamp cast to x's dtype (an integer bound is exact: int64 beyond
 *  2^53 included); a NaN bound with integer x is EK_ERROR_INVALID_ARGUMENT. bool x: EK_ERROR_DTYPE.
 *  uint64 x is ordered as unsigned. */
EK_API ek_status ek_clamp(ek_stream stream, ek_tensor x, const ek_scalar *lo,
                          const ek_scalar *hi, ek_tensor *out);
/** out = start + weight * (end - start), float tensors only (EK_ERROR_DTYPE
 *  otherwise); start and end broadcast and promote. PyTorch's formula:
 *  |weight| < 0.5 ? start + weight * d : end - d * (1 - weight), d = end -
 *  start, so weight 1 gives end exactly; weight is rounded to the compute type. */
EK_API ek_status ek_lerp(ek_stream stream, ek_tensor start, ek_tensor end, ek_scalar weight,
                         ek_tensor *out);
/** out = alpha * x + beta * y in one pass (the fused update; out == y
 *  accumulates in place). Broadcast and promotion as ek_binary ADD; alpha and
 *  beta are applied in the compute type (float: fma(alpha, x, beta * y)); with
 *  integer (or bool) operands they must be integers (EK_ERROR_INVALID_ARGUMENT
 *  otherwise, as PyTorch's alpha; an integer kind is exact, a uint64 above
 *  INT64_MAX is refused) and the arithmetic wraps. */
EK_API ek_status ek_axpby(ek_stream stream, ek_scalar alpha, ek_tensor x, ek_scalar beta,
                          ek_tensor y, ek_tensor *out);

/* ---------------------------------------------------------------- sorting and searching
 * PyTorch semantics over one order for every dtype: integers and bool by
 * value; floats with -0.0 == +0.0 and NaN greater than +inf (so NaNs come
 * last ascending and first descending, as torch.sort); NaNs equal one
 * another when ordering (a stable sort keeps their input order). f16/bf16
 * compare exactly, without a conversion. Indices are int64 positions along
 * the sorted dim. Dims may be negative; a 0-d x takes dim 0 or -1. Inputs may
 * have any strides; outputs follow the op-output convention (*out NULL
 * allocates; a given one must have the result's shape and dtype and must not
 * overlap an input, EK_ERROR_INVALID_ARGUMENT). The CUDA backend sorts with
 * CUB (radix sorts of the ordered keys: equal keys keep their order, so every
 * sort there is stable); the CPU uses std::stable_sort / std::sort on the same
 * keys. Every input of one call belongs to one context. */

/** values = x sorted along dim, indices = where each value was (torch.sort).
 *  values or indices may be NULL (not computed; not both: argsort passes
 *  values NULL). descending reverses the order; stable keeps equal elements
 *  in their input order (without it their order is unspecified). Values are
 *  x's elements bit for bit, except that CUDA may sort the keys alone when
 *  indices is NULL and stable is 0: NaNs then come out as the canonical NaN. */
EK_API ek_status ek_sort(ek_stream stream, ek_tensor x, int dim, int descending, int stable,
                         ek_tensor *values, ek_tensor *indices);
/** The k largest (largest != 0) or smallest elements along dim and their
 *  int64 indices (torch.topk), 0 <= k <= size of dim (EK_ERROR_INDEX
 *  otherwise); both results have x's shape with dim's size k. sorted != 0
 *  orders them (largest first when largest); otherwise their order is
 *  unspecified. Among equal elements at the k-th place, which are taken is
 *  unspecified. values or indices may be NULL (not both). */
EK_API ek_status ek_topk(ek_stream stream, ek_tensor x, int64_t k, int dim, int largest,
                         int sorted, ek_tensor *values, ek_tensor *indices);
/** For each element v of values, the index where v would be inserted into
 *  the sorted innermost dim of sorted_sequence (torch.searchsorted): the
 *  first position whose element is >= v (right == 0) or > v (right != 0),
 *  in the order above (NaN greatest). sorted_sequence is 1-D (every value
 *  searches it) or has values' leading dims (EK_ERROR_SHAPE otherwise); a
 *  1-D sorted_sequence with 0-d values is allowed. Both are converted to
 *  their promoted dtype (as ek_binary) before comparing. out_dtype is
 *  EK_INT64 or EK_INT32 (EK_ERROR_DTYPE otherwise); out has values' shape.
 *  An unsorted sequence gives unspecified positions, never a fault. */
EK_API ek_status ek_searchsorted(ek_stream stream, ek_tensor sorted_sequence, ek_tensor values,
                                 int right, ek_dtype out_dtype, ek_tensor *out);
/** The distinct elements of x (flattened), sorted ascending (torch.unique
 *  with sorted=True): 1-D in x's dtype. -0.0 and +0.0 are one element (which
 *  of the two stands for it is unspecified); each NaN is distinct (as the
 *  array API standard and torch on CUDA). inverse (may be NULL: not
 *  computed) gets an int64 tensor of x's shape with each element's position
 *  in *values; counts (may be NULL) an int64 1-D tensor of how many times
 *  each value occurs. Synchronous on CUDA: the number of distinct elements
 *  is read on the host (as ek_masked_select), so *values and *counts must be
 *  NULL or already have that length. */
EK_API ek_status ek_unique(ek_stream stream, ek_tensor x, ek_tensor *values, ek_tensor *inverse,
                           ek_tensor *counts);
/** The number of nonzero elements (NaN is nonzero, -0.0 is not) over the
 *  ndims dims listed (ndims == 0: every dim; dims may then be NULL) as int64,
 *  keepdim as ek_reduce (torch.count_nonzero). */
EK_API ek_status ek_count_nonzero(ek_stream stream, ek_tensor x, int ndims, const int *dims,
                                  int keepdim, ek_tensor *out);
/** The n-th forward difference along dim (torch.diff): out[i] = x[i + 1] -
 *  x[i], applied n >= 0 times (n == 0 copies x); bool uses != (logical
 *  xor), as torch. prepend and append (each may be NULL) are joined to x
 *  along dim first (as ek_concat: x's ndim, equal sizes outside dim, dtypes
 *  promoted). dim's size shrinks by n, down to 0. x must not be 0-d. */
EK_API ek_status ek_diff(ek_stream stream, ek_tensor x, int64_t n, int dim, ek_tensor prepend,
                         ek_tensor append, ek_tensor *out);

/* ---------------------------------------------------------------- softmax and scans
 * One dim of x (negative counts from the end; a 0-d x takes dim 0 or -1, as
 * PyTorch; out of range: EK_ERROR_INDEX). x may have any strides (broadcast
 * views included). The result has x's shape; a given *out must have the
 * result's shape (EK_ERROR_SHAPE) and dtype (EK_ERROR_DTYPE) and may be x
 * itself (in place); any other overlap with x is EK_ERROR_INVALID_ARGUMENT.
 * Zero-size tensors give an empty result. stream NULL: x's context's default
 * stream. */

#define EK_SOFTMAX_KIND_LIST(X)                                               \
  X(EK_SOFTMAX_PLAIN, 0, "plain") /* exp(x - max) / sum(exp(x - max)) */      \
  X(EK_SOFTMAX_LOG, 1, "log")     /* x - max - log(sum(exp(x - max))) */

typedef enum {
#define EK_OP_ENUM_(name, value, text) name = value,
  EK_SOFTMAX_KIND_LIST(EK_OP_ENUM_)
#undef EK_OP_ENUM_
} ek_softmax_kind;

/** softmax (EK_SOFTMAX_PLAIN) or log_softmax (EK_SOFTMAX_LOG) along dim,
 *  float tensors only (EK_ERROR_DTYPE otherwise); the result has x's dtype
 *  (f16/bf16/f32 compute in f32, f64 in f64). Stable for large values, with
 *  PyTorch's results for non-finite values: PLAIN gives NaN for a row of
 *  -inf, 0 where a row holds some -inf, and a NaN or a +inf (inf - inf is
 *  NaN) makes its row NaN, so a 0-d x gives 1 when finite and NaN for +inf,
 *  -inf or NaN; LOG gives -inf where PLAIN gives 0 and NaN where it gives
 *  NaN, so a 0-d x gives 0 when finite. An unknown kind is
 *  EK_ERROR_INVALID_ARGUMENT. */
EK_API ek_status ek_softmax(ek_stream stream, ek_softmax_kind kind, ek_tensor x, int dim,
                            ek_tensor *out);

#define EK_SCAN_OP_LIST(X)                   \
  X(EK_SCAN_SUM, 0, "sum")   /* cumsum */    \
  X(EK_SCAN_PROD, 1, "prod") /* cumprod */

typedef enum {
#define EK_OP_ENUM_(name, value, text) name = value,
  EK_SCAN_OP_LIST(EK_OP_ENUM_)
#undef EK_OP_ENUM_
} ek_scan_op;

/** Inclusive cumulative sum or product along dim. Result dtype: int64 for
 *  bool and integers (wrapping around on overflow; a given *out of another
 *  integer dtype receives it wrapped to that width, as ek_reduce's SUM and
 *  PROD), x's dtype for floats
 *  (f16/bf16 accumulate in f32; f32 accumulates in f32 on CUDA, in f64 on
 *  the CPU, so sums differ by about 1e-6 times the sum of |x| over the
 *  prefix). An unknown op is EK_ERROR_INVALID_ARGUMENT. */
EK_API ek_status ek_scan(ek_stream stream, ek_scan_op op, ek_tensor x, int dim, ek_tensor *out);

/* ---------------------------------------------------------------- matrix products
 * float16, bfloat16, float32 and float64, and the integer dtypes uint8, int8,
 * int16, int32, int64, uint16, uint32 and uint64 (bool: EK_ERROR_DTYPE). ek_matmul promotes two
 * different dtypes as ek_binary (int8 @ uint8 -> int16, int32 @ float32 ->
 * float32) by casting one operand to a temporary; ek_gemm needs a, b and c of
 * one dtype (EK_ERROR_DTYPE). f16/bf16 accumulate in f32, f32 in f32 on a
 * BLAS (in f64 on the CPU's built-in loops), f64 in f64. Integer products are
 * exact modulo 2^bits of the result dtype (they wrap on overflow, as NumPy
 * and PyTorch): on CUDA a tiled kernel of libek's own accumulating in 32-bit
 * (int64: 64-bit) unsigned arithmetic, on the CPU the built-in loops.
 * float32 uses TF32 tensor cores only when the context's config sets
 * allow_tf32. On CUDA these run asynchronously on cuBLAS, loaded on first use
 * (libcublas.so.13, .so.12, then .so; EK_ERROR_LIBRARY naming the files tried
 * when none loads), except small float32 products without TF32 (both matrix
 * dims of the result at least 16, at most 256 tiles of 16 x 16 over the
 * batch, k <= 612), where cuBLAS is launch-bound: those run on a kernel of
 * libek's own in one launch, summing in f32 in a fixed order (run to run the
 * same bits; not cuBLAS's bits). Operands whose matrices are row-major or column-major
 * (transposed views, slices of rows) are read in place through transpose
 * flags and leading dims, never copied; other layouts (a stepped last dim,
 * stride 0 in a matrix dim, negative strides) are copied once. On the CPU
 * float32/float64 run on a BLAS's cblas_sgemm/cblas_dgemm, opened at the
 * first product (EK_BLAS_LIBRARY if set, else libopenblas.so.0, libblas.so.3,
 * libcblas.so.3, libcblas.so; EK_BLAS=0 skips it), one call per matrix of a
 * batch, on the BLAS's own threads (OPENBLAS_NUM_THREADS); float16/bfloat16,
 * and all dtypes when no BLAS loads, on built-in cache-blocked loops. */

/** NumPy matmul: 1-D @ 1-D is a dot product (0-d result); a 1-D left operand
 *  is a row vector, a 1-D right operand a column vector (the added dim is
 *  removed from the result); dims before the last two are batch dims and
 *  broadcast ([2,1,3,4] @ [5,4,6] -> [2,5,3,6]). Inner dimensions must agree
 *  (EK_ERROR_SHAPE naming both shapes); 0-d operands: EK_ERROR_SHAPE. k == 0
 *  gives zeros. A given *out may have any strides but must not overlap a or b
 *  (EK_ERROR_INVALID_ARGUMENT). */
EK_API ek_status ek_matmul(ek_stream stream, ek_tensor a, ek_tensor b, ek_tensor *out);
/** c = alpha * a @ b + beta * c, in place on c, for 2-D a [m,k], b [k,n], c
 *  [m,n], or c [batch,m,n] with a and b each 2-D, [batch,...] or [1,...]
 *  (broadcast). c's matrices must be row- or column-major (a transposed view
 *  is fine; EK_ERROR_INVALID_ARGUMENT otherwise). beta == 0 ignores c's old
 *  values (NaN included); alpha == 0 or k == 0 leaves beta * c without reading
 *  a or b (as BLAS). alpha and beta of any real kind are converted to the
 *  compute type (double for f64, float otherwise); for integer dtypes they
 *  must be integral values in int64's range (EK_ERROR_INVALID_ARGUMENT
 *  otherwise) and the arithmetic wraps. For complex64/complex128 a, b and c
 *  they may also be EK_SCALAR_COMPLEX (each part rounded to float for
 *  complex64, double for complex128; cuBLAS cgemm/zgemm on CUDA, on the CPU
 *  ek_matmul's product then the scaling); a complex alpha or beta for a real
 *  c is EK_ERROR_DTYPE. c must not overlap a or b
 *  (EK_ERROR_INVALID_ARGUMENT). */
EK_API ek_status ek_gemm(ek_stream stream, ek_scalar alpha, ek_tensor a, ek_tensor b,
                         ek_scalar beta, ek_tensor c);

/* ---------------------------------------------------------------- linear algebra
 * Products composed from views of the operands and ek_matmul (ek_outer:
 * ek_binary), so dtypes and accumulation follow "matrix products" above:
 * the operands' dtypes promote as ek_binary, bool is EK_ERROR_DTYPE (but in
 * ek_outer), integers wrap. Nothing is copied but an operand whose permuted
 * dims no reshape view can merge (tensordot) or a promoted operand. The
 * op-output convention holds: *out NULL allocates a C-contiguous result; a
 * given *out must have the result's shape (EK_ERROR_SHAPE) and dtype
 * (EK_ERROR_DTYPE), may have any strides (a non-contiguous one is written
 * through a temporary) and must not overlap an operand
 * (EK_ERROR_INVALID_ARGUMENT). Operands share one context. */

/** numpy.tensordot / torch.tensordot: sums the products of a and b over
 *  ndims pairs of dims, a's a_dims[i] with b's b_dims[i] (equal sizes,
 *  EK_ERROR_SHAPE otherwise; negative dims count from the end; a dim listed
 *  twice is EK_ERROR_INVALID_ARGUMENT). a_dims and b_dims both NULL: the
 *  last ndims dims of a with the first ndims of b, in order
 *  (tensordot(a, b, dims=ndims)); one NULL without the other (ndims > 0) is
 *  EK_ERROR_INVALID_ARGUMENT. ndims in [0, min(a's, b's ndim)] (0: the outer
 *  product). The result's dims are a's uncontracted dims, then b's, in
 *  order; more than EK_MAX_DIMS is EK_ERROR_SHAPE. */
EK_API ek_status ek_tensordot(ek_stream stream, ek_tensor a, ek_tensor b, int ndims,
                              const int *a_dims, const int *b_dims, ek_tensor *out);
/** The array API's vecdot: sum(x * y) along dim (sum(conj(x) * y) for complex x), with the
 *  other dims broadcast (NumPy rules). dim counts in the broadcast shape
 *  (negative from the end) and must exist in both x and y with one size:
 *  the contracted dim does not broadcast (EK_ERROR_SHAPE). 0-d operands:
 *  EK_ERROR_SHAPE. The result has the broadcast shape without dim. */
EK_API ek_status ek_vecdot(ek_stream stream, ek_tensor x, ek_tensor y, int dim, ek_tensor *out);
/** torch.outer: out[i, j] = a[i] * b[j] for 1-D a [m] and b [n] (other
 *  ndims: EK_ERROR_SHAPE), as ek_binary MUL of a viewed [m, 1] and b viewed
 *  [1, n]: any dtypes (bool included), promoted, exact (one rounding per
 *  element), and *out follows ek_binary's rules (its dtype may differ as the
 *  elementwise *out rule allows). */
EK_API ek_status ek_outer(ek_stream stream, ek_tensor a, ek_tensor b, ek_tensor *out);

/* ---------------------------------------------------------------- indexing
 * PyTorch semantics. Index tensors are int64 or int32 (EK_ERROR_DTYPE
 * otherwise; index tensors of one call may mix them); negative indices count
 * from the end. An index outside [-size, size) fails with EK_ERROR_INDEX
 * naming the value, the dim and its size ("index 7 is out of range for dim 1
 * of size 5"; the first bad entry in C order), and nothing outside *out is
 * written. scatter and index_put check before anything is written (on CUDA in
 * a kernel whose verdict is read back), so a failed call leaves *out, or the
 * in-place target, untouched; index_select and gather on CUDA check as they
 * gather (see the note before them). Masks are bool tensors (EK_ERROR_DTYPE
 * otherwise) that broadcast to x; any nonzero byte counts as true. Values
 * keep x's dtype: src, values and source must have it.
 *
 * Output: *out NULL allocates; otherwise *out must have the result's shape
 * and dtype. The ops that update a copy of x (scatter, index_put,
 * masked_fill, masked_scatter) also accept *out == x (the same view) and then
 * write in place; other overlaps between *out and an input are
 * EK_ERROR_INVALID_ARGUMENT.
 *
 * Synchronization on CUDA: index_select and gather check their indices in
 * the gather kernel as it reads, and by default (config.index_check
 * EK_INDEX_CHECK_DEFERRED) never wait: a bad index is reported at the
 * stream's next synchronization (ek_stream_synchronize, ek_tensor_to_host),
 * naming the op and one bad index; with EK_INDEX_CHECK_AT_CALL they
 * synchronize once, after the kernel, and fail at the call naming the first
 * bad index (only a failed check adds more). The other calls with a non-empty
 * index tensor (scatter, index_put: they write through it) synchronize the
 * stream once to check it first; masked_select, nonzero
 * (result size) and masked_scatter (source size check) synchronize once to
 * read the number of true mask elements. masked_fill never does.
 *
 * Accumulation (scatter and index_put with accumulate) adds in x's dtype:
 * integers wrap, bool ORs, float16/bfloat16 add in float32 and round once per
 * addition. On CUDA the additions are atomics in no fixed order, so float
 * sums over duplicate indices may differ in the last bits from run to run
 * (integer results are exact). */

/* index_select and gather with an index out of range, checked at the call
 * (the CPU; CUDA with EK_INDEX_CHECK_AT_CALL): EK_ERROR_INDEX as above, and a
 * *out they allocated is released (*out stays NULL). Deferred (CUDA's
 * default), the call succeeds, *out holds invalid values, and the error
 * comes from the stream's next synchronization. On CUDA a
 * caller-given *out has unspecified contents after the failure (the kernel
 * checks indices as it gathers, so other elements may have been written);
 * no memory outside *out is written. On the CPU, *out is left untouched. */
/** out = x's slices along dim at index's positions (torch.index_select);
 *  index is 1-D (or 0-d, taken as one index); out has x's shape with dim's
 *  size replaced by index's length. A 0-d x takes dim 0 and one index. */
EK_API ek_status ek_index_select(ek_stream stream, ek_tensor x, int dim, ek_tensor index,
                                 ek_tensor *out);
/** out[i][j][k] = x[index[i][j][k]][j][k] for dim 0 (torch.gather); index has
 *  x's ndim and, outside dim, sizes no larger than x's (EK_ERROR_SHAPE
 *  otherwise); out has index's shape. */
EK_API ek_status ek_gather(ek_stream stream, ek_tensor x, int dim, ek_tensor index,
                           ek_tensor *out);
/** out = x with out[index[i][j][k]][j][k] = src[i][j][k] for dim 0
 *  (torch.scatter; with accumulate, scatter_add: duplicates add up). index and
 *  src have x's ndim; index's sizes are no larger than src's, nor, outside
 *  dim, than x's. Without accumulate, the value written at a duplicated index
 *  is one of the candidates. */
EK_API ek_status ek_scatter(ek_stream stream, ek_tensor x, int dim, ek_tensor index,
                            ek_tensor src, int accumulate, ek_tensor *out);
/** out = x with x[indices[0], ..., indices[n-1]] = values (torch.index_put):
 *  the n index tensors broadcast together and address x's first n dims; the
 *  indexed shape is their broadcast shape followed by x's remaining dims
 *  (at most EK_MAX_DIMS of them), and values broadcast to it. n == 0
 *  (indices may then be NULL) addresses all of x; n > x's ndim is
 *  EK_ERROR_INDEX. accumulate adds instead (duplicates add up). */
EK_API ek_status ek_index_put(ek_stream stream, ek_tensor x, int n, const ek_tensor *indices,
                              ek_tensor values, int accumulate, ek_tensor *out);
/** 1-D tensor of x's elements where mask is true, in C order. As
 *  torch.masked_select, x and mask broadcast together (each to their common
 *  shape). A given *out must have the counted length. */
EK_API ek_status ek_masked_select(ek_stream stream, ek_tensor x, ek_tensor mask, ek_tensor *out);
/** out = x with value where mask is true. value is converted to x's dtype as
 *  by ek_fill (see ek_scalar: exact where it fits; a value that does not fit an
 *  integer dtype, NaN included, is EK_ERROR_INVALID_ARGUMENT). */
EK_API ek_status ek_masked_fill(ek_stream stream, ek_tensor x, ek_tensor mask, ek_scalar value,
                                ek_tensor *out);
/** out = x with the positions where mask is true taking source's elements in
 *  C order (source, any shape, is read flattened in C order). A source with
 *  fewer elements than true positions is EK_ERROR_SHAPE, before anything is
 *  written. */
EK_API ek_status ek_masked_scatter(ek_stream stream, ek_tensor x, ek_tensor mask,
                                   ek_tensor source, ek_tensor *out);
/** int64 tensor [n, ndim] of the indices of x's nonzero elements (NaN is
 *  nonzero, -0.0 is not), in C order, as torch.nonzero: a 0-d x gives [1, 0]
 *  or [0, 0]. */
EK_API ek_status ek_nonzero(ek_stream stream, ek_tensor x, ek_tensor *out);

/* Indexing by a key, t[key] and t[key] = value with NumPy's rules (as
 * PyTorch), in one place for every binding. A key is an array of items:
 *  - EK_INDEX_INT: position `start` of the next dim (negative counts from the
 *    end); the dim goes away. Out of range: EK_ERROR_INDEX naming it.
 *  - EK_INDEX_SLICE: start:stop:step of the next dim, as ek_view_slice
 *    (EK_SLICE_MIN/EK_SLICE_MAX for an open end, step != 0, negative allowed).
 *  - EK_INDEX_NONE: a new dim of size 1.
 *  - EK_INDEX_ELLIPSIS: as many full slices as the dims the other items leave
 *    (at most one ellipsis; with none, the key ends with one).
 *  - EK_INDEX_TENSOR: `tensor`, an integer index tensor (int64 or int32, any
 *    shape) addressing the next dim, or a bool mask addressing as many dims as
 *    it has (its shape must equal theirs: EK_ERROR_SHAPE) and acting as its
 *    ek_nonzero columns. A 0-d bool mask adds a dim of size 1 (true) or 0.
 * Basic keys (no TENSOR item) give a view. With index tensors (advanced
 * indexing) the index tensors broadcast together; their result dims take the
 * place of the first of them when the advanced items (INT items count as
 * advanced here) are adjacent in the key, else they come first (NumPy's
 * rule). More items addressing dims than x has is EK_ERROR_INDEX, as is a
 * second ellipsis. Unused fields of an item must be 0 / NULL, a slice's step
 * nonzero (EK_ERROR_INVALID_ARGUMENT otherwise); an index tensor must belong
 * to x's context (EK_ERROR_INVALID_ARGUMENT) and be int64, int32 or bool
 * (EK_ERROR_DTYPE); index tensors that do not broadcast together are
 * EK_ERROR_SHAPE. Messages name the item (key[i]); a failure inside one of
 * the ops the key runs on keeps that op's message after the function's name
 * ("ek_index: ek_index_select: ..."). */
#define EK_INDEX_KIND_LIST(X)              \
  X(EK_INDEX_INT, 0, "int")                \
  X(EK_INDEX_SLICE, 1, "slice")            \
  X(EK_INDEX_NONE, 2, "none")              \
  X(EK_INDEX_ELLIPSIS, 3, "ellipsis")      \
  X(EK_INDEX_TENSOR, 4, "tensor")

typedef enum {
#define EK_OP_ENUM_(name, value, text) name = value,
  EK_INDEX_KIND_LIST(EK_OP_ENUM_)
#undef EK_OP_ENUM_
} ek_index_kind;

/** One item of an indexing key; see above. ek_index_int(), ek_index_slice()
 *  ... below fill one. */
typedef struct {
  ek_index_kind kind;
  int32_t reserved_;  /* must be 0 */
  int64_t start;      /* INT: the position; SLICE: the start */
  int64_t stop;       /* SLICE */
  int64_t step;       /* SLICE */
  ek_tensor tensor;   /* TENSOR */
} ek_index_item;

/* Constructors (header-only: not library symbols). */
static inline ek_index_item ek_index_item_of_kind_(ek_index_kind kind) {
  ek_index_item it;
  it.kind = kind;
  it.reserved_ = 0;
  it.start = 0;
  it.stop = 0;
  it.step = 0;
  it.tensor = NULL;
  return it;
}
static inline ek_index_item ek_index_item_int(int64_t i) {
  ek_index_item it = ek_index_item_of_kind_(EK_INDEX_INT);
  it.start = i;
  return it;
}
static inline ek_index_item ek_index_item_slice(int64_t start, int64_t stop, int64_t step) {
  ek_index_item it = ek_index_item_of_kind_(EK_INDEX_SLICE);
  it.start = start;
  it.stop = stop;
  it.step = step;
  return it;
}
static inline ek_index_item ek_index_item_none(void) {
  return ek_index_item_of_kind_(EK_INDEX_NONE);
}
static inline ek_index_item ek_index_item_ellipsis(void) {
  return ek_index_item_of_kind_(EK_INDEX_ELLIPSIS);
}
static inline ek_index_item ek_index_item_tensor(ek_tensor t) {
  ek_index_item it = ek_index_item_of_kind_(EK_INDEX_TENSOR);
  it.tensor = t;
  return it;
}

/** out = x[key] (key: n items; n == 0 is x itself, as x[...]). A basic key
 *  gives a view (no stream work) when *out is NULL. Advanced keys gather into
 *  a new tensor (or into a given *out of the result's shape and dtype), which
 *  may be a permuted view of the gathered data where NumPy's rule moves the
 *  indexed dims; synchronous as the indexing ops above (a mask is counted on
 *  the host, a 0-d mask read). A given *out with a basic key receives a copy
 *  of the view. */
EK_API ek_status ek_index(ek_stream stream, ek_tensor x, int n, const ek_index_item *key,
                          ek_tensor *out);
/** x[key] = value, in place on x: value (on x's context; x's dtype, or any
 *  dtype, converted to x's as ek_copy does) broadcasts to the shape x[key]
 *  has (leading size-1 dims of value beyond that shape are dropped, as NumPy).
 *  value may share memory with x (it is read before x is written). Under one
 *  mask alone a one-element value is ek_masked_fill, others ek_masked_scatter;
 *  other advanced keys are ek_index_put. With index tensors,
 *  a duplicated position receives one of its candidates; accumulate adds
 *  instead (x[key] += value with duplicates adding up, as index_put). With a
 *  basic key and accumulate, x[key] += value. Nothing is written on failure
 *  (indices are checked first). */
EK_API ek_status ek_index_assign(ek_stream stream, ek_tensor value, int accumulate,
                                 ek_tensor x, int n, const ek_index_item *key);

/* ---------------------------------------------------------------- random numbers
 * Counter-based Philox4x32-10: the element at C-order index i of the filled
 * tensor takes its numbers from counter (offset + i) under key seed, so the
 * same seed and offset give the same values on the CPU and on CUDA, for any
 * strides.
 *
 * Exact mapping. Philox4x32-10 (Random123's philox4x32_R(10, ctr, key)) runs
 * on ctr = {c_lo, c_hi, 0, 0}, c = offset + i mod 2^64 split into 32-bit
 * words, key = {seed_lo, seed_hi}, giving words w0..w3; W(x, y) is the 64-bit
 * value (y << 32) | x. All arithmetic below is double precision, one rounding
 * per operation, fma(x, y, z) fused; the result is then rounded to t's dtype
 * (f16/bf16 through f32).
 *  - UNIFORM: u = (w0 >> 8) * 2^-24 (f32, f16, bf16) or (W(w0, w1) >> 11) *
 *    2^-53 (f64); value fma(u, b - a, a). A value that rounds to b or above
 *    becomes the largest value of the dtype below b, so results lie in [a, b).
 *  - NORMAL: Box-Muller's cosine branch, a + b * sqrt(-2 ln u1) cos(2 pi u2)
 *    (as fma), with u1 = (w0 + 1) * 2^-32, u2 = w1 * 2^-32 (f32, f16, bf16) or
 *    u1 = ((W(w0, w1) >> 11) + 1) * 2^-53, u2 = (W(w2, w3) >> 11) * 2^-53
 *    (f64); ln and cos are libek's own polynomials (a few ulp), identical on
 *    both backends.
 *  - BERNOULLI: 1 when (W(w0, w1) >> 11) * 2^-53 < a, else 0.
 *  - RANDINT: a + k, k uniform on [0, n), n = b - a: Lemire's multiply-shift,
 *    k = (W(w0, w1) * n) >> 64; when the low 64 bits of that product fall
 *    below 2^64 mod n (probability under n / 2^64), k = (W(w2, w3) * n) >> 64
 *    instead, leaving a bias below 2^-64. n = 2^64 takes k = W(w0, w1).
 * The context's generator starts at seed 0x853c49e6748fea9b, offset 0.
 * In a CUDA graph capture, the generator's offset advances on the device at
 * each replay (see the graphs section), so replays draw what eager calls
 * would. */

#define EK_RANDOM_DIST_LIST(X)                                              \
  X(EK_RANDOM_UNIFORM, 0, "uniform")     /* uniform on [a, b) */            \
  X(EK_RANDOM_NORMAL, 1, "normal")       /* mean a, standard deviation b */ \
  X(EK_RANDOM_BERNOULLI, 2, "bernoulli") /* 1 with probability a, else 0 */ \
  X(EK_RANDOM_RANDINT, 3, "randint")     /* integers uniform on [a, b) */

typedef enum {
#define EK_OP_ENUM_(name, value, text) name = value,
  EK_RANDOM_DIST_LIST(EK_OP_ENUM_)
#undef EK_OP_ENUM_
} ek_random_dist;

typedef struct {
  size_t struct_size; /* set by the caller: sizeof(ek_philox_state) */
  uint64_t seed;
  uint64_t offset;    /* counter of the first element */
} ek_philox_state;
#define EK_PHILOX_STATE_INIT {sizeof(ek_philox_state), 0, 0}

/** Fills t with numbers drawn from dist, with parameters a and b (any real
 *  kind; RANDINT's bounds exact as integers). state NULL: the context's
 *  generator (seeded by ek_random_set_seed), whose offset then advances by t's element
 *  count (atomically: concurrent calls get disjoint counters; modulo 2^64);
 *  a given state is only read. UNIFORM and NORMAL need a float t; RANDINT
 *  any non-bool dtype; BERNOULLI any dtype, bool included (EK_ERROR_DTYPE
 *  otherwise). Bad parameters (EK_ERROR_INVALID_ARGUMENT): UNIFORM with
 *  non-finite a or b, b <= a or b - a overflowing; NORMAL with a non-finite
 *  mean or std, std < 0; BERNOULLI with p outside [0, 1]; RANDINT with
 *  non-integral a or b, b <= a, or [a, b) outside the dtype (for floats, the
 *  integers it holds exactly: |v| <= 2^11 f16, 2^8 bf16, 2^24 f32, 2^53 f64);
 *  an unknown dist. A broadcast view t (a stride-0 dim) is
 *  EK_ERROR_INVALID_ARGUMENT: its elements alias. A failed call leaves the
 *  generator as it was. stream NULL: t's context's default stream. */
EK_API ek_status ek_random(ek_stream stream, ek_random_dist dist, ek_scalar a, ek_scalar b,
                           const ek_philox_state *state, ek_tensor t);
/** Seeds ctx's generator and resets its offset to 0 (every context starts at
 *  seed 0x853c49e6748fea9b, offset 0). */
EK_API ek_status ek_random_set_seed(ek_context ctx, uint64_t seed);
/** The generator's current seed and offset. */
EK_API ek_status ek_random_get_state(ek_context ctx, ek_philox_state *state);

/* ---------------------------------------------------------------- custom kernels */

/* Users' own CUDA kernels: compiled at run time with NVRTC (JIT) or loaded
 * from an image built ahead of time (static), then launched on ek streams.
 * On a CPU context every function here returns EK_ERROR_NOT_SUPPORTED.
 * NVRTC is loaded on first use (libnvrtc.so.13, .so.12, .so); when it is
 * missing the error names what was tried (EK_ERROR_LIBRARY).
 *
 * Kernel cache: a compiled image is kept in memory (per process) and on disk
 * in the context's kernel_cache_dir (EK_KERNEL_CACHE_DIR; default
 * $XDG_CACHE_HOME/libek/kernels, else ~/.cache/libek/kernels). The key is a
 * SHA-256 of the source, the options, the device architecture, the NVRTC
 * version and the libek version. For a process that has not loaded NVRTC
 * yet, the NVRTC version in the key is the one recorded (in the directory's
 * nvrtc.hint) by the last process that did, as long as that library file is
 * unchanged (path, size, mtime); on a miss NVRTC is loaded and its own
 * version used. The directory is created with mode 0700. It is used only
 * while it is a directory (not a symbolic link to one) owned by the process's
 * effective uid and not writable by group or others: the checksum below
 * catches corruption, not someone who can write there. Otherwise (say
 * EK_KERNEL_CACHE_DIR=/tmp/x made by another user, or chmod 777) the disk
 * cache is not used, one warning per directory and process says why and how
 * to fix it (chmod go-w, or another directory), and kernels are compiled and
 * cached in memory only. Entries are written to a temporary file, fsynced and
 * renamed into place, so processes compiling the same kernel at once are
 * safe; each entry carries a SHA-256 of its contents, checked on load: a
 * truncated, corrupted or tampered entry, or anything but a regular file in
 * its place (a symbolic link, a FIFO: opened without following or waiting),
 * is rejected (logged at warn level), removed and rebuilt. */

typedef struct ek_module_s *ek_module;
typedef struct ek_kernel_s *ek_kernel;

/** Where a module's code came from. */
typedef enum {
  EK_MODULE_NOT_LOADED = 0,  /* from source, not compiled yet */
  EK_MODULE_COMPILED = 1,    /* compiled by NVRTC in this process */
  EK_MODULE_MEMORY_CACHE = 2,/* the image another module of this process compiled */
  EK_MODULE_DISK_CACHE = 3,  /* the image read from the disk cache */
  EK_MODULE_IMAGE = 4        /* ek_module_from_image */
} ek_module_origin;

/** A module of CUDA C++ source, compiled for ctx's device architecture
 *  (-arch=sm_XY is added by libek; do not pass -arch). name labels the
 *  program in compiler messages (NULL: "ek_module.cu"). options are NVRTC
 *  options such as "-DN=4" or "--use_fast_math" (n_options may be 0 with
 *  options NULL). Strings are copied. Compilation is lazy: the first
 *  ek_module_compile or ek_module_get_kernel compiles, or finds the image in
 *  memory, then on disk. Kernels are looked up by their symbol name, so
 *  declare them extern "C" (or pass the mangled name). Release with
 *  ek_module_release. */
EK_API ek_status ek_module_from_source(ek_context ctx, const char *source, const char *name,
                                       const char *const *options, int n_options,
                                       ek_module *out);
/** A module from an image built ahead of time: a cubin, a fatbin or PTX text
 *  (NUL-terminated; size counts the bytes, with or without the NUL). The
 *  bytes are loaded before this returns (the caller may free them).
 *  EK_ERROR_DEVICE with the driver's message for an image the device cannot
 *  load (wrong architecture, not an image). */
EK_API ek_status ek_module_from_image(ek_context ctx, const void *image, size_t size,
                                      ek_module *out);
/** Compiles (or loads from the caches) now, if not done yet. A compile error
 *  is EK_ERROR_COMPILE; ek_last_error() then holds NVRTC's whole log. A
 *  failed compilation is not retried: later calls fail the same way. */
EK_API ek_status ek_module_compile(ek_module m);
EK_API ek_status ek_module_get_origin(ek_module m, ek_module_origin *origin);
/** Adds a reference to m; each retain needs one more release. */
EK_API ek_status ek_module_retain(ek_module m);
/** Drops a reference; the module is unloaded when its last reference and
 *  its last kernel are released. NULL is a no-op. */
EK_API ek_status ek_module_release(ek_module m);

/** The kernel named name (compiling the module first if needed).
 *  EK_ERROR_INVALID_ARGUMENT naming it when the module has no such kernel.
 *  The kernel keeps its module loaded; release with ek_kernel_release. */
EK_API ek_status ek_module_get_kernel(ek_module m, const char *name, ek_kernel *out);
/** Adds a reference to k; each retain needs one more release. */
EK_API ek_status ek_kernel_retain(ek_kernel k);
/** Drops a reference; NULL is a no-op. */
EK_API ek_status ek_kernel_release(ek_kernel k);

typedef struct {
  size_t struct_size;         /* set by the caller: sizeof(ek_kernel_attributes) */
  int num_regs;               /* registers per thread */
  int max_threads_per_block;  /* the most threads a block of this kernel can have */
  size_t shared_bytes;        /* static shared memory per block */
  size_t const_bytes;
  size_t local_bytes;         /* per thread (spills, local arrays) */
  int num_params;             /* kernel parameters */
  size_t param_bytes;         /* their total size, padding included */
  int ptx_version;            /* e.g. 90 for PTX ISA of sm_90 */
  int binary_version;         /* e.g. 90 for sm_90 machine code */
} ek_kernel_attributes;
#define EK_KERNEL_ATTRIBUTES_INIT {sizeof(ek_kernel_attributes), 0, 0, 0, 0, 0, 0, 0, 0, 0}
EK_API ek_status ek_kernel_get_attributes(ek_kernel k, ek_kernel_attributes *attributes);

/** One kernel argument: the address of its value and the value's size in
 *  bytes (for a pointer parameter, the address of a pointer variable and
 *  sizeof(void *); ek_tensor_get_data gives a tensor's device pointer). */
typedef struct {
  const void *value;
  size_t size;
} ek_kernel_arg;

/** Launches k on stream (NULL: the default stream of k's context; a stream
 *  of another context is EK_ERROR_INVALID_ARGUMENT). n_args must equal the
 *  kernel's parameter count and each size its parameter's size
 *  (EK_ERROR_INVALID_ARGUMENT naming the first that differs). grid and block
 *  point to 3 sizes each, {x, y, z}; zero or over-limit sizes, or more threads or shared memory
 *  than the kernel allows, are EK_ERROR_INVALID_ARGUMENT. Asynchronous. */
EK_API ek_status ek_kernel_launch(ek_stream stream, ek_kernel k, const unsigned *grid,
                                  const unsigned *block, size_t shared_bytes,
                                  const ek_kernel_arg *args, int n_args);

/* Typed kernel arguments: the library does the marshalling every binding
 * would otherwise repeat (tensor -> device pointer, a value -> the bytes of a
 * C type). */
#define EK_KERNEL_VALUE_KIND_LIST(X)                                          \
  X(EK_KERNEL_VALUE_TENSOR, 0, "tensor") /* tensor's data pointer: T* */      \
  X(EK_KERNEL_VALUE_SCALAR, 1, "scalar") /* scalar as a C value of dtype */   \
  X(EK_KERNEL_VALUE_BYTES, 2, "bytes")   /* size bytes at bytes (a struct) */

typedef enum {
#define EK_OP_ENUM_(name, value, text) name = value,
  EK_KERNEL_VALUE_KIND_LIST(EK_OP_ENUM_)
#undef EK_OP_ENUM_
} ek_kernel_value_kind;

/** One typed kernel argument. TENSOR: tensor must live on the kernel's device
 *  (EK_ERROR_INVALID_ARGUMENT naming the argument otherwise); the kernel
 *  receives its data pointer (NULL for an empty tensor). SCALAR: scalar is
 *  converted to dtype as ek_fill stores a value (exact or
 *  EK_ERROR_INVALID_ARGUMENT naming the argument; float16/bfloat16 are 2-byte
 *  values, bool 1 byte; an unknown dtype is EK_ERROR_DTYPE); BYTES: size bytes
 *  at bytes, as ek_kernel_arg (NULL bytes with size > 0: EK_ERROR_NULL_POINTER).
 *  Unused fields must be 0 / NULL, and an unknown kind is
 *  EK_ERROR_INVALID_ARGUMENT; messages name the argument (args[i]). */
typedef struct {
  ek_kernel_value_kind kind;
  ek_dtype dtype;      /* SCALAR */
  ek_scalar scalar;    /* SCALAR */
  ek_tensor tensor;    /* TENSOR */
  const void *bytes;   /* BYTES */
  size_t size;         /* BYTES */
} ek_kernel_value;

/** ek_kernel_launch with typed arguments: each is converted as above, then the
 *  parameter count and sizes are checked as ek_kernel_launch checks them. */
EK_API ek_status ek_kernel_launch_values(ek_stream stream, ek_kernel k, const unsigned *grid,
                                         const unsigned *block, size_t shared_bytes,
                                         const ek_kernel_value *args, int n_args);
/** Removes every entry of ctx's disk cache directory and empties this
 *  process's memory cache (loaded modules stay usable). */
EK_API ek_status ek_kernel_cache_clear(ek_context ctx);

#ifdef EK_EXPERIMENTAL
/* ------------------------------------------ experimental: autotuned launch */

/** Launches k over n work items with a 1-D block of the size that ran
 *  fastest for it, and grid ceil(n / block). The first launch of a kernel in
 *  a problem-size bucket (n rounded up to a power of two) times each
 *  candidate block size (32, 64, 128, 256, 512, 1024 within the kernel's
 *  limit) on these arguments, then remembers the best for the kernel and
 *  bucket: the kernel must give the same result when run several times on
 *  its arguments (outputs a function of the inputs). *block_used (may be
 *  NULL) receives the block size launched. n == 0 launches nothing. Arguments
 *  are typed as for ek_kernel_launch_values. */
EK_API ek_status ek_kernel_launch_auto(ek_stream stream, ek_kernel k, uint64_t n,
                                       size_t shared_bytes, const ek_kernel_value *args,
                                       int n_args, unsigned *block_used);

/* ---------------------------------------- experimental: elementwise builders */

/* Elementwise kernels built from an expression, in the style of CuPy's
 * ElementwiseKernel: in_params "float32 x, float32 y", out_params
 * "float32 z", body "z = x * y + max(x, 0.0f)". Parameter types are ek dtype
 * names (bool, int8, uint8, int16, int32, int64, float16, bfloat16, float32,
 * float64); f16/bf16 parameters are float in the body, bool is bool. Names
 * are C identifiers and must differ; the body is CUDA C++ (one statement or
 * several) and sees each parameter as a scalar of the element at hand, plus
 * `i`, the element's index (int64, C order over the broadcast shape). Inputs
 * are const; an output starts as its element's current value (so "z += x"
 * accumulates into a given output; a new output's start is undefined). */
typedef struct ek_elementwise_s *ek_elementwise;

/** A builder for the kernel: nothing is compiled yet. name is the kernel's
 *  symbol, a C identifier (NULL: "ek_elementwise"). EK_ERROR_INVALID_ARGUMENT
 *  naming the token for: an unknown type, a name that is not a C identifier,
 *  a duplicate name, a reserved name (`i`, C++ keywords, threadIdx and the
 *  other CUDA built-ins, names starting ekw_, __ or _ and a capital), no
 *  outputs, more than 16 parameters in all. The lists are checked before the
 *  device: on a CPU context good lists give EK_ERROR_NOT_SUPPORTED. The
 *  builder counts as a live handle of ctx (ek_context_destroy refuses while
 *  it lives); destroy it with ek_elementwise_destroy. */
EK_API ek_status ek_elementwise_create(ek_context ctx, const char *in_params,
                                       const char *out_params, const char *body,
                                       const char *name, ek_elementwise *out);
/** Runs the kernel over inputs broadcast together (NumPy rules). Each input
 *  must have its parameter's dtype (EK_ERROR_DTYPE otherwise). For each
 *  output, a NULL outputs[j] gets a new tensor of the broadcast shape and its
 *  parameter's dtype; a given one must have that shape and dtype. Any strides
 *  and offsets; an output may be exactly an input (in place), never partially
 *  overlap one. The kernel is specialised per input rank and contiguity
 *  (the contiguous case is vectorized) and cached like any module.
 *  n_inputs and n_outputs must equal the declared counts. With no inputs,
 *  the first given output sets the shape. An empty shape allocates the
 *  outputs and launches (and compiles) nothing. A specialisation is compiled
 *  at its first launch: a body that does not compile is EK_ERROR_COMPILE with
 *  NVRTC's log, whose lines in the body read "<name>:body(N)". On failure
 *  outputs[] is left as it was and nothing new is kept. Asynchronous. */
EK_API ek_status ek_elementwise_launch(ek_stream stream, ek_elementwise k,
                                       const ek_tensor *inputs, int n_inputs,
                                       ek_tensor *outputs, int n_outputs);
/** Frees the builder and the kernels it compiled, after waiting for the
 *  context's work when it compiled any (launches may still run them). NULL
 *  is a no-op. */
EK_API ek_status ek_elementwise_destroy(ek_elementwise k);

/* -------------------------------------------------- experimental: profiler */

/** One recorded call. Times are microseconds since ek_profiler_start. On CUDA
 *  the device interval runs between events recorded on the call's stream just
 *  before and after its work (so it includes waiting for earlier work on that
 *  stream to finish only when the stream was busy); on CPU ops run on the
 *  calling thread, and the device interval is the host one. */
typedef struct {
  size_t struct_size;     /* set by the caller in records[0]: sizeof(ek_profile_record) */
  char name[64];          /* "binary.add", "matmul", "kernel.saxpy", "elementwise.fma" */
  char args[192];         /* inputs -> outputs: "float32[1024,1024] float32[1024] ->
                             float32[1024,1024]"; non-contiguous layouts add their
                             strides in braces; "..." ends a truncated list */
  ek_device device;
  uint64_t stream_id;     /* the stream's identity, as in ek_memory_block */
  uint64_t thread_id;     /* 1, 2, ...: OS threads numbered in order of first record */
  double host_start_us;
  double host_us;         /* time spent in the call on the host */
  double device_start_us; /* device clock aligned to the host's at ek_profiler_start */
  double device_us;       /* negative when the device could not time it */
} ek_profile_record;

/** Largest number of records one profiling session keeps; later calls are
 *  counted (the summary reports them) but not recorded. */
#define EK_PROFILER_MAX_RECORDS 262144

/** Starts recording every op and kernel launch made on the context (from any
 *  thread) and forgets the previous session's records. On CUDA it waits for
 *  the default stream once, to align the device clock with the host's.
 *  EK_ERROR_INVALID_ARGUMENT when the profiler is already running. Calls that
 *  fail are not recorded; ops called by other ops are recorded once, as the
 *  outer op. While off, profiling costs each op one atomic load. */
EK_API ek_status ek_profiler_start(ek_context ctx);
/** Stops recording and waits for the recorded device work to finish, so the
 *  records are complete. EK_ERROR_INVALID_ARGUMENT when it is not running. */
EK_API ek_status ek_profiler_stop(ek_context ctx);
/** Two-phase, like ek_memory_get_snapshot (records[0].struct_size is the
 *  stride): writes up to capacity records of the last stopped session, in
 *  order of completion, and their number into *count. EK_ERROR_NOT_READY
 *  while the profiler runs. */
EK_API ek_status ek_profiler_get_records(ek_context ctx, ek_profile_record *records,
                                         size_t capacity, size_t *count);
/** The last session as a text table, one row per op name (calls, total and mean
 *  device and host time), slowest total device time first. Writes at most
 *  capacity - 1 characters and a NUL into buffer (which may be NULL when
 *  capacity is 0) and the full length, without the NUL, into *length.
 *  EK_ERROR_NOT_READY while the profiler runs. */
EK_API ek_status ek_profiler_get_summary(ek_context ctx, char *buffer, size_t capacity,
                                         size_t *length);
/** Writes the last session as Chrome trace JSON (open it in ui.perfetto.dev or
 *  chrome://tracing): a host track per thread, a device track per stream and
 *  an arrow from each call to its device work. path is written as by
 *  ek_memory_write_snapshot_json: a regular file is replaced atomically, a FIFO or
 *  device (/dev/stdout) written in place, a symbolic link to a regular file
 *  refused; EK_ERROR_IO names the path on failure, EK_ERROR_INVALID_ARGUMENT
 *  for "". EK_ERROR_NOT_READY while the profiler runs. */
EK_API ek_status ek_profiler_write_chrome_trace(ek_context ctx, const char *path);
#endif /* EK_EXPERIMENTAL */

/* ---------------------------------------------------------------- fusion */

/* Automatic fusion of elementwise chains. While fusion is on for a stream,
 * ek_unary, ek_binary, ek_binary_scalar, ek_where, ek_clamp, ek_lerp and
 * ek_cast called on it (directly by the caller, not from inside another op)
 * check their arguments, create or check their output (its memory is
 * allocated at the call) and return, but do not run: they join the stream's
 * pending group, which runs later as one generated kernel on CUDA (replayed
 * op by op on CPU). Errors are reported by the call that caused them, as
 * eagerly. Operands must be float32, float64, float16, bfloat16, int32, int64
 * or bool and the op's output must have the group's shape; any other call
 * first evaluates the group and then runs eagerly. An op writing into memory
 * libek does not own (ek_tensor_wrap, DLPack import) runs at its call, as
 * does one reading such memory on the CPU; on CUDA a pending op may read it
 * later, so its owner must not write it before the group is evaluated (as it
 * must not before an asynchronous eager op has run).
 *
 * A group is evaluated (in stream order, on its stream) when:
 *  - any other call takes one of its tensors (an input, an output or a view of
 *    either): a non-fusible op, ek_copy, ek_tensor_to_host, ek_tensor_get_data,
 *    DLPack export, kernel and elementwise-builder launches, collectives, a
 *    fusible op on another stream, or a fusible op writing in place into a
 *    tensor the group reads or writes through another view (a write into
 *    exactly the view the group uses joins it: h = gelu(h + b) written into
 *    h is one kernel). ek_tensor_get_info, ek_tensor_retain,
 *    ek_tensor_release and ek_tensor_get_context do not evaluate: the
 *    address in ek_tensor_info.data is valid but its contents are pending;
 *  - ek_stream_synchronize, ek_event_record, ek_stream_destroy,
 *    ek_graph_capture_begin and _end (its stream); ek_context_synchronize and
 *    ek_context_destroy (every stream of the context);
 *  - it would exceed 32 ops or 8 distinct inputs;
 *  - ek_tensor_eval or ek_stream_flush.
 * Releasing the last handle of an intermediate keeps the group valid; the
 * fused kernel writes only the outputs that still have a handle.
 * Results equal eager ones bit for bit for float32, float64 and integers (the
 * kernel calls the eager kernels' element functions, without contraction);
 * float16/bfloat16 intermediates stay float32 under EK_FUSION_ON (as
 * torch.compile) and are rounded after every op as eagerly under
 * EK_FUSION_ROUNDED. Kernels are keyed by the chain's structure, not its
 * scalars or sizes (scalars are kernel parameters): a loop compiles once.
 * While a CUDA graph capture is underway a group whose kernel is not
 * compiled yet runs eagerly (counted in fallbacks_capture). The profiler
 * records fusion.compile and fusion.launch; EK_LOG_LEVEL=info logs each
 * build with its time, and a warning when fusion_max_kernels is reached.
 * Launch shape: a contiguous chain's kernel times its first fifteen launches
 * of 2^24 elements or more (outside any capture) in five block shapes, three
 * each, between events on its stream, and keeps the fastest for its later
 * launches of 2^24 elements or more (EK_LOG_LEVEL=info logs the choice and
 * the times);
 * every shape computes the same elements, so results do not depend on it.
 *
 * Reductions: ek_reduce with EK_REDUCE_SUM, _MEAN, _PROD, _MAX, _MIN,
 * _NORM_L1 or _NORM_INF, no given output or a given contiguous one of the
 * result's dtype, of a floating-point tensor that a pending op of the same
 * stream wrote, over every dim or over trailing dims, joins the group (its
 * result is pending like the others). On CUDA a float32 or float64
 * reduction of 2^20 elements or more over every dim or the last dims runs
 * as ONE kernel that computes the chain's elements where the eager
 * reduction loads them, storing the ones someone still holds as it goes
 * (sum(x * y) reads x and y once): it is the eager reduction kernel, with
 * its grid, order of combination and partials, so results equal eager ones
 * bit for bit (counted in prologue_fusions). Smaller ones (where the
 * chain's kernel and the eager reduction after it are faster), float16 and
 * bfloat16, and the CPU: the chain runs as above, writing the reduced
 * tensor, and the reduction reads it: the same results.
 * Rows: on CUDA a group goes on past its reductions when each is a float32
 * or float64 reduction of a full-shaped value of the group over its last
 * dim, with keepdim, that the eager kernel runs as one warp per row in one
 * launch (rows shorter than 4096 elements, mostly); ops of the full shape
 * (reading row results broadcast along the last dim) and ops of the row
 * shape (the full shape with its last dim 1) then join it too. A softmax
 * or a layer norm (mean, x - mean, the mean of its squares, rsqrt, the
 * scaling) is ONE kernel, a block per row: its threads compute the values
 * (keeping them in registers from phase to phase), its first warp combines
 * the row in the eager kernel's order: the same bits (each reduction
 * counted in prologue_fusions). Other reductions,
 * and reductions of tensors the group did not write, evaluate the group
 * first. */
typedef enum {
  EK_FUSION_OFF = 1,     /* every op runs at its call (the default) */
  EK_FUSION_ON = 2,      /* fuse; float16/bfloat16 intermediates kept in float32 */
  EK_FUSION_ROUNDED = 3  /* fuse; every op's result rounded to its dtype, as eagerly */
} ek_fusion;

/** Per-stream override: EK_FUSION_OFF, _ON or _ROUNDED, or 0 to follow the
 *  context's config.fusion. Turning fusion off evaluates the stream's pending
 *  group first. EK_ERROR_INVALID_ARGUMENT naming the value otherwise. */
EK_API ek_status ek_stream_set_fusion(ek_stream stream, ek_fusion fusion);
/** The stream's override (0 when it follows the context). */
EK_API ek_status ek_stream_get_fusion(ek_stream stream, ek_fusion *fusion);
/** Evaluates the pending group t belongs to, if any, now (asynchronously, on
 *  its stream); a no-op for a tensor whose contents are already produced. */
EK_API ek_status ek_tensor_eval(ek_tensor t);
/** Evaluates the stream's pending group now (asynchronously, in stream
 *  order); stream must not be NULL (it names no context). */
EK_API ek_status ek_stream_flush(ek_stream stream);

/** Fusion counters of a context since its creation. */
typedef struct {
  size_t struct_size;              /* set by the caller: sizeof(ek_fusion_stats) */
  uint64_t ops_deferred;           /* calls that joined a pending group */
  uint64_t groups_evaluated;       /* pending groups evaluated, fused or not */
  uint64_t fused_launches;         /* groups run as one generated kernel (CUDA) */
  uint64_t kernels_compiled;       /* distinct fused kernels this context built */
  uint64_t cache_hits_memory;      /* fused launches whose kernel the context held */
  uint64_t cache_hits_disk;        /* kernels built from the disk cache, not NVRTC */
  uint64_t compile_ns;             /* time spent building fused kernels */
  uint64_t fallbacks_cap;          /* groups run eagerly: fusion_max_kernels reached */
  uint64_t fallbacks_capture;      /* groups run eagerly: kernel not built, stream capturing */
  uint64_t fallbacks_unsupported;  /* groups run eagerly: CPU, one op, or too many operands */
  /* Appended after API 1.0 (read it only when struct_size covers it): */
  uint64_t prologue_fusions;       /* reductions run in one kernel with their pending
                                      elementwise input (CUDA; see ek_reduce under fusion) */
} ek_fusion_stats;

EK_API ek_status ek_context_get_fusion_stats(ek_context ctx, ek_fusion_stats *stats);

/* ---------------------------------------------------------------- multi-GPU: peer copies and collectives */

/* Peer copies: ek_copy between tensors of two CUDA contexts (on different
 * devices, or two contexts of one device) copies device to device. It runs on
 * `stream`, a stream of dst's context (NULL: dst's default stream). The
 * source's pending work is awaited by an event recorded on the source
 * context's DEFAULT stream, and that default stream then waits for the copy
 * (an event on `stream`), so later work there that writes src cannot race with
 * the read; work on other streams of the source context must be ordered into
 * its default stream by the caller (ek_stream_wait_event). Peer access is
 * enabled once per device pair where cudaDeviceCanAccessPeer allows it (over
 * NVLink or PCIe); otherwise the CUDA driver stages the bytes through pinned
 * host memory. Same dtype and both contiguous: one cudaMemcpyPeerAsync.
 * Strided or casting copies: with peer access, one copy kernel on dst's device
 * reads src in place; without it, src is packed (and cast) on its device,
 * crosses contiguous, and is unpacked on dst's. Copies between CPU and CUDA
 * tensors are as before.
 *
 * Communicators: NCCL, loaded at run time from EK_NCCL_LIBRARY when set, else
 * libnccl.so.2 (then libnccl.so). libek loads and runs without NCCL; asking
 * for a communicator there is EK_ERROR_LIBRARY, "NCCL not found (...)" naming
 * the files tried. CPU contexts have no communicators (EK_ERROR_NOT_SUPPORTED).
 * Every communicator is one rank on one CUDA context, blocking inside NCCL
 * unless ek_comm_config.blocking says otherwise, and has a timeout
 * (ek_comm_config.timeout_ms): initialization, split, destroy,
 * ek_comm_synchronize (and group end in non-blocking mode) that do not finish
 * in time abort the communicator
 * (ncclCommAbort) and return EK_ERROR_TIMEOUT, so a rank that dies or never
 * joins gives the others an error, not a hang. An aborted
 * communicator only accepts ek_comm_destroy and the getters.
 *
 * One process per GPU: rank 0 calls ek_comm_get_unique_id and sends the 128
 * bytes to every rank by any channel (a file, a socket, MPI, an environment
 * variable; the Python launcher `python -m ek.distributed.launch` does it);
 * each rank calls ek_comm_init_rank with its own context. Several nodes work
 * the same way: the id carries the address of rank 0's NCCL bootstrap socket
 * (NCCL_SOCKET_IFNAME picks the interface), and NCCL's own bootstrap connects
 * the ranks. One process with several GPUs: ek_comm_init_all. */
typedef struct ek_comm_s *ek_comm;

/** NCCL's unique id, plain bytes: copy it anywhere, compare with memcmp. */
typedef struct {
  char internal[128];
} ek_comm_unique_id;

typedef struct {
  size_t struct_size;
  /* Milliseconds a blocking step (init, split, group end, destroy,
     ek_comm_synchronize) may take before EK_ERROR_TIMEOUT; <= 0: the default,
     EK_COMM_TIMEOUT_MS from the environment or else 600000 (10 minutes). */
  int64_t timeout_ms;
  /* How collectives launch. 0: the default, EK_COMM_BLOCKING (a split:
     the parent's mode). EK_COMM_BLOCKING: NCCL's blocking mode, collectives
     launch on the calling thread (the lowest latency: a 1 MiB all_reduce on
     two H100s takes 17 us); init and split still run in NCCL's non-blocking
     mode, bounded by the timeout, and then split a blocking communicator
     from the one they made; a group end waits without a timeout
     (ek_comm_synchronize still honours it), and so does the first
     collective that needs a connection NCCL has not made yet, while a rank
     that is alive never joins that collective (NCCL_RUNTIME_CONNECT=0 makes
     every connection at init instead). EK_COMM_NONBLOCKING: NCCL's
     non-blocking mode throughout, group ends bounded by the timeout too;
     NCCL 2.2x then launches each collective from a helper thread it starts,
     some 60 us more a call. ek_comm_init_all with EK_COMM_BLOCKING makes
     blocking communicators directly (one process: no rank can be missing).
     Any other value is EK_ERROR_INVALID_ARGUMENT. */
  int32_t blocking;
} ek_comm_config;
#define EK_COMM_CONFIG_INIT {sizeof(ek_comm_config), 0, 0}
#define EK_COMM_BLOCKING 1
#define EK_COMM_NONBLOCKING (-1)
/* ek_comm_split's color for ranks that join no new communicator. */
#define EK_COMM_SPLIT_NOCOLOR (-1)

/** A new unique id (every rank of the communicator uses it). The process that
 *  makes it hosts NCCL's bootstrap root, which must live until every rank has
 *  joined (a launcher or rank 0; no GPU needed). */
EK_API ek_status ek_comm_get_unique_id(ek_comm_unique_id *id);
/** This process's rank (0 <= rank < nranks) of the communicator named by id,
 *  on ctx's device. Returns when all nranks ranks have joined, or with
 *  EK_ERROR_TIMEOUT. config may be NULL (defaults). */
EK_API ek_status ek_comm_init_rank(ek_context ctx, int nranks, const ek_comm_unique_id *id,
                                   int rank, const ek_comm_config *config, ek_comm *comm);
/** One communicator of n ranks in this process: comms[i] is rank i on ctxs[i]
 *  (contexts of distinct CUDA devices). */
EK_API ek_status ek_comm_init_all(int n, const ek_context *ctxs, const ek_comm_config *config,
                                  ek_comm *comms);
/** Collective over comm's ranks: ranks of one color form a new communicator,
 *  ordered by key (then by old rank). color EK_COMM_SPLIT_NOCOLOR gives
 *  *out == NULL. config NULL: comm's timeout. */
EK_API ek_status ek_comm_split(ek_comm comm, int color, int key, const ek_comm_config *config,
                               ek_comm *out);
EK_API ek_status ek_comm_get_rank(ek_comm comm, int *rank);
EK_API ek_status ek_comm_get_size(ek_comm comm, int *size);
/** The context the communicator runs on; borrowed. */
EK_API ek_status ek_comm_get_context(ek_comm comm, ek_context *ctx);
/** NCCL's asynchronous error state: EK_SUCCESS when healthy, EK_ERROR_NOT_READY
 *  while a non-blocking step is in progress, the error (message from NCCL)
 *  after a failure, EK_ERROR_TIMEOUT after a timeout, EK_ERROR_DEVICE after
 *  ek_comm_abort. */
EK_API ek_status ek_comm_get_async_error(ek_comm comm);
/** Aborts the communicator's work at once (kernels stuck waiting for a peer
 *  exit); other ranks then see errors or time out. */
EK_API ek_status ek_comm_abort(ek_comm comm);
/** Waits until stream (NULL: the default stream of comm's context) has done
 *  its work, checking comm's asynchronous errors: EK_ERROR_TIMEOUT (comm
 *  aborted) when a collective is still stuck after the timeout. */
EK_API ek_status ek_comm_synchronize(ek_stream stream, ek_comm comm);
/** Finishes comm's work (ncclCommFinalize, within the timeout, else aborts)
 *  and frees it. NULL is a no-op. */
EK_API ek_status ek_comm_destroy(ek_comm comm);

/* Collectives. Every rank calls them in the same order with matching shapes
 * and dtypes; they are enqueued on `stream` (a stream of comm's context; NULL:
 * its default stream) and return before the device has done them. op: SUM,
 * MEAN (NCCL's average), PROD, MAX and MIN of ek_reduce_op. Dtypes: every one
 * (int16, uint16 and bool only where no arithmetic is done: broadcast, all_gather,
 * all_to_all, send, recv; bool also with MAX and MIN). Tensors must be
 * contiguous (EK_ERROR_INVALID_ARGUMENT otherwise: make them so with
 * ek_contiguous) and of comm's context. *out follows the ops' rule (NULL: a
 * new tensor; else checked); *out == x runs in place. A pooled tensor used on
 * a stream other than the one it was allocated on is marked used there
 * (ek_tensor_record_stream), so freeing it cannot hand its memory to other
 * work before the collective completes, with no host wait. Between
 * ek_comm_group_start and _end, calls are fused into one NCCL launch. */
/** out = op over ranks of x (same shape as x). */
EK_API ek_status ek_comm_all_reduce(ek_stream stream, ek_comm comm, ek_reduce_op op, ek_tensor x,
                                    ek_tensor *out);
/** out = root's x on every rank (x gives the shape elsewhere; in place with *out == x). */
EK_API ek_status ek_comm_broadcast(ek_stream stream, ek_comm comm, int root, ek_tensor x,
                                   ek_tensor *out);
/** out on root = op over ranks of x; out on other ranks is written with
 *  nothing (it may be NULL there: *out stays NULL). */
EK_API ek_status ek_comm_reduce(ek_stream stream, ek_comm comm, ek_reduce_op op, int root,
                                ek_tensor x, ek_tensor *out);
/** out of shape [size, *x.shape]: out[r] = rank r's x. */
EK_API ek_status ek_comm_all_gather(ek_stream stream, ek_comm comm, ek_tensor x, ek_tensor *out);
/** x of shape [size, ...]: out (x.shape[1:]) on rank r = op over ranks of x[r]. */
EK_API ek_status ek_comm_reduce_scatter(ek_stream stream, ek_comm comm, ek_reduce_op op,
                                        ek_tensor x, ek_tensor *out);
/** x of shape [size, ...]: out[r] on rank q = rank r's x[q] (grouped send/recv;
 *  out may not be x). */
EK_API ek_status ek_comm_all_to_all(ek_stream stream, ek_comm comm, ek_tensor x, ek_tensor *out);
/** Sends x to rank peer, which receives it with ek_comm_recv. */
EK_API ek_status ek_comm_send(ek_stream stream, ek_comm comm, ek_tensor x, int peer);
/** Receives into t (same numel and dtype as what peer sends). */
EK_API ek_status ek_comm_recv(ek_stream stream, ek_comm comm, int peer, ek_tensor t);
/** Fuses this thread's following collectives (up to the matching _end) into
 *  one launch; groups nest. Needed around a send and a recv between two ranks
 *  that would otherwise wait for each other. */
EK_API ek_status ek_comm_group_start(void);
/** Launches the group; EK_ERROR_TIMEOUT when its communicators do not get it
 *  going within their timeout. */
EK_API ek_status ek_comm_group_end(void);

/* ---------------------------------------------------------------- complex numbers
 * EK_COMPLEX64 and EK_COMPLEX128 store each element as two floats (float32 or
 * float64), the real part first: the layout of C99 float _Complex, C++
 * std::complex, NumPy, PyTorch and DLPack's kDLComplex (64 and 128 bits).
 *
 * Type promotion: complex is a category above float (bool < integer < float
 * < complex). complex with a real dtype gives the complex dtype whose parts
 * are the promotion of its parts' float with the real dtype (complex64 +
 * float64 -> complex128, complex64 + int64 -> complex64); an EK_SCALAR_COMPLEX
 * raises a real tensor to complex64, or complex128 for a float64 tensor.
 *
 * Casts: real -> complex gives (x, 0); complex64 <-> complex128 rounds each
 * part; complex -> bool is x != 0 (as NumPy). complex -> a real number is
 * refused with EK_ERROR_DTYPE: the
 * imaginary part would be dropped silently (NumPy warns, the array API leaves
 * it unspecified); take ek_view_real, ek_view_imag or abs explicitly.
 *
 * Supported on complex tensors: copies, casts, views, joins and indexing
 * (elements move as bytes), fill/full/zeros/ones/eye, DLPack, and
 *  - ek_unary: neg, abs (a real result: float32 for complex64, float64 for
 *    complex128), sign (z / |z|, 0 at 0), square, reciprocal, exp, expm1,
 *    log, log1p, log2, log10, sqrt (principal branches, as C99's
 *    cexp/clog/csqrt), sin, cos, tan, sinh, cosh, tanh, asin, acos, atan,
 *    asinh, acosh, atanh (their logarithmic forms), round (each part),
 *    isnan/isinf/isfinite (either part NaN / either part infinite / both
 *    parts finite, as NumPy);
 *  - ek_binary, ek_binary_scalar: add, sub, mul, div, pow (exp(b log a),
 *    0^b = 0 for Re(b) > 0, 1 for b = 0), equal, not_equal;
 *  - reductions sum and mean (each part reduced as its float dtype, over all
 *    or some dims, keepdim), any and all (over x != 0); cumsum (ek_scan);
 *    prod and cumprod in complex128 as trees of complex multiplies, the same
 *    launches on both devices (prod pairs element i with i + ceil(n/2) until
 *    one is left; cumprod doubles its reach each step, Hillis-Steele), so
 *    the CPU and CUDA agree bit for bit; an empty prod is 1 + 0i;
 *  - ek_masked_fill (an EK_SCALAR_COMPLEX or real value), index assignment,
 *    ek_index_put and ek_scatter with accumulate, ek_where (each part; an out
 *    of the result's dtype);
 *  - ek_matmul (and tensordot, outer), with NumPy's batching and
 *    transposition rules: cuBLAS's complex gemm (cgemm, zgemm) on CUDA;
 *    on the CPU four real products of the parts (re = ar br - ai bi,
 *    im = ar bi + ai br) through the CPU BLAS; ek_gemm with complex alpha
 *    and beta.
 * Every other op refuses complex operands with EK_ERROR_DTYPE naming the op
 * and the dtype (the ordering ops - compare, max/min, sort, clamp - because
 * complex numbers have no order). Arithmetic computes in double precision on
 * both devices with the same formulas and rounds once to the result's parts:
 * add, sub and mul of complex64 give the same bits on the CPU and CUDA. */

/** A complex scalar re + im*i (header-only, like the other constructors). */
static inline ek_scalar ek_scalar_complex(double re, double im) {
  ek_scalar s = ek_scalar_of_kind_(EK_SCALAR_COMPLEX);
  s.f = re;
  s.imag = im;
  return s;
}
/** The real parts of a complex x as a view (a new handle sharing x's storage,
 *  like torch.real): float32 for complex64, float64 for complex128, x's
 *  shape, strides in elements doubled. Writing into it writes x. For a real
 *  x: a view of x itself (NumPy and torch). */
EK_API ek_status ek_view_real(ek_tensor x, ek_tensor *out);
/** The imaginary parts of a complex x as a view (as ek_view_real, one float
 *  further). A real x has no imaginary storage to view: EK_ERROR_DTYPE
 *  (as torch.imag; NumPy's np.imag returns zeros instead, the array API
 *  leaves it unspecified: ek_full with 0 gives them). */
EK_API ek_status ek_view_imag(ek_tensor x, ek_tensor *out);
/** The complex conjugate, a new tensor of x's dtype and shape (or into
 *  *out). A real x is copied unchanged (NumPy; the array API). */
EK_API ek_status ek_conj(ek_stream stream, ek_tensor x, ek_tensor *out);

/* ---------------------------------------------------------------- diagnostics */

/** Number of live handles (contexts, streams, events, tensors, modules,
 *  kernels, elementwise builders) in the process; for leak checks. */
EK_API ek_status ek_live_handles(int64_t *count);

#ifdef __cplusplus
}
#endif
#endif /* EK_H */
