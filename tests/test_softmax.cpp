// ek_softmax (EK_SOFTMAX_PLAIN, EK_SOFTMAX_LOG) against a double reference computed here, on
// every device of the run. CUDA against the CPU backend on larger data:
// test_conformance.cpp.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>

#include "ek_test.hpp"

using ektest::info_of;
using ektest::kFloatDtypes;
using ektest::numel_of;
using ektest::random_values;
using ektest::shape_of;
using ektest::Tensor;
using ektest::to_host;
using ektest::values_of;

namespace {

const double kInf = std::numeric_limits<double>::infinity();
const double kNaN = std::numeric_limits<double>::quiet_NaN();

// Reference in double over C-order values: each line along dim separately.
std::vector<double> reference(const std::vector<int64_t> &shape, const std::vector<double> &x,
                              int dim, bool log) {
  const int nd = static_cast<int>(shape.size());
  if (nd > 0 && dim < 0) dim += nd;
  int64_t outer = 1, n = 1, inner = 1;
  for (int d = 0; d < nd; ++d) (d < dim ? outer : d == dim ? n : inner) *= shape[d];
  std::vector<double> out(x.size());
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t i = 0; i < inner; ++i) {
      auto at = [&](int64_t k) { return static_cast<size_t>((o * n + k) * inner + i); };
      double m = -kInf;
      bool nan = false;
      for (int64_t k = 0; k < n; ++k) {
        nan = nan || std::isnan(x[at(k)]);
        m = std::fmax(m, x[at(k)]);
      }
      double s = 0;
      for (int64_t k = 0; k < n; ++k) s += std::exp(x[at(k)] - m);
      for (int64_t k = 0; k < n; ++k) {
        double d = x[at(k)] - m;
        out[at(k)] = nan ? kNaN : log ? d - std::log(s) : std::exp(d) / s;
      }
    }
  return out;
}

// Tolerance of a result rounded to dt (f16/bf16/f32 compute in f32).
double tolerance(ek_dtype dt) {
  switch (dt) {
    case EK_FLOAT16: return 2e-3;
    case EK_BFLOAT16: return 1.6e-2;
    case EK_FLOAT32: return 3e-6;
    default: return 1e-12;
  }
}

void expect_close(const std::vector<double> &got, const std::vector<double> &want, double rtol,
                  const std::string &what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  int bad = 0;
  for (size_t k = 0; k < got.size() && bad < 5; ++k) {
    bool ok = std::isnan(want[k]) ? std::isnan(got[k])
              : std::isinf(want[k]) ? got[k] == want[k]
                                    : std::fabs(got[k] - want[k]) <= rtol * (1 + std::fabs(want[k]));
    if (!ok) ++bad;
    EXPECT_TRUE(ok) << what << " at " << k << ": got " << got[k] << ", want " << want[k];
  }
}

const struct { ek_softmax_kind kind; bool log; const char *name; } kOps[] = {
    {EK_SOFTMAX_PLAIN, false, "softmax"}, {EK_SOFTMAX_LOG, true, "log_softmax"}};

class Softmax : public ektest::DeviceTest {
 protected:
  // Both ops of x along dim against the reference of x's (rounded) values.
  void check(ek_tensor x, int dim, double rtol, const std::string &what) {
    const auto shape = shape_of(x);
    const auto xs = values_of(x);
    for (const auto &op : kOps) {
      Tensor out;
      EK_OK(ek_softmax(nullptr, op.kind, x, dim, out.out()));
      EXPECT_EQ(info_of(out).dtype, info_of(x).dtype);
      EXPECT_EQ(shape_of(out), shape);
      expect_close(values_of(out), reference(shape, xs, dim, op.log), rtol,
                   what + " " + op.name + " dim " + std::to_string(dim));
    }
  }
};
EK_INSTANTIATE_DEVICES(Softmax);

TEST_P(Softmax, EveryDimAndFloatDtypeMatchesDoubleReference) {
  const std::vector<int64_t> shape{3, 4, 5};
  for (ek_dtype dt : kFloatDtypes) {
    Tensor x(make(shape, dt, random_values(60, 1, -4, 4)));
    for (int dim : {0, 1, 2, -1, -3}) check(x, dim, tolerance(dt), ek_dtype_name(dt));
  }
}

