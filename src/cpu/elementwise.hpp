// CPU backend of the elementwise ops: the reference the CUDA kernels are
// checked against. Same per-element math (src/ops/elementwise_plan.hpp), same
// compute type, so both backends round identically up to libm differences.
#pragma once
#include "ops/elementwise_plan.hpp"

namespace ek {
namespace cpu {

// Both return 0 on success, nonzero when a descriptor is invalid or the
// operand shapes differ from out's (broadcasts are already stride 0).
// threads: cpu/thread_pool.hpp (the contiguous fast paths of large ops use
// up to that many; results do not depend on it).
int unary(const ew::Args &args, int threads = 1);
int binary(const ew::Args &args, int threads = 1);

}  // namespace cpu
}  // namespace ek
