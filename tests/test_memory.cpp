// The context's caching allocator through the public API: ek_malloc/ek_free,
// statistics, limits and out-of-memory, snapshot, callbacks, ek_memcpy, a
// randomized trace and concurrent use. The pool's internals have their own
// unit tests (test_pool.cpp).
#include <algorithm>
#include <cmath>
#include <atomic>
#include <cstring>
#include <map>
#include <numeric>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "ek_test.hpp"

namespace {

constexpr uint64_t KiB = 1024, MiB = 1024 * KiB;
constexpr uint64_t kRound = 512;  // src/core/pool.hpp: every block is a multiple of 512 B

uint64_t rounded(uint64_t bytes) { return (bytes + kRound - 1) / kRound * kRound; }

ek_memory_stats stats_of(ek_context c) {
  ek_memory_stats s = EK_MEMORY_STATS_INIT;
  EXPECT_EQ(ek_memory_get_stats(c, &s), EK_SUCCESS) << ek_last_error();
  return s;
}

// Every field except the floating-point one, for "nothing changed" checks.
void expect_same_stats(const ek_memory_stats &a, const ek_memory_stats &b) {
  EXPECT_EQ(a.allocated_bytes, b.allocated_bytes);
  EXPECT_EQ(a.reserved_bytes, b.reserved_bytes);
  EXPECT_EQ(a.requested_bytes, b.requested_bytes);
  EXPECT_EQ(a.total_allocated_bytes, b.total_allocated_bytes);
  EXPECT_EQ(a.total_freed_bytes, b.total_freed_bytes);
  EXPECT_EQ(a.active_blocks, b.active_blocks);
  EXPECT_EQ(a.cached_blocks, b.cached_blocks);
  EXPECT_EQ(a.alloc_count, b.alloc_count);
  EXPECT_EQ(a.free_count, b.free_count);
  EXPECT_EQ(a.device_mallocs, b.device_mallocs);
}

std::vector<ek_memory_block> snapshot_of(ek_context c) {
  size_t n = 0;
  EXPECT_EQ(ek_memory_get_snapshot(c, nullptr, 0, &n), EK_SUCCESS) << ek_last_error();
  std::vector<ek_memory_block> blocks(n, ektest::sized<ek_memory_block>());
  size_t again = 0;
  EXPECT_EQ(ek_memory_get_snapshot(c, blocks.data(), blocks.size(), &again), EK_SUCCESS);
  EXPECT_EQ(again, n);
  return blocks;
}

// Records what the memory callback saw.
struct CallbackLog {
  int oom_calls = 0, threshold_calls = 0;
  uint64_t oom_bytes = 0, threshold_bytes = 0;
  ek_context ctx = nullptr;
  uint64_t raise_limit_to = 0;  // OOM: set this limit from inside the callback (0: don't)
};

void record_callback(ek_context ctx, ek_memory_event event, uint64_t bytes, void *user) {
  auto *log = static_cast<CallbackLog *>(user);
  log->ctx = ctx;
  if (event == EK_MEMORY_EVENT_OOM) {
    ++log->oom_calls;
    log->oom_bytes = bytes;
    if (log->raise_limit_to) ek_memory_set_limit(ctx, log->raise_limit_to);
  } else {
    ++log->threshold_calls;
    log->threshold_bytes = bytes;
  }
}

}  // namespace

class MemoryTest : public ektest::DeviceTest {
 protected:
  bool cuda() const { return GetParam() == EK_CUDA; }
  void *alloc(size_t bytes, ek_stream s = nullptr) {
    void *p = nullptr;
    EXPECT_EQ(ek_malloc(s, ctx, bytes, &p), EK_SUCCESS) << ek_last_error();
    return p;
  }
  void release(void *p, ek_stream s = nullptr) {
    EXPECT_EQ(ek_free(s, ctx, p), EK_SUCCESS) << ek_last_error();
  }
  ek_memory_stats stats() { return stats_of(ctx); }
  uint64_t device_memory() {
    ek_device_info info = EK_DEVICE_INFO_INIT;
    EXPECT_EQ(ek_device_get_info(ek_device{GetParam(), 0}, &info), EK_SUCCESS);
    return info.total_memory;
  }
};
EK_INSTANTIATE_DEVICES(MemoryTest);

// ---------------------------------------------------------------- basics

TEST_P(MemoryTest, MallocIsAlignedTo512Bytes) {
  std::vector<void *> ptrs;
  for (size_t bytes : {1, 3, 511, 512, 513, 1000, 4097, 1 << 20, (1 << 20) + 1, 3 << 20})
    ptrs.push_back(alloc(bytes));
  for (void *p : ptrs) {
    ASSERT_NE(p, nullptr);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(p) % 512, 0u) << p;
  }
  for (void *p : ptrs) release(p);
}

TEST_P(MemoryTest, ZeroBytesGivesNullAndChangesNothing) {
  ek_memory_stats before = stats();
  void *p = reinterpret_cast<void *>(0x1);
  EK_OK(ek_malloc(nullptr, ctx, 0, &p));
  EXPECT_EQ(p, nullptr);
  expect_same_stats(stats(), before);
}

TEST_P(MemoryTest, FreeOfNullIsANoOp) {
  ek_memory_stats before = stats();
  EK_OK(ek_free(nullptr, ctx, nullptr));
  expect_same_stats(stats(), before);
}

TEST_P(MemoryTest, NullArgumentsAreRejected) {
  void *p = nullptr;
  ek_memory_stats s = EK_MEMORY_STATS_INIT;
  EK_FAILS(ek_malloc(nullptr, nullptr, 16, &p), EK_ERROR_NULL_POINTER, "ctx is NULL");
  EK_FAILS(ek_malloc(nullptr, ctx, 16, nullptr), EK_ERROR_NULL_POINTER, "ptr is NULL");
  EK_FAILS(ek_free(nullptr, nullptr, p), EK_ERROR_NULL_POINTER, "ctx is NULL");
  EK_FAILS(ek_memory_get_stats(ctx, nullptr), EK_ERROR_NULL_POINTER, "stats is NULL");
  EK_FAILS(ek_memory_get_stats(nullptr, &s), EK_ERROR_NULL_POINTER, "ctx is NULL");
  EK_FAILS(ek_memory_reset_peaks(nullptr), EK_ERROR_NULL_POINTER, "ctx is NULL");
  EK_FAILS(ek_memory_empty_cache(nullptr), EK_ERROR_NULL_POINTER, "ctx is NULL");
  EK_FAILS(ek_memory_set_limit(nullptr, 0), EK_ERROR_NULL_POINTER, "ctx is NULL");
  EK_FAILS(ek_memory_set_fraction(nullptr, 0.5), EK_ERROR_NULL_POINTER, "ctx is NULL");
  EK_FAILS(ek_memory_set_callback(nullptr, nullptr, nullptr, 0), EK_ERROR_NULL_POINTER,
           "ctx is NULL");
}

