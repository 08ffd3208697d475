// DLPack exchange (ek_tensor_to_dlpack, ek_tensor_from_dlpack): round trips
// without copies, every dtype, strided layouts, read-only sources, ownership
// (each deleter runs exactly once, and only on success) and bad input.
// The struct layout comes from the library's own header, written from the
// DLPack specification (a C consumer would include dlpack.h instead).
#include <cstdint>
#include <cstring>
#include <vector>

#include "../src/core/dlpack_abi.hpp"
#include "ek_test.hpp"

using ektest::kAllDtypes;
using ektest::Shape;
using ektest::Tensor;
using ektest::to_host;

namespace {

struct DlCode {
  uint8_t code, bits;
};
// The DLPack spec's codes, written out independently of src/core/dlpack.cpp's table.
DlCode expected_code(ek_dtype dt) {
  switch (dt) {
    case EK_BOOL: return {6, 8};
    case EK_UINT8: return {1, 8};
    case EK_INT8: return {0, 8};
    case EK_INT16: return {0, 16};
    case EK_INT32: return {0, 32};
    case EK_INT64: return {0, 64};
    case EK_FLOAT16: return {2, 16};
    case EK_BFLOAT16: return {4, 16};
    case EK_FLOAT32: return {2, 32};
    case EK_UINT16: return {1, 16};
    case EK_UINT32: return {1, 32};
    case EK_UINT64: return {1, 64};
    default: return {2, 64};
  }
}

// A producer of our own: a DLManagedTensorVersioned over memory the test owns,
// whose deleter counts its calls.
struct Producer {
  DLManagedTensorVersioned managed{};
  int64_t shape[EK_MAX_DIMS] = {};
  int64_t strides[EK_MAX_DIMS] = {};
  int deleted = 0;

  static void deleter(DLManagedTensorVersioned *self) {
    static_cast<Producer *>(self->manager_ctx)->deleted++;
  }
  // A contiguous float32 tensor over data, on ctx's device.
  Producer(ek_context ctx, void *data, const Shape &s) {
    ek_device dev{};
    ek_context_get_device(ctx, &dev);
    managed.version = {1, 0};
    managed.manager_ctx = this;
    managed.deleter = deleter;
    DLTensor &t = managed.dl_tensor;
    t.data = data;
    t.device = dev.type == EK_CUDA ? DLDevice{2, dev.index} : DLDevice{1, 0};
    t.ndim = static_cast<int32_t>(s.size());
    t.dtype = {2, 32, 1};
    for (size_t i = 0; i < s.size(); ++i) shape[i] = s[i];
    t.shape = shape;
    t.strides = nullptr;
  }
  DLManagedTensorVersioned *get() { return &managed; }
};

void *data_of(ek_tensor t) {
  void *p = nullptr;
  EXPECT_EQ(ek_tensor_get_data(t, &p), EK_SUCCESS);
  return p;
}

// The layout ek reports for t (the one place this suite reads ek_tensor_info).
struct Layout {
  void *data = nullptr;
  ek_dtype dtype = EK_FLOAT32;
  int64_t numel = 0;
  Shape shape, strides;
};
Layout layout_of(ek_tensor t) {
  ek_tensor_info info = EK_TENSOR_INFO_INIT;
  EXPECT_EQ(ek_tensor_get_info(t, &info), EK_SUCCESS);
  Layout l;
  l.data = info.data;
  l.dtype = info.dtype;
  l.numel = info.numel;
  l.shape.assign(info.shape, info.shape + info.ndim);
  l.strides.assign(info.strides, info.strides + info.ndim);
  return l;
}

int64_t live_handles() {
  int64_t n = 0;
  ek_live_handles(&n);
  return n;
}

class DLPack : public ektest::DeviceTest {
 protected:
  // float32 0, 1, 2, ... of a shape, on the test's device.
  void iota(const Shape &shape, Tensor *out) {
    int64_t n = 1;
    for (int64_t s : shape) n *= s;
    std::vector<float> v(static_cast<size_t>(n));
    for (size_t i = 0; i < v.size(); ++i) v[i] = static_cast<float>(i);
    EK_OK(ek_tensor_from_host(nullptr, ctx, static_cast<int>(shape.size()), shape.data(),
                              EK_FLOAT32, v.data(), out->out()));
  }
};

}  // namespace

// ------------------------------------------------------------------ export

