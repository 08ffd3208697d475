// Issue 18's linear algebra: integer ek_matmul/ek_gemm against an exact
// wrapping reference (every integer dtype, overflow, batches, broadcast,
// 1-D operands, empty and non-contiguous operands); ek_tensordot, ek_vecdot
// and ek_outer against a double-precision reference. Every device of the run.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "ek_test.hpp"

using ektest::dtype_of;
using ektest::numel_of;
using ektest::Shape;
using ektest::shape_of;
using ektest::sliced;
using ektest::Tensor;
using ektest::text;
using ektest::to_host;
using ektest::values_of;

namespace {

constexpr ek_dtype kMatmulInts[] = {EK_UINT8, EK_INT8, EK_INT16, EK_INT32, EK_INT64,
                                    EK_UINT16, EK_UINT32, EK_UINT64};

// v wrapped to dt's width, as an int64 (two's complement, as the cast rule).
int64_t wrap(uint64_t v, ek_dtype dt) {
  switch (dt) {
    case EK_UINT8: return static_cast<uint8_t>(v);
    case EK_INT8: return static_cast<int8_t>(static_cast<uint8_t>(v));
    case EK_INT16: return static_cast<int16_t>(static_cast<uint16_t>(v));
    case EK_INT32: return static_cast<int32_t>(static_cast<uint32_t>(v));
    case EK_UINT16: return static_cast<uint16_t>(v);
    case EK_UINT32: return static_cast<uint32_t>(v);
    default: return static_cast<int64_t>(v);  // int64, and uint64 as its int64 bits
  }
}

// Any integer tensor's values (any strides, any device) exactly, in C order.
std::vector<int64_t> ints_of(ek_tensor t) {
  Tensor i64;
  EXPECT_EQ(ek_cast(nullptr, t, EK_INT64, i64.out()), EK_SUCCESS) << ek_last_error();
  return to_host<int64_t>(i64);
}

struct IntRef {
  Shape shape;
  std::vector<int64_t> v;
};

// NumPy matmul in wrapping uint64 arithmetic, wrapped to dt at the end (the
// same value modulo 2^bits as wrapping in dt all along).
IntRef int_reference(Shape sa, const std::vector<int64_t> &va, Shape sb,
                     const std::vector<int64_t> &vb, ek_dtype dt) {
  const bool a_vec = sa.size() == 1, b_vec = sb.size() == 1;
  if (a_vec) sa.insert(sa.begin(), 1);
  if (b_vec) sb.push_back(1);
  const int64_t m = sa[sa.size() - 2], k = sa.back(), n = sb.back();
  const size_t na = sa.size() - 2, nb = sb.size() - 2, nbat = std::max(na, nb);
  IntRef r;
  for (size_t d = 0; d < nbat; ++d) {
    int64_t x = d + na >= nbat ? sa[d + na - nbat] : 1, y = d + nb >= nbat ? sb[d + nb - nbat] : 1;
    r.shape.push_back(x == 1 ? y : x);
  }
  const Shape batch = r.shape;
  if (!a_vec) r.shape.push_back(m);
  if (!b_vec) r.shape.push_back(n);
  Shape idx(nbat, 0);
  for (int64_t q = 0; q < numel_of(batch); ++q) {
    int64_t oa = 0, ob = 0;
    for (size_t d = 0; d < nbat; ++d) {
      if (d + na >= nbat) oa = oa * sa[d + na - nbat] + (sa[d + na - nbat] == 1 ? 0 : idx[d]);
      if (d + nb >= nbat) ob = ob * sb[d + nb - nbat] + (sb[d + nb - nbat] == 1 ? 0 : idx[d]);
    }
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        uint64_t s = 0;
        for (int64_t p = 0; p < k; ++p)
          s += static_cast<uint64_t>(va[oa * m * k + i * k + p]) *
               static_cast<uint64_t>(vb[ob * k * n + p * n + j]);
        r.v.push_back(wrap(s, dt));
      }
    for (int d = static_cast<int>(nbat) - 1; d >= 0 && ++idx[d] == batch[d]; --d) idx[d] = 0;
  }
  return r;
}

