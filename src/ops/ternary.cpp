// ek_where, ek_clamp, ek_lerp, ek_axpby: argument checks, broadcasting of up
// to three operands, promotion and the compute type here; element loops in
// src/cpu/ternary.cpp and kernels/ternary.cu.
#include <cmath>

#include "core/backend.hpp"
#include "ops/ternary_plan.hpp"
#include "core/internal.hpp"
#include "core/fusion.hpp"
#include "ops/complex.hpp"
#include "core/profiler.hpp"
#include "ops/promote.hpp"

namespace ek {
namespace {

// The compute type of a result dtype, as the elementwise ops choose it.
int compute_of(ek_dtype dt) {
  if (dt == EK_FLOAT64) return ew::kCF64;
  return dtype_is_float(dt) ? ew::kCF32 : ew::kCI64;
}

// Three shapes broadcast together: a with b, then that shape with c.
ek_status broadcast3(const ek_tensor_s *a, const ek_tensor_s *b, const ek_tensor_s *c, int *ndim,
                     int64_t *shape) {
  ek_tensor_s ab;  // a stand-in carrying only the first broadcast's shape
  EK_FORWARD(broadcast_shapes(a, b, &ab.ndim, ab.shape));
  return broadcast_shapes(&ab, c, ndim, shape);
}

// The tensor operands by slot (cond, x, y); nullptr where the op has none.
struct Operands {
  ek_tensor t[3] = {};
  const char *name[3] = {};
};

ek_status same_context(const Operands &o) {
  ek_context ctx = o.t[1]->storage->ctx;
  for (int k : {0, 2})
    EK_CHECK(!o.t[k] || o.t[k]->storage->ctx == ctx, EK_ERROR_INVALID_ARGUMENT,
             "%s and %s belong to different contexts", o.name[1], o.name[k]);
  return EK_SUCCESS;
}

// out may be an operand exactly, never partially overlap one.
ek_status check_alias(const TensorDesc &out, const TensorDesc &in, const char *name) {
  if (desc_numel(out) == 0 || same_layout(out, in)) return EK_SUCCESS;
  EK_CHECK(!ranges_overlap(out, in), EK_ERROR_INVALID_ARGUMENT,
           "out partially overlaps %s (only exact aliasing, out == %s, is allowed)", name, name);
  return EK_SUCCESS;
}

ek_status launch(ek_context ctx, ek_stream s, const tern::Args &g, const ek_tensor_s *out,
                 const Operands &o) {
  if (desc_numel(g.out) == 0) return EK_SUCCESS;
  fusion::Node n;
  n.kind = fusion::kTernary;
  n.tern = g;
  return fusion::run_node(ctx, s, n, out, {o.t[0], o.t[1], o.t[2]});
}

// Broadcasts the operands to out (created when *out is NULL), checks aliasing
// and runs g (which carries op, compute and coefficients).
ek_status run(ek_stream stream, const Operands &o, int ndim, const int64_t *shape, ek_dtype result,
              tern::Args g, ek_tensor *out) {
  static const char *const kNames[] = {"where", "clamp", "lerp", "axpby"};
  EK_CHECK(!dtype_is_complex(result), EK_ERROR_DTYPE, "%s does not support complex dtypes, got %s",
           kNames[g.op], ek_dtype_name(result));
  EK_FORWARD(same_context(o));
  ek_context ctx = o.t[1]->storage->ctx;
  ek_stream s = nullptr;
  EK_FORWARD(resolve_stream(ctx, stream, &s));
  return fill_out_converting(ctx, s, ndim, shape, result, out, [&](ek_tensor dst) {
    g.out = tensor_desc(dst);
    TensorDesc *slot[3] = {&g.cond, &g.x, &g.y};
    for (int k = 0; k < 3; ++k) {
      *slot[k] = TensorDesc{};
      if (!o.t[k]) continue;
      EK_FORWARD(broadcast_to(o.t[k], dst, slot[k]));
      EK_FORWARD(check_alias(g.out, *slot[k], o.name[k]));
    }
    return launch(ctx, s, g, dst, o);
  });
}

// ---- clamp bounds, cast to x's dtype once on the host.

// Integer x: the bound truncated toward zero and saturated to x's range, so
// clamping equals the exact clamp cast to x's dtype (integer kinds exactly).
int64_t int_bound(const ek_scalar &v, ek_dtype dt) {
  switch (raw_enum(v.kind)) {
    case EK_SCALAR_FLOAT64: return detail::float_to_int(v.f, dt);
    case EK_SCALAR_UINT64:
      if (dt == EK_UINT64) return static_cast<int64_t>(v.u);  // its bits
      return v.u > static_cast<uint64_t>(detail::int_max(dt)) ? detail::int_max(dt)
                                                              : static_cast<int64_t>(v.u);
    default:
      return v.i < detail::int_min(dt) ? detail::int_min(dt)
                                       : (v.i > detail::int_max(dt) ? detail::int_max(dt) : v.i);
  }
}

// uint64 x: the kernel orders int64 coefficients as signed, so the bounds (as
// uint64 bits) go through maximum and minimum, which order uint64 as unsigned.
ek_status clamp_u64(ek_stream stream, ek_tensor x, const int64_t *lo, const int64_t *hi, ek_tensor *out) {
  if (!hi) return ek_binary_scalar(stream, EK_BINARY_MAXIMUM, x, ek_scalar_uint(uint64_t(*lo)), 0, out);
  if (!lo) return ek_binary_scalar(stream, EK_BINARY_MINIMUM, x, ek_scalar_uint(uint64_t(*hi)), 0, out);
  ek_tensor low = nullptr;
  EK_FORWARD(ek_binary_scalar(stream, EK_BINARY_MAXIMUM, x, ek_scalar_uint(uint64_t(*lo)), 0, &low));
  const ek_status st = ek_binary_scalar(stream, EK_BINARY_MINIMUM, low, ek_scalar_uint(uint64_t(*hi)), 0, out);
  ek_tensor_release(low);
  return st;
}

ek_status clamp_coefficients(ek_dtype dt, const ek_scalar *lo, const ek_scalar *hi,
                             tern::Args *g) {
  const ek_scalar *bound[2] = {lo, hi};
  const char *name[2] = {"lo", "hi"};
  for (int k = 0; k < 2; ++k) {
    const ek_scalar v = bound[k] ? *bound[k] : ek_scalar_float(k == 0 ? -INFINITY : INFINITY);
    EK_FORWARD(check_scalar(v, name[k]));
    EK_CHECK(dtype_is_float(dt) || !(scalar_is_float(v) && std::isnan(v.f)),
             EK_ERROR_INVALID_ARGUMENT, "%s is NaN, which an integer tensor (%s) cannot hold",
             name[k], ek_dtype_name(dt));
    g->cf[k] = dtype_is_float(dt) ? scalar_rounded_to(v, dt) : 0;
    g->ci[k] = dtype_is_float(dt) ? 0 : int_bound(v, dt);
  }
  return EK_SUCCESS;
}

// A coefficient in the compute type: integer compute takes integers only (as
// PyTorch's alpha), exactly; float compute converts once.
ek_status coefficient(const ek_scalar &v, const char *name, ek_dtype result, tern::Args *g,
                      int k) {
  EK_FORWARD(check_scalar(v, name));
  g->cf[k] = scalar_to_double(v);
  if (g->compute != ew::kCI64) return EK_SUCCESS;
  EK_CHECK(scalar_to_int64(v, &g->ci[k]), EK_ERROR_INVALID_ARGUMENT,
           "%s = %s must be an integer in int64's range when the operands are %s (integer "
           "arithmetic)",
           name, format_scalar(v).c_str(), ek_dtype_name(result));
  return EK_SUCCESS;
}

}  // namespace
}  // namespace ek

