// ek_sort, ek_topk, ek_searchsorted, ek_unique, ek_count_nonzero, ek_diff:
// argument checks and the layout the backends see (src/ops/sort_plan.hpp):
// the sorted dim moved last in contiguous rows, by one copy kernel when x is
// not already laid out so, and results copied back into outputs of any
// strides. count_nonzero and diff are compositions of existing ops.
#include <algorithm>

#include "core/backend.hpp"
#include "core/internal.hpp"
#include "core/profiler.hpp"
#include "ops/promote.hpp"
#include "ops/sort_plan.hpp"

namespace ek {
namespace {

// d's layout with dim moved last (0-d stays as it is).
TensorDesc moved_last(TensorDesc d, int dim) {
  if (d.ndim == 0) return d;
  const int64_t size = d.shape[dim], stride = d.strides[dim];
  for (int i = dim; i + 1 < d.ndim; ++i) {
    d.shape[i] = d.shape[i + 1];
    d.strides[i] = d.strides[i + 1];
  }
  d.shape[d.ndim - 1] = size;
  d.strides[d.ndim - 1] = stride;
  return d;
}

TensorDesc contiguous_desc(void *data, int dtype, const TensorDesc &shape_of) {
  TensorDesc d = shape_of;
  d.data = data;
  d.dtype = dtype;
  contiguous_strides(d.ndim, d.shape, d.strides);
  return d;
}

size_t bytes_of(const TensorDesc &d) { return static_cast<size_t>(desc_numel(d)) * dtype_size(d.dtype); }

bool rows_direct(const ek_tensor_s *t, int dim) { return tensor_contiguous(t) && dim >= t->ndim - 1; }

// x (converted to dtype) as contiguous rows with dim last: x's own memory
// when it already is, else a copy into buf.
ek_status pack_rows(ek_context ctx, ek_stream s, const ek_tensor_s *x, int dim, int dtype,
                    Scratch *buf, const void **data) {
  if (x->dtype == dtype && rows_direct(x, dim)) {
    *data = tensor_data(x);
    return EK_SUCCESS;
  }
  const TensorDesc src = moved_last(tensor_desc(x), dim);
  TensorDesc dst = contiguous_desc(nullptr, dtype, src);
  EK_FORWARD(buf->allocate(bytes_of(dst)));
  dst.data = buf->get();
  *data = buf->get();
  return desc_numel(dst) ? device_copy(ctx, s, dst, src) : EK_SUCCESS;
}

// An output written as contiguous rows with dim last: straight into o when it
// is laid out so, else into scratch and then one copy into o's strides.
class RowsOut {
 public:
  RowsOut(ek_context ctx, ek_stream s, ek_tensor o, int dim) : ctx_(ctx), s_(s), o_(o), dim_(dim), buf_(ctx, s) {}
  ek_status init() {
    if (!o_) return EK_SUCCESS;
    if (rows_direct(o_, dim_)) {
      ptr_ = tensor_data(o_);
      return EK_SUCCESS;
    }
    EK_FORWARD(buf_.allocate(bytes_of(tensor_desc(o_))));
    ptr_ = buf_.get();
    return EK_SUCCESS;
  }
  void *get() const { return ptr_; }
  ek_status finish() {
    if (!o_ || ptr_ != buf_.get() || !ptr_) return EK_SUCCESS;
    const TensorDesc dst = moved_last(tensor_desc(o_), dim_);
    return device_copy(ctx_, s_, dst, contiguous_desc(ptr_, o_->dtype, dst));
  }

