// CUDA elementwise kernels (ek_unary / ek_binary / ek_binary_scalar).
//
// Host code coalesces the layout (src/ops/layout.hpp: size-1 dims dropped, dims
// contiguous in every operand merged), then picks a path:
//   * fast: out and every tensor operand contiguous, one dtype among f32, f16,
//     bf16, 16-byte aligned -> 16-byte vector loads, kVecUnroll vectors in
//     flight per thread (one where two 16-bit tensors are read), math in
//     f32; the common ops (EK_FAST_*_OPS) are compiled per op, the rest call
//     one out-of-line run-time switch;
//     tensors too small to fill the GPU spread over more blocks (loop_grid);
//   * rows: binary ops over a contiguous [rows, cols] out whose operands are
//     matrices, row vectors or column vectors of that float dtype (bias
//     adds, per-row normalisation) -> the fast path's vectors and math, with
//     one 32-bit division a vector for the row;
//   * strided: any layout/dtypes; operands load into the compute type (float,
//     double or int64) through a run-time dtype switch, so kernels are
//     instantiated per compute type and index width only; offsets come from
//     OffsetCalc (multiply-shift division with 32-bit index math, taken when
//     the count and every offset fit, else 64-bit); the op is one
//     out-of-line switch and small tensors spread as on the fast path.
#include "kernels/elementwise.cuh"

#include <cuda_runtime.h>

#include <type_traits>

#include "kernels/pdl.cuh"
#include "kernels/storage_types.cuh"
#include "kernels/strided.cuh"

