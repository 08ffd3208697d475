// CUDA indexing kernels (see indexing.cuh): index validation, gather and
// scatter(-add) over an IndexPlan, masked_fill, and the mask compaction
// behind masked_select, masked_scatter and nonzero.
//
// Strided tensors share one iteration shape; the host coalesces dims that are
// contiguous in every tensor of a launch (src/ops/layout.hpp), so common cases run
// 1-D without any index division, and the others take their offsets from
// OffsetCalc (strided.cuh), with 32-bit index math where it fits. Values move as raw element bits (an unsigned type of the
// element's size); only scatter-add looks at the dtype, through atomics.
//
// Compaction works on tiles of kTile mask bytes: compact_count writes each
// tile's number of true bytes and scans them (one block) into exclusive tile
// offsets and the total; compact_write re-reads its tile's mask, scans the
// per-thread counts inside the block and writes each true element at its
// rank. Threads read 16 mask bytes as one uint4. masked_select of a
// contiguous x stages the selected values of a chunk in shared memory, so
// that the output is written in coalesced runs.
#include "kernels/indexing.cuh"

#include <cuda_runtime.h>

#include <cstring>

#include "kernels/strided.cuh"

namespace ek {
namespace cuda {
namespace {

constexpr int kScanThreads = 1024;         // the single block of the tile scan
constexpr int kPerThread = 16;             // mask bytes per thread per chunk (one uint4)
constexpr int64_t kChunk = int64_t(kThreads) * kPerThread;
constexpr int kChunksPerTile = 4;
constexpr int64_t kTile = kChunk * kChunksPerTile;
constexpr int kIndexTensors = 2 + kMaxDims;  // target, dense, index tensors

// ---------------------------------------------------------------- geometry --

template <int N>
void set_strides(Geometry<N> &g, int t, const int64_t *strides) {
  for (int i = 0; i < g.ndim; ++i) g.st[t][i] = strides[i];
}

template <int N>
Geometry<N> geometry_of(const TensorDesc &shape_of) {
  Geometry<N> g;
  g.ndim = shape_of.ndim;
  for (int i = 0; i < g.ndim; ++i) g.shape[i] = shape_of.shape[i];
  return g;
}

template <typename T>
__device__ __forceinline__ T &elem(char *base, int64_t off) {
  return reinterpret_cast<T *>(base)[off];
}

// Raw element move of es bytes (16: complex128, as two 8-byte words).
__device__ __forceinline__ void move_element(char *dst, const char *src, int es) {
  switch (es) {
    case 1: *reinterpret_cast<uint8_t *>(dst) = *reinterpret_cast<const uint8_t *>(src); break;
    case 2: *reinterpret_cast<uint16_t *>(dst) = *reinterpret_cast<const uint16_t *>(src); break;
    case 4: *reinterpret_cast<uint32_t *>(dst) = *reinterpret_cast<const uint32_t *>(src); break;
    case 8: *reinterpret_cast<uint64_t *>(dst) = *reinterpret_cast<const uint64_t *>(src); break;
    default: *reinterpret_cast<Bits128 *>(dst) = *reinterpret_cast<const Bits128 *>(src); break;
  }
}

// ------------------------------------------------------- index validation --

template <typename U>
__global__ void __launch_bounds__(kThreads) check_index_kernel(const char *index, int dtype, OffsetCalc<U, 1> oc,
                                                               U n, int64_t size, unsigned long long *slot) {
  const int es = dtype == kI32 ? 4 : 8;
  for (U i = U(blockIdx.x) * kThreads + threadIdx.x; i < n; i += U(gridDim.x) * kThreads) {
    typename OffsetCalc<U, 1>::S off[1];
    oc.get(i, off);
    int64_t v = load_index(index + int64_t(off[0]) * es, dtype);
    if (v < -size || v >= size) atomicMin(slot, static_cast<unsigned long long>(i));
  }
}

// ------------------------------------------------------- gather / scatter --

template <typename U>
struct IndexArgs {
  OffsetCalc<U, kIndexTensors> oc;  // 0: target, 1: dense, 2 + k: index k
  char *target;
  char *dense;
  int nindex;
  const char *index[kMaxDims];
  int index_es[kMaxDims];
  int64_t size[kMaxDims];
  int64_t step[kMaxDims];
  int64_t *bad;  // IndexPlan::bad: checked kernels only
};

template <typename T>
struct GatherOp {
  __device__ void operator()(char *target, char *dense) const {
    *reinterpret_cast<T *>(dense) = *reinterpret_cast<const T *>(target);
  }
};

template <typename T>
struct ScatterOp {
  __device__ void operator()(char *target, char *dense) const {
    *reinterpret_cast<T *>(target) = *reinterpret_cast<const T *>(dense);
  }
};

// Native atomic adds: float, double, and integers of 32 and 64 bits (the
// unsigned add wraps exactly like the CPU's).
template <typename T, typename A>
struct AtomicAddOp {
  __device__ void operator()(char *target, char *dense) const {
    atomicAdd(reinterpret_cast<A *>(target), static_cast<A>(*reinterpret_cast<const T *>(dense)));
  }
};

// 1- and 2-byte elements: compare-and-swap on the aligned 32-bit word that
// holds the element, combining with add_element_bits (bool ORs).
template <typename T>
struct SubwordAddOp {
  int dtype;
  __device__ void operator()(char *target, char *dense) const {
    const uintptr_t addr = reinterpret_cast<uintptr_t>(target);
    auto *word = reinterpret_cast<unsigned *>(addr & ~uintptr_t(3));
    const unsigned shift = unsigned(addr & 3) * 8;
    const unsigned field = ((1u << (8 * sizeof(T))) - 1u) << shift;
    const uint64_t add = *reinterpret_cast<const T *>(dense);
    unsigned old = *word, assumed;
    do {
      assumed = old;
      uint64_t sum = add_element_bits(dtype, (assumed & field) >> shift, add);
      unsigned next = (assumed & ~field) | ((unsigned(sum) << shift) & field);
      old = atomicCAS(word, assumed, next);
    } while (old != assumed);
  }
};

// kChecked (gathers only): an element whose index is out of range is skipped
// and its index stored to *a.bad (never 0: the host checks dims of size 0
// itself). Threads that find one each store theirs with a plain volatile store
// (no atomics): the host reads after the sync, and any bad index will do to
// report it (the at-call check finds the first one on the host).
template <bool kChecked, typename U, typename Op>
__global__ void __launch_bounds__(kThreads) index_kernel(IndexArgs<U> a, U n, Op op) {
  for (U i = U(blockIdx.x) * kThreads + threadIdx.x; i < n; i += U(gridDim.x) * kThreads) {
    typename OffsetCalc<U, kIndexTensors>::S off[kIndexTensors];
    a.oc.get(i, off, 2 + a.nindex);
    int64_t t = off[0];
    int64_t wild = 0;
#pragma unroll
    for (int k = 0; k < kMaxDims; ++k) {
      if (k >= a.nindex) break;
      int64_t v = load_index(a.index[k] + int64_t(off[2 + k]) * a.index_es[k], a.index_es[k] == 4 ? kI32 : kI64);
      if (kChecked && (v < -a.size[k] || v >= a.size[k])) {
        wild = v;  // before t: a wild value must not overflow it
        break;
      }
      t += (v < 0 ? v + a.size[k] : v) * a.step[k];
    }
    if (kChecked && wild != 0) {
      *reinterpret_cast<volatile int64_t *>(a.bad) = wild;
      continue;
    }
    op(a.target, a.dense, t, off[1]);
  }
}

// A gather over one collapsed dim with one index tensor (index_select of a
// row, gather along a contiguous dim): kGatherIlp elements per thread, whose
// index loads and then whose random reads of the target are all issued before
// any is used. Random reads bound this kernel; requests in flight per thread
// are what make it faster. A thread's elements lie kThreads apart, so that
// each index load and each store of a warp is one contiguous run (with
// adjacent elements a thread, a warp's load spanned 4 times the bytes it
// used). Checking as in index_kernel.
constexpr int kGatherIlp = 4;

template <typename T, bool kChecked>
__global__ void __launch_bounds__(kThreads) gather_1d_kernel(IndexArgs<uint64_t> a, int64_t n) {
  const bool flat = a.oc.ndim == 0;  // a single element: every stride is 0
  const int64_t ts = flat ? 0 : a.oc.st[0][0], ds = flat ? 0 : a.oc.st[1][0];
  const int64_t is = flat ? 0 : a.oc.st[2][0], size = a.size[0], step = a.step[0];
  const int es = a.index_es[0], kind = es == 4 ? kI32 : kI64;
  const T *target = reinterpret_cast<const T *>(a.target);
  T *dense = reinterpret_cast<T *>(a.dense);
  const int64_t chunk = int64_t(kThreads) * kGatherIlp, stride = int64_t(gridDim.x) * chunk;
  for (int64_t i0 = int64_t(blockIdx.x) * chunk + threadIdx.x; i0 < n; i0 += stride) {
    int64_t v[kGatherIlp];
    bool ok[kGatherIlp];
#pragma unroll
    for (int u = 0; u < kGatherIlp; ++u) {
      const int64_t i = i0 + u * kThreads;
      v[u] = i < n ? load_index(a.index[0] + i * is * es, kind) : 0;
      ok[u] = i < n && !(kChecked && (v[u] < -size || v[u] >= size));
      if (kChecked && i < n && !ok[u]) *reinterpret_cast<volatile int64_t *>(a.bad) = v[u];
    }
    T x[kGatherIlp];
#pragma unroll
    for (int u = 0; u < kGatherIlp; ++u)
      if (ok[u]) x[u] = target[(i0 + u * kThreads) * ts + (v[u] < 0 ? v[u] + size : v[u]) * step];
#pragma unroll
    for (int u = 0; u < kGatherIlp; ++u)
      if (ok[u]) dense[(i0 + u * kThreads) * ds] = x[u];
  }
}

template <typename T>
int launch_gather_1d(const IndexArgs<uint64_t> &a, int64_t n, cudaStream_t st) {
  const unsigned grid = grid_for(n, int64_t(kThreads) * kGatherIlp);
  if (a.bad) gather_1d_kernel<T, true><<<grid, kThreads, 0, st>>>(a, n);
  else gather_1d_kernel<T, false><<<grid, kThreads, 0, st>>>(a, n);
  return cudaGetLastError();
}

// Adapts an element op to element offsets.
template <typename T, typename ElemOp>
struct AtOffsets {
  ElemOp op;
  __device__ void operator()(char *target, char *dense, int64_t t, int64_t d) const {
    op(target + t * int64_t(sizeof(T)), dense + d * int64_t(sizeof(T)));
  }
};

template <typename T, typename ElemOp, bool kChecked = false, typename U>
int launch_index(const IndexArgs<U> &a, int64_t n, ElemOp op, cudaStream_t st) {
  index_kernel<kChecked><<<grid_for(n, kThreads), kThreads, 0, st>>>(a, U(n), AtOffsets<T, ElemOp>{op});
  return cudaGetLastError();
}

template <typename T, typename U>
int launch_move(const IndexArgs<U> &a, int64_t n, bool gather, cudaStream_t st) {
  if (!gather) return launch_index<T>(a, n, ScatterOp<T>{}, st);
  return a.bad ? launch_index<T, GatherOp<T>, true>(a, n, GatherOp<T>{}, st)
               : launch_index<T>(a, n, GatherOp<T>{}, st);
}

template <typename U>
int launch_add(const IndexArgs<U> &a, int64_t n, int dtype, cudaStream_t st) {
  switch (dtype) {
    case kF32: return launch_index<float>(a, n, AtomicAddOp<float, float>{}, st);
    case kF64: return launch_index<double>(a, n, AtomicAddOp<double, double>{}, st);
    case kI32: case kU32: return launch_index<uint32_t>(a, n, AtomicAddOp<uint32_t, unsigned>{}, st);
    case kI64: case kU64:
      return launch_index<uint64_t>(a, n, AtomicAddOp<uint64_t, unsigned long long>{}, st);
    case kI16: case kU16: case kF16: case kBF16:
      return launch_index<uint16_t>(a, n, SubwordAddOp<uint16_t>{dtype}, st);
    default: return launch_index<uint8_t>(a, n, SubwordAddOp<uint8_t>{dtype}, st);
  }
}

// The plan's tensors over dense's shape, coalesced.
Geometry<kIndexTensors> index_geometry(const IndexPlan &p) {
  Geometry<kIndexTensors> g = geometry_of<kIndexTensors>(p.dense);
  set_strides(g, 0, p.target.strides);
  set_strides(g, 1, p.dense.strides);
  for (int k = 0; k < p.nindex; ++k) set_strides(g, 2 + k, p.index[k].strides);
  g.coalesce();
  return g;
}

template <typename U>
IndexArgs<U> index_args(const IndexPlan &p, const Geometry<kIndexTensors> &g) {
  IndexArgs<U> a{};
  a.oc = make_calc<U>(g);
  a.target = static_cast<char *>(p.target.data);
  a.dense = static_cast<char *>(p.dense.data);
  a.nindex = p.nindex;
  a.bad = p.bad;
  for (int k = 0; k < p.nindex; ++k) {
    const IndexOperand &ix = p.index[k];
    a.index[k] = static_cast<const char *>(ix.data);
    a.index_es[k] = ix.dtype == kI32 ? 4 : 8;
    a.size[k] = ix.size;
    a.step[k] = ix.step;
  }
  return a;
}

// -------------------------------------------------------------- masked_fill --

template <typename T, typename U>
__global__ void __launch_bounds__(kThreads) masked_fill_kernel(char *dst, const char *src, const uint8_t *mask,
                                                               OffsetCalc<U, 3> oc, U n, T value) {
  for (U i = U(blockIdx.x) * kThreads + threadIdx.x; i < n; i += U(gridDim.x) * kThreads) {
    typename OffsetCalc<U, 3>::S off[3];
    oc.get(i, off);
    T v = mask[off[2]] ? value : reinterpret_cast<const T *>(src)[off[1]];
    elem<T>(dst, off[0]) = v;
  }
}

template <typename T, typename U>
int launch_masked_fill(const MaskedFillPlan &p, const Geometry<3> &g, int64_t n, cudaStream_t st) {
  T value;
  std::memcpy(&value, &p.value, sizeof(T));  // little-endian: the low bytes
  masked_fill_kernel<T, U><<<grid_for(n, kThreads), kThreads, 0, st>>>(
      static_cast<char *>(p.dst.data), static_cast<const char *>(p.src.data),
      static_cast<const uint8_t *>(p.mask.data), make_calc<U>(g), U(n), value);
  return cudaGetLastError();
}

template <typename T>
int launch_masked_fill(const MaskedFillPlan &p, int64_t n, cudaStream_t st) {
  Geometry<3> g = geometry_of<3>(p.dst);
  set_strides(g, 0, p.dst.strides);
  set_strides(g, 1, p.src.strides);
  set_strides(g, 2, p.mask.strides);
  g.coalesce();
  return g.fits_32bit() ? launch_masked_fill<T, uint32_t>(p, g, n, st) : launch_masked_fill<T, uint64_t>(p, g, n, st);
}

// ---------------------------------------------------------------- compaction --

// Bit j set when byte j of w is nonzero (j < 4).
__device__ __forceinline__ unsigned nonzero_bytes(unsigned w) {
  unsigned x = (((w & 0x7f7f7f7fu) + 0x7f7f7f7fu) | w) & 0x80808080u;
  return ((x >> 7) & 1u) | ((x >> 14) & 2u) | ((x >> 21) & 4u) | ((x >> 28) & 8u);
}

// The 16 mask bytes from pos0 (a multiple of 16) as bits; past n reads false.
__device__ __forceinline__ unsigned mask_bits(const uint8_t *mask, int64_t pos0, int64_t n) {
  if (pos0 + kPerThread <= n) {
    uint4 v = *reinterpret_cast<const uint4 *>(mask + pos0);
    return nonzero_bytes(v.x) | nonzero_bytes(v.y) << 4 | nonzero_bytes(v.z) << 8 | nonzero_bytes(v.w) << 12;
  }
  unsigned b = 0;
  for (int j = 0; j < kPerThread && pos0 + j < n; ++j) b |= unsigned(mask[pos0 + j] != 0) << j;
  return b;
}

__device__ __forceinline__ int64_t warp_inclusive_scan(int64_t x) {
  const int lane = threadIdx.x & 31;
#pragma unroll
  for (int o = 1; o < 32; o <<= 1) {
    int64_t y = __shfl_up_sync(0xffffffffu, x, o);
    if (lane >= o) x += y;
  }
  return x;
}

// Exclusive prefix sum of v over the block (kBlock threads, all calling);
// *total gets the block's sum. smem holds kBlock / 32 values.
template <int kBlock>
__device__ int64_t block_exclusive_scan(int64_t v, int64_t *total, int64_t *smem) {
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  constexpr int kWarps = kBlock / 32;
  int64_t x = warp_inclusive_scan(v);
  if (lane == 31) smem[warp] = x;
  __syncthreads();
  if (warp == 0) {
    int64_t w = warp_inclusive_scan(lane < kWarps ? smem[lane] : 0);
    if (lane < kWarps) smem[lane] = w;
  }
  __syncthreads();
  const int64_t before = warp ? smem[warp - 1] : 0;
  *total = smem[kWarps - 1];
  __syncthreads();  // smem is reused by the next scan
  return before + x - v;
}

// Tile t's true count -> tile_counts[t].
__global__ void __launch_bounds__(kThreads) count_kernel(const uint8_t *mask, int64_t n, int64_t ntiles,
                                                         int64_t *tile_counts) {
  __shared__ int64_t smem[kThreads / 32];
  for (int64_t tile = blockIdx.x; tile < ntiles; tile += gridDim.x) {
    int64_t c = 0;
#pragma unroll
    for (int k = 0; k < kChunksPerTile; ++k)
      c += __popc(mask_bits(mask, tile * kTile + k * kChunk + int64_t(threadIdx.x) * kPerThread, n));
    int64_t total;
    block_exclusive_scan<kThreads>(c, &total, smem);
    if (threadIdx.x == 0) tile_counts[tile] = total;
  }
}

// ws[1 + t] = exclusive prefix of the tile counts; ws[0] = their sum.
__global__ void __launch_bounds__(kScanThreads) scan_tiles_kernel(int64_t *ws, int64_t ntiles) {
  __shared__ int64_t smem[kScanThreads / 32];
  int64_t *c = ws + 1, carry = 0;
  for (int64_t base = 0; base < ntiles; base += kScanThreads) {
    const int64_t i = base + threadIdx.x;
    const int64_t v = i < ntiles ? c[i] : 0;
    int64_t total;
    const int64_t excl = block_exclusive_scan<kScanThreads>(v, &total, smem);
    if (i < ntiles) c[i] = carry + excl;
    carry += total;
  }
  if (threadIdx.x == 0) ws[0] = carry;
}

// Writes each chunk of the tiles: per thread its 16 mask bits (all chunks of
// the tile loaded up front), the op's loads (issued before the scan, so that
// they overlap it), its exclusive rank inside the chunk, then the op's
// stores; `base` is the chunk's first rank.
template <typename Op>
__global__ void __launch_bounds__(kThreads) compact_write_kernel(const uint8_t *mask, int64_t n, int64_t ntiles,
                                                                 const int64_t *ws, Op op) {
  __shared__ int64_t smem[kThreads / 32];
  __shared__ __align__(16) unsigned char stage[Op::kStageBytes];
  for (int64_t tile = blockIdx.x; tile < ntiles; tile += gridDim.x) {
    uint64_t tile_bits = 0;  // chunk k's 16 bits at bit 16 k
#pragma unroll
    for (int k = 0; k < kChunksPerTile; ++k)
      tile_bits |= uint64_t(mask_bits(mask, tile * kTile + k * kChunk + int64_t(threadIdx.x) * kPerThread, n))
                   << (kPerThread * k);
    int64_t base = ws[1 + tile];
#pragma unroll 1
    for (int k = 0; k < kChunksPerTile; ++k, tile_bits >>= kPerThread) {
      const int64_t chunk0 = tile * kTile + k * kChunk;
      if (chunk0 >= n) break;  // uniform over the block
      const int64_t pos0 = chunk0 + int64_t(threadIdx.x) * kPerThread;
      const unsigned bits = unsigned(tile_bits) & 0xffffu;
      const typename Op::Loaded v = op.load(bits, pos0, n);
      int64_t total;
      const int64_t excl = block_exclusive_scan<kThreads>(__popc(bits), &total, smem);
      op.store(v, bits, pos0, base, excl, total, stage);
      base += total;
    }
  }
}

// masked_select of a contiguous x: the chunk's selected values are packed in
// shared memory at their ranks, then stored as one coalesced run.
template <typename T>
struct SelectContiguousOp {
  static constexpr int kStageBytes = int(kChunk) * int(sizeof(T));
  union Loaded {
    uint4 q[sizeof(T)];
    T e[kPerThread];
  };
  const T *x;
  T *out;
  int64_t out_stride;
  bool vector_loads;  // x is 16-byte aligned

