// CPU indexing loops: walk the iteration space in C order, one element at a
// time. Clarity over speed; the CUDA backend is the fast one.
#include "cpu/indexing.hpp"

#include <cstring>

namespace ek {
namespace cpu {
namespace {

// A C-order multi-index over a shape.
struct Coords {
  int ndim;
  const int64_t *shape;
  int64_t idx[kMaxDims] = {};

  Coords(int n, const int64_t *s) : ndim(n), shape(s) {}
  void next() {
    for (int d = ndim - 1; d >= 0; --d) {
      if (++idx[d] < shape[d]) return;
      idx[d] = 0;
    }
  }
  int64_t dot(const int64_t *strides) const {
    int64_t off = 0;
    for (int d = 0; d < ndim; ++d) off += idx[d] * strides[d];
    return off;
  }
};

char *at(const TensorDesc &t, int64_t elem_offset) {
  return static_cast<char *>(t.data) + elem_offset * static_cast<int64_t>(dtype_size(t.dtype));
}

uint64_t load_bits(const void *p, size_t es) {
  uint64_t v = 0;
  std::memcpy(&v, p, es);  // little-endian: the element is the low bytes
  return v;
}

bool same_shape(const TensorDesc &a, const TensorDesc &b) {
  if (a.ndim != b.ndim) return false;
  for (int d = 0; d < a.ndim; ++d)
    if (a.shape[d] != b.shape[d]) return false;
  return true;
}

// Target element offset of the iteration element at c.
int64_t target_offset(const IndexPlan &p, const Coords &c) {
  int64_t off = c.dot(p.target.strides);
  for (int k = 0; k < p.nindex; ++k) {
    const IndexOperand &ix = p.index[k];
    const int64_t elem = c.dot(ix.strides) * static_cast<int64_t>(dtype_size(ix.dtype));
    int64_t v = load_index(static_cast<const char *>(ix.data) + elem, ix.dtype);
    off += (v < 0 ? v + ix.size : v) * ix.step;
  }
  return off;
}

}  // namespace

int64_t first_bad_index(const TensorDesc &index, int64_t size) {
  const int64_t n = desc_numel(index);
  Coords c(index.ndim, index.shape);
  for (int64_t i = 0; i < n; ++i, c.next()) {
    int64_t v = load_index(at(index, c.dot(index.strides)), index.dtype);
    if (v < -size || v >= size) return i;
  }
  return -1;
}

int run_index(const IndexPlan &p) {
  if (!desc_valid(p.target) || !desc_valid(p.dense) || p.target.dtype != p.dense.dtype ||
      !same_shape(p.target, p.dense) || p.nindex < 0 || p.nindex > kMaxDims || p.bad)
    return 1;
  const size_t es = dtype_size(p.dense.dtype);
  const int64_t n = desc_numel(p.dense);
  Coords c(p.dense.ndim, p.dense.shape);
  for (int64_t i = 0; i < n; ++i, c.next()) {
    char *t = at(p.target, target_offset(p, c));
    char *d = at(p.dense, c.dot(p.dense.strides));
    if (p.kind == kIxGather) {
      std::memcpy(d, t, es);
    } else if (p.kind == kIxScatter) {
      std::memcpy(t, d, es);
    } else {
      uint64_t sum = add_element_bits(p.dense.dtype, load_bits(t, es), load_bits(d, es));
      std::memcpy(t, &sum, es);
    }
  }
  return 0;
}

int masked_fill(const MaskedFillPlan &p) {
  if (!desc_valid(p.dst) || !desc_valid(p.src) || !desc_valid(p.mask) ||
      p.dst.dtype != p.src.dtype || p.mask.dtype != kBool || !same_shape(p.dst, p.src) ||
      !same_shape(p.dst, p.mask))
    return 1;
  const size_t es = dtype_size(p.dst.dtype);
  const int64_t n = desc_numel(p.dst);
  Coords c(p.dst.ndim, p.dst.shape);
  for (int64_t i = 0; i < n; ++i, c.next()) {
    const bool on = *at(p.mask, c.dot(p.mask.strides)) != 0;
    std::memcpy(at(p.dst, c.dot(p.dst.strides)), on ? reinterpret_cast<const char *>(&p.value)
                                                    : at(p.src, c.dot(p.src.strides)),
                es);
  }
  return 0;
}

int64_t count_true(const uint8_t *mask, int64_t n) {
  int64_t count = 0;
  for (int64_t i = 0; i < n; ++i) count += mask[i] != 0;
  return count;
}

int compact_write(const CompactPlan &p) {
  if (p.n != desc_numel(p.dense) || p.dense.ndim < 0 || p.dense.ndim > kMaxDims ||
      !desc_valid(p.compact))
    return 1;
  const size_t es = dtype_size(p.compact.dtype);
  Coords c(p.dense.ndim, p.dense.shape);
  int64_t rank = 0;
  for (int64_t i = 0; i < p.n; ++i, c.next()) {
    if (!p.mask[i]) continue;
    char *slot = at(p.compact, rank * p.compact.strides[0]);
    if (p.kind == kCompactSelect) {
      std::memcpy(slot, at(p.dense, c.dot(p.dense.strides)), es);
    } else if (p.kind == kCompactScatter) {
      std::memcpy(at(p.dense, c.dot(p.dense.strides)), slot, es);
    } else {
      for (int d = 0; d < p.dense.ndim; ++d)
        std::memcpy(slot + d * p.compact.strides[1] * 8, &c.idx[d], 8);
    }
    ++rank;
  }
  return 0;
}

}  // namespace cpu
}  // namespace ek
