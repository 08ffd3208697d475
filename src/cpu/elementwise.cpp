// Plain loops: a C-order odometer keeps the byte offsets of out and the
// operands in step; each element is loaded into the compute type, transformed
// by the shared op switch and stored. Clarity over speed.
#include "cpu/elementwise.hpp"

namespace ek {
namespace cpu {
namespace {

struct Odometer {
  int ndim = 0;
  int64_t shape[kMaxDims] = {};
  int64_t idx[kMaxDims] = {};
  int64_t off[3] = {0, 0, 0};
  int64_t step[3][kMaxDims] = {};  // byte strides of out, a, b

  void next() {
    for (int d = ndim - 1; d >= 0; --d) {
      for (int t = 0; t < 3; ++t) off[t] += step[t][d];
      if (++idx[d] < shape[d]) return;
      for (int t = 0; t < 3; ++t) off[t] -= step[t][d] * shape[d];
      idx[d] = 0;
    }
  }
};

bool same_shape(const TensorDesc &a, const TensorDesc &b) {
  if (a.ndim != b.ndim) return false;
  for (int d = 0; d < a.ndim; ++d)
    if (a.shape[d] != b.shape[d]) return false;
  return true;
}

// Validates out and the tensor operands (nb of them, a scalar excluded).
bool valid(const ew::Args &g, bool has_b) {
  if (!desc_valid(g.out)) return false;
  const bool use_a = g.scalar != ew::kScalarA, use_b = has_b && g.scalar != ew::kScalarB;
  if (use_a && (!desc_valid(g.a) || !same_shape(g.out, g.a))) return false;
  if (use_b && (!desc_valid(g.b) || !same_shape(g.out, g.b))) return false;
  return true;
}

Odometer make_odometer(const ew::Args &g) {
  Odometer o;
  o.ndim = g.out.ndim;
  const TensorDesc *t[3] = {&g.out, &g.a, &g.b};
  for (int d = 0; d < o.ndim; ++d) {
    o.shape[d] = g.out.shape[d];
    for (int k = 0; k < 3; ++k)
      o.step[k][d] = t[k]->data ? t[k]->strides[d] * int64_t(dtype_size(t[k]->dtype)) : 0;
  }
  return o;
}

template <typename T>
void unary_loop(const ew::Args &g) {
  Odometer o = make_odometer(g);
  char *out = static_cast<char *>(g.out.data);
  const char *x = static_cast<const char *>(g.a.data);
  const int64_t n = desc_numel(g.out);
  for (int64_t i = 0; i < n; ++i, o.next())
    ew::store_as<T>(out + o.off[0], g.out.dtype, ew::unary_op<T>(g.op, ew::load_as<T>(x + o.off[1], g.a.dtype)));
}

template <typename T>
void binary_loop(const ew::Args &g) {
  Odometer o = make_odometer(g);
  char *out = static_cast<char *>(g.out.data);
  const char *pa = static_cast<const char *>(g.a.data), *pb = static_cast<const char *>(g.b.data);
  const T s = ew::scalar_as<T>(g);
  const int64_t n = desc_numel(g.out);
  for (int64_t i = 0; i < n; ++i, o.next()) {
    T a = g.scalar == ew::kScalarA ? s : ew::load_operand<T>(pa + o.off[1], g.a.dtype, g.round);
    T b = g.scalar == ew::kScalarB ? s : ew::load_operand<T>(pb + o.off[2], g.b.dtype, g.round);
    ew::store_as<T>(out + o.off[0], g.out.dtype, ew::binary_op<T>(g.op, a, b));
  }
}

}  // namespace

int unary(const ew::Args &g) {
  if (!valid(g, false)) return 1;
  switch (g.compute) {
    case ew::kCF32: unary_loop<float>(g); return 0;
    case ew::kCF64: unary_loop<double>(g); return 0;
    case ew::kCI64: unary_loop<int64_t>(g); return 0;
    default: return 1;
  }
}

int binary(const ew::Args &g) {
  if (!valid(g, true)) return 1;
  switch (g.compute) {
    case ew::kCF32: binary_loop<float>(g); return 0;
    case ew::kCF64: binary_loop<double>(g); return 0;
    case ew::kCI64: binary_loop<int64_t>(g); return 0;
    default: return 1;
  }
}

}  // namespace cpu
}  // namespace ek