TEST_P(MemoryTest, OverflowingRequestsAreRejectedWithoutTouchingTheOutput) {
  void *sentinel = reinterpret_cast<void *>(0x200);
  void *p = sentinel;
  EK_FAILS(ek_malloc(nullptr, ctx, SIZE_MAX, &p), EK_ERROR_OVERFLOW, "exceeds");
  EXPECT_EQ(p, sentinel);
  EK_FAILS(ek_malloc(nullptr, ctx, (size_t{1} << 56) + 1, &p), EK_ERROR_OVERFLOW, "exceeds");
  EXPECT_EQ(p, sentinel);
}

// ---------------------------------------------------------------- statistics

TEST_P(MemoryTest, FreshContextStatsAreZero) {
  ek_memory_stats s = stats();
  EXPECT_EQ(s.allocated_bytes, 0u);
  EXPECT_EQ(s.reserved_bytes, 0u);
  EXPECT_EQ(s.segments, 0u);
  EXPECT_EQ(s.alloc_count, 0u);
  EXPECT_EQ(s.limit_bytes, 0u);
  EXPECT_EQ(s.fragmentation, 0.0);
}

TEST_P(MemoryTest, StatsFollowASequence) {
  void *a = alloc(1000);        // small: a 2 MiB segment
  void *b = alloc(3 * MiB);     // medium: a 20 MiB segment
  ek_memory_stats s = stats();
  EXPECT_EQ(s.allocated_bytes, 1024 + 3 * MiB);
  EXPECT_EQ(s.requested_bytes, 1000 + 3 * MiB);
  EXPECT_EQ(s.reserved_bytes, 22 * MiB);
  EXPECT_EQ(s.segments, 2u);
  EXPECT_EQ(s.device_mallocs, 2u);
  EXPECT_EQ(s.active_blocks, 2u);
  EXPECT_EQ(s.alloc_count, 2u);
  EXPECT_EQ(s.cache_hits, 0u);
  EXPECT_EQ(s.cached_free_bytes, s.reserved_bytes - s.allocated_bytes);
  release(a);
  void *c = alloc(1000);  // the freed size again: served from the cache
  s = stats();
  EXPECT_EQ(c, a);
  EXPECT_EQ(s.cache_hits, 1u);
  EXPECT_EQ(s.device_mallocs, 2u);
  EXPECT_EQ(s.alloc_count, 3u);
  EXPECT_EQ(s.free_count, 1u);
  EXPECT_EQ(s.total_allocated_bytes, 2 * 1024 + 3 * MiB);
  EXPECT_EQ(s.total_freed_bytes, 1024u);
  release(b);
  release(c);
  s = stats();
  EXPECT_EQ(s.allocated_bytes, 0u);
  EXPECT_EQ(s.requested_bytes, 0u);
  EXPECT_EQ(s.active_blocks, 0u);
  EXPECT_EQ(s.reserved_bytes, 22 * MiB);  // cached, not returned
  EXPECT_EQ(s.peak_allocated_bytes, 1024 + 3 * MiB);
  EXPECT_EQ(s.peak_requested_bytes, 1000 + 3 * MiB);
  EXPECT_EQ(s.peak_reserved_bytes, 22 * MiB);
  EXPECT_EQ(s.largest_free_block, 20 * MiB);
  EXPECT_EQ(s.cached_free_bytes, 22 * MiB);
  EXPECT_NEAR(s.fragmentation, 1.0 - 20.0 / 22.0, 1e-9);
}

TEST_P(MemoryTest, LargeRequestsGetTheirOwnSegmentRoundedTo2MiB) {
  void *p = alloc(11 * MiB + 1);
  ek_memory_stats s = stats();
  EXPECT_EQ(s.reserved_bytes, 12 * MiB);
  EXPECT_EQ(s.allocated_bytes, rounded(11 * MiB + 1));
  release(p);
}

TEST_P(MemoryTest, ResetPeaksRestartsFromCurrentValues) {
  void *a = alloc(3 * MiB);
  void *b = alloc(1000);
  release(a);
  EXPECT_EQ(stats().peak_allocated_bytes, 3 * MiB + 1024);
  EK_OK(ek_memory_reset_peaks(ctx));
  ek_memory_stats s = stats();
  EXPECT_EQ(s.peak_allocated_bytes, 1024u);
  EXPECT_EQ(s.peak_requested_bytes, 1000u);
  EXPECT_EQ(s.peak_reserved_bytes, s.reserved_bytes);
  EXPECT_EQ(s.total_allocated_bytes, 3 * MiB + 1024);  // cumulative counters stay
  release(b);
}

TEST_P(MemoryTest, EmptyCacheReturnsFreeSegments) {
  void *keep = alloc(1000);
  void *drop = alloc(3 * MiB);
  release(drop);
  EXPECT_EQ(stats().reserved_bytes, 22 * MiB);
  EK_OK(ek_memory_empty_cache(ctx));
  ek_memory_stats s = stats();
  EXPECT_EQ(s.reserved_bytes, 2 * MiB);  // the segment holding `keep` stays
  EXPECT_EQ(s.device_frees, 1u);
  release(keep);
  EK_OK(ek_memory_empty_cache(ctx));
  s = stats();
  EXPECT_EQ(s.reserved_bytes, s.allocated_bytes);
  EXPECT_EQ(s.reserved_bytes, 0u);
  EXPECT_EQ(s.segments, 0u);
  EXPECT_EQ(s.cached_blocks, 0u);
}

// ---------------------------------------------------------------- limits

TEST_P(MemoryTest, AllocationPastTheLimitIsOutOfMemoryWithNumbers) {
  EK_OK(ek_memory_set_limit(ctx, 4 * MiB));
  EXPECT_EQ(stats().limit_bytes, 4 * MiB);
  std::vector<void *> ptrs;
  for (int i = 0; i < 4; ++i) ptrs.push_back(alloc(1 * MiB));  // two 2 MiB segments
  ek_memory_stats before = stats();
  void *sentinel = reinterpret_cast<void *>(0x400);
  void *p = sentinel;
  EK_FAILS(ek_malloc(nullptr, ctx, 1 * MiB, &p), EK_ERROR_OUT_OF_MEMORY, "requested 1.00 MiB");
  std::string msg = ek_last_error();
  for (const char *word : {"ek_malloc", "reserved 4.00 MiB", "limit 4.00 MiB", "allocated"})
    EXPECT_NE(msg.find(word), std::string::npos) << word << " missing in: " << msg;
  EXPECT_EQ(p, sentinel) << "the output must be untouched on failure";
  ek_memory_stats after = stats();
  EXPECT_EQ(after.oom_count, before.oom_count + 1);
  EXPECT_EQ(after.allocated_bytes, before.allocated_bytes);
  EXPECT_EQ(after.active_blocks, before.active_blocks);
  release(ptrs.back());
  ptrs.back() = alloc(1 * MiB);  // room again
  for (void *q : ptrs) release(q);
  void *big = nullptr;
  EK_FAILS(ek_malloc(nullptr, ctx, 5 * MiB, &big), EK_ERROR_OUT_OF_MEMORY, "limit");
  EK_OK(ek_memory_set_limit(ctx, 0));  // no limit
  big = alloc(5 * MiB);
  release(big);
}

