// CPU reductions: plain loops, floats in double with pairwise summation (the
// reference), integers in int64 with two's-complement wrap-around.
#include "cpu/reduce.hpp"

#include <algorithm>
#include <cmath>
#include <vector>

#include "cpu/strided.hpp"
#include "cpu/thread_pool.hpp"

namespace ek {
namespace cpu {
namespace {

using detail::Scalar;

// A summed element: v, |v|, v^2 or (v - c)^2 by the reduction's kind.
inline double map_value(double v, int kind, double c) {
  if (kind == kRSumAbs) return std::fabs(v);
  if (kind == kRSumSq) return v * v;
  if (kind == kRSumSqDev) return (v - c) * (v - c);
  return v;
}

double mapped(const Line &l, int64_t k, int kind, double c) { return map_value(l.f(k), kind, c); }

// Pairwise summation: blocks of 64 summed in order, halves combined
// recursively, so the rounding error grows with log(n), not n.
double pairwise(const Line &l, int64_t lo, int64_t hi, int kind, double c) {
  if (hi - lo <= 64) {
    double s = 0;
    for (int64_t k = lo; k < hi; ++k) s += mapped(l, k, kind, c);
    return s;
  }
  int64_t mid = lo + (hi - lo) / 2;
  return pairwise(l, lo, mid, kind, c) + pairwise(l, mid, hi, kind, c);
}

template <int DT>
double typed_at(const char *in, int64_t stride, int64_t k, int kind, double c) {
  return map_value(detail::load_scalar(in + k * stride, DT).f, kind, c);
}

// pairwise() with the dtype fixed at compile time: the same loads, the same
// order, no per-element dtype switch. A node of two leaves (65 to 128
// elements) sums both in one loop: each leaf still adds its elements in
// order, so the result is pairwise()'s bit for bit, but the two chains of
// dependent additions overlap instead of running one after the other.
template <int DT>
double pairwise_typed(const char *in, int64_t stride, int64_t lo, int64_t hi, int kind, double c) {
  const int64_t mid = lo + (hi - lo) / 2;
  if (hi - lo <= 64) {
    double s = 0;
    for (int64_t k = lo; k < hi; ++k) s += typed_at<DT>(in, stride, k, kind, c);
    return s;
  }
  if (hi - lo <= 128) {
    const int64_t na = mid - lo;  // the right leaf has na or na + 1 elements
    double a = 0, b = 0;
    for (int64_t k = 0; k < na; ++k) {
      a += typed_at<DT>(in, stride, lo + k, kind, c);
      b += typed_at<DT>(in, stride, mid + k, kind, c);
    }
    if (hi - mid > na) b += typed_at<DT>(in, stride, hi - 1, kind, c);
    return a + b;
  }
  return pairwise_typed<DT>(in, stride, lo, mid, kind, c) + pairwise_typed<DT>(in, stride, mid, hi, kind, c);
}

double pairwise_sum(const Line &l, int64_t lo, int64_t hi, int kind, double c) {
  switch (l.dtype) {
    case kF32: return pairwise_typed<kF32>(l.in, l.stride, lo, hi, kind, c);
    case kF64: return pairwise_typed<kF64>(l.in, l.stride, lo, hi, kind, c);
    case kF16: return pairwise_typed<kF16>(l.in, l.stride, lo, hi, kind, c);
    case kBF16: return pairwise_typed<kBF16>(l.in, l.stride, lo, hi, kind, c);
    default: return pairwise(l, lo, hi, kind, c);
  }
}

// The top `depth` levels of pairwise()'s tree over [lo, hi): its subranges
// at that depth (or its leaves, if shallower), left to right.
void split_tree(int64_t lo, int64_t hi, int depth, std::vector<int64_t> *bounds) {
  if (depth == 0 || hi - lo <= 64) {
    bounds->push_back(hi);
    return;
  }
  const int64_t mid = lo + (hi - lo) / 2;
  split_tree(lo, mid, depth - 1, bounds);
  split_tree(mid, hi, depth - 1, bounds);
}

// Adds the subranges' sums back up along the same tree, in the same order.
double join_tree(int64_t lo, int64_t hi, int depth, const double *sums, size_t *next) {
  if (depth == 0 || hi - lo <= 64) return sums[(*next)++];
  const int64_t mid = lo + (hi - lo) / 2;
  const double a = join_tree(lo, mid, depth - 1, sums, next);
  return a + join_tree(mid, hi, depth - 1, sums, next);
}

// pairwise_sum over one long line on several threads: the subtrees below a
// fixed depth are summed in parallel and joined in pairwise()'s order, so
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

}  // namespace

int reduce(const ReducePlan &p, int threads) {
  if (!plan_valid(p)) return 1;
  const auto es = static_cast<int64_t>(dtype_size(p.in_dtype));
  const auto *in = static_cast<const char *>(p.in);
  const auto out_es = static_cast<int64_t>(dtype_size(p.out_dtype));
  const bool arg = p.kind == kRArgMax || p.kind == kRArgMin;
  char *out = static_cast<char *>(p.out);
  const int64_t lines = p.outer * p.inner;
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
