// The elementwise ops of issue 18 (asin ... signbit, logaddexp, hypot,
// copysign, nextafter) and the float floor_div / remainder / sign fixes:
// values against a double-precision reference and against NumPy's results
// (NumPy 2.4.6, written out below where libm has no equivalent), empty and
// non-contiguous inputs, integer inputs, bad input. CUDA against the CPU
// backend over random layouts: test_conformance.cpp.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#include "ek_test.hpp"

using ektest::dtype_of;
using ektest::shape_of;
using ektest::Tensor;
using ektest::to_host;
using ektest::Values;
using ektest::values_of;

namespace {

const double kInf = std::numeric_limits<double>::infinity();
const double kNan = std::numeric_limits<double>::quiet_NaN();

double ref_unary(int op, double x) {
  switch (op) {
    case EK_UNARY_ASIN: return std::asin(x);
    case EK_UNARY_ACOS: return std::acos(x);
    case EK_UNARY_ATAN: return std::atan(x);
    case EK_UNARY_SINH: return std::sinh(x);
    case EK_UNARY_COSH: return std::cosh(x);
    case EK_UNARY_ASINH: return std::asinh(x);
    case EK_UNARY_ACOSH: return std::acosh(x);
    case EK_UNARY_ATANH: return std::atanh(x);
    case EK_UNARY_LOG10: return std::log10(x);
    default: return std::signbit(x);
  }
}

// NumPy's logaddexp: log(e^a + e^b) in long double (exact enough at these
// magnitudes), infinities of one sign giving themselves.
double ref_logaddexp(double a, double b) {
  if (std::isnan(a) || std::isnan(b)) return kNan;
  if (a == b && std::isinf(a)) return a;
  const long double hi = std::max(a, b), lo = std::min(a, b);
  return static_cast<double>(hi + std::log1p(std::exp(lo - hi)));
}

double ref_binary(int op, double a, double b) {
  switch (op) {
    case EK_BINARY_LOGADDEXP: return ref_logaddexp(a, b);
    case EK_BINARY_HYPOT: return std::hypot(a, b);
    default: return std::copysign(a, b);
  }
}

double tolerance(ek_dtype dt) {
  switch (dt) {
    case EK_FLOAT16: return 1e-3;
    case EK_BFLOAT16: return 8e-3;
    case EK_FLOAT32: return 1e-6;
    default: return 1e-14;
  }
}

// got is want within rel (relative, absolute below 1); NaN is NaN, an
// infinity itself, and a zero has want's sign.
::testing::AssertionResult near(double got, double want, double rel) {
  if (std::isnan(want) ? std::isnan(got)
      : want == 0      ? got == 0 && std::signbit(got) == std::signbit(want)
      : std::isinf(want) ? got == want
                         : std::fabs(got - want) <= rel * std::max(1.0, std::fabs(want)))
    return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "got " << got << ", want " << want;
}

// The same double, a zero's sign included; any NaN is any NaN.
bool same(double a, double b) { return std::isnan(a) ? std::isnan(b) : std::memcmp(&a, &b, 8) == 0; }

const ek_dtype kFloats[] = {EK_FLOAT32, EK_FLOAT64, EK_FLOAT16, EK_BFLOAT16};
const int kNewUnary[] = {EK_UNARY_ASIN,  EK_UNARY_ACOS,  EK_UNARY_ATAN,  EK_UNARY_SINH,
                         EK_UNARY_COSH,  EK_UNARY_ASINH, EK_UNARY_ACOSH, EK_UNARY_ATANH,
                         EK_UNARY_LOG10, EK_UNARY_SIGNBIT};
const int kNewBinary[] = {EK_BINARY_LOGADDEXP, EK_BINARY_HYPOT, EK_BINARY_COPYSIGN, EK_BINARY_NEXTAFTER};

class ElementwiseMore : public ektest::DeviceTest {
 protected:
  ek_tensor vec(const Values &v, ek_dtype dt = EK_FLOAT64) {
    return make({static_cast<int64_t>(v.size())}, dt, v);
  }
  Values unary(int op, ek_tensor x) {
    Tensor y;
    EXPECT_EQ(ek_unary(nullptr, static_cast<ek_unary_op>(op), x, y.out()), EK_SUCCESS) << ek_last_error();
    return y.t ? values_of(y) : Values{};
  }
  // Reference values rounded to dt as a result of dt is (overflow to inf).
  Values rounded(const Values &v, ek_dtype dt) {
    Tensor t(vec(v, dt));
    return values_of(t);
  }
  Values binary(int op, ek_tensor a, ek_tensor b) {
    Tensor y;
    EXPECT_EQ(ek_binary(nullptr, static_cast<ek_binary_op>(op), a, b, y.out()), EK_SUCCESS) << ek_last_error();
    return y.t ? values_of(y) : Values{};
  }
};
EK_INSTANTIATE_DEVICES(ElementwiseMore);

const Values kUnaryInputs = {-3.5, -1.0, -0.75, -0.0, 0.0, 0.2, 0.5, 0.99, 1.0, 1.5,
                             2.0,  3.0,  8.5,   -kInf, kInf, kNan, 1e-3, -1e-3, 100.0};

TEST_P(ElementwiseMore, UnaryOpsMatchDoubleReference) {
  for (ek_dtype dt : kFloats) {
    Tensor x(vec(kUnaryInputs, dt));
    const Values in = values_of(x);  // rounded to dt
    for (int op : kNewUnary) {
      Tensor y;
      EK_OK(ek_unary(nullptr, static_cast<ek_unary_op>(op), x, y.out()));
      EXPECT_EQ(dtype_of(y), op == EK_UNARY_SIGNBIT ? EK_BOOL : dt);
      const Values got = values_of(y);
      Values want;
      for (double v : in) want.push_back(ref_unary(op, v));
      if (op != EK_UNARY_SIGNBIT) want = rounded(want, dt);
      for (size_t i = 0; i < in.size(); ++i)
        EXPECT_TRUE(near(got[i], want[i], tolerance(dt)))
            << ek_dtype_name(dt) << " op " << op << " x " << in[i];
    }
  }
}

TEST_P(ElementwiseMore, SignbitSeesNegativeZeroAndNegativeNan) {
  Tensor x(vec({-0.0, 0.0, -kNan, kNan, -kInf, kInf, -2.0, 3.0}, EK_FLOAT32)), i(vec({-3, 0, 4}, EK_INT32)),
      b(vec({0, 1}, EK_BOOL));
  EXPECT_EQ(unary(EK_UNARY_SIGNBIT, x), (Values{1, 0, 1, 0, 1, 0, 1, 0}));  // np.signbit
  EXPECT_EQ(unary(EK_UNARY_SIGNBIT, i), (Values{1, 0, 0}));
  EXPECT_EQ(unary(EK_UNARY_SIGNBIT, b), (Values{0, 0}));
  Tensor yi;
  EK_OK(ek_unary(nullptr, EK_UNARY_SIGNBIT, i, yi.out()));
  EXPECT_EQ(dtype_of(yi), EK_BOOL);
}

TEST_P(ElementwiseMore, SignOfNanIsNan) {
  for (ek_dtype dt : kFloats) {
    Tensor x(vec({kNan, -kNan, -2.0, -0.0, 0.0, 5.0}, dt));
    const Values got = unary(EK_UNARY_SIGN, x);
    EXPECT_TRUE(std::isnan(got[0]) && std::isnan(got[1])) << ek_dtype_name(dt);
    EXPECT_EQ(Values(got.begin() + 2, got.end()), (Values{-1, 0, 0, 1})) << ek_dtype_name(dt);
  }
}

TEST_P(ElementwiseMore, BinaryOpsMatchDoubleReference) {
  const Values av = {1.0, -2.0, 3.0,  -0.0, 0.0, 1000.0, -1000.0, 700.0, kInf, -kInf, kInf,  -kInf, kNan, 1.0, 1e-3};
  const Values bv = {2.0, 0.5,  -4.0, 0.0,  -0.0, 1000.0, -1001.0, 709.0, kInf, -kInf, -kInf, kInf,  1.0,  kNan, -7.0};
  for (ek_dtype dt : kFloats) {
    Tensor a(vec(av, dt)), b(vec(bv, dt));
    const Values ra = values_of(a), rb = values_of(b);
    for (int op : {EK_BINARY_LOGADDEXP, EK_BINARY_HYPOT, EK_BINARY_COPYSIGN}) {
      const Values got = binary(op, a, b);
      Values want;
      for (size_t i = 0; i < av.size(); ++i) want.push_back(ref_binary(op, ra[i], rb[i]));
      want = rounded(want, dt);
      for (size_t i = 0; i < av.size(); ++i)
        EXPECT_TRUE(near(got[i], want[i], tolerance(dt)))
            << ek_dtype_name(dt) << " op " << op << ": " << ra[i] << ", " << rb[i];
    }
  }
}

// NumPy: logaddexp(inf, inf) inf, (-inf, -inf) -inf, (inf, -inf) inf, NaN wins;
// hypot(inf, nan) inf; copysign(3, -0.0) -3, copysign(3, -nan) -3.
TEST_P(ElementwiseMore, InfinitiesAndNanAsNumpy) {
  Tensor a(vec({kInf, -kInf, kInf, -kInf, kNan, -kInf, kInf}, EK_FLOAT32)),
      b(vec({kInf, -kInf, -kInf, kInf, 1.0, kNan, kNan}, EK_FLOAT32));
  const Values l = binary(EK_BINARY_LOGADDEXP, a, b);
  for (size_t i = 0; i < 4; ++i) EXPECT_EQ(l[i], (Values{kInf, -kInf, kInf, kInf})[i]) << i;
  for (size_t i = 4; i < 7; ++i) EXPECT_TRUE(std::isnan(l[i])) << i;
  const Values h = binary(EK_BINARY_HYPOT, a, b);
  EXPECT_EQ(h[6], kInf);  // hypot(inf, nan)
  EXPECT_EQ(h[5], kInf);  // hypot(-inf, nan)
  Tensor three(vec({3.0, 3.0, -3.0}, EK_FLOAT64)), sgn(vec({-0.0, -kNan, kNan}, EK_FLOAT64));
  EXPECT_EQ(binary(EK_BINARY_COPYSIGN, three, sgn), (Values{-3.0, -3.0, 3.0}));
}

// float32 and float64: C's nextafter of the same type.
TEST_P(ElementwiseMore, NextafterStepsOneUlp) {
  const Values av = {1.0, 1.0, 0.0, 0.0, -1.0, kInf, 0.0, -0.0, kNan, 1.0, 5e-324};
  const Values bv = {2.0, 0.0, 1.0, -1.0, -2.0, 0.0, -0.0, 0.0, 1.0, 1.0, 0.0};
  Tensor a32(vec(av, EK_FLOAT32)), b32(vec(bv, EK_FLOAT32)), a64(vec(av)), b64(vec(bv));
  const Values g32 = binary(EK_BINARY_NEXTAFTER, a32, b32), g64 = binary(EK_BINARY_NEXTAFTER, a64, b64);
  const Values r32 = values_of(a32), s32 = values_of(b32);
  for (size_t i = 0; i < av.size(); ++i) {
    EXPECT_TRUE(same(g64[i], std::nextafter(av[i], bv[i]))) << i << ": " << g64[i];
    const float want = std::nextafter(static_cast<float>(r32[i]), static_cast<float>(s32[i]));
    EXPECT_TRUE(same(g32[i], want)) << i << ": " << g32[i] << " want " << want;
  }
}

// float16 and bfloat16 step by their own ulp (a float32 one would round away).
// float16 values are np.nextafter(np.float16(a), np.float16(b)), except
// equal operands (C's rule, as PyTorch: b, so nextafter(0, -0) is -0).
TEST_P(ElementwiseMore, NextafterOfHalfTypesStepsTheirUlp) {
  const Values av = {1.0, 1.0, 0.0, 0.0, -0.0, 65504.0, kInf, -1.0, 5.960464477539063e-08, 1.0, 0.0};
  const Values bv = {2.0, 0.0, 1.0, -1.0, 1.0, kInf, 0.0, -2.0, 0.0, 1.0, -0.0};
  const Values f16 = {1.0009765625, 0.99951171875, 5.960464477539063e-08, -5.960464477539063e-08,
                      5.960464477539063e-08, kInf, 65504.0, -1.0009765625, 0.0, 1.0, -0.0};
  const Values bf16 = {1.0078125, 0.99609375, 9.183549615799121e-41, -9.183549615799121e-41,
                       9.183549615799121e-41, 65536.0, 3.3895313892515355e+38, -1.0078125, 0.0, 1.0, -0.0};
  for (ek_dtype dt : {EK_FLOAT16, EK_BFLOAT16}) {
    const Values &want = dt == EK_FLOAT16 ? f16 : bf16;
    Tensor a(vec(av, dt)), b(vec(bv, dt));
    const Values got = binary(EK_BINARY_NEXTAFTER, a, b);
    for (size_t i = 0; i < av.size(); ++i) {
      if (dt == EK_BFLOAT16 && i == 5) continue;  // 65504 is not a bfloat16
      if (dt == EK_BFLOAT16 && i == 8) continue;  // nor is float16's smallest subnormal
      EXPECT_TRUE(same(got[i], want[i])) << ek_dtype_name(dt) << " " << i << ": " << got[i];
    }
    // A scalar target: only its direction counts.
    Tensor ys;
    EK_OK(ek_binary_scalar(nullptr, EK_BINARY_NEXTAFTER, a, ek_scalar_float(1e30), 0, ys.out()));
    EXPECT_EQ(dtype_of(ys), dt);
    EXPECT_TRUE(same(values_of(ys)[0], want[0])) << values_of(ys)[0];
  }
}

// float16 <-> float32 casts at every float16 rounding boundary, against an
// oracle built from the float16 grid (not from the library's converters):
// each float16 value and the float32 midpoint to the next one (a tie: to the
// even significand) and the float32 values one ulp either side of it; 65520
// and up overflow to infinity; float32 NaNs give 0x7fff with their sign;
// every float16 bit pattern widens exactly (a NaN to the canonical one of
// its sign).
// The CUDA kernels convert in hardware, the CPU backend with integer code.
float f16_grid(uint16_t h) {  // the value of float16 bits h (NaN for NaNs)
  const int e = (h >> 10) & 0x1f, m = h & 0x3ff;
  const double v = e == 0 ? std::ldexp(m, -24) : e == 31 ? (m ? kNan : kInf) : std::ldexp(1024 + m, e - 25);
  return static_cast<float>((h & 0x8000) ? -v : v);
}

TEST_P(ElementwiseMore, Float16CastsRoundAtEveryBoundary) {
  std::vector<float> x;
  std::vector<uint16_t> want;
  for (uint32_t sign : {0u, 0x8000u})
    for (uint32_t h = 0; h < 0x7c00; ++h) {  // finite h and the float16 above it
      const uint16_t lo = static_cast<uint16_t>(sign | h), hi = static_cast<uint16_t>(lo + 1);
      const double up = h == 0x7bff ? (sign ? -65536.0 : 65536.0) : f16_grid(hi);  // past the largest: 2^16
      const float a = f16_grid(lo), mid = static_cast<float>((a + up) / 2);
      const float below = std::nextafter(mid, a), above = std::nextafter(mid, 2 * mid - a);
      const uint16_t even = (lo & 1) ? hi : lo;
      x.insert(x.end(), {a, below, mid, above});
      want.insert(want.end(), {lo, lo, even, hi});  // hi of the largest finite is infinity
    }
  x.insert(x.end(), {65520.0f, 1e30f, -1e30f, std::numeric_limits<float>::infinity(), 1e-30f, -1e-30f});
  want.insert(want.end(), {0x7c00, 0x7c00, 0xfc00, 0x7c00, 0x0000, 0x8000});
  for (uint32_t nan : {0x7f800001u, 0x7fc00000u, 0xffffffffu, 0xff812345u}) {  // 0x7fff with the sign
    float f;
    std::memcpy(&f, &nan, 4);
    x.push_back(f);
    want.push_back(static_cast<uint16_t>(((nan >> 16) & 0x8000u) | 0x7fffu));
  }
  const int64_t n = static_cast<int64_t>(x.size());
  Tensor src(ektest::upload(ctx, {n}, EK_FLOAT32, x.data())), narrow, wide;
  EK_OK(ek_cast(nullptr, src, EK_FLOAT16, narrow.out()));
  const std::vector<uint16_t> got = to_host<uint16_t>(narrow);
  int64_t bad = 0;
  for (int64_t i = 0; i < n; ++i)
    if (got[i] != want[i] && bad++ < 5) ADD_FAILURE() << std::hexfloat << x[i] << " -> " << std::hex << got[i] << " want " << want[i];
  EXPECT_EQ(bad, 0);
  std::vector<uint16_t> all(65536);
  for (uint32_t h = 0; h < 65536; ++h) all[h] = static_cast<uint16_t>(h);
  Tensor halves(ektest::upload(ctx, {65536}, EK_FLOAT16, all.data()));
  EK_OK(ek_cast(nullptr, halves, EK_FLOAT32, wide.out()));
  const std::vector<float> widened = to_host<float>(wide);
  for (uint32_t h = 0; h < 65536; ++h) {
    float w = f16_grid(static_cast<uint16_t>(h));
    if (std::isnan(w)) {  // the canonical quiet NaN with the input's sign (ek.h "Casts")
      const uint32_t bits = ((h & 0x8000u) << 16) | 0x7fc00000u;
      std::memcpy(&w, &bits, 4);
    }
    if (std::memcmp(&w, &widened[h], 4) != 0) {
      uint32_t got_bits;
      std::memcpy(&got_bits, &widened[h], 4);
      ADD_FAILURE() << "float16 0x" << std::hex << h << " widened to 0x" << got_bits;
      break;
    }
  }
}

// float32 -> bfloat16 casts at every bfloat16 rounding boundary: for each
// finite bfloat16 b, the float32 b itself, one ulp below the midpoint to
// the next bfloat16, the midpoint (a tie: to the even one) and one ulp above
// (past the largest finite: infinity); float32 NaNs give 0x7fc0 with their
// sign. The oracle works on the bits.
TEST_P(ElementwiseMore, BFloat16CastsRoundAtEveryBoundary) {
  std::vector<uint32_t> x;
  std::vector<uint16_t> want;
  for (uint32_t b = 0; b < 0x10000; ++b) {
    if ((b & 0x7f80u) == 0x7f80u) continue;  // Inf and NaN: below
    const uint32_t f = b << 16;
    const uint16_t lo = static_cast<uint16_t>(b), hi = static_cast<uint16_t>(b + 1);
    x.insert(x.end(), {f, f | 0x7fffu, f | 0x8000u, f | 0x8001u});
    want.insert(want.end(), {lo, lo, (lo & 1) ? hi : lo, hi});
  }
  x.insert(x.end(), {0x7f800000u, 0xff800000u, 0x7f800001u, 0x7fc00000u, 0xffffffffu, 0xff812345u});
  want.insert(want.end(), {0x7f80, 0xff80, 0x7fc0, 0x7fc0, 0xffc0, 0xffc0});
  const int64_t n = static_cast<int64_t>(x.size());
  Tensor src(ektest::upload(ctx, {n}, EK_FLOAT32, x.data())), narrow;
  EK_OK(ek_cast(nullptr, src, EK_BFLOAT16, narrow.out()));
  const std::vector<uint16_t> got = to_host<uint16_t>(narrow);
  int64_t bad = 0;
  for (int64_t i = 0; i < n; ++i)
    if (got[i] != want[i] && bad++ < 5)
      ADD_FAILURE() << std::hex << "float32 0x" << x[i] << " -> 0x" << got[i] << " want 0x" << want[i];
  EXPECT_EQ(bad, 0);
}

// A float16 NaN through relu (which passes it on unchanged): to float16
// 0x7fff with its sign, to float32 a quiet NaN of its sign (ek.h "Casts":
// payloads are dropped), on the CPU and CUDA (whose conversions are the
// hardware's with the sign OR-ed back in).
TEST_P(ElementwiseMore, Float16NanBitsThroughAnOp) {
  const std::vector<uint16_t> h = {0x7c01, 0x7d55, 0x7e00, 0x7fff, 0xfc01, 0xfe3c, 0x3c00, 0xbc00};
  const int64_t n = static_cast<int64_t>(h.size());
  Tensor x(ektest::upload(ctx, {n}, EK_FLOAT16, h.data())), same_type, wide;
  EK_OK(ek_unary(nullptr, EK_UNARY_RELU, x, same_type.out()));
  EK_OK(ek_tensor_empty(nullptr, ctx, 1, &n, EK_FLOAT32, wide.out()));
  ek_tensor w = wide;
  EK_OK(ek_unary(nullptr, EK_UNARY_RELU, x, &w));
  const std::vector<uint16_t> narrow = to_host<uint16_t>(same_type);
  const std::vector<uint32_t> widened = to_host<uint32_t>(wide);
  for (int64_t i = 0; i < n; ++i) {
    const uint32_t sign = h[i] & 0x8000u, m = h[i] & 0x3ffu;
    const bool nan = (h[i] & 0x7c00u) == 0x7c00u && m != 0;
    const uint16_t want16 = nan ? static_cast<uint16_t>(sign | 0x7fffu) : (sign ? 0 : h[i]);
    EXPECT_EQ(narrow[i], want16) << std::hex << h[i];
    if (nan) EXPECT_EQ(widened[i] & 0xffc00000u, (sign << 16) | 0x7fc00000u) << std::hex << h[i] << " " << widened[i];
    else EXPECT_EQ(widened[i], sign ? 0u : 0x3f800000u) << std::hex << h[i];
  }
}

// np.floor_divide and np.remainder over signed zeros, infinities and finite
// values (float64 and float32 agree), except floor_divide with an infinite
// operand: a / b, as the array API standard says (NumPy: inf // 2 NaN,
// 7 // -inf -1.0).
TEST_P(ElementwiseMore, FloorDivideAndRemainderAsNumpy) {
  const Values x = {-kInf, -7.0, -0.0, 0.0, 7.0, kInf};
  const Values y = {-kInf, -2.0, -0.0, 0.0, 2.0, kInf};
  // NumPy's results, row a = x[i], column b = y[j].
  const double N = kNan;
  const double numpy_fd[6][6] = {{N, N, kInf, -kInf, N, N},        {0.0, 3.0, kInf, -kInf, -4.0, -1.0},
                                 {0.0, 0.0, N, N, -0.0, -0.0},     {-0.0, -0.0, N, N, 0.0, 0.0},
                                 {-1.0, -4.0, -kInf, kInf, 3.0, 0.0}, {N, N, -kInf, kInf, N, N}};
  const double numpy_rem[6][6] = {{N, N, N, N, N, N},             {-7.0, -1.0, N, N, 1.0, kInf},
                                  {-0.0, -0.0, N, N, 0.0, 0.0},   {-0.0, -0.0, N, N, 0.0, 0.0},
                                  {-kInf, -1.0, N, N, 1.0, 7.0},  {N, N, N, N, N, N}};
  Values av, bv;
  for (double a : x)
    for (double b : y) {
      av.push_back(a);
      bv.push_back(b);
    }
  for (ek_dtype dt : {EK_FLOAT64, EK_FLOAT32, EK_FLOAT16}) {
    Tensor a(vec(av, dt)), b(vec(bv, dt));
    const Values fd = binary(EK_BINARY_FLOOR_DIV, a, b), rem = binary(EK_BINARY_REMAINDER, a, b);
    for (size_t i = 0; i < x.size(); ++i)
      for (size_t j = 0; j < y.size(); ++j) {
        const size_t k = i * y.size() + j;
        const bool infinite = std::isinf(x[i]) || std::isinf(y[j]);
        const double want_fd = infinite && y[j] != 0 ? x[i] / y[j] : numpy_fd[i][j];
        EXPECT_TRUE(same(fd[k], want_fd)) << ek_dtype_name(dt) << " " << x[i] << " // " << y[j]
                                          << " = " << fd[k] << ", want " << want_fd;
        EXPECT_TRUE(same(rem[k], numpy_rem[i][j])) << ek_dtype_name(dt) << " " << x[i] << " % " << y[j]
                                                   << " = " << rem[k] << ", want " << numpy_rem[i][j];
      }
  }
  // The four cases, with a scalar operand too.
  Tensor inf(vec({kInf})), one(vec({1.0})), mzero(vec({-0.0})), zero(vec({0.0}));
  Tensor r1, r2, r3, r4;
  EK_OK(ek_binary_scalar(nullptr, EK_BINARY_FLOOR_DIV, inf, ek_scalar_float(1.0), 0, r1.out()));
  EK_OK(ek_binary_scalar(nullptr, EK_BINARY_FLOOR_DIV, one, ek_scalar_float(-kInf), 0, r2.out()));
  EK_OK(ek_binary_scalar(nullptr, EK_BINARY_REMAINDER, mzero, ek_scalar_float(1.0), 0, r3.out()));
  EK_OK(ek_binary_scalar(nullptr, EK_BINARY_REMAINDER, zero, ek_scalar_float(-1.0), 0, r4.out()));
  EXPECT_TRUE(same(values_of(r1)[0], kInf));
  EXPECT_TRUE(same(values_of(r2)[0], -0.0));
  EXPECT_TRUE(same(values_of(r3)[0], 0.0));
  EXPECT_TRUE(same(values_of(r4)[0], -0.0));
}

TEST_P(ElementwiseMore, IntegerInputsComputeInFloat32) {
  Tensor i(vec({-1, 0, 1, 3}, EK_INT32)), j(vec({2, -1, 1, 4}, EK_INT64)), f(vec({-1, 0, 1, 3}, EK_FLOAT32)),
      g(vec({2, -1, 1, 4}, EK_FLOAT32));
  for (int op : kNewUnary) {
    if (op == EK_UNARY_SIGNBIT) continue;
    Tensor y;
    EK_OK(ek_unary(nullptr, static_cast<ek_unary_op>(op), i, y.out()));
    EXPECT_EQ(dtype_of(y), EK_FLOAT32);
    const Values got = values_of(y), want = unary(op, f);
    for (size_t k = 0; k < got.size(); ++k) EXPECT_TRUE(same(got[k], want[k])) << "op " << op;
  }
  for (int op : kNewBinary) {
    Tensor y;
    EK_OK(ek_binary(nullptr, static_cast<ek_binary_op>(op), i, j, y.out()));
    EXPECT_EQ(dtype_of(y), EK_FLOAT32);
    const Values got = values_of(y), want = binary(op, f, g);
    for (size_t k = 0; k < got.size(); ++k) EXPECT_TRUE(same(got[k], want[k])) << "op " << op;
  }
}

TEST_P(ElementwiseMore, EmptyInputs) {
  const int64_t shape[] = {0, 3};
  Tensor e;
  EK_OK(ek_tensor_empty(nullptr, ctx, 2, shape, EK_FLOAT32, e.out()));
  for (int op : kNewUnary) {
    Tensor y;
    EK_OK(ek_unary(nullptr, static_cast<ek_unary_op>(op), e, y.out()));
    EXPECT_EQ(shape_of(y), (ektest::Shape{0, 3}));
  }
  Tensor row(vec({1, 2, 3}, EK_FLOAT32));
  for (int op : kNewBinary) {
    Tensor y, ys;
    EK_OK(ek_binary(nullptr, static_cast<ek_binary_op>(op), e, row, y.out()));
    EXPECT_EQ(shape_of(y), (ektest::Shape{0, 3}));
    EK_OK(ek_binary_scalar(nullptr, static_cast<ek_binary_op>(op), e, ek_scalar_float(2), 1, ys.out()));
    EXPECT_EQ(shape_of(ys), (ektest::Shape{0, 3}));
  }
}

// Transposed and stepped views give what contiguous copies give.
TEST_P(ElementwiseMore, NonContiguousInputs) {
  const Values v = ektest::random_values(6 * 8, 7, -0.99, 0.99);
  const Values w = ektest::random_values(8 * 6 * 2, 8, -3.0, 3.0);
  for (ek_dtype dt : kFloats) {
    Tensor base(make({6, 8}, dt, v)), wide(make({8, 12}, dt, w));
    Tensor t(ektest::transposed(base, 0, 1));  // [8, 6]
    Tensor s(ektest::sliced(wide, 1, 0, EK_SLICE_MAX, 2));  // [8, 6], every other column
    Tensor tc, sc;
    EK_OK(ek_contiguous(nullptr, t, tc.out()));
    EK_OK(ek_contiguous(nullptr, s, sc.out()));
    for (int op : kNewUnary) {
      const Values got = unary(op, t), want = unary(op, tc);
      for (size_t k = 0; k < want.size(); ++k) EXPECT_TRUE(same(got[k], want[k])) << "op " << op;
    }
    for (int op : kNewBinary) {
      const Values got = binary(op, t, s), want = binary(op, tc, sc);
      for (size_t k = 0; k < want.size(); ++k) EXPECT_TRUE(same(got[k], want[k])) << "op " << op;
    }
  }
}

TEST_P(ElementwiseMore, BadInput) {
  Tensor a(vec({1, 2, 3}, EK_FLOAT32)), b(vec({1, 2}, EK_FLOAT32)), y;
  EK_FAILS(ek_binary(nullptr, EK_BINARY_HYPOT, a, b, y.out()), EK_ERROR_SHAPE, "ek_binary");
  EK_FAILS(ek_unary(nullptr, static_cast<ek_unary_op>(EK_UNARY_SIGNBIT + 1), a, y.out()),
           EK_ERROR_INVALID_ARGUMENT, "unknown unary op 41");
  EK_FAILS(ek_binary(nullptr, static_cast<ek_binary_op>(EK_BINARY_NEXTAFTER + 1), a, a, y.out()),
           EK_ERROR_INVALID_ARGUMENT, "unknown binary op 28");
}

}  // namespace
