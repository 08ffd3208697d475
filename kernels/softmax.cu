// CUDA softmax / log_softmax over a contiguous (outer, n, inner) block (see
// softmax.cuh). Every path computes per-thread statistics (max m, sum s of
// exp(x - m)), combines them pairwise - m = max(m1, m2), s = s1 exp(m1 - m) +
// s2 exp(m2 - m) - in a fixed order, then writes exp(x - M) / S or
// x - M - log S. The max propagates NaN; a -inf max contributes 0, so a row of
// -inf ends with M = -inf, x - M = NaN everywhere (as the CPU reference).
#include "kernels/softmax.cuh"

#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <type_traits>

#include "kernels/storage_types.cuh"
#include "kernels/strided.cuh"

namespace ek {
namespace cuda {
namespace {

constexpr int kMaxThreads = 1024;
constexpr int kRowBlock = 128;    // block of the register kernel when a row needs fewer threads
// 16-byte vectors a thread keeps in registers: 8 for f32; f16/bf16 (which
// recompute exp) and f64 (whose exp needs many registers) spill beyond 4.
constexpr int max_loads(int dtype) { return dtype == kF32 ? 8 : 4; }
constexpr int kUnroll = 4;        // loads in flight per thread on the streaming paths
constexpr int kColX = 32;         // column kernel: threads along inner
// Constants rather than device queries, so the launch shape (and the bits of
// the result) depend on the plan only. About what fills an H100.
constexpr int64_t kTargetThreads = int64_t(1) << 18;
constexpr int64_t kTargetBlocks = 264;  // of kMaxThreads, for long rows
constexpr int64_t kMaxChunks = kMaxThreads;

__device__ __forceinline__ float exp_(float x) { return __expf(x); }
__device__ __forceinline__ double exp_(double x) { return exp(x); }
__device__ __forceinline__ float log_(float x) { return logf(x); }
__device__ __forceinline__ double log_(double x) { return log(x); }

template <typename A> struct Stat { A m, s; };

template <typename A> __device__ __forceinline__ Stat<A> no_elements() { return {A(-INFINITY), A(0)}; }

// max that propagates NaN from either side.
template <typename A> __device__ __forceinline__ A nanmax(A a, A b) { return (a != a || a > b) ? a : b; }

// s (a sum relative to max m) relative to max `to`; an empty (-inf) part adds 0.
template <typename A> __device__ __forceinline__ A rescale(A s, A m, A to) {
  return m == A(-INFINITY) ? A(0) : s * exp_(m - to);
}

// Commutative, so butterfly shuffles leave every lane with the same bits.
template <typename A> __device__ __forceinline__ Stat<A> combine(const Stat<A> &a, const Stat<A> &b) {
  A m = nanmax(a.m, b.m);
  return {m, rescale(a.s, a.m, m) + rescale(b.s, b.m, m)};
}

// Statistics of N values: the max, then the sum relative to it.
template <typename A, int N> __device__ __forceinline__ Stat<A> stat_of(const A (&v)[N]) {
  A m = A(-INFINITY), s = A(0);
#pragma unroll
  for (int i = 0; i < N; ++i) m = nanmax(m, v[i]);
  if (m != A(-INFINITY))
#pragma unroll
    for (int i = 0; i < N; ++i) s += exp_(v[i] - m);
  return {m, s};
}

// The row's final statistics and the output map.
template <typename A> struct Final {
  A max, inv_sum, log_sum;
  bool log;
  __device__ Final(const Stat<A> &st, bool log_softmax)
      : max(st.m), inv_sum(A(1) / st.s), log_sum(log_(st.s)), log(log_softmax) {}
  __device__ __forceinline__ A operator()(A x) const {
    return log ? x - max - log_sum : exp_(x - max) * inv_sum;
  }
};

template <typename A> __device__ __forceinline__ Stat<A> shfl_xor(const Stat<A> &s, int off) {
  return {__shfl_xor_sync(0xffffffffu, s.m, off), __shfl_xor_sync(0xffffffffu, s.s, off)};
}

// Combines the statistics of `group` consecutive threads (a power of two; when
// above 32 it is the whole block). Every thread of the group gets the result.
template <typename A> __device__ Stat<A> group_combine(Stat<A> st, int group) {
  for (int off = min(group, 32) / 2; off > 0; off >>= 1) st = combine(st, shfl_xor(st, off));
  if (group <= 32) return st;
  __shared__ Stat<A> warps[kMaxThreads / 32];
  const int lane = threadIdx.x % 32;
  if (lane == 0) warps[threadIdx.x / 32] = st;
  __syncthreads();
  // Every warp combines the warps' results the same way (a butterfly, not a
  // sequential chain: a shorter critical path for a single row).
  st = lane < group / 32 ? warps[lane] : no_elements<A>();
  for (int off = 16; off > 0; off >>= 1) st = combine(st, shfl_xor(st, off));
  __syncthreads();  // warps[] is reused by the next row
  return st;
}

// Elements before the first 16-byte boundary of a line (fewer than a vector).
template <typename T> __device__ __forceinline__ int head_of(const T *line, int64_t n) {
  constexpr int V = 16 / sizeof(T);
  int mis = static_cast<int>((reinterpret_cast<uintptr_t>(line) % 16) / sizeof(T));
  const int64_t head = (V - mis) % V;
  return static_cast<int>(n < head ? n : head);
}

// A line of n elements as an unaligned head, 16-byte vectors and a tail; the
// head and tail are the "edges", numbered q = 0 .. edges-1.
// I: the index type (int where a line is known to be short: fewer registers).
template <typename T, typename I = int64_t> struct Split {
  int head;
  I nv, tail_start;
  int edges;
  __device__ Split(const T *line, I n) {
    constexpr int V = 16 / sizeof(T);
    head = head_of(line, n);
    nv = (n - head) / V;
    tail_start = head + nv * V;
    edges = static_cast<int>(head + (n - tail_start));
  }
  __device__ __forceinline__ I edge(int q) const { return q < head ? q : tail_start + (q - head); }
};

struct RowArgs {
  const void *in;
  void *out;
  int64_t rows, n;
  int group;     // threads per row, a power of two
  bool log;
  bool vec_out;  // out is aligned like in: the body can be stored as vectors
};

// inner == 1, the row held in registers: `group` threads per row, each
// keeping up to kLoads vectors, so global memory is read once. f32/f64 keep
// exp(x - m_thread) in place of x and rescale it at the end (one exp per
// element); f16/bf16 recompute exp(x - M).
template <typename T, int kLoads>
__global__ void __launch_bounds__(kMaxThreads) row_kernel(RowArgs a) {
  using A = typename AccOf<T>::type;
  constexpr int V = 16 / sizeof(T);
  constexpr bool kKeepExp = std::is_same<T, A>::value;
  const int group = a.group, lane = threadIdx.x % group, rows_per_block = blockDim.x / group;
  for (int64_t rb = blockIdx.x; rb * rows_per_block < a.rows; rb += gridDim.x) {
    const int64_t row = rb * rows_per_block + threadIdx.x / group;
    const bool active = row < a.rows;
    const T *line = static_cast<const T *>(a.in) + (active ? row : 0) * a.n;
    T *oline = static_cast<T *>(a.out) + (active ? row : 0) * a.n;
    const Split<T, int> sp(line, active ? static_cast<int>(a.n) : 0);  // n fits: see row_shape
    const Vec<T> *vin = reinterpret_cast<const Vec<T> *>(line + sp.head);
    Vec<T> buf[kLoads];
#pragma unroll
    for (int j = 0; j < kLoads; ++j)
      if (lane + j * group < sp.nv) buf[j] = vin[lane + j * group];
    A m = A(-INFINITY), s = A(0);
#pragma unroll
    for (int j = 0; j < kLoads; ++j)
      if (lane + j * group < sp.nv)
#pragma unroll
        for (int e = 0; e < V; ++e) m = nanmax(m, to_acc(buf[j].v[e]));
    for (int q = lane; q < sp.edges; q += group) m = nanmax(m, to_acc(line[sp.edge(q)]));
    if (m != A(-INFINITY)) {
#pragma unroll
      for (int j = 0; j < kLoads; ++j)
        if (lane + j * group < sp.nv)
#pragma unroll
          for (int e = 0; e < V; ++e) {
            A x = exp_(to_acc(buf[j].v[e]) - m);
            s += x;
            if constexpr (kKeepExp)
              if (!a.log) buf[j].v[e] = x;
          }
      for (int q = lane; q < sp.edges; q += group) s += exp_(to_acc(line[sp.edge(q)]) - m);
    }
    const Stat<A> total = group_combine(Stat<A>{m, s}, group);
    const Final<A> f(total, a.log);
    // buf holds exp(x - m) (softmax of f32/f64, unless this thread saw only
    // -inf): the output is that times exp(m - M) / S.
    const bool kept = kKeepExp && !a.log && m != A(-INFINITY);
    const A scale = kept ? exp_(m - total.m) * f.inv_sum : A(0);
#pragma unroll
    for (int j = 0; j < kLoads; ++j) {
      const int k = lane + j * group;
      if (k >= sp.nv) continue;
      Vec<T> o;
#pragma unroll
      for (int e = 0; e < V; ++e) {
        const A x = to_acc(buf[j].v[e]);
        from_acc(kept ? x * scale : f(x), &o.v[e]);
      }
      T *dst = oline + sp.head + k * V;
      if (a.vec_out) {
        *reinterpret_cast<Vec<T> *>(dst) = o;
      } else {
#pragma unroll
        for (int e = 0; e < V; ++e) dst[e] = o.v[e];
      }
    }
    for (int q = lane; q < sp.edges; q += group) {
      const int i = sp.edge(q);
      from_acc(f(to_acc(line[i])), &oline[i]);
    }
  }
}

// The statistics of elements [lo, hi) of a line; this thread takes every
// group-th vector, kUnroll at a time.
template <typename T>
__device__ Stat<typename AccOf<T>::type> span_stat(const T *line, int64_t lo, int64_t hi, int lane,
                                                   int group) {
  using A = typename AccOf<T>::type;
  constexpr int V = 16 / sizeof(T);
  const Split<T> sp(line + lo, hi - lo);
  const Vec<T> *vin = reinterpret_cast<const Vec<T> *>(line + lo + sp.head);
  Stat<A> st = no_elements<A>();
  int64_t k = lane;
  for (; k + (kUnroll - 1) * group < sp.nv; k += kUnroll * group) {
    Vec<T> b[kUnroll];
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) b[u] = vin[k + u * group];
    A v[kUnroll * V];
#pragma unroll
    for (int u = 0; u < kUnroll; ++u)
#pragma unroll
      for (int e = 0; e < V; ++e) v[u * V + e] = to_acc(b[u].v[e]);
    st = combine(st, stat_of(v));
  }
  for (; k < sp.nv; k += group) {
    Vec<T> b = vin[k];
    A v[V];
#pragma unroll
    for (int e = 0; e < V; ++e) v[e] = to_acc(b.v[e]);
    st = combine(st, stat_of(v));
  }
  for (int q = lane; q < sp.edges; q += group) {
    A v[1] = {to_acc(line[lo + sp.edge(q)])};
    st = combine(st, stat_of(v));
  }
  return st;
}

// Writes f(x) for elements [lo, hi) of a line, in the layout of span_stat.
template <typename T>
__device__ void span_apply(const T *line, T *oline, int64_t lo, int64_t hi, int lane, int group,
                           const Final<typename AccOf<T>::type> &f, bool vec_out) {
  constexpr int V = 16 / sizeof(T);
  const Split<T> sp(line + lo, hi - lo);
  const Vec<T> *vin = reinterpret_cast<const Vec<T> *>(line + lo + sp.head);
  T *obody = oline + lo + sp.head;
  int64_t k = lane;
  auto put = [&](int64_t kk, const Vec<T> &b) {
    Vec<T> o;
#pragma unroll
    for (int e = 0; e < V; ++e) from_acc(f(to_acc(b.v[e])), &o.v[e]);
    if (vec_out) {
      *reinterpret_cast<Vec<T> *>(obody + kk * V) = o;
    } else {
#pragma unroll
      for (int e = 0; e < V; ++e) obody[kk * V + e] = o.v[e];
    }
  };
  for (; k + (kUnroll - 1) * group < sp.nv; k += kUnroll * group) {
    Vec<T> b[kUnroll];
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) b[u] = vin[k + u * group];
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) put(k + u * group, b[u]);
  }
  for (; k < sp.nv; k += group) put(k, vin[k]);
  for (int q = lane; q < sp.edges; q += group) {
    const int64_t i = lo + sp.edge(q);
    from_acc(f(to_acc(line[i])), &oline[i]);
  }
}

