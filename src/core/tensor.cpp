// Tensor handles: storage ownership, creation, host transfer and accessors.
#include <cinttypes>
#include <cstring>
#include <limits>

#include "core/gpu.hpp"
#include "core/internal.hpp"
#include "core/fusion.hpp"
#include "core/profiler.hpp"

namespace ek {

void release_storage(Storage *st) {
  if (st->refs.fetch_sub(1, std::memory_order_acq_rel) != 1) return;
  ek_context ctx = st->ctx;
  if (st->pooled) {
    pool_free(ctx, st->data, st->alloc_stream);
  } else if (st->deleter) {
    st->deleter(st->deleter_data, st->deleter_user);
  }
  delete st;
}

namespace {

ek_tensor make_tensor(Storage *st, int ndim, const int64_t *shape, const int64_t *strides,
                      ek_dtype dtype, int64_t offset) {
  auto *t = new ek_tensor_s;
  t->storage = st;
  t->dtype = dtype;
  t->ndim = ndim;
  for (int i = 0; i < ndim; ++i) {
    t->shape[i] = shape[i];
    t->strides[i] = strides[i];
  }
  t->offset = offset;
  st->ctx->live_objects++;
  handle_created();
  return t;
}

// Extent in elements that a strided layout reaches: [min, max] relative to offset.
bool layout_extent(int ndim, const int64_t *shape, const int64_t *strides, int64_t *lo,
                   int64_t *hi) {
  *lo = *hi = 0;
  for (int i = 0; i < ndim; ++i) {
    if (shape[i] == 0) {
      *lo = 0;
      *hi = -1;
      return true;
    }
    int64_t reach = 0;
    if (__builtin_mul_overflow(shape[i] - 1, strides[i], &reach)) return false;
    if (reach < 0 ? __builtin_add_overflow(*lo, reach, lo)
                  : __builtin_add_overflow(*hi, reach, hi))
      return false;
  }
  return true;
}

}  // namespace

bool dtype_valid(int dtype) { return dtype >= 0 && dtype < EK_NUM_DTYPES; }

bool checked_numel(int ndim, const int64_t *shape, int64_t *numel) {
  // The product of the nonzero sizes must fit as well: it is the largest
  // C-contiguous stride, computed even for an empty tensor ([0, 2^62, 4]).
  int64_t n = 1, span = 1;
  for (int i = 0; i < ndim; ++i)
    if (__builtin_mul_overflow(n, shape[i], &n) ||
        __builtin_mul_overflow(span, shape[i] > 0 ? shape[i] : 1, &span))
      return false;
  *numel = n;
  return true;
}

ek_status check_shape(int ndim, const int64_t *shape, ek_dtype dtype, int64_t *numel,
                      uint64_t *bytes) {
  EK_CHECK(ndim >= 0 && ndim <= EK_MAX_DIMS, EK_ERROR_INVALID_ARGUMENT,
           "ndim %d is not in [0, %d]", ndim, EK_MAX_DIMS);
  EK_CHECK(ndim == 0 || shape, EK_ERROR_NULL_POINTER, "shape is NULL but ndim is %d", ndim);
  EK_CHECK(dtype_valid(dtype), EK_ERROR_DTYPE, "unknown dtype %d", static_cast<int>(dtype));
  for (int i = 0; i < ndim; ++i)
    EK_CHECK(shape[i] >= 0, EK_ERROR_SHAPE, "negative size %" PRId64 " at dim %d of shape %s",
             shape[i], i, format_shape(ndim, shape).c_str());
  int64_t n = 0;
  uint64_t b = 0;
  EK_CHECK(checked_numel(ndim, shape, &n) &&
               !__builtin_mul_overflow(static_cast<uint64_t>(n), ek_dtype_size(dtype), &b) &&
               b <= static_cast<uint64_t>(std::numeric_limits<int64_t>::max()),
           EK_ERROR_OVERFLOW, "shape %s of %s overflows the size of memory",
           format_shape(ndim, shape).c_str(), ek_dtype_name(dtype));
  *numel = n;
  *bytes = b;
  return EK_SUCCESS;
}

ek_status check_tensor(ek_tensor t, const char *name) {
  EK_FORWARD(check_handle(t, kTensorMagic, "ek_tensor", name));
  return fusion::touch(t);  // every call that takes a tensor sees its pending contents produced
}

int64_t tensor_numel(const ek_tensor_s *t) {
  int64_t n = 1;
  for (int i = 0; i < t->ndim; ++i) n *= t->shape[i];
  return n;
}

void contiguous_strides(int ndim, const int64_t *shape, int64_t *strides) {
  int64_t stride = 1;
  for (int i = ndim - 1; i >= 0; --i) {
    strides[i] = stride;
    stride *= shape[i] > 0 ? shape[i] : 1;
  }
}

bool tensor_contiguous(const ek_tensor_s *t) {
  int64_t expected = 1;
  for (int i = t->ndim - 1; i >= 0; --i) {
    if (t->shape[i] == 0) return true;
    if (t->shape[i] != 1 && t->strides[i] != expected) return false;
    expected *= t->shape[i];
  }
  return true;
}

ek_status wrap_dim(int dim, int ndim, const char *what, int *out) {
  int lo = -(ndim > 0 ? ndim : 1), hi = (ndim > 0 ? ndim : 1) - 1;
  EK_CHECK(dim >= lo && dim <= hi, EK_ERROR_INDEX, "%s %d is out of range [%d, %d] for %d dims",
           what, dim, lo, hi, ndim);
  *out = dim < 0 ? dim + (ndim > 0 ? ndim : 1) : dim;
  return EK_SUCCESS;
}

void *tensor_data(const ek_tensor_s *t) {
  // An empty tensor may have no storage at all while a view of it keeps an
  // offset (t[:, 1:] of a [0, 3] tensor): there is nothing to point into.
  if (t->storage->data == nullptr) return nullptr;
  return static_cast<char *>(t->storage->data) +
         t->offset * static_cast<int64_t>(ek_dtype_size(t->dtype));
}

TensorDesc tensor_desc(const ek_tensor_s *t) {
  TensorDesc d{};
  d.data = tensor_data(t);
  d.dtype = t->dtype;
  d.ndim = t->ndim;
  for (int i = 0; i < t->ndim; ++i) {
    d.shape[i] = t->shape[i];
    d.strides[i] = t->strides[i];
  }
  return d;
}

ek_status new_tensor(ek_context ctx, int ndim, const int64_t *shape, ek_dtype dtype,
                     ek_stream stream, ek_tensor *out) {
  int64_t numel = 0;
  uint64_t bytes = 0;
  EK_FORWARD(check_shape(ndim, shape, dtype, &numel, &bytes));
  auto *st = new Storage;
  st->ctx = ctx;
  st->bytes = bytes;
  st->pooled = bytes > 0;
  st->alloc_stream = stream->id;
  if (bytes > 0) {
    if (ek_status s = pool_allocate(ctx, bytes, stream, &st->data); s != EK_SUCCESS) {
      delete st;
      return s;
    }
  }
  int64_t strides[EK_MAX_DIMS];
  contiguous_strides(ndim, shape, strides);
  *out = make_tensor(st, ndim, shape, strides, dtype, 0);
  return EK_SUCCESS;
}

ek_status wrap_memory(ek_context ctx, void *data, int ndim, const int64_t *shape,
                      const int64_t *strides, ek_dtype dtype, ek_deleter deleter,
                      void *user_data, ek_tensor *out) {
  int64_t numel = 0;
  uint64_t bytes = 0;
  EK_FORWARD(check_shape(ndim, shape, dtype, &numel, &bytes));
  EK_CHECK(data || numel == 0, EK_ERROR_NULL_POINTER, "data is NULL for %" PRId64 " elements",
           numel);
  int64_t layout[EK_MAX_DIMS];
  if (!strides) {
    contiguous_strides(ndim, shape, layout);
    strides = layout;
  }
  // The storage spans what the strides reach; element 0 sits -lo elements in.
  auto elem = static_cast<int64_t>(ek_dtype_size(dtype));
  int64_t lo = 0, hi = 0, span = 0, lo_bytes = 0;
  auto address = reinterpret_cast<uintptr_t>(data);
  uintptr_t end = 0;
  EK_CHECK(layout_extent(ndim, shape, strides, &lo, &hi) &&
               !__builtin_sub_overflow(hi, lo, &span) && span < INT64_MAX &&
               !__builtin_mul_overflow(span + 1, elem, &span) &&
               !__builtin_mul_overflow(lo, elem, &lo_bytes) &&
               // and the bytes reached stay inside the address space
               address >= 0 - static_cast<uint64_t>(lo_bytes) &&
               !__builtin_add_overflow(address + static_cast<uint64_t>(lo_bytes),
                                       static_cast<uint64_t>(span), &end),
           EK_ERROR_OVERFLOW, "strides %s overflow for shape %s of %s",
           format_shape(ndim, strides).c_str(), format_shape(ndim, shape).c_str(),
           ek_dtype_name(dtype));
  EK_FORWARD(check_byte_strides(ndim, strides, dtype));  // size-1 dims too
  auto *st = new Storage;
  st->ctx = ctx;
  st->data = static_cast<char *>(data) + lo_bytes;
  st->bytes = hi >= lo ? static_cast<uint64_t>(span) : 0;
  st->deleter = deleter;
  st->deleter_user = user_data;
  st->deleter_data = data;  // the deleter gets the pointer it was given
  *out = make_tensor(st, ndim, shape, strides, dtype, -lo);
  return EK_SUCCESS;
}

ek_tensor new_view(const ek_tensor_s *base) {
  base->storage->refs.fetch_add(1, std::memory_order_relaxed);
  return make_tensor(base->storage, base->ndim, base->shape, base->strides, base->dtype,
                     base->offset);
}

// Every stride must stay an int64 in bytes, even one of a size-1 dim that
// reaches nothing: the backends step through memory in bytes.
ek_status check_byte_strides(int ndim, const int64_t *strides, ek_dtype dtype) {
  const int64_t max_stride = INT64_MAX / static_cast<int64_t>(ek_dtype_size(dtype));
  for (int i = 0; i < ndim; ++i)
    EK_CHECK(strides[i] >= -max_stride && strides[i] <= max_stride, EK_ERROR_OVERFLOW,
             "stride %" PRId64 " of dim %d overflows int64 in bytes (strides %s, %s)", strides[i],
             i, format_shape(ndim, strides).c_str(), ek_dtype_name(dtype));
  return EK_SUCCESS;
}

ek_status check_layout_in_storage(const ek_tensor_s *base, int ndim, const int64_t *shape,
                                  const int64_t *strides, int64_t offset) {
  int64_t lo = 0, hi = 0, numel = 0;
  EK_CHECK(checked_numel(ndim, shape, &numel) && layout_extent(ndim, shape, strides, &lo, &hi),
           EK_ERROR_OVERFLOW, "layout shape %s strides %s overflows int64",
           format_shape(ndim, shape).c_str(), format_shape(ndim, strides).c_str());
  // Every stride must stay an int64 in bytes, even one of a size-1 dim that
  // reaches nothing: the backends step through memory in bytes.
  EK_FORWARD(check_byte_strides(ndim, strides, base->dtype));
  if (hi < lo) return EK_SUCCESS;  // empty: reaches nothing
  int64_t capacity = static_cast<int64_t>(base->storage->bytes / ek_dtype_size(base->dtype));
  // Written so that no sum can overflow: lo <= 0 <= hi.
  if (offset >= 0 && offset <= capacity && lo >= -offset && hi < capacity - offset)
    return EK_SUCCESS;
  int64_t first = 0, last = 0;
  std::string reach = "[" + std::to_string(lo) + ", " + std::to_string(hi) + "] past the offset";
  if (!__builtin_add_overflow(offset, lo, &first) && !__builtin_add_overflow(offset, hi, &last))
    reach = "[" + std::to_string(first) + ", " + std::to_string(last) + "]";
  return fail(EK_ERROR_INDEX,
              "shape %s strides %s offset %" PRId64 " reaches elements %s outside the storage of %" PRId64
              " elements",
              format_shape(ndim, shape).c_str(), format_shape(ndim, strides).c_str(), offset,
              reach.c_str(), capacity);
  return EK_SUCCESS;
}

void tensor_set_layout(ek_tensor t, int ndim, const int64_t *shape, const int64_t *strides,
                       int64_t offset) {
  t->ndim = ndim;
  for (int i = 0; i < ndim; ++i) {
    t->shape[i] = shape[i];
    t->strides[i] = strides[i];
  }
  t->offset = offset;
}

}  // namespace ek

