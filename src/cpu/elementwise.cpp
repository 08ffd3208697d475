// Plain loops: the C-order walk of cpu/strided.hpp keeps the byte offsets of
// out and the operands in step; each element is loaded into the compute type,
// transformed by the shared op switch and stored.
//
// Fast paths (the common case): when out and the tensor operands share one
// dtype and each innermost run is contiguous in out and contiguous or
// broadcast in every operand, a run is one loop instantiated per (compute
// type, dtype, op, step kinds) (cpu/typed.hpp), the common ops with the op
// fixed at compile time (others switch per element). Same per-element
// functions in the same order as the strided loops: bit-identical results
// (exp of float32 runs take the vector kernel of cpu/vecmath.hpp, which
// computes per lane what unary_value does).
#include "cpu/elementwise.hpp"

#include "cpu/simd.hpp"
#include "cpu/strided.hpp"
#include "cpu/thread_pool.hpp"
#include "cpu/typed.hpp"
#include "cpu/vecmath.hpp"

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

// ------------------------------------------------------------ fast paths --

constexpr int kAnyOp = -1;  // the op switched per element
template <typename T>
constexpr bool kFloat = T(0.5) != T(0);
template <int DT>
constexpr bool kFloatDtype = DT >= kF16 && DT <= kF64;
// Integer operands of a float computation are rounded first (load_operand):
// those take the strided loops.
template <typename T, int DT>
constexpr bool kFastPair = kFloat<T> == kFloatDtype<DT>;

// The CPU's unary op: the shared one, but exp in float32 compute is
// vecmath's (at most 1 ulp), so the vector kernel of a contiguous float32
// run and every other layout or dtype give the same bits.
template <typename T>
inline T unary_value(int op, T x) {
  if constexpr (std::is_same<T, float>::value)
    if (op == EK_UNARY_EXP) return vecmath::exp_f32(x);
  return ew::unary_op<T>(op, x);
}

// A run's loop; stream: the whole output takes streaming stores where the
// loop has them (simd::kStreamBytes).
template <typename T>
using UnaryRun = void (*)(char *, const char *, int64_t, int, bool);
template <typename T>
using BinaryRun = void (*)(char *, const char *, const char *, T, T, int64_t, int, bool);

template <typename T, int DT, int OP>
void unary_run(char *out, const char *x, int64_t n, int op, bool) {
  constexpr int64_t es = kSize<DT>;
  for (int64_t i = 0; i < n; ++i)
    ew::store_as<T>(out + i * es, DT, unary_value<T>(OP == kAnyOp ? op : OP, ew::load_as<T>(x + i * es, DT)));
}

// KA/KB: Step kinds; a broadcast operand's value is va/vb.
template <typename T, int DT, int OP, int KA, int KB>
void binary_run(char *out, const char *a, const char *b, T va, T vb, int64_t n, int op, bool) {
  constexpr int64_t es = kSize<DT>;
  for (int64_t i = 0; i < n; ++i) {
    const T x = KA == kVec ? ew::load_as<T>(a + i * es, DT) : va;
    const T y = KB == kVec ? ew::load_as<T>(b + i * es, DT) : vb;
    ew::store_as<T>(out + i * es, DT, ew::binary_op<T>(OP == kAnyOp ? op : OP, x, y));
  }
}

// exp of float32: the vector kernel of the CPU's ISA level (cpu/vecmath.hpp).
void exp_run_f32(char *out, const char *x, int64_t n, int, bool stream) {
  simd::kernels().exp_f32(reinterpret_cast<float *>(out), reinterpret_cast<const float *>(x), n, stream);
}

template <typename T, int DT>
UnaryRun<T> unary_run_for(int op) {
  if constexpr (std::is_same<T, float>::value && DT == kF32)
    if (op == EK_UNARY_EXP) return &exp_run_f32;
  switch (op) {
#define EK_CASE(o) case o: return &unary_run<T, DT, o>;
    EK_CASE(EK_UNARY_NEG) EK_CASE(EK_UNARY_ABS) EK_CASE(EK_UNARY_EXP) EK_CASE(EK_UNARY_LOG)
    EK_CASE(EK_UNARY_SQRT) EK_CASE(EK_UNARY_RELU) EK_CASE(EK_UNARY_SQUARE) EK_CASE(EK_UNARY_SIGMOID)
    EK_CASE(EK_UNARY_TANH)
#undef EK_CASE
    default: return &unary_run<T, DT, kAnyOp>;
  }
}

// add/sub/mul/div of float32: the ISA level's vector kernel (plain IEEE
// operations, so the bits are binary_run's).
template <int OP, int KA, int KB>
void binary_run_f32(char *out, const char *a, const char *b, float va, float vb, int64_t n, int, bool stream) {
  simd::kernels().binary_f32[OP][KA == kVec ? (KB == kVec ? 0 : 1) : 2](out, a, b, va, vb, n, stream);
}

template <typename T, int DT, int KA, int KB>
BinaryRun<T> binary_op_run(int op) {
  if constexpr (std::is_same<T, float>::value && DT == kF32) {
    switch (op) {
      case EK_BINARY_ADD: return &binary_run_f32<0, KA, KB>;
      case EK_BINARY_SUB: return &binary_run_f32<1, KA, KB>;
      case EK_BINARY_MUL: return &binary_run_f32<2, KA, KB>;
      case EK_BINARY_DIV: return &binary_run_f32<3, KA, KB>;
      default: break;
    }
  }
  switch (op) {
#define EK_CASE(o) case o: return &binary_run<T, DT, o, KA, KB>;
    EK_CASE(EK_BINARY_ADD) EK_CASE(EK_BINARY_SUB) EK_CASE(EK_BINARY_MUL) EK_CASE(EK_BINARY_DIV)
    EK_CASE(EK_BINARY_MAXIMUM) EK_CASE(EK_BINARY_MINIMUM)
#undef EK_CASE
    default: return &binary_run<T, DT, kAnyOp, KA, KB>;
  }
}

