// CUDA sorting and searching (see sort.cuh).
//
// sort: integers (sort_native) are sorted by CUB as they are, each paired
// with its int32 position in the row (CUB's order on them is ek.h's, every
// value one bit pattern), straight into the values output when that is whole
// rows. Other dtypes (bool, floats) first map every element to its ordered
// key (sortkey::key_of, complemented for descending) of the element's width;
// CUB sorts the (key, position) pairs. CUB sorts one row with
// DeviceRadixSort, several with DeviceSegmentedSort's stable sort. One
// coalesced pass (write_sorted) then widens the positions to int64 and turns
// keys back into values, gathering from x only the elements whose key several
// bit patterns share (+-0.0, NaNs, true), so those come out as they went in.
// A single row that needs neither positions nor stability
// (SortPlan::keys_only; any integer row without indices) sorts keys alone.
// topk (small k): a radix select, 8 key bits per pass over the row (a
// histogram of the digit among the elements matching the prefix found so
// far, then one block per row picks the digit holding the k-th largest),
// finds the k-th key exactly; one pass then collects the k winners, and
// CUB sorts only those. Large k or short rows sort whole rows instead.
// unique: without the inverse on integers, CUB's Unique (or RunLengthEncode
// for the counts) selects the values from the sorted elements at once.
// Otherwise CUB's DeviceSelect lists the positions where a group of equal
// sorted elements starts; values and counts come from those starts, the
// inverse from a binary search among them. Either way the count is read back.
#include "kernels/sort.cuh"

#include <cuda_runtime.h>

#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_run_length_encode.cuh>
#include <cub/device/device_segmented_sort.cuh>
#include <cub/device/device_select.cuh>
#include <thrust/iterator/counting_iterator.h>

#include <algorithm>
#include <type_traits>

namespace ek {
namespace cuda {
namespace {

constexpr int kBlock = 256;
constexpr int64_t kMaxGrid = 65535;

unsigned grid_for(int64_t n) {
  return static_cast<unsigned>(std::max<int64_t>(1, std::min<int64_t>((n + kBlock - 1) / kBlock, 8 * 132 * 8)));
}

// Pieces of one workspace, each aligned to 256 bytes.
class Carve {
 public:
  explicit Carve(void *base) : p_(static_cast<char *>(base)) {}
  template <typename T>
  T *take(size_t count) {
    T *r = reinterpret_cast<T *>(p_ ? p_ + used_ : nullptr);
    used_ += (count * sizeof(T) + 255) / 256 * 256;
    return r;
  }
  size_t used() const { return used_; }

 private:
  char *p_;
  size_t used_ = 0;
};

__device__ __forceinline__ uint64_t width_mask(int dtype) {
  const int bits = sortkey::key_bytes(dtype) * 8;
  return bits == 64 ? ~0ull : (1ull << bits) - 1;
}

// Key of element i of a contiguous array, complemented (within its width) when reversed.
__device__ __forceinline__ uint64_t key_at(const void *in, int dtype, int64_t i, bool reverse) {
  const uint64_t k = sortkey::key_of(static_cast<const char *>(in) + i * sortkey::key_bytes(dtype), dtype);
  return reverse ? k ^ width_mask(dtype) : k;
}

__device__ __forceinline__ void copy_elem(void *dst, const void *src, size_t es) {
  switch (es) {
    case 1: *static_cast<uint8_t *>(dst) = *static_cast<const uint8_t *>(src); break;
    case 2: *static_cast<uint16_t *>(dst) = *static_cast<const uint16_t *>(src); break;
    case 4: *static_cast<uint32_t *>(dst) = *static_cast<const uint32_t *>(src); break;
    default: *static_cast<uint64_t *>(dst) = *static_cast<const uint64_t *>(src); break;
  }
}

// i / d (both >= 0): a 32-bit division where both fit, several times cheaper than a 64-bit one.
__device__ __forceinline__ int64_t quotient(int64_t i, int64_t d) {
  return (i | d) <= int64_t(UINT32_MAX) ? int64_t(uint32_t(i) / uint32_t(d)) : i / d;
}

// Position of element i of contiguous rows of n (total elements in all).
__device__ __forceinline__ int32_t position(int64_t i, int64_t n, int64_t total) {
  return static_cast<int32_t>(total == n ? i : i - quotient(i, n) * n);
}

template <typename K>
__global__ void make_keys(const void *in, int dtype, int64_t total, int64_t n, bool reverse, K *keys,
                          int32_t *pos) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < total; i += int64_t(gridDim.x) * blockDim.x) {
    keys[i] = static_cast<K>(key_at(in, dtype, i, reverse));
    pos[i] = position(i, n, total);
  }
}

__global__ void row_offsets(int64_t rows, int64_t n, int64_t *offsets) {
  for (int64_t r = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; r <= rows; r += int64_t(gridDim.x) * blockDim.x)
    offsets[r] = r * n;
}

// Every element's position in its row: the values CUB sorts along with x's own elements.
__global__ void positions(int64_t total, int64_t n, int32_t *pos) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < total; i += int64_t(gridDim.x) * blockDim.x)
    pos[i] = position(i, n, total);
}