using namespace ek;

extern "C" {

EK_API size_t ek_dtype_size(ek_dtype dtype) {
  static const size_t sizes[EK_NUM_DTYPES] = {1, 1, 1, 2, 4, 8, 2, 2, 4, 8, 2, 4, 8, 8, 16};
  return dtype_valid(dtype) ? sizes[dtype] : 0;
}

EK_API const char *ek_dtype_name(ek_dtype dtype) {
  static const char *names[EK_NUM_DTYPES] = {"bool",    "uint8",    "int8",    "int16",
                                             "int32",   "int64",    "float16", "bfloat16",
                                             "float32", "float64", "uint16",  "uint32",
                                             "uint64", "complex64", "complex128"};
  return dtype_valid(dtype) ? names[dtype] : "unknown";
}

EK_API ek_status ek_tensor_empty(ek_stream stream, ek_context ctx, int ndim,
                                 const int64_t *shape, ek_dtype dtype, ek_tensor *out) {
  EK_API_ENTRY;
  EK_CHECK_NULL(out);
  ek_stream s = nullptr;
  EK_FORWARD(resolve_creator(stream, ctx, &ctx, &s));
  return new_tensor(ctx, ndim, shape, dtype, s, out);
}

EK_API ek_status ek_tensor_from_host(ek_stream stream, ek_context ctx, int ndim,
                                     const int64_t *shape, ek_dtype dtype, const void *data,
                                     ek_tensor *out) {
  EK_API_ENTRY;
  EK_CHECK_NULL(out);
  ek_stream s = nullptr;
  EK_FORWARD(resolve_creator(stream, ctx, &ctx, &s));
  EK_FORWARD(refuse_capture(s));
  EK_PROFILE_OP(nullptr, ctx, s, EK_IN(), EK_OUT(out));
  ek_tensor t = nullptr;
  EK_FORWARD(new_tensor(ctx, ndim, shape, dtype, s, &t));
  uint64_t bytes = t->storage->bytes;
  ek_status st = EK_SUCCESS;
  if (bytes > 0 && !data) st = fail(EK_ERROR_NULL_POINTER, "data is NULL");
  if (st == EK_SUCCESS) st = memcpy_any(ctx, t->storage->data, data, bytes, s);
  // The caller may reuse data once we return: wait for the copy.
  if (st == EK_SUCCESS && ctx->is_cuda()) st = gpu::stream_synchronize(s->native);
  if (st != EK_SUCCESS) {
    ek_tensor_release(t);
    return st;
  }
  *out = t;
  return EK_SUCCESS;
}

EK_API ek_status ek_tensor_to_host(ek_stream stream, ek_tensor t, void *dst, size_t bytes) {
  EK_API_ENTRY;
  EK_CHECK_TENSOR(t);
  ek_context ctx = t->storage->ctx;
  EK_PROFILE_OP(nullptr, ctx, stream, EK_IN(t), EK_OUT());
  ek_stream s = nullptr;
  EK_FORWARD(resolve_stream(ctx, stream, &s));
  uint64_t need = static_cast<uint64_t>(tensor_numel(t)) * ek_dtype_size(t->dtype);
  EK_CHECK(bytes == need, EK_ERROR_SHAPE,
           "dst holds %zu bytes but the %s tensor of shape %s needs %" PRIu64, bytes,
           ek_dtype_name(t->dtype), format_shape(t->ndim, t->shape).c_str(), need);
  if (need == 0) return EK_SUCCESS;
  EK_CHECK_NULL(dst);
  EK_FORWARD(copy_to_host_contiguous(t, dst, s));
  return ctx->is_cuda() ? pending_index_error(s) : EK_SUCCESS;
}

EK_API ek_status ek_tensor_wrap(ek_context ctx, void *data, int ndim, const int64_t *shape,
                                const int64_t *strides, ek_dtype dtype, ek_deleter deleter,
                                void *user_data, ek_tensor *out) {
  EK_API_ENTRY;
  EK_CHECK_CONTEXT(ctx);
  EK_CHECK_NULL(out);
  return wrap_memory(ctx, data, ndim, shape, strides, dtype, deleter, user_data, out);
}

EK_API ek_status ek_tensor_retain(ek_tensor t) {
  EK_API_ENTRY;
  EK_FORWARD(check_handle(t, kTensorMagic, "ek_tensor", "t"));  // metadata: leaves t pending
  t->refs.fetch_add(1, std::memory_order_relaxed);
  return EK_SUCCESS;
}

EK_API ek_status ek_tensor_release(ek_tensor t) {
  EK_API_ENTRY;
  if (!t) return EK_SUCCESS;
  EK_FORWARD(check_handle(t, kTensorMagic, "ek_tensor", "t"));  // metadata: leaves t pending
  if (t->refs.fetch_sub(1, std::memory_order_acq_rel) != 1) return EK_SUCCESS;
  ek_context ctx = t->storage->ctx;
  if (t->storage->fusion_group.load(std::memory_order_acquire)) fusion::release_pending(t->storage);
  else release_storage(t->storage);
  t->magic = kDeadMagic;
  delete t;
  ctx->live_objects--;
  handle_destroyed();
  return EK_SUCCESS;
}

EK_API ek_status ek_tensor_get_info(ek_tensor t, ek_tensor_info *info) {
  EK_API_ENTRY;
  EK_FORWARD(check_handle(t, kTensorMagic, "ek_tensor", "t"));  // metadata: leaves t pending
  EK_CHECK_NULL(info);
  EK_CHECK_STRUCT(info, ek_tensor_info);
  ek_tensor_info i{};
  i.dtype = t->dtype;
  i.ndim = t->ndim;
  i.shape = t->ndim ? t->shape : nullptr;  // borrowed from the handle (ek.h)
  i.strides = t->ndim ? t->strides : nullptr;
  i.offset = t->offset;
  i.numel = tensor_numel(t);
  i.nbytes = static_cast<uint64_t>(i.numel) * ek_dtype_size(t->dtype);
  i.is_contiguous = tensor_contiguous(t) ? 1 : 0;
  i.data = tensor_data(t);
  i.device = t->storage->ctx->device;
  i.storage_bytes = t->storage->bytes;
  write_struct(info, i, info->struct_size);
  return EK_SUCCESS;
}

EK_API ek_status ek_tensor_get_data(ek_tensor t, void **data) {
  EK_API_ENTRY;
  EK_CHECK_TENSOR(t);
  EK_CHECK_NULL(data);
  *data = tensor_data(t);
  return EK_SUCCESS;
}

EK_API ek_status ek_tensor_get_context(ek_tensor t, ek_context *ctx) {
  EK_API_ENTRY;
  EK_FORWARD(check_handle(t, kTensorMagic, "ek_tensor", "t"));  // metadata: leaves t pending
  EK_CHECK_NULL(ctx);
  *ctx = t->storage->ctx;
  return EK_SUCCESS;
}

EK_API ek_status ek_tensor_record_stream(ek_stream stream, ek_tensor t) {
  EK_API_ENTRY;
  EK_CHECK_TENSOR(t);
  ek_context ctx = t->storage->ctx;
  ek_stream s = nullptr;
  EK_FORWARD(resolve_stream(ctx, stream, &s));
  if (!t->storage->pooled) return EK_SUCCESS;  // foreign memory: its owner orders its reuse
  EK_CHECK(!stream_capturing(s), EK_ERROR_CAPTURE,
           "stream is capturing a graph: the pool cannot record an event on it");
  return pool_record_stream(ctx, t->storage->data, s->id);
}

}  // extern "C"
