// CUDA integer matrix products (uint8, int8, int16, int32, int64): our own
// tiled kernel, since cuBLAS has no wrapping integer GEMM for these types.
// Plain-C++ includable; returns a cudaError_t value, launches asynchronously.
// Semantics match the CPU loops (src/cpu/matmul.cpp): exact modulo 2^bits.
#pragma once

#include "ops/gemm_plan.hpp"

namespace ek {
namespace cuda {

int int_gemm(const GemmPlan &p, void *stream);

}  // namespace cuda
}  // namespace ek