// Row r's first k of `order` (rows of `stride` positions into x's rows of n):
// values[r, j] = x[r, order[r, j]], indices[r, j] = order[r, j].
__global__ void write_out(const void *in, int dtype, int64_t rows, int64_t n, int64_t k,
                          int64_t stride, const int32_t *order, void *values, int64_t *indices) {
  const size_t es = sortkey::key_bytes(dtype);
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < rows * k; i += int64_t(gridDim.x) * blockDim.x) {
    const int64_t r = i / k, j = i - r * k, at = order[r * stride + j];
    if (values)
      copy_elem(static_cast<char *>(values) + i * es, static_cast<const char *>(in) + (r * n + at) * es, es);
    if (indices) indices[i] = at;
  }
}

// The element whose key (merge_zeros false) is k; a NaN's key gives the canonical NaN.
template <typename K>
__device__ __forceinline__ K value_of_key(K k, int dtype) {
  const K sign = K(1) << (sizeof(K) * 8 - 1);
  switch (dtype) {
    case kBool: case kU8: case kU16: case kU32: case kU64: return k;
    case kI8: case kI16: case kI32: case kI64: return k ^ sign;
    default: break;
  }
  if (k == static_cast<K>(~K(0))) {  // NaN: sign clear, exponent all ones, top mantissa bit set
    const int mant = dtype == kF16 ? 10 : dtype == kBF16 ? 7 : dtype == kF32 ? 23 : 52;
    return static_cast<K>((sign - 1) & ~((K(1) << (mant - 1)) - 1));
  }
  return (k & sign) ? static_cast<K>(k & ~sign) : static_cast<K>(~k);
}

// Whether one bit pattern alone has key k (merge_zeros true): not +-0.0's,
// not the NaNs', not true's (any nonzero byte).
template <typename K>
__device__ __forceinline__ bool key_is_exact(K k, int dtype) {
  if (dtype == kBool) return k == 0;
  if (dtype < kF16 || dtype > kF64) return true;
  return k != static_cast<K>(K(1) << (sizeof(K) * 8 - 1)) && k != static_cast<K>(~K(0));
}

// Row r's first k of the sorted rows of n (keys, positions) in one coalesced
// pass: indices widened to int64, values turned back from the keys (native:
// the keys are x's own elements) and gathered from x only where the key is
// not exact. values null: not wanted, or the sort wrote them already.
template <typename K>
__global__ void write_sorted(const void *in, int dtype, int64_t rows, int64_t n, int64_t k, bool native, K flip,
                             const K *keys, const int32_t *order, K *values, int64_t *indices) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < rows * k; i += int64_t(gridDim.x) * blockDim.x) {
    int64_t r = 0, j = i;
    if (rows > 1) {  // a division only where there are rows
      r = quotient(i, k);
      j = i - r * k;
    }
    const int32_t pos = order[r * n + j];
    if (values) {
      K v = keys[r * n + j];
      if (!native) {
        v = static_cast<K>(v ^ flip);
        v = key_is_exact(v, dtype) ? value_of_key(v, dtype) : static_cast<const K *>(in)[r * n + pos];
      }
      values[i] = v;
    }
    if (indices) indices[i] = pos;
  }
}

// The CUB sort of `total` (key, position) pairs in rows of n (offsets: rows + 1).
template <typename K>
cudaError_t cub_sort(void *temp, size_t &bytes, cub::DoubleBuffer<K> &keys, cub::DoubleBuffer<int32_t> &pos,
                     int64_t total, int64_t rows, const int64_t *offsets, cudaStream_t st) {
  if (rows == 1)
    return cub::DeviceRadixSort::SortPairs(temp, bytes, keys, pos, total, 0, int(sizeof(K) * 8), st);
  return cub::DeviceSegmentedSort::StableSortPairs(temp, bytes, keys, pos, total, rows, offsets, offsets + 1, st);
}

