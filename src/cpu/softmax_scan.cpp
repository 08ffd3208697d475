// CPU softmax and scans: plain loops in double (int64 scans in uint64, so
// overflow wraps around without undefined behaviour), one line at a time.
#include "cpu/softmax_scan.hpp"

#include <cmath>

#include "cpu/strided.hpp"

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

// Every line of the block, read before written (in == out is safe).
template <typename Fn>
void each_line(const DimPlan &p, Fn fn) {
  const auto es = static_cast<int64_t>(dtype_size(p.dtype));
  const auto *in = static_cast<const char *>(p.in);
  auto *out = static_cast<char *>(p.out);
  for_each_line(p.outer, p.n, p.inner, es, [&](int64_t first, int64_t) {
    fn(Line{in + first, out + first, p.inner * es, p.dtype});
  });
}

}  // namespace

int softmax(const DimPlan &p, int kind) {
  if (!plan_valid(p, false) || (kind != kSoftmax && kind != kLogSoftmax)) return 1;
  each_line(p, [&](const Line &l) { softmax_line(l, p.n, kind); });
  return 0;
}

int scan(const DimPlan &p, int kind) {
  if (!plan_valid(p, true) || (kind != kCumSum && kind != kCumProd)) return 1;
  each_line(p, [&](const Line &l) { scan_line(l, p.n, kind); });
  return 0;
}

}  // namespace cpu
}  // namespace ek
