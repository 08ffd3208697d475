// ek_where, ek_clamp, ek_lerp, ek_axpby against double-precision references
// written here: dtypes and promotion, three-way broadcasting, layouts,
// in-place and aliasing, NaN, exact integers, bad input. CUDA against the CPU
// backend, bit for bit over layouts: test_conformance.cpp.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

#include "ek_test.hpp"

using ektest::info_of;
using ektest::shape_of;
using ektest::Tensor;
using ektest::to_host;
using ektest::values_of;

namespace {

const double kNaN = std::numeric_limits<double>::quiet_NaN();

class Ternary : public ektest::DeviceTest {
 protected:
  // A tensor of dtype holding values (through ek_cast from float64).
  ek_tensor make(const std::vector<double> &values, const std::vector<int64_t> &shape, ek_dtype dtype,
                 ek_context c = nullptr) {
    return ektest::make(c ? c : ctx, shape, dtype, values);
  }
  ek_tensor make1(std::vector<double> values, ek_dtype dtype) {
    return make(values, {static_cast<int64_t>(values.size())}, dtype);
  }
};
EK_INSTANTIATE_DEVICES(Ternary);

// ---- references (double precision, PyTorch semantics)
double ref_lerp(double s, double e, double w) {
  return std::fabs(w) < 0.5 ? s + w * (e - s) : e - (e - s) * (1 - w);
}

double ref_clamp(double x, double lo, double hi) {
  if (std::isnan(x) || std::isnan(lo) || std::isnan(hi)) return kNaN;
  return std::min(std::max(x, lo), hi);
}

void expect_near_all(const std::vector<double> &got, const std::vector<double> &want, double rel,
                     const std::string &what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (size_t i = 0; i < got.size(); ++i) {
    if (got[i] == want[i]) continue;  // infinities included
    if (std::isnan(want[i])) {
      EXPECT_TRUE(std::isnan(got[i])) << what << " at " << i << ": got " << got[i];
      continue;
    }
    EXPECT_NEAR(got[i], want[i], rel * std::max(1.0, std::fabs(want[i]))) << what << " at " << i;
  }
}

// ------------------------------------------------------------------- where --

// A size-1 dim with a stride near INT64_MAX / 4 on every operand and the
// output: the CPU walk used to overflow int64 stepping past it (UBSan).
TEST_P(Ternary, WhereWithAHugeStrideOfASizeOneDim) {
  const int64_t shape[2] = {2, 1}, strides[2] = {1, INT64_MAX / 4};
  Tensor c(make1({0, 1}, EK_BOOL)), a(make1({1, 2}, EK_FLOAT32)), b(make1({-1, -2}, EK_FLOAT32));
  Tensor o0(make1({0, 0}, EK_FLOAT32)), cv, av, bv, ov, y;
  EK_OK(ek_view_as_strided(c, 2, shape, strides, 0, cv.out()));
  EK_OK(ek_view_as_strided(a, 2, shape, strides, 0, av.out()));
  EK_OK(ek_view_as_strided(b, 2, shape, strides, 0, bv.out()));
  EK_OK(ek_view_as_strided(o0, 2, shape, strides, 0, ov.out()));
  EK_OK(ek_where(nullptr, cv, av, bv, y.out()));
  EXPECT_EQ(values_of(y), (std::vector<double>{-1, 2}));
  ek_tensor o = ov.t;
  EK_OK(ek_where(nullptr, cv, av, bv, &o));
  EXPECT_EQ(values_of(o0), (std::vector<double>{-1, 2}));
  const ek_scalar lo = ek_scalar_float(1.5);
  EK_OK(ek_clamp(nullptr, av, &lo, nullptr, &o));
  EXPECT_EQ(values_of(o0), (std::vector<double>{1.5, 2}));
}

TEST_P(Ternary, WhereSelectsAndPromotes) {
  Tensor c(make1({1, 0, 1, 0}, EK_BOOL)), a(make1({1, 2, 3, 4}, EK_INT32)), b(make1({-1.5, -2.5, -3.5, -4.5}, EK_FLOAT16));
  Tensor y;
  EK_OK(ek_where(nullptr, c, a, b, y.out()));
  EXPECT_EQ(info_of(y).dtype, EK_FLOAT16);
  EXPECT_EQ(values_of(y), (std::vector<double>{1, -2.5, 3, -4.5}));
  Tensor u8(make1({200, 201, 202, 203}, EK_UINT8)), i8(make1({-1, -2, -3, -4}, EK_INT8)), yi;
  EK_OK(ek_where(nullptr, c, u8, i8, yi.out()));
  EXPECT_EQ(info_of(yi).dtype, EK_INT16);
  EXPECT_EQ(values_of(yi), (std::vector<double>{200, -2, 202, -4}));
  // int64 beyond 2^53 passes through exactly.
  const int64_t big[2] = {(int64_t(1) << 60) + 1, -((int64_t(1) << 60) + 3)};
  const int64_t two = 2;
  Tensor ba, bb, bc(make1({0, 1}, EK_BOOL)), yb;
  EK_OK(ek_tensor_from_host(nullptr, ctx, 1, &two, EK_INT64, big, ba.out()));
  EK_OK(ek_tensor_from_host(nullptr, ctx, 1, &two, EK_INT64, big + 0, bb.out()));
  Tensor neg;
  EK_OK(ek_binary_scalar(nullptr, EK_BINARY_MUL, bb, ek_scalar_int(-1), 0, neg.out()));
  EK_OK(ek_where(nullptr, bc, ba, neg, yb.out()));
  auto got = to_host<int64_t>(yb);
  EXPECT_EQ(got[0], -big[0]);
  EXPECT_EQ(got[1], big[1]);
}

TEST_P(Ternary, WhereConditionOfAnyDtype) {
  Tensor a(make1({1, 1, 1, 1, 1}, EK_FLOAT32)), b(make1({0, 0, 0, 0, 0}, EK_FLOAT32));
  for (ek_dtype dt : {EK_FLOAT32, EK_FLOAT64, EK_FLOAT16, EK_BFLOAT16}) {
    Tensor c(make1({0.5, 0.0, -0.0, kNaN, -2}, dt)), y;
    EK_OK(ek_where(nullptr, c, a, b, y.out()));
    EXPECT_EQ(values_of(y), (std::vector<double>{1, 0, 0, 1, 1})) << ek_dtype_name(dt);
  }
  for (ek_dtype dt : {EK_UINT8, EK_INT8, EK_INT16, EK_INT32, EK_INT64}) {
    Tensor c(make1({1, 0, 0, 7, 2}, dt)), y;
    EK_OK(ek_where(nullptr, c, a, b, y.out()));
    EXPECT_EQ(values_of(y), (std::vector<double>{1, 0, 0, 1, 1})) << ek_dtype_name(dt);
  }
}

TEST_P(Ternary, WhereBroadcastsThreeWays) {
  // cond [2,1,1], a [1,3,1], b [4] -> [2,3,4]
  Tensor c(make({1, 0}, {2, 1, 1}, EK_BOOL)), a(make({10, 20, 30}, {1, 3, 1}, EK_FLOAT64)),
      b(make({-1, -2, -3, -4}, {4}, EK_FLOAT32)), y;
  EK_OK(ek_where(nullptr, c, a, b, y.out()));
  EXPECT_EQ(shape_of(y), (std::vector<int64_t>{2, 3, 4}));
  EXPECT_EQ(info_of(y).dtype, EK_FLOAT64);
  auto v = values_of(y);
  for (int i = 0; i < 2; ++i)
    for (int j = 0; j < 3; ++j)
      for (int k = 0; k < 4; ++k)
        EXPECT_EQ(v[(i * 3 + j) * 4 + k], i == 0 ? 10.0 * (j + 1) : -(k + 1.0));
  // A 0-d condition selects whole tensors.
  Tensor c0(make({0}, {}, EK_BOOL)), y0;
  EK_OK(ek_where(nullptr, c0, a, b, y0.out()));
  EXPECT_EQ(shape_of(y0), (std::vector<int64_t>{1, 3, 4}));
  for (double x : values_of(y0)) EXPECT_LT(x, 0);
  Tensor bad(make({1, 0, 1}, {3}, EK_BOOL)), yb;
  EK_FAILS(ek_where(nullptr, bad, a, b, yb.out()), EK_ERROR_SHAPE, "broadcastable");
}

TEST_P(Ternary, WhereOnViewsAndEmptyTensors) {
  std::vector<double> av(12), bv(12), cv(12);
  for (int i = 0; i < 12; ++i) av[i] = i, bv[i] = -i, cv[i] = i % 3 == 0;
  Tensor a(make(av, {3, 4}, EK_FLOAT32)), b(make(bv, {3, 4}, EK_FLOAT32)), c(make(cv, {3, 4}, EK_BOOL));
  Tensor at, bs, y;
  EK_OK(ek_view_transpose(a, 0, 1, at.out()));                 // [4,3], strides (1,4)
  EK_OK(ek_view_slice(b, 1, 3, EK_SLICE_MIN, -1, bs.out()));   // [3,4] reversed columns
  Tensor bst, cst;
  EK_OK(ek_view_transpose(bs, 0, 1, bst.out()));
  EK_OK(ek_view_transpose(c, 0, 1, cst.out()));
  EK_OK(ek_where(nullptr, cst, at, bst, y.out()));
  auto v = values_of(y);
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 3; ++j) {
      const double cond = cv[j * 4 + i], want = cond ? av[j * 4 + i] : bv[j * 4 + (3 - i)];
      EXPECT_EQ(v[i * 3 + j], want) << i << "," << j;
    }
  const int64_t empty_shape[2] = {0, 3}, empty_cond[2] = {0, 1};
  Tensor e, ce, ye;
  EK_OK(ek_tensor_empty(nullptr, ctx, 2, empty_shape, EK_FLOAT32, e.out()));
  EK_OK(ek_tensor_empty(nullptr, ctx, 2, empty_cond, EK_BOOL, ce.out()));
  EK_OK(ek_where(nullptr, ce, e, e, ye.out()));
  EXPECT_EQ(shape_of(ye), (std::vector<int64_t>{0, 3}));
}

