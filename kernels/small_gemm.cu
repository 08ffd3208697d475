// Small float32 GEMM on the column-major GemmPlan, in one launch.
//
// A block computes a kTile x kTile tile of C over the whole depth k. Both
// operands' slices for the tile (kTile rows by k) are copied into shared
// memory with cp.async, 16 bytes a copy where the operands are aligned, so
// every load is in flight at once. The block's threads then split k among
// groups of kLanes threads, which take kStep depths in turn (group g:
// 4g..4g+3, then 4g + 4 * groups, ...), each thread a kSub x kSub sub-tile in
// registers. Blocks of 1024 threads, capped at 48 registers so that another
// kernel's block fits beside one, serve deep products that fill no more than
// one wave, 512 threads the rest (measured: bench/RESULTS.md). The
// groups' partial tiles are summed in shared memory in group order, so the
// result does not depend on timing. Small tiles give the many blocks a small
// product needs to fill the GPU; sharing the depth inside the block replaces
// cuBLAS's split-k reduction kernel.
#include "kernels/small_gemm.cuh"

#include <cuda_runtime.h>

#include <algorithm>
#include <atomic>
#include <cstdint>

#include "core/gpu.hpp"
#include "kernels/pdl.cuh"

namespace ek {
namespace cuda {
namespace {

constexpr int kTile = 16, kSub = 4, kStep = 4, kVec = 4;
constexpr int kSide = kTile / kSub;         // sub-tiles along a side
constexpr int kLanes = kSide * kSide;       // threads that cover one tile
constexpr int kThreads = 512, kDeepThreads = 1024;
constexpr int kDeep = 512;                  // depth from which kDeepThreads may serve
constexpr int kDeepRegisters = 48;          // kDeepThreads * 48 = 3/4 of an SM's registers
// Shared tiles: [p][r] rows kAlongLd long (the pad puts group g + 1's rows,
// kStep depths on, 16 banks away), [r][p] rows kp + kPad long (16-byte aligned).
constexpr int kAlongLd = kTile + 4, kPad = 4;
// Partial tiles: [group][column][row], rows contiguous; a pad of 4 per column
// keeps each quarter-warp's 16-byte stores in distinct banks.
constexpr int kPartialLd = kTile + 4, kPartialTile = kTile * kPartialLd;
// Under every sm_80+ device's opt-in limit per block (99 KiB on sm_86/89).
constexpr size_t kMaxShared = size_t(96) << 10;
// cuBLAS wins on more tiles than this, and on thinner products
// (bench/small_matmul.py); the bound also keeps the grid far below its limits.
constexpr int64_t kMaxTiles = 256;

struct Args {
  const float *a, *b;
  float *c;
  int64_t m, n, batch, lda, ldb, ldc, stride_a, stride_b, stride_c;
  int k, kp;  // kp: k rounded up to kStep (the padding is zero)
  bool trans_a, trans_b, vec_a, vec_b;
  float alpha, beta;
};

__host__ __device__ constexpr int padded_depth(int k) { return (k + kStep - 1) / kStep * kStep; }

// Elements of an operand tile, in either layout.
__host__ __device__ constexpr int tile_elems(int kp) {
  return kp * kAlongLd > kTile * (kp + kPad) ? kp * kAlongLd : kTile * (kp + kPad);
}

constexpr size_t shared_bytes(int kp, int threads) {
  return sizeof(float) * static_cast<size_t>(std::max(2 * tile_elems(kp), threads / kLanes * kPartialTile));
}

// dst[0, V) = src[0, left) and zeros after it (left clamped to [0, V]),
// without waiting. `valid` stands in for src when nothing is read.
template <int V>
__device__ __forceinline__ void copy_async(float *dst, const float *src, const float *valid, int64_t left) {
  const int n = left <= 0 ? 0 : left >= V ? V : static_cast<int>(left);
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  const unsigned to = static_cast<unsigned>(__cvta_generic_to_shared(dst));
  asm volatile("cp.async.ca.shared.global [%0], [%1], %2, %3;" ::"r"(to), "l"(n ? src : valid),
               "n"(V * sizeof(float)), "r"(n * static_cast<int>(sizeof(float)))
               : "memory");
#else
#pragma unroll
  for (int q = 0; q < V; ++q) dst[q] = q < n ? src[q] : 0.0f;
#endif
}

// Waits for this thread's copies. (Waiting per turn of the groups' depths,
// each its own commit group, to compute on the first while the rest land,
// was slower: 5.6 against 5.3 us for [64, 512] x [512, 512] on the H100.)
__device__ __forceinline__ void wait_copies() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  asm volatile("cp.async.wait_all;" ::: "memory");
#endif
}

static_assert(kSub == 4 && kStep == 4, "sub-tile rows move as one 16-byte vector");

__device__ __forceinline__ void load4(const float *s, float (&v)[4]) {
  const float4 x = *reinterpret_cast<const float4 *>(s);
  v[0] = x.x, v[1] = x.y, v[2] = x.z, v[3] = x.w;
}

// One operand as kTile rows r (op(A)'s rows i; op(B)'s columns j) by depth p.
// Element (r, p) is at x[kAlongR ? r + p * ld : p + r * ld]. The shared tile
// keeps memory's contiguous direction, so copies move whole vectors: [p][r]
// when kAlongR, else [r][p].
template <bool kAlongR>
struct Operand {
  const float *x;
  int64_t ld, rows;
  int k, kp;
  bool vec;  // x, ld and the batch stride keep every vector 16-byte aligned

