// ek_copy (strides, broadcast, cast, across devices), contiguous, cast, reshape,
// fill and arange. CUDA against the CPU backend: test_conformance.cpp.
#include <cmath>
#include <numeric>

#include "ek_test.hpp"

using ektest::Tensor;
using ektest::to_host;

namespace {

class Copy : public ektest::DeviceTest {
 protected:
  // A tensor of shape holding 1, 2, 3, ... (never zeros: unwritten output shows).
  ek_tensor iota(std::vector<int64_t> shape, ek_dtype dtype = EK_FLOAT32, ek_context c = nullptr) {
    int64_t n = 1;
    for (int64_t s : shape) n *= s;
    ek_tensor flat = nullptr, out = nullptr;
    EXPECT_EQ(ek_arange(nullptr, c ? c : ctx, ek_scalar_int(1), ek_scalar_int(n + 1),
                        ek_scalar_int(1), dtype, &flat),
              EK_SUCCESS)
        << ek_last_error();
    EXPECT_EQ(ek_view_reshape(flat, static_cast<int>(shape.size()), shape.data(), &out),
              EK_SUCCESS) << ek_last_error();
    ek_tensor_release(flat);
    return out;
  }
  ek_tensor empty(std::vector<int64_t> shape, ek_dtype dtype = EK_FLOAT32) {
    ek_tensor t = nullptr;
    EXPECT_EQ(
        ek_tensor_empty(nullptr, ctx, static_cast<int>(shape.size()), shape.data(), dtype, &t),
        EK_SUCCESS)
        << ek_last_error();
    EXPECT_EQ(ek_fill(nullptr, ektest::scalar(99), t), EK_SUCCESS);  // poison
    return t;
  }
};
EK_INSTANTIATE_DEVICES(Copy);

TEST_P(Copy, TransposedViewBecomesContiguousInCOrder) {
  Tensor a(iota({3, 5})), at, packed;
  EK_OK(ek_view_transpose(a, 0, 1, at.out()));
  EK_OK(ek_contiguous(nullptr, at, packed.out()));
  ek_tensor_info info = EK_TENSOR_INFO_INIT;
  EK_OK(ek_tensor_get_info(packed, &info));
  EXPECT_TRUE(info.is_contiguous);
  auto v = to_host<float>(packed);
  for (int r = 0; r < 5; ++r)
    for (int c = 0; c < 3; ++c) EXPECT_EQ(v[r * 3 + c], 1 + c * 5 + r);
}

TEST_P(Copy, ContiguousOfContiguousIsANewReference) {
  Tensor a(iota({4})), b;
  EK_OK(ek_contiguous(nullptr, a, b.out()));
  EXPECT_EQ(a.t, b.t);
}

TEST_P(Copy, BroadcastsRowAcrossRows) {
  Tensor row(iota({4})), dst(empty({3, 4}));
  EK_OK(ek_copy(nullptr, row, dst));
  auto v = to_host<float>(dst);
  for (int i = 0; i < 12; ++i) EXPECT_EQ(v[i], 1 + i % 4);
}

TEST_P(Copy, BroadcastsColumnAndScalar) {
  Tensor col(iota({3, 1})), dst(empty({3, 4})), scalar, dst2(empty({2, 2}));
  EK_OK(ek_copy(nullptr, col, dst));
  auto v = to_host<float>(dst);
  for (int i = 0; i < 12; ++i) EXPECT_EQ(v[i], 1 + i / 4);
  float five = 5;
  EK_OK(ek_tensor_from_host(nullptr, ctx, 0, nullptr, EK_FLOAT32, &five, scalar.out()));
  EK_OK(ek_copy(nullptr, scalar, dst2));
  for (float x : to_host<float>(dst2)) EXPECT_EQ(x, 5);
}

TEST_P(Copy, IntoStridedSliceLeavesTheRestAlone) {
  Tensor dst(empty({4, 6})), every_other, src(iota({4, 3}));
  EK_OK(ek_view_slice(dst, 1, 1, EK_SLICE_MAX, 2, every_other.out()));
  EK_OK(ek_copy(nullptr, src, every_other));
  auto v = to_host<float>(dst);
  for (int r = 0; r < 4; ++r)
    for (int c = 0; c < 6; ++c)
      EXPECT_EQ(v[r * 6 + c], c % 2 ? 1 + r * 3 + c / 2 : 99) << r << "," << c;
}

TEST_P(Copy, ReversedViewCopies) {
  Tensor a(iota({6})), rev, out;
  EK_OK(ek_view_slice(a, 0, EK_SLICE_MAX, EK_SLICE_MIN, -1, rev.out()));
  EK_OK(ek_contiguous(nullptr, rev, out.out()));
  auto v = to_host<float>(out);
  for (int i = 0; i < 6; ++i) EXPECT_EQ(v[i], 6 - i);
}

TEST_P(Copy, CastsLikePyTorch) {
  float src[6] = {-2.7f, -0.5f, 0.0f, 0.5f, 2.7f, 300.0f};
  int64_t n = 6;
  Tensor a, as_int, as_bool, as_half, back;
  EK_OK(ek_tensor_from_host(nullptr, ctx, 1, &n, EK_FLOAT32, src, a.out()));
  EK_OK(ek_cast(nullptr, a, EK_INT32, as_int.out()));
  EXPECT_EQ(to_host<int32_t>(as_int), (std::vector<int32_t>{-2, 0, 0, 0, 2, 300}));
  EK_OK(ek_cast(nullptr, a, EK_BOOL, as_bool.out()));
  EXPECT_EQ(to_host<uint8_t>(as_bool), (std::vector<uint8_t>{1, 1, 0, 1, 1, 1}));
  EK_OK(ek_cast(nullptr, a, EK_FLOAT16, as_half.out()));
  EK_OK(ek_cast(nullptr, as_half, EK_FLOAT64, back.out()));
  auto v = to_host<double>(back);
  for (int i = 0; i < 6; ++i) EXPECT_NEAR(v[i], src[i], std::fabs(src[i]) * 1e-3);
}

TEST_P(Copy, CastIntoGivenOutChecksShapeAndDtype) {
  Tensor a(iota({2, 3})), good(empty({2, 3}, EK_FLOAT64)), bad_shape(empty({3, 2}, EK_FLOAT64));
  ek_tensor out = good;
  EK_OK(ek_cast(nullptr, a, EK_FLOAT64, &out));
  EXPECT_EQ(out, good.t);
  EXPECT_EQ(to_host<double>(good), (std::vector<double>{1, 2, 3, 4, 5, 6}));
  out = bad_shape;
  EK_FAILS(ek_cast(nullptr, a, EK_FLOAT64, &out), EK_ERROR_SHAPE,
           "ek_cast: out has shape [3,2]; expected [2,3]");
  out = good;
  EK_FAILS(ek_cast(nullptr, a, EK_INT8, &out), EK_ERROR_DTYPE, "out has dtype float64");
  EK_FAILS(ek_cast(nullptr, a, static_cast<ek_dtype>(42), &out), EK_ERROR_DTYPE,
           "unknown dtype 42");
}

TEST_P(Copy, ReshapeCopiesWhenNoViewExists) {
  Tensor a(iota({2, 3})), at, flat;
  EK_OK(ek_view_transpose(a, 0, 1, at.out()));
  int64_t shape[1] = {-1};
  ek_tensor view = nullptr;
  EK_FAILS(ek_view_reshape(at, 1, shape, &view), EK_ERROR_SHAPE, "use ek_reshape");
  EK_OK(ek_reshape(nullptr, at, 1, shape, flat.out()));
  EXPECT_EQ(to_host<float>(flat), (std::vector<float>{1, 4, 2, 5, 3, 6}));
}

TEST_P(Copy, OverlappingCopyBehavesAsIfThroughATemporary) {
  Tensor a(iota({8})), head, tail;
  EK_OK(ek_view_slice(a, 0, 0, 7, 1, head.out()));
  EK_OK(ek_view_slice(a, 0, 1, 8, 1, tail.out()));
  EK_OK(ek_copy(nullptr, head, tail));  // a[1:] = a[:-1]
  EXPECT_EQ(to_host<float>(a), (std::vector<float>{1, 1, 2, 3, 4, 5, 6, 7}));
}

TEST_P(Copy, FillEveryDtypeIncludingExactInt64) {
  for (int d = 0; d < EK_COMPLEX64; ++d) {  // the real dtypes (complex: test_complex.cpp)
    Tensor t(empty({5}, static_cast<ek_dtype>(d))), as64;
    EK_OK(ek_fill(nullptr, ektest::scalar(3), t));
    EK_OK(ek_cast(nullptr, t, EK_FLOAT64, as64.out()));
    for (double x : to_host<double>(as64)) EXPECT_EQ(x, d == EK_BOOL ? 1 : 3) << ek_dtype_name(static_cast<ek_dtype>(d));
  }
  Tensor big(empty({2}, EK_INT64));
  const int64_t huge = (int64_t{1} << 62) + 1;  // not representable as a double
  EK_OK(ek_fill(nullptr, ektest::scalar(huge), big));
  EXPECT_EQ(to_host<int64_t>(big), (std::vector<int64_t>{huge, huge}));
  EK_FAILS(ek_fill(nullptr, ektest::scalar(NAN), big), EK_ERROR_INVALID_ARGUMENT,
           "does not fit the integer dtype");
}

// ek_scalar's rule: exact where the value fits, an error naming it where it
// does not fit an integer dtype (and the tensor untouched).
TEST_P(Copy, FillOfAValueThatDoesNotFitIsAnError) {
  using ektest::scalar;
  Tensor i8(empty({2}, EK_INT8)), u8(empty({2}, EK_UINT8)), i64(empty({2}, EK_INT64));
  EK_FAILS(ek_fill(nullptr, scalar(300), i8), EK_ERROR_INVALID_ARGUMENT,
           "ek_fill: value 300 does not fit the integer dtype int8 (range -128..127)");
  EK_FAILS(ek_fill(nullptr, scalar(128.0), i8), EK_ERROR_INVALID_ARGUMENT,
           "value 128 does not fit");
  EK_FAILS(ek_fill(nullptr, scalar(-INFINITY), i8), EK_ERROR_INVALID_ARGUMENT, "value -inf");
  EK_FAILS(ek_fill(nullptr, scalar(-1), u8), EK_ERROR_INVALID_ARGUMENT, "uint8");
  EK_FAILS(ek_fill(nullptr, scalar(9.25e18), i64), EK_ERROR_INVALID_ARGUMENT, "int64");
  EK_FAILS(ek_fill(nullptr, scalar(0x1p63), i64), EK_ERROR_INVALID_ARGUMENT, "int64");
  EK_FAILS(ek_fill(nullptr, scalar(uint64_t{1} << 63), i64), EK_ERROR_INVALID_ARGUMENT,
           "value 9223372036854775808 does not fit");
  EXPECT_EQ(to_host<int8_t>(i8), (std::vector<int8_t>{99, 99}));  // untouched
  EXPECT_EQ(to_host<int64_t>(i64), (std::vector<int64_t>{99, 99}));
  // Bounds that fit, exactly; floats truncate toward zero.
  EK_OK(ek_fill(nullptr, scalar(-128.9), i8));
  EXPECT_EQ(to_host<int8_t>(i8), (std::vector<int8_t>{-128, -128}));
  EK_OK(ek_fill(nullptr, scalar(-0.9), u8));
  EXPECT_EQ(to_host<uint8_t>(u8), (std::vector<uint8_t>{0, 0}));
  EK_OK(ek_fill(nullptr, scalar(uint64_t{255}), u8));
  EXPECT_EQ(to_host<uint8_t>(u8), (std::vector<uint8_t>{255, 255}));
  EK_OK(ek_fill(nullptr, scalar(-0x1p63), i64));
  EXPECT_EQ(to_host<int64_t>(i64), (std::vector<int64_t>{INT64_MIN, INT64_MIN}));
  EK_OK(ek_fill(nullptr, scalar(std::nextafter(0x1p63, 0.0)), i64));
  EXPECT_EQ(to_host<int64_t>(i64)[0], INT64_MAX - 1023);
  EK_OK(ek_fill(nullptr, scalar(INT64_MAX), i64));
  EXPECT_EQ(to_host<int64_t>(i64)[1], INT64_MAX);
  // bool takes value != 0 (NaN included); floats round, overflow to inf.
  Tensor b(empty({1}, EK_BOOL)), h(empty({1}, EK_FLOAT16)), f(empty({1}, EK_FLOAT32));
  EK_OK(ek_fill(nullptr, scalar(0.0), b));
  EXPECT_EQ(to_host<uint8_t>(b)[0], 0);
  EK_OK(ek_fill(nullptr, scalar(NAN), b));
  EXPECT_EQ(to_host<uint8_t>(b)[0], 1);
  EK_OK(ek_fill(nullptr, scalar(uint64_t{1} << 63), b));
  EXPECT_EQ(to_host<uint8_t>(b)[0], 1);
  EK_OK(ek_fill(nullptr, scalar(1e10), h));
  EXPECT_EQ(to_host<uint16_t>(h)[0], 0x7c00);
  EK_OK(ek_fill(nullptr, scalar(UINT64_MAX), f));
  EXPECT_EQ(to_host<float>(f)[0], 0x1p64f);
  // Malformed scalars.
  ek_scalar odd = scalar(true);
  odd.i = 2;
  EK_FAILS(ek_fill(nullptr, odd, b), EK_ERROR_INVALID_ARGUMENT, "bool ek_scalar holds 2");
  odd = scalar(1);
  odd.kind = static_cast<ek_scalar_kind>(9);
  EK_FAILS(ek_fill(nullptr, odd, b), EK_ERROR_INVALID_ARGUMENT, "unknown ek_scalar kind 9");
  odd = scalar(1);
  odd.reserved_ = 1;
  EK_FAILS(ek_fill(nullptr, odd, b), EK_ERROR_INVALID_ARGUMENT, "reserved_");
}

// ek.h "Casts": float -> integer truncates toward zero and saturates, NaN -> 0,
// for every integer dtype, from float64 and float32 (CUDA: the generic cast
// kernel and the typed f32 -> i32/i64 one).
int64_t saturated(double x, int64_t lo, int64_t hi) {
  if (std::isnan(x)) return 0;
  const long double t = std::trunc(static_cast<long double>(x));
  return t <= lo ? lo : (t >= hi ? hi : static_cast<int64_t>(t));
}

TEST_P(Copy, FloatToIntCastsSaturateForEveryIntegerDtype) {
  const std::vector<double> xs = {NAN, INFINITY, -INFINITY, 3e9, -3e9, 1e300, -1e300, 0x1p63, -0x1p63,
                                  0x1p64, 127.9, 128.0, -128.9, -129.0, 255.5, 256.0, -0.9, -1.0,
                                  32767.5, -32769.0, 2147483647.5, -2147483649.0, 2.9, -2.9};
  const int64_t n = static_cast<int64_t>(xs.size());
  struct Target { ek_dtype dt; int64_t lo, hi; } targets[] = {
      {EK_UINT8, 0, 255}, {EK_INT8, -128, 127}, {EK_INT16, -32768, 32767},
      {EK_INT32, INT32_MIN, INT32_MAX}, {EK_INT64, INT64_MIN, INT64_MAX}};
  for (ek_dtype src_dt : {EK_FLOAT64, EK_FLOAT32}) {
    Tensor f64, src;
    EK_OK(ek_tensor_from_host(nullptr, ctx, 1, &n, EK_FLOAT64, xs.data(), f64.out()));
    EK_OK(ek_cast(nullptr, f64, src_dt, src.out()));  // float32: out-of-range doubles become +-inf
    std::vector<double> vals = to_host<double>(f64);
    if (src_dt == EK_FLOAT32) {
      Tensor back;
      EK_OK(ek_cast(nullptr, src, EK_FLOAT64, back.out()));
      vals = to_host<double>(back);
    }
    for (const Target &t : targets) {
      Tensor as_int, as64;
      EK_OK(ek_cast(nullptr, src, t.dt, as_int.out()));
      EK_OK(ek_cast(nullptr, as_int, EK_INT64, as64.out()));
      std::vector<int64_t> got = to_host<int64_t>(as64);
      for (int64_t i = 0; i < n; ++i)
        EXPECT_EQ(got[i], saturated(vals[i], t.lo, t.hi))
            << ek_dtype_name(src_dt) << " " << vals[i] << " -> " << ek_dtype_name(t.dt);
    }
  }
}

TEST_P(Copy, IntegerArangeRejectsValuesOutsideItsDtype) {
  ek_tensor bad = nullptr;
  EK_FAILS(ek_arange(nullptr, ctx, ek_scalar_float(1e300), ek_scalar_float(2e300),
                     ek_scalar_float(1e299), EK_INT64, &bad),
           EK_ERROR_INVALID_ARGUMENT, "do not fit int64");
  EK_FAILS(ek_arange(nullptr, ctx, ek_scalar_int(0), ek_scalar_float(1.2e19), ek_scalar_float(5e18),
                     EK_INT64, &bad),
           EK_ERROR_INVALID_ARGUMENT,
           "do not fit int64");  // the third element, 1e19, is past INT64_MAX
  EK_FAILS(ek_arange(nullptr, ctx, ek_scalar_int(0), ek_scalar_int(300), ek_scalar_int(1), EK_INT8,
                     &bad),
           EK_ERROR_INVALID_ARGUMENT, "int8");
  EK_FAILS(ek_arange(nullptr, ctx, ek_scalar_int(-1), ek_scalar_int(3), ek_scalar_int(1), EK_UINT8,
                     &bad),
           EK_ERROR_INVALID_ARGUMENT, "uint8");
  EXPECT_EQ(bad, nullptr);
  Tensor edge, top;
  EK_OK(ek_arange(nullptr, ctx, ek_scalar_float(-0x1p63), ek_scalar_float(-0x1p63 + 4096),
                  ek_scalar_int(2048), EK_INT64, edge.out()));
  EXPECT_EQ(to_host<int64_t>(edge), (std::vector<int64_t>{INT64_MIN, INT64_MIN + 2048}));
  EK_OK(ek_arange(nullptr, ctx, ek_scalar_int(0), ek_scalar_int(256), ek_scalar_int(85), EK_UINT8,
                  top.out()));
  EXPECT_EQ(to_host<uint8_t>(top), (std::vector<uint8_t>{0, 85, 170, 255}));
}

TEST_P(Copy, ArangeFollowsNumPy) {
  Tensor a, b, c, e;
  EK_OK(ek_arange(nullptr, ctx, ek_scalar_int(0), ek_scalar_int(1), ek_scalar_float(0.25),
                  EK_FLOAT64, a.out()));
  EXPECT_EQ(to_host<double>(a), (std::vector<double>{0, 0.25, 0.5, 0.75}));
  EK_OK(ek_arange(nullptr, ctx, ek_scalar_int(10), ek_scalar_int(0), ek_scalar_int(-3), EK_INT64,
                  b.out()));
  EXPECT_EQ(to_host<int64_t>(b), (std::vector<int64_t>{10, 7, 4, 1}));
  EK_OK(ek_arange(nullptr, ctx, ek_scalar_int(5), ek_scalar_int(5), ek_scalar_int(1), EK_INT32,
                  e.out()));
  EXPECT_TRUE(to_host<int32_t>(e).empty());
  ek_tensor bad = nullptr;
  EK_FAILS(ek_arange(nullptr, ctx, ek_scalar_int(0), ek_scalar_int(1), ek_scalar_int(0), EK_FLOAT32,
                     &bad),
           EK_ERROR_INVALID_ARGUMENT, "step nonzero");
  EK_FAILS(ek_arange(nullptr, ctx, ek_scalar_float(0.5), ek_scalar_int(3), ek_scalar_int(1),
                     EK_INT32, &bad),
           EK_ERROR_INVALID_ARGUMENT, "needs integral start and step");
  EK_FAILS(
      ek_arange(nullptr, ctx, ek_scalar_int(0), ek_scalar_int(3), ek_scalar_int(1), EK_BOOL, &bad),
      EK_ERROR_DTYPE, "numeric dtype");
  EK_FAILS(ek_arange(nullptr, ctx, ek_scalar_int(0), ek_scalar_float(1e300),
                     ek_scalar_float(1e-300), EK_FLOAT64, &bad),
           EK_ERROR_OVERFLOW, "too many elements");
  EXPECT_EQ(bad, nullptr);
}

TEST_P(Copy, CrossesBetweenHostAndDeviceContexts) {
  ek_context cpu = cpu_context();
  {
    Tensor host(iota({4, 6}, EK_FLOAT32, cpu)), host_t, dev(empty({6, 4}, EK_FLOAT64)), back;
    EK_OK(ek_view_transpose(host, 0, 1, host_t.out()));
    EK_OK(ek_copy(nullptr, host_t, dev));  // strided, cast, across contexts
    int64_t shape[2] = {6, 4};
    EK_OK(ek_tensor_empty(nullptr, cpu, 2, shape, EK_INT32, back.out()));
    EK_OK(ek_copy(nullptr, dev, back));
    auto v = to_host<int32_t>(back);
    for (int r = 0; r < 6; ++r)
      for (int c = 0; c < 4; ++c) EXPECT_EQ(v[r * 4 + c], 1 + c * 6 + r);
  }
  EK_OK(ek_context_destroy(cpu));
}

TEST_P(Copy, RejectsBadArguments) {
  Tensor a(iota({2, 3})), b(empty({3, 2})), row(iota({3})), expanded;
  EK_FAILS(ek_copy(nullptr, a, nullptr), EK_ERROR_NULL_POINTER, "ek_copy: dst is NULL");
  EK_FAILS(ek_copy(nullptr, nullptr, b), EK_ERROR_NULL_POINTER, "ek_copy: src is NULL");
  EK_FAILS(ek_copy(nullptr, a, b), EK_ERROR_SHAPE, "cannot broadcast shape [2,3] to [3,2]");
  int64_t shape[2] = {4, 3};
  EK_OK(ek_view_expand(row, 2, shape, expanded.out()));
  EK_FAILS(ek_copy(nullptr, a, expanded), EK_ERROR_INVALID_ARGUMENT, "broadcast view");
  EK_FAILS(ek_contiguous(nullptr, a, nullptr), EK_ERROR_NULL_POINTER, "out is NULL");
  EK_FAILS(ek_fill(nullptr, ektest::scalar(1), nullptr), EK_ERROR_NULL_POINTER,
           "ek_fill: t is NULL");
  ek_context other = cpu_context();
  ek_stream foreign = nullptr;
  EK_OK(ek_stream_create(other, &foreign));
  EK_FAILS(ek_fill(foreign, ektest::scalar(1), a), EK_ERROR_INVALID_ARGUMENT, "another context");
  EK_OK(ek_stream_destroy(foreign));
  EK_OK(ek_context_destroy(other));
}

}  // namespace
