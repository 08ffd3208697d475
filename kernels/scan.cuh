// CUDA backend of the inclusive scans (cumsum, cumprod). Plain-C++ includable:
// no CUDA headers; `stream` is a cudaStream_t passed as void*. Returns a
// cudaError_t value (0 = cudaSuccess); launches are asynchronous. Semantics
// match ek::cpu::scan (src/ops/dim_plan.hpp) except that f16/bf16/f32
// accumulate in f32 (the CPU reference in f64): a prefix differs from the
// CPU's by about 1e-6 x the sum of |x| over it (the order is a tree within a
// tile and sequential across tiles). int64 wraps around, exactly as the CPU.
// The launch shape depends only on the plan, so results are reproducible.
#pragma once
#include <cstddef>

#include "ops/dim_plan.hpp"

namespace ek {
namespace cuda {

// Bytes of device scratch scan() needs: the totals of the parts of lines
// split over several warps/threads (0 when no line is split).
size_t scan_workspace(const DimPlan &p);

// Paths: inner == 1 (rows longer than 32) -> a warp per row, tiles of 32 x 16
// elements scanned with shuffles; otherwise a thread per column (coalesced
// along inner), sequential along n. Lines too few to fill the GPU are split
// in parts: part totals, their scan (the same kernels), then each part again
// with its carry-in. kind: kCumSum or kCumProd.
int scan(const DimPlan &p, int kind, void *workspace, void *stream);

}  // namespace cuda
}  // namespace ek
