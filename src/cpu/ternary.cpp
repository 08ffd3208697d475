// Plain loops: the C-order walk of cpu/strided.hpp keeps the byte offsets of
// out and the three operands in step; each element is loaded into the compute
// type, combined by the shared op (src/ops/ternary_plan.hpp) and stored.
#include "cpu/ternary.hpp"

#include "cpu/strided.hpp"

namespace ek {
namespace cpu {
namespace {

constexpr int kSlots = 4;  // out, cond, x, y

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
  Strided<kSlots> w(g.out.ndim, g.out.shape, t);
  w.coalesce();
  char *out = static_cast<char *>(g.out.data);
  const char *pc = static_cast<const char *>(g.cond.data), *px = static_cast<const char *>(g.x.data),
             *py = static_cast<const char *>(g.y.data);
  const T c0 = tern::coeff<T>(g, 0), c1 = tern::coeff<T>(g, 1);
  w.for_each([&](const int64_t *off, const int64_t *) {
    const bool c = pc && tern::is_true(pc + off[1], g.cond.dtype);
    const T x = ew::load_as<T>(px + off[2], g.x.dtype);
    const T y = py ? ew::load_as<T>(py + off[3], g.y.dtype) : T(0);
    ew::store_as<T>(out + off[0], g.out.dtype, tern::apply<T>(g.op, c, x, y, c0, c1));
  });
}

}  // namespace

int ternary(const tern::Args &g) {
  if (!desc_valid(g.out) || g.x.data == nullptr || g.op < tern::kWhere || g.op > tern::kAxpby) return 1;
  if (!matches_out(g.out, g.cond) || !matches_out(g.out, g.x) || !matches_out(g.out, g.y)) return 1;
  return ew::with_compute(g.compute, [&](auto t) {
    loop<decltype(t)>(g);
    return 0;
  }, 1);
}

}  // namespace cpu
}  // namespace ek
