// CUDA reductions over a contiguous (outer, r, inner) block (see reduce.cuh).
//
// Instantiated per storage type (f16, bf16, f32, f64, i64) x family (add, mul,
// extremum, arg); the exact kind within a family (sum/abs/square/deviation,
// max/min/max-abs, argmax/argmin) is a warp-uniform run-time switch, cheap next
// to the memory traffic. Accumulators: f32 for f16/bf16/f32, f64, int64.
#include "reduce.cuh"

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <type_traits>

#include "half.hpp"

namespace ek {
namespace cuda {
namespace {

constexpr int kThreads = 256;
constexpr int kColX = 32, kColY = 8;       // column kernel block: inner x rows
constexpr int kUnroll = 4;                 // loads in flight per thread
constexpr int64_t kTargetBlocks = 2048;    // fixed, so the tree (and the bits) never depend on the GPU
constexpr int64_t kMaxSplit = 1024;        // partials per output at most
constexpr int64_t kMaxGrid = 65535;        // grid.y / grid.z limit
constexpr int64_t kLongRow = 4096;         // rows this long get a block each, shorter a warp

enum Family { kAdd, kMul, kExt, kArg };

struct F16 { uint16_t bits; };
struct BF16 { uint16_t bits; };

template <typename T> struct AccOf { using type = float; };
template <> struct AccOf<double> { using type = double; };
template <> struct AccOf<int64_t> { using type = int64_t; };

__device__ __forceinline__ float to_acc(F16 v) { return __half2float(__ushort_as_half(v.bits)); }
__device__ __forceinline__ float to_acc(BF16 v) { return __uint_as_float(uint32_t(v.bits) << 16); }
__device__ __forceinline__ float to_acc(float v) { return v; }
__device__ __forceinline__ double to_acc(double v) { return v; }
__device__ __forceinline__ int64_t to_acc(int64_t v) { return v; }

template <typename A> struct State { A v; int64_t i; };
static_assert(sizeof(State<float>) <= 16 && sizeof(State<double>) <= 16, "partial size");
constexpr size_t kPartialBytes = 16;

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
    case kI16: case kF16: case kBF16: return 2;
    case kI32: case kF32: return 4;
    case kI64: case kF64: return 8;
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
  detail::store_scalar(out, p.out_dtype, v);
}

template <typename A> __device__ A center_of(const ReducePlan &p, int64_t o) {
  return p.center ? static_cast<A>(p.center[o]) : A(0);
}

// 16 bytes of T.
template <typename T> struct alignas(16) Vec { T e[16 / sizeof(T)]; };

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
        s = op.combine(s, op.make(to_acc(buf[u].e[e]), start + (k + u * group) * V + e, c));
  }
  for (; k < nv; k += group) {
    Vec<T> b = vec[k];
#pragma unroll
    for (int e = 0; e < V; ++e) s = op.combine(s, op.make(to_acc(b.e[e]), start + k * V + e, c));
  }
  for (int64_t j = start + nv * V + lane; j < hi; j += group)
    s = op.combine(s, op.make(to_acc(line[j]), j, c));
  return s;
}

// inner == 1: `group` threads per row; blockIdx.y is the split of the row.
template <typename T, int Fam>
__global__ void __launch_bounds__(kThreads)
row_kernel(ReducePlan p, int group, int64_t chunk, State<typename AccOf<T>::type> *partial) {
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
}

// inner > 1: threadIdx.x walks inner (coalesced), threadIdx.y strides the
// rows of this block's chunk (blockIdx.z); blockIdx.y walks outer.
template <typename T, int Fam>
__global__ void __launch_bounds__(kColX * kColY)
col_kernel(ReducePlan p, int64_t chunk, State<typename AccOf<T>::type> *partial) {
  using A = typename AccOf<T>::type;
  const Op<A, Fam> op{p.kind};
  __shared__ State<A> rows[kColY][kColX];
  const int64_t i = blockIdx.x * int64_t(kColX) + threadIdx.x, nout = p.outer * p.inner;
  const int64_t lo = blockIdx.z * chunk, hi = min(p.r, lo + chunk);
  for (int64_t o = blockIdx.y; o < p.outer; o += gridDim.y) {
    State<A> s = op.identity();
    if (i < p.inner) {
      const T *col = static_cast<const T *>(p.in) + o * p.r * p.inner + i;
      A c = center_of<A>(p, o * p.inner + i);
      int64_t k = lo + threadIdx.y;
      for (; k + (kUnroll - 1) * kColY < hi; k += kUnroll * kColY) {
        T buf[kUnroll];
#pragma unroll
        for (int u = 0; u < kUnroll; ++u) buf[u] = col[(k + u * kColY) * p.inner];
#pragma unroll
        for (int u = 0; u < kUnroll; ++u) s = op.combine(s, op.make(to_acc(buf[u]), k + u * kColY, c));
      }
      for (; k < hi; k += kColY) s = op.combine(s, op.make(to_acc(col[k * p.inner]), k, c));
    }
    rows[threadIdx.y][threadIdx.x] = s;
    __syncthreads();
    if (threadIdx.y == 0 && i < p.inner) {
      for (int y = 1; y < kColY; ++y) s = op.combine(s, rows[y][threadIdx.x]);
      if (partial) partial[blockIdx.z * nout + o * p.inner + i] = s;
      else store<A, Fam>(p, o * p.inner + i, s);
    }
    __syncthreads();
  }
}

