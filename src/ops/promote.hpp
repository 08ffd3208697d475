// PyTorch's type promotion and NumPy broadcasting, shared by every op that
// combines operands (elementwise, where/clamp/lerp, matmul batch dims, indexing).
#pragma once

#include "core/internal.hpp"

namespace ek {

// ---- type rules (PyTorch): bool < integers < floats < complex.
inline int category(int dt) {
  return dt == kBool ? 0 : dtype_is_float(dt) ? 2 : dtype_is_complex(dt) ? 3 : 1;
}

// The complex dtype whose parts are of float dtype part.
inline ek_dtype complex_of(ek_dtype part) { return part == EK_FLOAT64 ? EK_COMPLEX128 : EK_COMPLEX64; }

inline ek_dtype promote(ek_dtype a, ek_dtype b) {
  if (a == b) return a;
  int ca = category(a), cb = category(b);
  if (ca == 3 || cb == 3)  // the parts promote as floats; an integer other keeps the complex's parts
    return complex_of(promote(static_cast<ek_dtype>(complex_part_dtype(a)),
                              static_cast<ek_dtype>(complex_part_dtype(b))));
  if (ca != cb) return ca > cb ? a : b;
  if (ca == 2) {  // f16 and bf16 meet in f32; otherwise the wider float
    if ((a == EK_FLOAT16 && b == EK_BFLOAT16) || (a == EK_BFLOAT16 && b == EK_FLOAT16)) return EK_FLOAT32;
    return a > b ? a : b;
  }
  // Integers (NumPy): the wider of one signedness; unsigned with a wider
  // signed type takes that type, with a signed type as wide or narrower the
  // next wider signed type; uint64 with a signed type has none: float64.
  const bool ua = dtype_is_unsigned(a), ub = dtype_is_unsigned(b);
  const size_t wa = dtype_size(a), wb = dtype_size(b);
  if (ua == ub) return wa >= wb ? a : b;
  const ek_dtype u = ua ? a : b, i = ua ? b : a;
  const size_t wu = ua ? wa : wb, wi = ua ? wb : wa;
  if (wi > wu) return i;
  switch (wu) {
    case 1: return EK_INT16;
    case 2: return EK_INT32;
    case 4: return EK_INT64;
    default: return u == EK_UINT64 ? EK_FLOAT64 : i;
  }
}

// A scalar (ek_binary_scalar) is weakly typed: its kind's category only
// raises the tensor's: int tensor + 2.5 -> float32 (the default float), bool
// tensor + 2 -> int64, bool tensor & true -> bool; otherwise the tensor's
// dtype wins.
inline ek_dtype promote_scalar(ek_dtype t, const ek_scalar &v) {
  const int cs = v.kind == EK_SCALAR_COMPLEX ? 3 : v.kind == EK_SCALAR_FLOAT64 ? 2 : (v.kind == EK_SCALAR_BOOL ? 0 : 1);
  if (category(t) >= cs) return t;
  if (cs == 3) return t == EK_FLOAT64 ? EK_COMPLEX128 : EK_COMPLEX64;  // a complex value: the tensor's precision
  return cs == 2 ? EK_FLOAT32 : EK_INT64;
}

// NumPy broadcasting of two shapes; EK_ERROR_SHAPE names both.
inline ek_status broadcast_shapes(const ek_tensor_s *a, const ek_tensor_s *b, int *ndim, int64_t *shape) {
  *ndim = a->ndim > b->ndim ? a->ndim : b->ndim;
  for (int i = 0; i < *ndim; ++i) {
    int ia = i - (*ndim - a->ndim), ib = i - (*ndim - b->ndim);
    int64_t sa = ia >= 0 ? a->shape[ia] : 1, sb = ib >= 0 ? b->shape[ib] : 1;
    EK_CHECK(sa == sb || sa == 1 || sb == 1, EK_ERROR_SHAPE, "shapes %s and %s are not broadcastable",
             format_shape(a->ndim, a->shape).c_str(), format_shape(b->ndim, b->shape).c_str());
    shape[i] = sa == 1 ? sb : sa;
  }
  return EK_SUCCESS;
}

}  // namespace ek
