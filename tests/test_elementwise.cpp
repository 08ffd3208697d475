// ek_unary, ek_binary, ek_binary_scalar: every op against a double-precision
// reference, promotion, broadcasting, layouts, in-place, NaN/Inf, Python
// division signs, bad input. CUDA against the CPU backend: test_conformance.cpp.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <random>

#include "ek_test.hpp"

using ektest::dtype_of;
using ektest::shape_of;
using ektest::Tensor;
using ektest::to_host;
using ektest::values_of;

namespace {

// Scalars as PyTorch's float64 reference computes them.
double ref_unary(int op, double x) {
  switch (static_cast<ek_unary_op>(op)) {  // -Wswitch names an op left out
    case EK_UNARY_NEG: return -x;
    case EK_UNARY_ABS: return std::fabs(x);
    case EK_UNARY_SIGN: return std::isnan(x) ? x : (0 < x) - (x < 0);
    case EK_UNARY_EXP: return std::exp(x);
    case EK_UNARY_EXP2: return std::exp2(x);
    case EK_UNARY_EXPM1: return std::expm1(x);
    case EK_UNARY_LOG: return std::log(x);
    case EK_UNARY_LOG2: return std::log2(x);
    case EK_UNARY_LOG1P: return std::log1p(x);
    case EK_UNARY_SQRT: return std::sqrt(x);
    case EK_UNARY_RSQRT: return 1 / std::sqrt(x);
    case EK_UNARY_SQUARE: return x * x;
    case EK_UNARY_RECIPROCAL: return 1 / x;
    case EK_UNARY_SIN: return std::sin(x);
    case EK_UNARY_COS: return std::cos(x);
    case EK_UNARY_TAN: return std::tan(x);
    case EK_UNARY_TANH: return std::tanh(x);
    case EK_UNARY_SIGMOID: return 1 / (1 + std::exp(-x));
    case EK_UNARY_RELU: return x < 0 ? 0 : x;
    case EK_UNARY_GELU: return 0.5 * x * std::erfc(-x / std::sqrt(2.0));
    case EK_UNARY_GELU_TANH:
      return 0.5 * x * (1 + std::tanh(std::sqrt(2 / M_PI) * (x + 0.044715 * x * x * x)));
    case EK_UNARY_SILU: return x / (1 + std::exp(-x));
    case EK_UNARY_ERF: return std::erf(x);
    case EK_UNARY_FLOOR: return std::floor(x);
    case EK_UNARY_CEIL: return std::ceil(x);
    case EK_UNARY_ROUND: return std::nearbyint(x);
    case EK_UNARY_TRUNC: return std::trunc(x);
    case EK_UNARY_LOGICAL_NOT: return x == 0;
    case EK_UNARY_ISNAN: return std::isnan(x);
    case EK_UNARY_ISINF: return std::isinf(x);
    case EK_UNARY_ISFINITE: return std::isfinite(x);
    case EK_UNARY_ASIN: return std::asin(x);
    case EK_UNARY_ACOS: return std::acos(x);
    case EK_UNARY_ATAN: return std::atan(x);
    case EK_UNARY_SINH: return std::sinh(x);
    case EK_UNARY_COSH: return std::cosh(x);
    case EK_UNARY_ASINH: return std::asinh(x);
    case EK_UNARY_ACOSH: return std::acosh(x);
    case EK_UNARY_ATANH: return std::atanh(x);
    case EK_UNARY_LOG10: return std::log10(x);
    case EK_UNARY_SIGNBIT: return std::signbit(x);
  }
  return NAN;
}

double py_floor_div(double a, double b) { return std::floor(a / b); }
double py_mod(double a, double b) {
  double m = std::fmod(a, b);
  return (m != 0 && ((m < 0) != (b < 0))) ? m + b : m;
}

double ref_binary(int op, double a, double b) {
  switch (op) {
    case EK_BINARY_ADD: return a + b;
    case EK_BINARY_SUB: return a - b;
    case EK_BINARY_MUL: return a * b;
    case EK_BINARY_DIV: return a / b;
    case EK_BINARY_FLOOR_DIV: return py_floor_div(a, b);
    case EK_BINARY_REMAINDER: return py_mod(a, b);
    case EK_BINARY_POW: return std::pow(a, b);
    case EK_BINARY_ATAN2: return std::atan2(a, b);
    case EK_BINARY_MAXIMUM: return std::isnan(a) || std::isnan(b) ? NAN : std::max(a, b);
    case EK_BINARY_MINIMUM: return std::isnan(a) || std::isnan(b) ? NAN : std::min(a, b);
    case EK_BINARY_EQ: return a == b;
    case EK_BINARY_NE: return a != b;
    case EK_BINARY_LT: return a < b;
    case EK_BINARY_LE: return a <= b;
    case EK_BINARY_GT: return a > b;
    case EK_BINARY_GE: return a >= b;
    case EK_BINARY_LOGICAL_AND: return a != 0 && b != 0;
    case EK_BINARY_LOGICAL_OR: return a != 0 || b != 0;
    case EK_BINARY_LOGICAL_XOR: return (a != 0) != (b != 0);
  }
  return NAN;
}

double tolerance(ek_dtype dt) {
  switch (dt) {
    case EK_FLOAT16: return 1e-3;
    case EK_BFLOAT16: return 1e-2;
    case EK_FLOAT32: return 1e-6;
    case EK_FLOAT64: return 1e-12;
    default: return 0;
  }
}

// got matches ref within rel (relative, and absolute near zero); NaN matches NaN.
::testing::AssertionResult close(double got, double ref, double rel) {
  if (std::isnan(ref) && std::isnan(got)) return ::testing::AssertionSuccess();
  if (std::isinf(ref) && got == ref) return ::testing::AssertionSuccess();
  if (std::fabs(got - ref) <= rel * std::max(1.0, std::fabs(ref))) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "got " << got << ", expected " << ref;
}

class Elementwise : public ektest::DeviceTest {
 protected:
  // A tensor of dtype holding values (converted by ek_cast from float64).
  // shape {} means 1-D of values' length (0-d for one value).
  ek_tensor make(const std::vector<double> &values, std::vector<int64_t> shape = {},
                 ek_dtype dtype = EK_FLOAT64) {
    if (shape.empty() && values.size() != 1) shape = {static_cast<int64_t>(values.size())};
    return ektest::make(ctx, shape, dtype, values);
  }
  // The input values rounded to dtype, as the library sees them.
  std::vector<double> rounded(const std::vector<double> &v, ek_dtype dtype) {
    Tensor t(make(v, {}, dtype));
    return values_of(t);
  }
};
EK_INSTANTIATE_DEVICES(Elementwise);

const std::vector<double> kInputs = {-2.5, -1.3, -0.5, 0.0, 0.25, 0.7, 1.5, 3.0, 2.5, -3.5};

// Ops whose float32 result compounds a few roundings (1 + tanh, x * sigmoid).
double unary_rel(int op, ek_dtype dt) {
  double tol = tolerance(dt);
  bool compound = op == EK_UNARY_GELU || op == EK_UNARY_GELU_TANH || op == EK_UNARY_SILU ||
                  op == EK_UNARY_SIGMOID;
  return dt == EK_FLOAT32 && compound ? 1e-5 : tol;
}

// Every unary op of the list: a new op fails until ref_unary has its case.
#define EKT_VALUE_(name, value, text) value,
const int kUnaryOps[] = {EK_UNARY_OP_LIST(EKT_VALUE_)};
#undef EKT_VALUE_

void check_unary_all(Elementwise *self, ek_dtype dt, std::function<ek_tensor(std::vector<double>, ek_dtype)> make,
                     std::function<std::vector<double>(ek_tensor)> read, std::vector<double> in) {
  Tensor x(make(kInputs, dt));
  for (int op : kUnaryOps) {
    Tensor y;
    ASSERT_EQ(ek_unary(nullptr, static_cast<ek_unary_op>(op), x, y.out()), EK_SUCCESS) << ek_last_error();
    auto got = read(y);
    ek_tensor_info info = EK_TENSOR_INFO_INIT;
    ASSERT_EQ(ek_tensor_get_info(y, &info), EK_SUCCESS);
    const double rel = info.dtype == EK_BOOL ? 0 : unary_rel(op, dt);  // predicates are exact
    for (size_t i = 0; i < in.size(); ++i)
      EXPECT_TRUE(close(got[i], ref_unary(op, in[i]), rel)) << "op " << op << " x " << in[i];
  }
  (void)self;
}

TEST_P(Elementwise, EveryUnaryOpOnFloatDtypes) {
  for (ek_dtype dt : {EK_FLOAT32, EK_FLOAT64, EK_FLOAT16, EK_BFLOAT16}) {
    SCOPED_TRACE(ek_dtype_name(dt));
    check_unary_all(this, dt, [&](std::vector<double> v, ek_dtype d) { return make(v, {}, d); },
                    values_of, rounded(kInputs, dt));
  }
}

TEST_P(Elementwise, EveryBinaryOpOnFloat32) {
  const std::vector<double> av = {-2.5, -1.3, 0.5, 7.0, 0.25, -7.0, 1.5, 3.0, 0.0, 2.0};
  const std::vector<double> bv = {1.5, -0.4, 0.5, 2.0, -3.0, 2.0, 1.5, -0.75, 4.0, 0.5};
  for (ek_dtype dt : {EK_FLOAT32, EK_FLOAT64, EK_FLOAT16, EK_BFLOAT16}) {
    SCOPED_TRACE(ek_dtype_name(dt));
    Tensor a(make(av, {}, dt)), b(make(bv, {}, dt));
    auto ra = rounded(av, dt), rb = rounded(bv, dt);
    for (int op = 0; op <= EK_BINARY_LOGICAL_XOR; ++op) {
      Tensor y;
      ASSERT_EQ(ek_binary(nullptr, static_cast<ek_binary_op>(op), a, b, y.out()), EK_SUCCESS) << ek_last_error();
      EXPECT_EQ(dtype_of(y), op >= EK_BINARY_EQ ? EK_BOOL : dt);
      auto got = values_of(y);
      for (size_t i = 0; i < av.size(); ++i)
        EXPECT_TRUE(close(got[i], ref_binary(op, ra[i], rb[i]), tolerance(dt)))
            << "op " << op << ": " << ra[i] << ", " << rb[i];
    }
  }
}

TEST_P(Elementwise, IntegerOpsAreExact) {
  for (ek_dtype dt : {EK_INT32, EK_INT64, EK_INT16, EK_INT8}) {
    SCOPED_TRACE(ek_dtype_name(dt));
    const std::vector<double> av = {7, -7, 7, -7, 0, 5, -1, 3}, bv = {2, 2, -2, -2, 3, 1, 4, 3};
    Tensor a(make(av, {}, dt)), b(make(bv, {}, dt));
    for (int op : {EK_BINARY_ADD, EK_BINARY_SUB, EK_BINARY_MUL, EK_BINARY_FLOOR_DIV, EK_BINARY_REMAINDER,
                   EK_BINARY_POW, EK_BINARY_MAXIMUM, EK_BINARY_MINIMUM, EK_BINARY_LT, EK_BINARY_EQ}) {
      Tensor y;
      EK_OK(ek_binary(nullptr, static_cast<ek_binary_op>(op), a, b, y.out()));
      EXPECT_EQ(dtype_of(y), op >= EK_BINARY_EQ ? EK_BOOL : dt);
      auto got = values_of(y);
      for (size_t i = 0; i < av.size(); ++i)
        EXPECT_EQ(got[i], op == EK_BINARY_POW && bv[i] < 0 ? 0 : ref_binary(op, av[i], bv[i]))
            << "op " << op << ": " << av[i] << ", " << bv[i];
    }
    for (int op : {EK_UNARY_NEG, EK_UNARY_ABS, EK_UNARY_SIGN, EK_UNARY_SQUARE, EK_UNARY_RELU, EK_UNARY_FLOOR}) {
      Tensor y;
      EK_OK(ek_unary(nullptr, static_cast<ek_unary_op>(op), a, y.out()));
      EXPECT_EQ(dtype_of(y), dt);
      auto got = values_of(y);
      for (size_t i = 0; i < av.size(); ++i) EXPECT_EQ(got[i], ref_unary(op, av[i])) << "op " << op;
    }
  }
}

TEST_P(Elementwise, BitwiseAndShifts) {
  Tensor a(make({12, -12, 5, 1}, {}, EK_INT32)), b(make({10, 3, 1, 31}, {}, EK_INT32)), y1, y2, y3, y4, y5;
  EK_OK(ek_binary(nullptr, EK_BINARY_BITWISE_AND, a, b, y1.out()));
  EK_OK(ek_binary(nullptr, EK_BINARY_BITWISE_OR, a, b, y2.out()));
  EK_OK(ek_binary(nullptr, EK_BINARY_BITWISE_XOR, a, b, y3.out()));
  EK_OK(ek_binary(nullptr, EK_BINARY_SHIFT_LEFT, a, b, y4.out()));
  EK_OK(ek_binary(nullptr, EK_BINARY_SHIFT_RIGHT, a, b, y5.out()));
  EXPECT_EQ(to_host<int32_t>(y1), (std::vector<int32_t>{8, 0, 1, 1}));
  EXPECT_EQ(to_host<int32_t>(y2), (std::vector<int32_t>{14, -9, 5, 31}));
  EXPECT_EQ(to_host<int32_t>(y3), (std::vector<int32_t>{6, -9, 4, 30}));
  EXPECT_EQ(to_host<int32_t>(y4), (std::vector<int32_t>{12288, -96, 10, INT32_MIN}));
  EXPECT_EQ(to_host<int32_t>(y5), (std::vector<int32_t>{0, -2, 2, 0}));
  Tensor t(make({1, 0, 1}, {}, EK_BOOL)), f(make({1, 1, 0}, {}, EK_BOOL)), z;
  EK_OK(ek_binary(nullptr, EK_BINARY_BITWISE_XOR, t, f, z.out()));
  EXPECT_EQ(dtype_of(z), EK_BOOL);
  EXPECT_EQ(values_of(z), (std::vector<double>{0, 1, 1}));
}

TEST_P(Elementwise, Int64KeepsFullPrecisionAndWraps) {
  const int64_t big = (int64_t(1) << 62) + 1;
  Tensor a, b, y;
  int64_t av[2] = {big, INT64_MAX}, bv[2] = {big, 1};
  const int64_t shape[1] = {2};
  EK_OK(ek_tensor_from_host(nullptr, ctx, 1, shape, EK_INT64, av, a.out()));
  EK_OK(ek_tensor_from_host(nullptr, ctx, 1, shape, EK_INT64, bv, b.out()));
  EK_OK(ek_binary(nullptr, EK_BINARY_ADD, a, b, y.out()));
  auto got = to_host<int64_t>(y);
  EXPECT_EQ(got[0], static_cast<int64_t>(uint64_t(big) * 2));
  EXPECT_EQ(got[1], INT64_MIN);
}

TEST_P(Elementwise, BoolLogicalOps) {
  Tensor a(make({0, 0, 1, 1}, {}, EK_BOOL)), b(make({0, 1, 0, 1}, {}, EK_BOOL)), y1, y2, y3, n;
  EK_OK(ek_binary(nullptr, EK_BINARY_LOGICAL_AND, a, b, y1.out()));
  EK_OK(ek_binary(nullptr, EK_BINARY_LOGICAL_OR, a, b, y2.out()));
  EK_OK(ek_binary(nullptr, EK_BINARY_LOGICAL_XOR, a, b, y3.out()));
  EK_OK(ek_unary(nullptr, EK_UNARY_LOGICAL_NOT, a, n.out()));
  EXPECT_EQ(values_of(y1), (std::vector<double>{0, 0, 0, 1}));
  EXPECT_EQ(values_of(y2), (std::vector<double>{0, 1, 1, 1}));
  EXPECT_EQ(values_of(y3), (std::vector<double>{0, 1, 1, 0}));
  EXPECT_EQ(values_of(n), (std::vector<double>{1, 1, 0, 0}));
  Tensor f(make({0.5, 0, NAN}, {}, EK_FLOAT32)), g;
  EK_OK(ek_unary(nullptr, EK_UNARY_LOGICAL_NOT, f, g.out()));
  EXPECT_EQ(dtype_of(g), EK_BOOL);
  EXPECT_EQ(values_of(g), (std::vector<double>{0, 1, 0}));
}

TEST_P(Elementwise, PromotionOfTensorPairs) {
  struct Case { ek_dtype a, b; int op; ek_dtype want; };
  const Case cases[] = {
      {EK_INT32, EK_FLOAT32, EK_BINARY_ADD, EK_FLOAT32}, {EK_UINT8, EK_INT8, EK_BINARY_ADD, EK_INT16},
      {EK_FLOAT16, EK_BFLOAT16, EK_BINARY_MUL, EK_FLOAT32}, {EK_BOOL, EK_INT32, EK_BINARY_ADD, EK_INT32},
      {EK_INT64, EK_FLOAT16, EK_BINARY_SUB, EK_FLOAT16}, {EK_INT32, EK_INT32, EK_BINARY_DIV, EK_FLOAT32},
      {EK_INT32, EK_INT64, EK_BINARY_ATAN2, EK_FLOAT32}, {EK_FLOAT32, EK_FLOAT64, EK_BINARY_ADD, EK_FLOAT64},
      {EK_UINT8, EK_INT32, EK_BINARY_MAXIMUM, EK_INT32}, {EK_FLOAT16, EK_FLOAT16, EK_BINARY_LT, EK_BOOL},
      {EK_INT8, EK_FLOAT64, EK_BINARY_LOGICAL_OR, EK_BOOL}, {EK_BOOL, EK_BOOL, EK_BINARY_ADD, EK_BOOL}};
  for (const Case &c : cases) {
    Tensor a(make({3, 1}, {}, c.a)), b(make({2, 1}, {}, c.b)), y;
    EK_OK(ek_binary(nullptr, static_cast<ek_binary_op>(c.op), a, b, y.out()));
    EXPECT_EQ(dtype_of(y), c.want) << ek_dtype_name(c.a) << " op " << c.op << " " << ek_dtype_name(c.b);
  }
  Tensor i(make({3, 4}, {}, EK_INT32)), q;
  EK_OK(ek_binary(nullptr, EK_BINARY_DIV, i, i, q.out()));
  EXPECT_EQ(values_of(q), (std::vector<double>{1, 1}));
}

// An integer operand is converted to the promoted half type before the op
// (PyTorch): 30001 is 30000 in float16, 257 is 256 in bfloat16, 2049 is 2048.
TEST_P(Elementwise, IntegerOperandsRoundToTheHalfTypeFirst) {
  Tensor i16(make({30001, 2049, 4097}, {}, EK_INT16)), h(make({30000, -1, -1}, {}, EK_FLOAT16));
  Tensor eq, eq_rev, diff, pw;
  EK_OK(ek_binary(nullptr, EK_BINARY_EQ, i16, h, eq.out()));
  EK_OK(ek_binary(nullptr, EK_BINARY_EQ, h, i16, eq_rev.out()));
  EXPECT_EQ(values_of(eq)[0], 1);
  EXPECT_EQ(values_of(eq_rev)[0], 1);
  EK_OK(ek_binary(nullptr, EK_BINARY_SUB, i16, h, diff.out()));
  EXPECT_EQ(dtype_of(diff), EK_FLOAT16);
  EXPECT_EQ(values_of(diff)[0], 0.0);
  EK_OK(ek_binary(nullptr, EK_BINARY_POW, h, i16, pw.out()));  // (-1) ** 2048, not ** 2049
  EXPECT_EQ(values_of(pw), (std::vector<double>{INFINITY, 1, 1}));
  Tensor i32(make({257, -257}, {}, EK_INT32)), b(make({256, -256}, {}, EK_BFLOAT16)), beq, bsub;
  EK_OK(ek_binary(nullptr, EK_BINARY_EQ, b, i32, beq.out()));
  EXPECT_EQ(values_of(beq), (std::vector<double>{1, 1}));
  EK_OK(ek_binary(nullptr, EK_BINARY_SUB, i32, b, bsub.out()));
  EXPECT_EQ(values_of(bsub), (std::vector<double>{0, 0}));
  // Wider floats keep the integer exact.
  Tensor f(make({30000}, {}, EK_FLOAT32)), feq;
  EK_OK(ek_binary(nullptr, EK_BINARY_EQ, i16, f, feq.out()));
  EXPECT_EQ(values_of(feq), (std::vector<double>{0, 0, 0}));
}

TEST_P(Elementwise, PromotionOfUnaryResults) {
  Tensor i(make({4, -1}, {}, EK_INT32)), h(make({1, NAN}, {}, EK_FLOAT16)), e, n, a, r;
  EK_OK(ek_unary(nullptr, EK_UNARY_SQRT, i, e.out()));
  EXPECT_EQ(dtype_of(e), EK_FLOAT32);
  auto v = values_of(e);
  EXPECT_EQ(v[0], 2);
  EXPECT_TRUE(std::isnan(v[1]));
  EK_OK(ek_unary(nullptr, EK_UNARY_ISNAN, h, n.out()));
  EXPECT_EQ(dtype_of(n), EK_BOOL);
  EXPECT_EQ(values_of(n), (std::vector<double>{0, 1}));
  EK_OK(ek_unary(nullptr, EK_UNARY_ABS, i, a.out()));
  EXPECT_EQ(dtype_of(a), EK_INT32);
  EK_OK(ek_unary(nullptr, EK_UNARY_RECIPROCAL, i, r.out()));
  EXPECT_EQ(dtype_of(r), EK_FLOAT32);
  EXPECT_EQ(values_of(r), (std::vector<double>{0.25, -1}));
}

TEST_P(Elementwise, ScalarsDoNotPromoteWithinACategory) {
  struct Case { ek_dtype t; ek_scalar s; ek_dtype want; };
  using ektest::scalar;
  const Case cases[] = {{EK_INT32, scalar(2.5), EK_FLOAT32},     {EK_INT32, scalar(2), EK_INT32},
                        {EK_FLOAT16, scalar(2.0), EK_FLOAT16},   {EK_BOOL, scalar(2), EK_INT64},
                        {EK_BOOL, scalar(0.5), EK_FLOAT32},      {EK_UINT8, scalar(300), EK_UINT8},
                        {EK_BFLOAT16, scalar(1e10), EK_BFLOAT16}};
  for (const Case &c : cases) {
    Tensor a(make({1, 2}, {}, c.t)), y;
    EK_OK(ek_binary_scalar(nullptr, EK_BINARY_MUL, a, c.s, 0, y.out()));
    EXPECT_EQ(dtype_of(y), c.want)
        << ek_dtype_name(c.t) << " * " << (c.s.kind == EK_SCALAR_INT64 ? c.s.i : c.s.f);
  }
  Tensor a(make({1, 2, 3}, {}, EK_INT32)), y1, y2, y3;
  EK_OK(ek_binary_scalar(nullptr, EK_BINARY_ADD, a, ek_scalar_float(2.5), 0, y1.out()));
  EXPECT_EQ(values_of(y1), (std::vector<double>{3.5, 4.5, 5.5}));
  EK_OK(ek_binary_scalar(nullptr, EK_BINARY_SUB, a, ek_scalar_int(10), 1, y2.out()));  // 10 - a
  EXPECT_EQ(values_of(y2), (std::vector<double>{9, 8, 7}));
  EK_OK(ek_binary_scalar(nullptr, EK_BINARY_POW, a, ek_scalar_int(2), 1, y3.out()));  // 2 ** a
  EXPECT_EQ(values_of(y3), (std::vector<double>{2, 4, 8}));
  Tensor f(make({1, 2, 3}, {}, EK_FLOAT32)), d, lt;
  EK_OK(ek_binary_scalar(nullptr, EK_BINARY_DIV, f, ek_scalar_int(2), 1, d.out()));  // 2 / f
  EXPECT_EQ(values_of(d), (std::vector<double>{2, 1, 2.0f / 3.0f}));
  EK_OK(ek_binary_scalar(nullptr, EK_BINARY_LT, f, ek_scalar_float(1.5), 0, lt.out()));
  EXPECT_EQ(dtype_of(lt), EK_BOOL);
  EXPECT_EQ(values_of(lt), (std::vector<double>{1, 0, 0}));
}

TEST_P(Elementwise, BroadcastsRowAndColumn) {
  Tensor row(make({1, 2, 3, 4}, {4}, EK_FLOAT32)), col(make({10, 20, 30}, {3, 1}, EK_INT32)), y;
  EK_OK(ek_binary(nullptr, EK_BINARY_ADD, col, row, y.out()));
  EXPECT_EQ(shape_of(y), (std::vector<int64_t>{3, 4}));
  auto v = to_host<float>(y);
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 4; ++c) EXPECT_EQ(v[r * 4 + c], 10 * (r + 1) + c + 1);
}

