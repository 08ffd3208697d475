// Sorting and searching: ek_sort, ek_topk, ek_searchsorted, ek_unique,
// ek_count_nonzero, ek_diff against host references in double (std::stable_sort
// with ek.h's order: NaN greatest, -0.0 == +0.0), over every dtype, NaN and
// signed zeros, duplicates (stability), non-contiguous and empty inputs,
// given outputs, k = 0 and k = n, and inputs of millions of elements (CUB's
// multi-block paths on CUDA); bad arguments fail with a message.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <numeric>
#include <vector>

#include "ek_test.hpp"

using ektest::kAllDtypes;
using ektest::Shape;
using ektest::shape_of;
using ektest::Tensor;
using ektest::Values;
using ektest::values_of;

namespace {

// ek.h's order on doubles: NaN above everything, -0.0 == +0.0.
bool less(double a, double b) { return std::isnan(a) ? false : (std::isnan(b) || a < b); }

// Stable order of a row: the reference indices.
std::vector<int64_t> ref_order(const Values &row, bool descending) {
  std::vector<int64_t> idx(row.size());
  std::iota(idx.begin(), idx.end(), 0);
  std::stable_sort(idx.begin(), idx.end(), [&](int64_t a, int64_t b) {
    return descending ? less(row[b], row[a]) : less(row[a], row[b]);
  });
  return idx;
}

bool same(double a, double b) { return (std::isnan(a) && std::isnan(b)) || a == b; }

// Small integers (many duplicates) that every dtype holds exactly.
Values dup_values(ek_dtype dt, size_t n, uint32_t seed) {
  Values v = ektest::random_values(n, seed, dt == EK_BOOL || ektest::is_unsigned(dt) ? 0 : -20, dt == EK_BOOL ? 2 : 20);
  for (double &x : v) x = std::floor(x);
  return v;
}

class Sort : public ektest::DeviceTest {
 protected:
  // Sorts x [rows, n] along dim 1 (or 0 when transposed_in) and checks
  // values and indices against the stable reference.
  void check_sort(ek_dtype dt, int64_t rows, int64_t n, bool descending, bool stable) {
    Values v = dup_values(dt, static_cast<size_t>(rows * n), 7u + static_cast<uint32_t>(n));
    Tensor x(make({rows, n}, dt, v));
    Tensor values, indices;
    EK_OK(ek_sort(nullptr, x, -1, descending, stable, values.out(), indices.out()));
    ASSERT_EQ(ektest::dtype_of(values), dt);
    ASSERT_EQ(ektest::dtype_of(indices), EK_INT64);
    Values got = values_of(values);
    auto idx = ektest::to_host<int64_t>(indices);
    for (int64_t r = 0; r < rows; ++r) {
      Values row(v.begin() + r * n, v.begin() + (r + 1) * n);
      auto order = ref_order(row, descending);
      for (int64_t j = 0; j < n; ++j) {
        ASSERT_TRUE(same(got[r * n + j], row[order[j]])) << ek_dtype_name(dt) << " row " << r << " at " << j;
        if (stable) ASSERT_EQ(idx[r * n + j], order[j]) << ek_dtype_name(dt) << " row " << r << " at " << j;
        else ASSERT_TRUE(same(row[idx[r * n + j]], got[r * n + j]));
      }
    }
  }
};

TEST_P(Sort, EveryDtypeBothOrdersStable) {
  for (ek_dtype dt : kAllDtypes)
    for (int desc = 0; desc < 2; ++desc) {
      check_sort(dt, 3, 37, desc, true);
      check_sort(dt, 1, 300, desc, false);
    }
}

// uint64 orders as unsigned: values above 2^63 sort above small ones.
TEST_P(Sort, Uint64AboveInt64Max) {
  const std::vector<uint64_t> xs = {uint64_t(1) << 63 | 1, 1, ~uint64_t(0), 0, uint64_t(1) << 63};
  const int64_t n = static_cast<int64_t>(xs.size());
  ek_tensor x = nullptr, values = nullptr, indices = nullptr;
  ASSERT_EQ(ek_tensor_from_host(nullptr, ctx, 1, &n, EK_UINT64, xs.data(), &x), EK_SUCCESS) << ek_last_error();
  ASSERT_EQ(ek_sort(nullptr, x, 0, 0, 1, &values, &indices), EK_SUCCESS) << ek_last_error();
  EXPECT_EQ(ektest::to_host<uint64_t>(values),
            (std::vector<uint64_t>{0, 1, uint64_t(1) << 63, uint64_t(1) << 63 | 1, ~uint64_t(0)}));
  EXPECT_EQ(ektest::to_host<int64_t>(indices), (std::vector<int64_t>{3, 1, 4, 0, 2}));
  ek_tensor_release(x);
  ek_tensor_release(values);
  ek_tensor_release(indices);
}

// Values alone, not stable: CUDA may sort the keys alone and turn them back.
TEST_P(Sort, ValuesOnlyEveryDtype) {
  const double nan = NAN, inf = INFINITY;
  for (ek_dtype dt : kAllDtypes)
    for (int desc = 0; desc < 2; ++desc) {
      Values v = ektest::is_float(dt) ? Values{nan, 1, -0.0, 0.0, -inf, inf, -nan, -1, 0.0, -0.0, 2.5}
                                      : dup_values(dt, 1000, 31);
      Tensor x(make({static_cast<int64_t>(v.size())}, dt, v));
      Values xs = values_of(x);
      Tensor values;
      EK_OK(ek_sort(nullptr, x, 0, desc, 0, values.out(), nullptr));
      Values got = values_of(values);
      auto order = ref_order(xs, desc);
      for (size_t j = 0; j < xs.size(); ++j)
        ASSERT_TRUE(same(got[j], xs[order[j]])) << ek_dtype_name(dt) << " at " << j;
    }
}

TEST_P(Sort, NanAndSignedZeroAsTorch) {
  const double nan = NAN, inf = INFINITY;
  Values v = {nan, 1, -0.0, 0.0, -inf, inf, -nan, -1, 0.0, -0.0};
  for (ek_dtype dt : ektest::kFloatDtypes)
    for (int desc = 0; desc < 2; ++desc) {
      Tensor x(make({10}, dt, v));
      Tensor values, indices;
      EK_OK(ek_sort(nullptr, x, 0, desc, 1, values.out(), indices.out()));
      auto idx = ektest::to_host<int64_t>(indices);
      auto order = ref_order(v, desc);
      EXPECT_EQ(idx, order) << ek_dtype_name(dt) << (desc ? " descending" : " ascending");
      Values got = values_of(values);
      for (size_t j = 0; j < v.size(); ++j)  // -0.0 keeps its sign: values are x's elements
        EXPECT_EQ(std::signbit(got[j]) && !std::isnan(got[j]), std::signbit(v[order[j]]) && !std::isnan(v[order[j]]));
    }
}

TEST_P(Sort, AnyDimNonContiguousAndGivenOutputs) {
  Values v = dup_values(EK_FLOAT32, 4 * 6 * 5, 3);
  Tensor base(make({4, 6, 5}, EK_FLOAT32, v));
  Tensor x(ektest::transposed(base, 0, 2));  // [5, 6, 4]
  // Given outputs: strided views of larger tensors.
  Tensor vbig, ibig;
  Shape big = {5, 6, 8};
  EK_OK(ek_tensor_empty(nullptr, ctx, 3, big.data(), EK_FLOAT32, vbig.out()));
  EK_OK(ek_tensor_empty(nullptr, ctx, 3, big.data(), EK_INT64, ibig.out()));
  Tensor vout(ektest::sliced(vbig, 2, 0, 8, 2)), iout(ektest::sliced(ibig, 2, 1, 8, 2));
  EK_OK(ek_sort(nullptr, x, 1, 1, 1, vout.out(), iout.out()));
  Values got = values_of(vout), xs = values_of(x);
  Values gi = values_of(iout);
  for (int64_t a = 0; a < 5; ++a)
    for (int64_t c = 0; c < 4; ++c) {
      Values line;
      for (int64_t b = 0; b < 6; ++b) line.push_back(xs[(a * 6 + b) * 4 + c]);
      auto order = ref_order(line, true);
      for (int64_t b = 0; b < 6; ++b) {
        EXPECT_EQ(got[(a * 6 + b) * 4 + c], line[order[b]]);
        EXPECT_EQ(gi[(a * 6 + b) * 4 + c], static_cast<double>(order[b]));
      }
    }
  // argsort: values NULL.
  Tensor only;
  EK_OK(ek_sort(nullptr, x, 0, 0, 1, nullptr, only.out()));
  EXPECT_EQ(shape_of(only), (Shape{5, 6, 4}));
}

TEST_P(Sort, EmptyAndZeroDim) {
  for (Shape s : {Shape{0, 5}, Shape{5, 0}}) {
    Tensor x(make(s, EK_FLOAT32, {}));
    Tensor values, indices;
    EK_OK(ek_sort(nullptr, x, -1, 0, 0, values.out(), indices.out()));
    EXPECT_EQ(shape_of(values), s);
    Tensor tv, ti;
    EK_OK(ek_topk(nullptr, x, 0, -1, 1, 1, tv.out(), ti.out()));
    Tensor u, inv, cnt;
    EK_OK(ek_unique(nullptr, x, u.out(), inv.out(), cnt.out()));
    EXPECT_EQ(shape_of(u), (Shape{0}));
    EXPECT_EQ(shape_of(inv), s);
  }
  Tensor x0(make({}, EK_INT32, {4}));
  Tensor v0, i0;
  EK_OK(ek_sort(nullptr, x0, 0, 0, 0, v0.out(), i0.out()));
  EXPECT_EQ(values_of(v0), (Values{4}));
  EXPECT_EQ(ektest::to_host<int64_t>(i0), (std::vector<int64_t>{0}));
}

TEST_P(Sort, LargeMatchesReference) {
  const int64_t n = GetParam() == EK_CUDA ? 3000000 : 300000;
  Values v = ektest::random_values(static_cast<size_t>(n), 11, -1000, 1000);
  for (size_t i = 0; i < v.size(); i += 997) v[i] = NAN;
  for (ek_dtype dt : {EK_FLOAT32, EK_INT32, EK_FLOAT64}) {
    Tensor x(make({n}, dt, v));
    Values xs = values_of(x);
    auto order = ref_order(xs, false);
    Tensor values, indices;
    EK_OK(ek_sort(nullptr, x, 0, 0, 1, values.out(), indices.out()));
    auto idx = ektest::to_host<int64_t>(indices);
    ASSERT_EQ(idx, order) << ek_dtype_name(dt);
    // Batched rows, one segment each.
    Tensor rows;
    Shape rs = {n / 1000, 1000};
    EK_OK(ek_view_reshape(x, 2, rs.data(), rows.out()));
    Tensor rv;
    EK_OK(ek_sort(nullptr, rows, 1, 1, 0, rv.out(), nullptr));
    Values got = values_of(rv);
    for (int64_t r = 0; r < rs[0]; r += 97) {
      Values row(xs.begin() + r * 1000, xs.begin() + (r + 1) * 1000);
      auto o = ref_order(row, true);
      for (int64_t j = 0; j < 1000; ++j) ASSERT_TRUE(same(got[r * 1000 + j], row[o[j]]));
    }
  }
}

// ---------------------------------------------------------------- topk

class Topk : public ektest::DeviceTest {
 protected:
  void check(ek_dtype dt, int64_t rows, int64_t n, int64_t k, bool largest, bool sorted, uint32_t seed) {
    Values v = GetParam() == EK_CUDA && n > 100000 ? ektest::random_values(static_cast<size_t>(rows * n), seed, -1e6, 1e6)
                                                    : dup_values(dt, static_cast<size_t>(rows * n), seed);
    Tensor x(make({rows, n}, dt, v));
    Values xs = values_of(x);
    Tensor values, indices;
    EK_OK(ek_topk(nullptr, x, k, 1, largest, sorted, values.out(), indices.out()));
    ASSERT_EQ(shape_of(values), (Shape{rows, k}));
    Values got = values_of(values);
    auto idx = ektest::to_host<int64_t>(indices);
    for (int64_t r = 0; r < rows; ++r) {
      Values row(xs.begin() + r * n, xs.begin() + (r + 1) * n);
      auto order = ref_order(row, largest);
      Values want, have(got.begin() + r * k, got.begin() + (r + 1) * k);
      for (int64_t j = 0; j < k; ++j) want.push_back(row[order[j]]);
      for (int64_t j = 0; j < k; ++j)
        ASSERT_TRUE(same(row[idx[r * k + j]], have[j])) << "index does not point at its value";
      if (!sorted) {
        auto cmp = [&](double a, double b) { return largest ? less(b, a) : less(a, b); };
        std::stable_sort(have.begin(), have.end(), cmp);
      }
      for (int64_t j = 0; j < k; ++j)
        ASSERT_TRUE(same(have[j], want[j])) << ek_dtype_name(dt) << " k " << k << " row " << r << " at " << j;
    }
  }
};

TEST_P(Topk, EveryDtypeKZeroToN) {
  for (ek_dtype dt : kAllDtypes)
    for (int64_t k : {0, 1, 5, 40})
      for (int largest = 0; largest < 2; ++largest) check(dt, 3, 40, k, largest, true, 5);
  check(EK_FLOAT32, 4, 50, 7, true, false, 9);
}

TEST_P(Topk, LargeAndBatched) {
  check(EK_FLOAT32, 1, 1000000, 100, true, true, 21);
  check(EK_FLOAT32, 1, 1000000, 100, false, false, 22);
  check(EK_FLOAT64, 2, 300000, 1000, true, true, 23);
  check(EK_FLOAT16, 64, 1000, 10, true, true, 24);
  check(EK_INT64, 300, 257, 3, false, true, 25);
}

TEST_P(Topk, NanIsLargestAndOtherDims) {
  Values v = {1, NAN, 3, -0.0, 2, NAN};
  Tensor x(make({6}, EK_FLOAT32, v));
  Tensor values, indices;
  EK_OK(ek_topk(nullptr, x, 3, 0, 1, 1, values.out(), indices.out()));
  Values got = values_of(values);
  EXPECT_TRUE(std::isnan(got[0]) && std::isnan(got[1]));
  EXPECT_EQ(got[2], 3);
  Tensor base(make({3, 4}, EK_INT32, {5, 1, 9, 2, 7, 3, 0, 8, 6, 4, 11, 10}));
  Tensor mins;
  EK_OK(ek_topk(nullptr, base, 2, 0, 0, 1, mins.out(), nullptr));
  EXPECT_EQ(values_of(mins), (Values{5, 1, 0, 2, 6, 3, 9, 8}));
}

// ---------------------------------------------------------------- searchsorted

TEST_P(Sort, SearchsortedLeftRightBatchedInt32) {
  Tensor seq(make({6}, EK_FLOAT32, {1, 2, 2, 3, 5, NAN}));
  Tensor vals(make({2, 4}, EK_FLOAT64, {0, 2, 2.5, 6, 5, NAN, 1, 3}));
  Tensor left, right;
  EK_OK(ek_searchsorted(nullptr, seq, vals, 0, EK_INT64, left.out()));
  EK_OK(ek_searchsorted(nullptr, seq, vals, 1, EK_INT32, right.out()));
  EXPECT_EQ(values_of(left), (Values{0, 1, 3, 5, 4, 5, 0, 3}));
  EXPECT_EQ(values_of(right), (Values{0, 3, 3, 5, 5, 6, 1, 4}));
  EXPECT_EQ(ektest::dtype_of(right), EK_INT32);
  Tensor bseq(make({2, 3}, EK_INT32, {1, 3, 5, 10, 20, 30}));
  Tensor bval(make({2, 2}, EK_INT32, {4, 0, 25, 31}));
  Tensor b;
  EK_OK(ek_searchsorted(nullptr, bseq, bval, 0, EK_INT64, b.out()));
  EXPECT_EQ(values_of(b), (Values{2, 0, 2, 3}));
  Tensor t(ektest::transposed(bval, 0, 1));  // non-contiguous values against a 1-D sequence
  Tensor flat(make({3}, EK_INT32, {1, 3, 5}));
  Tensor tb;
  EK_OK(ek_searchsorted(nullptr, flat, t, 1, EK_INT64, tb.out()));
  EXPECT_EQ(values_of(tb), (Values{2, 3, 0, 3}));
  Tensor zero(make({}, EK_INT32, {3}));
  Tensor z;
  EK_OK(ek_searchsorted(nullptr, flat, zero, 0, EK_INT64, z.out()));
  EXPECT_EQ(shape_of(z), Shape{});
}

// ---------------------------------------------------------------- unique

TEST_P(Sort, UniqueValuesInverseCounts) {
  Values v = {3, -0.0, 1, NAN, 3, 0.0, NAN, 1, 1};
  for (ek_dtype dt : {EK_FLOAT32, EK_FLOAT16, EK_FLOAT64}) {
    Tensor x(make({3, 3}, dt, v));
    Tensor u, inv, cnt;
    EK_OK(ek_unique(nullptr, x, u.out(), inv.out(), cnt.out()));
    Values got = values_of(u);
    ASSERT_EQ(got.size(), 5u);  // 0, 1, 3, NaN, NaN
    EXPECT_EQ(got[0], 0);  // -0.0 or +0.0: one element
    EXPECT_EQ(got[1], 1);
    EXPECT_EQ(got[2], 3);
    EXPECT_TRUE(std::isnan(got[3]) && std::isnan(got[4]));
    EXPECT_EQ(values_of(cnt), (Values{2, 3, 2, 1, 1}));
    EXPECT_EQ(shape_of(inv), (Shape{3, 3}));
    EXPECT_EQ(values_of(inv), (Values{2, 0, 1, 3, 2, 0, 4, 1, 1}));
  }
  for (ek_dtype dt : kAllDtypes) {
    Values d = dup_values(dt, 500, 17);
    Tensor x(make({500}, dt, d));
    Tensor t(ektest::sliced(x, 0, 0, 500, 3));
    Values ts = values_of(t);
    Tensor u, inv;
    EK_OK(ek_unique(nullptr, t, u.out(), inv.out(), nullptr));
    Values want = ts;
    std::sort(want.begin(), want.end());
    want.erase(std::unique(want.begin(), want.end()), want.end());
    EXPECT_EQ(values_of(u), want) << ek_dtype_name(dt);
    Values got = values_of(u), iv = values_of(inv);
    for (size_t i = 0; i < ts.size(); ++i) ASSERT_EQ(got[static_cast<size_t>(iv[i])], ts[i]);
  }
}

TEST_P(Sort, UniqueLarge) {
  const int64_t n = GetParam() == EK_CUDA ? 4000000 : 200000;
  Values v = ektest::random_values(static_cast<size_t>(n), 5, 0, 50000);
  for (double &x : v) x = std::floor(x);
  Tensor x(make({n}, EK_INT32, v));
  Tensor u, cnt;
  EK_OK(ek_unique(nullptr, x, u.out(), nullptr, cnt.out()));
  Values want = v;
  std::sort(want.begin(), want.end());
  want.erase(std::unique(want.begin(), want.end()), want.end());
  EXPECT_EQ(values_of(u), want);
  Values c = values_of(cnt);
  EXPECT_EQ(std::accumulate(c.begin(), c.end(), 0.0), static_cast<double>(n));
}

// ---------------------------------------------------------------- fast paths

// Millions of f32 with +-0.0 and NaNs of either sign and any payload among
// duplicates: indices in the stable order, values x's own bits (CUDA turns
// the other keys back into values and gathers only these).
TEST_P(Sort, LargeFloatsKeepTheirBits) {
  const int64_t n = GetParam() == EK_CUDA ? 2000003 : 100003;
  const uint32_t odd[] = {0x80000000u, 0x00000000u, 0x7fc00000u, 0xffc00000u, 0x7f800001u, 0xff812345u};
  std::vector<uint32_t> bits(static_cast<size_t>(n));
  Values xs(bits.size());
  uint32_t s = 12345;
  for (size_t i = 0; i < bits.size(); ++i) {
    s = s * 1664525u + 1013904223u;
    float f = static_cast<float>(static_cast<int>((s >> 8) % 2001) - 1000) / 8;
    std::memcpy(&bits[i], &f, 4);
    if (i % 7 == 0) bits[i] = odd[(s >> 4) % 6];
    std::memcpy(&f, &bits[i], 4);
    xs[i] = f;
  }
  Tensor x;
  EK_OK(ek_tensor_from_host(nullptr, ctx, 1, &n, EK_FLOAT32, bits.data(), x.out()));
  for (int desc = 0; desc < 2; ++desc) {
    Tensor values, indices;
    EK_OK(ek_sort(nullptr, x, 0, desc, 1, values.out(), indices.out()));
    auto idx = ektest::to_host<int64_t>(indices);
    ASSERT_EQ(idx, ref_order(xs, desc)) << (desc ? "descending" : "ascending");
    auto got = ektest::to_host<uint32_t>(values);
    for (size_t j = 0; j < got.size(); ++j) ASSERT_EQ(got[j], bits[static_cast<size_t>(idx[j])]) << "at " << j;
  }
}

// Integers are sorted as they are (no keys): descending ties keep their
// order in one row of millions, and values alone agree with values + indices.
TEST_P(Sort, LargeIntegersDescendingStable) {
  const int64_t n = GetParam() == EK_CUDA ? 1000000 : 50000;
  for (ek_dtype dt : {EK_INT64, EK_UINT32, EK_INT16, EK_UINT64, EK_INT8}) {
    Tensor x(make({n}, dt, dup_values(dt, static_cast<size_t>(n), 9)));
    Values xs = values_of(x);
    auto order = ref_order(xs, true);
    Tensor values, indices, alone;
    EK_OK(ek_sort(nullptr, x, 0, 1, 1, values.out(), indices.out()));
    EK_OK(ek_sort(nullptr, x, 0, 1, 1, alone.out(), nullptr));
    ASSERT_EQ(ektest::to_host<int64_t>(indices), order) << ek_dtype_name(dt);
    Values got = values_of(values), only = values_of(alone);
    for (int64_t j = 0; j < n; ++j) {
      ASSERT_EQ(got[j], xs[order[j]]) << ek_dtype_name(dt) << " at " << j;
      ASSERT_EQ(only[j], got[j]) << ek_dtype_name(dt) << " at " << j;
    }
  }
}

// Integers (negatives, extremes) without the inverse: values, and counts when
// asked, are selected from the sorted elements directly on CUDA.
TEST_P(Sort, UniqueIntegersWithoutInverse) {
  const int64_t n = GetParam() == EK_CUDA ? 1000000 : 50000;
  for (ek_dtype dt : ektest::kIntDtypes) {
    Values v = dup_values(dt, static_cast<size_t>(n), 13);
    if (dt == EK_INT64) v[5] = -9007199254740992.0;  // extremes sort as integers, not as keys
    if (dt == EK_UINT64) v[5] = 18446744073709551615.0 - 2047;
    Tensor x(make({n}, dt, v));
    Values xs = values_of(x);
    Values want = xs;
    std::sort(want.begin(), want.end());
    Values counts;
    for (size_t i = 0; i < want.size(); ++i)
      if (i == 0 || want[i] != want[i - 1]) counts.push_back(1);
      else counts.back() += 1;
    want.erase(std::unique(want.begin(), want.end()), want.end());
    Tensor u, u2, cnt;
    EK_OK(ek_unique(nullptr, x, u.out(), nullptr, nullptr));
    EXPECT_EQ(values_of(u), want) << ek_dtype_name(dt);
    EK_OK(ek_unique(nullptr, x, u2.out(), nullptr, cnt.out()));
    EXPECT_EQ(values_of(u2), want) << ek_dtype_name(dt);
    EXPECT_EQ(values_of(cnt), counts) << ek_dtype_name(dt);
  }
}

// ---------------------------------------------------------------- count_nonzero, diff

TEST_P(Sort, CountNonzero) {
  Tensor x(make({2, 3}, EK_FLOAT32, {0, -0.0, NAN, 1, 0, 2}));
  Tensor all, rows, kept;
  EK_OK(ek_count_nonzero(nullptr, x, 0, nullptr, 0, all.out()));
  EXPECT_EQ(values_of(all), (Values{3}));
  EXPECT_EQ(ektest::dtype_of(all), EK_INT64);
  int dim = -1;
  EK_OK(ek_count_nonzero(nullptr, x, 1, &dim, 0, rows.out()));
  EXPECT_EQ(values_of(rows), (Values{1, 2}));
  int d0 = 0;
  EK_OK(ek_count_nonzero(nullptr, x, 1, &d0, 1, kept.out()));
  EXPECT_EQ(shape_of(kept), (Shape{1, 3}));
  EXPECT_EQ(values_of(kept), (Values{1, 0, 2}));
}

TEST_P(Sort, Diff) {
  Tensor x(make({2, 4}, EK_INT32, {1, 4, 9, 16, 2, 2, 5, 1}));
  Tensor d1, d2, d5, d0;
  EK_OK(ek_diff(nullptr, x, 1, -1, nullptr, nullptr, d1.out()));
  EXPECT_EQ(values_of(d1), (Values{3, 5, 7, 0, 3, -4}));
  EK_OK(ek_diff(nullptr, x, 2, 1, nullptr, nullptr, d2.out()));
  EXPECT_EQ(values_of(d2), (Values{2, 2, 3, -7}));
  EK_OK(ek_diff(nullptr, x, 5, 1, nullptr, nullptr, d5.out()));
  EXPECT_EQ(shape_of(d5), (Shape{2, 0}));
  EK_OK(ek_diff(nullptr, x, 0, 0, nullptr, nullptr, d0.out()));
  EXPECT_EQ(values_of(d0), values_of(x));
  Tensor pre(make({2, 1}, EK_FLOAT32, {0, 10}));
  Tensor dp;
  EK_OK(ek_diff(nullptr, x, 1, 1, pre, pre, dp.out()));
  EXPECT_EQ(ektest::dtype_of(dp), EK_FLOAT32);
  EXPECT_EQ(values_of(dp), (Values{1, 3, 5, 7, -16, -8, 0, 3, -4, 9}));
  Tensor b(make({4}, EK_BOOL, {1, 1, 0, 1}));
  Tensor db;
  EK_OK(ek_diff(nullptr, b, 1, 0, nullptr, nullptr, db.out()));
  EXPECT_EQ(ektest::dtype_of(db), EK_BOOL);
  EXPECT_EQ(values_of(db), (Values{0, 1, 1}));
  Tensor t(ektest::transposed(x, 0, 1));  // [4, 2]
  Tensor dt;
  EK_OK(ek_diff(nullptr, t, 1, 0, nullptr, nullptr, dt.out()));
  EXPECT_EQ(values_of(dt), (Values{3, 0, 5, 3, 7, -4}));
}

// ---------------------------------------------------------------- bad input

TEST_P(Sort, BadArgumentsFailWithMessages) {
  Tensor x(make({2, 3}, EK_FLOAT32, {1, 2, 3, 4, 5, 6}));
  Tensor out;
  EK_FAILS(ek_sort(nullptr, x, 0, 0, 0, nullptr, nullptr), EK_ERROR_NULL_POINTER, "ek_sort: values and indices");
  EK_FAILS(ek_sort(nullptr, x, 2, 0, 0, out.out(), nullptr), EK_ERROR_INDEX, "dim 2 is out of range");
  EK_FAILS(ek_topk(nullptr, x, 4, 1, 1, 1, out.out(), nullptr), EK_ERROR_INDEX,
           "ek_topk: k 4 is out of range [0, 3] for dim 1 of size 3");
  EK_FAILS(ek_topk(nullptr, x, -1, 1, 1, 1, out.out(), nullptr), EK_ERROR_INDEX, "k -1");
  Tensor seq(make({3, 2}, EK_FLOAT32, {1, 2, 3, 4, 5, 6}));
  EK_FAILS(ek_searchsorted(nullptr, seq, x, 0, EK_INT64, out.out()), EK_ERROR_SHAPE,
           "ek_searchsorted: sorted_sequence [3,2] and values [2,3] differ");
  EK_FAILS(ek_searchsorted(nullptr, x, x, 0, EK_FLOAT32, out.out()), EK_ERROR_DTYPE,
           "out_dtype must be int64 or int32");
  EK_FAILS(ek_unique(nullptr, x, nullptr, nullptr, nullptr), EK_ERROR_NULL_POINTER, "ek_unique: values");
  int bad = 5;
  EK_FAILS(ek_count_nonzero(nullptr, x, 1, &bad, 0, out.out()), EK_ERROR_INDEX, "ek_count_nonzero: dim 5");
  EK_FAILS(ek_diff(nullptr, x, -1, 0, nullptr, nullptr, out.out()), EK_ERROR_INVALID_ARGUMENT,
           "ek_diff: n must be >= 0");
  Tensor pre(make({3, 3}, EK_FLOAT32, Values(9, 0)));
  EK_FAILS(ek_diff(nullptr, x, 1, 1, pre, nullptr, out.out()), EK_ERROR_SHAPE,
           "ek_diff: prepend [3,3] must match x [2,3] outside dim 1");
  Tensor small;
  Shape s = {2, 2};
  EK_OK(ek_tensor_empty(nullptr, ctx, 2, s.data(), EK_FLOAT32, small.out()));
  ek_tensor given = small.t;
  EK_FAILS(ek_sort(nullptr, x, 1, 0, 0, &given, nullptr), EK_ERROR_SHAPE, "ek_sort");
  ek_tensor self = x.t;  // out overlapping x
  EK_FAILS(ek_sort(nullptr, x, 1, 0, 0, &self, nullptr), EK_ERROR_INVALID_ARGUMENT, "values overlaps");
  EXPECT_EQ(values_of(x), (Values{1, 2, 3, 4, 5, 6}));
}

EK_INSTANTIATE_DEVICES(Sort);
EK_INSTANTIATE_DEVICES(Topk);

}  // namespace
