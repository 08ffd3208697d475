// ek_scan (cumulative sum and product): the dtype rule here, the layout in src/ops/along_dim.hpp,
// loops in src/cpu/softmax_scan.cpp and kernels/scan.cu.
#include "ops/along_dim.hpp"
#include "core/backend.hpp"
#include "core/internal.hpp"
#include "ops/complex.hpp"
#include "core/profiler.hpp"
#include "ops/int_out.hpp"

namespace ek {
namespace {

ek_status launch(ek_context ctx, ek_stream s, const DimPlan &p, int kind) {
  return ctx->backend->scan(ctx, s, p, kind);
}

// bool and integers accumulate (and return) int64 (uint64: uint64, the same
// bits), floats keep their dtype.
ek_status scan_entry(ek_stream stream, ek_tensor x, int dim, int kind, ek_tensor *out) {
  EK_CHECK_TENSOR(x);
  EK_CHECK_NULL(out);
  // Recorded as "cumsum" or "cumprod", as the bindings name them.
  EK_PROFILE_NAMED(kind == kCumSum ? "ek_cumsum" : "ek_cumprod", nullptr, x->storage->ctx,
                   stream, EK_IN(x), EK_OUT(out));
  if (dtype_is_complex(x->dtype))
    return kind == kCumSum ? complex_scan(stream, x, dim, out) : complex_cumprod(stream, x, dim, out);
  ek_dtype out_dtype = dtype_is_float(x->dtype) || x->dtype == EK_UINT64 ? x->dtype : EK_INT64;
  auto run = [&](ek_stream st, ek_tensor *o) {
    return dimop::entry(st, x, dim, out_dtype, o,
                        [kind](ek_context ctx, ek_stream s, const DimPlan &p) {
                          return launch(ctx, s, p, kind);
                        });
  };
  if (!wraps_into_out(x->dtype, out_dtype, *out)) return run(stream, out);
  ek_stream s = nullptr;
  EK_FORWARD(resolve_stream(x->storage->ctx, stream, &s));
  return wrap_into_out(s, *out, x->ndim, x->shape, [&](ek_tensor *tmp) { return run(s, tmp); });
}

}  // namespace
}  // namespace ek

using namespace ek;

extern "C" {

EK_API ek_status ek_scan(ek_stream stream, ek_scan_op op, ek_tensor x, int dim, ek_tensor *out) {
  EK_API_ENTRY;
  const int raw = raw_enum(op);
  EK_CHECK(raw == EK_SCAN_SUM || raw == EK_SCAN_PROD, EK_ERROR_INVALID_ARGUMENT,
           "unknown ek_scan_op %d", raw);
  return scan_entry(stream, x, dim, raw == EK_SCAN_PROD ? kCumProd : kCumSum, out);
}

}  // extern "C"
