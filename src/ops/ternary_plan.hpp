// Selection and fused updates (ek_where, ek_clamp, ek_lerp, ek_axpby): the
// per-element math shared by the CPU reference (src/cpu/ternary.cpp) and the
// CUDA kernels (kernels/ternary.cu), plus the CUDA launcher. Plain-C++
// includable: no CUDA headers.
//
// Same compute-type dispatch as the elementwise ops (elementwise.cuh): the
// host picks float, double or int64 per launch, operands load into it through
// a run-time dtype switch and the op is a run-time switch uniform across a
// launch. The float math uses explicit fma, so both backends round alike.
#pragma once
#include "ops/elementwise_plan.hpp"

namespace ek {
namespace tern {

enum Op : int { kWhere = 0, kClamp = 1, kLerp = 2, kAxpby = 3 };

// One launch over out's shape; operands are already broadcast (stride 0).
//  where: cond ? x : y          (cond: any dtype, nonzero is true)
//  clamp: min(max(x, c0), c1)   (c0/c1: bounds already cast to x's dtype)
//  lerp:  x + c0 * (y - x)      (c0: the weight)
//  axpby: c0 * x + c1 * y
// Coefficients travel as double (float compute) and int64 (integer compute);
// an unused operand has data == nullptr.
struct Args {
  int op;
  int compute;  // ew::Compute
  double cf[2];
  int64_t ci[2];
  TensorDesc out, cond, x, y;
};

EK_HD float fma_(float a, float b, float c) { return ::fmaf(a, b, c); }
EK_HD double fma_(double a, double b, double c) { return ::fma(a, b, c); }

template <typename T>
EK_HD T coeff(const Args &g, int k) {
  if constexpr (T(0.5) == T(0)) return g.ci[k];
  else return T(g.cf[k]);
}

// cond's truth without converting it: a float 0.5 is true, NaN is true, -0 false.
EK_HD bool is_true(const char *p, int dtype) {
  using detail::ld;
  switch (dtype) {
    case kI16: case kU16: return ld<int16_t>(p) != 0;
    case kI32: case kU32: return ld<int32_t>(p) != 0;
    case kI64: case kU64: return ld<int64_t>(p) != 0;
    case kF16: case kBF16: return (ld<uint16_t>(p) & 0x7fffu) != 0;
    case kF32: return ld<float>(p) != 0.f;
    case kF64: return ld<double>(p) != 0.0;
    default: return ld<uint8_t>(p) != 0;  // bool, uint8, int8
  }
}

// PyTorch's lerp: the weight-below-half form near start, the other near end,
// so weight 1 gives end exactly.
template <typename T>
EK_HD T lerp_(T start, T end, T w) {
  const T d = end - start;
  const T aw = w < T(0) ? -w : w;
  return aw < T(0.5) ? fma_(w, d, start) : fma_(-d, T(1) - w, end);
}

// The op on one element; x and y are already in the compute type T.
template <typename T>
EK_HD T apply(int op, bool cond, T x, T y, T c0, T c1) {
  switch (op) {
    case kWhere: return cond ? x : y;
    case kClamp:  // NaN-propagating max then min; lo > hi gives hi
      return ew::binary_op<T>(EK_BINARY_MINIMUM, ew::binary_op<T>(EK_BINARY_MAXIMUM, x, c0), c1);
    case kLerp:
      if constexpr (T(0.5) == T(0)) return x;  // the host allows float compute only
      else return lerp_(x, y, c0);
    default:  // kAxpby; integers wrap through uint64
      if constexpr (T(0.5) == T(0)) return int64_t(uint64_t(c0) * uint64_t(x) + uint64_t(c1) * uint64_t(y));
      else return fma_(c0, x, c1 * y);
  }
}

}  // namespace tern
}  // namespace ek