// ------------------------------------------------------------------- clamp --

TEST_P(Ternary, ClampFloats) {
  const std::vector<double> xv = {-3, -1.5, 0, 0.25, 2, 7, kNaN, INFINITY, -INFINITY};
  for (ek_dtype dt : {EK_FLOAT32, EK_FLOAT64, EK_FLOAT16, EK_BFLOAT16}) {
    SCOPED_TRACE(ek_dtype_name(dt));
    Tensor x(make1(xv, dt));
    auto xr = values_of(x);
    const double lo = -1, hi = 2;
    const ek_scalar slo = ek_scalar_float(lo), shi = ek_scalar_float(hi);
    Tensor both, only_lo, only_hi, none, swapped;
    EK_OK(ek_clamp(nullptr, x, &slo, &shi, both.out()));
    EK_OK(ek_clamp(nullptr, x, &slo, nullptr, only_lo.out()));
    EK_OK(ek_clamp(nullptr, x, nullptr, &shi, only_hi.out()));
    EK_OK(ek_clamp(nullptr, x, nullptr, nullptr, none.out()));
    EK_OK(ek_clamp(nullptr, x, &shi, &slo, swapped.out()));  // lo > hi: hi everywhere (NaN stays)
    std::vector<double> w_both, w_lo, w_hi, w_swapped;
    for (double v : xr) {
      w_both.push_back(ref_clamp(v, lo, hi));
      w_lo.push_back(ref_clamp(v, lo, INFINITY));
      w_hi.push_back(ref_clamp(v, -INFINITY, hi));
      w_swapped.push_back(std::isnan(v) ? kNaN : lo);
    }
    expect_near_all(values_of(both), w_both, 0, "both");
    expect_near_all(values_of(only_lo), w_lo, 0, "lo");
    expect_near_all(values_of(only_hi), w_hi, 0, "hi");
    expect_near_all(values_of(none), xr, 0, "none");
    expect_near_all(values_of(swapped), w_swapped, 0, "swapped");
    EXPECT_EQ(info_of(both).dtype, dt);
  }
  // Bounds are cast to x's dtype: 0.1 in float16 is 0.0999755859375.
  Tensor h(make1({0, 1}, EK_FLOAT16)), hy;
  const ek_scalar tenth = ek_scalar_float(0.1);
  EK_OK(ek_clamp(nullptr, h, &tenth, nullptr, hy.out()));
  EXPECT_EQ(values_of(hy)[0], 0.0999755859375);
  // A NaN bound propagates into every element (as PyTorch).
  Tensor f(make1({1, 2}, EK_FLOAT32)), fy;
  const ek_scalar nan_bound = ek_scalar_float(kNaN);
  EK_OK(ek_clamp(nullptr, f, &nan_bound, nullptr, fy.out()));
  for (double v : values_of(fy)) EXPECT_TRUE(std::isnan(v));
}

