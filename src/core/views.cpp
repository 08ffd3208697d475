// Zero-copy views: each returns a new handle over the same storage.
#include <cinttypes>
#include <limits>

#include "core/internal.hpp"

namespace ek {
namespace {

ek_status emit_view(const ek_tensor_s *t, int ndim, const int64_t *shape, const int64_t *strides,
                    int64_t offset, ek_tensor *out) {
  ek_tensor v = new_view(t);
  tensor_set_layout(v, ndim, shape, strides, offset);
  *out = v;
  return EK_SUCCESS;
}

// Python's slice.indices(): clamps start/stop and returns the length.
// EK_SLICE_MIN and EK_SLICE_MAX are Python's None in either bound, whatever
// the step's sign (ek.h): t[None:None:-1] reverses t.
int64_t slice_length(int64_t size, int64_t *start, int64_t *stop, int64_t step) {
  auto is_none = [](int64_t v) { return v == EK_SLICE_MIN || v == EK_SLICE_MAX; };
  auto clamp = [&](int64_t v, int64_t lo, int64_t hi) {
    if (v < 0) v = v < -size ? lo : v + size;  // no overflow: v >= -size before adding
    return v < lo ? lo : (v > hi ? hi : v);
  };
  if (step > 0) {
    *start = is_none(*start) ? 0 : clamp(*start, 0, size);
    *stop = is_none(*stop) ? size : clamp(*stop, 0, size);
    return *stop > *start ? (*stop - *start - 1) / step + 1 : 0;
  }
  *start = is_none(*start) ? size - 1 : clamp(*start, -1, size - 1);
  *stop = is_none(*stop) ? -1 : clamp(*stop, -1, size - 1);
  return *start > *stop ? (*start - *stop - 1) / (-step) + 1 : 0;
}

// Strides for viewing t as new_shape without copying (PyTorch's computeStride):
// false when t's strides make that impossible. Products are checked: a chunk
// of huge strides (a wrapped tensor with stride 2^62, a size-1 dim's) would
// overflow where PyTorch's arithmetic does.
bool view_strides(const ek_tensor_s *t, int ndim, const int64_t *shape, int64_t *strides) {
  int64_t numel = tensor_numel(t);
  if (numel == 0 || t->ndim == 0) {
    contiguous_strides(ndim, shape, strides);
    return true;
  }
  const int64_t max_stride = INT64_MAX / static_cast<int64_t>(ek_dtype_size(t->dtype));
  int view_d = ndim - 1;
  int64_t chunk_base_stride = t->strides[t->ndim - 1];
  int64_t tensor_numel_in_chunk = 1, view_numel = 1;
  for (int d = t->ndim - 1; d >= 0; --d) {
    tensor_numel_in_chunk *= t->shape[d];
    int64_t run = 0;  // no stride equals a product that overflows: the chunk ends
    bool chunk_ends = d == 0 || (t->shape[d - 1] != 1 &&
                                 (__builtin_mul_overflow(tensor_numel_in_chunk, chunk_base_stride, &run) ||
                                  t->strides[d - 1] != run));
    if (!chunk_ends) continue;
    while (view_d >= 0 && (view_numel < tensor_numel_in_chunk || shape[view_d] == 1)) {
      // Only a size-1 dim's product can leave int64 (in bytes): its stride
      // is never used, so 1 serves then (as in ek_view_unsqueeze).
      int64_t st = 0;
      bool fits = !__builtin_mul_overflow(view_numel, chunk_base_stride, &st) &&
                  st >= -max_stride && st <= max_stride;
      strides[view_d] = fits ? st : 1;
      view_numel *= shape[view_d];
      --view_d;
    }
    if (view_numel != tensor_numel_in_chunk) return false;
    if (d > 0) {
      chunk_base_stride = t->strides[d - 1];
      tensor_numel_in_chunk = 1;
      view_numel = 1;
    }
  }
  return view_d == -1;
}

}  // namespace

// Resolves one -1 in shape against numel; checks sizes and the element count.
ek_status infer_shape(const ek_tensor_s *t, int ndim, const int64_t *shape, int64_t *out) {
  EK_CHECK(ndim >= 0 && ndim <= EK_MAX_DIMS, EK_ERROR_INVALID_ARGUMENT,
           "ndim %d is not in [0, %d]", ndim, EK_MAX_DIMS);
  EK_CHECK(ndim == 0 || shape, EK_ERROR_NULL_POINTER, "shape is NULL but ndim is %d", ndim);
  int infer = -1;
  int64_t known = 1;
  for (int i = 0; i < ndim; ++i) {
    out[i] = shape[i];
    if (shape[i] == -1) {
      EK_CHECK(infer < 0, EK_ERROR_SHAPE, "only one dim may be -1 in %s",
               format_shape(ndim, shape).c_str());
      infer = i;
      continue;
    }
    EK_CHECK(shape[i] >= 0, EK_ERROR_SHAPE, "invalid size %" PRId64 " in shape %s", shape[i],
             format_shape(ndim, shape).c_str());
    EK_CHECK(!__builtin_mul_overflow(known, shape[i], &known), EK_ERROR_OVERFLOW,
             "shape %s overflows int64", format_shape(ndim, shape).c_str());
  }
  int64_t numel = tensor_numel(t);
  if (infer >= 0) {
    EK_CHECK(known != 0 && numel % known == 0, EK_ERROR_SHAPE,
             "cannot infer -1 in %s for %" PRId64 " elements",
             format_shape(ndim, shape).c_str(), numel);
    out[infer] = numel / known;
    known = numel;
  }
  int64_t checked = 0;  // the nonzero sizes too: they give the contiguous strides
  EK_CHECK(checked_numel(ndim, out, &checked), EK_ERROR_OVERFLOW, "shape %s overflows int64",
           format_shape(ndim, out).c_str());
  EK_CHECK(known == numel, EK_ERROR_SHAPE, "shape %s has %" PRId64
           " elements but the tensor of shape %s has %" PRId64,
           format_shape(ndim, shape).c_str(), known, format_shape(t->ndim, t->shape).c_str(),
           numel);
  return EK_SUCCESS;
}

// A reshape view when the strides allow one; *viewable false otherwise.
ek_status try_reshape_view(const ek_tensor_s *t, int ndim, const int64_t *shape, bool *viewable,
                           ek_tensor *out) {
  int64_t full[EK_MAX_DIMS], strides[EK_MAX_DIMS];
  EK_FORWARD(infer_shape(t, ndim, shape, full));
  *viewable = view_strides(t, ndim, full, strides);
  if (!*viewable) return EK_SUCCESS;
  return emit_view(t, ndim, full, strides, t->offset, out);
}

}  // namespace ek

