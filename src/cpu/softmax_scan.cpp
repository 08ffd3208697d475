// CPU softmax and scans: plain loops in double (int64 scans in uint64, so
// overflow wraps around without undefined behaviour), lines spread over
// threads; contiguous float32 softmax rows take the vector kernel of
// cpu/simd.hpp, scans over a non-innermost dim go row by row.
#include "cpu/softmax_scan.hpp"

#include <algorithm>
#include <cmath>
#include <type_traits>

#include "cpu/simd.hpp"
#include "cpu/strided.hpp"
#include "cpu/thread_pool.hpp"
#include "cpu/typed.hpp"

namespace ek {
namespace cpu {
namespace {

// max - NaN-propagating - then the sum of exp(x - max). A row of -inf has
// max -inf, x - max NaN, hence NaN everywhere (as PyTorch).
void softmax_line(const Line &l, int64_t n, int kind) {
  double m = -INFINITY;
  for (int64_t k = 0; k < n; ++k) {
    double v = l.f(k);
    if (v > m || v != v) m = v;
    if (m != m) break;
  }
  double s = 0;
  for (int64_t k = 0; k < n; ++k) s += std::exp(l.f(k) - m);
  const double log_s = std::log(s);
  for (int64_t k = 0; k < n; ++k) {
    double d = l.f(k) - m;
    l.put(k, detail::scalar_float(kind == kLogSoftmax ? d - log_s : std::exp(d) / s));
  }
}

// Scans: a line's running value from its first element (cumsum keeps a
// leading -0.0), floats in double, int64/uint64 in uint64 (wrapping without
// undefined behaviour). The dtype and the op are template arguments, so the
// loops hold no per-element dispatch: a contiguous line is one dependent
// add (or multiply) per element, as NumPy's loop.
template <int DT>
using ScanAcc = typename std::conditional<DT == kI64 || DT == kU64, uint64_t, double>::type;

template <int DT>
inline ScanAcc<DT> scan_get(const char *p) {
  if constexpr (DT == kI64 || DT == kU64) return static_cast<uint64_t>(detail::load_scalar(p, DT).i);
  else return detail::load_scalar(p, DT).f;
}
template <int DT>
inline void scan_put(char *p, ScanAcc<DT> a) {
  if constexpr (DT == kI64 || DT == kU64) detail::store_scalar(p, DT, detail::scalar_int(static_cast<int64_t>(a)));
  else detail::store_scalar(p, DT, detail::scalar_float(a));
}
template <int KIND, typename A>
inline A scan_step(A acc, A v) {
  return KIND == kCumProd ? acc * v : acc + v;
}

// One contiguous line of n >= 1 elements (in may be out).
template <int DT, int KIND>
void scan_run(const char *in, char *out, int64_t n) {
  constexpr int64_t es = kSize<DT>;
  ScanAcc<DT> acc = scan_get<DT>(in);
  scan_put<DT>(out, acc);
  for (int64_t k = 1; k < n; ++k) {
    acc = scan_step<KIND>(acc, scan_get<DT>(in + k * es));
    scan_put<DT>(out + k * es, acc);
  }
}

// w lines side by side (a scan over a non-innermost dim): element k of line
// j at k * row + j * es. Row after row, each line's running value in acc[j]:
// contiguous loads and stores, each line's own order.
template <int DT, int KIND>
void scan_rows(const char *in, char *out, int64_t n, int64_t row, int64_t w, ScanAcc<DT> *acc) {
  constexpr int64_t es = kSize<DT>;
  for (int64_t j = 0; j < w; ++j) scan_put<DT>(out + j * es, acc[j] = scan_get<DT>(in + j * es));
  for (int64_t k = 1; k < n; ++k)
    for (int64_t j = 0; j < w; ++j) {
      acc[j] = scan_step<KIND>(acc[j], scan_get<DT>(in + k * row + j * es));
      scan_put<DT>(out + k * row + j * es, acc[j]);
    }
}

// f(integral_constant<DT>) for the dtypes a scan takes.
template <typename F>
void with_scan_dtype(int dtype, F &&f) {
  switch (dtype) {
    case kF16: f(std::integral_constant<int, kF16>()); break;
    case kBF16: f(std::integral_constant<int, kBF16>()); break;
    case kF32: f(std::integral_constant<int, kF32>()); break;
    case kF64: f(std::integral_constant<int, kF64>()); break;
    case kI64: f(std::integral_constant<int, kI64>()); break;
    default: f(std::integral_constant<int, kU64>()); break;  // plan_valid: no other
  }
}

bool plan_valid(const DimPlan &p, bool allow_int) {
  bool dtype_ok = dtype_is_float(p.dtype) || (allow_int && (p.dtype == kI64 || p.dtype == kU64));
  bool empty = p.outer * p.n * p.inner == 0;
  return dtype_ok && p.outer >= 0 && p.n >= 0 && p.inner >= 0 && (empty || (p.in && p.out));
}

// Every line of the block, read before written (in == out is safe); the
// lines spread over threads (each is independent of the others).
template <typename Fn>
void each_line(const DimPlan &p, int threads, Fn fn) {
  const auto es = static_cast<int64_t>(dtype_size(p.dtype));
  const auto *in = static_cast<const char *>(p.in);
  auto *out = static_cast<char *>(p.out);
  const int64_t lines = p.outer * p.inner;
  const int64_t chunks = lines > 1 ? std::min(chunk_count(lines * p.n, threads), lines) : 1;
  parallel_for(threads, chunks, [&](int64_t c) {
    const int64_t q = lines / chunks, rem = lines % chunks;
    const int64_t lo = q * c + std::min(c, rem), hi = lo + q + (c < rem ? 1 : 0);
    for (int64_t idx = lo; idx < hi; ++idx) {
      const int64_t first = ((idx / p.inner) * p.n * p.inner + idx % p.inner) * es;
      fn(Line{in + first, out + first, p.inner * es, p.dtype});
    }
  });
}

// The lines of the block in tiles of up to kTile side by side (lines o *
// inner + i0 .. + w - 1, contiguous in each row), tiles spread over threads;
// fn(in, out, w) for each. A line's result does not depend on its tile.
constexpr int64_t kTile = 512;
template <typename Fn>
void each_tile(const DimPlan &p, int threads, Fn fn) {
  const auto es = static_cast<int64_t>(dtype_size(p.dtype));
  const int64_t tiles = (p.inner + kTile - 1) / kTile, tasks = p.outer * tiles;
  const int64_t chunks = std::min(chunk_count(p.outer * p.n * p.inner, threads), tasks);
  parallel_for(threads, chunks, [&](int64_t c) {
    const int64_t q = tasks / chunks, rem = tasks % chunks;
    const int64_t lo = q * c + std::min(c, rem), hi = lo + q + (c < rem ? 1 : 0);
    for (int64_t t = lo; t < hi; ++t) {
      const int64_t o = t / tiles, i0 = (t % tiles) * kTile;
      const int64_t at = (o * p.n * p.inner + i0) * es;
      fn(static_cast<const char *>(p.in) + at, static_cast<char *>(p.out) + at, std::min(kTile, p.inner - i0));
    }
  });
}

}  // namespace

int softmax(const DimPlan &p, int kind, int threads) {
  if (!plan_valid(p, false) || (kind != kSoftmax && kind != kLogSoftmax)) return 1;
  if (p.dtype == kF32 && p.inner == 1) {  // contiguous float32 rows: the vector kernel
    const simd::SoftmaxF32Fn row = simd::kernels().softmax_f32;
    each_line(p, threads, [&](const Line &l) {
      row(reinterpret_cast<float *>(l.out), reinterpret_cast<const float *>(l.in), p.n, kind == kLogSoftmax);
    });
    return 0;
  }
  each_line(p, threads, [&](const Line &l) { softmax_line(l, p.n, kind); });
  return 0;
}

int scan(const DimPlan &p, int kind, int threads) {
  if (!plan_valid(p, true) || (kind != kCumSum && kind != kCumProd)) return 1;
  if (p.outer * p.n * p.inner == 0) return 0;
  with_scan_dtype(p.dtype, [&](auto dt) {
    constexpr int DT = decltype(dt)::value;
    if (p.inner == 1) {
      auto run = kind == kCumSum ? &scan_run<DT, kCumSum> : &scan_run<DT, kCumProd>;
      each_line(p, threads, [&](const Line &l) { run(l.in, l.out, p.n); });
    } else {
      auto rows = kind == kCumSum ? &scan_rows<DT, kCumSum> : &scan_rows<DT, kCumProd>;
      each_tile(p, threads, [&](const char *in, char *out, int64_t w) {
        ScanAcc<DT> acc[kTile];
        rows(in, out, p.n, p.inner * kSize<DT>, w, acc);
      });
    }
  });
  return 0;
}

}  // namespace cpu
}  // namespace ek