TEST_P(MemoryTest, OutOfMemoryReleasesTheCacheAndRetries) {
  EK_OK(ek_memory_set_limit(ctx, 20 * MiB));
  release(alloc(1000));  // caches a 2 MiB segment: 2 + 20 would pass the limit
  ek_memory_stats before = stats();
  void *p = alloc(3 * MiB);
  ek_memory_stats after = stats();
  EXPECT_GT(after.retries, before.retries);
  EXPECT_EQ(after.reserved_bytes, 20 * MiB);
  release(p);
}

TEST_P(MemoryTest, LoweringTheLimitReleasesCachedSegments) {
  release(alloc(3 * MiB));
  EXPECT_EQ(stats().reserved_bytes, 20 * MiB);
  EK_OK(ek_memory_set_limit(ctx, 4 * MiB));
  EXPECT_EQ(stats().reserved_bytes, 0u);
}

TEST_P(MemoryTest, SetFractionSetsALimitAndRejectsBadValues) {
  EK_OK(ek_memory_set_fraction(ctx, 0.5));
  double expected = 0.5 * static_cast<double>(device_memory());
  EXPECT_NEAR(static_cast<double>(stats().limit_bytes), expected, expected * 0.01);
  EK_FAILS(ek_memory_set_fraction(ctx, 0.0), EK_ERROR_INVALID_ARGUMENT, "fraction 0 is not in");
  EK_FAILS(ek_memory_set_fraction(ctx, 1.5), EK_ERROR_INVALID_ARGUMENT, "fraction 1.5");
  EK_FAILS(ek_memory_set_fraction(ctx, -0.5), EK_ERROR_INVALID_ARGUMENT, "fraction -0.5");
  EK_FAILS(ek_memory_set_fraction(ctx, std::nan("")), EK_ERROR_INVALID_ARGUMENT, "fraction");
  EXPECT_NEAR(static_cast<double>(stats().limit_bytes), expected, expected * 0.01);
  EK_OK(ek_memory_set_fraction(ctx, 1.0));
}

// One grammar for EK_MEMORY_LIMIT and EK_MEMORY_FRACTION (README,
// "Environment"): "0" exactly (or unset) is no limit; any other zero, a
// positive value that rounds to 0 bytes, signs, spaces, hex, inf and nan are
// refused by ek_context_create, naming the variable and the value.
TEST_P(MemoryTest, EnvironmentLimitsFollowOneGrammar) {
  using ektest::ScopedEnv;
  const uint64_t total = device_memory();
  auto limit_with = [&](const char *name, const char *value, ek_status *status) {
    ScopedEnv limit("EK_MEMORY_LIMIT", nullptr), fraction("EK_MEMORY_FRACTION", nullptr);
    ScopedEnv var(name, value);
    ek_context c = nullptr;
    *status = ek_context_create(ek_device{GetParam(), 0}, nullptr, &c);
    uint64_t bytes = c ? stats_of(c).limit_bytes : 0;
    ek_context_destroy(c);
    return bytes;
  };
  const std::pair<const char *, uint64_t> limits[] = {
      {"0", 0},           {"1", 1},                 {"1048576", 1048576},
      {"64M", 64 * MiB},  {"64m", 64 * MiB},        {"512KiB", 512 * KiB},
      {"512kib", 512 * KiB}, {"4GB", 4096 * MiB},   {"1T", 1024 * 1024 * MiB},
      {"10B", 10},        {"1.5G", 1536 * MiB},     {"0.5K", 512},
      {"1e3", 1000},      {"1E3K", 1000 * KiB},     {"2.5e-1K", 256},
      {"007M", 7 * MiB},  {"1.9", 1}};
  for (const auto &[text, bytes] : limits) {
    ek_status st;
    EXPECT_EQ(limit_with("EK_MEMORY_LIMIT", text, &st), bytes) << text;
    EXPECT_EQ(st, EK_SUCCESS) << text << ": " << ek_last_error();
  }
  const std::pair<const char *, double> fractions[] = {
      {"1", 1.0}, {"0.5", 0.5}, {"5E-1", 0.5}, {"1e-3", 1e-3}};
  for (const auto &[text, fraction] : fractions) {
    ek_status st;
    const uint64_t expected = static_cast<uint64_t>(fraction * static_cast<double>(total));
    EXPECT_EQ(limit_with("EK_MEMORY_FRACTION", text, &st), expected) << text;
    EXPECT_EQ(st, EK_SUCCESS) << text << ": " << ek_last_error();
  }
  const std::pair<const char *, const char *> refused[] = {
      {"EK_MEMORY_LIMIT", "0.5"},     {"EK_MEMORY_LIMIT", "1e-9"},   {"EK_MEMORY_LIMIT", "1e-400"},
      {"EK_MEMORY_LIMIT", "-0"},      {"EK_MEMORY_LIMIT", "0.0"},    {"EK_MEMORY_LIMIT", "00"},
      {"EK_MEMORY_LIMIT", "0G"},      {"EK_MEMORY_LIMIT", "0B"},     {"EK_MEMORY_LIMIT", "-5M"},
      {"EK_MEMORY_LIMIT", "+5M"},     {"EK_MEMORY_LIMIT", " 64M"},   {"EK_MEMORY_LIMIT", "64M "},
      {"EK_MEMORY_LIMIT", "64 M"},    {"EK_MEMORY_LIMIT", "0x10G"},  {"EK_MEMORY_LIMIT", "0x10"},
      {"EK_MEMORY_LIMIT", "inf"},     {"EK_MEMORY_LIMIT", "nan"},    {"EK_MEMORY_LIMIT", "1e30"},
      {"EK_MEMORY_LIMIT", "16384P"},  {"EK_MEMORY_LIMIT", "1.5e-1"}, {"EK_MEMORY_LIMIT", ".5G"},
      {"EK_MEMORY_LIMIT", "1.G"},     {"EK_MEMORY_LIMIT", "1e"},     {"EK_MEMORY_LIMIT", "1,5G"},
      {"EK_MEMORY_LIMIT", "64iB"},    {"EK_MEMORY_LIMIT", "64MiBs"}, {"EK_MEMORY_LIMIT", "lots"},
      {"EK_MEMORY_LIMIT", "18446744073709551616"},
      {"EK_MEMORY_FRACTION", "0"},    {"EK_MEMORY_FRACTION", "-0"},  {"EK_MEMORY_FRACTION", "0.0"},
      {"EK_MEMORY_FRACTION", "1e-320"}, {"EK_MEMORY_FRACTION", "1e-400"},
      {"EK_MEMORY_FRACTION", "1e-15"}, {"EK_MEMORY_FRACTION", "1.5"},
      {"EK_MEMORY_FRACTION", " 0.5"}, {"EK_MEMORY_FRACTION", "0.5 "}, {"EK_MEMORY_FRACTION", "+0.5"},
      {"EK_MEMORY_FRACTION", "0x0.8"}, {"EK_MEMORY_FRACTION", ".5"},  {"EK_MEMORY_FRACTION", "nan"},
      {"EK_MEMORY_FRACTION", "inf"},  {"EK_MEMORY_FRACTION", "0.5G"}};
  for (const auto &[name, text] : refused) {
    SCOPED_TRACE(std::string(name) + "=\"" + text + "\"");
    ek_status st;
    limit_with(name, text, &st);
    EXPECT_EQ(st, EK_ERROR_INVALID_ARGUMENT);
    std::string msg = ek_last_error();
    EXPECT_NE(msg.find("ek_context_create"), std::string::npos) << msg;
    // Tiny fractions parse; they are refused once the device's memory is
    // known (as config->memory_fraction is), naming the variable but not the text.
    const bool late = std::strcmp(text, "1e-320") == 0 || std::strcmp(text, "1e-15") == 0;
    const std::string named = late ? name : std::string(name) + "=\"" + text + "\"";
    EXPECT_NE(msg.find(named), std::string::npos) << msg;
  }
}

