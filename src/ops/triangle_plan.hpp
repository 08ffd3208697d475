// The plan of ek_tril and ek_triu, which both backends run in one pass.
#pragma once
#include <cstdint>

#include "ops/tensor_desc.hpp"

namespace ek {

// Over the last two dims (row i, column j) of dst and src (same shape and
// dtype, ndim >= 2, any strides): dst = src where the element is kept (lower:
// j - i <= k; upper: j - i >= k), 0 elsewhere. k is clamped to [-rows, cols],
// which keeps or drops the same elements and keeps i + k within int64.
// in_place: dst is src, so kept elements are not rewritten.
struct TrianglePlan {
  TensorDesc dst, src;
  int64_t k = 0;
  bool lower = true;
  bool in_place = false;
};

// The columns [lo, hi) of row i that a plan keeps.
inline void triangle_kept(const TrianglePlan &p, int64_t i, int64_t cols, int64_t *lo, int64_t *hi) {
  const int64_t edge = i + p.k;  // the diagonal's column in row i
  *lo = p.lower ? 0 : (edge < 0 ? 0 : (edge > cols ? cols : edge));
  *hi = p.lower ? (edge + 1 < 0 ? 0 : (edge + 1 > cols ? cols : edge + 1)) : cols;
}

}  // namespace ek
