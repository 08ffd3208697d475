// CUDA launcher of the ternary ops. Plain-C++ includable: no CUDA headers.
#pragma once
#include "ops/ternary_plan.hpp"

namespace ek {
namespace cuda {
// CUDA launcher; returns a cudaError_t value (0 = success), asynchronous on
// stream (a cudaStream_t). Any strides; out may alias an operand exactly.
int ternary(const tern::Args &args, void *stream);
}  // namespace cuda
}  // namespace ek