// The buffers of sorting `total` pairs of K keys in `rows` rows.
template <typename K>
struct PairBufs {
  K *k0, *k1;
  int32_t *p0, *p1;
  int64_t *offsets;
  void *temp;
  size_t temp_bytes;
  PairBufs(Carve &c, int64_t total, int64_t rows) {
    k0 = c.take<K>(total);
    k1 = c.take<K>(total);
    p0 = c.take<int32_t>(total);
    p1 = c.take<int32_t>(total);
    offsets = c.take<int64_t>(rows + 1);
    cub::DoubleBuffer<K> kb(k0, k1);
    cub::DoubleBuffer<int32_t> pb(p0, p1);
    temp_bytes = 0;
    cub_sort<K>(nullptr, temp_bytes, kb, pb, total, rows, offsets, nullptr);
    temp = c.take<char>(temp_bytes);
  }
  // Sorts the pairs in k0/p0; returns the sorted positions through *sorted
  // and, when asked, the sorted keys through *keys.
  cudaError_t run(int64_t total, int64_t rows, int64_t n, cudaStream_t st, const int32_t **sorted,
                  const K **keys = nullptr) {
    if (rows > 1) row_offsets<<<grid_for(rows + 1), kBlock, 0, st>>>(rows, n, offsets);
    cub::DoubleBuffer<K> kb(k0, k1);
    cub::DoubleBuffer<int32_t> pb(p0, p1);
    size_t b = temp_bytes;
    cudaError_t e = cub_sort<K>(temp, b, kb, pb, total, rows, offsets, st);
    *sorted = pb.Current();
    if (keys) *keys = kb.Current();
    return e;
  }
};

// f(K{}) with the unsigned key type of dtype's width.
template <typename F>
auto with_key(int dtype, F &&f) {
  switch (dtype_size(dtype)) {
    case 1: return f(uint8_t{});
    case 2: return f(uint16_t{});
    case 4: return f(uint32_t{});
    default: return f(uint64_t{});
  }
}

// Sorts rows x n of keys made from x in the workspace and writes the first k of every row.
template <typename K>
cudaError_t sort_rows(const void *in, int dtype, int64_t rows, int64_t n, int64_t k, bool reverse,
                      void *values, int64_t *indices, void *ws, cudaStream_t st) {
  const int64_t total = rows * n;
  Carve c(ws);
  PairBufs<K> b(c, total, rows);
  make_keys<K><<<grid_for(total), kBlock, 0, st>>>(in, dtype, total, n, reverse, b.k0, b.p0);
  const int32_t *sorted = nullptr;
  const K *keys = nullptr;
  cudaError_t e = b.run(total, rows, n, st, &sorted, &keys);
  if (e != cudaSuccess) return e;
  write_sorted<K><<<grid_for(rows * k), kBlock, 0, st>>>(in, dtype, rows, n, k, false,
                                                         reverse ? static_cast<K>(~K(0)) : K(0), keys, sorted,
                                                         static_cast<K *>(values), indices);
  return cudaGetLastError();
}

// ---------------------------------------------------------------- native

// Whether CUB's own order of dtype's C type is ek.h's, so CUB sorts x's
// elements as they are: the integers (every value one bit pattern). Not bool
// (any nonzero byte is true) nor floats (CUB orders NaNs by their bits).
bool native_order(int dtype) { return dtype != kBool && !dtype_is_float(dtype); }

// f(T{}) with dtype's own integer type (native_order dtypes).
template <typename F>
auto with_native(int dtype, F &&f) {
  switch (dtype) {
    case kU8: return f(uint8_t{});
    case kI8: return f(int8_t{});
    case kI16: return f(int16_t{});
    case kU16: return f(uint16_t{});
    case kI32: return f(int32_t{});
    case kU32: return f(uint32_t{});
    case kI64: return f(int64_t{});
    default: return f(uint64_t{});
  }
}

// CUB's sort of x's own elements with their positions (one function for the
// size query, temp null, and the sort, so both take the same path).
template <typename T>
cudaError_t cub_native_pairs(void *temp, size_t &bytes, const T *in, T *out, const int32_t *pos_in,
                             int32_t *pos_out, int64_t total, int64_t rows, const int64_t *offsets,
                             bool descending, cudaStream_t st) {
  constexpr int kBits = sizeof(T) * 8;
  using Radix = cub::DeviceRadixSort;
  using Segmented = cub::DeviceSegmentedSort;
  if (rows == 1)
    return descending ? Radix::SortPairsDescending(temp, bytes, in, out, pos_in, pos_out, total, 0, kBits, st)
                      : Radix::SortPairs(temp, bytes, in, out, pos_in, pos_out, total, 0, kBits, st);
  return descending ? Segmented::StableSortPairsDescending(temp, bytes, in, out, pos_in, pos_out, total, rows,
                                                           offsets, offsets + 1, st)
                    : Segmented::StableSortPairs(temp, bytes, in, out, pos_in, pos_out, total, rows, offsets,
                                                 offsets + 1, st);
}

