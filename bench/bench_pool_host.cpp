// Host-only micro-benchmark of the caching pool's cached path: alloc+free
// pairs of one size on one stream, with a fake device (addresses are never
// touched) and CPU stream semantics (no events). Prints the median ns per
// pair over 200 batches of 1000 pairs, so a stray interrupt does not move it.
//
//   g++ -std=c++17 -O2 -Isrc src/core/pool.cpp bench/bench_pool_host.cpp -o /tmp/bp && /tmp/bp
#include "core/pool.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <vector>

namespace {

// Hands out addresses from a fake range: the benchmark measures bookkeeping,
// so nothing is ever mapped or touched.
struct FakeMemory : ek::RawMemory {
  uintptr_t next = uintptr_t(1) << 40;
  bool allocate(size_t bytes, void **ptr) override {
    *ptr = reinterpret_cast<void *>(next);
    next += bytes;
    return true;
  }
  void release(void *, size_t) override {}
  void mem_info(size_t *free_bytes, size_t *total_bytes) override {
    *free_bytes = *total_bytes = size_t(80) << 30;
  }
};

// CPU semantics: work is synchronous, so there is never an event to wait for.
struct NoSync : ek::StreamSync {
  uint64_t record(uint64_t) override { return 0; }
  bool query(uint64_t) override { return true; }
  void wait(uint64_t, uint64_t) override {}
  void synchronize(uint64_t) override {}
  void destroy(uint64_t) override {}
};

double median_ns_per_pair(size_t bytes) {
  constexpr int kBatches = 200, kPairs = 1000;
  FakeMemory mem;
  NoSync sync;
  ek::Pool pool(mem, sync);
  void *p = nullptr;
  pool.allocate(bytes, 1, &p, nullptr);  // warm-up: the block is cached from here on
  pool.free(p, 1, nullptr);
  std::vector<double> ns(kBatches);
  for (double &t : ns) {
    auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < kPairs; ++i) {
      pool.allocate(bytes, 1, &p, nullptr);
      pool.free(p, 1, nullptr);
    }
    auto t1 = std::chrono::steady_clock::now();
    t = std::chrono::duration<double, std::nano>(t1 - t0).count() / kPairs;
  }
  if (pool.stats().device_mallocs != 1) std::printf("warning: the block was not cached\n");
  std::nth_element(ns.begin(), ns.begin() + kBatches / 2, ns.end());
  return ns[kBatches / 2];
}

}  // namespace

int main() {
  const struct { const char *name; size_t bytes; } sizes[] = {
      {"512 B", 512}, {"64 KiB", 64 << 10}, {"1 MiB", 1 << 20}, {"64 MiB", size_t(64) << 20}};
  std::printf("cached alloc+free pair, one stream, median of 200 x 1000 pairs\n");
  for (auto &s : sizes) std::printf("  %-7s %6.1f ns\n", s.name, median_ns_per_pair(s.bytes));
  return 0;
}
