/* ekgo.h: cgo helpers of the Go binding (included by each file's preamble).
 *
 * ek_last_error() is per OS thread and a goroutine may change OS threads
 * between two cgo calls, so every wrapper below makes the ek_* call AND copies
 * the message in the same C call: on failure *msg receives a malloc'd copy
 * (freed by the Go side, see check in error.go); on success it is untouched. */
#ifndef EKGO_H
#define EKGO_H
#include <ek.h>
#include <stdlib.h>
#include <string.h>

static inline ek_status ekgo_fail(ek_status s, char **msg) {
  if (s != EK_SUCCESS && msg) {
    const char *m = ek_last_error();
    size_t n = strlen(m);
    char *c = (char *)malloc(n + 1);
    if (c) memcpy(c, m, n + 1);
    *msg = c;
  }
  return s;
}

/* Structs the library fills carry their size first (ek.h): every shim that
 * passes one sets it here, on the struct (or an array's first element; NULL
 * passes through for the calls that size an array). */
#define EKGO_SIZED(p) ((p) ? ((p)->struct_size = sizeof *(p), (p)) : (p))

#define EKGO_STRIP(...) __VA_ARGS__
/* EKGO(name, (params), (args)) defines ekgo_name(params..., char **msg). */
#define EKGO(name, params, args) \
  static inline ek_status ekgo_##name(EKGO_STRIP params, char **msg) { \
    return ekgo_fail(name args, msg); \
  }

EKGO(ek_device_get_count, (ek_device_type t, int *n), (t, n))
EKGO(ek_device_get_info, (ek_device d, ek_device_info *i), (d, EKGO_SIZED(i)))
EKGO(ek_live_handles, (int64_t *n), (n))

EKGO(ek_context_config_init, (ek_context_config *c), (c))
EKGO(ek_context_create, (ek_device d, const ek_context_config *c, ek_context *o), (d, c, o))
EKGO(ek_context_destroy, (ek_context c), (c))
EKGO(ek_context_get_device, (ek_context c, ek_device *d), (c, d))
EKGO(ek_context_get_config, (ek_context c, ek_context_config *o), (c, o))
EKGO(ek_context_synchronize, (ek_context c), (c))
EKGO(ek_context_get_default_stream, (ek_context c, ek_stream *o), (c, o))

EKGO(ek_stream_create, (ek_context c, ek_stream *o), (c, o))
EKGO(ek_stream_wrap, (ek_context c, void *n, ek_stream *o), (c, n, o))
EKGO(ek_stream_destroy, (ek_stream s), (s))
EKGO(ek_stream_synchronize, (ek_stream s), (s))
EKGO(ek_stream_query, (ek_stream s, int *d), (s, d))
EKGO(ek_stream_wait_event, (ek_stream s, ek_event e), (s, e))
EKGO(ek_stream_get_native, (ek_stream s, void **n), (s, n))
EKGO(ek_stream_get_context, (ek_stream s, ek_context *c), (s, c))

EKGO(ek_event_create, (ek_context c, ek_event *o), (c, o))
EKGO(ek_event_destroy, (ek_event e), (e))
EKGO(ek_event_record, (ek_stream s, ek_event e), (s, e))
EKGO(ek_event_synchronize, (ek_event e), (e))
EKGO(ek_event_query, (ek_event e, int *d), (e, d))
EKGO(ek_event_get_elapsed_ms, (ek_event a, ek_event b, float *ms), (a, b, ms))

EKGO(ek_malloc, (ek_stream s, ek_context c, size_t n, void **p), (s, c, n, p))
EKGO(ek_free, (ek_stream s, ek_context c, void *p), (s, c, p))
EKGO(ek_memory_get_stats, (ek_context c, ek_memory_stats *st), (c, EKGO_SIZED(st)))
EKGO(ek_memory_reset_peaks, (ek_context c), (c))
EKGO(ek_memory_empty_cache, (ek_context c), (c))
EKGO(ek_memory_set_limit, (ek_context c, uint64_t b), (c, b))
EKGO(ek_memory_set_fraction, (ek_context c, double f), (c, f))
EKGO(ek_memory_get_snapshot, (ek_context c, ek_memory_block *b, size_t cap, size_t *n), (c, EKGO_SIZED(b), cap, n))
EKGO(ek_memory_write_snapshot_json, (ek_context c, const char *path), (c, path))
EKGO(ek_memory_get_snapshot_json, (ek_context c, char *b, size_t cap, size_t *n), (c, b, cap, n))