TEST_P(Elementwise, BroadcastsZeroDimAndZeroSize) {
  Tensor s(make({5}, {}, EK_FLOAT32)), m(make({1, 2, 3, 4, 5, 6}, {2, 3}, EK_FLOAT32)), y, z;
  EXPECT_TRUE(shape_of(s).empty());
  EK_OK(ek_binary(nullptr, EK_BINARY_SUB, s, m, y.out()));
  EXPECT_EQ(shape_of(y), (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(values_of(y), (std::vector<double>{4, 3, 2, 1, 0, -1}));
  EK_OK(ek_binary(nullptr, EK_BINARY_MUL, s, s, z.out()));
  EXPECT_TRUE(shape_of(z).empty());
  EXPECT_EQ(values_of(z), (std::vector<double>{25}));
  Tensor e, row(make({1, 2, 3}, {3}, EK_FLOAT32)), ye, ue;
  const int64_t shape[2] = {0, 3};
  EK_OK(ek_tensor_empty(nullptr, ctx, 2, shape, EK_FLOAT32, e.out()));
  EK_OK(ek_binary(nullptr, EK_BINARY_ADD, e, row, ye.out()));
  EXPECT_EQ(shape_of(ye), (std::vector<int64_t>{0, 3}));
  EK_OK(ek_unary(nullptr, EK_UNARY_EXP, e, ue.out()));
  EXPECT_EQ(shape_of(ue), (std::vector<int64_t>{0, 3}));
}

TEST_P(Elementwise, StridedTransposedAndReversedInputs) {
  std::vector<double> v(12);
  for (int i = 0; i < 12; ++i) v[i] = i + 1;
  Tensor a(make(v, {3, 4}, EK_FLOAT32)), at, rev, b(make(v, {4, 3}, EK_FLOAT64)), y, cut, y2;
  EK_OK(ek_view_transpose(a, 0, 1, at.out()));                        // [4,3], strides (1,4)
  EK_OK(ek_view_slice(b, 0, EK_SLICE_MAX, EK_SLICE_MIN, -1, rev.out()));  // rows reversed
  EK_OK(ek_binary(nullptr, EK_BINARY_MUL, at, rev, y.out()));
  EXPECT_EQ(dtype_of(y), EK_FLOAT64);
  auto got = values_of(y);
  for (int r = 0; r < 4; ++r)
    for (int c = 0; c < 3; ++c) EXPECT_EQ(got[r * 3 + c], (c * 4 + r + 1) * ((3 - r) * 3 + c + 1.0));
  EK_OK(ek_view_slice(a, 1, 1, EK_SLICE_MAX, 2, cut.out()));  // columns 1 and 3
  EK_OK(ek_unary(nullptr, EK_UNARY_NEG, cut, y2.out()));
  EXPECT_EQ(values_of(y2), (std::vector<double>{-2, -4, -6, -8, -10, -12}));
}

// A size-1 dim with a stride near INT64_MAX / 4 (in bytes just inside int64
// for float32): the CPU walk used to step past it before rewinding and
// overflowed int64 (UBSan) on the second element.
TEST_P(Elementwise, HugeStrideOfASizeOneDim) {
  const int64_t shape[2] = {2, 1}, strides[2] = {1, INT64_MAX / 4};
  Tensor a(make({1.5, -2}, {}, EK_FLOAT32)), b(make({10, 20}, {}, EK_FLOAT32)), o0(make({0, 0}, {}, EK_FLOAT32));
  Tensor av, bv, ov, neg, sum;
  EK_OK(ek_view_as_strided(a, 2, shape, strides, 0, av.out()));
  EK_OK(ek_view_as_strided(b, 2, shape, strides, 0, bv.out()));
  EK_OK(ek_view_as_strided(o0, 2, shape, strides, 0, ov.out()));
  EK_OK(ek_unary(nullptr, EK_UNARY_NEG, av, neg.out()));
  EXPECT_EQ(values_of(neg), (std::vector<double>{-1.5, 2}));
  EK_OK(ek_binary(nullptr, EK_BINARY_ADD, av, bv, sum.out()));
  EXPECT_EQ(values_of(sum), (std::vector<double>{11.5, 18}));
  ek_tensor o = ov.t;  // the output strided the same way
  EK_OK(ek_binary(nullptr, EK_BINARY_MUL, av, bv, &o));
  EXPECT_EQ(values_of(o0), (std::vector<double>{15, -40}));
  EK_OK(ek_unary(nullptr, EK_UNARY_ABS, av, &o));
  EXPECT_EQ(values_of(o0), (std::vector<double>{1.5, 2}));
}

TEST_P(Elementwise, InPlaceAndOverlap) {
  Tensor a(make({1, 2, 3, 4}, {}, EK_FLOAT32)), b(make({10, 20, 30, 40}, {}, EK_FLOAT32));
  ek_tensor o = a.t;
  EK_OK(ek_binary(nullptr, EK_BINARY_ADD, a, b, &o));
  EXPECT_EQ(o, a.t);
  EXPECT_EQ(values_of(a), (std::vector<double>{11, 22, 33, 44}));
  EK_OK(ek_unary(nullptr, EK_UNARY_NEG, a, &o));
  EK_OK(ek_binary_scalar(nullptr, EK_BINARY_MUL, a, ek_scalar_int(2), 0, &o));
  EXPECT_EQ(values_of(a), (std::vector<double>{-22, -44, -66, -88}));
  ek_tensor ob = b.t;  // out == b, the second operand
  EK_OK(ek_binary(nullptr, EK_BINARY_SUB, a, b, &ob));
  EXPECT_EQ(values_of(b), (std::vector<double>{-32, -64, -96, -128}));
  Tensor big(make({1, 2, 3, 4, 5}, {}, EK_FLOAT32)), lo, hi;
  EK_OK(ek_view_slice(big, 0, 0, 4, 1, lo.out()));
  EK_OK(ek_view_slice(big, 0, 1, 5, 1, hi.out()));
  ek_tensor oh = hi.t;
  EK_FAILS(ek_unary(nullptr, EK_UNARY_NEG, lo, &oh), EK_ERROR_INVALID_ARGUMENT, "overlap");
  EK_FAILS(ek_binary(nullptr, EK_BINARY_ADD, b, lo, &oh), EK_ERROR_INVALID_ARGUMENT, "overlap");
}

// Overlap means sharing an element, whatever the strides: interleaved views
// are disjoint (x[1::2] = x[::2] * 10 was refused as "partially overlaps").
TEST_P(Elementwise, InterleavedDisjointOutIsAccepted) {
  Tensor x(make({0, 1, 2, 3, 4, 5, 6, 7}, {}, EK_FLOAT64)), even, odd;
  EK_OK(ek_view_slice(x, 0, 0, EK_SLICE_MAX, 2, even.out()));
  EK_OK(ek_view_slice(x, 0, 1, EK_SLICE_MAX, 2, odd.out()));
  ek_tensor o = odd.t;
  EK_OK(ek_binary_scalar(nullptr, EK_BINARY_MUL, even, ek_scalar_int(10), 0, &o));
  EXPECT_EQ(values_of(x), (std::vector<double>{0, 0, 2, 20, 4, 40, 6, 60}));
  Tensor m(make({1, 2, 3, 4, 5, 6}, {2, 3}, EK_FLOAT32)), left, right;  // column blocks
  EK_OK(ek_view_slice(m, 1, 0, 1, 1, left.out()));
  EK_OK(ek_view_slice(m, 1, 2, 3, 1, right.out()));
  o = right.t;
  EK_OK(ek_unary(nullptr, EK_UNARY_NEG, left, &o));
  EXPECT_EQ(values_of(m), (std::vector<double>{1, 2, -1, 4, 5, -4}));
  Tensor lo, mid;  // sharing elements 1 and 3 of x: still refused
  EK_OK(ek_view_slice(x, 0, 1, 5, 1, lo.out()));
  o = odd.t;
  EK_FAILS(ek_unary(nullptr, EK_UNARY_NEG, lo, &o), EK_ERROR_INVALID_ARGUMENT, "overlap");
  const int64_t two = 2, stride = 3;  // elements 0 and 3: the byte ranges of x[1::2] cover them
  EK_OK(ek_view_as_strided(x, 1, &two, &stride, 0, mid.out()));
  Tensor firsts;
  EK_OK(ek_view_slice(odd, 0, 0, 2, 1, firsts.out()));  // elements 1 and 3
  o = firsts.t;
  EK_FAILS(ek_unary(nullptr, EK_UNARY_NEG, mid, &o), EK_ERROR_INVALID_ARGUMENT, "overlap");
}

// The overlap rule against brute force: random strided views of one buffer
// (negative and zero strides in the input), out refused exactly when the two
// views share an element (and are not the same view), else computed.
TEST_P(Elementwise, OutOverlapMatchesBruteForceOnRandomViews) {
  const int64_t n = 24;
  std::vector<double> init(n);
  for (int64_t i = 0; i < n; ++i) init[i] = static_cast<double>(i);
  std::mt19937 rng(12);
  auto pick = [&](int64_t lo, int64_t hi) { return std::uniform_int_distribution<int64_t>(lo, hi)(rng); };
  int accepted = 0, refused = 0;
  for (int round = 0; round < 400; ++round) {
    const int nd = static_cast<int>(pick(1, 2));
    int64_t shape[2] = {pick(1, 4), pick(1, 3)};
    // A layout within the buffer: its elements, or empty when it leaves it.
    auto layout = [&](bool allow_zero, int64_t *strides, int64_t *offset) {
      std::vector<int64_t> at;
      for (int d = 0; d < nd; ++d) {
        strides[d] = pick(-6, 6);
        if (!allow_zero && strides[d] == 0) strides[d] = 1;
      }
      *offset = pick(0, n - 1);
      for (int64_t i = 0; i < shape[0]; ++i)
        for (int64_t j = 0; j < (nd == 2 ? shape[1] : 1); ++j) {
          int64_t e = *offset + i * strides[0] + (nd == 2 ? j * strides[1] : 0);
          if (e < 0 || e >= n) return std::vector<int64_t>{};
          at.push_back(e);
        }
      return at;
    };
    int64_t ostr[2], istr[2], ooff, ioff;
    auto out_at = layout(false, ostr, &ooff), in_at = layout(true, istr, &ioff);
    std::vector<int64_t> sorted = out_at;
    std::sort(sorted.begin(), sorted.end());
    if (out_at.empty() || in_at.empty() || std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end())
      continue;  // off the buffer, or an out that writes one element twice
    bool shared = false;
    for (int64_t e : in_at) shared = shared || std::binary_search(sorted.begin(), sorted.end(), e);
    bool same = ooff == ioff;  // the same view: strides of size-1 dims do not matter
    for (int d = 0; d < nd; ++d) same = same && (shape[d] == 1 || ostr[d] == istr[d]);
    Tensor buf(make(init, {}, EK_FLOAT32)), ov, iv;
    EK_OK(ek_view_as_strided(buf, nd, shape, ostr, ooff, ov.out()));
    EK_OK(ek_view_as_strided(buf, nd, shape, istr, ioff, iv.out()));
    ek_tensor o = ov.t;
    ek_status st = ek_unary(nullptr, EK_UNARY_NEG, iv, &o);
    if (shared && !same) {
      EXPECT_EQ(st, EK_ERROR_INVALID_ARGUMENT) << "round " << round << ": views share an element";
      ++refused;
      continue;
    }
    ASSERT_EQ(st, EK_SUCCESS) << "round " << round << ": " << ek_last_error();
    ++accepted;
    std::vector<double> want = init;
    for (size_t k = 0; k < out_at.size(); ++k) want[out_at[k]] = -init[in_at[k]];
    EXPECT_EQ(values_of(buf), want) << "round " << round;
  }
  EXPECT_GT(accepted, 50);
  EXPECT_GT(refused, 20);
}

TEST_P(Elementwise, NanAndInfinity) {
  Tensor x(make({NAN, INFINITY, -INFINITY, 1, -0.0}, {}, EK_FLOAT32)), one(make({1}, {}, EK_FLOAT32));
  auto unary = [&](int op) {
    Tensor y;
    EXPECT_EQ(ek_unary(nullptr, static_cast<ek_unary_op>(op), x, y.out()), EK_SUCCESS) << ek_last_error();
    return values_of(y);
  };
  EXPECT_EQ(unary(EK_UNARY_ISNAN), (std::vector<double>{1, 0, 0, 0, 0}));
  EXPECT_EQ(unary(EK_UNARY_ISINF), (std::vector<double>{0, 1, 1, 0, 0}));
  EXPECT_EQ(unary(EK_UNARY_ISFINITE), (std::vector<double>{0, 0, 0, 1, 1}));
  EXPECT_TRUE(std::isnan(unary(EK_UNARY_RELU)[0]));
  EXPECT_TRUE(std::isnan(unary(EK_UNARY_SIGN)[0]));
  EXPECT_EQ(unary(EK_UNARY_SIGMOID)[2], 0);
  EXPECT_EQ(unary(EK_UNARY_EXP)[2], 0);
  for (int op : {EK_BINARY_MAXIMUM, EK_BINARY_MINIMUM}) {
    Tensor y1, y2;
    EK_OK(ek_binary(nullptr, static_cast<ek_binary_op>(op), x, one, y1.out()));
    EK_OK(ek_binary(nullptr, static_cast<ek_binary_op>(op), one, x, y2.out()));
    EXPECT_TRUE(std::isnan(values_of(y1)[0]) && std::isnan(values_of(y2)[0])) << "op " << op;
  }
  Tensor z(make({0}, {}, EK_FLOAT32)), d, ne;
  EK_OK(ek_binary(nullptr, EK_BINARY_DIV, one, z, d.out()));
  EXPECT_EQ(values_of(d)[0], INFINITY);
  EK_OK(ek_binary(nullptr, EK_BINARY_NE, x, x, ne.out()));
  EXPECT_EQ(values_of(ne), (std::vector<double>{1, 0, 0, 0, 0}));
}

TEST_P(Elementwise, PythonFloorDivAndRemainderSigns) {
  const std::vector<double> av = {7, -7, 7, -7, 6, -6}, bv = {2, 2, -2, -2, 3, -3};
  const std::vector<double> q = {3, -4, -4, 3, 2, 2}, r = {1, 1, -1, -1, 0, 0};
  for (ek_dtype dt : {EK_INT32, EK_INT64, EK_FLOAT32, EK_FLOAT64}) {
    Tensor a(make(av, {}, dt)), b(make(bv, {}, dt)), yq, yr;
    EK_OK(ek_binary(nullptr, EK_BINARY_FLOOR_DIV, a, b, yq.out()));
    EK_OK(ek_binary(nullptr, EK_BINARY_REMAINDER, a, b, yr.out()));
    EXPECT_EQ(values_of(yq), q) << ek_dtype_name(dt);
    EXPECT_EQ(values_of(yr), r) << ek_dtype_name(dt);
  }
  Tensor f(make({5.5, -5.5}, {}, EK_FLOAT32)), fr;
  EK_OK(ek_binary_scalar(nullptr, EK_BINARY_REMAINDER, f, ek_scalar_int(2), 0, fr.out()));
  EXPECT_EQ(values_of(fr), (std::vector<double>{1.5, 0.5}));
  // Integer division by zero: unspecified values, but no trap.
  Tensor i(make({5, INT32_MIN}, {}, EK_INT32)), zero(make({0, -1}, {}, EK_INT32)), y1, y2;
  EK_OK(ek_binary(nullptr, EK_BINARY_FLOOR_DIV, i, zero, y1.out()));
  EK_OK(ek_binary(nullptr, EK_BINARY_REMAINDER, i, zero, y2.out()));
}

TEST_P(Elementwise, BadInputs) {
  Tensor f(make({1, 2, 3, 4, 5, 6}, {2, 3}, EK_FLOAT32)), g(make({1, 2, 3, 4}, {4}, EK_FLOAT32)), y;
  EK_FAILS(ek_unary(nullptr, EK_UNARY_EXP, nullptr, y.out()), EK_ERROR_NULL_POINTER, "ek_unary");
  EK_FAILS(ek_unary(nullptr, EK_UNARY_EXP, f, nullptr), EK_ERROR_NULL_POINTER, "out");
  EK_FAILS(ek_binary(nullptr, EK_BINARY_ADD, f, nullptr, y.out()), EK_ERROR_NULL_POINTER, "b");
  EK_FAILS(ek_binary_scalar(nullptr, EK_BINARY_ADD, nullptr, ek_scalar_int(1), 0, y.out()),
           EK_ERROR_NULL_POINTER, "a");
  EK_FAILS(ek_unary(nullptr, static_cast<ek_unary_op>(999), f, y.out()), EK_ERROR_INVALID_ARGUMENT, "999");
  EK_FAILS(ek_binary(nullptr, static_cast<ek_binary_op>(999), f, f, y.out()), EK_ERROR_INVALID_ARGUMENT, "999");
  EK_FAILS(ek_binary(nullptr, static_cast<ek_binary_op>(-1), f, f, y.out()), EK_ERROR_INVALID_ARGUMENT, "-1");
  EK_FAILS(
      ek_binary_scalar(nullptr, static_cast<ek_binary_op>(999), f, ek_scalar_int(1), 0, y.out()),
      EK_ERROR_INVALID_ARGUMENT, "999");
  EK_FAILS(ek_binary(nullptr, EK_BINARY_ADD, f, g, y.out()), EK_ERROR_SHAPE, "[2,3]");
  EXPECT_NE(std::string(ek_last_error()).find("[4]"), std::string::npos) << ek_last_error();
  EK_FAILS(ek_binary(nullptr, EK_BINARY_BITWISE_AND, f, f, y.out()), EK_ERROR_DTYPE, "float32");
  EK_FAILS(ek_binary(nullptr, EK_BINARY_SHIFT_LEFT, f, f, y.out()), EK_ERROR_DTYPE, "bitwise");
  Tensor i(make({1, 2}, {}, EK_INT32));
  EK_FAILS(ek_binary_scalar(nullptr, EK_BINARY_BITWISE_OR, i, ek_scalar_float(0.5), 0, y.out()),
           EK_ERROR_DTYPE, "float32");
  Tensor bl(make({1, 0}, {}, EK_BOOL));
  EK_FAILS(ek_unary(nullptr, EK_UNARY_NEG, bl, y.out()), EK_ERROR_DTYPE, "bool");
  EK_FAILS(ek_binary(nullptr, EK_BINARY_SUB, bl, bl, y.out()), EK_ERROR_DTYPE, "bool");
  EXPECT_EQ(y.t, nullptr);  // failures leave *out alone
  // A float result into an int32 out: below the result's category (the out-dtype rule).
  Tensor wrong_shape(make({0, 0, 0}, {3}, EK_FLOAT32)), wrong_dtype(make({0, 0, 0, 0, 0, 0}, {2, 3}, EK_INT32));
  ek_tensor o = wrong_shape.t;
  EK_FAILS(ek_unary(nullptr, EK_UNARY_EXP, f, &o), EK_ERROR_SHAPE, "[3]");
  o = wrong_dtype.t;
  EK_FAILS(ek_unary(nullptr, EK_UNARY_EXP, f, &o), EK_ERROR_DTYPE,
           "out has dtype int32; the result is float32, whose category (float) is above out's");
  ek_tensor scalar0 = nullptr;
  EK_OK(ek_tensor_empty(nullptr, ctx, 0, nullptr, EK_FLOAT32, &scalar0));
  Tensor out_given(make({0, 0, 0, 0, 0, 0}, {2, 3}, EK_FLOAT32));
  o = out_given.t;
  EK_OK(ek_binary(nullptr, EK_BINARY_ADD, f, scalar0, &o));  // 0-d broadcast into a given out
  ek_tensor_release(scalar0);
}

}  // namespace
