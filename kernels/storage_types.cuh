// Device-side storage types of the kernels that compute in an accumulator
// type: f16/bf16 as raw bits (loaded into f32, stored with round-to-nearest-
// even), f32/f64/int64 as themselves. Included by .cu files only.
#pragma once
#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include <cstdint>

#include "util/half.hpp"

namespace ek {
namespace cuda {

struct F16 { uint16_t bits; };
struct BF16 { uint16_t bits; };

// The type a storage type computes in.
template <typename T> struct AccOf { using type = T; };
template <> struct AccOf<F16> { using type = float; };
template <> struct AccOf<BF16> { using type = float; };

__device__ __forceinline__ float to_acc(F16 v) { return __half2float(__ushort_as_half(v.bits)); }
__device__ __forceinline__ float to_acc(BF16 v) { return __uint_as_float(uint32_t(v.bits) << 16); }
template <typename T> __device__ __forceinline__ T to_acc(T v) { return v; }

__device__ __forceinline__ void from_acc(float v, F16 *o) { o->bits = __half_as_ushort(__float2half_rn(v)); }
__device__ __forceinline__ void from_acc(float v, BF16 *o) { o->bits = __bfloat16_as_ushort(__float2bfloat16_rn(v)); }
template <typename T> __device__ __forceinline__ void from_acc(T v, T *o) { *o = v; }

// The f32 / f16 / bf16 fast paths of the elementwise and ternary kernels
// store a dtype code's raw bits and compute in f32, converting with the CPU's
// rules (half.hpp), so both backends give the same bits.
template <int DT> struct RawOf { using type = uint16_t; };
template <> struct RawOf<kF32> { using type = float; };
template <int DT> using RawF = typename RawOf<DT>::type;

template <int DT>
__device__ __forceinline__ float to_f32(RawF<DT> v) {
  if constexpr (DT == kF32) return v;
  else if constexpr (DT == kF16) return half::f16_to_f32(v);
  else return half::bf16_to_f32(v);
}

template <int DT>
__device__ __forceinline__ RawF<DT> from_f32(float v) {
  if constexpr (DT == kF32) return v;
  else if constexpr (DT == kF16) return half::f32_to_f16(v);
  else return half::f32_to_bf16(v);
}

}  // namespace cuda
}  // namespace ek
