// ek_scan (EK_SCAN_SUM, EK_SCAN_PROD) against references computed here (double for floats,
// wrapping uint64 for integers), on every device of the run. CUDA against
// the CPU backend on larger data: test_conformance.cpp.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>

#include "ek_test.hpp"

using ektest::info_of;
using ektest::kFloatDtypes;
using ektest::kIntDtypes;
using ektest::numel_of;
using ektest::random_values;
using ektest::shape_of;
using ektest::Tensor;
using ektest::to_host;
using ektest::values_of;

namespace {

const double kInf = std::numeric_limits<double>::infinity();
const double kNaN = std::numeric_limits<double>::quiet_NaN();

// Calls fn(index of element k) for k = 0.. n-1 of every line along dim.
template <typename Fn>
void for_each_line(const std::vector<int64_t> &shape, int dim, Fn fn) {
  const int nd = static_cast<int>(shape.size());
  if (nd > 0 && dim < 0) dim += nd;
  int64_t outer = 1, n = 1, inner = 1;
  for (int d = 0; d < nd; ++d) (d < dim ? outer : d == dim ? n : inner) *= shape[d];
  for (int64_t o = 0; o < outer; ++o)
    for (int64_t i = 0; i < inner; ++i)
      fn(n, [=](int64_t k) { return static_cast<size_t>((o * n + k) * inner + i); });
}

struct FloatRef {
  std::vector<double> value, scale;  // scale: what a prefix's rounding error is relative to
};

FloatRef float_reference(const std::vector<int64_t> &shape, const std::vector<double> &x, int dim,
                         bool prod) {
  FloatRef r{std::vector<double>(x.size()), std::vector<double>(x.size())};
  for_each_line(shape, dim, [&](int64_t n, auto at) {
    double acc = prod ? 1 : 0, mag = prod ? 1 : 0;
    for (int64_t k = 0; k < n; ++k) {
      const double v = x[at(k)];
      acc = prod ? acc * v : acc + v;
      mag = prod ? mag * std::fabs(v) : mag + std::fabs(v);
      r.value[at(k)] = acc;
      r.scale[at(k)] = prod ? mag * static_cast<double>(k + 1) : mag;
    }
  });
  return r;
}

std::vector<int64_t> int_reference(const std::vector<int64_t> &shape, const std::vector<int64_t> &x,
                                   int dim, bool prod) {
  std::vector<int64_t> out(x.size());
  for_each_line(shape, dim, [&](int64_t n, auto at) {
    uint64_t acc = prod ? 1 : 0;
    for (int64_t k = 0; k < n; ++k) {
      const auto v = static_cast<uint64_t>(x[at(k)]);
      acc = prod ? acc * v : acc + v;
      out[at(k)] = static_cast<int64_t>(acc);
    }
  });
  return out;
}

// Relative error allowed per unit of scale: the final rounding (f16/bf16/f32
// results), plus f32 accumulation on CUDA.
double tolerance(ek_dtype dt) {
  switch (dt) {
    case EK_FLOAT16: return 2e-3;
    case EK_BFLOAT16: return 1.6e-2;
    case EK_FLOAT32: return 2e-6;
    default: return 1e-12;
  }
}

void expect_close(const std::vector<double> &got, const FloatRef &want, double rtol,
                  const std::string &what) {
  ASSERT_EQ(got.size(), want.value.size()) << what;
  int bad = 0;
  for (size_t k = 0; k < got.size() && bad < 5; ++k) {
    const double w = want.value[k];
    bool ok = std::isnan(w)   ? std::isnan(got[k])
              : std::isinf(w) ? got[k] == w
                              : std::fabs(got[k] - w) <= rtol * (1e-30 + want.scale[k]);
    if (!ok) ++bad;
    EXPECT_TRUE(ok) << what << " at " << k << ": got " << got[k] << ", want " << w;
  }
}

std::vector<int64_t> ints_of(ek_tensor t) {
  Tensor i64;
  EXPECT_EQ(ek_cast(nullptr, t, EK_INT64, i64.out()), EK_SUCCESS) << ek_last_error();
  return to_host<int64_t>(i64);
}

const struct { ek_scan_op kind; bool prod; const char *name; } kOps[] = {
    {EK_SCAN_SUM, false, "cumsum"}, {EK_SCAN_PROD, true, "cumprod"}};

class Scan : public ektest::DeviceTest {
 protected:
  ek_tensor make_i64(const std::vector<int64_t> &shape, const std::vector<int64_t> &values) {
    ek_tensor t = nullptr;
    EXPECT_EQ(ek_tensor_from_host(nullptr, ctx, static_cast<int>(shape.size()), shape.data(),
                                  EK_INT64, values.data(), &t), EK_SUCCESS) << ek_last_error();
    return t;
  }
  // op of float x along dim against the double reference of x's values.
  void check_float(ek_tensor x, int dim, bool prod, double rtol, const std::string &what) {
    const auto shape = shape_of(x);
    Tensor out;
    EK_OK(ek_scan(nullptr, prod ? EK_SCAN_PROD : EK_SCAN_SUM, x, dim, out.out()));
    EXPECT_EQ(info_of(out).dtype, info_of(x).dtype) << what;
    EXPECT_EQ(shape_of(out), shape) << what;
    expect_close(values_of(out), float_reference(shape, values_of(x), dim, prod), rtol,
                 what + (prod ? " cumprod" : " cumsum") + " dim " + std::to_string(dim));
  }
  void check_int(ek_tensor x, int dim, bool prod, const std::string &what) {
    const auto shape = shape_of(x);
    Tensor out;
    EK_OK(ek_scan(nullptr, prod ? EK_SCAN_PROD : EK_SCAN_SUM, x, dim, out.out()));
    // int64, but uint64 keeps its dtype (the same bits).
    EXPECT_EQ(info_of(out).dtype, info_of(x).dtype == EK_UINT64 ? EK_UINT64 : EK_INT64) << what;
    EXPECT_EQ(shape_of(out), shape) << what;
    EXPECT_EQ(to_host<int64_t>(out), int_reference(shape, ints_of(x), dim, prod))
        << what << (prod ? " cumprod" : " cumsum") << " dim " << dim;
  }
};
EK_INSTANTIATE_DEVICES(Scan);

TEST_P(Scan, FloatsMatchDoubleReferenceAlongEveryDim) {
  const std::vector<int64_t> shape{3, 4, 5};
  for (ek_dtype dt : kFloatDtypes)
    for (const auto &op : kOps) {
      // Products of factors near 1 neither overflow nor vanish.
      Tensor x(make(shape, dt, op.prod ? random_values(60, 1, 0.5, 1.5) : random_values(60, 1, -2, 2)));
      for (int dim : {0, 1, 2, -1, -2})
        check_float(x, dim, op.prod, tolerance(dt), ek_dtype_name(dt));
    }
}

TEST_P(Scan, BoolAndIntegersGiveExactInt64) {
  const std::vector<int64_t> shape{4, 6};
  for (ek_dtype dt : kIntDtypes) {
    Tensor x(make(shape, dt, random_values(24, 2, -9, 9)));
    for (const auto &op : kOps)
      for (int dim : {0, 1, -1}) check_int(x, dim, op.prod, ek_dtype_name(dt));
  }
  // int64 wraps around like two's complement (as PyTorch on CPU).
  Tensor big(make_i64({3}, {INT64_MAX, 2, 3})), s, p;
  EK_OK(ek_scan(nullptr, EK_SCAN_SUM, big, 0, s.out()));
  EXPECT_EQ(to_host<int64_t>(s), (std::vector<int64_t>{INT64_MAX, INT64_MIN + 1, INT64_MIN + 4}));
  EK_OK(ek_scan(nullptr, EK_SCAN_PROD, big, 0, p.out()));
  EXPECT_EQ(to_host<int64_t>(p), (std::vector<int64_t>{INT64_MAX, -2, -6}));
  Tensor flags(make({5}, EK_BOOL, {1, 0, 1, 1, 0})), count;
  EK_OK(ek_scan(nullptr, EK_SCAN_SUM, flags, 0, count.out()));
  EXPECT_EQ(to_host<int64_t>(count), (std::vector<int64_t>{1, 1, 2, 3, 3}));
}

// 3M elements: a line split over many warps (CUDA), exact for integers.
TEST_P(Scan, LongLinesAreScannedAcrossParts) {
  const int64_t n = 3000000;
  Tensor ones;
  EK_OK(ek_tensor_empty(nullptr, ctx, 1, &n, EK_INT32, ones.out()));
  EK_OK(ek_fill(nullptr, ektest::scalar(1), ones));
  Tensor c;
  EK_OK(ek_scan(nullptr, EK_SCAN_SUM, ones, 0, c.out()));
  const auto v = to_host<int64_t>(c);
  ASSERT_EQ(v.size(), static_cast<size_t>(n));
  int64_t wrong = 0;
  for (int64_t k = 0; k < n; ++k) wrong += v[static_cast<size_t>(k)] != k + 1;
  EXPECT_EQ(wrong, 0);
  for (ek_dtype dt : {EK_FLOAT32, EK_FLOAT64}) {
    Tensor x(make({n}, dt, random_values(static_cast<size_t>(n), 3, 0, 1)));
    check_float(x, 0, false, dt == EK_FLOAT32 ? 1e-5 : 1e-12, "3M");
  }
  Tensor ints(make({7, 40001}, EK_INT64, random_values(280007, 4, -1000, 1000)));
  check_int(ints, 1, false, "rows");
  for (const std::vector<int64_t> &shape : {std::vector<int64_t>{100000, 3}, {5000, 40}, {3, 70, 4000}}) {
    Tensor col(make(shape, EK_INT32, random_values(static_cast<size_t>(numel_of(shape)), 5, -50, 50)));
    check_int(col, 0, false, "columns");
    check_int(col, 1, false, "columns");
  }
}

TEST_P(Scan, TransposedSlicedAndBroadcastInputs) {
  Tensor base(make({6, 10}, EK_FLOAT32, random_values(60, 6, -2, 2))), t, sliced, row, expanded;
  EK_OK(ek_view_transpose(base, 0, 1, t.out()));
  EK_OK(ek_view_slice(base, 1, 9, EK_SLICE_MIN, -3, sliced.out()));  // columns 9, 6, 3, 0
  EK_OK(ek_view_select(base, 0, 2, row.out()));
  const int64_t shape[2] = {4, 10};
  EK_OK(ek_view_expand(row, 2, shape, expanded.out()));  // stride 0 along dim 0
  for (ek_tensor v : {t.t, sliced.t, expanded.t})
    for (int dim : {0, 1, -1}) check_float(v, dim, false, tolerance(EK_FLOAT32), "view");
  Tensor ibase(make({5, 8}, EK_INT16, random_values(40, 7, -100, 100))), it, islice;
  EK_OK(ek_view_transpose(ibase, 0, 1, it.out()));
  EK_OK(ek_view_slice(ibase, 0, 4, EK_SLICE_MIN, -2, islice.out()));
  for (ek_tensor v : {it.t, islice.t})
    for (int dim : {0, 1}) check_int(v, dim, dim == 1, "int view");
}

TEST_P(Scan, WritesIntoGivenAndStridedOutputs) {
  Tensor x(make({3, 4}, EK_INT32, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12})), big, view;
  const int64_t big_shape[2] = {3, 8};
  EK_OK(ek_tensor_empty(nullptr, ctx, 2, big_shape, EK_INT64, big.out()));
  EK_OK(ek_fill(nullptr, ektest::scalar(-7), big));
  EK_OK(ek_view_slice(big, 1, 1, 8, 2, view.out()));  // columns 1, 3, 5, 7
  ek_tensor o = view.t;
  EK_OK(ek_scan(nullptr, EK_SCAN_SUM, x, 1, &o));
  EXPECT_EQ(o, view.t);
  EXPECT_EQ(to_host<int64_t>(big), (std::vector<int64_t>{-7, 1, -7, 3, -7, 6, -7, 10,
                                                         -7, 5, -7, 11, -7, 18, -7, 26,
                                                         -7, 9, -7, 19, -7, 30, -7, 42}));
}