TEST_P(DLPack, ExportDescribesTheTensorAndRoundTripsWithoutACopy) {
  const Shape shape = {3, 5, 7};
  for (ek_dtype dt : kAllDtypes) {
    SCOPED_TRACE(ek_dtype_name(dt));
    std::vector<uint8_t> zeros(3 * 5 * 7 * ek_dtype_size(dt), 1);
    Tensor t;
    EK_OK(ek_tensor_from_host(nullptr, ctx, 3, shape.data(), dt, zeros.data(), t.out()));
    DLManagedTensorVersioned *m = nullptr;
    EK_OK(ek_tensor_to_dlpack(t, &m));
    ASSERT_NE(m, nullptr);
    EXPECT_EQ(m->version.major, 1u);
    EXPECT_EQ(m->flags, 0u);
    ASSERT_NE(m->deleter, nullptr);
    const DLTensor &d = m->dl_tensor;
    EXPECT_EQ(d.data, data_of(t));
    EXPECT_EQ(d.device.device_type, GetParam() == EK_CUDA ? 2 : 1);
    EXPECT_EQ(d.device.device_id, 0);
    EXPECT_EQ(d.ndim, 3);
    EXPECT_EQ(d.dtype.code, expected_code(dt).code);
    EXPECT_EQ(d.dtype.bits, expected_code(dt).bits);
    EXPECT_EQ(d.dtype.lanes, 1);
    ASSERT_NE(d.shape, nullptr);
    ASSERT_NE(d.strides, nullptr);
    EXPECT_EQ(Shape(d.shape, d.shape + 3), shape);
    EXPECT_EQ(Shape(d.strides, d.strides + 3), (Shape{35, 7, 1}));
    EXPECT_EQ(d.byte_offset, 0u);
    Tensor u;
    EK_OK(ek_tensor_from_dlpack(ctx, m, 0, u.out()));
    EXPECT_EQ(data_of(u), data_of(t));  // shared, not copied
    EXPECT_EQ(layout_of(u).dtype, dt);
    EXPECT_EQ(layout_of(u).shape, shape);
  }
}

TEST_P(DLPack, ExportKeepsTheStorageAfterTheHandleIsReleased) {
  Tensor t;
  iota({4, 6}, &t);
  DLManagedTensorVersioned *m = nullptr;
  EK_OK(ek_tensor_to_dlpack(t, &m));
  ek_tensor_release(t.t);
  t.t = nullptr;
  Tensor u;
  EK_OK(ek_tensor_from_dlpack(ctx, m, 0, u.out()));
  std::vector<float> got = to_host<float>(u);
  ASSERT_EQ(got.size(), 24u);
  for (size_t i = 0; i < got.size(); ++i) EXPECT_EQ(got[i], static_cast<float>(i));
}

TEST_P(DLPack, StridedReversedAndBroadcastViewsRoundTrip) {
  Tensor base;
  iota({4, 6}, &base);
  Tensor rev, tr, col, wide;
  EK_OK(ek_view_slice(base, 1, EK_SLICE_MAX, EK_SLICE_MIN, -2, rev.out()));  // [:, ::-2]
  EK_OK(ek_view_transpose(rev, 0, 1, tr.out()));                            // [3, 4]
  const Shape expand = {3, 4, 5};
  EK_OK(ek_view_unsqueeze(tr, 2, col.out()));
  EK_OK(ek_view_expand(col, 3, expand.data(), wide.out()));  // stride 0 on the last dim
  for (ek_tensor v : {rev.t, tr.t, wide.t}) {
    Layout view = layout_of(v);
    DLManagedTensorVersioned *m = nullptr;
    EK_OK(ek_tensor_to_dlpack(v, &m));
    EXPECT_EQ(m->dl_tensor.data, view.data);
    const DLTensor &d = m->dl_tensor;
    EXPECT_EQ(Shape(d.strides, d.strides + d.ndim), view.strides);
    Tensor u;
    EK_OK(ek_tensor_from_dlpack(ctx, m, 0, u.out()));
    Layout back = layout_of(u);
    EXPECT_EQ(back.data, view.data);
    EXPECT_EQ(back.shape, view.shape);
    EXPECT_EQ(back.strides, view.strides);
    EXPECT_EQ(to_host<float>(u), to_host<float>(v));
  }
}

