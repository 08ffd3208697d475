// The CPU backend's worker threads: one process-wide pool, started lazily and
// grown to the largest thread count a context asked for. An op splits its
// work into chunks, parallel_for runs them on the pool and on the calling
// thread, and returns when all are done. Chunks must be independent and
// write disjoint memory; which thread runs a chunk never changes a result.
#pragma once
#include <cstdint>

#include "ops/layout.hpp"

namespace ek {
namespace cpu {

// Below this many elements an op runs inline on the calling thread: waking
// workers costs a few microseconds, about what 2^18 elements of a
// memory-bound loop take on one core, so smaller ops would not gain.
constexpr int64_t kParallelMin = int64_t(1) << 18;
// The smallest chunk worth handing to another thread (same reasoning).
constexpr int64_t kChunkMin = int64_t(1) << 16;

// Chunks for `work` elements on `threads` threads: 1 (run inline) for small
// work or one thread, else a few per thread so uneven cores balance out.
int64_t chunk_count(int64_t work, int threads);

// fn(arg, i) for every i in [0, chunks), spread over up to `threads` threads
// (the caller is one). Inline, without locks, when threads <= 1 or chunks <= 1.
// An exception thrown by a chunk is caught on its thread and rethrown here,
// on the caller's, once every chunk has finished.
void parallel_for(int threads, int64_t chunks, void (*fn)(void *, int64_t), void *arg);

template <typename F>
void parallel_for(int threads, int64_t chunks, F &&f) {
  if (threads <= 1 || chunks <= 1) {
    for (int64_t i = 0; i < chunks; ++i) f(i);
    return;
  }
  parallel_for(threads, chunks, [](void *a, int64_t i) { (*static_cast<F *>(a))(i); }, &f);
}

// The runs of a walk (cpu/strided.hpp: Strided<N>) split over threads: g(off,
// n) for pieces of innermost runs, each element in exactly one piece, pieces
// of one chunk in C order. off[k] is the byte offset of the piece's first
// element in tensor k (a broadcast operand's step is 0, so a piece may start
// mid-run). One chunk (w.for_each_run itself) for a small walk.
template <typename W, typename G>
void parallel_runs(const W &w, int threads, G &&g) {
  const int64_t total = w.numel();
  const int64_t chunks = w.ndim == 0 ? 1 : chunk_count(total, threads);
  if (chunks <= 1) {
    w.for_each_run(g);
    return;
  }
  constexpr int N = sizeof(w.st) / sizeof(w.st[0]);
  const int last = w.ndim - 1;
  const int64_t run = w.shape[last];
  parallel_for(threads, chunks, [&](int64_t c) {
    const int64_t q = total / chunks, r = total % chunks;
    int64_t i = q * c + (c < r ? c : r);
    const int64_t end = i + q + (c < r ? 1 : 0);
    int64_t idx[kMaxDims] = {}, off[N] = {};
    for (int64_t d = last, rest = i; d >= 0; --d) {  // the coordinates of element i
      idx[d] = rest % w.shape[d];
      rest /= w.shape[d];
      for (int k = 0; k < N; ++k) off[k] += idx[d] * w.st[k][d];
    }
    for (;;) {
      const int64_t n = run - idx[last] < end - i ? run - idx[last] : end - i;
      g(static_cast<const int64_t *>(off), n);
      if ((i += n) == end) return;
      // On to the next run's first element, as Strided's odometer steps
      // (only offsets of elements that exist are formed).
      for (int k = 0; k < N; ++k) off[k] -= idx[last] * w.st[k][last];
      idx[last] = 0;
      for (int d = last - 1; d >= 0; --d) {
        if (++idx[d] < w.shape[d]) {
          for (int k = 0; k < N; ++k) off[k] += w.st[k][d];
          break;
        }
        for (int k = 0; k < N; ++k) off[k] -= w.st[k][d] * (w.shape[d] - 1);
        idx[d] = 0;
      }
    }
  });
}

}  // namespace cpu
}  // namespace ek
