// Plain loops: a C-order odometer keeps the byte offsets of out and the three
// operands in step; each element is loaded into the compute type, combined by
// the shared op (kernels/ternary.cuh) and stored. Clarity over speed.
#include "cpu/ternary.hpp"

namespace ek {
namespace cpu {
namespace {

constexpr int kSlots = 4;  // out, cond, x, y

struct Odometer {
  int ndim = 0;
  int64_t shape[kMaxDims] = {};
  int64_t idx[kMaxDims] = {};
  int64_t off[kSlots] = {};
  int64_t step[kSlots][kMaxDims] = {};  // byte strides; 0 for an unused operand

  void next() {
    for (int d = ndim - 1; d >= 0; --d) {
      for (int t = 0; t < kSlots; ++t) off[t] += step[t][d];
      if (++idx[d] < shape[d]) return;
      for (int t = 0; t < kSlots; ++t) off[t] -= step[t][d] * shape[d];
      idx[d] = 0;
    }
  }
};

bool matches_out(const TensorDesc &out, const TensorDesc &t) {
  if (t.data == nullptr) return true;  // unused operand
  if (!desc_valid(t) || t.ndim != out.ndim) return false;
  for (int d = 0; d < t.ndim; ++d)
    if (t.shape[d] != out.shape[d]) return false;
  return true;
}

template <typename T>
void loop(const tern::Args &g) {
  const TensorDesc *t[kSlots] = {&g.out, &g.cond, &g.x, &g.y};
  Odometer o;
  o.ndim = g.out.ndim;
  for (int d = 0; d < o.ndim; ++d) {
    o.shape[d] = g.out.shape[d];
    for (int k = 0; k < kSlots; ++k)
      o.step[k][d] = t[k]->data ? t[k]->strides[d] * int64_t(dtype_size(t[k]->dtype)) : 0;
  }
  char *out = static_cast<char *>(g.out.data);
  const char *pc = static_cast<const char *>(g.cond.data), *px = static_cast<const char *>(g.x.data),
             *py = static_cast<const char *>(g.y.data);
  const T c0 = tern::coeff<T>(g, 0), c1 = tern::coeff<T>(g, 1);
  const int64_t n = desc_numel(g.out);
  for (int64_t i = 0; i < n; ++i, o.next()) {
    const bool c = pc && tern::is_true(pc + o.off[1], g.cond.dtype);
    const T x = ew::load_as<T>(px + o.off[2], g.x.dtype);
    const T y = py ? ew::load_as<T>(py + o.off[3], g.y.dtype) : T(0);
    ew::store_as<T>(out + o.off[0], g.out.dtype, tern::apply<T>(g.op, c, x, y, c0, c1));
  }
}

}  // namespace

int ternary(const tern::Args &g) {
  if (!desc_valid(g.out) || g.x.data == nullptr || g.op < tern::kWhere || g.op > tern::kAxpby) return 1;
  if (!matches_out(g.out, g.cond) || !matches_out(g.out, g.x) || !matches_out(g.out, g.y)) return 1;
  switch (g.compute) {
    case ew::kCF32: loop<float>(g); return 0;
    case ew::kCF64: loop<double>(g); return 0;
    case ew::kCI64: loop<int64_t>(g); return 0;
    default: return 1;
  }
}

}  // namespace cpu
}  // namespace ek
