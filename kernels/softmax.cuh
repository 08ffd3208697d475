// CUDA backend of softmax / log_softmax. Plain-C++ includable: no CUDA
// headers; `stream` is a cudaStream_t passed as void*. Returns a cudaError_t
// value (0 = cudaSuccess); launches are asynchronous. Semantics match
// ek::cpu::softmax (src/ops/dim_plan.hpp); f16/bf16/f32 compute in f32
// (exp through the fast __expf: relative error about 1e-6 next to the CPU's
// double), f64 in f64. The launch shape depends only on the plan, and partial
// results combine in a fixed order, so results are bitwise reproducible.
#pragma once
#include <cstddef>

#include "ops/dim_plan.hpp"

namespace ek {
namespace cuda {

// Bytes of device scratch softmax() needs (0 except for very long rows that
// are too few to fill the GPU, which are split over several blocks).
size_t softmax_workspace(const DimPlan &p);

// Paths: inner == 1 -> each row held in registers by a group of 1..1024
// threads (16-byte loads; global memory read once, one launch); rows longer
// than 1024 threads x 8 loads -> a block per row (or per part of a row) that
// reads it twice. inner > 1 -> threads along inner (coalesced), the rows split
// over threadIdx.y. kind: kSoftmax or kLogSoftmax.
int softmax(const DimPlan &p, int kind, void *workspace, void *stream);

}  // namespace cuda
}  // namespace ek