TEST_P(Scan, InPlaceWhenOutIsX) {
  const std::vector<int64_t> shape{5, 700};
  for (const auto &op : kOps)
    for (int dim : {0, 1}) {
      Tensor x(make(shape, EK_FLOAT64, random_values(3500, 8, 0.99, 1.01)));
      const auto want = float_reference(shape, values_of(x), dim, op.prod);
      ek_tensor o = x.t;
      EK_OK(ek_scan(nullptr, op.kind, x, dim, &o));
      EXPECT_EQ(o, x.t);
      expect_close(values_of(x), want, 1e-12, std::string(op.name) + " in place");
    }
  Tensor i(make_i64({4, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12})), t;
  EK_OK(ek_view_transpose(i, 0, 1, t.out()));  // in place through a transposed view
  ek_tensor o = t.t;
  EK_OK(ek_scan(nullptr, EK_SCAN_SUM, t, 1, &o));
  EXPECT_EQ(to_host<int64_t>(i), (std::vector<int64_t>{1, 2, 3, 5, 7, 9, 12, 15, 18, 22, 26, 30}));
  Tensor i32(make({3}, EK_INT32, {1, 2, 3}));
  o = i32.t;  // the int64 result wrapped into x's int32 (the integer-out rule)
  EK_OK(ek_scan(nullptr, EK_SCAN_SUM, i32, 0, &o));
  EXPECT_EQ(to_host<int32_t>(i32), (std::vector<int32_t>{1, 3, 6}));
  Tensor f32(make({3}, EK_FLOAT32, {1, 2, 3}));
  o = f32.t;  // a float out is no integer out
  EK_FAILS(ek_scan(nullptr, EK_SCAN_SUM, i32, 0, &o), EK_ERROR_DTYPE, "int64");
}