// Second pass: a warp per output combines its `splits` partials in order.
template <typename T, int Fam>
__global__ void __launch_bounds__(kThreads)
combine_kernel(ReducePlan p, int64_t splits, const State<typename AccOf<T>::type> *partial) {
  using A = typename AccOf<T>::type;
  const Op<A, Fam> op{p.kind};
  const int64_t nout = p.outer * p.inner, warps = kThreads / 32;
  const int lane = threadIdx.x % 32;
  for (int64_t ob = blockIdx.x; ob * warps < nout; ob += gridDim.x) {
    int64_t o = ob * warps + threadIdx.x / 32;
    if (o >= nout) continue;  // whole warps only: shuffles stay converged
    State<A> s = op.identity();
    for (int64_t k = lane; k < splits; k += 32) s = op.combine(s, partial[k * nout + o]);
    s = warp_reduce(op, s);
    if (lane == 0) store<A, Fam>(p, o, s);
  }
}

int64_t ceil_div(int64_t a, int64_t b) { return (a + b - 1) / b; }

// Launch shape, a function of the plan only.
struct Config {
  bool rows = true;
  int group = 32;
  int64_t blocks = 1;  // grid.x
  int64_t splits = 1;
  int64_t chunk = 0;
};

// Splits r so that about kTargetBlocks blocks run; chunks stay multiples of
// `align` elements (16 bytes) so every chunk but the first starts aligned.
void split(Config &c, int64_t r, int64_t blocks, int64_t min_chunk, int64_t align) {
  int64_t want = blocks >= kTargetBlocks ? 1 : ceil_div(kTargetBlocks, blocks);
  int64_t s = std::max<int64_t>(1, std::min({want, kMaxSplit, r / std::max<int64_t>(min_chunk, 1)}));
  c.chunk = std::max<int64_t>(ceil_div(ceil_div(r, s), align) * align, 1);
  c.splits = std::max<int64_t>(ceil_div(r, c.chunk), 1);
}

Config configure(const ReducePlan &p) {
  Config c;
  int64_t align = 16 / static_cast<int64_t>(dtype_size(p.in_dtype));
  if (p.inner == 1) {
    c.group = p.r >= kLongRow ? kThreads : 32;
    int64_t rows_per_block = kThreads / c.group;
    c.blocks = ceil_div(p.outer, rows_per_block);
    split(c, p.r, c.blocks, int64_t(c.group) * align * kUnroll, align);
    c.splits = std::min(c.splits, kMaxGrid);
  } else {
    c.rows = false;
    c.blocks = ceil_div(p.inner, kColX);
    split(c, p.r, c.blocks * p.outer, kColY * kUnroll, 1);
  }
  c.blocks = std::min<int64_t>(c.blocks, INT_MAX);
  return c;
}

template <typename T, int Fam>
int launch(const ReducePlan &p, void *workspace, cudaStream_t st) {
  using S = State<typename AccOf<T>::type>;
  Config c = configure(p);
  S *partial = c.splits > 1 ? static_cast<S *>(workspace) : nullptr;
  if (c.splits > 1 && !workspace) return cudaErrorInvalidValue;
  if (c.rows) {
    dim3 grid(static_cast<unsigned>(c.blocks), static_cast<unsigned>(c.splits));
    row_kernel<T, Fam><<<grid, kThreads, 0, st>>>(p, c.group, c.chunk, partial);
  } else {
    dim3 grid(static_cast<unsigned>(c.blocks), static_cast<unsigned>(std::min(p.outer, kMaxGrid)),
              static_cast<unsigned>(c.splits));
    col_kernel<T, Fam><<<grid, dim3(kColX, kColY), 0, st>>>(p, c.chunk, partial);
  }
  if (partial) {
    int64_t blocks = std::min<int64_t>(ceil_div(p.outer * p.inner, kThreads / 32), INT_MAX);
    combine_kernel<T, Fam><<<static_cast<unsigned>(blocks), kThreads, 0, st>>>(p, c.splits, partial);
  }
  return static_cast<int>(cudaGetLastError());
}

template <typename T>
int launch_type(const ReducePlan &p, void *workspace, cudaStream_t st) {
  switch (p.kind) {
    case kRSum: case kRSumAbs: case kRSumSq: case kRSumSqDev: return launch<T, kAdd>(p, workspace, st);
    case kRProd: return launch<T, kMul>(p, workspace, st);
    case kRMax: case kRMin: case kRMaxAbs: return launch<T, kExt>(p, workspace, st);
    default: return launch<T, kArg>(p, workspace, st);
  }
}

}  // namespace

size_t reduce_workspace(const ReducePlan &p) {
  if (p.outer * p.inner == 0) return 0;
  Config c = configure(p);
  return c.splits > 1 ? static_cast<size_t>(c.splits * p.outer * p.inner) * kPartialBytes : 0;
}

int reduce(const ReducePlan &p, void *workspace, void *stream) {
  if (p.outer * p.inner == 0) return 0;
  if (p.kind < kRSum || p.kind > kRArgMin) return cudaErrorInvalidValue;
  auto st = static_cast<cudaStream_t>(stream);
  switch (p.in_dtype) {
    case kF16: return launch_type<F16>(p, workspace, st);
    case kBF16: return launch_type<BF16>(p, workspace, st);
    case kF32: return launch_type<float>(p, workspace, st);
    case kF64: return launch_type<double>(p, workspace, st);
    case kI64: return launch_type<int64_t>(p, workspace, st);
    default: return cudaErrorInvalidValue;
  }
}

}  // namespace cuda
}  // namespace ek
