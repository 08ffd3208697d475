// CUDA kernel of ek_random: one thread per element (grid-stride), each running
// Philox for its own counter, so any launch shape gives the same numbers. A
// contiguous tensor stores at its C-order index; any other layout unravels the
// index over its shape and strides (size-1 dims dropped first).
#include "random.cuh"

#include <cuda_runtime.h>

namespace ek {
namespace cuda {
namespace {

constexpr int kThreads = 256;
constexpr int64_t kMaxBlocks = int64_t(1) << 24;

struct Target {
  char *data;
  int dtype, elem, ndim;  // elem: bytes per element
  int64_t shape[kMaxDims], strides[kMaxDims];
};

template <bool CONTIGUOUS>
__global__ void __launch_bounds__(kThreads) random_kernel(rng::Params g, Target t, uint64_t n) {
  for (uint64_t i = uint64_t(blockIdx.x) * kThreads + threadIdx.x; i < n; i += uint64_t(gridDim.x) * kThreads) {
    int64_t off = int64_t(i);
    if constexpr (!CONTIGUOUS) {
      off = 0;
      uint64_t r = i;
      for (int d = t.ndim - 1; d >= 0; --d) {
        const uint64_t s = uint64_t(t.shape[d]), q = r / s;
        off += int64_t(r - q * s) * t.strides[d];
        r = q;
      }
    }
    rng::generate(g, t.dtype, i, t.data + off * t.elem);
  }
}

Target make_target(const TensorDesc &d) {
  Target t{};
  t.data = static_cast<char *>(d.data);
  t.dtype = d.dtype;
  t.elem = int(dtype_size(d.dtype));
  for (int i = 0; i < d.ndim; ++i) {
    if (d.shape[i] == 1) continue;  // no layout information
    t.shape[t.ndim] = d.shape[i];
    t.strides[t.ndim++] = d.strides[i];
  }
  return t;
}

bool contiguous(const Target &t) {
  int64_t expect = 1;
  for (int d = t.ndim - 1; d >= 0; --d) {
    if (t.strides[d] != expect) return false;
    expect *= t.shape[d];
  }
  return true;
}

}  // namespace

int random(const rng::Params &g, const TensorDesc &d, void *stream) {
  if (!desc_valid(d)) return cudaErrorInvalidValue;
  const int64_t n = desc_numel(d);
  if (n == 0) return cudaSuccess;
  const Target t = make_target(d);
  int64_t blocks = (n + kThreads - 1) / kThreads;
  if (blocks > kMaxBlocks) blocks = kMaxBlocks;
  cudaStream_t st = static_cast<cudaStream_t>(stream);
  if (contiguous(t)) random_kernel<true><<<unsigned(blocks), kThreads, 0, st>>>(g, t, uint64_t(n));
  else random_kernel<false><<<unsigned(blocks), kThreads, 0, st>>>(g, t, uint64_t(n));
  return cudaGetLastError();
}

}  // namespace cuda
}  // namespace ek
