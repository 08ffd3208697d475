// Joining and rearranging: ek_concat, ek_stack, ek_flip, ek_roll, ek_repeat,
// ek_meshgrid (copies) and ek_view_split, _split_sizes, _chunk, _moveaxis,
// ek_broadcast_tensors (views). The copies have no kernels of their own: each
// is one or a few device_copy calls between a layout of the input (a negative
// stride for flip, stride 0 for repeat and meshgrid) and a slice of the
// output, so CUDA runs the vectorized and strided copy kernels of ek_copy.
// Every argument, and a given out's overlap with the inputs, is checked before
// the first copy.
#include <cinttypes>
#include <string>

#include "core/internal.hpp"
#include "core/profiler.hpp"
#include "ops/promote.hpp"

namespace ek {
namespace {

// ---- layouts

char *byte_at(const TensorDesc &d, int dim, int64_t index) {
  return static_cast<char *>(d.data) +
         index * d.strides[dim] * static_cast<int64_t>(dtype_size(d.dtype));
}

// d[..., start:start+len, ...] along dim (nothing moves for an empty piece).
TensorDesc narrow(TensorDesc d, int dim, int64_t start, int64_t len) {
  if (len > 0 && desc_numel(d) > 0) d.data = byte_at(d, dim, start);
  d.shape[dim] = len;
  return d;
}

// d[..., index, ...]: dim removed.
TensorDesc select(TensorDesc d, int dim, int64_t index) {
  if (desc_numel(d) > 0) d.data = byte_at(d, dim, index);
  for (int i = dim; i + 1 < d.ndim; ++i) {
    d.shape[i] = d.shape[i + 1];
    d.strides[i] = d.strides[i + 1];
  }
  --d.ndim;
  return d;
}

TensorDesc contiguous_layout(void *data, int dtype, int ndim, const int64_t *shape) {
  TensorDesc d{};
  d.data = data;
  d.dtype = dtype;
  d.ndim = ndim;
  for (int i = 0; i < ndim; ++i) d.shape[i] = shape[i];
  contiguous_strides(ndim, shape, d.strides);
  return d;
}

// Python's modulo: the result is in [0, size).
int64_t wrap_shift(int64_t shift, int64_t size) {
  int64_t r = shift % size;
  return r < 0 ? r + size : r;
}

// ---- arguments

std::string item(const char *list, int64_t i) { return std::string(list) + "[" + std::to_string(i) + "]"; }

// n >= 1 live tensors of one context.
ek_status check_tensors(int n, const ek_tensor *xs) {
  EK_CHECK(n >= 1, EK_ERROR_INVALID_ARGUMENT, "n is %d; at least one tensor is needed", n);
  EK_CHECK_NULL(xs);
  for (int i = 0; i < n; ++i) {
    EK_FORWARD(check_tensor(xs[i], item("xs", i).c_str()));
    EK_CHECK(xs[i]->storage->ctx == xs[0]->storage->ctx, EK_ERROR_INVALID_ARGUMENT,
             "xs[%d] belongs to another context than xs[0]", i);
  }
  return EK_SUCCESS;
}

ek_dtype promote_all(int n, const ek_tensor *xs) {
  ek_dtype dt = xs[0]->dtype;
  for (int i = 1; i < n; ++i) dt = promote(dt, xs[i]->dtype);
  return dt;
}

// A caller-given out must not share memory with what it is computed from.
ek_status check_apart(const TensorDesc &out, int n, const ek_tensor *xs, const char *out_name) {
  for (int i = 0; i < n; ++i)
    EK_CHECK(desc_numel(out) == 0 || !ranges_overlap(out, tensor_desc(xs[i])),
             EK_ERROR_INVALID_ARGUMENT, "%s overlaps xs[%d]: the result must not share memory "
             "with an input", out_name, i);
  return EK_SUCCESS;
}

ek_status check_dims_list(int ndims, const int *dims, int ndim, bool *seen, const char *what) {
  EK_CHECK(ndims >= 0 && ndims <= EK_MAX_DIMS, EK_ERROR_INVALID_ARGUMENT,
           "%s count %d is not in [0, %d]", what, ndims, EK_MAX_DIMS);
  EK_CHECK(ndims == 0 || dims, EK_ERROR_NULL_POINTER, "%s is NULL but its count is %d", what, ndims);
  for (int i = 0; i < ndims; ++i) {
    int d = 0;
    EK_FORWARD(wrap_dim(dims[i], ndim, what, &d));
    EK_CHECK(!seen[d], EK_ERROR_INVALID_ARGUMENT, "dim %d appears twice in %s", d, what);
    seen[d] = true;
  }
  return EK_SUCCESS;
}

// ---- copies of more dims than a TensorDesc holds (ek_repeat splits each dim
// in two): the leading dims are walked on the host, one copy per index.
struct Walk {
  int ndim = 0;
  int64_t shape[2 * kMaxDims], dst[2 * kMaxDims], src[2 * kMaxDims];
  void add(int64_t size, int64_t dst_stride, int64_t src_stride) {
    if (size == 1) return;
    shape[ndim] = size;
    dst[ndim] = dst_stride;
    src[ndim++] = src_stride;
  }
};

ek_status copy_walk(ek_context ctx, ek_stream s, const Walk &w, int first, TensorDesc dd,
                    TensorDesc sd) {
  if (w.ndim - first <= kMaxDims) {
    dd.ndim = sd.ndim = w.ndim - first;
    for (int i = 0; i < dd.ndim; ++i) {
      dd.shape[i] = sd.shape[i] = w.shape[first + i];
      dd.strides[i] = w.dst[first + i];
      sd.strides[i] = w.src[first + i];
    }
    return device_copy(ctx, s, dd, sd);
  }
  const auto de = static_cast<int64_t>(dtype_size(dd.dtype)), se = static_cast<int64_t>(dtype_size(sd.dtype));
  for (int64_t k = 0; k < w.shape[first]; ++k) {
    TensorDesc d2 = dd, s2 = sd;
    d2.data = static_cast<char *>(dd.data) + k * w.dst[first] * de;
    s2.data = static_cast<char *>(sd.data) + k * w.src[first] * se;
    EK_FORWARD(copy_walk(ctx, s, w, first + 1, d2, s2));
  }
  return EK_SUCCESS;
}

// ---- concat

bool skipped_in_concat(const ek_tensor_s *t) { return t->ndim == 1 && t->shape[0] == 0; }

// The result's shape and the wrapped dim; torch.cat's rules (see ek.h).
ek_status concat_shape(int n, const ek_tensor *xs, int dim, int *d, int *ndim, int64_t *shape) {
  int ref = 0;
  while (ref < n && skipped_in_concat(xs[ref])) ++ref;
  if (ref == n) ref = 0;  // all skipped: the result is one of them, [0]
  const ek_tensor_s *r = xs[ref];
  EK_CHECK(r->ndim >= 1, EK_ERROR_SHAPE, "xs[%d] is 0-d: a 0-d tensor cannot be concatenated", ref);
  EK_FORWARD(wrap_dim(dim, r->ndim, "dim", d));
  *ndim = r->ndim;
  for (int i = 0; i < r->ndim; ++i) shape[i] = r->shape[i];
  shape[*d] = 0;
  for (int i = 0; i < n; ++i) {
    const ek_tensor_s *t = xs[i];
    if (skipped_in_concat(t) && !skipped_in_concat(r)) continue;
    bool same = t->ndim == r->ndim;
    for (int k = 0; same && k < r->ndim; ++k) same = k == *d || t->shape[k] == r->shape[k];
    EK_CHECK(same, EK_ERROR_SHAPE, "xs[%d] has shape %s but xs[%d] has %s: they must match "
             "outside dim %d", i, format_shape(t->ndim, t->shape).c_str(), ref,
             format_shape(r->ndim, r->shape).c_str(), *d);
    EK_CHECK(!__builtin_add_overflow(shape[*d], t->shape[*d], &shape[*d]), EK_ERROR_OVERFLOW,
             "the joined size along dim %d overflows int64", *d);
  }
  return EK_SUCCESS;
}

// ---- roll

// shifts[i] along dims[i], summed per dim and wrapped into [0, size).
ek_status roll_shifts(const ek_tensor_s *x, int n, const int64_t *shifts, const int *dims,
                      int64_t *per_dim) {
  for (int i = 0; i < n; ++i) {
    int d = 0;
    EK_FORWARD(wrap_dim(dims[i], x->ndim, "dim", &d));
    if (x->ndim == 0 || x->shape[d] == 0) continue;
    per_dim[d] = wrap_shift(per_dim[d] + wrap_shift(shifts[i], x->shape[d]), x->shape[d]);
  }
  return EK_SUCCESS;
}

// dst = src rolled by shift[d] along each dim: two pieces per rolled dim.
ek_status roll_copy(ek_context ctx, ek_stream s, const TensorDesc &dst, const TensorDesc &src,
                    const int64_t *shift) {
  int rolled[kMaxDims], k = 0;
  for (int d = 0; d < dst.ndim; ++d)
    if (shift[d] != 0) rolled[k++] = d;
  for (int mask = 0; mask < (1 << k); ++mask) {
    TensorDesc dd = dst, sd = src;
    for (int j = 0; j < k; ++j) {
      const int d = rolled[j];
      const int64_t n = dst.shape[d], sh = shift[d];
      const bool wrapped = (mask >> j) & 1;  // the tail of src that comes round to the front
      dd = wrapped ? narrow(dd, d, 0, sh) : narrow(dd, d, sh, n - sh);
      sd = wrapped ? narrow(sd, d, n - sh, sh) : narrow(sd, d, 0, n - sh);
    }
    EK_FORWARD(device_copy(ctx, s, dd, sd));
  }
  return EK_SUCCESS;
}

// The flattened roll: through contiguous scratch wherever x or out is not
// contiguous.
ek_status roll_flat(ek_context ctx, ek_stream s, ek_tensor o, ek_tensor x, int64_t shift) {
  const int64_t numel = tensor_numel(x);
  if (numel == 0) return EK_SUCCESS;
  const int64_t flat[1] = {numel};
  const int64_t sh[1] = {wrap_shift(shift, numel)};
  Scratch src_tmp(ctx, s), dst_tmp(ctx, s);
  TensorDesc src = contiguous_layout(tensor_data(x), x->dtype, 1, flat);
  if (!tensor_contiguous(x)) {
    EK_FORWARD(src_tmp.allocate(static_cast<size_t>(numel) * dtype_size(x->dtype)));
    src.data = src_tmp.get();
    EK_FORWARD(device_copy(ctx, s, contiguous_layout(src.data, x->dtype, x->ndim, x->shape),
                           tensor_desc(x)));
  }
  TensorDesc dst = contiguous_layout(tensor_data(o), o->dtype, 1, flat);
  if (!tensor_contiguous(o)) {
    EK_FORWARD(dst_tmp.allocate(static_cast<size_t>(numel) * dtype_size(o->dtype)));
    dst.data = dst_tmp.get();
  }
  EK_FORWARD(roll_copy(ctx, s, dst, src, sh));
  if (dst.data == tensor_data(o)) return EK_SUCCESS;
  return device_copy(ctx, s, tensor_desc(o), contiguous_layout(dst.data, o->dtype, o->ndim, o->shape));
}

// ---- views

ek_status emit_view(const ek_tensor_s *t, int ndim, const int64_t *shape, const int64_t *strides,
                    int64_t offset, ek_tensor *out) {
  ek_tensor v = new_view(t);
  tensor_set_layout(v, ndim, shape, strides, offset);
  *out = v;
  return EK_SUCCESS;
}

// Pieces of x along d, piece k of length len(k); checks capacity, then emits.
template <typename Len>
ek_status emit_pieces(const ek_tensor_s *x, int d, int64_t count, int64_t capacity,
                      ek_tensor *outs, int64_t *out_count, Len len) {
  if (outs == nullptr && capacity == 0) {
    *out_count = count;
    return EK_SUCCESS;
  }
  EK_CHECK_NULL(outs);
  EK_CHECK(capacity >= count, EK_ERROR_INVALID_ARGUMENT,
           "capacity %" PRId64 " is less than the %" PRId64 " pieces", capacity, count);
  int64_t shape[EK_MAX_DIMS];
  for (int i = 0; i < x->ndim; ++i) shape[i] = x->shape[i];
  const bool addressable = tensor_numel(x) > 0;
  for (int64_t k = 0, start = 0; k < count; ++k) {
    shape[d] = len(k);
    const int64_t offset = x->offset + (addressable && shape[d] > 0 ? start * x->strides[d] : 0);
    emit_view(x, x->ndim, shape, x->strides, offset, &outs[k]);
    start += shape[d];
  }
  if (out_count) *out_count = count;
  return EK_SUCCESS;
}

ek_status split_dim(ek_tensor x, int dim, int *d) {
  EK_CHECK(x->ndim >= 1, EK_ERROR_SHAPE, "cannot split a 0-d tensor");
  return wrap_dim(dim, x->ndim, "dim", d);
}

ek_status check_count_out(int64_t capacity, int64_t *count) {
  EK_CHECK_NULL(count);
  EK_CHECK(capacity >= 0, EK_ERROR_INVALID_ARGUMENT, "capacity %" PRId64 " is negative", capacity);
  return EK_SUCCESS;
}

}  // namespace
}  // namespace ek

