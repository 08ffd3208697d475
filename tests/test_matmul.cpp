// ek_matmul and ek_gemm against a double-precision NumPy-matmul reference
// computed here, on every device of the run (tolerances bound the rounding of
// each dtype, so the same checks hold for the CPU loops and for cuBLAS). CUDA
// against the CPU backend on larger products: test_conformance.cpp.
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "ek_test.hpp"

using ektest::dtype_of;
using ektest::kFloatDtypes;
using ektest::numel_of;
using ektest::Shape;
using ektest::shape_of;
using ektest::sliced;
using ektest::Tensor;
using ektest::text;
using ektest::to_host;
using ektest::values_of;

namespace {

const double kNaN = std::numeric_limits<double>::quiet_NaN();

uint64_t alloc_count(ek_context c) {
  ek_memory_stats s = EK_MEMORY_STATS_INIT;
  EXPECT_EQ(ek_memory_get_stats(c, &s), EK_SUCCESS);
  return s.alloc_count;
}

// NumPy matmul in double, with per element the sum of |a| |b| over k: the
// scale rounding errors are measured against.
struct Ref {
  Shape shape;
  std::vector<double> v, mag;
};

Ref reference(Shape sa, const std::vector<double> &va, Shape sb, const std::vector<double> &vb) {
  const bool a_vec = sa.size() == 1, b_vec = sb.size() == 1;
  if (a_vec) sa.insert(sa.begin(), 1);
  if (b_vec) sb.push_back(1);
  const int64_t m = sa[sa.size() - 2], k = sa.back(), n = sb.back();
  const size_t na = sa.size() - 2, nb = sb.size() - 2, nbat = std::max(na, nb);
  Shape batch(nbat);
  for (size_t d = 0; d < nbat; ++d) {
    int64_t x = d + na >= nbat ? sa[d + na - nbat] : 1, y = d + nb >= nbat ? sb[d + nb - nbat] : 1;
    batch[d] = x == 1 ? y : x;
  }
  Ref r;
  r.shape = batch;
  if (!a_vec) r.shape.push_back(m);
  if (!b_vec) r.shape.push_back(n);
  Shape idx(nbat, 0);
  for (int64_t q = 0; q < numel_of(batch); ++q) {
    int64_t oa = 0, ob = 0;  // batch offsets in matrices, C order, size-1 dims broadcast
    for (size_t d = 0; d < nbat; ++d) {
      if (d + na >= nbat) oa = oa * sa[d + na - nbat] + (sa[d + na - nbat] == 1 ? 0 : idx[d]);
      if (d + nb >= nbat) ob = ob * sb[d + nb - nbat] + (sb[d + nb - nbat] == 1 ? 0 : idx[d]);
    }
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        double s = 0, g = 0;
        for (int64_t p = 0; p < k; ++p) {
          double x = va[oa * m * k + i * k + p], y = vb[ob * k * n + p * n + j];
          s += x * y;
          g += std::fabs(x * y);
        }
        r.v.push_back(s);
        r.mag.push_back(g);
      }
    for (int d = static_cast<int>(nbat) - 1; d >= 0 && ++idx[d] == batch[d]; --d) idx[d] = 0;
  }
  return r;
}

// Bound on |result - exact| / mag for one backend, doubled to cover the
// difference of two: the output's rounding, TF32's rounding (or truncation)
// of both inputs to 10 bits, and recursive summation over k in the accumulator
// (f32 on cuBLAS for f16/bf16/f32, f64 for f64).
double tolerance(ek_dtype dt, int64_t k, bool tf32 = false) {
  const double out = dt == EK_FLOAT64 ? 0x1p-53 : dt == EK_FLOAT32 ? 0x1p-24
                     : dt == EK_FLOAT16 ? 0x1p-11 : 0x1p-8;
  const double acc = dt == EK_FLOAT64 ? 0x1p-53 : 0x1p-24;
  const double in = tf32 && dt == EK_FLOAT32 ? 0x1p-9 : 0;
  return 2 * (out + in + static_cast<double>(k + 1) * acc);
}

void expect_matches(const std::vector<double> &got, const std::vector<double> &want,
                    const std::vector<double> &mag, double tol, const std::string &what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  int bad = 0;
  for (size_t i = 0; i < got.size() && bad < 5; ++i) {
    bool ok = std::isnan(want[i])   ? std::isnan(got[i])
              : std::isinf(want[i]) ? got[i] == want[i]
                                    : std::fabs(got[i] - want[i]) <= tol * mag[i];
    if (!ok) ++bad;
    EXPECT_TRUE(ok) << what << " at " << i << ": got " << got[i] << ", want " << want[i]
                    << " (tolerance " << tol * mag[i] << ")";
  }
}

