// Streams and events: lifetime, queries, ordering between streams, timing,
// native handles and the checks on handles from other contexts.
#include <atomic>
#include <string>
#include <thread>
#include <vector>

#include "ek_test.hpp"

using ektest::Tensor;

namespace {

// Owns a stream or event handle for the duration of a test.
struct Stream {
  ek_stream s = nullptr;
  ~Stream() { ek_stream_destroy(s); }
  operator ek_stream() const { return s; }
};
struct Event {
  ek_event e = nullptr;
  ~Event() { ek_event_destroy(e); }
  operator ek_event() const { return e; }
};

constexpr int64_t kBig = 1 << 20;  // 1M floats: enough work to time

}  // namespace

class StreamTest : public ektest::DeviceTest {
 protected:
  bool cuda() const { return GetParam() == EK_CUDA; }
  void make_stream(Stream *s) { ASSERT_EQ(ek_stream_create(ctx, &s->s), EK_SUCCESS) << ek_last_error(); }
  void make_event(Event *e) { ASSERT_EQ(ek_event_create(ctx, &e->e), EK_SUCCESS) << ek_last_error(); }
  void make_tensor(ek_context c, int64_t n, ek_stream s, Tensor *t) {
    ASSERT_EQ(ek_tensor_empty(s, c, 1, &n, EK_FLOAT32, t->out()), EK_SUCCESS) << ek_last_error();
  }
  // A second context on the same device; the caller destroys it.
  ek_context other_context() {
    ek_context c = nullptr;
    EXPECT_EQ(ek_context_create(ek_device{GetParam(), 0}, nullptr, &c), EK_SUCCESS)
        << ek_last_error();
    return c;
  }
  // Every element of t equals v.
  void expect_all(ek_tensor t, float v) {
    std::vector<float> h = ektest::to_host<float>(t);
    size_t bad = 0;
    for (float x : h) bad += x != v;
    EXPECT_EQ(bad, 0u) << "elements differing from " << v;
  }
};
EK_INSTANTIATE_DEVICES(StreamTest);

// ---------------------------------------------------------------- streams

TEST_P(StreamTest, CreateSynchronizeQueryDestroy) {
  ek_stream s = nullptr;
  EK_OK(ek_stream_create(ctx, &s));
  ASSERT_NE(s, nullptr);
  EK_OK(ek_stream_synchronize(s));
  int done = -1;
  EK_OK(ek_stream_query(s, &done));
  EXPECT_EQ(done, 1);
  EK_OK(ek_stream_destroy(s));
}

TEST_P(StreamTest, CreatedStreamsAreDistinctAndKnowTheirContext) {
  Stream a, b;
  make_stream(&a);
  make_stream(&b);
  EXPECT_NE(a.s, b.s);
  ek_context c = nullptr;
  EK_OK(ek_stream_get_context(a, &c));
  EXPECT_EQ(c, ctx);
}

TEST_P(StreamTest, QueryAfterWorkAndSynchronizeIsDone) {
  Stream s;
  make_stream(&s);
  Tensor t;
  make_tensor(ctx, kBig, s, &t);
  EK_OK(ek_fill(s, ektest::scalar(1.0), t));
  EK_OK(ek_stream_synchronize(s));
  int done = 0;
  EK_OK(ek_stream_query(s, &done));
  EXPECT_EQ(done, 1);
}

TEST_P(StreamTest, DestroyNullIsANoOp) {
  EK_OK(ek_stream_destroy(nullptr));
  EK_OK(ek_event_destroy(nullptr));
}

