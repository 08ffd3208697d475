// Vectorizable elementary functions for the CPU's hot loops (simd_kernels.cpp):
// branch-free float code the compiler turns into SSE2/AVX2/AVX-512 lanes.
// No FMA, no reassociation: every ISA level computes the same bits.
#pragma once
#include <cstdint>
#include <cstring>

namespace ek {
namespace cpu {
namespace vecmath {

inline float bits_to_f32(int32_t i) {
  float f;
  std::memcpy(&f, &i, 4);
  return f;
}

// 2^n for n in [-126, 127], built from its exponent bits.
inline float pow2i(int32_t n) { return bits_to_f32((n + 127) << 23); }

// exp(x) in float32, at most 1 ulp from the exact value (max error measured
// over every float in [-104, 89] by tests/test_cpu_simd.cpp against the
// long-double exp, denormal results included; that test holds the bound).
// Cody-Waite reduction x = n ln2 + r, |r| <= ln2/2, with ln2 split so n*C1 is
// exact; Cephes' degree-6 minimax polynomial for e^r; the scale 2^n applied
// as two factors 2^(n/2) 2^(n - n/2), so results round once, also when they
// overflow to inf or are denormal. Exact special cases: NaN stays NaN,
// exp(+-0) = 1, exp(+inf) = inf (x > 88.72... overflows to inf), exp(-inf) =
// 0 (x < -103.97... underflows to 0).
inline float exp_f32(float x) {
  const float xc = x < -104.0f ? -104.0f : x > 89.0f ? 89.0f : x;  // NaN passes
  // Round to nearest by the 1.5 * 2^23 trick (no SSE4.1 round needed).
  const float big = 12582912.0f;
  const float t = xc * 1.44269504088896341f + big;
  const float n = t - big;
  const float r = (xc - n * 0.693359375f) - n * -2.12194440e-4f;
  const float z = r * r;
  float p = 1.9875691500e-4f;
  p = p * r + 1.3981999507e-3f;
  p = p * r + 8.3334519073e-3f;
  p = p * r + 4.1665795894e-2f;
  p = p * r + 1.6666665459e-1f;
  p = p * r + 5.0000001201e-1f;
  const float y = (p * z + r) + 1.0f;
  // n is an integer in [-150, 129] (NaN: the select below drops the result).
  const int32_t ni = x == x ? static_cast<int32_t>(n) : 0;
  const int32_t n1 = ni / 2;
  const float e = y * pow2i(n1) * pow2i(ni - n1);
  return x == x ? e : x;
}

}  // namespace vecmath
}  // namespace cpu
}  // namespace ek
