// CPU loops of the reductions: the reference the CUDA kernels are checked
// against.
#pragma once
#include "ops/reduce_plan.hpp"

namespace ek {
namespace cpu {

// Runs the plan; 0 on success, nonzero for an invalid plan. threads: as
// cpu::unary's (cpu/elementwise.hpp); the lines of a large reduction split
// over them, and a single long float sum splits along pairwise summation's
// own tree, so results are the same for every thread count.
int reduce(const ReducePlan &p, int threads = 1);

}  // namespace cpu
}  // namespace ek
