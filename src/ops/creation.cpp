// Creation ops: full, linspace, eye, tril, triu. full and eye are fills (eye
// fills a strided view of its diagonal); linspace runs arange's range plan;
// tril and triu run the backends' triangle plan, one pass, in place allowed.
#include <algorithm>
#include <cinttypes>
#include <cmath>
#include <string>

#include "core/backend.hpp"
#include "core/internal.hpp"
#include "core/profiler.hpp"
#include "ops/range_plan.hpp"
#include "ops/triangle_plan.hpp"
#include "util/half.hpp"

namespace ek {
namespace {

std::string linspace_args(const ek_scalar &start, const ek_scalar &stop, int64_t num, int endpoint) {
  return "linspace(" + format_scalar(start) + ", " + format_scalar(stop) + ", num=" +
         std::to_string(num) + (endpoint ? ")" : ", endpoint=false)");
}

// NumPy's linspace in double: step = (stop - start) / div with div = num - 1
// (num without the endpoint); element k = start + k * step, or start +
// (k / div) * delta when step underflows to 0; the endpoint is stop exactly.
RangePlan linspace_plan(double a, double b, int64_t num, bool endpoint, ek_dtype dtype) {
  RangePlan p;
  p.count = num;
  p.start = a;
  p.stop = b;
  p.delta = b - a;
  const int64_t div = endpoint ? num - 1 : num;
  p.div = static_cast<double>(div);
  p.step = div > 0 ? p.delta / p.div : p.delta;  // one element: start + 0 * delta, as NumPy
  p.scaled = div > 0 && p.step == 0;
  p.last = endpoint && num > 1 ? num - 1 : -1;
  p.floor = dtype != EK_BOOL && !dtype_is_float(dtype);
  return p;
}

// Integer dtypes: the elements are monotonic in k, so the first and the last
// bound them all; each must lie in dtype's range (NaN never does).
ek_status check_linspace_fits(const RangePlan &p, ek_dtype dtype, const std::string &args) {
  if (!p.floor || p.count == 0) return EK_SUCCESS;
  for (int64_t k : {int64_t{0}, p.count - 1}) {
    const double v = detail::range_scalar(p, k).f;
    EK_CHECK(v >= static_cast<double>(detail::int_min(dtype)) && v < detail::int_above(dtype),
             EK_ERROR_INVALID_ARGUMENT, "%s: element %" PRId64 " is %g, outside %s", args.c_str(),
             k, v, ek_dtype_name(dtype));
  }
  return EK_SUCCESS;
}

// The diagonal k of a 2-D tensor as a 1-D descriptor (length 0 beyond it).
TensorDesc diagonal(const ek_tensor_s *t, int64_t k) {
  const int64_t rows = t->shape[0], cols = t->shape[1];
  // Off the matrix (k may then be INT64_MIN, whose negation overflows) the
  // diagonal is empty and starts at element (0, 0).
  const bool on = k < cols && k > -rows;
  const int64_t r0 = on && k < 0 ? -k : 0, c0 = on && k > 0 ? k : 0;
  int64_t len = 0;
  if (on) len = k >= 0 ? std::min(rows, cols - k) : std::min(rows + k, cols);
  TensorDesc d{};
  d.dtype = t->dtype;
  d.ndim = 1;
  d.shape[0] = len;
  d.strides[0] = len > 1 ? t->strides[0] + t->strides[1] : 1;  // element (1, 1) exists: no overflow
  d.data = len == 0 ? tensor_data(t)
                    : static_cast<char *>(tensor_data(t)) +
                          (r0 * t->strides[0] + c0 * t->strides[1]) *
                              static_cast<int64_t>(dtype_size(t->dtype));
  return d;
}

// out = x's lower (j - i <= k) or upper (j - i >= k) triangle over the last
// two dims; out may be x exactly (in place) but must not otherwise overlap.
ek_status triangle(ek_stream stream, ek_tensor x, int64_t k, bool lower, ek_tensor *out) {
  EK_CHECK_TENSOR(x);
  EK_CHECK_NULL(out);
  ek_context ctx = x->storage->ctx;
  EK_PROFILE_NAMED(lower ? "ek_tril" : "ek_triu", nullptr, ctx, stream, EK_IN(x), EK_OUT(out));
  EK_CHECK(x->ndim >= 2, EK_ERROR_SHAPE, "x must have at least 2 dims (a batch of matrices), not shape %s",
           format_shape(x->ndim, x->shape).c_str());
  ek_stream s = nullptr;
  EK_FORWARD(resolve_stream(ctx, stream, &s));
  return fill_out(ctx, s, x->ndim, x->shape, x->dtype, out, [&](ek_tensor o) {
    TrianglePlan p;
    p.dst = tensor_desc(o);
    p.src = tensor_desc(x);
    if (desc_numel(p.dst) == 0) return EK_SUCCESS;
    p.in_place = same_layout(p.dst, p.src);
    EK_CHECK(p.in_place || !ranges_overlap(p.dst, p.src), EK_ERROR_INVALID_ARGUMENT,
             "out partially overlaps x (only out == x, in place, is allowed)");
    const int64_t rows = x->shape[x->ndim - 2], cols = x->shape[x->ndim - 1];
    p.k = k < -rows ? -rows : (k > cols ? cols : k);
    p.lower = lower;
    return ctx->backend->triangle(ctx, s, p);
  });
}

}  // namespace
}  // namespace ek

