// The API 1.0 conventions of ek.h, by device: struct_size (too small is
// refused with nothing written; a larger one keeps the caller's extra bytes;
// arrays use element 0's as the stride), ek_tensor_info's borrowed shape and
// strides, the (stream, ctx) pair of creators, ek_scalar's checks and exact
// 64-bit integers, variants as enum values, retain for modules and kernels.
#include <cstddef>
#include <cmath>
#include <cstring>
#include <vector>

#include "ek_test.hpp"

using namespace ektest;

namespace {

constexpr int64_t k2p53 = int64_t{1} << 53;
constexpr int64_t k2p62 = int64_t{1} << 62;
constexpr uint8_t kCanary = 0xa5;

class ApiShape : public DeviceTest {
 protected:
  ek_tensor ints(const std::vector<int64_t> &v) {
    return upload(ctx, Shape{static_cast<int64_t>(v.size())}, EK_INT64, v.data());
  }
};

// A caller's struct of `size` bytes (all kCanary) whose struct_size is size.
template <class T>
std::vector<uint8_t> canary_struct(size_t size) {
  std::vector<uint8_t> bytes(size, kCanary);
  std::memcpy(bytes.data(), &size, sizeof size);
  return bytes;
}

bool all_canary(const uint8_t *p, size_t n) {
  for (size_t i = 0; i < n; ++i)
    if (p[i] != kCanary) return false;
  return true;
}

// f(T *) fills a struct of T: with struct_size one byte short of T's size in
// API 1.0 (v1_0; fields appended later are past it), and 0, it fails naming
// the function and the size, writing nothing; with 32 bytes more than
// sizeof(T), the extra bytes are left alone and struct_size kept.
template <class T, class F>
void check_struct_size_rule(const char *function, F f, size_t v1_0 = sizeof(T)) {
  SCOPED_TRACE(function);
  for (size_t small : {v1_0 - 1, size_t{0}}) {
    std::vector<uint8_t> bytes = canary_struct<T>(sizeof(T) + 32);
    std::memcpy(bytes.data(), &small, sizeof small);
    EK_FAILS(f(reinterpret_cast<T *>(bytes.data())), EK_ERROR_INVALID_ARGUMENT, function);
    EXPECT_NE(std::string(ek_last_error()).find("struct_size is " + std::to_string(small)),
              std::string::npos) << ek_last_error();
    EXPECT_TRUE(all_canary(bytes.data() + sizeof small, bytes.size() - sizeof small))
        << "a refused call wrote into the struct";
  }
  const size_t big = sizeof(T) + 32;
  std::vector<uint8_t> bytes = canary_struct<T>(big);
  EK_OK(f(reinterpret_cast<T *>(bytes.data())));
  size_t kept = 0;
  std::memcpy(&kept, bytes.data(), sizeof kept);
  EXPECT_EQ(kept, big) << "struct_size was overwritten";
  EXPECT_TRUE(all_canary(bytes.data() + sizeof(T), 32)) << "written past sizeof(T)";
}

TEST_P(ApiShape, StructSizeRuleForEveryStructTheLibraryFills) {
  Tensor t(ints({1, 2, 3}));
  ek_device dev{GetParam(), 0};
  check_struct_size_rule<ek_device_info>("ek_device_get_info", [&](ek_device_info *p) {
    return ek_device_get_info(dev, p);
  });
  check_struct_size_rule<ek_context_config>("ek_context_get_config", [&](ek_context_config *p) {
    return ek_context_get_config(ctx, p);
  }, offsetof(ek_context_config, num_threads));
  check_struct_size_rule<ek_memory_stats>("ek_memory_get_stats", [&](ek_memory_stats *p) {
    return ek_memory_get_stats(ctx, p);
  });
  check_struct_size_rule<ek_tensor_info>("ek_tensor_get_info", [&](ek_tensor_info *p) {
    return ek_tensor_get_info(t, p);
  });
  check_struct_size_rule<ek_philox_state>("ek_random_get_state", [&](ek_philox_state *p) {
    return ek_random_get_state(ctx, p);
  });
}

TEST_P(ApiShape, StructSizeRuleForStructsTheLibraryReads) {
  ek_context_config cfg = EK_CONTEXT_CONFIG_INIT;
  cfg.struct_size = offsetof(ek_context_config, num_threads) - 1;  // below the 1.0 size
  ek_context other = nullptr;
  EK_FAILS(ek_context_create(ek_device{GetParam(), 0}, &cfg, &other), EK_ERROR_INVALID_ARGUMENT,
           "struct_size");
  EXPECT_EQ(other, nullptr);
  Tensor t(ints({1, 2}));
  ek_philox_state st = EK_PHILOX_STATE_INIT;
  st.struct_size = 8;
  EK_FAILS(ek_random(nullptr, EK_RANDOM_RANDINT, ek_scalar_int(0), ek_scalar_int(9), &st, t),
           EK_ERROR_INVALID_ARGUMENT, "ek_philox_state.struct_size is 8");
  st.struct_size = sizeof st;
  EK_OK(ek_random(nullptr, EK_RANDOM_RANDINT, ek_scalar_int(0), ek_scalar_int(9), &st, t));
}

TEST_P(ApiShape, SnapshotArraysUseTheFirstStructSizeAsTheStride) {
  void *p[3] = {};
  for (void *&q : p) EK_OK(ek_malloc(nullptr, ctx, 4096, &q));
  size_t n = 0;
  EK_OK(ek_memory_get_snapshot(ctx, nullptr, 0, &n));
  ASSERT_GE(n, 3u);
  const size_t stride = sizeof(ek_memory_block) + 24;
  std::vector<uint8_t> bytes(stride * n, kCanary);
  std::memcpy(bytes.data(), &stride, sizeof stride);
  size_t count = 0;
  EK_OK(ek_memory_get_snapshot(ctx, reinterpret_cast<ek_memory_block *>(bytes.data()), n, &count));
  EXPECT_EQ(count, n);
  uint64_t live = 0;
  for (size_t i = 0; i < n; ++i) {
    ek_memory_block b{};
    std::memcpy(&b, bytes.data() + i * stride, sizeof b);
    EXPECT_EQ(b.struct_size, stride) << "element " << i;
    EXPECT_TRUE(all_canary(bytes.data() + i * stride + sizeof b, 24)) << "element " << i;
    live += b.allocated ? 1 : 0;
  }
  EXPECT_EQ(live, 3u);
  // A first element too small is refused before anything is written.
  std::vector<uint8_t> small(stride * n, kCanary);
  const size_t too_small = sizeof(ek_memory_block) - 8;
  std::memcpy(small.data(), &too_small, sizeof too_small);
  count = 77;
  EK_FAILS(ek_memory_get_snapshot(ctx, reinterpret_cast<ek_memory_block *>(small.data()), n,
                                  &count),
           EK_ERROR_INVALID_ARGUMENT, "ek_memory_get_snapshot");
  EXPECT_EQ(count, 77u);
  EXPECT_TRUE(all_canary(small.data() + sizeof too_small, small.size() - sizeof too_small));
  for (void *q : p) EK_OK(ek_free(nullptr, ctx, q));
}

TEST_P(ApiShape, TensorInfoShapeAndStridesPointIntoTheHandle) {
  Tensor t(make(Shape{2, 3, 4}, EK_FLOAT32, Values(24, 1.0)));
  ek_tensor_info a = EK_TENSOR_INFO_INIT, b = EK_TENSOR_INFO_INIT;
  EK_OK(ek_tensor_get_info(t, &a));
  EK_OK(ek_tensor_get_info(t, &b));
  ASSERT_EQ(a.ndim, 3);
  EXPECT_EQ(Shape(a.shape, a.shape + 3), (Shape{2, 3, 4}));
  EXPECT_EQ(Shape(a.strides, a.strides + 3), (Shape{12, 4, 1}));
  EXPECT_EQ(a.shape, b.shape) << "the same handle gives the same borrowed arrays";
  EXPECT_EQ(a.strides, b.strides);
  Tensor v(transposed(t, 0, 2));
  ek_tensor_info vi = EK_TENSOR_INFO_INIT;
  EK_OK(ek_tensor_get_info(v, &vi));
  EXPECT_NE(vi.shape, a.shape) << "a view is a handle of its own";
  EXPECT_EQ(Shape(vi.shape, vi.shape + 3), (Shape{4, 3, 2}));
  EXPECT_EQ(Shape(vi.strides, vi.strides + 3), (Shape{1, 4, 12}));
  EXPECT_EQ(Shape(a.shape, a.shape + 3), (Shape{2, 3, 4})) << "views never change the source's";
  Tensor scalar0;
  EK_OK(ek_tensor_empty(nullptr, ctx, 0, nullptr, EK_FLOAT32, scalar0.out()));
  ek_tensor_info si = EK_TENSOR_INFO_INIT;
  EK_OK(ek_tensor_get_info(scalar0, &si));
  EXPECT_EQ(si.ndim, 0);
  EXPECT_EQ(si.shape, nullptr);
  EXPECT_EQ(si.strides, nullptr);
}

TEST_P(ApiShape, CreatorsTakeTheContextFromTheStream) {
  ek_stream s = nullptr;
  EK_OK(ek_stream_create(ctx, &s));
  const int64_t shape[1] = {4};
  Tensor a, b, r;
  EK_OK(ek_tensor_empty(s, nullptr, 1, shape, EK_FLOAT32, a.out()));
  const float host[4] = {1, 2, 3, 4};
  EK_OK(ek_tensor_from_host(s, nullptr, 1, shape, EK_FLOAT32, host, b.out()));
  EK_OK(ek_arange(s, nullptr, ek_scalar_int(0), ek_scalar_int(4), ek_scalar_int(1), EK_INT64,
                  r.out()));
  ek_context got = nullptr;
  EK_OK(ek_tensor_get_context(a, &got));
  EXPECT_EQ(got, ctx);
  void *p = nullptr;
  EK_OK(ek_malloc(s, nullptr, 1024, &p));
  EK_OK(ek_record_stream(s, nullptr, p));
  EK_OK(ek_memcpy(s, nullptr, host, p, sizeof host));
  EK_OK(ek_free(s, nullptr, p));
  // Both given and agreeing is fine too.
  Tensor c;
  EK_OK(ek_tensor_empty(s, ctx, 1, shape, EK_FLOAT32, c.out()));
  EK_OK(ek_stream_synchronize(s));
  EK_OK(ek_stream_destroy(s));
}

TEST_P(ApiShape, CreatorsRefuseAStreamOfAnotherContextOrNeither) {
  ek_context other = cpu_context();
  ek_stream s = nullptr;
  EK_OK(ek_stream_create(other, &s));
  const int64_t shape[1] = {4};
  ek_tensor t = nullptr;
  EK_FAILS(ek_tensor_empty(s, ctx, 1, shape, EK_FLOAT32, &t), EK_ERROR_INVALID_ARGUMENT,
           "another context");
  EK_FAILS(ek_arange(s, ctx, ek_scalar_int(0), ek_scalar_int(4), ek_scalar_int(1), EK_INT64, &t),
           EK_ERROR_INVALID_ARGUMENT, "ek_arange");
  EXPECT_EQ(t, nullptr);
  void *p = nullptr;
  EK_FAILS(ek_malloc(s, ctx, 64, &p), EK_ERROR_INVALID_ARGUMENT, "ek_malloc");
  EXPECT_EQ(p, nullptr);
  EK_FAILS(ek_tensor_empty(nullptr, nullptr, 1, shape, EK_FLOAT32, &t), EK_ERROR_NULL_POINTER,
           "ctx is NULL and so is stream");
  EK_OK(ek_stream_destroy(s));
  EK_OK(ek_context_destroy(other));
}

TEST_P(ApiShape, ScalarsWithImagOrReservedAreRefusedEverywhere) {
  Tensor x(ints({1, 2, 3}));
  ek_scalar imag = ek_scalar_int(1);
  imag.imag = 1.0;
  ek_scalar reserved = ek_scalar_int(1);
  reserved.reserved_ = 3;
  ek_scalar bad_bool = ek_scalar_bool(1);
  bad_bool.i = 2;
  ek_scalar bad_kind = ek_scalar_int(1);
  bad_kind.kind = static_cast<ek_scalar_kind>(9);
  struct Case {
    ek_scalar v;
    const char *text;
  } cases[] = {{imag, "imag"}, {reserved, "reserved_"}, {bad_bool, "not 0 or 1"},
               {bad_kind, "unknown ek_scalar kind 9"}};
  for (const Case &c : cases) {
    SCOPED_TRACE(c.text);
    ek_tensor out = nullptr;
    EK_FAILS(ek_fill(nullptr, c.v, x), EK_ERROR_INVALID_ARGUMENT, c.text);
    EK_FAILS(ek_binary_scalar(nullptr, EK_BINARY_ADD, x, c.v, 0, &out), EK_ERROR_INVALID_ARGUMENT,
             c.text);
    EK_FAILS(ek_clamp(nullptr, x, &c.v, nullptr, &out), EK_ERROR_INVALID_ARGUMENT, c.text);
    EK_FAILS(ek_axpby(nullptr, c.v, x, ek_scalar_int(1), x, &out), EK_ERROR_INVALID_ARGUMENT,
             c.text);
    EK_FAILS(ek_arange(nullptr, ctx, ek_scalar_int(0), c.v, ek_scalar_int(1), EK_INT64, &out),
             EK_ERROR_INVALID_ARGUMENT, c.text);
    EK_FAILS(ek_random(nullptr, EK_RANDOM_RANDINT, ek_scalar_int(0), c.v, nullptr, x),
             EK_ERROR_INVALID_ARGUMENT, c.text);
    EXPECT_EQ(out, nullptr);
  }
  EXPECT_EQ(to_host<int64_t>(x), (std::vector<int64_t>{1, 2, 3})) << "a refused call wrote";
}

TEST_P(ApiShape, BinaryScalarIsWeaklyTypedByItsKind) {
  Tensor b(make(Shape{2}, EK_BOOL, {0, 1})), i32(make(Shape{2}, EK_INT32, {1, 2}));
  Tensor f16(make(Shape{2}, EK_FLOAT16, {1, 2}));
  struct Case {
    ek_tensor a;
    ek_scalar v;
    ek_binary_op op;
    ek_dtype want;
  } cases[] = {
      {b, ek_scalar_bool(1), EK_BINARY_BITWISE_AND, EK_BOOL},
      {b, ek_scalar_int(2), EK_BINARY_ADD, EK_INT64},
      {b, ek_scalar_uint(2), EK_BINARY_ADD, EK_INT64},
      {i32, ek_scalar_int(int64_t{1} << 40), EK_BINARY_ADD, EK_INT32},
      {i32, ek_scalar_bool(1), EK_BINARY_ADD, EK_INT32},
      {i32, ek_scalar_float(2.0), EK_BINARY_ADD, EK_FLOAT32},
      {f16, ek_scalar_float(2.0), EK_BINARY_MUL, EK_FLOAT16},
      {f16, ek_scalar_int(3), EK_BINARY_MUL, EK_FLOAT16},
  };
  for (const Case &c : cases) {
    Tensor out;
    EK_OK(ek_binary_scalar(nullptr, c.op, c.a, c.v, 0, out.out()));
    EXPECT_EQ(dtype_of(out), c.want) << ek_dtype_name(dtype_of(c.a)) << " with kind " << c.v.kind;
  }
}

TEST_P(ApiShape, BinaryScalarIsExactForInt64BeyondTwoToThe53) {
  Tensor x(ints({1, -1, k2p53}));
  Tensor sum, eq, rsub;
  EK_OK(ek_binary_scalar(nullptr, EK_BINARY_ADD, x, ek_scalar_int(k2p62 + 1), 0, sum.out()));
  EXPECT_EQ(to_host<int64_t>(sum), (std::vector<int64_t>{k2p62 + 2, k2p62, k2p62 + k2p53 + 1}));
  Tensor near(ints({k2p53, k2p53 + 1}));
  EK_OK(ek_binary_scalar(nullptr, EK_BINARY_EQ, near, ek_scalar_int(k2p53 + 1), 0, eq.out()));
  EXPECT_EQ(to_host<uint8_t>(eq), (std::vector<uint8_t>{0, 1}));
  EK_OK(ek_binary_scalar(nullptr, EK_BINARY_SUB, near, ek_scalar_uint(uint64_t(k2p62) + 3), 1,
                         rsub.out()));
  EXPECT_EQ(to_host<int64_t>(rsub), (std::vector<int64_t>{k2p62 + 3 - k2p53, k2p62 + 2 - k2p53}));
  ek_tensor bad = nullptr;
  EK_FAILS(ek_binary_scalar(nullptr, EK_BINARY_ADD, x, ek_scalar_uint(uint64_t{1} << 63), 0, &bad),
           EK_ERROR_INVALID_ARGUMENT, "does not fit int64");
  EXPECT_EQ(bad, nullptr);
}

TEST_P(ApiShape, ClampBoundsAreExactForIntegerKinds) {
  Tensor x(ints({k2p53 + 1, k2p53 + 3, k2p53 + 5}));
  const ek_scalar lo = ek_scalar_int(k2p53 + 2), hi = ek_scalar_int(k2p53 + 4);
  Tensor out;
  EK_OK(ek_clamp(nullptr, x, &lo, &hi, out.out()));
  EXPECT_EQ(to_host<int64_t>(out), (std::vector<int64_t>{k2p53 + 2, k2p53 + 3, k2p53 + 4}));
  // Bounds beyond the dtype saturate to it: the exact clamp, cast.
  Tensor small(make(Shape{3}, EK_INT8, {-100, 0, 100})), sat;
  const ek_scalar big_hi = ek_scalar_uint(uint64_t{1} << 63), big_lo = ek_scalar_int(INT64_MIN);
  EK_OK(ek_clamp(nullptr, small, &big_lo, &big_hi, sat.out()));
  EXPECT_EQ(values_of(sat), (Values{-100, 0, 100}));
  const ek_scalar nan = ek_scalar_float(NAN);
  ek_tensor bad = nullptr;
  EK_FAILS(ek_clamp(nullptr, x, &nan, nullptr, &bad), EK_ERROR_INVALID_ARGUMENT, "NaN");
}

TEST_P(ApiShape, AxpbyCoefficientsAreExactIntegers) {
  Tensor x(ints({1, 2})), y(ints({0, 1})), out;
  EK_OK(ek_axpby(nullptr, ek_scalar_int(k2p53 + 1), x, ek_scalar_int(-1), y, out.out()));
  EXPECT_EQ(to_host<int64_t>(out), (std::vector<int64_t>{k2p53 + 1, 2 * k2p53 + 1}));
  Tensor integral;
  EK_OK(ek_axpby(nullptr, ek_scalar_float(2.0), x, ek_scalar_uint(3), y, integral.out()));
  EXPECT_EQ(to_host<int64_t>(integral), (std::vector<int64_t>{2, 7}));
  ek_tensor bad = nullptr;
  EK_FAILS(ek_axpby(nullptr, ek_scalar_float(2.5), x, ek_scalar_int(1), y, &bad),
           EK_ERROR_INVALID_ARGUMENT, "alpha = 2.5");
  EK_FAILS(ek_axpby(nullptr, ek_scalar_int(1), x, ek_scalar_uint(uint64_t{1} << 63), y, &bad),
           EK_ERROR_INVALID_ARGUMENT, "beta = 9223372036854775808");
}

TEST_P(ApiShape, IntegerArangeIsExactInIntegers) {
  Tensor a, b, c, d;
  EK_OK(ek_arange(nullptr, ctx, ek_scalar_int(k2p62), ek_scalar_int(k2p62 + 3), ek_scalar_int(1),
                  EK_INT64, a.out()));
  EXPECT_EQ(to_host<int64_t>(a), (std::vector<int64_t>{k2p62, k2p62 + 1, k2p62 + 2}));
  EK_OK(ek_arange(nullptr, ctx, ek_scalar_int(k2p53 + 7), ek_scalar_int(k2p53), ek_scalar_int(-3),
                  EK_INT64, b.out()));
  EXPECT_EQ(to_host<int64_t>(b), (std::vector<int64_t>{k2p53 + 7, k2p53 + 4, k2p53 + 1}));
  // The last int64 values, with a stop past INT64_MAX of another kind.
  EK_OK(ek_arange(nullptr, ctx, ek_scalar_int(INT64_MAX - 1), ek_scalar_uint(uint64_t{1} << 63),
                  ek_scalar_int(1), EK_INT64, c.out()));
  EXPECT_EQ(to_host<int64_t>(c), (std::vector<int64_t>{INT64_MAX - 1, INT64_MAX}));
  // Float-kind integral bounds are fine for integer dtypes; floats compute in double.
  EK_OK(ek_arange(nullptr, ctx, ek_scalar_float(0), ek_scalar_int(3), ek_scalar_uint(1), EK_INT32,
                  d.out()));
  EXPECT_EQ(to_host<int32_t>(d), (std::vector<int32_t>{0, 1, 2}));
  ek_tensor bad = nullptr;
  EK_FAILS(ek_arange(nullptr, ctx, ek_scalar_int(0), ek_scalar_float(2.5), ek_scalar_int(1),
                     EK_INT32, &bad),
           EK_ERROR_INVALID_ARGUMENT, "integral");
  EK_FAILS(ek_arange(nullptr, ctx, ek_scalar_int(INT64_MAX - 1), ek_scalar_uint(uint64_t{1} << 63),
                     ek_scalar_int(1), EK_INT32, &bad),
           EK_ERROR_INVALID_ARGUMENT, "do not fit int32");
  EXPECT_EQ(bad, nullptr);
}

TEST_P(ApiShape, RandintBoundsAreExactBeyondTwoToThe53) {
  const int64_t n = 2000;
  Tensor t;
  EK_OK(ek_tensor_empty(nullptr, ctx, 1, &n, EK_INT64, t.out()));
  EK_OK(ek_random(nullptr, EK_RANDOM_RANDINT, ek_scalar_int(k2p62), ek_scalar_int(k2p62 + 4),
                  nullptr, t));
  std::vector<int> seen(4, 0);
  for (int64_t v : to_host<int64_t>(t)) {
    ASSERT_TRUE(v >= k2p62 && v < k2p62 + 4) << v;
    seen[static_cast<size_t>(v - k2p62)]++;
  }
  for (int k = 0; k < 4; ++k) EXPECT_GT(seen[k], 0) << "2^62 + " << k << " never drawn";
  // The top of int64: b = 2^63 as an unsigned kind.
  EK_OK(ek_random(nullptr, EK_RANDOM_RANDINT, ek_scalar_int(INT64_MAX - 1),
                  ek_scalar_uint(uint64_t{1} << 63), nullptr, t));
  for (int64_t v : to_host<int64_t>(t)) ASSERT_TRUE(v == INT64_MAX - 1 || v == INT64_MAX) << v;
  EK_FAILS(ek_random(nullptr, EK_RANDOM_RANDINT, ek_scalar_int(0),
                     ek_scalar_uint((uint64_t{1} << 63) + 1), nullptr, t),
           EK_ERROR_INVALID_ARGUMENT, "does not fit int64");
}

TEST_P(ApiShape, VariantsAreEnumValuesAndUnknownOnesAreRefused) {
  Tensor x(make(Shape{2, 3}, EK_FLOAT32, {1, 5, 2, 7, 0, 3}));
  ek_tensor out = nullptr, idx = nullptr;
  EK_FAILS(ek_softmax(nullptr, static_cast<ek_softmax_kind>(7), x, -1, &out),
           EK_ERROR_INVALID_ARGUMENT, "unknown ek_softmax_kind 7");
  EK_FAILS(ek_scan(nullptr, static_cast<ek_scan_op>(5), x, 0, &out), EK_ERROR_INVALID_ARGUMENT,
           "unknown ek_scan_op 5");
  EK_FAILS(ek_var(nullptr, static_cast<ek_var_kind>(9), x, 0, nullptr, 1, 0, &out),
           EK_ERROR_INVALID_ARGUMENT, "unknown ek_var_kind 9");
  EK_FAILS(ek_reduce_with_indices(nullptr, EK_REDUCE_SUM, x, 1, 0, &out, &idx),
           EK_ERROR_INVALID_ARGUMENT, "only EK_REDUCE_MAX and EK_REDUCE_MIN");
  EXPECT_EQ(out, nullptr);
  EXPECT_EQ(idx, nullptr);
  Tensor vmax, imax, vmin, imin, var, std_, cs, cp, sm, lsm;
  EK_OK(ek_reduce_with_indices(nullptr, EK_REDUCE_MAX, x, 1, 0, vmax.out(), imax.out()));
  EK_OK(ek_reduce_with_indices(nullptr, EK_REDUCE_MIN, x, 1, 0, vmin.out(), imin.out()));
  EXPECT_EQ(values_of(vmax), (Values{5, 7}));
  EXPECT_EQ(to_host<int64_t>(imax), (std::vector<int64_t>{1, 0}));
  EXPECT_EQ(values_of(vmin), (Values{1, 0}));
  EXPECT_EQ(to_host<int64_t>(imin), (std::vector<int64_t>{0, 1}));
  EK_OK(ek_var(nullptr, EK_VAR_VARIANCE, x, 0, nullptr, 0, 0, var.out()));
  EK_OK(ek_var(nullptr, EK_VAR_STD, x, 0, nullptr, 0, 0, std_.out()));
  EXPECT_NEAR(values_of(std_)[0] * values_of(std_)[0], values_of(var)[0], 1e-5);
  EK_OK(ek_scan(nullptr, EK_SCAN_SUM, x, 1, cs.out()));
  EK_OK(ek_scan(nullptr, EK_SCAN_PROD, x, 1, cp.out()));
  EXPECT_EQ(values_of(cs), (Values{1, 6, 8, 7, 7, 10}));
  EXPECT_EQ(values_of(cp), (Values{1, 5, 10, 7, 0, 0}));
  EK_OK(ek_softmax(nullptr, EK_SOFTMAX_PLAIN, x, -1, sm.out()));
  EK_OK(ek_softmax(nullptr, EK_SOFTMAX_LOG, x, -1, lsm.out()));
  Values p = values_of(sm), lp = values_of(lsm);
  for (size_t i = 0; i < p.size(); ++i) EXPECT_NEAR(std::log(p[i]), lp[i], 1e-5) << i;
}

TEST_P(ApiShape, ModulesAndKernelsAreRetainedAndReleased) {
  const char *source = "extern \"C\" __global__ void one(float *p) { *p = 1.0f; }\n";
  ek_module m = nullptr;
  if (GetParam() == EK_CPU) {
    EK_FAILS(ek_module_from_source(ctx, source, nullptr, nullptr, 0, &m), EK_ERROR_NOT_SUPPORTED,
             "CUDA");
    return;
  }
  int64_t before = 0, now = 0;
  EK_OK(ek_live_handles(&before));
  EK_OK(ek_module_from_source(ctx, source, nullptr, nullptr, 0, &m));
  EK_OK(ek_module_retain(m));
  EK_OK(ek_live_handles(&now));
  EXPECT_EQ(now, before + 1) << "a retain is a reference, not a handle";
  EK_OK(ek_module_release(m));
  ek_kernel k = nullptr;
  EK_OK(ek_module_get_kernel(m, "one", &k)) << "one reference is left";
  EK_OK(ek_kernel_retain(k));
  EK_OK(ek_module_release(m));  // the caller's last: the kernel keeps the module loaded
  EK_FAILS(ek_module_compile(m), EK_ERROR_INVALID_ARGUMENT, "not a live ek_module");
  EK_OK(ek_live_handles(&now));
  EXPECT_EQ(now, before + 2);
  EK_OK(ek_kernel_release(k));
  Tensor t;
  const int64_t one = 1;
  EK_OK(ek_tensor_empty(nullptr, ctx, 1, &one, EK_FLOAT32, t.out()));
  void *p = nullptr;
  EK_OK(ek_tensor_get_data(t, &p));
  const unsigned grid[3] = {1, 1, 1}, block[3] = {1, 1, 1};
  const ek_kernel_arg arg = {&p, sizeof p};
  EK_OK(ek_kernel_launch(nullptr, k, grid, block, 0, &arg, 1)) << "one kernel reference is left";
  EXPECT_EQ(values_of(t), (Values{1}));
  EK_OK(ek_kernel_release(k));
  EK_OK(ek_live_handles(&now));
  EXPECT_EQ(now, before + 1) << "kernel and module are gone; only t is left";
}

EK_INSTANTIATE_DEVICES(ApiShape);

}  // namespace
