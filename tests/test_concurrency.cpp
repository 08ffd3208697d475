// Many threads driving the public API at once: 8 threads on their own streams
// of ONE context, and 4 threads each with a context of its own. Every thread
// repeats a fixed round of create / view / unary / binary / copy / reduce /
// release whose running sum has a closed form, so a lost update, a block handed
// to two threads or a mixed-up result shows as a wrong total; afterwards the
// pool's statistics and ek_live_handles must be back where they started.
//
// Size: EK_STRESS_OPS operations per thread (see ektest::stress_ops), by
// default the 10^5 on every device: the rounds work on 16 elements, so
// the CPU run takes well under a second (0.2 s for both cases on 2 cores),
// and the ThreadSanitizer step in scripts/test.sh lowers it through the
// environment.
#include <algorithm>
#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "ek_test.hpp"

namespace {

constexpr int64_t kCpuOps = 100000;  // the full count: see the size note above
constexpr int64_t kLen = 16;          // elements per tensor: small, so launches dominate
constexpr int64_t kOpsPerRound = 14;  // API calls in one round, see Round::run

// The sum one round adds to the accumulator: x = [a, a+1, ..., a+kLen-1];
// the odd elements v are replaced (in the even slots) by -v*v, so
// sum(x) = sum over odd j of (a+j) - (a+j)^2.
int64_t round_sum(int64_t a) {
  int64_t s = 0;
  for (int64_t j = 1; j < kLen; j += 2) s += (a + j) - (a + j) * (a + j);
  return s;
}

// Values stay small (|round_sum| < 2^24), so float64 sums are exact too.
int64_t round_base(int thread, int64_t round) { return (thread * 7919 + round * 31) % 1000; }

// One worker's state: its stream and context, dtype, accumulator and tally.
struct Worker {
  ek_context ctx = nullptr;
  ek_stream stream = nullptr;  // NULL: the context's default stream
  ek_dtype dtype = EK_INT64;
  int id = 0;
  ek_tensor acc = nullptr;     // 0-d running sum, updated in place
  int64_t expected = 0;
  std::string error;           // first failure, with ek_last_error()