template <typename T, int DT>
BinaryRun<T> binary_run_for(int ka, int kb, int op) {
  if (ka == kVec && kb == kVec) return binary_op_run<T, DT, kVec, kVec>(op);
  if (ka == kVec && kb == kBcast) return binary_op_run<T, DT, kVec, kBcast>(op);
  if (ka == kBcast && kb == kVec) return binary_op_run<T, DT, kBcast, kVec>(op);
  return nullptr;  // both broadcast: rare, strided loop
}

// The step kind of operand k (1: a, 2: b) when out's runs are contiguous and
// the operand has out's dtype; -1 otherwise. A host scalar is a broadcast.
int operand_step(const ew::Args &g, const Strided<3> &w, int k) {
  const TensorDesc &t = k == 1 ? g.a : g.b;
  if (g.scalar == k) return kBcast;
  const auto es = static_cast<int64_t>(dtype_size(g.out.dtype));
  if (w.ndim == 0 || t.dtype != g.out.dtype || w.run_step(0) != es) return -1;
  return step_kind(w.run_step(k), es);
}

// Whether the op's output is large enough for streaming stores.
bool streams(const ew::Args &g, const Strided<3> &w) {
  return w.numel() * static_cast<int64_t>(dtype_size(g.out.dtype)) >= simd::kStreamBytes;
}

template <typename T>
bool unary_fast(const ew::Args &g, const Strided<3> &w, int threads) {
  UnaryRun<T> run = nullptr;
  if (operand_step(g, w, 1) == kVec)
    with_fast_dtype(g.out.dtype, [&](auto d) {
      if constexpr (kFastPair<T, decltype(d)::value>) run = unary_run_for<T, decltype(d)::value>(g.op);
    });
  if (!run) return false;
  char *out = static_cast<char *>(g.out.data);
  const char *x = static_cast<const char *>(g.a.data);
  const bool stream = streams(g, w);
  parallel_runs(w, threads, [&](const int64_t *off, int64_t n) { run(out + off[0], x + off[1], n, g.op, stream); });
  return true;
}

// A run's operand k: its first element and, when broadcast, its value.
template <typename T>
const char *operand_at(const ew::Args &g, const int64_t *off, int k, int step, T &v) {
  if (g.scalar == k) {
    v = ew::scalar_as<T>(g);
    return nullptr;
  }
  const TensorDesc &t = k == 1 ? g.a : g.b;
  const char *p = static_cast<const char *>(t.data) + off[k];
  if (step == kBcast) v = ew::load_operand<T>(p, t.dtype, g.round);
  return p;
}

template <typename T>
bool binary_fast(const ew::Args &g, const Strided<3> &w, int threads) {
  const int ka = operand_step(g, w, 1), kb = operand_step(g, w, 2);
  BinaryRun<T> run = nullptr;
  if (ka >= 0 && kb >= 0)
    with_fast_dtype(g.out.dtype, [&](auto d) {
      if constexpr (kFastPair<T, decltype(d)::value>) run = binary_run_for<T, decltype(d)::value>(ka, kb, g.op);
    });
  if (!run) return false;
  char *out = static_cast<char *>(g.out.data);
  const bool stream = streams(g, w);
  parallel_runs(w, threads, [&](const int64_t *off, int64_t n) {
    T va = T(0), vb = T(0);
    const char *a = operand_at(g, off, 1, ka, va), *b = operand_at(g, off, 2, kb, vb);
    run(out + off[0], a, b, va, vb, n, g.op, stream);
  });
  return true;
}

// ------------------------------------------------------- strided reference --

template <typename T>
void unary_loop(const ew::Args &g, int threads) {
  const Strided<3> w = walk_of(g);
  if (unary_fast<T>(g, w, threads)) return;
  char *out = static_cast<char *>(g.out.data);
  const char *x = static_cast<const char *>(g.a.data);
  w.for_each([&](const int64_t *off, const int64_t *) {
    ew::store_as<T>(out + off[0], g.out.dtype, unary_value<T>(g.op, ew::load_as<T>(x + off[1], g.a.dtype)));
  });
}

template <typename T>
void binary_loop(const ew::Args &g, int threads) {
  const Strided<3> w = walk_of(g);
  if (binary_fast<T>(g, w, threads)) return;
  char *out = static_cast<char *>(g.out.data);
  const char *pa = static_cast<const char *>(g.a.data), *pb = static_cast<const char *>(g.b.data);
  const T s = ew::scalar_as<T>(g);
  w.for_each([&](const int64_t *off, const int64_t *) {
    T a = g.scalar == ew::kScalarA ? s : ew::load_operand<T>(pa + off[1], g.a.dtype, g.round);
    T b = g.scalar == ew::kScalarB ? s : ew::load_operand<T>(pb + off[2], g.b.dtype, g.round);
    ew::store_as<T>(out + off[0], g.out.dtype, ew::binary_op<T>(g.op, a, b));
  });
}

}  // namespace

int unary(const ew::Args &g, int threads) {
  if (!valid(g, false)) return 1;
  return ew::with_compute(g.compute, [&](auto t) {
    unary_loop<decltype(t)>(g, threads);
    return 0;
  }, 1);
}

int binary(const ew::Args &g, int threads) {
  if (!valid(g, true)) return 1;
  return ew::with_compute(g.compute, [&](auto t) {
    binary_loop<decltype(t)>(g, threads);
    return 0;
  }, 1);
}

}  // namespace cpu
}  // namespace ek
