// Elementwise ops (ek_unary, ek_binary, ek_binary_scalar): the per-element
// math shared by the CPU reference (src/cpu/elementwise.cpp) and the CUDA
// kernels (kernels/elementwise.cu), plus the CUDA launchers. Plain-C++
// includable: no CUDA headers.
//
// Compute-type dispatch: the host picks one compute type per launch (float,
// double or int64; see Compute) and every operand is converted to it through
// a run-time dtype switch, the op is a run-time switch too (uniform across a
// launch), and the result is stored through a dtype switch. So the code is
// instantiated per compute type, never per (dtype, dtype, op).
#pragma once
#include <math.h>

#include <cstdint>

#include "ek.h"
#include "util/half.hpp"
#include "ops/tensor_desc.hpp"

namespace ek {
namespace ew {

enum Compute : int { kCF32 = 0, kCF64 = 1, kCI64 = 2 };

// Returns f(T()) for the C++ type T of a compute type (float, double,
// int64_t): each backend instantiates its loops per compute type through
// this; an unknown compute type returns `unknown`.
template <typename F>
auto with_compute(int compute, F f, decltype(f(float())) unknown) -> decltype(f(float())) {
  switch (compute) {
    case kCF32: return f(float());
    case kCF64: return f(double());
    case kCI64: return f(int64_t());
    default: return unknown;
  }
}
// Which operand of a binary op is the host scalar instead of a tensor.
enum ScalarPos : int { kNoScalar = 0, kScalarA = 1, kScalarB = 2 };
// The half type a float32 compute stands for: integer (and bool) tensor
// operands are rounded to it first, as if promoted to it (PyTorch: int16 30001
// == float16 30000).
enum Round : int { kRoundNone = 0, kRoundF16 = 1, kRoundBF16 = 2 };

// One launch. For unary ops b is unused. A scalar operand carries its value in
// sf (float compute) or si (integer compute); its TensorDesc is ignored.
struct Args {
  int op;
  int compute;
  int scalar;
  int round;  // Round
  double sf;
  int64_t si;
  TensorDesc out, a, b;
};

// C math by name for float and double: ::expf on the host is glibc's, on the
// device CUDA's; both are accurate to a few ulp, so backends agree closely.
#define EK_EW_MATH1(fn)                                  \
  EK_HD float fn##_(float x) { return ::fn##f(x); }       \
  EK_HD double fn##_(double x) { return ::fn(x); }
#define EK_EW_MATH2(fn)                                          \
  EK_HD float fn##_(float x, float y) { return ::fn##f(x, y); }   \
  EK_HD double fn##_(double x, double y) { return ::fn(x, y); }
EK_EW_MATH1(exp) EK_EW_MATH1(exp2) EK_EW_MATH1(expm1) EK_EW_MATH1(log) EK_EW_MATH1(log2)
EK_EW_MATH1(log1p) EK_EW_MATH1(sqrt) EK_EW_MATH1(sin) EK_EW_MATH1(cos) EK_EW_MATH1(tan)
EK_EW_MATH1(tanh) EK_EW_MATH1(erf) EK_EW_MATH1(erfc) EK_EW_MATH1(floor) EK_EW_MATH1(ceil)
EK_EW_MATH1(rint) EK_EW_MATH1(trunc) EK_EW_MATH1(fabs) EK_EW_MATH1(asin) EK_EW_MATH1(acos)
EK_EW_MATH1(atan) EK_EW_MATH1(sinh) EK_EW_MATH1(cosh) EK_EW_MATH1(asinh) EK_EW_MATH1(acosh)
EK_EW_MATH1(atanh) EK_EW_MATH1(log10)
EK_EW_MATH2(fmod) EK_EW_MATH2(pow) EK_EW_MATH2(atan2) EK_EW_MATH2(copysign) EK_EW_MATH2(hypot)
EK_EW_MATH2(nextafter)
#undef EK_EW_MATH1
#undef EK_EW_MATH2

template <typename T>
EK_HD bool is_nan(T x) { return x != x; }
template <typename T>
EK_HD bool is_inf(T x) { return !is_nan(x) && is_nan(x - x); }

// Internal op values past the public lists, chosen by the host: NEXTAFTER of
// a float16 or bfloat16 result, which computes in float32 but must step by
// one ulp of the 16-bit type (a float32 ulp would round away).
enum InternalOp : int { kNextafterF16 = 1000, kNextafterBF16 = 1001 };
// kUnsignedOp + op: op on uint64 operands in int64 compute (their bits), for
// the ops whose result depends on the order or the sign (the others wrap
// identically); the host picks it (unsigned_op).
constexpr int kUnsignedOp = 2000;

// Whether op of uint64 operands needs its kUnsignedOp form.
inline bool order_dependent(bool binary, int op) {
  if (!binary) return op == EK_UNARY_ABS || op == EK_UNARY_SIGN || op == EK_UNARY_RELU || op == EK_UNARY_SIGNBIT;
  switch (op) {
    case EK_BINARY_FLOOR_DIV: case EK_BINARY_REMAINDER: case EK_BINARY_POW: case EK_BINARY_MAXIMUM:
    case EK_BINARY_MINIMUM: case EK_BINARY_LT: case EK_BINARY_LE: case EK_BINARY_GT: case EK_BINARY_GE:
    case EK_BINARY_SHIFT_LEFT: case EK_BINARY_SHIFT_RIGHT: return true;
    default: return false;
  }
}

// ------------------------------------------------------------ load / store --

template <typename T>
EK_HD T load_as(const char *p, int dtype) {
  using detail::ld;
  switch (dtype) {
    case kBool: return T(ld<uint8_t>(p) != 0);
    case kU8: return T(ld<uint8_t>(p));
    case kI8: return T(ld<int8_t>(p));
    case kI16: return T(ld<int16_t>(p));
    case kI32: return T(ld<int32_t>(p));
    case kI64: return T(ld<int64_t>(p));
    case kU16: return T(ld<uint16_t>(p));
    case kU32: return T(ld<uint32_t>(p));
    case kU64: return T(ld<uint64_t>(p));  // int64 compute: the same bits (see kUnsignedOp)
    case kF16: return T(half::f16_to_f32(ld<uint16_t>(p)));
    case kBF16: return T(half::bf16_to_f32(ld<uint16_t>(p)));
    case kF32: return T(ld<float>(p));
    default: return T(ld<double>(p));
  }
}

// A tensor operand in compute type T, an integer one rounded to the half type
// of a float16/bfloat16 computation first (float operands are of that type
// already: promotion gives f32 compute otherwise).
template <typename T>
EK_HD T load_operand(const char *p, int dtype, int round) {
  T v = load_as<T>(p, dtype);
  if constexpr (T(0.5) != T(0)) {
    if (round != kRoundNone && !detail::is_float_dtype(dtype))
      v = T(round == kRoundF16 ? half::f16_to_f32(half::f32_to_f16(float(v)))
                               : half::bf16_to_f32(half::f32_to_bf16(float(v))));
  }
  return v;
}

// Integers wrap to the target width (through unsigned: no UB); floats to
// integers (never chosen by the op rules, kept total) truncate and saturate
// like casts.
template <typename T>
EK_HD void store_as(char *p, int dtype, T v) {
  using detail::st;
  int64_t i = 0;
  if constexpr (T(0.5) == T(0)) i = int64_t(v);
  else i = detail::float_to_int(double(v), dtype);
  switch (dtype) {
    case kBool: st<uint8_t>(p, v != T(0)); break;
    case kU8: st<uint8_t>(p, uint8_t(uint64_t(i))); break;
    case kI8: st<int8_t>(p, int8_t(uint8_t(uint64_t(i)))); break;
    case kI16: st<int16_t>(p, int16_t(uint16_t(uint64_t(i)))); break;
    case kI32: st<int32_t>(p, int32_t(uint32_t(uint64_t(i)))); break;
    case kI64: st<int64_t>(p, i); break;
    case kU16: st<uint16_t>(p, uint16_t(uint64_t(i))); break;
    case kU32: st<uint32_t>(p, uint32_t(uint64_t(i))); break;
    case kU64: st<uint64_t>(p, uint64_t(i)); break;
    case kF16: st<uint16_t>(p, half::f32_to_f16(float(v))); break;
    case kBF16: st<uint16_t>(p, half::f32_to_bf16(float(v))); break;
    case kF32: st<float>(p, float(v)); break;
    default: st<double>(p, double(v)); break;
  }
}

// ---------------------------------------------------------------- unary ops --

template <typename T>
EK_HD T sigmoid_(T x) { return T(1) / (T(1) + exp_(-x)); }

// Floating compute (float or double). Ops with a bool result return 0/1.
template <typename T>
EK_HD T unary_float(int op, T x) {
  switch (op) {
    case EK_UNARY_NEG: return -x;
    case EK_UNARY_ABS: return fabs_(x);
    case EK_UNARY_SIGN: return is_nan(x) ? x : T((T(0) < x) - (x < T(0)));  // NaN stays NaN
    case EK_UNARY_EXP: return exp_(x);
    case EK_UNARY_EXP2: return exp2_(x);
    case EK_UNARY_EXPM1: return expm1_(x);
    case EK_UNARY_LOG: return log_(x);
    case EK_UNARY_LOG2: return log2_(x);
    case EK_UNARY_LOG1P: return log1p_(x);
    case EK_UNARY_SQRT: return sqrt_(x);
    case EK_UNARY_RSQRT: return T(1) / sqrt_(x);
    case EK_UNARY_SQUARE: return x * x;
    case EK_UNARY_RECIPROCAL: return T(1) / x;
    case EK_UNARY_SIN: return sin_(x);
    case EK_UNARY_COS: return cos_(x);
    case EK_UNARY_TAN: return tan_(x);
    case EK_UNARY_TANH: return tanh_(x);
    case EK_UNARY_SIGMOID: return sigmoid_(x);
    case EK_UNARY_RELU: return x < T(0) ? T(0) : x;  // NaN stays NaN
    // erfc form: no cancellation in 1 + erf for negative x.
    case EK_UNARY_GELU: return T(0.5) * x * erfc_(-x * T(0.70710678118654752440));
    case EK_UNARY_GELU_TANH: {
      T inner = T(0.79788456080286535588) * (x + T(0.044715) * x * x * x);
      return T(0.5) * x * (T(1) + tanh_(inner));
    }
    case EK_UNARY_SILU: return x * sigmoid_(x);
    case EK_UNARY_ERF: return erf_(x);
    case EK_UNARY_FLOOR: return floor_(x);
    case EK_UNARY_CEIL: return ceil_(x);
    case EK_UNARY_ROUND: return rint_(x);  // half to even, as PyTorch
    case EK_UNARY_TRUNC: return trunc_(x);
    case EK_UNARY_LOGICAL_NOT: return T(x == T(0));
    case EK_UNARY_ISNAN: return T(is_nan(x));
    case EK_UNARY_ISINF: return T(is_inf(x));
    case EK_UNARY_ISFINITE: return T(!is_nan(x - x));
    case EK_UNARY_ASIN: return asin_(x);
    case EK_UNARY_ACOS: return acos_(x);
    case EK_UNARY_ATAN: return atan_(x);
    case EK_UNARY_SINH: return sinh_(x);
    case EK_UNARY_COSH: return cosh_(x);
    case EK_UNARY_ASINH: return asinh_(x);
    case EK_UNARY_ACOSH: return acosh_(x);
    case EK_UNARY_ATANH: return atanh_(x);
    case EK_UNARY_LOG10: return log10_(x);
    case EK_UNARY_SIGNBIT: return T(copysign_(T(1), x) < T(0));  // -0.0 and -NaN too
    default: return x;
  }
}

// Integer compute (int64, wrapping through uint64). The host routes float-only
// ops to float compute; rounding ops are the identity on integers.
EK_HD int64_t unary_int(int op, int64_t x) {
  const uint64_t u = uint64_t(x);
  switch (op) {
    case EK_UNARY_NEG: return int64_t(uint64_t(0) - u);
    case EK_UNARY_ABS: return x < 0 ? int64_t(uint64_t(0) - u) : x;
    case EK_UNARY_SIGN: return (0 < x) - (x < 0);
    case EK_UNARY_SQUARE: return int64_t(u * u);
    case EK_UNARY_RELU: return x < 0 ? 0 : x;
    case EK_UNARY_LOGICAL_NOT: return x == 0;
    case EK_UNARY_ISNAN: case EK_UNARY_ISINF: return 0;
    case EK_UNARY_ISFINITE: return 1;
    case EK_UNARY_SIGNBIT: return x < 0;
    case kUnsignedOp + EK_UNARY_SIGN: return x != 0;
    case kUnsignedOp + EK_UNARY_SIGNBIT: return 0;
    default: return x;  // kUnsignedOp + ABS and RELU: the identity
  }
}

template <typename T>
EK_HD T unary_op(int op, T x) {
  if constexpr (T(0.5) == T(0)) return unary_int(op, x);
  else return unary_float(op, x);
}

// --------------------------------------------------------------- binary ops --

// Python's a // b for floats (PyTorch's div_floor_floating), except that an
// infinite operand gives a / b, as the array API standard says (fmod would
// make inf // 1 NaN and the -1 step would make 1 // -inf -1).
template <typename T>
EK_HD T floor_div_float(T a, T b) {
  if (b == T(0) || is_inf(a) || is_inf(b)) return a / b;
  T mod = fmod_(a, b);
  T div = (a - mod) / b;
  if (mod != T(0) && ((b < T(0)) != (mod < T(0)))) div -= T(1);
  if (div == T(0)) return copysign_(T(0), a / b);
  T fl = floor_(div);
  return div - fl > T(0.5) ? fl + T(1) : fl;
}

// Python's a % b: the result has the divisor's sign, a zero one too
// (-0.0 % 1 is 0.0, 0.0 % -1 is -0.0).
template <typename T>
EK_HD T remainder_float(T a, T b) {
  T m = fmod_(a, b);
  if (m == T(0)) return copysign_(T(0), b);
  return (b < T(0)) != (m < T(0)) ? m + b : m;
}

// log(e^a + e^b) without overflow; PyTorch's inf/NaN results.
template <typename T>
EK_HD T logaddexp_(T a, T b) {
  if (is_nan(a) || is_nan(b)) return a + b;
  const T hi = a > b ? a : b, lo = a > b ? b : a;
  if (hi == lo && is_inf(hi)) return a;  // inf - inf would be NaN
  return hi + log1p_(exp_(lo - hi));
}

// nextafter in a 16-bit float type (bf16: bfloat16, else float16) whose
// values a and b hold (b may be a float32 scalar): a's bits stepped toward b.
template <typename T>
EK_HD T nextafter_16(T a, T b, bool bf16) {
  if (is_nan(a) || is_nan(b)) return a + b;
  if (a == b) return b;
  uint16_t h = 0;
  if (a == T(0)) {
    h = uint16_t(b < T(0) ? 0x8001 : 0x0001);  // the smallest subnormal toward b
  } else {
    h = bf16 ? half::f32_to_bf16(float(a)) : half::f32_to_f16(float(a));
    h = uint16_t((a < b) == (a > T(0)) ? h + 1 : h - 1);  // away from or toward zero
  }
  return T(bf16 ? half::bf16_to_f32(h) : half::f16_to_f32(h));
}

template <typename T>
EK_HD T binary_float(int op, T a, T b) {
  switch (op) {
    case EK_BINARY_ADD: return a + b;
    case EK_BINARY_SUB: return a - b;
    case EK_BINARY_MUL: return a * b;
    case EK_BINARY_DIV: return a / b;
    case EK_BINARY_FLOOR_DIV: return floor_div_float(a, b);
    case EK_BINARY_REMAINDER: return remainder_float(a, b);
    case EK_BINARY_POW: return pow_(a, b);
    case EK_BINARY_ATAN2: return atan2_(a, b);
    case EK_BINARY_MAXIMUM: return is_nan(a) || is_nan(b) ? a + b : (a > b ? a : b);
    case EK_BINARY_MINIMUM: return is_nan(a) || is_nan(b) ? a + b : (a < b ? a : b);
    case EK_BINARY_EQ: return T(a == b);
    case EK_BINARY_NE: return T(a != b);
    case EK_BINARY_LT: return T(a < b);
    case EK_BINARY_LE: return T(a <= b);
    case EK_BINARY_GT: return T(a > b);
    case EK_BINARY_GE: return T(a >= b);
    case EK_BINARY_LOGICAL_AND: return T((a != T(0)) && (b != T(0)));
    case EK_BINARY_LOGICAL_OR: return T((a != T(0)) || (b != T(0)));
    case EK_BINARY_LOGICAL_XOR: return T((a != T(0)) != (b != T(0)));
    case EK_BINARY_LOGADDEXP: return logaddexp_(a, b);
    case EK_BINARY_HYPOT: return hypot_(a, b);
    case EK_BINARY_COPYSIGN: return copysign_(a, b);
    case EK_BINARY_NEXTAFTER: return nextafter_(a, b);
    case kNextafterF16: return nextafter_16(a, b, false);
    case kNextafterBF16: return nextafter_16(a, b, true);
    default: return a;  // bitwise ops are rejected for floats by the host
  }
}

// Division by zero gives 0 and INT64_MIN / -1 wraps: unspecified results, but
// never a hardware trap.
EK_HD int64_t floor_div_int(int64_t a, int64_t b) {
  if (b == 0) return 0;
  if (b == -1) return int64_t(uint64_t(0) - uint64_t(a));
  int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

EK_HD int64_t remainder_int(int64_t a, int64_t b) {
  if (b == 0 || b == -1) return 0;
  int64_t r = a % b;
  return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r;
}

// Integer power by squaring (wrapping); negative exponents truncate toward 0.
EK_HD int64_t pow_int(int64_t a, int64_t e) {
  if (e < 0) return a == 1 ? 1 : (a == -1 ? ((e & 1) ? -1 : 1) : 0);
  uint64_t r = 1, base = uint64_t(a);
  for (; e > 0; e >>= 1, base *= base)
    if (e & 1) r *= base;
  return int64_t(r);
}

// Shift counts outside [0, 64) give what an infinitely wide shift would.
EK_HD int64_t shift_int(bool left, int64_t a, int64_t b) {
  if (left) return (b < 0 || b >= 64) ? 0 : int64_t(uint64_t(a) << b);
  if (b < 0 || b >= 64) return a < 0 ? -1 : 0;
  return a >> b;  // arithmetic shift (implementation-defined pre-C++20; all our compilers)
}

// binary_int's kUnsignedOp forms: a and b are uint64 bits.
EK_HD int64_t binary_uint(int op, uint64_t a, uint64_t b) {
  switch (op) {
    case EK_BINARY_FLOOR_DIV: return b == 0 ? 0 : int64_t(a / b);
    case EK_BINARY_REMAINDER: return b == 0 ? 0 : int64_t(a % b);
    case EK_BINARY_POW: {
      uint64_t r = 1;
      for (; b > 0; b >>= 1, a *= a)
        if (b & 1) r *= a;
      return int64_t(r);
    }
    case EK_BINARY_MAXIMUM: return int64_t(a > b ? a : b);
    case EK_BINARY_MINIMUM: return int64_t(a < b ? a : b);
    case EK_BINARY_LT: return a < b;
    case EK_BINARY_LE: return a <= b;
    case EK_BINARY_GT: return a > b;
    case EK_BINARY_GE: return a >= b;
    case EK_BINARY_SHIFT_LEFT: return b >= 64 ? 0 : int64_t(a << b);
    case EK_BINARY_SHIFT_RIGHT: return b >= 64 ? 0 : int64_t(a >> b);
    default: return int64_t(a);
  }
}

EK_HD int64_t binary_int(int op, int64_t a, int64_t b) {
  const uint64_t ua = uint64_t(a), ub = uint64_t(b);
  if (op >= kUnsignedOp) return binary_uint(op - kUnsignedOp, ua, ub);
  switch (op) {
    case EK_BINARY_ADD: return int64_t(ua + ub);
    case EK_BINARY_SUB: return int64_t(ua - ub);
    case EK_BINARY_MUL: return int64_t(ua * ub);
    case EK_BINARY_FLOOR_DIV: return floor_div_int(a, b);
    case EK_BINARY_REMAINDER: return remainder_int(a, b);
    case EK_BINARY_POW: return pow_int(a, b);
    case EK_BINARY_MAXIMUM: return a > b ? a : b;
    case EK_BINARY_MINIMUM: return a < b ? a : b;
    case EK_BINARY_EQ: return a == b;
    case EK_BINARY_NE: return a != b;
    case EK_BINARY_LT: return a < b;
    case EK_BINARY_LE: return a <= b;
    case EK_BINARY_GT: return a > b;
    case EK_BINARY_GE: return a >= b;
    case EK_BINARY_LOGICAL_AND: return (a != 0) && (b != 0);
    case EK_BINARY_LOGICAL_OR: return (a != 0) || (b != 0);
    case EK_BINARY_LOGICAL_XOR: return (a != 0) != (b != 0);
    case EK_BINARY_BITWISE_AND: return a & b;
    case EK_BINARY_BITWISE_OR: return a | b;
    case EK_BINARY_BITWISE_XOR: return a ^ b;
    case EK_BINARY_SHIFT_LEFT: return shift_int(true, a, b);
    case EK_BINARY_SHIFT_RIGHT: return shift_int(false, a, b);
    default: return a;  // div and atan2 always take float compute
  }
}

template <typename T>
EK_HD T binary_op(int op, T a, T b) {
  if constexpr (T(0.5) == T(0)) return binary_int(op, a, b);
  else return binary_float(op, a, b);
}

// The scalar operand in compute type T.
template <typename T>
EK_HD T scalar_as(const Args &g) {
  if constexpr (T(0.5) == T(0)) return g.si;
  else return T(g.sf);
}

}  // namespace ew
}  // namespace ek
