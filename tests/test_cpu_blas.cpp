// The CPU's BLAS path (src/cpu/blas.cpp) against the built-in loops
// (cpu::gemm_loops) on the same plans: transposes and leading dims, batches
// (broadcast operands included), alpha/beta, beta == 0 over NaN, k == 0, 1x1
// and non-square shapes; and how EK_BLAS / EK_BLAS_LIBRARY choose a library.
// Runs on whichever BLAS the environment loads (skipped when none does):
// EK_BLAS_LIBRARY=/path/libblas.so.3 checks another one.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "cpu/blas.hpp"
#include "cpu/matmul.hpp"

namespace {
using namespace ek;

#define SKIP_WITHOUT_BLAS()                                                         \
  if (!cpu::blas::library().usable()) GTEST_SKIP() << "no BLAS: " << cpu::blas::library().what

// One plan's storage: A, B and C column-major with the given leading dims
// (padded), batch problems `stride` elements apart (stride 0: one shared).
struct Case {
  int64_t m, n, k, batch = 1;
  bool ta = false, tb = false;
  int64_t pad = 0;                 // added to each leading dim
  bool share_a = false, share_b = false;  // stride 0: one matrix for every problem
  double alpha = 1, beta = 0;
};

template <typename T>
struct Storage {
  std::vector<T> a, b, c;
  GemmPlan plan;
};

template <typename T>
Storage<T> make(const Case &c, uint32_t seed, T c_fill) {
  Storage<T> s;
  GemmPlan &p = s.plan;
  p.dtype = sizeof(T) == 4 ? kF32 : kF64;
  p.m = c.m;
  p.n = c.n;
  p.k = c.k;
  p.batch = c.batch;
  p.trans_a = c.ta;
  p.trans_b = c.tb;
  p.alpha = c.alpha;
  p.beta = c.beta;
  const int64_t a_rows = c.ta ? c.k : c.m, a_cols = c.ta ? c.m : c.k;
  const int64_t b_rows = c.tb ? c.n : c.k, b_cols = c.tb ? c.k : c.n;
  p.lda = std::max<int64_t>(1, a_rows) + c.pad;
  p.ldb = std::max<int64_t>(1, b_rows) + c.pad;
  p.ldc = std::max<int64_t>(1, c.m) + c.pad;
  p.stride_a = c.share_a ? 0 : p.lda * a_cols;
  p.stride_b = c.share_b ? 0 : p.ldb * b_cols;
  p.stride_c = p.ldc * c.n;
  std::mt19937 gen(seed);
  std::uniform_real_distribution<double> dist(-1, 1);
  s.a.resize(std::max<int64_t>(1, p.lda * a_cols * (c.share_a ? 1 : c.batch)));
  s.b.resize(std::max<int64_t>(1, p.ldb * b_cols * (c.share_b ? 1 : c.batch)));
  s.c.assign(std::max<int64_t>(1, p.stride_c * c.batch), c_fill);
  for (T &x : s.a) x = static_cast<T>(dist(gen));
  for (T &x : s.b) x = static_cast<T>(dist(gen));
  if (!std::isnan(static_cast<double>(c_fill)))
    for (T &x : s.c) x = static_cast<T>(dist(gen));
  p.a = s.a.data();
  p.b = s.b.data();
  p.c = s.c.data();
  return s;
}

// BLAS and loops on copies of one case; C must agree within the rounding of
// the f32 (or f64) sums over k, relative to |alpha| k + |beta| (inputs in [-1, 1]).
template <typename T>
void expect_same(const Case &c, T c_fill = T(0)) {
  Storage<T> blas = make<T>(c, 7, c_fill), loops = make<T>(c, 7, c_fill);
  const cpu::blas::Library &lib = cpu::blas::library();
  ASSERT_TRUE(cpu::blas::accepts(lib, blas.plan));
  cpu::blas::gemm(lib, blas.plan);
  ASSERT_EQ(cpu::gemm_loops(loops.plan), 0);
  const double eps = std::numeric_limits<T>::epsilon();
  const double tol = 4 * eps * (std::fabs(c.alpha) * static_cast<double>(c.k + 1) + std::fabs(c.beta) + 1);
  int bad = 0;
  for (size_t i = 0; i < blas.c.size() && bad < 5; ++i) {
    const double got = blas.c[i], want = loops.c[i];
    const bool ok = std::isnan(want) ? std::isnan(got) : std::fabs(got - want) <= tol;
    bad += !ok;
    EXPECT_TRUE(ok) << "element " << i << ": BLAS " << got << ", loops " << want << " (m=" << c.m
                    << " n=" << c.n << " k=" << c.k << " batch=" << c.batch << " ta=" << c.ta
                    << " tb=" << c.tb << ")";
  }
}

TEST(CpuBlas, TransposesAndLeadingDims) {
  SKIP_WITHOUT_BLAS();
  for (bool ta : {false, true})
    for (bool tb : {false, true})
      for (int64_t pad : {0, 3}) {
        expect_same<float>({37, 53, 29, 1, ta, tb, pad});
        expect_same<double>({37, 53, 29, 1, ta, tb, pad});
      }
}

TEST(CpuBlas, Shapes) {
  SKIP_WITHOUT_BLAS();
  for (const Case &c : {Case{1, 1, 1}, Case{1, 1, 300}, Case{1, 70, 5}, Case{70, 1, 5},
                        Case{200, 3, 130}, Case{3, 200, 130}, Case{129, 257, 65}}) {
    expect_same<float>(c);
    expect_same<double>(c);
  }
}

TEST(CpuBlas, Batches) {
  SKIP_WITHOUT_BLAS();
  for (bool share_a : {false, true})
    for (bool share_b : {false, true}) {
      Case c{9, 11, 13, 5, false, true, 2};
      c.share_a = share_a;
      c.share_b = share_b;
      expect_same<float>(c);
      expect_same<double>(c);
    }
}

TEST(CpuBlas, AlphaBeta) {
  SKIP_WITHOUT_BLAS();
  for (double alpha : {1.0, -2.5, 0.5})
    for (double beta : {0.0, 1.0, -0.75}) {
      Case c{17, 19, 23, 2, true, false, 1};
      c.alpha = alpha;
      c.beta = beta;
      expect_same<float>(c);
      expect_same<double>(c);
    }
}

// beta == 0 must not read C: NaN there is overwritten, as ek_gemm documents.
TEST(CpuBlas, BetaZeroIgnoresNanInC) {
  SKIP_WITHOUT_BLAS();
  for (int64_t k : {0, 1, 40}) {
    Case c{6, 7, k, 3, false, false, 2};
    c.alpha = 1.5;
    Storage<float> s = make<float>(c, 3, std::numeric_limits<float>::quiet_NaN());
    cpu::blas::gemm(cpu::blas::library(), s.plan);
    for (int64_t q = 0; q < c.batch; ++q)
      for (int64_t j = 0; j < c.n; ++j)
        for (int64_t i = 0; i < c.m; ++i)
          EXPECT_FALSE(std::isnan(s.c[q * s.plan.stride_c + j * s.plan.ldc + i]))
              << "k=" << k << " at (" << q << ", " << i << ", " << j << ")";
    expect_same<double>(c, std::numeric_limits<double>::quiet_NaN());
  }
}

// k == 0 leaves beta * C (zeros for beta == 0).
TEST(CpuBlas, EmptyInnerDim) {
  SKIP_WITHOUT_BLAS();
  Case c{4, 5, 0, 2};
  c.beta = 0.5;
  expect_same<float>(c);
  c.beta = 0;
  expect_same<double>(c);
}

// cpu::gemm sends f32/f64 to the BLAS and f16/bf16 to the loops; both give
// the same products.
TEST(CpuBlas, DispatchByDtype) {
  const cpu::blas::Library &lib = cpu::blas::library();
  GemmPlan p;
  for (int dt : {kF16, kBF16, kI32}) {
    p.dtype = dt;
    EXPECT_FALSE(cpu::blas::accepts(lib, p)) << dt;
  }
  p.dtype = kF32;
  EXPECT_EQ(cpu::blas::accepts(lib, p), lib.usable());
  p.m = int64_t(1) << 31;  // beyond CBLAS's int: the loops
  EXPECT_FALSE(cpu::blas::accepts(lib, p));

  Case c{13, 9, 21, 2, true, false, 1};
  Storage<float> via = make<float>(c, 5, 0.f), loops = make<float>(c, 5, 0.f);
  ASSERT_EQ(cpu::gemm(via.plan), 0);
  ASSERT_EQ(cpu::gemm_loops(loops.plan), 0);
  for (size_t i = 0; i < via.c.size(); ++i) EXPECT_NEAR(via.c[i], loops.c[i], 1e-5) << i;
}

TEST(CpuBlas, EnvironmentChoosesTheLibrary) {
  for (const char *off : {"0", "off", "OFF"}) {
    cpu::blas::Library lib = cpu::blas::load(off, nullptr);
    EXPECT_FALSE(lib.usable()) << off;
    EXPECT_FALSE(lib.override_failed);
    EXPECT_NE(lib.what.find("EK_BLAS="), std::string::npos) << lib.what;
  }
  cpu::blas::Library missing = cpu::blas::load(nullptr, "/nonexistent/libnoblas.so");
  EXPECT_FALSE(missing.usable());
  EXPECT_TRUE(missing.override_failed);
  EXPECT_NE(missing.what.find("/nonexistent/libnoblas.so"), std::string::npos) << missing.what;
  // A library without CBLAS (libm) is refused, naming what it lacks.
  cpu::blas::Library no_cblas = cpu::blas::load("1", "libm.so.6");
  EXPECT_FALSE(no_cblas.usable());
  EXPECT_NE(no_cblas.what.find("cblas_sgemm"), std::string::npos) << no_cblas.what;
  const cpu::blas::Library &used = cpu::blas::library();
  if (used.usable()) {  // the same file, named explicitly, loads again
    cpu::blas::Library again = cpu::blas::load("1", used.what.c_str());
    EXPECT_TRUE(again.usable()) << again.what;
    EXPECT_EQ(again.what, used.what);
  }
}

}  // namespace
