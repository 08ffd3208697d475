// ek_random, ek_random_set_seed, ek_random_get_state: Philox4x32-10 against
// Random123's known-answer vectors; every distribution against an independent
// re-implementation of the mapping documented in ek.h (with the host's libm);
// statistics over 1M samples; ranges; strided fills; the context generator;
// bad input. CUDA against the CPU, bit for bit: test_conformance.cpp.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <map>

#include "../src/ops/philox.hpp"
#include "ek_test.hpp"

using ektest::kFloatDtypes;
using ektest::Tensor;
using ektest::to_host;
using ektest::values_of;

namespace {

__extension__ typedef unsigned __int128 u128;
constexpr uint64_t kDefaultSeed = 0x853c49e6748fea9bull;

// ---- Philox: Random123's tests/kat_vectors, the three philox4x32 10 lines.
TEST(Philox, KnownAnswerVectors) {
  struct Kat {
    uint32_t ctr[4], key[2], out[4];
  };
  const Kat kats[] = {
      {{0, 0, 0, 0}, {0, 0}, {0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8}},
      {{0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff}, {0xffffffff, 0xffffffff},
       {0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd}},
      {{0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344}, {0xa4093822, 0x299f31d0},
       {0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1}},
  };
  for (const Kat &k : kats) {
    ek::philox::Block c{{k.ctr[0], k.ctr[1], k.ctr[2], k.ctr[3]}};
    ek::philox::Block r = ek::philox::philox4x32_10(c, k.key[0], k.key[1]);
    for (int i = 0; i < 4; ++i) EXPECT_EQ(r.w[i], k.out[i]) << "word " << i << " of ctr " << std::hex << k.ctr[0];
  }
  // at(): the counter's low word first, the seed's low word as key 0.
  ek::philox::Block z = ek::philox::at(0, 0);
  EXPECT_EQ(z.w[0], 0x6627e8d5u);
  ek::philox::Block hi = ek::philox::at(0xa4093822ull | (0x299f31d0ull << 32), 0x85a308d3243f6a88ull);
  ek::philox::Block direct = ek::philox::philox4x32_10(ek::philox::Block{{0x243f6a88, 0x85a308d3, 0, 0}},
                                                       0xa4093822, 0x299f31d0);
  for (int i = 0; i < 4; ++i) EXPECT_EQ(hi.w[i], direct.w[i]);
}

// ---- The documented mapping, re-implemented with libm (independent of src/ops/random_plan.hpp).
uint64_t w64(uint32_t lo, uint32_t hi) { return (uint64_t(hi) << 32) | lo; }
double unit53(uint32_t lo, uint32_t hi) { return double(w64(lo, hi) >> 11) * 0x1p-53; }

ek::philox::Block words(const ek_philox_state &s, uint64_t i) { return ek::philox::at(s.seed, s.offset + i); }

double ref_uniform(const ek::philox::Block &w, bool f64, double a, double b) {
  const double u = f64 ? unit53(w.w[0], w.w[1]) : double(w.w[0] >> 8) * 0x1p-24;
  return std::fma(u, b - a, a);
}

double ref_normal(const ek::philox::Block &w, bool f64, double mean, double std) {
  double u1 = (double(w.w[0]) + 1) * 0x1p-32, u2 = double(w.w[1]) * 0x1p-32;
  if (f64) {
    u1 = (double(w64(w.w[0], w.w[1]) >> 11) + 1) * 0x1p-53;
    u2 = unit53(w.w[2], w.w[3]);
  }
  return mean + std * std::sqrt(-2 * std::log(u1)) * std::cos(2 * M_PI * u2);
}

int64_t ref_randint(const ek::philox::Block &w, int64_t a, uint64_t n) {
  u128 m = u128(w64(w.w[0], w.w[1])) * n;
  if (uint64_t(m) < (0 - n) % n) m = u128(w64(w.w[2], w.w[3])) * n;
  return int64_t(uint64_t(a) + uint64_t(m >> 64));
}

class Random : public ektest::DeviceTest {
 protected:
  ek_tensor empty(std::vector<int64_t> shape, ek_dtype dt, ek_context c = nullptr) {
    ek_tensor t = nullptr;
    EXPECT_EQ(
        ek_tensor_empty(nullptr, c ? c : ctx, static_cast<int>(shape.size()), shape.data(), dt, &t),
        EK_SUCCESS)
        << ek_last_error();
    return t;
  }
  // n values of dist drawn into a fresh [n] tensor of dtype under state s.
  std::vector<double> draw(ek_random_dist dist, double a, double b, ek_dtype dt, int64_t n,
                           const ek_philox_state *s) {
    Tensor t(empty({n}, dt));
    EXPECT_EQ(ek_random(nullptr, dist, ek_scalar_float(a), ek_scalar_float(b), s, t), EK_SUCCESS)
        << ek_last_error();
    return values_of(t);
  }
  ek_philox_state state() {
    ek_philox_state s = EK_PHILOX_STATE_INIT;
    EXPECT_EQ(ek_random_get_state(ctx, &s), EK_SUCCESS);
    return s;
  }
};
EK_INSTANTIATE_DEVICES(Random);

TEST_P(Random, FirstElementIsTheKnownAnswer) {
  // seed 0, offset 0: element 0 runs Philox on counter 0, key 0. A full-range
  // int64 randint returns INT64_MIN + W(w0, w1).
  const ek_philox_state zero{sizeof(ek_philox_state), 0, 0};
  Tensor t(empty({1}, EK_INT64));
  EK_OK(ek_random(nullptr, EK_RANDOM_RANDINT, ek_scalar_float(-0x1p63), ek_scalar_float(0x1p63),
                  &zero, t));
  EXPECT_EQ(uint64_t(to_host<int64_t>(t)[0]), 0xe169c58d6627e8d5ull ^ 0x8000000000000000ull);
  Tensor u(empty({}, EK_FLOAT32));
  EK_OK(ek_random(nullptr, EK_RANDOM_UNIFORM, ek_scalar_int(0), ek_scalar_int(1), &zero, u));
  EXPECT_EQ(to_host<float>(u)[0], float(0x6627e8d5u >> 8) * 0x1p-24f);
}

TEST_P(Random, ValuesFollowTheDocumentedMapping) {
  const ek_philox_state s{sizeof(ek_philox_state), 0x0123456789abcdefull,
                          (uint64_t(1) << 32) - 37};  // crosses a 2^32 carry
  const int64_t n = 300;
  for (bool f64 : {false, true}) {
    SCOPED_TRACE(f64 ? "float64" : "float32");
    const ek_dtype dt = f64 ? EK_FLOAT64 : EK_FLOAT32;
    auto uni = draw(EK_RANDOM_UNIFORM, -2, 3, dt, n, &s);
    auto nrm = draw(EK_RANDOM_NORMAL, 1.5, 2, dt, n, &s);
    auto ber = draw(EK_RANDOM_BERNOULLI, 0.37, 0, dt, n, &s);
    for (int64_t i = 0; i < n; ++i) {
      const auto w = words(s, uint64_t(i));
      const double u = ref_uniform(w, f64, -2, 3);
      EXPECT_EQ(uni[i], f64 ? u : double(float(u))) << i;
      const double z = ref_normal(w, f64, 1.5, 2);
      EXPECT_NEAR(nrm[i], z, (f64 ? 1e-13 : 1e-6) * std::max(1.0, std::fabs(z))) << i;
      EXPECT_EQ(ber[i], unit53(w.w[0], w.w[1]) < 0.37 ? 1 : 0) << i;
    }
  }
  Tensor r(empty({n}, EK_INT64)), r64(empty({n}, EK_INT64));
  EK_OK(ek_random(nullptr, EK_RANDOM_RANDINT, ek_scalar_int(-1000), ek_scalar_int(999999), &s, r));
  EK_OK(ek_random(nullptr, EK_RANDOM_RANDINT, ek_scalar_float(-0x1p62),
                  ek_scalar_float(0x1p62 + 0x1p61), &s, r64));  // rejection zone is large
  auto got = to_host<int64_t>(r), got64 = to_host<int64_t>(r64);
  const int64_t base = -(int64_t(1) << 62);
  for (int64_t i = 0; i < n; ++i) {
    EXPECT_EQ(got[i], ref_randint(words(s, uint64_t(i)), -1000, 1000999)) << i;
    EXPECT_EQ(got64[i], ref_randint(words(s, uint64_t(i)), base, uint64_t(5) << 61)) << i;  // n = 2^63 + 2^61
  }
}

// ---- statistics over 1M samples: 5 standard errors
struct Moments {
  double mean = 0, var = 0;
};
Moments moments(const std::vector<double> &v) {
  Moments m;
  for (double x : v) m.mean += x;
  m.mean /= double(v.size());
  for (double x : v) m.var += (x - m.mean) * (x - m.mean);
  m.var /= double(v.size() - 1);
  return m;
}

TEST_P(Random, UniformAndNormalStatistics) {
  const int64_t n = 1 << 20;
  const double dn = double(n);
  EK_OK(ek_random_set_seed(ctx, 2024));
  for (ek_dtype dt : {EK_FLOAT32, EK_FLOAT64}) {
    SCOPED_TRACE(ek_dtype_name(dt));
    const double a = -1, b = 3, w = b - a;
    Moments u = moments(draw(EK_RANDOM_UNIFORM, a, b, dt, n, nullptr));
    EXPECT_NEAR(u.mean, (a + b) / 2, 5 * w / std::sqrt(12 * dn));
    EXPECT_NEAR(u.var, w * w / 12, 5 * w * w * std::sqrt((1.0 / 80 - 1.0 / 144) / dn));
    const double mu = 0.5, sigma = 2;
    auto z = draw(EK_RANDOM_NORMAL, mu, sigma, dt, n, nullptr);
    Moments m = moments(z);
    EXPECT_NEAR(m.mean, mu, 5 * sigma / std::sqrt(dn));
    EXPECT_NEAR(m.var, sigma * sigma, 5 * sigma * sigma * std::sqrt(2 / (dn - 1)));
    // Tails: P(|z| > 3 sigma) = 0.0026998.
    double tails = 0;
    for (double x : z) tails += std::fabs(x - mu) > 3 * sigma;
    const double p3 = 0.0026997960632601866;
    EXPECT_NEAR(tails / dn, p3, 5 * std::sqrt(p3 * (1 - p3) / dn));
  }
}

TEST_P(Random, BernoulliAndRandintStatistics) {
  const int64_t n = 1 << 20;
  const double dn = double(n);
  const ek_philox_state s{sizeof(ek_philox_state), 99, 12345};
  for (ek_dtype dt : {EK_BOOL, EK_FLOAT32, EK_INT8}) {
    double ones = 0;
    for (double x : draw(EK_RANDOM_BERNOULLI, 0.3, 0, dt, n, &s)) {
      ASSERT_TRUE(x == 0 || x == 1) << x;
      ones += x;
    }
    EXPECT_NEAR(ones / dn, 0.3, 5 * std::sqrt(0.3 * 0.7 / dn)) << ek_dtype_name(dt);
  }
  EXPECT_EQ(moments(draw(EK_RANDOM_BERNOULLI, 0, 0, EK_FLOAT32, 1000, &s)).mean, 0);
  EXPECT_EQ(moments(draw(EK_RANDOM_BERNOULLI, 1, 0, EK_FLOAT32, 1000, &s)).mean, 1);
  std::map<double, double> counts;
  for (double x : draw(EK_RANDOM_RANDINT, -3, 7, EK_INT32, n, &s)) counts[x] += 1;
  ASSERT_EQ(counts.size(), 10u);
  EXPECT_EQ(counts.begin()->first, -3);
  EXPECT_EQ(counts.rbegin()->first, 6);
  for (auto &c : counts) EXPECT_NEAR(c.second / dn, 0.1, 5 * std::sqrt(0.09 / dn)) << c.first;
}

TEST_P(Random, RangesHoldForEveryDtype) {
  const ek_philox_state s{sizeof(ek_philox_state), 7, 0};
  // Whole-range randint covers every value of the small integer dtypes.
  struct Range {
    ek_dtype dt;
    double a, b;
  };
  for (Range r : {Range{EK_UINT8, 0, 256}, Range{EK_INT8, -128, 128}, Range{EK_BFLOAT16, -256, 257},
                  Range{EK_INT16, -32768, 32768}}) {
    std::map<double, int> seen;
    for (double x : draw(EK_RANDOM_RANDINT, r.a, r.b, r.dt, 1 << 20, &s)) seen[x]++;
    EXPECT_EQ(seen.size(), size_t(r.b - r.a)) << ek_dtype_name(r.dt);
    EXPECT_EQ(seen.begin()->first, r.a) << ek_dtype_name(r.dt);
    EXPECT_EQ(seen.rbegin()->first, r.b - 1) << ek_dtype_name(r.dt);
  }
  for (ek_dtype dt : {EK_INT32, EK_INT64, EK_FLOAT16, EK_FLOAT32, EK_FLOAT64}) {
    for (double x : draw(EK_RANDOM_RANDINT, -2048, 2049, dt, 4096, &s)) {
      ASSERT_TRUE(x >= -2048 && x <= 2048 && x == std::trunc(x)) << ek_dtype_name(dt) << " " << x;
    }
  }
  // Uniform values stay below b even where rounding to the dtype would reach it.
  for (ek_dtype dt : kFloatDtypes) {
    SCOPED_TRACE(ek_dtype_name(dt));
    double lo = 1, hi = 0;
    for (double x : draw(EK_RANDOM_UNIFORM, 0, 1, dt, 1 << 20, &s)) lo = std::min(lo, x), hi = std::max(hi, x);
    EXPECT_GE(lo, 0);
    EXPECT_LT(hi, 1);
    EXPECT_GT(hi, 0.99);
    for (double x : draw(EK_RANDOM_UNIFORM, 1e5, 1.0000001e5, dt, 1000, &s)) ASSERT_LT(x, 1.0000001e5);
  }
}

TEST_P(Random, StridedFillsMatchContiguousOnes) {
  const ek_philox_state s{sizeof(ek_philox_state), 31337, 1000};
  for (ek_dtype dt : {EK_FLOAT32, EK_INT64}) {
    const ek_random_dist dist = dt == EK_INT64 ? EK_RANDOM_RANDINT : EK_RANDOM_NORMAL;
    Tensor flat(empty({6, 5}, dt));
    EK_OK(ek_random(nullptr, dist, ek_scalar_int(-100), ek_scalar_int(100), &s, flat));
    // A transposed view: [6, 5] over a [5, 6] buffer.
    Tensor buf(empty({5, 6}, dt)), view;
    EK_OK(ek_view_transpose(buf, 0, 1, view.out()));
    EK_OK(ek_random(nullptr, dist, ek_scalar_int(-100), ek_scalar_int(100), &s, view));
    EXPECT_EQ(values_of(view), values_of(flat)) << ek_dtype_name(dt);
    // A reversed, stepped slice: [6, 5] out of [6, 10].
    Tensor wide(empty({6, 10}, dt)), sl;
    EK_OK(ek_view_slice(wide, 1, EK_SLICE_MAX, EK_SLICE_MIN, -2, sl.out()));
    EK_OK(ek_random(nullptr, dist, ek_scalar_int(-100), ek_scalar_int(100), &s, sl));
    EXPECT_EQ(values_of(sl), values_of(flat)) << ek_dtype_name(dt);
  }
  Tensor scalar(empty({}, EK_FLOAT64)), one(empty({1}, EK_FLOAT64));
  EK_OK(ek_random(nullptr, EK_RANDOM_UNIFORM, ek_scalar_int(0), ek_scalar_int(1), &s, scalar));
  EK_OK(ek_random(nullptr, EK_RANDOM_UNIFORM, ek_scalar_int(0), ek_scalar_int(1), &s, one));
  EXPECT_EQ(values_of(scalar), values_of(one));
}

// A size-1 dim with a stride near INT64_MAX / 4: the CPU walk used to
// overflow int64 stepping past it (UBSan); the values match a plain fill.
TEST_P(Random, HugeStrideOfASizeOneDim) {
  const ek_philox_state s{sizeof(ek_philox_state), 7, 0};
  const int64_t shape[2] = {2, 1}, strides[2] = {1, INT64_MAX / 4};
  Tensor flat(empty({2, 1}, EK_FLOAT32)), buf(empty({2}, EK_FLOAT32)), view;
  EK_OK(ek_view_as_strided(buf, 2, shape, strides, 0, view.out()));
  EK_OK(ek_random(nullptr, EK_RANDOM_UNIFORM, ek_scalar_int(0), ek_scalar_int(1), &s, flat));
  EK_OK(ek_random(nullptr, EK_RANDOM_UNIFORM, ek_scalar_int(0), ek_scalar_int(1), &s, view));
  EXPECT_EQ(values_of(view), values_of(flat));
}

TEST_P(Random, ContextGeneratorAdvancesAndReseeds) {
  ek_philox_state st = state();
  EXPECT_EQ(st.seed, kDefaultSeed);
  EXPECT_EQ(st.offset, 0u);
  auto first = draw(EK_RANDOM_UNIFORM, 0, 1, EK_FLOAT32, 10, nullptr);
  EXPECT_EQ(state().offset, 10u);
  auto second = draw(EK_RANDOM_UNIFORM, 0, 1, EK_FLOAT32, 7, nullptr);
  EXPECT_EQ(state().offset, 17u);
  const ek_philox_state at10{sizeof(ek_philox_state), kDefaultSeed, 10};
  EXPECT_EQ(second, draw(EK_RANDOM_UNIFORM, 0, 1, EK_FLOAT32, 7, &at10)) << "the second fill continues the first";
  EXPECT_NE(first[0], second[0]);
  EXPECT_EQ(state().offset, 17u) << "an explicit state leaves the generator alone";
  EK_OK(ek_random_set_seed(ctx, 42));
  st = state();
  EXPECT_EQ(st.seed, 42u);
  EXPECT_EQ(st.offset, 0u);
  auto a = draw(EK_RANDOM_NORMAL, 0, 1, EK_FLOAT64, 50, nullptr);
  EK_OK(ek_random_set_seed(ctx, 42));
  EXPECT_EQ(a, draw(EK_RANDOM_NORMAL, 0, 1, EK_FLOAT64, 50, nullptr));
  EK_OK(ek_random_set_seed(ctx, 43));
  EXPECT_NE(a, draw(EK_RANDOM_NORMAL, 0, 1, EK_FLOAT64, 50, nullptr));
  // Failed calls and zero-size tensors leave the offset where it was.
  const ek_philox_state before = state();
  Tensor t(empty({5}, EK_FLOAT32)), none(empty({0, 4}, EK_FLOAT32));
  EK_FAILS(ek_random(nullptr, EK_RANDOM_UNIFORM, ek_scalar_int(1), ek_scalar_int(0), nullptr, t),
           EK_ERROR_INVALID_ARGUMENT, "uniform");
  EK_OK(ek_random(nullptr, EK_RANDOM_NORMAL, ek_scalar_int(0), ek_scalar_int(1), nullptr, none));
  EXPECT_EQ(state().offset, before.offset);
  // The counter wraps modulo 2^64.
  const ek_philox_state end{sizeof(ek_philox_state), 5, ~uint64_t(0) - 1};
  const ek_philox_state start{sizeof(ek_philox_state), 5, 0};
  auto wrapped = draw(EK_RANDOM_RANDINT, 0, 1000, EK_INT64, 4, &end);
  auto from0 = draw(EK_RANDOM_RANDINT, 0, 1000, EK_INT64, 2, &start);
  EXPECT_EQ(wrapped[2], from0[0]);
  EXPECT_EQ(wrapped[3], from0[1]);
}

TEST_P(Random, BadInput) {
  Tensor f(empty({4}, EK_FLOAT32)), i(empty({4}, EK_INT32)), b(empty({4}, EK_BOOL)), h(empty({4}, EK_FLOAT16));
  const ek_philox_state s{sizeof(ek_philox_state), 1, 2};
  const double inf = INFINITY, nan = NAN;
  EK_FAILS(ek_random(nullptr, EK_RANDOM_UNIFORM, ek_scalar_int(0), ek_scalar_int(1), &s, nullptr),
           EK_ERROR_NULL_POINTER, "ek_random");
  EK_FAILS(
      ek_random(nullptr, static_cast<ek_random_dist>(7), ek_scalar_int(0), ek_scalar_int(1), &s, f),
      EK_ERROR_INVALID_ARGUMENT, "7");
  EK_FAILS(ek_random(nullptr, static_cast<ek_random_dist>(-1), ek_scalar_int(0), ek_scalar_int(1),
                     &s, f),
           EK_ERROR_INVALID_ARGUMENT, "-1");
  // dtypes
  EK_FAILS(ek_random(nullptr, EK_RANDOM_UNIFORM, ek_scalar_int(0), ek_scalar_int(1), &s, i),
           EK_ERROR_DTYPE, "int32");
  EK_FAILS(ek_random(nullptr, EK_RANDOM_NORMAL, ek_scalar_int(0), ek_scalar_int(1), &s, b),
           EK_ERROR_DTYPE, "bool");
  EK_FAILS(ek_random(nullptr, EK_RANDOM_RANDINT, ek_scalar_int(0), ek_scalar_int(2), &s, b),
           EK_ERROR_DTYPE, "non-bool");
  // parameters
  EK_FAILS(ek_random(nullptr, EK_RANDOM_UNIFORM, ek_scalar_int(1), ek_scalar_int(1), &s, f),
           EK_ERROR_INVALID_ARGUMENT, "a < b");
  EK_FAILS(ek_random(nullptr, EK_RANDOM_UNIFORM, ek_scalar_int(0), ek_scalar_float(inf), &s, f),
           EK_ERROR_INVALID_ARGUMENT, "finite");
  EK_FAILS(ek_random(nullptr, EK_RANDOM_UNIFORM, ek_scalar_float(nan), ek_scalar_int(1), &s, f),
           EK_ERROR_INVALID_ARGUMENT, "uniform");
  EK_FAILS(
      ek_random(nullptr, EK_RANDOM_UNIFORM, ek_scalar_float(-1e308), ek_scalar_float(1e308), &s, f),
      EK_ERROR_INVALID_ARGUMENT, "b - a");
  EK_FAILS(ek_random(nullptr, EK_RANDOM_NORMAL, ek_scalar_int(0), ek_scalar_int(-1), &s, f),
           EK_ERROR_INVALID_ARGUMENT, "std -1");
  EK_FAILS(ek_random(nullptr, EK_RANDOM_NORMAL, ek_scalar_float(nan), ek_scalar_int(1), &s, f),
           EK_ERROR_INVALID_ARGUMENT, "normal");
  EK_FAILS(ek_random(nullptr, EK_RANDOM_BERNOULLI, ek_scalar_float(1.5), ek_scalar_int(0), &s, f),
           EK_ERROR_INVALID_ARGUMENT, "1.5");
  EK_FAILS(ek_random(nullptr, EK_RANDOM_BERNOULLI, ek_scalar_float(-0.1), ek_scalar_int(0), &s, b),
           EK_ERROR_INVALID_ARGUMENT, "[0, 1]");
  EK_FAILS(ek_random(nullptr, EK_RANDOM_BERNOULLI, ek_scalar_float(nan), ek_scalar_int(0), &s, b),
           EK_ERROR_INVALID_ARGUMENT, "bernoulli");
  EK_FAILS(ek_random(nullptr, EK_RANDOM_RANDINT, ek_scalar_float(0.5), ek_scalar_int(3), &s, i),
           EK_ERROR_INVALID_ARGUMENT, "integers");
  EK_FAILS(ek_random(nullptr, EK_RANDOM_RANDINT, ek_scalar_int(3), ek_scalar_int(3), &s, i),
           EK_ERROR_INVALID_ARGUMENT, "b > a");
  EK_FAILS(
      ek_random(nullptr, EK_RANDOM_RANDINT, ek_scalar_int(0), ek_scalar_float(0x1p31 + 1), &s, i),
      EK_ERROR_INVALID_ARGUMENT, "int32");
  EK_FAILS(ek_random(nullptr, EK_RANDOM_RANDINT, ek_scalar_int(-1), ek_scalar_int(3), &s,
                     Tensor(empty({2}, EK_UINT8))),
           EK_ERROR_INVALID_ARGUMENT, "uint8");
  EK_FAILS(ek_random(nullptr, EK_RANDOM_RANDINT, ek_scalar_int(0), ek_scalar_int(4096), &s, h),
           EK_ERROR_INVALID_ARGUMENT, "float16");
  EK_FAILS(ek_random(nullptr, EK_RANDOM_RANDINT, ek_scalar_int(0), ek_scalar_float(inf), &s, i),
           EK_ERROR_INVALID_ARGUMENT, "randint");
  // A broadcast view's elements alias.
  Tensor one(empty({1}, EK_FLOAT32)), bcast;
  const int64_t four = 4;
  EK_OK(ek_view_expand(one, 1, &four, bcast.out()));
  EK_FAILS(ek_random(nullptr, EK_RANDOM_UNIFORM, ek_scalar_int(0), ek_scalar_int(1), &s, bcast),
           EK_ERROR_INVALID_ARGUMENT, "broadcast");
  // The generator functions.
  ek_philox_state out = EK_PHILOX_STATE_INIT;
  EK_FAILS(ek_random_set_seed(nullptr, 1), EK_ERROR_NULL_POINTER, "ek_random_set_seed");
  EK_FAILS(ek_random_get_state(nullptr, &out), EK_ERROR_NULL_POINTER, "ek_random_get_state");
  EK_FAILS(ek_random_get_state(ctx, nullptr), EK_ERROR_NULL_POINTER, "state");
}

}  // namespace