// c = alpha a @ b + beta c0 in double, for gemm checks.
Ref gemm_reference(ek_tensor a, ek_tensor b, const std::vector<double> &c0, double alpha,
                   double beta) {
  Ref r = reference(shape_of(a), values_of(a), shape_of(b), values_of(b));
  for (size_t i = 0; i < r.v.size(); ++i) {
    double old = beta == 0 ? 0 : beta * c0[i % c0.size()];
    r.v[i] = alpha * r.v[i] + old;
    r.mag[i] = std::fabs(alpha) * r.mag[i] + std::fabs(old);
  }
  return r;
}

class Matmul : public ektest::DeviceTest {
 protected:
  // A tensor of `shape` with values from [-2, 2) rounded to dt.
  ek_tensor random(const Shape &shape, ek_dtype dt, uint32_t seed, ek_context c = nullptr) {
    return make(shape, dt, ektest::random_values(static_cast<size_t>(numel_of(shape)), seed, -2, 2), c);
  }
  ek_tensor filled(const Shape &shape, ek_dtype dt, double value, ek_context c = nullptr) {
    ek_tensor t = nullptr;
    EXPECT_EQ(
        ek_tensor_empty(nullptr, c ? c : ctx, static_cast<int>(shape.size()), shape.data(), dt, &t),
        EK_SUCCESS)
        << ek_last_error();
    EXPECT_EQ(ek_fill(nullptr, ektest::scalar(value), t), EK_SUCCESS) << ek_last_error();
    return t;
  }
  // The last two dims swapped.
  static ek_tensor transposed(ek_tensor t) { return ektest::transposed(t, -2, -1); }
  // out = a @ b (out may be given) checked against the reference on a's and b's values.
  void check_into(ek_tensor a, ek_tensor b, ek_tensor *out, const std::string &what,
                  bool tf32 = false) {
    ASSERT_EQ(ek_matmul(nullptr, a, b, out), EK_SUCCESS) << what << ": " << ek_last_error();
    Shape sa = shape_of(a);
    Ref r = reference(sa, values_of(a), shape_of(b), values_of(b));
    EXPECT_EQ(shape_of(*out), r.shape) << what;
    EXPECT_EQ(dtype_of(*out), dtype_of(a)) << what;
    expect_matches(values_of(*out), r.v, r.mag, tolerance(dtype_of(a), sa.back(), tf32), what);
  }
  void check(ek_tensor a, ek_tensor b, const std::string &what) {
    Tensor out;
    check_into(a, b, out.out(), what);
  }
  // ek_gemm into a [m,n] c (row- or column-major; NaN-filled when beta == 0).
  void check_gemm(ek_tensor a, ek_tensor b, double alpha, double beta, bool col_major_c,
                  const std::string &what) {
    const ek_dtype dt = dtype_of(a);
    const int64_t m = shape_of(a)[0], n = shape_of(b)[1];
    const Shape store_shape = col_major_c ? Shape{n, m} : Shape{m, n};
    Tensor store(beta == 0 ? filled(store_shape, dt, kNaN) : random(store_shape, dt, 62));
    Tensor view(col_major_c ? transposed(store) : nullptr);
    ek_tensor c = col_major_c ? view.t : store.t;
    auto c0 = values_of(c);
    ASSERT_EQ(ek_gemm(nullptr, ek_scalar_float(alpha), a, b, ek_scalar_float(beta), c), EK_SUCCESS)
        << what << ": " << ek_last_error();
    Ref r = gemm_reference(a, b, c0, alpha, beta);
    expect_matches(values_of(c), r.v, r.mag, tolerance(dt, shape_of(a)[1] + 2), what);
  }
  // The allocations ek_matmul(a, b) makes: 1 (the result) when no operand is copied.
  uint64_t allocations_of(ek_tensor a, ek_tensor b) {
    uint64_t before = alloc_count(ctx);
    Tensor out;
    EXPECT_EQ(ek_matmul(nullptr, a, b, out.out()), EK_SUCCESS) << ek_last_error();
    return alloc_count(ctx) - before;
  }
};
EK_INSTANTIATE_DEVICES(Matmul);

