// The CPU backend's table (src/core/backend.hpp): the loops of src/cpu/, which
// return 0 or nonzero for a plan they cannot run (a bug, hence INTERNAL).
#include <atomic>

#include "core/backend.hpp"
#include "cpu/blas.hpp"
#include "cpu/complex.hpp"
#include "cpu/copy.hpp"
#include "cpu/creation.hpp"
#include "cpu/elementwise.hpp"
#include "cpu/indexing.hpp"
#include "cpu/matmul.hpp"
#include "cpu/random.hpp"
#include "cpu/reduce.hpp"
#include "cpu/softmax_scan.hpp"
#include "cpu/sort.hpp"
#include "cpu/ternary.hpp"
#include "core/internal.hpp"

namespace ek {
namespace {

// The context's num_threads, resolved at creation and fixed since (no lock).
int threads(ek_context ctx) { return ctx ? static_cast<int>(ctx->config.num_threads) : 1; }

ek_status copy(ek_context ctx, ek_stream, const TensorDesc &dst, const TensorDesc &src) {
  EK_CHECK(cpu::copy(dst, src, nullptr, threads(ctx)) == 0, EK_ERROR_INTERNAL, "cpu copy rejected its descriptors");
  return EK_SUCCESS;
}

ek_status fill(ek_context, ek_stream, const TensorDesc &d, uint64_t elem) {
  EK_CHECK(cpu::fill(d, elem) == 0, EK_ERROR_INTERNAL, "cpu fill rejected its descriptor");
  return EK_SUCCESS;
}

ek_status arange(ek_context, ek_stream, const TensorDesc &d, const RangePlan &p) {
  EK_CHECK(cpu::arange(d, p) == 0, EK_ERROR_INTERNAL,
           "cpu arange rejected its descriptor");
  return EK_SUCCESS;
}

ek_status unary(ek_context ctx, ek_stream, const ew::Args &g) {
  EK_CHECK(cpu::unary(g, threads(ctx)) == 0, EK_ERROR_INTERNAL,
           "cpu elementwise loop rejected its descriptors");
  return EK_SUCCESS;
}

ek_status binary(ek_context ctx, ek_stream, const ew::Args &g) {
  EK_CHECK(cpu::binary(g, threads(ctx)) == 0, EK_ERROR_INTERNAL,
           "cpu elementwise loop rejected its descriptors");
  return EK_SUCCESS;
}

ek_status ternary(ek_context ctx, ek_stream, const tern::Args &g) {
  EK_CHECK(cpu::ternary(g, threads(ctx)) == 0, EK_ERROR_INTERNAL, "cpu loop rejected its descriptors");
  return EK_SUCCESS;
}

ek_status complex_elementwise(ek_context ctx, ek_stream, const cx::Args &g) {
  EK_CHECK(cpu::complex_elementwise(g, threads(ctx)) == 0, EK_ERROR_INTERNAL,
           "cpu complex loop rejected its descriptors");
  return EK_SUCCESS;
}

ek_status random(ek_context, ek_stream, const rng::Params &g, const TensorDesc &t) {
  EK_CHECK(cpu::random(g, t) == 0, EK_ERROR_INTERNAL, "cpu random loop rejected its descriptor");
  return EK_SUCCESS;
}

ek_status reduce(ek_context ctx, ek_stream, const ReducePlan &p) {
  EK_CHECK(cpu::reduce(p, threads(ctx)) == 0, EK_ERROR_INTERNAL, "cpu reduce rejected its plan");
  return EK_SUCCESS;
}

ek_status softmax(ek_context ctx, ek_stream, const DimPlan &p, int kind) {
  EK_CHECK(cpu::softmax(p, kind, threads(ctx)) == 0, EK_ERROR_INTERNAL, "cpu softmax rejected its plan");
  return EK_SUCCESS;
}

ek_status scan(ek_context ctx, ek_stream, const DimPlan &p, int kind) {
  EK_CHECK(cpu::scan(p, kind, threads(ctx)) == 0, EK_ERROR_INTERNAL, "cpu scan rejected its plan");
  return EK_SUCCESS;
}

// Which BLAS the CPU's products use, said once: to the first context that
// logs at debug level (a warning when EK_BLAS_LIBRARY's file did not load).
void log_blas_choice(ek_context ctx) {
  static std::atomic<bool> said{false};
  const cpu::blas::Library &lib = cpu::blas::library();
  const ek_log_level level = lib.override_failed ? EK_LOG_WARN : EK_LOG_DEBUG;
  if (!log_enabled(level, ctx->config.log_level) || said.exchange(true)) return;
  log_message(level, ctx->config.log_level, "CPU float32/float64 matrix products: BLAS %s",
              lib.what.c_str());
}

ek_status gemm(ek_context ctx, ek_stream, const GemmPlan &p) {
  log_blas_choice(ctx);
  EK_CHECK(cpu::gemm(p) == 0, EK_ERROR_INTERNAL,
           "cpu gemm rejected its plan (m=%lld n=%lld k=%lld)", static_cast<long long>(p.m),
           static_cast<long long>(p.n), static_cast<long long>(p.k));
  return EK_SUCCESS;
}

ek_status find_bad_indices(ek_context, ek_stream, const TensorDesc *index, const int64_t *sizes,
                           int n, int64_t *first) {
  for (int k = 0; k < n; ++k) first[k] = -1;
  for (int k = 0; k < n; ++k)
    if ((first[k] = cpu::first_bad_index(index[k], sizes[k])) >= 0) break;
  return EK_SUCCESS;
}

ek_status index(ek_context ctx, ek_stream, const IndexPlan &p) {
  EK_CHECK(cpu::run_index(p, threads(ctx)) == 0, EK_ERROR_INTERNAL, "the CPU index kernel rejected its plan");
  return EK_SUCCESS;
}

ek_status masked_fill(ek_context, ek_stream, const MaskedFillPlan &p) {
  EK_CHECK(cpu::masked_fill(p) == 0, EK_ERROR_INTERNAL,
           "the CPU masked_fill kernel rejected its plan");
  return EK_SUCCESS;
}

ek_status compact_count(ek_context, ek_stream, const uint8_t *mask, int64_t n, Scratch *,
                        int64_t *count) {
  *count = cpu::count_true(mask, n);
  return EK_SUCCESS;
}

ek_status compact_write(ek_context, ek_stream, const CompactPlan &p, const void *) {
  EK_CHECK(cpu::compact_write(p) == 0, EK_ERROR_INTERNAL,
           "the CPU compaction kernel rejected its plan");
  return EK_SUCCESS;
}

ek_status triangle(ek_context, ek_stream, const TrianglePlan &p) {
  EK_CHECK(cpu::triangle(p) == 0, EK_ERROR_INTERNAL, "the CPU triangle loop rejected its plan");
  return EK_SUCCESS;
}

ek_status sort(ek_context, ek_stream, const SortPlan &p) {
  EK_CHECK(cpu::sort(p) == 0, EK_ERROR_INTERNAL, "the CPU sort rejected its plan");
  return EK_SUCCESS;
}

ek_status topk(ek_context, ek_stream, const TopkPlan &p) {
  EK_CHECK(cpu::topk(p) == 0, EK_ERROR_INTERNAL, "the CPU topk rejected its plan");
  return EK_SUCCESS;
}

ek_status searchsorted(ek_context, ek_stream, const SearchPlan &p) {
  EK_CHECK(cpu::searchsorted(p) == 0, EK_ERROR_INTERNAL, "the CPU searchsorted rejected its plan");
  return EK_SUCCESS;
}

ek_status unique_count(ek_context, ek_stream, const UniquePlan &p, Scratch *, int64_t *count) {
  *count = cpu::unique_count(p);
  return EK_SUCCESS;
}

ek_status unique_write(ek_context, ek_stream, const UniquePlan &p, const void *) {
  EK_CHECK(cpu::unique_write(p) == 0, EK_ERROR_INTERNAL, "the CPU unique rejected its plan");
  return EK_SUCCESS;
}

}  // namespace

const Backend &cpu_backend() {
  static const Backend table = EK_BACKEND_TABLE();
  return table;
}

}  // namespace ek