  bool check(ek_status st, const char *what) {
    if (st == EK_SUCCESS) return true;
    if (error.empty()) error = std::string(what) + ": " + ek_last_error();
    return false;
  }
  bool make_x(int64_t a, ek_tensor *x);
  bool round(int64_t r);
  bool start();
  bool finish();
  void run(int64_t ops);
};

bool Worker::make_x(int64_t a, ek_tensor *x) {
  std::vector<int64_t> i64(kLen);
  std::vector<double> f64(kLen);
  for (int64_t j = 0; j < kLen; ++j) i64[j] = a + j, f64[j] = static_cast<double>(a + j);
  const void *host = dtype == EK_INT64 ? static_cast<const void *>(i64.data()) : f64.data();
  return check(ek_tensor_from_host(stream, ctx, 1, &kLen, dtype, host, x), "from_host");
}

// 14 API calls: create, 2 views, unary, 2 binary, copy, reduce, 6 releases.
bool Worker::round(int64_t r) {
  int64_t a = round_base(id, r);
  ek_tensor x = nullptr, odd = nullptr, even = nullptr, neg = nullptr, sq = nullptr, s = nullptr;
  bool ok = make_x(a, &x) &&
            check(ek_view_slice(x, 0, 1, kLen, 2, &odd), "slice odd") &&
            check(ek_unary(stream, EK_UNARY_NEG, odd, &neg), "neg") &&
            check(ek_binary(stream, EK_BINARY_MUL, neg, odd, &sq), "mul") &&
            check(ek_view_slice(x, 0, 0, kLen, 2, &even), "slice even") &&
            check(ek_copy(stream, sq, even), "copy") &&
            check(ek_reduce(stream, EK_REDUCE_SUM, x, 0, nullptr, 0, &s), "sum") &&
            check(ek_binary(stream, EK_BINARY_ADD, acc, s, &acc), "accumulate");
  for (ek_tensor t : {x, odd, even, neg, sq, s}) ok = check(ek_tensor_release(t), "release") && ok;
  if (ok) expected += round_sum(a);
  return ok;
}

bool Worker::start() {
  const double zero = 0;
  const int64_t izero = 0;
  const void *host = dtype == EK_INT64 ? static_cast<const void *>(&izero) : &zero;
  return check(ek_tensor_from_host(stream, ctx, 0, nullptr, dtype, host, &acc), "acc");
}

// Reads the accumulator back and compares it with the closed form.
bool Worker::finish() {
  int64_t i = 0;
  double d = 0;
  void *dst = dtype == EK_INT64 ? static_cast<void *>(&i) : &d;
  bool ok = check(ek_tensor_to_host(stream, acc, dst, 8), "to_host");
  ok = check(ek_tensor_release(acc), "release acc") && ok;
  acc = nullptr;
  int64_t got = dtype == EK_INT64 ? i : static_cast<int64_t>(d);
  if (ok && got != expected && error.empty())
    error = "sum " + std::to_string(got) + " != expected " + std::to_string(expected);
  return ok && got == expected;
}

void Worker::run(int64_t ops) {
  if (!start()) return;
  for (int64_t r = 0; r * kOpsPerRound < ops; ++r)
    if (!round(r)) break;
  finish();
}

// One round on a tensor other threads use too: a reference, a view, a sum
// of the view; returns "" or what went wrong.
std::string use_shared(ek_tensor shared, int64_t r) {
  ek_tensor ref = nullptr, view = nullptr, sum = nullptr;
  const int64_t start = r % 512;
  std::string err;
  double got = 0;
  if (ek_tensor_retain(shared) == EK_SUCCESS) ref = shared;
  if (!ref || ek_view_slice(ref, 0, start, start + 8, 1, &view) != EK_SUCCESS ||
      ek_reduce(nullptr, EK_REDUCE_SUM, view, 0, nullptr, 0, &sum) != EK_SUCCESS)
    err = ek_last_error();
  float f = 0;
  if (err.empty() && ek_tensor_to_host(nullptr, sum, &f, sizeof f) != EK_SUCCESS)
    err = ek_last_error();
  got = f;
  if (err.empty() && got != 24.0) err = "sum of 8 threes is " + std::to_string(got);
  for (ek_tensor t : {sum, view, ref}) ek_tensor_release(t);
  return err;
}

// One look at the pool from outside: stats, snapshot and handle count must
// each hold together even while other threads allocate and free.
std::string observe(ek_context c) {
  ek_memory_stats s = EK_MEMORY_STATS_INIT;
  if (ek_memory_get_stats(c, &s) != EK_SUCCESS) return ek_last_error();
  if (s.allocated_bytes > s.reserved_bytes) return "allocated above reserved";
  if (s.free_count > s.alloc_count) return "more frees than allocations";
  std::vector<ek_memory_block> blocks(256, ektest::sized<ek_memory_block>());
  size_t count = 0;
  if (ek_memory_get_snapshot(c, blocks.data(), blocks.size(), &count) != EK_SUCCESS)
    return ek_last_error();
  for (size_t i = 0; i < std::min(count, blocks.size()); ++i) {
    const ek_memory_block &b = blocks[i];
    if (b.address < b.segment_address || b.address + b.size > b.segment_address + b.segment_size)
      return "block outside its segment";
    if (b.allocated && b.requested > b.size) return "block smaller than requested";
  }
  int64_t handles = 0;
  if (ek_live_handles(&handles) != EK_SUCCESS || handles < 1) return "no live handles";
  return "";
}

ek_memory_stats stats_of(ek_context c) {
  ek_memory_stats s = EK_MEMORY_STATS_INIT;
  EXPECT_EQ(ek_memory_get_stats(c, &s), EK_SUCCESS) << ek_last_error();
  return s;
}

int64_t live_handles() {
  int64_t n = 0;
  EXPECT_EQ(ek_live_handles(&n), EK_SUCCESS);
  return n;
}

}  // namespace

class ConcurrencyTest : public ektest::DeviceTest {
 protected:
  int64_t ops() const { return ektest::stress_ops(GetParam(), kCpuOps); }
};
EK_INSTANTIATE_DEVICES(ConcurrencyTest);

