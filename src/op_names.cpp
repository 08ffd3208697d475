// Lower-case names of the ops chosen by enum, as profiler records show them.
#include "profiler.hpp"

namespace ek {
namespace {

template <size_t N>
const char *lookup(const char *const (&names)[N], int op) {
  return op >= 0 && static_cast<size_t>(op) < N ? names[op] : "unknown";
}

// Each list follows its enum in ek.h, value by value.
const char *const kUnary[] = {
    "neg",   "abs",   "sign",  "exp",   "exp2",       "expm1",     "log",     "log2",
    "log1p", "sqrt",  "rsqrt", "square", "reciprocal", "sin",      "cos",     "tan",
    "tanh",  "sigmoid", "relu", "gelu", "gelu_tanh",  "silu",      "erf",     "floor",
    "ceil",  "round", "trunc", "logical_not", "isnan", "isinf",    "isfinite"};
const char *const kBinary[] = {
    "add",   "sub",   "mul",   "div",   "floor_div", "remainder", "pow",  "atan2",
    "maximum", "minimum", "eq", "ne",   "lt",        "le",        "gt",   "ge",
    "logical_and", "logical_or", "logical_xor", "bitwise_and", "bitwise_or", "bitwise_xor",
    "shift_left", "shift_right"};
const char *const kReduce[] = {"sum",    "mean", "prod",    "max",     "min",     "argmax",
                               "argmin", "any",  "all",     "norm_l1", "norm_l2", "norm_inf"};
const char *const kRandom[] = {"uniform", "normal", "bernoulli", "randint"};

static_assert(sizeof kUnary / sizeof *kUnary == EK_UNARY_ISFINITE + 1, "unary names");
static_assert(sizeof kBinary / sizeof *kBinary == EK_BINARY_SHIFT_RIGHT + 1, "binary names");
static_assert(sizeof kReduce / sizeof *kReduce == EK_REDUCE_NORM_INF + 1, "reduce names");
static_assert(sizeof kRandom / sizeof *kRandom == EK_RANDOM_RANDINT + 1, "random names");

}  // namespace

const char *unary_op_name(int op) { return lookup(kUnary, op); }
const char *binary_op_name(int op) { return lookup(kBinary, op); }
const char *reduce_op_name(int op) { return lookup(kReduce, op); }
const char *random_op_name(int op) { return lookup(kRandom, op); }

}  // namespace ek
