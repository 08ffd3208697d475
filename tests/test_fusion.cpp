// Automatic fusion (ek.h, the fusion section): fused results equal eager ones
// bit for bit on random chains, every boundary evaluates the pending group,
// the switches, the kernel cap, the counters and errors at the call.
#include <cstddef>
#include <cstring>
#include <random>

#include <cmath>
#include <functional>

#include "../src/core/dlpack_abi.hpp"
#include "ek_test.hpp"

using namespace ektest;

namespace {

ek_fusion_stats stats_of(ek_context c) {
  auto s = sized<ek_fusion_stats>();
  EXPECT_EQ(ek_context_get_fusion_stats(c, &s), EK_SUCCESS) << ek_last_error();
  return s;
}

std::vector<uint8_t> bytes_of(ek_tensor t) {
  ek_tensor_info info = EK_TENSOR_INFO_INIT;
  EXPECT_EQ(ek_tensor_get_info(t, &info), EK_SUCCESS);
  std::vector<uint8_t> out(info.nbytes);
  EXPECT_EQ(ek_tensor_to_host(nullptr, t, out.data(), out.size()), EK_SUCCESS) << ek_last_error();
  return out;
}

class Fusion : public DeviceTest {
 protected:
  ek_stream stream() {
    ek_stream s = nullptr;
    EXPECT_EQ(ek_context_get_default_stream(ctx, &s), EK_SUCCESS);
    return s;
  }
  void set(ek_fusion f) { ASSERT_EQ(ek_stream_set_fusion(stream(), f), EK_SUCCESS) << ek_last_error(); }
  uint64_t deferred() { return stats_of(ctx).ops_deferred; }
  uint64_t evaluated() { return stats_of(ctx).groups_evaluated; }
  // A pending group: y = relu(x * 2) + x over a fresh x; returns y (x released).
  ek_tensor pending_chain(ek_tensor x) {
    Tensor a, b;
    ek_tensor y = nullptr;
    EXPECT_EQ(ek_binary_scalar(nullptr, EK_BINARY_MUL, x, ek_scalar_float(2), 0, a.out()), EK_SUCCESS);
    EXPECT_EQ(ek_unary(nullptr, EK_UNARY_RELU, a, b.out()), EK_SUCCESS);
    EXPECT_EQ(ek_binary(nullptr, EK_BINARY_ADD, b, x, &y), EK_SUCCESS);
    return y;
  }
};

// ---------------------------------------------------------------- random chains

// A random chain over a pool of tensors of shape [4, 5] (and broadcast or
// strided views), with in-place writes and out aliasing; returns every
// pool tensor's bytes at the end.
struct Result {
  ek_dtype dtype;
  std::vector<uint8_t> bytes;
};

// Bit equality, except that a NaN equals any NaN: eager's own contiguous and
// strided CUDA kernels store different NaN payloads.
bool nan_at(ek_dtype dt, const uint8_t *p) {
  uint64_t u = 0;
  std::memcpy(&u, p, ek_dtype_size(dt));
  switch (dt) {
    case EK_FLOAT16: return (u & 0x7fff) > 0x7c00;
    case EK_BFLOAT16: return (u & 0x7fff) > 0x7f80;
    case EK_FLOAT32: return (u & 0x7fffffffu) > 0x7f800000u;
    case EK_FLOAT64: return (u & 0x7fffffffffffffffull) > 0x7ff0000000000000ull;
    default: return false;
  }
}

bool same_bits(const Result &a, const Result &b) {
  if (a.dtype != b.dtype || a.bytes.size() != b.bytes.size()) return false;
  const size_t w = ek_dtype_size(a.dtype);
  for (size_t i = 0; i < a.bytes.size(); i += w)
    if (std::memcmp(&a.bytes[i], &b.bytes[i], w) != 0 && !(nan_at(a.dtype, &a.bytes[i]) && nan_at(b.dtype, &b.bytes[i])))
      return false;
  return true;
}

std::vector<Result> run_chain(ek_context ctx, uint32_t seed, int steps) {
  std::mt19937 rng(seed);
  std::vector<ek_tensor> pool;
  auto add = [&](const Shape &shape, ek_dtype dt, double lo, double hi) {
    pool.push_back(make(ctx, shape, dt, random_values(static_cast<size_t>(numel_of(shape)), rng(), lo, hi)));
  };
  add({4, 5}, EK_FLOAT32, -3, 3);
  add({4, 5}, EK_FLOAT64, -3, 3);
  add({4, 5}, EK_FLOAT16, -3, 3);
  add({4, 5}, EK_BFLOAT16, -3, 3);
  add({4, 5}, EK_INT32, -9, 9);
  add({4, 5}, EK_INT64, -9, 9);
  add({1, 5}, EK_FLOAT32, -3, 3);  // broadcast along dim 0
  {
    ek_tensor base = make(ctx, {5, 4}, EK_FLOAT32, random_values(20, rng(), -3, 3));
    pool.push_back(transposed(base, 0, 1));  // a strided [4, 5] view
    ek_tensor_release(base);
  }
  const size_t n_inputs = pool.size();
  auto pick = [&](bool numeric) {
    for (;;) {
      ek_tensor t = pool[rng() % pool.size()];
      if (!numeric || dtype_of(t) != EK_BOOL) return t;
    }
  };
  auto full = [&](ek_tensor t) { return shape_of(t) == Shape{4, 5}; };
  const ek_unary_op unary[] = {EK_UNARY_NEG, EK_UNARY_ABS, EK_UNARY_EXP, EK_UNARY_TANH, EK_UNARY_SIGMOID,
                               EK_UNARY_RELU, EK_UNARY_SIN, EK_UNARY_SQUARE, EK_UNARY_GELU_TANH};
  const ek_binary_op binary[] = {EK_BINARY_ADD, EK_BINARY_SUB, EK_BINARY_MUL, EK_BINARY_DIV,
                                 EK_BINARY_MAXIMUM, EK_BINARY_MINIMUM, EK_BINARY_LT};
  for (int step = 0; step < steps; ++step) {
    ek_tensor out = nullptr;
    const int kind = static_cast<int>(rng() % 8);
    ek_status st = EK_SUCCESS;
    ek_tensor a = pick(true), b = pick(true);
    // Sometimes in place into a full-shaped operand of the result's dtype.
    const bool in_place = rng() % 5 == 0 && full(a) && dtype_of(a) == EK_FLOAT32 && dtype_of(b) == EK_FLOAT32;
    if (in_place) out = a;
    switch (kind) {
      case 0: st = ek_unary(nullptr, unary[rng() % 9], a, &out); break;
      case 1: case 2: st = ek_binary(nullptr, binary[rng() % 7], a, b, &out); break;
      case 3:
        st = ek_binary_scalar(nullptr, binary[rng() % 6], a, ek_scalar_float((rng() % 17) * 0.25 - 2),
                              static_cast<int>(rng() % 2), &out);
        break;
      case 4: {
        ek_tensor c = pool[rng() % pool.size()];
        st = ek_where(nullptr, c, a, b, &out);
        break;
      }
      case 5: {
        const ek_scalar lo = ek_scalar_float(-1), hi = ek_scalar_float(1.5);
        st = ek_clamp(nullptr, a, &lo, &hi, &out);
        break;
      }
      case 6:
        if (is_float(dtype_of(a)) && is_float(dtype_of(b))) st = ek_lerp(nullptr, a, b, ek_scalar_float(0.3), &out);
        else st = ek_unary(nullptr, EK_UNARY_NEG, a, &out);
        break;
      default: {
        const ek_dtype to[] = {EK_FLOAT32, EK_FLOAT16, EK_BFLOAT16, EK_FLOAT64, EK_INT32};
        st = ek_cast(nullptr, a, in_place ? EK_FLOAT32 : to[rng() % 5], &out);
        break;
      }
    }
    EXPECT_EQ(st, EK_SUCCESS) << "step " << step << ": " << ek_last_error();
    if (st == EK_SUCCESS && !in_place) pool.push_back(out);
    // Drop an intermediate now and then: the group must still produce the rest.
    if (pool.size() > n_inputs + 3 && rng() % 3 == 0) {
      const size_t k = n_inputs + rng() % (pool.size() - n_inputs - 1);
      ek_tensor_release(pool[k]);
      pool.erase(pool.begin() + static_cast<long>(k));
    }
  }
  std::vector<Result> out;
  for (ek_tensor t : pool) {
    out.push_back(Result{dtype_of(t), bytes_of(t)});
    ek_tensor_release(t);
  }
  return out;
}

TEST_P(Fusion, RandomChainsEqualEagerBitForBit) {
  for (uint32_t seed = 1; seed <= 24; ++seed) {
    set(EK_FUSION_OFF);
    const uint64_t off = deferred();
    const auto eager = run_chain(ctx, seed, 40);
    EXPECT_EQ(deferred(), off) << "fusion off defers nothing";
    for (ek_fusion mode : {EK_FUSION_ON, EK_FUSION_ROUNDED}) {
      set(mode);
      const uint64_t before = deferred();
      const auto fused = run_chain(ctx, seed, 40);
      EXPECT_GT(deferred(), before);
      ASSERT_EQ(fused.size(), eager.size());
      for (size_t k = 0; k < fused.size(); ++k) {
        // Under EK_FUSION_ON half-precision intermediates stay float32: only
        // the rounded mode promises eager's bits for every dtype.
        if (mode == EK_FUSION_ON && GetParam() == EK_CUDA) continue;
        EXPECT_TRUE(same_bits(fused[k], eager[k])) << "seed " << seed << ", tensor " << k << ", mode " << mode;
      }
    }
  }
}

TEST_P(Fusion, Float32ChainEqualsEagerUnderFusionOn) {
  // Float32 only: no half intermediates, so EK_FUSION_ON is exact too.
  auto chain = [&](ek_fusion mode) {
    set(mode);
    Tensor x(make({3, 7}, EK_FLOAT32, random_values(21, 5, -2, 2)));
    Tensor y(make({7}, EK_FLOAT32, random_values(7, 6, -2, 2)));
    Tensor a, b, c, d, e;
    EXPECT_EQ(ek_binary(nullptr, EK_BINARY_MUL, x, y, a.out()), EK_SUCCESS);
    EXPECT_EQ(ek_unary(nullptr, EK_UNARY_RELU, x, b.out()), EK_SUCCESS);
    EXPECT_EQ(ek_binary(nullptr, EK_BINARY_ADD, a, b, c.out()), EK_SUCCESS);
    EXPECT_EQ(ek_binary_scalar(nullptr, EK_BINARY_MUL, c, ek_scalar_float(0.5), 0, d.out()), EK_SUCCESS);
    EXPECT_EQ(ek_unary(nullptr, EK_UNARY_GELU, d, e.out()), EK_SUCCESS);
    return bytes_of(e);
  };
  const auto eager = chain(EK_FUSION_OFF);
  EXPECT_EQ(chain(EK_FUSION_ON), eager);
}

// ---------------------------------------------------------------- boundaries

TEST_P(Fusion, OpsStayPendingUntilABoundary) {
  set(EK_FUSION_ON);
  Tensor x(make({6}, EK_FLOAT32, {-2, -1, 0, 1, 2, 3}));
  EK_OK(ek_tensor_eval(x));  // make() casts, which defers too
  const uint64_t ev = evaluated(), d = deferred();
  Tensor y(pending_chain(x));
  EXPECT_EQ(deferred(), d + 3);
  ek_tensor_info info = EK_TENSOR_INFO_INIT;
  EK_OK(ek_tensor_get_info(y, &info));  // metadata: no evaluation
  EK_OK(ek_tensor_retain(y));
  EK_OK(ek_tensor_release(y));
  EXPECT_EQ(evaluated(), ev);
  EXPECT_EQ(to_host<float>(y), (std::vector<float>{-2, -1, 0, 3, 6, 9}));
  EXPECT_EQ(evaluated(), ev + 1);
}

// Each boundary call evaluates the group behind y exactly once.
TEST_P(Fusion, EveryBoundaryEvaluates) {
  set(EK_FUSION_ON);
  ek_stream other = nullptr;
  EK_OK(ek_stream_create(ctx, &other));
  EK_OK(ek_stream_set_fusion(other, EK_FUSION_OFF));  // its op runs at once, whatever EK_FUSION says
  ek_event event = nullptr;
  EK_OK(ek_event_create(ctx, &event));
  struct Case {
    const char *name;
    std::function<ek_status(ek_tensor x, ek_tensor y)> call;
  };
  const std::vector<Case> cases = {
      {"to_host", [](ek_tensor, ek_tensor y) { float v[6]; return ek_tensor_to_host(nullptr, y, v, sizeof v); }},
      {"get_data", [](ek_tensor, ek_tensor y) { void *p; return ek_tensor_get_data(y, &p); }},
      {"eval", [](ek_tensor, ek_tensor y) { return ek_tensor_eval(y); }},
      {"stream_flush", [&](ek_tensor, ek_tensor) { return ek_stream_flush(stream()); }},
      {"stream_synchronize", [&](ek_tensor, ek_tensor) { return ek_stream_synchronize(stream()); }},
      {"context_synchronize", [&](ek_tensor, ek_tensor) { return ek_context_synchronize(ctx); }},
      {"event_record", [&](ek_tensor, ek_tensor) { return ek_event_record(nullptr, event); }},
      {"set_fusion_off", [&](ek_tensor, ek_tensor) { return ek_stream_set_fusion(stream(), EK_FUSION_OFF); }},
      {"reduce", [](ek_tensor, ek_tensor y) {  // any (y != 0) does not join the group: sum would
         ek_tensor s = nullptr;
         ek_status st = ek_reduce(nullptr, EK_REDUCE_ANY, y, 0, nullptr, 0, &s);
         ek_tensor_release(s);
         return st;
       }},
      {"copy", [&](ek_tensor, ek_tensor y) {
         ek_tensor c = nullptr;
         const int64_t shape[1] = {6};
         ek_status st = ek_tensor_empty(nullptr, ctx, 1, shape, EK_FLOAT32, &c);
         if (st == EK_SUCCESS) st = ek_copy(nullptr, y, c);
         ek_tensor_release(c);
         return st;
       }},
      {"view", [](ek_tensor, ek_tensor y) {
         ek_tensor v = nullptr;
         ek_status st = ek_reshape(nullptr, y, 0, nullptr, &v);
         ek_tensor_release(v);
         return st == EK_ERROR_SHAPE ? EK_SUCCESS : st;  // a [6] cannot become a scalar; the check evaluated
       }},
      {"write_input_in_place", [](ek_tensor x, ek_tensor) { return ek_fill(nullptr, ek_scalar_float(7), x); }},
      {"fusible_op_on_other_stream", [&](ek_tensor, ek_tensor y) {
         ek_tensor z = nullptr;
         ek_status st = ek_unary(other, EK_UNARY_NEG, y, &z);
         if (st == EK_SUCCESS) st = ek_stream_synchronize(other);
         ek_tensor_release(z);
         return st;
       }},
      {"dlpack", [](ek_tensor, ek_tensor y) {
         DLManagedTensorVersioned *m = nullptr;
         ek_status st = ek_tensor_to_dlpack(y, &m);
         if (m && m->deleter) m->deleter(m);
         return st;
       }},
  };
  for (const Case &c : cases) {
    set(EK_FUSION_ON);
    Tensor x(make({6}, EK_FLOAT32, {-2, -1, 0, 1, 2, 3}));
    EK_OK(ek_tensor_eval(x));
    Tensor y(pending_chain(x));
    const uint64_t ev = evaluated();
    EXPECT_EQ(c.call(x, y), EK_SUCCESS) << c.name << ": " << ek_last_error();
    EXPECT_EQ(evaluated(), ev + 1) << c.name;
    set(EK_FUSION_OFF);
    // The group read x before the boundary wrote it: y has the old values.
    EXPECT_EQ(to_host<float>(y), (std::vector<float>{-2, -1, 0, 3, 6, 9})) << c.name;
  }
  EK_OK(ek_event_destroy(event));
  EK_OK(ek_stream_destroy(other));
}

TEST_P(Fusion, GroupLimitsAndShapeChangesStartNewGroups) {
  set(EK_FUSION_ON);
  Tensor x(make({4}, EK_FLOAT32, {1, 2, 3, 4}));
  ek_tensor cur = nullptr;
  EK_OK(ek_binary_scalar(nullptr, EK_BINARY_ADD, x, ek_scalar_float(0), 0, &cur));
  const uint64_t ev = evaluated();
  for (int k = 0; k < 40; ++k) {  // past the 32 ops of a group
    ek_tensor next = nullptr;
    EK_OK(ek_binary_scalar(nullptr, EK_BINARY_ADD, cur, ek_scalar_float(1), 0, &next));
    ek_tensor_release(cur);
    cur = next;
  }
  EXPECT_EQ(evaluated(), ev + 1);
  Tensor other(make({3}, EK_FLOAT32, {1, 2, 3}));
  Tensor z;
  EK_OK(ek_unary(nullptr, EK_UNARY_NEG, other, z.out()));  // another shape: a new group
  EXPECT_EQ(evaluated(), ev + 2);
  EXPECT_EQ(to_host<float>(cur), (std::vector<float>{41, 42, 43, 44}));
  EXPECT_EQ(to_host<float>(z), (std::vector<float>{-1, -2, -3}));
  ek_tensor_release(cur);
}

TEST_P(Fusion, OutAliasingAndGivenOutputs) {
  set(EK_FUSION_ON);
  Tensor x(make({5}, EK_FLOAT32, {1, 2, 3, 4, 5}));
  Tensor out(make({5}, EK_FLOAT32, {0, 0, 0, 0, 0}));
  Tensor t;
  EK_OK(ek_binary_scalar(nullptr, EK_BINARY_MUL, x, ek_scalar_float(3), 0, t.out()));
  ek_tensor o = out;
  EK_OK(ek_binary(nullptr, EK_BINARY_SUB, t, x, &o));         // a given out joins the group
  EK_OK(ek_binary(nullptr, EK_BINARY_ADD, out, out, &o));     // out == both operands: in place
  EXPECT_EQ(to_host<float>(out), (std::vector<float>{4, 8, 12, 16, 20}));
  EXPECT_EQ(to_host<float>(t), (std::vector<float>{3, 6, 9, 12, 15}));
  // An out of another dtype converts through a temporary: runs eagerly.
  Tensor d(make({5}, EK_FLOAT64, {0, 0, 0, 0, 0}));
  ek_tensor dd = d;
  EK_OK(ek_unary(nullptr, EK_UNARY_NEG, t, &dd));
  EXPECT_EQ(to_host<double>(d), (std::vector<double>{-3, -6, -9, -12, -15}));
}

TEST_P(Fusion, ReleasedIntermediatesAndUnsupportedDtypes) {
  set(EK_FUSION_ON);
  Tensor x(make({3}, EK_FLOAT32, {1, 2, 3}));
  Tensor y(pending_chain(x));  // its intermediates are released already
  Tensor u(make({3}, EK_UINT8, {1, 2, 3}));
  const uint64_t d = deferred();
  Tensor v;
  EK_OK(ek_unary(nullptr, EK_UNARY_NEG, u, v.out()));  // uint8: eager
  EXPECT_EQ(deferred(), d);
  EXPECT_EQ(to_host<float>(y), (std::vector<float>{3, 6, 9}));
}

// In place: h = gelu(h + b) written into h (the C way of a layer's bias and
// activation) is one group, and one kernel on CUDA; a write into a storage
// the group reads through another view starts a new group. Both equal eager.
TEST_P(Fusion, InPlaceWritesOfTheSameViewJoinTheGroup) {
  auto run = [&](ek_fusion mode, bool other_view, ek_fusion_stats *delta) {
    set(mode);
    Tensor h(make({8, 32}, EK_FLOAT32, random_values(256, 11, -2, 2)));
    Tensor b(make({32}, EK_FLOAT32, random_values(32, 12, -1, 1)));
    Tensor ht(transposed(h, 0, 1));
    EK_EXPECT_OK(ek_stream_flush(stream()));
    const ek_fusion_stats before = stats_of(ctx);
    ek_tensor o = h;
    EK_EXPECT_OK(ek_binary(nullptr, EK_BINARY_ADD, h, b, &o));
    EK_EXPECT_OK(ek_unary(nullptr, EK_UNARY_GELU, h, &o));
    Tensor t;
    if (other_view) {
      EK_EXPECT_OK(ek_unary(nullptr, EK_UNARY_NEG, ht, t.out()));  // reads h transposed
    }
    EK_EXPECT_OK(ek_unary(nullptr, EK_UNARY_TANH, h, &o));
    std::vector<uint8_t> bytes = bytes_of(h);
    if (other_view) {
      const std::vector<uint8_t> tb = bytes_of(t);
      bytes.insert(bytes.end(), tb.begin(), tb.end());
    }
    const ek_fusion_stats after = stats_of(ctx);
    delta->ops_deferred = after.ops_deferred - before.ops_deferred;
    delta->groups_evaluated = after.groups_evaluated - before.groups_evaluated;
    delta->fused_launches = after.fused_launches - before.fused_launches;
    return bytes;
  };
  ek_fusion_stats d{};
  const std::vector<uint8_t> eager = run(EK_FUSION_OFF, false, &d);
  EXPECT_EQ(run(EK_FUSION_ON, false, &d), eager);
  EXPECT_EQ(d.ops_deferred, 3u);
  EXPECT_EQ(d.groups_evaluated, 1u) << "three in-place ops, one group";
  EXPECT_EQ(d.fused_launches, GetParam() == EK_CUDA ? 1u : 0u);
  const std::vector<uint8_t> eager2 = run(EK_FUSION_OFF, true, &d);
  EXPECT_EQ(run(EK_FUSION_ON, true, &d), eager2);
  // The transposed read of h ends the first group, the write after it the
  // second; the third is read at the end.
  EXPECT_EQ(d.groups_evaluated, 3u);
  // A group's input written in place, as the group read it: it joins, and
  // the values read before the write are the old ones.
  set(EK_FUSION_ON);
  Tensor x(make({6}, EK_FLOAT32, {-2, -1, 0, 1, 2, 3}));
  EK_OK(ek_tensor_eval(x));
  Tensor y(pending_chain(x));
  const uint64_t ev = evaluated();
  ek_tensor xo = x;
  EK_OK(ek_binary_scalar(nullptr, EK_BINARY_ADD, x, ek_scalar_float(1), 0, &xo));
  EXPECT_EQ(evaluated(), ev);
  EXPECT_EQ(to_host<float>(y), (std::vector<float>{-2, -1, 0, 3, 6, 9}));
  EXPECT_EQ(to_host<float>(x), (std::vector<float>{-1, 0, 1, 2, 3, 4}));
}

// ---------------------------------------------------------------- switches and errors

TEST_P(Fusion, ErrorsAreReportedAtTheCall) {
  set(EK_FUSION_ON);
  Tensor a(make({3}, EK_FLOAT32, {1, 2, 3}));
  Tensor b(make({4}, EK_FLOAT32, {1, 2, 3, 4}));
  Tensor c;
  EK_FAILS(ek_binary(nullptr, EK_BINARY_ADD, a, b, c.out()), EK_ERROR_SHAPE, "ek_binary");
  EK_FAILS(ek_stream_set_fusion(stream(), static_cast<ek_fusion>(7)), EK_ERROR_INVALID_ARGUMENT,
           "fusion 7 is not an ek_fusion");
  ek_fusion f = EK_FUSION_OFF;
  EK_OK(ek_stream_get_fusion(stream(), &f));
  EXPECT_EQ(f, EK_FUSION_ON);
  EK_FAILS(ek_stream_flush(nullptr), EK_ERROR_NULL_POINTER, "stream is NULL");
  EK_FAILS(ek_tensor_eval(nullptr), EK_ERROR_NULL_POINTER, "t is NULL");
  ek_fusion_stats small{};
  small.struct_size = 4;
  EK_FAILS(ek_context_get_fusion_stats(ctx, &small), EK_ERROR_INVALID_ARGUMENT, "ek_fusion_stats");
}

TEST_P(Fusion, ConfigAndEnvironment) {
  ek_device dev{GetParam(), 0};
  ek_context c = nullptr;
  ek_context_config cfg = EK_CONTEXT_CONFIG_INIT;
  {
    ScopedEnv unset("EK_FUSION", nullptr), unset_cap("EK_FUSION_MAX_KERNELS", nullptr);
    EK_OK(ek_context_create(dev, nullptr, &c));
    EK_OK(ek_context_get_config(c, &cfg));
    EXPECT_EQ(cfg.fusion, EK_FUSION_OFF);  // the default
    EXPECT_EQ(cfg.fusion_max_kernels, 256);
    EK_OK(ek_context_destroy(c));
  }
  cfg = EK_CONTEXT_CONFIG_INIT;
  cfg.fusion = 9;
  EK_FAILS(ek_context_create(dev, &cfg, &c), EK_ERROR_INVALID_ARGUMENT, "config->fusion 9");
  cfg.fusion = 0;
  cfg.fusion_max_kernels = -1;
  EK_FAILS(ek_context_create(dev, &cfg, &c), EK_ERROR_INVALID_ARGUMENT, "fusion_max_kernels");
  {
    ScopedEnv env("EK_FUSION", "maybe");
    EK_FAILS(ek_context_create(dev, nullptr, &c), EK_ERROR_INVALID_ARGUMENT, "EK_FUSION=\"maybe\"");
  }
  ScopedEnv env("EK_FUSION", "1");
  ScopedEnv cap("EK_FUSION_MAX_KERNELS", "3");
  EK_OK(ek_context_create(dev, nullptr, &c));
  cfg = EK_CONTEXT_CONFIG_INIT;
  EK_OK(ek_context_get_config(c, &cfg));
  EXPECT_EQ(cfg.fusion, EK_FUSION_ON);
  EXPECT_EQ(cfg.fusion_max_kernels, 3);
  // The context's mode applies to a stream without an override.
  ek_tensor x = make({2}, EK_FLOAT32, {1, 2}, c), y = nullptr;
  const uint64_t d = stats_of(c).ops_deferred;  // make() casts, which defers too
  EK_OK(ek_unary(nullptr, EK_UNARY_NEG, x, &y));
  EXPECT_EQ(stats_of(c).ops_deferred, d + 1);
  ek_tensor_release(x);
  ek_tensor_release(y);  // pending, no handle left: destroy still evaluates and frees it
  EK_OK(ek_context_destroy(c));
}

// ---------------------------------------------------------------- CUDA: kernels, cap, captures

TEST_P(Fusion, LoopWithChangingScalarsCompilesOneKernel) {
  if (GetParam() != EK_CUDA) GTEST_SKIP() << "kernels are compiled on CUDA only";
  set(EK_FUSION_ON);
  Tensor x(make({1000}, EK_FLOAT32, random_values(1000, 3, -1, 1)));
  EK_OK(ek_tensor_eval(x));  // make() casts: its group is another structure
  const ek_fusion_stats before = stats_of(ctx);
  for (int step = 0; step < 1000; ++step) {
    Tensor a, b;
    EK_OK(ek_binary_scalar(nullptr, EK_BINARY_MUL, x, ek_scalar_float(1.0 + step * 1e-3), 0, a.out()));
    EK_OK(ek_binary_scalar(nullptr, EK_BINARY_ADD, a, ek_scalar_float(step), 0, b.out()));
    EK_OK(ek_tensor_eval(b));
  }
  const ek_fusion_stats after = stats_of(ctx);
  EXPECT_LE(after.kernels_compiled - before.kernels_compiled, 1u);
  EXPECT_EQ(after.fused_launches - before.fused_launches, 1000u);
  EXPECT_GE(after.cache_hits_memory - before.cache_hits_memory, 999u);
}

TEST_P(Fusion, KernelCapFallsBackToEager) {
  if (GetParam() != EK_CUDA) GTEST_SKIP() << "kernels are compiled on CUDA only";
  ek_context_config cfg = EK_CONTEXT_CONFIG_INIT;
  cfg.fusion = EK_FUSION_ON;
  cfg.fusion_max_kernels = 1;
  ek_context c = nullptr;
  EK_OK(ek_context_create(ek_device{EK_CUDA, 0}, &cfg, &c));
  ek_tensor x = make({8}, EK_FLOAT32, random_values(8, 1, -1, 1), c);
  std::vector<float> results[2];
  for (int k = 0; k < 2; ++k) {  // two structures: the second is past the cap
    ek_tensor a = nullptr, b = nullptr;
    EK_OK(ek_unary(nullptr, k ? EK_UNARY_EXP : EK_UNARY_NEG, x, &a));
    EK_OK(ek_unary(nullptr, EK_UNARY_ABS, a, &b));
    results[k] = to_host<float>(b);
    ek_tensor_release(a);
    ek_tensor_release(b);
  }
  const ek_fusion_stats s = stats_of(c);
  EXPECT_EQ(s.fallbacks_cap, 1u);
  EXPECT_EQ(s.fused_launches, 1u);
  const std::vector<float> xs = to_host<float>(x);
  for (size_t i = 0; i < xs.size(); ++i) EXPECT_EQ(results[0][i], std::fabs(-xs[i]));
  ek_tensor_release(x);
  EK_OK(ek_context_destroy(c));
}

TEST_P(Fusion, CapturesRunCachedKernelsAndFallBackToEagerOtherwise) {
  if (GetParam() != EK_CUDA) GTEST_SKIP() << "graph capture is CUDA only";
  ek_stream s = nullptr;
  EK_OK(ek_stream_create(ctx, &s));
  EK_OK(ek_stream_set_fusion(s, EK_FUSION_ON));
  Tensor x(make({256}, EK_FLOAT32, random_values(256, 9, -2, 2)));
  EK_OK(ek_tensor_eval(x));
  EK_OK(ek_context_synchronize(ctx));
  auto chain = [&](ek_unary_op op, ek_tensor *out) {
    Tensor a;
    EK_EXPECT_OK(ek_binary_scalar(s, EK_BINARY_MUL, x, ek_scalar_float(2), 0, a.out()));
    EK_EXPECT_OK(ek_unary(s, op, a, out));
  };
  Tensor warm;
  chain(EK_UNARY_RELU, warm.out());  // compiles the kernel outside any capture
  EK_OK(ek_stream_synchronize(s));
  for (ek_unary_op op : {EK_UNARY_RELU, EK_UNARY_TANH}) {  // cached, then a new structure
    EK_OK(ek_stream_set_fusion(s, EK_FUSION_OFF));
    Tensor eager;
    chain(op, eager.out());
    // to_host reads on the default stream: s's kernels must be done first
    // (under compute-sanitizer the copy overtook them and read stale memory).
    EK_OK(ek_stream_synchronize(s));
    const std::vector<float> expect = to_host<float>(eager);
    EK_OK(ek_stream_set_fusion(s, EK_FUSION_ON));
    const ek_fusion_stats before = stats_of(ctx);
    EK_OK(ek_graph_capture_begin(s, nullptr, EK_CAPTURE_GLOBAL));
    Tensor y;
    chain(op, y.out());
    ek_graph g = nullptr;
    EK_OK(ek_graph_capture_end(s, &g));
    const ek_fusion_stats after = stats_of(ctx);
    if (op == EK_UNARY_RELU) EXPECT_EQ(after.fused_launches, before.fused_launches + 1);
    else EXPECT_EQ(after.fallbacks_capture, before.fallbacks_capture + 1);
    EXPECT_EQ(after.kernels_compiled, before.kernels_compiled) << "no compilation during a capture";
    EK_OK(ek_graph_launch(s, g));
    EK_OK(ek_stream_synchronize(s));
    EXPECT_EQ(to_host<float>(y), expect);
    EK_OK(ek_graph_destroy(g));
  }
  EK_OK(ek_stream_destroy(s));
}

struct TunerLog {
  std::vector<std::string> lines;  // the launch tuner's choices
  static void record(ek_log_level, const char *message, void *self) {
    if (std::strstr(message, "threads a block")) static_cast<TunerLog *>(self)->lines.push_back(message);
  }
};

// A contiguous chain of 2^24 elements and more is timed in each of its launch
// shapes before one is kept (jit/launch_tuner.hpp): every launch, timed or
// not, and a graph captured after the choice, equals eager bit for bit. The
// odd length leaves a tail for the vector kernel's block 0.
TEST_P(Fusion, LargeChainsTuneTheirLaunchShapeAndStayEqual) {
  if (GetParam() != EK_CUDA) GTEST_SKIP() << "launch shapes are tuned on CUDA only";
  const int64_t n = (int64_t(1) << 24) + 3;
  ek_context_config cfg = EK_CONTEXT_CONFIG_INIT;
  cfg.log_level = EK_LOG_INFO;
  ek_context c = nullptr;
  EK_OK(ek_context_create(ek_device{EK_CUDA, 0}, &cfg, &c));
  ek_stream s = nullptr;
  EK_OK(ek_stream_create(c, &s));
  {  // the tensors go before their context
    Tensor x(make({n}, EK_FLOAT32, random_values(n, 21, -3, 3), c));
    Tensor y(make({n}, EK_FLOAT32, random_values(n, 22, -3, 3), c));
    auto chain = [&](ek_tensor *out) {  // tanh(relu(x * y + x) * 0.5 - y)
      Tensor a, b, d, e;
      EK_EXPECT_OK(ek_binary(s, EK_BINARY_MUL, x, y, a.out()));
      EK_EXPECT_OK(ek_binary(s, EK_BINARY_ADD, a, x, b.out()));
      EK_EXPECT_OK(ek_unary(s, EK_UNARY_RELU, b, d.out()));
      EK_EXPECT_OK(ek_binary_scalar(s, EK_BINARY_MUL, d, ek_scalar_float(0.5), 0, e.out()));
      Tensor f;
      EK_EXPECT_OK(ek_binary(s, EK_BINARY_SUB, e, y, f.out()));
      EK_EXPECT_OK(ek_unary(s, EK_UNARY_TANH, f, out));
    };
    auto host_of = [&](ek_tensor t) {
      EK_EXPECT_OK(ek_stream_synchronize(s));
      return bytes_of(t);
    };
    Tensor eager;
    chain(eager.out());
    const std::vector<uint8_t> expect = host_of(eager);
    TunerLog log;
    ASSERT_EQ(ek_log_set_callback(TunerLog::record, &log), EK_SUCCESS);
    EK_OK(ek_stream_set_fusion(s, EK_FUSION_ON));
    const ek_fusion_stats before = stats_of(c);
    for (int step = 0; step < 18 && !HasFailure(); ++step) {  // 15 timed launches, then the choice
      Tensor z;
      chain(z.out());
      EXPECT_EQ(host_of(z), expect) << "step " << step;
    }
    EXPECT_EQ(stats_of(c).fused_launches - before.fused_launches, 18u);
    ASSERT_EQ(log.lines.size(), 1u) << "one choice, logged once";
    EXPECT_NE(log.lines[0].find("ps an element: 256 "), std::string::npos) << log.lines[0];
    EXPECT_NE(log.lines[0].find(", 256 (no wait) "), std::string::npos) << log.lines[0];
    ek_graph g = nullptr;
    Tensor z;
    EK_OK(ek_graph_capture_begin(s, nullptr, EK_CAPTURE_GLOBAL));
    chain(z.out());
    EK_OK(ek_graph_capture_end(s, &g));
    EK_OK(ek_graph_launch(s, g));
    EXPECT_EQ(host_of(z), expect) << "replayed";
    EK_OK(ek_graph_destroy(g));
    ASSERT_EQ(ek_log_set_callback(nullptr, nullptr), EK_SUCCESS);
    EXPECT_EQ(log.lines.size(), 1u);
  }
  EK_OK(ek_stream_destroy(s));
  EK_OK(ek_context_destroy(c));
}


// ---------------------------------------------------------------- reductions of pending chains

// (x * y + relu(x)) * 0.5 over x [rows, cols] (transposed from [cols, rows]
// when `strided`) and y [cols] (broadcast); reduce(op) of it over every dim
// or the last; the result's bytes. keep: the chain's result stays held
// until after the reduction is read, and must then be readable too.
struct Reduced {
  std::vector<uint8_t> result, chain;
};

class FusionReduce : public Fusion {
 protected:
  Reduced run(ek_fusion mode, ek_dtype dt, int64_t rows, int64_t cols, ek_reduce_op op, bool last_dim,
              bool strided, bool keep) {
    set(mode);
    const size_t n = static_cast<size_t>(rows * cols);
    Tensor base(make(strided ? Shape{cols, rows} : Shape{rows, cols}, dt, random_values(n, 7, -1.5, 1.5)));
    Tensor x(strided ? transposed(base, 0, 1) : nullptr);
    Tensor y(make({cols}, dt, random_values(static_cast<size_t>(cols), 8, -1.5, 1.5)));
    EK_EXPECT_OK(ek_stream_flush(stream()));  // the inputs are ready: only the chain is pending
    const ek_tensor xs = strided ? x.t : base.t;
    Tensor a, b, c, t;
    EK_EXPECT_OK(ek_binary(nullptr, EK_BINARY_MUL, xs, y, a.out()));
    EK_EXPECT_OK(ek_unary(nullptr, EK_UNARY_RELU, xs, b.out()));
    EK_EXPECT_OK(ek_binary(nullptr, EK_BINARY_ADD, a, b, c.out()));
    EK_EXPECT_OK(ek_binary_scalar(nullptr, EK_BINARY_MUL, c, ek_scalar_float(0.5), 0, t.out()));
    const uint64_t d = deferred(), ev = evaluated();
    const int dim = -1;
    Tensor r;
    EK_EXPECT_OK(ek_reduce(nullptr, op, t, last_dim ? 1 : 0, last_dim ? &dim : nullptr, 0, r.out()));
    if (mode != EK_FUSION_OFF && n > 0) {  // the reduction joined the chain's group
      EXPECT_EQ(deferred(), d + 1);
      EXPECT_EQ(evaluated(), ev);
    }
    Reduced out;
    if (!keep) {
      ek_tensor_release(a.t), a.t = nullptr;
      ek_tensor_release(b.t), b.t = nullptr;
      ek_tensor_release(c.t), c.t = nullptr;
      ek_tensor_release(t.t), t.t = nullptr;
    }
    out.result = bytes_of(r);
    if (keep) out.chain = bytes_of(t);
    return out;
  }