TEST_P(Scan, ZeroDimAndZeroSize) {
  Tensor s(make({}, EK_FLOAT32, {2.5})), si(make({}, EK_INT8, {-3}));
  for (int dim : {0, -1}) {
    Tensor a, b;
    EK_OK(ek_scan(nullptr, EK_SCAN_PROD, s, dim, a.out()));
    EXPECT_EQ(info_of(a).ndim, 0);
    EXPECT_EQ(values_of(a)[0], 2.5);
    EK_OK(ek_scan(nullptr, EK_SCAN_SUM, si, dim, b.out()));
    EXPECT_EQ(info_of(b).dtype, EK_INT64);
    EXPECT_EQ(to_host<int64_t>(b)[0], -3);
  }
  ek_tensor out = nullptr;
  EK_FAILS(ek_scan(nullptr, EK_SCAN_SUM, s, 1, &out), EK_ERROR_INDEX, "dim 1");
  for (const std::vector<int64_t> &shape : {std::vector<int64_t>{0, 3}, {3, 0}, {2, 0, 4}}) {
    Tensor e;
    EK_OK(ek_tensor_empty(nullptr, ctx, static_cast<int>(shape.size()), shape.data(), EK_INT32,
                          e.out()));
    for (int dim = 0; dim < static_cast<int>(shape.size()); ++dim)
      for (const auto &op : kOps) {
        Tensor r;
        EK_OK(ek_scan(nullptr, op.kind, e, dim, r.out()));
        EXPECT_EQ(shape_of(r), shape);
        EXPECT_EQ(info_of(r).dtype, EK_INT64);
      }
  }
}

