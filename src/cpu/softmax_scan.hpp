// CPU loops of softmax and the scans along one dim: the reference the CUDA
// kernels are checked against.
#pragma once
#include "ops/dim_plan.hpp"

namespace ek {
namespace cpu {

// Compute in double (int64 with two's-complement wrap-around for kI64 scans);
// 0 on success, nonzero for an invalid plan.
int softmax(const DimPlan &p, int kind);
int scan(const DimPlan &p, int kind);

}  // namespace cpu
}  // namespace ek