// Lengths around every path boundary of the CUDA kernels (threads per row,
// vectors per thread, unaligned heads and tails, rows too long for
// registers, split rows), with rows on and off 16-byte boundaries.
TEST_P(Softmax, RowsOfManyLengthsAndAlignments) {
  for (ek_dtype dt : kFloatDtypes)
    for (int64_t n : {1, 2, 3, 7, 9, 31, 33, 100, 1000, 1025, 4097, 9000, 33000, 70000}) {
      const int64_t rows = n > 5000 ? 2 : 3;
      const std::string what = std::string(ek_dtype_name(dt)) + " n " + std::to_string(n);
      Tensor x(make({rows, n}, dt, random_values(static_cast<size_t>(rows * n), 3, -4, 4)));
      check(x, -1, tolerance(dt), what);
      Tensor base(make({n + 1}, dt, random_values(static_cast<size_t>(n + 1), 4, -4, 4))), shifted;
      EK_OK(ek_view_slice(base, 0, 1, n + 1, 1, shifted.out()));  // contiguous, one element in
      check(shifted, 0, tolerance(dt), what + " shifted");
    }
}

TEST_P(Softmax, LongSingleRowsAndFewLongRows) {
  for (ek_dtype dt : {EK_FLOAT32, EK_FLOAT64, EK_FLOAT16}) {
    Tensor one(make({200000}, dt, random_values(200000, 5, -4, 4)));
    check(one, 0, tolerance(dt), std::string(ek_dtype_name(dt)) + " one row");
    Tensor few(make({3, 100001}, dt, random_values(300003, 6, -4, 4)));
    check(few, 1, tolerance(dt), std::string(ek_dtype_name(dt)) + " three rows");
  }
}

TEST_P(Softmax, NonLastDimsGoAlongInner) {
  const std::vector<std::vector<int64_t>> shapes{{4, 37, 6}, {2, 50, 70}, {3000, 3}, {5, 1, 40}};
  for (ek_dtype dt : {EK_FLOAT32, EK_FLOAT64, EK_BFLOAT16})
    for (const auto &shape : shapes) {
      Tensor x(make(shape, dt, random_values(static_cast<size_t>(numel_of(shape)), 7, -4, 4)));
      for (int dim = 0; dim + 1 < static_cast<int>(shape.size()); ++dim)
        check(x, dim, tolerance(dt), std::string(ek_dtype_name(dt)) + " shape " +
                                         std::to_string(shape[0]) + "x" + std::to_string(shape[1]));
    }
}

TEST_P(Softmax, TransposedSlicedAndBroadcastInputs) {
  Tensor base(make({6, 10}, EK_FLOAT32, random_values(60, 9, -4, 4))), t, sliced, row, expanded;
  EK_OK(ek_view_transpose(base, 0, 1, t.out()));
  EK_OK(ek_view_slice(base, 1, 9, EK_SLICE_MIN, -3, sliced.out()));  // columns 9, 6, 3, 0
  EK_OK(ek_view_select(base, 0, 2, row.out()));
  const int64_t shape[2] = {4, 10};
  EK_OK(ek_view_expand(row, 2, shape, expanded.out()));  // stride 0 along dim 0
  for (ek_tensor v : {t.t, sliced.t, expanded.t})
    for (int dim : {0, 1, -1}) check(v, dim, tolerance(EK_FLOAT32), "view");
}

TEST_P(Softmax, WritesIntoGivenAndStridedOutputs) {
  const std::vector<int64_t> shape{3, 4};
  Tensor x(make(shape, EK_FLOAT32, random_values(12, 11, -4, 4))), big, view;
  const auto want = reference(shape, values_of(x), 1, false);
  const int64_t big_shape[2] = {3, 8};
  EK_OK(ek_tensor_empty(nullptr, ctx, 2, big_shape, EK_FLOAT32, big.out()));
  EK_OK(ek_fill(nullptr, ektest::scalar(-7), big));
  EK_OK(ek_view_slice(big, 1, 1, 8, 2, view.out()));  // columns 1, 3, 5, 7
  ek_tensor o = view.t;
  EK_OK(ek_softmax(nullptr, EK_SOFTMAX_PLAIN, x, 1, &o));
  EXPECT_EQ(o, view.t);
  auto v = to_host<float>(big);
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 8; ++c) {
      if (c % 2 == 0) EXPECT_EQ(v[r * 8 + c], -7);
      else EXPECT_NEAR(v[r * 8 + c], want[r * 4 + c / 2], 1e-6);
    }
  Tensor given;
  EK_OK(ek_tensor_empty(nullptr, ctx, 2, shape.data(), EK_FLOAT32, given.out()));
  o = given.t;
  EK_OK(ek_softmax(nullptr, EK_SOFTMAX_LOG, x, -1, &o));
  expect_close(values_of(given), reference(shape, values_of(x), 1, true), 3e-6, "given out");
}

