// ek_index_select, ek_gather, ek_scatter, ek_index_put, ek_masked_select,
// ek_masked_fill, ek_masked_scatter, ek_nonzero: argument checks, dims,
// broadcasting of index tensors and masks, and the output convention here;
// each op becomes one of the plans of src/ops/index_plan.hpp, which the CPU
// loops (src/cpu/indexing.cpp) and the CUDA kernels (kernels/indexing.cu) run.
//
// Nothing is written outside out, and nothing at all before the inputs are
// known good where a write could land elsewhere: scatter and index_put
// validate their index tensors first (on CUDA by a kernel whose verdict is
// read back, one stream synchronization), and compactions count the mask
// first (the result size depends on it); only then is x copied into a
// separate out and the plan run. Gathers on CUDA only read through their
// indices, so their kernel checks each index as it goes, skipping bad ones,
// and raises a flag that one synchronization reads back (run_gather).
#include <atomic>
#include <cinttypes>
#include <cmath>
#include <cstring>

#include "core/backend.hpp"
#include "ops/index_plan.hpp"
#include "core/gpu.hpp"
#include "core/internal.hpp"
#include "ops/complex.hpp"
#include "core/profiler.hpp"
#include "ops/promote.hpp"

namespace ek {
namespace {

// ---- descriptors

TensorDesc make_desc(void *data, int dtype, int ndim, const int64_t *shape,
                     const int64_t *strides) {
  TensorDesc d{};
  d.data = data;
  d.dtype = dtype;
  d.ndim = ndim;
  for (int i = 0; i < ndim; ++i) {
    d.shape[i] = shape[i];
    d.strides[i] = strides[i];
  }
  return d;
}

TensorDesc contiguous_desc(void *data, int dtype, int ndim, const int64_t *shape) {
  int64_t strides[kMaxDims];
  contiguous_strides(ndim, shape, strides);
  return make_desc(data, dtype, ndim, shape, strides);
}

bool desc_contiguous(const TensorDesc &d) {
  int64_t expected = 1;
  for (int i = d.ndim - 1; i >= 0; --i) {
    if (d.shape[i] == 0) return true;
    if (d.shape[i] != 1 && d.strides[i] != expected) return false;
    expected *= d.shape[i];
  }
  return true;
}

// src's layout broadcast to a shape (NumPy rules), through broadcast_to.
ek_status broadcast_desc(const ek_tensor_s *src, int ndim, const int64_t *shape, TensorDesc *out) {
  ek_tensor_s target;
  target.ndim = ndim;
  for (int i = 0; i < ndim; ++i) target.shape[i] = shape[i];
  return broadcast_to(src, &target, out);
}

// Element offset of the C-order position pos.
int64_t offset_at(const TensorDesc &d, int64_t pos) {
  int64_t off = 0;
  for (int i = d.ndim - 1; i >= 0; --i) {
    off += (pos % d.shape[i]) * d.strides[i];
    pos /= d.shape[i];
  }
  return off;
}

// ---- argument checks

ek_status check_index_dtype(const ek_tensor_s *index, const char *name) {
  EK_CHECK(index->dtype == EK_INT64 || index->dtype == EK_INT32, EK_ERROR_DTYPE,
           "%s must be int64 or int32, got %s", name, ek_dtype_name(index->dtype));
  return EK_SUCCESS;
}

ek_status check_mask_dtype(const ek_tensor_s *mask) {
  EK_CHECK(mask->dtype == EK_BOOL, EK_ERROR_DTYPE, "mask must be bool, got %s",
           ek_dtype_name(mask->dtype));
  return EK_SUCCESS;
}

ek_status check_same_dtype(const ek_tensor_s *x, const ek_tensor_s *t, const char *name) {
  EK_CHECK(t->dtype == x->dtype, EK_ERROR_DTYPE, "%s has dtype %s; x has %s", name,
           ek_dtype_name(t->dtype), ek_dtype_name(x->dtype));
  return EK_SUCCESS;
}

ek_status check_same_context(const ek_tensor_s *x, const ek_tensor_s *t, const char *name) {
  EK_CHECK(t->storage->ctx == x->storage->ctx, EK_ERROR_INVALID_ARGUMENT,
           "%s belongs to another context than x", name);
  return EK_SUCCESS;
}

// A written tensor must not share memory with one it reads; x itself may be
// the output exactly (in place) where may_be_x.
ek_status check_no_overlap(const TensorDesc &out, const TensorDesc &in, const char *name,
                           bool may_be_x) {
  if (desc_numel(out) == 0 || desc_numel(in) == 0) return EK_SUCCESS;
  if (may_be_x && same_layout(out, in)) return EK_SUCCESS;
  EK_CHECK(!ranges_overlap(out, in), EK_ERROR_INVALID_ARGUMENT, "out overlaps %s%s", name,
           may_be_x ? " (only out == x, in place, is allowed)" : "");
  return EK_SUCCESS;
}

// ---- index validation

struct IndexCheck {
  TensorDesc index;
  int64_t size;  // of the addressed dim
  int dim;
};

ek_status report_bad_index(const IndexCheck &c, int64_t value) {
  return fail(EK_ERROR_INDEX, "index %" PRId64 " is out of range for dim %d of size %" PRId64,
              value, c.dim, c.size);
}

// The backend finds each tensor's first bad position (CUDA: one kernel per
// index tensor, one readback); the first one found is read and named.
ek_status find_and_report(ek_context ctx, ek_stream s, const IndexCheck *checks, int n) {
  TensorDesc descs[kMaxDims] = {};
  int64_t sizes[kMaxDims] = {}, first[kMaxDims] = {};
  for (int k = 0; k < n; ++k) {
    descs[k] = checks[k].index;
    sizes[k] = checks[k].size;
  }
  EK_FORWARD(ctx->backend->find_bad_indices(ctx, s, descs, sizes, n, first));
  for (int k = 0; k < n; ++k) {
    if (first[k] < 0) continue;
    const TensorDesc &d = descs[k];
    const size_t es = dtype_size(d.dtype);
    const char *p =
        static_cast<const char *>(d.data) + offset_at(d, first[k]) * static_cast<int64_t>(es);
    unsigned char value[8];
    EK_FORWARD(memcpy_any(ctx, value, p, es, s));
    if (ctx->is_cuda()) EK_FORWARD(gpu::stream_synchronize(s->native));
    return report_bad_index(checks[k], load_index(value, d.dtype));
  }
  return EK_SUCCESS;
}

// EK_ERROR_INDEX naming the first index outside [-size, size), in order of
// the checks, then C order; empty index tensors need no check.
ek_status validate(ek_context ctx, ek_stream s, const IndexCheck *all, int n) {
  IndexCheck checks[kMaxDims];
  int m = 0;
  for (int k = 0; k < n; ++k)
    if (desc_numel(all[k].index) > 0) checks[m++] = all[k];
  if (m == 0) return EK_SUCCESS;
  return find_and_report(ctx, s, checks, m);
}

// ---- plans

ek_status run_index_plan(ek_context ctx, ek_stream s, const IndexPlan &p) {
  if (desc_numel(p.dense) == 0) return EK_SUCCESS;
  return ctx->backend->index(ctx, s, p);
}

// Index operand over the plan's shape: index strides, the addressed dim's size
// and its stride in the target.
IndexOperand index_operand(const TensorDesc &index, const int64_t *strides_over_plan,
                           int64_t size, int64_t step) {
  IndexOperand op;
  op.data = index.data;
  op.dtype = index.dtype;
  for (int i = 0; i < kMaxDims; ++i) op.strides[i] = strides_over_plan[i];
  op.size = size;
  op.step = step;
  return op;
}

// o = x unless o is x (in place). Callers checked that they do not overlap.
ek_status copy_x_into(ek_context ctx, ek_stream s, const ek_tensor_s *x, ek_tensor o) {
  TensorDesc od = tensor_desc(o), xd = tensor_desc(x);
  if (same_layout(od, xd)) return EK_SUCCESS;
  return device_copy(ctx, s, od, xd);
}

struct Call {
  ek_context ctx;
  ek_stream s;
};

ek_status begin(const ek_tensor_s *x, ek_stream stream, Call *c) {
  c->ctx = x->storage->ctx;
  return resolve_stream(c->ctx, stream, &c->s);
}

// Size and stride of x's dim d; a 0-d x acts as one element along dim 0.
int64_t dim_size(const ek_tensor_s *x, int d) { return x->ndim ? x->shape[d] : 1; }
int64_t dim_stride(const ek_tensor_s *x, int d) { return x->ndim ? x->strides[d] : 0; }

// ---- index_select / gather

// Runs gather plan p with its kernel checking the indices into the stream's
// word for the op: *bad tells whether it met one out of range. The stream's
// lock keeps other threads off the word from its reset to its read.
ek_status gather_checked(const Call &c, IndexPlan p, StreamWord word, bool *bad) {
  EK_FORWARD(activate(c.ctx));
  StreamPinned pinned(c.s);
  EK_FORWARD(pinned.init());
  // Deferred or captured: no wait; a bad index stays in the word until the
  // stream's next synchronization reports it (pending_index_error), so the
  // word is not reset here either (that would drop an earlier one).
  const bool later = c.ctx->config.index_check == EK_INDEX_CHECK_DEFERRED || stream_capturing(c.s);
  if (!later) pinned.set(word, 0);
  // The reset must reach memory before the launch can let the kernel store a bad index.
  std::atomic_thread_fence(std::memory_order_seq_cst);
  p.bad = pinned.device(word);
  EK_FORWARD(run_index_plan(c.ctx, c.s, p));
  if (later) return EK_SUCCESS;
  EK_FORWARD(gpu::stream_synchronize(c.s->native));
  *bad = pinned.get(word) != 0;
  pinned.set(word, 0);  // reported here, not again by a synchronize
  return EK_SUCCESS;
}

// On CUDA one launch and one synchronization: the kernel checks the indices,
// and only when it flags one does validate() run again to name the first bad
// entry (out may then hold partial results; fill_out frees one it made). The
// CPU validates first, and so does CUDA where the kernel would not run or
// could not read x: an empty result (whose indices still need the check) or
// an empty dim (x has no data, and every index is out of range).
ek_status run_gather(const Call &c, const IndexPlan &p, const IndexCheck &check, StreamWord word) {
  if (!c.ctx->is_cuda() || desc_numel(p.dense) == 0 || check.size == 0) {
    EK_FORWARD(validate(c.ctx, c.s, &check, 1));
    return run_index_plan(c.ctx, c.s, p);
  }
  bool bad = false;
  EK_FORWARD(gather_checked(c, p, word, &bad));
  if (!bad) return EK_SUCCESS;
  EK_FORWARD(validate(c.ctx, c.s, &check, 1));
  return fail(EK_ERROR_INTERNAL,
              "the gather kernel met an index out of range that the index check did not find "
              "(was the index tensor written meanwhile?)");
}

ek_status index_select_into(const Call &c, const ek_tensor_s *x, int dim, const ek_tensor_s *index,
                            ek_tensor o) {
  TensorDesc od = tensor_desc(o), id = tensor_desc(index), xd = tensor_desc(x);
  EK_FORWARD(check_no_overlap(od, xd, "x", false));
  EK_FORWARD(check_no_overlap(od, id, "index", false));
  IndexPlan p;
  p.kind = kIxGather;
  p.dense = od;
  p.target = make_desc(xd.data, xd.dtype, od.ndim, od.shape, xd.strides);
  int64_t along[kMaxDims] = {};
  if (x->ndim) {
    p.target.strides[dim] = 0;
    along[dim] = index->ndim ? index->strides[0] : 0;
  }
  p.nindex = 1;
  p.index[0] = index_operand(id, along, dim_size(x, dim), dim_stride(x, dim));
  return run_gather(c, p, IndexCheck{id, dim_size(x, dim), dim}, kWordBadIndexSelect);
}

ek_status gather_into(const Call &c, const ek_tensor_s *x, int dim, const ek_tensor_s *index,
                      ek_tensor o) {
  TensorDesc od = tensor_desc(o), id = tensor_desc(index), xd = tensor_desc(x);
  EK_FORWARD(check_no_overlap(od, xd, "x", false));
  EK_FORWARD(check_no_overlap(od, id, "index", false));
  IndexPlan p;
  p.kind = kIxGather;
  p.dense = od;
  p.target = make_desc(xd.data, xd.dtype, id.ndim, id.shape, xd.strides);
  if (x->ndim) p.target.strides[dim] = 0;
  p.nindex = 1;
  p.index[0] = index_operand(id, id.strides, dim_size(x, dim), dim_stride(x, dim));
  return run_gather(c, p, IndexCheck{id, dim_size(x, dim), dim}, kWordBadGather);
}

// index has x's ndim and, outside dim, sizes no larger than bound's.
ek_status check_index_fits(const ek_tensor_s *index, const ek_tensor_s *bound, const char *what,
                           int skip_dim) {
  for (int d = 0; d < index->ndim; ++d)
    EK_CHECK(d == skip_dim || index->shape[d] <= bound->shape[d], EK_ERROR_SHAPE,
             "index of shape %s is larger than %s of shape %s in dim %d",
             format_shape(index->ndim, index->shape).c_str(), what,
             format_shape(bound->ndim, bound->shape).c_str(), d);
  return EK_SUCCESS;
}

ek_status check_same_ndim(const ek_tensor_s *index, const ek_tensor_s *t, const char *what) {
  EK_CHECK(index->ndim == t->ndim, EK_ERROR_SHAPE,
           "index has %d dims but %s has %d (they must match)", index->ndim, what, t->ndim);
  return EK_SUCCESS;
}

// ---- scatter / index_put

ek_status scatter_into(const Call &c, const ek_tensor_s *x, int dim, const ek_tensor_s *index,
                       const ek_tensor_s *src, bool accumulate, ek_tensor o) {
  TensorDesc od = tensor_desc(o), id = tensor_desc(index), sd = tensor_desc(src);
  EK_FORWARD(check_no_overlap(od, tensor_desc(x), "x", true));
  EK_FORWARD(check_no_overlap(od, id, "index", false));
  EK_FORWARD(check_no_overlap(od, sd, "src", false));
  IndexCheck check{id, dim_size(x, dim), dim};
  EK_FORWARD(validate(c.ctx, c.s, &check, 1));
  EK_FORWARD(copy_x_into(c.ctx, c.s, x, o));
  IndexPlan p;
  p.kind = accumulate ? kIxScatterAdd : kIxScatter;
  p.dense = make_desc(sd.data, sd.dtype, id.ndim, id.shape, sd.strides);
  p.target = make_desc(od.data, od.dtype, id.ndim, id.shape, od.strides);
  if (x->ndim) p.target.strides[dim] = 0;
  p.nindex = 1;
  p.index[0] = index_operand(id, id.strides, dim_size(x, dim), dim_stride(o, dim));
  return run_index_plan(c.ctx, c.s, p);
}

// The broadcast shape of n index tensors.
ek_status broadcast_indices(int n, const ek_tensor *indices, int *ndim, int64_t *shape) {
  *ndim = 0;
  for (int k = 0; k < n; ++k) {
    const ek_tensor_s *t = indices[k];
    int nd = t->ndim > *ndim ? t->ndim : *ndim;
    int64_t merged[kMaxDims];
    for (int i = 0; i < nd; ++i) {
      int it = i - (nd - t->ndim), ic = i - (nd - *ndim);
      int64_t a = it >= 0 ? t->shape[it] : 1, b = ic >= 0 ? shape[ic] : 1;
      EK_CHECK(a == b || a == 1 || b == 1, EK_ERROR_SHAPE,
               "indices[%d] of shape %s does not broadcast with the indices before it (%s)", k,
               format_shape(t->ndim, t->shape).c_str(), format_shape(*ndim, shape).c_str());
      merged[i] = a == 1 ? b : a;
    }
    *ndim = nd;
    std::memcpy(shape, merged, sizeof(int64_t) * static_cast<size_t>(nd));
  }
  return EK_SUCCESS;
}

// The shape index_put addresses: the indices' broadcast shape, then x's dims
// past the n indexed ones.
struct PutShape {
  int nb = 0;  // dims of the broadcast indices
  int ndim = 0;
  int64_t shape[kMaxDims] = {};
};

ek_status put_shape(const ek_tensor_s *x, int n, const ek_tensor *indices, PutShape *ps) {
  EK_FORWARD(broadcast_indices(n, indices, &ps->nb, ps->shape));
  ps->ndim = ps->nb + x->ndim - n;
  EK_CHECK(ps->ndim <= kMaxDims, EK_ERROR_SHAPE,
           "the indexed shape has %d dims (index dims %d + x's remaining %d); at most %d",
           ps->ndim, ps->nb, x->ndim - n, kMaxDims);
  for (int i = n; i < x->ndim; ++i) ps->shape[ps->nb + i - n] = x->shape[i];
  return EK_SUCCESS;
}

ek_status index_put_into(const Call &c, const ek_tensor_s *x, int n, const ek_tensor *indices,
                         const ek_tensor_s *values, bool accumulate, const PutShape &ps,
                         ek_tensor o) {
  TensorDesc od = tensor_desc(o);
  EK_FORWARD(check_no_overlap(od, tensor_desc(x), "x", true));
  EK_FORWARD(check_no_overlap(od, tensor_desc(values), "values", false));
  IndexCheck checks[kMaxDims];
  for (int k = 0; k < n; ++k) {
    checks[k] = IndexCheck{tensor_desc(indices[k]), x->shape[k], k};
    EK_FORWARD(check_no_overlap(od, checks[k].index, "an index tensor", false));
  }
  IndexPlan p;
  EK_FORWARD(broadcast_desc(values, ps.ndim, ps.shape, &p.dense));
  EK_FORWARD(validate(c.ctx, c.s, checks, n));
  EK_FORWARD(copy_x_into(c.ctx, c.s, x, o));
  p.kind = accumulate ? kIxScatterAdd : kIxScatter;
  int64_t strides[kMaxDims] = {};
  for (int i = n; i < x->ndim; ++i) strides[ps.nb + i - n] = od.strides[i];
  p.target = make_desc(od.data, od.dtype, ps.ndim, ps.shape, strides);
  p.nindex = n;
  for (int k = 0; k < n; ++k) {
    TensorDesc b{};
    EK_FORWARD(broadcast_desc(indices[k], ps.nb, ps.shape, &b));
    int64_t along[kMaxDims] = {};
    for (int i = 0; i < ps.nb; ++i) along[i] = b.strides[i];
    p.index[k] = index_operand(b, along, x->shape[k], od.strides[k]);
  }
  return run_index_plan(c.ctx, c.s, p);
}

// ---- masks and compaction

ek_status run_masked_fill(ek_context ctx, ek_stream s, const MaskedFillPlan &p) {
  if (desc_numel(p.dst) == 0) return EK_SUCCESS;
  return ctx->backend->masked_fill(ctx, s, p);
}

// A mask over a shape as the compaction kernels want it (contiguous bool
// bytes, 16-byte aligned on CUDA), its number of true elements, and the
// device workspace that the count leaves for the write.
class CountedMask {
 public:
  CountedMask(ek_context ctx, ek_stream s) : ctx_(ctx), s_(s), packed_(ctx, s), work_(ctx, s) {}