TEST_P(Ternary, ClampIntegersExactly) {
  Tensor x(make1({-7, -3, -2, 0, 2, 3, 7}, EK_INT32)), y;
  const ek_scalar lo = ek_scalar_float(-2.5), hi = ek_scalar_float(2.9);  // truncated: [-2, 2]
  EK_OK(ek_clamp(nullptr, x, &lo, &hi, y.out()));
  EXPECT_EQ(values_of(y), (std::vector<double>{-2, -2, -2, 0, 2, 2, 2}));
  // Saturation to the dtype: lo above uint8's range gives 255, not 300 wrapped.
  Tensor u(make1({0, 100, 255}, EK_UINT8)), uy, uy2;
  const ek_scalar high = ek_scalar_int(300), neg = ek_scalar_int(-5);
  EK_OK(ek_clamp(nullptr, u, &high, nullptr, uy.out()));
  EXPECT_EQ(values_of(uy), (std::vector<double>{255, 255, 255}));
  EK_OK(ek_clamp(nullptr, u, &neg, &high, uy2.out()));
  EXPECT_EQ(values_of(uy2), (std::vector<double>{0, 100, 255}));
  // int64 beyond 2^53: no double round trip of x.
  const int64_t big[3] = {(int64_t(1) << 62) + 1, (int64_t(1) << 62) + 3, -((int64_t(1) << 62) + 1)};
  const int64_t n = 3;
  Tensor b, by;
  EK_OK(ek_tensor_from_host(nullptr, ctx, 1, &n, EK_INT64, big, b.out()));
  const ek_scalar bound = ek_scalar_float(0x1p62);  // 2^62 exactly
  const ek_scalar minus = ek_scalar_float(-0x1p62);
  EK_OK(ek_clamp(nullptr, b, &minus, &bound, by.out()));
  auto got = to_host<int64_t>(by);
  EXPECT_EQ(got[0], int64_t(1) << 62);
  EXPECT_EQ(got[1], int64_t(1) << 62);
  EXPECT_EQ(got[2], -(int64_t(1) << 62));
  // An integer bound is exact where a double could not hold it: 2^62 + 2.
  const ek_scalar odd = ek_scalar_int((int64_t(1) << 62) + 2);
  Tensor oy;
  EK_OK(ek_clamp(nullptr, b, nullptr, &odd, oy.out()));
  EXPECT_EQ(to_host<int64_t>(oy)[0], (int64_t(1) << 62) + 1);
  EXPECT_EQ(to_host<int64_t>(oy)[1], (int64_t(1) << 62) + 2);
  Tensor small(make1({1, 2}, EK_INT64)), sy, bad;
  EK_OK(ek_clamp(nullptr, b, nullptr, nullptr, sy.out()));
  EXPECT_EQ(to_host<int64_t>(sy), (std::vector<int64_t>(big, big + 3)));
  const ek_scalar nan_bound = ek_scalar_float(kNaN);
  EK_FAILS(ek_clamp(nullptr, small, &nan_bound, nullptr, bad.out()), EK_ERROR_INVALID_ARGUMENT,
           "NaN");
  Tensor bl(make1({1, 0}, EK_BOOL)), bly;
  EK_FAILS(ek_clamp(nullptr, bl, &lo, &hi, bly.out()), EK_ERROR_DTYPE, "bool");
}

