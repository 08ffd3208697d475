// Tests for the caching memory pool (src/core/pool.hpp) on a simulated device:
// a fake address range with a capacity and fake stream events that complete
// when the test says so. Cross-stream safety is checked with vector clocks.
#include "core/pool.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <map>
#include <mutex>
#include <random>
#include <thread>

namespace {

using ek::Pool;
using ek::PoolConfig;
using ek::PoolResult;

constexpr size_t KiB = 1024, MiB = 1024 * KiB, GiB = 1024 * MiB;
size_t rounded(size_t n) { return (n + 511) / 512 * 512; }

// A device of `capacity` bytes at a fake address range; first fit, so freed
// ranges are handed out again (which is what exposes reuse bugs).
struct FakeMemory : ek::RawMemory {
  explicit FakeMemory(size_t capacity, size_t reported_total = 0)
      : capacity(capacity), total(reported_total ? reported_total : capacity) {
    free_ranges[kBase] = 64 * GiB;
  }
  bool allocate(size_t bytes, void **ptr) override {
    std::lock_guard<std::mutex> lk(mu);
    if (used + bytes > capacity) return false;
    for (auto it = free_ranges.begin(); it != free_ranges.end(); ++it) {
      if (it->second < bytes) continue;
      uintptr_t a = it->first;
      size_t rest = it->second - bytes;
      free_ranges.erase(it);
      if (rest) free_ranges[a + bytes] = rest;
      taken[a] = bytes;
      used += bytes;
      *ptr = reinterpret_cast<void *>(a);
      return true;
    }
    return false;
  }
  void release(void *ptr, size_t bytes) override {
    std::lock_guard<std::mutex> lk(mu);
    uintptr_t a = reinterpret_cast<uintptr_t>(ptr);
    auto it = taken.find(a);
    if (it == taken.end() || it->second != bytes) {
      ++errors;
      return;
    }
    taken.erase(it);
    used -= bytes;
    auto n = free_ranges.emplace(a, bytes).first;
    auto next = std::next(n);
    if (next != free_ranges.end() && a + n->second == next->first) {
      n->second += next->second;
      free_ranges.erase(next);
    }
    if (n != free_ranges.begin()) {
      auto prev = std::prev(n);
      if (prev->first + prev->second == a) {
        prev->second += n->second;
        free_ranges.erase(n);
      }
    }
  }
  void mem_info(size_t *free_bytes, size_t *total_bytes) override {
    std::lock_guard<std::mutex> lk(mu);
    *free_bytes = capacity - used;
    *total_bytes = total;
  }
  static constexpr uintptr_t kBase = uintptr_t(1) << 40;
  std::mutex mu;
  size_t capacity, total, used = 0;
  int errors = 0;
  std::map<uintptr_t, size_t> free_ranges, taken;
};

// Events complete only when the test says so (or on synchronize). Vector
// clocks per stream record what each stream / the host knows has finished.
struct FakeSync : ek::StreamSync {
  using Clock = std::map<uint64_t, uint64_t>;
  struct Event {
    uint64_t stream;
    Clock clock;
    bool done = false, destroyed = false;
  };
  uint64_t record(uint64_t s) override {
    std::lock_guard<std::mutex> lk(mu);
    events[next_id] = Event{s, clocks[s]};
    records.push_back({s, next_id});
    return next_id++;
  }
  bool query(uint64_t e) override {
    std::lock_guard<std::mutex> lk(mu);
    Event *ev = get(e);
    return ev && ev->done;
  }
  void wait(uint64_t s, uint64_t e) override {
    std::lock_guard<std::mutex> lk(mu);
    Event *ev = get(e);
    if (!ev) return;
    waits.push_back({s, e});
    merge(clocks[s], ev->clock);
  }
  void synchronize(uint64_t e) override {
    std::lock_guard<std::mutex> lk(mu);
    syncs.push_back(e);
    complete_locked(e);
  }
  void destroy(uint64_t e) override {
    std::lock_guard<std::mutex> lk(mu);
    if (Event *ev = get(e)) ev->destroyed = true;
  }
  // test side
  void complete(uint64_t e) {
    std::lock_guard<std::mutex> lk(mu);
    complete_locked(e);
  }
  uint64_t tick(uint64_t s) {  // the stream enqueues work; returns its time
    std::lock_guard<std::mutex> lk(mu);
    return ++clocks[s][s];
  }
  // Work of stream s up to time t is known finished by stream `by` or the host.
  bool ordered(uint64_t s, uint64_t t, uint64_t by) {
    std::lock_guard<std::mutex> lk(mu);
    return clocks[by][s] >= t || host[s] >= t;
  }
  bool host_knows(uint64_t s, uint64_t t) {
    std::lock_guard<std::mutex> lk(mu);
    return host[s] >= t;
  }
  std::vector<uint64_t> open_events() {
    std::lock_guard<std::mutex> lk(mu);
    std::vector<uint64_t> out;
    for (auto &kv : events)
      if (!kv.second.done && !kv.second.destroyed) out.push_back(kv.first);
    return out;
  }
  int live_events() {
    std::lock_guard<std::mutex> lk(mu);
    int n = 0;
    for (auto &kv : events) n += !kv.second.destroyed;
    return n;
  }

  std::mutex mu;
  std::map<uint64_t, Event> events;
  std::map<uint64_t, Clock> clocks;
  Clock host;
  uint64_t next_id = 1;
  int errors = 0;  // use of unknown or destroyed events
  std::vector<std::pair<uint64_t, uint64_t>> records, waits;  // (stream, event)
  std::vector<uint64_t> syncs;

