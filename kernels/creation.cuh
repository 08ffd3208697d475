// CUDA backend of the creation ops that need their own kernel (tril, triu).
// Plain-C++ includable; returns a cudaError_t value, launches asynchronously.
// Semantics match ek::cpu (src/cpu/creation.hpp).
#pragma once

#include "ops/triangle_plan.hpp"

namespace ek {
namespace cuda {

int triangle(const TrianglePlan &p, void *stream);

}  // namespace cuda
}  // namespace ek