TEST_P(Matmul, ShapesFollowNumPy) {
  struct Case { Shape a, b, out; };
  const Case cases[] = {
      {{4}, {4}, {}},                  {{3}, {3, 5}, {5}},          {{2, 3}, {3}, {2}},
      {{2, 3}, {3, 4}, {2, 4}},        {{1, 1}, {1, 1}, {1, 1}},    {{1}, {1}, {}},
      {{2, 1, 3, 4}, {5, 4, 6}, {2, 5, 3, 6}}, {{3}, {2, 3, 4}, {2, 4}}, {{2, 3, 4}, {4}, {2, 3}},
      {{3, 1, 2, 5}, {3, 5, 2}, {3, 3, 2, 2}}, {{1, 2, 3}, {4, 3, 2}, {4, 2, 2}},
      {{2, 2, 1, 1, 3, 2}, {2, 1, 2, 4}, {2, 2, 2, 1, 3, 4}}};
  uint32_t seed = 1;
  for (const Case &c : cases)
    for (ek_dtype dt : {EK_FLOAT32, EK_FLOAT64}) {
      Tensor a(random(c.a, dt, seed++)), b(random(c.b, dt, seed++)), out;
      std::string what = text(c.a) + " @ " + text(c.b);
      check_into(a, b, out.out(), what);
      EXPECT_EQ(shape_of(out), c.out) << what;
    }
}

TEST_P(Matmul, EveryDtypeWithinItsTolerance) {
  for (ek_dtype dt : kFloatDtypes) {
    Tensor a(random({3, 17, 33}, dt, 3)), b(random({33, 9}, dt, 4));
    check(a, b, std::string("batched ") + ek_dtype_name(dt));
    Tensor c(random({40, 70}, dt, 5)), d(random({70, 50}, dt, 6));
    check(c, d, std::string("2-D ") + ek_dtype_name(dt));
    Tensor v(random({70}, dt, 7)), w(random({70}, dt, 8));
    check(v, w, std::string("dot ") + ek_dtype_name(dt));
    check(c, v, std::string("matrix @ vector ") + ek_dtype_name(dt));
  }
}

TEST_P(Matmul, TransposedViewsAreReadInPlace) {
  for (ek_dtype dt : {EK_FLOAT32, EK_BFLOAT16}) {
    std::string name = ek_dtype_name(dt);
    Tensor x(random({5, 7}, dt, 10)), y(random({6, 5}, dt, 11)), xt(transposed(x)), yt(transposed(y));
    Tensor u(random({4, 5}, dt, 12)), w(random({5, 6}, dt, 13)), v(random({5}, dt, 14));
    check(xt, yt, "x^T @ y^T " + name);  // [7,5] @ [5,6], both column-major
    check(xt, w, "x^T @ w " + name);
    check(u, yt, "u @ y^T " + name);
    check(v, yt, "v @ y^T " + name);
    check(xt, v, "x^T @ v " + name);
    EXPECT_EQ(allocations_of(xt, yt), 1u) << "a transposed operand was copied";
    EXPECT_EQ(allocations_of(u, yt), 1u);
    Tensor p(random({3, 5, 7}, dt, 15)), q(random({3, 6, 5}, dt, 16)), pt(transposed(p)), qt(transposed(q));
    check(pt, qt, "batched p^T @ q^T " + name);  // [3,7,5] @ [3,5,6]
    check(pt, w, "batched p^T @ w " + name);
    EXPECT_EQ(allocations_of(pt, qt), 1u);
  }
}

TEST_P(Matmul, SlicedStridedAndBroadcastOperands) {
  const ek_dtype dt = EK_FLOAT32;
  Tensor big(random({6, 12}, dt, 20)), u(random({4, 5}, dt, 21)), w(random({5, 6}, dt, 22));
  Tensor cols(sliced(big, 1, 2, 7, 1));  // [6,5], row stride 12 > 5 columns
  check(cols, w, "row stride > cols");
  EXPECT_EQ(allocations_of(cols, w), 1u) << "a row-major slice was copied";
  Tensor cols_t(transposed(cols));  // [5,6] column-major with ld 12
  check(u, cols_t, "transposed slice");
  EXPECT_EQ(allocations_of(u, cols_t), 1u);
  Tensor rows(sliced(big, 0, 1, 6, 1)), stepped(sliced(rows, 1, 0, EK_SLICE_MAX, 2));  // [5,6], col stride 2
  check(u, stepped, "stepped last dim");
  EXPECT_EQ(allocations_of(u, stepped), 2u) << "a stepped operand takes one contiguous copy";
  Tensor first5(sliced(big, 1, 0, 5, 1)), reversed(sliced(first5, 0, EK_SLICE_MAX, EK_SLICE_MIN, -1));
  check(reversed, w, "negative row stride");  // [6,5]
  Tensor col(random({5, 1}, dt, 23)), wide;
  int64_t wide_shape[2] = {5, 6};
  EK_OK(ek_view_expand(col, 2, wide_shape, wide.out()));  // stride 0 in a matrix dim
  check(u, wide, "broadcast matrix dim");
  Tensor one(random({1, 4, 5}, dt, 24)), many, q(random({3, 5, 6}, dt, 25));
  int64_t many_shape[3] = {3, 4, 5};
  EK_OK(ek_view_expand(one, 3, many_shape, many.out()));  // batch stride 0
  check(many, q, "broadcast batch dim");
  EXPECT_EQ(allocations_of(many, q), 1u) << "a broadcast batch was materialized";
  Tensor long_v(random({15}, dt, 26)), every3(sliced(long_v, 0, 0, EK_SLICE_MAX, 3));  // [5], stride 3
  check(every3, w, "strided vector @ matrix");
  check(u, every3, "matrix @ strided vector");
  EXPECT_EQ(allocations_of(every3, w), 1u);
}

