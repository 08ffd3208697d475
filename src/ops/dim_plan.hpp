// The plan of an op along one dim (softmax, log_softmax, cumsum, cumprod),
// shared by both backends, and the CPU loops (the reference the CUDA kernels
// are checked against). The host layer (src/ops/along_dim.hpp) has already laid the
// input out as a contiguous (outer, n, inner) block in the op's dtype; the op
// runs along n.
#pragma once
#include <cstdint>

#include "ops/tensor_desc.hpp"

namespace ek {

struct DimPlan {
  const void *in = nullptr;  // contiguous (outer, n, inner)
  void *out = nullptr;       // contiguous (outer, n, inner); may be `in` itself (in place)
  int dtype = kF32;          // of in and out: kF16/kBF16/kF32/kF64 (kI64 for scans)
  int64_t outer = 1, n = 1, inner = 1;
};

enum SoftmaxKind : int { kSoftmax = 0, kLogSoftmax = 1 };
enum ScanKind : int { kCumSum = 0, kCumProd = 1 };
}  // namespace ek
