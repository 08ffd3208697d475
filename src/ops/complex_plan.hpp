// Elementwise ops on complex64/complex128 (ek_unary, ek_binary,
// ek_binary_scalar of a complex dtype, and ek_conj): the launch arguments and
// the per-element math shared by the CPU loops (src/cpu/complex.cpp) and the
// CUDA kernel (kernels/complex.cu). Every op computes in double precision with
// the formulas below on both devices, and rounds once to the result's parts:
// add, sub, mul and div give the same bits on either device (no FMA
// contraction: kernels/complex.cu is built with -fmad=false, as the x86-64
// CPU baseline computes). Plain-C++ includable: no CUDA headers.
#pragma once
#include <math.h>

#include <cstdint>
#include <cstring>

#include "ek.h"
#include "ops/tensor_desc.hpp"
#include "util/half.hpp"  // EK_HD

namespace ek {
namespace cx {

// Ops beyond ek_unary_op's values that only complex tensors run.
enum ExtraOp : int { kConj = 1000 };

// One launch. a and b are complex of one dtype (the host casts real operands
// first); out is that dtype, or its part's float dtype (abs), or bool
// (predicates, equal, not_equal). A scalar operand (scalar == 1: a, 2: b)
// is (sre, sim) and its TensorDesc is ignored; unary ops ignore b.
struct Args {
  int op;
  bool binary;
  int scalar;  // ew::ScalarPos values
  double sre, sim;
  TensorDesc out, a, b;
};

struct C {
  double re, im;
};

EK_HD C make(double re, double im) { return C{re, im}; }
// As elementwise_plan.hpp: no isnan/isinf, which differ between host and device headers.
EK_HD bool nan_(double x) { return x != x; }
EK_HD bool finite_(double x) { return !nan_(x - x); }
EK_HD bool inf_(double x) { return !nan_(x) && !finite_(x); }
// -v with v's sign bit flipped even for a NaN: PTX's neg leaves a NaN's sign
// unspecified, and the inverse functions below take signs from NaN parts.
EK_HD double neg_(double v) { return ::copysign(v, -::copysign(1.0, v)); }
EK_HD C add(C a, C b) { return make(a.re + b.re, a.im + b.im); }
EK_HD C sub(C a, C b) { return make(a.re - b.re, a.im - b.im); }
EK_HD C mul(C a, C b) { return make(a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re); }
EK_HD double cabs_(C a) { return ::hypot(a.re, a.im); }
// Smith's division: no overflow of |b|^2 for large b.
EK_HD C div(C a, C b) {
  if (::fabs(b.re) >= ::fabs(b.im)) {
    if (b.re == 0 && b.im == 0) return make(a.re / ::fabs(b.re), a.im / ::fabs(b.re));  // inf or NaN, as C
    const double r = b.im / b.re, d = b.re + b.im * r;
    return make((a.re + a.im * r) / d, (a.im - a.re * r) / d);
  }
  const double r = b.re / b.im, d = b.re * r + b.im;
  return make((a.re * r + a.im) / d, (a.im * r - a.re) / d);
}
EK_HD C cexp_(C a) {
  if (a.im == 0) return make(::exp(a.re), a.im);  // keeps exp(x + 0i) real, as C99
  if (inf_(a.re) && !finite_(a.im))  // C99 G.6.3.1: e^-inf is 0 whatever the angle; e^+inf has none
    return a.re < 0 ? make(0, ::copysign(0.0, a.im)) : make(a.re, NAN);
  const double e = ::exp(a.re);
  return make(e * ::cos(a.im), e * ::sin(a.im));
}
EK_HD C clog_(C a) { return make(::log(cabs_(a)), ::atan2(a.im, a.re)); }
// The principal root, without cancellation (as C99's csqrt).
EK_HD C csqrt_(C a) {
  if (a.re == 0 && a.im == 0) return make(0.0, a.im);
  if (inf_(a.im)) return make(INFINITY, a.im);
  const double t = ::sqrt((::fabs(a.re) + cabs_(a)) / 2);
  if (a.re >= 0) return make(t, a.im / (2 * t));
  return make(::fabs(a.im) / (2 * t), ::copysign(t, a.im));
}
// The edge cases of C99 G.6.2.4-5 first (an infinite or NaN imaginary part
// has no sine: the real part keeps what it can).
EK_HD C csinh_(C a) {
  if (a.im == 0) return make(::sinh(a.re), a.im);
  if ((a.re == 0 || inf_(a.re)) && !finite_(a.im)) return make(a.re, NAN);
  return make(::sinh(a.re) * ::cos(a.im), ::cosh(a.re) * ::sin(a.im));
}
EK_HD C ccosh_(C a) {
  if (a.im == 0) return make(::cosh(a.re), a.im);
  if (a.re == 0 && !finite_(a.im)) return make(NAN, 0.0);
  if (inf_(a.re) && !finite_(a.im)) return make(INFINITY, NAN);
  return make(::cosh(a.re) * ::cos(a.im), ::sinh(a.re) * ::sin(a.im));
}
// tanh(x + iy) = (sinh 2x + i sin 2y) / (cosh 2x + cos 2y); for large |x|
// the quotient is sign(x) + 0i (the terms overflow before it changes).
EK_HD C ctanh_(C a) {
  if (a.im == 0) return make(::tanh(a.re), a.im);  // NaN + 0i stays NaN + 0i (C99 G.6.2.6)
  // +-1 + i0 with y's sign (the array API's 1 + 0j for y > 0; Annex G's 0 sin(2y) differs in sign)
  if (inf_(a.re)) return make(::copysign(1.0, a.re), ::copysign(0.0, a.im));
  if (!finite_(a.im)) return make(a.re == 0 ? a.re : NAN, NAN);
  if (::fabs(a.re) > 20) return make(::copysign(1.0, a.re), 2 * ::sin(2 * a.im) * ::exp(-2 * ::fabs(a.re)));
  const double d = ::cosh(2 * a.re) + ::cos(2 * a.im);
  return make(::sinh(2 * a.re) / d, ::sin(2 * a.im) / d);
}
// sin z = -i sinh(iz), cos z = cosh(iz), tan z = -i tanh(iz).
EK_HD C csin_(C a) {
  const C r = csinh_(make(neg_(a.im), a.re));
  return make(r.im, -r.re);
}
EK_HD C ccos_(C a) { return ccosh_(make(neg_(a.im), a.re)); }
EK_HD C ctan_(C a) {
  const C r = ctanh_(make(neg_(a.im), a.re));
  return make(r.im, -r.re);
}
// exp(z) - 1 and log(1 + z) accurate near 0.
EK_HD C cexpm1_(C a) {
  if (a.im == 0) return make(a.re == 0 ? 0.0 : ::expm1(a.re), a.im);
  if (inf_(a.re) && !finite_(a.im)) return a.re < 0 ? make(-1, ::copysign(0.0, a.im)) : make(a.re, NAN);  // as cexp_
  const double s = ::sin(a.im / 2);
  return make(::expm1(a.re) * ::cos(a.im) - 2 * s * s, ::exp(a.re) * ::sin(a.im));
}
EK_HD C clog1p_(C a) {
  if (cabs_(a) > 0.5) return clog_(make(1 + a.re, a.im));
  return make(0.5 * ::log1p(a.re * (2 + a.re) + a.im * a.im), ::atan2(a.im, 1 + a.re));
}
EK_HD C cpow_(C a, C b) {
  if (a.re == 0 && a.im == 0) {
    if (b.re == 0 && b.im == 0) return make(1, 0);
    if (b.im == 0 && b.re > 0) return make(0, 0);
  }
  return cexp_(mul(b, clog_(a)));
}
// The inverse functions by their logarithmic forms (principal branches),
// with C99 Annex G's values (G.6.1-2) at infinite and NaN parts first:
// asinh z = log(z + sqrt(z^2 + 1)), acosh z = log(z + sqrt(z + 1) sqrt(z - 1)),
// Re atanh z = log1p(4x / ((1 - x)^2 + y^2)) / 4, Im atanh z = atan2(2y,
// (1 - x)(1 + x) - y^2) / 2; asin z = -i asinh(iz), acos z = -i acosh(z)
// (upper half plane), atan z = -i atanh(iz). asinh and atanh are odd and
// commute with conj, acosh and acos commute with conj: each is computed for
// |Im z| (and |Re z|) and the signs (of zeros too) put back. On the axes the
// real functions give the exact parts (the logarithmic forms leave an ulp of
// |z + sqrt(..)| - 1 where a part is 0).
constexpr double kPi = 3.141592653589793, kPi2 = 1.5707963267948966, kPi4 = 0.7853981633974483;
constexpr double kLn2 = 0.6931471805599453, kHuge = 1e150;  // beyond kHuge, z^2 would overflow

// x, y >= 0 or NaN.
EK_HD C casinh_q1_(double x, double y) {
  if (inf_(x)) return make(x, finite_(y) ? 0.0 : nan_(y) ? NAN : kPi4);
  if (inf_(y)) return make(y, nan_(x) ? NAN : kPi2);
  if (nan_(x)) return make(NAN, y == 0 ? y : NAN);
  if (nan_(y)) return make(NAN, NAN);
  if (y == 0) return make(::asinh(x), y);
  if (x == 0) return y <= 1 ? make(x, ::asin(y)) : make(::acosh(y), kPi2);
  const C z = make(x, y);
  if (cabs_(z) <= kHuge) return clog_(add(z, csqrt_(add(mul(z, z), make(1, 0)))));
  const C r = clog_(z);  // asinh z ~ log 2z
  return make(r.re + kLn2, r.im);
}
EK_HD C casinh_(C a) {
  const C r = casinh_q1_(::fabs(a.re), ::fabs(a.im));
  return make(::copysign(r.re, a.re), ::copysign(r.im, a.im));
}
// y >= 0 or NaN.
EK_HD C cacosh_upper_(double x, double y) {
  if (inf_(y)) return make(INFINITY, nan_(x) ? NAN : !inf_(x) ? kPi2 : x > 0 ? kPi4 : 3 * kPi4);
  if (inf_(x)) return make(INFINITY, nan_(y) ? NAN : x > 0 ? 0.0 : kPi);
  if (nan_(x)) return make(NAN, NAN);
  if (nan_(y)) return make(NAN, x == 0 ? kPi2 : NAN);
  if (y == 0) {
    if (::fabs(x) <= 1) return make(0.0, ::acos(x));
    return x > 0 ? make(::acosh(x), 0.0) : make(::acosh(-x), kPi);
  }
  if (x == 0) return make(::asinh(y), kPi2);
  const C z = make(x, y);
  if (cabs_(z) <= kHuge) return clog_(add(z, mul(csqrt_(add(z, make(1, 0))), csqrt_(sub(z, make(1, 0))))));
  const C r = clog_(z);  // acosh z ~ log 2z
  return make(r.re + kLn2, r.im);
}
EK_HD C cacosh_(C a) {
  const C r = cacosh_upper_(a.re, ::fabs(a.im));
  return make(r.re, ::copysign(r.im, a.im));
}
EK_HD C cacos_(C a) {
  const C r = cacosh_upper_(a.re, ::fabs(a.im));
  return make(r.im, ::copysign(r.re, neg_(a.im)));
}
// x, y >= 0 or NaN.
EK_HD C catanh_q1_(double x, double y) {
  if (inf_(y)) return make(0.0, kPi2);
  if (inf_(x)) return make(0.0, nan_(y) ? NAN : kPi2);
  if (nan_(x) || nan_(y)) return make(x == 0 ? 0.0 : NAN, NAN);
  const double m = cabs_(make(x, y));
  if (m > kHuge) return make(x / m / m, kPi2);  // atanh z ~ 1/z + i pi/2
  const double d = (1 - x) * (1 - x) + y * y;
  return make(0.25 * ::log1p(4 * x / d), 0.5 * ::atan2(2 * y, (1 - x) * (1 + x) - y * y));
}
EK_HD C catanh_(C a) {
  const C r = catanh_q1_(::fabs(a.re), ::fabs(a.im));
  return make(::copysign(r.re, a.re), ::copysign(r.im, a.im));
}
EK_HD C casin_(C a) {
  const C r = casinh_(make(neg_(a.im), a.re));
  return make(r.im, -r.re);
}
EK_HD C catan_(C a) {
  const C r = catanh_(make(neg_(a.im), a.re));
  return make(r.im, -r.re);
}
EK_HD C clog_base_(C a, double inv_ln) {
  const C r = clog_(a);
  return make(r.re * inv_ln, r.im * inv_ln);
}

EK_HD C csign_(C a) {
  const double m = cabs_(a);
  return m == 0 ? make(0, 0) : make(a.re / m, a.im / m);
}

EK_HD C unary(int op, C a) {
  switch (op) {
    case EK_UNARY_NEG: return make(-a.re, -a.im);
    case kConj: return make(a.re, -a.im);
    case EK_UNARY_ABS: return make(cabs_(a), 0);
    case EK_UNARY_SIGN: return csign_(a);
    case EK_UNARY_SQUARE: return mul(a, a);
    case EK_UNARY_RECIPROCAL: return div(make(1, 0), a);
    case EK_UNARY_EXP: return cexp_(a);
    case EK_UNARY_EXPM1: return cexpm1_(a);
    case EK_UNARY_LOG: return clog_(a);
    case EK_UNARY_LOG1P: return clog1p_(a);
    case EK_UNARY_SQRT: return csqrt_(a);
    case EK_UNARY_SIN: return csin_(a);
    case EK_UNARY_COS: return ccos_(a);
    case EK_UNARY_TAN: return ctan_(a);
    case EK_UNARY_SINH: return csinh_(a);
    case EK_UNARY_COSH: return ccosh_(a);
    case EK_UNARY_TANH: return ctanh_(a);
    case EK_UNARY_ASIN: return casin_(a);
    case EK_UNARY_ACOS: return cacos_(a);
    case EK_UNARY_ATAN: return catan_(a);
    case EK_UNARY_ASINH: return casinh_(a);
    case EK_UNARY_ACOSH: return cacosh_(a);
    case EK_UNARY_ATANH: return catanh_(a);
    case EK_UNARY_LOG2: return clog_base_(a, 1.4426950408889634);    // 1 / ln 2
    case EK_UNARY_LOG10: return clog_base_(a, 0.43429448190325176);  // 1 / ln 10
    // Predicates: re is the truth value.
    case EK_UNARY_ISNAN: return make(nan_(a.re) || nan_(a.im), 0);
    case EK_UNARY_ISINF: return make(inf_(a.re) || inf_(a.im), 0);
    case EK_UNARY_ISFINITE: return make(finite_(a.re) && finite_(a.im), 0);
    default: return make(NAN, NAN);
  }
}

EK_HD C binary(int op, C a, C b) {
  switch (op) {
    case EK_BINARY_ADD: return add(a, b);
    case EK_BINARY_SUB: return sub(a, b);
    case EK_BINARY_MUL: return mul(a, b);
    case EK_BINARY_DIV: return div(a, b);
    case EK_BINARY_POW: return cpow_(a, b);
    case EK_BINARY_EQ: return make(a.re == b.re && a.im == b.im, 0);
    case EK_BINARY_NE: return make(!(a.re == b.re && a.im == b.im), 0);
    default: return make(NAN, NAN);
  }
}

// Element loads and stores (p points at the element).
EK_HD C load(const char *p, int dtype) {
  if (dtype == kC64) {
    float v[2];
    memcpy(v, p, sizeof v);
    return make(v[0], v[1]);
  }
  double v[2];
  memcpy(v, p, sizeof v);
  return make(v[0], v[1]);
}
// Complex dtypes take both parts; float dtypes the real part (abs); bool re != 0.
EK_HD void store(char *p, int dtype, C r) {
  switch (dtype) {
    case kC64: {
      const float v[2] = {static_cast<float>(r.re), static_cast<float>(r.im)};
      memcpy(p, v, sizeof v);
      return;
    }
    case kC128: memcpy(p, &r, sizeof r); return;
    case kF32: {
      const float v = static_cast<float>(r.re);
      memcpy(p, &v, sizeof v);
      return;
    }
    case kF64: memcpy(p, &r.re, sizeof r.re); return;
    default: *reinterpret_cast<unsigned char *>(p) = r.re != 0; return;
  }
}

// out[i] = op(a[i], b[i]) given both operands (the scalar already substituted).
EK_HD void apply(const Args &g, char *out, C a, C b) {
  store(out, g.out.dtype, g.binary ? binary(g.op, a, b) : unary(g.op, a));
}

}  // namespace cx
}  // namespace ek