EKGO(ek_tensor_empty, (ek_stream s, ek_context c, int nd, const int64_t *sh, ek_dtype dt, ek_tensor *o),
     (s, c, nd, sh, dt, o))
EKGO(ek_tensor_from_host, (ek_stream s, ek_context c, int nd, const int64_t *sh, ek_dtype dt, const void *d,
                           ek_tensor *o), (s, c, nd, sh, dt, d, o))
EKGO(ek_tensor_to_host, (ek_stream s, ek_tensor t, void *d, size_t n), (s, t, d, n))
EKGO(ek_tensor_retain, (ek_tensor t), (t))
EKGO(ek_tensor_release, (ek_tensor t), (t))
EKGO(ek_tensor_get_info, (ek_tensor t, ek_tensor_info *i), (t, EKGO_SIZED(i)))
EKGO(ek_tensor_get_context, (ek_tensor t, ek_context *c), (t, c))
EKGO(ek_tensor_record_stream, (ek_stream s, ek_tensor t), (s, t))

EKGO(ek_view_slice, (ek_tensor t, int d, int64_t a, int64_t b, int64_t st, ek_tensor *o), (t, d, a, b, st, o))
EKGO(ek_view_select, (ek_tensor t, int d, int64_t i, ek_tensor *o), (t, d, i, o))
EKGO(ek_view_permute, (ek_tensor t, int n, const int *p, ek_tensor *o), (t, n, p, o))
EKGO(ek_view_transpose, (ek_tensor t, int a, int b, ek_tensor *o), (t, a, b, o))
EKGO(ek_view_reshape, (ek_tensor t, int n, const int64_t *sh, ek_tensor *o), (t, n, sh, o))
EKGO(ek_view_expand, (ek_tensor t, int n, const int64_t *sh, ek_tensor *o), (t, n, sh, o))
EKGO(ek_view_squeeze, (ek_tensor t, int n, const int *d, ek_tensor *o), (t, n, d, o))
EKGO(ek_view_unsqueeze, (ek_tensor t, int d, ek_tensor *o), (t, d, o))
EKGO(ek_view_flatten, (ek_tensor t, int a, int b, ek_tensor *o), (t, a, b, o))
EKGO(ek_view_as_strided, (ek_tensor t, int n, const int64_t *sh, const int64_t *st, int64_t off, ek_tensor *o),
     (t, n, sh, st, off, o))

EKGO(ek_copy, (ek_stream s, ek_tensor src, ek_tensor dst), (s, src, dst))
EKGO(ek_reshape, (ek_stream s, ek_tensor t, int n, const int64_t *sh, ek_tensor *o), (s, t, n, sh, o))
EKGO(ek_contiguous, (ek_stream s, ek_tensor t, ek_tensor *o), (s, t, o))
EKGO(ek_cast, (ek_stream s, ek_tensor t, ek_dtype d, ek_tensor *o), (s, t, d, o))
EKGO(ek_fill, (ek_stream s, ek_scalar v, ek_tensor t), (s, v, t))
EKGO(ek_arange, (ek_stream s, ek_context c, ek_scalar a, ek_scalar b, ek_scalar st, ek_dtype d, ek_tensor *o),
     (s, c, a, b, st, d, o))

/* Ops: every wrapper below takes the op's *out by value (NULL: allocate) and
 * returns the status, the resulting handle and, on failure, the malloc'd
 * message in one struct, so the Go side passes no pointers to its own
 * variables (which would escape to the heap on every call). */
typedef struct {
  ek_status status;
  ek_tensor out;
  char *msg;
} ekgo_result;

static inline ekgo_result ekgo_done(ek_status s, ek_tensor out) {
  ekgo_result r;
  r.status = s;
  r.out = out;
  r.msg = NULL;
  ekgo_fail(s, &r.msg);
  return r;
}

/* EKGO_OP(name, (params), (args)) defines ekgo_op_name(params..., ek_tensor out)
 * calling name(args..., &out). */
#define EKGO_OP(name, params, args) \
  static inline ekgo_result ekgo_op_##name(EKGO_STRIP params, ek_tensor out) { \
    ek_status ekgo_s_ = name(EKGO_STRIP args, &out); /* sequenced before out is read */ \
    return ekgo_done(ekgo_s_, out); \
  }

