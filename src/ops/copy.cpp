// ek_copy and the ops built on it (contiguous, cast, reshape), fill, arange:
// argument checks and broadcasting here, element loops in src/cpu and kernels/.
#include <cinttypes>
#include <cmath>
#include <cstring>
#include <numeric>
#include <utility>
#include <vector>

#include "core/backend.hpp"
#include "core/gpu.hpp"
#include "util/half.hpp"
#include "core/internal.hpp"
#include "core/fusion.hpp"
#include "core/profiler.hpp"
#include "ops/promote.hpp"
#include "ops/range_plan.hpp"

namespace ek {
namespace {

std::string arange_args(const ek_scalar &start, const ek_scalar &stop, const ek_scalar &step) {
  return "arange(" + format_scalar(start) + ", " + format_scalar(stop) + ", " +
         format_scalar(step) + ")";
}

// Float dtypes: in double, element k = start + k * step.
ek_status plan_float_arange(const ek_scalar &start, const ek_scalar &stop, const ek_scalar &step,
                            RangePlan *plan) {
  const double a = scalar_to_double(start), b = scalar_to_double(stop), d = scalar_to_double(step);
  EK_CHECK(std::isfinite(a) && std::isfinite(b) && std::isfinite(d) && d != 0,
           EK_ERROR_INVALID_ARGUMENT, "%s: bounds must be finite, step nonzero",
           arange_args(start, stop, step).c_str());
  const double count = std::ceil((b - a) / d);
  EK_CHECK(count < 9.0e18, EK_ERROR_OVERFLOW, "%s has too many elements",
           arange_args(start, stop, step).c_str());
  *plan = arange_plan(EK_FLOAT64, a, d, 0, 0);
  plan->count = count > 0 ? static_cast<int64_t>(count) : 0;
  return EK_SUCCESS;
}

// stop as an exact integer; beyond +-2^126 it is clamped there, which keeps
// the count's sign and leaves the elements outside int64 all the same.
__int128 clamped_stop(const ek_scalar &stop) {
  constexpr double kLimit = 0x1p126;
  switch (raw_enum(stop.kind)) {
    case EK_SCALAR_UINT64: return static_cast<__int128>(stop.u);
    case EK_SCALAR_FLOAT64:
      return static_cast<__int128>(stop.f > kLimit ? kLimit : stop.f < -kLimit ? -kLimit : stop.f);
    default: return stop.i;
  }
}

// Integer dtypes: exact in integers (int128 for the count), every element
// checked to fit dtype.
ek_status plan_int_arange(const ek_scalar &start, const ek_scalar &stop, const ek_scalar &step,
                          ek_dtype dtype, RangePlan *plan) {
  const std::string args = arange_args(start, stop, step);
  EK_CHECK(scalar_is_integral(start) && scalar_is_integral(stop) && scalar_is_integral(step),
           EK_ERROR_INVALID_ARGUMENT,
           "%s for %s needs integral start and step, and an integral stop", args.c_str(),
           ek_dtype_name(dtype));
  int64_t a = 0, d = 0;
  const bool fits = scalar_to_int64(start, &a) && scalar_to_int64(step, &d);
  EK_CHECK(!fits || d != 0, EK_ERROR_INVALID_ARGUMENT, "%s: step must be nonzero", args.c_str());
  __int128 count = 0, last = a;
  if (fits) {
    const __int128 span = clamped_stop(stop) - a;  // ceil(span / d), as arange's length
    count = span / d + ((span % d != 0) && ((span > 0) == (d > 0)) ? 1 : 0);
    if (count < 0) count = 0;
    if (count > 0) last = a + (count - 1) * d;
  }
  const bool ok = fits && (count == 0 || (a >= detail::int_min(dtype) && a <= detail::int_max(dtype) &&
                                          last >= detail::int_min(dtype) &&
                                          last <= detail::int_max(dtype)));
  EK_CHECK(ok, EK_ERROR_INVALID_ARGUMENT, "%s: the values do not fit %s", args.c_str(),
           ek_dtype_name(dtype));
  EK_CHECK(count <= INT64_MAX, EK_ERROR_OVERFLOW, "%s has too many elements", args.c_str());
  *plan = arange_plan(dtype, 0, 0, a, d);
  plan->count = static_cast<int64_t>(count);
  return EK_SUCCESS;
}

}  // namespace

bool writes_overlap(const ek_tensor_s *dst) {
  for (int i = 0; i < dst->ndim; ++i)
    if (dst->strides[i] == 0 && dst->shape[i] > 1) return true;
  return false;
}

// Byte range [lo, hi) a descriptor touches.
static void byte_range(const TensorDesc &d, uintptr_t *lo, uintptr_t *hi) {
  auto elem = static_cast<int64_t>(dtype_size(d.dtype));
  int64_t min = 0, max = 0;
  for (int i = 0; i < d.ndim; ++i) {
    int64_t reach = (d.shape[i] - 1) * d.strides[i];
    (reach < 0 ? min : max) += reach;
  }
  auto base = reinterpret_cast<uintptr_t>(d.data);
  *lo = base + static_cast<uintptr_t>(min * elem);
  *hi = base + static_cast<uintptr_t>((max + 1) * elem);
}

bool same_layout(const TensorDesc &a, const TensorDesc &b) {
  if (a.data != b.data || a.dtype != b.dtype || a.ndim != b.ndim) return false;
  for (int i = 0; i < a.ndim; ++i)
    if (a.shape[i] != b.shape[i] || (a.shape[i] > 1 && a.strides[i] != b.strides[i]))
      return false;
  return true;
}

static bool desc_empty(const TensorDesc &d) {
  for (int i = 0; i < d.ndim; ++i)
    if (d.shape[i] == 0) return true;
  return false;
}

namespace {

// sum(c[k] * x[k]) over 0 <= x[k] <= u[k], every c[k] > 0, sorted by
// decreasing c; reach[k] is the largest sum of terms k.., gcd[k] their gcd.
struct Terms {
  int n = 0;
  int64_t c[2 * kMaxDims], u[2 * kMaxDims], reach[2 * kMaxDims + 1], gcd[2 * kMaxDims + 1];
};

// Whether some sum of terms k.. lies in [lo, hi]: a depth-first search over
// the x of each term, pruned by the reach and the gcd of the rest. Exact
// unless *budget runs out, in which case the answer is a conservative true.
bool sum_in(const Terms &t, int k, int64_t lo, int64_t hi, int64_t *budget) {
  if (lo < 0) lo = 0;
  if (hi > t.reach[k]) hi = t.reach[k];
  if (lo > hi) return false;
  if (k == t.n) return true;                             // lo <= 0 <= hi
  if (hi / t.gcd[k] * t.gcd[k] < lo) return false;       // no multiple of the gcd in range
  const int64_t c = t.c[k], rest = t.reach[k + 1];
  int64_t first = lo > rest ? (lo - rest + c - 1) / c : 0;
  int64_t last = hi / c < t.u[k] ? hi / c : t.u[k];
  for (int64_t x = first; x <= last; ++x) {
    if (--*budget < 0) return true;
    if (sum_in(t, k + 1, lo - c * x, hi - c * x, budget)) return true;
  }
  return false;
}

// Adds |stride| * (size - 1) of d's dims as terms (equal coefficients merged);
// false when a merged bound overflows.
bool add_terms(const TensorDesc &d, Terms *t) {
  const auto elem = static_cast<int64_t>(dtype_size(d.dtype));
  for (int i = 0; i < d.ndim; ++i) {
    if (d.shape[i] <= 1 || d.strides[i] == 0) continue;
    const int64_t c = (d.strides[i] < 0 ? -d.strides[i] : d.strides[i]) * elem, u = d.shape[i] - 1;
    int k = 0;
    while (k < t->n && t->c[k] != c) ++k;
    if (k == t->n) {
      t->c[t->n] = c;
      t->u[t->n++] = 0;
    }
    if (__builtin_add_overflow(t->u[k], u, &t->u[k])) return false;
  }
  return true;
}

// Sorts by decreasing coefficient and fills reach and gcd; false on overflow.
bool finish_terms(Terms *t) {
  for (int i = 1; i < t->n; ++i)
    for (int j = i; j > 0 && t->c[j] > t->c[j - 1]; --j) {
      std::swap(t->c[j], t->c[j - 1]);
      std::swap(t->u[j], t->u[j - 1]);
    }
  t->reach[t->n] = 0;
  t->gcd[t->n] = 0;
  for (int k = t->n - 1; k >= 0; --k) {
    int64_t span = 0;
    if (__builtin_mul_overflow(t->c[k], t->u[k], &span) ||
        __builtin_add_overflow(span, t->reach[k + 1], &t->reach[k]))
      return false;
    t->gcd[k] = std::gcd(t->c[k], t->gcd[k + 1]);
  }
  return true;
}

constexpr int64_t kOverlapBudget = 1 << 14;  // search steps before answering "may overlap"

}  // namespace

bool ranges_overlap(const TensorDesc &a, const TensorDesc &b) {
  // An empty layout touches nothing; its strides may be anything that fits
  // in bytes, so byte_range's sum of (size - 1) * stride could overflow.
  if (desc_empty(a) || desc_empty(b)) return false;
  uintptr_t alo, ahi, blo, bhi;
  byte_range(a, &alo, &ahi);
  byte_range(b, &blo, &bhi);
  if (!(alo < bhi && blo < ahi)) return false;
  // Byte alo + sum(|sa| * i) + p == byte blo + sum(|sb| * j) + q, with p, q
  // inside the elements, counting every index from its dim's lowest address.
  // Taking j from the other end and r = p + (eb - 1 - q) leaves only positive
  // terms: sum(|sa| * i) + sum(|sb| * j') + r == bhi - 1 - alo, r <= ea + eb - 2.
  Terms t;
  if (!add_terms(a, &t) || !add_terms(b, &t) || !finish_terms(&t)) return true;
  const auto target = static_cast<int64_t>(bhi - 1 - alo);
  const auto slack = static_cast<int64_t>(dtype_size(a.dtype) + dtype_size(b.dtype)) - 2;
  int64_t budget = kOverlapBudget;
  return sum_in(t, 0, target - slack, target, &budget);
}

namespace {

TensorDesc contiguous_desc(void *data, int dtype, int ndim, const int64_t *shape) {
  TensorDesc d{};
  d.data = data;
  d.dtype = dtype;
  d.ndim = ndim;
  for (int i = 0; i < ndim; ++i) d.shape[i] = shape[i];
  contiguous_strides(ndim, shape, d.strides);
  return d;
}

size_t desc_bytes(const TensorDesc &d) {
  return static_cast<size_t>(desc_numel(d)) * dtype_size(d.dtype);
}

// dst and src on one device, possibly overlapping: goes through scratch then.
ek_status same_device_copy(ek_context ctx, ek_stream s, const TensorDesc &dst,
                           const TensorDesc &src) {
  if (same_layout(dst, src)) return EK_SUCCESS;
  if (!ranges_overlap(dst, src)) return device_copy(ctx, s, dst, src);
  Scratch tmp(ctx, s);
  EK_FORWARD(tmp.allocate(desc_bytes(src)));
  TensorDesc mid = contiguous_desc(tmp.get(), src.dtype, src.ndim, src.shape);
  EK_FORWARD(device_copy(ctx, s, mid, src));
  return device_copy(ctx, s, dst, mid);
}

// Host <-> device: src becomes contiguous in dst's dtype on its own device,
// crosses with one memcpy, then lands in dst's strides.
ek_status cross_device_copy(ek_tensor dst, const TensorDesc &dd, ek_tensor src,
                            const TensorDesc &sd, ek_stream stream) {
  ek_context dctx = dst->storage->ctx, sctx = src->storage->ctx;
  ek_context cuda_ctx = dctx->is_cuda() ? dctx : sctx;
  ek_stream s = nullptr;
  EK_FORWARD(resolve_stream(cuda_ctx, stream, &s));
  EK_FORWARD(refuse_capture(s));
  size_t bytes = desc_bytes(dd);
  if (bytes == 0) return EK_SUCCESS;
  ek_stream src_s = sctx == cuda_ctx ? s : &sctx->default_stream;
  ek_stream dst_s = dctx == cuda_ctx ? s : &dctx->default_stream;
  Scratch src_tmp(sctx, src_s), dst_tmp(dctx, dst_s);
  TensorDesc packed = contiguous_desc(sd.data, dd.dtype, dd.ndim, dd.shape);
  if (!same_layout(packed, sd)) {
    EK_FORWARD(src_tmp.allocate(bytes));
    packed.data = src_tmp.get();
    EK_FORWARD(device_copy(sctx, src_s, packed, sd));
  }
  TensorDesc landing = contiguous_desc(dd.data, dd.dtype, dd.ndim, dd.shape);
  if (!same_layout(landing, dd)) {
    EK_FORWARD(dst_tmp.allocate(bytes));
    landing.data = dst_tmp.get();
  }
  EK_FORWARD(memcpy_any(cuda_ctx, landing.data, packed.data, bytes, s));
  if (landing.data != dd.data) EK_FORWARD(device_copy(dctx, dst_s, dd, landing));
  // Host scratch or a host destination must not be touched before the copy lands.
  if (cuda_ctx->is_cuda()) EK_FORWARD(gpu::stream_synchronize(s->native));
  return EK_SUCCESS;
}

// `to` waits for the work enqueued on `from` so far (any two devices).
ek_status order_after(ek_stream from, ek_stream to) {
  void *event = nullptr;
  EK_FORWARD(activate(from->ctx));  // an event is recorded on its own device's streams
  EK_FORWARD(gpu::event_create(false, &event));
  ek_status st = gpu::event_record(event, from->native);
  if (st == EK_SUCCESS) st = gpu::stream_wait_event(to->native, event);
  gpu::event_destroy(event);  // CUDA keeps it until the wait is done
  return st;
}

// Between two CUDA contexts, on dst's stream; ek.h's peer-copy paragraph says
// how the source's default stream is ordered on both sides of the copy.
ek_status peer_copy(ek_tensor dst, const TensorDesc &dd, ek_tensor src, const TensorDesc &sd,
                    ek_stream stream) {
  ek_context dctx = dst->storage->ctx, sctx = src->storage->ctx;
  ek_stream s = nullptr, src_s = &sctx->default_stream;
  EK_FORWARD(resolve_stream(dctx, stream, &s));
  const size_t bytes = desc_bytes(dd);
  if (bytes == 0) return EK_SUCCESS;
  const int ddev = dctx->device.index, sdev = sctx->device.index;
  bool direct = ddev == sdev;
  if (!direct) EK_FORWARD(gpu::enable_peer_access(ddev, sdev, &direct));
  TensorDesc packed = contiguous_desc(sd.data, dd.dtype, dd.ndim, dd.shape);
  TensorDesc landing = contiguous_desc(dd.data, dd.dtype, dd.ndim, dd.shape);
  const bool plain = same_layout(packed, sd) && same_layout(landing, dd);
  // Freed on src_s after its wait for the copy below, so reuse follows the copy.
  Scratch src_tmp(sctx, src_s), dst_tmp(dctx, s);
  if (!plain && !direct && !same_layout(packed, sd)) {
    EK_FORWARD(src_tmp.allocate(bytes));
    packed.data = src_tmp.get();
    EK_FORWARD(device_copy(sctx, src_s, packed, sd));
  }
  if (src->storage->pooled) EK_FORWARD(ek_tensor_record_stream(src_s, src));
  EK_FORWARD(order_after(src_s, s));
  EK_FORWARD(activate(dctx));
  if (!plain && direct) {
    EK_FORWARD(device_copy(dctx, s, dd, sd));  // reads src through peer access
  } else {
    if (!same_layout(landing, dd)) {
      EK_FORWARD(dst_tmp.allocate(bytes));
      landing.data = dst_tmp.get();
    }
    EK_FORWARD(gpu::memcpy_peer_async(landing.data, ddev, packed.data, sdev, bytes, s->native));
    if (landing.data != dd.data) EK_FORWARD(device_copy(dctx, s, dd, landing));
  }
  return order_after(s, src_s);
}

ek_status copy_tensor(ek_stream stream, ek_tensor dst, ek_tensor src) {
  EK_FORWARD(check_cast(src->dtype, dst->dtype));
  EK_CHECK(!writes_overlap(dst), EK_ERROR_INVALID_ARGUMENT,
           "dst is a broadcast view (a stride-0 dim): its elements alias");
  TensorDesc sd{};
  EK_FORWARD(broadcast_to(src, dst, &sd));
  TensorDesc dd = tensor_desc(dst);
  ek_context dctx = dst->storage->ctx, sctx = src->storage->ctx;
  if (dctx == sctx || (!dctx->is_cuda() && !sctx->is_cuda())) {
    ek_stream s = nullptr;
    EK_FORWARD(resolve_stream(dctx, stream, &s));
    return same_device_copy(dctx, s, dd, sd);
  }
  if (dctx->is_cuda() && sctx->is_cuda()) return peer_copy(dst, dd, src, sd, stream);
  return cross_device_copy(dst, dd, src, sd, stream);
}

}  // namespace

// src's layout broadcast to dst's shape (NumPy rules, aligned on the right).
ek_status broadcast_to(const ek_tensor_s *src, const ek_tensor_s *dst, TensorDesc *out) {
  EK_CHECK(src->ndim <= dst->ndim, EK_ERROR_SHAPE, "cannot broadcast shape %s to %s",
           format_shape(src->ndim, src->shape).c_str(),
           format_shape(dst->ndim, dst->shape).c_str());
  *out = tensor_desc(src);
  out->ndim = dst->ndim;
  int lead = dst->ndim - src->ndim;
  for (int i = dst->ndim - 1; i >= 0; --i) {
    int64_t size = i < lead ? 1 : src->shape[i - lead];
    int64_t stride = i < lead ? 0 : src->strides[i - lead];
    EK_CHECK(size == dst->shape[i] || size == 1, EK_ERROR_SHAPE,
             "cannot broadcast shape %s to %s", format_shape(src->ndim, src->shape).c_str(),
             format_shape(dst->ndim, dst->shape).c_str());
    out->shape[i] = dst->shape[i];
    out->strides[i] = size == dst->shape[i] ? stride : 0;
  }
  return EK_SUCCESS;
}

ek_status scalar_to_element(const ek_scalar &value, ek_dtype dtype, uint64_t *elem) {
  EK_FORWARD(check_scalar_or_complex(value, "value"));
  EK_CHECK(!dtype_is_complex(dtype), EK_ERROR_DTYPE, "value %s: %s elements are not taken here",
           format_scalar(value).c_str(), ek_dtype_name(dtype));
  EK_CHECK(value.kind != EK_SCALAR_COMPLEX, EK_ERROR_DTYPE,
           "value %s is complex; %s is not (take its real part explicitly)", format_scalar(value).c_str(),
           ek_dtype_name(dtype));
  EK_CHECK(detail::scalar_element(value, dtype, elem), EK_ERROR_INVALID_ARGUMENT,
           "value %s does not fit the integer dtype %s (range %" PRId64 "..%" PRId64 ")",
           format_scalar(value).c_str(), ek_dtype_name(dtype), detail::int_min(dtype),
           detail::int_max(dtype));
  return EK_SUCCESS;
}

// Writes into *out when given (checking shape, dtype, context), else creates it.
ek_status prepare_out(ek_context ctx, ek_stream s, int ndim, const int64_t *shape,
                      ek_dtype dtype, ek_tensor *out, bool *created) {
  *created = *out == nullptr;
  if (*created) return new_tensor(ctx, ndim, shape, dtype, s, out);
  ek_tensor o = *out;
  EK_CHECK_TENSOR(o);
  EK_CHECK(o->storage->ctx == ctx, EK_ERROR_INVALID_ARGUMENT,
           "out belongs to another context than the input");
  EK_CHECK(o->dtype == dtype, EK_ERROR_DTYPE, "out has dtype %s; expected %s",
           ek_dtype_name(o->dtype), ek_dtype_name(dtype));
  bool same = o->ndim == ndim;
  for (int i = 0; same && i < ndim; ++i) same = o->shape[i] == shape[i];
  EK_CHECK(same, EK_ERROR_SHAPE, "out has shape %s; expected %s",
           format_shape(o->ndim, o->shape).c_str(), format_shape(ndim, shape).c_str());
  EK_CHECK(!writes_overlap(o), EK_ERROR_INVALID_ARGUMENT,
           "out is a broadcast view (a stride-0 dim): its elements alias");
  return EK_SUCCESS;
}

ek_status converting_out(ek_context ctx, ek_stream s, int ndim, const int64_t *shape,
                         ek_dtype dtype, ek_tensor o, ek_tensor *tmp) {
  // The op writes tmp, then copies it into o here: nothing may stay pending.
  fusion::forbid_in_call();
  EK_FORWARD(fusion::flush_tensor(o));
  bool created = false;
  EK_FORWARD(prepare_out(ctx, s, ndim, shape, o->dtype, &o, &created));
  static const char *const kCategory[] = {"bool", "integer", "float", "complex"};
  EK_CHECK(category(dtype) <= category(o->dtype), EK_ERROR_DTYPE,
           "out has dtype %s; the result is %s, whose category (%s) is above out's (%s): an "
           "out of another dtype than the result's must be of the same or a higher category "
           "(bool < integer < float < complex)",
           ek_dtype_name(o->dtype), ek_dtype_name(dtype), kCategory[category(dtype)],
           kCategory[category(o->dtype)]);
  return new_tensor(ctx, ndim, shape, dtype, s, tmp);
}

ek_status device_copy(ek_context ctx, ek_stream s, const TensorDesc &dst, const TensorDesc &src) {
  if (desc_numel(dst) == 0) return EK_SUCCESS;
  if (dtype_is_complex(dst.dtype) || dtype_is_complex(src.dtype)) return complex_device_copy(ctx, s, dst, src);
  return ctx->backend->copy(ctx, s, dst, src);
}

ek_status copy_to_host_contiguous(const ek_tensor_s *t, void *dst, ek_stream s) {
  EK_FORWARD(refuse_capture(s));
  ek_context ctx = t->storage->ctx;
  TensorDesc src = tensor_desc(t);
  TensorDesc host = contiguous_desc(dst, t->dtype, t->ndim, t->shape);
  if (!ctx->is_cuda()) return device_copy(ctx, s, host, src);
  Scratch tmp(ctx, s);
  TensorDesc packed = contiguous_desc(src.data, t->dtype, t->ndim, t->shape);
  if (!same_layout(packed, src)) {
    EK_FORWARD(tmp.allocate(desc_bytes(src)));
    packed.data = tmp.get();
    EK_FORWARD(device_copy(ctx, s, packed, src));
  }
  EK_FORWARD(memcpy_any(ctx, dst, packed.data, desc_bytes(src), s));
  return gpu::stream_synchronize(s->native);
}

// ek_cast's copy: a cast between tensors of one context that do not overlap
// may join a fusion group; any other goes through copy_tensor, its operands
// produced first.
ek_status cast_into(ek_stream s, ek_tensor o, ek_tensor t) {
  ek_context ctx = t->storage->ctx;
  fusion::Node n;
  n.kind = fusion::kCast;
  n.dst = tensor_desc(o);
  n.src = tensor_desc(t);
  if (o->storage->ctx == ctx && desc_numel(n.dst) > 0 && !ranges_overlap(n.dst, n.src))
    return fusion::run_node(ctx, s, n, o, {t});
  fusion::forbid_in_call();
  EK_FORWARD(fusion::flush_tensor(t));
  EK_FORWARD(fusion::flush_tensor(o));
  return copy_tensor(s, o, t);
}

ek_status try_reshape_view(const ek_tensor_s *t, int ndim, const int64_t *shape, bool *viewable,
                           ek_tensor *out);
ek_status infer_shape(const ek_tensor_s *t, int ndim, const int64_t *shape, int64_t *out);

}  // namespace ek

