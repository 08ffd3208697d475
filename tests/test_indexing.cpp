// ek_index_select, ek_gather, ek_scatter, ek_index_put, ek_masked_select,
// ek_masked_fill, ek_masked_scatter, ek_nonzero against references written
// here (C-order loops over doubles), on every device of the run (CUDA against
// the CPU backend: test_conformance.cpp). Values are small integers or quarters, exact in
// every dtype, so moved values compare exactly and sums do not depend on the
// order of accumulation.
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <thread>
#include <vector>

#include "ek_test.hpp"

using ektest::info_of;
using ektest::kAllDtypes;
using ektest::numel_of;
using ektest::Shape;
using ektest::shape_of;
using ektest::sliced;
using ektest::Tensor;
using ektest::to_host;
using ektest::transposed;
using ektest::Values;
using ektest::values_of;

namespace {

Shape unravel(int64_t i, const Shape &s) {
  Shape c(s.size());
  for (size_t d = s.size(); d-- > 0;) {
    c[d] = i % s[d];
    i /= s[d];
  }
  return c;
}

int64_t ravel(const Shape &c, const Shape &s) {
  int64_t i = 0;
  for (size_t d = 0; d < s.size(); ++d) i = i * s[d] + c[d];
  return i;
}

int64_t wrap(int64_t v, int64_t size) { return v < 0 ? v + size : v; }

uint32_t next(uint32_t &seed) {
  seed = seed * 1664525u + 1013904223u;
  return seed >> 8;
}

// n values exact in dtype: bool 0/1, u8 0..100, other integers -50..50,
// floats quarters in [-50, 50].
Values sample(ek_dtype dt, int64_t n, uint32_t seed) {
  Values v(static_cast<size_t>(n));
  for (auto &x : v) {
    uint32_t r = next(seed);
    if (dt == EK_BOOL) x = r % 2;
    else if (ektest::is_unsigned(dt)) x = r % 101;
    else if (ektest::is_float(dt)) x = static_cast<double>(static_cast<int>(r % 401) - 200) / 4;
    else x = static_cast<int>(r % 101) - 50;
  }
  return v;
}

// Values for sums: integers in [-16, 16] (bool 0/1, u8 0..32), so that a few
// of them add up exactly even in bfloat16, whatever the order.
Values sample_small(ek_dtype dt, int64_t n, uint32_t seed) {
  Values v(static_cast<size_t>(n));
  for (auto &x : v) {
    uint32_t r = next(seed);
    if (dt == EK_BOOL) x = r % 2;
    else if (ektest::is_unsigned(dt)) x = r % 33;
    else x = static_cast<int>(r % 33) - 16;
  }
  return v;
}

std::vector<int64_t> random_indices(int64_t n, int64_t size, uint32_t seed, bool negative = true) {
  std::vector<int64_t> v(static_cast<size_t>(n));
  for (auto &x : v) {
    x = static_cast<int64_t>(next(seed) % static_cast<uint32_t>(size));
    if (negative && next(seed) % 3 == 0) x -= size;
  }
  return v;
}

std::vector<int> random_mask(int64_t n, uint32_t seed, int percent = 50) {
  std::vector<int> v(static_cast<size_t>(n));
  for (auto &x : v) x = static_cast<int>(next(seed) % 100) < percent;
  return v;
}

void expect_values(ek_tensor t, const Shape &shape, const Values &want, const std::string &what) {
  EXPECT_EQ(shape_of(t), shape) << what;
  Values got = values_of(t);
  ASSERT_EQ(got.size(), want.size()) << what;
  for (size_t i = 0; i < got.size(); ++i) {
    if (std::isnan(want[i])) EXPECT_TRUE(std::isnan(got[i])) << what << " at " << i;
    else EXPECT_EQ(got[i], want[i]) << what << " at " << i;
  }
}

// x stored in dtype: a value's image after a round trip through it.
Values as_dtype(const Values &v, ek_dtype dt) {
  Values out(v);
  for (auto &x : out)
    if (dt == EK_BOOL) x = x != 0;
  return out;
}

// Sums in dtype: integers wrap to the width, bool is OR.
double wrap_to(double v, ek_dtype dt) {
  auto i = static_cast<int64_t>(v);
  switch (dt) {
    case EK_BOOL: return v != 0;
    case EK_UINT8: return static_cast<uint8_t>(i);
    case EK_INT8: return static_cast<int8_t>(static_cast<uint8_t>(i));
    case EK_INT16: return static_cast<int16_t>(static_cast<uint16_t>(i));
    case EK_UINT16: return static_cast<uint16_t>(i);
    case EK_UINT32: return static_cast<uint32_t>(i);
    default: return v;
  }
}

// The index check at the call, set explicitly: the bad-index tests here name
// the first bad index at the call on both backends (CheckedGather: CUDA's
// in-kernel check, then the host's search). DefaultIndexCheck and
// DeferredIndexCheck make their own contexts for CUDA's default, deferred.
class Indexing : public ektest::DeviceTest {
 protected:
  Indexing() {
    at_call_.index_check = EK_INDEX_CHECK_AT_CALL;
    context_config = &at_call_;
  }
  ek_tensor make_index(const Shape &shape, ek_dtype dt, const std::vector<int64_t> &v,
                       ek_context c = nullptr) {
    ek_tensor t = nullptr;
    ek_context on = c ? c : ctx;
    if (dt == EK_INT32) {
      std::vector<int32_t> w(v.begin(), v.end());
      EXPECT_EQ(ek_tensor_from_host(nullptr, on, static_cast<int>(shape.size()), shape.data(), dt,
                                    w.data(), &t), EK_SUCCESS) << ek_last_error();
    } else {
      EXPECT_EQ(ek_tensor_from_host(nullptr, on, static_cast<int>(shape.size()), shape.data(), dt,
                                    v.data(), &t), EK_SUCCESS) << ek_last_error();
    }
    return t;
  }
  ek_tensor make_mask(const Shape &shape, const std::vector<int> &v, ek_context c = nullptr) {
    std::vector<uint8_t> b(v.begin(), v.end());
    ek_tensor t = nullptr;
    EXPECT_EQ(ek_tensor_from_host(nullptr, c ? c : ctx, static_cast<int>(shape.size()),
                                  shape.data(), EK_BOOL, b.data(), &t),
              EK_SUCCESS)
        << ek_last_error();
    return t;
  }

