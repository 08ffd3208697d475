// Building and caching fused kernels, shared by the fused chains and
// reductions (fusion_codegen.cpp) and the fused row groups (fusion_rows.cpp).
#pragma once

#include <cstdint>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "core/fusion.hpp"
#include "jit/jit.hpp"
#include "jit/launch_tuner.hpp"

namespace ek {
namespace fusion {

// One module's kernels: the fused kernel, a reduction's combining pass, and
// for a contiguous chain the fused kernel without its wait (nowait) and the
// tuner that picks between them and their block sizes (owned by the cache).
struct Kernels {
  ek_kernel main = nullptr, combine = nullptr, nowait = nullptr;
  jit::LaunchTuner *tuner = nullptr;
};

// A module to build: its source (written only on a cache miss) and the
// kernels it defines, with the parameters their source declares, so that
// finding them asks the driver nothing that fails (module_kernel).
struct Build {
  std::string key, program, name;  // name: the main kernel; combine: name + "_combine"
  std::function<std::string()> source;
  jit::KnownParams main, combine;  // combine.sizes empty: no combining kernel
  bool tuned = false;  // the main kernel has a _nowait twin and a LaunchTuner
};

// The compiled kernels for b.key, or new ones (counted, timed, capped); out
// empty (and success) when none may be built now (the cap, a capture).
ek_status kernel_for(ek_context ctx, const Group &g, const Build &b, Kernels *out);

inline jit::KnownParams one_param(size_t bytes) { return jit::KnownParams{{bytes}, bytes}; }

// Fused kernels begin with ewgen::kWaitPrior; in a graph they run as
// programmatic dependents (as the built-in elementwise and reduction
// kernels do there).
inline bool dependent_launch(ek_stream s) { return stream_capturing(s); }

// Bytes of v appended to words (8-byte words; v's size a multiple of 8).
template <typename V> void append(std::vector<uint64_t> *words, const V &v) {
  static_assert(sizeof(V) % sizeof(uint64_t) == 0, "whole words");
  const size_t at = words->size();
  words->resize(at + sizeof(V) / sizeof(uint64_t));
  std::memcpy(words->data() + at, &v, sizeof(V));
}

// The reduction family of a plan's kind (reduce.cu's launch_type), as the
// device code names it.
const char *family(int kind);
// What the generated reductions need before their own code: kThreads,
// kUnroll, to_acc, the reductions' device code (kernels/reduce_device.cuh),
// a check of ReducePlan's layout and the ekf_vec vector type.
std::string reduce_prelude();

}  // namespace fusion
}  // namespace ek
