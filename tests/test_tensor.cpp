// Tensor handles: creation, host transfer, info, reference counting, wrapping
// foreign memory, record_stream, and bad input for each of them.
#include <cstdint>
#include <cstring>
#include <functional>
#include <random>
#include <vector>

#include "ek_test.hpp"

using ektest::info_of;
using ektest::kAllDtypes;
using ektest::numel_of;
using ektest::random_bytes;
using ektest::Shape;
using ektest::Tensor;
using ektest::to_host;

namespace {

// Values a strided layout reaches in a flat host buffer, in C order.
std::vector<float> strided_ref(const float *base, const Shape &shape, const Shape &strides) {
  std::vector<float> out;
  std::vector<int64_t> idx(shape.size(), 0);
  for (int64_t k = 0; k < numel_of(shape); ++k) {
    int64_t at = 0;
    for (size_t d = 0; d < shape.size(); ++d) at += idx[d] * strides[d];
    out.push_back(base[at]);
    for (int d = static_cast<int>(shape.size()) - 1; d >= 0 && ++idx[d] == shape[d]; --d)
      idx[d] = 0;
  }
  return out;
}

std::vector<float> iota_values(int64_t n) {
  std::vector<float> v(static_cast<size_t>(n));
  for (size_t i = 0; i < v.size(); ++i) v[i] = 0.25f * i + 3.0f;
  return v;
}

// Records what a deleter was called with.
struct DeleterLog {
  int calls = 0;
  void *data = nullptr;
  void *user = nullptr;
  ek_context ctx = nullptr;  // set: free data with ek_free (device memory)
};
void log_deleter(void *data, void *user) {
  auto *log = static_cast<DeleterLog *>(user);
  log->calls++;
  log->data = data;
  log->user = user;
  if (log->ctx) ek_free(nullptr, log->ctx, data);
}

class Tensors : public ektest::DeviceTest {
 protected:
  uint64_t allocated() {
    ek_memory_stats s = EK_MEMORY_STATS_INIT;
    EXPECT_EQ(ek_context_synchronize(ctx), EK_SUCCESS);
    EXPECT_EQ(ek_memory_get_stats(ctx, &s), EK_SUCCESS);
    return s.allocated_bytes;
  }
  int64_t live_handles() {
    int64_t n = 0;
    EXPECT_EQ(ek_live_handles(&n), EK_SUCCESS);
    return n;
  }
  // Device (or host, on CPU) memory from the pool holding host's floats.
  void *pool_copy(const std::vector<float> &host) {
    void *p = nullptr;
    EXPECT_EQ(ek_malloc(nullptr, ctx, host.size() * sizeof(float), &p), EK_SUCCESS);
    EXPECT_EQ(ek_memcpy(nullptr, ctx, host.data(), p, host.size() * sizeof(float)), EK_SUCCESS);
    EXPECT_EQ(ek_context_synchronize(ctx), EK_SUCCESS);
    return p;
  }
};
EK_INSTANTIATE_DEVICES(Tensors);

// dtype travels as int: an out-of-range enum value must not be loaded as ek_dtype (UBSan).
using Creator = std::function<ek_status(int ndim, const int64_t *shape, int dtype, ek_tensor *out)>;

// The shape checks every creating function shares; fn names it in the message.
void expect_shape_errors(const std::string &fn, const Creator &make) {
  ek_tensor out = nullptr;
  const int64_t shape[9] = {2, 3, 1, 1, 1, 1, 1, 1, 1}, negative[2] = {2, -3},
                huge[2] = {int64_t{1} << 40, int64_t{1} << 40}, big[1] = {int64_t{1} << 61};
  EK_FAILS(make(9, shape, EK_FLOAT32, &out), EK_ERROR_INVALID_ARGUMENT,
           fn + ": ndim 9 is not in [0, 8]");
  EK_FAILS(make(-1, shape, EK_FLOAT32, &out), EK_ERROR_INVALID_ARGUMENT,
           fn + ": ndim -1 is not in [0, 8]");
  EK_FAILS(make(2, nullptr, EK_FLOAT32, &out), EK_ERROR_NULL_POINTER,
           fn + ": shape is NULL but ndim is 2");
  EK_FAILS(make(2, shape, 99, &out), EK_ERROR_DTYPE,
           fn + ": unknown dtype 99");
  EK_FAILS(make(2, negative, EK_FLOAT32, &out), EK_ERROR_SHAPE,
           fn + ": negative size -3 at dim 1 of shape [2,-3]");
  EK_FAILS(make(2, huge, EK_UINT8, &out), EK_ERROR_OVERFLOW,
           fn + ": shape [1099511627776,1099511627776] of uint8 overflows the size of memory");
  EK_FAILS(make(1, big, EK_FLOAT64, &out), EK_ERROR_OVERFLOW,
           fn + ": shape [2305843009213693952] of float64 overflows the size of memory");
  EXPECT_EQ(out, nullptr) << "out must stay untouched on failure";
}

// ------------------------------------------------------------------ creation and transfer

TEST_P(Tensors, FromHostToHostRoundTripsEveryDtypeBytewise) {
  const Shape shape = {3, 5, 7};
  for (ek_dtype dt : kAllDtypes) {
    SCOPED_TRACE(ek_dtype_name(dt));
    std::vector<uint8_t> in = random_bytes(dt, numel_of(shape), 17u + dt);
    Tensor t;
    EK_OK(ek_tensor_from_host(nullptr, ctx, 3, shape.data(), dt, in.data(), t.out()));
    std::vector<uint8_t> back(in.size(), 0xa5);
    EK_OK(ek_tensor_to_host(nullptr, t, back.data(), back.size()));
    EXPECT_EQ(back, in);
  }
}

TEST_P(Tensors, EmptyIsCContiguousWithFullInfo) {
  const Shape shape = {2, 3, 4};
  for (ek_dtype dt : kAllDtypes) {
    SCOPED_TRACE(ek_dtype_name(dt));
    Tensor t;
    EK_OK(ek_tensor_empty(nullptr, ctx, 3, shape.data(), dt, t.out()));
    ek_tensor_info info = info_of(t);
    EXPECT_EQ(info.dtype, dt);
    EXPECT_EQ(Shape(info.shape, info.shape + info.ndim), shape);
    EXPECT_EQ(Shape(info.strides, info.strides + info.ndim), (Shape{12, 4, 1}));
    EXPECT_EQ(info.offset, 0);
    EXPECT_EQ(info.numel, 24);
    EXPECT_EQ(info.nbytes, 24 * ek_dtype_size(dt));
    EXPECT_EQ(info.storage_bytes, 24 * ek_dtype_size(dt));
    EXPECT_EQ(info.is_contiguous, 1);
    EXPECT_EQ(info.device.type, GetParam());
    EXPECT_EQ(info.device.index, 0);
    void *data = nullptr;
    EK_OK(ek_tensor_get_data(t, &data));
    EXPECT_NE(data, nullptr);
    EXPECT_EQ(data, info.data);
  }
}

TEST_P(Tensors, InfoOfAViewReportsItsOffsetAndStrides) {
  const std::vector<float> host = iota_values(12);
  const Shape shape = {3, 4};
  Tensor t, col;
  EK_OK(ek_tensor_from_host(nullptr, ctx, 2, shape.data(), EK_FLOAT32, host.data(), t.out()));
  EK_OK(ek_view_select(t, 1, 2, col.out()));  // t[:, 2]
  ek_tensor_info info = info_of(col);
  EXPECT_EQ(info.ndim, 1);
  EXPECT_EQ(info.shape[0], 3);
  EXPECT_EQ(info.strides[0], 4);
  EXPECT_EQ(info.offset, 2);
  EXPECT_EQ(info.numel, 3);
  EXPECT_EQ(info.nbytes, 12u);
  EXPECT_EQ(info.storage_bytes, 48u);
  EXPECT_EQ(info.is_contiguous, 0);
  EXPECT_EQ(info.data, static_cast<char *>(info_of(t).data) + 2 * sizeof(float));
}

TEST_P(Tensors, ZeroDimTensorHoldsOneElement) {
  const double value = -12.375;
  Tensor t;
  EK_OK(ek_tensor_from_host(nullptr, ctx, 0, nullptr, EK_FLOAT64, &value, t.out()));
  ek_tensor_info info = info_of(t);
  EXPECT_EQ(info.ndim, 0);
  EXPECT_EQ(info.numel, 1);
  EXPECT_EQ(info.nbytes, 8u);
  EXPECT_EQ(info.is_contiguous, 1);
  EXPECT_EQ(to_host<double>(t), std::vector<double>{value});
}

TEST_P(Tensors, ZeroSizeTensorAllocatesNothingAndTransfersNothing) {
  const Shape shape = {3, 0, 2};
  const uint64_t before = allocated();
  Tensor t, u;
  EK_OK(ek_tensor_empty(nullptr, ctx, 3, shape.data(), EK_FLOAT32, t.out()));
  EK_OK(ek_tensor_from_host(nullptr, ctx, 3, shape.data(), EK_INT64, nullptr, u.out()));
  EXPECT_EQ(allocated(), before);
  ek_tensor_info info = info_of(t);
  EXPECT_EQ(info.numel, 0);
  EXPECT_EQ(info.nbytes, 0u);
  EXPECT_EQ(info.storage_bytes, 0u);
  EXPECT_EQ(info.is_contiguous, 1);
  EK_OK(ek_tensor_to_host(nullptr, t, nullptr, 0));
  float sink[1];
  EK_FAILS(ek_tensor_to_host(nullptr, u, sink, sizeof sink), EK_ERROR_SHAPE,
           "dst holds 4 bytes but the int64 tensor of shape [3,0,2] needs 0");
}

TEST_P(Tensors, ToHostOfNonContiguousViewIsWrittenInCOrder) {
  const std::vector<float> host = iota_values(24);
  const Shape shape = {2, 3, 4};
  Tensor t, tr, rev;
  EK_OK(ek_tensor_from_host(nullptr, ctx, 3, shape.data(), EK_FLOAT32, host.data(), t.out()));
  EK_OK(ek_view_transpose(t, 0, 2, tr.out()));  // [4,3,2], strides [1,4,12]
  EXPECT_EQ(to_host<float>(tr), strided_ref(host.data(), {4, 3, 2}, {1, 4, 12}));
  EK_OK(ek_view_slice(tr, 1, EK_SLICE_MAX, EK_SLICE_MIN, -2, rev.out()));  // [4,2,2]
  EXPECT_EQ(to_host<float>(rev), strided_ref(host.data() + 8, {4, 2, 2}, {1, -8, 12}));
}

TEST_P(Tensors, GetContextReturnsTheOwningContext) {
  const int64_t shape[1] = {5};
  Tensor t;
  EK_OK(ek_tensor_empty(nullptr, ctx, 1, shape, EK_INT32, t.out()));
  ek_context got = nullptr;
  EK_OK(ek_tensor_get_context(t, &got));
  EXPECT_EQ(got, ctx);
}

// ------------------------------------------------------------------ reference counting

TEST_P(Tensors, RetainReturnsTheSameHandleThatNeedsOneReleasePerReference) {
  const std::vector<float> host = iota_values(6);
  const int64_t shape[1] = {6};
  ek_tensor t = nullptr;
  EK_OK(ek_tensor_from_host(nullptr, ctx, 1, shape, EK_FLOAT32, host.data(), &t));
  const int64_t handles = live_handles();
  EK_OK(ek_tensor_retain(t));
  ek_tensor again = t;  // retain adds a reference to the same handle
  EXPECT_EQ(live_handles(), handles);
  EK_OK(ek_tensor_release(t));
  EXPECT_EQ(live_handles(), handles) << "one reference is left";
  EXPECT_EQ(to_host<float>(again), host);
  EK_OK(ek_tensor_release(again));
  EXPECT_EQ(live_handles(), handles - 1);
  EK_OK(ek_tensor_release(nullptr));
}

TEST_P(Tensors, StorageIsFreedWithItsLastView) {
  const std::vector<float> host = iota_values(40);
  const int64_t shape[2] = {5, 8};
  const uint64_t before = allocated();
  ek_tensor base = nullptr, row = nullptr, col = nullptr;
  EK_OK(ek_tensor_from_host(nullptr, ctx, 2, shape, EK_FLOAT32, host.data(), &base));
  EK_OK(ek_view_select(base, 0, 3, &row));
  EK_OK(ek_view_select(base, 1, -1, &col));
  const uint64_t with_tensor = allocated();
  EXPECT_GE(with_tensor, before + sizeof(float) * host.size());
  EK_OK(ek_tensor_release(base));
  EXPECT_EQ(allocated(), with_tensor);
  EXPECT_EQ(to_host<float>(row), strided_ref(host.data() + 24, {8}, {1}));
  EK_OK(ek_tensor_release(row));
  EXPECT_EQ(allocated(), with_tensor);
  EXPECT_EQ(to_host<float>(col), strided_ref(host.data() + 7, {5}, {8}));
  EK_OK(ek_tensor_release(col));
  EXPECT_EQ(allocated(), before);
}

// ------------------------------------------------------------------ wrapping foreign memory

TEST_P(Tensors, WrapWithDeleterCallsItOnceWithOriginalPointerAfterLastView) {
  std::vector<float> host = iota_values(12);
  DeleterLog log;
  void *data = host.data();
  if (GetParam() == EK_CUDA) {
    data = pool_copy(host);
    log.ctx = ctx;
  }
  const int64_t shape[2] = {3, 4};
  ek_tensor w = nullptr, view = nullptr;
  EK_OK(ek_tensor_wrap(ctx, data, 2, shape, nullptr, EK_FLOAT32, log_deleter, &log, &w));
  EXPECT_EQ(info_of(w).data, data);
  EXPECT_EQ(info_of(w).storage_bytes, 48u);
  EK_OK(ek_tensor_retain(w));
  EK_OK(ek_view_transpose(w, 0, 1, &view));
  EK_OK(ek_tensor_release(w));
  EK_OK(ek_tensor_release(w));  // the reference retain added
  EXPECT_EQ(log.calls, 0) << "a view still uses the memory";
  EXPECT_EQ(to_host<float>(view), strided_ref(host.data(), {4, 3}, {1, 4}));
  EK_OK(ek_tensor_release(view));
  EXPECT_EQ(log.calls, 1);
  EXPECT_EQ(log.data, data);
  EXPECT_EQ(log.user, &log);
}

TEST_P(Tensors, WrapWithoutDeleterNeverFreesTheMemory) {
  const std::vector<float> host = iota_values(8);
  void *data = pool_copy(host);
  const int64_t shape[1] = {8};
  ek_tensor w = nullptr, view = nullptr;
  EK_OK(ek_tensor_wrap(ctx, data, 1, shape, nullptr, EK_FLOAT32, nullptr, nullptr, &w));
  EK_OK(ek_view_slice(w, 0, 2, 6, 1, &view));
  EK_OK(ek_tensor_release(w));
  EK_OK(ek_tensor_release(view));
  std::vector<float> back(host.size());
  EK_OK(ek_memcpy(nullptr, ctx, data, back.data(), back.size() * sizeof(float)));
  EK_OK(ek_context_synchronize(ctx));
  EXPECT_EQ(back, host);
  EK_OK(ek_free(nullptr, ctx, data));  // still ours: fails if libek had freed it
}

TEST_P(Tensors, WrapWithNegativeStridesReadsBackwards) {
  const std::vector<float> host = iota_values(12);
  void *mem = pool_copy(host);
  float *base = static_cast<float *>(mem);
  const int64_t shape[2] = {3, 4}, reversed[2] = {-4, -1}, rows_back[2] = {-4, 1};
  Tensor a, b;
  EK_OK(ek_tensor_wrap(ctx, base + 11, 2, shape, reversed, EK_FLOAT32, nullptr, nullptr, a.out()));
  EXPECT_EQ(to_host<float>(a), strided_ref(host.data() + 11, {3, 4}, {-4, -1}));
  ek_tensor_info info = info_of(a);
  EXPECT_EQ(info.data, base + 11);
  EXPECT_EQ(info.offset, 11);
  EXPECT_EQ(info.storage_bytes, 48u);
  EXPECT_EQ(info.is_contiguous, 0);
  EXPECT_EQ(Shape(info.strides, info.strides + 2), (Shape{-4, -1}));
  EK_OK(ek_tensor_wrap(ctx, base + 8, 2, shape, rows_back, EK_FLOAT32, nullptr, nullptr, b.out()));
  EXPECT_EQ(to_host<float>(b), strided_ref(host.data() + 8, {3, 4}, {-4, 1}));
  EK_OK(ek_tensor_release(a.t));
  EK_OK(ek_tensor_release(b.t));
  a.t = b.t = nullptr;
  EK_OK(ek_free(nullptr, ctx, mem));
}

// ------------------------------------------------------------------ record_stream

TEST_P(Tensors, RecordStreamAcceptsOwnStreamsAndRejectsForeignOnes) {
  const int64_t shape[1] = {1000};
  ek_stream side = nullptr;
  EK_OK(ek_stream_create(ctx, &side));
  Tensor t, w;
  EK_OK(ek_tensor_empty(nullptr, ctx, 1, shape, EK_FLOAT32, t.out()));
  EK_OK(ek_fill(side, ektest::scalar(2.5), t));
  EK_OK(ek_tensor_record_stream(side, t));
  EK_OK(ek_tensor_record_stream(nullptr, t));
  ek_context other = cpu_context();
  ek_stream foreign = nullptr;
  EK_OK(ek_stream_create(other, &foreign));
  EK_FAILS(ek_tensor_record_stream(foreign, t), EK_ERROR_INVALID_ARGUMENT,
           "ek_tensor_record_stream: stream belongs to another context");
  EK_FAILS(ek_tensor_record_stream(side, nullptr), EK_ERROR_NULL_POINTER,
           "ek_tensor_record_stream: t is NULL");
  EK_OK(ek_stream_destroy(foreign));
  EK_OK(ek_context_destroy(other));
  EK_OK(ek_stream_synchronize(side));
  EXPECT_EQ(to_host<float>(t), std::vector<float>(1000, 2.5f));
  EK_OK(ek_tensor_release(t.t));
  t.t = nullptr;
  EK_OK(ek_stream_destroy(side));
}

// ------------------------------------------------------------------ bad input

TEST_P(Tensors, EmptyRejectsBadArguments) {
  expect_shape_errors("ek_tensor_empty", [&](int n, const int64_t *s, int dt, ek_tensor *o) {
    return ek_tensor_empty(nullptr, ctx, n, s, static_cast<ek_dtype>(dt), o);
  });
  const int64_t shape[1] = {4};
  ek_tensor out = nullptr;
  EK_FAILS(ek_tensor_empty(nullptr, nullptr, 1, shape, EK_FLOAT32, &out), EK_ERROR_NULL_POINTER,
           "ek_tensor_empty: ctx is NULL");
  EK_FAILS(ek_tensor_empty(nullptr, ctx, 1, shape, EK_FLOAT32, nullptr), EK_ERROR_NULL_POINTER,
           "ek_tensor_empty: out is NULL");
}

TEST_P(Tensors, FromHostRejectsBadArguments) {
  const std::vector<uint8_t> data(64, 1);
  auto make = [&](int n, const int64_t *s, int dt, ek_tensor *o) {
    return ek_tensor_from_host(nullptr, ctx, n, s, static_cast<ek_dtype>(dt), data.data(), o);
  };
  expect_shape_errors("ek_tensor_from_host", make);
  const int64_t shape[1] = {4};
  ek_tensor out = nullptr;
  EK_FAILS(ek_tensor_from_host(nullptr, ctx, 1, shape, EK_FLOAT32, nullptr, &out),
           EK_ERROR_NULL_POINTER, "ek_tensor_from_host: data is NULL");
  EK_FAILS(ek_tensor_from_host(nullptr, nullptr, 1, shape, EK_FLOAT32, data.data(), &out),
           EK_ERROR_NULL_POINTER, "ek_tensor_from_host: ctx is NULL");
  EK_FAILS(ek_tensor_from_host(nullptr, ctx, 1, shape, EK_FLOAT32, data.data(), nullptr),
           EK_ERROR_NULL_POINTER, "ek_tensor_from_host: out is NULL");
  EXPECT_EQ(out, nullptr);
}

TEST_P(Tensors, WrapRejectsBadArguments) {
  std::vector<uint8_t> data(64, 1);
  expect_shape_errors("ek_tensor_wrap", [&](int n, const int64_t *s, int dt, ek_tensor *o) {
    return ek_tensor_wrap(ctx, data.data(), n, s, nullptr, static_cast<ek_dtype>(dt), nullptr,
                          nullptr, o);
  });
  const int64_t shape[2] = {2, 3}, huge_stride[2] = {INT64_MAX, 1};
  ek_tensor out = nullptr;
  EK_FAILS(ek_tensor_wrap(ctx, nullptr, 2, shape, nullptr, EK_FLOAT32, nullptr, nullptr, &out),
           EK_ERROR_NULL_POINTER, "ek_tensor_wrap: data is NULL for 6 elements");
  EK_FAILS(ek_tensor_wrap(nullptr, data.data(), 2, shape, nullptr, EK_FLOAT32, nullptr, nullptr,
                          &out), EK_ERROR_NULL_POINTER, "ek_tensor_wrap: ctx is NULL");
  EK_FAILS(ek_tensor_wrap(ctx, data.data(), 2, shape, nullptr, EK_FLOAT32, nullptr, nullptr,
                          nullptr), EK_ERROR_NULL_POINTER, "ek_tensor_wrap: out is NULL");
  const int64_t three[2] = {3, 3};
  EK_FAILS(ek_tensor_wrap(ctx, data.data(), 2, three, huge_stride, EK_FLOAT32, nullptr, nullptr,
                          &out), EK_ERROR_OVERFLOW,
           "ek_tensor_wrap: strides [9223372036854775807,1] overflow for shape [3,3]");
  EXPECT_EQ(out, nullptr);
}

TEST_P(Tensors, ToHostRejectsWrongByteCountAndNulls) {
  const std::vector<float> host = iota_values(6);
  const int64_t shape[2] = {2, 3};
  Tensor t;
  EK_OK(ek_tensor_from_host(nullptr, ctx, 2, shape, EK_FLOAT32, host.data(), t.out()));
  std::vector<float> dst(8);
  EK_FAILS(ek_tensor_to_host(nullptr, t, dst.data(), 20), EK_ERROR_SHAPE,
           "ek_tensor_to_host: dst holds 20 bytes but the float32 tensor of shape [2,3] needs 24");
  EK_FAILS(ek_tensor_to_host(nullptr, t, dst.data(), 32), EK_ERROR_SHAPE, "dst holds 32 bytes");
  EK_FAILS(ek_tensor_to_host(nullptr, t, nullptr, 24), EK_ERROR_NULL_POINTER,
           "ek_tensor_to_host: dst is NULL");
  EK_FAILS(ek_tensor_to_host(nullptr, nullptr, dst.data(), 24), EK_ERROR_NULL_POINTER,
           "ek_tensor_to_host: t is NULL");
  EXPECT_EQ(dst, std::vector<float>(8, 0.0f)) << "nothing written on failure";
}

TEST_P(Tensors, AccessorsRejectNullArguments) {
  const int64_t shape[1] = {3};
  Tensor t;
  EK_OK(ek_tensor_empty(nullptr, ctx, 1, shape, EK_INT16, t.out()));
  ek_tensor_info info = EK_TENSOR_INFO_INIT;
  void *data = nullptr;
  ek_context got = nullptr;
  EK_FAILS(ek_tensor_get_info(nullptr, &info), EK_ERROR_NULL_POINTER,
           "ek_tensor_get_info: t is NULL");
  EK_FAILS(ek_tensor_get_info(t, nullptr), EK_ERROR_NULL_POINTER,
           "ek_tensor_get_info: info is NULL");
  EK_FAILS(ek_tensor_get_data(nullptr, &data), EK_ERROR_NULL_POINTER,
           "ek_tensor_get_data: t is NULL");
  EK_FAILS(ek_tensor_get_data(t, nullptr), EK_ERROR_NULL_POINTER,
           "ek_tensor_get_data: data is NULL");
  EK_FAILS(ek_tensor_get_context(nullptr, &got), EK_ERROR_NULL_POINTER,
           "ek_tensor_get_context: t is NULL");
  EK_FAILS(ek_tensor_get_context(t, nullptr), EK_ERROR_NULL_POINTER,
           "ek_tensor_get_context: ctx is NULL");
  EK_FAILS(ek_tensor_retain(nullptr), EK_ERROR_NULL_POINTER, "ek_tensor_retain: t is NULL");
  EXPECT_EQ(data, nullptr);
  EXPECT_EQ(got, nullptr);
}

TEST_P(Tensors, HandleReleasedOnceOfTwoReferencesStaysUsable) {
  const std::vector<float> host = iota_values(10);
  const int64_t shape[1] = {10};
  Tensor t;
  ek_tensor view = nullptr;
  EK_OK(ek_tensor_from_host(nullptr, ctx, 1, shape, EK_FLOAT32, host.data(), t.out()));
  EK_OK(ek_view_slice(t, 0, 1, 9, 3, &view));
  EK_OK(ek_tensor_retain(view));
  EK_OK(ek_tensor_release(view));
  EXPECT_EQ(to_host<float>(view), strided_ref(host.data() + 1, {3}, {3}));
  EK_OK(ek_tensor_release(view));
}

}  // namespace