  // The thread's 16 elements of x (those under a true mask byte, at least).
  __device__ Loaded load(unsigned bits, int64_t pos0, int64_t n) const {
    Loaded u{};
    if (!bits) return u;
    if (vector_loads && pos0 + kPerThread <= n) {
      const uint4 *src = reinterpret_cast<const uint4 *>(x + pos0);
#pragma unroll
      for (int m = 0; m < int(sizeof(T)); ++m) u.q[m] = src[m];
    } else {
#pragma unroll
      for (int j = 0; j < kPerThread; ++j)
        if (bits >> j & 1u) u.e[j] = x[pos0 + j];
    }
    return u;
  }

  __device__ void store(const Loaded &u, unsigned bits, int64_t, int64_t base, int64_t excl, int64_t total,
                        unsigned char *stage) const {
    T *staged = reinterpret_cast<T *>(stage);
    int r = int(excl);
#pragma unroll
    for (int j = 0; j < kPerThread; ++j)
      if (bits >> j & 1u) staged[r++] = u.e[j];
    __syncthreads();
    for (int i = threadIdx.x; i < total; i += kThreads) out[(base + i) * out_stride] = staged[i];
    __syncthreads();  // the stage is reused by the next chunk
  }
};

// Every other compaction, element by element at its rank: select and
// scatter through dense's strides (coalesced), nonzero through coordinates
// (over the shape as it is).
template <typename U>
struct ElementOp {
  static constexpr int kStageBytes = 16;  // unused
  struct Loaded {};
  using S = typename OffsetCalc<U, 1>::S;
  int kind;
  OffsetCalc<U, 1> oc;  // dense (nonzero: its shape only)
  char *dense;
  char *compact;
  int es;
  int64_t cs0, cs1;     // compact strides (elements)

