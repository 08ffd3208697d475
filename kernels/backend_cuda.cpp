// The CUDA backend's table (src/core/backend.hpp): the launchers of kernels/ and
// cuBLAS. Built only with CUDA (meson.build); without it cuda_backend() is
// gpu_none.cpp's nullptr and no CUDA context can be created.
#include "core/backend.hpp"
#include "kernels/complex.cuh"
#include "kernels/copy.cuh"
#include "kernels/creation.cuh"
#include "kernels/cublas.hpp"
#include "kernels/elementwise.cuh"
#include "core/gpu.hpp"
#include "kernels/indexing.cuh"
#include "kernels/int_gemm.cuh"
#include "core/internal.hpp"
#include "kernels/random.cuh"
#include "kernels/reduce.cuh"
#include "kernels/scan.cuh"
#include "kernels/small_gemm.cuh"
#include "kernels/softmax.cuh"
#include "kernels/sort.cuh"
#include "kernels/ternary.cuh"

namespace ek {
namespace {

// Runs call (a launcher, returning its cudaError_t) on ctx's device.
template <typename Launch>
ek_status launch(ek_context ctx, const char *what, Launch call) {
  EK_FORWARD(activate(ctx));
  return gpu::check_launch(call(), what);
}

ek_status copy(ek_context ctx, ek_stream s, const TensorDesc &dst, const TensorDesc &src) {
  return launch(ctx, "copy kernel", [&] { return cuda::copy(dst, src, s->native); });
}

ek_status fill(ek_context ctx, ek_stream s, const TensorDesc &d, uint64_t elem) {
  return launch(ctx, "fill kernel", [&] { return cuda::fill(d, elem, s->native); });
}

ek_status arange(ek_context ctx, ek_stream s, const TensorDesc &d, const RangePlan &p) {
  return launch(ctx, "arange kernel", [&] { return cuda::arange(d, p, s->native); });
}

ek_status unary(ek_context ctx, ek_stream s, const ew::Args &g) {
  return launch(ctx, "elementwise kernel", [&] { return cuda::unary(g, s->native); });
}

ek_status binary(ek_context ctx, ek_stream s, const ew::Args &g) {
  return launch(ctx, "elementwise kernel", [&] { return cuda::binary(g, s->native); });
}

ek_status ternary(ek_context ctx, ek_stream s, const tern::Args &g) {
  return launch(ctx, "ternary kernel", [&] { return cuda::ternary(g, s->native); });
}

ek_status complex_elementwise(ek_context ctx, ek_stream s, const cx::Args &g) {
  return launch(ctx, "complex kernel", [&] { return cuda::complex_elementwise(g, s->native); });
}

ek_status random(ek_context ctx, ek_stream s, const rng::Params &g, const TensorDesc &t) {
  return launch(ctx, "random kernel", [&] { return cuda::random(g, t, s->native); });
}

ek_status reduce(ek_context ctx, ek_stream s, const ReducePlan &p) {
  EK_FORWARD(activate(ctx));
  Scratch work(ctx, s);
  EK_FORWARD(work.allocate(cuda::reduce_workspace(p)));
  static_assert(cuda::kTailScratchBytes <= kStreamScratchBytes, "tail scratch fits the stream's");
  void *tail = nullptr;
  EK_FORWARD(stream_scratch(s, &tail));
  return gpu::check_launch(cuda::reduce(p, work.get(), tail, s->native), "reduce kernel");
}

ek_status softmax(ek_context ctx, ek_stream s, const DimPlan &p, int kind) {
  EK_FORWARD(activate(ctx));
  Scratch work(ctx, s);  // only very long rows split over blocks need one
  EK_FORWARD(work.allocate(cuda::softmax_workspace(p)));
  return gpu::check_launch(cuda::softmax(p, kind, work.get(), s->native), "softmax kernel");
}

ek_status scan(ek_context ctx, ek_stream s, const DimPlan &p, int kind) {
  EK_FORWARD(activate(ctx));
  Scratch work(ctx, s);  // partial results when a line is split over blocks
  EK_FORWARD(work.allocate(cuda::scan_workspace(p)));
  return gpu::check_launch(cuda::scan(p, kind, work.get(), s->native), "scan kernel");
}

ek_status gemm(ek_context ctx, ek_stream s, const GemmPlan &p) {
  if (gemm_int_dtype(p.dtype))
    return launch(ctx, "integer matmul kernel", [&] { return cuda::int_gemm(p, s->native); });
  if (cuda::small_gemm_fits(p))
    return launch(ctx, "small matmul kernel", [&] { return cuda::small_gemm(p, s->native); });
  if (!stream_capturing(s)) return blas::gemm(ctx, s->native, p);
  // cuBLAS's recommended workspace for Hopper; stream order keeps the block
  // for the captured product, and later captured work on s may reuse it.
  constexpr size_t kCaptureWorkspace = size_t(32) << 20;
  Scratch ws(ctx, s);
  EK_FORWARD(ws.allocate(kCaptureWorkspace));
  return blas::gemm(ctx, s->native, p, ws.get(), kCaptureWorkspace);
}

// One kernel per index tensor marks its first bad position; one readback.
ek_status find_bad_indices(ek_context ctx, ek_stream s, const TensorDesc *index,
                           const int64_t *sizes, int n, int64_t *first) {
  EK_FORWARD(activate(ctx));
  Scratch slots(ctx, s);
  EK_FORWARD(slots.allocate(n * sizeof(uint64_t)));
  auto *dev = static_cast<uint64_t *>(slots.get());
  EK_FORWARD(gpu::check_launch(cuda::find_bad_indices(index, sizes, n, dev, s->native),
                               "index check kernel"));
  uint64_t found[kMaxDims];
  EK_FORWARD(memcpy_any(ctx, found, dev, n * sizeof(uint64_t), s));
  EK_FORWARD(gpu::stream_synchronize(s->native));
  for (int k = 0; k < n; ++k)
    first[k] = found[k] == UINT64_MAX ? -1 : static_cast<int64_t>(found[k]);
  return EK_SUCCESS;
}

ek_status index(ek_context ctx, ek_stream s, const IndexPlan &p) {
  return launch(ctx, "index kernel", [&] { return cuda::run_index(p, s->native); });
}

ek_status masked_fill(ek_context ctx, ek_stream s, const MaskedFillPlan &p) {
  return launch(ctx, "masked_fill kernel", [&] { return cuda::masked_fill(p, s->native); });
}

ek_status compact_count(ek_context ctx, ek_stream s, const uint8_t *mask, int64_t n,
                        Scratch *work, int64_t *count) {
  EK_FORWARD(activate(ctx));
  EK_FORWARD(work->allocate(cuda::compact_workspace(n)));
  EK_FORWARD(gpu::check_launch(cuda::compact_count(mask, n, work->get(), s->native),
                               "mask count kernel"));
  // Into pinned memory: a true async copy, read right after the sync.
  StreamPinned pinned(s);
  EK_FORWARD(pinned.init());
  EK_FORWARD(memcpy_any(ctx, pinned.host(kWordMaskCount), work->get(), sizeof *count, s));
  EK_FORWARD(gpu::stream_synchronize(s->native));
  *count = pinned.get(kWordMaskCount);
  return EK_SUCCESS;
}

ek_status compact_write(ek_context ctx, ek_stream s, const CompactPlan &p, const void *work) {
  return launch(ctx, "compaction kernel",
                [&] { return cuda::compact_write(p, work, s->native); });
}

ek_status triangle(ek_context ctx, ek_stream s, const TrianglePlan &p) {
  return launch(ctx, "triangle kernel", [&] { return cuda::triangle(p, s->native); });
}

// CUB's sorts here number positions in int32.
ek_status check_row(int64_t n) {
  EK_CHECK(n <= cuda::kMaxSortRow, EK_ERROR_NOT_SUPPORTED,
           "rows of %lld elements are longer than the CUDA sorts support (%lld)", static_cast<long long>(n),
           static_cast<long long>(cuda::kMaxSortRow));
  return EK_SUCCESS;
}

ek_status sort(ek_context ctx, ek_stream s, const SortPlan &p) {
  EK_FORWARD(check_row(p.n));
  EK_FORWARD(activate(ctx));
  Scratch work(ctx, s);
  EK_FORWARD(work.allocate(cuda::sort_workspace(p)));
  return gpu::check_launch(cuda::sort(p, work.get(), s->native), "sort kernels");
}

ek_status topk(ek_context ctx, ek_stream s, const TopkPlan &p) {
  EK_FORWARD(check_row(p.n));
  EK_FORWARD(activate(ctx));
  Scratch work(ctx, s);
  EK_FORWARD(work.allocate(cuda::topk_workspace(p)));
  return gpu::check_launch(cuda::topk(p, work.get(), s->native), "topk kernels");
}

ek_status searchsorted(ek_context ctx, ek_stream s, const SearchPlan &p) {
  return launch(ctx, "searchsorted kernel", [&] { return cuda::searchsorted(p, s->native); });
}

// The count goes through pinned memory, read right after the sync (as compact_count).
ek_status unique_count(ek_context ctx, ek_stream s, const UniquePlan &p, Scratch *work, int64_t *count) {
  EK_FORWARD(activate(ctx));
  EK_FORWARD(work->allocate(cuda::unique_workspace(p)));
  EK_FORWARD(gpu::check_launch(cuda::unique_count(p, work->get(), s->native), "unique kernels"));
  StreamPinned pinned(s);
  EK_FORWARD(pinned.init());
  EK_FORWARD(memcpy_any(ctx, pinned.host(kWordUniqueCount), work->get(), sizeof *count, s));
  EK_FORWARD(gpu::stream_synchronize(s->native));
  *count = pinned.get(kWordUniqueCount);
  return EK_SUCCESS;
}

ek_status unique_write(ek_context ctx, ek_stream s, const UniquePlan &p, const void *work) {
  return launch(ctx, "unique kernels", [&] { return cuda::unique_write(p, work, s->native); });
}

}  // namespace

const Backend *cuda_backend() {
  static const Backend table = EK_BACKEND_TABLE();
  return &table;
}

}  // namespace ek