TEST_P(Matmul, BatchDimsOneStrideCannotDescribe) {
  const ek_dtype dt = EK_FLOAT64;
  Tensor base(random({3, 4, 4, 5}, dt, 30)), perm, w(random({5, 6}, dt, 31));
  int order[4] = {1, 0, 2, 3};
  EK_OK(ek_view_permute(base, 4, order, perm.out()));  // [4,3,4,5], batch strides (20, 80)
  check(perm, w, "permuted batch dims");
  EXPECT_EQ(allocations_of(perm, w), 1u) << "permuted batch dims are looped over, not copied";
  Tensor a(random({3, 1, 4, 5}, dt, 32)), b(random({1, 2, 5, 6}, dt, 33));
  check(a, b, "batch dims broadcast against each other");
  Tensor pt(transposed(perm)), w2(random({4, 6}, dt, 36));  // [4,3,5,4] column-major matrices
  check(pt, w2, "permuted batch of transposed matrices");
  Tensor bt(random({2, 6, 5}, dt, 34)), btt(transposed(bt)), c(random({4, 1, 4, 5}, dt, 35));
  check(c, btt, "broadcast batch with a transposed operand");  // -> [4,2,4,6]
}

TEST_P(Matmul, ZeroSizeDimsAndOneByOne) {
  const ek_dtype dt = EK_FLOAT32;
  Tensor a(random({3, 0}, dt, 40)), b(random({0, 4}, dt, 41)), zeros;
  check_into(a, b, zeros.out(), "k == 0");
  for (double v : values_of(zeros)) EXPECT_EQ(v, 0.0);
  Tensor nan_out(filled({3, 4}, dt, kNaN));
  ek_tensor o = nan_out.t;
  EK_OK(ek_matmul(nullptr, a, b, &o));
  for (double v : values_of(nan_out)) EXPECT_EQ(v, 0.0) << "k == 0 must overwrite out";
  struct Case { Shape a, b, out; };
  const Case cases[] = {{{0, 3}, {3, 4}, {0, 4}}, {{3, 4}, {4, 0}, {3, 0}},
                        {{0, 3, 4}, {4, 5}, {0, 3, 5}}, {{0}, {0}, {}}, {{2, 0}, {0}, {2}},
                        {{1, 1}, {1, 1}, {1, 1}}, {{1}, {1, 1}, {1}}};
  for (const Case &c : cases) {
    Tensor x(random(c.a, dt, 42)), y(random(c.b, dt, 43)), out;
    check_into(x, y, out.out(), text(c.a) + " @ " + text(c.b));
    EXPECT_EQ(shape_of(out), c.out);
  }
}

TEST_P(Matmul, NaNAndInfPropagate) {
  std::vector<float> av(12, 0.5f), bv(20, 1.0f);
  av[1 * 4 + 2] = NAN;
  av[2 * 4 + 0] = INFINITY;
  Shape sa{3, 4}, sb{4, 5};
  for (ek_dtype dt : kFloatDtypes) {
    Tensor a32, b32, a, b;
    EK_OK(ek_tensor_from_host(nullptr, ctx, 2, sa.data(), EK_FLOAT32, av.data(), a32.out()));
    EK_OK(ek_tensor_from_host(nullptr, ctx, 2, sb.data(), EK_FLOAT32, bv.data(), b32.out()));
    EK_OK(ek_cast(nullptr, a32, dt, a.out()));
    EK_OK(ek_cast(nullptr, b32, dt, b.out()));
    Tensor out;
    EK_OK(ek_matmul(nullptr, a, b, out.out()));
    auto v = values_of(out);
    for (int j = 0; j < 5; ++j) {
      EXPECT_EQ(v[j], 2.0) << ek_dtype_name(dt);
      EXPECT_TRUE(std::isnan(v[5 + j])) << ek_dtype_name(dt) << ": NaN row";
      EXPECT_EQ(v[10 + j], INFINITY) << ek_dtype_name(dt) << ": Inf row";
    }
  }
}

