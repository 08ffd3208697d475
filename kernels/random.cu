// CUDA kernel of ek_random: one thread per element (grid-stride), each running
// Philox for its own counter, so any launch shape gives the same numbers. A
// contiguous tensor stores at its C-order index; any other layout is
// coalesced (C order kept, src/ops/layout.hpp) and turns the index into an
// offset with OffsetCalc (strided.cuh).
#include "kernels/random.cuh"

#include <cuda_runtime.h>

#include "kernels/strided.cuh"

namespace ek {
namespace cuda {
namespace {

__global__ void __launch_bounds__(kThreads) random_contiguous_kernel(rng::Params g, char *data, int dtype, int elem,
                                                                     uint64_t n) {
  if (g.base) g.offset += *g.base;
  for (uint64_t i = uint64_t(blockIdx.x) * kThreads + threadIdx.x; i < n; i += uint64_t(gridDim.x) * kThreads)
    rng::generate(g, dtype, i, data + int64_t(i) * elem);
}

template <typename U>
__global__ void __launch_bounds__(kThreads) random_strided_kernel(rng::Params g, char *data, int dtype, int elem,
                                                                  OffsetCalc<U, 1> oc, U n) {
  if (g.base) g.offset += *g.base;
  for (U i = U(blockIdx.x) * kThreads + threadIdx.x; i < n; i += U(gridDim.x) * kThreads) {
    typename OffsetCalc<U, 1>::S off[1];
    oc.get(i, off);
    rng::generate(g, dtype, uint64_t(i), data + int64_t(off[0]) * elem);
  }
}

}  // namespace

int random(const rng::Params &g, const TensorDesc &d, void *stream) {
  if (!desc_valid(d)) return cudaErrorInvalidValue;
  const int64_t n = desc_numel(d);
  if (n == 0) return cudaSuccess;
  Geometry<1> t;
  t.ndim = d.ndim;
  for (int i = 0; i < d.ndim; ++i) {
    t.shape[i] = d.shape[i];
    t.st[0][i] = d.strides[i];
  }
  t.coalesce_1d();
  char *data = static_cast<char *>(d.data);
  const int elem = int(dtype_size(d.dtype));
  const unsigned blocks = grid_for(n, kThreads);
  cudaStream_t st = static_cast<cudaStream_t>(stream);
  if (t.unit_stride(0))
    random_contiguous_kernel<<<blocks, kThreads, 0, st>>>(g, data, d.dtype, elem, uint64_t(n));
  else if (t.fits_32bit())
    random_strided_kernel<uint32_t><<<blocks, kThreads, 0, st>>>(g, data, d.dtype, elem, make_calc<uint32_t>(t), uint32_t(n));
  else
    random_strided_kernel<uint64_t><<<blocks, kThreads, 0, st>>>(g, data, d.dtype, elem, make_calc<uint64_t>(t), uint64_t(n));
  return cudaGetLastError();
}

}  // namespace cuda
}  // namespace ek