struct LongArgs {
  const void *in;
  void *out;
  int64_t rows, n;
  int64_t chunk, chunks;  // a row is `chunks` parts of `chunk` elements (a multiple of 16 bytes)
  void *partial;          // chunks > 1: the statistics of every part, rows x chunks
  bool log, vec_out;
};

// Long rows, split: block u computes the statistics of part u.
template <typename T>
__global__ void __launch_bounds__(kMaxThreads) long_stats_kernel(LongArgs a) {
  using A = typename AccOf<T>::type;
  auto *partial = static_cast<Stat<A> *>(a.partial);
  for (int64_t u = blockIdx.x; u < a.rows * a.chunks; u += gridDim.x) {
    const int64_t row = u / a.chunks, lo = (u % a.chunks) * a.chunk, hi = min(a.n, lo + a.chunk);
    const T *line = static_cast<const T *>(a.in) + row * a.n;
    Stat<A> st = group_combine(span_stat(line, lo, hi, threadIdx.x, blockDim.x), blockDim.x);
    if (threadIdx.x == 0) partial[u] = st;
  }
}

// Long rows: block u writes part u, from the row's partial statistics or
// (chunks == 1) from its own pass over the row; global memory is read twice.
template <typename T>
__global__ void __launch_bounds__(kMaxThreads) long_apply_kernel(LongArgs a) {
  using A = typename AccOf<T>::type;
  const auto *partial = static_cast<const Stat<A> *>(a.partial);
  for (int64_t u = blockIdx.x; u < a.rows * a.chunks; u += gridDim.x) {
    const int64_t row = u / a.chunks, lo = (u % a.chunks) * a.chunk, hi = min(a.n, lo + a.chunk);
    const T *line = static_cast<const T *>(a.in) + row * a.n;
    Stat<A> st = no_elements<A>();
    if (a.chunks == 1) {
      st = span_stat(line, 0, a.n, threadIdx.x, blockDim.x);
    } else {
      for (int64_t c = threadIdx.x; c < a.chunks; c += blockDim.x)
        st = combine(st, partial[row * a.chunks + c]);
    }
    const Final<A> f(group_combine(st, blockDim.x), a.log);
    span_apply(line, static_cast<T *>(a.out) + row * a.n, lo, hi, threadIdx.x, blockDim.x, f,
               a.vec_out);
  }
}