// The same rules through the API: 0 bytes is the one way to say "no limit",
// and a positive fraction that gives less than one byte is refused.
TEST_P(MemoryTest, ApiLimitsThatRoundToZeroAreRefused) {
  EK_OK(ek_memory_set_limit(ctx, 1));
  EXPECT_EQ(stats().limit_bytes, 1u);
  void *p = reinterpret_cast<void *>(0x400);
  EK_FAILS(ek_malloc(nullptr, ctx, 1, &p), EK_ERROR_OUT_OF_MEMORY, "limit 1 B");
  EK_OK(ek_memory_set_limit(ctx, 0));
  EXPECT_EQ(stats().limit_bytes, 0u);
  EK_OK(ek_memory_set_fraction(ctx, 1e-6));
  const uint64_t tiny = stats().limit_bytes;
  EXPECT_GT(tiny, 0u);
  for (double fraction : {0.0, -0.0, 1e-15, 1e-320, -1e-320, 1.5, std::nan(""), HUGE_VAL}) {
    SCOPED_TRACE(fraction);
    EXPECT_EQ(ek_memory_set_fraction(ctx, fraction), EK_ERROR_INVALID_ARGUMENT);
    EXPECT_NE(std::string(ek_last_error()).find("ek_memory_set_fraction: fraction"),
              std::string::npos) << ek_last_error();
    EXPECT_EQ(stats().limit_bytes, tiny) << "a refused fraction changes nothing";
  }
  EK_FAILS(ek_memory_set_fraction(ctx, 1e-15), EK_ERROR_INVALID_ARGUMENT, "less than one byte");
  ek_context_config cfg = EK_CONTEXT_CONFIG_INIT;
  cfg.memory_fraction = 1e-320;
  ek_context c = nullptr;
  EK_FAILS(ek_context_create(ek_device{GetParam(), 0}, &cfg, &c), EK_ERROR_INVALID_ARGUMENT,
           "less than one byte");
  EXPECT_EQ(c, nullptr);
  EK_OK(ek_memory_set_limit(ctx, 0));
}

// Under a limit smaller than a request's usual segment (20 MiB for 1-10 MiB),
// the request gets a segment of its own size, as the last resort; when even
// that does not fit, the message names the segment the pool tried.
TEST_P(MemoryTest, LimitBelowTheSegmentSizeGivesExactSizeSegments) {
  EK_OK(ek_memory_set_limit(ctx, 8 * MiB));
  void *a = alloc(2 * MiB);
  ASSERT_NE(a, nullptr);
  EXPECT_EQ(stats().reserved_bytes, 2 * MiB);
  void *b = alloc(5 * MiB);
  EXPECT_EQ(stats().reserved_bytes, 7 * MiB);
  void *c = nullptr;
  EK_FAILS(ek_malloc(nullptr, ctx, 2 * MiB, &c), EK_ERROR_OUT_OF_MEMORY,
           "requested 2.00 MiB (a new segment of 2.00 MiB would exceed the limit)");
  release(a);
  release(b);
  EK_OK(ek_memory_set_limit(ctx, 0));
  EK_OK(ek_memory_empty_cache(ctx));
  release(alloc(2 * MiB));
  EXPECT_EQ(stats().reserved_bytes, 20 * MiB) << "without a limit: the usual segment";
}

TEST_P(MemoryTest, ConfigReadsWhileAnotherThreadSetsLimits) {
  // Under TSan (CI) a missing lock shows as a data race on ctx->config.
  std::atomic<bool> done{false};
  std::thread setter([&] {
    for (int i = 0; i < 2000; ++i) {
      EK_EXPECT_OK(ek_memory_set_limit(ctx, uint64_t(1 + i % 7) << 30));
      EK_EXPECT_OK(ek_memory_set_fraction(ctx, 0.5));
    }
    done = true;
  });
  while (!done.load()) {
    ek_context_config cfg = EK_CONTEXT_CONFIG_INIT;
    EK_EXPECT_OK(ek_context_get_config(ctx, &cfg));
    // Each setter writes both fields at once: one of them is always zero.
    EXPECT_TRUE(cfg.memory_limit == 0 || cfg.memory_fraction == 0.0);
  }
  setter.join();
  EK_OK(ek_memory_set_limit(ctx, 0));
}

// ---------------------------------------------------------------- invalid frees

TEST_P(MemoryTest, DoubleFreeIsRejectedAndChangesNothing) {
  void *p = alloc(4096);
  void *keep = alloc(4096);
  release(p);
  ek_memory_stats before = stats();
  EK_FAILS(ek_free(nullptr, ctx, p), EK_ERROR_INVALID_ARGUMENT, "double free");
  expect_same_stats(stats(), before);
  release(keep);
}

TEST_P(MemoryTest, UnknownAndInteriorPointersAreRejected) {
  void *p = alloc(4096);
  ek_memory_stats before = stats();
  int local = 0;
  EK_FAILS(ek_free(nullptr, ctx, &local), EK_ERROR_INVALID_ARGUMENT, "not allocated by this pool");
  EK_FAILS(ek_free(nullptr, ctx, static_cast<char *>(p) + 512), EK_ERROR_INVALID_ARGUMENT,
           "not the start of a live allocation");
  expect_same_stats(stats(), before);
  release(p);
}

TEST_P(MemoryTest, PointerOfAnotherContextIsRejected) {
  ek_context other = nullptr;
  EK_OK(ek_context_create(ek_device{GetParam(), 0}, nullptr, &other));
  void *p = nullptr;
  EK_OK(ek_malloc(nullptr, other, 4096, &p));
  EK_FAILS(ek_free(nullptr, ctx, p), EK_ERROR_INVALID_ARGUMENT, "not allocated by this pool");
  EK_OK(ek_free(nullptr, other, p));
  EK_OK(ek_context_destroy(other));
}

// ---------------------------------------------------------------- streams

