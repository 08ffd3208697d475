// Reference implementation: walk the index space in C order (cpu/strided.hpp)
// and convert element by element through the shared rules in half.hpp.
// Fast paths, same results: a transpose of the two innermost dims in tiles;
// per innermost run, a contiguous same-dtype run is one memcpy, a gather
// into a contiguous run a typed loop, a contiguous cast the same conversion
// with both dtypes fixed at compile time.
#include "cpu/copy.hpp"

#include <algorithm>
#include <cstring>

#include "cpu/strided.hpp"
#include "cpu/thread_pool.hpp"
#include "cpu/typed.hpp"
#include "ops/range_plan.hpp"
#include "util/half.hpp"

namespace ek {
namespace cpu {

namespace {

using CopyRun = void (*)(char *, const char *, int64_t, int64_t);

// n elements of ES bytes, src step bytes apart, into a contiguous run.
template <int64_t ES>
void gather_run(char *d, const char *s, int64_t n, int64_t step) {
  for (int64_t i = 0; i < n; ++i) std::memcpy(d + i * ES, s + i * step, ES);
}

template <int SD, int DD>
void cast_run(char *d, const char *s, int64_t n, int64_t) {
  for (int64_t i = 0; i < n; ++i)
    detail::store_scalar(d + i * kSize<DD>, DD, detail::load_scalar(s + i * kSize<SD>, SD));
}

// The run loop when dst's runs are contiguous, else null.
CopyRun copy_run(const TensorDesc &dst, const TensorDesc &src, const Strided<2> &w) {
  const auto es = static_cast<int64_t>(dtype_size(dst.dtype));
  if (w.ndim == 0 || w.run_step(0) != es) return nullptr;
  CopyRun run = nullptr;
  if (dst.dtype == src.dtype) {
    switch (es) {
      case 1: return &gather_run<1>;
      case 2: return &gather_run<2>;
      case 4: return &gather_run<4>;
      case 8: return &gather_run<8>;
      default: return nullptr;
    }
  }
  if (w.run_step(1) != static_cast<int64_t>(dtype_size(src.dtype))) return nullptr;
  with_fast_dtype(src.dtype, [&](auto sd) {
    with_fast_dtype(dst.dtype, [&](auto dd) { run = &cast_run<decltype(sd)::value, decltype(dd)::value>; });
  });
  return run;
}

// A transpose of the two innermost dims into a contiguous dst (src steps ES
// bytes along the rows, dst along the columns): gather_run would read one
// element of each src cache line per dst row and come back for the next
// element a whole dst row later. Tiles of 64 / ES rows x kTileCols columns
// read each src line once, whole, into a tile that stays in L1; few columns,
// as src columns a power of two apart share L1 sets. The tiles go down bands
// of kBandCols columns, so the src pages in use fit the TLB (measured on a
// 2-core AVX-512 box, 1 thread, f32: 2048^2 in 6.8 ms instead of 24 with
// runs or 12 without bands; 4096^2 in 33 instead of 50). Threads take bands
// of rows (transpose below).
constexpr int64_t kTileCols = 16;
constexpr int64_t kBandCols = 256;

template <int64_t ES>
void transpose_plane(char *d, const char *s, int64_t rows, int64_t cols, int64_t d_row, int64_t s_col) {
  constexpr int64_t kTileRows = 64 / ES;  // one src cache line per column
  for (int64_t b0 = 0; b0 < cols; b0 += kBandCols) {
    const int64_t b1 = std::min(cols, b0 + kBandCols);
    for (int64_t i0 = 0; i0 < rows; i0 += kTileRows) {
      const int64_t i1 = std::min(rows, i0 + kTileRows);
      for (int64_t j0 = b0; j0 < b1; j0 += kTileCols) {
        const int64_t j1 = std::min(b1, j0 + kTileCols);
        for (int64_t i = i0; i < i1; ++i)
          gather_run<ES>(d + i * d_row + j0 * ES, s + i * ES + j0 * s_col, j1 - j0, s_col);
      }
    }
  }
}

// The tiled transpose's plane loop when the walk is one (dst contiguous
// along the last dim, src along the one before), else null.
using PlaneFn = void (*)(char *, const char *, int64_t, int64_t, int64_t, int64_t);
PlaneFn transpose_of(const TensorDesc &dst, const TensorDesc &src, const Strided<2> &w) {
  const auto es = static_cast<int64_t>(dtype_size(dst.dtype));
  if (dst.dtype != src.dtype || w.ndim < 2 || w.st[0][w.ndim - 1] != es || w.st[1][w.ndim - 2] != es ||
      w.shape[w.ndim - 1] < kTileCols)
    return nullptr;
  switch (es) {
    case 1: return &transpose_plane<1>;
    case 2: return &transpose_plane<2>;
    case 4: return &transpose_plane<4>;
    case 8: return &transpose_plane<8>;
    default: return nullptr;
  }
}

// The planes of a transpose walk (one per index of its dims before the last
// two) cut into bands of rows, the bands spread over threads (each writes
// its own dst rows): as many as chunk_count asks for, or whole planes inline.
void transpose(const Strided<2> &w, PlaneFn plane, char *d, const char *s, int threads) {
  if (w.numel() == 0) return;
  const int last = w.ndim - 1;
  const int64_t rows = w.shape[last - 1], cols = w.shape[last], planes = w.numel() / (rows * cols);
  const int64_t chunks = chunk_count(w.numel(), threads);
  const int64_t bands = std::max<int64_t>(1, std::min(rows, (chunks + planes - 1) / planes));
  const int64_t height = ((rows + bands - 1) / bands + 15) / 16 * 16;  // whole tiles
  parallel_for(chunks <= 1 ? 1 : threads, planes * bands, [&](int64_t t) {
    int64_t p = t / bands, off[2] = {0, 0};
    for (int dim = last - 2; dim >= 0; --dim) {
      const int64_t i = p % w.shape[dim];
      p /= w.shape[dim];
      for (int k = 0; k < 2; ++k) off[k] += i * w.st[k][dim];
    }
    const int64_t r0 = (t % bands) * height, r1 = std::min(rows, r0 + height);
    if (r0 < r1)
      plane(d + off[0] + r0 * w.st[0][last - 1], s + off[1] + r0 * w.st[1][last - 1], r1 - r0, cols,
            w.st[0][last - 1], w.st[1][last]);
  });
}

}  // namespace

int copy(const TensorDesc &dst, const TensorDesc &src, void *, int threads) {
  if (!desc_valid(dst) || !desc_valid(src) || !desc_same_shape(dst, src)) return 1;
  Strided<2> w(dst.ndim, dst.shape, {&dst, &src});
  w.coalesce();
  char *d = static_cast<char *>(dst.data);
  const char *s = static_cast<const char *>(src.data);
  const size_t es = dtype_size(dst.dtype);
  if (const PlaneFn plane = transpose_of(dst, src, w)) {
    transpose(w, plane, d, s, threads);
    return 0;
  }
  if (CopyRun run = copy_run(dst, src, w)) {
    const int64_t step = w.run_step(1);
    const bool block = dst.dtype == src.dtype && step == static_cast<int64_t>(es);
    // Pieces are disjoint in dst and, as dst does not partially overlap src,
    // no piece reads what another writes: safe on any thread.
    parallel_runs(w, threads, [&](const int64_t *off, int64_t n) {
      if (block) std::memmove(d + off[0], s + off[1], static_cast<size_t>(n) * es);  // d == s allowed
      else run(d + off[0], s + off[1], n, step);
    });
    return 0;
  }
  if (dst.dtype == src.dtype) {  // same dtype: bytes move untouched (NaN payloads too)
    w.for_each([&](const int64_t *off, const int64_t *) { std::memcpy(d + off[0], s + off[1], es); });
    return 0;
  }
  w.for_each([&](const int64_t *off, const int64_t *) {
    detail::store_scalar(d + off[0], dst.dtype, detail::load_scalar(s + off[1], src.dtype));
  });
  return 0;
}

int fill(const TensorDesc &dst, uint64_t elem, void *) {
  if (!desc_valid(dst)) return 1;
  int64_t n = desc_numel(dst);
  if (n == 0) return 0;
  Strided<1> w(dst.ndim, dst.shape, {&dst});
  w.coalesce();
  char *d = static_cast<char *>(dst.data);
  const size_t es = dtype_size(dst.dtype);
  w.for_each([&](const int64_t *off, const int64_t *) { std::memcpy(d + off[0], &elem, es); });
  return 0;
}

int arange(const TensorDesc &dst, const RangePlan &p, void *) {
  if (!desc_valid(dst)) return 1;
  Strided<1> w(dst.ndim, dst.shape, {&dst});
  w.coalesce();  // C order is kept, so a count gives each element's index
  char *d = static_cast<char *>(dst.data);
  int64_t i = 0;
  w.for_each([&](const int64_t *off, const int64_t *) {
    detail::store_scalar(d + off[0], dst.dtype,
                         detail::range_scalar(p, i++));
  });
  return 0;
}

}  // namespace cpu
}  // namespace ek