TEST_P(Scan, NaNAndInfinitiesPropagate) {
  const std::vector<double> v{1, kNaN, 2, 3, kInf, -kInf, 0, kInf, 1};
  for (ek_dtype dt : kFloatDtypes) {
    Tensor x(make({3, 3}, dt, v));
    for (const auto &op : kOps)
      for (int dim : {0, 1}) check_float(x, dim, op.prod, tolerance(dt), ek_dtype_name(dt));
  }
  Tensor x(make({3, 3}, EK_FLOAT32, v)), s;
  EK_OK(ek_scan(nullptr, EK_SCAN_SUM, x, 1, s.out()));
  const auto got = values_of(s);
  EXPECT_EQ(got[0], 1.0);
  EXPECT_TRUE(std::isnan(got[1]) && std::isnan(got[2]));
  EXPECT_EQ(got[4], kInf);
  EXPECT_TRUE(std::isnan(got[5]));  // inf + -inf
}

TEST_P(Scan, BadInputsFailWithMessages) {
  Tensor x(make({2, 3}, EK_FLOAT32, random_values(6, 9, -1, 1)));
  ek_tensor out = nullptr;
  EK_FAILS(ek_scan(nullptr, EK_SCAN_SUM, nullptr, 0, &out), EK_ERROR_NULL_POINTER, "ek_scan");
  EK_FAILS(ek_scan(nullptr, EK_SCAN_PROD, x, 0, nullptr), EK_ERROR_NULL_POINTER, "out");
  EK_FAILS(ek_scan(nullptr, EK_SCAN_SUM, x, 2, &out), EK_ERROR_INDEX, "dim 2");
  EK_FAILS(ek_scan(nullptr, EK_SCAN_PROD, x, -3, &out), EK_ERROR_INDEX, "-3");
  EK_FAILS(ek_scan(nullptr, static_cast<ek_scan_op>(7), x, 0, &out), EK_ERROR_INVALID_ARGUMENT,
           "7");
  EXPECT_EQ(out, nullptr);
  Tensor wrong_shape, wrong_dtype;
  const int64_t s3[2] = {3, 2}, s2[2] = {2, 3};
  EK_OK(ek_tensor_empty(nullptr, ctx, 2, s3, EK_FLOAT32, wrong_shape.out()));
  out = wrong_shape.t;
  EK_FAILS(ek_scan(nullptr, EK_SCAN_SUM, x, 1, &out), EK_ERROR_SHAPE, "[3,2]");
  EK_OK(ek_tensor_empty(nullptr, ctx, 2, s2, EK_FLOAT64, wrong_dtype.out()));
  out = wrong_dtype.t;
  EK_FAILS(ek_scan(nullptr, EK_SCAN_SUM, x, 1, &out), EK_ERROR_DTYPE, "float64");
  Tensor wide(make({2, 4}, EK_FLOAT32, random_values(8, 4, -1, 1))), left, right;
  EK_OK(ek_view_slice(wide, 1, 0, 3, 1, left.out()));
  EK_OK(ek_view_slice(wide, 1, 1, 4, 1, right.out()));
  const auto before = values_of(wide);
  out = right.t;
  EK_FAILS(ek_scan(nullptr, EK_SCAN_PROD, left, 1, &out), EK_ERROR_INVALID_ARGUMENT, "overlaps");
  EXPECT_EQ(values_of(wide), before);
  Tensor row(make({1, 3}, EK_FLOAT32, {1, 2, 3})), expanded;
  EK_OK(ek_view_expand(row, 2, s2, expanded.out()));
  out = expanded.t;
  EK_FAILS(ek_scan(nullptr, EK_SCAN_SUM, x, 1, &out), EK_ERROR_INVALID_ARGUMENT, "broadcast");
}

TEST_P(Scan, RunsAreBitwiseIdentical) {
  for (const std::vector<int64_t> &shape : {std::vector<int64_t>{2, 300000}, {40000, 30}}) {
    Tensor x(make(shape, EK_FLOAT32, random_values(static_cast<size_t>(numel_of(shape)), 10, -1, 1)));
    for (int dim : {0, 1}) {
      Tensor a, b;
      EK_OK(ek_scan(nullptr, EK_SCAN_SUM, x, dim, a.out()));
      EK_OK(ek_scan(nullptr, EK_SCAN_SUM, x, dim, b.out()));
      auto va = to_host<float>(a), vb = to_host<float>(b);
      EXPECT_EQ(0, std::memcmp(va.data(), vb.data(), va.size() * sizeof(float))) << "dim " << dim;
    }
  }
}

}  // namespace