class LinalgExt : public ektest::DeviceTest {
 protected:
  // Random bytes of dt: every value of the dtype, so products overflow.
  ek_tensor random_ints(const Shape &shape, ek_dtype dt, unsigned seed) {
    auto bytes = ektest::random_bytes(dt, numel_of(shape), seed);
    return ektest::upload(ctx, shape, dt, bytes.data());
  }
  ek_tensor random(const Shape &shape, ek_dtype dt, uint32_t seed) {
    return make(shape, dt, ektest::random_values(static_cast<size_t>(numel_of(shape)), seed, -2, 2));
  }
  void check_int(ek_tensor a, ek_tensor b, const std::string &what) {
    Tensor out;
    ASSERT_EQ(ek_matmul(nullptr, a, b, out.out()), EK_SUCCESS) << what << ": " << ek_last_error();
    const ek_dtype dt = dtype_of(out);
    IntRef r = int_reference(shape_of(a), ints_of(a), shape_of(b), ints_of(b), dt);
    EXPECT_EQ(shape_of(out), r.shape) << what;
    EXPECT_EQ(ints_of(out), r.v) << what << " (" << ek_dtype_name(dt) << ")";
  }
};

EK_INSTANTIATE_DEVICES(LinalgExt);

TEST_P(LinalgExt, IntegerMatmulIsExactAndWraps) {
  const std::vector<std::pair<Shape, Shape>> shapes = {
      {{37, 53}, {53, 29}},   {{130, 17}, {17, 131}},   {{2, 1, 5, 7}, {3, 7, 4}},
      {{7}, {7, 3}},          {{4, 7}, {7}},            {{9}, {9}},
      {{0, 3}, {3, 4}},       {{3, 0}, {0, 4}},         {{2, 3, 4}, {4, 0}}};
  unsigned seed = 1;
  for (ek_dtype dt : kMatmulInts)
    for (const auto &s : shapes) {
      Tensor a(random_ints(s.first, dt, seed++)), b(random_ints(s.second, dt, seed++));
      check_int(a, b, std::string(ek_dtype_name(dt)) + " " + text(s.first) + " @ " + text(s.second));
    }
}

TEST_P(LinalgExt, IntegerMatmulReadsAnyLayout) {
  for (ek_dtype dt : kMatmulInts) {
    Tensor a_store(random_ints({21, 33}, dt, 7)), b(random_ints({21, 19}, dt, 8));
    Tensor a_t(ektest::transposed(a_store, 0, 1));  // [33,21], column-major
    check_int(a_t, b, std::string(ek_dtype_name(dt)) + " transposed a");
    Tensor wide(random_ints({21, 40}, dt, 9)), stepped(sliced(wide, 1, 0, EK_SLICE_MAX, 2));
    check_int(a_t, stepped, std::string(ek_dtype_name(dt)) + " stepped b");
    Tensor bt(ektest::transposed(b, 0, 1));  // [19,21] @ [21,33]: both transposed views
    check_int(bt, a_store, std::string(ek_dtype_name(dt)) + " transposed both");
  }
}

TEST_P(LinalgExt, IntegerMatmulIntoAGivenOut) {
  Tensor a(random_ints({5, 6}, EK_INT32, 11)), b(random_ints({6, 4}, EK_INT32, 12));
  Tensor store(random_ints({4, 5}, EK_INT32, 13)), col(ektest::transposed(store, 0, 1));
  ek_tensor o = col.t;
  EK_OK(ek_matmul(nullptr, a, b, &o));
  EXPECT_EQ(ints_of(col), int_reference({5, 6}, ints_of(a), {6, 4}, ints_of(b), EK_INT32).v);
}

