// Creation ops: ek_full, ek_linspace, ek_eye, ek_tril, ek_triu, against
// references written out here (NumPy's results, computed by hand or by the
// formula numpy.linspace documents).
#include <cmath>
#include <limits>

#include "ek_test.hpp"

using ektest::Shape;
using ektest::Tensor;
using ektest::Values;
using ektest::scalar;
using ektest::to_host;
using ektest::values_of;

namespace {

class Creation : public ektest::DeviceTest {
 protected:
  // shape filled with 1, 2, 3, ... in dtype (bool: all true).
  ek_tensor iota(const Shape &shape, ek_dtype dt = EK_FLOAT32) {
    Values v(static_cast<size_t>(ektest::numel_of(shape)));
    for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<double>(i % 100 + 1);
    return make(shape, dt, v);
  }
  ek_tensor poisoned(const Shape &shape, ek_dtype dt) {
    ek_tensor t = nullptr;
    EXPECT_EQ(ek_full(nullptr, ctx, static_cast<int>(shape.size()), shape.data(), dt, scalar(7), &t),
              EK_SUCCESS) << ek_last_error();
    return t;
  }
  Values linspace(double a, double b, int64_t num, int endpoint, ek_dtype dt) {
    Tensor t;
    EXPECT_EQ(ek_linspace(nullptr, ctx, scalar(a), scalar(b), num, endpoint, dt, t.out()), EK_SUCCESS)
        << ek_last_error();
    EXPECT_EQ(ektest::shape_of(t), Shape{num});
    return values_of(t);
  }
};
EK_INSTANTIATE_DEVICES(Creation);

// The triangle NumPy's tril/triu keep, over x's values in C order.
Values triangle_reference(const Values &x, const Shape &shape, int64_t k, bool lower) {
  const int64_t rows = shape[shape.size() - 2], cols = shape.back();
  Values out(x.size());
  for (size_t e = 0; e < x.size(); ++e) {
    const int64_t j = static_cast<int64_t>(e) % cols, i = static_cast<int64_t>(e) / cols % rows;
    const bool keep = lower ? (k >= cols || j - i <= k) : (k <= -rows || j - i >= k);
    out[e] = keep ? x[e] : 0.0;
  }
  return out;
}

// ---------------------------------------------------------------- full

TEST_P(Creation, FullEveryDtype) {
  for (ek_dtype dt : ektest::kAllDtypes) {
    Tensor t;
    const int64_t shape[2] = {2, 3};
    EK_OK(ek_full(nullptr, ctx, 2, shape, dt, scalar(dt == EK_BOOL ? 1 : 5), t.out()));
    EXPECT_EQ(ektest::dtype_of(t), dt);
    EXPECT_EQ(values_of(t), Values(6, dt == EK_BOOL ? 1.0 : 5.0)) << ek_dtype_name(dt);
  }
}

TEST_P(Creation, FullExactValuesAndShapes) {
  Tensor big, half, scalar0d, empty;
  const int64_t shape[1] = {3};
  const int64_t v = (int64_t{1} << 62) + 1;  // not a double: must stay exact
  EK_OK(ek_full(nullptr, ctx, 1, shape, EK_INT64, scalar(v), big.out()));
  EXPECT_EQ(to_host<int64_t>(big), std::vector<int64_t>(3, v));
  EK_OK(ek_full(nullptr, ctx, 1, shape, EK_FLOAT16, scalar(-2.5), half.out()));
  EXPECT_EQ(values_of(half), Values(3, -2.5));
  EK_OK(ek_full(nullptr, ctx, 0, nullptr, EK_FLOAT32, scalar(1.5), scalar0d.out()));
  EXPECT_EQ(ektest::shape_of(scalar0d), Shape{});
  EXPECT_EQ(values_of(scalar0d), Values{1.5});
  const int64_t zero[2] = {0, 4};
  EK_OK(ek_full(nullptr, ctx, 2, zero, EK_INT32, scalar(3), empty.out()));
  EXPECT_EQ(ektest::shape_of(empty), (Shape{0, 4}));
}

TEST_P(Creation, FullIntoAStridedOut) {
  Tensor base(poisoned({4, 6}, EK_FLOAT32)), view(ektest::sliced(base, 1, 0, 6, 2)), vt;
  vt.t = ektest::transposed(view, 0, 1);  // shape [3, 4], strides [2, 6]
  ek_tensor out = vt.t;
  const int64_t shape[2] = {3, 4};
  EK_OK(ek_full(nullptr, ctx, 2, shape, EK_FLOAT32, scalar(2), &out));
  EXPECT_EQ(out, vt.t);
  const Values all = values_of(base);
  for (size_t e = 0; e < all.size(); ++e) EXPECT_EQ(all[e], e % 2 == 0 ? 2.0 : 7.0) << e;
}

TEST_P(Creation, FullRejectsBadInput) {
  Tensor t;
  const int64_t shape[1] = {2}, negative[2] = {2, -1};
  EK_FAILS(ek_full(nullptr, ctx, 1, shape, EK_INT8, scalar(300), t.out()), EK_ERROR_INVALID_ARGUMENT,
           "300");
  EXPECT_NE(std::string(ek_last_error()).find("ek_full"), std::string::npos);
  EXPECT_NE(std::string(ek_last_error()).find("int8"), std::string::npos);
  EK_FAILS(ek_full(nullptr, ctx, 1, shape, EK_UINT8, scalar(-1), t.out()), EK_ERROR_INVALID_ARGUMENT,
           "uint8");
  EK_FAILS(ek_full(nullptr, ctx, 2, negative, EK_FLOAT32, scalar(0), t.out()), EK_ERROR_SHAPE,
           "negative size -1");
  EK_FAILS(ek_full(nullptr, ctx, 9, shape, EK_FLOAT32, scalar(0), t.out()), EK_ERROR_INVALID_ARGUMENT,
           "ndim 9");
  EK_FAILS(ek_full(nullptr, ctx, 1, nullptr, EK_FLOAT32, scalar(0), t.out()), EK_ERROR_NULL_POINTER,
           "shape is NULL");
  EK_FAILS(ek_full(nullptr, ctx, 1, shape, static_cast<ek_dtype>(42), scalar(0), t.out()),
           EK_ERROR_DTYPE, "42");
  EK_FAILS(ek_full(nullptr, nullptr, 1, shape, EK_FLOAT32, scalar(0), t.out()), EK_ERROR_NULL_POINTER,
           "ctx is NULL");
  ek_scalar bad = scalar(1);
  bad.reserved_ = 3;
  EK_FAILS(ek_full(nullptr, ctx, 1, shape, EK_FLOAT32, bad, t.out()), EK_ERROR_INVALID_ARGUMENT,
           "reserved_");
  EK_FAILS(ek_full(nullptr, ctx, 1, shape, EK_FLOAT32, scalar(0), nullptr), EK_ERROR_NULL_POINTER,
           "out");
  Tensor wrong(poisoned({2}, EK_INT32));
  ek_tensor out = wrong.t;
  EK_FAILS(ek_full(nullptr, ctx, 1, shape, EK_FLOAT32, scalar(0), &out), EK_ERROR_DTYPE, "int32");
  EXPECT_EQ(t.t, nullptr);
}

// ---------------------------------------------------------------- linspace

TEST_P(Creation, LinspaceMatchesNumpyFormula) {
  EXPECT_EQ(linspace(0, 1, 5, 1, EK_FLOAT64), (Values{0, 0.25, 0.5, 0.75, 1}));
  EXPECT_EQ(linspace(0, 1, 4, 0, EK_FLOAT64), (Values{0, 0.25, 0.5, 0.75}));
  EXPECT_EQ(linspace(1, 0, 3, 1, EK_FLOAT64), (Values{1, 0.5, 0}));
  // numpy: y = arange(num) * step + start, then y[-1] = stop.
  const double a = 0.18, b = -0.59;
  const Values v = linspace(a, b, 8, 1, EK_FLOAT64);
  const double step = (b - a) / 7;
  for (int k = 0; k < 7; ++k) {
    volatile double prod = k * step;
    EXPECT_EQ(v[static_cast<size_t>(k)], a + prod) << k;
  }
  EXPECT_EQ(v[7], -0.59);  // exactly stop, though 0.18 + 7 * step is -0.5900000000000001
  volatile double last = 7 * step;
  EXPECT_NE(a + last, -0.59);
  const Values open = linspace(a, b, 8, 0, EK_FLOAT64);
  for (int k = 0; k < 8; ++k) {
    volatile double prod = k * ((b - a) / 8);
    EXPECT_EQ(open[static_cast<size_t>(k)], a + prod) << k;
  }
}

TEST_P(Creation, LinspaceEdgeCounts) {
  EXPECT_EQ(linspace(3, 9, 0, 1, EK_FLOAT32), Values{});
  EXPECT_EQ(linspace(3, 9, 1, 1, EK_FLOAT32), Values{3});  // num 1 gives start
  EXPECT_EQ(linspace(3, 9, 1, 0, EK_FLOAT32), Values{3});
  EXPECT_EQ(linspace(3, 9, 2, 1, EK_FLOAT32), (Values{3, 9}));
  EXPECT_EQ(linspace(2, 2, 3, 1, EK_FLOAT64), (Values{2, 2, 2}));
}

TEST_P(Creation, LinspaceNonFiniteAndUnderflow) {
  const Values inf = linspace(0, INFINITY, 3, 1, EK_FLOAT64);  // numpy: [nan, inf, inf]
  EXPECT_TRUE(std::isnan(inf[0]));
  EXPECT_EQ(inf[1], INFINITY);
  EXPECT_EQ(inf[2], INFINITY);
  // step 5e-324 / 3 underflows to 0: numpy computes (k / 3) * 5e-324 instead.
  const double tiny = std::numeric_limits<double>::denorm_min();
  EXPECT_EQ(linspace(0, tiny, 4, 1, EK_FLOAT64), (Values{0, 0, tiny, tiny}));
}

TEST_P(Creation, LinspaceEveryDtype) {
  for (ek_dtype dt : ektest::kAllDtypes) {
    const Values want = dt == EK_BOOL ? Values{0, 1, 1, 1, 1} : Values{0, 1, 2, 3, 4};
    EXPECT_EQ(linspace(0, 4, 5, 1, dt), want) << ek_dtype_name(dt);
  }
  EXPECT_EQ(linspace(0, 1, 3, 1, EK_FLOAT16), (Values{0, 0.5, 1}));
}

TEST_P(Creation, LinspaceIntegerDtypesFloor) {
  // numpy >= 1.20 floors before the cast: linspace(-1, 1, 5, dtype=int32).
  EXPECT_EQ(linspace(-1, 1, 5, 1, EK_INT32), (Values{-1, -1, 0, 0, 1}));
  EXPECT_EQ(linspace(0, 10, 4, 1, EK_INT64), (Values{0, 3, 6, 10}));
  EXPECT_EQ(linspace(0, 256, 4, 0, EK_UINT8), (Values{0, 64, 128, 192}));
  EXPECT_EQ(linspace(-128, 127, 2, 1, EK_INT8), (Values{-128, 127}));
  Tensor big;
  const int64_t two53 = int64_t{1} << 53;
  EK_OK(ek_linspace(nullptr, ctx, scalar(0), scalar(two53), 3, 1, EK_INT64, big.out()));
  EXPECT_EQ(to_host<int64_t>(big), (std::vector<int64_t>{0, two53 / 2, two53}));
}

TEST_P(Creation, LinspaceIntoAStridedOut) {
  Tensor base(poisoned({8}, EK_FLOAT32)), view(ektest::sliced(base, 0, 7, EK_SLICE_MIN, -2));  // 7, 5, 3, 1
  ek_tensor out = view.t;
  EK_OK(ek_linspace(nullptr, ctx, scalar(0), scalar(3), 4, 1, EK_FLOAT32, &out));
  EXPECT_EQ(values_of(base), (Values{7, 3, 7, 2, 7, 1, 7, 0}));
}

TEST_P(Creation, LinspaceRejectsBadInput) {
  Tensor t;
  EK_FAILS(ek_linspace(nullptr, ctx, scalar(0), scalar(1), -1, 1, EK_FLOAT32, t.out()),
           EK_ERROR_INVALID_ARGUMENT, "num must be >= 0");
  EXPECT_NE(std::string(ek_last_error()).find("ek_linspace"), std::string::npos);
  EK_FAILS(ek_linspace(nullptr, ctx, scalar(0), scalar(300), 4, 1, EK_INT8, t.out()),
           EK_ERROR_INVALID_ARGUMENT, "element 3 is 300, outside int8");
  EK_FAILS(ek_linspace(nullptr, ctx, scalar(-1), scalar(1), 3, 1, EK_UINT8, t.out()),
           EK_ERROR_INVALID_ARGUMENT, "element 0 is -1, outside uint8");
  EK_FAILS(ek_linspace(nullptr, ctx, scalar(NAN), scalar(1), 3, 1, EK_INT32, t.out()),
           EK_ERROR_INVALID_ARGUMENT, "outside int32");
  EK_FAILS(ek_linspace(nullptr, ctx, scalar(0), scalar(1), 3, 1, static_cast<ek_dtype>(-3), t.out()),
           EK_ERROR_DTYPE, "-3");
  EK_FAILS(ek_linspace(nullptr, nullptr, scalar(0), scalar(1), 3, 1, EK_FLOAT32, t.out()),
           EK_ERROR_NULL_POINTER, "ctx");
  Tensor wrong(poisoned({4}, EK_FLOAT32));
  ek_tensor out = wrong.t;
  EK_FAILS(ek_linspace(nullptr, ctx, scalar(0), scalar(1), 3, 1, EK_FLOAT32, &out), EK_ERROR_SHAPE,
           "[3]");
  EXPECT_EQ(t.t, nullptr);
}

// ---------------------------------------------------------------- eye

TEST_P(Creation, EyeDiagonals) {
  for (Shape nm : {Shape{3, 3}, Shape{3, 5}, Shape{5, 2}, Shape{1, 1}}) {
    for (int64_t k : {int64_t{0}, int64_t{1}, int64_t{-1}, int64_t{2}, int64_t{-4}, int64_t{5},
                      int64_t{-5}, std::numeric_limits<int64_t>::max(),
                      std::numeric_limits<int64_t>::min()}) {
      Tensor t;
      EK_OK(ek_eye(nullptr, ctx, nm[0], nm[1], k, EK_FLOAT32, t.out()));
      EXPECT_EQ(ektest::shape_of(t), nm);
      Values want(static_cast<size_t>(nm[0] * nm[1]));
      for (int64_t i = 0; i < nm[0]; ++i)
        for (int64_t j = 0; j < nm[1]; ++j) want[static_cast<size_t>(i * nm[1] + j)] = j - i == k;
      EXPECT_EQ(values_of(t), want) << ektest::text(nm) << " k " << k;
    }
  }
}

TEST_P(Creation, EyeEveryDtypeAndEmpty) {
  for (ek_dtype dt : ektest::kAllDtypes) {
    Tensor t;
    EK_OK(ek_eye(nullptr, ctx, 2, 3, 1, dt, t.out()));
    EXPECT_EQ(ektest::dtype_of(t), dt);
    EXPECT_EQ(values_of(t), (Values{0, 1, 0, 0, 0, 1})) << ek_dtype_name(dt);
  }
  Tensor rows0, cols0;
  EK_OK(ek_eye(nullptr, ctx, 0, 3, 0, EK_FLOAT32, rows0.out()));
  EXPECT_EQ(ektest::shape_of(rows0), (Shape{0, 3}));
  EK_OK(ek_eye(nullptr, ctx, 3, 0, -1, EK_INT64, cols0.out()));
  EXPECT_EQ(ektest::shape_of(cols0), (Shape{3, 0}));
}

TEST_P(Creation, EyeIntoATransposedOut) {
  Tensor base(poisoned({4, 3}, EK_FLOAT64)), view;
  view.t = ektest::transposed(base, 0, 1);  // [3, 4], strides [1, 3]
  ek_tensor out = view.t;
  EK_OK(ek_eye(nullptr, ctx, 3, 4, 1, EK_FLOAT64, &out));
  // view (i, j) is base (j, i): ones at base (1, 0), (2, 1), (3, 2).
  EXPECT_EQ(values_of(base), (Values{0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1}));
}

TEST_P(Creation, EyeRejectsBadInput) {
  Tensor t;
  EK_FAILS(ek_eye(nullptr, ctx, -1, 3, 0, EK_FLOAT32, t.out()), EK_ERROR_SHAPE, "n = -1, m = 3");
  EXPECT_NE(std::string(ek_last_error()).find("ek_eye"), std::string::npos);
  EK_FAILS(ek_eye(nullptr, ctx, 3, -2, 0, EK_FLOAT32, t.out()), EK_ERROR_SHAPE, "m = -2");
  EK_FAILS(ek_eye(nullptr, ctx, 3, 3, 0, static_cast<ek_dtype>(EK_NUM_DTYPES), t.out()), EK_ERROR_DTYPE,
           std::to_string(EK_NUM_DTYPES));
  EK_FAILS(ek_eye(nullptr, ctx, int64_t{1} << 40, int64_t{1} << 40, 0, EK_FLOAT32, t.out()),
           EK_ERROR_OVERFLOW, "overflows");
  EK_FAILS(ek_eye(nullptr, ctx, 3, 3, 0, EK_FLOAT32, nullptr), EK_ERROR_NULL_POINTER, "out");
  EXPECT_EQ(t.t, nullptr);
}

// ---------------------------------------------------------------- tril, triu

TEST_P(Creation, TrilTriuEveryK) {
  const Shape shape{3, 4};
  Tensor x(iota(shape));
  const Values xv = values_of(x);
  for (bool lower : {true, false}) {
    for (int64_t k : {int64_t{-4}, int64_t{-3}, int64_t{-1}, int64_t{0}, int64_t{1}, int64_t{3},
                      int64_t{4}, std::numeric_limits<int64_t>::max(),
                      std::numeric_limits<int64_t>::min()}) {
      Tensor out;
      EK_OK((lower ? ek_tril : ek_triu)(nullptr, x, k, out.out()));
      EXPECT_EQ(values_of(out), triangle_reference(xv, shape, k, lower))
          << (lower ? "tril" : "triu") << " k " << k;
    }
  }
  Tensor lo, up;  // hand-written: numpy.tril(arange(1, 13).reshape(3, 4), -1) and triu(.., 2)
  EK_OK(ek_tril(nullptr, x, -1, lo.out()));
  EXPECT_EQ(values_of(lo), (Values{0, 0, 0, 0, 5, 0, 0, 0, 9, 10, 0, 0}));
  EK_OK(ek_triu(nullptr, x, 2, up.out()));
  EXPECT_EQ(values_of(up), (Values{0, 0, 3, 4, 0, 0, 0, 8, 0, 0, 0, 0}));
}

TEST_P(Creation, TrilTriuBatchedEveryDtype) {
  const Shape shape{2, 3, 4, 3};
  for (ek_dtype dt : ektest::kAllDtypes) {
    Tensor x(iota(shape, dt));
    const Values xv = values_of(x);
    for (bool lower : {true, false}) {
      Tensor out;
      EK_OK((lower ? ek_tril : ek_triu)(nullptr, x, 1, out.out()));
      EXPECT_EQ(ektest::dtype_of(out), dt);
      EXPECT_EQ(values_of(out), triangle_reference(xv, shape, 1, lower)) << ek_dtype_name(dt);
    }
  }
}

TEST_P(Creation, TrilTriuNonContiguousInput) {
  Tensor base(iota({4, 6, 5})), sliced(ektest::sliced(base, 1, 0, 6, 2)), x;
  x.t = ektest::transposed(sliced, 0, 2);  // [5, 3, 4], no dim contiguous
  const Shape shape{5, 3, 4};
  const Values xv = values_of(x);
  for (bool lower : {true, false}) {
    for (int64_t k : {int64_t{-1}, int64_t{0}, int64_t{2}}) {
      Tensor out;
      EK_OK((lower ? ek_tril : ek_triu)(nullptr, x, k, out.out()));
      EXPECT_EQ(values_of(out), triangle_reference(xv, shape, k, lower)) << k;
    }
  }
}

TEST_P(Creation, TrilTriuInPlaceAndIntoOut) {
  const Shape shape{2, 4, 4};
  Tensor x(iota(shape, EK_INT32));
  const Values xv = values_of(x);
  ek_tensor same = x.t;
  EK_OK(ek_tril(nullptr, x, 0, &same));
  EXPECT_EQ(same, x.t);
  EXPECT_EQ(values_of(x), triangle_reference(xv, shape, 0, true));
  // in place on a non-contiguous view: only its elements change.
  Tensor base(iota({4, 6}, EK_INT16)), view(ektest::sliced(base, 1, 1, 6, 2));  // columns 1, 3, 5
  ek_tensor v = view.t;
  EK_OK(ek_triu(nullptr, view, 1, &v));
  EXPECT_EQ(values_of(base), (Values{1, 0, 3, 4, 5, 6, 7, 0, 9, 0, 11, 12, 13, 0, 15, 0, 17, 0,
                                     19, 0, 21, 0, 23, 0}));
  Tensor y(iota(shape, EK_FLOAT64)), given(poisoned(shape, EK_FLOAT64));
  ek_tensor out = given.t;
  EK_OK(ek_triu(nullptr, y, -1, &out));
  EXPECT_EQ(out, given.t);
  EXPECT_EQ(values_of(given), triangle_reference(values_of(y), shape, -1, false));
}

TEST_P(Creation, TrilTriuEmpty) {
  for (Shape shape : {Shape{0, 3}, Shape{3, 0}, Shape{2, 0, 4}, Shape{0, 0}}) {
    Tensor x(iota(shape)), lo, up;
    EK_OK(ek_tril(nullptr, x, 0, lo.out()));
    EK_OK(ek_triu(nullptr, x, 0, up.out()));
    EXPECT_EQ(ektest::shape_of(lo), shape);
    EXPECT_EQ(ektest::shape_of(up), shape);
  }
}

TEST_P(Creation, TrilTriuRejectBadInput) {
  Tensor v(iota({4})), x(iota({4, 4})), out;
  EK_FAILS(ek_tril(nullptr, v, 0, out.out()), EK_ERROR_SHAPE, "at least 2 dims");
  EXPECT_NE(std::string(ek_last_error()).find("ek_tril"), std::string::npos);
  EXPECT_NE(std::string(ek_last_error()).find("[4]"), std::string::npos);
  EK_FAILS(ek_triu(nullptr, v, 0, out.out()), EK_ERROR_SHAPE, "ek_triu");
  EK_FAILS(ek_tril(nullptr, nullptr, 0, out.out()), EK_ERROR_NULL_POINTER, "x");
  EK_FAILS(ek_tril(nullptr, x, 0, nullptr), EK_ERROR_NULL_POINTER, "out");
  Tensor wrong(poisoned({4, 4}, EK_FLOAT64));
  ek_tensor w = wrong.t;
  EK_FAILS(ek_tril(nullptr, x, 0, &w), EK_ERROR_DTYPE, "float64");
  Tensor small(poisoned({3, 4}, EK_FLOAT32));
  ek_tensor s = small.t;
  EK_FAILS(ek_triu(nullptr, x, 0, &s), EK_ERROR_SHAPE, "[3,4]");
  // out = x shifted by one row: overlaps x without being x.
  Tensor big(iota({5, 4})), top(ektest::sliced(big, 0, 0, 4, 1)), bottom(ektest::sliced(big, 0, 1, 5, 1));
  ek_tensor b = bottom.t;
  EK_FAILS(ek_tril(nullptr, top, 0, &b), EK_ERROR_INVALID_ARGUMENT, "overlaps x");
  EXPECT_EQ(out.t, nullptr);
}

}  // namespace