TEST_P(Ternary, ClampInPlaceOnAView) {
  std::vector<double> xv(20);
  for (int i = 0; i < 20; ++i) xv[i] = i - 10;
  Tensor x(make(xv, {4, 5}, EK_FLOAT32)), v;
  EK_OK(ek_view_slice(x, 1, 0, 5, 2, v.out()));  // columns 0, 2, 4
  const double lo = -3, hi = 3;
  const ek_scalar slo = ek_scalar_float(lo), shi = ek_scalar_float(hi);
  ek_tensor o = v.t;
  EK_OK(ek_clamp(nullptr, v, &slo, &shi, &o));
  EXPECT_EQ(o, v.t);
  auto got = values_of(x);
  for (int i = 0; i < 20; ++i)
    EXPECT_EQ(got[i], (i % 5) % 2 == 0 ? ref_clamp(xv[i], lo, hi) : xv[i]) << i;
}

// -------------------------------------------------------------------- lerp --

TEST_P(Ternary, LerpFollowsPyTorch) {
  const std::vector<double> sv = {0, 1, -2, 10, 1e3, -0.5}, ev = {1, -1, 3, 10, -1e3, 7};
  for (ek_dtype dt : {EK_FLOAT32, EK_FLOAT64, EK_FLOAT16, EK_BFLOAT16}) {
    SCOPED_TRACE(ek_dtype_name(dt));
    Tensor s(make1(sv, dt)), e(make1(ev, dt));
    auto sr = values_of(s), er = values_of(e);
    const double rel = dt == EK_FLOAT64 ? 1e-15 : (dt == EK_FLOAT32 ? 1e-6 : (dt == EK_FLOAT16 ? 1e-3 : 8e-3));
    for (double w : {0.0, 0.3, 0.5, 0.7, 1.0, -1.0, 2.0}) {
      Tensor y;
      EK_OK(ek_lerp(nullptr, s, e, ek_scalar_float(w), y.out()));
      std::vector<double> want;
      for (size_t i = 0; i < sv.size(); ++i) want.push_back(ref_lerp(sr[i], er[i], w));
      expect_near_all(values_of(y), want, rel, "weight " + std::to_string(w));
      if (w == 1.0) {
        EXPECT_EQ(values_of(y), er) << "weight 1 gives end exactly";
      }
      if (w == 0.0) {
        EXPECT_EQ(values_of(y), sr) << "weight 0 gives start exactly";
      }
    }
  }
  // Broadcast and promotion: f16 start [2,1] with f32 end [3] -> f32 [2,3].
  Tensor s(make({0, 10}, {2, 1}, EK_FLOAT16)), e(make({1, 2, 3}, {3}, EK_FLOAT32)), y;
  EK_OK(ek_lerp(nullptr, s, e, ek_scalar_float(0.25), y.out()));
  EXPECT_EQ(info_of(y).dtype, EK_FLOAT32);
  EXPECT_EQ(shape_of(y), (std::vector<int64_t>{2, 3}));
  expect_near_all(values_of(y), {0.25, 0.5, 0.75, 7.75, 8, 8.25}, 1e-7, "broadcast");
  Tensor i(make1({1, 2}, EK_INT32)), yi;
  EK_FAILS(ek_lerp(nullptr, i, e, ek_scalar_float(0.5), yi.out()), EK_ERROR_DTYPE, "int32");
  Tensor nan_s(make1({kNaN, 1}, EK_FLOAT32)), nan_e(make1({1, INFINITY}, EK_FLOAT32)), yn;
  EK_OK(ek_lerp(nullptr, nan_s, nan_e, ek_scalar_float(0.25), yn.out()));
  auto vn = values_of(yn);
  EXPECT_TRUE(std::isnan(vn[0]));
  EXPECT_EQ(vn[1], INFINITY);
}

