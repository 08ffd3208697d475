// CPU matrix products: a BLAS loaded at run time, or loops.
#pragma once
#include "ops/gemm_plan.hpp"

namespace ek {
namespace cpu {

// float32/float64 plans run on the BLAS that cpu/blas.hpp loads, when one
// does; the rest on gemm_loops. 0 on success, nonzero for an invalid plan.
int gemm(const GemmPlan &p);

// Cache-blocked loops. f16/bf16 accumulate in f32 (as cuBLAS's 32F compute
// type), f32 and f64 in f64 (tighter than BLAS's f32). Same result codes.
int gemm_loops(const GemmPlan &p);

}  // namespace cpu
}  // namespace ek
