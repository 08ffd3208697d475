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
#include "kernels/storage_types.cuh"
#include "kernels/strided.cuh"

namespace ek {
namespace cuda {
namespace {

constexpr int kColX = 32, kColY = 16;      // column kernel block: inner x rows
constexpr int kUnroll = 4;                 // loads in flight per thread
constexpr int64_t kTargetBlocks = 2048;    // fixed, so the tree (and the bits) never depend on the GPU
// Column blocks (512 threads) run two to an SM: 256 of them fill an H100 in
// one wave, each streaming a long chunk, and keep the partials few (the
// combine then reads each output's partials with one load per lane). Tried
// on the H100: 1024 blocks 61 us, 256 blocks 53 us for 32768x1024 f32; the
// last block of each strip combining in the same launch was slower (61 us).
constexpr int64_t kTargetColBlocks = 256;
constexpr int64_t kTailOutputs = 32;       // at most this many outputs finish in the last block
constexpr int64_t kMaxSplit = 1024;        // partials per output at most
constexpr int64_t kMaxGrid = 65535;        // grid.y / grid.z limit
constexpr int64_t kLongRow = 4096;         // rows this long get a block each, shorter a warp

enum Family { kAdd, kMul, kExt, kArg };

template <typename A> struct State { A v; int64_t i; };
static_assert(sizeof(State<float>) <= 16 && sizeof(State<double>) <= 16, "partial size");
constexpr size_t kPartialBytes = 16;
constexpr size_t kTailPartials = 256;  // offset of the partials in the tail scratch (after the counter)

template <typename A> __device__ __forceinline__ bool isnan_(A v) { return v != v; }

template <typename A> __device__ __forceinline__ A lowest() {
  if constexpr (std::is_integral<A>::value) return LLONG_MIN;
  else return -INFINITY;
}
template <typename A> __device__ __forceinline__ A highest() {
  if constexpr (std::is_integral<A>::value) return LLONG_MAX;
  else return INFINITY;
}

// One family's element map and combine; `kind` picks the member.
template <typename A, int Fam>
struct Op {
  int kind;
  __device__ State<A> identity() const {
    if (Fam == kAdd) return {A(0), 0};
    if (Fam == kMul) return {A(1), 0};
    if (Fam == kArg) return {A(0), -1};  // index -1: no element yet
    return {kind == kRMin ? highest<A>() : (kind == kRMaxAbs ? A(0) : lowest<A>()), 0};
  }
  __device__ State<A> make(A x, int64_t idx, A c) const {
    if constexpr (!std::is_integral<A>::value) {
      if (Fam == kAdd && kind == kRSumAbs) x = fabs(x);
      if (Fam == kAdd && kind == kRSumSq) x = x * x;
      if (Fam == kAdd && kind == kRSumSqDev) x = (x - c) * (x - c);
      if (Fam == kExt && kind == kRMaxAbs) x = fabs(x);
    }
    return {x, idx};
  }
  // b replaces a: NaN first, then the better value, then the lower index.
  __device__ bool arg_better(const State<A> &b, const State<A> &a) const {
    if (b.i < 0) return false;
    if (a.i < 0) return true;
    bool bn = isnan_(b.v), an = isnan_(a.v);
    if (bn || an) return bn && (!an || b.i < a.i);
    if (b.v == a.v) return b.i < a.i;
    return kind == kRArgMin ? b.v < a.v : b.v > a.v;
  }
  __device__ State<A> combine(const State<A> &a, const State<A> &b) const {
    if (Fam == kAdd) {
      if constexpr (std::is_integral<A>::value)  // wrap-around without signed overflow
        return {A(static_cast<uint64_t>(a.v) + static_cast<uint64_t>(b.v)), 0};
      else return {a.v + b.v, 0};
    }
    if (Fam == kMul) {
      if constexpr (std::is_integral<A>::value)
        return {A(static_cast<uint64_t>(a.v) * static_cast<uint64_t>(b.v)), 0};
      else return {a.v * b.v, 0};
    }
    if (Fam == kArg) return arg_better(b, a) ? b : a;
    if (isnan_(a.v)) return a;  // NaN propagates
    bool take = isnan_(b.v) || (kind == kRMin ? b.v < a.v : b.v > a.v);
    return take ? b : a;
  }
};

template <typename A> __device__ __forceinline__ A shfl_down(A v, int off) {
  if constexpr (std::is_integral<A>::value)
    return static_cast<A>(__shfl_down_sync(0xffffffffu, static_cast<long long>(v), off));
  else return __shfl_down_sync(0xffffffffu, v, off);
}

// Lane 0 of each warp ends with the warp's combination (fixed tree).
template <typename A, int Fam>
__device__ State<A> warp_reduce(const Op<A, Fam> &op, State<A> s) {
  for (int off = 16; off > 0; off >>= 1) {
    State<A> o{shfl_down(s.v, off), Fam == kArg ? shfl_down(s.i, off) : 0};
    s = op.combine(s, o);
  }
  return s;
}

// Groups of `group` threads (32 or kThreads, uniform per launch); lane 0 of a
// group ends with the group's combination.
template <typename A, int Fam>
__device__ State<A> group_reduce(const Op<A, Fam> &op, State<A> s, int group) {
  s = warp_reduce(op, s);
  if (group == 32) return s;
  __shared__ State<A> warps[kThreads / 32];
  int warp = threadIdx.x / 32;
  if (threadIdx.x % 32 == 0) warps[warp] = s;
  __syncthreads();
  s = threadIdx.x < kThreads / 32 ? warps[threadIdx.x] : op.identity();
  if (warp == 0) s = warp_reduce(op, s);
  __syncthreads();  // warps[] is reused by the next row
  return s;
}

// dtype_size is host-only: the same table (tensor_desc.hpp) for device code.
__device__ __forceinline__ int64_t elem_size(int dtype) {
  switch (dtype) {
    case kI16: case kU16: case kF16: case kBF16: return 2;
    case kI32: case kU32: case kF32: return 4;
    case kI64: case kU64: case kF64: return 8;
    default: return 1;
  }
}

// The final value of output o: scaled (mean, var) and rooted (L2, std) floats.
template <typename A, int Fam>
__device__ void store(const ReducePlan &p, int64_t o, const State<A> &s) {
  if (Fam == kArg && p.indices) p.indices[o] = s.i;
  if (!p.out) return;
  detail::Scalar v;
  if constexpr (std::is_integral<A>::value) {
    v = detail::scalar_int(s.v);
  } else {
    double d = static_cast<double>(s.v);
    if (Fam == kAdd) d /= p.divisor;
    if (p.take_sqrt) d = sqrt(d);
    v = detail::scalar_float(d);
  }
  char *out = static_cast<char *>(p.out) + o * elem_size(p.out_dtype);
  // The common results skip the general store: the last block runs this
  // serially after every other block, and the general one's size showed there
  // (sum of 1M f32 took 5% longer when the cast rule grew).
  if (!std::is_integral<A>::value && p.out_dtype == kF32) {
    *reinterpret_cast<float *>(out) = detail::narrow_f64(v.f);
  } else if (std::is_integral<A>::value && p.out_dtype == kI64) {
    *reinterpret_cast<int64_t *>(out) = v.i;
  } else {
    detail::store_scalar(out, p.out_dtype, v);
  }
}

template <typename A> __device__ A center_of(const ReducePlan &p, int64_t o) {
  return p.center ? static_cast<A>(p.center[o]) : A(0);
}

// Combines elements [lo, hi) of a contiguous line; this thread takes every
// group-th 16-byte vector (after an unaligned head), kUnroll at a time.
template <typename T, typename A, int Fam>
__device__ State<A> span(const Op<A, Fam> &op, const T *line, int64_t lo, int64_t hi, int lane,
                         int group, A c) {
  constexpr int V = 16 / sizeof(T);
  State<A> s = op.identity();
  int64_t mis = static_cast<int64_t>((reinterpret_cast<uintptr_t>(line + lo) % 16) / sizeof(T));
  int64_t head = min(hi - lo, (V - mis) % V);
  if (lane < head) s = op.combine(s, op.make(to_acc(line[lo + lane]), lo + lane, c));
  int64_t start = lo + head, nv = (hi - start) / V;
  const Vec<T> *vec = reinterpret_cast<const Vec<T> *>(line + start);
  int64_t k = lane;
  for (; k + (kUnroll - 1) * group < nv; k += kUnroll * group) {
    Vec<T> buf[kUnroll];
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) buf[u] = vec[k + u * group];
#pragma unroll
    for (int u = 0; u < kUnroll; ++u)
#pragma unroll
      for (int e = 0; e < V; ++e)
        s = op.combine(s, op.make(to_acc(buf[u].v[e]), start + (k + u * group) * V + e, c));
  }
  for (; k < nv; k += group) {
    Vec<T> b = vec[k];
#pragma unroll
    for (int e = 0; e < V; ++e) s = op.combine(s, op.make(to_acc(b.v[e]), start + k * V + e, c));
  }
  for (int64_t j = start + nv * V + lane; j < hi; j += group)
    s = op.combine(s, op.make(to_acc(line[j]), j, c));
  return s;
}

// Output o combined over its `splits` partials by one warp, in a fixed order
// (lane k takes partials k, k+32, ..., then a fixed shuffle tree). Partials
// are read past L1: other blocks wrote them during this launch.
template <typename A, int Fam>
__device__ void combine_output(const ReducePlan &p, const Op<A, Fam> &op, int64_t o, int64_t splits,
                               const State<A> *partial, int lane) {
  const int64_t nout = p.outer * p.inner;
  State<A> s = op.identity();
  for (int64_t k = lane; k < splits; k += 32) {
    const State<A> *q = partial + k * nout + o;
    s = op.combine(s, State<A>{__ldcg(&q->v), __ldcg(&q->i)});
  }
  s = warp_reduce(op, s);
  if (lane == 0) store<A, Fam>(p, o, s);
}

// Single-launch reductions with few outputs: every block leaves its partials,
// and the block that finishes last combines them (the same order as
// combine_kernel, so the bits do not depend on which path ran), then resets
// the counter for the next launch on this stream.
template <typename A, int Fam>
__device__ void finish_in_last_block(const ReducePlan &p, const Op<A, Fam> &op, int64_t splits,
                                     const State<A> *partial, unsigned *done) {
  __shared__ bool last;
  const int t = threadIdx.x + threadIdx.y * blockDim.x, nthreads = blockDim.x * blockDim.y;
  __threadfence();  // this thread's partials are visible before the count says so
  __syncthreads();
  if (t == 0) last = atomicAdd(done, 1u) == gridDim.x * gridDim.y * gridDim.z - 1;
  __syncthreads();
  if (!last) return;
  __threadfence();
  for (int64_t o = t / 32; o < p.outer * p.inner; o += nthreads / 32)
    combine_output<A, Fam>(p, op, o, splits, partial, t % 32);
  if (t == 0) *done = 0;
}

// inner == 1: `group` threads per row; blockIdx.y is the split of the row.
template <typename T, int Fam>
__global__ void __launch_bounds__(kThreads)
row_kernel(ReducePlan p, int group, int64_t chunk, State<typename AccOf<T>::type> *partial,
           unsigned *done) {
  using A = typename AccOf<T>::type;
  const Op<A, Fam> op{p.kind};
  const int rows_per_block = kThreads / group, lane = threadIdx.x % group;
  const int64_t lo = blockIdx.y * chunk, hi = min(p.r, lo + chunk);
  for (int64_t rb = blockIdx.x; rb * rows_per_block < p.outer; rb += gridDim.x) {
    int64_t row = rb * rows_per_block + threadIdx.x / group;
    bool active = row < p.outer;
    State<A> s = op.identity();
    if (active)
      s = span(op, static_cast<const T *>(p.in) + row * p.r, lo, hi, lane, group,
               center_of<A>(p, row));
    s = group_reduce(op, s, group);
    if (!active || lane != 0) continue;
    if (partial) partial[blockIdx.y * p.outer + row] = s;
    else store<A, Fam>(p, row, s);
  }
  if (done) finish_in_last_block<A, Fam>(p, op, gridDim.y, partial, done);
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

// Second pass: a warp per output combines its `splits` partials in order.
// Launched as a programmatic dependent of the first pass on sm_90, so its
// launch overlaps the first pass's tail: it waits here until the first pass
// has finished and its partials are visible (a no-op without the attribute).
template <typename T, int Fam>
__global__ void __launch_bounds__(kThreads)
combine_kernel(ReducePlan p, int64_t splits, const State<typename AccOf<T>::type> *partial) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile("griddepcontrol.wait;" ::: "memory");
#endif
  using A = typename AccOf<T>::type;
  const Op<A, Fam> op{p.kind};
  const int64_t nout = p.outer * p.inner, warps = kThreads / 32;
  for (int64_t ob = blockIdx.x; ob * warps < nout; ob += gridDim.x) {
    int64_t o = ob * warps + threadIdx.x / 32;
    if (o < nout) combine_output<A, Fam>(p, op, o, splits, partial, threadIdx.x % 32);
  }
}

// Launch shape, a function of the plan only.
struct Config {
  bool rows = true;
  int group = 32;
  int vec = 1;         // columns per thread (column kernel)
  int64_t blocks = 1;  // grid.x
  int64_t splits = 1;
  int64_t chunk = 0;
  bool tail = false;   // the last block combines the partials (no second launch)
};

// Splits r so that about `target` blocks run; chunks stay multiples of
// `align` elements (16 bytes) so every chunk but the first starts aligned.
void split(Config &c, int64_t r, int64_t blocks, int64_t target, int64_t min_chunk, int64_t align) {
  int64_t want = blocks >= target ? 1 : ceil_div(target, blocks);
  int64_t s = std::max<int64_t>(1, std::min({want, kMaxSplit, r / std::max<int64_t>(min_chunk, 1)}));
  c.chunk = std::max<int64_t>(ceil_div(ceil_div(r, s), align) * align, 1);
  c.splits = std::max<int64_t>(ceil_div(r, c.chunk), 1);
}

// Columns per thread: up to 16 bytes and 4 columns (the block's shared tile
// stays within 32 KiB), when every row of the block starts aligned for it.
int column_vec(const ReducePlan &p) {
  const int64_t es = static_cast<int64_t>(dtype_size(p.in_dtype));
  const int64_t v = std::min<int64_t>(16 / es, 4);
  const bool aligned = reinterpret_cast<uintptr_t>(p.in) % (v * es) == 0;
  return (v > 1 && p.inner % v == 0 && aligned) ? static_cast<int>(v) : 1;
}

Config configure(const ReducePlan &p) {
  Config c;
  int64_t align = 16 / static_cast<int64_t>(dtype_size(p.in_dtype));
  if (p.inner == 1) {
    c.group = p.r >= kLongRow ? kThreads : 32;
    int64_t rows_per_block = kThreads / c.group;
    c.blocks = ceil_div(p.outer, rows_per_block);
    split(c, p.r, c.blocks, kTargetBlocks, int64_t(c.group) * align * kUnroll, align);
    c.splits = std::min(c.splits, kMaxGrid);
  } else {
    c.rows = false;
    c.vec = column_vec(p);
    c.blocks = ceil_div(p.inner, int64_t(kColX) * c.vec);
    split(c, p.r, c.blocks * std::min(p.outer, kMaxGrid), kTargetColBlocks, kColY * kUnroll, 1);
  }
  c.blocks = std::min<int64_t>(c.blocks, INT_MAX);
  const int64_t nout = p.outer * p.inner;
  c.tail = c.splits > 1 && nout <= kTailOutputs &&
           c.splits * nout * int64_t(kPartialBytes) <= int64_t(kTailScratchBytes - kTailPartials);
  return c;
}

template <typename T, int Fam, int V>
void launch_columns(const ReducePlan &p, const Config &c, State<typename AccOf<T>::type> *partial,
                    unsigned *done, cudaStream_t st) {
  dim3 grid(static_cast<unsigned>(c.blocks), static_cast<unsigned>(std::min(p.outer, kMaxGrid)),
            static_cast<unsigned>(c.splits));
  col_kernel<T, Fam, V><<<grid, dim3(kColX, kColY), 0, st>>>(p, c.chunk, partial, done);
}

// Programmatic dependent launch needs compute capability 9.0.
bool pdl_supported() {
  int device = 0, major = 0;
  return cudaGetDevice(&device) == cudaSuccess &&
         cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device) == cudaSuccess &&
         major >= 9;
}

template <typename T, int Fam>
void launch_combine(const ReducePlan &p, int64_t splits, const State<typename AccOf<T>::type> *partial,
                    cudaStream_t st) {
  cudaLaunchConfig_t cfg = {};
  cfg.gridDim = dim3(grid_for(p.outer * p.inner, kThreads / 32));
  cfg.blockDim = dim3(kThreads);
  cfg.stream = st;
  cudaLaunchAttribute attr = {};
  attr.id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attr.val.programmaticStreamSerializationAllowed = 1;
  cfg.attrs = &attr;
  cfg.numAttrs = pdl_supported() ? 1 : 0;
  cudaLaunchKernelEx(&cfg, combine_kernel<T, Fam>, p, splits, partial);
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
    row_kernel<T, Fam><<<grid, kThreads, 0, st>>>(p, c.group, c.chunk, partial, done);
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
  Config c = configure(p);
  return c.splits > 1 && !c.tail ? static_cast<size_t>(c.splits * p.outer * p.inner) * kPartialBytes : 0;
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