TEST_P(LinalgExt, MixedIntegerDtypesPromote) {
  Tensor a(random_ints({6, 5}, EK_INT8, 21)), b(random_ints({5, 3}, EK_UINT8, 22));
  Tensor out;
  EK_OK(ek_matmul(nullptr, a, b, out.out()));
  EXPECT_EQ(dtype_of(out), EK_INT16);
  EXPECT_EQ(ints_of(out), int_reference({6, 5}, ints_of(a), {5, 3}, ints_of(b), EK_INT16).v);
  Tensor f(random({5, 3}, EK_FLOAT32, 23)), mixed;
  EK_OK(ek_matmul(nullptr, a, f, mixed.out()));
  EXPECT_EQ(dtype_of(mixed), EK_FLOAT32) << "integer with float gives the float";
}

TEST_P(LinalgExt, IntegerGemmScalesExactly) {
  for (ek_dtype dt : {EK_INT32, EK_INT64, EK_INT8}) {
    Tensor a(random_ints({2, 9, 11}, dt, 31)), b(random_ints({1, 11, 6}, dt, 32));
    Tensor c(random_ints({2, 9, 6}, dt, 33));
    const auto c0 = ints_of(c);
    const int64_t alpha = -3, beta = 7;
    EK_OK(ek_gemm(nullptr, ek_scalar_int(alpha), a, b, ek_scalar_int(beta), c));
    IntRef ab = int_reference({2, 9, 11}, ints_of(a), {1, 11, 6}, ints_of(b), dt);
    std::vector<int64_t> want(ab.v.size());
    for (size_t i = 0; i < want.size(); ++i)
      want[i] = wrap(static_cast<uint64_t>(alpha) * static_cast<uint64_t>(ab.v[i]) +
                         static_cast<uint64_t>(beta) * static_cast<uint64_t>(c0[i]), dt);
    EXPECT_EQ(ints_of(c), want) << ek_dtype_name(dt);
  }
  Tensor a(random_ints({3, 4}, EK_INT32, 34)), b(random_ints({4, 2}, EK_INT32, 35));
  Tensor c(random_ints({3, 2}, EK_INT32, 36));
  EK_FAILS(ek_gemm(nullptr, ek_scalar_float(2.5), a, b, ek_scalar_int(0), c),
           EK_ERROR_INVALID_ARGUMENT, "ek_gemm: alpha = 2.5");
  EK_OK(ek_gemm(nullptr, ek_scalar_float(2.0), a, b, ek_scalar_int(0), c));
}

TEST_P(LinalgExt, BoolMatmulIsRefused) {
  Tensor a(random_ints({3, 4}, EK_BOOL, 41)), b(random_ints({4, 2}, EK_BOOL, 42));
  Tensor out;
  EK_FAILS(ek_matmul(nullptr, a, b, out.out()), EK_ERROR_DTYPE, "ek_matmul: bool operands");
  EXPECT_EQ(out.t, nullptr);
}

// C-order strides of shape.
Shape strides_of(const Shape &s) {
  Shape st(s.size(), 1);
  for (int d = static_cast<int>(s.size()) - 2; d >= 0; --d) st[d] = st[d + 1] * s[d + 1];
  return st;
}

// numpy.tensordot in double over pairs (da[i], db[i]).
std::vector<double> tensordot_reference(const Shape &sa, const std::vector<double> &va,
                                        const Shape &sb, const std::vector<double> &vb,
                                        const std::vector<int> &da, const std::vector<int> &db,
                                        Shape *shape) {
  std::vector<int> fa, fb;
  for (int d = 0; d < static_cast<int>(sa.size()); ++d)
    if (std::find(da.begin(), da.end(), d) == da.end()) fa.push_back(d);
  for (int d = 0; d < static_cast<int>(sb.size()); ++d)
    if (std::find(db.begin(), db.end(), d) == db.end()) fb.push_back(d);
  Shape ks;
  for (int d : da) ks.push_back(sa[d]);
  shape->clear();
  for (int d : fa) shape->push_back(sa[d]);
  for (int d : fb) shape->push_back(sb[d]);
  const Shape sta = strides_of(sa), stb = strides_of(sb);
  std::vector<double> out;
  ektest::for_each_index(*shape, [&](const Shape &o) {
    int64_t oa = 0, ob = 0;
    for (size_t i = 0; i < fa.size(); ++i) oa += o[i] * sta[fa[i]];
    for (size_t i = 0; i < fb.size(); ++i) ob += o[fa.size() + i] * stb[fb[i]];
    double sum = 0;  // no contracted dims: one term (an empty shape has one index)
    ektest::for_each_index(ks, [&](const Shape &k) {
      int64_t pa = oa, pb = ob;
      for (size_t i = 0; i < k.size(); ++i) {
        pa += k[i] * sta[da[i]];
        pb += k[i] * stb[db[i]];
      }
      sum += va[pa] * vb[pb];
    });
    out.push_back(sum);
  });
  return out;
}

