// CUDA reductions over a contiguous (outer, r, inner) block (see reduce.cuh).
//
// Instantiated per storage type (f16, bf16, f32, f64, i64) x family (add, mul,
// extremum, arg); the exact kind within a family (sum/abs/square/deviation,
// max/min/max-abs, argmax/argmin) is a warp-uniform run-time switch, cheap next
// to the memory traffic. Accumulators: f32 for f16/bf16/f32, f64, int64.
#include "kernels/reduce.cuh"

#include <cuda_runtime.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <type_traits>

#include "util/half.hpp"
#include "kernels/pdl.cuh"
#include "kernels/storage_types.cuh"
#include "kernels/strided.cuh"
#include "kernels/reduce_config.hpp"
#include "kernels/reduce_device.cuh"

namespace ek {
namespace cuda {
namespace {

// Row r of the contiguous (outer, r) input in memory.
template <typename T> struct MemLine {
  using Vector = Vec<T>;
  const T *line;
  __device__ __forceinline__ T at(int64_t j) const { return line[j]; }
  __device__ __forceinline__ const Vec<T> *vectors(int64_t j) const { return reinterpret_cast<const Vec<T> *>(line + j); }
  __device__ __forceinline__ uintptr_t addr(int64_t j) const { return reinterpret_cast<uintptr_t>(line + j); }
};
template <typename T> struct MemLines {
  const ReducePlan &p;
  __device__ __forceinline__ MemLine<T> operator()(int64_t row) const {
    return MemLine<T>{static_cast<const T *>(p.in) + row * p.r};
  }
};

// inner == 1: `group` threads per row; blockIdx.y is the split of the row.
template <typename T, int Fam>
__global__ void __launch_bounds__(kThreads)
row_kernel(ReducePlan p, int group, int64_t chunk, State<typename AccOf<T>::type> *partial,
           unsigned *done) {
  pdl_trigger();
  pdl_wait();  // launched with launch_pdl: nothing before this touches memory
  row_reduce<T, typename AccOf<T>::type, Fam>(p, group, chunk, partial, done, MemLines<T>{p});
}

// V consecutive elements of T, loaded as one access (V = 1: a plain T).

// inner > 1: thread x owns V adjacent columns (one 4- to 16-byte load per
// row, coalesced across the warp), threadIdx.y strides the rows of this
// block's chunk (blockIdx.z); blockIdx.y walks outer. Three blocks per SM
// (at most 40 registers) keep enough loads in flight to near DRAM's rate;
// at two, column sums ran 2.5 µs slower of 53 on an H100.
template <typename T, int Fam, int V>
__global__ void __launch_bounds__(kColX * kColY, 3)
col_kernel(ReducePlan p, int64_t chunk, State<typename AccOf<T>::type> *partial, unsigned *done) {
  using A = typename AccOf<T>::type;
  const Op<A, Fam> op{p.kind};
  __shared__ State<A> rows[kColY][kColX * V];
  const int64_t i = (blockIdx.x * int64_t(kColX) + threadIdx.x) * V, nout = p.outer * p.inner;
  const int64_t lo = blockIdx.z * chunk, hi = min(p.r, lo + chunk);
  for (int64_t o = blockIdx.y; o < p.outer; o += gridDim.y) {
    State<A> s[V];
    A c[V];
#pragma unroll
    for (int v = 0; v < V; ++v) s[v] = op.identity();
    if (i < p.inner) {  // V > 1 only when V divides inner: the whole pack is in range
      const T *col = static_cast<const T *>(p.in) + o * p.r * p.inner + i;
#pragma unroll
      for (int v = 0; v < V; ++v) c[v] = center_of<A>(p, o * p.inner + i + v);
      auto row = [&](int64_t k) { return *reinterpret_cast<const Vec<T, V> *>(col + k * p.inner); };
      int64_t k = lo + threadIdx.y;
      for (; k + (kUnroll - 1) * kColY < hi; k += kUnroll * kColY) {
        Vec<T, V> buf[kUnroll];
#pragma unroll
        for (int u = 0; u < kUnroll; ++u) buf[u] = row(k + u * kColY);
#pragma unroll
        for (int u = 0; u < kUnroll; ++u)
#pragma unroll
          for (int v = 0; v < V; ++v) s[v] = op.combine(s[v], op.make(to_acc(buf[u].v[v]), k + u * kColY, c[v]));
      }
      for (; k < hi; k += kColY) {
        Vec<T, V> b = row(k);
#pragma unroll
        for (int v = 0; v < V; ++v) s[v] = op.combine(s[v], op.make(to_acc(b.v[v]), k, c[v]));
      }
    }
#pragma unroll
    for (int v = 0; v < V; ++v) rows[threadIdx.y][threadIdx.x * V + v] = s[v];
    __syncthreads();
    // The block's kColX * V columns, combined over y in order, by its first threads.
    const int t = threadIdx.y * kColX + threadIdx.x;
    const int64_t j = blockIdx.x * int64_t(kColX) * V + t;
    if (t < kColX * V && j < p.inner) {
      State<A> r = rows[0][t];
      for (int y = 1; y < kColY; ++y) r = op.combine(r, rows[y][t]);
      if (partial) partial[blockIdx.z * nout + o * p.inner + j] = r;
      else store<A, Fam>(p, o * p.inner + j, r);
    }
    __syncthreads();
  }
  if (done) finish_in_last_block<A, Fam>(p, op, gridDim.z, partial, done);
}

// Second pass (combine_all). Launched as a programmatic dependent of the
// first pass (pdl.cuh), so its launch overlaps the first pass's tail.
template <typename T, int Fam>
__global__ void __launch_bounds__(kThreads)
combine_kernel(ReducePlan p, int64_t splits, const State<typename AccOf<T>::type> *partial) {
  pdl_wait();
  combine_all<typename AccOf<T>::type, Fam>(p, splits, partial);
}

template <typename T, int Fam, int V>
void launch_columns(const ReducePlan &p, const Config &c, State<typename AccOf<T>::type> *partial,
                    unsigned *done, cudaStream_t st) {
  dim3 grid(static_cast<unsigned>(c.blocks), static_cast<unsigned>(std::min(p.outer, kMaxGrid)),
            static_cast<unsigned>(c.splits));
  col_kernel<T, Fam, V><<<grid, dim3(kColX, kColY), 0, st>>>(p, c.chunk, partial, done);
}

template <typename T, int Fam>
void launch_combine(const ReducePlan &p, int64_t splits, const State<typename AccOf<T>::type> *partial,
                    cudaStream_t st) {
  launch_pdl(Pdl::kAlways, combine_kernel<T, Fam>, dim3(grid_for(p.outer * p.inner, kThreads / 32)),
             dim3(kThreads), st, p, splits, partial);
}

template <typename T, int Fam>
int launch(const ReducePlan &p, void *workspace, void *tail, cudaStream_t st) {
  using S = State<typename AccOf<T>::type>;
  Config c = configure(p);
  void *space = c.tail ? static_cast<char *>(tail) + kTailPartials : workspace;
  unsigned *done = c.tail ? static_cast<unsigned *>(tail) : nullptr;
  S *partial = c.splits > 1 ? static_cast<S *>(space) : nullptr;
  if (c.splits > 1 && !space) return cudaErrorInvalidValue;
  if (c.rows) {
    dim3 grid(static_cast<unsigned>(c.blocks), static_cast<unsigned>(c.splits));
    launch_pdl(Pdl::kCaptureOnly, row_kernel<T, Fam>, grid, dim3(kThreads), st, p, c.group, c.chunk, partial,
               done);
  } else if (c.vec == 4) {
    if constexpr (sizeof(T) <= 4) launch_columns<T, Fam, 4>(p, c, partial, done, st);  // else vec <= 2
  } else if (c.vec == 2) {
    launch_columns<T, Fam, 2>(p, c, partial, done, st);
  } else {
    launch_columns<T, Fam, 1>(p, c, partial, done, st);
  }
  if (partial && !done) launch_combine<T, Fam>(p, c.splits, partial, st);
  return static_cast<int>(cudaGetLastError());
}

template <typename T>
int launch_type(const ReducePlan &p, void *workspace, void *tail, cudaStream_t st) {
  switch (p.kind) {
    case kRSum: case kRSumAbs: case kRSumSq: case kRSumSqDev: return launch<T, kAdd>(p, workspace, tail, st);
    case kRProd: return launch<T, kMul>(p, workspace, tail, st);
    case kRMax: case kRMin: case kRMaxAbs: return launch<T, kExt>(p, workspace, tail, st);
    default: return launch<T, kArg>(p, workspace, tail, st);
  }
}

}  // namespace

size_t reduce_workspace(const ReducePlan &p) {
  if (p.outer * p.inner == 0) return 0;
  return workspace_bytes(p, configure(p));
}

int reduce(const ReducePlan &p, void *workspace, void *tail, void *stream) {
  if (p.outer * p.inner == 0) return 0;
  if (p.kind < kRSum || p.kind > kRArgMin) return cudaErrorInvalidValue;
  auto st = static_cast<cudaStream_t>(stream);
  switch (p.in_dtype) {
    case kF16: return launch_type<F16>(p, workspace, tail, st);
    case kBF16: return launch_type<BF16>(p, workspace, tail, st);
    case kF32: return launch_type<float>(p, workspace, tail, st);
    case kF64: return launch_type<double>(p, workspace, tail, st);
    case kI64: return launch_type<int64_t>(p, workspace, tail, st);
    default: return cudaErrorInvalidValue;
  }
}

}  // namespace cuda
}  // namespace ek