TEST_P(Matmul, WritesIntoAGivenOut) {
  const ek_dtype dt = EK_FLOAT32;
  Tensor a(random({4, 5}, dt, 50)), b(random({5, 6}, dt, 51)), v(random({5}, dt, 52));
  Tensor plain(filled({4, 6}, dt, kNaN));
  ek_tensor o = plain.t;
  check_into(a, b, &o, "contiguous out");
  EXPECT_EQ(o, plain.t) << "a given out is written, not replaced";
  Tensor scalar(filled({}, dt, kNaN));
  o = scalar.t;
  check_into(v, v, &o, "0-d out of a dot product");

  Tensor store(filled({6, 4}, dt, kNaN)), store_t(transposed(store));  // [4,6] column-major
  uint64_t before = alloc_count(ctx);
  o = store_t.t;
  EK_OK(ek_matmul(nullptr, a, b, &o));
  EXPECT_EQ(alloc_count(ctx) - before, 0u) << "a column-major out is written directly";
  check_into(a, b, &o, "column-major out");

  Tensor wide(filled({4, 12}, dt, -7)), every2(sliced(wide, 1, 0, EK_SLICE_MAX, 2));
  o = every2.t;
  check_into(a, b, &o, "stepped out");
  auto all = values_of(wide);
  for (size_t i = 1; i < all.size(); i += 2) EXPECT_EQ(all[i], -7) << "wrote outside out at " << i;

  Tensor wrong_shape(filled({4, 5}, dt, 0)), wrong_dtype(filled({4, 6}, EK_FLOAT64, 0));
  o = wrong_shape.t;
  EK_FAILS(ek_matmul(nullptr, a, b, &o), EK_ERROR_SHAPE, "[4,6]");
  o = wrong_dtype.t;
  EK_FAILS(ek_matmul(nullptr, a, b, &o), EK_ERROR_DTYPE, "float64");
  Tensor sq(random({5, 5}, dt, 53));
  o = sq.t;
  EK_FAILS(ek_matmul(nullptr, sq, sq, &o), EK_ERROR_INVALID_ARGUMENT, "overlaps a");
  Tensor part(sliced(b, 0, 1, 5, 1));  // [4,6] inside b
  o = part.t;
  EK_FAILS(ek_matmul(nullptr, a, b, &o), EK_ERROR_INVALID_ARGUMENT, "overlaps b");
}

TEST_P(Matmul, GemmScalesAndAccumulates) {
  const double cases[][2] = {{1, 0}, {2.5, 0}, {1, 1}, {-0.5, 2}, {0, 0.5}, {0, 0}, {1.5, -1}};
  for (ek_dtype dt : kFloatDtypes) {
    Tensor a_rows(random({7, 5}, dt, 60)), a_store(random({5, 7}, dt, 63)), b(random({5, 6}, dt, 61));
    Tensor a_cols(transposed(a_store));
    for (const auto &ab : cases)
      for (bool col_major_c : {false, true})
        for (ek_tensor a : {a_rows.t, a_cols.t}) {
          std::string what = std::string(ek_dtype_name(dt)) + " alpha " + std::to_string(ab[0]) +
                             " beta " + std::to_string(ab[1]) + (col_major_c ? " column-major c" : "") +
                             (a == a_cols.t ? " transposed a" : "");
          check_gemm(a, b, ab[0], ab[1], col_major_c, what);
        }
  }
}