void expect_near(const std::vector<double> &got, const std::vector<double> &want,
                 const std::string &what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (size_t i = 0; i < got.size(); ++i)
    EXPECT_NEAR(got[i], want[i], 1e-12 * (1 + std::fabs(want[i]))) << what << " at " << i;
}

TEST_P(LinalgExt, TensordotMatchesNumPy) {
  struct Case {
    Shape sa, sb;
    std::vector<int> da, db;  // empty lists with count >= 0: the count form
    int count;
  };
  const std::vector<Case> cases = {
      {{3, 4, 5}, {4, 5, 6}, {}, {}, 2},       {{3, 4, 5}, {5, 2}, {}, {}, 1},
      {{3, 4}, {5}, {}, {}, 0},                {{3, 4, 5}, {5, 3, 2}, {0, 2}, {1, 0}, -1},
      {{2, 3, 4}, {4, 2}, {-1, 0}, {0, -1}, -1}, {{}, {3, 2}, {}, {}, 0},
      {{3, 0}, {0, 4}, {}, {}, 1},             {{3, 4}, {3, 4}, {}, {}, 2},
  };
  for (const auto &c : cases)
    for (ek_dtype dt : {EK_FLOAT64, EK_INT32}) {
      Tensor a(random(c.sa, dt, 51)), b(random(c.sb, dt, 52)), out;
      const bool lists = c.count < 0;
      const int n = lists ? static_cast<int>(c.da.size()) : c.count;
      EK_OK(ek_tensordot(nullptr, a, b, n, lists ? c.da.data() : nullptr,
                         lists ? c.db.data() : nullptr, out.out()));
      std::vector<int> da, db;
      for (int i = 0; i < n; ++i) {
        const int ra = static_cast<int>(c.sa.size()), rb = static_cast<int>(c.sb.size());
        da.push_back(lists ? (c.da[i] + ra) % ra : ra - n + i);
        db.push_back(lists ? (c.db[i] + rb) % rb : i);
      }
      Shape want_shape;
      auto want = tensordot_reference(c.sa, values_of(a), c.sb, values_of(b), da, db, &want_shape);
      const std::string what = text(c.sa) + " . " + text(c.sb) + " " + ek_dtype_name(dt);
      EXPECT_EQ(shape_of(out), want_shape) << what;
      EXPECT_EQ(dtype_of(out), dt) << what;
      expect_near(values_of(out), want, what);
    }
}

TEST_P(LinalgExt, TensordotOfPermutedViewsAndIntoStridedOut) {
  Tensor store(random({5, 4, 3}, EK_FLOAT64, 61)), b(random({3, 4, 2}, EK_FLOAT64, 62));
  const int perm[3] = {2, 1, 0};
  Tensor a;
  EK_OK(ek_view_permute(store, 3, perm, a.out()));  // [3,4,5], no row-major reshape view
  const int da[2] = {0, 1}, db[2] = {0, 1};
  Tensor wide(random({5, 4}, EK_FLOAT64, 63)), col(sliced(wide, 1, 0, EK_SLICE_MAX, 2));
  ek_tensor o = col.t;  // [5,2] with row stride 4: written through a temporary
  EK_OK(ek_tensordot(nullptr, a, b, 2, da, db, &o));
  Shape shape;
  auto want = tensordot_reference({3, 4, 5}, values_of(a), {3, 4, 2}, values_of(b),
                                  {0, 1}, {0, 1}, &shape);
  expect_near(values_of(col), want, "permuted a into a strided out");
}

