// Shared strided-tensor descriptor used by every backend. Plain C++ (no CUDA
// include) so host-only code can use it.
#pragma once
#include <cstddef>
#include <cstdint>

namespace ek {

// Codes are fixed by the public header: do not renumber.
enum DType : int { kBool = 0, kU8 = 1, kI8 = 2, kI16 = 3, kI32 = 4, kI64 = 5, kF16 = 6, kBF16 = 7, kF32 = 8, kF64 = 9,
                   kU16 = 10, kU32 = 11, kU64 = 12, kC64 = 13, kC128 = 14 };
constexpr int kNumDTypes = 15;
constexpr int kMaxDims = 8;

// A strided view; data points at element 0 (offset already applied).
// Strides are in ELEMENTS and may be 0 (broadcast) or negative.
struct TensorDesc {
  void *data;
  int dtype;
  int ndim;
  int64_t shape[kMaxDims];
  int64_t strides[kMaxDims];
};

// Bytes per element, 0 for an unknown code (lets callers validate cheaply).
inline size_t dtype_size(int dtype) {
  static constexpr unsigned char kSizes[kNumDTypes] = {1, 1, 1, 2, 4, 8, 2, 2, 4, 8, 2, 4, 8, 8, 16};
  return (dtype >= 0 && dtype < kNumDTypes) ? kSizes[dtype] : 0;
}

inline bool dtype_is_float(int dtype) { return dtype >= kF16 && dtype <= kF64; }
inline bool dtype_is_unsigned(int dtype) { return dtype == kU8 || (dtype >= kU16 && dtype <= kU64); }
inline bool dtype_is_complex(int dtype) { return dtype == kC64 || dtype == kC128; }
// The float dtype of a complex dtype's parts (the dtype itself when real).
inline int complex_part_dtype(int dtype) { return dtype == kC64 ? kF32 : dtype == kC128 ? kF64 : dtype; }

// Number of elements; a 0-d tensor has one.
inline int64_t desc_numel(const TensorDesc &t) {
  int64_t n = 1;
  for (int i = 0; i < t.ndim; ++i) n *= t.shape[i];
  return n;
}

inline bool desc_same_shape(const TensorDesc &a, const TensorDesc &b) {
  if (a.ndim != b.ndim) return false;
  for (int d = 0; d < a.ndim; ++d)
    if (a.shape[d] != b.shape[d]) return false;
  return true;
}

// Structural validity: known dtype, 0 <= ndim <= kMaxDims, non-negative shape,
// data present unless empty.
inline bool desc_valid(const TensorDesc &t) {
  if (dtype_size(t.dtype) == 0 || t.ndim < 0 || t.ndim > kMaxDims) return false;
  for (int i = 0; i < t.ndim; ++i)
    if (t.shape[i] < 0) return false;
  return t.data != nullptr || desc_numel(t) == 0;
}

}  // namespace ek