  // The tail of LayerNormTailWithHeldIntermediatesEqualsEager over [rows, cols];
  // in_place: rsqrt overwrites var; released: only y is held when the group
  // runs (the others stay in the kernel's registers or memory); d_released:
  // all but d. Returns the fused kernels compiled.
  uint64_t layer_norm_tail(int64_t rows, int64_t cols, bool in_place = false, bool released = false,
                           bool d_released = false) {
    auto run_tail = [&](ek_fusion mode) {
      set(mode);
      Tensor h(make({rows, cols}, EK_FLOAT32, random_values(size_t(rows * cols), 21, -2, 2)));
      Tensor b(make({cols}, EK_FLOAT32, random_values(size_t(cols), 22, -1, 1)));
      EK_EXPECT_OK(ek_stream_flush(stream()));
      Tensor mu, d, sq, var, inv, y;
      const int dim = 1;
      ek_tensor o = h;
      EK_EXPECT_OK(ek_binary(nullptr, EK_BINARY_ADD, h, b, &o));
      EK_EXPECT_OK(ek_unary(nullptr, EK_UNARY_GELU, h, &o));
      EK_EXPECT_OK(ek_reduce(nullptr, EK_REDUCE_MEAN, h, 1, &dim, 1, mu.out()));
      EK_EXPECT_OK(ek_binary(nullptr, EK_BINARY_SUB, h, mu, d.out()));
      EK_EXPECT_OK(ek_binary(nullptr, EK_BINARY_MUL, d, d, sq.out()));
      EK_EXPECT_OK(ek_reduce(nullptr, EK_REDUCE_MEAN, sq, 1, &dim, 1, var.out()));
      ek_tensor v = var;
      EK_EXPECT_OK(ek_unary(nullptr, EK_UNARY_RSQRT, var, in_place ? &v : inv.out()));
      EK_EXPECT_OK(ek_binary(nullptr, EK_BINARY_MUL, d, in_place ? var : inv, y.out()));
      std::vector<std::vector<uint8_t>> all;
      if (d_released) ek_tensor_release(d.t), d.t = nullptr;
      if (released) {
        for (Tensor *k : {&h, &mu, &d, &sq, &var, &inv}) ek_tensor_release(k->t), k->t = nullptr;
        all.push_back(bytes_of(y));
        return all;
      }
      for (ek_tensor t : {h.t, mu.t, d.t, sq.t, var.t, in_place ? var.t : inv.t, y.t})
        if (t) all.push_back(bytes_of(t));
      return all;
    };
    const auto eager = run_tail(EK_FUSION_OFF);
    const ek_fusion_stats before = stats_of(ctx);
    const auto fused = run_tail(EK_FUSION_ON);
    const ek_fusion_stats after = stats_of(ctx);
    const char *names[] = {"h", "mu", "d", "sq", "var", "inv", "y"};
    const std::string what = " [" + std::to_string(rows) + ", " + std::to_string(cols) + "]" +
                             (in_place ? " in place" : "") + (released ? " released" : "");
    if (fused.size() != eager.size()) {
      ADD_FAILURE() << "results " << fused.size() << " against " << eager.size() << what;
      return 0;
    }
    for (size_t k = 0, n = 0; k < eager.size(); ++k, ++n) {
      if (d_released && n == 2) ++n;  // d's bytes are not in the lists
      EXPECT_EQ(fused[k], eager[k]) << (released ? "y" : names[n]) << what;
    }
    // CUDA: short rows run as one kernel, a warp per row (rows mode); long
    // ones as two fused reductions and two ops.
    const bool cuda = GetParam() == EK_CUDA;
    EXPECT_EQ(after.prologue_fusions - before.prologue_fusions, cuda ? 2u : 0u) << what;
    EXPECT_EQ(after.fused_launches - before.fused_launches, cuda ? (cols < 4096 ? 1u : 2u) : 0u) << what;
    return after.kernels_compiled - before.kernels_compiled;
  }

