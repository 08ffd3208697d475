// CPU loops of the reductions: the reference the CUDA kernels are checked
// against.
#pragma once
#include "ops/reduce_plan.hpp"

namespace ek {
namespace cpu {

// Runs the plan; 0 on success, nonzero for an invalid plan.
int reduce(const ReducePlan &p);

}  // namespace cpu
}  // namespace ek
