// CUDA float32 matrix products too small for cuBLAS to fill the GPU:
// our own kernel, one launch. cuBLAS runs [64, 512] x [512, 512] in f32 as a
// split-k product and a reduction kernel, two launches; the product of
// bench/graph_step's layers is launch-bound, not flop- or byte-bound.
// Plain-C++ includable; returns a cudaError_t value, launches asynchronously.
#pragma once

#include <cstddef>

#include "ops/gemm_plan.hpp"

namespace ek {
namespace cuda {

// Whether small_gemm runs p: float32 without TF32; depth k short enough that
// a tile's whole slice of both operands fits in shared memory (k <= 612); at
// least 16 rows and columns, and at most 256 tiles of 16 x 16 in all (where
// cuBLAS is launch-bound on it).
bool small_gemm_fits(const GemmPlan &p);

// Enqueues p on stream (a cudaStream_t); p must satisfy small_gemm_fits
// (the backend's dispatch has just asked).
int small_gemm(const GemmPlan &p, void *stream);

}  // namespace cuda
}  // namespace ek
