// The strided iteration every CUDA kernel shares: launch shape, vector types
// and widths, and element offsets from a linear index. The host coalesces a
// layout first (Geometry, src/ops/layout.hpp: size-1 dims dropped, dims that are
// one run in every tensor merged), so a contiguous launch is one unit-stride
// dim and takes a vector path without any index math; any other picks 32-bit
// index math when Geometry::fits_32bit() says every offset fits, 64-bit
// otherwise, and turns a linear index into offsets with OffsetCalc. Included
// by .cu files only.
#pragma once
#include <utility>
#include <cuda_runtime.h>

#include <cstdint>
#include <type_traits>

#include "ops/layout.hpp"

namespace ek {
namespace cuda {

// ------------------------------------------------------------ launch shape --

// kThreads, kMaxBlocks, ceil_div and grid_for: layout.hpp (the elementwise
// builder's generated kernels launch the same way).

// 16-byte vectors in flight per thread on the contiguous paths: every load
// is issued before any is used.
constexpr int kVecUnroll = 4;

// A vector body of nvec vectors (per_block of them a block) plus nrest
// scalar elements that one element per thread covers.
inline unsigned grid_for_vec(int64_t nvec, int64_t per_block, int64_t nrest) {
  const unsigned v = grid_for(nvec, per_block), r = grid_for(nrest, kThreads);
  return v > r ? v : r;
}

// Below this many blocks a launch leaves most of an H100's 132 SMs idle, and
// a small tensor is latency-bound: vec_loop and strided_walk spread it
// instead (see vec_loop).
constexpr int64_t kSpreadBlocks = 256;

// The launch of vec_loop<kUnroll> over n vectors plus nrest tail elements (or
// of strided_walk, kUnroll = kStridedUnroll, over n elements): kUnroll items
// a thread in block-contiguous runs while that fills at least kSpreadBlocks
// blocks, else spread (up to kSpreadBlocks blocks, one item a thread where
// that many blocks suffice).
struct LoopGrid {
  unsigned blocks;
  bool spread;
};
template <int kUnroll>
inline LoopGrid loop_grid(int64_t n, int64_t nrest) {
  const unsigned packed = grid_for_vec(n, int64_t(kThreads) * kUnroll, nrest);
  if (packed >= kSpreadBlocks) return {packed, false};
  const unsigned wide = grid_for_vec(n, kThreads, nrest);
  return {unsigned(wide < kSpreadBlocks ? wide : kSpreadBlocks), true};
}

// ----------------------------------------------------------------- vectors --

constexpr int kVecBytes = 16;  // the widest load or store a thread issues

// N elements of T loaded or stored as one access (16 bytes by default).
template <typename T, int N = kVecBytes / int(sizeof(T))>
struct alignas(sizeof(T) * N) Vec {
  static constexpr int kN = N;
  T v[N];
};

// The contiguous paths' loop over nvec vectors: a thread takes kUnroll of
// them at a time, kThreads apart, and calls load(k, j) for every one before
// it calls store(k, j) for any (k the slot, j the vector), so that all the
// loads are in flight together. The callables keep what passes from load to
// store in arrays of kUnroll indexed by k. spread (uniform; loop_grid picks
// it): a thread's vectors lie a grid apart instead of a block apart, so that
// a grid of more than nvec / (kThreads * kUnroll) blocks still covers nvec
// once, with fewer vectors a thread and more SMs at work.
template <int kUnroll, typename Load, typename Store>
__device__ __forceinline__ void vec_loop(int64_t nvec, Load &&load, Store &&store, bool spread = false) {
  const int64_t chunk = int64_t(kThreads) * kUnroll;
  const int64_t gap = spread ? int64_t(gridDim.x) * kThreads : kThreads;
  const int64_t first = blockIdx.x * (spread ? int64_t(kThreads) : chunk) + threadIdx.x;
  for (int64_t base = first; base < nvec; base += int64_t(gridDim.x) * chunk) {
#pragma unroll
    for (int k = 0; k < kUnroll; ++k)
      if (base + k * gap < nvec) load(k, base + k * gap);
#pragma unroll
    for (int k = 0; k < kUnroll; ++k)
      if (base + k * gap < nvec) store(k, base + k * gap);
  }
}

// The widest access width (16, 8, 4, 2 or 1 bytes) at which an address with
// these low bits is aligned. Pass the OR of several addresses for a width at
// which all are aligned, their XOR for one at which all can be aligned at
// once (after the same head).
inline int vec_width(uintptr_t bits) {
  int w = kVecBytes;
  while (w > 1 && bits % w != 0) w /= 2;
  return w;
}

// f(T()) with T the unsigned integer of es bytes (1, 2, 4, else 8): kernels
// that move elements as raw bits are instantiated per element size only.
template <typename F>
int with_bits_of(int64_t es, F &&f) {
  switch (es) {
    case 1: return f(uint8_t());
    case 2: return f(uint16_t());
    case 4: return f(uint32_t());
    default: return f(uint64_t());
  }
}

// A 16-byte element (complex128) as raw bits; T(v) holds v in its low bytes,
// as the integer types do (T(0) is zero). Aligned as its parts (8 bytes): a
// wrapped or DLPack complex128 buffer need not be 16-byte aligned.
struct alignas(8) Bits128 {
  uint64_t lo, hi;
  Bits128() = default;
  __host__ __device__ explicit Bits128(uint64_t v) : lo(v), hi(0) {}
};

// with_bits_of, and Bits128 for 16-byte elements: for the kernels that only
// move elements (gathers, scatters, tril/triu), never fill them from a value.
template <typename F>
int with_move_bits_of(int64_t es, F &&f) {
  if (es == 16) return f(Bits128());
  return with_bits_of(es, f);
}

// ------------------------------------------------------------------ offsets --

// n / d by multiply-high, add and shift (exact for n < 2^31), replacing an
// integer division per dim.
struct Div32 {
  uint32_t d = 1, m = 1, s = 0;
  void init(uint32_t div) {
    d = div;
    for (s = 0; s < 32 && (uint64_t(1) << s) < div; ++s) {
    }
    m = static_cast<uint32_t>(((uint64_t(1) << 32) * ((uint64_t(1) << s) - div)) / div + 1);
  }
  __device__ uint32_t div(uint32_t n) const { return (__umulhi(n, m) + n) >> s; }
};

// 64-bit index math. nvcc already gives a 64-bit division a 32-bit path for
// operands that fit, so a plain division is all it takes.
struct Div64 {
  uint64_t d = 1;
  void init(uint64_t div) { d = div; }
  __device__ uint64_t div(uint64_t n) const { return n / d; }
};

template <typename U>
using DivFor = typename std::conditional<sizeof(U) == 4, Div32, Div64>::type;

// Linear C-order index -> element offsets in N tensors; U is the index type
// (uint32_t or uint64_t), S its signed twin for offsets. The unrolled loops
// index the arrays with constants only (a run-time index into kernel
// parameters would spill them to local memory). 32-bit: dims innermost
// first, each a multiply-shift division. 64-bit: dims in C order (the
// outermost at 0), walked from the innermost; dim 0 needs no division, which
// is known at compile time, and a 64-bit division costs enough to matter.
template <typename U, int N>
struct OffsetCalc {
  using S = typename std::make_signed<U>::type;
  static constexpr bool kCOrder = sizeof(U) == 8;
  int ndim;
  DivFor<U> size[kMaxDims];
  S st[N][kMaxDims];

