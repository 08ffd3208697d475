// DLPack 1.x exchange: ek_tensor_to_dlpack exports a view, ek_tensor_from_dlpack
// wraps (or copies) a producer's tensor. Every binding goes through these two.
#include <cinttypes>
#include <new>

#include "core/dlpack_abi.hpp"
#include "core/gpu.hpp"
#include "core/internal.hpp"

namespace ek {
namespace {

using dlpack::kDLBfloat;
using dlpack::kDLBool;
using dlpack::kDLComplex;
using dlpack::kDLFloat;
using dlpack::kDLInt;
using dlpack::kDLUInt;

// ek dtype code -> DLPack (code, bits); the table is indexed by ek_dtype.
constexpr DLDataType kDataTypes[EK_NUM_DTYPES] = {
    {kDLBool, 8, 1},  {kDLUInt, 8, 1},  {kDLInt, 8, 1},    {kDLInt, 16, 1},   {kDLInt, 32, 1},
    {kDLInt, 64, 1},  {kDLFloat, 16, 1}, {kDLBfloat, 16, 1}, {kDLFloat, 32, 1}, {kDLFloat, 64, 1},
    {kDLUInt, 16, 1}, {kDLUInt, 32, 1},  {kDLUInt, 64, 1},  {kDLComplex, 64, 1}, {kDLComplex, 128, 1}};
static_assert(EK_BOOL == 0 && EK_FLOAT64 == 9 && EK_COMPLEX128 == 14 && EK_NUM_DTYPES == 15, "kDataTypes order");

bool dtype_from_dlpack(DLDataType t, ek_dtype *out) {
  if (t.lanes != 1) return false;
  for (int i = 0; i < EK_NUM_DTYPES; ++i)
    if (kDataTypes[i].code == t.code && kDataTypes[i].bits == t.bits) {
      *out = static_cast<ek_dtype>(i);
      return true;
    }
  return false;
}

// ---- export: one allocation holds the struct and the arrays it points to.
struct Export {
  DLManagedTensorVersioned managed{};  // its manager_ctx points back here
  ek_tensor view = nullptr;
  int64_t shape[EK_MAX_DIMS] = {};
  int64_t strides[EK_MAX_DIMS] = {};
};

void export_deleter(DLManagedTensorVersioned *self) {
  if (!self) return;
  auto *e = static_cast<Export *>(self->manager_ctx);
  ek_tensor_release(e->view);
  delete e;
}

// ---- import
struct Import {
  DLManagedTensorVersioned *src;
  ek_context ctx;
};

// The producer's deleter, once the last view of the wrapped memory is gone.
// On CUDA, ek's queued kernels may still use the memory: wait for them before
// the producer may reuse it (PyTorch's caching allocator would, at once).
void import_deleter(void * /*data*/, void *user_data) {
  auto *im = static_cast<Import *>(user_data);
  if (im->ctx->is_cuda()) {  // from inside a release, which must not leave an error behind
    std::string saved = last_error_message();
    ek_context_synchronize(im->ctx);
    restore_last_error(std::move(saved));
  }
  if (im->src->deleter) im->src->deleter(im->src);
  delete im;
}

const char *device_kind_name(int32_t type) {
  switch (type) {
    case dlpack::kDLCPU: return "kDLCPU";
    case dlpack::kDLCUDA: return "kDLCUDA";
    case dlpack::kDLCUDAHost: return "kDLCUDAHost";
    case dlpack::kDLCUDAManaged: return "kDLCUDAManaged";
    default: return "an unsupported DLPack device type";
  }
}

ek_status check_device(ek_context ctx, DLDevice d) {
  bool host = d.device_type == dlpack::kDLCPU || d.device_type == dlpack::kDLCUDAHost;
  bool cuda = d.device_type == dlpack::kDLCUDA || d.device_type == dlpack::kDLCUDAManaged;
  EK_CHECK(host || cuda, EK_ERROR_NOT_SUPPORTED,
           "DLPack device type %" PRId32 " is not supported (kDLCPU, kDLCUDA, kDLCUDAHost or "
           "kDLCUDAManaged)", d.device_type);
  bool match = ctx->is_cuda() ? cuda && d.device_id == ctx->device.index : host;
  EK_CHECK(match, EK_ERROR_INVALID_ARGUMENT,
           "the tensor is on %s device %" PRId32 " but the context is on %s:%d",
           device_kind_name(d.device_type), d.device_id, ctx->is_cuda() ? "cuda" : "cpu",
           ctx->device.index);
  return EK_SUCCESS;
}

// Validates src->dl_tensor and finds element 0: everything but the layout's
// extent, which wrap_memory checks.
ek_status check_source(ek_context ctx, const DLManagedTensorVersioned *src, ek_dtype *dtype,
                       void **first) {
  EK_CHECK(src->version.major == dlpack::kMajor, EK_ERROR_NOT_SUPPORTED,
           "DLPack version %" PRIu32 ".%" PRIu32 " is not supported (ek reads %" PRIu32 ".x)",
           src->version.major, src->version.minor, dlpack::kMajor);
  const DLTensor &t = src->dl_tensor;
  EK_FORWARD(check_device(ctx, t.device));
  EK_CHECK(t.ndim >= 0 && t.ndim <= EK_MAX_DIMS, EK_ERROR_INVALID_ARGUMENT,
           "ndim %" PRId32 " is not in [0, %d]", t.ndim, EK_MAX_DIMS);
  EK_CHECK(t.ndim == 0 || t.shape, EK_ERROR_NULL_POINTER, "shape is NULL but ndim is %" PRId32,
           t.ndim);
  EK_CHECK(dtype_from_dlpack(t.dtype, dtype), EK_ERROR_DTYPE,
           "DLPack dtype (code %u, %u bits, %u lanes) has no ek dtype",
           static_cast<unsigned>(t.dtype.code), static_cast<unsigned>(t.dtype.bits),
           static_cast<unsigned>(t.dtype.lanes));
  auto address = reinterpret_cast<uintptr_t>(t.data);
  uintptr_t element0 = 0;
  EK_CHECK(t.byte_offset <= static_cast<uint64_t>(INT64_MAX) &&
               !__builtin_add_overflow(address, t.byte_offset, &element0),
           EK_ERROR_OVERFLOW, "byte_offset %" PRIu64 " past data %p overflows", t.byte_offset,
           t.data);
  // A misaligned element faults on CUDA and is undefined behaviour in C++.
  EK_CHECK(element0 % ek_dtype_size(*dtype) == 0, EK_ERROR_INVALID_ARGUMENT,
           "element 0 (data %p + byte_offset %" PRIu64 ") is not aligned to %zu-byte %s",
           t.data, t.byte_offset, ek_dtype_size(*dtype), ek_dtype_name(*dtype));
  *first = reinterpret_cast<void *>(element0);
  return EK_SUCCESS;
}

// A new contiguous tensor with src's values, complete on return.
ek_status copy_of(ek_context ctx, ek_tensor src, ek_tensor *out) {
  ek_stream s = &ctx->default_stream;
  EK_FORWARD(refuse_capture(s));
  ek_tensor t = nullptr;
  EK_FORWARD(new_tensor(ctx, src->ndim, src->shape, src->dtype, s, &t));
  ek_status st = device_copy(ctx, s, tensor_desc(t), tensor_desc(src));
  if (st == EK_SUCCESS && ctx->is_cuda()) st = gpu::stream_synchronize(s->native);
  if (st != EK_SUCCESS) {
    ek_tensor_release(t);
    return st;
  }
  *out = t;
  return EK_SUCCESS;
}

}  // namespace
}  // namespace ek