TEST_P(MemoryTest, RecordStreamAcceptsLiveBlocksOnly) {
  ek_stream s = nullptr;
  EK_OK(ek_stream_create(ctx, &s));
  void *p = alloc(4096);
  EK_OK(ek_record_stream(s, ctx, p));
  EK_OK(ek_record_stream(s, ctx, p));  // twice is fine
  EK_OK(ek_record_stream(nullptr, ctx, p));
  release(p);
  EK_OK(ek_stream_synchronize(s));
  EK_FAILS(ek_record_stream(s, ctx, p), EK_ERROR_INVALID_ARGUMENT, "not a live allocation");
  EK_FAILS(ek_record_stream(s, ctx, nullptr), EK_ERROR_NULL_POINTER, "ptr is NULL");
  EK_FAILS(ek_record_stream(nullptr, nullptr, p), EK_ERROR_NULL_POINTER, "ctx is NULL");
  EK_OK(ek_stream_destroy(s));
  EK_OK(ek_context_synchronize(ctx));
  void *q = alloc(4096);  // the recorded block comes back once its streams finished
  EXPECT_EQ(stats().device_mallocs, 1u);
  release(q);
}

TEST_P(MemoryTest, FreeOnAStreamReusesTheSameAddressOnThatStream) {
  ek_stream a = nullptr;
  EK_OK(ek_stream_create(ctx, &a));
  void *p = alloc(64 * KiB, a);
  release(p, a);
  ek_memory_stats before = stats();
  void *q = alloc(64 * KiB, a);
  EXPECT_EQ(q, p);
  EXPECT_EQ(stats().cache_hits, before.cache_hits + 1);
  release(q, a);
  EK_OK(ek_stream_destroy(a));
}

// On CUDA a block freed on A while A's kernel may still write it must not be
// handed to B without ordering: B's values must survive A's late writes.
TEST_P(MemoryTest, CrossStreamReuseWaitsForTheFreeingStreamsWork) {
  if (!cuda()) GTEST_SKIP() << "CPU work is synchronous: nothing to order";
  ek_stream a = nullptr, b = nullptr;
  EK_OK(ek_stream_create(ctx, &a));
  EK_OK(ek_stream_create(ctx, &b));
  const int64_t n = 64 << 20;  // 256 MiB of floats
  for (int round = 0; round < 3; ++round) {
    ektest::Tensor big, reuse;
    EK_OK(ek_tensor_empty(a, ctx, 1, &n, EK_FLOAT32, big.out()));
    EK_OK(ek_fill(a, ektest::scalar(1.0), big));
    ek_tensor_release(big.t);  // freed on a while the fill may run
    big.t = nullptr;
    EK_OK(ek_tensor_empty(b, ctx, 1, &n, EK_FLOAT32, reuse.out()));
    EK_OK(ek_fill(b, ektest::scalar(2.0), reuse));
    EK_OK(ek_context_synchronize(ctx));
    std::vector<float> h = ektest::to_host<float>(reuse);
    EXPECT_EQ(std::count(h.begin(), h.end(), 2.0f), n) << "round " << round;
  }
  EK_OK(ek_stream_destroy(a));
  EK_OK(ek_stream_destroy(b));
}

// ---------------------------------------------------------------- snapshot

TEST_P(MemoryTest, SnapshotMatchesStatsAndLiveBlocks) {
  std::map<uint64_t, uint64_t> live;  // address -> requested
  for (size_t bytes : {1000, 5000, 3 << 20, 100, 12 << 20}) {
    void *p = alloc(bytes);
    live[reinterpret_cast<uint64_t>(p)] = bytes;
  }
  release(reinterpret_cast<void *>(live.begin()->first));
  live.erase(live.begin());
  std::vector<ek_memory_block> blocks = snapshot_of(ctx);
  ek_memory_stats s = stats();
  uint64_t total = 0, allocated = 0;
  std::map<uint64_t, uint64_t> seen;
  for (size_t i = 0; i < blocks.size(); ++i) {
    const ek_memory_block &b = blocks[i];
    total += b.size;
    EXPECT_EQ(b.size % kRound, 0u);
    EXPECT_GE(b.address, b.segment_address);
    EXPECT_LE(b.address + b.size, b.segment_address + b.segment_size);
    bool starts_segment = i == 0 || blocks[i - 1].segment_address != b.segment_address;
    if (starts_segment) EXPECT_EQ(b.address, b.segment_address);
    else EXPECT_EQ(b.address, blocks[i - 1].address + blocks[i - 1].size);  // no gaps
    if (b.allocated) {
      allocated += b.size;
      seen[b.address] = b.requested;
      EXPECT_EQ(b.size, rounded(b.requested));
    } else {
      EXPECT_EQ(b.requested, 0u);
    }
  }
  EXPECT_EQ(total, s.reserved_bytes);
  EXPECT_EQ(allocated, s.allocated_bytes);
  EXPECT_EQ(seen, live);
  for (const auto &kv : live) release(reinterpret_cast<void *>(kv.first));
}

TEST_P(MemoryTest, SnapshotWithSmallCapacityFillsOnlyCapacity) {
  void *a = alloc(1000), *b = alloc(3 * MiB), *c = alloc(2000);
  size_t n = 0;
  EK_OK(ek_memory_get_snapshot(ctx, nullptr, 0, &n));
  ASSERT_GE(n, 4u);
  std::vector<ek_memory_block> blocks(n);
  ek_memory_block marker = ektest::sized<ek_memory_block>();
  marker.address = 0xabcdef;
  std::fill(blocks.begin(), blocks.end(), marker);
  size_t count = 0;
  EK_OK(ek_memory_get_snapshot(ctx, blocks.data(), 2, &count));
  EXPECT_EQ(count, n);
  EXPECT_NE(blocks[0].address, marker.address);
  EXPECT_NE(blocks[1].address, marker.address);
  for (size_t i = 2; i < n; ++i) EXPECT_EQ(blocks[i].address, marker.address) << i;
  release(a);
  release(b);
  release(c);
}

TEST_P(MemoryTest, SnapshotRejectsNullArrays) {
  ek_memory_block one = ektest::sized<ek_memory_block>();
  size_t n = 0;
  EK_FAILS(ek_memory_get_snapshot(ctx, nullptr, 3, &n), EK_ERROR_NULL_POINTER,
           "blocks is NULL but capacity is 3");
  EK_FAILS(ek_memory_get_snapshot(ctx, &one, 1, nullptr), EK_ERROR_NULL_POINTER, "count is NULL");
  EK_FAILS(ek_memory_get_snapshot(nullptr, &one, 1, &n), EK_ERROR_NULL_POINTER, "ctx is NULL");
  EK_OK(ek_memory_get_snapshot(ctx, nullptr, 0, &n));
  EXPECT_EQ(n, 0u);
}

// ---------------------------------------------------------------- callbacks

TEST_P(MemoryTest, OomCallbackGetsTheRequestedSize) {
  CallbackLog log;
  EK_OK(ek_memory_set_callback(ctx, record_callback, &log, 0));
  EK_OK(ek_memory_set_limit(ctx, 2 * MiB));
  void *p = nullptr;
  EK_FAILS(ek_malloc(nullptr, ctx, 3 * MiB + 7, &p), EK_ERROR_OUT_OF_MEMORY, "requested");
  EXPECT_EQ(log.oom_calls, 1);
  EXPECT_EQ(log.oom_bytes, 3 * MiB + 7);
  EXPECT_EQ(log.ctx, ctx);
  EXPECT_EQ(log.threshold_calls, 0);
  EK_OK(ek_memory_set_callback(ctx, nullptr, nullptr, 0));
  EK_FAILS(ek_malloc(nullptr, ctx, 3 * MiB, &p), EK_ERROR_OUT_OF_MEMORY, "requested");
  EXPECT_EQ(log.oom_calls, 1);  // cleared
}

