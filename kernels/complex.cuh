// CUDA launcher of the complex elementwise ops. Plain-C++ includable.
#pragma once
#include "ops/complex_plan.hpp"

namespace ek {
namespace cuda {
// Returns a cudaError_t value, asynchronous on stream; out may alias an input exactly.
int complex_elementwise(const cx::Args &g, void *stream);
}  // namespace cuda
}  // namespace ek