  // mask: any dtype over the shape (nonzero is true; a cast makes it bool).
  ek_status init(const TensorDesc &mask) {
    n_ = desc_numel(mask);
    if (n_ == 0) return EK_SUCCESS;
    const bool aligned = !ctx_->is_cuda() || reinterpret_cast<uintptr_t>(mask.data) % 16 == 0;
    if (mask.dtype == kBool && desc_contiguous(mask) && aligned) {
      bytes_ = static_cast<const uint8_t *>(mask.data);
    } else {
      EK_FORWARD(packed_.allocate(static_cast<size_t>(n_)));
      EK_FORWARD(device_copy(ctx_, s_, contiguous_desc(packed_.get(), kBool, mask.ndim, mask.shape),
                             mask));
      bytes_ = static_cast<const uint8_t *>(packed_.get());
    }
    return count();
  }
  int64_t count_true() const { return count_; }

  // Runs p (kind, dense, compact set by the caller) over the true positions.
  ek_status write(CompactPlan p) const {
    if (count_ == 0 || desc_numel(p.compact) == 0) return EK_SUCCESS;
    p.mask = bytes_;
    p.n = n_;
    return ctx_->backend->compact_write(ctx_, s_, p, work_.get());
  }

 private:
  ek_status count() {
    EK_FORWARD(refuse_capture(s_));  // the count is read on the host
    return ctx_->backend->compact_count(ctx_, s_, bytes_, n_, &work_, &count_);
  }

