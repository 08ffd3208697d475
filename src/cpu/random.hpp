// CPU backend of ek_random: the same per-element function as the CUDA kernel
// (kernels/random.cuh), so both produce the same bits.
#pragma once
#include "random.cuh"

namespace ek {
namespace cpu {

// Fills t (any strides) in C order; 0 on success, nonzero for an invalid descriptor.
int random(const rng::Params &params, const TensorDesc &t);

}  // namespace cpu
}  // namespace ek