TEST_P(DLPack, ZeroDimAndEmptyTensorsRoundTrip) {
  const float value = 2.5f;
  Tensor scalar, empty;
  EK_OK(ek_tensor_from_host(nullptr, ctx, 0, nullptr, EK_FLOAT32, &value, scalar.out()));
  const Shape shape = {0, 3};
  EK_OK(ek_tensor_empty(nullptr, ctx, 2, shape.data(), EK_INT32, empty.out()));
  for (ek_tensor t : {scalar.t, empty.t}) {
    DLManagedTensorVersioned *m = nullptr;
    EK_OK(ek_tensor_to_dlpack(t, &m));
    Tensor u;
    EK_OK(ek_tensor_from_dlpack(ctx, m, 0, u.out()));
    Layout a = layout_of(t), b = layout_of(u);
    EXPECT_EQ(b.shape, a.shape);
    EXPECT_EQ(b.numel, a.numel);
    EXPECT_EQ(b.dtype, a.dtype);
  }
  EXPECT_EQ(to_host<float>(scalar), std::vector<float>{value});
}

TEST_P(DLPack, ExportedTensorKeepsItsContextAliveUntilTheDeleter) {
  ek_context other = nullptr;
  EK_OK(ek_context_create(ek_device{GetParam(), 0}, nullptr, &other));
  const Shape shape = {8};
  ek_tensor t = nullptr;
  EK_OK(ek_tensor_empty(nullptr, other, 1, shape.data(), EK_FLOAT32, &t));
  DLManagedTensorVersioned *m = nullptr;
  EK_OK(ek_tensor_to_dlpack(t, &m));
  EK_OK(ek_tensor_release(t));
  EXPECT_EQ(ek_context_destroy(other), EK_ERROR_INVALID_ARGUMENT);  // the export is live
  m->deleter(m);
  EK_EXPECT_OK(ek_context_destroy(other));
}

TEST_P(DLPack, ExportRejectsNulls) {
  Tensor t;
  iota({2}, &t);
  DLManagedTensorVersioned *m = nullptr;
  EK_FAILS(ek_tensor_to_dlpack(nullptr, &m), EK_ERROR_NULL_POINTER, "ek_tensor_to_dlpack");
  EK_FAILS(ek_tensor_to_dlpack(t, nullptr), EK_ERROR_NULL_POINTER, "out");
}

// ------------------------------------------------------------------ import and ownership

TEST_P(DLPack, SharedImportCallsTheDeleterOnceWithTheLastView) {
  Tensor backing;
  iota({2, 3}, &backing);
  Producer p(ctx, data_of(backing), {2, 3});
  int64_t before = live_handles();
  ek_tensor u = nullptr, v = nullptr;
  EK_OK(ek_tensor_from_dlpack(ctx, p.get(), 0, &u));
  EXPECT_EQ(data_of(u), data_of(backing));
  EK_OK(ek_view_select(u, 0, 1, &v));
  EK_OK(ek_tensor_release(u));
  EXPECT_EQ(p.deleted, 0);  // a view still uses the memory
  EXPECT_EQ(to_host<float>(v), (std::vector<float>{3, 4, 5}));
  EK_OK(ek_tensor_release(v));
  EXPECT_EQ(p.deleted, 1);
  EXPECT_EQ(live_handles(), before);
}

TEST_P(DLPack, NullStridesMeanRowMajorAndANullDeleterIsAllowed) {
  Tensor backing;
  iota({2, 3}, &backing);
  Producer p(ctx, data_of(backing), {2, 3});
  p.managed.deleter = nullptr;
  Tensor u;
  EK_OK(ek_tensor_from_dlpack(ctx, p.get(), 0, u.out()));
  EXPECT_EQ(layout_of(u).strides, (Shape{3, 1}));
}

TEST_P(DLPack, ByteOffsetAndNegativeStridesAreHonoured) {
  Tensor backing;
  iota({12}, &backing);
  Producer p(ctx, data_of(backing), {4});
  p.managed.dl_tensor.byte_offset = 10 * sizeof(float);  // element 10
  p.strides[0] = -3;                                    // 10, 7, 4, 1
  p.managed.dl_tensor.strides = p.strides;
  Tensor u;
  EK_OK(ek_tensor_from_dlpack(ctx, p.get(), 0, u.out()));
  EXPECT_EQ(to_host<float>(u), (std::vector<float>{10, 7, 4, 1}));
}

