// CPU backend of ek_where / ek_clamp / ek_lerp / ek_axpby: the reference the
// CUDA kernels are checked against (same per-element math, src/ops/ternary_plan.hpp).
#pragma once
#include "ops/ternary_plan.hpp"

namespace ek {
namespace cpu {

// 0 on success; nonzero when a descriptor is invalid, an operand's shape
// differs from out's (broadcasts are already stride 0) or op/compute is unknown.
// threads: as cpu::unary's (cpu/elementwise.hpp).
int ternary(const tern::Args &args, int threads = 1);

}  // namespace cpu
}  // namespace ek
