// CPU loop of the complex elementwise ops.
#pragma once
#include "ops/complex_plan.hpp"

namespace ek {
namespace cpu {
// 0 on success, nonzero for invalid descriptors; out may alias an input exactly.
int complex_elementwise(const cx::Args &g, int threads);
}  // namespace cpu
}  // namespace ek