// Sizes around the fast path's vectors, blocks and tails (one vector a
// thread for where, lerp and axpby; four for clamp): every element as the
// references say.
TEST_P(Ternary, EveryElementAtSizesAroundTheFastPathsLoop) {
  const int64_t sizes[] = {1, 9, 1029, 32771, 262145, (int64_t(1) << 20) + 6};
  for (ek_dtype dt : {EK_FLOAT32, EK_FLOAT16, EK_BFLOAT16})
    for (int64_t n : sizes) {
      SCOPED_TRACE(std::string(ek_dtype_name(dt)) + " n " + std::to_string(n));
      const size_t m = static_cast<size_t>(n);
      Tensor x(make(ektest::random_values(m, uint32_t(n), -4, 4), {n}, dt));
      Tensor y(make(ektest::random_values(m, uint32_t(n) + 1, -4, 4), {n}, dt));
      const std::vector<double> xv = values_of(x), yv = values_of(y);
      std::vector<double> cv(m);
      for (size_t i = 0; i < m; ++i) cv[i] = (i * 7919) % 3 == 0;
      Tensor c(make(cv, {n}, EK_BOOL)), w, l, a, k;
      const ek_scalar lo = ek_scalar_float(-0.5), hi = ek_scalar_float(0.5);
      EK_OK(ek_where(nullptr, c, x, y, w.out()));
      EK_OK(ek_lerp(nullptr, x, y, ek_scalar_float(0.3), l.out()));
      EK_OK(ek_axpby(nullptr, ek_scalar_float(2), x, ek_scalar_float(-0.5), y, a.out()));
      EK_OK(ek_clamp(nullptr, x, &lo, &hi, k.out()));
      std::vector<double> want_w(m), want_l(m), want_a(m), want_k(m);
      for (size_t i = 0; i < m; ++i) {
        want_w[i] = cv[i] != 0 ? xv[i] : yv[i];
        want_l[i] = ref_lerp(xv[i], yv[i], 0.3);
        want_a[i] = 2 * xv[i] - 0.5 * yv[i];
        want_k[i] = ref_clamp(xv[i], -0.5, 0.5);
      }
      const double rel = dt == EK_FLOAT32 ? 1e-6 : (dt == EK_FLOAT16 ? 1e-3 : 8e-3);
      EXPECT_TRUE(values_of(w) == want_w) << "where";
      EXPECT_TRUE(values_of(k) == want_k) << "clamp";
      expect_near_all(values_of(l), want_l, rel, "lerp");
      expect_near_all(values_of(a), want_a, rel, "axpby");
    }
}

