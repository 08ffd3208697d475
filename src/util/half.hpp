// Bit-exact f16/bf16 converters and the per-element cast rules shared by the
// CPU reference and the CUDA kernels. Everything is integer bit manipulation or
// a single IEEE operation, so host and device produce identical bytes (the
// CUDA check program compares them bytewise); on the device the float16
// conversions of numbers are the hardware's cvt, which rounds the same way
// (test_elementwise_more checks every float16 rounding boundary), with a
// NaN's sign OR-ed back in (the hardware drops it; see f32_to_f16).
//
// Cast rules (PyTorch-like, but fully defined so backends agree):
//  * f16/bf16 <- anything: via f32, round-to-nearest-even, overflow -> Inf.
//  * float -> int: truncate toward zero, NaN -> 0, saturating at the target
//    dtype's range (float_to_int; ek.h "Casts"). int -> narrower int wraps.
//  * -> bool: x != 0 (NaN -> true). bool -> number: 0/1 (any non-zero byte
//    reads as true).
//  * NaN results are the canonical quiet NaN with the input's sign; payloads
//    are dropped (hardware conversions disagree on payloads).
#pragma once
#include <cmath>
#include <cstdint>
#include <cstring>

#include "ek.h"
#include "ops/tensor_desc.hpp"

#if defined(__CUDACC__)
#define EK_HD __host__ __device__ __forceinline__
#else
#define EK_HD inline
#endif