using namespace ek;

extern "C" {

EK_API ek_status ek_where(ek_stream stream, ek_tensor cond, ek_tensor a, ek_tensor b, ek_tensor *out) {
  EK_API_ENTRY;
  fusion::FusibleCall fusible;
  EK_CHECK_TENSOR(cond);
  EK_CHECK_TENSOR(a);
  EK_CHECK_TENSOR(b);
  EK_CHECK_NULL(out);
  EK_PROFILE_OP(nullptr, a->storage->ctx, stream, EK_IN(cond, a, b), EK_OUT(out));
  int ndim = 0;
  int64_t shape[EK_MAX_DIMS];
  EK_FORWARD(broadcast3(a, b, cond, &ndim, shape));
  const ek_dtype result = promote(a->dtype, b->dtype);
  if (dtype_is_complex(result)) return complex_where(stream, cond, a, b, result, ndim, shape, out);
  tern::Args g{};
  g.op = tern::kWhere;
  g.compute = compute_of(result);
  return run(stream, Operands{{cond, a, b}, {"cond", "a", "b"}}, ndim, shape, result, g, out);
}

EK_API ek_status ek_clamp(ek_stream stream, ek_tensor x, const ek_scalar *lo,
                          const ek_scalar *hi, ek_tensor *out) {
  EK_API_ENTRY;
  fusion::FusibleCall fusible;
  EK_CHECK_TENSOR(x);
  EK_CHECK_NULL(out);
  EK_PROFILE_OP(nullptr, x->storage->ctx, stream, EK_IN(x), EK_OUT(out));
  EK_CHECK(x->dtype != EK_BOOL, EK_ERROR_DTYPE, "clamp of a bool tensor is not defined");
  tern::Args g{};
  g.op = tern::kClamp;
  g.compute = compute_of(x->dtype);
  EK_FORWARD(clamp_coefficients(x->dtype, lo, hi, &g));
  if (x->dtype == EK_UINT64 && (lo || hi)) return clamp_u64(stream, x, lo ? &g.ci[0] : nullptr, hi ? &g.ci[1] : nullptr, out);
  return run(stream, Operands{{nullptr, x, nullptr}, {nullptr, "x", nullptr}}, x->ndim, x->shape,
             x->dtype, g, out);
}

EK_API ek_status ek_lerp(ek_stream stream, ek_tensor start, ek_tensor end, ek_scalar weight,
                         ek_tensor *out) {
  EK_API_ENTRY;
  fusion::FusibleCall fusible;
  EK_CHECK_TENSOR(start);
  EK_CHECK_TENSOR(end);
  EK_CHECK_NULL(out);
  EK_PROFILE_OP(nullptr, start->storage->ctx, stream, EK_IN(start, end), EK_OUT(out));
  EK_CHECK(dtype_is_float(start->dtype) && dtype_is_float(end->dtype), EK_ERROR_DTYPE,
           "lerp needs float tensors; start is %s, end is %s", ek_dtype_name(start->dtype),
           ek_dtype_name(end->dtype));
  int ndim = 0;
  int64_t shape[EK_MAX_DIMS];
  EK_FORWARD(broadcast_shapes(start, end, &ndim, shape));
  const ek_dtype result = promote(start->dtype, end->dtype);
  tern::Args g{};
  g.op = tern::kLerp;
  g.compute = compute_of(result);
  EK_FORWARD(coefficient(weight, "weight", result, &g, 0));
  return run(stream, Operands{{nullptr, start, end}, {nullptr, "start", "end"}}, ndim, shape, result,
             g, out);
}

EK_API ek_status ek_axpby(ek_stream stream, ek_scalar alpha, ek_tensor x, ek_scalar beta,
                          ek_tensor y, ek_tensor *out) {
  EK_API_ENTRY;
  EK_CHECK_TENSOR(x);
  EK_CHECK_TENSOR(y);
  EK_CHECK_NULL(out);
  EK_PROFILE_OP(nullptr, x->storage->ctx, stream, EK_IN(x, y), EK_OUT(out));
  int ndim = 0;
  int64_t shape[EK_MAX_DIMS];
  EK_FORWARD(broadcast_shapes(x, y, &ndim, shape));
  const ek_dtype result = promote(x->dtype, y->dtype);
  tern::Args g{};
  g.op = tern::kAxpby;
  g.compute = compute_of(result);
  EK_FORWARD(coefficient(alpha, "alpha", result, &g, 0));
  EK_FORWARD(coefficient(beta, "beta", result, &g, 1));
  return run(stream, Operands{{nullptr, x, y}, {nullptr, "x", "y"}}, ndim, shape, result, g, out);
}

}  // extern "C"