  // Copies rows [r0, r0 + kTile) into s, zero past rows and past k.
  __device__ void stage(int64_t r0, float *s) const {
    if (vec)
      copy<kVec>(r0, s);
    else
      copy<1>(r0, s);
  }

  // Consecutive threads take consecutive vectors in x and in s.
  template <int V>
  __device__ void copy(int64_t r0, float *s) const {
    if constexpr (kAlongR) {
      constexpr int per_depth = kTile / V;
      for (int c = threadIdx.x; c < kp * per_depth; c += blockDim.x) {
        const int p = c / per_depth, r = c % per_depth * V;
        copy_async<V>(s + p * kAlongLd + r, x + (r0 + r) + p * ld, x, p < k ? rows - (r0 + r) : 0);
      }
    } else {
      const int per_row = kp / V;
      for (int c = threadIdx.x; c < kTile * per_row; c += blockDim.x) {
        const int r = c / per_row, p = c % per_row * V;
        copy_async<V>(s + r * (kp + kPad) + p, x + p + (r0 + r) * ld, x, r0 + r < rows ? k - p : 0);
      }
    }
  }

  // v[t][q] = element (r + q, p + t) of the staged tile.
  __device__ __forceinline__ static void read(const float *s, int r, int p, int kp,
                                              float (&v)[kStep][kSub]) {
    if constexpr (kAlongR) {
#pragma unroll
      for (int t = 0; t < kStep; ++t) load4(s + (p + t) * kAlongLd + r, v[t]);
    } else {
#pragma unroll
      for (int q = 0; q < kSub; ++q) {
        float w[kStep];
        load4(s + (r + q) * (kp + kPad) + p, w);
#pragma unroll
        for (int t = 0; t < kStep; ++t) v[t][q] = w[t];
      }
    }
  }
};

// acc += this thread's sub-tile over depths [p, p + kStep), in increasing order.
template <bool kAR, bool kBR>
__device__ __forceinline__ void multiply(const float *as, const float *bs, int p, int kp, int ri,
                                         int rj, float (&acc)[kSub][kSub]) {
  float a[kStep][kSub], b[kStep][kSub];
  Operand<kAR>::read(as, ri, p, kp, a);
  Operand<kBR>::read(bs, rj, p, kp, b);
#pragma unroll
  for (int t = 0; t < kStep; ++t)
#pragma unroll
    for (int i = 0; i < kSub; ++i)
#pragma unroll
      for (int j = 0; j < kSub; ++j) acc[i][j] += a[t][i] * b[t][j];
}

// Sums the groups' partial tiles in group order into C's tile at (i0, j0).
__device__ void store(const Args &g, float *partial, const float (&acc)[kSub][kSub], int ri,
                      int rj, int group, float *c, int64_t i0, int64_t j0) {
  float *mine = partial + group * kPartialTile;
#pragma unroll
  for (int j = 0; j < kSub; ++j)
    *reinterpret_cast<float4 *>(mine + (rj + j) * kPartialLd + ri) =
        make_float4(acc[0][j], acc[1][j], acc[2][j], acc[3][j]);
  __syncthreads();
  const int i = threadIdx.x % kTile, j = threadIdx.x / kTile;
  if (j >= kTile || i0 + i >= g.m || j0 + j >= g.n) return;
  float sum = 0;
#pragma unroll 8
  for (int q = 0; q < int(blockDim.x) / kLanes; ++q) sum += partial[q * kPartialTile + j * kPartialLd + i];
  float *dst = c + (i0 + i) + (j0 + j) * g.ldc;
  float v = g.alpha * sum;
  if (g.beta != 0) v += g.beta * *dst;  // beta == 0 never reads C
  *dst = v;
}

// The block's tile: the body of both kernels below.
template <bool kAR, bool kBR>
__device__ __forceinline__ void tile(const Args &g) {
  extern __shared__ __align__(16) unsigned char smem[];
  float *as = reinterpret_cast<float *>(smem), *bs = as + tile_elems(g.kp);
  pdl_trigger();
  pdl_wait();  // launched with launch_pdl: nothing before this touches memory
  const int64_t i0 = int64_t(blockIdx.x) * kTile, j0 = int64_t(blockIdx.y) * kTile, q = blockIdx.z;
  // op(B)'s rows along the tile are its columns j: its element (j, p) is
  // op(B)(p, j), contiguous along j when B is stored transposed.
  const Operand<kAR> a{g.a + q * g.stride_a, g.lda, g.m, g.k, g.kp, g.vec_a};
  const Operand<kBR> b{g.b + q * g.stride_b, g.ldb, g.n, g.k, g.kp, g.vec_b};
  a.stage(i0, as);
  b.stage(j0, bs);
  wait_copies();
  __syncthreads();  // every thread's copies have landed
  const int lane = threadIdx.x % kLanes, group = threadIdx.x / kLanes;
  const int ri = lane % kSide * kSub, rj = lane / kSide * kSub;
  float acc[kSub][kSub] = {};
  const int turn = int(blockDim.x) / kLanes * kStep;  // depths all groups take in one turn
  for (int p = group * kStep; p < g.kp; p += turn) multiply<kAR, kBR>(as, bs, p, g.kp, ri, rj, acc);
  __syncthreads();  // the partial tiles overwrite the operands
  store(g, as, acc, ri, rj, group, g.c + q * g.stride_c, i0, j0);
}

// kThreads-thread blocks, two an SM (at most 64 registers a thread).
template <bool kAR, bool kBR>
__global__ void __launch_bounds__(kDeepThreads) small_gemm_kernel(Args g) {
  tile<kAR, kBR>(g);
}

// kDeepThreads-thread blocks, at most kDeepRegisters registers a thread. At
// 64 a block fills the SM's register file, so in a graph the next kernel's
// blocks cannot start on its SM until it ends, nor its own blocks beside the
// previous kernel's: programmatic dependent launch then hides nothing. At
// 48, a 256-thread block of up to 64 registers (the fused rows kernel) fits
// beside it: the 36-op step's fused replay took 36.8 us against 40.2 on the
// H100 (bench/RESULTS.md, session 13).
#if __CUDACC_VER_MAJOR__ > 12 || (__CUDACC_VER_MAJOR__ == 12 && __CUDACC_VER_MINOR__ >= 4)
#define EK_DEEP_REGISTERS __maxnreg__(kDeepRegisters)
#else  // no __maxnreg__ before CUDA 12.4: launch_bounds' 64
#define EK_DEEP_REGISTERS __launch_bounds__(kDeepThreads)
#endif
template <bool kAR, bool kBR>
__global__ void EK_DEEP_REGISTERS small_gemm_deep_kernel(Args g) {
  tile<kAR, kBR>(g);
}

// Raises kernel's dynamic shared memory limit, once per device: `raised`
// holds bit d once done on device d, one record per kernel.
template <typename... Params>
cudaError_t allow_shared(void (*kernel)(Params...), std::atomic<uint64_t> &raised, int device, size_t bytes) {
  if (bytes <= (size_t(48) << 10)) return cudaSuccess;
  const uint64_t bit = device < 64 ? uint64_t(1) << device : 0;
  if (bit && (raised.load(std::memory_order_relaxed) & bit)) return cudaSuccess;
  gpu::RelaxedWhileCapturing relaxed;  // the first product may be captured
  const cudaError_t err =
      cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(kMaxShared));
  if (err == cudaSuccess) raised.fetch_or(bit, std::memory_order_relaxed);
  return err;
}

// Threads a block: kDeepThreads for deep products whose blocks all run at
// once, one an SM (twice the warps to hide the latency of a long depth
// loop); kThreads otherwise, where two blocks share an SM. On the H100,
// [64, 512] x [512, 512] (128 tiles): 4.8 us against 6.3; [32, 256] x
// [256, 256]: 3.6 against 3.1; [128, 512] x [512, 512] (256 tiles): 9.0
// against 6.6.
cudaError_t block_threads(const Args &g, const dim3 &grid, int device, int *threads) {
  *threads = kThreads;
  if (g.kp < kDeep) return cudaSuccess;
  int sms = 0;
  const cudaError_t err = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
  if (err != cudaSuccess) return err;
  if (int64_t(grid.x) * grid.y * grid.z <= sms) *threads = kDeepThreads;
  return cudaSuccess;
}

template <bool kAR, bool kBR>
cudaError_t launch(const Args &g, cudaStream_t st) {
  const dim3 grid(static_cast<unsigned>((g.m + kTile - 1) / kTile),
                  static_cast<unsigned>((g.n + kTile - 1) / kTile), static_cast<unsigned>(g.batch));
  int device = 0, threads = 0;
  cudaError_t err = cudaGetDevice(&device);
  if (err == cudaSuccess) err = block_threads(g, grid, device, &threads);
  if (err != cudaSuccess) return err;
  const size_t shared = shared_bytes(g.kp, threads);
  static std::atomic<uint64_t> raised{0}, raised_deep{0};
  const bool deep = threads == kDeepThreads;
  auto *kernel = deep ? small_gemm_deep_kernel<kAR, kBR> : small_gemm_kernel<kAR, kBR>;
  err = allow_shared(kernel, deep ? raised_deep : raised, device, shared);
  if (err != cudaSuccess) return err;
  return launch_pdl(Pdl::kCaptureOnly, shared, kernel, grid, dim3(threads), st, g);
}

// Whether every vector copy from x is 16-byte aligned: the base, the leading
// dimension and the batch stride.
bool vectors_aligned(const void *x, int64_t ld, int64_t stride) {
  return reinterpret_cast<uintptr_t>(x) % 16 == 0 && ld % kVec == 0 && stride % kVec == 0;
}

}  // namespace