TEST_P(MemoryTest, OomCallbackThatRaisesTheLimitMakesTheRetrySucceed) {
  CallbackLog log;
  log.raise_limit_to = 64 * MiB;
  EK_OK(ek_memory_set_callback(ctx, record_callback, &log, 0));
  EK_OK(ek_memory_set_limit(ctx, 2 * MiB));
  void *p = alloc(3 * MiB);
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(log.oom_calls, 1);
  ek_memory_stats s = stats();
  EXPECT_EQ(s.limit_bytes, 64 * MiB);
  EXPECT_EQ(s.oom_count, 0u);
  EXPECT_GE(s.retries, 1u);
  release(p);
  EK_OK(ek_memory_set_callback(ctx, nullptr, nullptr, 0));
}

TEST_P(MemoryTest, OomCallbackMayFreeMemory) {
  struct Freer {
    ek_context ctx;
    void *victim;
    int calls = 0;
  } f{ctx, nullptr};
  auto cb = [](ek_context c, ek_memory_event ev, uint64_t, void *user) {
    auto *fr = static_cast<Freer *>(user);
    if (ev != EK_MEMORY_EVENT_OOM) return;
    ++fr->calls;
    ek_free(nullptr, c, fr->victim);
    fr->victim = nullptr;
  };
  EK_OK(ek_memory_set_limit(ctx, 20 * MiB));
  f.victim = alloc(3 * MiB);
  EK_OK(ek_memory_set_callback(ctx, cb, &f, 0));
  void *p = alloc(18 * MiB);  // a second 20 MiB segment would pass the limit
  EXPECT_EQ(f.calls, 1);
  release(p);
  EK_OK(ek_memory_set_callback(ctx, nullptr, nullptr, 0));
}

// A callback that allocates is not called again from inside itself (that
// recursed until the stack overflowed): the nested ek_malloc fails or
// succeeds on its own. The guard is per call: the next failure calls it again.
TEST_P(MemoryTest, OomCallbackThatAllocatesIsNotCalledFromInsideItself) {
  struct Nested {
    uint64_t bytes = 0;  // what the callback asks for; 0: the failing request's size
    int calls = 0;
    ek_status status = EK_SUCCESS;
    void *p = nullptr;
  } n;
  auto cb = [](ek_context c, ek_memory_event ev, uint64_t bytes, void *user) {
    auto *st = static_cast<Nested *>(user);
    if (ev != EK_MEMORY_EVENT_OOM || ++st->calls > 3) return;  // bounded without the guard too
    st->status = ek_malloc(nullptr, c, st->bytes ? st->bytes : bytes, &st->p);
  };
  EK_OK(ek_memory_set_limit(ctx, 4 * MiB));
  EK_OK(ek_memory_set_callback(ctx, cb, &n, 0));
  void *p = nullptr;
  EK_FAILS(ek_malloc(nullptr, ctx, 8 * MiB, &p), EK_ERROR_OUT_OF_MEMORY, "requested 8.00 MiB");
  EXPECT_EQ(n.calls, 1);
  EXPECT_EQ(n.status, EK_ERROR_OUT_OF_MEMORY);
  EXPECT_EQ(n.p, nullptr);
  n.bytes = 1 * MiB;  // fits: the nested allocation succeeds
  EK_FAILS(ek_malloc(nullptr, ctx, 8 * MiB, &p), EK_ERROR_OUT_OF_MEMORY, "requested 8.00 MiB");
  EXPECT_EQ(n.calls, 2);
  EXPECT_EQ(n.status, EK_SUCCESS);
  ASSERT_NE(n.p, nullptr);
  release(n.p);
  EXPECT_EQ(stats().oom_count, 3u);  // two requests and the first nested one
  EK_OK(ek_memory_set_callback(ctx, nullptr, nullptr, 0));
  EK_OK(ek_memory_set_limit(ctx, 0));
}

TEST_P(MemoryTest, ThresholdCallbackFiresOnceWhenReservedCrossesIt) {
  CallbackLog log;
  EK_OK(ek_memory_set_callback(ctx, record_callback, &log, 3 * MiB));
  std::vector<void *> ptrs;
  ptrs.push_back(alloc(1 * MiB));  // reserved 2 MiB
  ptrs.push_back(alloc(1 * MiB));  // same segment
  EXPECT_EQ(log.threshold_calls, 0);
  ptrs.push_back(alloc(1 * MiB));  // reserved 4 MiB: crosses 3 MiB
  EXPECT_EQ(log.threshold_calls, 1);
  EXPECT_EQ(log.threshold_bytes, 4 * MiB);
  EXPECT_EQ(log.ctx, ctx);
  for (int i = 0; i < 4; ++i) ptrs.push_back(alloc(1 * MiB));  // stays above
  EXPECT_EQ(log.threshold_calls, 1);
  EXPECT_EQ(log.oom_calls, 0);
  for (void *p : ptrs) release(p);
  EK_OK(ek_memory_set_callback(ctx, nullptr, nullptr, 0));
}

// ---------------------------------------------------------------- out of memory: recovery and tensors

namespace {

// ek_malloc of `bytes` until it fails; returns the blocks and checks the failure.
std::vector<void *> fill_pool(ek_context c, size_t bytes, size_t cap) {
  std::vector<void *> held;
  for (size_t i = 0; i < cap; ++i) {
    void *p = nullptr;
    ek_status st = ek_malloc(nullptr, c, bytes, &p);
    if (st != EK_SUCCESS) {
      EXPECT_EQ(st, EK_ERROR_OUT_OF_MEMORY) << ek_last_error();
      return held;
    }
    held.push_back(p);
  }
  ADD_FAILURE() << "no out-of-memory after " << cap << " blocks";
  return held;
}

int64_t live_handles() {
  int64_t n = 0;
  EXPECT_EQ(ek_live_handles(&n), EK_SUCCESS);
  return n;
}

}  // namespace

// Freeing after an out-of-memory restores full service: the pool fills to
// exactly the same count again, and every failure reached the callback.
TEST_P(MemoryTest, FreeingAfterOutOfMemoryAllowsFillingToTheLimitAgain) {
  CallbackLog log;
  EK_OK(ek_memory_set_callback(ctx, record_callback, &log, 0));
  EK_OK(ek_memory_set_limit(ctx, 8 * MiB));
  for (int pass = 0; pass < 3; ++pass) {
    std::vector<void *> held = fill_pool(ctx, 1 * MiB, 64);
    EXPECT_EQ(held.size(), 8u) << "pass " << pass;  // four 2 MiB segments of two blocks
    std::string msg = ek_last_error();
    for (const char *word : {"ek_malloc", "requested 1.00 MiB", "limit 8.00 MiB"})
      EXPECT_NE(msg.find(word), std::string::npos) << word << " missing in: " << msg;
    for (void *p : held) release(p);
    EXPECT_EQ(stats().allocated_bytes, 0u);
    if (pass == 1) {  // from the device again, not the cache
      EK_OK(ek_memory_empty_cache(ctx));
    }
  }
  EXPECT_EQ(log.oom_calls, 3);
  EXPECT_EQ(stats().oom_count, 3u);
  EK_OK(ek_memory_set_callback(ctx, nullptr, nullptr, 0));
}

