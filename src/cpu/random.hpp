// CPU backend of ek_random: the same per-element function as the CUDA kernel
// (src/ops/random_plan.hpp), so both produce the same bits.
#pragma once
#include "ops/random_plan.hpp"

namespace ek {
namespace cpu {

// Fills t (any strides) in C order; 0 on success, nonzero for an invalid descriptor.
int random(const rng::Params &params, const TensorDesc &t);

}  // namespace cpu
}  // namespace ek