 private:
  Event *get(uint64_t e) {
    auto it = events.find(e);
    if (it == events.end() || it->second.destroyed) {
      ++errors;
      return nullptr;
    }
    return &it->second;
  }
  static void merge(Clock &into, const Clock &from) {
    for (auto &kv : from) into[kv.first] = std::max(into[kv.first], kv.second);
  }
  void complete_locked(uint64_t e) {
    if (Event *ev = get(e)) {
      ev->done = true;
      merge(host, ev->clock);
    }
  }
};

struct PoolTest : ::testing::Test {
  FakeMemory mem{8 * GiB};
  FakeSync sync;
  void *alloc(Pool &p, size_t n, uint64_t s = 1) {
    void *ptr = nullptr;
    std::string err;
    EXPECT_EQ(p.allocate(n, s, &ptr, &err), PoolResult::ok) << err;
    return ptr;
  }
  void release(Pool &p, void *ptr, uint64_t s = 1) {
    std::string err;
    EXPECT_EQ(p.free(ptr, s, &err), PoolResult::ok) << err;
  }
  void TearDown() override {
    EXPECT_EQ(mem.errors, 0);
    EXPECT_EQ(sync.errors, 0);
  }
};

uintptr_t A(void *p) { return reinterpret_cast<uintptr_t>(p); }

TEST(FormatBytes, Units) {
  EXPECT_EQ(ek::format_bytes(0), "0 B");
  EXPECT_EQ(ek::format_bytes(1023), "1023 B");
  EXPECT_EQ(ek::format_bytes(1536), "1.50 KiB");
  EXPECT_EQ(ek::format_bytes(512 * MiB), "512.00 MiB");
  EXPECT_EQ(ek::format_bytes(80 * GiB), "80.00 GiB");
}

TEST_F(PoolTest, RoundsTo512) {
  Pool p(mem, sync);
  size_t size = 0;
  uint64_t stream = 0;
  void *a = alloc(p, 1, 7), *b = alloc(p, 513), *c = alloc(p, 1024);
  ASSERT_TRUE(p.owns(a, &size, &stream));
  EXPECT_EQ(size, 512u);
  EXPECT_EQ(stream, 7u);
  ASSERT_TRUE(p.owns(b, &size));
  EXPECT_EQ(size, 1024u);
  ASSERT_TRUE(p.owns(c, &size));
  EXPECT_EQ(size, 1024u);
  EXPECT_EQ(p.stats().allocated_bytes, 2560u);
  EXPECT_EQ(p.stats().requested_bytes, 1538u);
  void *z = &size;
  EXPECT_EQ(p.allocate(0, 1, &z, nullptr), PoolResult::ok);
  EXPECT_EQ(z, nullptr);
  EXPECT_EQ(p.free(nullptr, 1, nullptr), PoolResult::ok);
}

TEST_F(PoolTest, SizeClasses) {
  Pool p(mem, sync);
  alloc(p, 1 * MiB);       // 2 MiB segment
  alloc(p, 1 * MiB + 1);   // 20 MiB segment
  alloc(p, 10 * MiB);      // fits in the same 20 MiB segment
  alloc(p, 10 * MiB + 1);  // own segment, 12 MiB
  alloc(p, 11 * MiB);      // own segment, 12 MiB
  std::vector<size_t> sizes;
  for (auto &s : p.snapshot()) sizes.push_back(s.size);
  std::sort(sizes.begin(), sizes.end());
  EXPECT_EQ(sizes, (std::vector<size_t>{2 * MiB, 12 * MiB, 12 * MiB, 20 * MiB}));
  EXPECT_EQ(p.stats().device_mallocs, 4u);
  EXPECT_EQ(p.stats().reserved_bytes, 46 * MiB);
  // Small requests never come out of large segments and vice versa.
  void *s = alloc(p, 512 * KiB);
  auto snap = p.snapshot();
  for (auto &seg : snap)
    for (auto &b : seg.blocks)
      if (b.address == A(s)) {
        EXPECT_EQ(seg.size, 2 * MiB);
      }
}

TEST_F(PoolTest, SplitAndCoalesce) {
  Pool p(mem, sync);
  void *a = alloc(p, 256 * KiB), *b = alloc(p, 256 * KiB), *c = alloc(p, 256 * KiB);
  EXPECT_EQ(A(b), A(a) + 256 * KiB);
  EXPECT_EQ(A(c), A(b) + 256 * KiB);
  ASSERT_EQ(p.snapshot().size(), 1u);
  EXPECT_EQ(p.snapshot()[0].blocks.size(), 4u);  // a, b, c, free tail
  release(p, b);
  EXPECT_EQ(p.snapshot()[0].blocks.size(), 4u);  // b is free between a and c
  release(p, a);
  auto blocks = p.snapshot()[0].blocks;
  ASSERT_EQ(blocks.size(), 3u);  // a+b merged
  EXPECT_FALSE(blocks[0].allocated);
  EXPECT_EQ(blocks[0].size, 512 * KiB);
  release(p, c);
  blocks = p.snapshot()[0].blocks;
  ASSERT_EQ(blocks.size(), 1u);
  EXPECT_EQ(blocks[0].size, 2 * MiB);
  EXPECT_EQ(p.stats().cached_blocks, 1u);
  // Best fit: a 512 KiB hole is preferred over the big tail.
  void *x = alloc(p, 512 * KiB), *y = alloc(p, 512 * KiB), *z = alloc(p, 512 * KiB);
  release(p, y);
  EXPECT_EQ(A(alloc(p, 300 * KiB)), A(y));
  (void)x, (void)z;
}

TEST_F(PoolTest, SameStreamReuseNeedsNoEvent) {
  Pool p(mem, sync);
  void *a = alloc(p, 100 * KiB, 3);
  release(p, a, 3);
  EXPECT_EQ(alloc(p, 100 * KiB, 3), a);
  EXPECT_TRUE(sync.records.empty());
  EXPECT_TRUE(sync.waits.empty());
  EXPECT_EQ(p.stats().cache_hits, 1u);
}

TEST_F(PoolTest, CrossStreamReuseOnlyAfterEventCompletes) {
  PoolConfig cfg;
  cfg.cross_stream_wait = false;
  Pool p(mem, sync, cfg);
  void *a = alloc(p, 30 * MiB, 1);
  release(p, a, 1);
  void *b = alloc(p, 30 * MiB, 2);
  EXPECT_NE(b, a);  // event on stream 1 not done: grow instead
  ASSERT_EQ(sync.records.size(), 1u);
  EXPECT_EQ(sync.records[0].first, 1u);
  EXPECT_TRUE(sync.waits.empty());
  sync.complete(sync.records[0].second);
  EXPECT_EQ(alloc(p, 30 * MiB, 2), a);
  EXPECT_EQ(sync.live_events(), 0);
}

TEST_F(PoolTest, CrossStreamReuseByGpuSideWait) {
  Pool p(mem, sync);
  void *a = alloc(p, 30 * MiB, 1);
  release(p, a, 1);
  EXPECT_EQ(alloc(p, 30 * MiB, 2), a);
  ASSERT_EQ(sync.records.size(), 1u);
  ASSERT_EQ(sync.waits.size(), 1u);
  EXPECT_EQ(sync.waits[0], std::make_pair(uint64_t(2), sync.records[0].second));
  EXPECT_EQ(p.stats().device_mallocs, 1u);
  EXPECT_TRUE(sync.syncs.empty());  // no host synchronization
}

TEST_F(PoolTest, RecordStreamDelaysReuse) {
  Pool p(mem, sync);
  void *a = alloc(p, 30 * MiB, 1);
  std::string err;
  EXPECT_EQ(p.record_stream(a, 3, &err), PoolResult::ok);
  release(p, a, 1);
  ASSERT_EQ(sync.records.size(), 1u);
  EXPECT_EQ(sync.records[0].first, 3u);
  void *b = alloc(p, 30 * MiB, 1);
  EXPECT_NE(b, a);  // even stream 1 waits for stream 3
  sync.complete(sync.records[0].second);
  EXPECT_EQ(alloc(p, 30 * MiB, 1), a);
  EXPECT_EQ(p.record_stream(&err, 2, &err), PoolResult::invalid);
}

TEST_F(PoolTest, FreeOnOtherStreamWaitsForAllocationStream) {
  Pool p(mem, sync);
  void *a = alloc(p, 30 * MiB, 1);
  release(p, a, 2);
  ASSERT_EQ(sync.records.size(), 1u);
  EXPECT_EQ(sync.records[0].first, 1u);
  EXPECT_NE(alloc(p, 30 * MiB, 2), a);
}

TEST_F(PoolTest, MaxSplitSize) {
  PoolConfig cfg;
  cfg.max_split_size = 8 * MiB;
  Pool p(mem, sync, cfg);
  void *a = alloc(p, 30 * MiB);
  release(p, a);
  void *b = alloc(p, 5 * MiB);  // must not split the cached 30 MiB block
  EXPECT_NE(b, a);
  EXPECT_EQ(p.stats().device_mallocs, 2u);
  // >= max_split: the 15 MiB tail of the 20 MiB segment is too small, the
  // 30 MiB block wastes < 20 MiB and may be split.
  EXPECT_EQ(alloc(p, 16 * MiB), a);
}

TEST_F(PoolTest, LimitHonoured) {
  PoolConfig cfg;
  cfg.limit_bytes = 10 * MiB;
  Pool p(mem, sync, cfg);
  for (int i = 0; i < 10; ++i) alloc(p, 1 * MiB);
  void *ptr = nullptr;
  std::string err;
  EXPECT_EQ(p.allocate(1, 1, &ptr, &err), PoolResult::out_of_memory);
  EXPECT_EQ(ptr, nullptr);
  EXPECT_NE(err.find("limit 10.00 MiB"), std::string::npos) << err;
  EXPECT_EQ(p.stats().reserved_bytes, 10 * MiB);
  EXPECT_EQ(p.stats().oom_count, 1u);
  EXPECT_EQ(p.limit(), 10 * MiB);
  p.set_limit(12 * MiB);
  EXPECT_EQ(p.allocate(1, 1, &ptr, &err), PoolResult::ok);
}

TEST_F(PoolTest, OomMessage) {
  FakeMemory dev(4 * GiB, 80 * GiB);
  PoolConfig cfg;
  cfg.limit_bytes = 4 * GiB;
  Pool p(dev, sync, cfg);
  void *x = alloc(p, 1536 * MiB);
  for (int i = 0; i < 5; ++i) alloc(p, 512 * MiB);
  release(p, x);
  alloc(p, 1 * GiB);  // reuses x, leaves a 512 MiB free tail
  void *ptr = nullptr;
  std::string err;
  EXPECT_EQ(p.allocate(1 * GiB, 1, &ptr, &err), PoolResult::out_of_memory);
  EXPECT_EQ(err,
            "out of memory: requested 1.00 GiB (a new segment of 1.00 GiB would exceed the "
            "limit); allocated 3.50 GiB, reserved 4.00 GiB, "
            "largest free block 512.00 MiB, limit 4.00 GiB, device free 0 B of 80.00 GiB");
  EXPECT_EQ(p.stats().retries, 1u);
}

// Under a limit below a request's usual segment (20 MiB for 1-10 MiB), the
// last attempt takes a segment of the request's own size; when that does not
// fit either, the message and the OOM callback name it.
TEST_F(PoolTest, LimitBelowTheUsualSegmentGivesAnExactSizeOne) {
  PoolConfig cfg;
  cfg.limit_bytes = 8 * MiB;
  Pool p(mem, sync, cfg);
  void *a = alloc(p, 2 * MiB);
  std::vector<ek::SegmentInfo> segs = p.snapshot();
  ASSERT_EQ(segs.size(), 1u);
  EXPECT_EQ(segs[0].size, 2 * MiB);
  void *b = alloc(p, 100 * KiB);  // its usual 2 MiB segment fits
  EXPECT_EQ(p.stats().reserved_bytes, 4 * MiB);
  std::string cause;
  p.set_oom_callback([&](size_t, const std::string &why) { cause = why; });
  void *c = nullptr;
  std::string err;
  EXPECT_EQ(p.allocate(5 * MiB, 1, &c, &err), PoolResult::out_of_memory);
  EXPECT_EQ(cause, "a new segment of 5.00 MiB would exceed the limit");
  EXPECT_EQ(err.rfind("out of memory: requested 5.00 MiB (a new segment of 5.00 MiB would "
                      "exceed the limit); allocated ", 0), 0u) << err;
  release(p, a);
  c = alloc(p, 5 * MiB);  // a's segment released: 2 + 5 fits
  EXPECT_EQ(p.stats().reserved_bytes, 7 * MiB);
  release(p, b);
  release(p, c);
}

// The same on a device with no room for the usual segment.
TEST_F(PoolTest, DeviceWithoutRoomForTheUsualSegmentGivesAnExactSizeOne) {
  FakeMemory dev(8 * MiB);
  Pool p(dev, sync);
  void *a = alloc(p, 3 * MiB);
  EXPECT_EQ(dev.used, 3 * MiB);
  void *c = nullptr;
  std::string err;
  EXPECT_EQ(p.allocate(6 * MiB, 1, &c, &err), PoolResult::out_of_memory);
  EXPECT_NE(err.find("requested 6.00 MiB (the device could not provide a new segment of "
                     "6.00 MiB)"), std::string::npos) << err;
  release(p, a);
}

TEST_F(PoolTest, OomOnDeviceReleasesCacheAndRetries) {
  FakeMemory dev(40 * MiB);
  Pool p(dev, sync);
  void *a = alloc(p, 30 * MiB, 1);
  release(p, a, 1);
  // Stream 2: the 30 MiB block is not usable (too big a waste is fine, but the
  // device cannot hold another 24 MiB segment): the cache is released.
  void *b = alloc(p, 24 * MiB, 2);
  EXPECT_NE(b, nullptr);
  EXPECT_EQ(p.stats().device_frees, 0u);  // taken by waiting on stream 1 instead
  release(p, b, 2);
  PoolConfig cfg;
  cfg.cross_stream_wait = false;
  FakeMemory dev2(40 * MiB);
  Pool q(dev2, sync, cfg);
  void *c = alloc(q, 30 * MiB, 1);
  release(q, c, 1);
  void *d = alloc(q, 24 * MiB, 2);  // grow fails -> sync + release -> reuse
  EXPECT_NE(d, nullptr);
  EXPECT_EQ(q.stats().retries, 1u);
  EXPECT_EQ(q.stats().device_frees, 1u);
  EXPECT_FALSE(sync.syncs.empty());
}

TEST_F(PoolTest, EmptyCacheReleasesFreeSegments) {
  Pool p(mem, sync);
  void *a = alloc(p, 1 * MiB), *b = alloc(p, 30 * MiB), *c = alloc(p, 3 * MiB);
  p.record_stream(b, 2, nullptr);
  release(p, a);
  release(p, b);  // pending on stream 2's event
  p.empty_cache();
  EXPECT_EQ(p.stats().reserved_bytes, 20 * MiB);  // c's segment stays
  EXPECT_EQ(p.stats().segments, 1u);
  EXPECT_EQ(p.stats().device_frees, 2u);
  EXPECT_EQ(mem.used, 20 * MiB);
  // Host waited for stream 2 (record_stream) and stream 1 (the frees).
  ASSERT_EQ(sync.syncs.size(), 2u);
  EXPECT_EQ(sync.events[sync.syncs[0]].stream, 2u);
  EXPECT_EQ(sync.events[sync.syncs[1]].stream, 1u);
  EXPECT_EQ(sync.live_events(), 0);
  release(p, c);
  p.empty_cache();
  EXPECT_EQ(p.stats().reserved_bytes, 0u);
  EXPECT_EQ(mem.used, 0u);
}

TEST_F(PoolTest, OomCallbackFreesAndRetrySucceeds) {
  FakeMemory dev(40 * MiB);
  Pool p(dev, sync);
  void *a = alloc(p, 30 * MiB);
  std::vector<size_t> calls;
  p.set_oom_callback([&](size_t req, const std::string &) {
    calls.push_back(req);
    if (calls.size() > 1) return;
    release(p, a);  // the lock is released: re-entering the pool works
    p.empty_cache();
  });
  void *b = alloc(p, 20 * MiB);
  EXPECT_NE(b, nullptr);
  EXPECT_EQ(calls, std::vector<size_t>{20 * MiB});
  EXPECT_EQ(p.stats().retries, 2u);  // cache release, then callback
  EXPECT_EQ(p.stats().oom_count, 0u);
  // Nothing left to free: the callback runs, the retry fails.
  void *c = nullptr;
  std::string err;
  EXPECT_EQ(p.allocate(30 * MiB, 1, &c, &err), PoolResult::out_of_memory);
  EXPECT_EQ(calls.size(), 2u);
  EXPECT_EQ(p.stats().oom_count, 1u);
}

TEST_F(PoolTest, ThresholdCallbackFiresOnUpwardCrossing) {
  Pool p(mem, sync);
  std::vector<size_t> fired;
  p.set_threshold_callback(10 * MiB, [&](size_t reserved) {
    fired.push_back(reserved);
    EXPECT_EQ(p.stats().reserved_bytes, reserved);  // lock is released
  });
  void *a = alloc(p, 1 * MiB);
  EXPECT_TRUE(fired.empty());
  void *b = alloc(p, 2 * MiB);
  EXPECT_EQ(fired, std::vector<size_t>{22 * MiB});
  alloc(p, 30 * MiB);
  EXPECT_EQ(fired.size(), 1u);
  release(p, a);
  release(p, b);
  p.empty_cache();  // back down to 30 MiB, still above: no crossing
  p.set_threshold_callback(40 * MiB, [&](size_t reserved) { fired.push_back(reserved); });
  alloc(p, 2 * MiB);
  EXPECT_EQ(fired, (std::vector<size_t>{22 * MiB, 50 * MiB}));
}

// What set_event_callback received, in order.
struct EventLog {
  std::vector<ek::PoolEvent> events;
  std::vector<std::string> whys;  // copied: the texts are static, but compare by value
};

TEST_F(PoolTest, EventsTellSegmentsReservedAndReleasedWithThePoolUnlocked) {
  FakeMemory dev(40 * MiB);
  Pool p(dev, sync);
  EventLog log;
  p.set_event_callback([&](const ek::PoolEvent &e) {
    log.events.push_back(e);
    log.whys.push_back(e.why);
    EXPECT_EQ(p.stats().reserved_bytes, e.reserved);  // lock is released
  });
  void *a = alloc(p, 1 * MiB), *b = alloc(p, 3 * MiB);  // a 2 MiB and a 20 MiB segment
  void *c = alloc(p, 1 * MiB);                          // fits a's segment: no event
  ASSERT_EQ(log.events.size(), 2u);
  EXPECT_EQ(log.events[0].kind, ek::PoolEvent::segment_reserved);
  EXPECT_EQ(log.events[0].bytes, 2 * MiB);
  EXPECT_EQ(log.events[0].segments, 1u);
  EXPECT_EQ(log.events[0].reserved, 2 * MiB);
  EXPECT_EQ(log.events[1].bytes, 20 * MiB);
  EXPECT_EQ(log.events[1].reserved, 22 * MiB);
  release(p, a);
  release(p, b);
  release(p, c);
  p.empty_cache();
  ASSERT_EQ(log.events.size(), 3u);
  EXPECT_EQ(log.events[2].kind, ek::PoolEvent::segments_released);
  EXPECT_EQ(log.events[2].bytes, 22 * MiB);
  EXPECT_EQ(log.events[2].segments, 2u);
  EXPECT_EQ(log.events[2].reserved, 0u);
  EXPECT_EQ(log.whys[2], "by empty_cache");

  // Out of device memory: the release made for the retry is told before the
  // OOM callback runs; lowering the limit releases too.
  void *d = alloc(p, 30 * MiB);
  release(p, d);
  size_t events_before_oom = 0;
  p.set_oom_callback([&](size_t, const std::string &) { events_before_oom = log.events.size(); });
  void *e = alloc(p, 20 * MiB);  // 30 MiB segment cached on stream 1: same stream, reused
  release(p, e);
  void *big = nullptr;
  std::string err;
  EXPECT_EQ(p.allocate(50 * MiB, 1, &big, &err), PoolResult::out_of_memory);
  ASSERT_GE(log.events.size(), 5u);
  EXPECT_EQ(log.whys[4], "to retry an allocation");
  EXPECT_EQ(events_before_oom, 5u);
  void *f = alloc(p, 8 * MiB);
  release(p, f);
  p.set_limit(1 * MiB);
  EXPECT_EQ(log.whys.back(), "as the limit was lowered");
  EXPECT_EQ(log.events.back().reserved, 0u);
}

TEST_F(PoolTest, NoEventsAreRecordedWithoutACallback) {
  Pool p(mem, sync);
  std::vector<ek::PoolEvent> got;
  void *a = alloc(p, 1 * MiB);  // reserved before a callback exists: never told
  p.set_event_callback([&](const ek::PoolEvent &e) { got.push_back(e); });
  release(p, a);
  p.set_event_callback(nullptr);
  p.empty_cache();
  EXPECT_TRUE(got.empty());
}

bool same_stats(const ek::PoolStats &a, const ek::PoolStats &b) {
  return a.allocated_bytes == b.allocated_bytes && a.reserved_bytes == b.reserved_bytes &&
         a.active_blocks == b.active_blocks && a.cached_blocks == b.cached_blocks &&
         a.alloc_count == b.alloc_count && a.free_count == b.free_count &&
         a.total_freed_bytes == b.total_freed_bytes && a.requested_bytes == b.requested_bytes;
}

TEST_F(PoolTest, InvalidFrees) {
  Pool p(mem, sync);
  void *a = alloc(p, 4 * KiB), *b = alloc(p, 4 * KiB);
  release(p, a);
  auto before = p.stats();
  std::string err;
  EXPECT_EQ(p.free(a, 1, &err), PoolResult::invalid);
  EXPECT_NE(err.find("double free"), std::string::npos) << err;
  char hex[32];
  std::snprintf(hex, sizeof hex, "0x%llx", static_cast<unsigned long long>(A(a)));
  EXPECT_NE(err.find(hex), std::string::npos) << err;
  int local = 0;
  EXPECT_EQ(p.free(&local, 1, &err), PoolResult::invalid);
  EXPECT_NE(err.find("not allocated by this pool"), std::string::npos) << err;
  EXPECT_EQ(p.free(static_cast<char *>(b) + 512, 1, &err), PoolResult::invalid);
  EXPECT_NE(err.find("not the start"), std::string::npos) << err;
  EXPECT_TRUE(same_stats(before, p.stats()));
  EXPECT_FALSE(p.owns(a));
  EXPECT_TRUE(p.owns(b));
}

TEST_F(PoolTest, StatsExact) {
  Pool p(mem, sync);
  void *a = alloc(p, 1000);            // 1024 in a 2 MiB segment
  void *b = alloc(p, 600 * KiB);       // same segment
  void *c = alloc(p, 5 * MiB + 3);     // 20 MiB segment
  release(p, b);
  void *d = alloc(p, 100 * KiB);       // reuses b's space
  auto s = p.stats();
  EXPECT_EQ(s.allocated_bytes, 1024 + rounded(5 * MiB + 3) + 100 * KiB);
  EXPECT_EQ(s.requested_bytes, 1000 + 5 * MiB + 3 + 100 * KiB);
  EXPECT_EQ(s.reserved_bytes, 22 * MiB);
  EXPECT_EQ(s.peak_allocated_bytes, 1024 + 600 * KiB + rounded(5 * MiB + 3));
  EXPECT_EQ(s.peak_requested_bytes, 1000 + 600 * KiB + 5 * MiB + 3);
  EXPECT_EQ(s.peak_reserved_bytes, 22 * MiB);
  EXPECT_EQ(s.total_allocated_bytes, 1024 + 600 * KiB + rounded(5 * MiB + 3) + 100 * KiB);
  EXPECT_EQ(s.total_freed_bytes, 600 * KiB);
  EXPECT_EQ(s.alloc_count, 4u);
  EXPECT_EQ(s.free_count, 1u);
  EXPECT_EQ(s.cache_hits, 2u);  // b (from the first segment) and d
  EXPECT_EQ(s.device_mallocs, 2u);
  EXPECT_EQ(s.active_blocks, 3u);
  EXPECT_EQ(s.segments, 2u);
  EXPECT_EQ(s.cached_blocks, 2u);  // tail of each segment (b's rest merged into tail)
  EXPECT_EQ(s.cached_free_bytes, 22 * MiB - s.allocated_bytes);
  size_t tail20 = 20 * MiB - rounded(5 * MiB + 3);
  size_t tail2 = 2 * MiB - 1024 - 100 * KiB;
  EXPECT_EQ(s.largest_free_block, tail20);
  EXPECT_DOUBLE_EQ(s.fragmentation, 1.0 - double(tail20) / double(tail20 + tail2));
  p.reset_peaks();
  s = p.stats();
  EXPECT_EQ(s.peak_allocated_bytes, s.allocated_bytes);
  EXPECT_EQ(s.peak_requested_bytes, s.requested_bytes);
  EXPECT_EQ(s.peak_reserved_bytes, s.reserved_bytes);
  release(p, a);
  release(p, c);
  release(p, d);
  s = p.stats();
  EXPECT_EQ(s.allocated_bytes, 0u);
  EXPECT_EQ(s.fragmentation, 1.0 - double(20 * MiB) / double(22 * MiB));
  p.empty_cache();
  s = p.stats();
  EXPECT_EQ(s.fragmentation, 0.0);
  EXPECT_EQ(s.device_frees, 2u);
  EXPECT_EQ(s.total_allocated_bytes, s.total_freed_bytes);
}

// Checks the snapshot against the test's model of live allocations.
void check_consistency(Pool &p, FakeMemory &mem, const std::map<uintptr_t, size_t> &live,
                       size_t limit) {
  auto snap = p.snapshot();
  auto s = p.stats();
  uint64_t reserved = 0, allocated = 0, free_blocks = 0, live_seen = 0, largest = 0;
  uintptr_t prev_end = 0;
  for (auto &seg : snap) {
    ASSERT_GE(seg.address, prev_end) << "segments overlap";
    prev_end = seg.address + seg.size;
    reserved += seg.size;
    uintptr_t at = seg.address;
    for (auto &b : seg.blocks) {
      ASSERT_EQ(b.address, at) << "blocks do not tile the segment";
      ASSERT_GT(b.size, 0u);
      ASSERT_EQ(b.size % 512, 0u);
      at += b.size;
      if (!b.allocated) {
        ++free_blocks;
        largest = std::max<uint64_t>(largest, b.size);
        continue;
      }
      auto it = live.find(b.address);
      ASSERT_NE(it, live.end()) << "allocated block unknown to the test";
      ASSERT_EQ(b.size, it->second);
      allocated += b.size;
      ++live_seen;
    }
    ASSERT_EQ(at, seg.address + seg.size);
  }
  // Every live allocation lies inside a segment (snapshot tiles are disjoint).
  ASSERT_EQ(live_seen, live.size());
  uint64_t model = 0;
  for (auto &kv : live) model += kv.second;
  ASSERT_EQ(s.allocated_bytes, model);
  ASSERT_EQ(allocated, model);
  ASSERT_EQ(s.reserved_bytes, reserved);
  ASSERT_EQ(mem.used, reserved);
  ASSERT_EQ(s.active_blocks, live.size());
  ASSERT_EQ(s.cached_blocks, free_blocks);
  ASSERT_EQ(s.largest_free_block, largest);  // parked blocks included, coalesced
  ASSERT_EQ(s.segments, snap.size());
  if (limit) {
    ASSERT_LE(s.reserved_bytes, limit);
  }
}

// A region freed on `stream` at stream time `time`: whoever gets it next must
// be ordered after that point (by an event it waited on, or a completed one).
struct Hazard {
  uintptr_t begin, end;
  uint64_t stream, time;
};

TEST_F(PoolTest, RandomizedTrace) {
  FakeMemory dev(3 * GiB);
  PoolConfig cfg;
  cfg.limit_bytes = 1536 * MiB;
  Pool p(dev, sync, cfg);
  std::mt19937_64 rng(12345);
  struct Live { size_t size; uint64_t stream; std::vector<uint64_t> used; };
  std::map<uintptr_t, Live> live;
  std::map<uintptr_t, size_t> sizes;
  std::vector<Hazard> hazards;
  auto pick = [&](size_t n) { return size_t(rng() % n); };
  int ooms = 0, allocs = 0;
  for (int step = 0; step < 20000; ++step) {
    int op = int(pick(100));
    uint64_t stream = 1 + pick(4);
    if (op < 50 && live.size() < 400) {
      double lg = std::uniform_real_distribution<double>(0, 26)(rng);  // 1 B .. 64 MiB
      size_t n = std::max<size_t>(1, size_t(std::exp2(lg)));
      void *ptr = nullptr;
      std::string err;
      PoolResult r = p.allocate(n, stream, &ptr, &err);
      if (r == PoolResult::out_of_memory) {
        ++ooms;
        ASSERT_NE(err.find("out of memory"), std::string::npos);
        continue;
      }
      ASSERT_EQ(r, PoolResult::ok);
      ++allocs;
      uintptr_t a = A(ptr);
      size_t size = rounded(n);
      for (auto &h : hazards) {
        if (h.begin < a + size && a < h.end) {
          ASSERT_TRUE(sync.ordered(h.stream, h.time, stream))
              << "step " << step << ": reused memory of stream " << h.stream
              << " on stream " << stream << " without synchronization";
        }
      }
      live[a] = {size, stream, {}};
      sizes[a] = size;
    } else if (op < 88 && !live.empty()) {
      auto it = std::next(live.begin(), long(pick(live.size())));
      uint64_t fs = pick(10) < 7 ? it->second.stream : stream;
      auto used = it->second.used;
      used.push_back(it->second.stream);
      used.push_back(fs);
      for (uint64_t u : used) hazards.push_back({it->first, it->first + it->second.size, u,
                                                 sync.tick(u)});
      void *ptr = reinterpret_cast<void *>(it->first);
      sizes.erase(it->first);
      live.erase(it);
      std::string err;
      ASSERT_EQ(p.free(ptr, fs, &err), PoolResult::ok) << err;
    } else if (op < 92 && !live.empty()) {
      auto it = std::next(live.begin(), long(pick(live.size())));
      it->second.used.push_back(stream);
      ASSERT_EQ(p.record_stream(reinterpret_cast<void *>(it->first), stream, nullptr),
                PoolResult::ok);
    } else if (op < 99) {
      auto open = sync.open_events();
      if (!open.empty()) sync.complete(open[pick(open.size())]);
    } else {
      p.empty_cache();
    }
    hazards.erase(std::remove_if(hazards.begin(), hazards.end(),
                                 [&](const Hazard &h) { return sync.host_knows(h.stream, h.time); }),
                  hazards.end());
    check_consistency(p, dev, sizes, cfg.limit_bytes);
    if (HasFatalFailure()) return;
  }
  EXPECT_GT(allocs, 5000);
  EXPECT_GT(ooms, 0);  // the limit was actually exercised
  EXPECT_GT(sync.waits.size(), 0u);
  std::printf("randomized trace: %d allocs, %d OOMs, %zu waits, %zu events, retries %llu\n",
              allocs, ooms, sync.waits.size(), sync.records.size(),
              static_cast<unsigned long long>(p.stats().retries));
}

TEST_F(PoolTest, StreamDestroyedMovesBlocksToSharedList) {
  Pool p(mem, sync);
  void *a = alloc(p, 30 * MiB, 1);
  release(p, a, 1);
  p.stream_destroyed(1);
  auto snap = p.snapshot();
  ASSERT_EQ(snap.size(), 1u);
  EXPECT_EQ(snap[0].blocks[0].stream_id, ek::kSharedStream);
  ASSERT_EQ(sync.records.size(), 1u);
  EXPECT_EQ(sync.records[0].first, 1u);
  EXPECT_EQ(alloc(p, 30 * MiB, 2), a);
  ASSERT_EQ(sync.waits.size(), 1u);
  EXPECT_EQ(sync.waits[0].second, sync.records[0].second);
}

// ---- fast cache (blocks parked uncoalesced on free, by stream and size)

TEST_F(PoolTest, FastCacheReusesSameAddress) {
  Pool p(mem, sync);
  for (size_t n : {512 * size_t(1), 64 * KiB, 1 * MiB, 64 * MiB}) {
    void *a = alloc(p, n, 3);
    release(p, a, 3);
    for (int i = 0; i < 5; ++i) {
      void *b = alloc(p, n, 3);
      EXPECT_EQ(b, a);
      release(p, b, 3);
    }
  }
  EXPECT_EQ(p.stats().device_mallocs, 2u);  // one 2 MiB segment, one 64 MiB
  EXPECT_EQ(p.stats().cache_hits, 2u + 4 * 5);
  EXPECT_TRUE(sync.records.empty());
  EXPECT_TRUE(sync.waits.empty());
}

TEST_F(PoolTest, FastCacheStatsExactWhileParked) {
  Pool p(mem, sync);
  void *a = alloc(p, 256 * KiB), *b = alloc(p, 256 * KiB), *c = alloc(p, 256 * KiB);
  release(p, b);  // parked between two live blocks
  release(p, a);  // parked next to b: both report as one 512 KiB free block
  auto s = p.stats();
  EXPECT_EQ(s.cached_blocks, 2u);  // a+b, and the tail after c
  EXPECT_EQ(s.cached_free_bytes, 2 * MiB - 256 * KiB);
  EXPECT_EQ(s.largest_free_block, 2 * MiB - 768 * KiB);
  auto blocks = p.snapshot()[0].blocks;
  ASSERT_EQ(blocks.size(), 3u);
  EXPECT_EQ(blocks[0].address, A(a));
  EXPECT_EQ(blocks[0].size, 512 * KiB);
  EXPECT_FALSE(blocks[0].allocated);
  release(p, c);  // parked too: the whole segment is one free block
  s = p.stats();
  EXPECT_EQ(s.cached_blocks, 1u);
  EXPECT_EQ(s.largest_free_block, 2 * MiB);
  EXPECT_EQ(s.fragmentation, 0.0);
  ASSERT_EQ(p.snapshot()[0].blocks.size(), 1u);
  p.empty_cache();  // flushes the parked blocks and releases the segment
  EXPECT_EQ(p.stats().reserved_bytes, 0u);
  EXPECT_EQ(p.stats().cached_blocks, 0u);
  EXPECT_EQ(mem.used, 0u);
}

TEST_F(PoolTest, FastCacheCoalescesBeforeGrowth) {
  Pool p(mem, sync);
  std::vector<void *> small, medium;
  for (int i = 0; i < 4; ++i) small.push_back(alloc(p, 512 * KiB));  // one 2 MiB segment
  for (int i = 0; i < 4; ++i) medium.push_back(alloc(p, 5 * MiB));   // one 20 MiB segment
  for (void *x : small) release(p, x);
  for (void *x : medium) release(p, x);
  EXPECT_EQ(p.stats().device_mallocs, 2u);
  // Neither size is parked: the parked pieces must be merged, not grown past.
  EXPECT_EQ(alloc(p, 1 * MiB), small[0]);  // needs two parked pieces merged
  EXPECT_EQ(alloc(p, 20 * MiB), medium[0]);
  EXPECT_EQ(p.stats().device_mallocs, 2u);
}

TEST_F(PoolTest, FastCacheHitOnlyAtStartOfFreeRun) {
  Pool p(mem, sync);
  void *a = alloc(p, 256 * KiB), *b = alloc(p, 256 * KiB), *c = alloc(p, 256 * KiB);
  release(p, a);
  release(p, b);  // parked after a: taking b would cut the 512 KiB hole a+b
  EXPECT_EQ(alloc(p, 256 * KiB), a);  // best fit of the merged hole, as without the cache
  (void)c;
}

TEST_F(PoolTest, FastCacheKeepsCrossStreamRules) {
  Pool p(mem, sync);
  void *a = alloc(p, 1 * MiB, 1);
  release(p, a, 1);  // parked on stream 1
  EXPECT_EQ(alloc(p, 1 * MiB, 2), a);  // stream 2 gets it only by waiting on stream 1
  ASSERT_EQ(sync.records.size(), 1u);
  EXPECT_EQ(sync.records[0].first, 1u);
  ASSERT_EQ(sync.waits.size(), 1u);
  EXPECT_EQ(sync.waits[0], std::make_pair(uint64_t(2), sync.records[0].second));
  PoolConfig cfg;
  cfg.cross_stream_wait = false;
  Pool q(mem, sync, cfg);
  void *x = alloc(q, 1 * MiB, 1);
  release(q, x, 1);
  EXPECT_NE(alloc(q, 1 * MiB, 2), x);  // event not complete: grow, never the parked block
  EXPECT_EQ(q.stats().device_mallocs, 2u);
  // Freed on another stream than allocated: pending on an event, never parked.
  void *y = alloc(q, 64 * KiB, 1);
  release(q, y, 2);
  EXPECT_NE(alloc(q, 64 * KiB, 2), y);
}

TEST_F(PoolTest, FastCacheFlushedWhenStreamDestroyed) {
  Pool p(mem, sync);
  void *a = alloc(p, 1 * MiB, 1);
  release(p, a, 1);
  p.stream_destroyed(1);
  auto blocks = p.snapshot()[0].blocks;
  ASSERT_EQ(blocks.size(), 1u);
  EXPECT_EQ(blocks[0].stream_id, ek::kSharedStream);
  void *b = alloc(p, 1 * MiB, 1);  // a new stream 1 must not see the old one's block
  ASSERT_EQ(sync.waits.size(), 1u);
  EXPECT_EQ(b, a);
}

TEST_F(PoolTest, MultiThreaded) {
  Pool p(mem, sync);
  std::atomic<int> failures{0};
  auto worker = [&](uint64_t stream) {
    std::mt19937 rng{unsigned(stream)};
    std::vector<void *> mine;
    for (int i = 0; i < 20000; ++i) {
      if (mine.size() < 64 && rng() % 2) {
        void *ptr = nullptr;
        size_t n = 1 + rng() % (4 * MiB);
        if (p.allocate(n, stream, &ptr, nullptr) == PoolResult::ok) {
          mine.push_back(ptr);
        } else {
          ++failures;
        }
      } else if (!mine.empty()) {
        size_t k = rng() % mine.size();
        uint64_t s = 0;
        if (!p.owns(mine[k], nullptr, &s) || s != stream) ++failures;
        if (p.free(mine[k], stream, nullptr) != PoolResult::ok) ++failures;
        mine[k] = mine.back();
        mine.pop_back();
      }
    }
    for (void *ptr : mine) p.free(ptr, stream, nullptr);
  };
  std::vector<std::thread> threads;
  for (uint64_t s = 1; s <= 4; ++s) threads.emplace_back(worker, s);
  for (auto &t : threads) t.join();
  EXPECT_EQ(failures.load(), 0);
  auto s = p.stats();
  EXPECT_EQ(s.allocated_bytes, 0u);
  EXPECT_EQ(s.active_blocks, 0u);
  EXPECT_EQ(s.alloc_count, s.free_count);
  check_consistency(p, mem, {}, 0);
}

// A transformer-like training loop with varying sequence lengths: weights
// once, activations grow in forward and die in reverse in backward, grads
// live until the optimizer step, a data-loader stream uploads batches.
struct TraceResult { uint64_t peak_reserved, peak_allocated, peak_requested, retries, mallocs; };
TraceResult replay_training(FakeMemory &mem, FakeSync &sync, size_t limit) {
  PoolConfig cfg;
  cfg.limit_bytes = limit;
  Pool p(mem, sync, cfg);
  const uint64_t compute = 1, loader = 2;
  const size_t hidden = 1024, layers = 12, batch = 8;
  const size_t seqs[] = {128, 512, 384, 1024, 256, 768, 640, 1024, 200, 900};
  auto get = [&](size_t n, uint64_t s) {
    void *ptr = nullptr;
    EXPECT_EQ(p.allocate(n, s, &ptr, nullptr), PoolResult::ok);
    return ptr;
  };
  std::vector<void *> weights, moments;
  for (size_t l = 0; l < layers; ++l)
    for (size_t n : {3 * hidden * hidden * 2, hidden * hidden * 2, 8 * hidden * hidden * 2,
                     hidden * 2, hidden * 4 * 2}) {
      weights.push_back(get(n, compute));
      moments.push_back(get(2 * n, compute));
    }
  for (int it = 0; it < 40; ++it) {
    size_t seq = seqs[it % 10], tokens = batch * seq;
    void *input = get(tokens * 8, loader);
    p.record_stream(input, compute, nullptr);
    p.free(input, loader, nullptr);  // consumed on compute
    std::vector<void *> acts;
    for (size_t l = 0; l < layers; ++l) {
      acts.push_back(get(tokens * hidden * 2 * 3, compute));         // qkv
      acts.push_back(get(batch * 16 * seq * seq * 2, compute));      // attention probs
      void *tmp = get(tokens * hidden * 4 * 2, compute);             // temporary
      acts.push_back(get(tokens * hidden * 4 * 2, compute));         // mlp
      p.free(tmp, compute, nullptr);
    }
    std::vector<void *> grads;
    for (size_t i = weights.size(); i-- > 0;) {
      if (i % 5 == 0 && !acts.empty()) {
        for (int k = 0; k < 3; ++k) {
          p.free(acts.back(), compute, nullptr);
          acts.pop_back();
        }
      }
      size_t wsize = 0;
      p.owns(weights[i], &wsize);
      grads.push_back(get(wsize, compute));
    }
    for (void *g : grads) p.free(g, compute, nullptr);
    for (uint64_t e : sync.open_events()) sync.complete(e);  // the GPU catches up
  }
  auto s = p.stats();
  return {s.peak_reserved_bytes, s.peak_allocated_bytes, s.peak_requested_bytes, s.retries,
          s.device_mallocs};
}

void print(const char *what, const TraceResult &r) {
  std::printf("%s: peak reserved %llu, peak allocated %llu, peak requested %llu, "
              "retries %llu, device mallocs %llu\n",
              what, (unsigned long long)r.peak_reserved, (unsigned long long)r.peak_allocated,
              (unsigned long long)r.peak_requested, (unsigned long long)r.retries,
              (unsigned long long)r.mallocs);
}

// Expected numbers were computed once with this implementation; a change
// means the allocator's placement policy changed, which must be deliberate.
TEST_F(PoolTest, TrainingTraceReplay) {
  TraceResult r = replay_training(mem, sync, 0);
  print("training trace", r);
  EXPECT_EQ(r.peak_reserved, 6994001920u);  // 6.51 GiB
  EXPECT_EQ(r.peak_allocated, 5603958784u);  // 5.22 GiB
  EXPECT_EQ(r.peak_requested, 5603958784u);
  EXPECT_EQ(r.retries, 0u);
  EXPECT_EQ(r.mallocs, 117u);
}

TEST_F(PoolTest, TrainingTraceReplayUnderLimit) {
  TraceResult r = replay_training(mem, sync, 6 * GiB);  // below the unlimited peak reserved
  print("training trace, 6 GiB limit", r);
  EXPECT_LE(r.peak_reserved, 6 * GiB);
  EXPECT_EQ(r.peak_reserved, 6188695552u);  // 5.76 GiB
  EXPECT_EQ(r.peak_allocated, 5603958784u);
  EXPECT_EQ(r.retries, 1u);  // one cache release, no OOM
  EXPECT_EQ(r.mallocs, 117u);
}

// Activations sized by a sequence length drawn per step: every step asks for
// sizes no cached segment fits exactly. Returns the pool's final statistics.
ek::PoolStats replay_varying(FakeMemory &mem, FakeSync &sync, double gc_ratio) {
  PoolConfig cfg;
  cfg.gc_ratio = gc_ratio;
  Pool p(mem, sync, cfg);
  auto get = [&](size_t n) {
    void *ptr = nullptr;
    EXPECT_EQ(p.allocate(n, 1, &ptr, nullptr), PoolResult::ok);
    return ptr;
  };
  std::vector<void *> weights;
  for (int i = 0; i < 4; ++i) weights.push_back(get(128 * MiB));
  std::mt19937_64 rng(7);
  for (int step = 0; step < 60; ++step) {
    size_t a = (128 + rng() % 3969) * 8 * KiB;  // seq in [128, 4096]: 1 .. 32 MiB
    std::vector<void *> acts;
    for (int l = 0; l < 8; ++l)
      for (size_t n : {a, 4 * a}) acts.push_back(get(n));
    for (auto it = acts.rbegin(); it != acts.rend(); ++it) p.free(*it, 1, nullptr);
    // The GPU catches up: fences recorded by a collection this step (blocks
    // it had to skip) complete, so the next collection may release them.
    for (uint64_t e : sync.open_events()) sync.complete(e);
  }
  for (void *w : weights) p.free(w, 1, nullptr);
  return p.stats();
}

TEST_F(PoolTest, GcBoundsReservedOnVaryingSizes) {
  FakeMemory big(48 * GiB);
  ek::PoolStats on = replay_varying(big, sync, 1.25);
  double ratio = double(on.peak_reserved_bytes) / double(on.peak_allocated_bytes);
  std::printf("gc 1.25: reserved/allocated %.3f, device mallocs %llu, frees %llu\n", ratio,
              (unsigned long long)on.device_mallocs, (unsigned long long)on.device_frees);
  // Segments that early steps split and kept in use cannot be released, so
  // the bound is not reached here: 2.02 against 2.27 without gc (GcOffKeepsEverySegment).
  EXPECT_LT(ratio, 2.1);
  EXPECT_GT(on.device_frees, 0u);
  EXPECT_EQ(on.retries, 0u);
  EXPECT_TRUE(sync.syncs.empty());  // collection never waits on the host
  EXPECT_EQ(big.errors, 0);
}

TEST_F(PoolTest, GcOffKeepsEverySegment) {
  FakeMemory big(48 * GiB);
  ek::PoolStats off = replay_varying(big, sync, 0);
  double ratio = double(off.peak_reserved_bytes) / double(off.peak_allocated_bytes);
  std::printf("gc off: reserved/allocated %.3f, device mallocs %llu\n", ratio,
              (unsigned long long)off.device_mallocs);
  EXPECT_GT(ratio, 1.5);  // the old behaviour: stale exact-size segments pile up
  EXPECT_EQ(off.device_frees, 0u);
  EXPECT_EQ(off.retries, 0u);
}

// Below gc_min_bytes nothing is collected, however large the ratio.
TEST_F(PoolTest, GcLeavesSmallCachesAlone) {
  Pool p(mem, sync);
  void *x = alloc(p, 100 * MiB);
  release(p, x);
  void *y = alloc(p, 200 * MiB);  // reserved 300 MiB for 200 MiB live, below 1 GiB
  auto s = p.stats();
  EXPECT_EQ(s.device_frees, 0u);
  EXPECT_EQ(s.reserved_bytes, 300 * MiB);
  release(p, y);
}

// ---- graph captures: the freeze flag and graph-private pools

TEST_F(PoolTest, FrozenPoolTouchesNoEventAndGrowsInstead) {
  std::atomic<int> captures{0};
  Pool p(mem, sync);
  p.set_freeze_flag(&captures);
  void *a = alloc(p, 30 * MiB, 1);
  release(p, a, 1);
  captures = 1;
  void *b = alloc(p, 30 * MiB, 2);  // stream 1's block would need an event
  EXPECT_NE(b, a);
  EXPECT_TRUE(sync.records.empty());
  EXPECT_TRUE(sync.waits.empty());
  EXPECT_TRUE(sync.syncs.empty());
  release(p, b, 2);
  EXPECT_EQ(alloc(p, 30 * MiB, 2), b);  // its own stream's block: no event needed
  p.empty_cache();                      // refused while frozen: nothing waits
  EXPECT_TRUE(sync.syncs.empty());
  EXPECT_EQ(p.stats().segments, 2u);
  captures = 0;
  EXPECT_EQ(alloc(p, 30 * MiB, 3), a);  // thawed: cross-stream reuse again
  EXPECT_EQ(sync.waits.size(), 1u);
}

TEST_F(PoolTest, FrozenPoolDoesNotReleaseItsCacheOnOom) {
  std::atomic<int> captures{1};
  FakeMemory small(40 * MiB);
  Pool p(small, sync);
  p.set_freeze_flag(&captures);
  void *a = alloc(p, 30 * MiB, 1);
  release(p, a, 1);
  void *b = nullptr;
  std::string err;
  EXPECT_EQ(p.allocate(30 * MiB, 2, &b, &err), PoolResult::out_of_memory);
  EXPECT_TRUE(sync.syncs.empty());
  EXPECT_EQ(p.stats().device_frees, 0u);
  captures = 0;
  EXPECT_EQ(p.allocate(30 * MiB, 2, &b, &err), PoolResult::ok) << err;
  release(p, b, 2);
}

TEST_F(PoolTest, GraphPoolLivesWhileHandleGraphOrBlockDoes) {
  std::atomic<int> captures{0};
  ek::GraphPools pools(mem, sync, &captures);
  ek::GraphPool *g = pools.create();
  EXPECT_EQ(g->id, 1u);
  ASSERT_TRUE(pools.begin_capture(g));
  EXPECT_FALSE(pools.begin_capture(g));  // one capture at a time
  captures = 1;
  void *out = alloc(g->pool, 1 * MiB, 1);
  void *tmp = alloc(g->pool, 1 * MiB, 1);
  PoolResult r;
  std::string err;
  ASSERT_TRUE(pools.free(tmp, 1, &r, &err));  // a graph pool's block goes back there
  EXPECT_EQ(r, PoolResult::ok);
  EXPECT_EQ(alloc(g->pool, 1 * MiB, 1), tmp);  // reused later in the same capture
  ASSERT_TRUE(pools.free(tmp, 1, &r, &err));
  pools.retain(g);  // the graph
  pools.end_capture(g);
  captures = 0;
  EXPECT_FALSE(pools.free(&err, 1, &r, &err));  // not a graph pool's: the caller's pool frees it
  EXPECT_TRUE(pools.owns(out));
  pools.release(g);  // the handle
  pools.release(g);  // the graph
  EXPECT_EQ(pools.count(), 1u);  // `out` still lives
  EXPECT_EQ(mem.used, 2 * MiB);
  ASSERT_TRUE(pools.free(out, 1, &r, &err));
  EXPECT_EQ(pools.count(), 0u);
  EXPECT_EQ(mem.used, 0u);
}

TEST_F(PoolTest, GraphPoolsAreNotDestroyedDuringACapture) {
  std::atomic<int> captures{0};
  ek::GraphPools pools(mem, sync, &captures);
  ek::GraphPool *a = pools.create();
  ek::GraphPool *b = pools.create();
  EXPECT_EQ(b->id, 2u);
  alloc(a->pool, 1 * MiB, 1);  // kept until the pools go
  captures = 1;                // another stream captures into b
  pools.release(a);
  pools.release(b);
  EXPECT_EQ(pools.count(), 2u);  // cudaFree during a capture would break it
  captures = 0;
  pools.collect();
  EXPECT_EQ(pools.count(), 1u);
  std::vector<uint64_t> ids;
  pools.for_each([&](const ek::GraphPool &g) { ids.push_back(g.id); });
  EXPECT_EQ(ids, std::vector<uint64_t>{1});
}

TEST_F(PoolTest, TwoGraphPoolsNeverShareBlocks) {
  ek::GraphPools pools(mem, sync, nullptr);
  ek::GraphPool *a = pools.create(), *b = pools.create();
  void *x = alloc(a->pool, 64 * KiB, 1);
  PoolResult r;
  std::string err;
  ASSERT_TRUE(pools.free(x, 1, &r, &err));
  void *y = alloc(b->pool, 64 * KiB, 1);
  EXPECT_FALSE(a->pool.owns(y));
  EXPECT_TRUE(b->pool.owns(y));
  ASSERT_TRUE(pools.free(y, 1, &r, &err));
  pools.release(a);
  pools.release(b);
  EXPECT_EQ(pools.count(), 0u);
  EXPECT_EQ(mem.used, 0u);
}

TEST_F(PoolTest, BenchCachedAllocFree1MiB) {
  Pool p(mem, sync);
  void *ptr = nullptr;
  p.allocate(1 * MiB, 1, &ptr, nullptr);
  p.free(ptr, 1, nullptr);
  const int n = 1000000;
  auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < n; ++i) {
    p.allocate(1 * MiB, 1, &ptr, nullptr);
    p.free(ptr, 1, nullptr);
  }
  auto t1 = std::chrono::steady_clock::now();
  double ns = std::chrono::duration<double, std::nano>(t1 - t0).count() / n;
  std::printf("cached 1 MiB alloc+free: %.1f ns per pair\n", ns);
  EXPECT_EQ(p.stats().device_mallocs, 1u);
}

}  // namespace
