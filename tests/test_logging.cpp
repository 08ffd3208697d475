// Logging: the process-wide callback (ek_log_set_callback), filtering by each
// context's level and by the process's level for messages about no context,
// stderr by default, and replacing the callback while threads log (this suite
// runs under ThreadSanitizer in scripts/test.sh).
#include <atomic>
#include <mutex>
#include <regex>
#include <sstream>
#include <thread>
#include <vector>

#include "ek_test.hpp"

namespace {

using ektest::ScopedEnv;
using testing::internal::CaptureStderr;
using testing::internal::GetCapturedStderr;

struct Message {
  ek_log_level level;
  std::string text;
};

// What a recording callback received.
struct Recorder {
  std::mutex mutex;
  std::vector<Message> messages;
  std::vector<Message> take() {
    std::lock_guard<std::mutex> lock(mutex);
    return std::move(messages);
  }
};

void record(ek_log_level level, const char *message, void *user_data) {
  auto *r = static_cast<Recorder *>(user_data);
  std::lock_guard<std::mutex> lock(r->mutex);
  r->messages.push_back({level, message});
}

bool has(const std::vector<Message> &messages, ek_log_level level, const std::string &text) {
  for (const Message &m : messages)
    if (m.level == level && m.text.find(text) != std::string::npos) return true;
  return false;
}

ek_context make_context(ek_log_level level) {
  ek_context_config cfg = EK_CONTEXT_CONFIG_INIT;
  cfg.log_level = level;
  ek_context ctx = nullptr;
  EXPECT_EQ(ek_context_create(ek_device{EK_CPU, 0}, &cfg, &ctx), EK_SUCCESS) << ek_last_error();
  return ctx;
}

// Allocates and frees 1 MiB (a new 2 MiB segment), then empties the cache.
void reserve_and_release(ek_context ctx) {
  void *p = nullptr;
  ASSERT_EQ(ek_malloc(nullptr, ctx, 1 << 20, &p), EK_SUCCESS) << ek_last_error();
  ASSERT_EQ(ek_free(nullptr, ctx, p), EK_SUCCESS) << ek_last_error();
  ASSERT_EQ(ek_memory_empty_cache(ctx), EK_SUCCESS) << ek_last_error();
}

// Every test leaves the process's callback as it found it: stderr.
class Logging : public testing::Test {
 protected:
  void TearDown() override { EXPECT_EQ(ek_log_set_callback(nullptr, nullptr), EK_SUCCESS); }
  ScopedEnv env_{"EK_LOG_LEVEL", nullptr};
};

TEST_F(Logging, CallbackReceivesTheMessagesOfAnInfoContextWithLevelAndText) {
  Recorder r;
  EK_OK(ek_log_set_callback(record, &r));
  ek_context ctx = make_context(EK_LOG_INFO);
  ASSERT_NE(ctx, nullptr);
  reserve_and_release(ctx);
  EK_OK(ek_context_destroy(ctx));
  std::vector<Message> got = r.take();
  ASSERT_EQ(got.size(), 3u);
  EXPECT_EQ(got[0].level, EK_LOG_INFO);
  EXPECT_EQ(got[0].text, "context created on cpu:0");
  EXPECT_EQ(got[1].level, EK_LOG_INFO);
  EXPECT_EQ(got[1].text,
            "pool cpu:0: reserved a new segment of 2.00 MiB from the device; reserved now 2.00 MiB");
  EXPECT_EQ(got[2].level, EK_LOG_INFO);
  EXPECT_EQ(got[2].text,
            "pool cpu:0: released 1 cached segment (2.00 MiB) to the device by empty_cache; "
            "reserved now 0 B");
}

TEST_F(Logging, DebugContextAlsoReportsItsDestruction) {
  Recorder r;
  EK_OK(ek_log_set_callback(record, &r));
  ek_context ctx = make_context(EK_LOG_DEBUG);
  ASSERT_NE(ctx, nullptr);
  EK_OK(ek_context_destroy(ctx));
  std::vector<Message> got = r.take();
  ASSERT_EQ(got.size(), 2u);
  EXPECT_TRUE(has(got, EK_LOG_DEBUG, "context on cpu:0 destroyed"));
}

TEST_F(Logging, MessagesBelowTheContextsLevelAreFilteredOut) {
  Recorder r;
  EK_OK(ek_log_set_callback(record, &r));
  ek_context ctx = make_context(EK_LOG_WARN);
  ASSERT_NE(ctx, nullptr);
  reserve_and_release(ctx);
  EXPECT_TRUE(r.take().empty()) << "INFO and DEBUG messages passed a WARN context";

  // Out of memory is a warning, logged before the memory callback's retry.
  EK_OK(ek_memory_set_limit(ctx, 4 << 20));
  void *p = nullptr;
  EXPECT_EQ(ek_malloc(nullptr, ctx, 8 << 20, &p), EK_ERROR_OUT_OF_MEMORY);
  std::vector<Message> got = r.take();
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].level, EK_LOG_WARN);
  EXPECT_EQ(got[0].text,
            "pool cpu:0: out of memory for 8.00 MiB (a new segment of 8.00 MiB would exceed the "
            "limit; allocated 0 B, reserved 0 B, limit 4.00 MiB) "
            "after releasing the cache; retrying once after the memory callback");
  EK_OK(ek_context_destroy(ctx));
  EXPECT_TRUE(r.take().empty());
}