TEST_P(Matmul, GemmBatchesAndBroadcastsABatchOfOne) {
  const ek_dtype dt = EK_FLOAT32;
  Tensor a1(random({1, 4, 5}, dt, 70)), a2(random({4, 5}, dt, 71)), b(random({3, 5, 6}, dt, 72));
  Tensor bt_store(random({3, 6, 5}, dt, 73)), bt(transposed(bt_store));
  for (ek_tensor a : {a1.t, a2.t})
    for (ek_tensor bb : {b.t, bt.t}) {
      Tensor c(random({3, 4, 6}, dt, 74));
      auto c0 = values_of(c);
      EK_OK(ek_gemm(nullptr, ek_scalar_float(2.0), a, bb, ek_scalar_float(0.5), c));
      Ref r = gemm_reference(a, bb, c0, 2.0, 0.5);
      expect_matches(values_of(c), r.v, r.mag, tolerance(dt, 7), "batched gemm");
    }
  // k == 0 leaves beta * c (and beta == 0 clears NaN).
  Tensor ak(random({4, 0}, dt, 75)), bk(random({0, 6}, dt, 76)), ck(random({4, 6}, dt, 77));
  auto c0 = values_of(ck);
  EK_OK(ek_gemm(nullptr, ek_scalar_float(1.0), ak, bk, ek_scalar_float(-2.0), ck));
  auto c1 = values_of(ck);
  for (size_t i = 0; i < c0.size(); ++i) EXPECT_EQ(c1[i], -2.0 * c0[i]);
  Tensor cn(filled({4, 6}, dt, kNaN));
  EK_OK(ek_gemm(nullptr, ek_scalar_float(1.0), ak, bk, ek_scalar_float(0.0), cn));
  for (double v : values_of(cn)) EXPECT_EQ(v, 0.0);
  Tensor ce(filled({0, 6}, dt, 0)), ae(random({0, 5}, dt, 78)), be(random({5, 6}, dt, 79));
  EK_OK(ek_gemm(nullptr, ek_scalar_float(1.0), ae, be, ek_scalar_float(0.0), ce));
}

TEST_P(Matmul, GemmRejectsBadArguments) {
  const ek_dtype dt = EK_FLOAT32;
  Tensor a(random({4, 5}, dt, 80)), b(random({5, 6}, dt, 81)), c(filled({4, 6}, dt, 0));
  EK_FAILS(ek_gemm(nullptr, ek_scalar_int(1), a, b, ek_scalar_int(0), nullptr),
           EK_ERROR_NULL_POINTER, "c");
  EK_FAILS(ek_gemm(nullptr, ek_scalar_int(1), nullptr, b, ek_scalar_int(0), c),
           EK_ERROR_NULL_POINTER, "a");
  Tensor wide(filled({4, 12}, dt, 0)), stepped(sliced(wide, 1, 0, EK_SLICE_MAX, 2));
  EK_FAILS(ek_gemm(nullptr, ek_scalar_int(1), a, b, ek_scalar_int(0), stepped),
           EK_ERROR_INVALID_ARGUMENT, "neither row- nor column-major");
  Tensor one(filled({1, 4, 6}, dt, 0)), bcast, b3(random({3, 5, 6}, dt, 82));
  int64_t three[3] = {3, 4, 6};
  EK_OK(ek_view_expand(one, 3, three, bcast.out()));
  EK_FAILS(ek_gemm(nullptr, ek_scalar_int(1), a, b3, ek_scalar_int(0), bcast),
           EK_ERROR_INVALID_ARGUMENT, "broadcast");
  Tensor sq(random({5, 5}, dt, 83));
  EK_FAILS(ek_gemm(nullptr, ek_scalar_int(1), sq, sq, ek_scalar_int(0), sq),
           EK_ERROR_INVALID_ARGUMENT, "overlaps a");
  Tensor c_bad(filled({4, 7}, dt, 0));
  EK_FAILS(ek_gemm(nullptr, ek_scalar_int(1), a, b, ek_scalar_int(0), c_bad), EK_ERROR_SHAPE,
           "c has shape [4,7]");
  Tensor v(random({5}, dt, 84)), c2(filled({4, 6}, dt, 0));
  EK_FAILS(ek_gemm(nullptr, ek_scalar_int(1), v, b, ek_scalar_int(0), c2), EK_ERROR_SHAPE, "[5]");
  Tensor a3(random({3, 4, 5}, dt, 85));
  EK_FAILS(ek_gemm(nullptr, ek_scalar_int(1), a3, b, ek_scalar_int(0), c2), EK_ERROR_SHAPE,
           "leading batch dim");
  Tensor a2b(random({2, 4, 5}, dt, 86)), c3(filled({3, 4, 6}, dt, 0));
  EK_FAILS(ek_gemm(nullptr, ek_scalar_int(1), a2b, b, ek_scalar_int(0), c3), EK_ERROR_SHAPE,
           "neither 1 nor c's batch 3");
  Tensor c64(filled({4, 6}, EK_FLOAT64, 0));
  EK_FAILS(ek_gemm(nullptr, ek_scalar_int(1), a, b, ek_scalar_int(0), c64), EK_ERROR_DTYPE,
           "float64");
  Tensor bi(filled({4, 6}, dt, 0));
  EK_FAILS(ek_gemm(nullptr, ek_scalar_int(1), a, bi, ek_scalar_int(0), c), EK_ERROR_SHAPE,
           "ek_gemm: inner dimensions differ: [4,5] @ [4,6]");
}

