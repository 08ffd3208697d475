#include "jit/shape_tuner.hpp"

#include <algorithm>

namespace ek {
namespace jit {

ShapeTuner::ShapeTuner(int candidates, int samples, int64_t min_elements)
    : samples_(samples), min_elements_(min_elements), started_(candidates, 0), ns_(candidates) {}

ShapeTuner::Pick ShapeTuner::next(int64_t n, bool may_time) {
  if (n < min_elements_) return {0, false};
  if (choice_ >= 0) return {choice_, false};
  if (!may_time) return {0, false};
  // The candidate with the fewest samples, so that samples alternate and a
  // drift of the GPU's clocks falls on every candidate alike.
  const auto least = std::min_element(started_.begin(), started_.end());
  if (*least >= samples_) return {0, false};  // the rest are in flight
  ++*least;
  return {static_cast<int>(least - started_.begin()), true};
}

void ShapeTuner::finish(int candidate, int64_t n, double ms) {
  ns_[candidate].push_back(ms * 1e6 / static_cast<double>(n));
  for (const std::vector<double> &v : ns_)
    if (static_cast<int>(v.size()) < samples_) return;
  int best = 0;
  for (int c = 1; c < candidates(); ++c)
    if (ns_per_element(c) < ns_per_element(best)) best = c;
  choice_ = best;
}

void ShapeTuner::abandon(int candidate) { --started_[candidate]; }

double ShapeTuner::ns_per_element(int candidate) const {
  std::vector<double> v = ns_[candidate];
  if (v.empty()) return 0;
  std::nth_element(v.begin(), v.begin() + v.size() / 2, v.end());
  return v[v.size() / 2];
}

}  // namespace jit
}  // namespace ek
