// ek_reduce, ek_var, ek_reduce_with_indices against a double reference computed here, on
// every device of the run. CUDA against the CPU backend: test_conformance.cpp.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>

#include "ek_test.hpp"

using ektest::dtype_of;
using ektest::shape_of;
using ektest::Tensor;
using ektest::to_host;
using ektest::values_of;

namespace {

const double kNaN = std::numeric_limits<double>::quiet_NaN();

// [-2, 2), exact in float32, for the typed make below.
std::vector<float> random_floats(size_t n, uint32_t seed) {
  const ektest::Values v = ektest::random_values(n, seed, -2, 2);
  return std::vector<float>(v.begin(), v.end());
}

// Reference: groups x's values (C order) by output index, reduced dims in C order.
struct Groups {
  std::vector<int64_t> out_shape;  // keepdim = 0
  std::vector<std::vector<double>> lines;
};

Groups group_by(const std::vector<int64_t> &shape, const std::vector<double> &x,
                const std::vector<int> &dims) {
  int nd = static_cast<int>(shape.size());
  std::vector<bool> red(nd, dims.empty());
  for (int d : dims) red[(d + nd) % nd] = true;
  Groups g;
  int64_t nout = 1;
  for (int d = 0; d < nd; ++d)
    if (!red[d]) { g.out_shape.push_back(shape[d]); nout *= shape[d]; }
  g.lines.resize(static_cast<size_t>(nout));
  std::vector<int64_t> idx(nd, 0);
  for (double v : x) {
    int64_t o = 0;
    for (int d = 0; d < nd; ++d) if (!red[d]) o = o * shape[d] + idx[d];
    g.lines[static_cast<size_t>(o)].push_back(v);
    for (int d = nd - 1; d >= 0 && ++idx[d] == shape[d]; --d) idx[d] = 0;
  }
  return g;
}

double reference(ek_reduce_op op, const std::vector<double> &l) {
  double a = 0, b = 1;
  size_t best = 0;
  switch (op) {
    case EK_REDUCE_SUM: for (double v : l) a += v; return a;
    case EK_REDUCE_MEAN: for (double v : l) a += v; return a / static_cast<double>(l.size());
    case EK_REDUCE_PROD: for (double v : l) b *= v; return b;
    case EK_REDUCE_MAX: case EK_REDUCE_MIN: case EK_REDUCE_ARGMAX: case EK_REDUCE_ARGMIN: {
      bool mx = op == EK_REDUCE_MAX || op == EK_REDUCE_ARGMAX;
      for (size_t k = 1; k < l.size() && !std::isnan(l[best]); ++k)
        if (std::isnan(l[k]) || (mx ? l[k] > l[best] : l[k] < l[best])) best = k;
      return op == EK_REDUCE_ARGMAX || op == EK_REDUCE_ARGMIN ? static_cast<double>(best) : l[best];
    }
    case EK_REDUCE_ANY: for (double v : l) if (v != 0) return 1; return 0;
    case EK_REDUCE_ALL: for (double v : l) if (v == 0) return 0; return 1;
    case EK_REDUCE_NORM_L1: for (double v : l) a += std::fabs(v); return a;
    case EK_REDUCE_NORM_L2: for (double v : l) a += v * v; return std::sqrt(a);
    default:  // NaN propagates, as torch.linalg.vector_norm
      for (double v : l) a = std::isnan(v) || std::isnan(a) ? kNaN : std::fmax(a, std::fabs(v));
      return a;
  }
}

double ref_var(const std::vector<double> &l, double correction) {
  double m = 0, s = 0;
  for (double v : l) m += v;
  m /= static_cast<double>(l.size());
  for (double v : l) s += (v - m) * (v - m);
  return s / std::fmax(0.0, static_cast<double>(l.size()) - correction);
}

void expect_close(double got, double want, double rtol, const std::string &what) {
  if (std::isnan(want)) {
    EXPECT_TRUE(std::isnan(got)) << what << ": got " << got;
    return;
  }
  EXPECT_NEAR(got, want, rtol * (1 + std::fabs(want))) << what;
}

const ek_reduce_op kAllOps[] = {EK_REDUCE_SUM, EK_REDUCE_MEAN, EK_REDUCE_PROD, EK_REDUCE_MAX,
                                EK_REDUCE_MIN, EK_REDUCE_ARGMAX, EK_REDUCE_ARGMIN, EK_REDUCE_ANY,
                                EK_REDUCE_ALL, EK_REDUCE_NORM_L1, EK_REDUCE_NORM_L2,
                                EK_REDUCE_NORM_INF};

class Reduce : public ektest::DeviceTest {
 protected:
  // A tensor of dtype dt from host data already of dt's C type.
  template <typename T>
  ek_tensor make(const std::vector<int64_t> &shape, ek_dtype dt, const std::vector<T> &v) {
    return ektest::upload(ctx, shape, dt, v.data());
  }
  // Checks op over dims of x (whose C-order values are xs) against the reference.
  void check(ek_reduce_op op, ek_tensor x, const std::vector<int64_t> &shape,
             const std::vector<double> &xs, std::vector<int> dims, int keepdim, double rtol) {
    std::string what = "op " + std::to_string(op) + " dims " + std::to_string(dims.size()) +
                       " keepdim " + std::to_string(keepdim);
    Tensor out;
    EK_OK(ek_reduce(nullptr, op, x, static_cast<int>(dims.size()), dims.data(), keepdim, out.out()));
    Groups g = group_by(shape, xs, dims);
    auto got = values_of(out);
    ASSERT_EQ(got.size(), g.lines.size()) << what;
    if (!keepdim) EXPECT_EQ(shape_of(out), g.out_shape) << what;
    else EXPECT_EQ(shape_of(out).size(), shape.size()) << what;
    for (size_t i = 0; i < got.size(); ++i)
      expect_close(got[i], reference(op, g.lines[i]), rtol, what + " at " + std::to_string(i));
  }
};
EK_INSTANTIATE_DEVICES(Reduce);

TEST_P(Reduce, EveryOpOverDimSetsMatchesDoubleReferenceF32) {
  std::vector<int64_t> shape{3, 4, 5};
  auto f = random_floats(60, 1);
  std::vector<double> xs(f.begin(), f.end());
  Tensor x(make(shape, EK_FLOAT32, f));
  const std::vector<std::vector<int>> dim_sets{{}, {1}, {0}, {-1}, {0, 2}, {2, 0}, {0, 1, 2}};
  for (ek_reduce_op op : kAllOps)
    for (const auto &dims : dim_sets)
      for (int keep : {0, 1}) check(op, x, shape, xs, dims, keep, 2e-6);
}

TEST_P(Reduce, ResultDtypesFollowPyTorch) {
  Tensor f(make({4}, EK_FLOAT32, std::vector<float>{1, 2, 3, 4}));
  Tensor i(make({4}, EK_INT32, std::vector<int32_t>{1, 2, 3, 4}));
  struct { ek_reduce_op op; ek_tensor x; ek_dtype want; } cases[] = {
      {EK_REDUCE_SUM, f, EK_FLOAT32}, {EK_REDUCE_SUM, i, EK_INT64},  {EK_REDUCE_PROD, i, EK_INT64},
      {EK_REDUCE_MAX, i, EK_INT32},   {EK_REDUCE_ARGMAX, f, EK_INT64}, {EK_REDUCE_ANY, f, EK_BOOL},
      {EK_REDUCE_ALL, i, EK_BOOL},    {EK_REDUCE_NORM_L2, f, EK_FLOAT32}};
  for (auto &c : cases) {
    Tensor out;
    EK_OK(ek_reduce(nullptr, c.op, c.x, 0, nullptr, 0, out.out()));
    EXPECT_EQ(dtype_of(out), c.want) << "op " << c.op;
  }
}

TEST_P(Reduce, IntegersAreExactInInt64) {
  std::vector<int64_t> shape{2, 3};
  std::vector<int32_t> v{2000000000, 2000000000, -2, 5, 0, -3};  // products fit int64
  std::vector<double> xs(v.begin(), v.end());
  Tensor x(make(shape, EK_INT32, v));
  for (ek_reduce_op op : {EK_REDUCE_SUM, EK_REDUCE_PROD, EK_REDUCE_MAX, EK_REDUCE_MIN,
                          EK_REDUCE_ARGMAX, EK_REDUCE_ARGMIN, EK_REDUCE_ANY, EK_REDUCE_ALL})
    for (const std::vector<int> &dims : {std::vector<int>{}, {0}, {1}}) check(op, x, shape, xs, dims, 0, 0);
  Tensor big(make({2}, EK_INT64, std::vector<int64_t>{(int64_t(1) << 60) + 1, 1})), s;
  EK_OK(ek_reduce(nullptr, EK_REDUCE_SUM, big, 0, nullptr, 0, s.out()));
  EXPECT_EQ(to_host<int64_t>(s)[0], (int64_t(1) << 60) + 2);
}

TEST_P(Reduce, BoolSumCountsAndAnyAll) {
  Tensor b(make({5}, EK_BOOL, std::vector<uint8_t>{1, 0, 1, 1, 0})), s, any, all;
  EK_OK(ek_reduce(nullptr, EK_REDUCE_SUM, b, 0, nullptr, 0, s.out()));
  EXPECT_EQ(to_host<int64_t>(s)[0], 3);
  EK_OK(ek_reduce(nullptr, EK_REDUCE_ANY, b, 0, nullptr, 0, any.out()));
  EK_OK(ek_reduce(nullptr, EK_REDUCE_ALL, b, 0, nullptr, 0, all.out()));
  EXPECT_EQ(to_host<uint8_t>(any)[0], 1);
  EXPECT_EQ(to_host<uint8_t>(all)[0], 0);
}

// any/all reduce x != 0: negative values are true. Every dtype (int64 used
// to reduce its values in place, as max(x) != 0 and min(x) != 0), over full
// reductions and dims, contiguous and transposed.
TEST_P(Reduce, AnyAllOfNegativeValuesForEveryDtype) {
  const std::vector<int64_t> shape{4, 4};
  const std::vector<double> v{0, 0, -1, 0,       // any: yes, all: no (negative max is 0)
                              -1, -2, -3, -128,  // all negative: all true
                              -1, 2, -3, 4,      // mixed signs
                              0, 0, 0, 0};
  const std::vector<std::vector<int>> dim_sets{{}, {0}, {1}, {-1, 0}};
  for (int dt = 0; dt < EK_COMPLEX64; ++dt) {  // the real dtypes (complex: test_complex.cpp)
    Tensor f64(make(shape, EK_FLOAT64, v)), x, xt;
    EK_OK(ek_cast(nullptr, f64, static_cast<ek_dtype>(dt), x.out()));
    EK_OK(ek_view_transpose(x, 0, 1, xt.out()));
    const std::vector<double> xs = values_of(x), xts = values_of(xt);
    for (ek_reduce_op op : {EK_REDUCE_ANY, EK_REDUCE_ALL})
      for (const auto &dims : dim_sets)
        for (int keep : {0, 1}) {
          SCOPED_TRACE(ek_dtype_name(static_cast<ek_dtype>(dt)));
          check(op, x, shape, xs, dims, keep, 0);
          check(op, xt, shape, xts, dims, keep, 0);
        }
  }
  Tensor one(make({3}, EK_INT64, std::vector<int64_t>{0, 0, -1})), two(make({2}, EK_INT64, std::vector<int64_t>{-1, 0}));
  Tensor any, all;
  EK_OK(ek_reduce(nullptr, EK_REDUCE_ANY, one, 0, nullptr, 0, any.out()));
  EK_OK(ek_reduce(nullptr, EK_REDUCE_ALL, two, 0, nullptr, 0, all.out()));
  EXPECT_EQ(to_host<uint8_t>(any)[0], 1);  // [0, 0, -1].any()
  EXPECT_EQ(to_host<uint8_t>(all)[0], 0);  // [-1, 0].all()
}

TEST_P(Reduce, HalfAndBFloat16AccumulateInFloat) {
  std::vector<int64_t> shape{8, 300};
  auto f = random_floats(2400, 7);
  Tensor f32(make(shape, EK_FLOAT32, f));
  for (ek_dtype dt : {EK_FLOAT16, EK_BFLOAT16}) {
    Tensor x;
    EK_OK(ek_cast(nullptr, f32, dt, x.out()));
    auto xs = values_of(x);  // the rounded inputs
    double tol = dt == EK_FLOAT16 ? 2e-3 : 1e-2;
    for (ek_reduce_op op : {EK_REDUCE_SUM, EK_REDUCE_MEAN, EK_REDUCE_MAX, EK_REDUCE_ARGMIN,
                            EK_REDUCE_NORM_L2})
      for (const std::vector<int> &dims : {std::vector<int>{}, {0}, {1}}) check(op, x, shape, xs, dims, 0, tol);
    Tensor s;
    EK_OK(ek_reduce(nullptr, EK_REDUCE_SUM, x, 0, nullptr, 0, s.out()));
    EXPECT_EQ(dtype_of(s), dt);
  }
}

TEST_P(Reduce, NonContiguousInputs) {
  std::vector<int64_t> shape{6, 10};
  auto f = random_floats(60, 3);
  Tensor base(make(shape, EK_FLOAT32, f)), t, sliced;
  EK_OK(ek_view_transpose(base, 0, 1, t.out()));
  EK_OK(ek_view_slice(base, 1, 9, EK_SLICE_MIN, -3, sliced.out()));  // columns 9, 6, 3, 0
  for (ek_tensor v : {t.t, sliced.t}) {
    auto vs = shape_of(v);
    auto xs = values_of(v);
    for (ek_reduce_op op : {EK_REDUCE_SUM, EK_REDUCE_ARGMAX, EK_REDUCE_NORM_INF, EK_REDUCE_ANY})
      for (const std::vector<int> &dims : {std::vector<int>{}, {0}, {1}})
        for (int keep : {0, 1}) check(op, v, vs, xs, dims, keep, 2e-6);
  }
}

TEST_P(Reduce, WritesIntoGivenOutputIncludingStridedViews) {
  Tensor x(make({3, 4}, EK_FLOAT32, random_floats(12, 5))), big, col, wrong;
  auto xs = values_of(x);
  int64_t shape[2] = {3, 2};
  EK_OK(ek_tensor_empty(nullptr, ctx, 2, shape, EK_FLOAT32, big.out()));
  EK_OK(ek_fill(nullptr, ektest::scalar(-7), big));
  EK_OK(ek_view_select(big, 1, 1, col.out()));  // stride 2
  int dim = 1;
  ek_tensor o = col.t;
  EK_OK(ek_reduce(nullptr, EK_REDUCE_SUM, x, 1, &dim, 0, &o));
  auto v = to_host<float>(big);
  for (int r = 0; r < 3; ++r) {
    EXPECT_EQ(v[r * 2], -7);
    EXPECT_NEAR(v[r * 2 + 1], xs[r * 4] + xs[r * 4 + 1] + xs[r * 4 + 2] + xs[r * 4 + 3], 1e-5);
  }
  EK_OK(ek_tensor_empty(nullptr, ctx, 1, shape, EK_FLOAT64, wrong.out()));
  o = wrong.t;
  EK_FAILS(ek_reduce(nullptr, EK_REDUCE_SUM, x, 1, &dim, 0, &o), EK_ERROR_DTYPE, "float32");
}

TEST_P(Reduce, ZeroDimAndZeroSize) {
  float five = 5;
  Tensor s(make<float>({}, EK_FLOAT32, {five})), r0, r1;
  EK_OK(ek_reduce(nullptr, EK_REDUCE_SUM, s, 0, nullptr, 0, r0.out()));
  EXPECT_EQ(shape_of(r0).size(), 0u);
  EXPECT_EQ(to_host<float>(r0)[0], 5);
  int d = -1;
  EK_OK(ek_reduce(nullptr, EK_REDUCE_ARGMAX, s, 1, &d, 1, r1.out()));
  EXPECT_EQ(to_host<int64_t>(r1)[0], 0);

  Tensor e;
  int64_t shape[2] = {0, 3};
  EK_OK(ek_tensor_empty(nullptr, ctx, 2, shape, EK_FLOAT32, e.out()));
  int d0 = 0, d1 = 1;
  struct { ek_reduce_op op; double want; } cases[] = {
      {EK_REDUCE_SUM, 0}, {EK_REDUCE_PROD, 1}, {EK_REDUCE_MEAN, kNaN}, {EK_REDUCE_ANY, 0},
      {EK_REDUCE_ALL, 1}, {EK_REDUCE_NORM_L2, 0}};
  for (auto &c : cases) {
    Tensor out;
    EK_OK(ek_reduce(nullptr, c.op, e, 1, &d0, 0, out.out()));
    auto v = values_of(out);
    ASSERT_EQ(v.size(), 3u);
    for (double x : v) expect_close(x, c.want, 0, "op " + std::to_string(c.op));
  }
  Tensor rows;
  EK_OK(ek_reduce(nullptr, EK_REDUCE_MAX, e, 1, &d1, 0, rows.out()));  // 0 outputs of 3 elements
  EXPECT_EQ(shape_of(rows), std::vector<int64_t>{0});
  for (ek_reduce_op op : {EK_REDUCE_MAX, EK_REDUCE_MIN, EK_REDUCE_ARGMAX, EK_REDUCE_NORM_INF}) {
    ek_tensor out = nullptr;
    EK_FAILS(ek_reduce(nullptr, op, e, 1, &d0, 0, &out), EK_ERROR_SHAPE, "zero elements");
    EXPECT_EQ(out, nullptr);
  }
  Tensor v;
  EK_OK(ek_var(nullptr, EK_VAR_VARIANCE, e, 1, &d0, 1, 0, v.out()));
  for (double x : values_of(v)) EXPECT_TRUE(std::isnan(x));
}

TEST_P(Reduce, NaNPropagatesAndWinsArgmax) {
  std::vector<float> v{1, NAN, 3, NAN, -1};
  Tensor x(make({5}, EK_FLOAT32, v));
  auto xs = values_of(x);
  for (ek_reduce_op op : kAllOps) check(op, x, {5}, xs, {}, 0, 1e-6);
  Tensor am;
  EK_OK(ek_reduce(nullptr, EK_REDUCE_ARGMIN, x, 0, nullptr, 0, am.out()));
  EXPECT_EQ(to_host<int64_t>(am)[0], 1);  // NaN is the min too, first occurrence
}

TEST_P(Reduce, VarAndStdWithCorrection) {
  std::vector<int64_t> shape{4, 50};
  auto f = random_floats(200, 11);
  std::vector<double> xs(f.begin(), f.end());
  Tensor x(make(shape, EK_FLOAT32, f));
  for (double corr : {0.0, 1.0})
    for (int sq : {0, 1})
      for (const std::vector<int> &dims : {std::vector<int>{}, {0}, {1}}) {
        Tensor out;
        EK_OK(ek_var(nullptr, sq ? EK_VAR_STD : EK_VAR_VARIANCE, x, static_cast<int>(dims.size()),
                     dims.data(), corr, 1, out.out()));
        EXPECT_EQ(shape_of(out).size(), 2u);
        Groups g = group_by(shape, xs, dims);
        auto got = values_of(out);
        ASSERT_EQ(got.size(), g.lines.size());
        for (size_t i = 0; i < got.size(); ++i) {
          double want = ref_var(g.lines[i], corr);
          expect_close(got[i], sq ? std::sqrt(want) : want, 1e-5, "var");
        }
      }
  Tensor one(make({1}, EK_FLOAT32, std::vector<float>{3})), v1;
  EK_OK(ek_var(nullptr, EK_VAR_VARIANCE, one, 0, nullptr, 1, 0, v1.out()));  // 0 / 0
  EXPECT_TRUE(std::isnan(to_host<float>(v1)[0]));
}

TEST_P(Reduce, MaxDimValuesAndFirstIndices) {
  std::vector<float> v{1, 5, 5, 0, 2, 2, 9, -1, 7, 7, 7, 7};
  Tensor x(make({3, 4}, EK_FLOAT32, v));
  for (int take_min : {0, 1}) {
    Tensor vals, idx;
    EK_OK(ek_reduce_with_indices(nullptr, take_min ? EK_REDUCE_MIN : EK_REDUCE_MAX, x, 1, 0,
                                 vals.out(), idx.out()));
    EXPECT_EQ(dtype_of(vals), EK_FLOAT32);
    EXPECT_EQ(dtype_of(idx), EK_INT64);
    auto vv = to_host<float>(vals);
    auto ii = to_host<int64_t>(idx);
    std::vector<float> want_v = take_min ? std::vector<float>{0, -1, 7} : std::vector<float>{5, 9, 7};
    std::vector<int64_t> want_i = take_min ? std::vector<int64_t>{3, 3, 0} : std::vector<int64_t>{1, 2, 0};
    EXPECT_EQ(vv, want_v);
    EXPECT_EQ(ii, want_i);
  }
  Tensor vals, idx;
  EK_OK(ek_reduce_with_indices(nullptr, EK_REDUCE_MAX, x, 0, 1, vals.out(), idx.out()));
  EXPECT_EQ(shape_of(idx), (std::vector<int64_t>{1, 4}));
  EXPECT_EQ(to_host<int64_t>(idx), (std::vector<int64_t>{2, 2, 1, 2}));
  Tensor i8(make({3}, EK_INT8, std::vector<int8_t>{-5, 100, -100})), v8, x8;
  EK_OK(ek_reduce_with_indices(nullptr, EK_REDUCE_MIN, i8, 0, 0, v8.out(), x8.out()));
  EXPECT_EQ(to_host<int8_t>(v8)[0], -100);
  EXPECT_EQ(to_host<int64_t>(x8)[0], 2);
}

TEST_P(Reduce, RunsAreBitwiseIdentical) {
  std::vector<int64_t> shape{256, 4096};
  Tensor x(make(shape, EK_FLOAT32, random_floats(256 * 4096, 13)));
  for (int dim : {-1, 0, 2}) {
    Tensor a, b;
    int n = dim == 2 ? 0 : 1;
    EK_OK(ek_reduce(nullptr, EK_REDUCE_SUM, x, n, &dim, 0, a.out()));
    EK_OK(ek_reduce(nullptr, EK_REDUCE_SUM, x, n, &dim, 0, b.out()));
    auto va = to_host<float>(a), vb = to_host<float>(b);
    EXPECT_EQ(0, std::memcmp(va.data(), vb.data(), va.size() * sizeof(float))) << "dim " << dim;
  }
}

TEST_P(Reduce, BadInputsFailWithMessages) {
  Tensor x(make({2, 3}, EK_FLOAT32, random_floats(6, 2)));
  Tensor i(make({2}, EK_INT32, std::vector<int32_t>{1, 2}));
  ek_tensor out = nullptr, idx = nullptr;
  EK_FAILS(ek_reduce(nullptr, EK_REDUCE_SUM, nullptr, 0, nullptr, 0, &out), EK_ERROR_NULL_POINTER, "ek_reduce");
  EK_FAILS(ek_reduce(nullptr, EK_REDUCE_SUM, x, 0, nullptr, 0, nullptr), EK_ERROR_NULL_POINTER, "out");
  EK_FAILS(ek_reduce(nullptr, static_cast<ek_reduce_op>(99), x, 0, nullptr, 0, &out),
           EK_ERROR_INVALID_ARGUMENT, "99");
  int far = 5, dup[2] = {1, -1};
  EK_FAILS(ek_reduce(nullptr, EK_REDUCE_SUM, x, 1, &far, 0, &out), EK_ERROR_INDEX, "5");
  EK_FAILS(ek_reduce(nullptr, EK_REDUCE_SUM, x, 2, dup, 0, &out), EK_ERROR_INVALID_ARGUMENT,
           "more than once");
  EK_FAILS(ek_reduce(nullptr, EK_REDUCE_SUM, x, 2, nullptr, 0, &out), EK_ERROR_NULL_POINTER, "dims");
  EK_FAILS(ek_reduce(nullptr, EK_REDUCE_MEAN, i, 0, nullptr, 0, &out), EK_ERROR_DTYPE, "int32");
  EK_FAILS(ek_var(nullptr, EK_VAR_VARIANCE, i, 0, nullptr, 1, 0, &out), EK_ERROR_DTYPE, "int32");
  EK_FAILS(ek_var(nullptr, static_cast<ek_var_kind>(7), x, 0, nullptr, 1, 0, &out),
           EK_ERROR_INVALID_ARGUMENT, "7");
  EK_FAILS(ek_reduce_with_indices(nullptr, EK_REDUCE_SUM, x, 0, 0, &out, &idx),
           EK_ERROR_INVALID_ARGUMENT, "ek_reduce_with_indices");
  EK_FAILS(ek_reduce_with_indices(nullptr, EK_REDUCE_MAX, x, 2, 0, &out, &idx), EK_ERROR_INDEX,
           "2");
  EK_FAILS(ek_reduce_with_indices(nullptr, EK_REDUCE_MAX, x, 0, 0, nullptr, &idx),
           EK_ERROR_NULL_POINTER, "values");
  Tensor e;
  int64_t shape[2] = {2, 0};
  EK_OK(ek_tensor_empty(nullptr, ctx, 2, shape, EK_FLOAT32, e.out()));
  EK_FAILS(ek_reduce_with_indices(nullptr, EK_REDUCE_MAX, e, 1, 0, &out, &idx), EK_ERROR_SHAPE,
           "empty");
  EXPECT_EQ(out, nullptr);
  EXPECT_EQ(idx, nullptr);
}

}  // namespace

namespace {

// Found by tests/fuzz/fuzz_ops: reducing an empty dim of an empty tensor that
// has no storage stepped a null pointer forward for every output (undefined
// behaviour clang's UBSan reports). Every output is the op's identity.
TEST_P(Reduce, EmptyDimOfAStoragelessTensor) {
  for (ek_dtype dt : {EK_INT64, EK_FLOAT64, EK_FLOAT16}) {
    Tensor e, sum, any;
    int64_t shape[3] = {2, 0, 3};
    EK_OK(ek_tensor_empty(nullptr, ctx, 3, shape, dt, e.out()));
    int d = 1;
    EK_OK(ek_reduce(nullptr, EK_REDUCE_SUM, e, 1, &d, 1, sum.out()));
    EXPECT_EQ(shape_of(sum), (std::vector<int64_t>{2, 1, 3}));
    for (double x : values_of(sum)) EXPECT_EQ(x, 0);
    EK_OK(ek_reduce(nullptr, EK_REDUCE_ANY, e, 1, &d, 0, any.out()));
    for (double x : values_of(any)) EXPECT_EQ(x, 0);
  }
}

}  // namespace
