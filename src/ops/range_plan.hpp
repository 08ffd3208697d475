// The plan of ek_arange and ek_linspace: element k of a 1-D range, computed
// the same way on the host and the device (the CUDA kernel takes the plan by
// value). Host and device results agree bit for bit: every float operation
// is one explicitly unfused IEEE operation.
#pragma once
#include <cstdint>

#include "util/half.hpp"

namespace ek {

struct RangePlan {
  int64_t count = 0;
  // Integer arange: istart + k * istep, exact (checked to fit).
  bool exact_int = false;
  int64_t istart = 0, istep = 0;
  // Otherwise, in double: start + k * step, or start + (k / div) * delta
  // where step underflowed to 0 (linspace, as NumPy's gh-5437 fix)...
  double start = 0, step = 0;
  bool scaled = false;
  double div = 1, delta = 0;
  // ... element `last` is stop exactly (linspace's endpoint; -1: none) ...
  int64_t last = -1;
  double stop = 0;
  // ... and rounded toward -inf (linspace to an integer dtype, as NumPy).
  bool floor = false;
};

// arange's plan for dtype: integer dtypes exact from istart and istep,
// float dtypes in double from start and step.
inline RangePlan arange_plan(int dtype, double start, double step, int64_t istart, int64_t istep) {
  RangePlan p;
  p.exact_int = !dtype_is_float(dtype);
  p.start = start;
  p.step = step;
  p.istart = istart;
  p.istep = istep;
  return p;
}

namespace detail {

#if defined(__CUDA_ARCH__)
EK_HD double mul_rn(double a, double b) { return __dmul_rn(a, b); }
EK_HD double div_rn(double a, double b) { return __ddiv_rn(a, b); }
#else
// volatile blocks -ffp-contract from fusing the product into the sum.
inline double mul_rn(double a, double b) { volatile double p = a * b; return p; }
inline double div_rn(double a, double b) { volatile double q = a / b; return q; }
#endif

EK_HD Scalar range_scalar(const RangePlan &p, int64_t k) {
  if (p.exact_int)  // wrap-around in uint64 avoids signed-overflow UB
    return scalar_int(static_cast<int64_t>(static_cast<uint64_t>(p.istart) +
                                           static_cast<uint64_t>(k) * static_cast<uint64_t>(p.istep)));
  double v = p.stop;
  if (k != p.last)
    v = p.start + (p.scaled ? mul_rn(div_rn(static_cast<double>(k), p.div), p.delta)
                            : mul_rn(static_cast<double>(k), p.step));
  return scalar_float(p.floor ? ::floor(v) : v);
}

}  // namespace detail
}  // namespace ek