TEST_P(StreamTest, NullHandlesAreNullPointerErrors) {
  int done = 0;
  void *native = nullptr;
  ek_context c = nullptr;
  ek_stream s = nullptr;
  ek_event e = nullptr;
  EK_FAILS(ek_stream_create(nullptr, &s), EK_ERROR_NULL_POINTER, "ctx is NULL");
  EK_FAILS(ek_stream_create(ctx, nullptr), EK_ERROR_NULL_POINTER, "out is NULL");
  EK_FAILS(ek_stream_synchronize(nullptr), EK_ERROR_NULL_POINTER, "stream is NULL");
  EK_FAILS(ek_stream_query(nullptr, &done), EK_ERROR_NULL_POINTER, "stream is NULL");
  EK_FAILS(ek_stream_get_native(nullptr, &native), EK_ERROR_NULL_POINTER, "stream is NULL");
  EK_FAILS(ek_stream_get_context(nullptr, &c), EK_ERROR_NULL_POINTER, "stream is NULL");
  EK_FAILS(ek_stream_wrap(nullptr, nullptr, &s), EK_ERROR_NULL_POINTER, "ctx is NULL");
  EK_FAILS(ek_event_create(nullptr, &e), EK_ERROR_NULL_POINTER, "ctx is NULL");
  EK_FAILS(ek_event_create(ctx, nullptr), EK_ERROR_NULL_POINTER, "out is NULL");
  EK_FAILS(ek_event_record(nullptr, nullptr), EK_ERROR_NULL_POINTER, "event is NULL");
  EK_FAILS(ek_event_synchronize(nullptr), EK_ERROR_NULL_POINTER, "event is NULL");
  EK_FAILS(ek_event_query(nullptr, &done), EK_ERROR_NULL_POINTER, "event is NULL");
}

TEST_P(StreamTest, NullOutParametersAreNullPointerErrors) {
  Stream s;
  Event e, e2;
  make_stream(&s);
  make_event(&e);
  make_event(&e2);
  EK_FAILS(ek_stream_query(s, nullptr), EK_ERROR_NULL_POINTER, "done is NULL");
  EK_FAILS(ek_stream_get_native(s, nullptr), EK_ERROR_NULL_POINTER, "native is NULL");
  EK_FAILS(ek_stream_get_context(s, nullptr), EK_ERROR_NULL_POINTER, "ctx is NULL");
  EK_FAILS(ek_stream_wait_event(s, nullptr), EK_ERROR_NULL_POINTER, "event is NULL");
  EK_FAILS(ek_stream_wait_event(nullptr, e), EK_ERROR_NULL_POINTER, "stream is NULL");
  EK_FAILS(ek_event_query(e, nullptr), EK_ERROR_NULL_POINTER, "done is NULL");
  EK_OK(ek_event_record(s, e));
  EK_OK(ek_event_record(s, e2));
  float ms = 0;
  EK_FAILS(ek_event_get_elapsed_ms(nullptr, e2, &ms), EK_ERROR_NULL_POINTER, "start is NULL");
  EK_FAILS(ek_event_get_elapsed_ms(e, nullptr, &ms), EK_ERROR_NULL_POINTER, "end is NULL");
  EK_FAILS(ek_event_get_elapsed_ms(e, e2, nullptr), EK_ERROR_NULL_POINTER, "ms is NULL");
}

TEST_P(StreamTest, NativeHandleIsNullOnCpuAndSetOnCuda) {
  Stream s;
  make_stream(&s);
  ek_stream def = nullptr;
  EK_OK(ek_context_get_default_stream(ctx, &def));
  for (ek_stream x : {s.s, def}) {
    void *native = reinterpret_cast<void *>(0x1);
    EK_OK(ek_stream_get_native(x, &native));
    if (cuda()) EXPECT_NE(native, nullptr);
    else EXPECT_EQ(native, nullptr);
  }
}

TEST_P(StreamTest, WrapIsNotSupportedOnCpu) {
  if (cuda()) GTEST_SKIP() << "CPU-only behaviour";
  ek_stream s = nullptr;
  EK_FAILS(ek_stream_wrap(ctx, nullptr, &s), EK_ERROR_NOT_SUPPORTED, "CPU context");
  EXPECT_EQ(s, nullptr);
}