// Ops that need memory past the limit fail with the pool's numbers, leave
// *out NULL and keep no handle or block; ops writing into a given output need
// no memory and still run; a release brings service back.
TEST_P(MemoryTest, TensorOpsPastTheLimitFailCleanly) {
  CallbackLog log;
  EK_OK(ek_memory_set_callback(ctx, record_callback, &log, 0));
  EK_OK(ek_memory_set_limit(ctx, 4 * MiB));
  const int64_t n = 256 * 1024;  // 1 MiB of float32: two per 2 MiB segment
  ektest::Tensor x;
  EK_OK(ek_tensor_empty(nullptr, ctx, 1, &n, EK_FLOAT32, x.out()));
  EK_OK(ek_fill(nullptr, ektest::scalar(2.0), x));
  std::vector<ek_tensor> outs(3, nullptr);  // with x: the 4 MiB limit
  for (ek_tensor &o : outs) EK_OK(ek_unary(nullptr, EK_UNARY_NEG, x, &o));
  const int64_t handles = live_handles();
  const ek_memory_stats full = stats();
  ek_tensor out = nullptr;
  EK_FAILS(ek_unary(nullptr, EK_UNARY_EXP, x, &out), EK_ERROR_OUT_OF_MEMORY, "ek_unary");
  std::string msg = ek_last_error();
  for (const char *word : {"requested 1.00 MiB", "limit 4.00 MiB"})
    EXPECT_NE(msg.find(word), std::string::npos) << word << " missing in: " << msg;
  EK_FAILS(ek_binary(nullptr, EK_BINARY_ADD, x, x, &out), EK_ERROR_OUT_OF_MEMORY, "ek_binary");
  EK_FAILS(ek_cast(nullptr, x, EK_FLOAT64, &out), EK_ERROR_OUT_OF_MEMORY, "ek_cast");
  EK_FAILS(ek_tensor_empty(nullptr, ctx, 1, &n, EK_FLOAT32, &out), EK_ERROR_OUT_OF_MEMORY,
           "ek_tensor_empty");
  EXPECT_EQ(out, nullptr);
  EXPECT_EQ(log.oom_calls, 4);
  EXPECT_EQ(live_handles(), handles);
  ek_memory_stats after = stats();
  EXPECT_EQ(after.allocated_bytes, full.allocated_bytes);
  EXPECT_EQ(after.active_blocks, full.active_blocks);
  EXPECT_EQ(after.oom_count, full.oom_count + 4);
  EK_OK(ek_binary(nullptr, EK_BINARY_ADD, x, x, &outs[0]));  // into a given output: no memory
  EXPECT_EQ(ektest::to_host<float>(outs[0])[0], 4.0f);
  EK_OK(ek_tensor_release(outs.back()));
  outs.pop_back();
  EK_OK(ek_unary(nullptr, EK_UNARY_EXP, x, &out));  // room again
  for (ek_tensor o : outs) EK_OK(ek_tensor_release(o));
  EK_OK(ek_tensor_release(out));
  EK_OK(ek_memory_set_callback(ctx, nullptr, nullptr, 0));
}

// The real device runs out: 1 GiB tensors until out-of-memory (the loop stops
// at twice the device's memory), then everything released and the same count
// allocated again, from the cache and after emptying it. Only on CUDA: a CPU
// context would allocate host memory until the machine swaps.
TEST_P(MemoryTest, DeviceCapacityRunsOutAndComesBack) {
  if (!cuda()) GTEST_SKIP() << "runs against the GPU's memory only";
  const int64_t gib = int64_t{1} << 30;
  const size_t cap = static_cast<size_t>(2 * device_memory() / static_cast<uint64_t>(gib)) + 1;
  auto fill = [&](std::vector<ek_tensor> *held) {
    for (size_t i = 0; i < cap; ++i) {
      ek_tensor t = nullptr;
      ek_status st = ek_tensor_empty(nullptr, ctx, 1, &gib, EK_UINT8, &t);
      if (st != EK_SUCCESS) return st;
      held->push_back(t);
    }
    return EK_SUCCESS;
  };
  size_t first = 0;
  for (int pass = 0; pass < 3; ++pass) {
    std::vector<ek_tensor> held;
    EXPECT_EQ(fill(&held), EK_ERROR_OUT_OF_MEMORY) << "pass " << pass << ": " << ek_last_error();
    std::string msg = ek_last_error();
    for (const char *word : {"ek_tensor_empty", "requested 1.00 GiB", "device free"})
      EXPECT_NE(msg.find(word), std::string::npos) << word << " missing in: " << msg;
    if (pass == 0) first = held.size();
    EXPECT_GE(held.size(), 1u);
    EXPECT_LT(held.size(), cap);
    // The same count again; one fewer tolerated once the cache was returned
    // to the driver, which may keep some of it for itself.
    EXPECT_GE(held.size() + (pass == 2 ? 1 : 0), first) << "pass " << pass;
    for (size_t i = 1; i < held.size(); ++i) EK_EXPECT_OK(ek_tensor_release(held[i]));
    if (!held.empty()) {  // the context still computes after the failure
      EK_EXPECT_OK(ek_fill(nullptr, ektest::scalar(7), held[0]));
      uint8_t v = 0;
      ektest::Tensor last;
      EK_EXPECT_OK(ek_view_slice(held[0], 0, gib - 1, gib, 1, last.out()));
      EK_EXPECT_OK(ek_tensor_to_host(nullptr, last, &v, 1));
      EXPECT_EQ(v, 7);
      EK_EXPECT_OK(ek_tensor_release(held[0]));
    }
    EXPECT_EQ(stats().allocated_bytes, 0u);
    if (pass == 1) {
      EK_OK(ek_memory_empty_cache(ctx));
    }
  }
  EK_OK(ek_memory_empty_cache(ctx));
}

// ---------------------------------------------------------------- memcpy

TEST_P(MemoryTest, MemcpyRoundTripsThroughPoolMemory) {
  const size_t n = 100000;
  std::vector<uint8_t> src(n), back(n, 0);
  for (size_t i = 0; i < n; ++i) src[i] = static_cast<uint8_t>(i * 131 + 7);
  void *p = alloc(n);
  EK_OK(ek_memcpy(nullptr, ctx, src.data(), p, n));
  EK_OK(ek_memcpy(nullptr, ctx, p, back.data(), n));
  ek_stream def = nullptr;
  EK_OK(ek_context_get_default_stream(ctx, &def));
  EK_OK(ek_stream_synchronize(def));
  EXPECT_EQ(back, src);
  release(p);
}

