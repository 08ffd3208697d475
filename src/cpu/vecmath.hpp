// Elementary functions for the CPU's hot loops (simd_kernels.cpp), written
// once for a float and for a GCC vector of floats (each lane computes what
// the scalar code computes). No FMA, no reassociation: every ISA level gives
// the same bits.
#pragma once
#include <cstdint>
#include <cstring>

#if defined(__SSE2__)
#include <immintrin.h>
#endif

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

#if defined(__AVX512F__)
// Every lane. The masked forms of the AVX-512 intrinsics below: GCC 12's
// unmasked ones start from an undefined vector (a -Wmaybe-uninitialized).
constexpr __mmask16 kAll = 0xffff;
#endif

// max(a, b) and min(a, b) as x86's MAXPS/MINPS: a > b ? a : b (a < b ? a :
// b), so a NaN in b passes. One instruction where the plain ternary on a
// GCC vector becomes a compare and a blend.
inline float max_x86(float a, float b) { return a > b ? a : b; }
inline float min_x86(float a, float b) { return a < b ? a : b; }
template <typename F>
inline F max_x86(F a, F b) {
#if defined(__AVX512F__)
  if constexpr (sizeof(F) == 64) return reinterpret_cast<F>(_mm512_mask_max_ps(reinterpret_cast<__m512>(a), kAll, reinterpret_cast<__m512>(a), reinterpret_cast<__m512>(b)));
#endif
#if defined(__AVX__)
  if constexpr (sizeof(F) == 32) return reinterpret_cast<F>(_mm256_max_ps(reinterpret_cast<__m256>(a), reinterpret_cast<__m256>(b)));
#endif
#if defined(__SSE2__)
  if constexpr (sizeof(F) == 16) return reinterpret_cast<F>(_mm_max_ps(reinterpret_cast<__m128>(a), reinterpret_cast<__m128>(b)));
#endif
  return a > b ? a : b;
}
template <typename F>
inline F min_x86(F a, F b) {
#if defined(__AVX512F__)
  if constexpr (sizeof(F) == 64) return reinterpret_cast<F>(_mm512_mask_min_ps(reinterpret_cast<__m512>(a), kAll, reinterpret_cast<__m512>(a), reinterpret_cast<__m512>(b)));
#endif
#if defined(__AVX__)
  if constexpr (sizeof(F) == 32) return reinterpret_cast<F>(_mm256_min_ps(reinterpret_cast<__m256>(a), reinterpret_cast<__m256>(b)));
#endif
#if defined(__SSE2__)
  if constexpr (sizeof(F) == 16) return reinterpret_cast<F>(_mm_min_ps(reinterpret_cast<__m128>(a), reinterpret_cast<__m128>(b)));
#endif
  return a < b ? a : b;
}

// t rounded to the nearest integer, ties to even, for |t| < 2^22: the
// 1.5 * 2^23 trick (SSE2 has no round instruction), AVX-512's VRNDSCALEPS in
// one step (the same value).
template <typename F>
inline F round_even(F t) {
#if defined(__AVX512F__)
  if constexpr (sizeof(F) == 64)
    return reinterpret_cast<F>(
        _mm512_mask_roundscale_ps(reinterpret_cast<__m512>(t), kAll, reinterpret_cast<__m512>(t),
                                  _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC));
#endif
  const float big = 12582912.0f;
  return (t + big) - big;
}

// y 2^n for y in [0.5, 2) and an integer n in [-150, 129], rounded once
// (also to a denormal or inf): as two factors 2^(n/2) 2^(n - n/2), y 2^(n/2)
// exact as both are normal; AVX-512's VSCALEFPS rounds the exact product
// once too, so the bits are the same.
#if defined(__AVX512F__)
template <typename F>
constexpr bool kScalef = sizeof(F) == 64;
#else
template <typename F>
constexpr bool kScalef = false;
#endif
template <typename F>
inline F scale_pow2(F y, F n) {
#if defined(__AVX512F__)
  if constexpr (kScalef<F>)
    return reinterpret_cast<F>(_mm512_mask_scalef_ps(reinterpret_cast<__m512>(y), kAll, reinterpret_cast<__m512>(y), reinterpret_cast<__m512>(n)));
#endif
  const auto ni = to_int(n);
  const auto n1 = ni >> 1;  // floor(n / 2), both factors normal floats
  return y * from_bits((n1 + 127) << 23) * from_bits((ni - n1 + 127) << 23);
}

// exp(x) in float32, at most 1 ulp from the exact value: the maximum over
// every float in [-104, 89] (denormal results included) is measured against
// the long-double exp by tests/test_cpu_simd.cpp, which holds the bound.
// Cody-Waite reduction x = n ln2 + r, |r| <= ln2/2, ln2 split so that n*C1 is
// exact; Cephes' degree-6 minimax polynomial for e^r; the scale 2^n rounded
// once (scale_pow2), also when the result overflows to inf or is denormal.
// Exact special cases: NaN stays NaN (the input's bits), exp(+-0) = 1,
// exp(+inf) = inf (x > 88.72... overflows to inf), exp(-inf) = 0 (x <
// -103.97... underflows to 0). The same bits on every level; AVX-512 needs
// no integer operations (25 vector operations, 36 before the x86 min/max,
// rounding and scaling steps).
template <typename F>
inline F exp_f32(F x) {
  const F lo = F{} - 104.0f, hi = F{} + 89.0f;
  F xc = min_x86(hi, max_x86(lo, x));  // a NaN passes
  // computed as 0 where scale_pow2 converts to int (a NaN would be undefined
  // there), replaced below
  if constexpr (!kScalef<F>) xc = x != x ? F{} : xc;
  const F n = round_even(xc * 1.44269504088896341f);  // an integer in [-150, 129]
  const F r = (xc - n * 0.693359375f) - n * -2.12194440e-4f;
  F p = F{} + 1.9875691500e-4f;
  p = p * r + 1.3981999507e-3f;
  p = p * r + 8.3334519073e-3f;
  p = p * r + 4.1665795894e-2f;
  p = p * r + 1.6666665459e-1f;
  p = p * r + 5.0000001201e-1f;
  const F y = (p * (r * r) + r) + 1.0f;
  const F e = scale_pow2(y, n);
  return x != x ? x : e;
}

}  // namespace vecmath
}  // namespace cpu
}  // namespace ek
