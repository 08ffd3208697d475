// ek_reduce, ek_var, ek_reduce_with_indices: argument checks, result dtypes and the
// (outer, r, inner) layout here; loops in src/cpu/reduce.cpp and kernels/reduce.cu.
//
// The input reaches the backends as a contiguous (outer, r, inner) block in a
// storage dtype (f16/bf16/f32/f64 as given, everything else as int64), so the
// backends instantiate per storage dtype, not per input dtype. When x is not
// already laid out that way, one copy (the copy kernels, with the cast) packs
// it as [kept dims..., reduced dims...] into pool scratch.
#include <cinttypes>
#include <cmath>

#include "core/backend.hpp"
#include "core/fusion.hpp"
#include "ops/reduce_plan.hpp"
#include "core/internal.hpp"
#include "ops/complex.hpp"
#include "ops/elementwise_plan.hpp"
#include "ops/int_out.hpp"
#include "ops/op_traits.hpp"
#include "core/profiler.hpp"

namespace ek {
namespace {

struct Reduced {
  bool mask[EK_MAX_DIMS] = {};
  int64_t r = 1;  // elements per reduction
  int out_ndim = 0;
  int64_t out_shape[EK_MAX_DIMS] = {};
};

// ndims == 0 reduces every dim; a 0-d x accepts dim 0 / -1.
ek_status parse_dims(const ek_tensor_s *x, int ndims, const int *dims, int keepdim, Reduced *rd) {
  EK_CHECK(ndims >= 0 && ndims <= EK_MAX_DIMS, EK_ERROR_INVALID_ARGUMENT,
           "ndims %d is out of range [0, %d]", ndims, EK_MAX_DIMS);
  EK_CHECK(ndims == 0 || dims != nullptr, EK_ERROR_NULL_POINTER, "dims is NULL but ndims is %d",
           ndims);
  bool all = ndims == 0;
  for (int k = 0; !all && k < ndims; ++k) {
    int d = 0;
    EK_FORWARD(wrap_dim(dims[k], x->ndim, "dim", &d));
    if (x->ndim == 0) continue;
    EK_CHECK(!rd->mask[d], EK_ERROR_INVALID_ARGUMENT, "dim %d appears more than once in dims",
             dims[k]);
    rd->mask[d] = true;
  }
  for (int d = 0; d < x->ndim; ++d) {
    if (all) rd->mask[d] = true;
    if (rd->mask[d]) rd->r *= x->shape[d];
    if (!rd->mask[d] || keepdim) rd->out_shape[rd->out_ndim++] = rd->mask[d] ? 1 : x->shape[d];
  }
  return EK_SUCCESS;
}

ek_dtype storage_dtype(ek_dtype dt) { return dtype_is_float(dt) ? dt : EK_INT64; }

TensorDesc contiguous_like(void *data, int dtype, const TensorDesc &shape_of) {
  TensorDesc d = shape_of;
  d.data = data;
  d.dtype = dtype;
  contiguous_strides(d.ndim, d.shape, d.strides);
  return d;
}

// x as (outer, r, inner) without a copy: the non-size-1 dims are C-contiguous
// and the reduced ones among them form one run.
bool direct_layout(const ek_tensor_s *x, const Reduced &rd, ReducePlan *p) {
  int64_t expect = 1, sizes[3] = {1, 1, 1};  // outer, r, inner
  int part = 2;                              // walking from the last dim
  for (int d = x->ndim - 1; d >= 0; --d) {
    if (x->shape[d] == 1) continue;
    if (x->strides[d] != expect) return false;
    expect *= x->shape[d];
    int want = rd.mask[d] ? 1 : (part == 2 ? 2 : 0);
    if (want > part) return false;  // a kept dim between reduced dims
    part = want;
    sizes[part] *= x->shape[d];
  }
  p->outer = sizes[0];
  p->r = sizes[1];
  p->inner = sizes[2];
  return true;
}

// x permuted to [kept..., reduced...] as a descriptor (no data moved).
TensorDesc packed_order(const ek_tensor_s *x, const Reduced &rd) {
  TensorDesc src = tensor_desc(x);
  TensorDesc d = src;
  int n = 0;
  for (int pass = 0; pass < 2; ++pass)
    for (int i = 0; i < x->ndim; ++i)
      if (rd.mask[i] == (pass == 1)) {
        d.shape[n] = src.shape[i];
        d.strides[n++] = src.strides[i];
      }
  return d;
}

struct Input {
  Scratch packed, booleans;
  Input(ek_context ctx, ek_stream s) : packed(ctx, s), booleans(ctx, s) {}
};

// d ^= INT64_MIN in place: uint64 bits so flipped compare as int64 in the
// unsigned order, so max/min/argmax/argmin of uint64 run on the int64 kernels.
ek_status flip_sign_bits(ek_context ctx, ek_stream s, const TensorDesc &d) {
  if (desc_numel(d) == 0) return EK_SUCCESS;
  ew::Args g{};
  g.op = EK_BINARY_BITWISE_XOR;
  g.compute = ew::kCI64;
  g.scalar = ew::kScalarB;
  g.si = INT64_MIN;
  g.out = g.a = d;
  return ctx->backend->binary(ctx, s, g);
}

bool unsigned_order(ek_dtype dt, int kind) {
  return dt == EK_UINT64 && (kind == kRMax || kind == kRMin || kind == kRArgMax || kind == kRArgMin);
}

// Fills p->in/in_dtype/outer/r/inner; nonzero: values become (x != 0) as int64.
ek_status prepare_input(ek_context ctx, ek_stream s, const ek_tensor_s *x, const Reduced &rd,
                        bool nonzero, bool flip, Input *buf, ReducePlan *p) {
  ek_dtype sdt = nonzero ? EK_INT64 : storage_dtype(x->dtype);
  p->in_dtype = sdt;
  // any/all reduce x != 0, never x itself: an int64 x read in place made
  // them max(x) != 0 and min(x) != 0, wrong for negative values.
  if (!nonzero && sdt == x->dtype && direct_layout(x, rd, p)) {
    p->in = tensor_numel(x) ? tensor_data(x) : nullptr;
    return EK_SUCCESS;
  }
  int64_t n = tensor_numel(x);
  p->outer = rd.r ? n / rd.r : 1;
  p->r = rd.r;
  p->inner = 1;
  if (rd.r == 0) {  // no elements: nothing to pack, and outer is x's kept size
    p->outer = 1;
    for (int d = 0; d < x->ndim; ++d) p->outer *= rd.mask[d] ? 1 : x->shape[d];
  }
  TensorDesc src = packed_order(x, rd);
  if (nonzero) {  // x != 0 (NaN is true) through a cast to bool, as PyTorch
    EK_FORWARD(buf->booleans.allocate(static_cast<size_t>(n)));
    TensorDesc b = contiguous_like(buf->booleans.get(), kBool, src);
    EK_FORWARD(device_copy(ctx, s, b, src));
    src = b;
  }
  EK_FORWARD(buf->packed.allocate(static_cast<size_t>(n) * dtype_size(sdt)));
  TensorDesc dst = contiguous_like(buf->packed.get(), sdt, src);
  EK_FORWARD(device_copy(ctx, s, dst, src));
  if (flip) EK_FORWARD(flip_sign_bits(ctx, s, dst));
  p->in = buf->packed.get();
  return EK_SUCCESS;
}

ek_status launch(ek_context ctx, ek_stream s, const ReducePlan &p) {
  if (p.outer * p.inner == 0) return EK_SUCCESS;
  return ctx->backend->reduce(ctx, s, p);
}

// A result written contiguously: straight into t when it is contiguous, else
// into scratch that finish() copies into t's strides.
class OutBuf {
 public:
  OutBuf(ek_context ctx, ek_stream s, ek_tensor t) : ctx_(ctx), s_(s), t_(t), tmp_(ctx, s) {}
  ek_status data(void **ptr) {
    *ptr = nullptr;
    if (!t_ || tensor_numel(t_) == 0) return EK_SUCCESS;
    if (tensor_contiguous(t_)) {
      *ptr = tensor_data(t_);
      return EK_SUCCESS;
    }
    EK_FORWARD(tmp_.allocate(static_cast<size_t>(tensor_numel(t_)) * dtype_size(t_->dtype)));
    *ptr = tmp_.get();
    return EK_SUCCESS;
  }
  ek_status finish() {
    if (!tmp_.get()) return EK_SUCCESS;
    TensorDesc dst = tensor_desc(t_);
    return device_copy(ctx_, s_, dst, contiguous_like(tmp_.get(), t_->dtype, dst));
  }

