// ek_random, ek_manual_seed, ek_random_state: parameter and dtype checks, the
// context's generator (seed and offset in ek_context_s, under rng_mutex), and
// the dispatch to src/cpu/random.cpp or kernels/random.cu. The mapping from
// Philox words to values lives in kernels/random.cuh and is documented in ek.h.
#include <cmath>

#include "backend.hpp"
#include "cpu/random.hpp"
#include "internal.hpp"
#include "op_traits.hpp"
#include "profiler.hpp"

namespace ek {
namespace {

// Integers [lo, hi_excl) a dtype holds exactly: its range, or for floats the
// run of consecutive integers (|v| <= 2^(mantissa bits + 1)).
void integer_limits(ek_dtype dt, double *lo, double *hi_excl) {
  switch (dt) {
    case EK_UINT8: *lo = 0, *hi_excl = 256; return;
    case EK_INT8: *lo = -128, *hi_excl = 128; return;
    case EK_INT16: *lo = -32768, *hi_excl = 32768; return;
    case EK_INT32: *lo = -0x1p31, *hi_excl = 0x1p31; return;
    case EK_INT64: *lo = -0x1p63, *hi_excl = 0x1p63; return;
    case EK_FLOAT16: *lo = -2048, *hi_excl = 2049; return;
    case EK_BFLOAT16: *lo = -256, *hi_excl = 257; return;
    case EK_FLOAT32: *lo = -0x1p24, *hi_excl = 0x1p24 + 1; return;
    default: *lo = -0x1p53, *hi_excl = 0x1p53; return;  // float64 (2^53 + 1 is not a double)
  }
}

ek_status randint_range(double a, double b, ek_dtype dt, rng::Params *g) {
  EK_CHECK(std::isfinite(a) && std::isfinite(b) && a == std::trunc(a) && b == std::trunc(b),
           EK_ERROR_INVALID_ARGUMENT, "randint bounds must be integers, got [%g, %g)", a, b);
  EK_CHECK(b > a, EK_ERROR_INVALID_ARGUMENT, "randint needs b > a, got [%.17g, %.17g)", a, b);
  double lo = 0, hi_excl = 0;
  integer_limits(dt, &lo, &hi_excl);
  EK_CHECK(a >= lo && b <= hi_excl, EK_ERROR_INVALID_ARGUMENT,
           "randint range [%.17g, %.17g) does not fit %s (integers in [%.17g, %.17g))", a, b, ek_dtype_name(dt),
           lo, hi_excl);
  g->first = static_cast<int64_t>(a);
  const int64_t last = b == 0x1p63 ? INT64_MAX : static_cast<int64_t>(b) - 1;
  g->span = static_cast<uint64_t>(last) - static_cast<uint64_t>(g->first);
  return EK_SUCCESS;
}

ek_status check_params(ek_random_dist dist, double a, double b, ek_dtype dt, rng::Params *g) {
  g->a = a;
  g->b = b;
  switch (dist) {  // no default: -Wswitch names a distribution left out
    case EK_RANDOM_UNIFORM:
      EK_CHECK(std::isfinite(a) && std::isfinite(b) && b > a && std::isfinite(b - a), EK_ERROR_INVALID_ARGUMENT,
               "uniform needs finite a < b with a finite b - a, got [%g, %g)", a, b);
      g->width = b - a;
      return EK_SUCCESS;
    case EK_RANDOM_NORMAL:
      EK_CHECK(std::isfinite(a) && std::isfinite(b) && b >= 0, EK_ERROR_INVALID_ARGUMENT,
               "normal needs a finite mean and a finite std >= 0, got mean %g, std %g", a, b);
      return EK_SUCCESS;
    case EK_RANDOM_BERNOULLI:
      EK_CHECK(a >= 0 && a <= 1, EK_ERROR_INVALID_ARGUMENT, "bernoulli needs p in [0, 1], got %g", a);
      return EK_SUCCESS;
    case EK_RANDOM_RANDINT:
      return randint_range(a, b, dt, g);
  }
  return fail(EK_ERROR_INTERNAL, "distribution %d has no parameter check", static_cast<int>(dist));
}

// The counter block for n elements: the caller's state, or the context's,
// whose offset then advances by n.
void take_counters(ek_context ctx, const ek_philox_state *state, uint64_t n, rng::Params *g) {
  if (state) {
    g->seed = state->seed;
    g->offset = state->offset;
    return;
  }
  std::lock_guard<std::mutex> lock(ctx->rng_mutex);
  g->seed = ctx->rng_seed;
  g->offset = ctx->rng_offset;
  ctx->rng_offset += n;  // wraps modulo 2^64, as the counter does
}

ek_status launch(ek_context ctx, ek_stream s, const rng::Params &g, const TensorDesc &t) {
  if (desc_numel(t) == 0) return EK_SUCCESS;
  return ctx->backend->random(ctx, s, g, t);
}

}  // namespace
}  // namespace ek

using namespace ek;

extern "C" {

EK_API ek_status ek_random(ek_stream stream, ek_random_dist dist, double a, double b,
                           const ek_philox_state *state, ek_tensor t) {
  EK_API_ENTRY;
  EK_CHECK_TENSOR(t);
  const int idist = raw_enum(dist);
  const ops::RandomTraits *traits = ops::random_traits(idist);
  EK_CHECK(traits, EK_ERROR_INVALID_ARGUMENT, "unknown distribution %d", idist);
  EK_PROFILE_OP(random_op_name(idist), t->storage->ctx, stream, EK_IN(), EK_OUT(&t));
  EK_FORWARD(ops::check_accepts(random_op_name(idist), traits->accepts, t->dtype));
  rng::Params g{};
  g.dist = idist;
  EK_FORWARD(check_params(traits->op, a, b, t->dtype, &g));
  EK_CHECK(!writes_overlap(t), EK_ERROR_INVALID_ARGUMENT,
           "t is a broadcast view (a stride-0 dim): its elements alias");
  ek_context ctx = t->storage->ctx;
  ek_stream s = nullptr;
  EK_FORWARD(resolve_stream(ctx, stream, &s));
  take_counters(ctx, state, static_cast<uint64_t>(tensor_numel(t)), &g);
  return launch(ctx, s, g, tensor_desc(t));
}

EK_API ek_status ek_manual_seed(ek_context ctx, uint64_t seed) {
  EK_API_ENTRY;
  EK_CHECK_CONTEXT(ctx);
  std::lock_guard<std::mutex> lock(ctx->rng_mutex);
  ctx->rng_seed = seed;
  ctx->rng_offset = 0;
  return EK_SUCCESS;
}

EK_API ek_status ek_random_state(ek_context ctx, ek_philox_state *state) {
  EK_API_ENTRY;
  EK_CHECK_CONTEXT(ctx);
  EK_CHECK_NULL(state);
  std::lock_guard<std::mutex> lock(ctx->rng_mutex);
  state->seed = ctx->rng_seed;
  state->offset = ctx->rng_offset;
  return EK_SUCCESS;
}

}  // extern "C"