TEST_P(Softmax, InPlaceWhenOutIsX) {
  const std::vector<int64_t> shape{5, 300};
  const auto values = random_values(1500, 13, -4, 4);
  for (const auto &op : kOps)
    for (int dim : {0, 1}) {
      Tensor x(make(shape, EK_FLOAT32, values));
      const auto want = reference(shape, values_of(x), dim, op.log);
      ek_tensor o = x.t;
      EK_OK(ek_softmax(nullptr, op.kind, x, dim, &o));
      EXPECT_EQ(o, x.t);
      expect_close(values_of(x), want, 3e-6, std::string(op.name) + " in place");
    }
  Tensor base(make({300, 5}, EK_FLOAT64, values)), t;  // in place through a transposed view
  EK_OK(ek_view_transpose(base, 0, 1, t.out()));
  const auto want = reference(shape, values_of(t), 1, false);
  ek_tensor o = t.t;
  EK_OK(ek_softmax(nullptr, EK_SOFTMAX_PLAIN, t, 1, &o));
  expect_close(values_of(t), want, 1e-12, "transposed in place");
}

// As PyTorch: x - max is NaN for x = +inf (inf - inf) and for a row of -inf,
// so a 0-d +inf, -inf or NaN gives NaN; only a finite 0-d x gives 1 (log: 0).
TEST_P(Softmax, ZeroDimInfAndNaNGiveNaNAsPyTorch) {
  for (ek_dtype dt : kFloatDtypes) {
    for (double v : {kInf, -kInf, kNaN}) {
      Tensor s(make({}, dt, {v}));
      for (const auto &op : kOps) {
        Tensor y;
        EK_OK(ek_softmax(nullptr, op.kind, s, 0, y.out()));
        EXPECT_TRUE(std::isnan(values_of(y)[0]))
            << op.name << "(" << v << ") " << ek_dtype_name(dt) << " gave " << values_of(y)[0];
      }
    }
  }
}

TEST_P(Softmax, ZeroDimIsOneAndZeroSizeIsEmpty) {
  for (ek_dtype dt : kFloatDtypes) {
    Tensor s(make({}, dt, {3.5}));
    for (int dim : {0, -1}) {
      Tensor a, b;
      EK_OK(ek_softmax(nullptr, EK_SOFTMAX_PLAIN, s, dim, a.out()));
      EK_OK(ek_softmax(nullptr, EK_SOFTMAX_LOG, s, dim, b.out()));
      EXPECT_EQ(info_of(a).ndim, 0);
      EXPECT_EQ(values_of(a)[0], 1.0);
      EXPECT_EQ(values_of(b)[0], 0.0);
    }
    ek_tensor out = nullptr;
    EK_FAILS(ek_softmax(nullptr, EK_SOFTMAX_PLAIN, s, 1, &out), EK_ERROR_INDEX, "dim 1");
    EXPECT_EQ(out, nullptr);
  }
  for (const std::vector<int64_t> &shape : {std::vector<int64_t>{0, 3}, {3, 0}, {2, 0, 4}}) {
    Tensor e;
    EK_OK(ek_tensor_empty(nullptr, ctx, static_cast<int>(shape.size()), shape.data(), EK_FLOAT32,
                          e.out()));
    for (int dim = 0; dim < static_cast<int>(shape.size()); ++dim) {
      Tensor out;
      EK_OK(ek_softmax(nullptr, EK_SOFTMAX_PLAIN, e, dim, out.out()));
      EXPECT_EQ(shape_of(out), shape);
    }
  }
}

TEST_P(Softmax, InfinitiesNaNAndLargeValues) {
  const std::vector<double> rows{
      -kInf, -kInf, -kInf, -kInf,   // all -inf: NaN (as PyTorch)
      1, -kInf, 2, -kInf,           // some -inf: 0 there (log: -inf)
      1, kNaN, 2, 3,                // NaN: NaN everywhere
      1e4, 1e4 - 1, -1e4, 1e4,      // large: stable
      kInf, 1, 2, 3,                // +inf: inf - inf is NaN, as the reference
      -1e4, -1e4 - 2, -1e4, -1e4,   // large negative
  };
  const std::vector<int64_t> shape{6, 4};
  for (ek_dtype dt : kFloatDtypes) {
    Tensor x(make(shape, dt, rows)), xt, t;
    check(x, 1, tolerance(dt), std::string(ek_dtype_name(dt)) + " rows");
    EK_OK(ek_view_transpose(x, 0, 1, xt.out()));  // the same lines as columns
    EK_OK(ek_contiguous(nullptr, xt, t.out()));
    check(t, 0, tolerance(dt), std::string(ek_dtype_name(dt)) + " columns");
  }
  Tensor x(make(shape, EK_FLOAT32, rows)), out;
  EK_OK(ek_softmax(nullptr, EK_SOFTMAX_PLAIN, x, 1, out.out()));
  auto v = values_of(out);
  EXPECT_TRUE(std::isnan(v[0]));
  EXPECT_EQ(v[5], 0.0);
  EXPECT_NEAR(v[4] + v[6], 1.0, 1e-6);
  EXPECT_TRUE(std::isnan(v[8]) && std::isnan(v[11]));
  EXPECT_NEAR(v[12] + v[13] + v[15], 1.0, 1e-6);
}