using namespace ek;

extern "C" {

EK_API ek_status ek_copy(ek_stream stream, ek_tensor src, ek_tensor dst) {
  EK_API_ENTRY;
  EK_CHECK_TENSOR(dst);
  EK_CHECK_TENSOR(src);
  // A copy between devices runs on the CUDA side's stream.
  ek_context ctx = dst->storage->ctx->is_cuda() ? dst->storage->ctx : src->storage->ctx;
  EK_PROFILE_OP(nullptr, ctx, stream, EK_IN(src), EK_OUT(&dst));
  return copy_tensor(stream, dst, src);
}

EK_API ek_status ek_contiguous(ek_stream stream, ek_tensor t, ek_tensor *out) {
  EK_API_ENTRY;
  EK_CHECK_TENSOR(t);
  EK_CHECK_NULL(out);
  if (!*out && tensor_contiguous(t)) {
    EK_FORWARD(ek_tensor_retain(t));
    *out = t;
    return EK_SUCCESS;
  }
  ek_context ctx = t->storage->ctx;
  EK_PROFILE_OP(nullptr, ctx, stream, EK_IN(t), EK_OUT(out));
  ek_stream s = nullptr;
  EK_FORWARD(resolve_stream(ctx, stream, &s));
  return fill_out(ctx, s, t->ndim, t->shape, t->dtype, out,
                  [&](ek_tensor o) { return copy_tensor(s, o, t); });
}

EK_API ek_status ek_cast(ek_stream stream, ek_tensor t, ek_dtype dtype, ek_tensor *out) {
  EK_API_ENTRY;
  fusion::FusibleCall fusible;
  EK_CHECK_TENSOR(t);
  EK_CHECK_NULL(out);
  EK_CHECK(dtype_valid(dtype), EK_ERROR_DTYPE, "unknown dtype %d", static_cast<int>(dtype));
  ek_context ctx = t->storage->ctx;
  EK_PROFILE_OP(nullptr, ctx, stream, EK_IN(t), EK_OUT(out));
  ek_stream s = nullptr;
  EK_FORWARD(resolve_stream(ctx, stream, &s));
  return fill_out(ctx, s, t->ndim, t->shape, dtype, out, [&](ek_tensor o) { return cast_into(s, o, t); });
}

EK_API ek_status ek_reshape(ek_stream stream, ek_tensor t, int ndim, const int64_t *shape,
                            ek_tensor *out) {
  EK_API_ENTRY;
  EK_CHECK_TENSOR(t);
  EK_CHECK_NULL(out);
  ek_context ctx = t->storage->ctx;
  ek_stream s = nullptr;
  EK_FORWARD(resolve_stream(ctx, stream, &s));
  int64_t full[EK_MAX_DIMS];
  EK_FORWARD(infer_shape(t, ndim, shape, full));
  if (!*out) {
    bool viewable = false;
    EK_FORWARD(try_reshape_view(t, ndim, full, &viewable, out));
    if (viewable) return EK_SUCCESS;
  }
  EK_PROFILE_OP(nullptr, ctx, stream, EK_IN(t), EK_OUT(out));  // only reshapes that copy
  return fill_out(ctx, s, ndim, full, t->dtype, out, [&](ek_tensor o) {
    // Values travel in C order: view o with t's shape when o is contiguous.
    EK_CHECK(tensor_contiguous(o), EK_ERROR_INVALID_ARGUMENT,
             "out must be contiguous for a copying reshape");
    TensorDesc dd = contiguous_desc(tensor_data(o), o->dtype, t->ndim, t->shape);
    return same_device_copy(ctx, s, dd, tensor_desc(t));
  });
}

EK_API ek_status ek_fill(ek_stream stream, ek_scalar value, ek_tensor t) {
  EK_API_ENTRY;
  EK_CHECK_TENSOR(t);
  EK_PROFILE_OP(nullptr, t->storage->ctx, stream, EK_IN(), EK_OUT(&t));
  EK_FORWARD(check_scalar_or_complex(value, "value"));
  ek_context ctx = t->storage->ctx;
  ek_stream s = nullptr;
  EK_FORWARD(resolve_stream(ctx, stream, &s));
  if (tensor_numel(t) == 0) {  // still checks that the value fits
    uint64_t elem = 0;
    return dtype_is_complex(t->dtype) ? EK_SUCCESS : scalar_to_element(value, t->dtype, &elem);
  }
  return fill_value(ctx, s, tensor_desc(t), value);
}

EK_API ek_status ek_arange(ek_stream stream, ek_context ctx, ek_scalar start, ek_scalar stop,
                           ek_scalar step, ek_dtype dtype, ek_tensor *out) {
  EK_API_ENTRY;
  EK_CHECK_NULL(out);
  ek_stream s = nullptr;
  EK_FORWARD(resolve_creator(stream, ctx, &ctx, &s));
  EK_CHECK(dtype_valid(dtype) && dtype != EK_BOOL && !dtype_is_complex(dtype), EK_ERROR_DTYPE,
           "arange needs a real numeric dtype, not %s", ek_dtype_name(dtype));
  EK_PROFILE_OP(nullptr, ctx, s, EK_IN(), EK_OUT(out));
  EK_CHECK_SCALAR(start);
  EK_CHECK_SCALAR(stop);
  EK_CHECK_SCALAR(step);
  RangePlan plan;
  EK_FORWARD(dtype_is_float(dtype) ? plan_float_arange(start, stop, step, &plan)
                                   : plan_int_arange(start, stop, step, dtype, &plan));
  const int64_t shape[1] = {plan.count};
  return fill_out(ctx, s, 1, shape, dtype, out, [&](ek_tensor o) {
    if (plan.count == 0) return EK_SUCCESS;
    return ctx->backend->arange(ctx, s, tensor_desc(o), plan);
  });
}

}  // extern "C"
