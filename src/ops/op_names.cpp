// Op names for profiler records, and the dtype check of the op tables, both
// from src/ops/op_traits.hpp (itself built from the lists in ek.h).
#include "core/internal.hpp"
#include "ops/op_traits.hpp"
#include "core/profiler.hpp"

namespace ek {

const char *unary_op_name(int op) { return ops::unary_name(op); }
const char *binary_op_name(int op) { return ops::binary_name(op); }
const char *reduce_op_name(int op) { return ops::reduce_name(op); }
const char *random_op_name(int op) { return ops::random_name(op); }

namespace ops {

ek_status check_accepts(const char *op, Accepts a, ek_dtype dt, const char *instead) {
  if (accepts(a, dt)) return EK_SUCCESS;
  const char *name = ek_dtype_name(dt);
  if (dtype_is_complex(dt))
    return fail(EK_ERROR_DTYPE, "%s does not support complex dtypes, got %s%s", op, name,
                (a & kAcceptFloat) ? " (take ek_view_real, ek_view_imag or abs first)" : "");
  switch (a) {
    case kFloatOnly:
    case kFloatWithComplex:
      return fail(EK_ERROR_DTYPE, "%s needs a floating-point input, got %s (cast first, as in PyTorch)",
                  op, name);
    case kNoFloat:
      return fail(EK_ERROR_DTYPE, "%s is bitwise: it needs integer or bool operands, not %s", op, name);
    case kNoBool:
    case kNoBoolWithComplex:
      if (instead) return fail(EK_ERROR_DTYPE, "%s of bool is not defined (use %s)", op, instead);
      return fail(EK_ERROR_DTYPE, "%s needs a non-bool input, got bool", op);
    default:
      return fail(EK_ERROR_DTYPE, "%s does not accept %s", op, name);
  }
}

}  // namespace ops
}  // namespace ek
