// CUDA data-movement kernels: copy (with casts), fill, arange (and linspace).
//
// Host code first canonicalises layouts (drop size-1 dims; for copy/fill also
// flip negative dst strides and sort dims by dst stride, which is legal because
// element order does not matter there; then merge dims that are contiguous in
// every tensor). The collapsed layout picks a path:
//   * contiguous, same dtype -> vec_copy_kernel (16/8/4/2/1-byte vectors),
//   * dst unit-stride on the last dim, src unit-stride on the one before, same
//     dtype, 2-D or 3-D -> transpose_kernel (64x64 shared tile),
//   * contiguous, dtypes differ, both in {f16, bf16, f32, f64} or one of
//     f32 <-> i32/i64 -> contig_cast_kernel<S, D> (16 instantiations: the hot
//     casts get typed vector loads; the rest stay on the generic kernel),
//   * otherwise the strided kernels (same dtype: raw element moves; different
//     dtypes: one kernel that switches on the dtypes at run time, so casts do
//     not instantiate a kernel per dtype pair).
// Index math is 32-bit (with multiply-shift division) whenever the element
// count and every offset fit, 64-bit otherwise.
#include "kernels/copy.cuh"

#include <cuda_runtime.h>

#include <climits>
#include <cstring>
#include <type_traits>

#include "ops/range_plan.hpp"
#include "util/half.hpp"
#include "kernels/strided.cuh"