  // softmax(x * 1.5) over the last dim of x [rows, cols] (transposed from
  // [cols, rows] when strided), with its row max and sum held or not.
  std::vector<std::vector<uint8_t>> softmax(ek_fusion mode, ek_dtype dt, int64_t rows, int64_t cols, bool strided,
                                            bool hold) {
    set(mode);
    const size_t n = static_cast<size_t>(rows * cols);
    Tensor base(make(strided ? Shape{cols, rows} : Shape{rows, cols}, dt, random_values(n, 31, -4, 4)));
    Tensor xt(strided ? transposed(base, 0, 1) : nullptr);
    EK_EXPECT_OK(ek_stream_flush(stream()));
    const ek_tensor x = strided ? xt.t : base.t;
    const int dim = -1;
    Tensor t, m, e, sh, sum, y;
    EK_EXPECT_OK(ek_binary_scalar(nullptr, EK_BINARY_MUL, x, ek_scalar_float(1.5), 0, t.out()));
    EK_EXPECT_OK(ek_reduce(nullptr, EK_REDUCE_MAX, t, 1, &dim, 1, m.out()));
    EK_EXPECT_OK(ek_binary(nullptr, EK_BINARY_SUB, t, m, sh.out()));
    EK_EXPECT_OK(ek_unary(nullptr, EK_UNARY_EXP, sh, e.out()));
    EK_EXPECT_OK(ek_reduce(nullptr, EK_REDUCE_SUM, e, 1, &dim, 1, sum.out()));
    EK_EXPECT_OK(ek_binary(nullptr, EK_BINARY_DIV, e, sum, y.out()));
    std::vector<std::vector<uint8_t>> out;
    if (!hold) {
      for (Tensor *k : {&t, &m, &sh, &e, &sum}) ek_tensor_release(k->t), k->t = nullptr;
    } else {
      for (const Tensor *k : {&m, &e, &sum}) out.push_back(bytes_of(k->t));
    }
    out.push_back(bytes_of(y));
    return out;
  }
};

TEST_P(FusionReduce, EqualsEagerBitForBit) {
  struct Shape2 { int64_t rows, cols; };
  // Small; one row split over blocks (the last block combines); rows split
  // over blocks (a second kernel combines); many short rows.
  const Shape2 shapes[] = {{3, 7}, {1, 300000}, {1, 1 << 20}, {64, 20000}, {300, 33}};
  for (ek_dtype dt : {EK_FLOAT32, EK_FLOAT64, EK_FLOAT16})
    for (const Shape2 &sh : shapes)
      for (ek_reduce_op op : {EK_REDUCE_SUM, EK_REDUCE_MEAN, EK_REDUCE_MAX, EK_REDUCE_MIN, EK_REDUCE_PROD})
        for (bool last : {false, true})
          for (bool strided : {false, true}) {
            if (strided && sh.rows * sh.cols > 100000) continue;  // the strided walk is covered small
            const std::string what = std::string(ek_dtype_name(dt)) + " " + std::to_string(sh.rows) + "x" +
                                     std::to_string(sh.cols) + " op " + std::to_string(op) +
                                     (last ? " last dim" : " all dims") + (strided ? " strided" : "");
            const ek_fusion_stats before = stats_of(ctx);
            const Reduced eager = run(EK_FUSION_OFF, dt, sh.rows, sh.cols, op, last, strided, false);
            const Reduced fused = run(EK_FUSION_ROUNDED, dt, sh.rows, sh.cols, op, last, strided, false);
            EXPECT_EQ(fused.result, eager.result) << what;
            const ek_fusion_stats after = stats_of(ctx);
            // CUDA fuses float32 and float64 reductions of 1M elements or
            // more (float16, or fewer: the chain fuses, the reduction runs
            // after it); the CPU replays.
            const bool fuses = GetParam() == EK_CUDA && dt != EK_FLOAT16 && sh.rows * sh.cols >= (1 << 20);
            EXPECT_EQ(after.prologue_fusions, before.prologue_fusions + (fuses ? 1 : 0)) << what;
          }
}

TEST_P(FusionReduce, RowGroupsEqualEagerBitForBit) {
  struct Case { ek_dtype dt; int64_t rows, cols; bool strided, hold; };
  // Odd sizes, a row shorter than a warp's vector, 1000 rows of 1000
  // (512-thread blocks), transposed inputs, held intermediates.
  const Case cases[] = {{EK_FLOAT32, 3, 7, false, false},  {EK_FLOAT32, 5, 33, true, true},
                        {EK_FLOAT64, 9, 130, false, true}, {EK_FLOAT32, 1000, 1000, false, false},
                        {EK_FLOAT32, 64, 512, true, false}, {EK_FLOAT64, 2, 2, false, true},
                        {EK_FLOAT32, 16384, 3000, false, false}};
  for (const Case &c : cases) {
    // Rows longer than 2048 elements take 1024-thread blocks of four each
    // (row_elements); warp_per_row gives them one launch from 16384 rows.
    if (c.cols > 2048 && GetParam() != EK_CUDA) continue;
    const std::string what = std::string(ek_dtype_name(c.dt)) + " " + std::to_string(c.rows) + "x" +
                             std::to_string(c.cols) + (c.strided ? " strided" : "") + (c.hold ? " held" : "");
    const auto eager = softmax(EK_FUSION_OFF, c.dt, c.rows, c.cols, c.strided, c.hold);
    const ek_fusion_stats before = stats_of(ctx);
    const auto fused = softmax(EK_FUSION_ON, c.dt, c.rows, c.cols, c.strided, c.hold);
    const ek_fusion_stats after = stats_of(ctx);
    ASSERT_EQ(fused.size(), eager.size());
    for (size_t k = 0; k < eager.size(); ++k) EXPECT_EQ(fused[k], eager[k]) << what << " result " << k;
    if (GetParam() == EK_CUDA) {
      EXPECT_EQ(after.fused_launches - before.fused_launches, 1u) << what << ": one kernel";
      EXPECT_EQ(after.prologue_fusions - before.prologue_fusions, 2u) << what;
    }
  }
}

TEST_P(FusionReduce, StatsOfApi10Size) {
  // A caller built against API 1.0's ek_fusion_stats gets its fields and no byte more.
  ek_fusion_stats s{};
  s.struct_size = offsetof(ek_fusion_stats, prologue_fusions);
  s.prologue_fusions = 77;
  EK_OK(ek_context_get_fusion_stats(ctx, &s));
  EXPECT_EQ(s.prologue_fusions, 77u);
  s.struct_size = offsetof(ek_fusion_stats, prologue_fusions) - 1;
  EK_FAILS(ek_context_get_fusion_stats(ctx, &s), EK_ERROR_INVALID_ARGUMENT, "ek_fusion_stats.struct_size");
}

TEST_P(FusionReduce, HeldIntermediatesAreWrittenByTheFusedReduction) {
  for (bool last : {false, true})
    for (bool strided : {false, true}) {
      const Reduced eager = run(EK_FUSION_OFF, EK_FLOAT32, 16, 1 << 16, EK_REDUCE_SUM, last, strided, true);
      const uint64_t fusions = stats_of(ctx).prologue_fusions;
      const Reduced fused = run(EK_FUSION_ON, EK_FLOAT32, 16, 1 << 16, EK_REDUCE_SUM, last, strided, true);
      EXPECT_EQ(fused.result, eager.result);
      EXPECT_EQ(fused.chain, eager.chain) << "the held chain result is written";
      // One kernel computes, stores what is held and reduces.
      EXPECT_EQ(stats_of(ctx).prologue_fusions, fusions + (GetParam() == EK_CUDA ? 1 : 0));
    }
}

// The layer-norm-like tail of bench/graph_step.c, every intermediate held
// and written in place as C callers do: h = gelu(h + b); mu = mean(h);
// d = h - mu; sq = d * d; var = mean(sq); y = d * rsqrt(var). Two of its
// groups end in a reduction; at 1M elements each is one kernel that also
// writes the held values, below the chain's kernel and the reduction's.
TEST_P(FusionReduce, LayerNormTailWithHeldIntermediatesEqualsEager) {
  for (const int64_t cols : {512, 1 << 14}) layer_norm_tail(64, cols);
  for (const int64_t cols : {100, 512}) layer_norm_tail(7, cols, true, false);
  for (const int64_t cols : {33, 512}) layer_norm_tail(5, cols, false, true);
  layer_norm_tail(3, 640, true, true);
}

// A value a later phase of a row group reads is stored whether or not the
// caller still holds it, so the group's kernel is the same: a capture that
// ends after the caller released it replays the kernel compiled before.
TEST_P(FusionReduce, RowGroupKernelDoesNotDependOnHeldValuesReadLater) {
  if (GetParam() != EK_CUDA) GTEST_SKIP() << "kernels are compiled on CUDA only";
  layer_norm_tail(6, 256);
  EXPECT_EQ(layer_norm_tail(6, 256, false, false, true), 0u);
}

TEST_P(FusionReduce, EmptyAndUnusedResults) {
  for (ek_reduce_op op : {EK_REDUCE_SUM, EK_REDUCE_MEAN})
    for (int64_t rows : {0, 4})
      for (bool last : {false, true}) {
        const int64_t cols = rows ? 0 : 5;
        EXPECT_EQ(run(EK_FUSION_ON, EK_FLOAT32, rows, cols, op, last, false, false).result,
                  run(EK_FUSION_OFF, EK_FLOAT32, rows, cols, op, last, false, false).result)
            << rows << "x" << cols << " op " << op << (last ? " last" : " all");
      }
  // A reduction nobody reads is dropped with the chain behind it.
  set(EK_FUSION_ON);
  Tensor x(make({4, 6}, EK_FLOAT32, random_values(24, 3, -1, 1)));
  EK_OK(ek_tensor_eval(x));
  const uint64_t ev = evaluated();
  Tensor y(pending_chain(x));
  ek_tensor s = nullptr;
  EK_OK(ek_reduce(nullptr, EK_REDUCE_SUM, y, 0, nullptr, 0, &s));
  EK_OK(ek_tensor_release(s));
  EK_OK(ek_tensor_release(y.t));
  y.t = nullptr;
  EK_OK(ek_stream_flush(stream()));
  EXPECT_EQ(evaluated(), ev) << "nothing left to run";
  // A given contiguous output of the result's dtype joins too (C callers
  // pass last step's); a reduction of a view runs at the call.
  Tensor given(make({}, EK_FLOAT32, {0}));
  EK_OK(ek_tensor_eval(given));
  Tensor z(pending_chain(x));
  const uint64_t d0 = deferred();
  ek_tensor g = given.t;
  EK_OK(ek_reduce(nullptr, EK_REDUCE_SUM, z, 0, nullptr, 0, &g));
  EXPECT_EQ(deferred(), d0 + 1);
  Tensor zsum;
  EK_OK(ek_reduce(nullptr, EK_REDUCE_SUM, z, 0, nullptr, 0, zsum.out()));
  EXPECT_EQ(to_host<float>(given), to_host<float>(zsum));
  const uint64_t d = deferred();
  Tensor zt(transposed(z, 0, 1));
  Tensor w(pending_chain(x));
  Tensor wt(transposed(w, 0, 1));
  Tensor m;
  const int dim = -1;
  EK_OK(ek_reduce(nullptr, EK_REDUCE_SUM, wt, 1, &dim, 0, m.out()));
  EXPECT_EQ(deferred(), d + 3);  // w's chain only
  EXPECT_EQ(to_host<float>(m).size(), 6u);
}

}  // namespace

EK_INSTANTIATE_DEVICES(Fusion);
EK_INSTANTIATE_DEVICES(FusionReduce);
