// CPU backend of the creation ops that need their own loop (tril, triu);
// returns 0 on success, nonzero for a plan it cannot run.
#pragma once

#include "ops/triangle_plan.hpp"

namespace ek {
namespace cpu {

int triangle(const TrianglePlan &p);

}  // namespace cpu
}  // namespace ek
