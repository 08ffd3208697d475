// CUDA kernel of the complex elementwise ops: one grid-stride loop over out's
// elements, offsets from OffsetCalc (32-bit index math when it fits), the
// math of src/ops/complex_plan.hpp (the CPU's, in double precision).
#include "kernels/complex.cuh"

#include <cuda_runtime.h>

#include "kernels/strided.cuh"

namespace ek {
namespace cuda {
namespace {

struct Sizes {
  int es[3];  // element bytes of out, a, b
  bool use_a, use_b;
};

template <typename U>
__global__ void __launch_bounds__(kThreads) complex_kernel(cx::Args g, OffsetCalc<U, 3> oc, U n, Sizes z) {
  using S = typename OffsetCalc<U, 3>::S;
  const cx::C s = cx::make(g.sre, g.sim);
  const int *es = z.es;
  const bool use_a = z.use_a, use_b = z.use_b;
  for (U i = U(blockIdx.x) * kThreads + threadIdx.x; i < n; i += U(gridDim.x) * kThreads) {
    S off[3];
    oc.get(i, off);
    const cx::C x = use_a ? cx::load(static_cast<const char *>(g.a.data) + int64_t(off[1]) * es[1], g.a.dtype) : s;
    const cx::C y = use_b ? cx::load(static_cast<const char *>(g.b.data) + int64_t(off[2]) * es[2], g.b.dtype) : s;
    cx::apply(g, static_cast<char *>(g.out.data) + int64_t(off[0]) * es[0], x, y);
  }
}

template <typename U>
int launch(const cx::Args &g, const Geometry<3> &L, int64_t n, bool use_a, bool use_b, cudaStream_t st) {
  const Sizes z{{int(dtype_size(g.out.dtype)), int(dtype_size(g.a.dtype)), int(dtype_size(g.b.dtype))}, use_a, use_b};
  complex_kernel<U><<<grid_for(n, kThreads), kThreads, 0, st>>>(g, make_calc<U>(L), U(n), z);
  return cudaGetLastError();
}

}  // namespace

int complex_elementwise(const cx::Args &g, void *stream) {
  const bool use_a = g.scalar != 1, use_b = g.binary && g.scalar != 2;
  if (!desc_valid(g.out) || (use_a && !desc_valid(g.a)) || (use_b && !desc_valid(g.b))) return cudaErrorInvalidValue;
  const int64_t n = desc_numel(g.out);
  if (n == 0) return cudaSuccess;
  Geometry<3> L;
  L.ndim = g.out.ndim;
  const TensorDesc *t[3] = {&g.out, &g.a, &g.b};
  const bool use[3] = {true, use_a, use_b};
  for (int i = 0; i < L.ndim; ++i) {
    L.shape[i] = g.out.shape[i];
    for (int k = 0; k < 3; ++k) L.st[k][i] = use[k] ? t[k]->strides[i] : 0;
  }
  L.coalesce_1d();
  cudaStream_t st = static_cast<cudaStream_t>(stream);
  return L.fits_32bit() ? launch<uint32_t>(g, L, n, use_a, use_b, st) : launch<uint64_t>(g, L, n, use_a, use_b, st);
}

}  // namespace cuda
}  // namespace ek