TEST_F(Logging, NothingIsPrintedByDefault) {
  CaptureStderr();
  ek_context ctx = nullptr;
  EXPECT_EQ(ek_context_create(ek_device{EK_CPU, 0}, nullptr, &ctx), EK_SUCCESS);
  reserve_and_release(ctx);
  EXPECT_EQ(ek_memory_set_limit(ctx, 1 << 20), EK_SUCCESS);
  void *p = nullptr;
  EXPECT_EQ(ek_malloc(nullptr, ctx, 4 << 20, &p), EK_ERROR_OUT_OF_MEMORY);
  EXPECT_EQ(ek_context_destroy(ctx), EK_SUCCESS);
  int n = 0;
  EXPECT_EQ(ek_device_get_count(EK_CUDA, &n), EK_SUCCESS);
  EXPECT_EQ(GetCapturedStderr(), "");
}

TEST_F(Logging, NullRestoresStderr) {
  Recorder r;
  EK_OK(ek_log_set_callback(record, &r));
  EK_OK(ek_log_set_callback(nullptr, &r));  // user_data without a callback is ignored
  CaptureStderr();
  ek_context ctx = make_context(EK_LOG_INFO);
  EXPECT_EQ(ek_context_destroy(ctx), EK_SUCCESS);
  EXPECT_EQ(GetCapturedStderr(), "[ek info] context created on cpu:0\n");
  EXPECT_TRUE(r.take().empty());
}

// The callback calls ek_* functions that log: those messages go to stderr
// instead of recursing into the callback.
struct Reentrant {
  ek_context ctx = nullptr;
  std::atomic<int> calls{0};
  ek_status set_status = EK_SUCCESS;
  std::string set_error;
};

void reenter(ek_log_level, const char *, void *user_data) {
  auto *state = static_cast<Reentrant *>(user_data);
  if (state->calls++ > 0) return;
  ek_memory_empty_cache(state->ctx);  // logs "released ..." on this thread
  state->set_status = ek_log_set_callback(nullptr, nullptr);
  state->set_error = ek_last_error();
}

TEST_F(Logging, MessagesLoggedFromInsideTheCallbackGoToStderr) {
  Recorder setup;  // keeps the setup's messages off stderr
  EK_OK(ek_log_set_callback(record, &setup));
  ek_context ctx = make_context(EK_LOG_INFO);
  ASSERT_NE(ctx, nullptr);
  void *p = nullptr;
  EK_OK(ek_malloc(nullptr, ctx, 1 << 20, &p));
  EK_OK(ek_free(nullptr, ctx, p));  // a cached segment for the callback to release
  Reentrant state;
  state.ctx = ctx;
  EK_OK(ek_log_set_callback(reenter, &state));
  CaptureStderr();
  ek_context other = make_context(EK_LOG_INFO);  // "context created": the callback runs
  std::string err = GetCapturedStderr();
  EXPECT_EQ(state.calls.load(), 1);
  EXPECT_EQ(err, "[ek info] pool cpu:0: released 1 cached segment (2.00 MiB) to the device by "
                 "empty_cache; reserved now 0 B\n");
  EXPECT_EQ(state.set_status, EK_ERROR_INVALID_ARGUMENT);
  EXPECT_EQ(state.set_error,
            "ek_log_set_callback: called from inside the log callback (it would wait for itself)");
  EK_OK(ek_log_set_callback(nullptr, nullptr));
  EK_OK(ek_context_destroy(other));
  EK_OK(ek_context_destroy(ctx));
}