 private:
  ek_context ctx_;
  ek_stream s_;
  ek_tensor t_;
  Scratch tmp_;
};

struct Job {
  int kind = kRSum;
  bool nonzero = false;
  double divisor = 1.0;
  bool take_sqrt = false;
  const double *center = nullptr;
};

// Runs one reduction of x into values (and indices for arg kinds).
ek_status run(ek_context ctx, ek_stream s, const ek_tensor_s *x, const Reduced &rd,
              const Job &job, ek_tensor values, ek_tensor indices) {
  Input in(ctx, s);
  ReducePlan p;
  const bool flip = !job.nonzero && unsigned_order(x->dtype, job.kind);  // any/all: x != 0 as int64
  EK_FORWARD(prepare_input(ctx, s, x, rd, job.nonzero, flip, &in, &p));
  p.kind = job.kind;
  p.divisor = job.divisor;
  p.take_sqrt = job.take_sqrt;
  p.center = job.center;
  OutBuf vo(ctx, s, values), io(ctx, s, indices);
  void *vptr = nullptr, *iptr = nullptr;
  EK_FORWARD(vo.data(&vptr));
  EK_FORWARD(io.data(&iptr));
  p.out = vptr;
  p.out_dtype = values ? static_cast<int>(values->dtype) : static_cast<int>(kF32);
  p.indices = static_cast<int64_t *>(iptr);
  EK_FORWARD(launch(ctx, s, p));
  EK_FORWARD(vo.finish());
  if (flip && values) EK_FORWARD(flip_sign_bits(ctx, s, tensor_desc(values)));
  return io.finish();
}

// Internal kind, result dtype and the zero-element rule of a public op.
ek_status op_plan(const ops::ReduceTraits &t, ek_dtype xdt, int64_t r, Job *job, ek_dtype *out_dt) {
  const char *name = ops::reduce_name(t.op);
  EK_FORWARD(ops::check_accepts(name, t.accepts, xdt));
  EK_CHECK(t.empty != ops::Empty::kFails || r > 0, EK_ERROR_SHAPE,
           "%s over zero elements has no identity: the reduced dims are empty", name);
  job->kind = t.kind;
  job->nonzero = t.step == ops::Step::kNonzero;
  job->take_sqrt = t.step == ops::Step::kSqrt;
  if (t.step == ops::Step::kMean) job->divisor = static_cast<double>(r);
  *out_dt = ops::result_dtype(t.result, xdt);
  return EK_SUCCESS;
}

// Whether a given out can take a deferred reduction's result: the result's
// dtype, contiguous (the kernels store output o at index o), and apart from
// x. Anything else (and a bad handle, reported by the eager path) runs now.
bool out_takes_deferred(const ek_tensor_s *out, const ek_tensor_s *x, ek_dtype out_dt) {
  return out->magic == kTensorMagic && out->dtype == out_dt && tensor_contiguous(out) &&
         out->storage != x->storage;
}

// Under fusion, a reduction of the pending result of an elementwise op on
// s joins that op's group (fusion.hpp): x must be a float tensor read in
// place as (outer, r, 1) with elements, the result a new tensor or a given
// one out_takes_deferred accepts, the kind one whose element map needs no
// other input. Not the sum of squares: nvcc may contract its x * x + s in
// the eager kernel, which the fused kernels, built without contraction for
// the elementwise ops' sake, would not. *p gets the plan but its out.
bool joins_pending(ek_stream s, const ek_tensor_s *x, const Reduced &rd, const Job &job, ek_dtype out_dt,
                   const ek_tensor *out, ReducePlan *p) {
  const bool kind = job.kind == kRSum || job.kind == kRSumAbs || job.kind == kRProd || job.kind == kRMax ||
                    job.kind == kRMin || job.kind == kRMaxAbs;
  if (!kind || job.nonzero || (*out && !out_takes_deferred(*out, x, out_dt)) || !dtype_is_float(x->dtype) ||
      rd.r == 0 || tensor_numel(x) == 0)
    return false;
  if (fusion::stream_mode(s) == EK_FUSION_OFF || !fusion::pending_on(x, s)) return false;
  if (!direct_layout(x, rd, p) || p->inner != 1) return false;
  p->in = tensor_data(x);
  p->in_dtype = x->dtype;
  p->kind = job.kind;
  p->divisor = job.divisor;
  p->take_sqrt = job.take_sqrt;
  return true;
}

ek_status reduce_entry(ek_stream stream, const ops::ReduceTraits &t, ek_tensor x, int ndims,
                       const int *dims, int keepdim, ek_tensor *out) {
  Reduced rd;
  EK_FORWARD(parse_dims(x, ndims, dims, keepdim, &rd));
  Job job;
  ek_dtype out_dt = EK_FLOAT32;
  EK_FORWARD(op_plan(t, x->dtype, rd.r, &job, &out_dt));
  ek_context ctx = x->storage->ctx;
  ek_stream s = nullptr;
  EK_FORWARD(resolve_stream(ctx, stream, &s));
  ReducePlan p;
  if (joins_pending(s, x, rd, job, out_dt, out, &p))
    return fill_out(ctx, s, rd.out_ndim, rd.out_shape, out_dt, out, [&](ek_tensor o) {
      fusion::Node n;
      n.kind = fusion::kReduce;
      n.src = tensor_desc(x);
      n.dst = tensor_desc(o);
      p.out = tensor_data(o);
      p.out_dtype = o->dtype;
      n.red = p;
      return fusion::run_node(ctx, s, n, o, {x});
    });
  // Anything else reads x as it is: its pending ops run first.
  fusion::forbid_in_call();
  EK_FORWARD(fusion::touch(x));
  if (dtype_is_complex(x->dtype) && t.op == EK_REDUCE_PROD)
    return complex_prod(s, x, rd.mask, rd.out_ndim, rd.out_shape, out);
  if (dtype_is_complex(x->dtype))
    return complex_reduce(s, t.op, x, ndims, dims, keepdim, rd.out_ndim, rd.out_shape, out);
  if ((t.op == EK_REDUCE_SUM || t.op == EK_REDUCE_PROD) && wraps_into_out(x->dtype, out_dt, *out))
    return wrap_into_out(s, *out, rd.out_ndim, rd.out_shape, [&](ek_tensor *tmp) {
      return reduce_entry(s, t, x, ndims, dims, keepdim, tmp);
    });
  bool arg = job.kind == kRArgMax || job.kind == kRArgMin;
  return fill_out(ctx, s, rd.out_ndim, rd.out_shape, out_dt, out, [&](ek_tensor o) {
    // any/all run as max/min, whose empty result is no boolean: fill it.
    if (rd.r == 0 && (t.empty == ops::Empty::kFalse || t.empty == ops::Empty::kTrue))
      return ek_fill(s, int_scalar(t.empty == ops::Empty::kTrue ? 1 : 0), o);
    return run(ctx, s, x, rd, job, arg ? nullptr : o, arg ? o : nullptr);
  });
}

// Two passes, both deterministic: the mean (f64 scratch), then the sum of
// squared deviations from it (more accurate than E[x^2] - E[x]^2).
ek_status var_into(ek_context ctx, ek_stream s, const ek_tensor_s *x, const Reduced &rd,
                   double correction, bool take_sqrt, ek_tensor o) {
  int64_t nout = tensor_numel(o);
  if (nout == 0) return EK_SUCCESS;
  Scratch mean_buf(ctx, s);
  EK_FORWARD(mean_buf.allocate(static_cast<size_t>(nout) * sizeof(double)));
  ek_tensor mean = nullptr;
  EK_FORWARD(ek_tensor_wrap(ctx, mean_buf.get(), o->ndim, o->shape, nullptr, EK_FLOAT64,
                            nullptr, nullptr, &mean));
  Job pass1;
  pass1.divisor = static_cast<double>(rd.r);
  ek_status st = run(ctx, s, x, rd, pass1, mean, nullptr);
  ek_tensor_release(mean);
  EK_FORWARD(st);
  Job pass2;
  pass2.kind = kRSumSqDev;
  pass2.center = static_cast<const double *>(mean_buf.get());
  pass2.divisor = std::fmax(0.0, static_cast<double>(rd.r) - correction);
  pass2.take_sqrt = take_sqrt;
  return run(ctx, s, x, rd, pass2, o, nullptr);
}

}  // namespace
}  // namespace ek