using namespace ek;

extern "C" {

EK_API ek_status ek_concat(ek_stream stream, int n, const ek_tensor *xs, int dim, ek_tensor *out) {
  EK_API_ENTRY;
  EK_FORWARD(check_tensors(n, xs));
  EK_CHECK_NULL(out);
  int d = 0, ndim = 0;
  int64_t shape[EK_MAX_DIMS];
  EK_FORWARD(concat_shape(n, xs, dim, &d, &ndim, shape));
  ek_context ctx = xs[0]->storage->ctx;
  ek_stream s = nullptr;
  EK_FORWARD(resolve_stream(ctx, stream, &s));
  OpProfile ek_profile_(__func__, nullptr, ctx, stream, xs, n, out, 1);
  return fill_out(ctx, s, ndim, shape, promote_all(n, xs), out, [&](ek_tensor o) {
    const TensorDesc od = tensor_desc(o);
    EK_FORWARD(check_apart(od, n, xs, "out"));
    int64_t at = 0;
    for (int i = 0; i < n; ++i) {
      if (skipped_in_concat(xs[i])) continue;  // no elements, maybe another ndim
      const int64_t len = xs[i]->shape[d];
      EK_FORWARD(device_copy(ctx, s, narrow(od, d, at, len), tensor_desc(xs[i])));
      at += len;
    }
    return EK_SUCCESS;
  });
}

EK_API ek_status ek_stack(ek_stream stream, int n, const ek_tensor *xs, int dim, ek_tensor *out) {
  EK_API_ENTRY;
  EK_FORWARD(check_tensors(n, xs));
  EK_CHECK_NULL(out);
  const ek_tensor_s *r = xs[0];
  for (int i = 1; i < n; ++i) {
    bool same = xs[i]->ndim == r->ndim;
    for (int k = 0; same && k < r->ndim; ++k) same = xs[i]->shape[k] == r->shape[k];
    EK_CHECK(same, EK_ERROR_SHAPE, "xs[%d] has shape %s but xs[0] has %s: stacked tensors have "
             "one shape", i, format_shape(xs[i]->ndim, xs[i]->shape).c_str(),
             format_shape(r->ndim, r->shape).c_str());
  }
  EK_CHECK(r->ndim < EK_MAX_DIMS, EK_ERROR_SHAPE, "the tensors already have %d dims", EK_MAX_DIMS);
  int d = 0;
  EK_FORWARD(wrap_dim(dim, r->ndim + 1, "dim", &d));
  int64_t shape[EK_MAX_DIMS];
  for (int i = 0, k = 0; i <= r->ndim; ++i) shape[i] = i == d ? n : r->shape[k++];
  ek_context ctx = r->storage->ctx;
  ek_stream s = nullptr;
  EK_FORWARD(resolve_stream(ctx, stream, &s));
  OpProfile ek_profile_(__func__, nullptr, ctx, stream, xs, n, out, 1);
  return fill_out(ctx, s, r->ndim + 1, shape, promote_all(n, xs), out, [&](ek_tensor o) {
    const TensorDesc od = tensor_desc(o);
    EK_FORWARD(check_apart(od, n, xs, "out"));
    for (int i = 0; i < n; ++i) EK_FORWARD(device_copy(ctx, s, select(od, d, i), tensor_desc(xs[i])));
    return EK_SUCCESS;
  });
}

EK_API ek_status ek_flip(ek_stream stream, ek_tensor x, int ndims, const int *dims, ek_tensor *out) {
  EK_API_ENTRY;
  EK_CHECK_TENSOR(x);
  EK_CHECK_NULL(out);
  bool flipped[EK_MAX_DIMS] = {};
  EK_FORWARD(check_dims_list(ndims, dims, x->ndim, flipped, "dims"));
  ek_context ctx = x->storage->ctx;
  ek_stream s = nullptr;
  EK_FORWARD(resolve_stream(ctx, stream, &s));
  EK_PROFILE_OP(nullptr, ctx, stream, EK_IN(x), EK_OUT(out));
  return fill_out(ctx, s, x->ndim, x->shape, x->dtype, out, [&](ek_tensor o) {
    EK_FORWARD(check_apart(tensor_desc(o), 1, &x, "out"));
    TensorDesc src = tensor_desc(x);
    if (tensor_numel(x) == 0) return EK_SUCCESS;
    for (int d = 0; d < x->ndim; ++d) {
      if (!flipped[d]) continue;
      src.data = byte_at(src, d, src.shape[d] - 1);  // reads from the last element back
      src.strides[d] = -src.strides[d];
    }
    return device_copy(ctx, s, tensor_desc(o), src);
  });
}

EK_API ek_status ek_roll(ek_stream stream, ek_tensor x, int nshifts, const int64_t *shifts,
                         const int *dims, ek_tensor *out) {
  EK_API_ENTRY;
  EK_CHECK_TENSOR(x);
  EK_CHECK_NULL(out);
  EK_CHECK(nshifts >= 1 && nshifts <= EK_MAX_DIMS, EK_ERROR_INVALID_ARGUMENT,
           "nshifts %d is not in [1, %d]", nshifts, EK_MAX_DIMS);
  EK_CHECK_NULL(shifts);
  EK_CHECK(dims || nshifts == 1, EK_ERROR_INVALID_ARGUMENT,
           "dims is NULL (a flattened roll) but nshifts is %d, not 1", nshifts);
  int64_t per_dim[EK_MAX_DIMS] = {};
  if (dims) EK_FORWARD(roll_shifts(x, nshifts, shifts, dims, per_dim));
  ek_context ctx = x->storage->ctx;
  ek_stream s = nullptr;
  EK_FORWARD(resolve_stream(ctx, stream, &s));
  EK_PROFILE_OP(nullptr, ctx, stream, EK_IN(x), EK_OUT(out));
  return fill_out(ctx, s, x->ndim, x->shape, x->dtype, out, [&](ek_tensor o) {
    EK_FORWARD(check_apart(tensor_desc(o), 1, &x, "out"));
    if (!dims) return roll_flat(ctx, s, o, x, shifts[0]);
    return roll_copy(ctx, s, tensor_desc(o), tensor_desc(x), per_dim);
  });
}

EK_API ek_status ek_repeat(ek_stream stream, ek_tensor x, int ndim, const int64_t *repeats,
                           ek_tensor *out) {
  EK_API_ENTRY;
  EK_CHECK_TENSOR(x);
  EK_CHECK_NULL(out);
  EK_CHECK(ndim >= 0 && ndim <= EK_MAX_DIMS, EK_ERROR_INVALID_ARGUMENT,
           "ndim %d is not in [0, %d]", ndim, EK_MAX_DIMS);
  EK_CHECK(ndim == 0 || repeats, EK_ERROR_NULL_POINTER, "repeats is NULL but ndim is %d", ndim);
  const int nd = ndim > x->ndim ? ndim : x->ndim;
  int64_t reps[EK_MAX_DIMS], size[EK_MAX_DIMS], stride[EK_MAX_DIMS], shape[EK_MAX_DIMS];
  for (int i = 0; i < nd; ++i) {  // both aligned on the right, padded with leading 1s
    const int r = i - (nd - ndim), k = i - (nd - x->ndim);
    reps[i] = r >= 0 ? repeats[r] : 1;
    size[i] = k >= 0 ? x->shape[k] : 1;
    stride[i] = k >= 0 ? x->strides[k] : 0;
    EK_CHECK(reps[i] >= 0, EK_ERROR_INVALID_ARGUMENT, "repeats[%d] is %" PRId64 "; it must be >= 0",
             r, reps[i]);
    EK_CHECK(!__builtin_mul_overflow(reps[i], size[i], &shape[i]), EK_ERROR_OVERFLOW,
             "repeating size %" PRId64 " %" PRId64 " times overflows int64", size[i], reps[i]);
  }
  ek_context ctx = x->storage->ctx;
  ek_stream s = nullptr;
  EK_FORWARD(resolve_stream(ctx, stream, &s));
  EK_PROFILE_OP(nullptr, ctx, stream, EK_IN(x), EK_OUT(out));
  return fill_out(ctx, s, nd, shape, x->dtype, out, [&](ek_tensor o) {
    const TensorDesc od = tensor_desc(o);
    EK_FORWARD(check_apart(od, 1, &x, "out"));
    if (desc_numel(od) == 0) return EK_SUCCESS;
    Walk w;  // dim i as [repeat, size] where both exceed 1: the repeat reads stride 0
    for (int i = 0; i < nd; ++i) {
      if (reps[i] > 1 && size[i] > 1) w.add(reps[i], od.strides[i] * size[i], 0);
      w.add(size[i], od.strides[i], size[i] > 1 ? stride[i] : 0);
      if (size[i] == 1) w.add(reps[i], od.strides[i], 0);
    }
    return copy_walk(ctx, s, w, 0, od, tensor_desc(x));
  });
}

EK_API ek_status ek_view_split(ek_tensor x, int dim, int64_t split_size, int64_t capacity,
                               ek_tensor *outs, int64_t *count) {
  EK_API_ENTRY;
  EK_CHECK_TENSOR(x);
  EK_FORWARD(check_count_out(capacity, count));
  int d = 0;
  EK_FORWARD(split_dim(x, dim, &d));
  const int64_t size = x->shape[d];
  EK_CHECK(split_size > 0 || (split_size == 0 && size == 0), EK_ERROR_INVALID_ARGUMENT,
           "split_size %" PRId64 " for dim %d of size %" PRId64 " (it must be >= 1, or 0 for "
           "size 0)", split_size, d, size);
  const int64_t n = size == 0 ? 1 : size / split_size + (size % split_size != 0);
  return emit_pieces(x, d, n, capacity, outs, count, [&](int64_t k) {
    const int64_t left = size - k * split_size;
    return left < split_size ? left : split_size;
  });
}

EK_API ek_status ek_view_split_sizes(ek_tensor x, int dim, int64_t n, const int64_t *sizes,
                                     ek_tensor *outs) {
  EK_API_ENTRY;
  EK_CHECK_TENSOR(x);
  EK_CHECK(n >= 1, EK_ERROR_INVALID_ARGUMENT, "n is %" PRId64 "; at least one size is needed", n);
  EK_CHECK_NULL(sizes);
  EK_CHECK_NULL(outs);
  int d = 0;
  EK_FORWARD(split_dim(x, dim, &d));
  int64_t total = 0;
  for (int64_t k = 0; k < n; ++k) {
    EK_CHECK(sizes[k] >= 0, EK_ERROR_SHAPE, "sizes[%" PRId64 "] is %" PRId64, k, sizes[k]);
    EK_CHECK(!__builtin_add_overflow(total, sizes[k], &total), EK_ERROR_OVERFLOW,
             "the sizes overflow int64");
  }
  EK_CHECK(total == x->shape[d], EK_ERROR_SHAPE,
           "the %" PRId64 " sizes add up to %" PRId64 ", but dim %d has size %" PRId64, n, total, d,
           x->shape[d]);
  return emit_pieces(x, d, n, n, outs, nullptr, [&](int64_t k) { return sizes[k]; });
}

EK_API ek_status ek_view_chunk(ek_tensor x, int dim, int64_t chunks, int64_t capacity,
                               ek_tensor *outs, int64_t *count) {
  EK_API_ENTRY;
  EK_CHECK_TENSOR(x);
  EK_FORWARD(check_count_out(capacity, count));
  int d = 0;
  EK_FORWARD(split_dim(x, dim, &d));
  EK_CHECK(chunks >= 1, EK_ERROR_INVALID_ARGUMENT, "chunks is %" PRId64 "; it must be >= 1", chunks);
  const int64_t size = x->shape[d];
  const int64_t piece = size / chunks + (size % chunks != 0);
  const int64_t n = size == 0 ? chunks : size / piece + (size % piece != 0);
  return emit_pieces(x, d, n, capacity, outs, count, [&](int64_t k) {
    const int64_t left = size - k * piece;
    return left < piece ? left : piece;
  });
}

EK_API ek_status ek_view_moveaxis(ek_tensor x, int n, const int *src, const int *dst,
                                  ek_tensor *out) {
  EK_API_ENTRY;
  EK_CHECK_TENSOR(x);
  EK_CHECK_NULL(out);
  EK_CHECK(n >= 0 && n <= (x->ndim > 0 ? x->ndim : 1), EK_ERROR_INVALID_ARGUMENT,
           "n is %d, for a tensor of %d dims", n, x->ndim);
  bool moved[EK_MAX_DIMS] = {}, taken[EK_MAX_DIMS] = {};
  EK_FORWARD(check_dims_list(n, src, x->ndim, moved, "src"));
  EK_FORWARD(check_dims_list(n, dst, x->ndim, taken, "dst"));
  if (x->ndim == 0) return emit_view(x, 0, x->shape, x->strides, x->offset, out);
  int perm[EK_MAX_DIMS];
  for (int i = 0; i < n; ++i) {
    int from = 0, to = 0;
    wrap_dim(src[i], x->ndim, "src", &from);
    wrap_dim(dst[i], x->ndim, "dst", &to);
    perm[to] = from;
  }
  for (int to = 0, from = 0; to < x->ndim; ++to) {  // the rest keep their order
    if (taken[to]) continue;
    while (moved[from]) ++from;
    perm[to] = from++;
  }
  int64_t shape[EK_MAX_DIMS], strides[EK_MAX_DIMS];
  for (int i = 0; i < x->ndim; ++i) {
    shape[i] = x->shape[perm[i]];
    strides[i] = x->strides[perm[i]];
  }
  return emit_view(x, x->ndim, shape, strides, x->offset, out);
}

EK_API ek_status ek_broadcast_tensors(int n, const ek_tensor *xs, ek_tensor *outs) {
  EK_API_ENTRY;
  EK_FORWARD(check_tensors(n, xs));
  EK_CHECK_NULL(outs);
  int ndim = 0;
  int64_t shape[EK_MAX_DIMS];
  for (int i = 0; i < n; ++i) {  // NumPy's rule, all at once, aligned on the right
    const ek_tensor_s *t = xs[i];
    const int nd = t->ndim > ndim ? t->ndim : ndim;
    for (int k = nd - 1; k >= 0; --k) {
      const int a = k - (nd - ndim), b = k - (nd - t->ndim);
      const int64_t sa = a >= 0 ? shape[a] : 1, sb = b >= 0 ? t->shape[b] : 1;
      EK_CHECK(sa == sb || sa == 1 || sb == 1, EK_ERROR_SHAPE,
               "xs[%d] of shape %s does not broadcast with the shape %s of xs[0..%d]", i,
               format_shape(t->ndim, t->shape).c_str(), format_shape(ndim, shape).c_str(), i - 1);
      shape[k] = sa == 1 ? sb : sa;
    }
    ndim = nd;
  }
  int64_t numel = 0;
  EK_CHECK(checked_numel(ndim, shape, &numel), EK_ERROR_OVERFLOW,
           "the broadcast shape %s overflows int64", format_shape(ndim, shape).c_str());
  for (int i = 0; i < n; ++i) {
    const ek_tensor_s *t = xs[i];
    int64_t strides[EK_MAX_DIMS];
    for (int k = 0; k < ndim; ++k) {
      const int b = k - (ndim - t->ndim);
      strides[k] = b >= 0 && t->shape[b] == shape[k] ? t->strides[b] : 0;
    }
    emit_view(t, ndim, shape, strides, t->offset, &outs[i]);
  }
  return EK_SUCCESS;
}

EK_API ek_status ek_meshgrid(ek_stream stream, int n, const ek_tensor *xs,
                             ek_meshgrid_indexing indexing, ek_tensor *outs) {
  EK_API_ENTRY;
  EK_FORWARD(check_tensors(n, xs));
  EK_CHECK_NULL(outs);
  EK_CHECK(n <= EK_MAX_DIMS, EK_ERROR_INVALID_ARGUMENT, "n is %d; at most %d tensors", n,
           EK_MAX_DIMS);
  const int kind = raw_enum(indexing);
  EK_CHECK(kind == EK_MESHGRID_IJ || kind == EK_MESHGRID_XY, EK_ERROR_INVALID_ARGUMENT,
           "unknown indexing %d", kind);
  int64_t shape[EK_MAX_DIMS];
  int pos[EK_MAX_DIMS];  // the dim along which outs[i] varies
  for (int i = 0; i < n; ++i) {
    EK_CHECK(xs[i]->ndim <= 1, EK_ERROR_SHAPE, "xs[%d] has shape %s; meshgrid takes 1-D tensors",
             i, format_shape(xs[i]->ndim, xs[i]->shape).c_str());
    EK_CHECK(xs[i]->dtype == xs[0]->dtype, EK_ERROR_DTYPE, "xs[%d] is %s but xs[0] is %s", i,
             ek_dtype_name(xs[i]->dtype), ek_dtype_name(xs[0]->dtype));
    pos[i] = kind == EK_MESHGRID_XY && n >= 2 && i < 2 ? 1 - i : i;
    shape[pos[i]] = xs[i]->ndim ? xs[i]->shape[0] : 1;
  }
  ek_context ctx = xs[0]->storage->ctx;
  ek_stream s = nullptr;
  EK_FORWARD(resolve_stream(ctx, stream, &s));
  OpProfile ek_profile_(__func__, nullptr, ctx, stream, xs, n, outs, n);
  ek_tensor made[EK_MAX_DIMS] = {};
  bool created[EK_MAX_DIMS] = {};
  ek_status st = EK_SUCCESS;
  for (int i = 0; i < n && st == EK_SUCCESS; ++i) {
    made[i] = outs[i];
    st = prepare_out(ctx, s, n, shape, xs[0]->dtype, &made[i], &created[i]);
    if (st == EK_SUCCESS) st = check_apart(tensor_desc(made[i]), n, xs, item("outs", i).c_str());
    for (int j = 0; j < i && st == EK_SUCCESS; ++j)
      if (tensor_numel(made[i]) > 0 && ranges_overlap(tensor_desc(made[i]), tensor_desc(made[j])))
        st = fail(EK_ERROR_INVALID_ARGUMENT, "outs[%d] overlaps outs[%d]", i, j);
  }
  for (int i = 0; i < n && st == EK_SUCCESS; ++i) {
    TensorDesc src = tensor_desc(xs[i]);
    src.ndim = n;
    for (int k = 0; k < n; ++k) {
      src.shape[k] = shape[k];
      src.strides[k] = k == pos[i] && xs[i]->ndim ? xs[i]->strides[0] : 0;
    }
    st = device_copy(ctx, s, tensor_desc(made[i]), src);
  }
  for (int i = 0; i < n; ++i) {
    if (st == EK_SUCCESS) outs[i] = made[i];
    else if (created[i]) ek_tensor_release(made[i]);
  }
  return st;
}

}  // extern "C"
