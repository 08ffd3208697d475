// Each op's traits, one row per entry of the op lists in ek.h (EK_*_LIST):
// what dtypes it accepts, what dtype it returns, and for reductions the
// internal kernel kind and the rule over zero elements. Host code asks these
// tables; no trait is ever inferred from where a value falls in its enum.
//
// A row names its op, and the static_asserts at the end fail the build when a
// list entry has no row, a row is out of order, or a value is not its index:
// an op added to a list without its row here does not compile.
//
// Adding an op: its entry in the ek.h list (the next value), its row here, its
// math in both backends (src/cpu/ and kernels/), and its documented traits in
// tests/test_op_tables.cpp.
//
// The rows live here rather than as extra columns of the public lists: ek.h
// keeps only what is ABI (name, value, short name), so the lists' shape can
// be frozen while these columns (which use internal kinds) may change.
#pragma once
#include <cstddef>
#include <cstdint>
#include <iterator>

#include "ops/reduce_plan.hpp"
#include "ek.h"
#include "ops/tensor_desc.hpp"

namespace ek {
namespace ops {

// The result dtype, from the (promoted) input dtype.
enum class Result : uint8_t {
  kSame,     // the input's
  kBool,     // bool
  kFloat,    // floats keep theirs; bool and integers give float32 (and compute in it)
  kWideInt,  // floats keep theirs; bool and integers give int64
  kInt64,    // int64 (indices)
};

// The dtype categories an op accepts; any other is EK_ERROR_DTYPE.
enum Accepts : uint8_t {
  kAcceptBool = 1,
  kAcceptInt = 2,
  kAcceptFloat = 4,
  kAcceptComplex = 8,  // only the ops that say so: the others refuse complex here, centrally
  kAnyDtype = kAcceptBool | kAcceptInt | kAcceptFloat,
  kAnyWithComplex = kAnyDtype | kAcceptComplex,
  kNoBoolWithComplex = kAcceptInt | kAcceptFloat | kAcceptComplex,
  kFloatWithComplex = kAcceptFloat | kAcceptComplex,
  kNoBool = kAcceptInt | kAcceptFloat,
  kNoFloat = kAcceptBool | kAcceptInt,
  kFloatOnly = kAcceptFloat,
};

// What a reduction gives over zero elements.
enum class Empty : uint8_t {
  kIdentity,  // the kernel's identity (sum 0, prod 1, mean NaN, norms 0)
  kFails,     // no identity: EK_ERROR_SHAPE
  kFalse,     // bool false, filled by the host
  kTrue,      // bool true, filled by the host
};

// A reduction's step around its kernel kind.
enum class Step : uint8_t {
  kPlain,
  kNonzero,  // reduce (x != 0)
  kMean,     // divide by the number of reduced elements
  kSqrt,     // square root of the result
};

struct UnaryTraits {
  ek_unary_op op;
  Result result;
  Accepts accepts;
  const char *instead;  // for a refused bool input: the op to use, or nullptr
};

struct BinaryTraits {
  ek_binary_op op;
  Result result;
  Accepts accepts;  // checked on the promoted dtype
  const char *instead;
};

struct ReduceTraits {
  ek_reduce_op op;
  ReduceKind kind;
  Result result;
  Accepts accepts;
  Empty empty;
  Step step;
};

struct RandomTraits {
  ek_random_dist op;
  Accepts accepts;
};

#define EK_TRAIT_ROW_(op, ...) {op, __VA_ARGS__},
#define EK_LIST_NAME_(name, value, text) text,
#define EK_LIST_VALUE_(name, value, text) value,

// Result, accepted dtypes, op to use for a bool input.
#define EK_UNARY_TRAITS(T)                                   \
  T(EK_UNARY_NEG, Result::kSame, kNoBoolWithComplex, "logical_not")     \
  T(EK_UNARY_ABS, Result::kSame, kAnyWithComplex, nullptr)         \
  T(EK_UNARY_SIGN, Result::kSame, kAnyWithComplex, nullptr)        \
  T(EK_UNARY_EXP, Result::kFloat, kAnyWithComplex, nullptr)        \
  T(EK_UNARY_EXP2, Result::kFloat, kAnyDtype, nullptr)       \
  T(EK_UNARY_EXPM1, Result::kFloat, kAnyWithComplex, nullptr)      \
  T(EK_UNARY_LOG, Result::kFloat, kAnyWithComplex, nullptr)        \
  T(EK_UNARY_LOG2, Result::kFloat, kAnyWithComplex, nullptr)       \
  T(EK_UNARY_LOG1P, Result::kFloat, kAnyWithComplex, nullptr)      \
  T(EK_UNARY_SQRT, Result::kFloat, kAnyWithComplex, nullptr)       \
  T(EK_UNARY_RSQRT, Result::kFloat, kAnyDtype, nullptr)      \
  T(EK_UNARY_SQUARE, Result::kSame, kAnyWithComplex, nullptr)      \
  T(EK_UNARY_RECIPROCAL, Result::kFloat, kAnyWithComplex, nullptr) \
  T(EK_UNARY_SIN, Result::kFloat, kAnyWithComplex, nullptr)        \
  T(EK_UNARY_COS, Result::kFloat, kAnyWithComplex, nullptr)        \
  T(EK_UNARY_TAN, Result::kFloat, kAnyWithComplex, nullptr)        \
  T(EK_UNARY_TANH, Result::kFloat, kAnyWithComplex, nullptr)       \
  T(EK_UNARY_SIGMOID, Result::kFloat, kAnyDtype, nullptr)    \
  T(EK_UNARY_RELU, Result::kSame, kAnyDtype, nullptr)        \
  T(EK_UNARY_GELU, Result::kFloat, kAnyDtype, nullptr)       \
  T(EK_UNARY_GELU_TANH, Result::kFloat, kAnyDtype, nullptr)  \
  T(EK_UNARY_SILU, Result::kFloat, kAnyDtype, nullptr)       \
  T(EK_UNARY_ERF, Result::kFloat, kAnyDtype, nullptr)        \
  T(EK_UNARY_FLOOR, Result::kSame, kAnyDtype, nullptr)       \
  T(EK_UNARY_CEIL, Result::kSame, kAnyDtype, nullptr)        \
  T(EK_UNARY_ROUND, Result::kSame, kAnyWithComplex, nullptr)       \
  T(EK_UNARY_TRUNC, Result::kSame, kAnyDtype, nullptr)       \
  T(EK_UNARY_LOGICAL_NOT, Result::kBool, kAnyDtype, nullptr) \
  T(EK_UNARY_ISNAN, Result::kBool, kAnyWithComplex, nullptr)       \
  T(EK_UNARY_ISINF, Result::kBool, kAnyWithComplex, nullptr)       \
  T(EK_UNARY_ISFINITE, Result::kBool, kAnyWithComplex, nullptr)   \
  T(EK_UNARY_ASIN, Result::kFloat, kAnyWithComplex, nullptr)       \
  T(EK_UNARY_ACOS, Result::kFloat, kAnyWithComplex, nullptr)       \
  T(EK_UNARY_ATAN, Result::kFloat, kAnyWithComplex, nullptr)       \
  T(EK_UNARY_SINH, Result::kFloat, kAnyWithComplex, nullptr)       \
  T(EK_UNARY_COSH, Result::kFloat, kAnyWithComplex, nullptr)       \
  T(EK_UNARY_ASINH, Result::kFloat, kAnyWithComplex, nullptr)      \
  T(EK_UNARY_ACOSH, Result::kFloat, kAnyWithComplex, nullptr)      \
  T(EK_UNARY_ATANH, Result::kFloat, kAnyWithComplex, nullptr)      \
  T(EK_UNARY_LOG10, Result::kFloat, kAnyWithComplex, nullptr)      \
  T(EK_UNARY_SIGNBIT, Result::kBool, kAnyDtype, nullptr)

#define EK_BINARY_TRAITS(T)                                     \
  T(EK_BINARY_ADD, Result::kSame, kAnyWithComplex, nullptr)           \
  T(EK_BINARY_SUB, Result::kSame, kNoBoolWithComplex, "logical_xor")       \
  T(EK_BINARY_MUL, Result::kSame, kAnyWithComplex, nullptr)           \
  T(EK_BINARY_DIV, Result::kFloat, kAnyWithComplex, nullptr)          \
  T(EK_BINARY_FLOOR_DIV, Result::kSame, kAnyDtype, nullptr)     \
  T(EK_BINARY_REMAINDER, Result::kSame, kAnyDtype, nullptr)     \
  T(EK_BINARY_POW, Result::kSame, kAnyWithComplex, nullptr)           \
  T(EK_BINARY_ATAN2, Result::kFloat, kAnyDtype, nullptr)        \
  T(EK_BINARY_MAXIMUM, Result::kSame, kAnyDtype, nullptr)       \
  T(EK_BINARY_MINIMUM, Result::kSame, kAnyDtype, nullptr)       \
  T(EK_BINARY_EQ, Result::kBool, kAnyWithComplex, nullptr)            \
  T(EK_BINARY_NE, Result::kBool, kAnyWithComplex, nullptr)            \
  T(EK_BINARY_LT, Result::kBool, kAnyDtype, nullptr)            \
  T(EK_BINARY_LE, Result::kBool, kAnyDtype, nullptr)            \
  T(EK_BINARY_GT, Result::kBool, kAnyDtype, nullptr)            \
  T(EK_BINARY_GE, Result::kBool, kAnyDtype, nullptr)            \
  T(EK_BINARY_LOGICAL_AND, Result::kBool, kAnyDtype, nullptr)   \
  T(EK_BINARY_LOGICAL_OR, Result::kBool, kAnyDtype, nullptr)    \
  T(EK_BINARY_LOGICAL_XOR, Result::kBool, kAnyDtype, nullptr)   \
  T(EK_BINARY_BITWISE_AND, Result::kSame, kNoFloat, nullptr)    \
  T(EK_BINARY_BITWISE_OR, Result::kSame, kNoFloat, nullptr)     \
  T(EK_BINARY_BITWISE_XOR, Result::kSame, kNoFloat, nullptr)    \
  T(EK_BINARY_SHIFT_LEFT, Result::kSame, kNoFloat, nullptr)     \
  T(EK_BINARY_SHIFT_RIGHT, Result::kSame, kNoFloat, nullptr)    \
  T(EK_BINARY_LOGADDEXP, Result::kFloat, kAnyDtype, nullptr)    \
  T(EK_BINARY_HYPOT, Result::kFloat, kAnyDtype, nullptr)        \
  T(EK_BINARY_COPYSIGN, Result::kFloat, kAnyDtype, nullptr)     \
  T(EK_BINARY_NEXTAFTER, Result::kFloat, kAnyDtype, nullptr)

// Kernel kind, result, accepted dtypes, zero elements, step.
#define EK_REDUCE_TRAITS(T)                                                                      \
  T(EK_REDUCE_SUM, kRSum, Result::kWideInt, kAnyWithComplex, Empty::kIdentity, Step::kPlain)           \
  T(EK_REDUCE_MEAN, kRSum, Result::kSame, kFloatWithComplex, Empty::kIdentity, Step::kMean)             \
  T(EK_REDUCE_PROD, kRProd, Result::kWideInt, kAnyWithComplex, Empty::kIdentity, Step::kPlain)           \
  T(EK_REDUCE_MAX, kRMax, Result::kSame, kAnyDtype, Empty::kFails, Step::kPlain)                 \
  T(EK_REDUCE_MIN, kRMin, Result::kSame, kAnyDtype, Empty::kFails, Step::kPlain)                 \
  T(EK_REDUCE_ARGMAX, kRArgMax, Result::kInt64, kAnyDtype, Empty::kFails, Step::kPlain)          \
  T(EK_REDUCE_ARGMIN, kRArgMin, Result::kInt64, kAnyDtype, Empty::kFails, Step::kPlain)          \
  T(EK_REDUCE_ANY, kRMax, Result::kBool, kAnyWithComplex, Empty::kFalse, Step::kNonzero)               \
  T(EK_REDUCE_ALL, kRMin, Result::kBool, kAnyWithComplex, Empty::kTrue, Step::kNonzero)                \
  T(EK_REDUCE_NORM_L1, kRSumAbs, Result::kSame, kFloatOnly, Empty::kIdentity, Step::kPlain)      \
  T(EK_REDUCE_NORM_L2, kRSumSq, Result::kSame, kFloatOnly, Empty::kIdentity, Step::kSqrt)        \
  T(EK_REDUCE_NORM_INF, kRMaxAbs, Result::kSame, kFloatOnly, Empty::kFails, Step::kPlain)

#define EK_RANDOM_TRAITS(T)                \
  T(EK_RANDOM_UNIFORM, kFloatOnly)         \
  T(EK_RANDOM_NORMAL, kFloatOnly)          \
  T(EK_RANDOM_BERNOULLI, kAnyDtype)        \
  T(EK_RANDOM_RANDINT, kNoBool)

// Row i names the op of value i, and the list's i-th value is i.
template <typename Row, size_t N, size_t M>
constexpr bool rows_follow(const Row (&rows)[N], const int (&values)[M]) {
  if (N != M) return false;
  for (size_t i = 0; i < N; ++i)
    if (values[i] != static_cast<int>(i) || static_cast<int>(rows[i].op) != values[i]) return false;
  return true;
}

// One op family: its public list's names, its trait rows, and the lookups
// (nullptr for a value outside the list).
#define EK_OP_TABLE_(name, Traits, LIST, TRAITS)                                             \
  inline constexpr const char *k_##name##_names[] = {LIST(EK_LIST_NAME_)};                   \
  inline constexpr int k_##name##_values[] = {LIST(EK_LIST_VALUE_)};                         \
  inline constexpr Traits k_##name##_traits[] = {TRAITS(EK_TRAIT_ROW_)};                     \
  inline constexpr int k_##name##_count = static_cast<int>(std::size(k_##name##_names));     \
  static_assert(rows_follow(k_##name##_traits, k_##name##_values),                           \
                #TRAITS " needs one row per entry of " #LIST ", in order, values 0, 1, ..."); \
  inline const Traits *name##_traits(int op) {                                               \
    return op >= 0 && op < k_##name##_count ? &k_##name##_traits[op] : nullptr;              \
  }                                                                                          \
  inline const char *name##_name(int op) {                                                   \
    return op >= 0 && op < k_##name##_count ? k_##name##_names[op] : "unknown";              \
  }

EK_OP_TABLE_(unary, UnaryTraits, EK_UNARY_OP_LIST, EK_UNARY_TRAITS)
EK_OP_TABLE_(binary, BinaryTraits, EK_BINARY_OP_LIST, EK_BINARY_TRAITS)
EK_OP_TABLE_(reduce, ReduceTraits, EK_REDUCE_OP_LIST, EK_REDUCE_TRAITS)
EK_OP_TABLE_(random, RandomTraits, EK_RANDOM_DIST_LIST, EK_RANDOM_TRAITS)

#undef EK_OP_TABLE_
#undef EK_TRAIT_ROW_
#undef EK_LIST_NAME_
#undef EK_LIST_VALUE_

// The result dtype of an op of kind r on (promoted) input in.
inline ek_dtype result_dtype(Result r, ek_dtype in) {
  const bool is_float = dtype_is_float(in) || dtype_is_complex(in);  // complex keeps its own
  switch (r) {
    case Result::kSame: return in;
    case Result::kBool: return EK_BOOL;
    case Result::kFloat: return is_float ? in : EK_FLOAT32;
    case Result::kWideInt: return is_float || in == EK_UINT64 ? in : EK_INT64;
    case Result::kInt64: return EK_INT64;
  }
  return in;
}

inline bool accepts(Accepts a, ek_dtype dt) {
  const unsigned category = dt == EK_BOOL            ? kAcceptBool
                            : dtype_is_float(dt)      ? kAcceptFloat
                            : dtype_is_complex(dt)    ? kAcceptComplex
                                                      : kAcceptInt;
  return (a & category) != 0;
}

// EK_ERROR_DTYPE naming op and dt when a refuses dt; instead: the op to use
// for a refused bool input.
ek_status check_accepts(const char *op, Accepts a, ek_dtype dt, const char *instead = nullptr);

}  // namespace ops
}  // namespace ek