TEST_P(ConcurrencyTest, EightThreadsOnTheirOwnStreamsOfOneContext) {
  constexpr int kThreads = 8;
  const int64_t ops = this->ops();
  const int64_t handles0 = live_handles();
  const ek_memory_stats before = stats_of(ctx);
  std::vector<Worker> workers(kThreads);
  for (int t = 0; t < kThreads; ++t) {
    workers[t].ctx = ctx;
    workers[t].id = t;
    workers[t].dtype = t % 2 ? EK_FLOAT64 : EK_INT64;
    EK_OK(ek_stream_create(ctx, &workers[t].stream));
  }
  std::vector<std::thread> threads;
  for (Worker &w : workers) threads.emplace_back([&w, ops] { w.run(ops); });
  for (std::thread &th : threads) th.join();
  for (Worker &w : workers) {
    EXPECT_EQ(w.error, "") << "thread " << w.id;
    EK_EXPECT_OK(ek_stream_destroy(w.stream));
  }
  EK_OK(ek_context_synchronize(ctx));
  ek_memory_stats after = stats_of(ctx);
  EXPECT_EQ(after.allocated_bytes, before.allocated_bytes);
  EXPECT_EQ(after.requested_bytes, before.requested_bytes);
  EXPECT_EQ(after.active_blocks, before.active_blocks);
  EXPECT_EQ(after.alloc_count - after.free_count, before.alloc_count - before.free_count);
  EXPECT_EQ(after.total_allocated_bytes - after.total_freed_bytes,
            before.total_allocated_bytes - before.total_freed_bytes);
  // At least x, neg, sq and s per round, plus each thread's accumulator.
  uint64_t rounds = static_cast<uint64_t>((ops + kOpsPerRound - 1) / kOpsPerRound);
  EXPECT_GE(after.alloc_count - before.alloc_count, kThreads * (4 * rounds + 1));
  EXPECT_EQ(after.oom_count, before.oom_count);
  EXPECT_EQ(live_handles(), handles0);
}

// Contexts share nothing but process-wide state (the handle count, the error
// slots, lazily loaded libraries): each thread makes, uses and destroys its own.
TEST_P(ConcurrencyTest, FourThreadsEachWithItsOwnContext) {
  constexpr int kThreads = 4;
  const int64_t ops = this->ops();
  const int64_t handles0 = live_handles();
  std::vector<Worker> workers(kThreads);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    Worker &w = workers[t];
    w.id = t;
    w.dtype = t % 2 ? EK_INT64 : EK_FLOAT64;
    threads.emplace_back([&w, ops, device = GetParam()] {
      if (!w.check(ek_context_create(ek_device{device, 0}, nullptr, &w.ctx), "context")) return;
      w.run(ops);  // on the default stream (stream NULL)
      ek_memory_stats s = EK_MEMORY_STATS_INIT;
      if (w.check(ek_memory_get_stats(w.ctx, &s), "stats") && w.error.empty() &&
          (s.allocated_bytes != 0 || s.active_blocks != 0 || s.alloc_count != s.free_count))
        w.error = "context " + std::to_string(w.id) + " kept " +
                  std::to_string(s.allocated_bytes) + " bytes in " +
                  std::to_string(s.active_blocks) + " blocks";
      w.check(ek_context_destroy(w.ctx), "destroy");
    });
  }
  for (std::thread &th : threads) th.join();
  for (Worker &w : workers) EXPECT_EQ(w.error, "") << "thread " << w.id;
  EXPECT_EQ(live_handles(), handles0);
}

// Threads on the default stream share one read-only tensor (retained, viewed
// and released concurrently, so its reference counts race) while an observer
// polls the statistics, the snapshot and the handle count: each reading must
// be self-consistent, and the shared tensor must survive with its values.
TEST_P(ConcurrencyTest, SharedTensorAndObserversUnderLoad) {
  constexpr int kThreads = 4;
  const int64_t rounds = std::max<int64_t>(1, ops() / kOpsPerRound), handles0 = live_handles();
  const int64_t n = 1024;
  ektest::Tensor shared;
  EK_OK(ek_tensor_empty(nullptr, ctx, 1, &n, EK_FLOAT32, shared.out()));
  EK_OK(ek_fill(nullptr, ektest::scalar(3.0), shared));
  std::atomic<int> running{kThreads};
  std::vector<std::string> errors(kThreads + 1);
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t)
    threads.emplace_back([&, t] {
      for (int64_t r = 0; r < rounds && errors[t].empty(); ++r) errors[t] = use_shared(shared, r);
      --running;
    });
  threads.emplace_back([&] {
    while (running.load() > 0 && errors[kThreads].empty()) errors[kThreads] = observe(ctx);
  });
  for (std::thread &th : threads) th.join();
  for (int t = 0; t <= kThreads; ++t) EXPECT_EQ(errors[t], "") << "thread " << t;
  std::vector<float> h = ektest::to_host<float>(shared);
  EXPECT_EQ(std::count(h.begin(), h.end(), 3.0f), n);
  EXPECT_EQ(live_handles(), handles0 + 1);  // shared itself; retain adds no handle
}
