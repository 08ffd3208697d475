// The launch tuner's bookkeeping (src/jit/shape_tuner.hpp), compiled from
// source: which launches are timed, in what order, and what it keeps.
#include <gtest/gtest.h>

#include <vector>

#include "jit/shape_tuner.hpp"

using ek::jit::ShapeTuner;

namespace {

constexpr int64_t kMin = 1000;

// Takes every sample the tuner asks for, reporting ms_of(candidate, k) for
// its k-th sample, with launches of n elements.
template <typename F>
void take_samples(ShapeTuner &t, int64_t n, F ms_of) {
  std::vector<int> taken(t.candidates(), 0);
  for (ShapeTuner::Pick p = t.next(n, true); p.timed; p = t.next(n, true))
    t.finish(p.candidate, n, ms_of(p.candidate, taken[p.candidate]++));
}

TEST(ShapeTuner, SmallLaunchesAndCapturesRunTheDefaultUntimed) {
  ShapeTuner t(3, 2, kMin);
  for (int k = 0; k < 5; ++k) {
    const ShapeTuner::Pick small = t.next(kMin - 1, true), captured = t.next(kMin, false);
    EXPECT_EQ(small.candidate, 0);
    EXPECT_FALSE(small.timed);
    EXPECT_EQ(captured.candidate, 0);
    EXPECT_FALSE(captured.timed);
  }
  EXPECT_EQ(t.choice(), -1);
  EXPECT_TRUE(t.next(kMin, true).timed) << "nothing was spent on them";
}

TEST(ShapeTuner, SamplesAlternateBetweenCandidates) {
  ShapeTuner t(3, 2, kMin);
  std::vector<int> order;
  for (ShapeTuner::Pick p = t.next(kMin, true); p.timed; p = t.next(kMin, true)) order.push_back(p.candidate);
  EXPECT_EQ(order, (std::vector<int>{0, 1, 2, 0, 1, 2}));
  // All in flight, none reported: the default, untimed, until they are.
  const ShapeTuner::Pick waiting = t.next(kMin, true);
  EXPECT_EQ(waiting.candidate, 0);
  EXPECT_FALSE(waiting.timed);
  EXPECT_EQ(t.choice(), -1);
}

TEST(ShapeTuner, KeepsTheLowestMedianTimeAnElement) {
  ShapeTuner t(3, 3, kMin);
  // Candidate 2 is fastest but one of its samples is an outlier; the median
  // ignores it, where a mean would pick candidate 1.
  take_samples(t, 4000, [](int c, int k) {
    if (c == 2) return k == 1 ? 100.0 : 1.0;
    return c == 1 ? 1.1 : 1.3;
  });
  EXPECT_EQ(t.choice(), 2);
  EXPECT_DOUBLE_EQ(t.ns_per_element(2), 1.0 * 1e6 / 4000);
  EXPECT_DOUBLE_EQ(t.ns_per_element(1), 1.1 * 1e6 / 4000);
  for (int k = 0; k < 3; ++k) {
    const ShapeTuner::Pick p = t.next(kMin, true);
    EXPECT_EQ(p.candidate, 2);
    EXPECT_FALSE(p.timed);
  }
  EXPECT_EQ(t.next(kMin - 1, true).candidate, 0) << "small launches keep the default";
}

TEST(ShapeTuner, ComparesTimeAnElementAcrossSizes) {
  ShapeTuner t(2, 1, kMin);
  const ShapeTuner::Pick a = t.next(kMin, true), b = t.next(4 * kMin, true);
  ASSERT_EQ(a.candidate, 0);
  ASSERT_EQ(b.candidate, 1);
  t.finish(0, kMin, 1.0);      // 1 ms for n
  t.finish(1, 4 * kMin, 3.0);  // 3 ms for 4n: faster an element
  EXPECT_EQ(t.choice(), 1);
}

TEST(ShapeTuner, AnAbandonedSampleIsTakenAgain) {
  ShapeTuner t(2, 1, kMin);
  ASSERT_EQ(t.next(kMin, true).candidate, 0);
  ASSERT_EQ(t.next(kMin, true).candidate, 1);
  t.abandon(1);
  t.finish(0, kMin, 2.0);
  EXPECT_EQ(t.choice(), -1);
  const ShapeTuner::Pick again = t.next(kMin, true);
  EXPECT_EQ(again.candidate, 1);
  EXPECT_TRUE(again.timed);
  t.finish(1, kMin, 1.0);
  EXPECT_EQ(t.choice(), 1);
}

}  // namespace