// Messages about no context pass the process's level, EK_LOG_LEVEL as read at
// the first such message, in a child process that starts with it set. The
// child runs this test from its start ("threadsafe" style), so its own
// cuda_available() check below logs the line to stderr; the statement then
// checks that it is logged once per process.
TEST(LoggingDeathTest, MessagesWithoutAContextFollowTheProcessLevel) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  if (ektest::cuda_available()) GTEST_SKIP() << "a CUDA device is present: nothing to report";
  ScopedEnv level("EK_LOG_LEVEL", "debug");
  EXPECT_EXIT(
      {
        Recorder r;
        ek_log_set_callback(record, &r);
        int n = -1;
        ek_device_get_count(EK_CUDA, &n);
        std::exit(n == 0 && r.take().empty() ? 0 : 1);
      },
      testing::ExitedWithCode(0), "\\[ek debug\\] no CUDA device: ");
}

// One installation of the counting callback: a message delivered to it after
// the call that replaced it returned is a violation.
struct Installation {
  std::atomic<bool> retired{false};
  std::atomic<int> calls{0};
};
std::atomic<int> g_late_calls{0};

void count(ek_log_level level, const char *message, void *user_data) {
  auto *inst = static_cast<Installation *>(user_data);
  if (inst->retired.load() || level == EK_LOG_OFF || !*message) ++g_late_calls;
  ++inst->calls;
}

TEST_F(Logging, ThreadsLogWhileAnotherReplacesTheCallback) {
  constexpr int kWorkers = 4, kIterations = 1000, kSwaps = 400;
  std::vector<Installation> installs(kSwaps);
  std::atomic<bool> workers_done{false};
  CaptureStderr();  // every 8th installation is stderr itself
  std::vector<std::thread> workers;
  for (int w = 0; w < kWorkers; ++w) {
    workers.emplace_back([] {
      for (int i = 0; i < kIterations; ++i) {  // 4 messages each: created, reserved, released, destroyed
        ek_context ctx = make_context(EK_LOG_DEBUG);
        reserve_and_release(ctx);
        EXPECT_EQ(ek_context_destroy(ctx), EK_SUCCESS);
      }
    });
  }
  std::thread swapper([&] {
    Installation *previous = nullptr;
    for (int i = 0; !workers_done.load(); i = (i + 1) % kSwaps) {
      Installation *next = i % 8 == 7 ? nullptr : &installs[i];
      if (next) next->retired = false;
      EXPECT_EQ(ek_log_set_callback(next ? count : nullptr, next), EK_SUCCESS);
      if (previous) previous->retired = true;  // from now on it must not be called
      previous = next;
      std::this_thread::yield();
    }
    EXPECT_EQ(ek_log_set_callback(nullptr, nullptr), EK_SUCCESS);
  });
  for (std::thread &t : workers) t.join();
  workers_done = true;
  swapper.join();
  std::string err = GetCapturedStderr();

  EXPECT_EQ(g_late_calls.load(), 0) << "a replaced callback was called after the replacement";
  int delivered = 0;
  for (const Installation &inst : installs) delivered += inst.calls.load();
  std::istringstream lines(err);
  std::regex whole(R"(\[ek (info|debug)\] (context created on cpu:0|context on cpu:0 destroyed|)"
                   R"(pool cpu:0: (reserved|released) .*))");
  for (std::string line; std::getline(lines, line); ++delivered)
    EXPECT_TRUE(std::regex_match(line, whole)) << "torn line on stderr: " << line;
  EXPECT_EQ(delivered, kWorkers * kIterations * 4) << "every message goes to exactly one sink";
}

}  // namespace
