// Strided layouts, one definition for every backend: N tensors over one
// shape, each with its own strides (in one unit throughout: elements for the
// CUDA kernels and the elementwise builder, bytes for the CPU walk). The CPU
// odometer (src/cpu/strided.hpp), the CUDA offset calculator
// (kernels/strided.cuh) and the elementwise builder's planner all start from
// dims coalesced here; the 1-D launch shape of the CUDA kernels and of the
// generated ones is here too. Host code only; plain C++.
#pragma once
#include <cstdint>

#include "ops/tensor_desc.hpp"

namespace ek {

// Dims [0, ndim) of shape with nt tensors' strides st[t][d], rewritten in
// place into fewer, longer dims visited in the same C order: size-1 dims are
// dropped and a dim is merged into the kept dim before it when every tensor
// steps over the two as one run (outer stride == inner stride * inner size).
// A product that overflows is no stride of an existing element, so it never
// merges (and is never formed as a signed overflow). Returns the new dim
// count: 0 when one element is left.
// at_least_1d: one element left becomes one dim of size 1 with unit
// strides, so that it takes the contiguous paths.
template <int R>
int coalesce_dims(int ndim, int64_t *shape, int64_t (*st)[R], int nt, bool at_least_1d = false) {
  int m = 0;
  for (int d = 0; d < ndim; ++d) {
    if (shape[d] == 1) continue;
    bool merge = m > 0;
    for (int t = 0; t < nt && merge; ++t) {
      int64_t run = 0;
      merge = !__builtin_mul_overflow(st[t][d], shape[d], &run) && run == st[t][m - 1];
    }
    if (merge) shape[m - 1] *= shape[d];
    else shape[m++] = shape[d];
    for (int t = 0; t < nt; ++t) st[t][m - 1] = st[t][d];
  }
  if (m > 0 || !at_least_1d) return m;
  shape[0] = 1;
  for (int t = 0; t < nt; ++t) st[t][0] = 1;
  return 1;
}

// 32-bit index math is safe over these dims: the element count and every
// tensor's extent (the sum of |stride| * (size - 1), hence every offset)
// stay below 2^31.
template <int R>
bool fits_32bit_dims(int ndim, const int64_t *shape, const int64_t (*st)[R], int nt) {
  int64_t n = 1;
  for (int d = 0; d < ndim; ++d) n *= shape[d];
  if (n >= INT32_MAX) return false;
  for (int t = 0; t < nt; ++t) {
    int64_t span = 0;
    for (int d = 0; d < ndim; ++d) {
      if (st[t][d] <= -INT32_MAX || st[t][d] >= INT32_MAX) return false;
      const int64_t s = st[t][d] < 0 ? -st[t][d] : st[t][d];
      span += (shape[d] - 1) * s;  // both factors below 2^31: no overflow
      if (span >= INT32_MAX) return false;
    }
  }
  return true;
}

// N tensors over one shape (strides 0 where a tensor is broadcast or unused).
template <int N>
struct Geometry {
  int ndim = 0;
  int64_t shape[kMaxDims] = {};
  int64_t st[N][kMaxDims] = {};

  int64_t numel() const {
    int64_t n = 1;
    for (int d = 0; d < ndim; ++d) n *= shape[d];
    return n;
  }

  // See coalesce_dims. Coordinates afterwards refer to the merged dims.
  void coalesce() { ndim = coalesce_dims(ndim, shape, st, N); }
  void coalesce_1d() { ndim = coalesce_dims(ndim, shape, st, N, true); }

  // One unit-stride run in tensor t.
  bool unit_stride(int t) const { return ndim == 1 && st[t][0] == 1; }

  bool fits_32bit() const { return fits_32bit_dims(ndim, shape, st, N); }
};

// ------------------------------------------------------- 1-D launch shape --

// Threads per block of the 1-D kernels (built in and generated).
constexpr int kThreads = 256;
// The one cap on a 1-D grid. Every 1-D kernel grid-strides past it, so it
// bounds the launch, never the work: 2^24 blocks of kThreads are 2^32
// threads, far beyond what a GPU runs at once, and well under grid.x's
// limit of 2^31 - 1.
constexpr int64_t kMaxBlocks = int64_t(1) << 24;

inline int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

// Blocks for n work items of which a block takes per_block: at least 1, at
// most kMaxBlocks.
inline unsigned grid_for(int64_t n, int64_t per_block) {
  const int64_t b = ceil_div(n, per_block);
  return static_cast<unsigned>(b < 1 ? 1 : (b > kMaxBlocks ? kMaxBlocks : b));
}

}  // namespace ek
