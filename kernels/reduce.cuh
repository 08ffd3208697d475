// CUDA backend of the reductions. Plain-C++ includable: no CUDA headers;
// `stream` is a cudaStream_t passed as void*. Returns a cudaError_t value
// (0 = cudaSuccess); launches are asynchronous. Semantics match ek::cpu::reduce
// (src/ops/reduce_plan.hpp), except that f16/bf16/f32 accumulate in f32 (the CPU
// reference accumulates in f64). Results are bitwise reproducible: the launch
// shape depends only on the plan (never on the device), and every partial
// result is combined in a fixed tree order, without atomics.
#pragma once
#include <cstddef>

#include "ops/reduce_plan.hpp"

namespace ek {
namespace cuda {

// Bytes of device scratch reduce() needs for the plan (0 when none).
size_t reduce_workspace(const ReducePlan &p);

// Plans with few outputs finish in one launch: the last block to finish
// combines the partials, counted in `tail`, a per-stream scratch of this many
// bytes whose first word is zero between launches (the kernel resets it).
constexpr size_t kTailScratchBytes = 64 * 1024;

// Paths: inner == 1 -> row kernel (a warp per short row, a block per long row,
// 16-byte loads, warp shuffles); inner > 1 -> column kernel (a thread per 1-4
// adjacent columns, up to 16-byte loads, rows split over threadIdx.y). Either
// splits a long reduction over several blocks whose partials (workspace) a
// second kernel combines in order, or, with few outputs, the last block does
// (tail, kTailScratchBytes): the full reduction is then one launch.
int reduce(const ReducePlan &p, void *workspace, void *tail, void *stream);

}  // namespace cuda
}  // namespace ek
