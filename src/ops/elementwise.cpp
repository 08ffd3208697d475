// ek_unary, ek_binary, ek_binary_scalar: argument checks, broadcasting, type
// promotion and the choice of compute type here; element loops in
// src/cpu/elementwise.cpp and kernels/elementwise.cu.
#include <cmath>

#include "core/backend.hpp"
#include "ops/complex.hpp"
#include "ops/elementwise_plan.hpp"
#include "core/internal.hpp"
#include "core/fusion.hpp"
#include "ops/op_traits.hpp"
#include "core/profiler.hpp"
#include "ops/promote.hpp"

namespace ek {
namespace {

int compute_of(ek_dtype dt) {
  if (dt == EK_FLOAT64) return ew::kCF64;
  return dtype_is_float(dt) ? ew::kCF32 : ew::kCI64;
}

// An op computes in its result's type (exp and div of integers: float32),
// except that a bool result is a predicate over the input's.
int compute_for(ops::Result r, ek_dtype in) {
  return compute_of(r == ops::Result::kBool ? in : ops::result_dtype(r, in));
}

// Result dtype and compute type of op over operands promoted to common.
ek_status binary_types(const ops::BinaryTraits &t, ek_dtype common, ek_dtype *result, int *compute) {
  EK_FORWARD(ops::check_accepts(ops::binary_name(t.op), t.accepts, common, t.instead));
  *compute = compute_for(t.result, common);
  *result = ops::result_dtype(t.result, common);
  return EK_SUCCESS;
}

// The op the backends run: NEXTAFTER of a 16-bit float result steps in that
// type, not in its float32 compute type.
// uint64 operands in int64 compute take the unsigned form of order-dependent ops.
int plan_op(int op, ek_dtype result, ek_dtype common, int compute) {
  if (common == EK_UINT64 && compute == ew::kCI64 && ew::order_dependent(true, op)) return ew::kUnsignedOp + op;
  if (op != EK_BINARY_NEXTAFTER) return op;
  if (result == EK_FLOAT16) return ew::kNextafterF16;
  return result == EK_BFLOAT16 ? ew::kNextafterBF16 : op;
}

// ---- aliasing: out may be an operand exactly, never partially overlap one.
ek_status check_alias(const TensorDesc &out, const TensorDesc &in, const char *name) {
  if (desc_numel(out) == 0 || in.data == nullptr || same_layout(out, in)) return EK_SUCCESS;
  EK_CHECK(!ranges_overlap(out, in), EK_ERROR_INVALID_ARGUMENT,
           "out partially overlaps %s (only exact aliasing, out == %s, is allowed)", name, name);
  return EK_SUCCESS;
}

// ---- backends: now, or later in a fusion group (core/fusion.hpp)
ek_status launch(ek_context ctx, ek_stream s, const ew::Args &g, bool binary, const ek_tensor_s *out,
                 const ek_tensor_s *a, const ek_tensor_s *b) {
  if (desc_numel(g.out) == 0) return EK_SUCCESS;
  fusion::Node n;
  n.kind = binary ? fusion::kBinary : fusion::kUnary;
  n.ew = g;
  return fusion::run_node(ctx, s, n, out, {a, b});
}

// Runs a binary op whose tensor operands are a (and b unless g.scalar says
// otherwise); g carries op, compute and scalar.
ek_status run_binary(ek_stream stream, ek_tensor a, ek_tensor b, int ndim, const int64_t *shape,
                     ek_dtype result, ew::Args g, ek_tensor *out) {
  ek_context ctx = a->storage->ctx;
  ek_stream s = nullptr;
  EK_FORWARD(resolve_stream(ctx, stream, &s));
  return fill_out_converting(ctx, s, ndim, shape, result, out, [&](ek_tensor o) {
    g.out = tensor_desc(o);
    ek_tensor ta = g.scalar == ew::kScalarA ? nullptr : a;
    ek_tensor tb = g.scalar == ew::kScalarA ? a : (g.scalar == ew::kScalarB ? nullptr : b);
    g.a = g.b = TensorDesc{};
    if (ta) EK_FORWARD(broadcast_to(ta, o, &g.a));
    if (tb) EK_FORWARD(broadcast_to(tb, o, &g.b));
    EK_FORWARD(check_alias(g.out, g.a, "a"));
    EK_FORWARD(check_alias(g.out, g.b, g.scalar == ew::kScalarA ? "a" : "b"));
    return launch(ctx, s, g, true, o, ta, tb);
  });
}

}  // namespace
}  // namespace ek

using namespace ek;