TEST_P(LinalgExt, TensordotRejectsBadDims) {
  Tensor a(random({3, 4}, EK_FLOAT32, 71)), b(random({4, 5}, EK_FLOAT32, 72)), out;
  const int d0[1] = {0}, d1[1] = {1}, dd[2] = {1, 1}, bad[1] = {5};
  EK_FAILS(ek_tensordot(nullptr, a, b, 1, d0, d0, out.out()), EK_ERROR_SHAPE,
           "ek_tensordot: a's dim 0 (size 3) and b's dim 0 (size 4) differ");
  EK_FAILS(ek_tensordot(nullptr, a, b, 3, nullptr, nullptr, out.out()),
           EK_ERROR_INVALID_ARGUMENT, "ndims = 3 must be in [0, 2]");
  EK_FAILS(ek_tensordot(nullptr, a, b, 1, d1, nullptr, out.out()), EK_ERROR_INVALID_ARGUMENT,
           "both be given or both be NULL");
  EK_FAILS(ek_tensordot(nullptr, a, a, 2, dd, dd, out.out()), EK_ERROR_INVALID_ARGUMENT,
           "listed twice");
  EK_FAILS(ek_tensordot(nullptr, a, b, 1, bad, d0, out.out()), EK_ERROR_INDEX, "a_dims entry 5");
  Tensor big(random({1, 1, 1, 1, 1}, EK_FLOAT32, 73));
  EK_FAILS(ek_tensordot(nullptr, big, big, 0, nullptr, nullptr, out.out()), EK_ERROR_SHAPE,
           "would have 10 dims");
  Tensor bits(random_ints({4, 5}, EK_BOOL, 74));
  EK_FAILS(ek_tensordot(nullptr, bits, bits, 0, nullptr, nullptr, out.out()), EK_ERROR_DTYPE,
           "ek_tensordot: bool operands");
  Tensor wrong(random({3, 4}, EK_FLOAT32, 75));
  ek_tensor o = wrong.t;
  EK_FAILS(ek_tensordot(nullptr, a, b, 1, nullptr, nullptr, &o), EK_ERROR_SHAPE, "ek_tensordot");
  EXPECT_EQ(out.t, nullptr);
}

TEST_P(LinalgExt, VecdotBroadcastsOtherDims) {
  struct Case {
    Shape sx, sy;
    int dim;
  };
  const std::vector<Case> cases = {{{4, 5}, {4, 5}, -1}, {{4, 5}, {5}, -1},   {{2, 1, 5}, {3, 5}, 2},
                                   {{6, 3}, {6, 1}, 0},  {{7}, {7}, 0},       {{0, 5}, {5}, -1},
                                   {{3, 0}, {3, 0}, -1}};
  for (const auto &c : cases)
    for (ek_dtype dt : {EK_FLOAT64, EK_INT64}) {
      Tensor x(random(c.sx, dt, 81)), y(random(c.sy, dt, 82)), out;
      const std::string what = text(c.sx) + " . " + text(c.sy) + " dim " + std::to_string(c.dim);
      ASSERT_EQ(ek_vecdot(nullptr, x, y, c.dim, out.out()), EK_SUCCESS) << what << ": " << ek_last_error();
      // Reference: broadcast both, then sum x*y along dim.
      const size_t nd = std::max(c.sx.size(), c.sy.size());
      const int d = c.dim < 0 ? c.dim + static_cast<int>(nd) : c.dim;
      Shape full(nd), res;
      for (size_t i = 0; i < nd; ++i) {
        int64_t a = i + c.sx.size() >= nd ? c.sx[i + c.sx.size() - nd] : 1;
        int64_t b = i + c.sy.size() >= nd ? c.sy[i + c.sy.size() - nd] : 1;
        full[i] = a == 1 ? b : a;
        if (static_cast<int>(i) != d) res.push_back(full[i]);
      }
      const auto vx = values_of(x), vy = values_of(y);
      auto at = [&](const Shape &s, const std::vector<double> &v, const Shape &idx) {
        int64_t off = 0, st = 1;
        for (int i = static_cast<int>(s.size()) - 1; i >= 0; --i) {
          off += (s[i] == 1 ? 0 : idx[i + nd - s.size()]) * st;
          st *= s[i];
        }
        return v[off];
      };
      std::vector<double> want;
      ektest::for_each_index(res, [&](const Shape &r) {
        Shape idx(nd);
        for (size_t i = 0, j = 0; i < nd; ++i) idx[i] = static_cast<int>(i) == d ? 0 : r[j++];
        double sum = 0;
        for (int64_t k = 0; k < full[d]; ++k) {
          idx[d] = k;
          sum += at(c.sx, vx, idx) * at(c.sy, vy, idx);
        }
        want.push_back(sum);
      });
      EXPECT_EQ(shape_of(out), res) << what;
      expect_near(values_of(out), want, what);
    }
}