namespace ek {
namespace cuda {
namespace {

constexpr int kCastUnroll = kVecUnroll;  // vectors in flight per thread (contiguous cast)
constexpr int kNoFastPath = -1;   // not a cudaError_t: "use the generic kernel"
constexpr int kTile = 64;         // transpose tile edge (elements)
constexpr int kTileRows = 4;      // transpose block = kTile x kTileRows threads

// ---------------------------------------------------------------- layouts --

// Up to two tensors (0 = dst, 1 = src; nt of them) over a common shape;
// strides in elements.
struct Layout : Geometry<2> {
  int nt = 1;
  char *ptr[2] = {nullptr, nullptr};
  int64_t es[2] = {0, 0};  // element sizes
};

Layout init_layout(const TensorDesc &d, const TensorDesc *s) {
  Layout L;
  L.nt = s ? 2 : 1;
  L.ptr[0] = static_cast<char *>(d.data);
  L.es[0] = static_cast<int64_t>(dtype_size(d.dtype));
  if (s) {
    L.ptr[1] = static_cast<char *>(s->data);
    L.es[1] = static_cast<int64_t>(dtype_size(s->dtype));
  }
  for (int i = 0; i < d.ndim; ++i) {
    if (d.shape[i] == 1) continue;  // size-1 dims carry no layout information
    L.shape[L.ndim] = d.shape[i];
    L.st[0][L.ndim] = d.strides[i];
    L.st[1][L.ndim] = s ? s->strides[i] : 0;
    ++L.ndim;
  }
  return L;
}

// Reverse every dim whose dst stride is negative (in all tensors at once), so
// a reversed view becomes a forward one.
void flip_negative(Layout &L) {
  for (int i = 0; i < L.ndim; ++i) {
    if (L.st[0][i] >= 0) continue;
    for (int t = 0; t < L.nt; ++t) {
      L.ptr[t] += (L.shape[i] - 1) * L.st[t][i] * L.es[t];
      L.st[t][i] = -L.st[t][i];
    }
  }
}

// fill only: a dst dim with stride 0 writes the same elements again.
void drop_broadcast(Layout &L) {
  int out = 0;
  for (int i = 0; i < L.ndim; ++i) {
    if (L.st[0][i] == 0) continue;
    L.shape[out] = L.shape[i];
    L.st[0][out] = L.st[0][i];
    L.st[1][out] = L.st[1][i];
    ++out;
  }
  L.ndim = out;
}

void swap_dims(Layout &L, int a, int b) {
  std::swap(L.shape[a], L.shape[b]);
  for (int t = 0; t < 2; ++t) std::swap(L.st[t][a], L.st[t][b]);
}

// Outermost first: larger dst stride, ties broken by larger src stride.
void sort_dims(Layout &L) {
  for (int i = 1; i < L.ndim; ++i)
    for (int j = i; j > 0; --j) {
      bool outer = L.st[0][j] > L.st[0][j - 1] || (L.st[0][j] == L.st[0][j - 1] && L.st[1][j] > L.st[1][j - 1]);
      if (!outer) break;
      swap_dims(L, j, j - 1);
    }
}

bool is_contiguous(const Layout &L) { return L.unit_stride(0) && (L.nt < 2 || L.unit_stride(1)); }

// ---------------------------------------------------------------- kernels --

// Bytes outside the vector body (< sizeof(V) at each end), done by block 0.
__device__ void copy_edges(char *dst, const char *src, int64_t head, int64_t tail, int64_t nbytes) {
  int t = threadIdx.x;
  if (t < head) dst[t] = src[t];
  if (tail + t < nbytes) dst[tail + t] = src[tail + t];
}

// Contiguous byte copy with V-sized vectors; head/nvec chosen so that
// dst + head and src + head are V-aligned. kVecUnroll loads are issued before
// any store to keep several requests in flight per thread.
template <typename V>
__global__ void __launch_bounds__(kThreads) vec_copy_kernel(char *__restrict__ dst, const char *__restrict__ src,
                                                            int64_t head, int64_t nvec, int64_t nbytes) {
  const V *s = reinterpret_cast<const V *>(src + head);
  V *d = reinterpret_cast<V *>(dst + head);
  V v[kVecUnroll];
  vec_loop<kVecUnroll>(nvec, [&](int k, int64_t j) { v[k] = s[j]; }, [&](int k, int64_t j) { d[j] = v[k]; });
  if (blockIdx.x == 0) copy_edges(dst, src, head, head + nvec * int64_t(sizeof(V)), nbytes);
}

// Same-dtype strided copy; T is an unsigned type of the element's size.
template <typename T, typename U>
__global__ void __launch_bounds__(kThreads) strided_copy_kernel(T *__restrict__ dst, const T *__restrict__ src,
                                                                OffsetCalc<U, 2> oc, U n) {
  using S = typename OffsetCalc<U, 2>::S;
  strided_walk(oc, n, [&](const S (&o)[2]) { return src[o[1]]; }, [&](S o, T v) { dst[o] = v; });
}

// Any-dtype -> any-dtype strided copy. The dtypes are runtime values (uniform
// per launch, so the switches do not diverge); the value travels as
// detail::Scalar (double or int64).
template <typename U>
__global__ void __launch_bounds__(kThreads) cast_copy_kernel(char *__restrict__ dst, int ddt, int des,
                                                             const char *__restrict__ src, int sdt, int ses,
                                                             OffsetCalc<U, 2> oc, U n) {
  using S = typename OffsetCalc<U, 2>::S;
  strided_walk(
      oc, n, [&](const S (&o)[2]) { return detail::load_scalar(src + int64_t(o[1]) * ses, sdt); },
      [&](S o, const detail::Scalar &v) { detail::store_scalar(dst + int64_t(o) * des, ddt, v); });
}

// ----------------------------------------------------------- typed casts --
// Element-typed twins of detail::load_scalar + store_scalar for the fast
// pairs. They must give the CPU's bytes: floats that do not involve f64 go
// through f32 only (the f64 detour of the generic path is exact for them).

template <int DT> struct RawOf;
template <> struct RawOf<kI32> { using T = int32_t; };
template <> struct RawOf<kI64> { using T = int64_t; };
template <> struct RawOf<kF16> { using T = uint16_t; };
template <> struct RawOf<kBF16> { using T = uint16_t; };
template <> struct RawOf<kF32> { using T = float; };
template <> struct RawOf<kF64> { using T = double; };
template <int DT>
using Raw = typename RawOf<DT>::T;

constexpr bool is_fp(int dt) { return dt >= kF16 && dt <= kF64; }
constexpr bool is_fast_pair(int s, int d) {
  return s != d && ((is_fp(s) && is_fp(d)) || (s == kF32 && (d == kI32 || d == kI64)) ||
                    (d == kF32 && (s == kI32 || s == kI64)));
}

// f32 NaN in the shared canonical form (quiet, payload dropped, sign kept).
__device__ __forceinline__ float canon_f32(float f) {
  uint32_t u = half::f32_bits(f);
  return (u & 0x7fffffffu) > 0x7f800000u ? half::bits_f32((u & 0x80000000u) | 0x7fc00000u) : f;
}

// f16 -> f32 is exact in hardware. A NaN becomes the canonical f32 NaN here
// (one select), which every consumer below keeps: half::f16_to_f32 with
// canon_f32 after it ran the float16 -> float32 cast at 547.8 us against
// 545.6 (256M, H100, one process each).
__device__ __forceinline__ float f16_to_f32_fast(uint16_t h) {
  float f;
  asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(h));
  return (h & 0x7fffu) > 0x7c00u ? half::bits_f32(((uint32_t(h) & 0x8000u) << 16) | 0x7fc00000u) : f;
}

template <int DT>
__device__ __forceinline__ float to_f32(Raw<DT> x) {
  if constexpr (DT == kF16) return f16_to_f32_fast(x);
  else if constexpr (DT == kBF16) return half::bf16_to_f32(x);
  else return static_cast<float>(x);  // f32 as is; i32/i64: one RNE rounding, as scalar_to_f32
}

template <int DT>
__device__ __forceinline__ Raw<DT> from_f32(float f) {
  if constexpr (DT == kF16) return half::f32_to_f16(f);
  else if constexpr (DT == kBF16) return half::f32_to_bf16(f);
  else if constexpr (DT == kF32) return canon_f32(f);
  else  // truncate, NaN -> 0, saturate to the dtype: store_scalar's rule
    return static_cast<Raw<DT>>(detail::float_to_int(f, DT));
}

template <int S, int D>
__device__ __forceinline__ Raw<D> convert(Raw<S> x) {
  if constexpr (D == kF64) return detail::widen_f32(to_f32<S>(x));  // already NaN-canonical
  else if constexpr (S == kF64) return from_f32<D>(detail::narrow_f64(x));
  else return from_f32<D>(to_f32<S>(x));
}

// Elements per vector: the wider side moves 16 bytes, the narrower side the
// same element count (8 or 4 bytes), so every access is warp-contiguous.
template <int S, int D>
constexpr int kCastVec = 16 / int(sizeof(Raw<S>) > sizeof(Raw<D>) ? sizeof(Raw<S>) : sizeof(Raw<D>));

// Scalar part: elements [0, head) and [tail, n). Grid-stride because it is the
// whole range when dst and src cannot be aligned together.
template <int S, int D>
__device__ void cast_edges(Raw<D> *dst, const Raw<S> *src, int64_t head, int64_t tail, int64_t n) {
  const int64_t nedge = head + (n - tail);
  for (int64_t i = int64_t(blockIdx.x) * kThreads + threadIdx.x; i < nedge; i += int64_t(gridDim.x) * kThreads) {
    const int64_t e = i < head ? i : tail + (i - head);
    dst[e] = convert<S, D>(src[e]);
  }
}

// Contiguous cast: nvec vectors of N elements from element head on (both
// sides aligned there), kCastUnroll loads issued before any store.
template <int S, int D>
__global__ void __launch_bounds__(kThreads) contig_cast_kernel(Raw<D> *__restrict__ dst, const Raw<S> *__restrict__ src,
                                                               int64_t head, int64_t nvec, int64_t n) {
  constexpr int N = kCastVec<S, D>;
  const Vec<Raw<S>, N> *s = reinterpret_cast<const Vec<Raw<S>, N> *>(src + head);
  Vec<Raw<D>, N> *d = reinterpret_cast<Vec<Raw<D>, N> *>(dst + head);
  const int64_t chunk = int64_t(kThreads) * kCastUnroll;
  for (int64_t base = blockIdx.x * chunk + threadIdx.x; base < nvec; base += int64_t(gridDim.x) * chunk) {
    Vec<Raw<S>, N> v[kCastUnroll];
#pragma unroll
    for (int k = 0; k < kCastUnroll; ++k)
      if (base + k * kThreads < nvec) v[k] = s[base + k * kThreads];
#pragma unroll
    for (int k = 0; k < kCastUnroll; ++k) {
      Vec<Raw<D>, N> o;
#pragma unroll
      for (int j = 0; j < N; ++j) o.v[j] = convert<S, D>(v[k].v[j]);
      if (base + k * kThreads < nvec) d[base + k * kThreads] = o;
    }
  }
  cast_edges<S, D>(dst, src, head, head + nvec * N, n);
}

struct TransposeArgs {
  int64_t R, C, B;           // rows (src unit-stride dim), cols (dst unit-stride dim), batch
  int64_t d_row, d_batch;    // dst strides (col stride is 1)
  int64_t s_col, s_batch;    // src strides (row stride is 1)
};

// dst[b][r][c] = src[b][r][c] where src is unit-stride along r and dst along c.
// A 64x64 tile is read along r and written along c, both coalesced; the +1
// pad makes the column-wise shared accesses hit distinct banks. Each thread
// moves kTile / kTileRows = 16 elements.
// Moves one tile between shared memory and a global-memory side. Pointers are
// bumped instead of recomputing 64-bit offsets, which keeps register use low
// (occupancy matters more than ILP here). kFull skips the bounds tests.
template <bool kFull, typename T>
__device__ __forceinline__ void load_tile(T (*tile)[kTile + 1], const T *s, int64_t s_col, int64_t rows, int64_t cols) {
  const int tx = threadIdx.x, ty = threadIdx.y;
  s += tx + ty * s_col;
#pragma unroll
  for (int k = 0; k < kTile; k += kTileRows, s += kTileRows * s_col)
    if (kFull || (tx < rows && ty + k < cols)) tile[ty + k][tx] = *s;
}

template <bool kFull, typename T>
__device__ __forceinline__ void store_tile(T (*tile)[kTile + 1], T *d, int64_t d_row, int64_t rows, int64_t cols) {
  const int tx = threadIdx.x, ty = threadIdx.y;
  d += tx + ty * d_row;
#pragma unroll
  for (int k = 0; k < kTile; k += kTileRows, d += kTileRows * d_row)
    if (kFull || (tx < cols && ty + k < rows)) *d = tile[tx][ty + k];
}

// dst[b][r][c] = src[b][r][c] where src is unit-stride along r and dst along c.
// A 64x64 tile is read along r and written along c, both coalesced; the +1
// pad makes the column-wise shared accesses hit distinct banks (4-byte
// elements; wider ones need two wavefronts anyway). Each thread moves
// kTile / kTileRows = 16 elements; the register cap keeps >= 4 blocks per SM.
template <typename T>
__global__ void __launch_bounds__(kTile *kTileRows, 4) transpose_kernel(T *__restrict__ dst, const T *__restrict__ src,
                                                                        TransposeArgs a) {
  __shared__ T tile[kTile][kTile + 1];  // [c][r]
  const int64_t c0 = int64_t(blockIdx.x) * kTile;
  const int64_t cols = a.C - c0 < kTile ? a.C - c0 : kTile;
  for (int64_t b = blockIdx.z; b < a.B; b += gridDim.z) {
    for (int64_t r0 = int64_t(blockIdx.y) * kTile; r0 < a.R; r0 += int64_t(gridDim.y) * kTile) {
      const int64_t rows = a.R - r0 < kTile ? a.R - r0 : kTile;
      const T *s = src + b * a.s_batch + r0 + c0 * a.s_col;
      T *d = dst + b * a.d_batch + r0 * a.d_row + c0;
      if (rows == kTile && cols == kTile) {
        load_tile<true>(tile, s, a.s_col, rows, cols);
        __syncthreads();
        store_tile<true>(tile, d, a.d_row, rows, cols);
      } else {
        load_tile<false>(tile, s, a.s_col, rows, cols);
        __syncthreads();
        store_tile<false>(tile, d, a.d_row, rows, cols);
      }
      __syncthreads();  // the tile is reused by the next (r0, b) iteration
    }
  }
}

// Contiguous fill: 16-byte stores of a pre-rotated pattern; edge bytes take
// byte (offset % es) of the little-endian element.
__global__ void __launch_bounds__(kThreads) fill_vec_kernel(char *__restrict__ dst, uint4 pat, uint64_t elem, int es,
                                                            int64_t head, int64_t nvec, int64_t nbytes) {
  uint4 *d = reinterpret_cast<uint4 *>(dst + head);
  const int64_t chunk = int64_t(kThreads) * kVecUnroll;
  for (int64_t base = blockIdx.x * chunk + threadIdx.x; base < nvec; base += int64_t(gridDim.x) * chunk) {
#pragma unroll
    for (int k = 0; k < kVecUnroll; ++k)
      if (base + k * kThreads < nvec) d[base + k * kThreads] = pat;
  }
  if (blockIdx.x != 0) return;
  const int64_t t = threadIdx.x, tail = head + nvec * 16 + t;
  if (t < head) dst[t] = static_cast<char>(elem >> (8 * (t % es)));
  if (tail < nbytes) dst[tail] = static_cast<char>(elem >> (8 * (tail % es)));
}

template <typename T, typename U>
__global__ void __launch_bounds__(kThreads) strided_fill_kernel(T *__restrict__ dst, T value, OffsetCalc<U, 1> oc,
                                                                U n) {
  using S = typename OffsetCalc<U, 1>::S;
  for (U i = U(blockIdx.x) * kThreads + threadIdx.x; i < n; i += U(gridDim.x) * kThreads) {
    S od[1];
    oc.get(i, od);
    dst[od[0]] = value;
  }
}

// Linear index i is the C-order position in dst, so layouts are not reordered.
template <typename U>
__global__ void __launch_bounds__(kThreads) arange_kernel(char *__restrict__ dst, int dtype, int es,
                                                          OffsetCalc<U, 1> oc, U n, RangePlan p) {
  using S = typename OffsetCalc<U, 1>::S;
  for (U i = U(blockIdx.x) * kThreads + threadIdx.x; i < n; i += U(gridDim.x) * kThreads) {
    S od[1];
    oc.get(i, od);
    detail::store_scalar(dst + int64_t(od[0]) * es, dtype, detail::range_scalar(p, int64_t(i)));
  }
}

// --------------------------------------------------------------- launches --

template <typename V>
int launch_vec_copy(char *dst, const char *src, int64_t nbytes, cudaStream_t st) {
  const int64_t vs = sizeof(V);
  int64_t head = static_cast<int64_t>((vs - reinterpret_cast<uintptr_t>(dst) % vs) % vs);
  if (head > nbytes) head = nbytes;
  const int64_t nvec = (nbytes - head) / vs;
  vec_copy_kernel<V><<<grid_for(nvec, int64_t(kThreads) * kVecUnroll), kThreads, 0, st>>>(dst, src, head, nvec, nbytes);
  return cudaGetLastError();
}

// Widest vector for which dst and src can be aligned at the same time.
int copy_contiguous(char *dst, const char *src, int64_t nbytes, cudaStream_t st) {
  switch (vec_width(reinterpret_cast<uintptr_t>(dst) ^ reinterpret_cast<uintptr_t>(src))) {
    case 16: return launch_vec_copy<uint4>(dst, src, nbytes, st);
    case 8: return launch_vec_copy<uint2>(dst, src, nbytes, st);
    case 4: return launch_vec_copy<uint32_t>(dst, src, nbytes, st);
    case 2: return launch_vec_copy<uint16_t>(dst, src, nbytes, st);
    default: return launch_vec_copy<uint8_t>(dst, src, nbytes, st);
  }
}

bool is_transpose(const Layout &L) {
  const int r = L.ndim - 2, c = L.ndim - 1;
  return (L.ndim == 2 || L.ndim == 3) && L.st[0][c] == 1 && L.st[1][r] == 1 && L.shape[r] >= 16 &&
         L.shape[c] >= 16 && (L.shape[c] + kTile - 1) / kTile <= INT_MAX;
}

template <typename T>
int launch_transpose(const Layout &L, cudaStream_t st) {
  const int r = L.ndim - 2, c = L.ndim - 1;
  const bool batched = L.ndim == 3;
  TransposeArgs a{L.shape[r], L.shape[c], batched ? L.shape[0] : 1, L.st[0][r], batched ? L.st[0][0] : 0,
                  L.st[1][c], batched ? L.st[1][0] : 0};
  const int64_t gy = (a.R + kTile - 1) / kTile;
  dim3 grid(static_cast<unsigned>((a.C + kTile - 1) / kTile), static_cast<unsigned>(gy < 65535 ? gy : 65535),
            static_cast<unsigned>(a.B < 65535 ? a.B : 65535));
  transpose_kernel<T><<<grid, dim3(kTile, kTileRows), 0, st>>>(reinterpret_cast<T *>(L.ptr[0]),
                                                                reinterpret_cast<const T *>(L.ptr[1]), a);
  return cudaGetLastError();
}

template <typename T, typename U>
int launch_strided_copy(const Layout &L, int64_t n, cudaStream_t st) {
  strided_copy_kernel<T, U><<<grid_for(n, int64_t(kThreads) * kStridedUnroll), kThreads, 0, st>>>(
      reinterpret_cast<T *>(L.ptr[0]), reinterpret_cast<const T *>(L.ptr[1]), make_calc<U>(L), U(n));
  return cudaGetLastError();
}

template <typename T>
int same_dtype_copy(const Layout &L, int64_t n, cudaStream_t st) {
  if (is_transpose(L)) return launch_transpose<T>(L, st);
  return L.fits_32bit() ? launch_strided_copy<T, uint32_t>(L, n, st) : launch_strided_copy<T, uint64_t>(L, n, st);
}

template <typename U>
int launch_cast(const Layout &L, int64_t n, int ddt, int sdt, cudaStream_t st) {
  cast_copy_kernel<U><<<grid_for(n, int64_t(kThreads) * kStridedUnroll), kThreads, 0, st>>>(
      L.ptr[0], ddt, int(L.es[0]), L.ptr[1], sdt, int(L.es[1]), make_calc<U>(L), U(n));
  return cudaGetLastError();
}

// Vectors need dst and src aligned at the same element: both element offsets
// (in units of the vector) must agree mod N; otherwise everything is scalar.
template <int S, int D>
int launch_contig_cast(char *dst, const char *src, int64_t n, cudaStream_t st) {
  constexpr int N = kCastVec<S, D>;
  const uintptr_t sa = reinterpret_cast<uintptr_t>(src), da = reinterpret_cast<uintptr_t>(dst);
  const uintptr_t sk = sa / sizeof(Raw<S>) % N, dk = da / sizeof(Raw<D>) % N;
  const bool aligned = sa % sizeof(Raw<S>) == 0 && da % sizeof(Raw<D>) == 0 && sk == dk;
  int64_t head = aligned ? int64_t((N - sk) % N) : 0;
  if (head > n) head = n;
  const int64_t nvec = aligned ? (n - head) / N : 0;
  const int64_t nedge = n - nvec * N;
  contig_cast_kernel<S, D><<<grid_for_vec(nvec, int64_t(kThreads) * kCastUnroll, nedge), kThreads, 0, st>>>(
      reinterpret_cast<Raw<D> *>(dst), reinterpret_cast<const Raw<S> *>(src), head, nvec, n);
  return cudaGetLastError();
}

// if constexpr keeps the switches below from instantiating non-fast pairs.
template <int S, int D>
int contig_cast_if(char *dst, const char *src, int64_t n, cudaStream_t st) {
  if constexpr (is_fast_pair(S, D)) return launch_contig_cast<S, D>(dst, src, n, st);
  else return kNoFastPath;
}

template <int S>
int contig_cast_from(char *dst, const char *src, int64_t n, int ddt, cudaStream_t st) {
  switch (ddt) {
    case kI32: return contig_cast_if<S, kI32>(dst, src, n, st);
    case kI64: return contig_cast_if<S, kI64>(dst, src, n, st);
    case kF16: return contig_cast_if<S, kF16>(dst, src, n, st);
    case kBF16: return contig_cast_if<S, kBF16>(dst, src, n, st);
    case kF32: return contig_cast_if<S, kF32>(dst, src, n, st);
    case kF64: return contig_cast_if<S, kF64>(dst, src, n, st);
    default: return kNoFastPath;
  }
}

// Typed kernel for a contiguous cast, or kNoFastPath for a pair without one.
int contiguous_cast(const Layout &L, int64_t n, int ddt, int sdt, cudaStream_t st) {
  switch (sdt) {
    case kI32: return contig_cast_from<kI32>(L.ptr[0], L.ptr[1], n, ddt, st);
    case kI64: return contig_cast_from<kI64>(L.ptr[0], L.ptr[1], n, ddt, st);
    case kF16: return contig_cast_from<kF16>(L.ptr[0], L.ptr[1], n, ddt, st);
    case kBF16: return contig_cast_from<kBF16>(L.ptr[0], L.ptr[1], n, ddt, st);
    case kF32: return contig_cast_from<kF32>(L.ptr[0], L.ptr[1], n, ddt, st);
    case kF64: return contig_cast_from<kF64>(L.ptr[0], L.ptr[1], n, ddt, st);
    default: return kNoFastPath;
  }
}

template <typename T, typename U>
int launch_strided_fill(const Layout &L, int64_t n, uint64_t elem, cudaStream_t st) {
  T value;
  std::memcpy(&value, &elem, sizeof(T));  // little-endian: low bytes are the element
  strided_fill_kernel<T, U><<<grid_for(n, kThreads), kThreads, 0, st>>>(reinterpret_cast<T *>(L.ptr[0]), value,
                                                                        make_calc<U, 1>(L), U(n));
  return cudaGetLastError();
}

template <typename T>
int strided_fill(const Layout &L, int64_t n, uint64_t elem, cudaStream_t st) {
  return L.fits_32bit() ? launch_strided_fill<T, uint32_t>(L, n, elem, st)
                        : launch_strided_fill<T, uint64_t>(L, n, elem, st);
}

int contiguous_fill(char *dst, int64_t nbytes, uint64_t elem, int es, cudaStream_t st) {
  int64_t head = static_cast<int64_t>((16 - reinterpret_cast<uintptr_t>(dst) % 16) % 16);
  if (head > nbytes) head = nbytes;
  const int64_t nvec = (nbytes - head) / 16;
  unsigned char p[16];
  for (int j = 0; j < 16; ++j) p[j] = static_cast<unsigned char>(elem >> (8 * ((head + j) % es)));
  uint4 pat;
  std::memcpy(&pat, p, 16);
  fill_vec_kernel<<<grid_for(nvec, int64_t(kThreads) * kVecUnroll), kThreads, 0, st>>>(dst, pat, elem, es, head, nvec,
                                                                                      nbytes);
  return cudaGetLastError();
}

}  // namespace

int copy(const TensorDesc &dst, const TensorDesc &src, void *stream) {
  if (!desc_valid(dst) || !desc_valid(src) || !desc_same_shape(dst, src)) return cudaErrorInvalidValue;
  const int64_t n = desc_numel(dst);
  if (n == 0) return cudaSuccess;
  cudaStream_t st = static_cast<cudaStream_t>(stream);
  Layout L = init_layout(dst, &src);
  flip_negative(L);
  sort_dims(L);
  L.coalesce_1d();
  if (dst.dtype != src.dtype) {
    const int rc = is_contiguous(L) ? contiguous_cast(L, n, dst.dtype, src.dtype, st) : kNoFastPath;
    if (rc != kNoFastPath) return rc;
    return L.fits_32bit() ? launch_cast<uint32_t>(L, n, dst.dtype, src.dtype, st)
                            : launch_cast<uint64_t>(L, n, dst.dtype, src.dtype, st);
  }
  if (is_contiguous(L)) return copy_contiguous(L.ptr[0], L.ptr[1], n * L.es[0], st);
  return with_bits_of(L.es[0], [&](auto t) { return same_dtype_copy<decltype(t)>(L, n, st); });
}

int fill(const TensorDesc &dst, uint64_t elem, void *stream) {
  if (!desc_valid(dst)) return cudaErrorInvalidValue;
  if (desc_numel(dst) == 0) return cudaSuccess;
  cudaStream_t st = static_cast<cudaStream_t>(stream);
  Layout L = init_layout(dst, nullptr);
  flip_negative(L);
  drop_broadcast(L);
  sort_dims(L);
  L.coalesce_1d();
  const int64_t n = L.numel();
  if (is_contiguous(L)) return contiguous_fill(L.ptr[0], n * L.es[0], elem, int(L.es[0]), st);
  return with_bits_of(L.es[0], [&](auto t) { return strided_fill<decltype(t)>(L, n, elem, st); });
}

int arange(const TensorDesc &dst, const RangePlan &p, void *stream) {
  if (!desc_valid(dst)) return cudaErrorInvalidValue;
  const int64_t n = desc_numel(dst);
  if (n == 0) return cudaSuccess;
  cudaStream_t st = static_cast<cudaStream_t>(stream);
  Layout L = init_layout(dst, nullptr);
  L.coalesce_1d();  // keeps C order: no flip/sort, element i must land at C-order position i
  const unsigned grid = grid_for(n, kThreads);
  if (L.fits_32bit())
    arange_kernel<uint32_t><<<grid, kThreads, 0, st>>>(L.ptr[0], dst.dtype, int(L.es[0]), make_calc<uint32_t, 1>(L),
                                                       uint32_t(n), p);
  else
    arange_kernel<uint64_t><<<grid, kThreads, 0, st>>>(L.ptr[0], dst.dtype, int(L.es[0]), make_calc<uint64_t, 1>(L),
                                                       uint64_t(n), p);
  return cudaGetLastError();
}

}  // namespace cuda
}  // namespace ek