TEST_P(DLPack, ReadOnlySourceIsCopiedAndHandedBackAtOnce) {
  Tensor backing;
  iota({5}, &backing);
  Producer p(ctx, data_of(backing), {5});
  p.managed.flags = ek::dlpack::kFlagReadOnly;
  Tensor u;
  EK_OK(ek_tensor_from_dlpack(ctx, p.get(), 0, u.out()));
  EXPECT_EQ(p.deleted, 1);  // the copy is complete: the producer has its memory back
  EXPECT_NE(data_of(u), data_of(backing));
  EXPECT_EQ(to_host<float>(u), (std::vector<float>{0, 1, 2, 3, 4}));
  ek_tensor same = u;
  EK_OK(ek_unary(nullptr, EK_UNARY_NEG, u, &same));  // in place
  EXPECT_EQ(to_host<float>(backing), (std::vector<float>{0, 1, 2, 3, 4}));
}

TEST_P(DLPack, NoCopyRefusesAReadOnlySourceAndLeavesItToTheCaller) {
  Tensor backing;
  iota({5}, &backing);
  Producer p(ctx, data_of(backing), {5});
  p.managed.flags = ek::dlpack::kFlagReadOnly;
  ek_tensor u = nullptr;
  EK_FAILS(ek_tensor_from_dlpack(ctx, p.get(), EK_DLPACK_NO_COPY, &u), EK_ERROR_NOT_SUPPORTED,
           "read-only");
  EXPECT_EQ(u, nullptr);
  EXPECT_EQ(p.deleted, 0);
}

TEST_P(DLPack, CopyFlagCopiesAWritableSource) {
  Tensor backing;
  iota({2, 2}, &backing);
  Producer p(ctx, data_of(backing), {2, 2});
  Tensor u;
  EK_OK(ek_tensor_from_dlpack(ctx, p.get(), EK_DLPACK_COPY, u.out()));
  EXPECT_EQ(p.deleted, 1);
  EXPECT_NE(data_of(u), data_of(backing));
  EXPECT_EQ(to_host<float>(u), (std::vector<float>{0, 1, 2, 3}));
  // A writable source under NO_COPY is shared as usual.
  Producer q(ctx, data_of(backing), {2, 2});
  Tensor w;
  EK_OK(ek_tensor_from_dlpack(ctx, q.get(), EK_DLPACK_NO_COPY, w.out()));
  EXPECT_EQ(data_of(w), data_of(backing));
}

