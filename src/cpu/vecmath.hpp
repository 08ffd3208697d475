// Elementary functions for the CPU's hot loops (simd_kernels.cpp), written
// once for a float and for a GCC vector of floats (each lane computes what
// the scalar code computes). No FMA, no reassociation: every ISA level gives
// the same bits.
#pragma once
#include <cstdint>
#include <cstring>

namespace ek {
namespace cpu {
namespace vecmath {

// The int32 type of float type F (float -> int32_t; a vector of floats -> a
// vector of as many int32), and the conversions between them.
template <typename F>
struct IntOf {
  typedef int32_t I __attribute__((vector_size(sizeof(F))));
};
template <>
struct IntOf<float> {
  using I = int32_t;
};

inline int32_t to_int(float f) { return static_cast<int32_t>(f); }
template <typename F>
inline typename IntOf<F>::I to_int(F f) {
  return __builtin_convertvector(f, typename IntOf<F>::I);
}
inline float from_bits(int32_t i) {
  float f;
  std::memcpy(&f, &i, 4);
  return f;
}
template <typename I>
inline auto from_bits(I i) {
  typedef float F __attribute__((vector_size(sizeof(I))));
  return reinterpret_cast<F>(i);
}

// exp(x) in float32, at most 1 ulp from the exact value: the maximum over
// every float in [-104, 89] (denormal results included) is measured against
// the long-double exp by tests/test_cpu_simd.cpp, which holds the bound.
// Cody-Waite reduction x = n ln2 + r, |r| <= ln2/2, ln2 split so that n*C1 is
// exact; Cephes' degree-6 minimax polynomial for e^r; the scale 2^n applied
// as two factors 2^(n/2) 2^(n - n/2), so results round once, also when they
// overflow to inf or are denormal. Exact special cases: NaN stays NaN,
// exp(+-0) = 1, exp(+inf) = inf (x > 88.72... overflows to inf), exp(-inf) =
// 0 (x < -103.97... underflows to 0).
template <typename F>
inline F exp_f32(F x) {
  const F lo = F{} - 104.0f, hi = F{} + 89.0f;
  F xc = x < lo ? lo : x;  // NaN passes
  xc = xc > hi ? hi : xc;
  const F nan = x != x ? F{} + 1.0f : F{};  // 1 in NaN lanes
  xc = nan == 1.0f ? F{} : xc;              // computed as 0, replaced below
  // Round to nearest by the 1.5 * 2^23 trick (no SSE4.1 round needed).
  const float big = 12582912.0f;
  const F n = (xc * 1.44269504088896341f + big) - big;  // an integer in [-150, 129]
  const F r = (xc - n * 0.693359375f) - n * -2.12194440e-4f;
  F p = F{} + 1.9875691500e-4f;
  p = p * r + 1.3981999507e-3f;
  p = p * r + 8.3334519073e-3f;
  p = p * r + 4.1665795894e-2f;
  p = p * r + 1.6666665459e-1f;
  p = p * r + 5.0000001201e-1f;
  const F y = (p * (r * r) + r) + 1.0f;
  const auto ni = to_int(n);
  const auto n1 = ni >> 1;  // floor(n / 2), both factors normal floats
  const F e = y * from_bits((n1 + 127) << 23) * from_bits((ni - n1 + 127) << 23);
  return nan == 1.0f ? x : e;
}

}  // namespace vecmath
}  // namespace cpu
}  // namespace ek
