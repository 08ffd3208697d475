// CUDA launchers of the elementwise ops. Plain-C++ includable: no CUDA headers.
#pragma once
#include "ops/elementwise_plan.hpp"

namespace ek {
namespace cuda {
// CUDA launchers; return a cudaError_t value (0 = success), asynchronous on
// stream (a cudaStream_t). Layouts: any strides; out may alias an input exactly.
int unary(const ew::Args &args, void *stream);
int binary(const ew::Args &args, void *stream);
}  // namespace cuda
}  // namespace ek