// Whether the sort may write x's sorted elements straight into the values: whole rows of them.
bool into_values(const void *values, int64_t n, int64_t k) { return values && k == n; }

// The buffers of sorting x's own elements: positions in and out, the sorted
// elements (unless they go straight into the values), row offsets, CUB's temp.
template <typename T>
struct NativeBufs {
  T *keys;
  int32_t *p0, *p1;
  int64_t *offsets;
  void *temp;
  size_t temp_bytes = 0;
  NativeBufs(Carve &c, int64_t total, int64_t rows, bool direct, bool descending)
      : keys(direct ? nullptr : c.take<T>(total)), p0(c.take<int32_t>(total)), p1(c.take<int32_t>(total)),
        offsets(c.take<int64_t>(rows + 1)) {
    cub_native_pairs<T>(nullptr, temp_bytes, nullptr, nullptr, nullptr, nullptr, total, rows, offsets, descending,
                        nullptr);
    temp = c.take<char>(temp_bytes);
  }
};

// sort_rows for native_order dtypes: no key pass, no key buffer when the
// sort writes the values itself.
template <typename T>
cudaError_t sort_native(const void *in, int dtype, int64_t rows, int64_t n, int64_t k, bool descending,
                        void *values, int64_t *indices, void *ws, cudaStream_t st) {
  using K = std::make_unsigned_t<T>;
  const int64_t total = rows * n;
  const bool direct = into_values(values, n, k);
  Carve c(ws);
  NativeBufs<T> b(c, total, rows, direct, descending);
  T *sorted = direct ? static_cast<T *>(values) : b.keys;
  positions<<<grid_for(total), kBlock, 0, st>>>(total, n, b.p0);
  if (rows > 1) row_offsets<<<grid_for(rows + 1), kBlock, 0, st>>>(rows, n, b.offsets);
  size_t bytes = b.temp_bytes;
  cudaError_t e = cub_native_pairs<T>(b.temp, bytes, static_cast<const T *>(in), sorted, b.p0, b.p1, total, rows,
                                      b.offsets, descending, st);
  if (e != cudaSuccess || (direct && !indices)) return e;
  write_sorted<K><<<grid_for(rows * k), kBlock, 0, st>>>(in, dtype, rows, n, k, true, K(0),
                                                         reinterpret_cast<const K *>(sorted), b.p1,
                                                         direct ? nullptr : static_cast<K *>(values), indices);
  return cudaGetLastError();
}

// sort_rows or sort_native: rows x n of x sorted, the first k of every row written.
cudaError_t sort_any(const void *in, int dtype, int64_t rows, int64_t n, int64_t k, bool descending,
                     void *values, int64_t *indices, void *ws, cudaStream_t st) {
  if (native_order(dtype))
    return with_native(dtype, [&](auto t) {
      return sort_native<decltype(t)>(in, dtype, rows, n, k, descending, values, indices, ws, st);
    });
  return with_key(dtype, [&](auto key) {
    return sort_rows<decltype(key)>(in, dtype, rows, n, k, descending, values, indices, ws, st);
  });
}

size_t sort_any_workspace(int dtype, int64_t rows, int64_t n, int64_t k, bool descending, const void *values) {
  Carve c(nullptr);
  if (native_order(dtype))
    with_native(dtype, [&](auto t) {
      NativeBufs<decltype(t)> b(c, rows * n, rows, into_values(values, n, k), descending);
      return 0;
    });
  else
    with_key(dtype, [&](auto key) {
      PairBufs<decltype(key)> b(c, rows * n, rows);
      return 0;
    });
  return c.used();
}

// ---------------------------------------------------------------- keys only

template <typename K>
__global__ void make_raw_keys(const void *in, int dtype, int64_t n, bool reverse, K *keys) {
  const int es = sortkey::key_bytes(dtype);
  const K flip = reverse ? static_cast<K>(~K(0)) : K(0);
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n; i += int64_t(gridDim.x) * blockDim.x)
    keys[i] = static_cast<K>(sortkey::key_of(static_cast<const char *>(in) + i * es, dtype, false)) ^ flip;
}

template <typename K>
__global__ void values_from_keys(const K *keys, int dtype, int64_t n, bool reverse, K *values) {
  const K flip = reverse ? static_cast<K>(~K(0)) : K(0);
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n; i += int64_t(gridDim.x) * blockDim.x)
    values[i] = value_of_key<K>(keys[i] ^ flip, dtype);
}

