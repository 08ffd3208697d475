// The seam between the ops and the devices: the launchers each backend
// provides, as one table per backend (src/cpu/backend_cpu.cpp from src/cpu/,
// kernels/backend_cuda.cpp from kernels/ and cuBLAS, built only with CUDA). A
// context picks its table once, when it is created (ek_context_s::backend);
// the op files check arguments and build plans, then call
// ctx->backend->entry(ctx, s, ...), and never ask which build they are in.
//
// Every entry returns EK_SUCCESS or sets the error. The CPU ignores ctx and s;
// CUDA makes ctx's device current, takes its workspace from the pool on s and
// checks the launch. Callers skip empty work. A new op adds one entry here
// and one in each backend file.
#pragma once

#include <cstdint>

#include "ek.h"
#include "ops/tensor_desc.hpp"

namespace ek {

namespace ew {
struct Args;
}
namespace tern {
struct Args;
}
namespace cx {
struct Args;
}
namespace rng {
struct Params;
}
struct RangePlan;
struct TrianglePlan;
struct ReducePlan;
struct DimPlan;
struct GemmPlan;
struct IndexPlan;
struct MaskedFillPlan;
struct CompactPlan;
struct SortPlan;
struct TopkPlan;
struct SearchPlan;
struct UniquePlan;
class Scratch;

struct Backend {
  // ---- data movement (copy_ops.cpp)
  ek_status (*copy)(ek_context ctx, ek_stream s, const TensorDesc &dst, const TensorDesc &src);
  ek_status (*fill)(ek_context ctx, ek_stream s, const TensorDesc &dst, uint64_t elem);
  // arange and linspace: element k of dst (in C order) is range_scalar(p, k).
  ek_status (*arange)(ek_context ctx, ek_stream s, const TensorDesc &dst, const RangePlan &p);
  // ---- elementwise (elementwise.cpp, ternary.cpp, random.cpp)
  ek_status (*unary)(ek_context ctx, ek_stream s, const ew::Args &g);
  ek_status (*binary)(ek_context ctx, ek_stream s, const ew::Args &g);
  ek_status (*ternary)(ek_context ctx, ek_stream s, const tern::Args &g);
  ek_status (*complex_elementwise)(ek_context ctx, ek_stream s, const cx::Args &g);  // ops/complex_plan.hpp
  ek_status (*random)(ek_context ctx, ek_stream s, const rng::Params &g, const TensorDesc &t);
  // ---- along dims (reduce.cpp, softmax.cpp, scan.cpp) and products (matmul.cpp)
  ek_status (*reduce)(ek_context ctx, ek_stream s, const ReducePlan &p);
  ek_status (*softmax)(ek_context ctx, ek_stream s, const DimPlan &p, int kind);
  ek_status (*scan)(ek_context ctx, ek_stream s, const DimPlan &p, int kind);
  ek_status (*gemm)(ek_context ctx, ek_stream s, const GemmPlan &p);
  // ---- indexing (indexing.cpp)
  // first[k]: the C-order position of the first index outside
  // [-sizes[k], sizes[k]) in index[k], or -1; returns when first is written.
  // Only the first k with first[k] >= 0 counts: later ones may be left -1.
  ek_status (*find_bad_indices)(ek_context ctx, ek_stream s, const TensorDesc *index,
                                const int64_t *sizes, int n, int64_t *first);
  ek_status (*index)(ek_context ctx, ek_stream s, const IndexPlan &p);
  ek_status (*masked_fill)(ek_context ctx, ek_stream s, const MaskedFillPlan &p);
  // The number of true bytes in mask[0, n), returned once known; work keeps
  // what compact_write needs (allocated here, on s).
  ek_status (*compact_count)(ek_context ctx, ek_stream s, const uint8_t *mask, int64_t n,
                             Scratch *work, int64_t *count);
  ek_status (*compact_write)(ek_context ctx, ek_stream s, const CompactPlan &p, const void *work);
  // ---- creation (creation.cpp)
  ek_status (*triangle)(ek_context ctx, ek_stream s, const TrianglePlan &p);
  // ---- sorting and searching (sort.cpp)
  ek_status (*sort)(ek_context ctx, ek_stream s, const SortPlan &p);
  ek_status (*topk)(ek_context ctx, ek_stream s, const TopkPlan &p);
  ek_status (*searchsorted)(ek_context ctx, ek_stream s, const SearchPlan &p);
  // The number of distinct elements of p.sorted, returned once known; work
  // keeps what unique_write needs (allocated here, on s).
  ek_status (*unique_count)(ek_context ctx, ek_stream s, const UniquePlan &p, Scratch *work,
                            int64_t *count);
  ek_status (*unique_write)(ek_context ctx, ek_stream s, const UniquePlan &p, const void *work);
};

// Every entry of Backend, once: each backend file builds its table with
// EK_BACKEND_TABLE() from its own functions of the same names, so an entry
// one backend lacks does not compile, and the static_assert keeps the list
// and the struct the same length.
#define EK_BACKEND_ENTRIES(X)                                                             \
  X(copy) X(fill) X(arange) X(unary) X(binary) X(ternary) X(complex_elementwise) X(random) X(reduce) X(softmax) \
  X(scan) X(gemm) X(find_bad_indices) X(index) X(masked_fill) X(compact_count)            \
  X(compact_write)                                                                        \
  X(triangle)                                                                             \
  X(sort) X(topk) X(searchsorted) X(unique_count) X(unique_write)
#define EK_BACKEND_COUNT_(name) +1
static_assert(sizeof(Backend) == (0 EK_BACKEND_ENTRIES(EK_BACKEND_COUNT_)) * sizeof(void (*)()),
              "EK_BACKEND_ENTRIES names every entry of Backend");
#define EK_BACKEND_SET_(name) table.name = name;
#define EK_BACKEND_TABLE()                     \
  [] {                                         \
    Backend table{};                           \
    EK_BACKEND_ENTRIES(EK_BACKEND_SET_)        \
    return table;                              \
  }()

const Backend &cpu_backend();
const Backend *cuda_backend();  // nullptr when libek was built without CUDA

}  // namespace ek
