// CPU reductions: plain loops, floats in double with pairwise summation (the
// reference), integers in int64 with two's-complement wrap-around.
#include "cpu/reduce.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include "cpu/simd.hpp"
#include "cpu/strided.hpp"
#include "cpu/thread_pool.hpp"

namespace ek {
namespace cpu {
namespace {

using detail::Scalar;

// One leaf of a line's sum (cpu/simd.hpp: the order), through the ISA
// level's kernel: a contiguous run, or a strided one as a single column.
double leaf_sum(const Line &l, int64_t lo, int64_t hi, int kind, double c) {
  const simd::Kernels &k = simd::kernels();
  const int slot = simd::dtype_slot(l.dtype);
  const auto es = static_cast<int64_t>(dtype_size(l.dtype));
  if (l.stride == es) return k.leaf[slot][kind](l.in + lo * es, hi - lo, c);
  double acc[simd::kLanes], res;
  k.rows_leaf[slot][kind](l.in + lo * l.stride, l.stride, hi - lo, 1, &c, acc, &res);
  return res;
}

// Pairwise summation over [lo, hi): halves summed recursively and added,
// leaves of at most kLeaf elements summed in lanes (cpu/simd.hpp).
double pairwise_sum(const Line &l, int64_t lo, int64_t hi, int kind, double c) {
  if (hi - lo <= simd::kLeaf) return leaf_sum(l, lo, hi, kind, c);
  const int64_t mid = lo + (hi - lo) / 2;
  return pairwise_sum(l, lo, mid, kind, c) + pairwise_sum(l, mid, hi, kind, c);
}

// The top `depth` levels of pairwise_sum's tree over [lo, hi): its subranges
// at that depth (or its leaves, if shallower), left to right.
void split_tree(int64_t lo, int64_t hi, int depth, std::vector<int64_t> *bounds) {
  if (depth == 0 || hi - lo <= simd::kLeaf) {
    bounds->push_back(hi);
    return;
  }
  const int64_t mid = lo + (hi - lo) / 2;
  split_tree(lo, mid, depth - 1, bounds);
  split_tree(mid, hi, depth - 1, bounds);
}

// Adds the subranges' sums back up along the same tree, in the same order.
double join_tree(int64_t lo, int64_t hi, int depth, const double *sums, size_t *next) {
  if (depth == 0 || hi - lo <= simd::kLeaf) return sums[(*next)++];
  const int64_t mid = lo + (hi - lo) / 2;
  const double a = join_tree(lo, mid, depth - 1, sums, next);
  return a + join_tree(mid, hi, depth - 1, sums, next);
}

// pairwise_sum over one long line on several threads: the subtrees below a
// fixed depth are summed in parallel and joined in pairwise_sum's order, so
// the result is the single-threaded one, bit for bit, for any thread count.
double parallel_pairwise_sum(const Line &l, int64_t n, int kind, double c, int threads) {
  const int64_t chunks = chunk_count(n, threads);
  if (chunks <= 1) return pairwise_sum(l, 0, n, kind, c);
  int depth = 0;
  while ((int64_t(1) << depth) < chunks) ++depth;
  std::vector<int64_t> bounds{0};
  split_tree(0, n, depth, &bounds);
  std::vector<double> sums(bounds.size() - 1);
  parallel_for(threads, static_cast<int64_t>(sums.size()),
               [&](int64_t i) { sums[i] = pairwise_sum(l, bounds[i], bounds[i + 1], kind, c); });
  size_t next = 0;
  return join_tree(0, n, depth, sums.data(), &next);
}

// The sums of w lines side by side (a reduction over a non-innermost dim):
// each line summed in pairwise_sum's order, bit for bit, but a leaf adds
// whole rows of w elements into lane vectors, so the loads are contiguous.
class ColumnSums {
 public:
  ColumnSums(const ReducePlan &p, int64_t w) : p_(p), w_(w), es_(dtype_size(p.in_dtype)) {
    int levels = 1;  // the tree's depth, at least
    for (int64_t n = p.r; n > simd::kLeaf; n = n - n / 2) ++levels;
    scratch_.resize(static_cast<size_t>((simd::kLanes + levels + 1) * w));
    leaf_ = simd::kernels().rows_leaf[simd::dtype_slot(p.in_dtype)][p.kind];
  }
  // Lines first .. first + w - 1 (index o * inner + i) of outer slice o, their
  // first elements at byte offset `at`; the sums go to res() (w of them).
  const double *sums(int64_t at, const double *c) {
    tree(static_cast<const char *>(p_.in) + at, 0, p_.r, c, scratch_.data() + simd::kLanes * w_, 0);
    return scratch_.data() + simd::kLanes * w_;
  }

