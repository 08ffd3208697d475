// Straightforward reference implementation: walk the index space in C order
// with an odometer and convert element by element through the shared rules in
// half.hpp. Clarity over speed; the CUDA backend is the fast one.
#include "cpu/copy.hpp"

#include <cstring>

#include "half.hpp"

namespace ek {
namespace cpu {
namespace {

// Advance a C-order multi-index; keeps byte offsets of up to two tensors in sync.
struct Odometer {
  int ndim;
  const int64_t *shape;
  int64_t idx[kMaxDims] = {};
  int64_t off[2] = {0, 0};
  int64_t step[2][kMaxDims] = {};  // byte stride per dim and tensor

  // Steps only to offsets of elements that exist: stepping past the last one
  // first could overflow int64 for a huge stride (found by fuzz_views).
  void next() {
    for (int d = ndim - 1; d >= 0; --d) {
      if (++idx[d] < shape[d]) {
        for (int t = 0; t < 2; ++t) off[t] += step[t][d];
        return;
      }
      for (int t = 0; t < 2; ++t) off[t] -= step[t][d] * (shape[d] - 1);
      idx[d] = 0;
    }
  }
};

Odometer make_odometer(const TensorDesc &a, const TensorDesc *b) {
  Odometer o;
  o.ndim = a.ndim;
  o.shape = a.shape;
  for (int d = 0; d < a.ndim; ++d) {
    o.step[0][d] = a.strides[d] * static_cast<int64_t>(dtype_size(a.dtype));
    if (b) o.step[1][d] = b->strides[d] * static_cast<int64_t>(dtype_size(b->dtype));
  }
  return o;
}

bool same_shape(const TensorDesc &a, const TensorDesc &b) {
  if (a.ndim != b.ndim) return false;
  for (int d = 0; d < a.ndim; ++d)
    if (a.shape[d] != b.shape[d]) return false;
  return true;
}

}  // namespace

int copy(const TensorDesc &dst, const TensorDesc &src, void *) {
  if (!desc_valid(dst) || !desc_valid(src) || !same_shape(dst, src)) return 1;
  int64_t n = desc_numel(dst);
  Odometer o = make_odometer(dst, &src);
  char *d = static_cast<char *>(dst.data);
  const char *s = static_cast<const char *>(src.data);
  const bool raw = dst.dtype == src.dtype;  // same dtype: bytes move untouched (NaN payloads too)
  const size_t es = dtype_size(dst.dtype);
  for (int64_t i = 0; i < n; ++i, o.next()) {
    if (raw)
      std::memcpy(d + o.off[0], s + o.off[1], es);
    else
      detail::store_scalar(d + o.off[0], dst.dtype, detail::load_scalar(s + o.off[1], src.dtype));
  }
  return 0;
}

int fill(const TensorDesc &dst, uint64_t elem, void *) {
  if (!desc_valid(dst)) return 1;
  int64_t n = desc_numel(dst);
  if (n == 0) return 0;
  Odometer o = make_odometer(dst, nullptr);
  char *d = static_cast<char *>(dst.data);
  for (int64_t i = 0; i < n; ++i, o.next()) std::memcpy(d + o.off[0], &elem, dtype_size(dst.dtype));
  return 0;
}

int arange(const TensorDesc &dst, double start, double step, int64_t istart, int64_t istep, void *) {
  if (!desc_valid(dst)) return 1;
  int64_t n = desc_numel(dst);
  Odometer o = make_odometer(dst, nullptr);
  char *d = static_cast<char *>(dst.data);
  for (int64_t i = 0; i < n; ++i, o.next())
    detail::store_scalar(d + o.off[0], dst.dtype, detail::arange_scalar(dst.dtype, i, start, step, istart, istep));
  return 0;
}

}  // namespace cpu
}  // namespace ek