using namespace ek;

extern "C" {

EK_API ek_status ek_tensor_to_dlpack(ek_tensor t, struct DLManagedTensorVersioned **out) {
  EK_API_ENTRY;
  EK_CHECK_TENSOR(t);
  EK_CHECK_NULL(out);
  auto *e = new (std::nothrow) Export;
  EK_CHECK(e != nullptr, EK_ERROR_OUT_OF_MEMORY, "no host memory for the DLPack struct");
  e->view = new_view(t);
  for (int i = 0; i < t->ndim; ++i) {
    e->shape[i] = t->shape[i];
    e->strides[i] = t->strides[i];
  }
  DLManagedTensorVersioned &m = e->managed;
  m.version = {dlpack::kMajor, dlpack::kMinor};
  m.manager_ctx = e;
  m.deleter = export_deleter;
  m.flags = 0;
  const ek_device &dev = t->storage->ctx->device;
  m.dl_tensor.data = tensor_data(t);
  m.dl_tensor.device = dev.type == EK_CUDA ? DLDevice{dlpack::kDLCUDA, dev.index}
                                           : DLDevice{dlpack::kDLCPU, 0};
  m.dl_tensor.ndim = t->ndim;
  m.dl_tensor.dtype = kDataTypes[t->dtype];
  m.dl_tensor.shape = e->shape;
  m.dl_tensor.strides = e->strides;
  m.dl_tensor.byte_offset = 0;
  *out = &m;
  return EK_SUCCESS;
}

EK_API ek_status ek_tensor_from_dlpack(ek_context ctx, struct DLManagedTensorVersioned *src,
                                       int flags, ek_tensor *out) {
  EK_API_ENTRY;
  EK_CHECK_CONTEXT(ctx);
  EK_CHECK_NULL(src);
  EK_CHECK_NULL(out);
  EK_CHECK((flags & ~(EK_DLPACK_COPY | EK_DLPACK_NO_COPY)) == 0 &&
               flags != (EK_DLPACK_COPY | EK_DLPACK_NO_COPY),
           EK_ERROR_INVALID_ARGUMENT,
           "flags %d: expected 0, EK_DLPACK_COPY (1) or EK_DLPACK_NO_COPY (2)", flags);
  ek_dtype dtype = EK_FLOAT32;
  void *first = nullptr;
  EK_FORWARD(check_source(ctx, src, &dtype, &first));
  bool read_only = (src->flags & dlpack::kFlagReadOnly) != 0;
  EK_CHECK(!(read_only && (flags & EK_DLPACK_NO_COPY)), EK_ERROR_NOT_SUPPORTED,
           "the source is read-only and ek tensors are writable: it must be copied, but "
           "EK_DLPACK_NO_COPY forbids copies");
  const DLTensor &d = src->dl_tensor;
  if (!read_only && !(flags & EK_DLPACK_COPY)) {
    auto *im = new (std::nothrow) Import{src, ctx};
    EK_CHECK(im != nullptr, EK_ERROR_OUT_OF_MEMORY, "no host memory for the DLPack import");
    ek_status st = wrap_memory(ctx, first, d.ndim, d.shape, d.strides, dtype, import_deleter, im,
                               out);
    if (st != EK_SUCCESS) delete im;
    return st;
  }
  // A copy reads through a wrap that owns nothing, then hands src back.
  ek_tensor borrowed = nullptr, copied = nullptr;
  EK_FORWARD(wrap_memory(ctx, first, d.ndim, d.shape, d.strides, dtype, nullptr, nullptr,
                         &borrowed));
  ek_status st = copy_of(ctx, borrowed, &copied);
  ek_tensor_release(borrowed);
  if (st != EK_SUCCESS) return st;
  if (src->deleter) src->deleter(src);
  *out = copied;
  return EK_SUCCESS;
}

}  // extern "C"
