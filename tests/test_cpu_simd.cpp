// The CPU's per-ISA hot loops (src/cpu/simd.hpp): every level the machine
// has gives the same bits as the baseline one, and the vector exp keeps its
// documented error bound (src/cpu/vecmath.hpp) with exact special cases.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "cpu/simd.hpp"
#include "cpu/vecmath.hpp"
#include "ops/reduce_plan.hpp"
#include "ops/tensor_desc.hpp"
#include "util/half.hpp"

namespace {

using ek::cpu::simd::Isa;
using ek::cpu::simd::Kernels;

std::vector<const Kernels *> levels() {
  std::vector<const Kernels *> k;
  for (int l = 0; l < ek::cpu::simd::kIsaCount; ++l)
    if (const Kernels *t = ek::cpu::simd::kernels_for(static_cast<Isa>(l))) k.push_back(t);
  return k;
}

uint32_t bits(float f) {
  uint32_t u;
  std::memcpy(&u, &f, 4);
  return u;
}
float from_bits(uint32_t u) {
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}

// |got - exact| in units of the float spacing at exact (2^-149 for denormal
// results); a result beyond FLT_MAX counts as 1 ulp past it.
double ulp_error(float got, long double exact) {
  if (std::isinf(got)) return exact > std::numeric_limits<float>::max() ? 0 : 1e9;
  int e;
  std::frexp(static_cast<double>(exact), &e);  // exact = m 2^e, m in [0.5, 1)
  const long double ulp = std::ldexp(1.0L, std::max(e - 24, -149));
  return static_cast<double>(std::fabs(static_cast<long double>(got) - exact) / ulp);
}

// Inputs: every 251st float in [-104, 89] (denormal results included) plus
// the edges.
std::vector<float> exp_inputs() {
  std::vector<float> x;
  for (uint32_t u = 0; u <= bits(89.0f); u += 251) x.push_back(from_bits(u));
  for (uint32_t u = 0x80000000u; u <= bits(-104.0f); u += 251) x.push_back(from_bits(u));
  const float inf = std::numeric_limits<float>::infinity();
  for (float v : {0.0f, -0.0f, inf, -inf, 88.72283f, 88.72284f, 88.7228394f, -87.33654f, -103.9720840f,
                  -103.97209f, -104.0f, -150.0f, 89.0f, 1e-45f, -1e-45f, 1e-8f, -1e-8f, 0.5f, 1.0f, -1.0f})
    x.push_back(v);
  return x;
}

// On the baseline level; the others give its bits (ExpLevelsAgreeBitForBit).
TEST(CpuSimd, ExpWithinOneUlp) {
  const std::vector<float> x = exp_inputs();
  for (const Kernels *k : {levels().front()}) {
    std::vector<float> y(x.size());
    k->exp_f32(y.data(), x.data(), static_cast<int64_t>(x.size()), false);
    double worst = 0;
    float at = 0;
    for (size_t i = 0; i < x.size(); ++i) {
      const double err = ulp_error(y[i], std::exp(static_cast<long double>(x[i])));
      if (err > worst) worst = err, at = x[i];
    }
    EXPECT_LE(worst, 1.0) << "at x = " << at;
    std::printf("exp f32 max error %.3f ulp (x = %.9g)\n", worst, at);
  }
}

TEST(CpuSimd, ExpSpecialCasesAreExact) {
  const float inf = std::numeric_limits<float>::infinity(), nan = std::numeric_limits<float>::quiet_NaN();
  const std::vector<float> x = {0.0f, -0.0f, inf, -inf, nan, -nan, 89.0f, 1e30f, -105.0f, -1e30f};
  const std::vector<float> want = {1.0f, 1.0f, inf, 0.0f, nan, -nan, inf, inf, 0.0f, 0.0f};
  for (const Kernels *k : levels()) {
    std::vector<float> y(x.size());
    k->exp_f32(y.data(), x.data(), static_cast<int64_t>(x.size()), false);
    for (size_t i = 0; i < x.size(); ++i) {
      if (std::isnan(want[i]))
        EXPECT_TRUE(std::isnan(y[i])) << "exp(" << x[i] << ") = " << y[i];
      else
        EXPECT_EQ(bits(y[i]), bits(want[i])) << "exp(" << x[i] << ") = " << y[i];
    }
  }
}

TEST(CpuSimd, ExpLevelsAgreeBitForBit) {
  std::vector<float> x = exp_inputs();
  x.resize(x.size() - 3);  // a length that leaves a scalar tail on every level
  std::vector<float> want(x.size()), got(x.size());
  levels().front()->exp_f32(want.data(), x.data(), static_cast<int64_t>(x.size()), false);
  for (const Kernels *k : levels())
    for (bool stream : {false, true}) {
      k->exp_f32(got.data(), x.data(), static_cast<int64_t>(x.size()), stream);
      EXPECT_EQ(std::memcmp(got.data(), want.data(), 4 * x.size()), 0) << "stream " << stream;
    }
  // The scalar code of the tails is the vector code's lanes.
  for (size_t i = 0; i < x.size(); i += 997) EXPECT_EQ(bits(ek::cpu::vecmath::exp_f32(x[i])), bits(want[i]));
}

// Long runs with and without streaming stores (simd.hpp: kStreamBytes), out
// at several float offsets from a vector boundary (a scalar head), odd
// lengths (a tail), NaN and inf among the inputs, out == in: each element is
// the scalar code's exp of its input, the NaN's bits included.
TEST(CpuSimd, ExpLongRunsAtAnyAlignment) {
  const std::vector<float> pool = exp_inputs();
  const float inf = std::numeric_limits<float>::infinity();
  const int64_t n = (int64_t(1) << 18) + 37;
  std::vector<float> x(n + 16), y(n + 16);
  for (int64_t i = 0; i < n + 16; ++i) x[i] = pool[(i * 7919) % pool.size()];
  x[3] = std::nanf("7"), x[40] = -std::nanf("3"), x[n - 2] = inf, x[n / 2] = -inf;
  x[n - 1] = from_bits(0x7f800001u);  // a signaling NaN, in the tail: its bits pass
  for (const Kernels *k : levels())
    for (int64_t shift : {0, 1, 5, 15}) {
      const bool stream = shift != 5;
      k->exp_f32(y.data() + shift, x.data() + 1, n, stream);
      for (int64_t i = 0; i < n; ++i)
        ASSERT_EQ(bits(y[shift + i]), bits(ek::cpu::vecmath::exp_f32(x[1 + i]))) << "shift " << shift << " i " << i;
      std::vector<float> inplace(x.begin() + shift, x.begin() + shift + n);
      k->exp_f32(inplace.data(), inplace.data(), n, stream);
      for (int64_t i = 0; i < n; ++i)
        ASSERT_EQ(bits(inplace[i]), bits(ek::cpu::vecmath::exp_f32(x[shift + i]))) << "in place, i " << i;
    }
}

// Random float bytes of each dtype slot, some negative, a few NaN-free
// extremes; the leaves and the row leaves of every level against baseline.
TEST(CpuSimd, SumLeavesAgreeBitForBit) {
  std::mt19937 rng(11);
  std::normal_distribution<double> dist(0.0, 100.0);
  const int dtypes[] = {ek::kF32, ek::kF64, ek::kF16, ek::kBF16};
  const int64_t rows = 300, w = 37;  // odd sizes: vector bodies and scalar tails
  std::vector<double> vals(rows * w), centers(w);
  for (double &v : vals) v = dist(rng);
  for (double &c : centers) c = dist(rng);
  for (int dt : dtypes) {
    const int slot = ek::cpu::simd::dtype_slot(dt);
    std::vector<char> buf(vals.size() * ek::dtype_size(dt));
    for (size_t i = 0; i < vals.size(); ++i) ek::detail::store_scalar(buf.data() + i * ek::dtype_size(dt), dt, ek::detail::scalar_float(vals[i]));
    const int64_t row_bytes = w * static_cast<int64_t>(ek::dtype_size(dt));
    for (int kind = ek::kRSum; kind <= ek::kRSumSqDev; ++kind) {
      std::vector<double> want(w), got(w), acc(ek::cpu::simd::kLanes * w);
      const Kernels *base = levels().front();
      const double leaf_want = base->leaf[slot][kind](buf.data(), rows * w - 5, centers[0]);
      base->rows_leaf[slot][kind](buf.data(), row_bytes, rows, w, centers.data(), acc.data(), want.data());
      for (const Kernels *k : levels()) {
        const double leaf_got = k->leaf[slot][kind](buf.data(), rows * w - 5, centers[0]);
        EXPECT_EQ(std::memcmp(&leaf_got, &leaf_want, 8), 0) << "dtype " << dt << " kind " << kind;
        k->rows_leaf[slot][kind](buf.data(), row_bytes, rows, w, centers.data(), acc.data(), got.data());
        EXPECT_EQ(std::memcmp(got.data(), want.data(), 8 * w), 0) << "dtype " << dt << " kind " << kind;
        // One column of a row leaf is a contiguous leaf: the same order.
        double one = 0;
        const auto es = static_cast<int64_t>(ek::dtype_size(dt));
        k->rows_leaf[slot][kind](buf.data(), es, rows * w - 5, 1, centers.data(), acc.data(), &one);
        EXPECT_EQ(std::memcmp(&one, &leaf_want, 8), 0) << "dtype " << dt << " kind " << kind;
      }
    }
  }
}

// Softmax rows of several lengths (vector bodies and tails), one with a NaN
// and one of -inf: every level gives the baseline's bits, rows sum to 1.
TEST(CpuSimd, SoftmaxLevelsAgreeBitForBit) {
  std::mt19937 rng(5);
  std::normal_distribution<float> dist(0.0f, 4.0f);
  for (int64_t n : {1, 7, 16, 33, 1000, 4099}) {
    std::vector<float> x(n);
    for (float &v : x) v = dist(rng);
    for (int log_softmax : {0, 1}) {
      std::vector<float> want(n), got(n);
      levels().front()->softmax_f32(want.data(), x.data(), n, log_softmax);
      double total = 0;
      for (float v : want) total += log_softmax ? std::exp(static_cast<double>(v)) : v;
      EXPECT_NEAR(total, 1.0, 1e-5) << "n " << n;
      for (const Kernels *k : levels()) {
        k->softmax_f32(got.data(), x.data(), n, log_softmax);
        EXPECT_EQ(std::memcmp(got.data(), want.data(), 4 * n), 0) << "n " << n << " log " << log_softmax;
        std::vector<float> inplace = x;  // out == in
        k->softmax_f32(inplace.data(), inplace.data(), n, log_softmax);
        EXPECT_EQ(std::memcmp(inplace.data(), want.data(), 4 * n), 0) << "in place, n " << n;
      }
    }
  }
  const float inf = std::numeric_limits<float>::infinity();
  for (const std::vector<float> &row : {std::vector<float>{1, std::nanf(""), 2}, std::vector<float>{-inf, -inf}}) {
    std::vector<float> y(row.size());
    for (const Kernels *k : levels()) {
      k->softmax_f32(y.data(), row.data(), static_cast<int64_t>(row.size()), 0);
      for (float v : y) EXPECT_TRUE(std::isnan(v));
    }
  }
}

// add/sub/mul/div, run or single value on either side: every level gives
// plain IEEE float arithmetic, element by element, with and without
// streaming stores (the long run's out off a vector boundary).
TEST(CpuSimd, BinaryMatchesScalarArithmetic) {
  std::mt19937 rng(9);
  std::normal_distribution<float> dist(0.0f, 10.0f);
  const float va = 2.5f, vb = -0.75f;
  for (int64_t n : {int64_t(1003), (int64_t(1) << 18) + 13}) {
    std::vector<float> a(n), b(n), out(n + 1);
    for (int64_t i = 0; i < n; ++i) a[i] = dist(rng), b[i] = dist(rng);
    a[5] = std::nanf(""), b[6] = 0.0f, a[7] = -0.0f;
    float *got = out.data() + (n > 1003 ? 1 : 0);  // off a vector boundary for the long run
    for (const Kernels *k : levels())
      for (int op = 0; op < ek::cpu::simd::kBinaryOps; ++op)
        for (int step = 0; step < ek::cpu::simd::kBinarySteps; ++step) {
          const char *pa = reinterpret_cast<const char *>(a.data()), *pb = reinterpret_cast<const char *>(b.data());
          k->binary_f32[op][step](reinterpret_cast<char *>(got), step == 2 ? nullptr : pa,
                                  step == 1 ? nullptr : pb, va, vb, n, (op + step) % 2 == 1);
          for (int64_t i = 0; i < n; ++i) {
            const float x = step == 2 ? va : a[i], y = step == 1 ? vb : b[i];
            const float want = op == 0 ? x + y : op == 1 ? x - y : op == 2 ? x * y : x / y;
            ASSERT_EQ(bits(got[i]), bits(want)) << "op " << op << " step " << step << " n " << n << " i " << i;
          }
        }
  }
}

}  // namespace
