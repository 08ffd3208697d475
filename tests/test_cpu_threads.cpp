// The CPU backend's worker threads (src/cpu/thread_pool.cpp): the same ops on
// a context with one thread and on one with four give the same bytes, for
// inputs large enough to be split (elementwise with and without broadcast,
// casts, copies, where, full sums and means, row and column sums, scans); and the
// num_threads config field and EK_NUM_THREADS. Threaded: scripts/test.sh runs
// it under ThreadSanitizer.
#include <cstddef>
#include <cstring>
#include <thread>
#include <vector>

#include "ek_test.hpp"

namespace {
using namespace ektest;

// Large enough to be split over threads (cpu/thread_pool.hpp: kParallelMin
// is 2^18), odd so that chunks and vector loops end mid-run.
constexpr int64_t kRows = 613, kCols = 1031;

ek_context cpu_context(int threads) {
  ek_context_config cfg = EK_CONTEXT_CONFIG_INIT;
  cfg.num_threads = threads;
  ek_context c = nullptr;
  EXPECT_EQ(ek_context_create(ek_device{EK_CPU, 0}, &cfg, &c), EK_SUCCESS) << ek_last_error();
  return c;
}

std::vector<uint8_t> bytes_of(ek_tensor t) {
  const ek_tensor_info info = info_of(t);
  std::vector<uint8_t> out(static_cast<size_t>(info.numel) * ek_dtype_size(info.dtype));
  EXPECT_EQ(ek_tensor_to_host(nullptr, t, out.data(), out.size()), EK_SUCCESS) << ek_last_error();
  return out;
}

// Inputs on one context; `run` makes the op's result from them.
struct Inputs {
  Inputs(ek_context ctx, ek_dtype dt) : c(ctx) {
    const size_t n = static_cast<size_t>(kRows * kCols);
    a.t = make(c, {kRows, kCols}, dt, random_values(n, 1, -4, 4));
    b.t = make(c, {kRows, kCols}, dt, random_values(n, 2, 0.5, 3));
    row.t = make(c, {kCols}, dt, random_values(kCols, 3, -1, 1));
    cond.t = make(c, {kRows, kCols}, EK_BOOL, random_values(n, 4, -1, 1));
  }
  ek_context c;
  Tensor a, b, row, cond;
};

class CpuThreads : public testing::Test {
 protected:
  void SetUp() override {
    one_ = cpu_context(1);
    four_ = cpu_context(4);
  }
  void TearDown() override {
    ek_context_destroy(one_);
    ek_context_destroy(four_);
  }

  // The op's result bytes on both contexts, which must be equal.
  template <typename Op>
  void same_bytes(const char *what, ek_dtype dt, Op op) {
    Inputs i1(one_, dt), i4(four_, dt);
    Tensor r1, r4;
    ASSERT_EQ(op(i1, r1.out()), EK_SUCCESS) << what << ": " << ek_last_error();
    ASSERT_EQ(op(i4, r4.out()), EK_SUCCESS) << what << ": " << ek_last_error();
    EXPECT_TRUE(bytes_of(r1) == bytes_of(r4)) << what << " differs between 1 and 4 threads";
  }