TEST_P(Matmul, BadInputsFailWithMessages) {
  Tensor a(random({3, 4}, EK_FLOAT32, 90)), b(random({5, 6}, EK_FLOAT32, 91));
  Tensor good(random({4, 2}, EK_FLOAT32, 92)), f64(random({4, 2}, EK_FLOAT64, 93));
  ek_tensor out = nullptr;
  EK_FAILS(ek_matmul(nullptr, nullptr, b, &out), EK_ERROR_NULL_POINTER, "ek_matmul: a is NULL");
  EK_FAILS(ek_matmul(nullptr, a, nullptr, &out), EK_ERROR_NULL_POINTER, "b is NULL");
  EK_FAILS(ek_matmul(nullptr, a, good, nullptr), EK_ERROR_NULL_POINTER, "out is NULL");
  EK_FAILS(ek_matmul(nullptr, a, b, &out), EK_ERROR_SHAPE,
           "ek_matmul: inner dimensions differ: [3,4] @ [5,6]");
  Tensor s(filled({}, EK_FLOAT32, 1));
  EK_FAILS(ek_matmul(nullptr, s, good, &out), EK_ERROR_SHAPE, "0-d");
  {
    Tensor mixed;  // mixed dtypes promote (one operand is cast)
    EK_OK(ek_matmul(nullptr, a, f64, mixed.out()));
    EXPECT_EQ(dtype_of(mixed), EK_FLOAT64);
  }
  Tensor i1(filled({3, 4}, EK_BOOL, 1)), i2(filled({4, 2}, EK_BOOL, 1));
  EK_FAILS(ek_matmul(nullptr, i1, i2, &out), EK_ERROR_DTYPE, "ek_matmul: bool operands");
  Tensor b3(random({2, 3, 4}, EK_FLOAT32, 94)), b4(random({3, 4, 5}, EK_FLOAT32, 95));
  EK_FAILS(ek_matmul(nullptr, b3, b4, &out), EK_ERROR_SHAPE, "batch dims do not broadcast");
  ek_context other = cpu_context();
  ek_tensor foreign = random({4, 2}, EK_FLOAT32, 96, other);
  EK_FAILS(ek_matmul(nullptr, a, foreign, &out), EK_ERROR_INVALID_ARGUMENT, "different contexts");
  ek_stream other_stream = nullptr;
  EK_OK(ek_stream_create(other, &other_stream));
  EK_FAILS(ek_matmul(other_stream, a, good, &out), EK_ERROR_INVALID_ARGUMENT, "another context");
  EXPECT_EQ(out, nullptr) << "a failed call leaves *out untouched";
  EXPECT_EQ(ek_stream_destroy(other_stream), EK_SUCCESS);
  ek_tensor_release(foreign);
  EXPECT_EQ(ek_context_destroy(other), EK_SUCCESS);
}

TEST_P(Matmul, TF32IsOptIn) {
  // 1 + 2^-12 needs 13 significand bits: TF32 (10) rounds it to 1, float32 keeps it.
  const double x = 1.0 + std::ldexp(1.0, -12);
  Tensor a(filled({64, 256}, EK_FLOAT32, x)), b(filled({256, 32}, EK_FLOAT32, 1)), out;
  EK_OK(ek_matmul(nullptr, a, b, out.out()));
  for (double v : values_of(out)) ASSERT_EQ(v, 256 * x) << "float32 without allow_tf32 must be exact here";

  ek_context_config cfg = EK_CONTEXT_CONFIG_INIT;
  cfg.allow_tf32 = 1;
  ek_context tctx = nullptr;
  EK_OK(ek_context_create(ek_device{GetParam(), 0}, &cfg, &tctx));
  {
    Tensor ta(filled({64, 256}, EK_FLOAT32, x, tctx)), tb(filled({256, 32}, EK_FLOAT32, 1, tctx)), tout;
    EK_OK(ek_matmul(nullptr, ta, tb, tout.out()));
    for (double v : values_of(tout)) EXPECT_TRUE(v == 256 * x || v == 256) << v;
    Tensor ra(random({3, 40, 300}, EK_FLOAT32, 100, tctx)), rb(random({300, 20}, EK_FLOAT32, 101, tctx));
    Tensor rout;
    check_into(ra, rb, rout.out(), "tf32", true);
  }
  EXPECT_EQ(ek_context_destroy(tctx), EK_SUCCESS) << ek_last_error();
}