struct ColArgs {
  const void *in;
  void *out;
  int64_t outer, n, inner;
  bool log;
};

// inner > 1: threadIdx.x walks the columns (o, i) - consecutive i, coalesced -
// and threadIdx.y strides the n elements of each; pass 1 gathers statistics,
// pass 2 re-reads (mostly from L2) and writes.
template <typename T>
__global__ void __launch_bounds__(kMaxThreads) col_kernel(ColArgs a) {
  using A = typename AccOf<T>::type;
  __shared__ Stat<A> part[kMaxThreads / kColX][kColX];
  const int x = threadIdx.x, y = threadIdx.y, ny = blockDim.y;
  const int64_t cols = a.outer * a.inner;
  for (int64_t cb = blockIdx.x; cb * kColX < cols; cb += gridDim.x) {
    const int64_t c = cb * kColX + x;
    const bool active = c < cols;
    const int64_t first = active ? (c / a.inner) * a.n * a.inner + c % a.inner : 0;
    const T *col = static_cast<const T *>(a.in) + first;
    Stat<A> st = no_elements<A>();
    int64_t k = y;
    if (active) {
      for (; k + (kUnroll - 1) * ny < a.n; k += kUnroll * ny) {
        A v[kUnroll];
#pragma unroll
        for (int u = 0; u < kUnroll; ++u) v[u] = to_acc(col[(k + u * ny) * a.inner]);
        st = combine(st, stat_of(v));
      }
      for (; k < a.n; k += ny) {
        A v[1] = {to_acc(col[k * a.inner])};
        st = combine(st, stat_of(v));
      }
    }
    part[y][x] = st;
    __syncthreads();
    st = part[0][x];
    for (int r = 1; r < ny; ++r) st = combine(st, part[r][x]);
    __syncthreads();  // part[] is reused by the next columns
    if (!active) continue;
    const Final<A> f(st, a.log);
    T *ocol = static_cast<T *>(a.out) + first;
    for (k = y; k < a.n; k += ny) from_acc(f(to_acc(col[k * a.inner])), &ocol[k * a.inner]);
  }
}