using namespace ek;

extern "C" {

EK_API ek_status ek_view_slice(ek_tensor t, int dim, int64_t start, int64_t stop, int64_t step,
                               ek_tensor *out) {
  EK_API_ENTRY;
  EK_CHECK_TENSOR(t);
  EK_CHECK_NULL(out);
  EK_CHECK(t->ndim > 0, EK_ERROR_INDEX, "cannot slice a 0-d tensor");
  int d = 0;
  EK_FORWARD(wrap_dim(dim, t->ndim, "dim", &d));
  EK_CHECK(step != 0 && step != std::numeric_limits<int64_t>::min(), EK_ERROR_INVALID_ARGUMENT,
           "slice step %" PRId64 " is not allowed", step);
  int64_t shape[EK_MAX_DIMS], strides[EK_MAX_DIMS];
  for (int i = 0; i < t->ndim; ++i) {
    shape[i] = t->shape[i];
    strides[i] = t->strides[i];
  }
  int64_t len = slice_length(t->shape[d], &start, &stop, step);
  // A view of no element, or with at most one along d, never uses the offset
  // or stride it would move; keeping the source's avoids overflowing
  // start * stride or stride * step with the huge strides an empty tensor may
  // have. Otherwise both stay inside the storage and cannot overflow.
  const bool moves = len > 0 && tensor_numel(t) > 0;
  int64_t offset = t->offset + (moves ? start * t->strides[d] : 0);
  shape[d] = len;
  strides[d] = moves && len > 1 ? t->strides[d] * step : t->strides[d];
  return emit_view(t, t->ndim, shape, strides, offset, out);
}

EK_API ek_status ek_view_select(ek_tensor t, int dim, int64_t index, ek_tensor *out) {
  EK_API_ENTRY;
  EK_CHECK_TENSOR(t);
  EK_CHECK_NULL(out);
  EK_CHECK(t->ndim > 0, EK_ERROR_INDEX, "cannot select from a 0-d tensor");
  int d = 0;
  EK_FORWARD(wrap_dim(dim, t->ndim, "dim", &d));
  int64_t size = t->shape[d];
  EK_CHECK(index >= -size && index < size, EK_ERROR_INDEX,
           "index %" PRId64 " is out of range for dim %d of size %" PRId64, index, d, size);
  if (index < 0) index += size;
  int64_t shape[EK_MAX_DIMS], strides[EK_MAX_DIMS];
  int n = 0;
  for (int i = 0; i < t->ndim; ++i) {
    if (i == d) continue;
    shape[n] = t->shape[i];
    strides[n++] = t->strides[i];
  }
  // An empty tensor's huge strides would overflow index * stride; its views
  // address nothing, so they keep its offset.
  int64_t offset = tensor_numel(t) > 0 ? t->offset + index * t->strides[d] : t->offset;
  return emit_view(t, n, shape, strides, offset, out);
}

EK_API ek_status ek_view_permute(ek_tensor t, int ndim, const int *perm, ek_tensor *out) {
  EK_API_ENTRY;
  EK_CHECK_TENSOR(t);
  EK_CHECK_NULL(out);
  EK_CHECK(ndim == t->ndim, EK_ERROR_SHAPE, "permutation has %d dims; the tensor has %d", ndim,
           t->ndim);
  EK_CHECK(ndim == 0 || perm, EK_ERROR_NULL_POINTER, "perm is NULL");
  int64_t shape[EK_MAX_DIMS], strides[EK_MAX_DIMS];
  bool seen[EK_MAX_DIMS] = {};
  for (int i = 0; i < ndim; ++i) {
    int d = 0;
    EK_FORWARD(wrap_dim(perm[i], ndim, "perm entry", &d));
    EK_CHECK(!seen[d], EK_ERROR_INVALID_ARGUMENT, "dim %d appears twice in the permutation", d);
    seen[d] = true;
    shape[i] = t->shape[d];
    strides[i] = t->strides[d];
  }
  return emit_view(t, ndim, shape, strides, t->offset, out);
}

EK_API ek_status ek_view_transpose(ek_tensor t, int dim0, int dim1, ek_tensor *out) {
  EK_API_ENTRY;
  EK_CHECK_TENSOR(t);
  EK_CHECK_NULL(out);
  int a = 0, b = 0;
  EK_FORWARD(wrap_dim(dim0, t->ndim, "dim0", &a));
  EK_FORWARD(wrap_dim(dim1, t->ndim, "dim1", &b));
  int64_t shape[EK_MAX_DIMS], strides[EK_MAX_DIMS];
  for (int i = 0; i < t->ndim; ++i) {
    shape[i] = t->shape[i];
    strides[i] = t->strides[i];
  }
  if (t->ndim > 0) {
    std::swap(shape[a], shape[b]);
    std::swap(strides[a], strides[b]);
  }
  return emit_view(t, t->ndim, shape, strides, t->offset, out);
}

EK_API ek_status ek_view_reshape(ek_tensor t, int ndim, const int64_t *shape, ek_tensor *out) {
  EK_API_ENTRY;
  EK_CHECK_TENSOR(t);
  EK_CHECK_NULL(out);
  bool viewable = false;
  EK_FORWARD(try_reshape_view(t, ndim, shape, &viewable, out));
  EK_CHECK(viewable, EK_ERROR_SHAPE,
           "a tensor of shape %s and strides %s cannot be viewed as %s; use ek_reshape",
           format_shape(t->ndim, t->shape).c_str(), format_shape(t->ndim, t->strides).c_str(),
           format_shape(ndim, shape).c_str());
  return EK_SUCCESS;
}

EK_API ek_status ek_view_expand(ek_tensor t, int ndim, const int64_t *shape, ek_tensor *out) {
  EK_API_ENTRY;
  EK_CHECK_TENSOR(t);
  EK_CHECK_NULL(out);
  EK_CHECK(ndim >= t->ndim && ndim <= EK_MAX_DIMS, EK_ERROR_SHAPE,
           "cannot expand %d dims to %d (needs %d..%d)", t->ndim, ndim, t->ndim, EK_MAX_DIMS);
  EK_CHECK(ndim == 0 || shape, EK_ERROR_NULL_POINTER, "shape is NULL");
  int64_t out_shape[EK_MAX_DIMS], strides[EK_MAX_DIMS];
  int lead = ndim - t->ndim;
  for (int i = 0; i < ndim; ++i) {
    int64_t src = i < lead ? 1 : t->shape[i - lead];
    int64_t stride = i < lead ? 0 : t->strides[i - lead];
    int64_t want = shape[i] == -1 && i >= lead ? src : shape[i];
    EK_CHECK(want >= 0 && (want == src || src == 1), EK_ERROR_SHAPE,
             "cannot expand shape %s to %s (dim %d: %" PRId64 " to %" PRId64 ")",
             format_shape(t->ndim, t->shape).c_str(), format_shape(ndim, shape).c_str(), i, src,
             shape[i]);
    out_shape[i] = want;
    strides[i] = want == src ? stride : 0;
  }
  int64_t numel = 0;
  EK_CHECK(checked_numel(ndim, out_shape, &numel), EK_ERROR_OVERFLOW,
           "expanded shape %s overflows int64", format_shape(ndim, out_shape).c_str());
  return emit_view(t, ndim, out_shape, strides, t->offset, out);
}

EK_API ek_status ek_view_squeeze(ek_tensor t, int ndims, const int *dims, ek_tensor *out) {
  EK_API_ENTRY;
  EK_CHECK_TENSOR(t);
  EK_CHECK_NULL(out);
  EK_CHECK(ndims >= 0 && ndims <= EK_MAX_DIMS, EK_ERROR_INVALID_ARGUMENT,
           "ndims %d is not in [0, %d]", ndims, EK_MAX_DIMS);
  EK_CHECK(ndims == 0 || dims, EK_ERROR_NULL_POINTER, "dims is NULL but ndims is %d", ndims);
  bool drop[EK_MAX_DIMS] = {};
  for (int i = 0; i < t->ndim; ++i) drop[i] = ndims == 0 && t->shape[i] == 1;
  for (int i = 0; i < ndims; ++i) {
    int d = 0;
    EK_FORWARD(wrap_dim(dims[i], t->ndim, "dim", &d));  // a 0-d tensor accepts -1 and 0
    if (t->ndim == 0) continue;
    EK_CHECK(t->shape[d] == 1, EK_ERROR_SHAPE, "dim %d has size %" PRId64 ", not 1", d,
             t->shape[d]);
    drop[d] = true;
  }
  int64_t shape[EK_MAX_DIMS], strides[EK_MAX_DIMS];
  int n = 0;
  for (int i = 0; i < t->ndim; ++i) {
    if (drop[i]) continue;
    shape[n] = t->shape[i];
    strides[n++] = t->strides[i];
  }
  return emit_view(t, n, shape, strides, t->offset, out);
}

EK_API ek_status ek_view_unsqueeze(ek_tensor t, int dim, ek_tensor *out) {
  EK_API_ENTRY;
  EK_CHECK_TENSOR(t);
  EK_CHECK_NULL(out);
  EK_CHECK(t->ndim < EK_MAX_DIMS, EK_ERROR_SHAPE, "the tensor already has %d dims", EK_MAX_DIMS);
  int d = 0;
  EK_FORWARD(wrap_dim(dim, t->ndim + 1, "dim", &d));
  int64_t shape[EK_MAX_DIMS], strides[EK_MAX_DIMS];
  for (int i = 0, src = 0; i <= t->ndim; ++i) {
    if (i == d) {
      shape[i] = 1;
      // PyTorch's choice; any stride serves a size-1 dim, so 1 where it overflows.
      int64_t next = 1;
      if (src < t->ndim && __builtin_mul_overflow(t->shape[src], t->strides[src], &next)) next = 1;
      strides[i] = next;
      continue;
    }
    shape[i] = t->shape[src];
    strides[i] = t->strides[src++];
  }
  return emit_view(t, t->ndim + 1, shape, strides, t->offset, out);
}

EK_API ek_status ek_view_flatten(ek_tensor t, int start_dim, int end_dim, ek_tensor *out) {
  EK_API_ENTRY;
  EK_CHECK_TENSOR(t);
  EK_CHECK_NULL(out);
  int a = 0, b = 0;
  EK_FORWARD(wrap_dim(start_dim, t->ndim, "start_dim", &a));
  EK_FORWARD(wrap_dim(end_dim, t->ndim, "end_dim", &b));
  EK_CHECK(a <= b, EK_ERROR_INVALID_ARGUMENT, "start_dim %d is after end_dim %d", a, b);
  if (t->ndim == 0) {
    const int64_t one[1] = {1};
    return emit_view(t, 1, one, one, t->offset, out);
  }
  int64_t shape[EK_MAX_DIMS];
  int n = 0;
  for (int i = 0; i < t->ndim; ++i) {
    if (i <= a || i > b) shape[n++] = t->shape[i];
    else shape[n - 1] *= t->shape[i];
  }
  bool viewable = false;
  EK_FORWARD(try_reshape_view(t, n, shape, &viewable, out));
  EK_CHECK(viewable, EK_ERROR_SHAPE,
           "dims %d..%d of shape %s with strides %s cannot be merged without a copy; "
           "use ek_reshape", a, b, format_shape(t->ndim, t->shape).c_str(),
           format_shape(t->ndim, t->strides).c_str());
  return EK_SUCCESS;
}

EK_API ek_status ek_view_as_strided(ek_tensor t, int ndim, const int64_t *shape,
                                    const int64_t *strides, int64_t offset, ek_tensor *out) {
  EK_API_ENTRY;
  EK_CHECK_TENSOR(t);
  EK_CHECK_NULL(out);
  EK_CHECK(ndim >= 0 && ndim <= EK_MAX_DIMS, EK_ERROR_INVALID_ARGUMENT,
           "ndim %d is not in [0, %d]", ndim, EK_MAX_DIMS);
  EK_CHECK(ndim == 0 || (shape && strides), EK_ERROR_NULL_POINTER,
           "shape or strides is NULL but ndim is %d", ndim);
  for (int i = 0; i < ndim; ++i)
    EK_CHECK(shape[i] >= 0, EK_ERROR_SHAPE, "negative size %" PRId64 " at dim %d", shape[i], i);
  // Even an empty layout needs element 0 to point into (or just past) the storage.
  int64_t capacity = static_cast<int64_t>(t->storage->bytes / ek_dtype_size(t->dtype));
  EK_CHECK(offset >= 0 && offset <= capacity, EK_ERROR_INDEX,
           "offset %" PRId64 " is outside the storage of %" PRId64 " elements", offset, capacity);
  EK_FORWARD(check_layout_in_storage(t, ndim, shape, strides, offset));
  return emit_view(t, ndim, shape, strides, offset, out);
}

}  // extern "C"