  // o[t] for the first nt tensors (nt uniform over a launch; the rest 0).
  __device__ __forceinline__ void get(U lin, S (&o)[N], int nt = N) const {
    if (ndim == 1) {  // a stepped slice, the commonest strided layout: no division
#pragma unroll
      for (int t = 0; t < N; ++t) o[t] = t < nt ? static_cast<S>(lin) * st[t][0] : 0;
      return;
    }
#pragma unroll
    for (int t = 0; t < N; ++t) o[t] = 0;
#pragma unroll
    for (int j = 0; j < kMaxDims; ++j) {
      const int k = kCOrder ? kMaxDims - 1 - j : j;
      if (kCOrder ? k >= ndim : k == ndim) {
        if (kCOrder) continue;
        break;
      }
      U q = 0;
      S r = static_cast<S>(lin);
      if (!kCOrder || k > 0) {
        q = size[k].div(lin);
        r = static_cast<S>(lin - q * size[k].d);
      }
#pragma unroll
      for (int t = 0; t < N; ++t)
        if (t < nt) o[t] += r * st[t][k];
      lin = q;
    }
  }

  // f(d, c) for every dim d (numbered in C order) with lin's coordinate c.
  template <typename F>
  __device__ __forceinline__ void coords(U lin, F &&f) const {
#pragma unroll
    for (int j = 0; j < kMaxDims; ++j) {
      const int k = kCOrder ? kMaxDims - 1 - j : j;
      if (k >= ndim) continue;
      const U q = size[k].div(lin);
      f(kCOrder ? k : ndim - 1 - k, static_cast<S>(lin - q * size[k].d));
      lin = q;
    }
  }
};

// The calculator of a coalesced geometry's first M tensors (all by default).
template <typename U, int M = 0, int N>
OffsetCalc<U, (M ? M : N)> make_calc(const Geometry<N> &g) {
  using Calc = OffsetCalc<U, (M ? M : N)>;
  static_assert((M ? M : N) <= N, "more tensors than the geometry has");
  Calc oc{};
  oc.ndim = g.ndim;
  for (int k = 0; k < g.ndim; ++k) {
    const int d = Calc::kCOrder ? k : g.ndim - 1 - k;
    oc.size[k].init(static_cast<U>(g.shape[d]));
    for (int t = 0; t < (M ? M : N); ++t) oc.st[t][k] = static_cast<typename Calc::S>(g.st[t][d]);
  }
  return oc;
}

// Elements in flight per thread in the strided kernels.
constexpr int kStridedUnroll = 4;

// The strided kernels' loop: n elements of N tensors laid out by oc, a thread
// taking kStridedUnroll of them kThreads apart at a time. load(o) reads
// through the offsets o (o[0] is the output's) and returns what store(o[0],
// value) writes; every load of a step comes before its stores, so that the
// loads are in flight together. Launch with grid_for(n, kThreads *
// kStridedUnroll), or with loop_grid<kStridedUnroll> and its spread.
template <typename U, int N, typename Load, typename Store>
__device__ __forceinline__ void strided_walk(const OffsetCalc<U, N> &oc, U n, Load load, Store store,
                                             bool spread = false) {
  using S = typename OffsetCalc<U, N>::S;
  using V = decltype(load(std::declval<const S (&)[N]>()));
  const U chunk = U(kThreads) * kStridedUnroll;
  const U gap = spread ? U(gridDim.x) * kThreads : U(kThreads);  // as vec_loop's
  for (U base = U(blockIdx.x) * (spread ? U(kThreads) : chunk) + threadIdx.x; base < n;
       base += U(gridDim.x) * chunk) {
    V v[kStridedUnroll];
    S od[kStridedUnroll];
#pragma unroll
    for (int k = 0; k < kStridedUnroll; ++k) {
      U i = base + U(k) * gap;
      if (i < n) {
        S o[N];
        oc.get(i, o);
        od[k] = o[0];
        v[k] = load(o);
      }
    }
#pragma unroll
    for (int k = 0; k < kStridedUnroll; ++k)
      if (base + U(k) * gap < n) store(od[k], v[k]);
  }
}

}  // namespace cuda
}  // namespace ek