  ScopedEnv env_{"EK_NUM_THREADS", nullptr};
  ek_context one_ = nullptr, four_ = nullptr;
};

TEST_F(CpuThreads, ElementwiseSameBits) {
  for (ek_dtype dt : {EK_FLOAT32, EK_FLOAT64, EK_FLOAT16, EK_INT32}) {
    same_bytes("add", dt, [](Inputs &i, ek_tensor *o) { return ek_binary(nullptr, EK_BINARY_ADD, i.a, i.b, o); });
    same_bytes("mul by a broadcast row", dt,
               [](Inputs &i, ek_tensor *o) { return ek_binary(nullptr, EK_BINARY_MUL, i.a, i.row, o); });
    same_bytes("abs", dt, [](Inputs &i, ek_tensor *o) { return ek_unary(nullptr, EK_UNARY_ABS, i.a, o); });
  }
  same_bytes("exp", EK_FLOAT32, [](Inputs &i, ek_tensor *o) { return ek_unary(nullptr, EK_UNARY_EXP, i.a, o); });
  same_bytes("tanh", EK_FLOAT64, [](Inputs &i, ek_tensor *o) { return ek_unary(nullptr, EK_UNARY_TANH, i.a, o); });
}

TEST_F(CpuThreads, CastsAndCopiesSameBits) {
  for (ek_dtype to : {EK_FLOAT16, EK_BFLOAT16, EK_FLOAT64, EK_INT32})
    same_bytes("cast", EK_FLOAT32, [to](Inputs &i, ek_tensor *o) { return ek_cast(nullptr, i.a, to, o); });
  same_bytes("copy", EK_FLOAT32, [](Inputs &i, ek_tensor *o) {
    const int64_t shape[] = {kRows, kCols};
    const ek_status s = ek_tensor_empty(nullptr, i.c, 2, shape, EK_FLOAT32, o);
    return s != EK_SUCCESS ? s : ek_copy(nullptr, i.a, *o);
  });
  same_bytes("transpose to contiguous", EK_FLOAT32, [](Inputs &i, ek_tensor *o) {
    const int64_t shape[] = {kCols, kRows};
    Tensor t;
    ek_status st = ek_view_transpose(i.a, 0, 1, t.out());
    if (st == EK_SUCCESS) st = ek_tensor_empty(nullptr, i.c, 2, shape, EK_FLOAT32, o);
    return st != EK_SUCCESS ? st : ek_copy(nullptr, t, *o);
  });
}

TEST_F(CpuThreads, WhereSameBits) {
  for (ek_dtype dt : {EK_FLOAT32, EK_INT64}) {
    same_bytes("where", dt, [](Inputs &i, ek_tensor *o) { return ek_where(nullptr, i.cond, i.a, i.b, o); });
    same_bytes("where with a broadcast row", dt,
               [](Inputs &i, ek_tensor *o) { return ek_where(nullptr, i.cond, i.row, i.b, o); });
  }
}

TEST_F(CpuThreads, ReductionsSameBits) {
  static const int kRowDim[] = {1}, kColDim[] = {0};
  for (ek_dtype dt : {EK_FLOAT32, EK_FLOAT64, EK_FLOAT16, EK_BFLOAT16}) {
    same_bytes("sum", dt, [](Inputs &i, ek_tensor *o) { return ek_reduce(nullptr, EK_REDUCE_SUM, i.a, 0, nullptr, 0, o); });
    same_bytes("mean", dt, [](Inputs &i, ek_tensor *o) { return ek_reduce(nullptr, EK_REDUCE_MEAN, i.a, 0, nullptr, 0, o); });
    same_bytes("norm_l2", dt,
               [](Inputs &i, ek_tensor *o) { return ek_reduce(nullptr, EK_REDUCE_NORM_L2, i.a, 0, nullptr, 0, o); });
    same_bytes("row sums", dt,
               [](Inputs &i, ek_tensor *o) { return ek_reduce(nullptr, EK_REDUCE_SUM, i.a, 1, kRowDim, 0, o); });
    same_bytes("column sums", dt,
               [](Inputs &i, ek_tensor *o) { return ek_reduce(nullptr, EK_REDUCE_SUM, i.a, 1, kColDim, 0, o); });
    same_bytes("row max", dt,
               [](Inputs &i, ek_tensor *o) { return ek_reduce(nullptr, EK_REDUCE_MAX, i.a, 1, kRowDim, 0, o); });
  }
  same_bytes("int64 sum", EK_INT64,
             [](Inputs &i, ek_tensor *o) { return ek_reduce(nullptr, EK_REDUCE_SUM, i.a, 0, nullptr, 0, o); });
}

// The single-threaded sum is the pairwise reference (cpu/simd.hpp: halves
// down to leaves of at most 1024 elements, a leaf in 16 interleaved lanes
// added as a balanced tree): the split one must be it, not merely agree
// with another split run.
TEST_F(CpuThreads, SumMatchesPairwiseReference) {
  const int64_t n = kRows * kCols;
  const Values v = random_values(static_cast<size_t>(n), 7, -1, 1);
  std::vector<float> f(v.begin(), v.end());
  struct Pairwise {
    const double *x;
    double operator()(int64_t lo, int64_t hi) const {
      if (hi - lo <= 1024) {
        double lane[16] = {};
        for (int64_t k = lo; k < hi; ++k) lane[(k - lo) % 16] += x[k];
        for (int width = 16; width > 1; width /= 2)
          for (int j = 0; j < width / 2; ++j) lane[j] = lane[2 * j] + lane[2 * j + 1];
        return lane[0];
      }
      const int64_t mid = lo + (hi - lo) / 2;
      return (*this)(lo, mid) + (*this)(mid, hi);
    }
  };
  const std::vector<double> fd(f.begin(), f.end());  // the float32 values, exactly
  const float want = static_cast<float>(Pairwise{fd.data()}(0, n));
  Tensor x(upload(four_, {n}, EK_FLOAT32, f.data())), s;
  ASSERT_EQ(ek_reduce(nullptr, EK_REDUCE_SUM, x, 0, nullptr, 0, s.out()), EK_SUCCESS) << ek_last_error();
  const float got = to_host<float>(s)[0];
  EXPECT_EQ(std::memcmp(&got, &want, sizeof got), 0) << got << " vs " << want;
  // In float64 the double sum is the result itself: every bit of the order shows.
  const double want64 = Pairwise{v.data()}(0, n);
  Tensor x64(upload(four_, {n}, EK_FLOAT64, v.data())), s64;
  ASSERT_EQ(ek_reduce(nullptr, EK_REDUCE_SUM, x64, 0, nullptr, 0, s64.out()), EK_SUCCESS) << ek_last_error();
  const double got64 = to_host<double>(s64)[0];
  EXPECT_EQ(std::memcmp(&got64, &want64, sizeof got64), 0) << got64 << " vs " << want64;
}

// One summation order whatever the layout: column sums (whole rows added
// into lane vectors) are the row sums of the transposed copy, bit for bit.
TEST_F(CpuThreads, ColumnSumsMatchRowSumsOfTheTranspose) {
  const Values v = random_values(static_cast<size_t>(kRows * kCols), 3, -1, 1);
  Values t(v.size());
  for (int64_t r = 0; r < kRows; ++r)
    for (int64_t c = 0; c < kCols; ++c) t[c * kRows + r] = v[r * kCols + c];
  static const int kDim0[] = {0}, kDim1[] = {1};
  for (ek_reduce_op op : {EK_REDUCE_SUM, EK_REDUCE_MEAN, EK_REDUCE_NORM_L1, EK_REDUCE_NORM_L2}) {
    Tensor x(upload(four_, {kRows, kCols}, EK_FLOAT64, v.data())), xt(upload(four_, {kCols, kRows}, EK_FLOAT64, t.data()));
    Tensor cols, rows;
    ASSERT_EQ(ek_reduce(nullptr, op, x, 1, kDim0, 0, cols.out()), EK_SUCCESS) << ek_last_error();
    ASSERT_EQ(ek_reduce(nullptr, op, xt, 1, kDim1, 0, rows.out()), EK_SUCCESS) << ek_last_error();
    EXPECT_EQ(bytes_of(cols), bytes_of(rows)) << "op " << op;
  }
}

// Scans along rows (contiguous lines) and columns (lines side by side, in
// tiles): the same bytes on 1 and 4 threads, and float32 cumsum is the
// sequential double sum of each line rounded once per element, bit for bit.
TEST_F(CpuThreads, ScansSameBitsAndSequentialOrder) {
  for (int dim : {0, 1})
    for (ek_scan_op op : {EK_SCAN_SUM, EK_SCAN_PROD})
      for (ek_dtype dt : {EK_FLOAT32, EK_FLOAT64, EK_BFLOAT16, EK_INT64})
        same_bytes("scan", dt, [=](Inputs &i, ek_tensor *o) { return ek_scan(nullptr, op, i.a, dim, o); });
  const Values v = random_values(static_cast<size_t>(kRows * kCols), 9, -1, 1);
  const std::vector<float> f(v.begin(), v.end());
  Tensor x(upload(four_, {kRows, kCols}, EK_FLOAT32, f.data()));
  for (int dim : {0, 1}) {
    std::vector<float> want(f.size());
    const int64_t lines = dim == 0 ? kCols : kRows, n = dim == 0 ? kRows : kCols;
    for (int64_t l = 0; l < lines; ++l) {
      double acc = 0;
      for (int64_t k = 0; k < n; ++k) {
        const size_t at = static_cast<size_t>(dim == 0 ? k * kCols + l : l * kCols + k);
        acc = k == 0 ? f[at] : acc + f[at];
        want[at] = static_cast<float>(acc);
      }
    }
    Tensor c;
    ASSERT_EQ(ek_scan(nullptr, EK_SCAN_SUM, x, dim, c.out()), EK_SUCCESS) << ek_last_error();
    EXPECT_EQ(std::memcmp(to_host<float>(c).data(), want.data(), 4 * want.size()), 0) << "dim " << dim;
  }
}

// Outputs of 16 MiB or more take streaming stores (cpu/simd.hpp:
// kStreamBytes): exp and add of such a tensor on 1 and 4 threads give the
// bytes of the same ops on a small piece of it (normal stores).
TEST_F(CpuThreads, StreamedOutputsAreTheCachedOnesBits) {
  const int64_t rows = 2049, cols = 2048, piece = 1000;  // 2049 * 2048 * 4 bytes > 16 MiB
  const Values v = random_values(static_cast<size_t>(rows * cols), 12, -30, 30);
  const std::vector<float> f(v.begin(), v.end());
  for (ek_context c : {one_, four_}) {
    Tensor x(upload(c, {rows, cols}, EK_FLOAT32, f.data())), small(upload(c, {piece}, EK_FLOAT32, f.data()));
    Tensor e, es, s, ss;
    ASSERT_EQ(ek_unary(nullptr, EK_UNARY_EXP, x, e.out()), EK_SUCCESS) << ek_last_error();
    ASSERT_EQ(ek_unary(nullptr, EK_UNARY_EXP, small, es.out()), EK_SUCCESS) << ek_last_error();
    ASSERT_EQ(ek_binary(nullptr, EK_BINARY_ADD, x, x, s.out()), EK_SUCCESS) << ek_last_error();
    ASSERT_EQ(ek_binary(nullptr, EK_BINARY_ADD, small, small, ss.out()), EK_SUCCESS) << ek_last_error();
    EXPECT_EQ(std::memcmp(bytes_of(e).data(), bytes_of(es).data(), 4 * piece), 0);
    EXPECT_EQ(std::memcmp(bytes_of(s).data(), bytes_of(ss).data(), 4 * piece), 0);
  }
}

// Several threads calling ek_* on one threaded context at once share the pool.
TEST_F(CpuThreads, ConcurrentCallersShareThePool) {
  Inputs in(four_, EK_FLOAT32);
  Tensor ref;
  ASSERT_EQ(ek_binary(nullptr, EK_BINARY_ADD, in.a, in.b, ref.out()), EK_SUCCESS) << ek_last_error();
  const std::vector<uint8_t> want = bytes_of(ref);
  std::vector<std::thread> callers;
  std::vector<int> ok(3, 0);
  for (int t = 0; t < 3; ++t)
    callers.emplace_back([&, t] {
      for (int k = 0; k < 4; ++k) {
        ek_tensor r = nullptr;
        if (ek_binary(nullptr, EK_BINARY_ADD, in.a, in.b, &r) != EK_SUCCESS) return;
        std::vector<uint8_t> got(want.size());
        const bool same = ek_tensor_to_host(nullptr, r, got.data(), got.size()) == EK_SUCCESS && got == want;
        ek_tensor_release(r);
        if (!same) return;
      }
      ok[t] = 1;
    });
  for (auto &c : callers) c.join();
  for (int t = 0; t < 3; ++t) EXPECT_EQ(ok[t], 1) << "caller " << t;
}

// ----------------------------------------------------------------- config

int64_t configured_threads(ek_context c) {
  ek_context_config got = EK_CONTEXT_CONFIG_INIT;
  EXPECT_EQ(ek_context_get_config(c, &got), EK_SUCCESS) << ek_last_error();
  return got.num_threads;
}

TEST(CpuThreadsConfig, ReportsTheCountInUse) {
  ScopedEnv env("EK_NUM_THREADS", nullptr);
  ek_context c = cpu_context(3);
  EXPECT_EQ(configured_threads(c), 3);
  ek_context_destroy(c);
  c = cpu_context(0);  // not set: one per hardware thread
  const unsigned hw = std::thread::hardware_concurrency();
  EXPECT_EQ(configured_threads(c), hw > 0 ? static_cast<int64_t>(hw) : 1);
  ek_context_destroy(c);
}

// A caller compiled against ek.h 1.0 passes the 1.0 size: whatever lies in
// its memory after that (here a would-be count) is never read.
TEST(CpuThreadsConfig, AnOlderCallersStructEndsBeforeTheCount) {
  ScopedEnv env("EK_NUM_THREADS", nullptr);
  ek_context_config cfg = EK_CONTEXT_CONFIG_INIT;
  cfg.struct_size = offsetof(ek_context_config, num_threads);
  cfg.num_threads = -7;  // not the caller's: past its struct
  ek_context c = nullptr;
  ASSERT_EQ(ek_context_create(ek_device{EK_CPU, 0}, &cfg, &c), EK_SUCCESS) << ek_last_error();
  const unsigned hw = std::thread::hardware_concurrency();
  EXPECT_EQ(configured_threads(c), hw > 0 ? static_cast<int64_t>(hw) : 1);
  ek_context_destroy(c);
}

TEST(CpuThreadsConfig, EnvironmentIsHonouredAndTheFieldWins) {
  ScopedEnv env("EK_NUM_THREADS", "2");
  ek_context c = cpu_context(0);
  EXPECT_EQ(configured_threads(c), 2);
  ek_context_destroy(c);
  c = cpu_context(5);
  EXPECT_EQ(configured_threads(c), 5);
  ek_context_destroy(c);
  ASSERT_EQ(ek_context_create(ek_device{EK_CPU, 0}, nullptr, &c), EK_SUCCESS) << ek_last_error();
  EXPECT_EQ(configured_threads(c), 2);
  ek_context_destroy(c);
}

TEST(CpuThreadsConfig, BadValuesAreRefused) {
  ScopedEnv env("EK_NUM_THREADS", nullptr);
  for (int bad : {-1, -100, 1025}) {
    ek_context_config cfg = EK_CONTEXT_CONFIG_INIT;
    cfg.num_threads = bad;
    ek_context c = nullptr;
    EXPECT_EQ(ek_context_create(ek_device{EK_CPU, 0}, &cfg, &c), EK_ERROR_INVALID_ARGUMENT) << bad;
    EXPECT_EQ(c, nullptr);
    EXPECT_NE(std::strstr(ek_last_error(), "num_threads"), nullptr) << ek_last_error();
    EXPECT_NE(std::strstr(ek_last_error(), std::to_string(bad).c_str()), nullptr) << ek_last_error();
  }
  for (const char *bad : {"-1", "two", "4x", "1025", " 3", "99999999999999999999"}) {
    ScopedEnv set("EK_NUM_THREADS", bad);
    ek_context c = nullptr;
    EXPECT_EQ(ek_context_create(ek_device{EK_CPU, 0}, nullptr, &c), EK_ERROR_INVALID_ARGUMENT) << bad;
    EXPECT_EQ(c, nullptr);
    EXPECT_NE(std::strstr(ek_last_error(), "EK_NUM_THREADS"), nullptr) << ek_last_error();
  }
}

}  // namespace
