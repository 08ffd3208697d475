// CPU loops of the matrix products: the reference cuBLAS is checked against.
#pragma once
#include "ops/gemm_plan.hpp"

namespace ek {
namespace cpu {

// Cache-blocked loops. f16/bf16 accumulate in f32 (as cuBLAS's 32F compute
// type), f32 and f64 in f64 (the reference: tighter than cuBLAS's f32).
// 0 on success, nonzero for an invalid plan.
int gemm(const GemmPlan &p);

}  // namespace cpu
}  // namespace ek