template <typename K>
struct KeyBufs {
  K *k0, *k1;
  void *temp;
  size_t temp_bytes = 0;
  KeyBufs(Carve &c, int64_t n) : k0(c.take<K>(n)), k1(c.take<K>(n)) {
    cub::DoubleBuffer<K> kb(k0, k1);
    cub::DeviceRadixSort::SortKeys(nullptr, temp_bytes, kb, n, 0, int(sizeof(K) * 8), cudaStream_t{});
    temp = c.take<char>(temp_bytes);
  }
};

// One row whose values alone are wanted and whose equal elements may come in
// any order: keys_only, or any integer row (its equal elements are identical).
bool sorts_keys_only(const SortPlan &p) {
  return p.rows == 1 && p.values && !p.indices && (p.keys_only || native_order(p.dtype));
}

template <typename K>
cudaError_t sort_keys(const SortPlan &p, void *ws, cudaStream_t st) {
  Carve c(ws);
  KeyBufs<K> b(c, p.n);
  make_raw_keys<K><<<grid_for(p.n), kBlock, 0, st>>>(p.in, p.dtype, p.n, p.descending, b.k0);
  cub::DoubleBuffer<K> kb(b.k0, b.k1);
  size_t bytes = b.temp_bytes;
  cudaError_t e = cub::DeviceRadixSort::SortKeys(b.temp, bytes, kb, p.n, 0, int(sizeof(K) * 8), st);
  if (e != cudaSuccess) return e;
  values_from_keys<K><<<grid_for(p.n), kBlock, 0, st>>>(kb.Current(), p.dtype, p.n, p.descending,
                                                         static_cast<K *>(p.values));
  return cudaGetLastError();
}

// CUB's sort of x's own elements alone, from x straight into the values (one
// function for the size query and the sort; the workspace is CUB's temp).
template <typename T>
cudaError_t sort_keys_native(void *temp, size_t &bytes, const SortPlan &p, cudaStream_t st) {
  const T *in = static_cast<const T *>(p.in);
  T *out = static_cast<T *>(p.values);
  constexpr int kBits = sizeof(T) * 8;
  return p.descending ? cub::DeviceRadixSort::SortKeysDescending(temp, bytes, in, out, p.n, 0, kBits, st)
                      : cub::DeviceRadixSort::SortKeys(temp, bytes, in, out, p.n, 0, kBits, st);
}

// ---------------------------------------------------------------- topk

// The prefix of the k-th largest key found so far and how many elements
// equal to the final key are still to take.
struct SelectState {
  uint64_t prefix;
  int64_t remaining;
};

__global__ void select_init(int64_t rows, int64_t k, SelectState *state) {
  for (int64_t r = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; r < rows; r += int64_t(gridDim.x) * blockDim.x)
    state[r] = {0, k};
}

// Histogram of the 8-bit digit at `shift` among row r's keys matching the prefix above it.
__global__ void select_hist(const void *in, int dtype, int64_t rows, int64_t n, bool reverse, int shift,
                            const SelectState *state, unsigned long long *hist) {
  __shared__ unsigned int counts[256];
  for (int64_t r = blockIdx.y; r < rows; r += gridDim.y) {
    counts[threadIdx.x] = 0;
    __syncthreads();
    const uint64_t prefix = state[r].prefix;
    const int above = shift + 8;
    for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n; i += int64_t(gridDim.x) * blockDim.x) {
      const uint64_t key = key_at(in, dtype, r * n + i, reverse);
      if (above >= 64 || ((key ^ prefix) >> above) == 0) atomicAdd(&counts[(key >> shift) & 255u], 1u);
    }
    __syncthreads();
    if (counts[threadIdx.x])
      atomicAdd(&hist[r * 256 + threadIdx.x], static_cast<unsigned long long>(counts[threadIdx.x]));
    __syncthreads();
  }
}

// One block per row: the digit (from the top) where the k-th largest falls.
__global__ void select_digit(int64_t rows, int shift, SelectState *state, unsigned long long *hist) {
  for (int64_t r = blockIdx.x; r < rows; r += gridDim.x) {
    if (threadIdx.x == 0) {
      SelectState s = state[r];
      for (int d = 255; d >= 0; --d) {
        const int64_t c = static_cast<int64_t>(hist[r * 256 + d]);
        if (c >= s.remaining) {
          s.prefix |= static_cast<uint64_t>(d) << shift;
          break;
        }
        s.remaining -= c;
      }
      state[r] = s;
    }
    __syncthreads();
    hist[r * 256 + threadIdx.x] = 0;  // ready for the next pass
    __syncthreads();
  }
}

