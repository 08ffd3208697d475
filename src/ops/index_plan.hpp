// Indexing plans shared by both backends, and the CPU loops (the reference the
// CUDA kernels in kernels/indexing.cu are checked against).
//
// The host layer (src/ops/indexing.cpp) reduces every public indexing op to one of
// four plans over descriptors with arbitrary strides:
//   * IndexPlan: GATHER (dense = target[indices]) or SCATTER (target[indices]
//     = dense, or += with accumulate) over an iteration shape;
//   * MaskedFillPlan: dst = mask ? value : src, elementwise;
//   * CompactPlan: the compaction behind masked_select, masked_scatter and
//     nonzero, driven by a contiguous bool mask and its true count;
//   * index validation: the first out-of-range entry of an index tensor.
// Values move as raw element bytes (no casts: the ops keep x's dtype);
// accumulation adds in the element's dtype (add_element_bits).
#pragma once
#include <cstdint>

#include "util/half.hpp"
#include "ops/tensor_desc.hpp"

namespace ek {

// One index tensor of an IndexPlan, read at `strides` over the plan's shape.
// A value v addresses position (v < 0 ? v + size : v) of a dim of the target
// whose stride (elements) is `step`. Values are validated before a plan runs
// (or, with IndexPlan::bad, by the kernel itself).
struct IndexOperand {
  const void *data = nullptr;
  int dtype = kI64;  // kI32 or kI64
  int64_t strides[kMaxDims] = {};
  int64_t size = 0;
  int64_t step = 0;
};

enum IndexKind : int { kIxGather = 0, kIxScatter = 1, kIxScatterAdd = 2 };

// Over the iteration shape dense.shape (target.shape is the same): element c
// of dense pairs with target element
//   target.data + dot(c, target.strides) + sum_k index_k(c) * step_k,
// where the addressed dims carry stride 0 in target.strides. GATHER reads the
// target into dense; SCATTER writes dense into the target (duplicates: one of
// the candidates wins); SCATTER_ADD adds (duplicates add up). Both descriptors
// have the same dtype.
//
// bad (CUDA GATHER only; the CPU loop rejects it): the indices are checked in
// the kernel instead of beforehand. An element with an index outside
// [-size, size) is skipped (target not read, dense not written) and its index
// (nonzero, as every size here is >= 1) is stored to *bad, a stream word that
// holds 0 until a check fails (StreamWord).
struct IndexPlan {
  int kind = kIxGather;
  TensorDesc target{};
  TensorDesc dense{};
  int nindex = 0;
  IndexOperand index[kMaxDims];
  int64_t *bad = nullptr;
};

// dst = mask ? value : src elementwise, all three over dst's shape (src may be
// dst itself; the mask is bool and may broadcast with stride 0). value holds
// the element's bytes, little-endian, already in dst's dtype.
struct MaskedFillPlan {
  TensorDesc dst{}, src{}, mask{};
  uint64_t value = 0;
};

enum CompactKind : int { kCompactSelect = 0, kCompactScatter = 1, kCompactNonzero = 2 };

// mask: n contiguous bool bytes, the C-order flattening of dense.shape (any
// nonzero byte is true). Let rank(i) be the number of true mask bytes before
// true byte i. SELECT: compact[rank(i)] = dense[i] (compact is 1-D, x's dtype);
// SCATTER: dense[i] = compact[rank(i)] (compact is the flattened source);
// NONZERO: compact[rank(i), d] = coordinate d of i in dense.shape (compact is
// int64 [count, ndim]; dense's data and dtype are unused).
struct CompactPlan {
  int kind = kCompactSelect;
  const uint8_t *mask = nullptr;
  int64_t n = 0;
  TensorDesc dense{};
  TensorDesc compact{};
};

// target op= value for IndexKind SCATTER_ADD, on raw element bits (the low
// dtype_size bytes matter): integers wrap, bool ORs, f16/bf16 add in f32 and
// round once (exactly what a correctly rounded f16/bf16 add gives), f32 and
// f64 add in their own precision.
EK_HD uint64_t add_element_bits(int dtype, uint64_t a, uint64_t b) {
  switch (dtype) {
    case kBool: return ((a & 0xff) | (b & 0xff)) != 0;
    case kF16: {
      float s = half::f16_to_f32(uint16_t(a)) + half::f16_to_f32(uint16_t(b));
      return half::f32_to_f16(s);
    }
    case kBF16: {
      float s = half::bf16_to_f32(uint16_t(a)) + half::bf16_to_f32(uint16_t(b));
      return half::f32_to_bf16(s);
    }
    case kF32:
      return half::f32_bits(half::bits_f32(uint32_t(a)) + half::bits_f32(uint32_t(b)));
    case kF64: return half::f64_bits(half::bits_f64(a) + half::bits_f64(b));
    default: return a + b;  // unsigned: wraps; the store keeps the low bytes
  }
}

// An index value as int64 (kI32 or kI64).
EK_HD int64_t load_index(const void *p, int dtype) {
  return dtype == kI32 ? int64_t(detail::ld<int32_t>(p)) : detail::ld<int64_t>(p);
}
}  // namespace ek
