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

#include "util/half.hpp"
#include "ops/layout.hpp"

namespace ek {
namespace cpu {

// Strides are byte steps (st[k][d]: bytes per index of dim d in tensor k);
// coalesce() (layout.hpp) gives fewer, longer dims in the same C order, so a
// contiguous layout walks as one flat loop. Coordinates then refer to the
// merged dims: callers that read them do not coalesce.
template <int N>
struct Strided : Geometry<N> {
  using Geometry<N>::ndim;
  using Geometry<N>::shape;
  using Geometry<N>::st;

  // t[k] walks at its strides; a null t[k] (or one without data: an unused
  // operand) stays at offset 0. Each t[k] has at least ndim dims.
  Strided(int n, const int64_t *sizes, const TensorDesc *const (&t)[N]) {
    ndim = n;
    for (int d = 0; d < ndim; ++d) {
      shape[d] = sizes[d];
      for (int k = 0; k < N; ++k)
        st[k][d] = t[k] && t[k]->data ? t[k]->strides[d] * static_cast<int64_t>(dtype_size(t[k]->dtype)) : 0;
    }
  }

  // f(off, idx) for every element in C order: off[k] the byte offset of the
  // element in tensor k, idx its coordinates (ndim of them).
  template <typename F>
  void for_each(F &&f) const {
    if (this->numel() == 0) return;
    int64_t idx0[kMaxDims] = {}, off0[N] = {};
    if (ndim == 0) {
      f(static_cast<const int64_t *>(off0), static_cast<const int64_t *>(idx0));
      return;
    }
    const int last = ndim - 1;
    const int64_t n = shape[last];
    runs([&](const int64_t *off, int64_t *idx) {
      int64_t o[N];
      for (int k = 0; k < N; ++k) o[k] = off[k];
      for (idx[last] = 0;;) {  // the innermost dim as a flat loop
        f(static_cast<const int64_t *>(o), static_cast<const int64_t *>(idx));
        if (++idx[last] == n) break;
        for (int k = 0; k < N; ++k) o[k] += st[k][last];
      }
      idx[last] = 0;
    });
  }

  // g(off, n) for every run of the innermost dim in C order: off[k] the byte
  // offset of the run's first element in tensor k, n = shape[ndim - 1]
  // elements run_step(k) bytes apart. For ndim >= 1; the fast paths use it
  // to loop over a run with the step known per tensor.
  template <typename G>
  void for_each_run(G &&g) const {
    if (this->numel() == 0) return;
    const int64_t n = shape[ndim - 1];
    runs([&](const int64_t *off, int64_t *) { g(off, n); });
  }
  int64_t run_step(int k) const { return st[k][ndim - 1]; }

 private:
  // g(off, idx) at the start of every innermost run (ndim >= 1, numel > 0):
  // an odometer over the outer dims.
  template <typename G>
  void runs(G &&g) const {
    int64_t idx[kMaxDims] = {}, off[N] = {};
    for (;;) {
      g(static_cast<const int64_t *>(off), idx);
      int d = ndim - 2;
      for (; d >= 0; --d) {
        if (++idx[d] < shape[d]) {
          for (int k = 0; k < N; ++k) off[k] += st[k][d];
          break;
        }
        for (int k = 0; k < N; ++k) off[k] -= st[k][d] * (shape[d] - 1);
        idx[d] = 0;
      }
      if (d < 0) return;
    }
  }
};

// One line of a contiguous (outer, n, inner) block - the n elements along
// the reduced, scanned or softmax dim, stride bytes apart - loaded from in
// and stored to out. A line of an empty block may have null pointers; it is
// never read.
struct Line {
  const char *in;
  char *out;
  int64_t stride;
  int dtype;
  double f(int64_t k) const { return detail::load_scalar(in + k * stride, dtype).f; }
  int64_t i(int64_t k) const { return detail::load_scalar(in + k * stride, dtype).i; }
  void put(int64_t k, const detail::Scalar &v) const { detail::store_scalar(out + k * stride, dtype, v); }
};

}  // namespace cpu
}  // namespace ek