// The k winners of each row: every key above the k-th, then the first
// `remaining` equal to it to claim a slot. Keys stored complemented, so an
// ascending sort puts the largest first.
template <typename K>
__global__ void select_collect(const void *in, int dtype, int64_t rows, int64_t n, int64_t k, bool reverse,
                               const SelectState *state, unsigned int *claimed, K *keys, int32_t *pos) {
  for (int64_t r = blockIdx.y; r < rows; r += gridDim.y) {
    const SelectState s = state[r];
    const int64_t above = k - s.remaining;
    for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < n; i += int64_t(gridDim.x) * blockDim.x) {
      const uint64_t key = key_at(in, dtype, r * n + i, reverse);
      int64_t slot = -1;
      if (key > s.prefix) {
        slot = atomicAdd(&claimed[2 * r], 1u);
      } else if (key == s.prefix) {
        const int64_t e = atomicAdd(&claimed[2 * r + 1], 1u);
        if (e < s.remaining) slot = above + e;
      }
      if (slot >= 0) {
        keys[r * k + slot] = static_cast<K>(~key);
        pos[r * k + slot] = static_cast<int32_t>(i);
      }
    }
  }
}

bool topk_selects(const TopkPlan &p) { return p.k <= 1024 && p.n >= 1024 && p.k * 4 <= p.n; }

template <typename K>
struct SelectBufs {
  SelectState *state;
  unsigned long long *hist;
  unsigned int *claimed;
  PairBufs<K> pairs;
  SelectBufs(Carve &c, const TopkPlan &p)
      : state(c.take<SelectState>(p.rows)), hist(c.take<unsigned long long>(p.rows * 256)),
        claimed(c.take<unsigned int>(2 * p.rows)), pairs(c, p.rows * p.k, p.rows) {}
};

template <typename K>
cudaError_t topk_select(const TopkPlan &p, void *ws, cudaStream_t st) {
  Carve c(ws);
  SelectBufs<K> b(c, p);
  const bool reverse = !p.largest;  // select the largest keys of (maybe complemented) elements
  const int bits = static_cast<int>(dtype_size(p.dtype)) * 8;
  cudaError_t e = cudaMemsetAsync(b.hist, 0, p.rows * 256 * sizeof(unsigned long long), st);
  if (e == cudaSuccess) e = cudaMemsetAsync(b.claimed, 0, 2 * p.rows * sizeof(unsigned int), st);
  if (e != cudaSuccess) return e;
  select_init<<<grid_for(p.rows), kBlock, 0, st>>>(p.rows, p.k, b.state);
  const dim3 grid(static_cast<unsigned>(std::min<int64_t>((p.n + 16 * kBlock - 1) / (16 * kBlock), 264)),
                  static_cast<unsigned>(std::min(p.rows, kMaxGrid)));
  const unsigned row_blocks = static_cast<unsigned>(std::min(p.rows, kMaxGrid));
  for (int shift = bits - 8; shift >= 0; shift -= 8) {
    select_hist<<<grid, kBlock, 0, st>>>(p.in, p.dtype, p.rows, p.n, reverse, shift, b.state, b.hist);
    select_digit<<<row_blocks, kBlock, 0, st>>>(p.rows, shift, b.state, b.hist);
  }
  select_collect<K><<<grid, kBlock, 0, st>>>(p.in, p.dtype, p.rows, p.n, p.k, reverse, b.state, b.claimed,
                                             b.pairs.k0, b.pairs.p0);
  const int32_t *order = b.pairs.p0;
  if (p.sorted && (e = b.pairs.run(p.rows * p.k, p.rows, p.k, st, &order)) != cudaSuccess) return e;
  write_out<<<grid_for(p.rows * p.k), kBlock, 0, st>>>(p.in, p.dtype, p.rows, p.n, p.k, p.k, order, p.values,
                                                       p.indices);
  return cudaGetLastError();
}

// ---------------------------------------------------------------- searchsorted

template <typename Out>
__global__ void search(SearchPlan p) {
  const size_t es = sortkey::key_bytes(p.dtype);
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < p.rows * p.v; i += int64_t(gridDim.x) * blockDim.x) {
    const int64_t r = i / p.v;
    const char *seq = static_cast<const char *>(p.seq) + (p.seq_rows > 1 ? r : 0) * p.m * es;
    const uint64_t key = sortkey::key_of(static_cast<const char *>(p.values) + i * es, p.dtype);
    int64_t lo = 0, hi = p.m;
    while (lo < hi) {
      const int64_t mid = lo + (hi - lo) / 2;
      const uint64_t at = sortkey::key_of(seq + mid * es, p.dtype);
      if (p.right ? at <= key : at < key) lo = mid + 1;
      else hi = mid;
    }
    static_cast<Out *>(p.out)[i] = static_cast<Out>(lo);
  }
}

