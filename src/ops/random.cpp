// ek_random, ek_random_set_seed, ek_random_get_state: parameter and dtype checks, the
// context's generator (seed and offset in ek_context_s, under rng_mutex), and
// the dispatch to src/cpu/random.cpp or kernels/random.cu. The mapping from
// Philox words to values lives in src/ops/random_plan.hpp and is documented in ek.h.
#include <cmath>

#include "core/backend.hpp"
#include "ops/random_plan.hpp"
#include "core/internal.hpp"
#include "ops/op_traits.hpp"
#include "core/profiler.hpp"

namespace ek {
namespace {

// Integers [lo, hi_excl) a dtype holds exactly: its range, or for floats the
// run of consecutive integers (|v| <= 2^(mantissa bits + 1)).
void integer_limits(ek_dtype dt, __int128 *lo, __int128 *hi_excl) {
  const __int128 two63 = static_cast<__int128>(1) << 63;
  switch (dt) {
    case EK_UINT8: *lo = 0, *hi_excl = 256; return;
    case EK_INT8: *lo = -128, *hi_excl = 128; return;
    case EK_INT16: *lo = -32768, *hi_excl = 32768; return;
    case EK_INT32: *lo = -(int64_t{1} << 31), *hi_excl = int64_t{1} << 31; return;
    case EK_INT64: *lo = -two63, *hi_excl = two63; return;
    case EK_UINT16: *lo = 0, *hi_excl = 65536; return;
    case EK_UINT32: *lo = 0, *hi_excl = int64_t{1} << 32; return;
    case EK_UINT64: *lo = 0, *hi_excl = two63 * 2; return;
    case EK_FLOAT16: *lo = -2048, *hi_excl = 2049; return;
    case EK_BFLOAT16: *lo = -256, *hi_excl = 257; return;
    case EK_FLOAT32: *lo = -(int64_t{1} << 24), *hi_excl = (int64_t{1} << 24) + 1; return;
    default: *lo = -(int64_t{1} << 53), *hi_excl = int64_t{1} << 53; return;  // float64
  }
}

// An integral scalar exactly; floats beyond +-2^100 (outside every dtype) clamp there.
__int128 scalar_to_int128(const ek_scalar &v) {
  switch (raw_enum(v.kind)) {
    case EK_SCALAR_UINT64: return static_cast<__int128>(v.u);
    case EK_SCALAR_FLOAT64:
      return static_cast<__int128>(v.f > 0x1p100 ? 0x1p100 : (v.f < -0x1p100 ? -0x1p100 : v.f));
    default: return v.i;
  }
}

// Exact in integers, whatever the bounds' kinds (int64 bounds beyond 2^53 included).
ek_status randint_range(const ek_scalar &a, const ek_scalar &b, ek_dtype dt, rng::Params *g) {
  const std::string as = format_scalar(a), bs = format_scalar(b);
  EK_CHECK(scalar_is_integral(a) && scalar_is_integral(b), EK_ERROR_INVALID_ARGUMENT,
           "randint bounds must be integers, got [%s, %s)", as.c_str(), bs.c_str());
  const __int128 ia = scalar_to_int128(a), ib = scalar_to_int128(b);
  EK_CHECK(ib > ia, EK_ERROR_INVALID_ARGUMENT, "randint needs b > a, got [%s, %s)", as.c_str(),
           bs.c_str());
  __int128 lo = 0, hi_excl = 0;
  integer_limits(dt, &lo, &hi_excl);
  EK_CHECK(ia >= lo && ib <= hi_excl, EK_ERROR_INVALID_ARGUMENT,
           "randint range [%s, %s) does not fit %s (integers in [%.17g, %.17g))", as.c_str(),
           bs.c_str(), ek_dtype_name(dt), static_cast<double>(lo), static_cast<double>(hi_excl));
  g->first = static_cast<int64_t>(static_cast<uint64_t>(ia));  // uint64's upper half: its bits
  g->span = static_cast<uint64_t>(ib - 1 - ia);
  g->a = static_cast<double>(ia);
  g->b = static_cast<double>(ib);
  return EK_SUCCESS;
}

ek_status check_params(ek_random_dist dist, const ek_scalar &sa, const ek_scalar &sb, ek_dtype dt,
                       rng::Params *g) {
  EK_FORWARD(check_scalar(sa, "a"));
  EK_FORWARD(check_scalar(sb, "b"));
  const double a = scalar_to_double(sa), b = scalar_to_double(sb);
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
      return randint_range(sa, sb, dt, g);
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

EK_API ek_status ek_random(ek_stream stream, ek_random_dist dist, ek_scalar a, ek_scalar b,
                           const ek_philox_state *state, ek_tensor t) {
  EK_API_ENTRY;
  EK_CHECK_TENSOR(t);
  if (state) EK_CHECK_STRUCT(state, ek_philox_state);
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
  const auto n = static_cast<uint64_t>(tensor_numel(t));
  if (!state && stream_capturing(s)) {
    std::lock_guard<std::mutex> lock(ctx->rng_mutex);
    g.seed = ctx->rng_seed;  // the seed is captured; each replay advances the offset
    EK_FORWARD(capture_random(s, n, &g.offset, &g.base));
  } else {
    take_counters(ctx, state, n, &g);
  }
  return launch(ctx, s, g, tensor_desc(t));
}

EK_API ek_status ek_random_set_seed(ek_context ctx, uint64_t seed) {
  EK_API_ENTRY;
  EK_CHECK_CONTEXT(ctx);
  std::lock_guard<std::mutex> lock(ctx->rng_mutex);
  ctx->rng_seed = seed;
  ctx->rng_offset = 0;
  return EK_SUCCESS;
}

EK_API ek_status ek_random_get_state(ek_context ctx, ek_philox_state *state) {
  EK_API_ENTRY;
  EK_CHECK_CONTEXT(ctx);
  EK_CHECK_NULL(state);
  EK_CHECK_STRUCT(state, ek_philox_state);
  ek_philox_state st{};
  {
    std::lock_guard<std::mutex> lock(ctx->rng_mutex);
    st.seed = ctx->rng_seed;
    st.offset = ctx->rng_offset;
  }
  write_struct(state, st, state->struct_size);
  return EK_SUCCESS;
}

}  // extern "C"
