// Plain loops: the C-order walk of cpu/strided.hpp keeps the byte offsets of
// out and the operands in step; each element is loaded into the compute type,
// transformed by the shared op switch and stored.
#include "cpu/elementwise.hpp"

#include "cpu/strided.hpp"

namespace ek {
namespace cpu {
namespace {

// Validates out and the tensor operands (nb of them, a scalar excluded).
bool valid(const ew::Args &g, bool has_b) {
  if (!desc_valid(g.out)) return false;
  const bool use_a = g.scalar != ew::kScalarA, use_b = has_b && g.scalar != ew::kScalarB;
  if (use_a && (!desc_valid(g.a) || !desc_same_shape(g.out, g.a))) return false;
  if (use_b && (!desc_valid(g.b) || !desc_same_shape(g.out, g.b))) return false;
  return true;
}

Strided<3> walk_of(const ew::Args &g) {
  Strided<3> w(g.out.ndim, g.out.shape, {&g.out, &g.a, &g.b});
  w.coalesce();
  return w;
}

template <typename T>
void unary_loop(const ew::Args &g) {
  char *out = static_cast<char *>(g.out.data);
  const char *x = static_cast<const char *>(g.a.data);
  walk_of(g).for_each([&](const int64_t *off, const int64_t *) {
    ew::store_as<T>(out + off[0], g.out.dtype, ew::unary_op<T>(g.op, ew::load_as<T>(x + off[1], g.a.dtype)));
  });
}

template <typename T>
void binary_loop(const ew::Args &g) {
  char *out = static_cast<char *>(g.out.data);
  const char *pa = static_cast<const char *>(g.a.data), *pb = static_cast<const char *>(g.b.data);
  const T s = ew::scalar_as<T>(g);
  walk_of(g).for_each([&](const int64_t *off, const int64_t *) {
    T a = g.scalar == ew::kScalarA ? s : ew::load_operand<T>(pa + off[1], g.a.dtype, g.round);
    T b = g.scalar == ew::kScalarB ? s : ew::load_operand<T>(pb + off[2], g.b.dtype, g.round);
    ew::store_as<T>(out + off[0], g.out.dtype, ew::binary_op<T>(g.op, a, b));
  });
}

}  // namespace

int unary(const ew::Args &g) {
  if (!valid(g, false)) return 1;
  return ew::with_compute(g.compute, [&](auto t) {
    unary_loop<decltype(t)>(g);
    return 0;
  }, 1);
}

int binary(const ew::Args &g) {
  if (!valid(g, true)) return 1;
  return ew::with_compute(g.compute, [&](auto t) {
    binary_loop<decltype(t)>(g);
    return 0;
  }, 1);
}

}  // namespace cpu
}  // namespace ek
