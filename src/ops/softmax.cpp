// ek_softmax (plain and log): the dtype rule here, the layout in
// src/ops/along_dim.hpp, loops in src/cpu/softmax_scan.cpp and kernels/softmax.cu.
#include "ops/along_dim.hpp"
#include "core/backend.hpp"
#include "core/internal.hpp"
#include "core/profiler.hpp"

namespace ek {
namespace {

ek_status launch(ek_context ctx, ek_stream s, const DimPlan &p, int kind) {
  return ctx->backend->softmax(ctx, s, p, kind);
}

ek_status softmax_entry(ek_stream stream, ek_tensor x, int dim, int kind, ek_tensor *out) {
  EK_CHECK_TENSOR(x);
  EK_CHECK_NULL(out);
  // Recorded as "softmax" or "log_softmax", as the bindings name them.
  EK_PROFILE_NAMED(kind == kSoftmax ? "ek_softmax" : "ek_log_softmax", nullptr, x->storage->ctx,
                   stream, EK_IN(x), EK_OUT(out));
  EK_CHECK(dtype_is_float(x->dtype), EK_ERROR_DTYPE,
           "needs a floating-point input, got %s (cast first, as in PyTorch)",
           ek_dtype_name(x->dtype));
  return dimop::entry(stream, x, dim, x->dtype, out,
                      [kind](ek_context ctx, ek_stream s, const DimPlan &p) {
                        return launch(ctx, s, p, kind);
                      });
}

}  // namespace
}  // namespace ek

using namespace ek;

extern "C" {

EK_API ek_status ek_softmax(ek_stream stream, ek_softmax_kind kind, ek_tensor x, int dim,
                            ek_tensor *out) {
  EK_API_ENTRY;
  const int raw = raw_enum(kind);
  EK_CHECK(raw == EK_SOFTMAX_PLAIN || raw == EK_SOFTMAX_LOG, EK_ERROR_INVALID_ARGUMENT,
           "unknown ek_softmax_kind %d", raw);
  return softmax_entry(stream, x, dim, raw == EK_SOFTMAX_LOG ? kLogSoftmax : kSoftmax, out);
}

}  // extern "C"
