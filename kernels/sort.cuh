// CUDA backend of the sorting and searching ops. Plain-C++ includable: no
// CUDA headers; `stream` is a cudaStream_t passed as void*. Each launcher
// returns a cudaError_t value (0 = cudaSuccess); launches are asynchronous.
// Results match ek::cpu (src/cpu/sort.cpp): both order by sortkey::key_of, and
// every sort here is a CUB radix sort (stable); topk's choice among elements
// equal to the k-th is unspecified (atomics), as ek.h says.
#pragma once
#include <cstddef>
#include <cstdint>

#include "ops/sort_plan.hpp"

namespace ek {
namespace cuda {

// Rows longer than this are not supported by the CUDA sorts (int32 positions).
constexpr int64_t kMaxSortRow = INT32_MAX;

// Bytes of device scratch each launcher needs (CUB's temporary storage, the
// keys and positions it sorts, and the small per-row state of topk).
size_t sort_workspace(const SortPlan &p);
int sort(const SortPlan &p, void *workspace, void *stream);

size_t topk_workspace(const TopkPlan &p);
int topk(const TopkPlan &p, void *workspace, void *stream);

int searchsorted(const SearchPlan &p, void *stream);

// unique_count leaves the number of distinct elements at workspace[0]
// (int64) for the host to read back; unique_write then uses the rest.
size_t unique_workspace(const UniquePlan &p);
int unique_count(const UniquePlan &p, void *workspace, void *stream);
int unique_write(const UniquePlan &p, const void *workspace, void *stream);

}  // namespace cuda
}  // namespace ek
