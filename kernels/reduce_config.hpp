// The CUDA reductions' launch shape (kernels/reduce.cu), a function of the
// plan only: host code, shared with the fused reductions
// (src/jit/fusion_codegen.cpp), which must launch the same grid to combine
// in the same order. Plain C++.
#pragma once
#include <algorithm>
#include <climits>
#include <cstdint>

#include "kernels/reduce.cuh"
#include "ops/layout.hpp"

namespace ek {
namespace cuda {

constexpr int kColX = 32, kColY = 16;      // column kernel block: inner x rows
constexpr int kUnroll = 4;                 // loads in flight per thread
constexpr int64_t kTargetBlocks = 2048;    // fixed, so the tree (and the bits) never depend on the GPU
// Column blocks (512 threads) run two to an SM: 256 of them fill an H100 in
// one wave, each streaming a long chunk, and keep the partials few (the
// combine then reads each output's partials with one load per lane). Tried
// on the H100: 1024 blocks 61 us, 256 blocks 53 us for 32768x1024 f32; the
// last block of each strip combining in the same launch was slower (61 us).
constexpr int64_t kTargetColBlocks = 256;
constexpr int64_t kTailOutputs = 32;       // at most this many outputs finish in the last block
constexpr int64_t kMaxSplit = 1024;        // partials per output at most
constexpr int64_t kMaxGrid = 65535;        // grid.y / grid.z limit
constexpr int64_t kLongRow = 4096;         // rows this long get a block each, shorter a warp
constexpr size_t kPartialBytes = 16;       // a State (reduce_device.cuh)
constexpr size_t kTailPartials = 256;  // offset of the partials in the tail scratch (after the counter)

// Launch shape, a function of the plan only.
struct Config {
  bool rows = true;
  int group = 32;
  int vec = 1;         // columns per thread (column kernel)
  int64_t blocks = 1;  // grid.x
  int64_t splits = 1;
  int64_t chunk = 0;
  bool tail = false;   // the last block combines the partials (no second launch)
};

// Splits r so that about `target` blocks run; chunks stay multiples of
// `align` elements (16 bytes) so every chunk but the first starts aligned.
inline void split(Config &c, int64_t r, int64_t blocks, int64_t target, int64_t min_chunk, int64_t align) {
  int64_t want = blocks >= target ? 1 : ceil_div(target, blocks);
  int64_t s = std::max<int64_t>(1, std::min({want, kMaxSplit, r / std::max<int64_t>(min_chunk, 1)}));
  c.chunk = std::max<int64_t>(ceil_div(ceil_div(r, s), align) * align, 1);
  c.splits = std::max<int64_t>(ceil_div(r, c.chunk), 1);
}

// Columns per thread: up to 16 bytes and 4 columns (the block's shared tile
// stays within 32 KiB), when every row of the block starts aligned for it.
inline int column_vec(const ReducePlan &p) {
  const int64_t es = static_cast<int64_t>(dtype_size(p.in_dtype));
  const int64_t v = std::min<int64_t>(16 / es, 4);
  const bool aligned = reinterpret_cast<uintptr_t>(p.in) % (v * es) == 0;
  return (v > 1 && p.inner % v == 0 && aligned) ? static_cast<int>(v) : 1;
}

inline Config configure(const ReducePlan &p) {
  Config c;
  int64_t align = 16 / static_cast<int64_t>(dtype_size(p.in_dtype));
  if (p.inner == 1) {
    c.group = p.r >= kLongRow ? kThreads : 32;
    int64_t rows_per_block = kThreads / c.group;
    c.blocks = ceil_div(p.outer, rows_per_block);
    split(c, p.r, c.blocks, kTargetBlocks, int64_t(c.group) * align * kUnroll, align);
    c.splits = std::min(c.splits, kMaxGrid);
  } else {
    c.rows = false;
    c.vec = column_vec(p);
    c.blocks = ceil_div(p.inner, int64_t(kColX) * c.vec);
    split(c, p.r, c.blocks * std::min(p.outer, kMaxGrid), kTargetColBlocks, kColY * kUnroll, 1);
  }
  c.blocks = std::min<int64_t>(c.blocks, INT_MAX);
  const int64_t nout = p.outer * p.inner;
  c.tail = c.splits > 1 && nout <= kTailOutputs &&
           c.splits * nout * int64_t(kPartialBytes) <= int64_t(kTailScratchBytes - kTailPartials);
  return c;
}

// Workspace bytes for the partials a second kernel combines (0: none).
inline size_t workspace_bytes(const ReducePlan &p, const Config &c) {
  return c.splits > 1 && !c.tail ? static_cast<size_t>(c.splits * p.outer * p.inner) * kPartialBytes : 0;
}

}  // namespace cuda
}  // namespace ek