TEST_P(StreamTest, WrappedNativeStreamRunsWorkAndOutlivesTheWrapper) {
  if (!cuda()) GTEST_SKIP() << "ek_stream_wrap needs a CUDA context";
  Stream owner;
  make_stream(&owner);
  void *native = nullptr;
  EK_OK(ek_stream_get_native(owner, &native));
  ek_stream w = nullptr;
  EK_OK(ek_stream_wrap(ctx, native, &w));
  void *wrapped_native = nullptr;
  EK_OK(ek_stream_get_native(w, &wrapped_native));
  EXPECT_EQ(wrapped_native, native);
  {
    Tensor t;
    make_tensor(ctx, kBig, w, &t);
    EK_OK(ek_fill(w, ektest::scalar(7.0), t));
    EK_OK(ek_stream_synchronize(w));
    expect_all(t, 7.0f);
    EK_OK(ek_tensor_record_stream(owner, t));
  }
  EK_OK(ek_stream_destroy(w));
  // The native stream is still alive and usable through its owner.
  Tensor u;
  make_tensor(ctx, 1024, owner, &u);
  EK_OK(ek_fill(owner, ektest::scalar(3.0), u));
  EK_OK(ek_stream_synchronize(owner));
  expect_all(u, 3.0f);
}

// Destroying a wrapper of a stream must not make the pool forget that the
// wrapped stream (still used through its owner) orders its frees.
TEST_P(StreamTest, DestroyingAWrapperKeepsTheOwnersFreesOrdered) {
  if (!cuda()) GTEST_SKIP() << "ek_stream_wrap needs a CUDA context";
  Stream a, b;
  make_stream(&a);
  make_stream(&b);
  void *native = nullptr;
  EK_OK(ek_stream_get_native(a, &native));
  ek_stream w = nullptr;
  EK_OK(ek_stream_wrap(ctx, native, &w));
  EK_OK(ek_stream_destroy(w));
  const int64_t n = 64 << 20;  // 256 MiB of floats: the fill outlasts the host calls
  {
    Tensor big;
    make_tensor(ctx, n, a, &big);
    EK_OK(ek_fill(a, ektest::scalar(1.0), big));
  }  // freed on a while the fill may still run
  Tensor reuse;
  make_tensor(ctx, n, b, &reuse);
  EK_OK(ek_fill(b, ektest::scalar(2.0), reuse));
  EK_OK(ek_context_synchronize(ctx));
  expect_all(reuse, 2.0f);
}

// ---------------------------------------------------------------- events

TEST_P(StreamTest, NeverRecordedEventQueriesAsDone) {
  Event e;
  make_event(&e);
  int done = 0;
  EK_OK(ek_event_query(e, &done));
  EXPECT_EQ(done, 1);
}

TEST_P(StreamTest, RecordQuerySynchronize) {
  Stream s;
  Event e;
  make_stream(&s);
  make_event(&e);
  Tensor t;
  make_tensor(ctx, kBig, s, &t);
  EK_OK(ek_fill(s, ektest::scalar(1.0), t));
  EK_OK(ek_event_record(s, e));
  EK_OK(ek_event_synchronize(e));
  int done = 0;
  EK_OK(ek_event_query(e, &done));
  EXPECT_EQ(done, 1);
  EK_OK(ek_event_record(nullptr, e));  // default stream
  EK_OK(ek_event_synchronize(e));
}

TEST_P(StreamTest, ElapsedAroundWorkIsNonNegative) {
  Stream s;
  Event start, end;
  make_stream(&s);
  make_event(&start);
  make_event(&end);
  Tensor t;
  make_tensor(ctx, kBig, s, &t);
  EK_OK(ek_event_record(s, start));
  EK_OK(ek_fill(s, ektest::scalar(2.0), t));
  EK_OK(ek_event_record(s, end));
  EK_OK(ek_event_synchronize(end));
  float ms = -1;
  EK_OK(ek_event_get_elapsed_ms(start, end, &ms));
  EXPECT_GE(ms, 0.0f);
  EXPECT_LT(ms, 60000.0f);
}

