// CUDA kernels of ek_where / ek_clamp / ek_lerp / ek_axpby.
//
// As kernels/elementwise.cu: the host coalesces the layout (src/ops/layout.hpp),
// then picks a path:
//   * fast: out and every operand one unit-stride run, x/y of out's dtype
//     (f32, f16 or bf16), cond of one byte (bool, uint8, int8), all aligned to
//     their vector -> 16-byte loads of x/y, one vector in flight per thread
//     (clamp: kVecUnroll), math in f32, the op a compile-time parameter;
//   * strided: any layout/dtypes, operands converted to the compute type
//     (float, double or int64) through run-time dtype switches, offsets from
//     OffsetCalc (strided.cuh; 32-bit index math when everything fits).
#include "kernels/ternary.cuh"

#include <cuda_runtime.h>

#include <type_traits>

#include "kernels/storage_types.cuh"
#include "kernels/strided.cuh"

namespace ek {
namespace cuda {
namespace {

constexpr int kSlots = 4;  // out, cond, x, y

// ---------------------------------------------------------------- layouts --

// The four tensors over out's shape; an unused operand has a null pointer and
// zero strides.
struct Layout : Geometry<kSlots> {
  char *ptr[kSlots] = {};
  int dt[kSlots] = {};
};

Layout make_layout(const tern::Args &g) {
  Layout L;
  const TensorDesc *t[kSlots] = {&g.out, &g.cond, &g.x, &g.y};
  for (int k = 0; k < kSlots; ++k) {
    L.ptr[k] = static_cast<char *>(t[k]->data);
    L.dt[k] = t[k]->dtype;
  }
  L.ndim = g.out.ndim;
  for (int i = 0; i < g.out.ndim; ++i) {
    L.shape[i] = g.out.shape[i];
    for (int k = 0; k < kSlots; ++k) L.st[k][i] = L.ptr[k] ? t[k]->strides[i] : 0;
  }
  L.coalesce_1d();
  return L;
}

// --------------------------------------------------------------- fast path --

struct FastArgs {
  char *out;
  const char *cond, *x, *y;  // null: unused by the op
  float c0, c1;
  int64_t nvec, n;
};

// One element of the tail past the last whole vector.
template <int DT, int OP>
__device__ __forceinline__ void fast_scalar(const FastArgs &f, int64_t i) {
  using R = RawF<DT>;
  const bool c = f.cond && f.cond[i] != 0;
  const float x = to_f32<DT>(reinterpret_cast<const R *>(f.x)[i]);
  const float y = f.y ? to_f32<DT>(reinterpret_cast<const R *>(f.y)[i]) : 0.f;
  reinterpret_cast<R *>(f.out)[i] = from_f32<DT>(tern::apply<float>(OP, c, x, y, f.c0, f.c1));
}

// Vectors a thread keeps in flight: one for the ops that read two or three
// tensors. On the H100 where with kVecUnroll ran at 0.82x (bfloat16), 0.84x
// (float16) and 0.99x (float32) PyTorch's, with one at 1.00-1.01x; lerp
// was level either way, and clamp (one tensor) at 0.94x with one in
// bfloat16 (bench/RESULTS.md, session 17).
template <int OP>
constexpr int fast_unroll() {
  return OP == tern::kClamp ? kVecUnroll : 1;
}

template <int DT, int OP>
__global__ void __launch_bounds__(kThreads) fast_kernel(FastArgs f) {
  // N elements of x/y (16 bytes) and the N one-byte conditions that go with them.
  using V = Vec<RawF<DT>>;
  constexpr int N = V::kN;
  using C = Vec<uint8_t, N>;
  const V *vx = reinterpret_cast<const V *>(f.x), *vy = reinterpret_cast<const V *>(f.y);
  const C *vc = reinterpret_cast<const C *>(f.cond);
  V *vo = reinterpret_cast<V *>(f.out);
  constexpr int U = fast_unroll<OP>();
  const int64_t chunk = int64_t(kThreads) * U;
  for (int64_t base = blockIdx.x * chunk + threadIdx.x; base < f.nvec; base += int64_t(gridDim.x) * chunk) {
    V xa[U], ya[U];
    C ca[U];
#pragma unroll
    for (int k = 0; k < U; ++k) {  // all loads first: several in flight
      const int64_t j = base + k * kThreads;
      if (j < f.nvec) {
        xa[k] = vx[j];
        if (vy) ya[k] = vy[j];
        if (vc) ca[k] = vc[j];
      }
    }
#pragma unroll
    for (int k = 0; k < U; ++k) {
      const int64_t j = base + k * kThreads;
      if (j >= f.nvec) continue;
      V r;
#pragma unroll
      for (int e = 0; e < N; ++e) {
        const bool c = vc && ca[k].v[e] != 0;
        const float y = vy ? to_f32<DT>(ya[k].v[e]) : 0.f;
        r.v[e] = from_f32<DT>(tern::apply<float>(OP, c, to_f32<DT>(xa[k].v[e]), y, f.c0, f.c1));
      }
      vo[j] = r;
    }
  }
  const int64_t i = f.nvec * N + int64_t(blockIdx.x) * kThreads + threadIdx.x;
  if (i < f.n) fast_scalar<DT, OP>(f, i);
}

template <int DT, int OP>
int launch_fast(const FastArgs &f, cudaStream_t st) {
  const unsigned blocks = grid_for_vec(f.nvec, int64_t(kThreads) * fast_unroll<OP>(), f.n - f.nvec * Vec<RawF<DT>>::kN);
  fast_kernel<DT, OP><<<blocks, kThreads, 0, st>>>(f);
  return cudaGetLastError();
}

template <int DT>
int fast_dispatch(const FastArgs &f, int op, cudaStream_t st) {
  switch (op) {
    case tern::kWhere: return launch_fast<DT, tern::kWhere>(f, st);
    case tern::kClamp: return launch_fast<DT, tern::kClamp>(f, st);
    case tern::kLerp: return launch_fast<DT, tern::kLerp>(f, st);
    default: return launch_fast<DT, tern::kAxpby>(f, st);
  }
}

bool fast_operand_ok(const Layout &L, int k, int dt, int align) {
  if (!L.ptr[k]) return true;
  return L.dt[k] == dt && L.st[k][0] == 1 && vec_width(reinterpret_cast<uintptr_t>(L.ptr[k])) >= align;
}

// One unit-stride run everywhere, x/y of out's 16- or 32-bit float dtype, a
// one-byte cond, every operand aligned to its vector.
bool try_fast(const tern::Args &g, const Layout &L, int64_t n, cudaStream_t st, int *rc) {
  const int dt = L.dt[0];
  if (g.compute != ew::kCF32 || L.ndim != 1 || (dt != kF32 && dt != kF16 && dt != kBF16)) return false;
  const int per_vec = kVecBytes / int(dtype_size(dt));
  const int cond_dt = L.ptr[1] && dtype_size(L.dt[1]) == 1 ? L.dt[1] : -1;
  if (L.ptr[1] && !fast_operand_ok(L, 1, cond_dt, per_vec)) return false;
  for (int k : {0, 2, 3})
    if (!fast_operand_ok(L, k, dt, kVecBytes)) return false;
  FastArgs f{L.ptr[0], L.ptr[1], L.ptr[2], L.ptr[3], float(g.cf[0]), float(g.cf[1]), n / per_vec, n};
  if (dt == kF32) *rc = fast_dispatch<kF32>(f, g.op, st);
  else if (dt == kF16) *rc = fast_dispatch<kF16>(f, g.op, st);
  else *rc = fast_dispatch<kBF16>(f, g.op, st);
  return true;
}

// ------------------------------------------------------------ strided path --

template <typename U>
struct StridedArgs {
  OffsetCalc<U, kSlots> oc;
  int op;
  int dt[kSlots], es[kSlots];
  char *ptr[kSlots];
  double cf[2];
  int64_t ci[2];
};

template <typename T, typename U>
__global__ void __launch_bounds__(kThreads) strided_kernel(StridedArgs<U> k, U n) {
  using S = typename OffsetCalc<U, kSlots>::S;
  struct Operands {
    bool c;
    T x, y;
  };
  T c0, c1;
  if constexpr (T(0.5) == T(0)) c0 = k.ci[0], c1 = k.ci[1];
  else c0 = T(k.cf[0]), c1 = T(k.cf[1]);
  strided_walk(
      k.oc, n,
      [&](const S (&off)[kSlots]) {  // the loads only, as in elementwise.cu
        const char *p[kSlots];
#pragma unroll
        for (int t = 0; t < kSlots; ++t) p[t] = k.ptr[t] + int64_t(off[t]) * k.es[t];
        Operands v;
        v.c = k.ptr[1] && tern::is_true(p[1], k.dt[1]);
        v.x = ew::load_as<T>(p[2], k.dt[2]);
        v.y = k.ptr[3] ? ew::load_as<T>(p[3], k.dt[3]) : T(0);
        return v;
      },
      [&](S o, const Operands &v) {
        ew::store_as<T>(k.ptr[0] + int64_t(o) * k.es[0], k.dt[0],
                        tern::apply<T>(k.op, v.c, v.x, v.y, c0, c1));
      });
}

template <typename U>
StridedArgs<U> strided_args(const tern::Args &g, const Layout &L) {
  StridedArgs<U> k{};
  k.oc = make_calc<U>(L);
  k.op = g.op;
  for (int t = 0; t < kSlots; ++t) {
    k.ptr[t] = L.ptr[t];
    k.dt[t] = L.dt[t];
    k.es[t] = L.ptr[t] ? int(dtype_size(L.dt[t])) : 0;
  }
  for (int j = 0; j < 2; ++j) {
    k.cf[j] = g.cf[j];
    k.ci[j] = g.ci[j];
  }
  return k;
}

template <typename T, typename U>
int launch_strided(const tern::Args &g, const Layout &L, int64_t n, cudaStream_t st) {
  strided_kernel<T, U><<<grid_for(n, int64_t(kThreads) * kStridedUnroll), kThreads, 0, st>>>(strided_args<U>(g, L), U(n));
  return cudaGetLastError();
}

template <typename T>
int strided(const tern::Args &g, const Layout &L, int64_t n, cudaStream_t st) {
  return L.fits_32bit() ? launch_strided<T, uint32_t>(g, L, n, st) : launch_strided<T, uint64_t>(g, L, n, st);
}

}  // namespace

int ternary(const tern::Args &g, void *stream) {
  if (!desc_valid(g.out) || g.x.data == nullptr) return cudaErrorInvalidValue;
  const int64_t n = desc_numel(g.out);
  if (n == 0) return cudaSuccess;
  cudaStream_t st = static_cast<cudaStream_t>(stream);
  const Layout L = make_layout(g);
  int rc = 0;
  if (try_fast(g, L, n, st, &rc)) return rc;
  return ew::with_compute(
      g.compute, [&](auto t) { return strided<decltype(t)>(g, L, n, st); },
      int(cudaErrorInvalidValue));
}

}  // namespace cuda
}  // namespace ek