namespace ek {
namespace half {

EK_HD uint32_t f32_bits(float f) { uint32_t u; memcpy(&u, &f, 4); return u; }
EK_HD float bits_f32(uint32_t u) { float f; memcpy(&f, &u, 4); return f; }
EK_HD uint64_t f64_bits(double d) { uint64_t u; memcpy(&u, &d, 8); return u; }
EK_HD double bits_f64(uint64_t u) { double d; memcpy(&d, &u, 8); return d; }

// Subnormal f16 from |x| < 2^-14 (bits ax): shift the full significand into
// the 2^-24 grid and round half to even on the dropped bits.
EK_HD uint16_t f16_subnormal(uint32_t ax) {
  if (ax <= 0x33000000u) return 0;  // <= 2^-25: rounds to zero (2^-25 is a tie -> even 0)
  uint32_t e = ax >> 23;            // 102..112
  uint32_t m = (ax & 0x7fffffu) | 0x800000u;
  uint32_t shift = 126u - e;        // 14..24
  uint32_t h = m >> shift, rem = m & ((1u << shift) - 1u), halfway = 1u << (shift - 1u);
  if (rem > halfway || (rem == halfway && (h & 1u))) ++h;  // may carry into the min normal: correct
  return static_cast<uint16_t>(h);
}

// Round to nearest even, overflow to Inf. A NaN gives 0x7fff with its sign
// (ek.h "Casts": payloads are dropped), the hardware's NaN with the sign
// OR-ed in: on the device that OR (a no-op for every other value) is the
// whole fix-up, where selecting another canonical NaN in both directions
// made eager float16 mul over 256M take 783 us instead of 554 on the H100
// (bench/RESULTS.md, session 16).
EK_HD uint16_t f32_to_f16(float f) {
  uint32_t x = f32_bits(f);
  uint16_t sign = static_cast<uint16_t>((x >> 16) & 0x8000u);
#if defined(__CUDA_ARCH__)
  uint16_t h;
  asm("cvt.rn.f16.f32 %0, %1;" : "=h"(h) : "f"(f));
  return h | sign;
#else
  uint32_t ax = x & 0x7fffffffu;
  if (ax > 0x7f800000u) return sign | 0x7fffu;
  if (ax < 0x38800000u) return sign | f16_subnormal(ax);    // below 2^-14
  uint32_t r = ax - 0x38000000u;                            // rebias exponent 127 -> 15
  uint32_t h = (r + 0xfffu + ((r >> 13) & 1u)) >> 13;       // round half to even
  return sign | static_cast<uint16_t>(h >= 0x7c00u ? 0x7c00u : h);  // overflow (and Inf) -> Inf
#endif
}

// Exact; a subnormal (or zero) is m * 2^-24. A NaN gives 0x7fffffff with its
// sign, as f32_to_f16 (payloads dropped).
EK_HD float f16_to_f32(uint16_t h) {
  uint32_t sign = (uint32_t(h) & 0x8000u) << 16;
#if defined(__CUDA_ARCH__)
  float f;
  asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(h));
  return bits_f32(f32_bits(f) | sign);
#else
  uint32_t e = (h >> 10) & 0x1fu, m = h & 0x3ffu;
  if (e == 0x1f && m != 0) return bits_f32(sign | 0x7fffffffu);
  if (e == 0) return bits_f32(sign | f32_bits(float(m) * 0x1p-24f));
  return bits_f32(sign | ((e == 0x1f ? 0xffu : e + 112u) << 23) | (m << 13));
#endif
}

EK_HD uint16_t f32_to_bf16(float f) {
  uint32_t x = f32_bits(f);
  if ((x & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>(((x >> 16) & 0x8000u) | 0x7fc0u);
  return static_cast<uint16_t>((x + 0x7fffu + ((x >> 16) & 1u)) >> 16);  // RNE; overflow carries to Inf
}

EK_HD float bf16_to_f32(uint16_t b) { return bits_f32(uint32_t(b) << 16); }

}  // namespace half

namespace detail {

// Device-callable twin of ek::dtype_is_float (tensor_desc.hpp stays CUDA-free).
EK_HD bool is_float_dtype(int dtype) { return dtype >= kF16 && dtype <= kF64; }

// Common compute type of a cast: floats travel as double, integers (and bool)
// as int64, so only the (runtime) load and store switch on dtype.
// A uint64 value travels as its int64 bits with is_u64 set, which only the
// conversion to float reads (integer stores wrap to the same bits anyway).
struct Scalar {
  double f;
  int64_t i;
  bool is_float;
  bool is_u64;
};

EK_HD Scalar scalar_int(int64_t i) { return Scalar{0.0, i, false, false}; }
EK_HD Scalar scalar_u64(uint64_t u) { return Scalar{0.0, int64_t(u), false, true}; }
EK_HD Scalar scalar_float(double f) { return Scalar{f, 0, true, false}; }

// Canonical quiet NaN with a given sign bit, built from bits (no arithmetic).
EK_HD double nan_f64(bool neg) { return half::bits_f64((neg ? 0xfff8000000000000ull : 0x7ff8000000000000ull)); }
EK_HD bool sign_f64(double d) { return (half::f64_bits(d) >> 63) != 0; }

// f32 widening through bits so NaN handling never depends on hardware cvt.
EK_HD double widen_f32(float f) {
  uint32_t u = half::f32_bits(f);
  if ((u & 0x7fffffffu) > 0x7f800000u) return nan_f64(u >> 31);
  return static_cast<double>(f);
}

EK_HD float narrow_f64(double d) {
  if (d != d) return half::bits_f32(sign_f64(d) ? 0xffc00000u : 0x7fc00000u);
  return static_cast<float>(d);  // single IEEE RNE rounding on host and device
}

// Range of an integer dtype (bool: 0..1; other dtypes: int64's).
EK_HD int64_t int_min(int dtype) {
  switch (dtype) {
    case kBool: case kU8: case kU16: case kU32: case kU64: return 0;
    case kI8: return INT8_MIN;
    case kI16: return INT16_MIN;
    case kI32: return INT32_MIN;
    default: return INT64_MIN;
  }
}
EK_HD int64_t int_max(int dtype) {
  switch (dtype) {
    case kBool: return 1;
    case kU8: return UINT8_MAX;
    case kI8: return INT8_MAX;
    case kI16: return INT16_MAX;
    case kI32: return INT32_MAX;
    case kU16: return UINT16_MAX;
    case kU32: return UINT32_MAX;
    default: return INT64_MAX;  // uint64 too: float_to_int and scalar_element widen it
  }
}
// int_max + 1 as an exact double (a power of two).
EK_HD double int_above(int dtype) {
  return int_max(dtype) == INT64_MAX ? 0x1p63 : double(int_max(dtype) + 1);
}

// float -> integer dtype, the one rule (ek.h "Casts"): truncate toward zero,
// NaN -> 0, saturate to the dtype's range. The bounds are compared as exact
// doubles before converting: converting an out-of-range double is undefined
// behaviour in C++ and differs by hardware.
EK_HD int64_t float_to_int(double d, int dtype) {
  if (d != d) return 0;
  if (dtype == kU64 && d >= 0x1p63)  // the upper half of uint64, as its int64 bits
    return d >= 0x1p64 ? -1 : int64_t(uint64_t(d));
  if (d >= int_above(dtype)) return int_max(dtype);
  if (d <= double(int_min(dtype))) return int_min(dtype);
  return static_cast<int64_t>(d);
}

// Element access. On the device elements are assumed aligned to their size
// (as allocations and element offsets guarantee); a plain dereference keeps
// nvcc from splitting an unknown-alignment memcpy into byte accesses.
template <typename T>
EK_HD T ld(const void *p) {
#if defined(__CUDA_ARCH__)
  return *static_cast<const T *>(p);
#else
  T v;
  memcpy(&v, p, sizeof(T));
  return v;
#endif
}
template <typename T>
EK_HD void st(void *p, T v) {
#if defined(__CUDA_ARCH__)
  *static_cast<T *>(p) = v;
#else
  memcpy(p, &v, sizeof(T));
#endif
}

EK_HD Scalar load_scalar(const void *p, int dtype) {
  switch (dtype) {
    case kBool: return scalar_int(ld<uint8_t>(p) != 0);
    case kU8: return scalar_int(ld<uint8_t>(p));
    case kI8: return scalar_int(ld<int8_t>(p));
    case kI16: return scalar_int(ld<int16_t>(p));
    case kI32: return scalar_int(ld<int32_t>(p));
    case kI64: return scalar_int(ld<int64_t>(p));
    case kU16: return scalar_int(ld<uint16_t>(p));
    case kU32: return scalar_int(ld<uint32_t>(p));
    case kU64: return scalar_u64(ld<uint64_t>(p));
    case kF16: return scalar_float(widen_f32(half::f16_to_f32(ld<uint16_t>(p))));
    case kBF16: return scalar_float(widen_f32(half::bf16_to_f32(ld<uint16_t>(p))));
    case kF32: return scalar_float(widen_f32(ld<float>(p)));
    default: {
      double d = ld<double>(p);
      return scalar_float(d != d ? nan_f64(sign_f64(d)) : d);
    }
  }
}

// Value as f32: integers convert directly (one rounding), floats narrow once.
EK_HD float scalar_to_f32(const Scalar &v) {
  return v.is_float ? narrow_f64(v.f) : v.is_u64 ? static_cast<float>(uint64_t(v.i)) : static_cast<float>(v.i);
}
EK_HD double int_to_f64(const Scalar &v) { return v.is_u64 ? static_cast<double>(uint64_t(v.i)) : static_cast<double>(v.i); }

EK_HD void store_scalar(void *p, int dtype, const Scalar &v) {
  int64_t i = v.is_float ? float_to_int(v.f, dtype) : v.i;  // integers wrap below
  switch (dtype) {
    case kBool: st<uint8_t>(p, v.is_float ? (v.f != 0.0) : (v.i != 0)); break;
    case kU8: st<uint8_t>(p, static_cast<uint8_t>(i)); break;
    case kI8: st<int8_t>(p, static_cast<int8_t>(static_cast<uint8_t>(i))); break;
    case kI16: st<int16_t>(p, static_cast<int16_t>(static_cast<uint16_t>(i))); break;
    case kI32: st<int32_t>(p, static_cast<int32_t>(static_cast<uint32_t>(i))); break;
    case kI64: st<int64_t>(p, i); break;
    case kU16: st<uint16_t>(p, static_cast<uint16_t>(i)); break;
    case kU32: st<uint32_t>(p, static_cast<uint32_t>(i)); break;
    case kU64: st<uint64_t>(p, uint64_t(i)); break;
    case kF16: st<uint16_t>(p, half::f32_to_f16(scalar_to_f32(v))); break;
    case kBF16: st<uint16_t>(p, half::f32_to_bf16(scalar_to_f32(v))); break;
    case kF32: st<float>(p, scalar_to_f32(v)); break;
    default: st<double>(p, v.is_float ? (v.f != v.f ? nan_f64(sign_f64(v.f)) : v.f) : int_to_f64(v)); break;
  }
}

// An ek_scalar as one element of dtype (its bytes in the low bytes of *bits),
// by ek.h's ek_scalar rule; false when the value does not fit an integer
// dtype (or the kind is unknown). Floats round once from the exact value.
// Host only: fill and masked_fill convert once and replicate the bytes.
inline bool scalar_element(const ek_scalar &v, int dtype, uint64_t *bits) {
  *bits = 0;
  const bool is_u = v.kind == EK_SCALAR_UINT64, is_f = v.kind == EK_SCALAR_FLOAT64;
  if (!is_u && !is_f && v.kind != EK_SCALAR_INT64 && v.kind != EK_SCALAR_BOOL) return false;
  if (dtype == kBool) {
    st<uint8_t>(bits, is_f ? v.f != 0.0 : (is_u ? v.u != 0 : v.i != 0));
  } else if (dtype == kF64) {
    store_scalar(bits, dtype, scalar_float(is_f ? v.f : (is_u ? double(v.u) : double(v.i))));
  } else if (is_float_dtype(dtype)) {  // one rounding to f32, then f16/bf16 from it, as ek_cast
    const float f = is_f ? narrow_f64(v.f) : (is_u ? float(v.u) : float(v.i));
    store_scalar(bits, dtype, scalar_float(widen_f32(f)));
  } else {
    int64_t i = v.i;
    const bool u64 = dtype == kU64;
    if (is_u) {
      if (v.u > (u64 ? UINT64_MAX : uint64_t(int_max(dtype)))) return false;
      if (u64) return store_scalar(bits, dtype, scalar_u64(v.u)), true;
      i = int64_t(v.u);
    } else if (is_f) {
      const double t = std::trunc(v.f);  // NaN and inf fail one comparison below
      if (!(t >= double(int_min(dtype)) && t < (u64 ? 0x1p64 : int_above(dtype)))) return false;
      if (u64) return store_scalar(bits, dtype, scalar_float(t)), true;
      i = int64_t(t);
    }
    if (i < int_min(dtype) || i > int_max(dtype)) return false;
    store_scalar(bits, dtype, scalar_int(i));
  }
  return true;
}

}  // namespace detail
}  // namespace ek
