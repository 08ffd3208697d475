// Plain loops: the C-order walk of cpu/strided.hpp keeps the byte offsets of
// out and the three operands in step; each element is loaded into the compute
// type, combined by the shared op (src/ops/ternary_plan.hpp) and stored.
//
// Fast path (cpu/typed.hpp): x, y and out of one dtype, out's runs contiguous,
// x and y contiguous or broadcast in them, cond (where only) a contiguous
// bool run: one loop per (compute, dtype, op, step kinds), the same
// per-element functions in the same order, so the same results.
#include "cpu/ternary.hpp"

#include "cpu/strided.hpp"
#include "cpu/thread_pool.hpp"
#include "cpu/typed.hpp"

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

constexpr int kAnyOp = -1;  // the op switched per element

template <typename T>
using Run = void (*)(char *, const char *, const char *, const char *, T, T, int64_t, const tern::Args &);

// KX/KY: Step kinds (vx/vy a broadcast's value); cond is read by where only.
template <typename T, int DT, int OP, int KX, int KY>
void run(char *out, const char *c, const char *x, const char *y, T vx, T vy, int64_t n, const tern::Args &g) {
  constexpr int64_t es = kSize<DT>;
  const T c0 = tern::coeff<T>(g, 0), c1 = tern::coeff<T>(g, 1);
  for (int64_t i = 0; i < n; ++i) {
    const bool ci = OP == tern::kWhere && c[i] != 0;
    const T xi = KX == kVec ? ew::load_as<T>(x + i * es, DT) : vx;
    const T yi = KY == kVec ? ew::load_as<T>(y + i * es, DT) : vy;
    ew::store_as<T>(out + i * es, DT, tern::apply<T>(OP == kAnyOp ? g.op : OP, ci, xi, yi, c0, c1));
  }
}

template <typename T, int DT, int OP>
Run<T> run_for(int kx, int ky) {
  if (kx == kVec && ky == kVec) return &run<T, DT, OP, kVec, kVec>;
  if (kx == kVec && ky == kBcast) return &run<T, DT, OP, kVec, kBcast>;
  if (kx == kBcast && ky == kVec) return &run<T, DT, OP, kBcast, kVec>;
  return nullptr;
}

// Operand k's step kind (2: x, 3: y); an unused y is a broadcast 0.
int step_of(const tern::Args &g, const Strided<kSlots> &w, int k) {
  const TensorDesc &t = k == 2 ? g.x : g.y;
  if (!t.data) return kBcast;
  return t.dtype == g.out.dtype ? step_kind(w.run_step(k), static_cast<int64_t>(dtype_size(t.dtype))) : -1;
}

template <typename T>
bool fast(const tern::Args &g, const Strided<kSlots> &w, int threads) {
  if (w.ndim == 0 || w.run_step(0) != static_cast<int64_t>(dtype_size(g.out.dtype))) return false;
  const bool where = g.op == tern::kWhere;
  if (where ? (g.cond.dtype != kBool || w.run_step(1) != 1) : g.cond.data != nullptr) return false;
  const int kx = step_of(g, w, 2), ky = step_of(g, w, 3);
  Run<T> r = nullptr;
  if (kx >= 0 && ky >= 0)
    with_fast_dtype(g.out.dtype, [&](auto d) {
      constexpr int DT = decltype(d)::value;
      if constexpr ((T(0.5) != T(0)) == (DT >= kF16 && DT <= kF64))  // integers of a float compute: strided
        r = where ? run_for<T, DT, tern::kWhere>(kx, ky) : run_for<T, DT, kAnyOp>(kx, ky);
    });
  if (!r) return false;
  auto *out = static_cast<char *>(g.out.data);
  const auto *pc = static_cast<const char *>(g.cond.data), *px = static_cast<const char *>(g.x.data),
             *py = static_cast<const char *>(g.y.data);
  parallel_runs(w, threads, [&](const int64_t *off, int64_t n) {
    const char *c = pc ? pc + off[1] : nullptr, *x = px + off[2], *y = py ? py + off[3] : nullptr;
    const T vx = kx == kBcast ? ew::load_as<T>(x, g.x.dtype) : T(0);
    const T vy = ky == kBcast && y ? ew::load_as<T>(y, g.y.dtype) : T(0);
    r(out + off[0], c, x, y, vx, vy, n, g);
  });
  return true;
}

template <typename T>
void loop(const tern::Args &g, int threads) {
  const TensorDesc *t[kSlots] = {&g.out, &g.cond, &g.x, &g.y};
  Strided<kSlots> w(g.out.ndim, g.out.shape, t);
  w.coalesce();
  if (fast<T>(g, w, threads)) return;
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

int ternary(const tern::Args &g, int threads) {
  if (!desc_valid(g.out) || g.x.data == nullptr || g.op < tern::kWhere || g.op > tern::kAxpby) return 1;
  if (!matches_out(g.out, g.cond) || !matches_out(g.out, g.x) || !matches_out(g.out, g.y)) return 1;
  return ew::with_compute(g.compute, [&](auto t) {
    loop<decltype(t)>(g, threads);
    return 0;
  }, 1);
}

}  // namespace cpu
}  // namespace ek
