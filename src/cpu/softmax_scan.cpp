// CPU softmax and scans: plain loops in double (int64 scans in uint64, so
// overflow wraps around without undefined behaviour), one line at a time,
// lines spread over threads; contiguous float32 softmax rows take the vector
// kernel of cpu/simd.hpp.
#include "cpu/softmax_scan.hpp"

#include <algorithm>
#include <cmath>

#include "cpu/simd.hpp"
#include "cpu/strided.hpp"
#include "cpu/thread_pool.hpp"

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

void scan_line(const Line &l, int64_t n, int kind) {
  if (l.dtype == kI64 || l.dtype == kU64) {
    uint64_t acc = 0;
    for (int64_t k = 0; k < n; ++k) {
      auto v = static_cast<uint64_t>(l.i(k));
      acc = k == 0 ? v : (kind == kCumProd ? acc * v : acc + v);
      l.put(k, detail::scalar_int(static_cast<int64_t>(acc)));
    }
    return;
  }
  double acc = 0;  // starts from the first element: cumsum keeps a leading -0.0
  for (int64_t k = 0; k < n; ++k) {
    double v = l.f(k);
    acc = k == 0 ? v : (kind == kCumProd ? acc * v : acc + v);
    l.put(k, detail::scalar_float(acc));
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
  each_line(p, threads, [&](const Line &l) { scan_line(l, p.n, kind); });
  return 0;
}

}  // namespace cpu
}  // namespace ek
