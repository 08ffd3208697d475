// CPU indexing loops: walk the iteration space in C order (cpu/strided.hpp),
// one element at a time, or one contiguous run at a time (gather_runs).
#include "cpu/indexing.hpp"

#include <cstring>

#include "cpu/strided.hpp"
#include "cpu/thread_pool.hpp"

namespace ek {
namespace cpu {
namespace {

char *at(const TensorDesc &t, int64_t elem_offset) {
  return static_cast<char *>(t.data) + elem_offset * static_cast<int64_t>(dtype_size(t.dtype));
}

uint64_t load_bits(const void *p, size_t es) {
  uint64_t v = 0;
  std::memcpy(&v, p, es);  // little-endian: the element is the low bytes
  return v;
}

// The index operands as descriptors over the iteration shape, for the walk.
void index_descs(const IndexPlan &p, TensorDesc *ix) {
  for (int k = 0; k < p.nindex; ++k) {
    ix[k] = TensorDesc{const_cast<void *>(p.index[k].data), p.index[k].dtype, p.dense.ndim, {}, {}};
    for (int d = 0; d < p.dense.ndim; ++d) ix[k].strides[d] = p.index[k].strides[d];
  }
}

// Target element's byte offset: off[1] over target.strides plus each index's
// position times its dim's stride (off[2 + k]: index k's element).
int64_t target_offset(const IndexPlan &p, const int64_t *off) {
  int64_t bytes = off[1];
  const auto es = static_cast<int64_t>(dtype_size(p.target.dtype));
  for (int k = 0; k < p.nindex; ++k) {
    const IndexOperand &ix = p.index[k];
    int64_t v = load_index(static_cast<const char *>(ix.data) + off[2 + k], ix.dtype);
    bytes += (v < 0 ? v + ix.size : v) * ix.step * es;
  }
  return bytes;
}

// Gathers whose innermost runs are contiguous in dense and target and
// constant in every index (index_select, a row gather): one memcpy per run,
// spread over threads (they write disjoint runs of dense).
template <typename W>
bool gather_runs(const IndexPlan &p, const W &w, int threads) {
  const auto es = static_cast<int64_t>(dtype_size(p.dense.dtype));
  if (p.kind != kIxGather || w.ndim == 0 || w.run_step(0) != es || w.run_step(1) != es) return false;
  for (int k = 0; k < p.nindex; ++k)
    if (w.run_step(2 + k) != 0) return false;
  const char *target = static_cast<const char *>(p.target.data);
  char *dense = static_cast<char *>(p.dense.data);
  parallel_runs(w, threads, [&](const int64_t *off, int64_t n) {
    std::memcpy(dense + off[0], target + target_offset(p, off), static_cast<size_t>(n * es));
  });
  return true;
}

}  // namespace

int64_t first_bad_index(const TensorDesc &index, int64_t size) {
  Strided<1> w(index.ndim, index.shape, {&index});
  w.coalesce();  // C order is kept, so a count gives each element's index
  const char *base = static_cast<const char *>(index.data);
  int64_t i = 0, bad = -1;
  w.for_each([&](const int64_t *off, const int64_t *) {
    int64_t v = load_index(base + off[0], index.dtype);
    if (bad < 0 && (v < -size || v >= size)) bad = i;
    ++i;
  });
  return bad;
}

int run_index(const IndexPlan &p, int threads) {
  if (!desc_valid(p.target) || !desc_valid(p.dense) || p.target.dtype != p.dense.dtype ||
      !desc_same_shape(p.target, p.dense) || p.nindex < 0 || p.nindex > kMaxDims || p.bad)
    return 1;
  const size_t es = dtype_size(p.dense.dtype);
  TensorDesc ix[kMaxDims];
  index_descs(p, ix);
  const TensorDesc *walked[2 + kMaxDims] = {&p.dense, &p.target};
  for (int k = 0; k < p.nindex; ++k) walked[2 + k] = &ix[k];
  Strided<2 + kMaxDims> w(p.dense.ndim, p.dense.shape, walked);
  w.coalesce();
  char *target = static_cast<char *>(p.target.data), *dense = static_cast<char *>(p.dense.data);
  if (gather_runs(p, w, threads)) return 0;
  w.for_each([&](const int64_t *off, const int64_t *) {
    char *t = target + target_offset(p, off);
    char *d = dense + off[0];
    if (p.kind == kIxGather) {
      std::memcpy(d, t, es);
    } else if (p.kind == kIxScatter) {
      std::memcpy(t, d, es);
    } else {
      uint64_t sum = add_element_bits(p.dense.dtype, load_bits(t, es), load_bits(d, es));
      std::memcpy(t, &sum, es);
    }
  });
  return 0;
}

int masked_fill(const MaskedFillPlan &p) {
  if (!desc_valid(p.dst) || !desc_valid(p.src) || !desc_valid(p.mask) ||
      p.dst.dtype != p.src.dtype || p.mask.dtype != kBool || !desc_same_shape(p.dst, p.src) ||
      !desc_same_shape(p.dst, p.mask))
    return 1;
  const size_t es = dtype_size(p.dst.dtype);
  Strided<3> w(p.dst.ndim, p.dst.shape, {&p.dst, &p.src, &p.mask});
  w.coalesce();
  char *dst = static_cast<char *>(p.dst.data);
  const char *src = static_cast<const char *>(p.src.data), *mask = static_cast<const char *>(p.mask.data);
  const char *value = reinterpret_cast<const char *>(&p.value);
  w.for_each([&](const int64_t *off, const int64_t *) {
    std::memcpy(dst + off[0], mask[off[2]] != 0 ? value : src + off[1], es);
  });
  return 0;
}

int64_t count_true(const uint8_t *mask, int64_t n) {
  int64_t count = 0;
  for (int64_t i = 0; i < n; ++i) count += mask[i] != 0 ? 1 : 0;
  return count;
}

namespace {

// masked_select of a contiguous source without a branch per element: each
// element is written to the next slot and the slot advances only when its
// mask is set, so an unselected one is overwritten by the next selected one;
// writing stops once `count` slots are filled (never past the end).
template <size_t ES>
void select_contiguous(char *out, int64_t out_step, const char *in, const uint8_t *mask, int64_t n,
                       int64_t count) {
  int64_t r = 0;
  for (int64_t i = 0; i < n && r < count; ++i) {
    std::memcpy(out + r * out_step, in + i * static_cast<int64_t>(ES), ES);
    r += mask[i] != 0;
  }
}

bool select_fast(const CompactPlan &p, const Strided<1> &w) {
  const auto es = static_cast<int64_t>(dtype_size(p.compact.dtype));
  if (p.kind != kCompactSelect || w.ndim != 1 || w.run_step(0) != es || p.compact.ndim < 1) return false;
  char *out = static_cast<char *>(p.compact.data);
  const char *in = static_cast<const char *>(p.dense.data);
  const int64_t step = p.compact.strides[0] * es, count = p.compact.shape[0];
  switch (es) {
    case 1: select_contiguous<1>(out, step, in, p.mask, p.n, count); return true;
    case 2: select_contiguous<2>(out, step, in, p.mask, p.n, count); return true;
    case 4: select_contiguous<4>(out, step, in, p.mask, p.n, count); return true;
    case 8: select_contiguous<8>(out, step, in, p.mask, p.n, count); return true;
    default: return false;
  }
}

}  // namespace

int compact_write(const CompactPlan &p) {
  if (p.n != desc_numel(p.dense) || p.dense.ndim < 0 || p.dense.ndim > kMaxDims ||
      !desc_valid(p.compact))
    return 1;
  const size_t es = dtype_size(p.compact.dtype);
  Strided<1> w(p.dense.ndim, p.dense.shape, {&p.dense});
  if (p.kind != kCompactNonzero) w.coalesce();  // nonzero writes the coordinates
  if (select_fast(p, w)) return 0;
  char *dense = static_cast<char *>(p.dense.data);
  int64_t i = 0, rank = 0;
  w.for_each([&](const int64_t *off, const int64_t *idx) {
    if (!p.mask[i++]) return;
    char *slot = at(p.compact, rank++ * p.compact.strides[0]);
    if (p.kind == kCompactSelect) {
      std::memcpy(slot, dense + off[0], es);
    } else if (p.kind == kCompactScatter) {
      std::memcpy(dense + off[0], slot, es);
    } else {
      for (int d = 0; d < p.dense.ndim; ++d) std::memcpy(slot + d * p.compact.strides[1] * 8, &idx[d], 8);
    }
  });
  return 0;
}

}  // namespace cpu
}  // namespace ek
