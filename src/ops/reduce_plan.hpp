// Reduction plan shared by both backends, and the CPU loops (the reference the
// CUDA kernels are checked against). The host layer (src/ops/reduce.cpp) has
// already permuted and cast the input so that it is a contiguous
// (outer, r, inner) block in one of the storage dtypes f16/bf16/f32/f64/i64.
#pragma once
#include <cstdint>

#include "ops/tensor_desc.hpp"

namespace ek {

// Internal reduction kinds: public ops map onto these (mean = sum / divisor,
// L2 = sqrt of sum of squares, any/all = max/min over x != 0, var = sum of
// squared deviations from `center`).
enum ReduceKind : int {
  kRSum = 0, kRSumAbs, kRSumSq, kRSumSqDev,  // additive family
  kRProd,                                    // multiplicative
  kRMax, kRMin, kRMaxAbs,                    // extremum family (NaN propagates)
  kRArgMax, kRArgMin,                        // value + first index (NaN wins)
};

struct ReducePlan {
  const void *in = nullptr;  // contiguous (outer, r, inner)
  int in_dtype = kF32;       // kF16, kBF16, kF32, kF64 or kI64
  int64_t outer = 1, r = 1, inner = 1;
  int kind = kRSum;
  const double *center = nullptr;  // kRSumSqDev: one value per output
  void *out = nullptr;             // values, contiguous outer*inner (may be null for arg kinds)
  int out_dtype = kF32;
  int64_t *indices = nullptr;      // arg kinds: int64 indices (may be null)
  double divisor = 1.0;            // float results are divided by it (mean, var)
  bool take_sqrt = false;          // applied after the division (L2, std)
};
}  // namespace ek