// Register path shape: the fewest threads per row holding it in max_loads
// vectors each, widened while there are too few rows to fill the GPU (a
// single row then runs on up to a full block: lower latency).
struct RowShape {
  bool fits = false;
  int group = 1, loads = 1;
};

RowShape row_shape(int64_t rows, int64_t n, int dtype) {
  RowShape r;
  const int64_t nv = ceil_div(n, 16 / static_cast<int64_t>(dtype_size(dtype)));
  const int most = max_loads(dtype);
  if (nv > int64_t(kMaxThreads) * most) return r;
  int64_t g = 1;
  while (g * most < nv) g *= 2;
  while (g < kMaxThreads && g < nv && rows * g < kTargetThreads) g *= 2;
  int loads = 1;
  while (g * loads < nv) loads *= 2;
  r.fits = true;
  r.group = static_cast<int>(g);
  r.loads = loads;
  return r;
}

// Long rows: parts per row so that about kTargetBlocks blocks run, each part
// at least a few loads per thread.
int64_t long_chunks(int64_t rows, int64_t n, int64_t vec) {
  if (rows >= kTargetBlocks) return 1;
  const int64_t min_part = int64_t(kMaxThreads) * kUnroll * vec;
  return std::max<int64_t>(1, std::min({ceil_div(kTargetBlocks, rows), kMaxChunks, n / min_part}));
}