  ek_context ctx_;
  ek_stream s_;
  Scratch packed_, work_;
  const uint8_t *bytes_ = nullptr;
  int64_t n_ = 0, count_ = 0;
};

// A given out must not overlap what a compaction reads (checked before the
// count, so that nothing is synchronized for a call that must fail anyway).
ek_status check_given_out(ek_tensor *out, const ek_tensor_s *a, const char *an,
                          const ek_tensor_s *b, const char *bn) {
  if (!*out) return EK_SUCCESS;
  EK_FORWARD(check_tensor(*out, "*out"));
  TensorDesc od = tensor_desc(*out);
  EK_FORWARD(check_no_overlap(od, tensor_desc(a), an, false));
  return b ? check_no_overlap(od, tensor_desc(b), bn, false) : EK_SUCCESS;
}

ek_status masked_select_entry(const Call &c, const ek_tensor_s *x, const ek_tensor_s *mask,
                              ek_tensor *out) {
  int ndim = 0;
  int64_t shape[kMaxDims];
  EK_FORWARD(broadcast_shapes(x, mask, &ndim, shape));
  TensorDesc xd{}, md{};
  EK_FORWARD(broadcast_desc(x, ndim, shape, &xd));
  EK_FORWARD(broadcast_desc(mask, ndim, shape, &md));
  EK_FORWARD(check_given_out(out, x, "x", mask, "mask"));
  CountedMask cm(c.ctx, c.s);
  EK_FORWARD(cm.init(md));
  const int64_t count = cm.count_true();
  return fill_out(c.ctx, c.s, 1, &count, x->dtype, out, [&](ek_tensor o) {
    CompactPlan p;
    p.kind = kCompactSelect;
    p.dense = xd;
    p.compact = tensor_desc(o);
    return cm.write(p);
  });
}

ek_status nonzero_entry(const Call &c, const ek_tensor_s *x, ek_tensor *out) {
  EK_FORWARD(check_given_out(out, x, "x", nullptr, nullptr));
  TensorDesc xd = tensor_desc(x);
  CountedMask cm(c.ctx, c.s);
  EK_FORWARD(cm.init(xd));
  const int64_t shape[2] = {cm.count_true(), x->ndim};
  return fill_out(c.ctx, c.s, 2, shape, EK_INT64, out, [&](ek_tensor o) {
    CompactPlan p;
    p.kind = kCompactNonzero;
    p.dense = make_desc(nullptr, kBool, xd.ndim, xd.shape, xd.strides);
    p.compact = tensor_desc(o);
    return cm.write(p);
  });
}

ek_status masked_fill_into(const Call &c, const ek_tensor_s *x, const TensorDesc &md,
                           uint64_t bits, ek_tensor o) {
  MaskedFillPlan p;
  p.dst = tensor_desc(o);
  p.src = tensor_desc(x);
  p.mask = md;
  p.value = bits;
  EK_FORWARD(check_no_overlap(p.dst, p.src, "x", true));
  EK_FORWARD(check_no_overlap(p.dst, md, "mask", false));
  return run_masked_fill(c.ctx, c.s, p);
}

ek_status masked_scatter_into(const Call &c, const ek_tensor_s *x, const TensorDesc &md,
                              const ek_tensor_s *source, ek_tensor o) {
  TensorDesc od = tensor_desc(o), sd = tensor_desc(source);
  EK_FORWARD(check_no_overlap(od, tensor_desc(x), "x", true));
  EK_FORWARD(check_no_overlap(od, md, "mask", false));
  EK_FORWARD(check_no_overlap(od, sd, "source", false));
  CountedMask cm(c.ctx, c.s);
  EK_FORWARD(cm.init(md));
  const int64_t available = tensor_numel(source);
  EK_CHECK(available >= cm.count_true(), EK_ERROR_SHAPE,
           "source has %" PRId64 " elements but the mask selects %" PRId64, available,
           cm.count_true());
  Scratch packed(c.ctx, c.s);
  TensorDesc flat = contiguous_desc(sd.data, sd.dtype, 1, &available);
  if (!desc_contiguous(sd)) {
    EK_FORWARD(packed.allocate(static_cast<size_t>(available) * dtype_size(sd.dtype)));
    flat.data = packed.get();
    EK_FORWARD(device_copy(c.ctx, c.s, contiguous_desc(flat.data, sd.dtype, sd.ndim, sd.shape), sd));
  }
  EK_FORWARD(copy_x_into(c.ctx, c.s, x, o));
  CompactPlan p;
  p.kind = kCompactScatter;
  p.dense = od;
  p.compact = flat;
  return cm.write(p);
}

}  // namespace
}  // namespace ek