using namespace ek;

extern "C" {

EK_API ek_status ek_full(ek_stream stream, ek_context ctx, int ndim, const int64_t *shape,
                         ek_dtype dtype, ek_scalar value, ek_tensor *out) {
  EK_API_ENTRY;
  EK_CHECK_NULL(out);
  ek_stream s = nullptr;
  EK_FORWARD(resolve_creator(stream, ctx, &ctx, &s));
  EK_PROFILE_OP(nullptr, ctx, s, EK_IN(), EK_OUT(out));
  int64_t numel = 0;
  uint64_t bytes = 0;
  EK_FORWARD(check_shape(ndim, shape, dtype, &numel, &bytes));
  EK_FORWARD(check_scalar_or_complex(value, "value"));
  uint64_t elem = 0;
  if (!dtype_is_complex(dtype)) EK_FORWARD(scalar_to_element(value, dtype, &elem));  // before allocating
  return fill_out(ctx, s, ndim, shape, dtype, out, [&](ek_tensor o) {
    return numel == 0 ? EK_SUCCESS : fill_value(ctx, s, tensor_desc(o), value);
  });
}

EK_API ek_status ek_linspace(ek_stream stream, ek_context ctx, ek_scalar start, ek_scalar stop,
                             int64_t num, int endpoint, ek_dtype dtype, ek_tensor *out) {
  EK_API_ENTRY;
  EK_CHECK_NULL(out);
  ek_stream s = nullptr;
  EK_FORWARD(resolve_creator(stream, ctx, &ctx, &s));
  EK_PROFILE_OP(nullptr, ctx, s, EK_IN(), EK_OUT(out));
  EK_CHECK(dtype_valid(dtype), EK_ERROR_DTYPE, "unknown dtype %d", static_cast<int>(dtype));
  EK_CHECK(!dtype_is_complex(dtype), EK_ERROR_DTYPE, "linspace needs a real dtype, not %s", ek_dtype_name(dtype));
  EK_CHECK_SCALAR(start);
  EK_CHECK_SCALAR(stop);
  const std::string args = linspace_args(start, stop, num, endpoint);
  EK_CHECK(num >= 0, EK_ERROR_INVALID_ARGUMENT, "%s: num must be >= 0", args.c_str());
  const RangePlan plan = linspace_plan(scalar_to_double(start), scalar_to_double(stop), num,
                                       endpoint != 0, dtype);
  EK_FORWARD(check_linspace_fits(plan, dtype, args));
  const int64_t shape[1] = {num};
  return fill_out(ctx, s, 1, shape, dtype, out, [&](ek_tensor o) {
    return num == 0 ? EK_SUCCESS : ctx->backend->arange(ctx, s, tensor_desc(o), plan);
  });
}

EK_API ek_status ek_eye(ek_stream stream, ek_context ctx, int64_t n, int64_t m, int64_t k,
                        ek_dtype dtype, ek_tensor *out) {
  EK_API_ENTRY;
  EK_CHECK_NULL(out);
  ek_stream s = nullptr;
  EK_FORWARD(resolve_creator(stream, ctx, &ctx, &s));
  EK_PROFILE_OP(nullptr, ctx, s, EK_IN(), EK_OUT(out));
  EK_CHECK(n >= 0 && m >= 0, EK_ERROR_SHAPE,
           "n and m must be >= 0, not n = %" PRId64 ", m = %" PRId64, n, m);
  EK_CHECK(dtype_valid(dtype), EK_ERROR_DTYPE, "unknown dtype %d", static_cast<int>(dtype));
  const int64_t shape[2] = {n, m};
  return fill_out(ctx, s, 2, shape, dtype, out, [&](ek_tensor o) {
    if (n == 0 || m == 0) return EK_SUCCESS;
    EK_FORWARD(fill_value(ctx, s, tensor_desc(o), int_scalar(0)));
    const TensorDesc diag = diagonal(o, k);
    return diag.shape[0] == 0 ? EK_SUCCESS : fill_value(ctx, s, diag, int_scalar(1));
  });
}

EK_API ek_status ek_tril(ek_stream stream, ek_tensor x, int64_t k, ek_tensor *out) {
  EK_API_ENTRY;
  return triangle(stream, x, k, true, out);
}

EK_API ek_status ek_triu(ek_stream stream, ek_tensor x, int64_t k, ek_tensor *out) {
  EK_API_ENTRY;
  return triangle(stream, x, k, false, out);
}

}  // extern "C"
