// ek_random's distributions: from the four Philox words of an element to its
// value, shared by the CPU backend (src/cpu/random.cpp) and the CUDA kernel
// (kernels/random.cu), plus the CUDA launcher. Plain-C++ includable.
//
// Bit-identical on both backends by construction: integer arithmetic, IEEE
// operations that are correctly rounded everywhere (+, -, *, /, sqrt, fma,
// conversions), and explicit fma wherever a product meets a sum, so no
// compiler contracts differently. log and cos are our own polynomials for the
// same reason (the host's libm and CUDA's differ in the last bits).
#pragma once
#include <math.h>

#include "util/half.hpp"
#include "ops/philox.hpp"
#include "ops/tensor_desc.hpp"

namespace ek {
namespace rng {

enum Dist : int { kUniform = 0, kNormal = 1, kBernoulli = 2, kRandint = 3 };  // = ek_random_dist

// One fill. The host validates the parameters and precomputes width and the
// randint range, so both backends start from the same doubles.
struct Params {
  int dist;
  uint64_t seed, offset;  // element i takes counter offset + i (mod 2^64)
  double a, b;            // uniform [a, b); normal mean a, std b; bernoulli p = a
  double width;           // uniform: b - a
  int64_t first;          // randint: the smallest value
  uint64_t span;          // randint: largest - smallest (the count minus one)
  // Captured with the context's generator (CUDA): offset counts from the
  // device word *base, which each replay sets (src/core/graph.cpp).
  const uint64_t *base;
};

// ------------------------------------------------------------ raw uniforms --

EK_HD uint64_t word64(uint32_t lo, uint32_t hi) { return (uint64_t(hi) << 32) | lo; }
// k * 2^-24, k the top 24 bits of w: [0, 1), exact.
EK_HD double unit24(uint32_t w) { return double(w >> 8) * 0x1p-24; }
// k * 2^-53, k the top 53 bits of the 64-bit word (hi:lo): [0, 1), exact.
EK_HD double unit53(uint32_t lo, uint32_t hi) { return double(word64(lo, hi) >> 11) * 0x1p-53; }

// ---------------------------------------------------- deterministic math --

// Natural log of u in (0, 1] (normal doubles only): the exponent from the
// bits, the mantissa m in [sqrt(1/2), sqrt(2)) as 2 atanh(s), s = (m-1)/(m+1),
// |s| < 0.172, by its series to s^23 (a few ulp).
EK_HD double log_unit(double u) {
  const uint64_t bits = half::f64_bits(u);
  int e = int(bits >> 52) - 1023;
  double m = half::bits_f64((bits & 0x000fffffffffffffull) | 0x3ff0000000000000ull);  // [1, 2)
  if (m > 1.4142135623730951) {
    m *= 0.5;
    ++e;
  }
  const double s = (m - 1.0) / (m + 1.0), z = s * s;
  double p = 1.0 / 23;  // atanh(s) = s + s z (1/3 + z/5 + z^2/7 + ...)
  for (int k = 21; k >= 3; k -= 2) p = fma(p, z, 1.0 / k);
  const double two_s = 2.0 * s;
  return fma(double(e), 0.69314718055994530942, fma(two_s * z, p, two_s));
}

// cos(2 pi t) for t in [0, 1): the nearest quarter turn q leaves r = t - q/4
// in [-1/8, 1/8] (exact), and x = 2 pi r in [-pi/4, pi/4] goes through the
// Taylor series of sin or cos (to x^21; truncation below 1e-20).
EK_HD double cos_2pi(double t) {
  const double q = floor(fma(t, 4.0, 0.5));
  const double r = fma(q, -0.25, t);
  const double x = r * 6.28318530717958647693, x2 = x * x;
  // 1/n! with alternating signs: cos = sum c[k] x^2k, sin = x sum s[k] x^2k.
  constexpr double c[11] = {1.0, -1.0 / 2, 1.0 / 24, -1.0 / 720, 1.0 / 40320, -1.0 / 3628800,
                            1.0 / 479001600, -1.0 / 87178291200.0, 1.0 / 20922789888000.0,
                            -1.0 / 6402373705728000.0, 1.0 / 2432902008176640000.0};
  constexpr double s[11] = {1.0, -1.0 / 6, 1.0 / 120, -1.0 / 5040, 1.0 / 362880, -1.0 / 39916800,
                            1.0 / 6227020800.0, -1.0 / 1307674368000.0, 1.0 / 355687428096000.0,
                            -1.0 / 121645100408832000.0, 1.0 / 51090942171709440000.0};
  const int quarter = int(q);
  const bool odd = quarter & 1;  // odd quarter turns need sin x, even ones cos x
  double p = odd ? s[10] : c[10];
  for (int k = 9; k >= 0; --k) p = fma(p, x2, odd ? s[k] : c[k]);
  const double v = odd ? x * p : p;
  return ((quarter + 1) & 2) ? -v : v;  // cos(q pi/2 + x): cos, -sin, -cos, sin
}

// Box-Muller's cosine branch: sqrt(-2 ln u1) cos(2 pi u2), u1 in (0, 1].
// 32-bit uniforms from w0, w1; 53-bit ones from (w0, w1) and (w2, w3) (wide).
EK_HD double standard_normal(const philox::Block &w, bool wide) {
  double u1, u2;
  if (wide) {
    u1 = (double(word64(w.w[0], w.w[1]) >> 11) + 1.0) * 0x1p-53;
    u2 = unit53(w.w[2], w.w[3]);
  } else {
    u1 = (double(w.w[0]) + 1.0) * 0x1p-32;
    u2 = double(w.w[1]) * 0x1p-32;
  }
  return sqrt(-2.0 * log_unit(u1)) * cos_2pi(u2);
}

// ----------------------------------------------------------------- randint --

EK_HD uint64_t mul_hi64(uint64_t a, uint64_t b) {
#if defined(__CUDA_ARCH__)
  return __umul64hi(a, b);
#else
  __extension__ typedef unsigned __int128 u128;
  return uint64_t((u128(a) * b) >> 64);
#endif
}

// k uniform on [0, span]: Lemire's multiply-shift of the 64-bit word (w0, w1),
// whose rare biased draws (probability below (span+1) / 2^64) are replaced by
// the word (w2, w3), taken as is: the remaining bias is below 2^-64.
EK_HD uint64_t uniform_below(const philox::Block &w, uint64_t span) {
  const uint64_t n = span + 1, x0 = word64(w.w[0], w.w[1]);
  if (n == 0) return x0;  // span 2^64 - 1: every 64-bit value
  const uint64_t low = x0 * n;
  if (low < n && low < (0 - n) % n) return mul_hi64(word64(w.w[2], w.w[3]), n);
  return mul_hi64(x0, n);
}

// ------------------------------------------------------------------ stores --

// The next representable value toward -inf of a sign-magnitude float's bits
// (f16, bf16, f32 or f64): +inf gives the largest finite value.
template <typename U>
EK_HD U next_down_bits(U bits, U sign) {
  if (bits == 0) return U(sign | 1u);  // +0 -> the smallest negative subnormal
  return (bits & sign) ? U(bits + 1u) : U(bits - 1u);
}

EK_HD uint16_t to_half(int dtype, float v) { return dtype == kF16 ? half::f32_to_f16(v) : half::f32_to_bf16(v); }
EK_HD double from_half(int dtype, uint16_t h) {
  return double(dtype == kF16 ? half::f16_to_f32(h) : half::bf16_to_f32(h));
}

// x rounded to a float dtype, stepped below b when rounding reached it, so
// uniform values stay in [a, b) (f16/bf16 round through f32).
EK_HD void store_below(char *p, int dtype, double x, double b) {
  using detail::st;
  if (dtype == kF64) {
    st<double>(p, x < b ? x : half::bits_f64(next_down_bits<uint64_t>(half::f64_bits(b), 1ull << 63)));
    return;
  }
  float f = detail::narrow_f64(x);
  if (dtype == kF32) {
    if (double(f) >= b) {
      f = detail::narrow_f64(b);
      if (double(f) >= b) f = half::bits_f32(next_down_bits<uint32_t>(half::f32_bits(f), 0x80000000u));
    }
    st<float>(p, f);
    return;
  }
  uint16_t h = to_half(dtype, f);
  if (from_half(dtype, h) >= b) {
    h = to_half(dtype, detail::narrow_f64(b));
    if (from_half(dtype, h) >= b) h = next_down_bits<uint16_t>(h, 0x8000u);
  }
  st<uint16_t>(p, h);
}

// The element at C-order index of the fill, written at p (t's dtype).
EK_HD void generate(const Params &g, int dtype, uint64_t index, char *p) {
  const philox::Block w = philox::at(g.seed, g.offset + index);
  switch (g.dist) {
    case kUniform: {
      const double u = dtype == kF64 ? unit53(w.w[0], w.w[1]) : unit24(w.w[0]);
      store_below(p, dtype, fma(u, g.width, g.a), g.b);
      return;
    }
    case kNormal:
      detail::store_scalar(p, dtype, detail::scalar_float(fma(g.b, standard_normal(w, dtype == kF64), g.a)));
      return;
    case kBernoulli:
      detail::store_scalar(p, dtype, detail::scalar_int(unit53(w.w[0], w.w[1]) < g.a));
      return;
    default: {
      const uint64_t k = uniform_below(w, g.span);
      detail::store_scalar(p, dtype, detail::scalar_int(int64_t(uint64_t(g.first) + k)));
      return;
    }
  }
}

}  // namespace rng
}  // namespace ek