// On CUDA, float32 products whose depth fits shared memory and whose size is
// small run on libek's own kernel (kernels/small_gemm.cu), the others on
// cuBLAS: every operand layout on both sides of each limit.
TEST_P(Matmul, DepthsAndSizesAcrossTheSmallKernelsLimits) {
  struct Case { ek_dtype dt; int64_t k; };
  // The deepest product that fits 96 KiB, and one past (cuBLAS); every
  // layout of the kernel above 48 KiB of shared memory, where its limit is
  // raised; depths that end inside a turn of 128 and inside a vector.
  const Case cases[] = {{EK_FLOAT32, 612}, {EK_FLOAT32, 613}, {EK_FLOAT32, 1000},
                        {EK_FLOAT32, 130}, {EK_FLOAT32, 7},   {EK_FLOAT64, 300}};
  uint32_t seed = 120;
  for (const Case &c : cases) {
    const std::string name = std::string(ek_dtype_name(c.dt)) + " k=" + std::to_string(c.k);
    Tensor a(random({19, c.k}, c.dt, seed++)), b(random({c.k, 21}, c.dt, seed++));
    Tensor at_store(random({c.k, 19}, c.dt, seed++)), bt_store(random({21, c.k}, c.dt, seed++));
    Tensor at(transposed(at_store)), bt(transposed(bt_store));
    check(a, b, name);
    check(at, b, name + " a^T");
    check(a, bt, name + " b^T");
    check(at, bt, name + " a^T b^T");
  }
  // 256 tiles of 16 x 16, the small kernel's largest product, and one more
  // row of tiles (cuBLAS); a batch of them with tails in every dimension;
  // operands whose rows are not 16-byte aligned (copied one element at a time).
  Tensor x(random({256, 512}, EK_FLOAT32, seed++)), w(random({512, 256}, EK_FLOAT32, seed++));
  check(x, w, "[256,512] @ [512,256]");
  Tensor x2(random({272, 512}, EK_FLOAT32, seed++));
  check(x2, w, "[272,512] @ [512,256]");
  Tensor p(random({4, 61, 77}, EK_FLOAT32, seed++)), q(random({4, 77, 45}, EK_FLOAT32, seed++));
  check(p, q, "4 x [61,77] @ [77,45]");
  Tensor wide(random({40, 131}, EK_FLOAT32, seed++)), narrow(sliced(wide, 1, 1, 130, 1));
  Tensor r(random({129, 33}, EK_FLOAT32, seed++));
  check(narrow, r, "[40,129] (row stride 131, offset 1) @ [129,33]");
}

TEST_P(Matmul, LongAndManyProducts) {
  // More rows than a CUDA grid's 65535 blocks along y, and a batch beyond 65535.
  Tensor tall(random({1100000, 1}, EK_FLOAT32, 130)), row(random({1, 2}, EK_FLOAT32, 131));
  check(tall, row, "[1100000,1] @ [1,2]");
  Tensor p(random({70000, 2, 3}, EK_FLOAT64, 132)), q(random({70000, 3, 2}, EK_FLOAT64, 133));
  check(p, q, "70000 x [2,3] @ [3,2]");
}

TEST_P(Matmul, RunsOnCreatedAndDefaultStreams) {
  // On CUDA the context's cuBLAS handle follows each call's stream.
  ek_stream s = nullptr;
  EK_OK(ek_stream_create(ctx, &s));
  {
    Tensor a(random({33, 65}, EK_FLOAT32, 110)), b(random({65, 17}, EK_FLOAT32, 111));
    Tensor on_s, on_default, again;
    EK_OK(ek_matmul(s, a, b, on_s.out()));
    EK_OK(ek_matmul(nullptr, a, b, on_default.out()));
    EK_OK(ek_matmul(s, a, b, again.out()));
    EK_OK(ek_stream_synchronize(s));
    Ref r = reference({33, 65}, values_of(a), {65, 17}, values_of(b));
    for (ek_tensor t : {on_s.t, on_default.t, again.t})
      expect_matches(values_of(t), r.v, r.mag, tolerance(EK_FLOAT32, 65), "streams");
  }
  EXPECT_EQ(ek_stream_destroy(s), EK_SUCCESS);
}

}  // namespace