 private:
  void tree(const char *in, int64_t lo, int64_t hi, const double *c, double *res, int level) {
    const int64_t row = p_.inner * es_;
    if (hi - lo <= simd::kLeaf) {
      leaf_(in + lo * row, row, hi - lo, w_, c, scratch_.data(), res);
      return;
    }
    const int64_t mid = lo + (hi - lo) / 2;
    double *right = scratch_.data() + (simd::kLanes + level + 1) * w_;
    tree(in, lo, mid, c, res, level + 1);
    tree(in, mid, hi, c, right, level + 1);
    for (int64_t i = 0; i < w_; ++i) res[i] += right[i];
  }

  const ReducePlan &p_;
  int64_t w_;
  int64_t es_;
  simd::RowsLeafFn leaf_;
  std::vector<double> scratch_;
};

bool is_nan(double v) { return v != v; }

// NaN-propagating extremum; b replaces a when it is "better".
double extremum(const Line &l, int64_t n, int kind) {
  double a = 0;
  for (int64_t k = 0; k < n; ++k) {
    double v = l.f(k);
    if (kind == kRMaxAbs) v = std::fabs(v);
    bool better = kind == kRMin ? v < a : v > a;
    if (k == 0 || is_nan(v) || (!is_nan(a) && better)) a = v;
    if (is_nan(a)) break;
  }
  return a;
}

int64_t extremum_int(const Line &l, int64_t n, int kind) {
  int64_t a = 0;
  for (int64_t k = 0; k < n; ++k) {
    int64_t v = l.i(k);
    if (k == 0 || (kind == kRMin ? v < a : v > a)) a = v;
  }
  return a;
}

// First index of the max (min); NaN wins at its first occurrence.
int64_t arg_index(const Line &l, int64_t n, int kind) {
  int64_t best = 0;
  if (l.dtype == kI64) {
    for (int64_t k = 1; k < n; ++k)
      if (kind == kRArgMin ? l.i(k) < l.i(best) : l.i(k) > l.i(best)) best = k;
    return best;
  }
  for (int64_t k = 1; k < n && !is_nan(l.f(best)); ++k) {
    double v = l.f(k), b = l.f(best);
    if (is_nan(v) || (kind == kRArgMin ? v < b : v > b)) best = k;
  }
  return best;
}

Scalar reduce_float(const Line &l, const ReducePlan &p, double c, int threads) {
  switch (p.kind) {
    case kRProd: {
      double a = 1;
      for (int64_t k = 0; k < p.r; ++k) a *= l.f(k);
      return detail::scalar_float(a);
    }
    case kRMax: case kRMin: case kRMaxAbs: return detail::scalar_float(extremum(l, p.r, p.kind));
    default: return detail::scalar_float(parallel_pairwise_sum(l, p.r, p.kind, c, threads));
  }
}

Scalar reduce_int(const Line &l, const ReducePlan &p) {
  if (p.kind == kRMax || p.kind == kRMin) return detail::scalar_int(extremum_int(l, p.r, p.kind));
  uint64_t a = p.kind == kRProd ? 1 : 0;  // unsigned: wrap-around without UB
  for (int64_t k = 0; k < p.r; ++k) {
    auto v = static_cast<uint64_t>(l.i(k));
    a = p.kind == kRProd ? a * v : a + v;
  }
  return detail::scalar_int(static_cast<int64_t>(a));
}

// divisor/sqrt apply to float results only (mean, norms, var are float-only).
Scalar finish(Scalar v, const ReducePlan &p) {
  if (!v.is_float) return v;
  v.f /= p.divisor;
  if (p.take_sqrt) v.f = std::sqrt(v.f);
  return v;
}

bool plan_valid(const ReducePlan &p) {
  bool dtype_ok = p.in_dtype == kF16 || p.in_dtype == kBF16 || p.in_dtype == kF32 ||
                  p.in_dtype == kF64 || p.in_dtype == kI64;
  return dtype_ok && p.outer >= 0 && p.r >= 0 && p.inner >= 0 && p.kind >= kRSum &&
         p.kind <= kRArgMin && (p.kind != kRSumSqDev || p.center) &&
         (p.in || p.outer * p.r * p.inner == 0);
}

bool is_sum_kind(int kind) { return kind >= kRSum && kind <= kRSumSqDev; }

// A float sum over a non-innermost dim: tiles of lines side by side
// (ColumnSums), the tiles spread over threads. A line's order does not depend
// on its tile, so the width only trades long contiguous row reads (up to
// 2048 elements) against enough tiles for every thread.
void reduce_columns(const ReducePlan &p, int threads) {
  const int64_t per_thread = (p.inner + threads - 1) / std::max(threads, 1);  // lines
  const int64_t tile = std::max<int64_t>(256, std::min<int64_t>(2048, (per_thread + 63) / 64 * 64));
  const int64_t tiles = (p.inner + tile - 1) / tile, tasks = p.outer * tiles;
  const auto es = static_cast<int64_t>(dtype_size(p.in_dtype));
  const auto out_es = static_cast<int64_t>(dtype_size(p.out_dtype));
  const int64_t chunks = std::min(chunk_count(p.outer * p.r * p.inner, threads), tasks);
  parallel_for(threads, chunks, [&](int64_t chunk) {
    const int64_t q = tasks / chunks, rem = tasks % chunks;
    const int64_t lo = q * chunk + std::min(chunk, rem), hi = lo + q + (chunk < rem ? 1 : 0);
    for (int64_t t = lo; t < hi; ++t) {
      const int64_t o = t / tiles, i0 = (t % tiles) * tile, w = std::min(tile, p.inner - i0);
      const int64_t first = o * p.inner + i0;  // the first line's index
      ColumnSums cols(p, w);
      const double *sums = cols.sums((o * p.r * p.inner + i0) * es, p.center ? p.center + first : nullptr);
      for (int64_t i = 0; i < w; ++i)
        detail::store_scalar(static_cast<char *>(p.out) + (first + i) * out_es, p.out_dtype,
                             finish(detail::scalar_float(sums[i]), p));
    }
  });
}

}  // namespace

int reduce(const ReducePlan &p, int threads) {
  if (!plan_valid(p)) return 1;
  const auto es = static_cast<int64_t>(dtype_size(p.in_dtype));
  const auto *in = static_cast<const char *>(p.in);
  const auto out_es = static_cast<int64_t>(dtype_size(p.out_dtype));
  const bool arg = p.kind == kRArgMax || p.kind == kRArgMin;
  char *out = static_cast<char *>(p.out);
  const int64_t lines = p.outer * p.inner;
  if (p.inner > 1 && p.r > 0 && p.in_dtype != kI64 && is_sum_kind(p.kind)) {
    reduce_columns(p, threads);
    return 0;
  }
  // One line: its sum may split over threads (parallel_pairwise_sum). Many:
  // each line on one thread, whole lines per chunk; lines are independent.
  const int line_threads = lines == 1 ? threads : 1;
  auto line = [&](int64_t idx) {
    const int64_t first = ((idx / p.inner) * p.r * p.inner + idx % p.inner) * es;
    // An empty input may have no storage (in == nullptr; p.r == 0 then):
    // no arithmetic on a null pointer, the line is never read.
    const Line l{in ? in + first : in, nullptr, p.inner * es, p.in_dtype};
    if (arg) {
      const int64_t best = arg_index(l, p.r, p.kind);
      if (p.indices) p.indices[idx] = best;
      if (out)
        detail::store_scalar(out + idx * out_es, p.out_dtype, detail::load_scalar(l.in + best * l.stride, p.in_dtype));
      return;
    }
    const double c = p.center ? p.center[idx] : 0.0;
    const Scalar v = p.in_dtype == kI64 ? reduce_int(l, p) : reduce_float(l, p, c, line_threads);
    detail::store_scalar(out + idx * out_es, p.out_dtype, finish(v, p));
  };
  const int64_t chunks = lines > 1 ? std::min(chunk_count(lines * p.r, threads), lines) : 1;
  parallel_for(threads, chunks, [&](int64_t c) {
    const int64_t q = lines / chunks, rem = lines % chunks;
    const int64_t lo = q * c + std::min(c, rem), hi = lo + q + (c < rem ? 1 : 0);
    for (int64_t idx = lo; idx < hi; ++idx) line(idx);
  });
  return 0;
}

}  // namespace cpu
}  // namespace ek
