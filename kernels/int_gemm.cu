// Integer GEMM on the column-major GemmPlan: a block computes a 128 x 128
// tile of C from 16-deep slices of op(A) and op(B) staged in shared memory,
// each thread an 8 x 8 sub-tile held in registers. Threads own rows tx, tx +
// 16, ... (consecutive threads, consecutive rows of column-major C: coalesced
// stores, conflict-free shared reads) and columns ty, ty + 16, ... (one
// address per half-warp: broadcast). Elements are widened to an unsigned
// accumulator (32 bits for types up to int32, 64 for int64) so overflow wraps
// without undefined behaviour; wrapping in 32 bits and truncating equals
// wrapping in the narrower dtype.
#include "kernels/int_gemm.cuh"

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>

namespace ek {
namespace cuda {
namespace {

constexpr int kBM = 128, kBN = 128, kBK = 16, kTM = 8, kTN = 8, kSide = 16;
constexpr int kGemmThreads = kSide * kSide;
constexpr int kMaxGridYZ = 65535;

struct Args {
  const void *a, *b;
  void *c;
  int64_t m, n, k, batch, lda, ldb, ldc, stride_a, stride_b, stride_c;
  bool trans_a, trans_b;
  uint64_t alpha, beta;
};

// Sign- or zero-extends as T's signedness says, then wraps to Acc.
template <typename T, typename Acc>
__device__ __forceinline__ Acc widen(T v) {
  return static_cast<Acc>(static_cast<int64_t>(v));
}

// Rows [i0, i0 + kBM) x cols [p0, p0 + kBK) of op(X) into tile[p][i] (zero
// outside X). Threads step along X's contiguous dim for coalesced reads.
template <typename T, typename Acc, int kRows>
__device__ __forceinline__ void stage(const T *x, int64_t ld, bool trans, int64_t rows, int64_t cols,
                                      int64_t i0, int64_t p0, Acc (*tile)[kRows + 4]) {
#pragma unroll
  for (int r = 0; r < kRows * kBK / kGemmThreads; ++r) {
    const int idx = threadIdx.x + r * kGemmThreads;
    const int i = trans ? idx / kBK : idx % kRows, p = trans ? idx % kBK : idx / kRows;
    const int64_t gi = i0 + i, gp = p0 + p;
    Acc v = 0;
    if (gi < rows && gp < cols) v = widen<T, Acc>(x[trans ? gp + gi * ld : gi + gp * ld]);
    tile[p][i] = v;
  }
}

template <typename T, typename Acc>
__global__ void __launch_bounds__(kGemmThreads) int_gemm_kernel(Args g) {
  __shared__ Acc as[kBK][kBM + 4];  // op(A) slice, [p][i]; the pad spreads transposed stores
  __shared__ Acc bs[kBK][kBN + 4];  // op(B)^T slice, [p][j]
  const int tx = threadIdx.x % kSide, ty = threadIdx.x / kSide;
  const int64_t i0 = int64_t(blockIdx.x) * kBM;
  for (int64_t q = blockIdx.z; q < g.batch; q += gridDim.z) {
    const T *a = static_cast<const T *>(g.a) + q * g.stride_a;
    const T *b = static_cast<const T *>(g.b) + q * g.stride_b;
    T *c = static_cast<T *>(g.c) + q * g.stride_c;
    for (int64_t j0 = int64_t(blockIdx.y) * kBN; j0 < g.n; j0 += int64_t(gridDim.y) * kBN) {
      Acc acc[kTM][kTN] = {};
      for (int64_t p0 = 0; p0 < g.k; p0 += kBK) {
        stage<T, Acc, kBM>(a, g.lda, g.trans_a, g.m, g.k, i0, p0, as);
        // op(B)(p, j) read as op(B)^T(j, p): its transpose flag flips.
        stage<T, Acc, kBN>(b, g.ldb, !g.trans_b, g.n, g.k, j0, p0, bs);
        __syncthreads();
#pragma unroll
        for (int p = 0; p < kBK; ++p) {
          Acc av[kTM], bv[kTN];
#pragma unroll
          for (int r = 0; r < kTM; ++r) av[r] = as[p][tx + kSide * r];
#pragma unroll
          for (int s = 0; s < kTN; ++s) bv[s] = bs[p][ty + kSide * s];
#pragma unroll
          for (int r = 0; r < kTM; ++r)
#pragma unroll
            for (int s = 0; s < kTN; ++s) acc[r][s] += av[r] * bv[s];
        }
        __syncthreads();
      }
      const Acc alpha = static_cast<Acc>(g.alpha), beta = static_cast<Acc>(g.beta);
#pragma unroll
      for (int s = 0; s < kTN; ++s) {
        const int64_t gj = j0 + ty + kSide * s;
#pragma unroll
        for (int r = 0; r < kTM; ++r) {
          const int64_t gi = i0 + tx + kSide * r;
          if (gi >= g.m || gj >= g.n) continue;
          T *dst = c + gi + gj * g.ldc;
          Acc v = alpha * acc[r][s];
          if (beta != 0) v += beta * widen<T, Acc>(*dst);  // beta == 0 never reads C
          *dst = static_cast<T>(v);  // wraps: two's complement truncation
        }
      }
    }
  }
}

template <typename T, typename Acc>
int launch(const Args &g, cudaStream_t st) {
  const int64_t bx = (g.m + kBM - 1) / kBM, by = (g.n + kBN - 1) / kBN;
  const dim3 grid(static_cast<unsigned>(bx), static_cast<unsigned>(std::min<int64_t>(by, kMaxGridYZ)),
                  static_cast<unsigned>(std::min<int64_t>(g.batch, kMaxGridYZ)));
  int_gemm_kernel<T, Acc><<<grid, kGemmThreads, 0, st>>>(g);
  return cudaGetLastError();
}

}  // namespace

int int_gemm(const GemmPlan &p, void *stream) {
  if (!gemm_int_dtype(p.dtype) || p.m < 0 || p.n < 0 || p.k < 0 || p.batch < 0)
    return cudaErrorInvalidValue;
  if (p.m == 0 || p.n == 0 || p.batch == 0) return cudaSuccess;
  if ((p.m + kBM - 1) / kBM > INT32_MAX) return cudaErrorInvalidConfiguration;
  const Args g{p.a, p.b, p.c, p.m, p.n, p.k, p.batch, p.lda, p.ldb, p.ldc, p.stride_a, p.stride_b,
               p.stride_c, p.trans_a, p.trans_b, static_cast<uint64_t>(p.alpha_i),
               static_cast<uint64_t>(p.beta_i)};
  cudaStream_t st = static_cast<cudaStream_t>(stream);
  switch (p.dtype) {
    case kU8: return launch<uint8_t, uint32_t>(g, st);
    case kI8: return launch<int8_t, uint32_t>(g, st);
    case kI16: return launch<int16_t, uint32_t>(g, st);
    case kI32: return launch<int32_t, uint32_t>(g, st);
    case kU16: return launch<uint16_t, uint32_t>(g, st);
    case kU32: return launch<uint32_t, uint32_t>(g, st);
    default: return launch<int64_t, uint64_t>(g, st);
  }
}

}  // namespace cuda
}  // namespace ek