// ---------------------------------------------------------------- unique

// Whether sorted element i starts a group (NaNs each start their own).
struct StartsGroup {
  const void *sorted;
  int dtype;
  __device__ bool operator()(int64_t i) const {
    const int es = sortkey::key_bytes(dtype);
    const char *s = static_cast<const char *>(sorted);
    const uint64_t k = sortkey::key_of(s + i * es, dtype);
    return i == 0 || k != sortkey::key_of(s + (i - 1) * es, dtype) || sortkey::key_is_nan(k, dtype);
  }
};

// Group g's first element and size.
__global__ void unique_groups(UniquePlan p, const int64_t *starts) {
  const int es = sortkey::key_bytes(p.dtype);
  for (int64_t g = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; g < p.count; g += int64_t(gridDim.x) * blockDim.x) {
    const int64_t first = starts[g], end = g + 1 < p.count ? starts[g + 1] : p.n;
    if (p.values)
      copy_elem(static_cast<char *>(p.values) + g * es, static_cast<const char *>(p.sorted) + first * es, es);
    if (p.counts) p.counts[g] = end - first;
  }
}

// inverse[perm[i]] = the group of sorted element i: the last start <= i.
__global__ void unique_inverse(UniquePlan p, const int64_t *starts) {
  for (int64_t i = blockIdx.x * int64_t(blockDim.x) + threadIdx.x; i < p.n; i += int64_t(gridDim.x) * blockDim.x) {
    int64_t lo = 0, hi = p.count;  // first start > i, minus one
    while (lo < hi) {
      const int64_t mid = lo + (hi - lo) / 2;
      if (starts[mid] <= i) lo = mid + 1;
      else hi = mid;
    }
    p.inverse[p.perm[i]] = lo - 1;
  }
}

struct UniqueBufs {
  int64_t *count, *starts;
  void *temp;
  size_t temp_bytes = 0;
  UniqueBufs(Carve &c, const UniquePlan &p) : count(c.take<int64_t>(1)), starts(c.take<int64_t>(p.n)) {
    cub::DeviceSelect::If(nullptr, temp_bytes, thrust::counting_iterator<int64_t>(0), starts, count, p.n,
                          StartsGroup{p.sorted, p.dtype}, cudaStream_t{});
    temp = c.take<char>(temp_bytes);
  }
};

// unique without the inverse of native_order dtypes: equal elements are
// identical, so CUB's Unique (RunLengthEncode for the counts) selects the
// values (and counts) from the sorted elements themselves in one pass.
bool unique_runs(const UniquePlan &p) { return native_order(p.dtype) && !p.with_inverse; }

// unique_runs' workspace: the count (first, as UniqueBufs), the values and
// counts selected, then CUB's temp.
struct RunBufs {
  int64_t *count;
  void *values;
  int64_t *counts;
  RunBufs(Carve &c, const UniquePlan &p)
      : count(c.take<int64_t>(1)), values(c.take<char>(p.n * dtype_size(p.dtype))),
        counts(p.with_counts ? c.take<int64_t>(p.n) : nullptr) {}
};

// One function for the size query (temp null) and the selection.
template <typename T>
cudaError_t select_runs(void *temp, size_t &bytes, const UniquePlan &p, const RunBufs &b, cudaStream_t st) {
  const T *sorted = static_cast<const T *>(p.sorted);
  T *values = static_cast<T *>(b.values);
  if (p.with_counts)  // n fits an int: the sort before refuses longer rows
    return cub::DeviceRunLengthEncode::Encode(temp, bytes, sorted, values, b.counts, b.count, static_cast<int>(p.n),
                                              st);
  return cub::DeviceSelect::Unique(temp, bytes, sorted, values, b.count, p.n, st);
}

size_t runs_temp_bytes(const UniquePlan &p, const RunBufs &b) {
  size_t bytes = 0;
  with_native(p.dtype, [&](auto t) { return select_runs<decltype(t)>(nullptr, bytes, p, b, cudaStream_t{}); });
  return bytes;
}

}  // namespace