int64_t long_chunk_len(int64_t n, int64_t chunks, int64_t vec) {
  return ceil_div(ceil_div(n, chunks), vec) * vec;
}

template <typename T, int kLoads>
void launch_rows(const RowArgs &a, cudaStream_t st) {
  const int block = a.group > 32 ? a.group : kRowBlock;  // group_combine: a wide group is the block
  row_kernel<T, kLoads><<<grid_for(a.rows, block / a.group), block, 0, st>>>(a);
}

template <typename T>
void launch_long(const DimPlan &p, bool log, bool vec_out, void *workspace, cudaStream_t st) {
  constexpr int64_t V = 16 / sizeof(T);
  LongArgs a{p.in, p.out, p.outer, p.n, 0, long_chunks(p.outer, p.n, V), workspace, log, vec_out};
  a.chunks = std::max<int64_t>(1, ceil_div(p.n, long_chunk_len(p.n, a.chunks, V)));
  a.chunk = long_chunk_len(p.n, a.chunks, V);
  const unsigned blocks = grid_for(p.outer * a.chunks, 1);
  if (a.chunks > 1) long_stats_kernel<T><<<blocks, kMaxThreads, 0, st>>>(a);
  long_apply_kernel<T><<<blocks, kMaxThreads, 0, st>>>(a);
}

