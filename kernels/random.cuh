// CUDA launcher of ek_random. Plain-C++ includable: no CUDA headers.
#pragma once
#include "ops/random_plan.hpp"

namespace ek {
namespace cuda {
// Fills t (any strides, no aliasing elements) on stream (a cudaStream_t);
// returns a cudaError_t value (0 = success), asynchronous.
int random(const rng::Params &params, const TensorDesc &t, void *stream);
}  // namespace cuda
}  // namespace ek
