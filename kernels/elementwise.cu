// CUDA elementwise kernels (ek_unary / ek_binary / ek_binary_scalar).
//
// Host code coalesces the layout (src/ops/layout.hpp: size-1 dims dropped, dims
// contiguous in every operand merged), then picks a path:
//   * fast: out and every tensor operand contiguous, one dtype among f32, f16,
//     bf16, 16-byte aligned -> 16-byte vector loads, kVecUnroll vectors in
//     flight per thread, math in f32; add/sub/mul/div are compile-time ops,
//     the rest a uniform run-time switch;
//   * strided: any layout/dtypes; operands load into the compute type (float,
//     double or int64) through a run-time dtype switch, so kernels are
//     instantiated per compute type and index width only; offsets come from
//     OffsetCalc (multiply-shift division with 32-bit index math, taken when
//     the count and every offset fit, else 64-bit).
#include "kernels/elementwise.cuh"

#include <cuda_runtime.h>

#include <type_traits>

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

// --------------------------------------------------------------- fast path --

// OP >= 0: a compile-time binary op; -1: the run-time op. UNARY: x only.
template <int OP, bool UNARY>
__device__ __forceinline__ float apply(int op, float x, float y) {
  if constexpr (UNARY) return ew::unary_float<float>(op, x);
  else return ew::binary_float<float>(OP >= 0 ? OP : op, x, y);
}

struct FastArgs {
  char *out;
  const char *a, *b;  // null: that operand is the scalar s
  float s;
  int op;
  int64_t nvec, n;
};

template <int DT, int OP, bool UNARY>
__device__ __forceinline__ float fast_element(const FastArgs &f, int64_t i) {
  using R = RawF<DT>;
  float x = f.a ? to_f32<DT>(reinterpret_cast<const R *>(f.a)[i]) : f.s;
  float y = UNARY ? 0.f : (f.b ? to_f32<DT>(reinterpret_cast<const R *>(f.b)[i]) : f.s);
  return apply<OP, UNARY>(f.op, x, y);
}

template <int DT, int OP, bool UNARY>
__global__ void __launch_bounds__(kThreads) fast_kernel(FastArgs f) {
  using V = Vec<RawF<DT>>;
  constexpr int N = V::kN;
  const V *va = reinterpret_cast<const V *>(f.a), *vb = reinterpret_cast<const V *>(f.b);
  V *vo = reinterpret_cast<V *>(f.out);
  V xa[kVecUnroll], xb[kVecUnroll];
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
  vec_loop<kVecUnroll>(f.nvec, load, store);
  // Tail elements past the last whole vector.
  using R = RawF<DT>;
  const int64_t i = f.nvec * N + int64_t(blockIdx.x) * kThreads + threadIdx.x;
  if (i < f.n) reinterpret_cast<R *>(f.out)[i] = from_f32<DT>(fast_element<DT, OP, UNARY>(f, i));
}

template <int DT, int OP, bool UNARY>
int launch_fast(const FastArgs &f, cudaStream_t st) {
  const unsigned blocks = grid_for_vec(f.nvec, int64_t(kThreads) * kVecUnroll, f.n - f.nvec * Vec<RawF<DT>>::kN);
  fast_kernel<DT, OP, UNARY><<<blocks, kThreads, 0, st>>>(f);
  return cudaGetLastError();
}

template <int DT>
int fast_binary_op(const FastArgs &f, cudaStream_t st) {
  switch (f.op) {
    case EK_BINARY_ADD: return launch_fast<DT, EK_BINARY_ADD, false>(f, st);
    case EK_BINARY_SUB: return launch_fast<DT, EK_BINARY_SUB, false>(f, st);
    case EK_BINARY_MUL: return launch_fast<DT, EK_BINARY_MUL, false>(f, st);
    case EK_BINARY_DIV: return launch_fast<DT, EK_BINARY_DIV, false>(f, st);
    default: return launch_fast<DT, -1, false>(f, st);
  }
}

template <int DT>
int fast_dispatch(const FastArgs &f, bool unary, cudaStream_t st) {
  return unary ? launch_fast<DT, -1, true>(f, st) : fast_binary_op<DT>(f, st);
}

// The fast path applies when the collapsed layout is one unit-stride run in
// every tensor, all of one 16-bit or 32-bit float dtype, aligned to 16 bytes.
bool try_fast(const ew::Args &g, const Layout &L, int64_t n, bool unary, cudaStream_t st, int *rc) {
  const int dt = L.dt[0];
  if (g.compute != ew::kCF32 || L.ndim != 1 || (dt != kF32 && dt != kF16 && dt != kBF16)) return false;
  uintptr_t addresses = 0;
  for (int k = 0; k < 3; ++k) {
    if (!L.ptr[k]) continue;
    if (L.dt[k] != dt || L.st[k][0] != 1) return false;
    addresses |= reinterpret_cast<uintptr_t>(L.ptr[k]);
  }
  if (vec_width(addresses) < kVecBytes) return false;
  FastArgs f{L.ptr[0], L.ptr[1], L.ptr[2], float(g.sf), g.op, n / (kVecBytes / int64_t(dtype_size(dt))), n};
  if (dt == kF32) *rc = fast_dispatch<kF32>(f, unary, st);
  else if (dt == kF16) *rc = fast_dispatch<kF16>(f, unary, st);
  else *rc = fast_dispatch<kBF16>(f, unary, st);
  return true;
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
};

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
        const T r = UNARY ? ew::unary_op<T>(k.op, v.x) : ew::binary_op<T>(k.op, v.x, v.y);
        ew::store_as<T>(k.out + int64_t(o) * k.es[0], k.dt[0], r);
      });
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
  const StridedArgs<U> k = strided_args<U>(g, L);
  const unsigned grid = grid_for(n, int64_t(kThreads) * kStridedUnroll);
  if (unary) strided_kernel<T, U, true><<<grid, kThreads, 0, st>>>(k, U(n));
  else strided_kernel<T, U, false><<<grid, kThreads, 0, st>>>(k, U(n));
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
  return ew::with_compute(
      g.compute, [&](auto t) { return strided<decltype(t)>(g, L, n, unary, st); },
      int(cudaErrorInvalidValue));
}

}  // namespace

int unary(const ew::Args &g, void *stream) { return run(g, true, stream); }
int binary(const ew::Args &g, void *stream) { return run(g, false, stream); }

}  // namespace cuda
}  // namespace ek
