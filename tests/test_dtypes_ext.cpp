// The dtypes of issue 18: uint16, uint32 and uint64. Names and sizes, NumPy's
// promotion of unsigned with signed, the cast rule at the edges of uint64,
// and ops whose uint64 results depend on the unsigned order (compare,
// maximum, floor_divide, remainder, shifts, max/argmax) checked against host
// uint64 arithmetic over values above 2^63, on contiguous, transposed and
// empty inputs; fill and randint ranges; a bad fill value fails with a message.
#include <cstdint>
#include <vector>

#include "ek_test.hpp"

using ektest::dtype_of;
using ektest::Shape;
using ektest::Tensor;
using ektest::to_host;
using ektest::upload;
using ektest::Values;
using ektest::values_of;

namespace {

using U64s = std::vector<uint64_t>;
constexpr uint64_t kTop = uint64_t(1) << 63;

// Values on both sides of 2^63, where signed and unsigned order differ.
const U64s kBig = {0, 1, 7, kTop - 1, kTop, kTop + 5, UINT64_MAX, UINT64_MAX - 3, 12345, 3};
const U64s kOther = {3, 0, 7, kTop, kTop - 1, 2, 5, UINT64_MAX, 64, 70};

class DtypesExt : public ektest::DeviceTest {
 protected:
  ek_tensor u64(const U64s &v, Shape shape = {}) {
    if (shape.empty()) shape = {static_cast<int64_t>(v.size())};
    return upload(ctx, shape, EK_UINT64, v.data());
  }
  ek_dtype binary_dtype(ek_dtype a, ek_dtype b) {
    const int64_t one = 1;
    Tensor ta, tb, out;
    EXPECT_EQ(ek_tensor_empty(nullptr, ctx, 1, &one, a, ta.out()), EK_SUCCESS);
    EXPECT_EQ(ek_tensor_empty(nullptr, ctx, 1, &one, b, tb.out()), EK_SUCCESS);
    EXPECT_EQ(ek_fill(nullptr, ek_scalar_int(1), ta), EK_SUCCESS);
    EXPECT_EQ(ek_fill(nullptr, ek_scalar_int(1), tb), EK_SUCCESS);
    EXPECT_EQ(ek_binary(nullptr, EK_BINARY_ADD, ta, tb, out.out()), EK_SUCCESS) << ek_last_error();
    return dtype_of(out);
  }
  // op over kBig and kOther, compared element by element with want(a, b).
  template <typename F>
  void check_binary(ek_binary_op op, F want) {
    Tensor a(u64(kBig)), b(u64(kOther)), out, wide;
    EK_OK(ek_binary(nullptr, op, a, b, out.out()));
    EK_OK(ek_cast(nullptr, out, EK_UINT64, wide.out()));  // comparisons give bool
    const U64s got = to_host<uint64_t>(wide);
    for (size_t i = 0; i < kBig.size(); ++i)
      EXPECT_EQ(got[i], want(kBig[i], kOther[i])) << "op " << int(op) << " at " << i;
  }
};

TEST_P(DtypesExt, NamesSizesAndPromotion) {
  EXPECT_STREQ(ek_dtype_name(EK_UINT16), "uint16");
  EXPECT_STREQ(ek_dtype_name(EK_UINT32), "uint32");
  EXPECT_STREQ(ek_dtype_name(EK_UINT64), "uint64");
  EXPECT_EQ(ek_dtype_size(EK_UINT16), 2u);
  EXPECT_EQ(ek_dtype_size(EK_UINT32), 4u);
  EXPECT_EQ(ek_dtype_size(EK_UINT64), 8u);
  EXPECT_EQ(binary_dtype(EK_UINT16, EK_INT16), EK_INT32);
  EXPECT_EQ(binary_dtype(EK_UINT32, EK_INT32), EK_INT64);
  EXPECT_EQ(binary_dtype(EK_UINT16, EK_INT8), EK_INT32);
  EXPECT_EQ(binary_dtype(EK_UINT16, EK_INT64), EK_INT64);
  EXPECT_EQ(binary_dtype(EK_UINT64, EK_INT64), EK_FLOAT64);
  EXPECT_EQ(binary_dtype(EK_INT8, EK_UINT64), EK_FLOAT64);
  EXPECT_EQ(binary_dtype(EK_UINT8, EK_UINT64), EK_UINT64);
  EXPECT_EQ(binary_dtype(EK_UINT32, EK_UINT16), EK_UINT32);
  EXPECT_EQ(binary_dtype(EK_BOOL, EK_UINT16), EK_UINT16);
  EXPECT_EQ(binary_dtype(EK_UINT64, EK_FLOAT16), EK_FLOAT16);
}

TEST_P(DtypesExt, CastsAtTheEdges) {
  const Values f = {-1.0, 0.0, 1.5, 4294967295.0, 1.8e19, 1e20, std::nan("")};
  Tensor src(ektest::upload(ctx, {7}, EK_FLOAT64, f.data())), as_u64, as_u32, back;
  EK_OK(ek_cast(nullptr, src, EK_UINT64, as_u64.out()));
  EXPECT_EQ(to_host<uint64_t>(as_u64), (U64s{0, 0, 1, 4294967295u, 18000000000000000000u, UINT64_MAX, 0}));
  EK_OK(ek_cast(nullptr, src, EK_UINT32, as_u32.out()));
  EXPECT_EQ(to_host<uint32_t>(as_u32), (std::vector<uint32_t>{0, 0, 1, UINT32_MAX, UINT32_MAX, UINT32_MAX, 0}));
  Tensor big(u64({UINT64_MAX, kTop, 5})), i64, f64;
  EK_OK(ek_cast(nullptr, big, EK_FLOAT64, f64.out()));
  EXPECT_EQ(to_host<double>(f64), (Values{18446744073709551615.0, 9223372036854775808.0, 5.0}));
  EK_OK(ek_cast(nullptr, big, EK_INT64, i64.out()));  // wraps, as C
  EXPECT_EQ(to_host<int64_t>(i64), (std::vector<int64_t>{-1, INT64_MIN, 5}));
  EK_OK(ek_cast(nullptr, i64, EK_UINT16, back.out()));
  EXPECT_EQ(to_host<uint16_t>(back), (std::vector<uint16_t>{UINT16_MAX, 0, 5}));
}

TEST_P(DtypesExt, Uint64OrderDependentOps) {
  check_binary(EK_BINARY_ADD, [](uint64_t a, uint64_t b) { return a + b; });
  check_binary(EK_BINARY_SUB, [](uint64_t a, uint64_t b) { return a - b; });
  check_binary(EK_BINARY_LT, [](uint64_t a, uint64_t b) { return uint64_t(a < b); });
  check_binary(EK_BINARY_GE, [](uint64_t a, uint64_t b) { return uint64_t(a >= b); });
  check_binary(EK_BINARY_MAXIMUM, [](uint64_t a, uint64_t b) { return a > b ? a : b; });
  check_binary(EK_BINARY_MINIMUM, [](uint64_t a, uint64_t b) { return a < b ? a : b; });
  check_binary(EK_BINARY_FLOOR_DIV, [](uint64_t a, uint64_t b) { return b ? a / b : 0; });
  check_binary(EK_BINARY_REMAINDER, [](uint64_t a, uint64_t b) { return b ? a % b : 0; });
  check_binary(EK_BINARY_BITWISE_XOR, [](uint64_t a, uint64_t b) { return a ^ b; });
  check_binary(EK_BINARY_SHIFT_RIGHT, [](uint64_t a, uint64_t b) { return b >= 64 ? 0 : a >> b; });
  check_binary(EK_BINARY_SHIFT_LEFT, [](uint64_t a, uint64_t b) { return b >= 64 ? 0 : a << b; });
}

TEST_P(DtypesExt, Uint64UnaryAndScalar) {
  Tensor a(u64(kBig)), abs, sign, gt;
  EK_OK(ek_unary(nullptr, EK_UNARY_ABS, a, abs.out()));
  EXPECT_EQ(to_host<uint64_t>(abs), kBig);
  EK_OK(ek_unary(nullptr, EK_UNARY_SIGN, a, sign.out()));
  const U64s s = to_host<uint64_t>(sign);
  for (size_t i = 0; i < kBig.size(); ++i) EXPECT_EQ(s[i], kBig[i] != 0) << i;
  // A uint64 scalar above INT64_MAX with a uint64 tensor is exact.
  EK_OK(ek_binary_scalar(nullptr, EK_BINARY_GT, a, ek_scalar_uint(kTop + 1), 0, gt.out()));
  EXPECT_EQ(dtype_of(gt), EK_BOOL);
  const std::vector<uint8_t> g = to_host<uint8_t>(gt);
  for (size_t i = 0; i < kBig.size(); ++i) EXPECT_EQ(g[i], kBig[i] > kTop + 1) << i;
}

TEST_P(DtypesExt, ClampOrdersUint64AsUnsigned) {
  Tensor a(u64(kBig)), both, low, in_place(u64(kBig));
  const ek_scalar lo = ek_scalar_uint(kTop), hi = ek_scalar_float(1.8e19), neg = ek_scalar_int(-5);
  EK_OK(ek_clamp(nullptr, a, &lo, &hi, both.out()));
  EK_OK(ek_clamp(nullptr, a, &neg, nullptr, low.out()));
  ek_tensor same = in_place;
  EK_OK(ek_clamp(nullptr, in_place, &lo, nullptr, &same));
  const U64s b = to_host<uint64_t>(both), l = to_host<uint64_t>(low), p = to_host<uint64_t>(in_place);
  for (size_t i = 0; i < kBig.size(); ++i) {
    const uint64_t v = kBig[i], top = 18000000000000000000u;
    EXPECT_EQ(b[i], v < kTop ? kTop : (v > top ? top : v)) << i;
    EXPECT_EQ(l[i], v) << i;
    EXPECT_EQ(p[i], v < kTop ? kTop : v) << i;
  }
}

TEST_P(DtypesExt, NonContiguousAndEmpty) {
  // [2, 5] transposed to [5, 2]: maximum against its own reversal in order.
  Tensor base(u64(kBig, {2, 5})), t(ektest::transposed(base, 0, 1)), out;
  EK_OK(ek_binary_scalar(nullptr, EK_BINARY_MAXIMUM, t, ek_scalar_uint(kTop), 0, out.out()));
  const U64s got = to_host<uint64_t>(out);
  for (int64_t i = 0; i < 5; ++i)
    for (int64_t j = 0; j < 2; ++j) {
      const uint64_t v = kBig[size_t(j * 5 + i)];
      EXPECT_EQ(got[size_t(i * 2 + j)], v > kTop ? v : kTop);
    }
  const int64_t zero = 0;
  Tensor e, r, sum;
  EK_OK(ek_tensor_empty(nullptr, ctx, 1, &zero, EK_UINT32, e.out()));
  EK_OK(ek_binary(nullptr, EK_BINARY_BITWISE_AND, e, e, r.out()));
  EXPECT_EQ(dtype_of(r), EK_UINT32);
  EXPECT_EQ(ektest::info_of(r).numel, 0);
  EK_OK(ek_reduce(nullptr, EK_REDUCE_SUM, e, 0, nullptr, 0, sum.out()));
  EXPECT_EQ(dtype_of(sum), EK_INT64);
  EXPECT_EQ(values_of(sum), (Values{0}));
}

TEST_P(DtypesExt, Reductions) {
  Tensor a(u64(kBig, {2, 5})), mx, mn, am, sum, prod, cs;
  EK_OK(ek_reduce(nullptr, EK_REDUCE_MAX, a, 0, nullptr, 0, mx.out()));
  EXPECT_EQ(to_host<uint64_t>(mx), (U64s{UINT64_MAX}));
  EK_OK(ek_reduce(nullptr, EK_REDUCE_MIN, a, 0, nullptr, 0, mn.out()));
  EXPECT_EQ(to_host<uint64_t>(mn), (U64s{0}));
  const int dim = 1;
  EK_OK(ek_reduce(nullptr, EK_REDUCE_ARGMAX, a, 1, &dim, 0, am.out()));
  EXPECT_EQ(to_host<int64_t>(am), (std::vector<int64_t>{4, 1}));  // 2^63 + 5 and UINT64_MAX
  EK_OK(ek_reduce(nullptr, EK_REDUCE_SUM, a, 1, &dim, 0, sum.out()));
  EXPECT_EQ(dtype_of(sum), EK_UINT64);
  U64s want = {0, 0};
  for (size_t i = 0; i < kBig.size(); ++i) want[i / 5] += kBig[i];
  EXPECT_EQ(to_host<uint64_t>(sum), want);
  EK_OK(ek_scan(nullptr, EK_SCAN_SUM, a, 1, cs.out()));
  EXPECT_EQ(dtype_of(cs), EK_UINT64);
  U64s run = kBig;
  for (size_t i = 1; i < run.size(); ++i)
    if (i % 5) run[i] += run[i - 1];
  EXPECT_EQ(to_host<uint64_t>(cs), run);
  Tensor small(make({4}, EK_UINT16, {65535, 65535, 2, 1})), s16;
  EK_OK(ek_reduce(nullptr, EK_REDUCE_SUM, small, 0, nullptr, 0, s16.out()));
  EXPECT_EQ(dtype_of(s16), EK_INT64);
  EXPECT_EQ(values_of(s16), (Values{131073}));
}

TEST_P(DtypesExt, FillAndRandint) {
  const int64_t n = 64;
  Tensor f, r, bad;
  EK_OK(ek_full(nullptr, ctx, 1, &n, EK_UINT64, ek_scalar_uint(UINT64_MAX), f.out()));
  for (uint64_t v : to_host<uint64_t>(f)) ASSERT_EQ(v, UINT64_MAX);
  EK_OK(ek_tensor_empty(nullptr, ctx, 1, &n, EK_UINT64, r.out()));
  EK_OK(ek_random(nullptr, EK_RANDOM_RANDINT, ek_scalar_uint(UINT64_MAX - 10), ek_scalar_uint(UINT64_MAX), nullptr, r));
  for (uint64_t v : to_host<uint64_t>(r)) EXPECT_TRUE(v >= UINT64_MAX - 10 && v < UINT64_MAX) << v;
  EK_FAILS(ek_full(nullptr, ctx, 1, &n, EK_UINT16, ek_scalar_int(70000), bad.out()), EK_ERROR_INVALID_ARGUMENT,
           "uint16");
  EXPECT_EQ(bad.t, nullptr);
}

EK_INSTANTIATE_DEVICES(DtypesExt);

}  // namespace
