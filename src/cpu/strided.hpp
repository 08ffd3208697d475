// The one strided walk of the CPU backend: N tensors of one shape, visited in
// C order, their byte offsets from element 0 kept in step. Every CPU op that
// walks a strided layout uses it.
//
// The walk only ever forms offsets of elements that exist (each fits int64,
// as the layout's extent does): stepping past the end of a dim before rewinding
// it would overflow for a huge stride, such as a size-1 dim's or an empty
// tensor's (found by fuzz_views; shape [2,1] strides [1, INT64_MAX/4]).
#pragma once
#include <cstdint>

#include "tensor_desc.hpp"

namespace ek {
namespace cpu {

template <int N>
struct Strided {
  int ndim = 0;
  int64_t shape[kMaxDims] = {};
  int64_t step[N][kMaxDims] = {};  // bytes per index of each dim, per tensor

  // t[k] walks at step[k]; a null t[k] (or one without data: an unused
  // operand) stays at offset 0. Each t[k] has at least ndim dims.
  Strided(int n, const int64_t *sizes, const TensorDesc *const (&t)[N]) : ndim(n) {
    for (int d = 0; d < ndim; ++d) {
      shape[d] = sizes[d];
      for (int k = 0; k < N; ++k)
        step[k][d] = t[k] && t[k]->data
                         ? t[k]->strides[d] * static_cast<int64_t>(dtype_size(t[k]->dtype))
                         : 0;
    }
  }

  int64_t numel() const {
    int64_t n = 1;
    for (int d = 0; d < ndim; ++d) n *= shape[d];
    return n;
  }

  // Fewer, longer dims, same C order: size-1 dims dropped, a dim merged into
  // the next when every tensor steps over it as one run. A contiguous layout
  // becomes one dim, so the walk is a flat loop. Coordinates then refer to
  // the merged dims: callers that read them do not coalesce.
  void coalesce() {
    int m = 0;
    for (int d = 0; d < ndim; ++d) {
      if (shape[d] == 1) continue;
      if (m > 0 && mergeable(m - 1, d)) {
        shape[m - 1] *= shape[d];
        for (int k = 0; k < N; ++k) step[k][m - 1] = step[k][d];
        continue;
      }
      shape[m] = shape[d];
      for (int k = 0; k < N; ++k) step[k][m] = step[k][d];
      ++m;
    }
    ndim = m;
  }

  // f(off, idx) for every element in C order: off[k] the byte offset of the
  // element in tensor k, idx its coordinates (ndim of them).
  template <typename F>
  void for_each(F &&f) const {
    if (numel() == 0) return;
    int64_t idx[kMaxDims] = {}, off[N] = {};
    if (ndim == 0) {
      f(static_cast<const int64_t *>(off), static_cast<const int64_t *>(idx));
      return;
    }
    const int last = ndim - 1;
    const int64_t n = shape[last];
    for (;;) {
      int64_t o[N];
      for (int k = 0; k < N; ++k) o[k] = off[k];
      for (idx[last] = 0;;) {  // the innermost dim as a flat loop
        f(static_cast<const int64_t *>(o), static_cast<const int64_t *>(idx));
        if (++idx[last] == n) break;
        for (int k = 0; k < N; ++k) o[k] += step[k][last];
      }
      idx[last] = 0;
      int d = last - 1;  // odometer over the outer dims
      for (; d >= 0; --d) {
        if (++idx[d] < shape[d]) {
          for (int k = 0; k < N; ++k) off[k] += step[k][d];
          break;
        }
        for (int k = 0; k < N; ++k) off[k] -= step[k][d] * (shape[d] - 1);
        idx[d] = 0;
      }
      if (d < 0) return;
    }
  }

 private:
  // Dim a followed by dim b is one run for every tensor: a's step is b's
  // times b's size. A product that overflows is no step of an existing element.
  bool mergeable(int a, int b) const {
    for (int k = 0; k < N; ++k) {
      int64_t run = 0;
      if (__builtin_mul_overflow(step[k][b], shape[b], &run) || run != step[k][a]) return false;
    }
    return true;
  }
};

}  // namespace cpu
}  // namespace ek
