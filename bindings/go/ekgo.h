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

#define EKGO_STRIP(...) __VA_ARGS__
/* EKGO(name, (params), (args)) defines ekgo_name(params..., char **msg). */
#define EKGO(name, params, args) \
  static inline ek_status ekgo_##name(EKGO_STRIP params, char **msg) { \
    return ekgo_fail(name args, msg); \
  }

EKGO(ek_device_count, (ek_device_type t, int *n), (t, n))
EKGO(ek_device_get_info, (ek_device d, ek_device_info *i), (d, i))
EKGO(ek_live_handles, (int64_t *n), (n))

EKGO(ek_context_config_init, (ek_context_config *c), (c))
EKGO(ek_context_create, (ek_device d, const ek_context_config *c, ek_context *o), (d, c, o))
EKGO(ek_context_destroy, (ek_context c), (c))
EKGO(ek_context_get_device, (ek_context c, ek_device *d), (c, d))
EKGO(ek_context_get_config, (ek_context c, ek_context_config *o), (c, o))
EKGO(ek_context_synchronize, (ek_context c), (c))
EKGO(ek_context_default_stream, (ek_context c, ek_stream *o), (c, o))

EKGO(ek_stream_create, (ek_context c, ek_stream *o), (c, o))
EKGO(ek_stream_wrap, (ek_context c, void *n, ek_stream *o), (c, n, o))
EKGO(ek_stream_destroy, (ek_stream s), (s))
EKGO(ek_stream_synchronize, (ek_stream s), (s))
EKGO(ek_stream_query, (ek_stream s, int *d), (s, d))
EKGO(ek_stream_wait_event, (ek_stream s, ek_event e), (s, e))
EKGO(ek_stream_native, (ek_stream s, void **n), (s, n))

EKGO(ek_event_create, (ek_context c, ek_event *o), (c, o))
EKGO(ek_event_destroy, (ek_event e), (e))
EKGO(ek_event_record, (ek_event e, ek_stream s), (e, s))
EKGO(ek_event_synchronize, (ek_event e), (e))
EKGO(ek_event_query, (ek_event e, int *d), (e, d))
EKGO(ek_event_elapsed_ms, (ek_event a, ek_event b, float *ms), (a, b, ms))

EKGO(ek_malloc, (ek_context c, size_t n, ek_stream s, void **p), (c, n, s, p))
EKGO(ek_free, (ek_context c, void *p, ek_stream s), (c, p, s))
EKGO(ek_memory_stats_get, (ek_context c, ek_memory_stats *st), (c, st))
EKGO(ek_memory_reset_peaks, (ek_context c), (c))
EKGO(ek_memory_empty_cache, (ek_context c), (c))
EKGO(ek_memory_set_limit, (ek_context c, uint64_t b), (c, b))
EKGO(ek_memory_set_fraction, (ek_context c, double f), (c, f))
EKGO(ek_memory_snapshot, (ek_context c, ek_memory_block *b, size_t cap, size_t *n), (c, b, cap, n))

EKGO(ek_tensor_empty, (ek_context c, int nd, const int64_t *sh, ek_dtype dt, ek_stream s, ek_tensor *o),
     (c, nd, sh, dt, s, o))
EKGO(ek_tensor_from_host, (ek_context c, int nd, const int64_t *sh, ek_dtype dt, const void *d, ek_stream s,
                           ek_tensor *o), (c, nd, sh, dt, d, s, o))
EKGO(ek_tensor_to_host, (ek_tensor t, void *d, size_t n, ek_stream s), (t, d, n, s))
EKGO(ek_tensor_retain, (ek_tensor t, ek_tensor *o), (t, o))
EKGO(ek_tensor_release, (ek_tensor t), (t))
EKGO(ek_tensor_get_info, (ek_tensor t, ek_tensor_info *i), (t, i))
EKGO(ek_tensor_record_stream, (ek_tensor t, ek_stream s), (t, s))

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

EKGO(ek_copy, (ek_stream s, ek_tensor d, ek_tensor x), (s, d, x))
EKGO(ek_reshape, (ek_stream s, ek_tensor t, int n, const int64_t *sh, ek_tensor *o), (s, t, n, sh, o))
EKGO(ek_contiguous, (ek_stream s, ek_tensor t, ek_tensor *o), (s, t, o))
EKGO(ek_cast, (ek_stream s, ek_tensor t, ek_dtype d, ek_tensor *o), (s, t, d, o))
EKGO(ek_fill, (ek_stream s, ek_tensor t, double v), (s, t, v))
EKGO(ek_fill_int, (ek_stream s, ek_tensor t, int64_t v), (s, t, v))
EKGO(ek_arange, (ek_context c, double a, double b, double st, ek_dtype d, ek_stream s, ek_tensor *o),
     (c, a, b, st, d, s, o))

#endif
