// The loops of cpu/simd.hpp, compiled once per ISA level: meson.build builds
// this file with -DEK_SIMD_ISA=baseline|avx2|avx512 and the matching -m
// flags, each into its own namespace, and simd.cpp picks one table. GCC
// vector types of the level's width; -ffp-contract=off and per-lane
// operations keep every level's arithmetic the same.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <type_traits>

#if defined(__SSE2__)
#include <immintrin.h>
#endif

#include "cpu/simd.hpp"
#include "cpu/typed.hpp"
#include "cpu/vecmath.hpp"
#include "ops/reduce_plan.hpp"
#include "util/half.hpp"

#ifndef EK_SIMD_ISA
#error "EK_SIMD_ISA names the ISA level this copy is built for"
#endif

namespace ek {
namespace cpu {
namespace simd {
namespace EK_SIMD_ISA {
namespace {

// The level's vector of doubles, and of as many floats. GCC's vector
// extensions instead of the auto-vectorizer, whose choices vary with the
// loop's shape; every operation is per lane, so the vector width never
// changes a result.
#if defined(__AVX512F__)
constexpr int kVecBytes = 64;
#elif defined(__AVX2__)
constexpr int kVecBytes = 32;
#else
constexpr int kVecBytes = 16;
#endif
typedef double VecD __attribute__((vector_size(kVecBytes)));
typedef float VecF __attribute__((vector_size(kVecBytes / 2)));
typedef int64_t VecI __attribute__((vector_size(kVecBytes)));
constexpr int64_t kVL = kVecBytes / 8;  // doubles per vector
static_assert(kLanes % kVL == 0, "a leaf's lanes fill whole vectors");

// Element k of a run as a double. A cast, not detail::widen_f32: a NaN stays
// NaN either way, and the cast vectorizes.
template <int DT>
inline double load(const char *p, int64_t k) {
  if constexpr (DT == kF32) {
    float v;
    std::memcpy(&v, p + 4 * k, 4);
    return static_cast<double>(v);
  } else if constexpr (DT == kF64) {
    double v;
    std::memcpy(&v, p + 8 * k, 8);
    return v;
  } else {
    uint16_t h;
    std::memcpy(&h, p + 2 * k, 2);
    return static_cast<double>(DT == kF16 ? half::f16_to_f32(h) : half::bf16_to_f32(h));
  }
}

// Elements k .. k + kVL - 1 as doubles.
template <int DT>
inline VecD load_vec(const char *p, int64_t k) {
  VecD v;
  if constexpr (DT == kF32) {
    VecF f;
    std::memcpy(&f, p + 4 * k, sizeof f);
    v = __builtin_convertvector(f, VecD);
  } else if constexpr (DT == kF64) {
    std::memcpy(&v, p + 8 * k, sizeof v);
  } else {
    for (int64_t l = 0; l < kVL; ++l) v[l] = load<DT>(p, k + l);
  }
  return v;
}

inline double abs_bits(double v) {
  uint64_t u;
  std::memcpy(&u, &v, 8);
  u &= ~(uint64_t(1) << 63);
  std::memcpy(&v, &u, 8);
  return v;
}

// The summed element: v, |v|, v^2 or (v - c)^2, for a double or a vector.
template <int KIND, typename V>
inline V mapped(V v, V c) {
  if constexpr (KIND == kRSumAbs) {
    if constexpr (std::is_same<V, double>::value) {
      return abs_bits(v);
    } else {
      return reinterpret_cast<V>(reinterpret_cast<VecI>(v) & ~(VecI{} + (int64_t(1) << 63)));
    }
  }
  if constexpr (KIND == kRSumSq) return v * v;
  if constexpr (KIND == kRSumSqDev) return (v - c) * (v - c);
  return v;
}

inline VecD load_acc(const double *p) {
  VecD v;
  std::memcpy(&v, p, sizeof v);
  return v;
}
inline void store_acc(double *p, VecD v) { std::memcpy(p, &v, sizeof v); }

// The lanes' balanced tree of adjacent pairs (simd.hpp); lane j at l[j * s].
inline double combine_lanes(const double *l, int64_t s) {
  double t[kLanes];
  for (int64_t j = 0; j < kLanes; ++j) t[j] = l[j * s];
  for (int64_t width = kLanes; width > 1; width /= 2)
    for (int64_t j = 0; j < width / 2; ++j) t[j] = t[2 * j] + t[2 * j + 1];
  return t[0];
}

template <int DT, int KIND>
double leaf(const char *in, int64_t n, double c) {
  constexpr int64_t kVecs = kLanes / kVL;
  VecD acc[kVecs] = {};
  const VecD cv = VecD{} + c;
  int64_t k = 0;
  for (; k + kLanes <= n; k += kLanes)
    for (int64_t u = 0; u < kVecs; ++u) acc[u] += mapped<KIND>(load_vec<DT>(in, k + u * kVL), cv);
  double lane[kLanes];
  for (int64_t u = 0; u < kVecs; ++u) store_acc(lane + u * kVL, acc[u]);
  for (int64_t j = 0; k + j < n; ++j) lane[j] += mapped<KIND>(load<DT>(in, k + j), c);
  return combine_lanes(lane, 1);
}

// Lane by lane: lane j's rows (j, j + kLanes, ...) added into one vector of
// w partials that stays in cache while whole rows stream through, the same
// column of the lane's next row prefetched as a line is read (rows lie far
// apart, the hardware prefetcher would not follow). The same additions in
// the same order per element as lane-interleaved code.
template <int DT, int KIND>
void rows_leaf(const char *in, int64_t row_stride, int64_t rows, int64_t w, const double *c, double *acc,
               double *res) {
  constexpr int64_t kLine = 64 / kSize<DT>;  // elements per cache line
  static_assert(kLine % kVL == 0, "a line holds whole vectors");
  for (int64_t j = 0; j < kLanes; ++j) {
    double *a = acc + j * w;
    std::fill(a, a + w, 0.0);
    for (int64_t k = j; k < rows; k += kLanes) {
      const char *row = in + k * row_stride;
      const char *next = k + kLanes < rows ? row + kLanes * row_stride : row;
      int64_t i = 0;
      for (; i + kLine <= w; i += kLine) {
        __builtin_prefetch(next + i * kSize<DT>);
        for (int64_t u = i; u < i + kLine; u += kVL) {
          const VecD cv = KIND == kRSumSqDev ? load_acc(c + u) : VecD{};
          store_acc(a + u, load_acc(a + u) + mapped<KIND>(load_vec<DT>(row, u), cv));
        }
      }
      for (; i < w; ++i) a[i] += mapped<KIND>(load<DT>(row, i), KIND == kRSumSqDev ? c[i] : 0.0);
    }
  }
  for (int64_t i = 0; i < w; ++i) res[i] = combine_lanes(acc + i, w);
}

typedef float VecW __attribute__((vector_size(kVecBytes)));  // floats of a vector
constexpr int64_t kFL = kVecBytes / 4;

// A vector of floats stored at p; STREAM: p aligned to the vector, bypassing
// the caches.
template <bool STREAM>
inline void store_w(char *p, VecW v) {
  if constexpr (!STREAM) {
    std::memcpy(p, &v, sizeof v);
  } else {
#if defined(__AVX512F__)
    _mm512_stream_ps(reinterpret_cast<float *>(p), reinterpret_cast<__m512>(v));
#elif defined(__AVX__)
    _mm256_stream_ps(reinterpret_cast<float *>(p), reinterpret_cast<__m256>(v));
#elif defined(__SSE2__)
    _mm_stream_ps(reinterpret_cast<float *>(p), reinterpret_cast<__m128>(v));
#endif
  }
}

// out[i] over a float32 run: vec(i) gives elements i .. i + kFL - 1, one(i)
// element i (the same per lane). Whole vectors, two in flight; one() for the
// head before out's alignment (when streaming) and the tail.
template <bool STREAM, typename Vec, typename One>
void store_vectors(char *dst, int64_t n, Vec vec, One one) {
  int64_t i = 0;
  auto scalar = [&](int64_t end) {
    for (; i < end; ++i) {
      const float v = one(i);
      std::memcpy(dst + 4 * i, &v, 4);
    }
  };
  if (STREAM) scalar(std::min<int64_t>(n, (-reinterpret_cast<uintptr_t>(dst) % kVecBytes) / 4));
  for (; i + 2 * kFL <= n; i += 2 * kFL) {
    const VecW v0 = vec(i), v1 = vec(i + kFL);
    store_w<STREAM>(dst + 4 * i, v0);
    store_w<STREAM>(dst + 4 * (i + kFL), v1);
  }
  for (; i + kFL <= n; i += kFL) store_w<STREAM>(dst + 4 * i, vec(i));
  scalar(n);
#if defined(__SSE2__)
  if (STREAM) _mm_sfence();  // the streamed stores are seen before any later one (other threads')
#endif
}

template <typename Vec, typename One>
void store_f32(char *dst, int64_t n, bool stream, Vec vec, One one) {
#if defined(__SSE2__)
  if (stream && reinterpret_cast<uintptr_t>(dst) % 4 == 0) {
    store_vectors<true>(dst, n, vec, one);
    return;
  }
#endif
  store_vectors<false>(dst, n, vec, one);
}

void exp_f32(float *out, const float *in, int64_t n, bool stream) {
  const char *src = reinterpret_cast<const char *>(in);
  store_f32(
      reinterpret_cast<char *>(out), n, stream,
      [src](int64_t i) {
        VecW v;
        std::memcpy(&v, src + 4 * i, sizeof v);
        return vecmath::exp_f32(v);
      },
      [src](int64_t i) {
        float v;  // as the bits are (a signaling NaN stays one, as in a vector lane)
        std::memcpy(&v, src + 4 * i, 4);
        return vecmath::exp_f32(v);
      });
}

// A float32 softmax row (simd.hpp). Rounding: exp in float (vecmath), the
// sum of the exps in double (kLanes lanes, as a sum leaf), the outputs from
// double, rounded once: exp(x - m) * (1 / s), or (x - m) - log(s).
void softmax_f32(float *out, const float *in, int64_t n, int log_softmax) {
  const char *src = reinterpret_cast<const char *>(in);
  char *dst = reinterpret_cast<char *>(out);
  // The max, NaN-propagating: a NaN anywhere makes the row NaN.
  const float inf = __builtin_inff();
  VecW mv = VecW{} - inf;
  int64_t i = 0;
  for (; i + kFL <= n; i += kFL) {
    VecW v;
    std::memcpy(&v, src + 4 * i, sizeof v);
    mv = (v > mv) | (v != v) ? v : mv;
  }
  float m = -inf;
  for (int64_t l = 0; l < kFL; ++l) m = mv[l] > m || mv[l] != mv[l] ? mv[l] : m;
  for (; i < n; ++i) {
    const float v = static_cast<float>(load<kF32>(src, i));
    m = v > m || v != v ? v : m;
  }
  if (m != m) {  // one NaN for the whole row, whichever NaN the input held
    const float nan = __builtin_nanf("");
    for (i = 0; i < n; ++i) std::memcpy(dst + 4 * i, &nan, 4);
    return;
  }
  // exp(x - m), summed in lanes (stored to out for softmax: in == out is fine,
  // the max is known and each x is read before its slot is written).
  double lane[kLanes] = {};
  VecD acc[kLanes / kVL] = {};
  int64_t k = 0;
  for (; k + kLanes <= n; k += kLanes) {
    float e[kLanes];
    for (int64_t u = 0; u < kLanes; u += kFL) {
      VecW v;
      std::memcpy(&v, src + 4 * (k + u), sizeof v);
      v = vecmath::exp_f32(v - m);
      std::memcpy(e + u, &v, sizeof v);
    }
    if (!log_softmax) std::memcpy(dst + 4 * k, e, sizeof e);
    for (int64_t u = 0; u < kLanes / kVL; ++u) acc[u] += load_vec<kF32>(reinterpret_cast<const char *>(e), u * kVL);
  }
  for (int64_t u = 0; u < kLanes / kVL; ++u) store_acc(lane + u * kVL, acc[u]);
  for (int64_t j = 0; k + j < n; ++j) {
    const float e = vecmath::exp_f32(static_cast<float>(load<kF32>(src, k + j)) - m);
    if (!log_softmax) std::memcpy(dst + 4 * (k + j), &e, 4);
    lane[j] += static_cast<double>(e);
  }
  const double sum = combine_lanes(lane, 1);
  // The outputs, in vectors of kVL doubles.
  const double scale = 1.0 / sum, shift = std::log(sum);
  const char *from = log_softmax ? src : dst;
  for (i = 0; i + kVL <= n; i += kVL) {
    const VecD x = load_vec<kF32>(from, i);
    const VecF y = __builtin_convertvector(log_softmax ? (x - static_cast<double>(m)) - shift : x * scale, VecF);
    std::memcpy(dst + 4 * i, &y, sizeof y);
  }
  for (; i < n; ++i) {
    const double x = load<kF32>(from, i);
    const float y = static_cast<float>(log_softmax ? (x - static_cast<double>(m)) - shift : x * scale);
    std::memcpy(dst + 4 * i, &y, 4);
  }
}

// out = a op b on float32 runs; KA/KB: 0 a run, 1 one value (va/vb).
template <int OP, int KA, int KB>
void binary_f32(char *out, const char *a, const char *b, float va, float vb, int64_t n, bool stream) {
  auto op = [](auto x, auto y) {
    if constexpr (OP == 0) return x + y;
    if constexpr (OP == 1) return x - y;
    if constexpr (OP == 2) return x * y;
    return x / y;
  };
  const VecW bva = VecW{} + va, bvb = VecW{} + vb;
  store_f32(
      out, n, stream,
      [=](int64_t i) {
        VecW x = bva, y = bvb;
        if (KA == 0) std::memcpy(&x, a + 4 * i, sizeof x);
        if (KB == 0) std::memcpy(&y, b + 4 * i, sizeof y);
        return op(x, y);
      },
      [=](int64_t i) {
        const float x = KA == 0 ? static_cast<float>(load<kF32>(a, i)) : va;
        const float y = KB == 0 ? static_cast<float>(load<kF32>(b, i)) : vb;
        return op(x, y);
      });
}

}  // namespace

#define EK_KINDS(F, DT) {&F<DT, kRSum>, &F<DT, kRSumAbs>, &F<DT, kRSumSq>, &F<DT, kRSumSqDev>}
extern const Kernels table;
const Kernels table = {
    {EK_KINDS(leaf, kF32), EK_KINDS(leaf, kF64), EK_KINDS(leaf, kF16), EK_KINDS(leaf, kBF16)},
    {EK_KINDS(rows_leaf, kF32), EK_KINDS(rows_leaf, kF64), EK_KINDS(rows_leaf, kF16), EK_KINDS(rows_leaf, kBF16)},
    &exp_f32,
    &softmax_f32,
#define EK_STEPS(OP) {&binary_f32<OP, 0, 0>, &binary_f32<OP, 0, 1>, &binary_f32<OP, 1, 0>}
    {EK_STEPS(0), EK_STEPS(1), EK_STEPS(2), EK_STEPS(3)},
#undef EK_STEPS
};
#undef EK_KINDS

}  // namespace EK_SIMD_ISA
}  // namespace simd
}  // namespace cpu
}  // namespace ek