EKGO_OP(ek_unary, (ek_stream s, ek_unary_op op, ek_tensor x), (s, op, x))
EKGO_OP(ek_binary, (ek_stream s, ek_binary_op op, ek_tensor a, ek_tensor b), (s, op, a, b))
EKGO_OP(ek_binary_scalar, (ek_stream s, ek_binary_op op, ek_tensor a, ek_scalar v, int first), (s, op, a, v, first))
EKGO_OP(ek_reduce, (ek_stream s, ek_reduce_op op, ek_tensor x, int n, const int *d, int k), (s, op, x, n, d, k))
EKGO_OP(ek_var, (ek_stream s, ek_var_kind kind, ek_tensor x, int n, const int *d, double c, int k),
        (s, kind, x, n, d, c, k))
EKGO_OP(ek_where, (ek_stream s, ek_tensor c, ek_tensor a, ek_tensor b), (s, c, a, b))
EKGO_OP(ek_lerp, (ek_stream s, ek_tensor a, ek_tensor b, ek_scalar w), (s, a, b, w))
EKGO_OP(ek_axpby, (ek_stream s, ek_scalar al, ek_tensor x, ek_scalar be, ek_tensor y), (s, al, x, be, y))
EKGO_OP(ek_softmax, (ek_stream s, ek_softmax_kind kind, ek_tensor x, int d), (s, kind, x, d))
EKGO_OP(ek_scan, (ek_stream s, ek_scan_op op, ek_tensor x, int d), (s, op, x, d))
EKGO_OP(ek_matmul, (ek_stream s, ek_tensor a, ek_tensor b), (s, a, b))
EKGO_OP(ek_index_select, (ek_stream s, ek_tensor x, int d, ek_tensor i), (s, x, d, i))
EKGO_OP(ek_gather, (ek_stream s, ek_tensor x, int d, ek_tensor i), (s, x, d, i))
EKGO_OP(ek_scatter, (ek_stream s, ek_tensor x, int d, ek_tensor i, ek_tensor src, int acc), (s, x, d, i, src, acc))
EKGO_OP(ek_index_put, (ek_stream s, ek_tensor x, int n, const ek_tensor *i, ek_tensor v, int acc),
        (s, x, n, i, v, acc))
EKGO_OP(ek_masked_select, (ek_stream s, ek_tensor x, ek_tensor m), (s, x, m))
EKGO_OP(ek_masked_fill, (ek_stream s, ek_tensor x, ek_tensor m, ek_scalar v), (s, x, m, v))
EKGO_OP(ek_masked_scatter, (ek_stream s, ek_tensor x, ek_tensor m, ek_tensor src), (s, x, m, src))
EKGO_OP(ek_nonzero, (ek_stream s, ek_tensor x), (s, x))

/* ek_clamp with its optional bounds passed by value. */
static inline ekgo_result ekgo_op_ek_clamp(ek_stream s, ek_tensor x, int has_lo, ek_scalar lo, int has_hi,
                                           ek_scalar hi, ek_tensor out) {
  ek_status st = ek_clamp(s, x, has_lo ? &lo : NULL, has_hi ? &hi : NULL, &out);
  return ekgo_done(st, out);
}

/* ek_reduce_with_indices: two outputs (values in out, indices in out2). */
typedef struct {
  ek_status status;
  ek_tensor values, indices;
  char *msg;
} ekgo_result2;

static inline ekgo_result2 ekgo_op_ek_reduce_with_indices(ek_stream s, ek_reduce_op op, ek_tensor x, int d, int k,
                                                         ek_tensor values, ek_tensor indices) {
  ekgo_result2 r;
  r.status = ek_reduce_with_indices(s, op, x, d, k, &values, &indices);
  r.values = values;
  r.indices = indices;
  r.msg = NULL;
  ekgo_fail(r.status, &r.msg);
  return r;
}

/* Calls without a tensor result: the status and the message. */
typedef struct {
  ek_status status;
  char *msg;
} ekgo_status;

static inline ekgo_status ekgo_st(ek_status s) {
  ekgo_status r;
  r.status = s;
  r.msg = NULL;
  ekgo_fail(s, &r.msg);
  return r;
}

