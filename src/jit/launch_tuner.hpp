// A fused kernel's launch shape (threads a block, and whether the kernel
// waits for its predecessor), chosen by timing its first large launches
// (jit/shape_tuner.hpp says why). Every shape computes the same elements.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "core/internal.hpp"
#include "jit/shape_tuner.hpp"

namespace ek {
namespace jit {

struct LaunchShape {
  unsigned threads;
  bool waits;  // the kernel that begins with ewgen::kWaitPrior (else its _nowait twin)
};

// One per fused kernel (fusion_codegen.cpp's cache); not thread-safe: the
// context's fusion mutex serializes every call.
class LaunchTuner {
 public:
  // The candidates, the default first. On the H100 (bench/RESULTS.md,
  // sessions 16 and 17) each was the fastest for one of the float32 chains
  // in some process: 512 for 3 ops, 128 without the wait for 12, and for 6
  // 256 without the wait in one process, 384 in another.
  static constexpr LaunchShape kShapes[] = {{256, true}, {512, true}, {128, false}, {256, false}, {384, true}};
  static constexpr int kSamples = 3;  // timed launches of each shape
  // Launches under 2^24 elements take tens of microseconds or less: too
  // short to tell shapes apart by events, and they run the default.
  static constexpr int64_t kMinElements = int64_t(1) << 24;
  // The kernels' __launch_bounds__: the largest candidate.
  static constexpr unsigned max_threads() {
    unsigned m = 0;
    for (const LaunchShape &c : kShapes) m = c.threads > m ? c.threads : m;
    return m;
  }

  // what: the kernel, as the log line that reports the choice names it.
  LaunchTuner(ek_context ctx, std::string what);
  ~LaunchTuner();
  LaunchTuner(const LaunchTuner &) = delete;
  LaunchTuner &operator=(const LaunchTuner &) = delete;

  // Runs launch(shape) on s for a launch of n elements: the chosen shape, or
  // while choosing, a candidate between two timing events (never while a
  // capture is underway: the shape then is the choice or the default).
  ek_status run(ek_stream s, int64_t n, const std::function<ek_status(const LaunchShape &)> &launch);

 private:
  struct Sample {
    int candidate;
    int64_t n;
    void *start, *end;  // events
  };
  ek_status run_timed(ek_stream s, int candidate, int64_t n,
                      const std::function<ek_status(const LaunchShape &)> &launch);
  void harvest();  // reports the samples whose events have completed
  void log_choice() const;

  ek_context ctx_;
  std::string what_;
  ShapeTuner tuner_;
  std::vector<Sample> pending_;
};

}  // namespace jit
}  // namespace ek
