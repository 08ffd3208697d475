// Choosing a kernel's launch shape by timing real launches. The shapes a
// ShapeTuner chooses among compute the same results (only their speed
// differs), and which one is fastest depends on the kernel, the GPU and even
// the process: on the H100 the fused float32 chains of bench/fusion_chain.py
// were fastest with 512 and 128 threads a block for 3 and 12 ops, and the
// 6-op chain with 256 (without the programmatic-launch wait) in one process
// and 384 in another; a shape's time moved by about 1 % from one process to
// the next (bench/RESULTS.md, sessions 16 and 17). torch.compile times its
// candidates the same way when a kernel is first called.
//
// Pure bookkeeping, no libek state (tests/test_shape_tuner.cpp compiles it
// from source): the caller times the launches it is told to (launch_tuner).
#pragma once

#include <cstdint>
#include <vector>

namespace ek {
namespace jit {

class ShapeTuner {
 public:
  // candidates >= 1 shapes, candidate 0 the default; `samples` timed launches
  // of each; launches below min_elements run the default and are not timed
  // (too short to time against each other).
  ShapeTuner(int candidates, int samples, int64_t min_elements);

  struct Pick {
    int candidate;
    bool timed;  // the caller times this launch and reports it (finish/abandon)
  };
  // The shape for a launch of n elements: under min_elements the default;
  // else the choice once made. may_time: whether this launch may be timed
  // (not while a stream is captured). Once every sample is taken but some
  // are not reported yet, launches run the default.
  Pick next(int64_t n, bool may_time);
  // A timed launch's device time, or its loss (then it is taken again).
  void finish(int candidate, int64_t n, double ms);
  void abandon(int candidate);

  // The fastest candidate by median time per element once every candidate
  // has all its samples; -1 before.
  int choice() const { return choice_; }
  // A candidate's median time per element (ns), 0 while it has no samples.
  double ns_per_element(int candidate) const;
  int candidates() const { return static_cast<int>(started_.size()); }

 private:
  int samples_;
  int64_t min_elements_;
  int choice_ = -1;
  std::vector<int> started_;
  std::vector<std::vector<double>> ns_;  // per candidate, per reported sample
};

}  // namespace jit
}  // namespace ek