template <typename T>
void launch_cols(const DimPlan &p, bool log, cudaStream_t st) {
  const int64_t cols = p.outer * p.inner, xblocks = ceil_div(cols, kColX);
  int ny = 1;  // rows per column in flight: more when the columns are few
  while (ny < kMaxThreads / kColX && ny < p.n && xblocks * kColX * ny < kTargetThreads) ny *= 2;
  const ColArgs a{p.in, p.out, p.outer, p.n, p.inner, log};
  col_kernel<T><<<grid_for(cols, kColX), dim3(kColX, ny), 0, st>>>(a);
}

template <typename T>
int launch(const DimPlan &p, bool log, void *workspace, cudaStream_t st) {
  if (p.inner > 1) {
    launch_cols<T>(p, log, st);
    return static_cast<int>(cudaGetLastError());
  }
  constexpr int64_t V = 16 / sizeof(T);
  const bool vec_out =
      (reinterpret_cast<uintptr_t>(p.out) - reinterpret_cast<uintptr_t>(p.in)) % 16 == 0;
  const RowShape r = row_shape(p.outer, p.n, p.dtype);
  if (!r.fits) {
    if (long_chunks(p.outer, p.n, V) > 1 && !workspace) return cudaErrorInvalidValue;
    launch_long<T>(p, log, vec_out, workspace, st);
    return static_cast<int>(cudaGetLastError());
  }
  const RowArgs a{p.in, p.out, p.outer, p.n, r.group, log, vec_out};
  switch (r.loads) {
    case 1: launch_rows<T, 1>(a, st); break;
    case 2: launch_rows<T, 2>(a, st); break;
    case 4: launch_rows<T, 4>(a, st); break;
    default:
      if constexpr (std::is_same<T, float>::value) launch_rows<T, 8>(a, st);
      else return cudaErrorInvalidValue;  // row_shape never asks for it
  }
  return static_cast<int>(cudaGetLastError());
}

}  // namespace

size_t softmax_workspace(const DimPlan &p) {
  if (p.outer * p.n * p.inner == 0 || p.inner > 1 || dtype_size(p.dtype) == 0) return 0;
  const int64_t vec = 16 / static_cast<int64_t>(dtype_size(p.dtype));
  if (row_shape(p.outer, p.n, p.dtype).fits) return 0;
  const int64_t chunks = long_chunks(p.outer, p.n, vec);
  return chunks > 1 ? static_cast<size_t>(p.outer * chunks) * sizeof(Stat<double>) : 0;
}

int softmax(const DimPlan &p, int kind, void *workspace, void *stream) {
  if (p.outer * p.n * p.inner == 0) return 0;
  if (kind != kSoftmax && kind != kLogSoftmax) return cudaErrorInvalidValue;
  const bool log = kind == kLogSoftmax;
  auto st = static_cast<cudaStream_t>(stream);
  switch (p.dtype) {
    case kF16: return launch<F16>(p, log, workspace, st);
    case kBF16: return launch<BF16>(p, log, workspace, st);
    case kF32: return launch<float>(p, log, workspace, st);
    case kF64: return launch<double>(p, log, workspace, st);
    default: return cudaErrorInvalidValue;
  }
}

}  // namespace cuda
}  // namespace ek
