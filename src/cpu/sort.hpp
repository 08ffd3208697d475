// CPU loops of the sorting and searching ops: the reference the CUDA kernels
// (kernels/sort.cu) are checked against, over the same keys (src/ops/sort_plan.hpp).
#pragma once
#include "ops/sort_plan.hpp"

namespace ek {
namespace cpu {

// 0 on success, nonzero for an invalid plan.
int sort(const SortPlan &p);
int topk(const TopkPlan &p);
int searchsorted(const SearchPlan &p);
int64_t unique_count(const UniquePlan &p);
int unique_write(const UniquePlan &p);

}  // namespace cpu
}  // namespace ek
