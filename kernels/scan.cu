// CUDA inclusive scans over a contiguous (outer, n, inner) block (see scan.cuh).
//
// A line (n elements along the scanned dim) is split into `chunks` parts when
// the lines alone are too few to fill the GPU. Then three launches: the
// total of every part, the scan of those totals per line (the same scan
// kernels, run on the accumulator type), and the scan of every part starting
// from the scanned total of the parts before it. Otherwise a single launch.
// Instantiated per storage type; sum/product is a uniform run-time flag.
#include "kernels/scan.cuh"

#include <cuda_runtime.h>

#include <algorithm>
#include <type_traits>

#include "kernels/storage_types.cuh"
#include "kernels/strided.cuh"

namespace ek {
namespace cuda {
namespace {

constexpr int kBlock = 256;
constexpr int kWarps = kBlock / 32;
constexpr int kItems = 16;           // row path: elements per lane per tile
constexpr int kTile = 32 * kItems;   // row path: elements a warp scans per step
constexpr int kColUnroll = 4;        // column path: loads in flight per thread
constexpr int64_t kShortRow = 32;    // rows this short take the column path (a thread per row)
// Constants rather than device queries, so the launch shape (and the bits of
// the result) depend on the plan only. About what fills an H100.
constexpr int64_t kTargetThreads = int64_t(1) << 18;
constexpr int64_t kMaxChunks = 2048;         // bounds the (sequential) scan of the part totals
constexpr int64_t kMinRowChunk = 4 * kTile;
constexpr int64_t kMinColChunk = 16;

template <typename A> __device__ __forceinline__ A identity(bool mul) { return A(mul ? 1 : 0); }

// int64 wraps around (through uint64: no signed-overflow UB), as the CPU.
template <typename A> __device__ __forceinline__ A combine(A a, A b, bool mul) {
  if constexpr (std::is_integral<A>::value) {
    auto x = static_cast<uint64_t>(a), y = static_cast<uint64_t>(b);
    return static_cast<A>(mul ? x * y : x + y);
  } else {
    return mul ? a * b : a + b;
  }
}

template <typename A> __device__ __forceinline__ A shfl_up(A v, int off) {
  if constexpr (std::is_integral<A>::value)
    return static_cast<A>(__shfl_up_sync(0xffffffffu, static_cast<long long>(v), off));
  else return __shfl_up_sync(0xffffffffu, v, off);
}
template <typename A> __device__ __forceinline__ A shfl_xor(A v, int off) {
  if constexpr (std::is_integral<A>::value)
    return static_cast<A>(__shfl_xor_sync(0xffffffffu, static_cast<long long>(v), off));
  else return __shfl_xor_sync(0xffffffffu, v, off);
}
template <typename A> __device__ __forceinline__ A shfl_idx(A v, int src) {
  if constexpr (std::is_integral<A>::value)
    return static_cast<A>(__shfl_sync(0xffffffffu, static_cast<long long>(v), src));
  else return __shfl_sync(0xffffffffu, v, src);
}

// The block as the kernels see it. Lines are split into `chunks` parts of
// `chunk` elements; a row part is "segment" row * chunks + c, a column part
// (o * chunks + c) * inner + i.
struct Lines {
  const void *in;
  void *out;
  int64_t outer, n, inner;
  int64_t chunk, chunks;
  const void *carry;  // chunks > 1: the scanned part totals (accumulator type), by segment
  void *totals;       // the part-total kernels write here, by segment
  bool mul;
};

// Loads tile elements t + r * 32 + lane (r < kItems) below hi; identity past it.
template <typename T, typename A>
__device__ __forceinline__ void load_tile(const T *in, int64_t t, int64_t hi, int lane, bool mul,
                                          A (&v)[kItems]) {
#pragma unroll
  for (int r = 0; r < kItems; ++r) {
    const int64_t i = t + r * 32 + lane;
    v[r] = i < hi ? to_acc(in[i]) : identity<A>(mul);
  }
}

// Segment bounds [lo, hi) in elements of the block, for the row path.
__device__ __forceinline__ void row_segment(const Lines &a, int64_t s, int64_t *lo, int64_t *hi) {
  const int64_t row = s / a.chunks, c = s % a.chunks;
  *lo = row * a.n + c * a.chunk;
  *hi = row * a.n + min(a.n, (c + 1) * a.chunk);
}

// inner == 1: a warp per segment, tiles of kTile. Each of the kItems rounds
// of 32 consecutive elements is scanned with shuffles (the rounds
// interleaved for ILP), then chained through the running carry.
template <typename T>
__global__ void __launch_bounds__(kBlock) row_scan_kernel(Lines a) {
  using A = typename AccOf<T>::type;
  const int lane = threadIdx.x % 32;
  const T *in = static_cast<const T *>(a.in);
  T *out = static_cast<T *>(a.out);
  const A *carries = static_cast<const A *>(a.carry);
  for (int64_t s = blockIdx.x * int64_t(kWarps) + threadIdx.x / 32; s < a.outer * a.chunks;
       s += int64_t(gridDim.x) * kWarps) {  // the same s across a warp: shuffles stay converged
    int64_t lo, hi;
    row_segment(a, s, &lo, &hi);
    A carry = carries && s % a.chunks ? carries[s - 1] : identity<A>(a.mul);
    for (int64_t t = lo; t < hi; t += kTile) {
      A v[kItems];
      load_tile(in, t, hi, lane, a.mul, v);
#pragma unroll
      for (int off = 1; off < 32; off <<= 1)
#pragma unroll
        for (int r = 0; r < kItems; ++r) {
          const A y = shfl_up(v[r], off);
          if (lane >= off) v[r] = combine(y, v[r], a.mul);
        }
#pragma unroll
      for (int r = 0; r < kItems; ++r) {
        const A total = shfl_idx(v[r], 31);
        const int64_t i = t + r * 32 + lane;
        if (i < hi) from_acc(combine(carry, v[r], a.mul), &out[i]);
        carry = combine(carry, total, a.mul);
      }
    }
  }
}

// inner == 1, split lines: the total of every segment.
template <typename T>
__global__ void __launch_bounds__(kBlock) row_total_kernel(Lines a) {
  using A = typename AccOf<T>::type;
  const int lane = threadIdx.x % 32;
  const T *in = static_cast<const T *>(a.in);
  for (int64_t s = blockIdx.x * int64_t(kWarps) + threadIdx.x / 32; s < a.outer * a.chunks;
       s += int64_t(gridDim.x) * kWarps) {
    int64_t lo, hi;
    row_segment(a, s, &lo, &hi);
    A acc = identity<A>(a.mul);
    for (int64_t t = lo; t < hi; t += kTile) {
      A v[kItems];
      load_tile(in, t, hi, lane, a.mul, v);
#pragma unroll
      for (int r = 0; r < kItems; ++r) acc = combine(acc, v[r], a.mul);
    }
    for (int off = 16; off > 0; off >>= 1) acc = combine(acc, shfl_xor(acc, off), a.mul);
    if (lane == 0) static_cast<A *>(a.totals)[s] = acc;
  }
}

// A column segment: thread t's (o, c, i), its first element and bounds along n.
struct ColSegment {
  int64_t base, lo, hi;
  bool first_part;
  __device__ ColSegment(const Lines &a, int64_t t) {
    const int64_t i = t % a.inner, oc = t / a.inner, c = oc % a.chunks, o = oc / a.chunks;
    base = o * a.n * a.inner + i;
    lo = c * a.chunk;
    hi = min(a.n, lo + a.chunk);
    first_part = c == 0;
  }
};

// Threads along inner (coalesced), each scanning its segment sequentially.
template <typename T>
__global__ void __launch_bounds__(kBlock) col_scan_kernel(Lines a) {
  using A = typename AccOf<T>::type;
  const T *in = static_cast<const T *>(a.in);
  T *out = static_cast<T *>(a.out);
  const A *carries = static_cast<const A *>(a.carry);
  for (int64_t t = blockIdx.x * int64_t(kBlock) + threadIdx.x; t < a.outer * a.chunks * a.inner;
       t += int64_t(gridDim.x) * kBlock) {
    const ColSegment g(a, t);
    A acc = carries && !g.first_part ? carries[t - a.inner] : identity<A>(a.mul);
    int64_t k = g.lo;
    for (; k + kColUnroll <= g.hi; k += kColUnroll) {
      A v[kColUnroll];
#pragma unroll
      for (int u = 0; u < kColUnroll; ++u) v[u] = to_acc(in[g.base + (k + u) * a.inner]);
#pragma unroll
      for (int u = 0; u < kColUnroll; ++u) {
        acc = combine(acc, v[u], a.mul);
        from_acc(acc, &out[g.base + (k + u) * a.inner]);
      }
    }
    for (; k < g.hi; ++k) {
      acc = combine(acc, to_acc(in[g.base + k * a.inner]), a.mul);
      from_acc(acc, &out[g.base + k * a.inner]);
    }
  }
}

// Split columns: the total of every segment.
template <typename T>
__global__ void __launch_bounds__(kBlock) col_total_kernel(Lines a) {
  using A = typename AccOf<T>::type;
  const T *in = static_cast<const T *>(a.in);
  for (int64_t t = blockIdx.x * int64_t(kBlock) + threadIdx.x; t < a.outer * a.chunks * a.inner;
       t += int64_t(gridDim.x) * kBlock) {
    const ColSegment g(a, t);
    A acc = identity<A>(a.mul);
    int64_t k = g.lo;
    for (; k + kColUnroll <= g.hi; k += kColUnroll) {
      A v[kColUnroll];
#pragma unroll
      for (int u = 0; u < kColUnroll; ++u) v[u] = to_acc(in[g.base + (k + u) * a.inner]);
#pragma unroll
      for (int u = 0; u < kColUnroll; ++u) acc = combine(acc, v[u], a.mul);
    }
    for (; k < g.hi; ++k) acc = combine(acc, to_acc(in[g.base + k * a.inner]), a.mul);
    static_cast<A *>(a.totals)[t] = acc;
  }
}

// Launch shape, a function of the plan only.
struct Shape {
  bool rows = false;
  int64_t chunk = 1, chunks = 1;
};

Shape shape_of(const DimPlan &p) {
  Shape s;
  s.rows = p.inner == 1 && p.n > kShortRow;
  const int64_t lines = p.outer * p.inner;
  const int64_t want = ceil_div(s.rows ? kTargetThreads / 32 : kTargetThreads, lines);
  const int64_t min_chunk = s.rows ? kMinRowChunk : kMinColChunk;
  const int64_t chunks = std::max<int64_t>(1, std::min({want, kMaxChunks, p.n / min_chunk}));
  const int64_t align = s.rows ? kTile : 1;  // row parts start on a tile
  s.chunk = std::max<int64_t>(ceil_div(ceil_div(p.n, chunks), align) * align, 1);
  s.chunks = std::max<int64_t>(ceil_div(p.n, s.chunk), 1);
  return s;
}

template <typename T>
void launch_scan(const Lines &a, bool rows, cudaStream_t st) {
  if (rows) row_scan_kernel<T><<<grid_for(a.outer * a.chunks, kWarps), kBlock, 0, st>>>(a);
  else col_scan_kernel<T><<<grid_for(a.outer * a.chunks * a.inner, kBlock), kBlock, 0, st>>>(a);
}

template <typename T>
int launch(const DimPlan &p, bool mul, void *workspace, cudaStream_t st) {
  using A = typename AccOf<T>::type;
  const Shape s = shape_of(p);
  Lines a{p.in, p.out, p.outer, p.n, p.inner, s.chunk, s.chunks, nullptr, nullptr, mul};
  if (s.chunks > 1) {
    if (!workspace) return cudaErrorInvalidValue;
    a.totals = workspace;
    if (s.rows) row_total_kernel<T><<<grid_for(p.outer * s.chunks, kWarps), kBlock, 0, st>>>(a);
    else col_total_kernel<T><<<grid_for(p.outer * s.chunks * p.inner, kBlock), kBlock, 0, st>>>(a);
    // The totals, (outer, chunks, inner), scanned in place along chunks.
    const Lines t{workspace, workspace, p.outer, s.chunks, p.inner, s.chunks, 1, nullptr, nullptr, mul};
    launch_scan<A>(t, s.rows, st);
    a.carry = workspace;
  }
  launch_scan<T>(a, s.rows, st);
  return static_cast<int>(cudaGetLastError());
}

}  // namespace

size_t scan_workspace(const DimPlan &p) {
  if (p.outer * p.n * p.inner == 0) return 0;
  const Shape s = shape_of(p);
  return s.chunks > 1 ? static_cast<size_t>(p.outer * s.chunks * p.inner) * sizeof(int64_t) : 0;
}

int scan(const DimPlan &p, int kind, void *workspace, void *stream) {
  if (p.outer * p.n * p.inner == 0) return 0;
  if (kind != kCumSum && kind != kCumProd) return cudaErrorInvalidValue;
  const bool mul = kind == kCumProd;
  auto st = static_cast<cudaStream_t>(stream);
  switch (p.dtype) {
    case kF16: return launch<F16>(p, mul, workspace, st);
    case kBF16: return launch<BF16>(p, mul, workspace, st);
    case kF32: return launch<float>(p, mul, workspace, st);
    case kF64: return launch<double>(p, mul, workspace, st);
    case kI64: case kU64: return launch<int64_t>(p, mul, workspace, st);
    default: return cudaErrorInvalidValue;
  }
}

}  // namespace cuda
}  // namespace ek
