// The CUDA reductions' device code shared by the eager kernels
// (kernels/reduce.cu) and the fused ones (src/jit/fusion_codegen.cpp, which
// compiles this file with NVRTC from its embedded text): the same element
// maps, combination trees and partials, so a fused reduction gives the eager
// one's bits. Needs, declared before it: kThreads and kUnroll, to_acc for the
// storage types used, min() of int64_t (CUDA's), and ReducePlan.
#pragma once
#include <climits>
#include <cmath>

#include "ops/reduce_plan.hpp"
#include "util/half.hpp"

namespace ek {
namespace cuda {

enum Family { kAdd, kMul, kExt, kArg };

template <typename A> struct State { A v; int64_t i; };
static_assert(sizeof(State<float>) <= 16 && sizeof(State<double>) <= 16, "partial size");  // kPartialBytes

// std::is_integral for the accumulators (NVRTC has no <type_traits>).
template <typename A> struct IsInt { static constexpr bool value = false; };
template <> struct IsInt<int64_t> { static constexpr bool value = true; };

template <typename A> __device__ __forceinline__ bool isnan_(A v) { return v != v; }

template <typename A> __device__ __forceinline__ A lowest() {
  if constexpr (IsInt<A>::value) return LLONG_MIN;
  else return -INFINITY;
}
template <typename A> __device__ __forceinline__ A highest() {
  if constexpr (IsInt<A>::value) return LLONG_MAX;
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
    if constexpr (!IsInt<A>::value) {
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
      if constexpr (IsInt<A>::value)  // wrap-around without signed overflow
        return {A(static_cast<uint64_t>(a.v) + static_cast<uint64_t>(b.v)), 0};
      else return {a.v + b.v, 0};
    }
    if (Fam == kMul) {
      if constexpr (IsInt<A>::value)
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
  if constexpr (IsInt<A>::value)
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

// The final value of a combination: scaled (mean, var) and rooted (L2, std)
// floats.
template <typename A, int Fam>
__device__ __forceinline__ detail::Scalar final_value(const ReducePlan &p, const State<A> &s) {
  if constexpr (IsInt<A>::value) {
    return detail::scalar_int(s.v);
  } else {
    double d = static_cast<double>(s.v);
    if (Fam == kAdd) d /= p.divisor;
    if (p.take_sqrt) d = sqrt(d);
    return detail::scalar_float(d);
  }
}

// A final value stored at out as dtype. The common results skip the general
// store: the last block runs this serially after every other block, and the
// general one's size showed there (sum of 1M f32 took 5% longer when the cast
// rule grew).
template <typename A>
__device__ __forceinline__ void store_value(void *out, int dtype, const detail::Scalar &v) {
  if (!IsInt<A>::value && dtype == kF32) {
    *static_cast<float *>(out) = detail::narrow_f64(v.f);
  } else if (IsInt<A>::value && dtype == kI64) {
    *static_cast<int64_t *>(out) = v.i;
  } else {
    detail::store_scalar(static_cast<char *>(out), dtype, v);
  }
}

// Output o's final value, and its index for the arg kinds.
template <typename A, int Fam>
__device__ void store(const ReducePlan &p, int64_t o, const State<A> &s) {
  if (Fam == kArg && p.indices) p.indices[o] = s.i;
  if (!p.out) return;
  store_value<A>(static_cast<char *>(p.out) + o * elem_size(p.out_dtype), p.out_dtype, final_value<A, Fam>(p, s));
}

template <typename A> __device__ A center_of(const ReducePlan &p, int64_t o) {
  return p.center ? static_cast<A>(p.center[o]) : A(0);
}

// Combines elements [lo, hi) of a contiguous line; this thread takes every
// group-th 16-byte vector (after an unaligned head), Unroll at a time. The
// line gives element j (at), the vectors of 16 / sizeof(T) elements from a
// 16-byte aligned j (vectors(j)[k]: the k-th, a Line::Vector) and j's address (addr): the
// eager kernels read memory
// (MemLine, reduce.cu); a fused reduction computes the elements of a line
// that was never written, at the addresses it would have had, so it
// combines in the same order. I: the index arithmetic's type; Unroll: the
// vectors a thread loads at once; Whole: the caller knows that lo's address
// is 16-byte aligned and hi - lo a whole number of vectors (no head, no
// tail). A fused row kernel's line is in shared memory and short enough for
// int: one vector at a time, int and no head or tail take the fewest
// instructions, which its single combining warp waits on (the 36-op step of
// bench/graph_step replayed in 31.4 us against 32.2 with them).
template <typename T, typename A, int Fam, typename Line, typename I = int64_t, int Unroll = kUnroll,
          bool Whole = false>
__device__ State<A> span(const Op<A, Fam> &op, const Line &line, I lo, I hi, int lane, int group, A c) {
  constexpr int V = 16 / sizeof(T);
  State<A> s = op.identity();
  I head = 0;
  if constexpr (!Whole) {
    const I mis = static_cast<I>((line.addr(lo) % 16) / sizeof(T));
    head = min(hi - lo, (V - mis) % V);
    if (lane < head) s = op.combine(s, op.make(to_acc(line.at(lo + lane)), lo + lane, c));
  }
  const I start = lo + head, nv = (hi - start) / V;
  const auto vec = line.vectors(start);
  I k = lane;
  for (; k + (Unroll - 1) * group < nv; k += Unroll * group) {
    typename Line::Vector buf[Unroll];
#pragma unroll
    for (int u = 0; u < Unroll; ++u) buf[u] = vec[k + u * group];
#pragma unroll
    for (int u = 0; u < Unroll; ++u)
#pragma unroll
      for (int e = 0; e < V; ++e)
        s = op.combine(s, op.make(to_acc(buf[u].v[e]), start + (k + u * group) * V + e, c));
  }
  if constexpr (Unroll > 1) {
    for (; k < nv; k += group) {
      const auto b = vec[k];
#pragma unroll
      for (int e = 0; e < V; ++e) s = op.combine(s, op.make(to_acc(b.v[e]), start + k * V + e, c));
    }
  }
  if constexpr (!Whole) {
    const I j = start + nv * V + lane;  // the tail: fewer than V <= group elements
    if (j < hi) s = op.combine(s, op.make(to_acc(line.at(j)), j, c));
  }
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
// lines(row) is row's line (see span).
template <typename T, typename A, int Fam, typename Lines>
__device__ void row_reduce(const ReducePlan &p, int group, int64_t chunk, State<A> *partial, unsigned *done,
                           const Lines &lines) {
  const Op<A, Fam> op{p.kind};
  const int rows_per_block = kThreads / group, lane = threadIdx.x % group;
  const int64_t lo = blockIdx.y * chunk, hi = min(p.r, lo + chunk);
  for (int64_t rb = blockIdx.x; rb * rows_per_block < p.outer; rb += gridDim.x) {
    int64_t row = rb * rows_per_block + threadIdx.x / group;
    bool active = row < p.outer;
    State<A> s = op.identity();
    if (active)
      s = span<T>(op, lines(row), lo, hi, lane, group, center_of<A>(p, row));
    s = group_reduce(op, s, group);
    if (!active || lane != 0) continue;
    if (partial) partial[blockIdx.y * p.outer + row] = s;
    else store<A, Fam>(p, row, s);
  }
  if (done) finish_in_last_block<A, Fam>(p, op, gridDim.y, partial, done);
}

// Second pass: a warp per output combines its `splits` partials in order.
template <typename A, int Fam>
__device__ void combine_all(const ReducePlan &p, int64_t splits, const State<A> *partial) {
  const Op<A, Fam> op{p.kind};
  const int64_t nout = p.outer * p.inner, warps = kThreads / 32;
  for (int64_t ob = blockIdx.x; ob * warps < nout; ob += gridDim.x) {
    int64_t o = ob * warps + threadIdx.x / 32;
    if (o < nout) combine_output<A, Fam>(p, op, o, splits, partial, threadIdx.x % 32);
  }
}

}  // namespace cuda
}  // namespace ek