using namespace ek;

extern "C" {

EK_API ek_status ek_reduce(ek_stream stream, ek_reduce_op op, ek_tensor x, int ndims,
                           const int *dims, int keepdim, ek_tensor *out) {
  EK_API_ENTRY;
  fusion::FusibleCall fusible;  // x may stay pending: reduce_entry decides
  EK_CHECK_TENSOR(x);
  EK_CHECK_NULL(out);
  const int raw = raw_enum(op);
  const ops::ReduceTraits *t = ops::reduce_traits(raw);
  EK_CHECK(t, EK_ERROR_INVALID_ARGUMENT, "unknown reduce op %d", raw);
  EK_PROFILE_OP(reduce_op_name(raw), x->storage->ctx, stream, EK_IN(x), EK_OUT(out));
  return reduce_entry(stream, *t, x, ndims, dims, keepdim, out);
}

EK_API ek_status ek_var(ek_stream stream, ek_var_kind kind, ek_tensor x, int ndims,
                        const int *dims, double correction, int keepdim, ek_tensor *out) {
  EK_API_ENTRY;
  EK_CHECK_TENSOR(x);
  EK_CHECK_NULL(out);
  const int raw = raw_enum(kind);
  EK_CHECK(raw == EK_VAR_VARIANCE || raw == EK_VAR_STD, EK_ERROR_INVALID_ARGUMENT,
           "unknown ek_var_kind %d", raw);
  const bool take_sqrt = raw == EK_VAR_STD;
  EK_CHECK(dtype_is_float(x->dtype), EK_ERROR_DTYPE,
           "%s needs a floating-point input, got %s (cast first, as in PyTorch)",
           take_sqrt ? "std" : "var", ek_dtype_name(x->dtype));
  EK_CHECK(std::isfinite(correction), EK_ERROR_INVALID_ARGUMENT, "correction %g is not finite",
           correction);
  EK_PROFILE_OP(take_sqrt ? "std" : "var", x->storage->ctx, stream, EK_IN(x), EK_OUT(out));
  Reduced rd;
  EK_FORWARD(parse_dims(x, ndims, dims, keepdim, &rd));
  ek_context ctx = x->storage->ctx;
  ek_stream s = nullptr;
  EK_FORWARD(resolve_stream(ctx, stream, &s));
  return fill_out(ctx, s, rd.out_ndim, rd.out_shape, x->dtype, out, [&](ek_tensor o) {
    return var_into(ctx, s, x, rd, correction, take_sqrt, o);
  });
}

EK_API ek_status ek_reduce_with_indices(ek_stream stream, ek_reduce_op op, ek_tensor x, int dim,
                                        int keepdim, ek_tensor *values, ek_tensor *indices) {
  EK_API_ENTRY;
  EK_CHECK_TENSOR(x);
  EK_CHECK_NULL(values);
  EK_CHECK_NULL(indices);
  const int raw = raw_enum(op);
  EK_CHECK(raw == EK_REDUCE_MAX || raw == EK_REDUCE_MIN, EK_ERROR_INVALID_ARGUMENT,
           "op %d (%s) has no indices: only EK_REDUCE_MAX and EK_REDUCE_MIN do", raw,
           ops::reduce_traits(raw) ? reduce_op_name(raw) : "unknown");
  const bool take_min = raw == EK_REDUCE_MIN;
  EK_PROFILE_OP(take_min ? "min" : "max", x->storage->ctx, stream, EK_IN(x),
                EK_OUT(values, indices));
  Reduced rd;
  EK_FORWARD(parse_dims(x, 1, &dim, keepdim, &rd));
  EK_CHECK(rd.r > 0, EK_ERROR_SHAPE, "%s over dim %d of shape %s: the dim is empty",
           take_min ? "min" : "max", dim, format_shape(x->ndim, x->shape).c_str());
  ek_context ctx = x->storage->ctx;
  ek_stream s = nullptr;
  EK_FORWARD(resolve_stream(ctx, stream, &s));
  Job job;
  job.kind = take_min ? kRArgMin : kRArgMax;
  ek_tensor idx = *indices;
  EK_FORWARD(fill_out(ctx, s, rd.out_ndim, rd.out_shape, EK_INT64, &idx,
                      [](ek_tensor) { return EK_SUCCESS; }));
  bool idx_created = *indices == nullptr;
  ek_status st = fill_out(ctx, s, rd.out_ndim, rd.out_shape, x->dtype, values,
                          [&](ek_tensor v) { return run(ctx, s, x, rd, job, v, idx); });
  if (st != EK_SUCCESS) {
    if (idx_created) ek_tensor_release(idx);
    return st;
  }
  *indices = idx;
  return EK_SUCCESS;
}

}  // extern "C"
