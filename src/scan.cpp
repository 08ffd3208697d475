// ek_cumsum, ek_cumprod: the dtype rule here, the layout in src/along_dim.hpp,
// loops in src/cpu/softmax_scan.cpp and kernels/scan.cu.
#include "along_dim.hpp"
#include "gpu.hpp"
#include "internal.hpp"
#include "profiler.hpp"
#ifdef EK_HAVE_CUDA
#include "scan.cuh"
#endif

namespace ek {
namespace {

ek_status launch(ek_context ctx, ek_stream s, const DimPlan &p, int kind) {
  if (!ctx->is_cuda()) {
    EK_CHECK(cpu::scan(p, kind) == 0, EK_ERROR_INTERNAL, "cpu scan rejected its plan");
    return EK_SUCCESS;
  }
#ifdef EK_HAVE_CUDA
  EK_FORWARD(activate(ctx));
  Scratch work(ctx, s);  // partial results when a line is split over blocks
  EK_FORWARD(work.allocate(cuda::scan_workspace(p)));
  return gpu::check_launch(cuda::scan(p, kind, work.get(), s->native), "scan kernel");
#else
  (void)s;
  return fail(EK_ERROR_NO_DEVICE, "libek was built without CUDA");
#endif
}

// bool and integers accumulate (and return) int64, floats keep their dtype.
ek_status scan_entry(ek_stream stream, ek_tensor x, int dim, int kind, ek_tensor *out) {
  EK_CHECK_TENSOR(x);
  EK_CHECK_NULL(out);
  EK_PROFILE_NAMED(kind == kCumSum ? "ek_cumsum" : "ek_cumprod", nullptr, x->storage->ctx,
                   stream, EK_IN(x), EK_OUT(out));
  ek_dtype out_dtype = dtype_is_float(x->dtype) ? x->dtype : EK_INT64;
  return dimop::entry(stream, x, dim, out_dtype, out,
                      [kind](ek_context ctx, ek_stream s, const DimPlan &p) {
                        return launch(ctx, s, p, kind);
                      });
}

}  // namespace
}  // namespace ek

using namespace ek;

extern "C" {

EK_API ek_status ek_cumsum(ek_stream stream, ek_tensor x, int dim, ek_tensor *out) {
  EK_API_ENTRY;
  return scan_entry(stream, x, dim, kCumSum, out);
}

EK_API ek_status ek_cumprod(ek_stream stream, ek_tensor x, int dim, ek_tensor *out) {
  EK_API_ENTRY;
  return scan_entry(stream, x, dim, kCumProd, out);
}

}  // extern "C"