namespace ek {
namespace cuda {
namespace {

// ---------------------------------------------------------------- layouts --

// Tensors 0 = out, 1 = a, 2 = b over out's shape; strides in elements. A
// missing operand (scalar, or b of a unary op) has null ptr and zero strides.
struct Layout : Geometry<3> {
  char *ptr[3] = {nullptr, nullptr, nullptr};
  int dt[3] = {0, 0, 0};
};

Layout make_layout(const ew::Args &g, bool binary) {
  Layout L;
  const TensorDesc *t[3] = {&g.out, &g.a, &g.b};
  const bool use[3] = {true, g.scalar != ew::kScalarA, binary && g.scalar != ew::kScalarB};
  for (int k = 0; k < 3; ++k)
    if (use[k]) {
      L.ptr[k] = static_cast<char *>(t[k]->data);
      L.dt[k] = t[k]->dtype;
    }
  L.ndim = g.out.ndim;
  for (int i = 0; i < g.out.ndim; ++i) {
    L.shape[i] = g.out.shape[i];
    for (int k = 0; k < 3; ++k) L.st[k][i] = use[k] ? t[k]->strides[i] : 0;
  }
  L.coalesce_1d();
  return L;
}

// ---------------------------------------------------------- op dispatch --

// The run-time op's math, one copy that every element calls: inlined into
// each of a thread's kVecUnroll vectors of elements, the whole switch of
// ops was repeated 16 to 32 times and the kernel outgrew the instruction
// cache (a run-time gelu of 32K floats took 25 us, 8x its compile-time form).
__device__ __noinline__ float unary_rt(int op, float x) { return ew::unary_float<float>(op, x); }
__device__ __noinline__ float binary_rt(int op, float x, float y) { return ew::binary_float<float>(op, x, y); }

// OP >= 0: a compile-time op (the switch folds away); -1: the run-time op.
// UNARY: x only.
template <int OP, bool UNARY>
__device__ __forceinline__ float apply(int op, float x, float y) {
  if constexpr (OP < 0) return UNARY ? unary_rt(op, x) : binary_rt(op, x, y);
  else if constexpr (UNARY) return ew::unary_float<float>(OP, x);
  else return ew::binary_float<float>(OP, x, y);
}

// The ops the contiguous paths compile per op: those of small steps and
// layers (activations, normalisation, arithmetic); the rest take the
// run-time op.
#define EK_FAST_UNARY_OPS(X)                                                                            \
  X(EK_UNARY_NEG) X(EK_UNARY_ABS) X(EK_UNARY_EXP) X(EK_UNARY_LOG) X(EK_UNARY_SQRT) X(EK_UNARY_RSQRT)  \
  X(EK_UNARY_SQUARE) X(EK_UNARY_RECIPROCAL) X(EK_UNARY_TANH) X(EK_UNARY_SIGMOID) X(EK_UNARY_RELU)     \
  X(EK_UNARY_GELU) X(EK_UNARY_GELU_TANH) X(EK_UNARY_SILU)
#define EK_FAST_BINARY_OPS(X) X(EK_BINARY_ADD) X(EK_BINARY_SUB) X(EK_BINARY_MUL) X(EK_BINARY_DIV)

template <int OP>
using OpC = std::integral_constant<int, OP>;

// f(OpC<op>()) for a compiled op, else f(OpC<-1>()).
template <bool UNARY, typename F>
int with_op(int op, F &&f) {
#define EK_OP_CASE_(o) \
  case o: return f(OpC<o>());
  if constexpr (UNARY) {
    switch (op) { EK_FAST_UNARY_OPS(EK_OP_CASE_) default: break; }
  } else {
    switch (op) { EK_FAST_BINARY_OPS(EK_OP_CASE_) default: break; }
  }
#undef EK_OP_CASE_
  return f(OpC<-1>());
}

// f(DT) for the fast paths' float dtypes; false for any other.
template <typename F>
bool with_fast_dtype(int dt, F &&f) {
  switch (dt) {
    case kF32: f(std::integral_constant<int, kF32>()); return true;
    case kF16: f(std::integral_constant<int, kF16>()); return true;
    case kBF16: f(std::integral_constant<int, kBF16>()); return true;
    default: return false;
  }
}

// --------------------------------------------------------------- fast path --

struct FastArgs {
  char *out;
  const char *a, *b;  // null: that operand is the scalar s
  float s;
  int op;
  int64_t nvec, n;
  bool spread;  // vec_loop's layout (loop_grid)
};

template <int DT, int OP, bool UNARY>
__device__ __forceinline__ float fast_element(const FastArgs &f, int64_t i) {
  using R = RawF<DT>;
  float x = f.a ? to_f32<DT>(reinterpret_cast<const R *>(f.a)[i]) : f.s;
  float y = UNARY ? 0.f : (f.b ? to_f32<DT>(reinterpret_cast<const R *>(f.b)[i]) : f.s);
  return apply<OP, UNARY>(f.op, x, y);
}

// Vectors a thread keeps in flight on the contiguous paths: kVecUnroll,
// except where two 16-bit tensors are read. With kVecUnroll (64 elements of
// two operands a thread) bfloat16 and float16 mul ran at 0.82x and 0.95x
// PyTorch's on the H100 and a bfloat16 bias add at 1.15x, with one vector
// at 1.00x and 1.72x; a unary op wants the four (bfloat16 tanh 0.99x, 0.91x
// with one; bench/RESULTS.md, session 17).
template <int DT>
constexpr int two_tensor_unroll() {
  return DT == kF32 ? kVecUnroll : 1;
}

// U: vectors a thread keeps in flight (kVecUnroll or two_tensor_unroll).
template <int DT, int OP, bool UNARY, int U>
__global__ void __launch_bounds__(kThreads) fast_kernel(FastArgs f) {
  pdl_trigger();
  pdl_wait();  // launched with launch_pdl: nothing before this touches memory
  using V = Vec<RawF<DT>>;
  constexpr int N = V::kN;
  const V *va = reinterpret_cast<const V *>(f.a), *vb = reinterpret_cast<const V *>(f.b);
  V *vo = reinterpret_cast<V *>(f.out);
  V xa[U], xb[U];
  auto load = [&](int k, int64_t j) {
    if (va) xa[k] = va[j];
    if (!UNARY && vb) xb[k] = vb[j];
  };
  auto store = [&](int k, int64_t j) {
    V r;
#pragma unroll
    for (int e = 0; e < N; ++e) {
      float x = va ? to_f32<DT>(xa[k].v[e]) : f.s;
      float y = UNARY ? 0.f : (vb ? to_f32<DT>(xb[k].v[e]) : f.s);
      r.v[e] = from_f32<DT>(apply<OP, UNARY>(f.op, x, y));
    }
    vo[j] = r;
  };
  vec_loop<U>(f.nvec, load, store, f.spread);
  // Tail elements past the last whole vector.
  using R = RawF<DT>;
  const int64_t i = f.nvec * N + int64_t(blockIdx.x) * kThreads + threadIdx.x;
  if (i < f.n) reinterpret_cast<R *>(f.out)[i] = from_f32<DT>(fast_element<DT, OP, UNARY>(f, i));
}

template <int DT, bool UNARY, int U>
int launch_fast_unrolled(FastArgs f, cudaStream_t st) {
  const LoopGrid vg = loop_grid<U>(f.nvec, f.n - f.nvec * Vec<RawF<DT>>::kN);
  f.spread = vg.spread;
  return with_op<UNARY>(f.op, [&](auto op) {
    launch_pdl(Pdl::kCaptureOnly, fast_kernel<DT, decltype(op)::value, UNARY, U>, vg.blocks, kThreads, st, f);
    return int(cudaGetLastError());
  });
}

template <int DT, bool UNARY>
int launch_fast(FastArgs f, cudaStream_t st) {
  if constexpr (!UNARY)
    if (f.a && f.b) return launch_fast_unrolled<DT, UNARY, two_tensor_unroll<DT>()>(f, st);
  return launch_fast_unrolled<DT, UNARY, kVecUnroll>(f, st);
}

// The fast path applies when the collapsed layout is one unit-stride run in
// every tensor, all of one 16-bit or 32-bit float dtype, aligned to 16 bytes.
bool try_fast(const ew::Args &g, const Layout &L, int64_t n, bool unary, cudaStream_t st, int *rc) {
  const int dt = L.dt[0];
  if (g.compute != ew::kCF32 || L.ndim != 1) return false;
  uintptr_t addresses = 0;
  for (int k = 0; k < 3; ++k) {
    if (!L.ptr[k]) continue;
    if (L.dt[k] != dt || L.st[k][0] != 1) return false;
    addresses |= reinterpret_cast<uintptr_t>(L.ptr[k]);
  }
  if (vec_width(addresses) < kVecBytes) return false;
  const FastArgs f{L.ptr[0], L.ptr[1], L.ptr[2], float(g.sf), g.op, n / (kVecBytes / int64_t(dtype_size(dt))), n,
                   false};
  return with_fast_dtype(dt, [&](auto d) {
    *rc = unary ? launch_fast<decltype(d)::value, true>(f, st) : launch_fast<decltype(d)::value, false>(f, st);
  });
}

// ------------------------------------------------------------- rows path --

// Binary ops whose out is a contiguous [rows, cols] and whose tensor
// operands are each a matrix with unit column stride (full, or a row vector
// when its row stride is 0) or one element a row (a column vector, or one
// element: column stride 0): the broadcasts of bias adds and of per-row
// normalisation. One float dtype, cols a whole number of 16-byte vectors,
// 32-bit offsets: one multiply-shift division a vector, none an element,
// and the math of the fast path (so the bits of the strided path).
struct RowsArgs {
  char *out;
  const char *in[2];  // a, b; null: that operand is the scalar s
  uint32_t rstep[2];  // a row's step: in vectors (matrix operands), in elements (columns)
  bool column[2];
  float s;
  int op;
  Div32 vpr;  // vectors a row
  int64_t nvec;
  bool spread;
};

template <int DT, int OP>
__global__ void __launch_bounds__(kThreads) rows_kernel(RowsArgs r) {
  pdl_trigger();
  pdl_wait();  // launched with launch_pdl: nothing before this touches memory
  using R = RawF<DT>;
  using V = Vec<R>;
  // Every rows launch reads two tensors (a matrix and a row or column
  // vector, or two matrices).
  constexpr int N = V::kN, U = two_tensor_unroll<DT>();
  V xv[2][U];
  R xs[2][U];
  auto load = [&](int k, int64_t j) {
    const uint32_t row = r.vpr.div(uint32_t(j)), cv = uint32_t(j) - row * r.vpr.d;
#pragma unroll
    for (int t = 0; t < 2; ++t) {
      if (!r.in[t]) continue;
      if (r.column[t]) xs[t][k] = reinterpret_cast<const R *>(r.in[t])[row * r.rstep[t]];
      else xv[t][k] = reinterpret_cast<const V *>(r.in[t])[row * r.rstep[t] + cv];
    }
  };
  auto operand = [&](int t, int k, int e) {
    if (!r.in[t]) return r.s;
    return to_f32<DT>(r.column[t] ? xs[t][k] : xv[t][k].v[e]);
  };
  auto store = [&](int k, int64_t j) {
    V o;
#pragma unroll
    for (int e = 0; e < N; ++e) o.v[e] = from_f32<DT>(apply<OP, false>(r.op, operand(0, k, e), operand(1, k, e)));
    reinterpret_cast<V *>(r.out)[j] = o;
  };
  vec_loop<U>(r.nvec, load, store, r.spread);
}

// Operand t's row step and kind; false for a layout the rows path cannot take.
bool rows_operand(const Layout &L, int t, int64_t vec_n, RowsArgs *r) {
  const int64_t rs = L.st[t + 1][0], cs = L.st[t + 1][1];
  if (rs < 0 || (cs != 0 && cs != 1) || (cs == 1 && rs % vec_n != 0)) return false;
  r->column[t] = cs == 0;
  r->rstep[t] = uint32_t(cs == 0 ? rs : rs / vec_n);
  return true;
}

bool try_rows(const ew::Args &g, const Layout &L, int64_t n, cudaStream_t st, int *rc) {
  const int dt = L.dt[0];
  if (g.compute != ew::kCF32 || L.ndim != 2 || !L.fits_32bit()) return false;
  const int64_t cols = L.shape[1], vec_n = kVecBytes / int64_t(dtype_size(dt));
  if (cols % vec_n != 0 || L.st[0][0] != cols || L.st[0][1] != 1) return false;
  RowsArgs r{L.ptr[0], {L.ptr[1], L.ptr[2]}, {0, 0}, {false, false}, float(g.sf), g.op, Div32(), n / vec_n, false};
  uintptr_t addresses = reinterpret_cast<uintptr_t>(L.ptr[0]);
  for (int t = 0; t < 2; ++t) {
    if (!r.in[t]) continue;
    if (L.dt[t + 1] != dt || !rows_operand(L, t, vec_n, &r)) return false;
    if (!r.column[t]) addresses |= reinterpret_cast<uintptr_t>(r.in[t]);
  }
  if (vec_width(addresses) < kVecBytes) return false;
  r.vpr.init(uint32_t(cols / vec_n));
  return with_fast_dtype(dt, [&](auto d) {
    constexpr int DT = decltype(d)::value;
    const LoopGrid vg = loop_grid<two_tensor_unroll<DT>()>(r.nvec, 0);
    r.spread = vg.spread;
    *rc = with_op<false>(g.op, [&](auto op) {
      launch_pdl(Pdl::kCaptureOnly, rows_kernel<DT, decltype(op)::value>, vg.blocks, kThreads,
                 st, r);
      return int(cudaGetLastError());
    });
  });
}

// ------------------------------------------------------------ strided path --

template <typename U>
struct StridedArgs {
  OffsetCalc<U, 3> oc;  // out, a, b
  int op, round;
  int dt[3], es[3];
  const char *a, *b;  // null: the scalar
  char *out;
  double sf;
  int64_t si;
  bool spread;  // strided_walk's layout (loop_grid)
};

// The strided kernels' op, out of line for the reason of unary_rt.
template <typename T>
__device__ __noinline__ T op_rt(int op, T x) { return ew::unary_op<T>(op, x); }
template <typename T>
__device__ __noinline__ T op_rt(int op, T x, T y) { return ew::binary_op<T>(op, x, y); }

template <typename T, typename U, bool UNARY>
__global__ void __launch_bounds__(kThreads) strided_kernel(StridedArgs<U> k, U n) {
  using S = typename OffsetCalc<U, 3>::S;
  T s;
  if constexpr (T(0.5) == T(0)) s = T(k.si);
  else s = T(k.sf);
  // The loads only: the op runs at the store, so that no load waits for the
  // one before it to arrive.
  struct Operands { T x, y; };
  strided_walk(
      k.oc, n,
      [&](const S (&off)[3]) {
        Operands v;
        v.x = k.a ? ew::load_operand<T>(k.a + int64_t(off[1]) * k.es[1], k.dt[1], k.round) : s;
        v.y = (UNARY || !k.b) ? s : ew::load_operand<T>(k.b + int64_t(off[2]) * k.es[2], k.dt[2], k.round);
        return v;
      },
      [&](S o, const Operands &v) {
        const T r = UNARY ? op_rt<T>(k.op, v.x) : op_rt<T>(k.op, v.x, v.y);
        ew::store_as<T>(k.out + int64_t(o) * k.es[0], k.dt[0], r);
      },
      k.spread);
}

template <typename U>
StridedArgs<U> strided_args(const ew::Args &g, const Layout &L) {
  StridedArgs<U> k{};
  k.oc = make_calc<U>(L);
  k.op = g.op;
  k.round = g.round;
  for (int t = 0; t < 3; ++t) {
    k.dt[t] = L.dt[t];
    k.es[t] = int(dtype_size(L.dt[t]));
  }
  k.out = L.ptr[0];
  k.a = L.ptr[1];
  k.b = L.ptr[2];
  k.sf = g.sf;
  k.si = g.si;
  return k;
}

template <typename T, typename U>
int launch_strided(const ew::Args &g, const Layout &L, int64_t n, bool unary, cudaStream_t st) {
  StridedArgs<U> k = strided_args<U>(g, L);
  const LoopGrid grid = loop_grid<kStridedUnroll>(n, 0);
  k.spread = grid.spread;
  if (unary) strided_kernel<T, U, true><<<grid.blocks, kThreads, 0, st>>>(k, U(n));
  else strided_kernel<T, U, false><<<grid.blocks, kThreads, 0, st>>>(k, U(n));
  return cudaGetLastError();
}

template <typename T>
int strided(const ew::Args &g, const Layout &L, int64_t n, bool unary, cudaStream_t st) {
  return L.fits_32bit() ? launch_strided<T, uint32_t>(g, L, n, unary, st)
                        : launch_strided<T, uint64_t>(g, L, n, unary, st);
}

int run(const ew::Args &g, bool unary, void *stream) {
  if (!desc_valid(g.out)) return cudaErrorInvalidValue;
  const int64_t n = desc_numel(g.out);
  if (n == 0) return cudaSuccess;
  cudaStream_t st = static_cast<cudaStream_t>(stream);
  const Layout L = make_layout(g, !unary);
  int rc = 0;
  if (try_fast(g, L, n, unary, st, &rc)) return rc;
  if (!unary && try_rows(g, L, n, st, &rc)) return rc;
  return ew::with_compute(
      g.compute, [&](auto t) { return strided<decltype(t)>(g, L, n, unary, st); },
      int(cudaErrorInvalidValue));
}

}  // namespace

int unary(const ew::Args &g, void *stream) { return run(g, true, stream); }
int binary(const ew::Args &g, void *stream) { return run(g, false, stream); }

}  // namespace cuda
}  // namespace ek