using namespace ek;

extern "C" {

EK_API ek_status ek_index_select(ek_stream stream, ek_tensor x, int dim, ek_tensor index,
                                 ek_tensor *out) {
  EK_API_ENTRY;
  EK_CHECK_TENSOR(x);
  EK_CHECK_TENSOR(index);
  EK_CHECK_NULL(out);
  EK_FORWARD(check_same_context(x, index, "index"));
  EK_FORWARD(check_index_dtype(index, "index"));
  EK_CHECK(index->ndim <= 1, EK_ERROR_SHAPE, "index must be 1-D, got shape %s",
           format_shape(index->ndim, index->shape).c_str());
  int d = 0;
  EK_FORWARD(wrap_dim(dim, x->ndim, "dim", &d));
  int64_t shape[kMaxDims];
  std::memcpy(shape, x->shape, sizeof shape);
  if (x->ndim) shape[d] = tensor_numel(index);
  EK_CHECK(x->ndim || tensor_numel(index) == 1, EK_ERROR_SHAPE,
           "a 0-d x needs exactly one index, got %" PRId64, tensor_numel(index));
  EK_PROFILE_OP(nullptr, x->storage->ctx, stream, EK_IN(x, index), EK_OUT(out));
  Call c{};
  EK_FORWARD(begin(x, stream, &c));
  return fill_out(c.ctx, c.s, x->ndim, shape, x->dtype, out,
                  [&](ek_tensor o) { return index_select_into(c, x, d, index, o); });
}

EK_API ek_status ek_gather(ek_stream stream, ek_tensor x, int dim, ek_tensor index,
                           ek_tensor *out) {
  EK_API_ENTRY;
  EK_CHECK_TENSOR(x);
  EK_CHECK_TENSOR(index);
  EK_CHECK_NULL(out);
  EK_FORWARD(check_same_context(x, index, "index"));
  EK_FORWARD(check_index_dtype(index, "index"));
  EK_FORWARD(check_same_ndim(index, x, "x"));
  int d = 0;
  EK_FORWARD(wrap_dim(dim, x->ndim, "dim", &d));
  EK_FORWARD(check_index_fits(index, x, "x", d));
  EK_PROFILE_OP(nullptr, x->storage->ctx, stream, EK_IN(x, index), EK_OUT(out));
  Call c{};
  EK_FORWARD(begin(x, stream, &c));
  return fill_out(c.ctx, c.s, index->ndim, index->shape, x->dtype, out,
                  [&](ek_tensor o) { return gather_into(c, x, d, index, o); });
}

EK_API ek_status ek_scatter(ek_stream stream, ek_tensor x, int dim, ek_tensor index,
                            ek_tensor src, int accumulate, ek_tensor *out) {
  EK_API_ENTRY;
  EK_CHECK_TENSOR(x);
  EK_CHECK_TENSOR(index);
  EK_CHECK_TENSOR(src);
  EK_CHECK_NULL(out);
  EK_FORWARD(check_same_context(x, index, "index"));
  EK_FORWARD(check_same_context(x, src, "src"));
  EK_FORWARD(check_index_dtype(index, "index"));
  EK_FORWARD(check_same_dtype(x, src, "src"));
  EK_FORWARD(check_same_ndim(index, x, "x"));
  EK_FORWARD(check_same_ndim(index, src, "src"));
  int d = 0;
  EK_FORWARD(wrap_dim(dim, x->ndim, "dim", &d));
  EK_FORWARD(check_index_fits(index, x, "x", d));
  EK_FORWARD(check_index_fits(index, src, "src", -1));
  if (accumulate && dtype_is_complex(x->dtype)) return complex_scatter_add(stream, x, d, index, src, out);
  EK_PROFILE_OP(nullptr, x->storage->ctx, stream, EK_IN(x, index, src), EK_OUT(out));
  Call c{};
  EK_FORWARD(begin(x, stream, &c));
  return fill_out(c.ctx, c.s, x->ndim, x->shape, x->dtype, out, [&](ek_tensor o) {
    return scatter_into(c, x, d, index, src, accumulate != 0, o);
  });
}

EK_API ek_status ek_index_put(ek_stream stream, ek_tensor x, int n, const ek_tensor *indices,
                              ek_tensor values, int accumulate, ek_tensor *out) {
  EK_API_ENTRY;
  EK_CHECK_TENSOR(x);
  EK_CHECK_TENSOR(values);
  EK_CHECK_NULL(out);
  EK_CHECK(n >= 0, EK_ERROR_INVALID_ARGUMENT, "n = %d index tensors", n);
  EK_CHECK(n <= x->ndim, EK_ERROR_INDEX, "%d index tensors for a tensor of %d dims", n, x->ndim);
  EK_CHECK(n == 0 || indices != nullptr, EK_ERROR_NULL_POINTER, "indices is NULL but n is %d", n);
  for (int k = 0; k < n; ++k) {
    EK_FORWARD(check_tensor(indices[k], "an entry of indices"));
    EK_FORWARD(check_same_context(x, indices[k], "an index tensor"));
    EK_FORWARD(check_index_dtype(indices[k], "an index tensor"));
  }
  EK_FORWARD(check_same_context(x, values, "values"));
  EK_FORWARD(check_same_dtype(x, values, "values"));
  PutShape ps;
  EK_FORWARD(put_shape(x, n, indices, &ps));
  TensorDesc unused{};
  EK_FORWARD(broadcast_desc(values, ps.ndim, ps.shape, &unused));  // shape error before out
  if (accumulate && dtype_is_complex(x->dtype)) return complex_index_put_add(stream, x, n, indices, values, out);
  EK_PROFILE_OP(nullptr, x->storage->ctx, stream, EK_IN(x, values), EK_OUT(out));
  Call c{};
  EK_FORWARD(begin(x, stream, &c));
  return fill_out(c.ctx, c.s, x->ndim, x->shape, x->dtype, out, [&](ek_tensor o) {
    return index_put_into(c, x, n, indices, values, accumulate != 0, ps, o);
  });
}

EK_API ek_status ek_masked_select(ek_stream stream, ek_tensor x, ek_tensor mask, ek_tensor *out) {
  EK_API_ENTRY;
  EK_CHECK_TENSOR(x);
  EK_CHECK_TENSOR(mask);
  EK_CHECK_NULL(out);
  EK_FORWARD(check_same_context(x, mask, "mask"));
  EK_FORWARD(check_mask_dtype(mask));
  EK_PROFILE_OP(nullptr, x->storage->ctx, stream, EK_IN(x, mask), EK_OUT(out));
  Call c{};
  EK_FORWARD(begin(x, stream, &c));
  return masked_select_entry(c, x, mask, out);
}

EK_API ek_status ek_masked_fill(ek_stream stream, ek_tensor x, ek_tensor mask, ek_scalar value,
                                ek_tensor *out) {
  EK_API_ENTRY;
  EK_CHECK_TENSOR(x);
  EK_CHECK_TENSOR(mask);
  EK_CHECK_NULL(out);
  EK_FORWARD(check_same_context(x, mask, "mask"));
  EK_FORWARD(check_mask_dtype(mask));
  TensorDesc md{};
  EK_FORWARD(broadcast_to(mask, x, &md));
  if (dtype_is_complex(x->dtype)) return complex_masked_fill(stream, x, mask, value, out);
  uint64_t bits = 0;
  EK_FORWARD(scalar_to_element(value, x->dtype, &bits));
  EK_PROFILE_OP(nullptr, x->storage->ctx, stream, EK_IN(x, mask), EK_OUT(out));
  Call c{};
  EK_FORWARD(begin(x, stream, &c));
  return fill_out(c.ctx, c.s, x->ndim, x->shape, x->dtype, out,
                  [&](ek_tensor o) { return masked_fill_into(c, x, md, bits, o); });
}

EK_API ek_status ek_masked_scatter(ek_stream stream, ek_tensor x, ek_tensor mask,
                                   ek_tensor source, ek_tensor *out) {
  EK_API_ENTRY;
  EK_CHECK_TENSOR(x);
  EK_CHECK_TENSOR(mask);
  EK_CHECK_TENSOR(source);
  EK_CHECK_NULL(out);
  EK_FORWARD(check_same_context(x, mask, "mask"));
  EK_FORWARD(check_same_context(x, source, "source"));
  EK_FORWARD(check_mask_dtype(mask));
  EK_FORWARD(check_same_dtype(x, source, "source"));
  TensorDesc md{};
  EK_FORWARD(broadcast_to(mask, x, &md));
  EK_PROFILE_OP(nullptr, x->storage->ctx, stream, EK_IN(x, mask, source), EK_OUT(out));
  Call c{};
  EK_FORWARD(begin(x, stream, &c));
  return fill_out(c.ctx, c.s, x->ndim, x->shape, x->dtype, out,
                  [&](ek_tensor o) { return masked_scatter_into(c, x, md, source, o); });
}

EK_API ek_status ek_nonzero(ek_stream stream, ek_tensor x, ek_tensor *out) {
  EK_API_ENTRY;
  EK_CHECK_TENSOR(x);
  EK_CHECK_NULL(out);
  EK_PROFILE_OP(nullptr, x->storage->ctx, stream, EK_IN(x), EK_OUT(out));
  Call c{};
  EK_FORWARD(begin(x, stream, &c));
  return nonzero_entry(c, x, out);
}

}  // extern "C"