TEST_P(LinalgExt, VecdotRejectsABroadcastDim) {
  Tensor x(random({4, 5}, EK_FLOAT32, 91)), y(random({4, 1}, EK_FLOAT32, 92)), out;
  EK_FAILS(ek_vecdot(nullptr, x, y, -1, out.out()), EK_ERROR_SHAPE,
           "ek_vecdot: dim -1 of x [4,5] and y [4,1] must exist in both with one size");
  Tensor z(random({5}, EK_FLOAT32, 93));
  EK_FAILS(ek_vecdot(nullptr, x, z, 0, out.out()), EK_ERROR_SHAPE, "dim 0");
  EK_FAILS(ek_vecdot(nullptr, x, x, 2, out.out()), EK_ERROR_INDEX, "dim 2 is out of range");
  Tensor s(random({}, EK_FLOAT32, 94));
  EK_FAILS(ek_vecdot(nullptr, s, s, 0, out.out()), EK_ERROR_SHAPE, "at least one dim");
  EXPECT_EQ(out.t, nullptr);
}

TEST_P(LinalgExt, OuterOfVectors) {
  for (ek_dtype dt : {EK_FLOAT32, EK_INT8, EK_BOOL}) {
    Tensor a(random_ints({5}, dt, 101)), b(random_ints({3}, dt, 102)), out;
    EK_OK(ek_outer(nullptr, a, b, out.out()));
    EXPECT_EQ(shape_of(out), (Shape{5, 3}));
    EXPECT_EQ(dtype_of(out), dt);
    const auto va = ints_of(a), vb = ints_of(b), got = ints_of(out);
    if (dt == EK_FLOAT32) continue;
    for (int i = 0; i < 5; ++i)
      for (int j = 0; j < 3; ++j)
        EXPECT_EQ(got[i * 3 + j], dt == EK_BOOL ? (va[i] && vb[j])
                                                : wrap(static_cast<uint64_t>(va[i] * vb[j]), dt));
  }
  Tensor x(random({4}, EK_FLOAT64, 103)), y(random({0}, EK_FLOAT64, 104)), empty;
  EK_OK(ek_outer(nullptr, x, y, empty.out()));
  EXPECT_EQ(shape_of(empty), (Shape{4, 0}));
  Tensor m(random({2, 2}, EK_FLOAT64, 105)), bad;
  EK_FAILS(ek_outer(nullptr, m, x, bad.out()), EK_ERROR_SHAPE, "ek_outer: a [2,2] and b [4] must be 1-D");
}