bool small_gemm_fits(const GemmPlan &p) {
  if (p.dtype != kF32 || p.tf32 || p.k < 0 || p.batch <= 0) return false;
  if (p.m < kTile || p.n < kTile) return false;
  static_assert(shared_bytes(kDeep, kDeepThreads) <= kMaxShared, "deep blocks' partial tiles fit");
  if (p.k > int64_t(kMaxShared / sizeof(float)) ||
      shared_bytes(padded_depth(int(p.k)), kThreads) > kMaxShared)
    return false;
  const int64_t tiles_m = (p.m + kTile - 1) / kTile, tiles_n = (p.n + kTile - 1) / kTile;
  return tiles_m <= kMaxTiles && tiles_n <= kMaxTiles / tiles_m && p.batch <= kMaxTiles / tiles_m / tiles_n;
}

int small_gemm(const GemmPlan &p, void *stream) {
  const Args g{static_cast<const float *>(p.a), static_cast<const float *>(p.b),
               static_cast<float *>(p.c), p.m, p.n, p.batch, p.lda, p.ldb, p.ldc, p.stride_a, p.stride_b,
               p.stride_c, int(p.k), padded_depth(int(p.k)), p.trans_a, p.trans_b,
               vectors_aligned(p.a, p.lda, p.stride_a), vectors_aligned(p.b, p.ldb, p.stride_b),
               static_cast<float>(p.alpha), static_cast<float>(p.beta)};
  cudaStream_t st = static_cast<cudaStream_t>(stream);
  // op(A) is contiguous along its rows when stored as it is; op(B) along its
  // columns when stored transposed.
  if (!g.trans_a) return g.trans_b ? launch<true, true>(g, st) : launch<true, false>(g, st);
  return g.trans_b ? launch<false, true>(g, st) : launch<false, false>(g, st);
}

}  // namespace cuda
}  // namespace ek
