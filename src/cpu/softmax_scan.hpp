// CPU loops of softmax and the scans along one dim: the reference the CUDA
// kernels are checked against.
#pragma once
#include "ops/dim_plan.hpp"

namespace ek {
namespace cpu {

// Compute in double (int64 with two's-complement wrap-around for kI64 scans),
// except softmax of contiguous float32 rows (cpu/simd.hpp: SoftmaxF32Fn, exp
// in float); 0 on success, nonzero for an invalid plan. threads: as
// cpu::unary's; whole lines per thread, so results never depend on it.
int softmax(const DimPlan &p, int kind, int threads = 1);
int scan(const DimPlan &p, int kind, int threads = 1);

}  // namespace cpu
}  // namespace ek