size_t sort_workspace(const SortPlan &p) {
  if (!sorts_keys_only(p)) return sort_any_workspace(p.dtype, p.rows, p.n, p.n, p.descending, p.values);
  size_t bytes = 0;
  if (native_order(p.dtype))
    with_native(p.dtype, [&](auto t) { return sort_keys_native<decltype(t)>(nullptr, bytes, p, cudaStream_t{}); });
  else
    with_key(p.dtype, [&](auto key) {
      Carve c(nullptr);
      KeyBufs<decltype(key)> b(c, p.n);
      bytes = c.used();
      return 0;
    });
  return bytes;
}

int sort(const SortPlan &p, void *workspace, void *stream) {
  auto st = static_cast<cudaStream_t>(stream);
  if (!sorts_keys_only(p))
    return sort_any(p.in, p.dtype, p.rows, p.n, p.n, p.descending, p.values, p.indices, workspace, st);
  if (native_order(p.dtype))
    return with_native(p.dtype, [&](auto t) {
      size_t bytes = 0;
      sort_keys_native<decltype(t)>(nullptr, bytes, p, st);
      return sort_keys_native<decltype(t)>(workspace, bytes, p, st);
    });
  return with_key(p.dtype, [&](auto key) { return sort_keys<decltype(key)>(p, workspace, st); });
}

size_t topk_workspace(const TopkPlan &p) {
  if (!topk_selects(p)) return sort_any_workspace(p.dtype, p.rows, p.n, p.k, p.largest, p.values);
  return with_key(p.dtype, [&](auto key) {
    Carve c(nullptr);
    SelectBufs<decltype(key)> b(c, p);
    return c.used();
  });
}

int topk(const TopkPlan &p, void *workspace, void *stream) {
  auto st = static_cast<cudaStream_t>(stream);
  if (!topk_selects(p))
    return sort_any(p.in, p.dtype, p.rows, p.n, p.k, p.largest, p.values, p.indices, workspace, st);
  return with_key(p.dtype, [&](auto key) { return topk_select<decltype(key)>(p, workspace, st); });
}

int searchsorted(const SearchPlan &p, void *stream) {
  auto st = static_cast<cudaStream_t>(stream);
  const unsigned grid = grid_for(p.rows * p.v);
  if (p.out_dtype == kI32) search<int32_t><<<grid, kBlock, 0, st>>>(p);
  else search<int64_t><<<grid, kBlock, 0, st>>>(p);
  return cudaGetLastError();
}

size_t unique_workspace(const UniquePlan &p) {
  Carve c(nullptr);
  if (!unique_runs(p)) {
    UniqueBufs b(c, p);
    return c.used();
  }
  RunBufs b(c, p);
  c.take<char>(runs_temp_bytes(p, b));
  return c.used();
}

int unique_count(const UniquePlan &p, void *workspace, void *stream) {
  auto st = static_cast<cudaStream_t>(stream);
  Carve c(workspace);
  if (unique_runs(p)) {
    RunBufs b(c, p);
    size_t bytes = runs_temp_bytes(p, b);
    void *temp = c.take<char>(bytes);
    return with_native(p.dtype, [&](auto t) { return select_runs<decltype(t)>(temp, bytes, p, b, st); });
  }
  UniqueBufs b(c, p);
  size_t bytes = b.temp_bytes;
  return cub::DeviceSelect::If(b.temp, bytes, thrust::counting_iterator<int64_t>(0), b.starts, b.count, p.n,
                               StartsGroup{p.sorted, p.dtype}, st);
}

int unique_write(const UniquePlan &p, const void *workspace, void *stream) {
  auto st = static_cast<cudaStream_t>(stream);
  Carve c(const_cast<void *>(workspace));
  if (unique_runs(p)) {  // the selection is done: copy out its first count
    RunBufs b(c, p);
    cudaError_t e = cudaSuccess;
    if (p.values)
      e = cudaMemcpyAsync(p.values, b.values, p.count * dtype_size(p.dtype), cudaMemcpyDeviceToDevice, st);
    if (e == cudaSuccess && p.counts)
      e = cudaMemcpyAsync(p.counts, b.counts, p.count * sizeof(int64_t), cudaMemcpyDeviceToDevice, st);
    return e;
  }
  c.take<int64_t>(1);  // the count, as UniqueBufs lays them out
  const int64_t *starts = c.take<int64_t>(p.n);
  if (p.values || p.counts) unique_groups<<<grid_for(p.count), kBlock, 0, st>>>(p, starts);
  if (p.inverse) unique_inverse<<<grid_for(p.n), kBlock, 0, st>>>(p, starts);
  return cudaGetLastError();
}

}  // namespace cuda
}  // namespace ek