// ------------------------------------------------------------------- axpby --

TEST_P(Ternary, AxpbyFloatsAndPromotion) {
  const std::vector<double> xv = {1, -2, 3.5, 0, 1e-3}, yv = {0.5, 4, -1, 2, 1e3};
  for (ek_dtype dt : {EK_FLOAT32, EK_FLOAT64, EK_FLOAT16, EK_BFLOAT16}) {
    SCOPED_TRACE(ek_dtype_name(dt));
    Tensor x(make1(xv, dt)), y(make1(yv, dt)), out;
    auto xr = values_of(x), yr = values_of(y);
    EK_OK(ek_axpby(nullptr, ek_scalar_float(2.5), x, ek_scalar_float(-0.5), y, out.out()));
    std::vector<double> want;
    for (size_t i = 0; i < xv.size(); ++i) want.push_back(2.5 * xr[i] - 0.5 * yr[i]);
    const double rel = dt == EK_FLOAT64 ? 1e-15 : (dt == EK_FLOAT32 ? 1e-6 : (dt == EK_FLOAT16 ? 1e-3 : 8e-3));
    expect_near_all(values_of(out), want, rel, "axpby");
    EXPECT_EQ(info_of(out).dtype, dt);
  }
  // int32 x with float16 y -> float16; [3,1] with [2] -> [3,2].
  Tensor xi(make({1, 2, 3}, {3, 1}, EK_INT32)), yh(make({0.5, -0.5}, {2}, EK_FLOAT16)), o;
  EK_OK(ek_axpby(nullptr, ek_scalar_int(2), xi, ek_scalar_int(4), yh, o.out()));
  EXPECT_EQ(info_of(o).dtype, EK_FLOAT16);
  EXPECT_EQ(values_of(o), (std::vector<double>{4, 0, 6, 2, 8, 4}));
}

