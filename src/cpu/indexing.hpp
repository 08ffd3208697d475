// CPU loops of the indexing plans: the reference the CUDA kernels in
// kernels/indexing.cu are checked against.
#pragma once
#include "ops/index_plan.hpp"

namespace ek {
namespace cpu {

// C-order position of the first entry of index outside [-size, size), or -1.
int64_t first_bad_index(const TensorDesc &index, int64_t size);

// Each returns 0 on success, nonzero for an invalid plan.
int run_index(const IndexPlan &p, int threads = 1);  // threads: as cpu::unary's
int masked_fill(const MaskedFillPlan &p);
int64_t count_true(const uint8_t *mask, int64_t n);
int compact_write(const CompactPlan &p);

}  // namespace cpu
}  // namespace ek