// Events may be shared between threads: one thread re-records a pair while
// others time and query it (a data race on the event's state before; the
// TSan step runs this suite). Fixed iteration counts, not a stop flag, so
// that no synchronization orders the readers after the writer.
TEST_P(StreamTest, EventsMayBeRecordedWhileOtherThreadsReadThem) {
  Event start, end;
  make_event(&start);
  make_event(&end);
  EK_OK(ek_event_record(nullptr, start));
  EK_OK(ek_event_record(nullptr, end));
  EK_OK(ek_event_synchronize(end));
  constexpr int kRounds = 2000;
  std::atomic<int> bad{0};
  auto reader = [&] {
    for (int i = 0; i < kRounds; ++i) {
      float ms = 0;
      ek_status s = ek_event_get_elapsed_ms(start, end, &ms);
      bad += s != EK_SUCCESS && s != EK_ERROR_NOT_READY;  // NOT_READY: end re-recorded, pending
      int done = 0;
      bad += ek_event_query(end, &done) != EK_SUCCESS;
    }
  };
  std::thread r1(reader), r2(reader);
  for (int i = 0; i < kRounds; ++i) {
    bad += ek_event_record(nullptr, i % 2 ? start : end) != EK_SUCCESS;
  }
  r1.join();
  r2.join();
  EXPECT_EQ(bad.load(), 0);
  EK_OK(ek_event_synchronize(end));
}

TEST_P(StreamTest, ElapsedOfNeverRecordedEventIsAnError) {
  Event a, b;
  make_event(&a);
  make_event(&b);
  float ms = 0;
  EK_FAILS(ek_event_get_elapsed_ms(a, b, &ms), EK_ERROR_INVALID_ARGUMENT, "never recorded");
  EK_OK(ek_event_record(nullptr, a));
  EK_FAILS(ek_event_get_elapsed_ms(a, b, &ms), EK_ERROR_INVALID_ARGUMENT, "end never recorded");
}

TEST_P(StreamTest, EventsOfDifferentContextsAreRejected) {
  ek_context other = other_context();
  ek_event foreign = nullptr;
  EK_OK(ek_event_create(other, &foreign));
  Event e;
  make_event(&e);
  Stream s;
  make_stream(&s);
  EK_OK(ek_event_record(nullptr, e));
  EK_OK(ek_event_record(nullptr, foreign));
  float ms = 0;
  EK_FAILS(ek_event_get_elapsed_ms(e, foreign, &ms), EK_ERROR_INVALID_ARGUMENT,
           "different contexts");
  EK_FAILS(ek_stream_wait_event(s, foreign), EK_ERROR_INVALID_ARGUMENT, "different contexts");
  EK_FAILS(ek_event_record(s, foreign), EK_ERROR_INVALID_ARGUMENT, "another context");
  EK_OK(ek_event_destroy(foreign));
  EK_OK(ek_context_destroy(other));
}

TEST_P(StreamTest, StreamOfAnotherContextIsRejectedByOps) {
  ek_context other = other_context();
  ek_stream foreign = nullptr;
  EK_OK(ek_stream_create(other, &foreign));
  Tensor t;
  make_tensor(ctx, 16, nullptr, &t);
  EK_FAILS(ek_fill(foreign, ektest::scalar(1.0), t), EK_ERROR_INVALID_ARGUMENT, "another context");
  void *p = nullptr;
  EK_FAILS(ek_malloc(foreign, ctx, 64, &p), EK_ERROR_INVALID_ARGUMENT, "another context");
  EXPECT_EQ(p, nullptr);
  int64_t n = 16;
  ek_tensor u = nullptr;
  EK_FAILS(ek_tensor_empty(foreign, ctx, 1, &n, EK_FLOAT32, &u), EK_ERROR_INVALID_ARGUMENT,
           "another context");
  EK_OK(ek_stream_destroy(foreign));
  EK_OK(ek_context_destroy(other));
}