// Issue 18's "wrong today": sum/prod/cumsum/cumprod honour an integer *out's
// dtype (dtype=int32 in the bindings) by wrapping the int64 result.
TEST_P(LinalgExt, IntegerSumIntoAnotherIntegerDtypeWraps) {
  Tensor x(random_ints({6, 50}, EK_INT32, 111));
  const auto v = ints_of(x);
  Tensor sum16(random_ints({6}, EK_INT16, 112)), prod8(random_ints({6}, EK_UINT8, 113));
  const int dim = 1;
  EK_OK(ek_reduce(nullptr, EK_REDUCE_SUM, x, 1, &dim, 0, &sum16.t));
  EK_OK(ek_reduce(nullptr, EK_REDUCE_PROD, x, 1, &dim, 0, &prod8.t));
  std::vector<int64_t> want_sum, want_prod;
  for (int i = 0; i < 6; ++i) {
    uint64_t s = 0, p = 1;
    for (int j = 0; j < 50; ++j) {
      s += static_cast<uint64_t>(v[i * 50 + j]);
      p *= static_cast<uint64_t>(v[i * 50 + j]);
    }
    want_sum.push_back(wrap(s, EK_INT16));
    want_prod.push_back(wrap(p, EK_UINT8));
  }
  EXPECT_EQ(ints_of(sum16), want_sum);
  EXPECT_EQ(ints_of(prod8), want_prod);
  Tensor cum(random_ints({6, 50}, EK_INT8, 114));
  EK_OK(ek_scan(nullptr, EK_SCAN_SUM, x, 1, &cum.t));
  const auto got = ints_of(cum);
  for (int i = 0; i < 6; ++i) {
    uint64_t s = 0;
    for (int j = 0; j < 50; ++j) {
      s += static_cast<uint64_t>(v[i * 50 + j]);
      ASSERT_EQ(got[i * 50 + j], wrap(s, EK_INT8)) << i << "," << j;
    }
  }
  Tensor f(random({6}, EK_FLOAT32, 115)), bits(random_ints({6}, EK_BOOL, 116)), short_out(random_ints({5}, EK_INT16, 117));
  EK_FAILS(ek_reduce(nullptr, EK_REDUCE_SUM, x, 1, &dim, 0, &f.t), EK_ERROR_DTYPE, "ek_reduce");
  EK_FAILS(ek_reduce(nullptr, EK_REDUCE_SUM, x, 1, &dim, 0, &bits.t), EK_ERROR_DTYPE, "ek_reduce");
  EK_FAILS(ek_reduce(nullptr, EK_REDUCE_SUM, x, 1, &dim, 0, &short_out.t), EK_ERROR_SHAPE, "ek_reduce");
  EK_FAILS(ek_reduce(nullptr, EK_REDUCE_MAX, x, 1, &dim, 0, &sum16.t), EK_ERROR_DTYPE, "ek_reduce");
}

TEST_P(LinalgExt, ViewsSufficeWithoutCopies) {
  auto allocations = [&](auto call) {
    ek_memory_stats before = EK_MEMORY_STATS_INIT, after = EK_MEMORY_STATS_INIT;
    EXPECT_EQ(ek_memory_get_stats(ctx, &before), EK_SUCCESS);
    Tensor out;
    EXPECT_EQ(call(out.out()), EK_SUCCESS) << ek_last_error();
    EXPECT_EQ(ek_memory_get_stats(ctx, &after), EK_SUCCESS);
    return after.alloc_count - before.alloc_count;
  };
  Tensor a(random({3, 4, 5}, EK_FLOAT32, 121)), b(random({4, 5, 6}, EK_FLOAT32, 122));
  EXPECT_EQ(allocations([&](ek_tensor *o) { return ek_tensordot(nullptr, a, b, 2, nullptr, nullptr, o); }),
            1u) << "contiguous operands reshape to matrices without copies";
  Tensor x(random({4, 5}, EK_FLOAT32, 123)), y(random({5}, EK_FLOAT32, 124));
  EXPECT_EQ(allocations([&](ek_tensor *o) { return ek_vecdot(nullptr, x, y, -1, o); }), 1u);
  EXPECT_EQ(allocations([&](ek_tensor *o) { return ek_vecdot(nullptr, x, x, 0, o); }), 1u)
      << "a leading dim is read in place through strides";
}

}  // namespace