static inline ekgo_status ekgo_op_ek_gemm(ek_stream s, ek_scalar al, ek_tensor a, ek_tensor b, ek_scalar be,
                                          ek_tensor c) {
  return ekgo_st(ek_gemm(s, al, a, b, be, c));
}
static inline ekgo_status ekgo_op_ek_random(ek_stream s, ek_random_dist d, ek_scalar a, ek_scalar b, int has_state,
                                            uint64_t seed, uint64_t offset, ek_tensor t) {
  ek_philox_state st = EK_PHILOX_STATE_INIT;
  st.seed = seed;
  st.offset = offset;
  return ekgo_st(ek_random(s, d, a, b, has_state ? &st : NULL, t));
}

/* The small-op hot paths (result into an existing tensor) take the handles as
 * uintptr_t: cgo then inserts no pointer checks around the call, which cost
 * three heap allocations per call with pointer-typed arguments. Handles are
 * C memory, so the conversion is safe for the Go collector. */
#define EKGO_HANDLE(x) ((ek_tensor)(x))
static inline ekgo_status ekgo_into_unary(uintptr_t s, int op, uintptr_t x, uintptr_t out) {
  ek_tensor o = EKGO_HANDLE(out);
  return ekgo_st(ek_unary((ek_stream)s, (ek_unary_op)op, EKGO_HANDLE(x), &o));
}
static inline ekgo_status ekgo_into_binary(uintptr_t s, int op, uintptr_t a, uintptr_t b, uintptr_t out) {
  ek_tensor o = EKGO_HANDLE(out);
  return ekgo_st(ek_binary((ek_stream)s, (ek_binary_op)op, EKGO_HANDLE(a), EKGO_HANDLE(b), &o));
}
static inline ekgo_status ekgo_into_binary_scalar(uintptr_t s, int op, uintptr_t a, ek_scalar v, int first,
                                                  uintptr_t out) {
  ek_tensor o = EKGO_HANDLE(out);
  return ekgo_st(ek_binary_scalar((ek_stream)s, (ek_binary_op)op, EKGO_HANDLE(a), v, first, &o));
}

EKGO(ek_record_stream, (ek_stream s, ek_context c, void *p), (s, c, p))
EKGO(ek_memcpy, (ek_stream s, ek_context c, const void *src, void *dst, size_t n), (s, c, src, dst, n))
EKGO(ek_tensor_wrap, (ek_context c, void *d, int nd, const int64_t *sh, const int64_t *st, ek_dtype dt, ek_tensor *o),
     (c, d, nd, sh, st, dt, NULL, NULL, o))
EKGO(ek_tensor_to_dlpack, (ek_tensor t, struct DLManagedTensorVersioned **o), (t, o))
EKGO(ek_tensor_from_dlpack, (ek_context c, struct DLManagedTensorVersioned *src, int f, ek_tensor *o),
     (c, src, f, o))

/* Memory callbacks: the Go function (callback.go) gets the cgo.Handle of the
 * Go callback as user_data. */
extern void ekgoMemoryCallback(uintptr_t handle, int event, uint64_t bytes);
static inline void ekgo_memory_trampoline(ek_context c, ek_memory_event e, uint64_t b, void *u) {
  (void)c;
  ekgoMemoryCallback((uintptr_t)u, (int)e, b);
}
static inline ek_status ekgo_set_memory_callback(ek_context c, uintptr_t h, uint64_t threshold, char **msg) {
  return ekgo_fail(ek_memory_set_callback(c, h ? ekgo_memory_trampoline : NULL, (void *)h, threshold), msg);
}

EKGO(ek_random_set_seed, (ek_context c, uint64_t seed), (c, seed))
EKGO(ek_random_get_state, (ek_context c, ek_philox_state *st), (c, EKGO_SIZED(st)))

/* Custom kernels (kernels.go). */
EKGO(ek_module_from_source, (ek_context c, const char *src, const char *name, const char *const *opt, int n,
                             ek_module *o), (c, src, name, opt, n, o))
EKGO(ek_module_from_image, (ek_context c, const void *img, size_t n, ek_module *o), (c, img, n, o))
EKGO(ek_module_compile, (ek_module m), (m))
EKGO(ek_module_get_origin, (ek_module m, ek_module_origin *o), (m, o))
EKGO(ek_module_retain, (ek_module m), (m))
EKGO(ek_module_release, (ek_module m), (m))
EKGO(ek_module_get_kernel, (ek_module m, const char *name, ek_kernel *o), (m, name, o))
EKGO(ek_kernel_retain, (ek_kernel k), (k))
EKGO(ek_kernel_release, (ek_kernel k), (k))
EKGO(ek_kernel_get_attributes, (ek_kernel k, ek_kernel_attributes *a), (k, EKGO_SIZED(a)))
EKGO(ek_kernel_cache_clear, (ek_context c), (c))