 private:
  ek_context_config at_call_ = EK_CONTEXT_CONFIG_INIT;
};
EK_INSTANTIATE_DEVICES(Indexing);

// ---------------------------------------------------------------- references

Values ref_index_select(const Shape &xs, const Values &x, int dim, const std::vector<int64_t> &idx,
                        Shape *out_shape) {
  Shape os = xs;
  os[dim] = static_cast<int64_t>(idx.size());
  Values out(static_cast<size_t>(numel_of(os)));
  for (int64_t i = 0; i < numel_of(os); ++i) {
    Shape c = unravel(i, os);
    c[dim] = wrap(idx[c[dim]], xs[dim]);
    out[i] = x[ravel(c, xs)];
  }
  *out_shape = os;
  return out;
}

Values ref_gather(const Shape &xs, const Values &x, int dim, const Shape &is,
                  const std::vector<int64_t> &idx) {
  Values out(idx.size());
  for (int64_t i = 0; i < numel_of(is); ++i) {
    Shape c = unravel(i, is);
    c[dim] = wrap(idx[i], xs[dim]);
    out[i] = x[ravel(c, xs)];
  }
  return out;
}

Values ref_scatter(const Shape &xs, Values x, int dim, const Shape &is,
                   const std::vector<int64_t> &idx, const Shape &ss, const Values &src, bool add,
                   ek_dtype dt) {
  for (int64_t i = 0; i < numel_of(is); ++i) {
    Shape c = unravel(i, is);
    double v = src[ravel(c, ss)];
    c[dim] = wrap(idx[i], xs[dim]);
    double &t = x[ravel(c, xs)];
    t = add ? wrap_to(t + v, dt) : v;
  }
  return x;
}

// ---------------------------------------------------------------- index_select

TEST_P(Indexing, IndexSelectEveryDtypeDimAndIndexType) {
  const Shape xs{3, 4, 5};
  const std::vector<int64_t> idx{2, -1, 0, 2, -3};  // valid for every dim
  for (ek_dtype dt : kAllDtypes) {
    Values xv = sample(dt, numel_of(xs), 11 + dt);
    Tensor x(make(xs, dt, xv));
    for (ek_dtype it : {EK_INT64, EK_INT32}) {
      Tensor index(make_index({5}, it, idx));
      for (int dim : {0, 1, 2, -1}) {
        Tensor out;
        EK_OK(ek_index_select(nullptr, x, dim, index, out.out()));
        EXPECT_EQ(info_of(out).dtype, dt);
        Shape os;
        Values want = ref_index_select(xs, xv, (dim + 3) % 3, idx, &os);
        expect_values(out, os, want, "dtype " + std::to_string(dt) + " dim " + std::to_string(dim));
      }
    }
  }
}

TEST_P(Indexing, IndexSelectStridedOperandsZeroSizeAndZeroDim) {
  Values xv = sample(EK_FLOAT32, 30, 3);
  Tensor base(make({5, 6}, EK_FLOAT32, xv));
  Tensor xt(transposed(base, 0, 1));  // [6, 5]
  Values xtv = values_of(xt);
  Tensor big(make_index({8}, EK_INT64, {4, 9, -6, 9, 0, 9, 5, 9}));
  Tensor stepped(sliced(big, 0, 0, EK_SLICE_MAX, 2));  // 4, -6, 0, 5
  Tensor out;
  EK_OK(ek_index_select(nullptr, xt, 0, stepped, out.out()));
  Shape os;
  Values want = ref_index_select({6, 5}, xtv, 0, {4, -6, 0, 5}, &os);
  expect_values(out, os, want, "transposed x, stepped index");

  Tensor empty_index(make_index({0}, EK_INT32, {})), empty;
  EK_OK(ek_index_select(nullptr, base, 1, empty_index, empty.out()));
  EXPECT_EQ(shape_of(empty), (Shape{5, 0}));

  Tensor scalar(make({}, EK_INT16, {7})), one(make_index({1}, EK_INT64, {-1})), zero_d(
      make_index({}, EK_INT64, {0})), r1, r2;
  EK_OK(ek_index_select(nullptr, scalar, 0, one, r1.out()));
  expect_values(r1, {}, {7}, "0-d x");
  EK_OK(ek_index_select(nullptr, base, 1, zero_d, r2.out()));  // a 0-d index acts as [1]
  Shape os2;
  expect_values(r2, {5, 1}, ref_index_select({5, 6}, xv, 1, {0}, &os2), "0-d index");
}

// ---------------------------------------------------------------- gather

TEST_P(Indexing, GatherMatchesReference) {
  const Shape xs{4, 5, 6}, is{3, 4, 2};
  for (ek_dtype dt : {EK_FLOAT32, EK_INT64, EK_FLOAT16, EK_BOOL, EK_INT8}) {
    Values xv = sample(dt, numel_of(xs), 5 + dt);
    Tensor x(make(xs, dt, xv));
    for (int dim : {0, 1, 2}) {
      for (ek_dtype it : {EK_INT64, EK_INT32}) {
        auto idx = random_indices(numel_of(is), xs[dim], 100 + dim);
        Tensor index(make_index(is, it, idx)), out;
        EK_OK(ek_gather(nullptr, x, dim - 3 * (dim == 2), index, out.out()));
        expect_values(out, is, ref_gather(xs, xv, dim, is, idx),
                      "dtype " + std::to_string(dt) + " dim " + std::to_string(dim));
      }
    }
  }
}

TEST_P(Indexing, GatherFromTransposedXWithTransposedIndex) {
  Values xv = sample(EK_FLOAT64, 42, 8);
  Tensor base(make({6, 7}, EK_FLOAT64, xv));
  Tensor xt(transposed(base, 0, 1));  // [7, 6]
  auto idx = random_indices(30, 7, 9);
  Tensor ib(make_index({5, 6}, EK_INT64, idx));
  Tensor it(transposed(ib, 0, 1));  // [6, 5]
  Values iv = values_of(it);
  std::vector<int64_t> itv(iv.begin(), iv.end());
  Tensor out;
  EK_OK(ek_gather(nullptr, xt, 0, it, out.out()));
  expect_values(out, {6, 5}, ref_gather({7, 6}, values_of(xt), 0, {6, 5}, itv), "transposed");
  Tensor scalar(make({}, EK_FLOAT32, {2.5})), zi(make_index({}, EK_INT32, {-1})), r;
  EK_OK(ek_gather(nullptr, scalar, 0, zi, r.out()));
  expect_values(r, {}, {2.5}, "0-d");
}

// ---------------------------------------------------------------- scatter

TEST_P(Indexing, ScatterReplaceInPlaceNewAndGivenOut) {
  const Shape xs{4, 5}, is{2, 5};
  // Each column's two indices differ: no duplicates, one possible result.
  const std::vector<int64_t> idx{0, 1, -1, 2, 3, 2, -4, 1, 0, -2};
  for (ek_dtype dt : kAllDtypes) {
    Values xv = sample(dt, 20, 1 + dt), sv = sample(dt, 12, 50 + dt);
    Values want = ref_scatter(xs, xv, 0, is, idx, {2, 6}, sv, false, dt);
    Tensor x(make(xs, dt, xv)), src(make({2, 6}, dt, sv)), index(make_index(is, EK_INT32, idx));
    Tensor fresh, given;
    EK_OK(ek_scatter(nullptr, x, 0, index, src, 0, fresh.out()));
    expect_values(fresh, xs, want, "new out, dtype " + std::to_string(dt));
    EK_OK(ek_tensor_empty(nullptr, ctx, 2, xs.data(), dt, given.out()));
    ek_tensor o = given.t;
    EK_OK(ek_scatter(nullptr, x, 0, index, src, 0, &o));
    expect_values(given, xs, want, "given out");
    expect_values(x, xs, as_dtype(xv, dt), "x untouched by the out-of-place calls");
    o = x.t;
    EK_OK(ek_scatter(nullptr, x, 0, index, src, 0, &o));
    EXPECT_EQ(o, x.t);
    expect_values(x, xs, want, "in place");
  }
}

TEST_P(Indexing, ScatterAlongLastDimOfTransposedTarget) {
  Values xv = sample(EK_FLOAT32, 24, 4);
  Tensor base(make({6, 4}, EK_FLOAT32, xv));
  Tensor x(transposed(base, 0, 1));  // [4, 6], in place through the view
  Values before = values_of(x);
  const std::vector<int64_t> idx{5, -6, 2, 3, 0, -1, 1, 4};  // rows of [4, 2]: distinct
  Tensor index(make_index({4, 2}, EK_INT64, idx));
  Values sv = sample(EK_FLOAT32, 8, 77);
  Tensor src(make({4, 2}, EK_FLOAT32, sv));
  ek_tensor o = x.t;
  EK_OK(ek_scatter(nullptr, x, 1, index, src, 0, &o));
  expect_values(x, {4, 6}, ref_scatter({4, 6}, before, 1, {4, 2}, idx, {4, 2}, sv, false,
                                       EK_FLOAT32), "transposed in place");
}

TEST_P(Indexing, ScatterAddSumsDuplicatesExactly) {
  const Shape xs{3, 4}, is{6, 4}, ss{6, 5};
  auto idx = random_indices(24, 3, 21);  // 6 entries per column into 3 rows: duplicates
  for (ek_dtype dt : kAllDtypes) {
    Values xv = sample_small(dt, 12, 30 + dt), sv = sample_small(dt, 30, 60 + dt);
    Tensor x(make(xs, dt, xv)), src(make(ss, dt, sv)), out;
    for (ek_dtype it : {EK_INT64, EK_INT32}) {
      Tensor index(make_index(is, it, idx));
      EK_OK(ek_scatter(nullptr, x, 0, index, src, 1, out.out()));
      expect_values(out, xs, ref_scatter(xs, xv, 0, is, idx, ss, sv, true, dt),
                    "scatter_add dtype " + std::to_string(dt));
      ek_tensor_release(out.t);
      out.t = nullptr;
    }
  }
}

TEST_P(Indexing, LargeGatherAndScatterAdd) {
  const int64_t n = (1 << 20) + 3, bins = 1000, size = 1 << 18;
  Values xv = sample(EK_FLOAT32, size, 2);
  Tensor x(make({size}, EK_FLOAT32, xv));
  auto idx = random_indices(n, size, 3);
  Tensor index(make_index({n}, EK_INT64, idx)), g;
  EK_OK(ek_index_select(nullptr, x, 0, index, g.out()));
  Values got = values_of(g);
  ASSERT_EQ(got.size(), static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) ASSERT_EQ(got[i], xv[wrap(idx[i], size)]) << i;

  auto bidx = random_indices(n, bins, 4);
  for (ek_dtype dt : {EK_INT64, EK_FLOAT32, EK_INT32}) {
    Values ones(static_cast<size_t>(n), 1.0), zeros(bins, 0.0);
    Tensor src(make({n}, dt, ones)), acc(make({bins}, dt, zeros));
    Tensor bi(make_index({n}, EK_INT32, bidx));
    ek_tensor o = acc.t;
    EK_OK(ek_scatter(nullptr, acc, 0, bi, src, 1, &o));
    Values want(bins, 0.0);
    for (int64_t v : bidx) want[wrap(v, bins)] += 1;
    expect_values(acc, {bins}, want, "histogram dtype " + std::to_string(dt));
  }
}

// ---------------------------------------------------------------- index_put

TEST_P(Indexing, IndexPutBroadcastIndicesReplaceAndAccumulate) {
  const Shape xs{4, 5, 3};
  for (ek_dtype dt : {EK_FLOAT32, EK_INT32, EK_BFLOAT16, EK_UINT8}) {
    Values xv = sample_small(dt, numel_of(xs), 7 + dt), vv = sample_small(dt, 3, 40 + dt);
    Tensor x(make(xs, dt, xv)), values(make({3}, dt, vv));
    const std::vector<int64_t> i0{1, -1}, i1{0, 4, -3};  // [2,1] x [3] -> [2,3], distinct pairs
    Tensor a(make_index({2, 1}, EK_INT64, i0)), b(make_index({3}, EK_INT32, i1));
    const ek_tensor idx[2] = {a, b};
    for (int accumulate : {0, 1}) {
      Values want = xv;
      for (int p = 0; p < 2; ++p)
        for (int q = 0; q < 3; ++q)
          for (int r = 0; r < 3; ++r) {
            double &t = want[ravel({wrap(i0[p], 4), wrap(i1[q], 5), r}, xs)];
            t = accumulate ? wrap_to(t + vv[r], dt) : vv[r];
          }
      Tensor out;
      EK_OK(ek_index_put(nullptr, x, 2, idx, values, accumulate, out.out()));
      expect_values(out, xs, want, "dtype " + std::to_string(dt) + " acc " +
                                       std::to_string(accumulate));
    }
  }
}

TEST_P(Indexing, IndexPutAccumulateDuplicatesAndWholeSlices) {
  const Shape xs{3, 4};
  Values xv = sample(EK_INT64, 12, 3);
  Tensor x(make(xs, EK_INT64, xv));
  const std::vector<int64_t> rows{0, 2, 0, -3, 1};  // row 0 three times
  Tensor r(make_index({5}, EK_INT64, rows));
  Values vv = sample(EK_INT64, 20, 9);
  Tensor values(make({5, 4}, EK_INT64, vv));
  const ek_tensor idx[1] = {r};
  ek_tensor o = x.t;
  EK_OK(ek_index_put(nullptr, x, 1, idx, values, 1, &o));
  Values want = xv;
  for (int k = 0; k < 5; ++k)
    for (int c = 0; c < 4; ++c) want[wrap(rows[k], 3) * 4 + c] += vv[k * 4 + c];
  expect_values(x, xs, want, "accumulated rows in place");

  Tensor seven(make({}, EK_INT64, {7})), all;  // n = 0: the whole tensor
  EK_OK(ek_index_put(nullptr, x, 0, nullptr, seven, 0, all.out()));
  expect_values(all, xs, Values(12, 7.0), "n = 0");
}

// ---------------------------------------------------------------- masked_select

Values ref_masked_select(const Values &x, const std::vector<int> &m) {
  Values out;
  for (size_t i = 0; i < x.size(); ++i)
    if (m[i]) out.push_back(x[i]);
  return out;
}

TEST_P(Indexing, MaskedSelectEveryDtypeBroadcastAndLayouts) {
  for (ek_dtype dt : kAllDtypes) {
    Values xv = sample(dt, 12, 3 + dt);
    Tensor x(make({3, 4}, dt, xv)), out;
    auto mv = random_mask(12, 5 + dt);
    Tensor mask(make_mask({3, 4}, mv));
    EK_OK(ek_masked_select(nullptr, x, mask, out.out()));
    Values want = ref_masked_select(as_dtype(xv, dt), mv);
    expect_values(out, {static_cast<int64_t>(want.size())}, want, "dtype " + std::to_string(dt));
  }
  Values xv = sample(EK_FLOAT32, 12, 1);
  Tensor x(make({3, 4}, EK_FLOAT32, xv));
  Tensor row(make_mask({4}, {1, 0, 0, 1})), col(make_mask({3, 1}, {0, 1, 1})), o1, o2, o3;
  EK_OK(ek_masked_select(nullptr, x, row, o1.out()));
  expect_values(o1, {6}, {xv[0], xv[3], xv[4], xv[7], xv[8], xv[11]}, "row mask");
  EK_OK(ek_masked_select(nullptr, x, col, o2.out()));
  expect_values(o2, {8}, Values(xv.begin() + 4, xv.end()), "column mask");
  Tensor xr(make({4}, EK_FLOAT32, {1, 2, 3, 4})), full(make_mask({2, 4}, {1, 1, 0, 0, 0, 1, 0, 1}));
  EK_OK(ek_masked_select(nullptr, xr, full, o3.out()));  // x broadcasts to the mask too
  expect_values(o3, {4}, {1, 2, 2, 4}, "x broadcast");

  Tensor xt(transposed(x, 0, 1)), o4;  // [4, 3]
  auto mv = random_mask(12, 8);
  Tensor m(make_mask({4, 3}, mv));
  EK_OK(ek_masked_select(nullptr, xt, m, o4.out()));
  Values want = ref_masked_select(values_of(xt), mv);
  expect_values(o4, {static_cast<int64_t>(want.size())}, want, "transposed x");
}

TEST_P(Indexing, MaskedSelectZeroDimAndZeroSize) {
  Tensor s(make({}, EK_INT32, {9})), t(make_mask({}, {1})), f(make_mask({}, {0})), a, b, c;
  EK_OK(ek_masked_select(nullptr, s, t, a.out()));
  expect_values(a, {1}, {9}, "0-d true");
  EK_OK(ek_masked_select(nullptr, s, f, b.out()));
  expect_values(b, {0}, {}, "0-d false");
  Tensor e(make({0, 3}, EK_FLOAT32, {})), em(make_mask({3}, {1, 1, 1}));
  EK_OK(ek_masked_select(nullptr, e, em, c.out()));
  EXPECT_EQ(shape_of(c), (Shape{0}));
}

TEST_P(Indexing, MaskedSelectLargeAcrossTilesAndUnalignedViews) {
  const int64_t n = (1 << 20) + 37;
  for (int percent : {0, 3, 50, 100}) {
    Values xv = sample(EK_FLOAT32, n, 5);
    auto mv = random_mask(n, 6 + percent, percent);
    Tensor x(make({n}, EK_FLOAT32, xv)), m(make_mask({n}, mv)), out;
    EK_OK(ek_masked_select(nullptr, x, m, out.out()));
    Values want = ref_masked_select(xv, mv);
    ASSERT_EQ(shape_of(out), (Shape{static_cast<int64_t>(want.size())}));
    EXPECT_TRUE(values_of(out) == want) << percent << "% true";
  }
  // Views starting one element in: neither x nor the mask is 16-byte aligned.
  const int64_t big = 100003;
  for (ek_dtype dt : {EK_FLOAT64, EK_INT16, EK_UINT8}) {
    Values xv = sample(dt, big, 7);
    auto mv = random_mask(big, 8);
    Tensor xb(make({big}, dt, xv)), mb(make_mask({big}, mv));
    Tensor x(sliced(xb, 0, 1, EK_SLICE_MAX, 1)), m(sliced(mb, 0, 1, EK_SLICE_MAX, 1)), out;
    EK_OK(ek_masked_select(nullptr, x, m, out.out()));
    Values want = ref_masked_select(Values(xv.begin() + 1, xv.end()),
                                    std::vector<int>(mv.begin() + 1, mv.end()));
    EXPECT_TRUE(values_of(out) == want) << "dtype " << dt;
  }
}

TEST_P(Indexing, MaskedSelectIntoGivenOutChecksTheCountedShape) {
  Tensor x(make({4}, EK_FLOAT32, {1, 2, 3, 4})), m(make_mask({4}, {1, 0, 1, 1}));
  int64_t three = 3, two = 2;
  Tensor good, bad;
  EK_OK(ek_tensor_empty(nullptr, ctx, 1, &three, EK_FLOAT32, good.out()));
  EK_OK(ek_tensor_empty(nullptr, ctx, 1, &two, EK_FLOAT32, bad.out()));
  ek_tensor o = good.t;
  EK_OK(ek_masked_select(nullptr, x, m, &o));
  expect_values(good, {3}, {1, 3, 4}, "given out");
  o = bad.t;
  EK_FAILS(ek_masked_select(nullptr, x, m, &o), EK_ERROR_SHAPE, "[3]");
}

TEST_P(Indexing, MaskBytesOtherThanOneCountAsTrue) {
  // A wrapped bool buffer may hold any byte; every nonzero byte is true.
  std::vector<uint8_t> raw(40);
  for (size_t i = 0; i < raw.size(); ++i) raw[i] = static_cast<uint8_t>((i % 5 == 0) ? 0 : i * 51);
  const int64_t n = 40;
  Tensor m;
  EK_OK(ek_tensor_from_host(nullptr, ctx, 1, &n, EK_BOOL, raw.data(), m.out()));
  Values xv = sample(EK_INT32, n, 3), want;
  for (int i = 0; i < n; ++i)
    if (raw[i]) want.push_back(xv[i]);
  Tensor x(make({n}, EK_INT32, xv)), sel, nz, filled;
  EK_OK(ek_masked_select(nullptr, x, m, sel.out()));
  expect_values(sel, {static_cast<int64_t>(want.size())}, want, "masked_select");
  EK_OK(ek_nonzero(nullptr, m, nz.out()));
  EXPECT_EQ(shape_of(nz), (Shape{static_cast<int64_t>(want.size()), 1}));
  EK_OK(ek_masked_fill(nullptr, x, m, ektest::scalar(0), filled.out()));
  Values fv = values_of(filled);
  for (int i = 0; i < n; ++i) EXPECT_EQ(fv[i], raw[i] ? 0 : xv[i]) << i;
}

TEST_P(Indexing, StridedOutputsAndExpandedInputs) {
  Tensor x(make({6}, EK_FLOAT32, {1, 2, 3, 4, 5, 6})), m(make_mask({6}, {0, 1, 1, 0, 1, 0}));
  Tensor wide(make({6}, EK_FLOAT32, Values(6, -1.0))), every_other(sliced(wide, 0, 0, 6, 2));
  ek_tensor o = every_other.t;
  EK_OK(ek_masked_select(nullptr, x, m, &o));
  expect_values(wide, {6}, {2, -1, 3, -1, 5, -1}, "masked_select into a stepped view");

  Tensor b(make({2, 3}, EK_INT8, {0, 1, 0, 1, 1, 0})), holder, nz_t;
  int64_t hs[2] = {2, 3};  // nonzero gives [3, 2]; write it through a transposed [2, 3]
  EK_OK(ek_tensor_empty(nullptr, ctx, 2, hs, EK_INT64, holder.out()));
  nz_t.t = transposed(holder, 0, 1);
  o = nz_t.t;
  EK_OK(ek_nonzero(nullptr, b, &o));
  EXPECT_EQ(to_host<int64_t>(nz_t), (std::vector<int64_t>{0, 1, 1, 0, 1, 1}));

  Values xv = sample_small(EK_INT32, 12, 2);
  Tensor xi(make({3, 4}, EK_INT32, xv)), row(make({1, 4}, EK_INT32, {1, 2, 3, 4})), src, out;
  int64_t es[2] = {6, 4};
  EK_OK(ek_view_expand(row, 2, es, src.out()));  // stride 0 along dim 0
  auto idx = random_indices(24, 3, 5);
  Tensor index(make_index({6, 4}, EK_INT64, idx));
  EK_OK(ek_scatter(nullptr, xi, 0, index, src, 1, out.out()));
  Values want = ref_scatter({3, 4}, xv, 0, {6, 4}, idx, {6, 4}, [] {
    Values r;
    for (int i = 0; i < 6; ++i) r.insert(r.end(), {1, 2, 3, 4});
    return r;
  }(), true, EK_INT32);
  expect_values(out, {3, 4}, want, "scatter_add of an expanded src");

  Tensor one(make_index({1}, EK_INT32, {-2})), rep, sel;
  int64_t five = 5;
  EK_OK(ek_view_expand(one, 1, &five, rep.out()));
  EK_OK(ek_index_select(nullptr, xi, 1, rep, sel.out()));
  Shape os;
  expect_values(sel, {3, 5}, ref_index_select({3, 4}, xv, 1, {-2, -2, -2, -2, -2}, &os),
                "expanded index");
}

// ---------------------------------------------------------------- masked_fill

TEST_P(Indexing, MaskedFillBroadcastCastsAndInPlace) {
  struct Case { ek_dtype dt; double value, stored; } cases[] = {
      {EK_FLOAT32, 1.5, 1.5}, {EK_INT32, 2.7, 2}, {EK_INT32, -2.7, -2}, {EK_BOOL, 0.5, 1},
      {EK_UINT8, 255.9, 255}, {EK_FLOAT16, -0.25, -0.25}, {EK_INT64, -9, -9},
      {EK_FLOAT64, -INFINITY, -INFINITY}};
  const std::vector<int> mv{1, 0, 0, 1, 1};
  for (const auto &c : cases) {
    Values xv = sample(c.dt, 15, 2 + c.dt);
    Tensor x(make({3, 5}, c.dt, xv)), m(make_mask({5}, mv)), out;
    EK_OK(ek_masked_fill(nullptr, x, m, ektest::scalar(c.value), out.out()));
    Values want = as_dtype(xv, c.dt);
    for (int i = 0; i < 15; ++i)
      if (mv[i % 5]) want[i] = c.stored;
    expect_values(out, {3, 5}, want, "dtype " + std::to_string(c.dt));
    ek_tensor o = x.t;
    EK_OK(ek_masked_fill(nullptr, x, m, ektest::scalar(c.value), &o));
    expect_values(x, {3, 5}, want, "in place");
  }
  Tensor base(make({4, 6}, EK_FLOAT32, sample(EK_FLOAT32, 24, 9)));
  Tensor x(transposed(base, 0, 1));  // [6, 4]
  Values xv = values_of(x);
  auto mv2 = random_mask(24, 4);
  Tensor m(make_mask({6, 4}, mv2));
  ek_tensor o = x.t;
  EK_OK(ek_masked_fill(nullptr, x, m, ektest::scalar(NAN), &o));
  for (int i = 0; i < 24; ++i)
    if (mv2[i]) xv[i] = NAN;
  expect_values(x, {6, 4}, xv, "transposed in place with NaN");
}

// The value is an ek_scalar: int64 stays exact beyond 2^53, and a value that
// does not fit x's dtype is refused before anything is written.
TEST_P(Indexing, MaskedFillIsExactAndRefusesValuesThatDoNotFit) {
  using ektest::scalar;
  const int64_t big = (int64_t(1) << 60) + 1;
  Tensor x(make({4}, EK_INT64, {1, 2, 3, 4})), m(make_mask({4}, {1, 0, 1, 0})), out;
  EK_OK(ek_masked_fill(nullptr, x, m, scalar(big), out.out()));
  EXPECT_EQ(ektest::to_host<int64_t>(out), (std::vector<int64_t>{big, 2, big, 4}));
  ek_tensor o = out.t;
  EK_OK(ek_masked_fill(nullptr, x, m, scalar(uint64_t(INT64_MAX)), &o));
  EXPECT_EQ(ektest::to_host<int64_t>(out), (std::vector<int64_t>{INT64_MAX, 2, INT64_MAX, 4}));
  EK_FAILS(ek_masked_fill(nullptr, x, m, scalar(uint64_t(INT64_MAX) + 1), &o), EK_ERROR_INVALID_ARGUMENT,
           "value 9223372036854775808 does not fit the integer dtype int64");
  EK_FAILS(ek_masked_fill(nullptr, x, m, scalar(9.25e18), &o), EK_ERROR_INVALID_ARGUMENT, "int64");
  Tensor x8(make({4}, EK_INT8, {1, 2, 3, 4})), out8;
  EK_FAILS(ek_masked_fill(nullptr, x8, m, scalar(1000), out8.out()), EK_ERROR_INVALID_ARGUMENT,
           "ek_masked_fill: value 1000 does not fit the integer dtype int8 (range -128..127)");
  EXPECT_EQ(out8.t, nullptr);
  ek_tensor in_place = x8.t;
  EK_FAILS(ek_masked_fill(nullptr, x8, m, scalar(-129.0), &in_place), EK_ERROR_INVALID_ARGUMENT, "int8");
  EXPECT_EQ(ektest::to_host<int8_t>(x8), (std::vector<int8_t>{1, 2, 3, 4}));
  EK_OK(ek_masked_fill(nullptr, x8, m, scalar(-128), &in_place));
  EXPECT_EQ(ektest::to_host<int8_t>(x8), (std::vector<int8_t>{-128, 2, -128, 4}));
}

// ---------------------------------------------------------------- masked_scatter

TEST_P(Indexing, MaskedScatterConsumesSourceInCOrder) {
  for (ek_dtype dt : {EK_FLOAT32, EK_INT8, EK_FLOAT64, EK_BOOL}) {
    Values xv = sample(dt, 12, 4 + dt), sv = sample(dt, 20, 5 + dt);
    auto mv = random_mask(12, 3 + dt);
    Tensor x(make({3, 4}, dt, xv)), m(make_mask({3, 4}, mv)), src(make({4, 5}, dt, sv)), out;
    EK_OK(ek_masked_scatter(nullptr, x, m, src, out.out()));
    Values want = as_dtype(xv, dt);
    size_t k = 0;
    for (int i = 0; i < 12; ++i)
      if (mv[i]) want[i] = as_dtype(sv, dt)[k++];
    expect_values(out, {3, 4}, want, "dtype " + std::to_string(dt));
  }
  // Broadcast mask, transposed source, in place.
  Values xv = sample(EK_FLOAT32, 12, 1);
  Tensor x(make({3, 4}, EK_FLOAT32, xv)), m(make_mask({4}, {0, 1, 1, 0}));
  Tensor sb(make({3, 3}, EK_FLOAT32, {1, 2, 3, 4, 5, 6, 7, 8, 9})), st(transposed(sb, 0, 1));
  ek_tensor o = x.t;
  EK_OK(ek_masked_scatter(nullptr, x, m, st, &o));
  Values want = xv;
  const double order[] = {1, 4, 7, 2, 5, 8};  // the transposed source in C order
  for (int r = 0, k = 0; r < 3; ++r) {
    want[r * 4 + 1] = order[k++];
    want[r * 4 + 2] = order[k++];
  }
  expect_values(x, {3, 4}, want, "broadcast mask, transposed source");
}

TEST_P(Indexing, MaskedScatterTooSmallSourceWritesNothing) {
  Values xv{1, 2, 3, 4};
  Tensor x(make({4}, EK_FLOAT32, xv)), m(make_mask({4}, {1, 1, 0, 1})),
      src(make({2}, EK_FLOAT32, {8, 9})), given(make({4}, EK_FLOAT32, {0, 0, 0, 0}));
  ek_tensor o = x.t;
  EK_FAILS(ek_masked_scatter(nullptr, x, m, src, &o), EK_ERROR_SHAPE, "source has 2 elements");
  EXPECT_NE(std::string(ek_last_error()).find("selects 3"), std::string::npos);
  expect_values(x, {4}, xv, "in-place target untouched");
  o = given.t;
  EK_FAILS(ek_masked_scatter(nullptr, x, m, src, &o), EK_ERROR_SHAPE, "source");
  expect_values(given, {4}, {0, 0, 0, 0}, "given out untouched");
  Tensor fresh;
  EK_FAILS(ek_masked_scatter(nullptr, x, m, src, fresh.out()), EK_ERROR_SHAPE, "source");
  EXPECT_EQ(fresh.t, nullptr);
}

// ---------------------------------------------------------------- nonzero

std::vector<int64_t> ref_nonzero(const Shape &s, const Values &x) {
  std::vector<int64_t> out;
  for (int64_t i = 0; i < numel_of(s); ++i)
    if (x[i] != 0 || std::isnan(x[i]))
      for (int64_t c : unravel(i, s)) out.push_back(c);
  return out;
}

void expect_nonzero(ek_tensor out, const Shape &s, const Values &x, const std::string &what) {
  auto want = ref_nonzero(s, x);
  const int64_t nd = static_cast<int64_t>(s.size());
  EXPECT_EQ(info_of(out).dtype, EK_INT64) << what;
  EXPECT_EQ(shape_of(out), (Shape{nd ? static_cast<int64_t>(want.size()) / nd : 0, nd})) << what;
  EXPECT_TRUE(to_host<int64_t>(out) == want) << what;
}

TEST_P(Indexing, NonzeroOfEveryDtypeAndLayout) {
  const Shape s{3, 4, 5};
  for (ek_dtype dt : kAllDtypes) {
    Values xv = sample(dt, 60, 70 + dt);
    for (size_t i = 0; i < xv.size(); i += 3) xv[i] = 0;
    Tensor x(make(s, dt, xv)), out;
    EK_OK(ek_nonzero(nullptr, x, out.out()));
    expect_nonzero(out, s, xv, "dtype " + std::to_string(dt));
  }
  Tensor f(make({5}, EK_FLOAT32, {0.0, -0.0, NAN, 1e-30, 0})), fo;
  EK_OK(ek_nonzero(nullptr, f, fo.out()));
  EXPECT_EQ(to_host<int64_t>(fo), (std::vector<int64_t>{2, 3}));  // -0 is zero, NaN is not
  Tensor base(make({4, 6}, EK_INT32, sample(EK_INT32, 24, 1))), xt(transposed(base, 0, 1)), to;
  EK_OK(ek_nonzero(nullptr, xt, to.out()));
  expect_nonzero(to, {6, 4}, values_of(xt), "transposed");
}

TEST_P(Indexing, NonzeroOfAllZeroAndZeroDim) {
  Tensor z(make({2, 3}, EK_FLOAT32, Values(6, 0.0))), zo;
  EK_OK(ek_nonzero(nullptr, z, zo.out()));
  EXPECT_EQ(shape_of(zo), (Shape{0, 2}));
  Tensor five(make({}, EK_INT32, {5})), zero(make({}, EK_INT32, {0})), a, b;
  EK_OK(ek_nonzero(nullptr, five, a.out()));
  EXPECT_EQ(shape_of(a), (Shape{1, 0}));  // as torch.nonzero
  EK_OK(ek_nonzero(nullptr, zero, b.out()));
  EXPECT_EQ(shape_of(b), (Shape{0, 0}));
  Tensor e(make({3, 0}, EK_FLOAT32, {})), eo;
  EK_OK(ek_nonzero(nullptr, e, eo.out()));
  EXPECT_EQ(shape_of(eo), (Shape{0, 2}));
}

TEST_P(Indexing, NonzeroLarge) {
  const Shape s{1031, 1017};
  std::vector<int> mv = random_mask(numel_of(s), 12, 30);
  Values xv(mv.begin(), mv.end());
  Tensor x(make(s, EK_BOOL, xv)), out;
  EK_OK(ek_nonzero(nullptr, x, out.out()));
  expect_nonzero(out, s, xv, "1M bools");
}

// ---------------------------------------------------------------- bad indices

TEST_P(Indexing, OutOfRangeIndexFailsAndWritesNothing) {
  Values xv = sample(EK_FLOAT32, 15, 3);
  Tensor x(make({3, 5}, EK_FLOAT32, xv)), out;
  for (ek_dtype it : {EK_INT64, EK_INT32}) {
    Tensor bad(make_index({3}, it, {1, 7, 9}));
    EK_FAILS(ek_index_select(nullptr, x, 1, bad, out.out()), EK_ERROR_INDEX,
             "ek_index_select: index 7 is out of range for dim 1 of size 5");
    EXPECT_EQ(out.t, nullptr);
    Tensor neg(make_index({3, 1}, it, {0, -6, 1}));
    EK_FAILS(ek_gather(nullptr, x, 1, neg, out.out()), EK_ERROR_INDEX,
             "index -6 is out of range for dim 1 of size 5");
    Tensor sidx(make_index({2, 5}, it, {0, 1, 2, 0, 1, 2, 2, 3, 1, 0})), src(make({2, 5}, EK_FLOAT32,
                                                                               Values(10, 99.0)));
    ek_tensor o = x.t;
    for (int acc : {0, 1})
      EK_FAILS(ek_scatter(nullptr, x, 0, sidx, src, acc, &o), EK_ERROR_INDEX,
               "index 3 is out of range for dim 0 of size 3");
    Tensor given(make({3, 5}, EK_FLOAT32, Values(15, -1.0)));
    o = given.t;
    EK_FAILS(ek_scatter(nullptr, x, 0, sidx, src, 0, &o), EK_ERROR_INDEX, "index 3");
    expect_values(given, {3, 5}, Values(15, -1.0), "given out untouched");
    Tensor r(make_index({2}, it, {0, 2})), c(make_index({2}, it, {4, -8}));
    const ek_tensor idx[2] = {r, c};
    Tensor v(make({}, EK_FLOAT32, {5}));
    o = x.t;
    EK_FAILS(ek_index_put(nullptr, x, 2, idx, v, 1, &o), EK_ERROR_INDEX,
             "index -8 is out of range for dim 1 of size 5");
    expect_values(x, {3, 5}, xv, "in-place target untouched");
  }
  Tensor empty(make({0, 2}, EK_FLOAT32, {})), zero(make_index({1}, EK_INT64, {0}));
  EK_FAILS(ek_index_select(nullptr, empty, 0, zero, out.out()), EK_ERROR_INDEX,
           "index 0 is out of range for dim 0 of size 0");
}

// ek.h: with a caller-given out, a failed index_select or gather leaves x and
// the index alone; out is untouched on the CPU but unspecified on CUDA, where
// the kernel checks indices as it gathers.
TEST_P(Indexing, OutOfRangeIndexWithAGivenOut) {
  Values xv = sample(EK_FLOAT32, 15, 3);
  Tensor x(make({3, 5}, EK_FLOAT32, xv));
  const std::vector<int64_t> iv{1, 7, 9}, gv{0, 2, 1, -6, 4, 0};
  Tensor index(make_index({3}, EK_INT64, iv)), gindex(make_index({3, 2}, EK_INT32, gv));
  Tensor out(make({3, 3}, EK_FLOAT32, Values(9, -1.0)));
  ek_tensor o = out.t;
  EK_FAILS(ek_index_select(nullptr, x, 1, index, &o), EK_ERROR_INDEX,
           "ek_index_select: index 7 is out of range for dim 1 of size 5");
  EXPECT_EQ(o, out.t);
  if (GetParam() == EK_CPU) expect_values(out, {3, 3}, Values(9, -1.0), "given out untouched");
  Tensor gout(make({3, 2}, EK_FLOAT32, Values(6, -1.0)));
  o = gout.t;
  EK_FAILS(ek_gather(nullptr, x, 1, gindex, &o), EK_ERROR_INDEX,
           "ek_gather: index -6 is out of range for dim 1 of size 5");
  if (GetParam() == EK_CPU) expect_values(gout, {3, 2}, Values(6, -1.0), "given out untouched");
  expect_values(x, {3, 5}, xv, "x unchanged");
  expect_values(index, {3}, Values(iv.begin(), iv.end()), "index unchanged");
  expect_values(gindex, {3, 2}, Values(gv.begin(), gv.end()), "gather index unchanged");
}

TEST_P(Indexing, OutOfRangeIndexFoundInLargeStridedIndex) {
  const int64_t n = 300000;
  auto idx = random_indices(2 * n, 50, 4);
  idx[2 * 123457] = 50;   // a valid tensor position of the stepped view
  idx[2 * 200001] = -51;  // a later one: the first in C order is reported
  idx[2 * 1000 + 1] = 1000;  // skipped by the step
  Tensor base(make_index({2 * n}, EK_INT64, idx)), stepped(sliced(base, 0, 0, EK_SLICE_MAX, 2));
  Tensor x(make({50}, EK_INT16, sample(EK_INT16, 50, 1))), out;
  EK_FAILS(ek_index_select(nullptr, x, 0, stepped, out.out()), EK_ERROR_INDEX,
           "index 50 is out of range for dim 0 of size 50");
}

// ---------------------------------------------------------------- bad input

TEST_P(Indexing, WrongDtypesFail) {
  Tensor x(make({3, 4}, EK_FLOAT32, sample(EK_FLOAT32, 12, 1))), out;
  Tensor fidx(make({2}, EK_FLOAT32, {0, 1})), f2(make({3, 4}, EK_FLOAT32, Values(12, 0.0)));
  EK_FAILS(ek_index_select(nullptr, x, 0, fidx, out.out()), EK_ERROR_DTYPE,
           "index must be int64 or int32, got float32");
  EK_FAILS(ek_gather(nullptr, x, 0, f2, out.out()), EK_ERROR_DTYPE, "int64 or int32");
  Tensor i16(make({3, 4}, EK_INT16, Values(12, 0.0)));
  EK_FAILS(ek_scatter(nullptr, x, 0, i16, x, 0, out.out()), EK_ERROR_DTYPE, "int16");
  const ek_tensor bad_idx[1] = {fidx};
  Tensor v(make({}, EK_FLOAT32, {1}));
  EK_FAILS(ek_index_put(nullptr, x, 1, bad_idx, v, 0, out.out()), EK_ERROR_DTYPE, "int64 or int32");
  Tensor umask(make({3, 4}, EK_UINT8, Values(12, 1.0)));
  EK_FAILS(ek_masked_select(nullptr, x, umask, out.out()), EK_ERROR_DTYPE, "mask must be bool, got uint8");
  EK_FAILS(ek_masked_fill(nullptr, x, umask, ektest::scalar(1), out.out()), EK_ERROR_DTYPE, "mask must be bool");
  EK_FAILS(ek_masked_scatter(nullptr, x, umask, x, out.out()), EK_ERROR_DTYPE, "mask must be bool");
  Tensor idx(make_index({3, 4}, EK_INT64, std::vector<int64_t>(12, 0)));
  Tensor src64(make({3, 4}, EK_FLOAT64, Values(12, 1.0))), m(make_mask({4}, {1, 0, 0, 0}));
  EK_FAILS(ek_scatter(nullptr, x, 0, idx, src64, 0, out.out()), EK_ERROR_DTYPE,
           "src has dtype float64; x has float32");
  const ek_tensor ok_idx[1] = {idx};
  EK_FAILS(ek_index_put(nullptr, x, 1, ok_idx, src64, 0, out.out()), EK_ERROR_DTYPE, "values");
  EK_FAILS(ek_masked_scatter(nullptr, x, m, src64, out.out()), EK_ERROR_DTYPE, "source");
  Tensor ix(make({3}, EK_INT32, {1, 2, 3}));
  EK_FAILS(ek_masked_fill(nullptr, ix, m, ektest::scalar(NAN), out.out()), EK_ERROR_SHAPE, "broadcast");
  Tensor m3(make_mask({3}, {1, 0, 0}));
  EK_FAILS(ek_masked_fill(nullptr, ix, m3, ektest::scalar(NAN), out.out()), EK_ERROR_INVALID_ARGUMENT,
           "does not fit the integer dtype int32");
  Tensor wrong;
  int64_t shape[2] = {3, 4};
  EK_OK(ek_tensor_empty(nullptr, ctx, 2, shape, EK_FLOAT64, wrong.out()));
  ek_tensor o = wrong.t;
  EK_FAILS(ek_masked_fill(nullptr, x, m, ektest::scalar(1), &o), EK_ERROR_DTYPE, "out has dtype float64");
  EXPECT_EQ(out.t, nullptr);
}

TEST_P(Indexing, ShapeMismatchesFail) {
  Tensor x(make({3, 4}, EK_FLOAT32, sample(EK_FLOAT32, 12, 1))), out;
  Tensor i2(make_index({2, 2}, EK_INT64, {0, 1, 1, 0})), i1(make_index({2}, EK_INT64, {0, 1}));
  EK_FAILS(ek_index_select(nullptr, x, 0, i2, out.out()), EK_ERROR_SHAPE, "index must be 1-D");
  EK_FAILS(ek_index_select(nullptr, x, 2, i1, out.out()), EK_ERROR_INDEX, "dim 2 is out of range");
  EK_FAILS(ek_gather(nullptr, x, 0, i1, out.out()), EK_ERROR_SHAPE, "index has 1 dims but x has 2");
  Tensor wide(make_index({1, 5}, EK_INT64, {0, 0, 0, 0, 0}));
  EK_FAILS(ek_gather(nullptr, x, 0, wide, out.out()), EK_ERROR_SHAPE, "larger than x");
  Tensor small_src(make({1, 2}, EK_FLOAT32, {1, 2}));
  EK_FAILS(ek_scatter(nullptr, x, 0, i2, small_src, 0, out.out()), EK_ERROR_SHAPE, "larger than src");
  Tensor a(make_index({2}, EK_INT64, {0, 1})), b(make_index({3}, EK_INT64, {0, 1, 2}));
  const ek_tensor ab[2] = {a, b};
  Tensor v(make({}, EK_FLOAT32, {1}));
  EK_FAILS(ek_index_put(nullptr, x, 2, ab, v, 0, out.out()), EK_ERROR_SHAPE, "does not broadcast");
  const ek_tensor aa[3] = {a, a, a};
  EK_FAILS(ek_index_put(nullptr, x, 3, aa, v, 0, out.out()), EK_ERROR_INDEX,
           "3 index tensors for a tensor of 2 dims");
  Tensor v5(make({5}, EK_FLOAT32, Values(5, 1.0)));
  EK_FAILS(ek_index_put(nullptr, x, 1, aa, v5, 0, out.out()), EK_ERROR_SHAPE, "cannot broadcast");
  Tensor m5(make_mask({5}, {1, 0, 1, 0, 1}));
  EK_FAILS(ek_masked_select(nullptr, x, m5, out.out()), EK_ERROR_SHAPE, "not broadcastable");
  EK_FAILS(ek_masked_scatter(nullptr, x, m5, x, out.out()), EK_ERROR_SHAPE, "cannot broadcast");
  Tensor scalar(make({}, EK_FLOAT32, {1})), two(make_index({2}, EK_INT64, {0, 0}));
  EK_FAILS(ek_index_select(nullptr, scalar, 0, two, out.out()), EK_ERROR_SHAPE, "exactly one index");
  Tensor wrong;
  int64_t shape[2] = {4, 3};
  EK_OK(ek_tensor_empty(nullptr, ctx, 2, shape, EK_FLOAT32, wrong.out()));
  ek_tensor o = wrong.t;
  EK_FAILS(ek_scatter(nullptr, x, 0, i2, x, 0, &o), EK_ERROR_SHAPE, "out has shape [4,3]");
  EXPECT_EQ(out.t, nullptr);
}

TEST_P(Indexing, NullsForeignContextsAndAliasingFail) {
  Tensor x(make({3, 4}, EK_FLOAT32, sample(EK_FLOAT32, 12, 1))), out;
  Tensor idx(make_index({3, 4}, EK_INT64, std::vector<int64_t>(12, 0)));
  EK_FAILS(ek_index_select(nullptr, nullptr, 0, idx, out.out()), EK_ERROR_NULL_POINTER, "x is NULL");
  EK_FAILS(ek_gather(nullptr, x, 0, nullptr, out.out()), EK_ERROR_NULL_POINTER, "index is NULL");
  EK_FAILS(ek_gather(nullptr, x, 0, idx, nullptr), EK_ERROR_NULL_POINTER, "out is NULL");
  EK_FAILS(ek_scatter(nullptr, x, 0, idx, nullptr, 0, out.out()), EK_ERROR_NULL_POINTER, "src is NULL");
  EK_FAILS(ek_index_put(nullptr, x, 1, nullptr, x, 0, out.out()), EK_ERROR_NULL_POINTER, "indices is NULL");
  const ek_tensor holes[1] = {nullptr};
  EK_FAILS(ek_index_put(nullptr, x, 1, holes, x, 0, out.out()), EK_ERROR_NULL_POINTER, "indices");
  EK_FAILS(ek_index_put(nullptr, x, -1, nullptr, x, 0, out.out()), EK_ERROR_INVALID_ARGUMENT, "n = -1");
  EK_FAILS(ek_masked_select(nullptr, x, nullptr, out.out()), EK_ERROR_NULL_POINTER, "mask is NULL");
  EK_FAILS(ek_masked_fill(nullptr, nullptr, nullptr, ektest::scalar(0), out.out()), EK_ERROR_NULL_POINTER, "x is NULL");
  EK_FAILS(ek_masked_scatter(nullptr, x, x, nullptr, out.out()), EK_ERROR_NULL_POINTER, "source is NULL");
  EK_FAILS(ek_nonzero(nullptr, x, nullptr), EK_ERROR_NULL_POINTER, "out is NULL");

  ek_context other = cpu_context();
  Tensor foreign(make_index({3, 4}, EK_INT64, std::vector<int64_t>(12, 0), other));
  EK_FAILS(ek_gather(nullptr, x, 0, foreign, out.out()), EK_ERROR_INVALID_ARGUMENT, "another context");

  // Outputs that share memory with an input they read.
  Tensor src(make({3, 4}, EK_FLOAT32, Values(12, 2.0)));
  ek_tensor o = src.t;
  EK_FAILS(ek_scatter(nullptr, x, 0, idx, src, 0, &o), EK_ERROR_INVALID_ARGUMENT, "out overlaps src");
  Tensor xi(make({3, 4}, EK_INT64, Values(12, 0.0)));
  o = xi.t;
  EK_FAILS(ek_scatter(nullptr, xi, 0, idx, xi, 0, &o), EK_ERROR_INVALID_ARGUMENT, "out overlaps src");
  Tensor ii(make_index({3, 4}, EK_INT64, std::vector<int64_t>(12, 0)));
  o = ii.t;
  EK_FAILS(ek_gather(nullptr, xi, 0, ii, &o), EK_ERROR_INVALID_ARGUMENT, "out overlaps index");
  Tensor big(make({4, 4}, EK_FLOAT32, Values(16, 0.0))), top(sliced(big, 0, 0, 3, 1)),
      bottom(sliced(big, 0, 1, 4, 1)), m(make_mask({4}, {1, 0, 0, 0}));
  o = bottom.t;
  EK_FAILS(ek_masked_fill(nullptr, top, m, ektest::scalar(1), &o), EK_ERROR_INVALID_ARGUMENT, "only out == x");
  Tensor xs(make({4}, EK_FLOAT32, {1, 2, 3, 4}));
  o = xs.t;
  EK_FAILS(ek_masked_select(nullptr, xs, m, &o), EK_ERROR_INVALID_ARGUMENT, "out overlaps x");
  ek_tensor_release(foreign.t);
  foreign.t = nullptr;
  ek_context_destroy(other);
  EXPECT_EQ(out.t, nullptr);
}

// ---------------------------------------------------------------- CUDA: checked gathers

// On CUDA, index_select and gather check their indices inside the gather
// kernel, which raises a flag in pinned memory owned by the stream. These
// tests run on their own stream, so that the flag is that stream's.
class CheckedGather : public Indexing {
 protected:
  void SetUp() override {
    Indexing::SetUp();
    if (IsSkipped() || HasFatalFailure()) return;
    if (GetParam() != EK_CUDA) GTEST_SKIP() << "the in-kernel index check is CUDA's";
    ASSERT_EQ(ek_stream_create(ctx, &s), EK_SUCCESS) << ek_last_error();
  }
  void TearDown() override {
    if (s) {
      EXPECT_EQ(ek_stream_destroy(s), EK_SUCCESS) << ek_last_error();
    }
    Indexing::TearDown();
  }
  // x[i] = i in float32 (exact below 2^24).
  ek_tensor iota(int64_t n) {
    std::vector<float> v(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) v[i] = static_cast<float>(i);
    ek_tensor t = nullptr;
    EXPECT_EQ(ek_tensor_from_host(s, ctx, 1, &n, EK_FLOAT32, v.data(), &t), EK_SUCCESS)
        << ek_last_error();
    return t;
  }
  ek_tensor index_on_stream(const std::vector<int64_t> &v) {
    const int64_t n = static_cast<int64_t>(v.size());
    ek_tensor t = nullptr;
    EXPECT_EQ(ek_tensor_from_host(s, ctx, 1, &n, EK_INT64, v.data(), &t), EK_SUCCESS)
        << ek_last_error();
    return t;
  }
  // Positions where out differs from iota(size)[idx].
  int64_t mismatches(ek_tensor out, const std::vector<int64_t> &idx, int64_t size) {
    std::vector<float> got(idx.size());
    if (ek_tensor_to_host(s, out, got.data(), got.size() * sizeof(float)) != EK_SUCCESS)
      return -1;
    int64_t bad = 0;
    for (size_t i = 0; i < idx.size(); ++i) bad += got[i] != static_cast<float>(wrap(idx[i], size));
    return bad;
  }
  ek_stream s = nullptr;
};
EK_INSTANTIATE_DEVICES(CheckedGather);

// EK_INDEX_CHECK_DEFERRED: the gathers return at once; the stream's next
// synchronization (or a read to the host) reports a bad index, once.
TEST_P(Indexing, DeferredIndexCheck) {
  ek_context_config cfg = EK_CONTEXT_CONFIG_INIT;
  cfg.index_check = EK_INDEX_CHECK_DEFERRED;
  ek_context c = nullptr;
  ASSERT_EQ(ek_context_create(ek_device{GetParam(), 0}, &cfg, &c), EK_SUCCESS) << ek_last_error();
  ek_context_config got = EK_CONTEXT_CONFIG_INIT;
  EK_OK(ek_context_get_config(c, &got));
  EXPECT_EQ(got.index_check, EK_INDEX_CHECK_DEFERRED);
  ek_stream st = nullptr;
  EK_OK(ek_stream_create(c, &st));
  {
    Tensor x(make({4}, EK_FLOAT32, {0, 1, 2, 3}, c)), bad(make({3}, EK_INT64, {1, 9, 2}, c)),
        good(make({2}, EK_INT64, {3, -4}, c)), out, out2;
    const ek_status at_call = GetParam() == EK_CUDA ? EK_SUCCESS : EK_ERROR_INDEX;
    EXPECT_EQ(ek_index_select(st, x, 0, bad, out.out()), at_call) << ek_last_error();
    if (GetParam() == EK_CUDA) {
      EK_FAILS(ek_stream_synchronize(st), EK_ERROR_INDEX,
               "ek_stream_synchronize: ek_index_select (or indexing by a tensor) met index 9, "
               "out of range, on this stream since its last synchronization (the check was "
               "deferred");
      EK_OK(ek_stream_synchronize(st));  // reported once
      EXPECT_EQ(ek_gather(st, x, 0, bad, out2.out()), EK_SUCCESS) << ek_last_error();
      float host[3];
      EK_FAILS(ek_tensor_to_host(st, out2, host, sizeof host), EK_ERROR_INDEX,
               "ek_gather met index 9, out of range");
    }
    Tensor ok;
    EK_OK(ek_index_select(st, x, 0, good, ok.out()));
    EK_OK(ek_stream_synchronize(st));
    EXPECT_EQ(values_of(ok), (Values{3, 0}));
  }
  EK_OK(ek_stream_destroy(st));
  EK_OK(ek_context_destroy(c));
  cfg.index_check = 3;
  EXPECT_EQ(ek_context_create(ek_device{GetParam(), 0}, &cfg, &c), EK_ERROR_INVALID_ARGUMENT);
  EXPECT_STREQ(ek_last_error(), "ek_context_create: config->index_check 3 is not an ek_index_check");
}

// The default: deferred on CUDA, where the stream's next synchronization
// names the ops and their bad indices, at the call on the CPU; EK_INDEX_CHECK
// =call makes CUDA check at the call again.
TEST_P(Indexing, DefaultIndexCheck) {
  const bool cuda = GetParam() == EK_CUDA;
  ek_context c = nullptr;
  {
    ektest::ScopedEnv unset("EK_INDEX_CHECK", nullptr);
    ASSERT_EQ(ek_context_create(ek_device{GetParam(), 0}, nullptr, &c), EK_SUCCESS) << ek_last_error();
  }
  ek_context_config got = EK_CONTEXT_CONFIG_INIT;
  EK_OK(ek_context_get_config(c, &got));
  EXPECT_EQ(got.index_check, cuda ? EK_INDEX_CHECK_DEFERRED : EK_INDEX_CHECK_AT_CALL);
  {
    Tensor x(make({4}, EK_FLOAT32, {0, 1, 2, 3}, c)), bad(make_index({3}, EK_INT64, {1, 9, 2}, c)),
        gbad(make_index({2}, EK_INT32, {-6, 0}, c)), sel, gat, key;
    const ek_index_item item = ek_index_item_tensor(bad);
    if (cuda) {
      EK_OK(ek_index_select(nullptr, x, 0, bad, sel.out()));
      EK_FAILS(ek_context_synchronize(c), EK_ERROR_INDEX,
               "ek_context_synchronize: ek_index_select (or indexing by a tensor) met index 9");
      EK_OK(ek_context_synchronize(c));  // reported once
      EK_OK(ek_gather(nullptr, x, 0, gbad, gat.out()));
      float host[2];
      EK_FAILS(ek_tensor_to_host(nullptr, gat, host, sizeof host), EK_ERROR_INDEX,
               "ek_gather met index -6, out of range");
      EK_OK(ek_index(nullptr, x, 1, &item, key.out()));
      EK_OK(ek_gather(nullptr, x, 0, gbad, gat.out()));
      EK_FAILS(ek_context_synchronize(c), EK_ERROR_INDEX,
               "ek_index_select (or indexing by a tensor) met index 9 and ek_gather met index -6");
    } else {
      EK_FAILS(ek_index_select(nullptr, x, 0, bad, sel.out()), EK_ERROR_INDEX,
               "ek_index_select: index 9 is out of range for dim 0 of size 4");
      EK_FAILS(ek_gather(nullptr, x, 0, gbad, gat.out()), EK_ERROR_INDEX,
               "ek_gather: index -6 is out of range for dim 0 of size 4");
      EK_FAILS(ek_index(nullptr, x, 1, &item, key.out()), EK_ERROR_INDEX,
               "ek_index: ek_index_select: index 9 is out of range");
    }
    Tensor good(make_index({2}, EK_INT64, {3, -4}, c)), ok;
    EK_OK(ek_index_select(nullptr, x, 0, good, ok.out()));
    EXPECT_EQ(values_of(ok), (Values{3, 0}));
  }
  EK_OK(ek_context_destroy(c));
  ektest::ScopedEnv call("EK_INDEX_CHECK", "call");
  ASSERT_EQ(ek_context_create(ek_device{GetParam(), 0}, nullptr, &c), EK_SUCCESS) << ek_last_error();
  EK_OK(ek_context_get_config(c, &got));
  EXPECT_EQ(got.index_check, EK_INDEX_CHECK_AT_CALL);
  {
    Tensor x(make({4}, EK_FLOAT32, {0, 1, 2, 3}, c)), bad(make_index({3}, EK_INT64, {1, 9, 2}, c)),
        sel;
    EK_FAILS(ek_index_select(nullptr, x, 0, bad, sel.out()), EK_ERROR_INDEX,
             "ek_index_select: index 9 is out of range for dim 0 of size 4");
  }
  EK_OK(ek_context_destroy(c));
}

TEST_P(CheckedGather, OneBadIndexAmongAMillionThenAGoodGather) {
  const int64_t size = 1 << 16, n = 1 << 20;
  auto good = random_indices(n, size, 11);
  auto bad = good, bad_neg = good;
  bad[n / 2] = size + 7;
  bad_neg[n / 2 + 1] = -size - 1;
  Tensor x(iota(size)), gi(index_on_stream(good)), bi(index_on_stream(bad)),
      bn(index_on_stream(bad_neg)), out;
  EXPECT_EQ(ek_index_select(s, x, 0, bi, out.out()), EK_ERROR_INDEX) << ek_last_error();
  EXPECT_STREQ(ek_last_error(), "ek_index_select: index 65543 is out of range for dim 0 of size 65536");
  EXPECT_EQ(out.t, nullptr);
  EXPECT_EQ(ek_gather(s, x, 0, bn, out.out()), EK_ERROR_INDEX) << ek_last_error();
  EXPECT_STREQ(ek_last_error(), "ek_gather: index -65537 is out of range for dim 0 of size 65536");
  EXPECT_EQ(out.t, nullptr);
  // Right after, on the same stream: the flag was reset.
  EK_OK(ek_index_select(s, x, 0, gi, out.out()));
  EXPECT_EQ(mismatches(out, good, size), 0);
  Tensor g;
  EK_OK(ek_gather(s, x, 0, gi, g.out()));
  EXPECT_EQ(mismatches(g, good, size), 0);
  // A given out: status and message; x and the index are unchanged.
  ek_tensor o = out.t;
  EXPECT_EQ(ek_index_select(s, x, 0, bi, &o), EK_ERROR_INDEX) << ek_last_error();
  EXPECT_STREQ(ek_last_error(), "ek_index_select: index 65543 is out of range for dim 0 of size 65536");
  EXPECT_EQ(ektest::to_host<int64_t>(bi), bad);
  std::vector<int64_t> every(static_cast<size_t>(size));
  for (int64_t i = 0; i < size; ++i) every[i] = i;
  EXPECT_EQ(mismatches(x, every, size), 0);  // x is still iota
}

// Threads sharing one stream each see their own verdict: good gathers succeed
// with the right values while others fail on bad indices, and a mask count
// (the same pinned area, another word) interleaves with them.
TEST_P(CheckedGather, ThreadsSharingAStream) {
  constexpr int kThreads = 4, kRounds = 12;
  const int64_t size = 1 << 16, n = 1 << 18;
  Tensor x(iota(size));
  std::vector<std::vector<int64_t>> good(kThreads);
  std::vector<Tensor> gi(kThreads), bi(kThreads);
  std::vector<int64_t> nonzeros(kThreads, 0);
  for (int t = 0; t < kThreads; ++t) {
    good[t] = random_indices(n, size, 50 + t);
    auto bad = good[t];
    bad[n / 3 + t] = size + t;
    gi[t].t = index_on_stream(good[t]);
    bi[t].t = index_on_stream(bad);
    for (int64_t v : good[t]) nonzeros[t] += v != 0;
  }
  EK_OK(ek_stream_synchronize(s));
  std::vector<std::string> errors(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      auto note = [&](const std::string &what) {
        if (errors[t].empty()) errors[t] = what + ": " + ek_last_error();
      };
      const std::string want_bad = "ek_gather: index " + std::to_string(size + t) +
                                   " is out of range for dim 0 of size " + std::to_string(size);
      for (int r = 0; r < kRounds; ++r) {
        Tensor out;
        if ((r + t) % 3 == 0) {
          if (ek_gather(s, x, 0, bi[t], out.out()) != EK_ERROR_INDEX || ek_last_error() != want_bad)
            note("bad gather round " + std::to_string(r));
        } else if (ek_gather(s, x, 0, gi[t], out.out()) != EK_SUCCESS) {
          note("good gather round " + std::to_string(r));
        } else if (mismatches(out, good[t], size) != 0) {
          note("wrong values round " + std::to_string(r));
        }
        Tensor nz;
        ek_tensor_info info = EK_TENSOR_INFO_INIT;
        if (ek_nonzero(s, gi[t], nz.out()) != EK_SUCCESS ||
            ek_tensor_get_info(nz, &info) != EK_SUCCESS || info.shape[0] != nonzeros[t])
          note("nonzero count round " + std::to_string(r));
      }
    });
  }
  for (std::thread &th : threads) th.join();
  for (int t = 0; t < kThreads; ++t) EXPECT_EQ(errors[t], "") << "thread " << t;
}

