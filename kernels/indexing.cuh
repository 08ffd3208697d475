// CUDA backend of the indexing ops. Plain-C++ includable: no CUDA headers;
// `stream` is a cudaStream_t passed as void*. Each launcher returns a
// cudaError_t value (0 = cudaSuccess); launches are asynchronous. Semantics
// match ek::cpu (src/ops/index_plan.hpp), except that SCATTER_ADD adds with
// atomics, so float sums depend on the order the GPU happens to run them in.
#pragma once
#include <cstddef>
#include <cstdint>

#include "ops/index_plan.hpp"

namespace ek {
namespace cuda {

// For each of the n index tensors, slots[k] (device memory) becomes the
// C-order position of its first entry outside [-sizes[k], sizes[k]), or
// UINT64_MAX when every entry is in range. Writes nothing else.
int find_bad_indices(const TensorDesc *index, const int64_t *sizes, int n, uint64_t *slots,
                     void *stream);

// Gather or scatter(-add) of an IndexPlan whose indices were validated, or a
// gather that checks them itself (IndexPlan::bad).
int run_index(const IndexPlan &p, void *stream);

int masked_fill(const MaskedFillPlan &p, void *stream);

// Compaction in two launches around one readback. compact_count writes the
// number of true mask bytes to workspace[0] (int64) and per-tile offsets after
// it; the host reads the count back, sizes the output, then compact_write uses
// the offsets. The mask must be 16-byte aligned.
size_t compact_workspace(int64_t n);
int compact_count(const uint8_t *mask, int64_t n, void *workspace, void *stream);
int compact_write(const CompactPlan &p, const void *workspace, void *stream);

}  // namespace cuda
}  // namespace ek
