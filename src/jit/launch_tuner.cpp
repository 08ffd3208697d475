#include "jit/launch_tuner.hpp"

#include <cstdio>
#include <iterator>
#include <utility>

#include "core/captures.hpp"
#include "core/gpu.hpp"

namespace ek {
namespace jit {

namespace {
constexpr int kCandidates = static_cast<int>(std::size(LaunchTuner::kShapes));
}  // namespace

LaunchTuner::LaunchTuner(ek_context ctx, std::string what)
    : ctx_(ctx), what_(std::move(what)), tuner_(kCandidates, kSamples, kMinElements) {}

LaunchTuner::~LaunchTuner() {
  for (const Sample &p : pending_) {  // CUDA releases an event still pending once it completes
    gpu::event_destroy(p.start);
    gpu::event_destroy(p.end);
  }
}

ek_status LaunchTuner::run(ek_stream s, int64_t n, const std::function<ek_status(const LaunchShape &)> &launch) {
  // Querying events is among the calls a global-mode capture refuses.
  const bool may_time = captures_underway() == 0 && !stream_capturing(s);
  if (may_time && !pending_.empty()) harvest();
  const ShapeTuner::Pick pick = tuner_.next(n, may_time);
  if (!pick.timed) return launch(kShapes[pick.candidate]);
  return run_timed(s, pick.candidate, n, launch);
}

ek_status LaunchTuner::run_timed(ek_stream s, int candidate, int64_t n,
                                 const std::function<ek_status(const LaunchShape &)> &launch) {
  Sample p{candidate, n, nullptr, nullptr};
  ek_status st = activate(ctx_);
  if (st == EK_SUCCESS) st = gpu::event_create(true, &p.start);
  if (st == EK_SUCCESS) st = gpu::event_create(true, &p.end);
  if (st == EK_SUCCESS) st = gpu::event_record(p.start, s->native);
  if (st == EK_SUCCESS) st = launch(kShapes[candidate]);
  if (st == EK_SUCCESS) st = gpu::event_record(p.end, s->native);
  if (st == EK_SUCCESS) {
    pending_.push_back(p);
    return EK_SUCCESS;
  }
  tuner_.abandon(candidate);
  gpu::event_destroy(p.start);
  gpu::event_destroy(p.end);
  return st;
}

void LaunchTuner::harvest() {
  std::vector<Sample> left;
  for (const Sample &p : pending_) {
    bool done = false;
    float ms = 0;
    ek_status st = gpu::event_query(p.end, &done);
    if (st == EK_SUCCESS && !done) {
      left.push_back(p);
      continue;
    }
    if (st == EK_SUCCESS) st = gpu::event_elapsed(p.start, p.end, &ms);
    if (st == EK_SUCCESS) tuner_.finish(p.candidate, p.n, ms);
    else tuner_.abandon(p.candidate);
    gpu::event_destroy(p.start);
    gpu::event_destroy(p.end);
  }
  pending_ = std::move(left);
  if (tuner_.choice() >= 0) log_choice();
}

void LaunchTuner::log_choice() const {
  const LaunchShape &c = kShapes[tuner_.choice()];
  std::string times;
  for (int k = 0; k < kCandidates; ++k) {
    char one[64];
    std::snprintf(one, sizeof one, "%s%u%s %.3f", k ? ", " : "", kShapes[k].threads,
                  kShapes[k].waits ? "" : " (no wait)", tuner_.ns_per_element(k) * 1e3);
    times += one;
  }
  log_message(EK_LOG_INFO, ctx_->config.log_level, "%s: %u threads a block%s (ps an element: %s)",
              what_.c_str(), c.threads, c.waits ? "" : ", no wait", times.c_str());
}

}  // namespace jit
}  // namespace ek