TEST_P(Ternary, AxpbyIntegersAndInPlace) {
  Tensor x(make1({1, -2, 3}, EK_INT64)), y(make1({10, 20, 30}, EK_INT64));
  ek_tensor o = y.t;
  EK_OK(ek_axpby(nullptr, ek_scalar_int(3), x, ek_scalar_int(-1), y, &o));  // y = 3x - y, in place
  EXPECT_EQ(o, y.t);
  EXPECT_EQ(values_of(y), (std::vector<double>{-7, -26, -21}));
  Tensor u(make1({250, 3}, EK_UINT8)), uo;
  EK_OK(ek_axpby(nullptr, ek_scalar_int(1), u, ek_scalar_int(1), u,
                 uo.out()));  // wraps as uint8 addition does
  EXPECT_EQ(values_of(uo), (std::vector<double>{244, 6}));
  Tensor none;
  EK_FAILS(ek_axpby(nullptr, ek_scalar_float(0.5), x, ek_scalar_int(1), y, none.out()),
           EK_ERROR_INVALID_ARGUMENT, "alpha");
  EK_FAILS(ek_axpby(nullptr, ek_scalar_int(1), x, ek_scalar_float(NAN), y, none.out()),
           EK_ERROR_INVALID_ARGUMENT, "beta");
  // Accumulating in place on a transposed float tensor.
  Tensor m(make({1, 2, 3, 4, 5, 6}, {2, 3}, EK_FLOAT32)), mt, g(make({1, 1, 1, 1, 1, 1}, {3, 2}, EK_FLOAT32));
  EK_OK(ek_view_transpose(m, 0, 1, mt.out()));
  ek_tensor acc = mt.t;
  EK_OK(ek_axpby(nullptr, ek_scalar_int(10), g, ek_scalar_int(1), mt, &acc));
  EXPECT_EQ(values_of(m), (std::vector<double>{11, 12, 13, 14, 15, 16}));
}

// ------------------------------------------------------- aliasing and input --

TEST_P(Ternary, AliasingExactOrRejected) {
  Tensor big(make1({1, 2, 3, 4, 5}, EK_FLOAT32)), lo_view, hi_view, c(make1({1, 0, 1, 0}, EK_BOOL));
  EK_OK(ek_view_slice(big, 0, 0, 4, 1, lo_view.out()));
  EK_OK(ek_view_slice(big, 0, 1, 5, 1, hi_view.out()));
  ek_tensor o = hi_view.t;
  const ek_scalar lo = ek_scalar_int(2);
  EK_FAILS(ek_clamp(nullptr, lo_view, &lo, nullptr, &o), EK_ERROR_INVALID_ARGUMENT, "overlaps x");
  EK_FAILS(ek_where(nullptr, c, lo_view, lo_view, &o), EK_ERROR_INVALID_ARGUMENT, "overlaps a");
  EK_FAILS(ek_lerp(nullptr, hi_view, lo_view, ek_scalar_float(0.5), &o), EK_ERROR_INVALID_ARGUMENT,
           "overlaps end");
  EK_FAILS(ek_axpby(nullptr, ek_scalar_int(1), hi_view, ek_scalar_int(1), lo_view, &o),
           EK_ERROR_INVALID_ARGUMENT, "overlaps y");
  EXPECT_EQ(values_of(big), (std::vector<double>{1, 2, 3, 4, 5})) << "failed calls write nothing";
  // out == a exactly is in place.
  Tensor b(make1({-1, -2, -3, -4}, EK_FLOAT32));
  o = lo_view.t;
  EK_OK(ek_where(nullptr, c, lo_view, b, &o));
  EXPECT_EQ(values_of(big), (std::vector<double>{1, -2, 3, -4, 5}));
  o = lo_view.t;
  EK_OK(ek_lerp(nullptr, b, lo_view, ek_scalar_float(1.0), &o));
  EXPECT_EQ(values_of(big), (std::vector<double>{1, -2, 3, -4, 5}));
}