/* A kernel argument as the Go side describes it, in C memory (C.malloc'd by
 * kernels.go): a tensor (its device pointer is read with ek_tensor_get_data in
 * the launching C call) or a scalar of kind's width whose bits are in bits. */
enum { EKGO_ARG_TENSOR = 1, EKGO_ARG_I32, EKGO_ARG_U32, EKGO_ARG_I64, EKGO_ARG_U64, EKGO_ARG_F32, EKGO_ARG_F64,
       EKGO_ARG_PTR };
typedef struct {
  int kind;
  ek_tensor tensor;
  uint64_t bits;
  union {
    int32_t i32;
    uint32_t u32;
    int64_t i64;
    uint64_t u64;
    float f32;
    double f64;
    void *ptr;
  } value; /* filled by ekgo_build_args; args[i].value points here */
} ekgo_karg;

/* Fills args[0..n) from a[0..n): the values are decoded in C (no assumption
 * on byte order). On a tensor's failure *bad receives its index. */
static inline ek_status ekgo_build_args(ekgo_karg *a, ek_kernel_arg *args, int n, int *bad) {
  for (int i = 0; i < n; ++i) {
    size_t size = 0;
    switch (a[i].kind) {
    case EKGO_ARG_TENSOR: {
      ek_status s = ek_tensor_get_data(a[i].tensor, &a[i].value.ptr);
      if (s != EK_SUCCESS) {
        *bad = i;
        return s;
      }
      size = sizeof(void *);
      break;
    }
    case EKGO_ARG_I32: a[i].value.i32 = (int32_t)(uint32_t)a[i].bits; size = 4; break;
    case EKGO_ARG_U32: a[i].value.u32 = (uint32_t)a[i].bits; size = 4; break;
    case EKGO_ARG_I64: a[i].value.i64 = (int64_t)a[i].bits; size = 8; break;
    case EKGO_ARG_U64: a[i].value.u64 = a[i].bits; size = 8; break;
    case EKGO_ARG_F32: {
      uint32_t b = (uint32_t)a[i].bits;
      memcpy(&a[i].value.f32, &b, 4);
      size = 4;
      break;
    }
    case EKGO_ARG_F64: memcpy(&a[i].value.f64, &a[i].bits, 8); size = 8; break;
    case EKGO_ARG_PTR: a[i].value.ptr = (void *)(uintptr_t)a[i].bits; size = sizeof(void *); break;
    default: *bad = i; return EK_ERROR_INVALID_ARGUMENT;
    }
    args[i].value = &a[i].value;
    args[i].size = size;
  }
  return EK_SUCCESS;
}

/* The launches: arguments built and kernel launched in one C call, so a
 * failure's message (of ek_tensor_get_data or of the launch) is read on the
 * thread that failed. *bad is -1 unless building argument *bad failed. */
static inline ek_status ekgo_kernel_launch(ek_stream s, ek_kernel k, unsigned gx, unsigned gy, unsigned gz,
                                           unsigned bx, unsigned by, unsigned bz, size_t shared, ekgo_karg *a,
                                           ek_kernel_arg *args, int n, int *bad, char **msg) {
  unsigned grid[3] = {gx, gy, gz}, block[3] = {bx, by, bz};
  *bad = -1;
  ek_status st = ekgo_build_args(a, args, n, bad);
  if (st != EK_SUCCESS) return ekgo_fail(st, msg);
  return ekgo_fail(ek_kernel_launch(s, k, grid, block, shared, args, n), msg);
}
/* For the binding's own tests (no kernel needed): builds the arguments and
 * copies each value's bytes to out (8 bytes an argument) and size to sizes. */
static inline ek_status ekgo_debug_args(ekgo_karg *a, ek_kernel_arg *args, int n, unsigned char *out,
                                        size_t *sizes, int *bad, char **msg) {
  *bad = -1;
  ek_status st = ekgo_build_args(a, args, n, bad);
  if (st != EK_SUCCESS) return ekgo_fail(st, msg);
  for (int i = 0; i < n; ++i) {
    memcpy(out + 8 * i, args[i].value, args[i].size);
    sizes[i] = args[i].size;
  }
  return EK_SUCCESS;
}