TEST_P(StreamTest, WaitEventOnNeverRecordedEventSucceeds) {
  Stream s;
  Event e;
  make_stream(&s);
  make_event(&e);
  EK_OK(ek_stream_wait_event(s, e));
  EK_OK(ek_stream_synchronize(s));
}

// fill on A, record, B waits, copy on B: B sees A's values.
TEST_P(StreamTest, StreamOrderedProducerConsumer) {
  Stream a, b;
  Event ready;
  make_stream(&a);
  make_stream(&b);
  make_event(&ready);
  Tensor src, dst;
  make_tensor(ctx, kBig, a, &src);
  make_tensor(ctx, kBig, b, &dst);
  EK_OK(ek_fill(a, ektest::scalar(5.0), src));
  EK_OK(ek_event_record(a, ready));
  EK_OK(ek_stream_wait_event(b, ready));
  EK_OK(ek_copy(b, src, dst));
  EK_OK(ek_tensor_record_stream(b, src));  // src is released while b may read it
  EK_OK(ek_stream_synchronize(b));
  expect_all(dst, 5.0f);
}

// Blocks freed on a stream stay in the pool when the stream goes away.
TEST_P(StreamTest, DestroyedStreamsCachedBlocksAreReused) {
  ek_stream s = nullptr;
  EK_OK(ek_stream_create(ctx, &s));
  void *p = nullptr, *q = nullptr;
  EK_OK(ek_malloc(s, ctx, 4096, &p));
  EK_OK(ek_free(s, ctx, p));
  EK_OK(ek_stream_destroy(s));
  ek_memory_stats before = EK_MEMORY_STATS_INIT, after = EK_MEMORY_STATS_INIT;
  EK_OK(ek_memory_get_stats(ctx, &before));
  EK_OK(ek_malloc(nullptr, ctx, 4096, &q));
  EK_OK(ek_memory_get_stats(ctx, &after));
  EXPECT_EQ(after.device_mallocs, before.device_mallocs);
  EXPECT_EQ(after.cache_hits, before.cache_hits + 1);
  EK_OK(ek_free(nullptr, ctx, q));
}

// A block allocated on a stream can be freed after the stream is destroyed.
TEST_P(StreamTest, BlockOutlivingItsStreamCanBeFreed) {
  ek_stream s = nullptr;
  EK_OK(ek_stream_create(ctx, &s));
  void *p = nullptr;
  EK_OK(ek_malloc(s, ctx, 1 << 16, &p));
  EK_OK(ek_stream_destroy(s));
  EK_OK(ek_free(nullptr, ctx, p));
  void *q = nullptr;
  EK_OK(ek_malloc(nullptr, ctx, 1 << 16, &q));
  EK_OK(ek_free(nullptr, ctx, q));
}

TEST_P(StreamTest, ManyStreamsAndEventsComeAndGo) {
  int64_t before = 0, after = 0;
  EK_OK(ek_live_handles(&before));
  std::vector<ek_stream> streams(32);
  std::vector<ek_event> events(32);
  for (size_t i = 0; i < streams.size(); ++i) {
    EK_OK(ek_stream_create(ctx, &streams[i]));
    EK_OK(ek_event_create(ctx, &events[i]));
    EK_OK(ek_event_record(streams[i], events[i]));
  }
  for (size_t i = 0; i < streams.size(); ++i) {
    EK_OK(ek_stream_wait_event(streams[(i + 1) % streams.size()], events[i]));
  }
  for (size_t i = 0; i < streams.size(); ++i) {
    EK_OK(ek_event_destroy(events[i]));
    EK_OK(ek_stream_destroy(streams[i]));
  }
  EK_OK(ek_live_handles(&after));
  EXPECT_EQ(after, before);
}