TEST_P(Softmax, BadInputsFailWithMessages) {
  Tensor x(make({2, 3}, EK_FLOAT32, random_values(6, 2, -4, 4)));
  ek_tensor out = nullptr;
  EK_FAILS(ek_softmax(nullptr, EK_SOFTMAX_PLAIN, nullptr, 0, &out), EK_ERROR_NULL_POINTER,
           "ek_softmax");
  EK_FAILS(ek_softmax(nullptr, EK_SOFTMAX_LOG, x, 0, nullptr), EK_ERROR_NULL_POINTER, "out");
  EK_FAILS(ek_softmax(nullptr, EK_SOFTMAX_PLAIN, x, 2, &out), EK_ERROR_INDEX, "dim 2");
  EK_FAILS(ek_softmax(nullptr, EK_SOFTMAX_LOG, x, -3, &out), EK_ERROR_INDEX, "-3");
  EK_FAILS(ek_softmax(nullptr, static_cast<ek_softmax_kind>(7), x, 0, &out),
           EK_ERROR_INVALID_ARGUMENT, "7");
  for (ek_dtype dt : {EK_INT32, EK_BOOL, EK_UINT8, EK_INT64}) {
    Tensor i(make({2}, dt, {1, 0}));
    EK_FAILS(ek_softmax(nullptr, EK_SOFTMAX_PLAIN, i, 0, &out), EK_ERROR_DTYPE, ek_dtype_name(dt));
    EK_FAILS(ek_softmax(nullptr, EK_SOFTMAX_LOG, i, 0, &out), EK_ERROR_DTYPE, "floating-point");
  }
  EXPECT_EQ(out, nullptr);
  Tensor wrong_shape, wrong_dtype;
  const int64_t s3[2] = {3, 2};
  EK_OK(ek_tensor_empty(nullptr, ctx, 2, s3, EK_FLOAT32, wrong_shape.out()));
  out = wrong_shape.t;
  EK_FAILS(ek_softmax(nullptr, EK_SOFTMAX_PLAIN, x, 1, &out), EK_ERROR_SHAPE, "[3,2]");
  const int64_t s2[2] = {2, 3};
  EK_OK(ek_tensor_empty(nullptr, ctx, 2, s2, EK_FLOAT64, wrong_dtype.out()));
  out = wrong_dtype.t;
  EK_FAILS(ek_softmax(nullptr, EK_SOFTMAX_PLAIN, x, 1, &out), EK_ERROR_DTYPE, "float64");
  // out overlapping x without being x: refused, x untouched.
  Tensor wide(make({2, 4}, EK_FLOAT32, random_values(8, 4, -4, 4))), left, right;
  EK_OK(ek_view_slice(wide, 1, 0, 3, 1, left.out()));
  EK_OK(ek_view_slice(wide, 1, 1, 4, 1, right.out()));
  const auto before = values_of(wide);
  out = right.t;
  EK_FAILS(ek_softmax(nullptr, EK_SOFTMAX_PLAIN, left, 1, &out), EK_ERROR_INVALID_ARGUMENT,
           "overlaps");
  EXPECT_EQ(values_of(wide), before);
  Tensor row(make({1, 3}, EK_FLOAT32, {1, 2, 3})), expanded;
  EK_OK(ek_view_expand(row, 2, s2, expanded.out()));
  out = expanded.t;
  EK_FAILS(ek_softmax(nullptr, EK_SOFTMAX_PLAIN, x, 1, &out), EK_ERROR_INVALID_ARGUMENT,
           "broadcast");
}

TEST_P(Softmax, RunsAreBitwiseIdentical) {
  for (const std::vector<int64_t> &shape : {std::vector<int64_t>{2, 150000}, {64, 1000}, {40, 30, 20}}) {
    Tensor x(make(shape, EK_FLOAT32, random_values(static_cast<size_t>(numel_of(shape)), 15, -4, 4)));
    Tensor a, b;
    EK_OK(ek_softmax(nullptr, EK_SOFTMAX_PLAIN, x, 1, a.out()));
    EK_OK(ek_softmax(nullptr, EK_SOFTMAX_PLAIN, x, 1, b.out()));
    auto va = to_host<float>(a), vb = to_host<float>(b);
    EXPECT_EQ(0, std::memcmp(va.data(), vb.data(), va.size() * sizeof(float)));
  }
}

}  // namespace