extern "C" {

EK_API ek_status ek_unary(ek_stream stream, ek_unary_op op, ek_tensor x, ek_tensor *out) {
  EK_API_ENTRY;
  fusion::FusibleCall fusible;
  EK_CHECK_TENSOR(x);
  EK_CHECK_NULL(out);
  const int iop = static_cast<int>(op);
  const ops::UnaryTraits *t = ops::unary_traits(iop);
  EK_CHECK(t, EK_ERROR_INVALID_ARGUMENT, "unknown unary op %d", iop);
  EK_PROFILE_OP(unary_op_name(iop), x->storage->ctx, stream, EK_IN(x), EK_OUT(out));
  EK_FORWARD(ops::check_accepts(unary_op_name(iop), t->accepts, x->dtype, t->instead));
  if (dtype_is_complex(x->dtype)) return complex_unary(stream, iop, x, out);
  const ek_dtype result = ops::result_dtype(t->result, x->dtype);
  ew::Args g{};
  g.op = iop;
  g.compute = compute_for(t->result, x->dtype);
  if (x->dtype == EK_UINT64 && g.compute == ew::kCI64 && ew::order_dependent(false, iop)) g.op += ew::kUnsignedOp;
  ek_context ctx = x->storage->ctx;
  ek_stream s = nullptr;
  EK_FORWARD(resolve_stream(ctx, stream, &s));
  return fill_out_converting(ctx, s, x->ndim, x->shape, result, out, [&](ek_tensor o) {
    g.out = tensor_desc(o);
    g.a = tensor_desc(x);
    EK_FORWARD(check_alias(g.out, g.a, "x"));
    return launch(ctx, s, g, false, o, x, nullptr);
  });
}

EK_API ek_status ek_binary(ek_stream stream, ek_binary_op op, ek_tensor a, ek_tensor b,
                           ek_tensor *out) {
  EK_API_ENTRY;
  fusion::FusibleCall fusible;
  EK_CHECK_TENSOR(a);
  EK_CHECK_TENSOR(b);
  EK_CHECK_NULL(out);
  const int iop = static_cast<int>(op);
  const ops::BinaryTraits *t = ops::binary_traits(iop);
  EK_CHECK(t, EK_ERROR_INVALID_ARGUMENT, "unknown binary op %d", iop);
  EK_CHECK(a->storage->ctx == b->storage->ctx, EK_ERROR_INVALID_ARGUMENT,
           "a and b belong to different contexts");
  EK_PROFILE_OP(binary_op_name(iop), a->storage->ctx, stream, EK_IN(a, b), EK_OUT(out));
  int ndim = 0;
  int64_t shape[EK_MAX_DIMS];
  EK_FORWARD(broadcast_shapes(a, b, &ndim, shape));
  ew::Args g{};
  g.op = iop;
  ek_dtype result = EK_FLOAT32;
  const ek_dtype common = promote(a->dtype, b->dtype);
  EK_FORWARD(binary_types(*t, common, &result, &g.compute));
  if (dtype_is_complex(common)) return complex_binary(stream, iop, a, b, nullptr, false, common, out);
  g.op = plan_op(iop, result, common, g.compute);
  // Tensor operands convert to the common type before the op: an integer
  // meeting a half type rounds to it (ek_binary_scalar's value does not).
  g.round = common == EK_FLOAT16 ? ew::kRoundF16 : (common == EK_BFLOAT16 ? ew::kRoundBF16 : ew::kRoundNone);
  return run_binary(stream, a, b, ndim, shape, result, g, out);
}

EK_API ek_status ek_binary_scalar(ek_stream stream, ek_binary_op op, ek_tensor a,
                                  ek_scalar scalar, int scalar_first, ek_tensor *out) {
  EK_API_ENTRY;
  fusion::FusibleCall fusible;
  EK_CHECK_TENSOR(a);
  EK_CHECK_NULL(out);
  const int iop = static_cast<int>(op);
  const ops::BinaryTraits *t = ops::binary_traits(iop);
  EK_CHECK(t, EK_ERROR_INVALID_ARGUMENT, "unknown binary op %d", iop);
  EK_PROFILE_OP(binary_op_name(iop), a->storage->ctx, stream, EK_IN(a), EK_OUT(out));
  EK_FORWARD(check_scalar_or_complex(scalar, "scalar"));
  ew::Args g{};
  g.op = iop;
  g.scalar = scalar_first ? ew::kScalarA : ew::kScalarB;
  ek_dtype result = EK_FLOAT32;
  const ek_dtype common = promote_scalar(a->dtype, scalar);
  EK_FORWARD(binary_types(*t, common, &result, &g.compute));
  if (dtype_is_complex(common)) return complex_binary(stream, iop, a, nullptr, &scalar, scalar_first != 0, common, out);
  g.op = plan_op(iop, result, common, g.compute);
  // Integer compute takes the value exactly; float compute converts it once.
  g.sf = scalar_to_double(scalar);
  // uint64 compute takes a uint64 value as its bits.
  if (g.compute == ew::kCI64 && common == EK_UINT64 && scalar.kind == EK_SCALAR_UINT64)
    g.si = static_cast<int64_t>(scalar.u);
  else if (g.compute == ew::kCI64)
    EK_CHECK(scalar_to_int64(scalar, &g.si), EK_ERROR_INVALID_ARGUMENT,
             "scalar %s does not fit int64, the compute type of %s with a %s tensor",
             format_scalar(scalar).c_str(), binary_op_name(iop), ek_dtype_name(a->dtype));
  return run_binary(stream, a, nullptr, a->ndim, a->shape, result, g, out);
}

}  // extern "C"