#ifdef EK_EXPERIMENTAL
/* The experimental API (ek.h's EK_EXPERIMENTAL section): profiler.go and
 * kernels.go define the macro with #cgo CFLAGS. */
EKGO(ek_profiler_start, (ek_context c), (c))
EKGO(ek_profiler_stop, (ek_context c), (c))
EKGO(ek_profiler_get_records, (ek_context c, ek_profile_record *r, size_t cap, size_t *n), (c, EKGO_SIZED(r), cap, n))
EKGO(ek_profiler_get_summary, (ek_context c, char *b, size_t cap, size_t *n), (c, b, cap, n))
EKGO(ek_profiler_write_chrome_trace, (ek_context c, const char *p), (c, p))

EKGO(ek_elementwise_create, (ek_context c, const char *in, const char *out, const char *body, const char *name,
                             ek_elementwise *o), (c, in, out, body, name, o))
EKGO(ek_elementwise_destroy, (ek_elementwise k), (k))
EKGO(ek_elementwise_launch, (ek_stream s, ek_elementwise k, const ek_tensor *in, int ni, ek_tensor *out, int no),
     (s, k, in, ni, out, no))

static inline ek_status ekgo_kernel_launch_auto(ek_stream s, ek_kernel k, uint64_t n_items, size_t shared,
                                                ekgo_karg *a, ek_kernel_arg *args, int n, unsigned *used, int *bad,
                                                char **msg) {
  *bad = -1;
  ek_status st = ekgo_build_args(a, args, n, bad);
  if (st != EK_SUCCESS) return ekgo_fail(st, msg);
  return ekgo_fail(ek_kernel_launch_auto(s, k, n_items, shared, args, n, used), msg);
}
#endif /* EK_EXPERIMENTAL */

/* Joining and rearranging (join.go). */
EKGO_OP(ek_concat, (ek_stream s, int n, const ek_tensor *xs, int d), (s, n, xs, d))
EKGO_OP(ek_stack, (ek_stream s, int n, const ek_tensor *xs, int d), (s, n, xs, d))
EKGO_OP(ek_flip, (ek_stream s, ek_tensor x, int n, const int *d), (s, x, n, d))
EKGO_OP(ek_roll, (ek_stream s, ek_tensor x, int n, const int64_t *sh, const int *d), (s, x, n, sh, d))
EKGO_OP(ek_repeat, (ek_stream s, ek_tensor x, int n, const int64_t *r), (s, x, n, r))
EKGO(ek_view_split, (ek_tensor x, int d, int64_t sz, int64_t cap, ek_tensor *o, int64_t *n), (x, d, sz, cap, o, n))
EKGO(ek_view_split_sizes, (ek_tensor x, int d, int64_t n, const int64_t *sz, ek_tensor *o), (x, d, n, sz, o))
EKGO(ek_view_chunk, (ek_tensor x, int d, int64_t c, int64_t cap, ek_tensor *o, int64_t *n), (x, d, c, cap, o, n))
EKGO(ek_view_moveaxis, (ek_tensor x, int n, const int *a, const int *b, ek_tensor *o), (x, n, a, b, o))
EKGO(ek_broadcast_tensors, (int n, const ek_tensor *xs, ek_tensor *o), (n, xs, o))
EKGO(ek_meshgrid, (ek_stream s, int n, const ek_tensor *xs, ek_meshgrid_indexing i, ek_tensor *o), (s, n, xs, i, o))
/* Creation (creation.go). */
EKGO(ek_full, (ek_context c, int n, const int64_t *shape, ek_dtype d, ek_scalar v, ek_tensor *o),
     (NULL, c, n, shape, d, v, o))
EKGO(ek_linspace, (ek_context c, ek_scalar a, ek_scalar b, int64_t num, int endpoint, ek_dtype d, ek_tensor *o),
     (NULL, c, a, b, num, endpoint, d, o))
EKGO(ek_eye, (ek_context c, int64_t n, int64_t m, int64_t k, ek_dtype d, ek_tensor *o), (NULL, c, n, m, k, d, o))
EKGO_OP(ek_tril, (ek_stream s, ek_tensor x, int64_t k), (s, x, k))
EKGO_OP(ek_triu, (ek_stream s, ek_tensor x, int64_t k), (s, x, k))

#endif