TEST_P(MemoryTest, MemcpyOnAStreamAndBetweenPoolBlocks) {
  ek_stream s = nullptr;
  EK_OK(ek_stream_create(ctx, &s));
  const size_t n = 4096;
  std::vector<uint8_t> src(n), back(n, 0);
  std::iota(src.begin(), src.end(), 0);
  void *a = alloc(n, s), *b = alloc(n, s);
  EK_OK(ek_memcpy(s, ctx, src.data(), a, n));
  EK_OK(ek_memcpy(s, ctx, a, b, n));
  EK_OK(ek_memcpy(s, ctx, b, back.data(), n));
  EK_OK(ek_stream_synchronize(s));
  EXPECT_EQ(back, src);
  release(a, s);
  release(b, s);
  EK_OK(ek_stream_destroy(s));
}

TEST_P(MemoryTest, MemcpyArgumentChecks) {
  char buf[8] = {};
  EK_OK(ek_memcpy(nullptr, ctx, nullptr, nullptr, 0));  // nothing to copy
  EK_FAILS(ek_memcpy(nullptr, ctx, buf, nullptr, 8), EK_ERROR_NULL_POINTER, "dst is NULL");
  EK_FAILS(ek_memcpy(nullptr, ctx, nullptr, buf, 8), EK_ERROR_NULL_POINTER, "src is NULL");
  EK_FAILS(ek_memcpy(nullptr, nullptr, buf, buf, 8), EK_ERROR_NULL_POINTER, "ctx is NULL");
}

// ---------------------------------------------------------------- traces

namespace {

// Sizes from 1 B to 8 MiB, log-uniform so that every size class is exercised.
size_t random_size(std::mt19937_64 &rng) {
  std::uniform_real_distribution<double> exp2(0.0, 23.0);
  return std::max<size_t>(1, static_cast<size_t>(std::exp2(exp2(rng))));
}

struct Live {
  size_t bytes;
  int stream;
};

}  // namespace

TEST_P(MemoryTest, RandomizedTraceKeepsBlocksDisjointAndStatsExact) {
  std::mt19937_64 rng(20240611);
  ek_stream streams[3] = {};
  for (ek_stream &s : streams) EK_OK(ek_stream_create(ctx, &s));
  std::map<uintptr_t, Live> live;
  uint64_t live_rounded = 0, live_requested = 0;
  for (int op = 0; op < 5000; ++op) {
    int si = static_cast<int>(rng() % 3);
    if (live.empty() || rng() % 100 < 55) {
      size_t bytes = random_size(rng);
      void *p = nullptr;
      ASSERT_EQ(ek_malloc(streams[si], ctx, bytes, &p), EK_SUCCESS)
          << op << ": " << ek_last_error();
      auto addr = reinterpret_cast<uintptr_t>(p);
      ASSERT_EQ(addr % 512, 0u);
      auto next = live.lower_bound(addr);
      if (next != live.end()) {
        ASSERT_LE(addr + bytes, next->first) << "overlap at op " << op;
      }
      if (next != live.begin()) {
        auto prev = std::prev(next);
        ASSERT_LE(prev->first + prev->second.bytes, addr) << "overlap at op " << op;
      }
      live[addr] = {bytes, si};
      live_rounded += rounded(bytes);
      live_requested += bytes;
    } else {
      auto it = live.begin();
      std::advance(it, static_cast<long>(rng() % live.size()));
      // Mostly freed on the allocating stream, sometimes on another one.
      int fs = rng() % 4 == 0 ? si : it->second.stream;
      ASSERT_EQ(ek_free(streams[fs], ctx, reinterpret_cast<void *>(it->first)), EK_SUCCESS)
          << op << ": " << ek_last_error();
      live_rounded -= rounded(it->second.bytes);
      live_requested -= it->second.bytes;
      live.erase(it);
    }
    ek_memory_stats s = stats();
    ASSERT_EQ(s.allocated_bytes, live_rounded) << "op " << op;
    ASSERT_EQ(s.requested_bytes, live_requested) << "op " << op;
    ASSERT_EQ(s.active_blocks, live.size()) << "op " << op;
    ASSERT_GE(s.reserved_bytes, s.allocated_bytes);
  }
  for (const auto &kv : live) release(reinterpret_cast<void *>(kv.first), streams[kv.second.stream]);
  for (ek_stream s : streams) EK_OK(ek_stream_destroy(s));
  EK_OK(ek_memory_empty_cache(ctx));
  ek_memory_stats s = stats();
  EXPECT_EQ(s.allocated_bytes, 0u);
  EXPECT_EQ(s.requested_bytes, 0u);
  EXPECT_EQ(s.reserved_bytes, 0u);
  EXPECT_EQ(s.segments, 0u);
  EXPECT_EQ(s.alloc_count, s.free_count);
  EXPECT_EQ(s.total_allocated_bytes, s.total_freed_bytes);
  EXPECT_EQ(s.device_mallocs, s.device_frees);
}

TEST_P(MemoryTest, ConcurrentThreadsOnTheirOwnStreams) {
  constexpr int kThreads = 4, kPairs = 2000;
  ek_stream streams[kThreads] = {};
  for (ek_stream &s : streams) EK_OK(ek_stream_create(ctx, &s));
  std::atomic<int> failures{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      std::mt19937_64 rng(1000 + t);
      std::vector<void *> held;
      for (int i = 0; i < kPairs; ++i) {
        size_t bytes = 1 + rng() % (rng() % 8 == 0 ? 4 * MiB : 64 * KiB);
        void *p = nullptr;
        if (ek_malloc(streams[t], ctx, bytes, &p) != EK_SUCCESS || !p ||
            reinterpret_cast<uintptr_t>(p) % 512) {
          ++failures;
          continue;
        }
        held.push_back(p);
        // Keep a few blocks alive at a time so that frees interleave.
        if (held.size() > 4 || i == kPairs - 1) {
          for (void *q : held)
            if (ek_free(streams[t], ctx, q) != EK_SUCCESS) ++failures;
          held.clear();
        }
      }
      for (void *q : held)
        if (ek_free(streams[t], ctx, q) != EK_SUCCESS) ++failures;
    });
  }
  for (std::thread &th : threads) th.join();
  EXPECT_EQ(failures.load(), 0);
  ek_memory_stats s = stats();
  EXPECT_EQ(s.alloc_count, static_cast<uint64_t>(kThreads * kPairs));
  EXPECT_EQ(s.free_count, static_cast<uint64_t>(kThreads * kPairs));
  EXPECT_EQ(s.allocated_bytes, 0u);
  EXPECT_EQ(s.requested_bytes, 0u);
  EXPECT_EQ(s.active_blocks, 0u);
  EXPECT_EQ(s.total_allocated_bytes, s.total_freed_bytes);
  EXPECT_EQ(s.cached_free_bytes, s.reserved_bytes);
  for (ek_stream st : streams) EK_OK(ek_stream_destroy(st));
}
