// ek_softmax, ek_log_softmax: the dtype rule here, the layout in
// src/along_dim.hpp, loops in src/cpu/softmax_scan.cpp and kernels/softmax.cu.
#include "along_dim.hpp"
#include "gpu.hpp"
#include "internal.hpp"
#include "profiler.hpp"
#ifdef EK_HAVE_CUDA
#include "softmax.cuh"
#endif

namespace ek {
namespace {

ek_status launch(ek_context ctx, ek_stream s, const DimPlan &p, int kind) {
  if (!ctx->is_cuda()) {
    EK_CHECK(cpu::softmax(p, kind) == 0, EK_ERROR_INTERNAL, "cpu softmax rejected its plan");
    return EK_SUCCESS;
  }
#ifdef EK_HAVE_CUDA
  EK_FORWARD(activate(ctx));
  Scratch work(ctx, s);  // only very long rows split over blocks need one
  EK_FORWARD(work.allocate(cuda::softmax_workspace(p)));
  return gpu::check_launch(cuda::softmax(p, kind, work.get(), s->native), "softmax kernel");
#else
  (void)s;
  return fail(EK_ERROR_NO_DEVICE, "libek was built without CUDA");
#endif
}

ek_status softmax_entry(ek_stream stream, ek_tensor x, int dim, int kind, ek_tensor *out) {
  EK_CHECK_TENSOR(x);
  EK_CHECK_NULL(out);
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

EK_API ek_status ek_softmax(ek_stream stream, ek_tensor x, int dim, ek_tensor *out) {
  EK_API_ENTRY;
  return softmax_entry(stream, x, dim, kSoftmax, out);
}

EK_API ek_status ek_log_softmax(ek_stream stream, ek_tensor x, int dim, ek_tensor *out) {
  EK_API_ENTRY;
  return softmax_entry(stream, x, dim, kLogSoftmax, out);
}

}  // extern "C"
