// The plans of the sorting and searching ops (ek_sort, ek_topk,
// ek_searchsorted, ek_unique) and the one order both backends sort by: each
// element maps to an unsigned key whose integer order is ek.h's order
// (-0.0 == +0.0, every NaN one key above +inf), so the CPU's comparisons and
// CUDA's radix sorts agree. The host layer (src/ops/sort.cpp) has already laid
// the input out as contiguous rows, the sorted dim last.
#pragma once
#include <cstdint>

#include "ops/tensor_desc.hpp"
#include "util/half.hpp"

namespace ek {
namespace sortkey {

// The dtypes these keys order (the host refuses others with EK_ERROR_DTYPE).
inline bool supported(int dtype) { return dtype >= kBool && dtype <= kU64; }

// Width of a dtype's key in bytes: its element size (usable on the device,
// which dtype_size is not).
EK_HD int key_bytes(int dtype) {
  switch (dtype) {
    case kI64: case kU64: case kF64: return 8;
    case kI32: case kU32: case kF32: return 4;
    case kI16: case kU16: case kF16: case kBF16: return 2;
    default: return 1;
  }
}

// IEEE bits with `mant_bits` mantissa bits to an ordered key. merge_zeros
// false keeps -0.0 just below +0.0 (a one-to-one map but for NaNs, so
// CUDA's keys-only sorts can turn keys back into values).
template <typename U>
EK_HD U float_key(U u, int mant_bits, bool merge_zeros = true) {
  constexpr int kBits = sizeof(U) * 8;
  const U sign = U(1) << (kBits - 1);
  const U exp_mask = static_cast<U>(~sign) & static_cast<U>(~((U(1) << mant_bits) - 1));
  const U mag = u & static_cast<U>(~sign);
  if (mag > exp_mask) return static_cast<U>(~U(0));  // every NaN: above +inf's key
  if (mag == 0 && merge_zeros) return sign;          // -0.0 and +0.0: one key
  return (u & sign) ? static_cast<U>(~u) : static_cast<U>(u | sign);
}

// The key of element p of dtype as a uint64 (the low key_bytes(dtype) bytes).
EK_HD uint64_t key_of(const void *p, int dtype, bool merge_zeros = true) {
  using detail::ld;
  switch (dtype) {
    case kBool: return ld<uint8_t>(p) != 0;
    case kU8: return ld<uint8_t>(p);
    case kI8: return static_cast<uint8_t>(ld<uint8_t>(p) ^ 0x80u);
    case kI16: return static_cast<uint16_t>(ld<uint16_t>(p) ^ 0x8000u);
    case kI32: return ld<uint32_t>(p) ^ 0x80000000u;
    case kI64: return ld<uint64_t>(p) ^ 0x8000000000000000ull;
    case kU16: return ld<uint16_t>(p);
    case kU32: return ld<uint32_t>(p);
    case kU64: return ld<uint64_t>(p);
    case kF16: return float_key<uint16_t>(ld<uint16_t>(p), 10, merge_zeros);
    case kBF16: return float_key<uint16_t>(ld<uint16_t>(p), 7, merge_zeros);
    case kF32: return float_key<uint32_t>(ld<uint32_t>(p), 23, merge_zeros);
    case kF64: return float_key<uint64_t>(ld<uint64_t>(p), 52, merge_zeros);
    default: return 0;
  }
}

// Whether key is a NaN's (unique keeps NaNs apart).
EK_HD bool key_is_nan(uint64_t key, int dtype) {
  if (dtype < kF16 || dtype > kF64) return false;
  const int bits = key_bytes(dtype) * 8;
  const uint64_t all = bits == 64 ? ~0ull : (1ull << bits) - 1;
  return key == all;
}

}  // namespace sortkey

// rows x n contiguous elements of dtype; outputs rows x n (values in dtype,
// indices int64), either may be null. keys_only: indices are not wanted and
// the order of equal elements is free, so a backend may sort keys alone and
// turn them back into values (-0.0 then sorts below +0.0, NaNs come out as
// the canonical NaN).
struct SortPlan {
  const void *in = nullptr;
  int dtype = kF32;
  int64_t rows = 0, n = 0;
  bool descending = false, stable = false, keys_only = false;
  void *values = nullptr;
  int64_t *indices = nullptr;
};

// rows x n in; rows x k out (values in dtype, indices int64; either null).
struct TopkPlan {
  const void *in = nullptr;
  int dtype = kF32;
  int64_t rows = 0, n = 0, k = 0;
  bool largest = true, sorted = true;
  void *values = nullptr;
  int64_t *indices = nullptr;
};

// seq: seq_rows x m sorted rows; values: rows x v, row r searching seq row
// (seq_rows == 1 ? 0 : r); out: rows x v of kI64 or kI32. One dtype for both.
struct SearchPlan {
  const void *seq = nullptr, *values = nullptr;
  int dtype = kF32;
  int64_t seq_rows = 1, m = 0, rows = 0, v = 0;
  bool right = false;
  void *out = nullptr;
  int out_dtype = kI64;
};

// unique over n elements already sorted (stable, ascending) with perm[i] the
// input position of sorted[i] (perm may be null when inverse is). count: the
// number of distinct elements (set once unique_count has returned it).
// Outputs (any may be null): values (count, dtype), counts (count, int64),
// inverse (n, int64, indexed by input position). with_counts/with_inverse:
// whether those outputs will be asked for, known before the count (a backend
// may select the values and counts along with it).
struct UniquePlan {
  const void *sorted = nullptr;
  const int64_t *perm = nullptr;
  int dtype = kF32;
  int64_t n = 0, count = 0;
  bool with_counts = false, with_inverse = false;
  void *values = nullptr;
  int64_t *counts = nullptr, *inverse = nullptr;
};

}  // namespace ek