// The 1-D gather kernel's elements are kThreads apart in a thread: every
// element of lengths around its 1024-element chunks, each element size, both
// index dtypes, negative indices.
TEST_P(Indexing, OneDimGatherCoversEveryElement) {
  const int64_t size = 3001;
  Values xv(size);
  for (int64_t i = 0; i < size; ++i) xv[size_t(i)] = double(i % 251);
  for (ek_dtype dt : {EK_UINT8, EK_FLOAT16, EK_FLOAT32, EK_FLOAT64})
    for (ek_dtype it : {EK_INT32, EK_INT64})
      for (int64_t n : {int64_t(1), int64_t(1023), int64_t(1025), int64_t(4097), int64_t(70001)}) {
        std::vector<int64_t> idx(static_cast<size_t>(n));
        for (int64_t i = 0; i < n; ++i) idx[size_t(i)] = (i * 7919) % (2 * size) - size;
        Tensor x(make({size}, dt, xv)), index(make_index({n}, it, idx)), out;
        EK_OK(ek_index_select(nullptr, x, 0, index, out.out()));
        const Values got = values_of(out);
        for (int64_t i = 0; i < n; ++i)
          ASSERT_EQ(got[size_t(i)], xv[size_t((idx[size_t(i)] + size) % size)])
              << ek_dtype_name(dt) << " index " << ek_dtype_name(it) << " n " << n << " at " << i;
      }
}

}  // namespace