  __device__ void element(int64_t pos, int64_t rank) const {
    if (kind == kCompactNonzero) {
      auto *row = reinterpret_cast<int64_t *>(compact) + rank * cs0;
      oc.coords(U(pos), [&](int d, S c) { row[d * cs1] = c; });
      return;
    }
    S off[1];
    oc.get(U(pos), off);
    char *d = dense + int64_t(off[0]) * es, *c = compact + rank * cs0 * es;
    if (kind == kCompactSelect) move_element(c, d, es);
    else move_element(d, c, es);
  }

  __device__ Loaded load(unsigned, int64_t, int64_t) const { return {}; }
  __device__ void store(const Loaded &, unsigned bits, int64_t pos0, int64_t base, int64_t excl, int64_t,
                        unsigned char *) const {
    int64_t rank = base + excl;
    for (; bits; bits &= bits - 1) element(pos0 + __ffs(bits) - 1, rank++);
  }
};

int64_t tiles_of(int64_t n) { return (n + kTile - 1) / kTile; }

template <typename Op>
int launch_compact_write(const uint8_t *mask, int64_t n, const void *ws, const Op &op, cudaStream_t st) {
  const int64_t ntiles = tiles_of(n);
  compact_write_kernel<Op><<<grid_for(ntiles, 1), kThreads, 0, st>>>(mask, n, ntiles,
                                                                      static_cast<const int64_t *>(ws), op);
  return cudaGetLastError();
}

template <typename T>
int launch_select_contiguous(const CompactPlan &p, const void *ws, cudaStream_t st) {
  SelectContiguousOp<T> op{static_cast<const T *>(p.dense.data), static_cast<T *>(p.compact.data),
                           p.compact.strides[0], reinterpret_cast<uintptr_t>(p.dense.data) % 16 == 0};
  return launch_compact_write(p.mask, p.n, ws, op, st);
}

// t alone over its shape, coalesced; nonzero keeps the shape as it is (no
// strides: only its coordinates are wanted).
Geometry<1> single(const TensorDesc &t, bool coalesce = true) {
  Geometry<1> g = geometry_of<1>(t);
  if (!coalesce) return g;
  set_strides(g, 0, t.strides);
  g.coalesce();
  return g;
}

template <typename U>
ElementOp<U> element_op(const CompactPlan &p, const Geometry<1> &g) {
  ElementOp<U> op{};
  op.kind = p.kind;
  op.oc = make_calc<U>(g);
  op.dense = static_cast<char *>(p.dense.data);
  op.compact = static_cast<char *>(p.compact.data);
  op.es = int(dtype_size(p.compact.dtype));
  op.cs0 = p.compact.strides[0];
  op.cs1 = p.compact.ndim > 1 ? p.compact.strides[1] : 0;
  return op;
}

}  // namespace

int find_bad_indices(const TensorDesc *index, const int64_t *sizes, int n, uint64_t *slots, void *stream) {
  cudaStream_t st = static_cast<cudaStream_t>(stream);
  cudaError_t err = cudaMemsetAsync(slots, 0xff, sizeof(uint64_t) * size_t(n), st);
  if (err != cudaSuccess) return err;
  for (int k = 0; k < n; ++k) {
    const int64_t count = desc_numel(index[k]);
    if (count == 0) continue;
    const Geometry<1> g = single(index[k]);
    const char *data = static_cast<const char *>(index[k].data);
    auto *slot = reinterpret_cast<unsigned long long *>(slots + k);
    if (g.fits_32bit())
      check_index_kernel<<<grid_for(count, kThreads), kThreads, 0, st>>>(data, index[k].dtype, make_calc<uint32_t>(g),
                                                                        uint32_t(count), sizes[k], slot);
    else
      check_index_kernel<<<grid_for(count, kThreads), kThreads, 0, st>>>(data, index[k].dtype, make_calc<uint64_t>(g),
                                                                        uint64_t(count), sizes[k], slot);
    if ((err = cudaGetLastError()) != cudaSuccess) return err;
  }
  return cudaSuccess;
}

int run_index(const IndexPlan &p, void *stream) {
  if (!desc_valid(p.target) || !desc_valid(p.dense) || p.target.dtype != p.dense.dtype ||
      p.nindex < 0 || p.nindex > kMaxDims || (p.bad && p.kind != kIxGather))
    return cudaErrorInvalidValue;  // a scatter must never run on unchecked indices
  const int64_t n = desc_numel(p.dense);
  if (n == 0) return cudaSuccess;
  cudaStream_t st = static_cast<cudaStream_t>(stream);
  const Geometry<kIndexTensors> g = index_geometry(p);
  const int64_t es = int64_t(dtype_size(p.dense.dtype));
  if (p.kind == kIxGather && g.ndim <= 1 && p.nindex == 1) {
    const IndexArgs<uint64_t> a = index_args<uint64_t>(p, g);
    return with_move_bits_of(es, [&](auto t) { return launch_gather_1d<decltype(t)>(a, n, st); });
  }
  auto run = [&](const auto &a) {
    if (p.kind == kIxScatterAdd) return launch_add(a, n, p.dense.dtype, st);
    return with_move_bits_of(es, [&](auto t) { return launch_move<decltype(t)>(a, n, p.kind == kIxGather, st); });
  };
  return g.fits_32bit() ? run(index_args<uint32_t>(p, g)) : run(index_args<uint64_t>(p, g));
}

int masked_fill(const MaskedFillPlan &p, void *stream) {
  if (!desc_valid(p.dst) || !desc_valid(p.src) || !desc_valid(p.mask)) return cudaErrorInvalidValue;
  const int64_t n = desc_numel(p.dst);
  if (n == 0) return cudaSuccess;
  cudaStream_t st = static_cast<cudaStream_t>(stream);
  return with_bits_of(int64_t(dtype_size(p.dst.dtype)),
                      [&](auto t) { return launch_masked_fill<decltype(t)>(p, n, st); });
}

size_t compact_workspace(int64_t n) { return sizeof(int64_t) * size_t(1 + tiles_of(n)); }

int compact_count(const uint8_t *mask, int64_t n, void *workspace, void *stream) {
  if (reinterpret_cast<uintptr_t>(mask) % 16 != 0) return cudaErrorMisalignedAddress;
  cudaStream_t st = static_cast<cudaStream_t>(stream);
  auto *ws = static_cast<int64_t *>(workspace);
  const int64_t ntiles = tiles_of(n);
  if (ntiles == 0) return cudaMemsetAsync(ws, 0, sizeof(int64_t), st);
  count_kernel<<<grid_for(ntiles, 1), kThreads, 0, st>>>(mask, n, ntiles, ws + 1);
  cudaError_t err = cudaGetLastError();
  if (err != cudaSuccess) return err;
  scan_tiles_kernel<<<1, kScanThreads, 0, st>>>(ws, ntiles);
  return cudaGetLastError();
}

int compact_write(const CompactPlan &p, const void *workspace, void *stream) {
  if (p.n == 0) return cudaSuccess;
  if (reinterpret_cast<uintptr_t>(p.mask) % 16 != 0) return cudaErrorMisalignedAddress;
  cudaStream_t st = static_cast<cudaStream_t>(stream);
  const Geometry<1> g = single(p.dense, p.kind != kCompactNonzero);
  if (p.kind == kCompactSelect && (g.ndim == 0 || g.unit_stride(0)) && dtype_size(p.dense.dtype) <= 8)
    return with_bits_of(int64_t(dtype_size(p.dense.dtype)),
                        [&](auto t) { return launch_select_contiguous<decltype(t)>(p, workspace, st); });
  return g.fits_32bit() ? launch_compact_write(p.mask, p.n, workspace, element_op<uint32_t>(p, g), st)
                        : launch_compact_write(p.mask, p.n, workspace, element_op<uint64_t>(p, g), st);
}

}  // namespace cuda
}  // namespace ek