TEST_P(Ternary, BadInputs) {
  Tensor f(make({1, 2, 3, 4, 5, 6}, {2, 3}, EK_FLOAT32)), g(make({1, 2, 3, 4}, {4}, EK_FLOAT32)), y;
  Tensor c(make({1, 0, 1, 0, 1, 0}, {2, 3}, EK_BOOL));
  const ek_scalar one = ek_scalar_int(1);
  EK_FAILS(ek_where(nullptr, nullptr, f, f, y.out()), EK_ERROR_NULL_POINTER, "cond");
  EK_FAILS(ek_where(nullptr, c, nullptr, f, y.out()), EK_ERROR_NULL_POINTER, "ek_where");
  EK_FAILS(ek_where(nullptr, c, f, nullptr, y.out()), EK_ERROR_NULL_POINTER, "b");
  EK_FAILS(ek_where(nullptr, c, f, f, nullptr), EK_ERROR_NULL_POINTER, "out");
  EK_FAILS(ek_clamp(nullptr, nullptr, &one, &one, y.out()), EK_ERROR_NULL_POINTER, "ek_clamp");
  EK_FAILS(ek_clamp(nullptr, f, &one, &one, nullptr), EK_ERROR_NULL_POINTER, "out");
  EK_FAILS(ek_lerp(nullptr, f, nullptr, ek_scalar_float(0.5), y.out()), EK_ERROR_NULL_POINTER,
           "end");
  EK_FAILS(ek_lerp(nullptr, nullptr, f, ek_scalar_float(0.5), y.out()), EK_ERROR_NULL_POINTER,
           "start");
  EK_FAILS(ek_axpby(nullptr, ek_scalar_int(1), f, ek_scalar_int(1), nullptr, y.out()),
           EK_ERROR_NULL_POINTER, "y");
  EK_FAILS(ek_axpby(nullptr, ek_scalar_int(1), nullptr, ek_scalar_int(1), f, y.out()),
           EK_ERROR_NULL_POINTER, "x");
  EK_FAILS(ek_where(nullptr, c, f, g, y.out()), EK_ERROR_SHAPE, "[2,3]");
  EK_FAILS(ek_lerp(nullptr, f, g, ek_scalar_float(0.5), y.out()), EK_ERROR_SHAPE, "[4]");
  EK_FAILS(ek_axpby(nullptr, ek_scalar_int(1), f, ek_scalar_int(1), g, y.out()), EK_ERROR_SHAPE,
           "not broadcastable");
  EXPECT_EQ(y.t, nullptr);  // failures leave *out alone
  // A float result into an int32 out: below the result's category (the out-dtype rule).
  Tensor wrong_shape(make({0, 0, 0}, {3}, EK_FLOAT32)), wrong_dtype(make({0, 0, 0, 0, 0, 0}, {2, 3}, EK_INT32));
  ek_tensor o = wrong_shape.t;
  EK_FAILS(ek_where(nullptr, c, f, f, &o), EK_ERROR_SHAPE, "[3]");
  EK_FAILS(ek_clamp(nullptr, f, &one, nullptr, &o), EK_ERROR_SHAPE, "[3]");
  o = wrong_dtype.t;
  EK_FAILS(ek_axpby(nullptr, ek_scalar_int(1), f, ek_scalar_int(1), f, &o), EK_ERROR_DTYPE,
           "out has dtype int32; the result is float32");
  EK_FAILS(ek_lerp(nullptr, f, f, ek_scalar_float(0.5), &o), EK_ERROR_DTYPE, "float32");
  ek_context other = cpu_context();
  Tensor elsewhere(make({1, 2, 3, 4, 5, 6}, {2, 3}, EK_FLOAT32, other));
  EK_FAILS(ek_where(nullptr, c, f, elsewhere, y.out()), EK_ERROR_INVALID_ARGUMENT, "different contexts");
  EK_FAILS(ek_axpby(nullptr, ek_scalar_int(1), elsewhere, ek_scalar_int(1), f, y.out()),
           EK_ERROR_INVALID_ARGUMENT, "different contexts");
  ek_tensor_release(elsewhere.t);
  elsewhere.t = nullptr;
  EXPECT_EQ(ek_context_destroy(other), EK_SUCCESS) << ek_last_error();
}

}  // namespace
