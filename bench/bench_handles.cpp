// The host cost of a handle check, behind ek.h's choice to make a stale handle
// undefined behaviour: the cheapest API call (ek_tensor_get_context) as it is,
// and the same call preceded by what real detection would add to every call,
// a lookup in a registry of live handles shared between threads (a
// reader-locked hash set). CPU context: no device time is involved.
#include <ek.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <shared_mutex>
#include <unordered_set>
#include <vector>

namespace {

constexpr int kCalls = 2'000'000;
constexpr int kRounds = 11;

void check(ek_status s, const char *what) {
  if (s == EK_SUCCESS) return;
  std::fprintf(stderr, "%s: %s\n", what, ek_last_error());
  std::exit(1);
}

template <class F>
double median_ns_per_call(F &&call) {
  std::vector<double> ns;
  for (int r = 0; r < kRounds; ++r) {
    auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < kCalls; ++i) call();
    std::chrono::duration<double, std::nano> dt = std::chrono::steady_clock::now() - t0;
    ns.push_back(dt.count() / kCalls);
  }
  std::sort(ns.begin(), ns.end());
  return ns[ns.size() / 2];
}

}  // namespace

int main() {
  ek_context ctx = nullptr;
  check(ek_context_create(ek_device{EK_CPU, 0}, nullptr, &ctx), "context");
  std::vector<ek_tensor> live(4096, nullptr);
  int64_t shape[1] = {1};
  for (auto &t : live) check(ek_tensor_empty(nullptr, ctx, 1, shape, EK_FLOAT32, &t), "empty");

  std::shared_mutex lock;
  std::unordered_set<const void *> registry(live.begin(), live.end());
  ek_context got = nullptr;
  unsigned k = 0;
  double plain = median_ns_per_call([&] {
    check(ek_tensor_get_context(live[k++ & 4095], &got), "get_context");
  });
  double checked = median_ns_per_call([&] {
    ek_tensor t = live[k++ & 4095];
    {
      std::shared_lock<std::shared_mutex> hold(lock);
      if (!registry.count(t)) std::abort();
    }
    check(ek_tensor_get_context(t, &got), "get_context");
  });
  std::printf("ek_tensor_get_context: %.1f ns per call (magic check only)\n", plain);
  std::printf("  with a live-handle registry lookup: %.1f ns per call (+%.1f ns)\n", checked,
              checked - plain);
  for (auto t : live) ek_tensor_release(t);
  ek_context_destroy(ctx);
  return 0;
}