// Each bad source fails with its status, leaves *out and the source alone
// (no deleter call) and creates no handle.
TEST_P(DLPack, BadSourcesFailCleanlyWithoutConsumingThem) {
  Tensor backing;
  iota({16}, &backing);
  void *data = data_of(backing);
  ek_device dev{};
  EK_OK(ek_context_get_device(ctx, &dev));
  const bool cuda = dev.type == EK_CUDA;
  struct Case {
    const char *what;
    void (*edit)(Producer &);
    ek_status status;
    const char *text;
  };
  const Case cases[] = {
      {"major 0", [](Producer &p) { p.managed.version = {0, 8}; }, EK_ERROR_NOT_SUPPORTED,
       "version 0.8"},
      {"major 2", [](Producer &p) { p.managed.version = {2, 0}; }, EK_ERROR_NOT_SUPPORTED,
       "version 2.0"},
      {"complex32 (no ek dtype)", [](Producer &p) { p.managed.dl_tensor.dtype = {5, 32, 1}; },
       EK_ERROR_DTYPE, "code 5"},
      {"float 12 bits", [](Producer &p) { p.managed.dl_tensor.dtype = {2, 12, 1}; },
       EK_ERROR_DTYPE, "12 bits"},
      {"4 lanes", [](Producer &p) { p.managed.dl_tensor.dtype = {2, 32, 4}; }, EK_ERROR_DTYPE,
       "4 lanes"},
      {"ROCm", [](Producer &p) { p.managed.dl_tensor.device = {10, 0}; },
       EK_ERROR_NOT_SUPPORTED, "device type 10"},
      {"ndim -1", [](Producer &p) { p.managed.dl_tensor.ndim = -1; }, EK_ERROR_INVALID_ARGUMENT,
       "ndim -1"},
      {"ndim 9", [](Producer &p) { p.managed.dl_tensor.ndim = 9; }, EK_ERROR_INVALID_ARGUMENT,
       "ndim 9"},
      {"NULL shape", [](Producer &p) { p.managed.dl_tensor.shape = nullptr; },
       EK_ERROR_NULL_POINTER, "shape is NULL"},
      {"negative size", [](Producer &p) { p.shape[0] = -4; }, EK_ERROR_SHAPE, "negative size"},
      {"numel overflow",
       [](Producer &p) {
         p.managed.dl_tensor.ndim = 2;
         p.shape[0] = p.shape[1] = int64_t{1} << 40;
       },
       EK_ERROR_OVERFLOW, "overflows"},
      {"stride overflow",
       [](Producer &p) {
         p.strides[0] = INT64_MAX / 2;
         p.managed.dl_tensor.strides = p.strides;
       },
       EK_ERROR_OVERFLOW, "overflow"},
      {"byte_offset overflow",
       [](Producer &p) { p.managed.dl_tensor.byte_offset = UINT64_MAX - 3; }, EK_ERROR_OVERFLOW,
       "byte_offset"},
      {"misaligned", [](Producer &p) { p.managed.dl_tensor.byte_offset = 2; },
       EK_ERROR_INVALID_ARGUMENT, "aligned"},
      {"NULL data", [](Producer &p) { p.managed.dl_tensor.data = nullptr; },
       EK_ERROR_NULL_POINTER, "data is NULL"},
      {"below address 0",
       [](Producer &p) {
         p.managed.dl_tensor.data = reinterpret_cast<void *>(uintptr_t{16});
         p.strides[0] = -1;
         p.managed.dl_tensor.strides = p.strides;
       },
       EK_ERROR_OVERFLOW, "overflow"},
      {"other device index",
       [](Producer &p) { p.managed.dl_tensor.device.device_id = 1; },
       cuda ? EK_ERROR_INVALID_ARGUMENT : EK_SUCCESS, "device 1"},
      {"other device kind",
       [](Producer &p) {
         bool on_cuda = p.managed.dl_tensor.device.device_type == 2;
         p.managed.dl_tensor.device = on_cuda ? DLDevice{1, 0} : DLDevice{2, 0};
       },
       EK_ERROR_INVALID_ARGUMENT, cuda ? "kDLCPU device 0 but the context is on cuda:0"
                                       : "kDLCUDA device 0 but the context is on cpu:0"},
  };
  int64_t before = live_handles();
  for (const Case &c : cases) {
    SCOPED_TRACE(c.what);
    if (c.status == EK_SUCCESS) continue;  // kDLCPU's device_id is not an index
    Producer p(ctx, data, {16});
    c.edit(p);
    ek_tensor u = nullptr;
    EK_FAILS(ek_tensor_from_dlpack(ctx, p.get(), 0, &u), c.status, c.text);
    EXPECT_NE(std::string(ek_last_error()).find("ek_tensor_from_dlpack"), std::string::npos)
        << ek_last_error();
    EXPECT_EQ(u, nullptr);
    EXPECT_EQ(p.deleted, 0);
    EXPECT_EQ(live_handles(), before);
  }
}

TEST_P(DLPack, ImportRejectsNullsAndBadFlags) {
  Tensor backing;
  iota({4}, &backing);
  Producer p(ctx, data_of(backing), {4});
  ek_tensor u = nullptr;
  EK_FAILS(ek_tensor_from_dlpack(nullptr, p.get(), 0, &u), EK_ERROR_NULL_POINTER, "ctx");
  EK_FAILS(ek_tensor_from_dlpack(ctx, nullptr, 0, &u), EK_ERROR_NULL_POINTER, "src");
  EK_FAILS(ek_tensor_from_dlpack(ctx, p.get(), 0, nullptr), EK_ERROR_NULL_POINTER, "out");
  EK_FAILS(ek_tensor_from_dlpack(ctx, p.get(), 4, &u), EK_ERROR_INVALID_ARGUMENT, "flags 4");
  EK_FAILS(ek_tensor_from_dlpack(ctx, p.get(), EK_DLPACK_COPY | EK_DLPACK_NO_COPY, &u),
           EK_ERROR_INVALID_ARGUMENT, "flags 3");
  EXPECT_EQ(p.deleted, 0);
  EXPECT_EQ(u, nullptr);
}

TEST_P(DLPack, PinnedAndManagedKindsMapToTheirContexts) {
  Tensor backing;
  iota({3}, &backing);
  Producer p(ctx, data_of(backing), {3});
  p.managed.dl_tensor.device = GetParam() == EK_CUDA ? DLDevice{13, 0} : DLDevice{3, 0};
  Tensor u;
  EK_OK(ek_tensor_from_dlpack(ctx, p.get(), 0, u.out()));
  EXPECT_EQ(to_host<float>(u), (std::vector<float>{0, 1, 2}));
}

EK_INSTANTIATE_DEVICES(DLPack);