 private:
  ek_context ctx_;
  ek_stream s_;
  ek_tensor o_;
  int dim_;
  Scratch buf_;
  void *ptr_ = nullptr;
};

ek_status check_no_overlap(ek_tensor o, const ek_tensor_s *x, const char *name) {
  if (!o || !x) return EK_SUCCESS;
  EK_CHECK(!ranges_overlap(tensor_desc(o), tensor_desc(x)), EK_ERROR_INVALID_ARGUMENT,
           "%s overlaps an input", name);
  return EK_SUCCESS;
}

// fill_out for an optional output (out NULL: body gets a NULL tensor).
template <typename Body>
ek_status maybe_out(ek_context ctx, ek_stream s, int ndim, const int64_t *shape, ek_dtype dt,
                    ek_tensor *out, Body body) {
  if (!out) return body(nullptr);
  return fill_out(ctx, s, ndim, shape, dt, out, body);
}

// Values (x's dtype) and int64 indices of x's shape with dim's size `size`,
// then launch(in, rows, n, values, indices) on x's rows.
template <typename Launch>
ek_status two_outputs(ek_context ctx, ek_stream s, const ek_tensor_s *x, int dim, int64_t size,
                      ek_tensor *values, ek_tensor *indices, Launch launch) {
  int64_t shape[EK_MAX_DIMS];
  std::copy(x->shape, x->shape + x->ndim, shape);
  if (x->ndim) shape[dim] = size;
  const int64_t n = x->ndim ? x->shape[dim] : 1;
  const int64_t rows = n ? tensor_numel(x) / n : 0;
  return maybe_out(ctx, s, x->ndim, shape, x->dtype, values, [&](ek_tensor v) {
    return maybe_out(ctx, s, x->ndim, shape, EK_INT64, indices, [&](ek_tensor i) {
      EK_FORWARD(check_no_overlap(v, x, "values"));
      EK_FORWARD(check_no_overlap(i, x, "indices"));
      if (rows == 0 || size == 0) return EK_SUCCESS;
      Scratch packed(ctx, s);
      const void *in = nullptr;
      EK_FORWARD(pack_rows(ctx, s, x, dim, x->dtype, &packed, &in));
      RowsOut vo(ctx, s, v, dim), io(ctx, s, i, dim);
      EK_FORWARD(vo.init());
      EK_FORWARD(io.init());
      EK_FORWARD(launch(in, rows, n, vo.get(), static_cast<int64_t *>(io.get())));
      EK_FORWARD(vo.finish());
      return io.finish();
    });
  });
}

struct Call {
  ek_context ctx;
  ek_stream s;
};

ek_status begin(ek_stream stream, const ek_tensor_s *x, Call *c) {
  EK_CHECK(sortkey::supported(x->dtype), EK_ERROR_DTYPE, "%s elements cannot be ordered yet",
           ek_dtype_name(x->dtype));
  c->ctx = x->storage->ctx;
  return resolve_stream(c->ctx, stream, &c->s);
}

// begin, and the dim the op runs along: wrapped (*d) and its size (*n; a 0-d
// x is one element along dim 0).
ek_status begin_along(ek_stream stream, const ek_tensor_s *x, int dim, Call *c, int *d, int64_t *n) {
  EK_FORWARD(begin(stream, x, c));
  EK_FORWARD(wrap_dim(dim, x->ndim, "dim", d));
  *n = x->ndim ? x->shape[*d] : 1;
  return EK_SUCCESS;
}

ek_status sort_entry(ek_stream stream, ek_tensor x, int dim, int descending, int stable,
                     ek_tensor *values, ek_tensor *indices) {
  Call c;
  int d = 0;
  int64_t n = 0;
  EK_FORWARD(begin_along(stream, x, dim, &c, &d, &n));
  return two_outputs(c.ctx, c.s, x, d, n, values, indices,
                     [&](const void *in, int64_t rows, int64_t len, void *v, int64_t *i) {
                       SortPlan p;
                       p.in = in;
                       p.dtype = x->dtype;
                       p.rows = rows;
                       p.n = len;
                       p.descending = descending != 0;
                       p.stable = stable != 0;
                       p.keys_only = !i && !p.stable;
                       p.values = v;
                       p.indices = i;
                       return c.ctx->backend->sort(c.ctx, c.s, p);
                     });
}

ek_status topk_entry(ek_stream stream, ek_tensor x, int64_t k, int dim, int largest, int sorted,
                     ek_tensor *values, ek_tensor *indices) {
  Call c;
  int d = 0;
  int64_t n = 0;
  EK_FORWARD(begin_along(stream, x, dim, &c, &d, &n));
  EK_CHECK(k >= 0 && k <= n, EK_ERROR_INDEX, "k %lld is out of range [0, %lld] for dim %d of size %lld",
           static_cast<long long>(k), static_cast<long long>(n), d, static_cast<long long>(n));
  return two_outputs(c.ctx, c.s, x, d, k, values, indices,
                     [&](const void *in, int64_t rows, int64_t len, void *v, int64_t *i) {
                       TopkPlan p;
                       p.in = in;
                       p.dtype = x->dtype;
                       p.rows = rows;
                       p.n = len;
                       p.k = k;
                       p.largest = largest != 0;
                       p.sorted = sorted != 0;
                       p.values = v;
                       p.indices = i;
                       return c.ctx->backend->topk(c.ctx, c.s, p);
                     });
}

// torch.searchsorted's shapes: a 1-D sequence serves every value; otherwise
// the sequence and values share every dim but the last.
ek_status search_shapes(const ek_tensor_s *seq, const ek_tensor_s *values, SearchPlan *p) {
  EK_CHECK(seq->ndim >= 1, EK_ERROR_SHAPE, "sorted_sequence must have at least 1 dim, got a 0-d tensor");
  p->m = seq->shape[seq->ndim - 1];
  if (seq->ndim == 1) {
    p->seq_rows = 1;
    p->rows = 1;
    p->v = tensor_numel(values);
    return EK_SUCCESS;
  }
  bool same = values->ndim == seq->ndim;
  for (int i = 0; same && i + 1 < seq->ndim; ++i) same = values->shape[i] == seq->shape[i];
  EK_CHECK(same, EK_ERROR_SHAPE,
           "sorted_sequence %s and values %s differ outside their last dim (a 1-D sequence serves any values)",
           format_shape(seq->ndim, seq->shape).c_str(), format_shape(values->ndim, values->shape).c_str());
  p->v = values->shape[values->ndim - 1];
  p->seq_rows = p->rows = p->v ? tensor_numel(values) / p->v : tensor_numel(seq) / std::max<int64_t>(p->m, 1);
  return EK_SUCCESS;
}

ek_status searchsorted_entry(ek_stream stream, ek_tensor seq, ek_tensor values, int right,
                             ek_dtype out_dtype, ek_tensor *out) {
  Call c;
  EK_FORWARD(begin(stream, seq, &c));
  EK_CHECK(values->storage->ctx == c.ctx, EK_ERROR_INVALID_ARGUMENT,
           "sorted_sequence and values belong to different contexts");
  const int od = raw_enum(out_dtype);
  EK_CHECK(od == EK_INT64 || od == EK_INT32, EK_ERROR_DTYPE, "out_dtype must be int64 or int32, got %s",
           ek_dtype_name(out_dtype));
  SearchPlan p;
  EK_FORWARD(search_shapes(seq, values, &p));
  EK_CHECK(od == EK_INT64 || p.m <= INT32_MAX, EK_ERROR_OVERFLOW,
           "int32 output cannot hold positions up to %lld", static_cast<long long>(p.m));
  const ek_dtype dt = promote(seq->dtype, values->dtype);
  EK_CHECK(sortkey::supported(dt), EK_ERROR_DTYPE, "%s elements cannot be ordered yet", ek_dtype_name(dt));
  return fill_out(c.ctx, c.s, values->ndim, values->shape, out_dtype, out, [&](ek_tensor o) {
    EK_FORWARD(check_no_overlap(o, seq, "out"));
    EK_FORWARD(check_no_overlap(o, values, "out"));
    if (tensor_numel(o) == 0) return EK_SUCCESS;
    const int vdim = values->ndim ? values->ndim - 1 : 0;
    Scratch sbuf(c.ctx, c.s), vbuf(c.ctx, c.s);
    EK_FORWARD(pack_rows(c.ctx, c.s, seq, seq->ndim - 1, dt, &sbuf, &p.seq));
    EK_FORWARD(pack_rows(c.ctx, c.s, values, vdim, dt, &vbuf, &p.values));
    RowsOut ro(c.ctx, c.s, o, vdim);
    EK_FORWARD(ro.init());
    p.dtype = dt;
    p.right = right != 0;
    p.out = ro.get();
    p.out_dtype = od;
    EK_FORWARD(c.ctx->backend->searchsorted(c.ctx, c.s, p));
    return ro.finish();
  });
}

// Sorts x's elements (stable) and counts the distinct ones; then the outputs.
ek_status unique_entry(ek_stream stream, ek_tensor x, ek_tensor *values, ek_tensor *inverse,
                       ek_tensor *counts) {
  Call c;
  EK_FORWARD(begin(stream, x, &c));
  const int64_t n = tensor_numel(x);
  const size_t es = dtype_size(x->dtype);
  Scratch flat(c.ctx, c.s), sorted(c.ctx, c.s), perm(c.ctx, c.s), work(c.ctx, c.s);
  UniquePlan p;
  p.dtype = x->dtype;
  p.n = n;
  p.with_counts = counts != nullptr;
  p.with_inverse = inverse != nullptr;
  int64_t count = 0;
  if (n > 0) {
    SortPlan sp;
    EK_FORWARD(pack_rows(c.ctx, c.s, x, x->ndim ? x->ndim - 1 : 0, x->dtype, &flat, &sp.in));
    EK_FORWARD(sorted.allocate(n * es));
    if (inverse) EK_FORWARD(perm.allocate(n * sizeof(int64_t)));  // only the inverse needs it
    sp.dtype = x->dtype;
    sp.rows = 1;
    sp.n = n;
    sp.stable = inverse != nullptr;
    sp.keys_only = !inverse;
    sp.values = sorted.get();
    sp.indices = static_cast<int64_t *>(perm.get());
    EK_FORWARD(c.ctx->backend->sort(c.ctx, c.s, sp));
    p.sorted = sorted.get();
    p.perm = sp.indices;
    EK_FORWARD(c.ctx->backend->unique_count(c.ctx, c.s, p, &work, &count));
  }
  return maybe_out(c.ctx, c.s, 1, &count, x->dtype, values, [&](ek_tensor v) {
    return maybe_out(c.ctx, c.s, 1, &count, EK_INT64, counts, [&](ek_tensor k) {
      return maybe_out(c.ctx, c.s, x->ndim, x->shape, EK_INT64, inverse, [&](ek_tensor i) {
        for (ek_tensor o : {v, k, i}) EK_FORWARD(check_no_overlap(o, x, "an output"));
        if (n == 0) return EK_SUCCESS;
        RowsOut io(c.ctx, c.s, i, x->ndim ? x->ndim - 1 : 0);
        EK_FORWARD(io.init());
        p.inverse = static_cast<int64_t *>(io.get());
        p.count = count;
        RowsOut vo(c.ctx, c.s, v, 0), ko(c.ctx, c.s, k, 0);
        EK_FORWARD(vo.init());
        EK_FORWARD(ko.init());
        p.values = vo.get();
        p.counts = static_cast<int64_t *>(ko.get());
        EK_FORWARD(c.ctx->backend->unique_write(c.ctx, c.s, p, work.get()));
        EK_FORWARD(vo.finish());
        EK_FORWARD(ko.finish());
        return io.finish();
      });
    });
  });
}

ek_status count_nonzero_entry(ek_stream stream, ek_tensor x, int ndims, const int *dims,
                              int keepdim, ek_tensor *out) {
  EK_CHECK(ndims >= 0 && ndims <= EK_MAX_DIMS, EK_ERROR_INVALID_ARGUMENT, "ndims %d is out of range [0, %d]",
           ndims, EK_MAX_DIMS);
  EK_CHECK(ndims == 0 || dims, EK_ERROR_NULL_POINTER, "dims is NULL with ndims %d", ndims);
  for (int i = 0; i < ndims; ++i) {
    int d = 0;
    EK_FORWARD(wrap_dim(dims[i], x->ndim, "dim", &d));
  }
  ek_tensor nonzero = nullptr;  // x != 0 by the cast rule (NaN true, -0.0 false)
  EK_FORWARD(ek_cast(stream, x, EK_BOOL, &nonzero));
  ek_status st = ek_reduce(stream, EK_REDUCE_SUM, nonzero, ndims, dims, keepdim, out);
  ek_tensor_release(nonzero);
  return st;
}

ek_status check_joined(const ek_tensor_s *x, int d, ek_tensor t, const char *name) {
  if (!t) return EK_SUCCESS;
  EK_CHECK_TENSOR(t);
  EK_CHECK(t->storage->ctx == x->storage->ctx, EK_ERROR_INVALID_ARGUMENT, "%s belongs to another context",
           name);
  bool same = t->ndim == x->ndim;
  for (int i = 0; same && i < x->ndim; ++i) same = i == d || t->shape[i] == x->shape[i];
  EK_CHECK(same, EK_ERROR_SHAPE, "%s %s must match x %s outside dim %d", name,
           format_shape(t->ndim, t->shape).c_str(), format_shape(x->ndim, x->shape).c_str(), d);
  return EK_SUCCESS;
}

// One difference step: cur[1:] - cur[:-1] along d (!= for bool) into *out.
ek_status diff_step(ek_stream stream, ek_tensor cur, int d, ek_tensor *out) {
  const int64_t size = cur->shape[d];
  ek_tensor hi = nullptr, lo = nullptr;
  ek_status st = ek_view_slice(cur, d, 1, size, 1, &hi);
  if (st == EK_SUCCESS) st = ek_view_slice(cur, d, 0, std::max<int64_t>(size - 1, 0), 1, &lo);
  if (st == EK_SUCCESS)
    st = ek_binary(stream, cur->dtype == EK_BOOL ? EK_BINARY_NE : EK_BINARY_SUB, hi, lo, out);
  ek_tensor_release(hi);
  ek_tensor_release(lo);
  return st;
}

ek_status diff_entry(ek_stream stream, ek_tensor x, int64_t n, int dim, ek_tensor prepend,
                     ek_tensor append, ek_tensor *out) {
  EK_CHECK(x->ndim >= 1, EK_ERROR_SHAPE, "x must have at least 1 dim, got a 0-d tensor");
  EK_CHECK(n >= 0, EK_ERROR_INVALID_ARGUMENT, "n must be >= 0, got %lld", static_cast<long long>(n));
  int d = 0;
  EK_FORWARD(wrap_dim(dim, x->ndim, "dim", &d));
  EK_FORWARD(check_joined(x, d, prepend, "prepend"));
  EK_FORWARD(check_joined(x, d, append, "append"));
  ek_tensor cur = x;
  EK_FORWARD(ek_tensor_retain(cur));
  if (prepend || append) {
    ek_tensor parts[3];
    int k = 0;
    if (prepend) parts[k++] = prepend;
    parts[k++] = x;
    if (append) parts[k++] = append;
    ek_tensor joined = nullptr;
    ek_status st = ek_concat(stream, k, parts, d, &joined);
    ek_tensor_release(cur);
    EK_FORWARD(st);
    cur = joined;
  }
  // Past dim's size every further difference is just as empty: stop there.
  const int64_t steps = std::min<int64_t>(n, cur->shape[d]);
  ek_status st = EK_SUCCESS;
  if (steps == 0) {
    Call c{cur->storage->ctx, nullptr};
    st = resolve_stream(c.ctx, stream, &c.s);
    if (st == EK_SUCCESS)
      st = fill_out(c.ctx, c.s, cur->ndim, cur->shape, cur->dtype, out,
                    [&](ek_tensor o) { return ek_copy(stream, cur, o); });
  }
  for (int64_t i = 0; i < steps && st == EK_SUCCESS; ++i) {
    ek_tensor next = nullptr;
    st = diff_step(stream, cur, d, i + 1 == steps ? out : &next);
    ek_tensor_release(cur);
    cur = next;
  }
  ek_tensor_release(cur);
  return st;
}

}  // namespace
}  // namespace ek

