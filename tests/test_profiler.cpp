// The profiler: what it records, its session rules, the summary and the
// Chrome trace, under threads, and its bad input.
#include <atomic>
#include <chrono>
#include <cstdio>
#include <algorithm>
#include <fstream>
#include <functional>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <unistd.h>

#include "ek_test.hpp"
#include "file_checks.hpp"

namespace {

using ektest::Tensor;

class Profiler : public ektest::DeviceTest {
 protected:
  ek_tensor filled(std::vector<int64_t> shape, float value) {
    ek_tensor t = nullptr;
    EXPECT_EQ(ek_tensor_empty(nullptr, ctx, static_cast<int>(shape.size()), shape.data(),
                              EK_FLOAT32, &t),
              EK_SUCCESS);
    EXPECT_EQ(ek_fill(nullptr, ektest::scalar(value), t), EK_SUCCESS);
    return t;
  }
  std::vector<ek_profile_record> records() {
    size_t n = 0;
    EXPECT_EQ(ek_profiler_get_records(ctx, nullptr, 0, &n), EK_SUCCESS) << ek_last_error();
    std::vector<ek_profile_record> out(n, ektest::sized<ek_profile_record>());
    EXPECT_EQ(ek_profiler_get_records(ctx, out.data(), out.size(), &n), EK_SUCCESS);
    return out;
  }
  std::string summary() {
    size_t n = 0;
    EXPECT_EQ(ek_profiler_get_summary(ctx, nullptr, 0, &n), EK_SUCCESS) << ek_last_error();
    std::string text(n + 1, '\0');
    EXPECT_EQ(ek_profiler_get_summary(ctx, text.data(), text.size(), &n), EK_SUCCESS);
    text.resize(n);
    return text;
  }
};

std::vector<std::string> names(const std::vector<ek_profile_record> &records) {
  std::vector<std::string> out;
  for (const auto &r : records) out.push_back(r.name);
  return out;
}

TEST_P(Profiler, RecordsEachOpWithShapesAndTimes) {
  Tensor a(filled({64, 32}, 1)), b(filled({64, 32}, 2)), m(filled({32, 16}, 1));
  EK_OK(ek_profiler_start(ctx));
  Tensor sum, prod, soft, total;
  EK_OK(ek_binary(nullptr, EK_BINARY_ADD, a, b, sum.out()));
  EK_OK(ek_matmul(nullptr, sum, m, prod.out()));
  EK_OK(ek_softmax(nullptr, EK_SOFTMAX_PLAIN, prod, -1, soft.out()));
  EK_OK(ek_reduce(nullptr, EK_REDUCE_SUM, soft, 0, nullptr, 0, total.out()));
  EK_OK(ek_profiler_stop(ctx));

  auto recs = records();
  ASSERT_EQ(names(recs),
            (std::vector<std::string>{"binary.add", "matmul", "softmax", "reduce.sum"}));
  EXPECT_STREQ(recs[0].args, "float32[64,32] float32[64,32] -> float32[64,32]");
  EXPECT_STREQ(recs[1].args, "float32[64,32] float32[32,16] -> float32[64,16]");
  EXPECT_STREQ(recs[3].args, "float32[64,16] -> float32[]");
  for (size_t i = 0; i < recs.size(); ++i) {
    const ek_profile_record &r = recs[i];
    EXPECT_EQ(r.device.type, GetParam());
    EXPECT_EQ(r.stream_id, recs[0].stream_id) << "all on the default stream";
    EXPECT_GE(r.host_start_us, 0);
    EXPECT_GE(r.host_us, 0);
    EXPECT_GE(r.device_start_us, 0) << r.name;
    EXPECT_GE(r.device_us, 0) << r.name;
    if (i == 0) continue;
    // One stream runs its work in order: each op starts after the one before ends.
    EXPECT_GE(r.host_start_us, recs[i - 1].host_start_us + recs[i - 1].host_us);
    EXPECT_GE(r.device_start_us + 1.0, recs[i - 1].device_start_us + recs[i - 1].device_us)
        << "1 us of slack for the event timer's resolution";
  }
}

TEST_P(Profiler, StridedAndBroadcastOperandsShowTheirStrides) {
  Tensor a(filled({4, 6}, 1)), row(filled({6}, 1)), t, out;
  const int perm[2] = {1, 0};
  EK_OK(ek_view_permute(a, 2, perm, t.out()));
  EK_OK(ek_profiler_start(ctx));
  EK_OK(ek_unary(nullptr, EK_UNARY_EXP, t, out.out()));
  Tensor sum;
  EK_OK(ek_binary(nullptr, EK_BINARY_MUL, a, row, sum.out()));
  EK_OK(ek_profiler_stop(ctx));
  auto recs = records();
  ASSERT_EQ(recs.size(), 2u);
  EXPECT_STREQ(recs[0].name, "unary.exp");
  EXPECT_STREQ(recs[0].args, "float32[6,4]{1,6} -> float32[6,4]");
  EXPECT_STREQ(recs[1].args, "float32[4,6] float32[6] -> float32[4,6]");
}

TEST_P(Profiler, FailedCallsAndCallsOutsideASessionAreNotRecorded) {
  Tensor a(filled({3}, 1)), b(filled({4}, 1)), ok1, ok2, bad;
  EK_OK(ek_binary(nullptr, EK_BINARY_ADD, a, a, ok1.out()));  // before start
  EK_OK(ek_profiler_start(ctx));
  EK_FAILS(ek_binary(nullptr, EK_BINARY_ADD, a, b, bad.out()), EK_ERROR_SHAPE, "ek_binary");
  EK_OK(ek_unary(nullptr, EK_UNARY_NEG, a, ok2.out()));
  EK_OK(ek_profiler_stop(ctx));
  Tensor after;
  EK_OK(ek_unary(nullptr, EK_UNARY_ABS, a, after.out()));
  EXPECT_EQ(names(records()), (std::vector<std::string>{"unary.neg"}));
}

TEST_P(Profiler, AnOpCalledByAnotherIsRecordedOnceAsTheOuterOp) {
  // all() over an empty dim fills its result with ek_fill.
  const int64_t shape[2] = {3, 0};
  Tensor x, out;
  EK_OK(ek_tensor_empty(nullptr, ctx, 2, shape, EK_FLOAT32, x.out()));
  EK_OK(ek_profiler_start(ctx));
  const int dim = 1;
  EK_OK(ek_reduce(nullptr, EK_REDUCE_ALL, x, 1, &dim, 0, out.out()));
  EK_OK(ek_profiler_stop(ctx));
  EXPECT_EQ(names(records()), (std::vector<std::string>{"reduce.all"}));
  EXPECT_EQ(ektest::to_host<uint8_t>(out), (std::vector<uint8_t>{1, 1, 1}));
}

TEST_P(Profiler, SessionRules) {
  size_t n = 0;
  EK_FAILS(ek_profiler_get_records(ctx, nullptr, 0, &n), EK_ERROR_NOT_READY, "has not run");
  EK_FAILS(ek_profiler_stop(ctx), EK_ERROR_INVALID_ARGUMENT, "not running");
  EK_OK(ek_profiler_start(ctx));
  EK_FAILS(ek_profiler_start(ctx), EK_ERROR_INVALID_ARGUMENT, "already running");
  EK_FAILS(ek_profiler_get_records(ctx, nullptr, 0, &n), EK_ERROR_NOT_READY, "ek_profiler_stop");
  EK_FAILS(ek_profiler_get_summary(ctx, nullptr, 0, &n), EK_ERROR_NOT_READY, "still running");
  EK_FAILS(ek_profiler_write_chrome_trace(ctx, "/tmp/x.json"), EK_ERROR_NOT_READY, "running");
  Tensor a(filled({8}, 1));
  EK_OK(ek_profiler_stop(ctx));
  EXPECT_EQ(records().size(), 1u) << "the fill inside filled()";
  EK_FAILS(ek_profiler_stop(ctx), EK_ERROR_INVALID_ARGUMENT, "not running");
  EK_OK(ek_profiler_start(ctx));  // a new session forgets the last one
  EK_OK(ek_profiler_stop(ctx));
  EXPECT_TRUE(records().empty());
}

TEST_P(Profiler, BadArguments) {
  size_t n = 0;
  ek_profile_record r = ektest::sized<ek_profile_record>();
  char text[8];
  EK_FAILS(ek_profiler_start(nullptr), EK_ERROR_NULL_POINTER, "ctx is NULL");
  EK_FAILS(ek_profiler_stop(nullptr), EK_ERROR_NULL_POINTER, "ctx is NULL");
  EK_OK(ek_profiler_start(ctx));
  EK_OK(ek_profiler_stop(ctx));
  EK_FAILS(ek_profiler_get_records(ctx, &r, 1, nullptr), EK_ERROR_NULL_POINTER, "count");
  EK_FAILS(ek_profiler_get_records(ctx, nullptr, 1, &n), EK_ERROR_NULL_POINTER, "capacity is 1");
  EK_FAILS(ek_profiler_get_summary(ctx, text, sizeof text, nullptr), EK_ERROR_NULL_POINTER,
           "length");
  EK_FAILS(ek_profiler_get_summary(ctx, nullptr, 4, &n), EK_ERROR_NULL_POINTER, "capacity is 4");
  EK_FAILS(ek_profiler_write_chrome_trace(ctx, nullptr), EK_ERROR_NULL_POINTER, "path");
  EK_FAILS(ek_profiler_write_chrome_trace(ctx, "/nonexistent-dir/trace.json"), EK_ERROR_IO,
           "/nonexistent-dir/trace.json");
}

// A FIFO, a device, a symlink to either or to a file, a long name, "".
TEST_P(Profiler, TraceReplacesOnlyARegularFileAndWritesDevicesInPlace) {
  Tensor a(filled({16}, 1));
  EK_OK(ek_profiler_start(ctx));
  Tensor out;
  EK_OK(ek_unary(nullptr, EK_UNARY_SQRT, a, out.out()));
  EK_OK(ek_profiler_stop(ctx));
  std::string dir = testing::TempDir() + "ek-trace-XXXXXX";
  ASSERT_NE(mkdtemp(&dir[0]), nullptr);
  filecheck::check_file_writer(dir, [&](const char *path) {
    return ek_profiler_write_chrome_trace(ctx, path);
  });
  rmdir(dir.c_str());
}

TEST_P(Profiler, SummaryCountsCallsPerOpSlowestFirst) {
  Tensor a(filled({1000}, 1)), big(filled({1 << 20}, 1));
  EK_OK(ek_profiler_start(ctx));
  for (int i = 0; i < 3; ++i) {
    Tensor out;
    EK_OK(ek_unary(nullptr, EK_UNARY_EXP, a, out.out()));
  }
  Tensor big_out;
  EK_OK(ek_binary(nullptr, EK_BINARY_MUL, big, big, big_out.out()));
  EK_OK(ek_profiler_stop(ctx));
  std::string text = summary();
  std::istringstream lines(text);
  std::string header, line;
  std::getline(lines, header);
  EXPECT_NE(header.find("calls"), std::string::npos) << text;
  std::map<std::string, int> calls;
  std::vector<double> device_ms;
  while (std::getline(lines, line) && line.find("calls recorded") == std::string::npos) {
    std::istringstream row(line);
    std::string name;
    double ms = 0;
    row >> name >> calls[name] >> ms;
    device_ms.push_back(ms);
  }
  EXPECT_EQ(line, "4 calls recorded");
  EXPECT_EQ(calls, (std::map<std::string, int>{{"binary.mul", 1}, {"unary.exp", 3}})) << text;
  EXPECT_TRUE(std::is_sorted(device_ms.rbegin(), device_ms.rend())) << "slowest first:\n" << text;

  size_t full = 0;
  char small[10];
  EK_OK(ek_profiler_get_summary(ctx, small, sizeof small, &full));
  EXPECT_EQ(full, text.size());
  EXPECT_EQ(std::string(small), text.substr(0, sizeof small - 1)) << "truncated, NUL-terminated";
}

std::string read_file(const std::string &path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

size_t count_of(const std::string &text, const std::string &what) {
  size_t n = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++n;
  return n;
}

TEST_P(Profiler, ChromeTraceHasACallADeviceSliceAndAnArrowPerRecord) {
  Tensor a(filled({256}, 1));
  EK_OK(ek_profiler_start(ctx));
  for (int i = 0; i < 5; ++i) {
    Tensor out;
    EK_OK(ek_unary(nullptr, EK_UNARY_SQRT, a, out.out()));
  }
  EK_OK(ek_profiler_stop(ctx));
  std::string path = testing::TempDir() + "ek_trace_" + std::to_string(getpid()) + ".json";
  EK_OK(ek_profiler_write_chrome_trace(ctx, path.c_str()));
  std::string json = read_file(path);
  std::remove(path.c_str());
  EXPECT_EQ(json.rfind("{\"displayTimeUnit\":\"ms\",\"traceEvents\":[", 0), 0u);
  EXPECT_EQ(count_of(json, "\"cat\":\"call\""), 5u);
  EXPECT_EQ(count_of(json, "\"cat\":\"device\""), 5u);
  EXPECT_EQ(count_of(json, "\"ph\":\"s\""), 5u);
  EXPECT_EQ(count_of(json, "\"ph\":\"f\""), 5u);
  EXPECT_EQ(count_of(json, "{"), count_of(json, "}"));
  EXPECT_NE(json.find("\"name\":\"unary.sqrt\""), std::string::npos);
  EXPECT_NE(json.find(GetParam() == EK_CUDA ? "\"name\":\"cuda:0\"" : "\"name\":\"cpu:0\""),
            std::string::npos);
}

// Runs op on x from each of n threads, each on a stream of its own, while
// more(i) says so for the thread's i-th op; each thread's first failure.
std::vector<ek_status> on_own_streams(ek_context ctx, int n, ek_unary_op op, ek_tensor x,
                                      const std::function<bool(int)> &more) {
  std::vector<ek_status> status(n, EK_SUCCESS);
  std::vector<std::thread> threads;
  for (int t = 0; t < n; ++t)
    threads.emplace_back([&, t] {
      ek_stream s = nullptr;
      status[t] = ek_stream_create(ctx, &s);
      for (int i = 0; more(i) && status[t] == EK_SUCCESS; ++i) {
        ek_tensor out = nullptr;
        status[t] = ek_unary(s, op, x, &out);
        ek_tensor_release(out);
      }
      if (status[t] == EK_SUCCESS) status[t] = ek_stream_synchronize(s);
      ek_stream_destroy(s);
    });
  for (auto &t : threads) t.join();
  return status;
}

TEST_P(Profiler, ThreadsOnTheirOwnStreamsAreAllRecorded) {
  constexpr int kThreads = 4, kOps = 200;
  Tensor a(filled({512}, 1));
  EK_OK(ek_profiler_start(ctx));
  for (ek_status st : on_own_streams(ctx, kThreads, EK_UNARY_SQUARE, a,
                                     [](int i) { return i < kOps; }))
    EXPECT_EQ(st, EK_SUCCESS);
  EK_OK(ek_profiler_stop(ctx));
  auto recs = records();
  EXPECT_EQ(recs.size(), static_cast<size_t>(kThreads * kOps));
  std::set<uint64_t> thread_ids, stream_ids;
  for (const auto &r : recs) {
    thread_ids.insert(r.thread_id);
    stream_ids.insert(r.stream_id);
    EXPECT_STREQ(r.name, "unary.square");
  }
  EXPECT_EQ(thread_ids.size(), static_cast<size_t>(kThreads));
  EXPECT_EQ(stream_ids.size(), static_cast<size_t>(kThreads));
}

TEST_P(Profiler, StartingAndStoppingWhileOtherThreadsRunOps) {
  Tensor a(filled({256}, 1));
  std::atomic<bool> done{false};
  std::thread sessions([&] {
    for (int session = 0; session < 50; ++session) {
      EK_EXPECT_OK(ek_profiler_start(ctx));
      std::this_thread::sleep_for(std::chrono::microseconds(200));
      EK_EXPECT_OK(ek_profiler_stop(ctx));
      for (const auto &r : records()) {
        EXPECT_STREQ(r.name, "unary.relu");
        EXPECT_GE(r.device_us, 0);
      }
    }
    done = true;
  });
  for (ek_status st : on_own_streams(ctx, 3, EK_UNARY_RELU, a, [&](int) { return !done.load(); }))
    EXPECT_EQ(st, EK_SUCCESS);
  sessions.join();
}

TEST_P(Profiler, DestroyingTheContextWhileRecordingFreesEverything) {
  ek_context other = nullptr;
  EK_OK(ek_context_create(ek_device{GetParam(), 0}, nullptr, &other));
  EK_OK(ek_profiler_start(other));
  ek_tensor t = nullptr;
  const int64_t n = 16;
  EK_OK(ek_tensor_empty(nullptr, other, 1, &n, EK_FLOAT32, &t));
  EK_OK(ek_fill(nullptr, ektest::scalar(1), t));
  EK_OK(ek_tensor_release(t));
  EK_OK(ek_context_destroy(other));
}

TEST_P(Profiler, ElementwiseKernelsAreNamedByTheirKernel) {
  if (GetParam() != EK_CUDA) GTEST_SKIP() << "the elementwise builder compiles CUDA";
  ek_elementwise k = nullptr;
  EK_OK(ek_elementwise_create(ctx, "float32 x", "float32 y", "y = 2 * x;", "twice", &k));
  Tensor a(filled({100}, 1));
  EK_OK(ek_profiler_start(ctx));
  ek_tensor in[1] = {a}, out[1] = {nullptr};
  EK_OK(ek_elementwise_launch(nullptr, k, in, 1, out, 1));
  EK_OK(ek_profiler_stop(ctx));
  Tensor result(out[0]);
  EK_OK(ek_elementwise_destroy(k));
  auto recs = records();
  ASSERT_EQ(recs.size(), 1u);
  EXPECT_STREQ(recs[0].name, "elementwise.twice");
  EXPECT_STREQ(recs[0].args, "float32[100] -> float32[100]");
}

EK_INSTANTIATE_DEVICES(Profiler);

}  // namespace