using namespace ek;

extern "C" {

EK_API ek_status ek_sort(ek_stream stream, ek_tensor x, int dim, int descending, int stable,
                         ek_tensor *values, ek_tensor *indices) {
  EK_API_ENTRY;
  EK_CHECK_TENSOR(x);
  EK_CHECK(values || indices, EK_ERROR_NULL_POINTER, "values and indices are both NULL");
  ek_tensor none = nullptr;
  EK_PROFILE_OP(nullptr, x->storage->ctx, stream, EK_IN(x),
                EK_OUT(values ? values : &none, indices ? indices : &none));
  return sort_entry(stream, x, dim, descending, stable, values, indices);
}

EK_API ek_status ek_topk(ek_stream stream, ek_tensor x, int64_t k, int dim, int largest,
                         int sorted, ek_tensor *values, ek_tensor *indices) {
  EK_API_ENTRY;
  EK_CHECK_TENSOR(x);
  EK_CHECK(values || indices, EK_ERROR_NULL_POINTER, "values and indices are both NULL");
  ek_tensor none = nullptr;
  EK_PROFILE_OP(nullptr, x->storage->ctx, stream, EK_IN(x),
                EK_OUT(values ? values : &none, indices ? indices : &none));
  return topk_entry(stream, x, k, dim, largest, sorted, values, indices);
}

EK_API ek_status ek_searchsorted(ek_stream stream, ek_tensor sorted_sequence, ek_tensor values,
                                 int right, ek_dtype out_dtype, ek_tensor *out) {
  EK_API_ENTRY;
  EK_CHECK_TENSOR(sorted_sequence);
  EK_CHECK_TENSOR(values);
  EK_CHECK_NULL(out);
  EK_PROFILE_OP(nullptr, sorted_sequence->storage->ctx, stream, EK_IN(sorted_sequence, values),
                EK_OUT(out));
  return searchsorted_entry(stream, sorted_sequence, values, right, out_dtype, out);
}

EK_API ek_status ek_unique(ek_stream stream, ek_tensor x, ek_tensor *values, ek_tensor *inverse,
                           ek_tensor *counts) {
  EK_API_ENTRY;
  EK_CHECK_TENSOR(x);
  EK_CHECK_NULL(values);
  ek_tensor none = nullptr;
  EK_PROFILE_OP(nullptr, x->storage->ctx, stream, EK_IN(x),
                EK_OUT(values, inverse ? inverse : &none, counts ? counts : &none));
  return unique_entry(stream, x, values, inverse, counts);
}

EK_API ek_status ek_count_nonzero(ek_stream stream, ek_tensor x, int ndims, const int *dims,
                                  int keepdim, ek_tensor *out) {
  EK_API_ENTRY;
  EK_CHECK_TENSOR(x);
  EK_CHECK_NULL(out);
  return count_nonzero_entry(stream, x, ndims, dims, keepdim, out);
}

EK_API ek_status ek_diff(ek_stream stream, ek_tensor x, int64_t n, int dim, ek_tensor prepend,
                         ek_tensor append, ek_tensor *out) {
  EK_API_ENTRY;
  EK_CHECK_TENSOR(x);
  EK_CHECK_NULL(out);
  return diff_entry(stream, x, n, dim, prepend, append, out);
}

}  // extern "C"
