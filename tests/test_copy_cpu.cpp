// Tests of the CPU data-movement reference (src/cpu/copy.cpp) against naive,
// independently written references: typed static_casts per dtype pair, and a
// nearest-value search over all f16/bf16 encodings for the rounding.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <random>
#include <vector>

#include "cpu/copy.hpp"
#include "cpu/strided.hpp"
#include "ops/range_plan.hpp"
#include "util/half.hpp"

namespace {
using namespace ek;

int run_arange(const TensorDesc &d, double start, double step, int64_t istart, int64_t istep) {
  return cpu::arange(d, arange_plan(d.dtype, start, step, istart, istep));
}

TensorDesc desc(void *p, int dt, std::vector<int64_t> shape, std::vector<int64_t> strides = {}) {
  TensorDesc t{};
  t.data = p;
  t.dtype = dt;
  t.ndim = static_cast<int>(shape.size());
  int64_t s = 1;
  for (int i = t.ndim - 1; i >= 0; --i) {
    t.shape[i] = shape[i];
    t.strides[i] = strides.empty() ? s : strides[i];
    s *= shape[i];
  }
  return t;
}

// ---- independent half references: decode by formula, encode by nearest search ----
double ref_f16_value(uint16_t h) {  // finite or inf
  int e = (h >> 10) & 31, m = h & 1023;
  double v = e == 31 ? INFINITY : e == 0 ? std::ldexp(m, -24) : std::ldexp(1024 + m, e - 25);
  return (h & 0x8000) ? -v : v;
}
double ref_bf16_value(uint16_t b) {
  uint32_t u = uint32_t(b) << 16;
  float f;
  std::memcpy(&f, &u, 4);
  return f;
}
// Nearest encoding among positive codes [0, max_finite]; the code above max
// (Inf) counts as value 2*max - previous (one more ulp step) for rounding.
template <typename Decode>
uint16_t ref_encode(float x, uint16_t max_finite, uint16_t nan_code, Decode dec) {
  if (std::isnan(x)) return (std::signbit(x) ? 0x8000 : 0) | nan_code;
  uint16_t sign = std::signbit(x) ? 0x8000 : 0;
  double a = std::fabs(double(x));
  auto val = [&](uint32_t c) {
    return c <= max_finite ? dec(uint16_t(c)) : 2 * dec(max_finite) - dec(uint16_t(max_finite - 1));
  };
  uint32_t lo = 0, hi = uint32_t(max_finite) + 1;  // invariant: val(lo) <= a
  if (a >= val(hi)) return sign | uint16_t(hi);
  while (hi - lo > 1) {
    uint32_t mid = (lo + hi) / 2;
    (val(mid) <= a ? lo : hi) = mid;
  }
  double dl = a - val(lo), dh = val(hi) - a;
  uint32_t c = dl < dh ? lo : dh < dl ? hi : ((lo & 1) ? hi : lo);
  return sign | uint16_t(c);
}
uint16_t ref_to_f16(float x) { return ref_encode(x, 0x7bff, 0x7fff, ref_f16_value); }
uint16_t ref_to_bf16(float x) { return ref_encode(x, 0x7f7f, 0x7fc0, ref_bf16_value); }

// ---- typed naive cast reference ----
struct H16 { uint16_t b; };
struct B16 { uint16_t b; };
double as_double(H16 h) { return ref_f16_value(h.b) * ((h.b & 0x7c00) == 0x7c00 && (h.b & 0x3ff) ? NAN : 1.0); }
double as_double(B16 h) { return ref_bf16_value(h.b); }
template <typename S> double as_double(S s) { return static_cast<double>(s); }
template <typename S> constexpr bool is_fp() { return std::is_floating_point<S>::value || std::is_same<S, H16>::value || std::is_same<S, B16>::value; }

// float -> integer D: truncate toward zero, NaN -> 0, saturate (ek.h "Casts").
// long double holds every bound exactly.
template <typename D>
D ref_saturate(double x) {
  if (std::isnan(x)) return 0;
  const long double t = std::trunc(static_cast<long double>(x));
  const long double lo = std::numeric_limits<D>::min(), hi = std::numeric_limits<D>::max();
  return t <= lo ? std::numeric_limits<D>::min() : t >= hi ? std::numeric_limits<D>::max() : static_cast<D>(t);
}

template <typename D, typename S>
D ref_cast(S s) {
  if constexpr (std::is_same<D, bool>::value) {
    return as_double(s) != 0;
  } else if constexpr (std::is_integral<D>::value) {
    if constexpr (is_fp<S>()) return ref_saturate<D>(as_double(s));
    else return static_cast<D>(s);
  } else if constexpr (std::is_same<D, H16>::value || std::is_same<D, B16>::value) {
    float f;
    if constexpr (std::is_integral<S>::value) f = static_cast<float>(s);
    else f = static_cast<float>(as_double(s));
    return D{std::is_same<D, H16>::value ? ref_to_f16(f) : ref_to_bf16(f)};
  } else {
    if constexpr (std::is_integral<S>::value) return static_cast<D>(s);
    else return static_cast<D>(as_double(s));
  }
}

template <typename T> int code();
template <> int code<bool>() { return kBool; }
template <> int code<uint8_t>() { return kU8; }
template <> int code<int8_t>() { return kI8; }
template <> int code<int16_t>() { return kI16; }
template <> int code<int32_t>() { return kI32; }
template <> int code<int64_t>() { return kI64; }
template <> int code<H16>() { return kF16; }
template <> int code<B16>() { return kBF16; }
template <> int code<float>() { return kF32; }
template <> int code<double>() { return kF64; }

// Source values for S: small ones, wrap-around and rounding cases for
// integers, fractions and out-of-range values (which saturate) for floats.
template <typename S> std::vector<S> sample_values() {
  std::vector<double> v = {0, 1, 2, 3, 7, 100, 127};
  if constexpr (std::is_same<S, bool>::value) return {false, true};
  std::vector<S> out;
  for (double d : v) {
    if constexpr (std::is_same<S, H16>::value) out.push_back(H16{ref_to_f16(float(d))});
    else if constexpr (std::is_same<S, B16>::value) out.push_back(B16{ref_to_bf16(float(d))});
    else out.push_back(static_cast<S>(d));
  }
  if constexpr (std::is_signed<S>::value || is_fp<S>()) {
    for (double d : {-1.0, -3.0, -100.0, -128.0}) {
      if constexpr (std::is_same<S, H16>::value) out.push_back(H16{ref_to_f16(float(d))});
      else if constexpr (std::is_same<S, B16>::value) out.push_back(B16{ref_to_bf16(float(d))});
      else out.push_back(static_cast<S>(d));
    }
  }
  if constexpr (std::is_floating_point<S>::value)
    for (double d : {0.5, 2.5, -2.5, 3.7, -3.7, 0.1, 1e-3, 126.99, 300.0, -300.0, 3e9, -3e9, 1e30})
      out.push_back(static_cast<S>(d));
  if constexpr (std::is_same<S, H16>::value)
    for (uint16_t b : {0x3555, 0xb8cd, 0x0001, 0x03ff, 0x3c01}) out.push_back(H16{b});
  if constexpr (std::is_same<S, B16>::value)
    for (uint16_t b : {0x3f81, 0xbfc3, 0x0001, 0x4001}) out.push_back(B16{b});
  if constexpr (std::is_integral<S>::value && sizeof(S) >= 2)  // wrap-around and rounding-to-float cases
    for (int64_t d : {int64_t(300), int64_t(-300), int64_t(2049), int64_t(32767), int64_t(-32768)})
      out.push_back(static_cast<S>(d));
  if constexpr (std::is_integral<S>::value && sizeof(S) >= 4)
    for (int64_t d : {int64_t(16777217), int64_t(-16777219), int64_t(65519), int64_t(70000), int64_t(INT32_MAX)})
      out.push_back(static_cast<S>(d));
  if constexpr (std::is_same<S, int64_t>::value)
    for (int64_t d : {INT64_MAX, INT64_MIN, int64_t(1) << 53 | 1, (int64_t(1) << 60) + 12345})
      out.push_back(d);
  return out;
}

template <typename D, typename S>
void check_pair() {
  std::vector<S> vals = sample_values<S>();
  const size_t n = vals.size();
  std::unique_ptr<S[]> src(new S[n]);  // not std::vector: vector<bool> has no data()
  std::unique_ptr<D[]> dst(new D[n]);
  std::copy(vals.begin(), vals.end(), src.get());
  auto s = desc(src.get(), code<S>(), {int64_t(n)});
  auto d = desc(dst.get(), code<D>(), {int64_t(n)});
  ASSERT_EQ(cpu::copy(d, s), 0);
  for (size_t i = 0; i < n; ++i) {
    D want = ref_cast<D>(src[i]);
    EXPECT_EQ(0, std::memcmp(&want, &dst[i], sizeof(D)))
        << "dtype " << code<S>() << " -> " << code<D>() << " index " << i << " src " << as_double(src[i]);
  }
}

template <typename D>
void check_all_sources() {
  check_pair<D, bool>(); check_pair<D, uint8_t>(); check_pair<D, int8_t>(); check_pair<D, int16_t>();
  check_pair<D, int32_t>(); check_pair<D, int64_t>(); check_pair<D, H16>(); check_pair<D, B16>();
  check_pair<D, float>(); check_pair<D, double>();
}

TEST(CpuCopy, EveryDtypePair) {
  check_all_sources<bool>(); check_all_sources<uint8_t>(); check_all_sources<int8_t>();
  check_all_sources<int16_t>(); check_all_sources<int32_t>(); check_all_sources<int64_t>();
  check_all_sources<H16>(); check_all_sources<B16>(); check_all_sources<float>(); check_all_sources<double>();
}

// Convert a float vector with the library (f32 -> dt) and return the codes.
std::vector<uint16_t> lib_to16(const std::vector<float> &xs, int dt) {
  std::vector<uint16_t> out(xs.size());
  std::vector<float> in = xs;
  cpu::copy(desc(out.data(), dt, {int64_t(out.size())}), desc(in.data(), kF32, {int64_t(in.size())}));
  return out;
}

std::vector<float> rounding_inputs(bool bf) {
  std::vector<float> xs = {0.f, -0.f, INFINITY, -INFINITY, NAN, -NAN, 65504.f, 65519.f, 65520.f, 65536.f, 1e30f,
                           5.9604645e-8f, 2.9802322e-8f, 2.9802326e-8f, 2.9802319e-8f, 6.1035156e-5f, 6.0975552e-5f,
                           1e-45f, std::numeric_limits<float>::max(), 3.3895314e38f, 3.3961776e38f};
  // Every tie and near-tie between adjacent codes of the target format.
  for (uint32_t c = 0; c < 0x7c00u; c += 7) {
    double a = bf ? ref_bf16_value(uint16_t(c)) : ref_f16_value(uint16_t(c));
    double b = bf ? ref_bf16_value(uint16_t(c + 1)) : ref_f16_value(uint16_t(c + 1));
    float mid = float((a + b) / 2);
    xs.insert(xs.end(), {mid, -mid, std::nextafter(mid, 0.f), std::nextafter(mid, INFINITY), float(a)});
  }
  std::mt19937 rng(1);
  for (int i = 0; i < 20000; ++i) {
    uint32_t u = rng();
    float f;
    std::memcpy(&f, &u, 4);
    xs.push_back(f);
  }
  return xs;
}

TEST(CpuCopy, F16RoundingMatchesNearestSearch) {
  auto xs = rounding_inputs(false);
  auto got = lib_to16(xs, kF16);
  for (size_t i = 0; i < xs.size(); ++i) ASSERT_EQ(got[i], ref_to_f16(xs[i])) << "x=" << xs[i] << " i=" << i;
}

TEST(CpuCopy, BF16RoundingMatchesNearestSearch) {
  auto xs = rounding_inputs(true);
  auto got = lib_to16(xs, kBF16);
  for (size_t i = 0; i < xs.size(); ++i) ASSERT_EQ(got[i], ref_to_bf16(xs[i])) << "x=" << xs[i] << " i=" << i;
}

TEST(CpuCopy, AllHalfCodesWidenExactly) {
  for (int dt : {kF16, kBF16}) {
    std::vector<uint16_t> codes(65536);
    for (int i = 0; i < 65536; ++i) codes[i] = uint16_t(i);
    std::vector<double> wide(65536);
    ASSERT_EQ(cpu::copy(desc(wide.data(), kF64, {65536}), desc(codes.data(), dt, {65536})), 0);
    std::vector<uint16_t> back(65536);
    ASSERT_EQ(cpu::copy(desc(back.data(), dt, {65536}), desc(wide.data(), kF64, {65536})), 0);
    for (int i = 0; i < 65536; ++i) {
      double ref = dt == kF16 ? ref_f16_value(uint16_t(i)) : ref_bf16_value(uint16_t(i));
      bool nan = std::isnan(ref) || (dt == kF16 && (i & 0x7c00) == 0x7c00 && (i & 0x3ff));
      if (nan) {
        EXPECT_TRUE(std::isnan(wide[i])) << i;
        EXPECT_EQ(std::signbit(wide[i]), (i & 0x8000) != 0) << i;
        EXPECT_EQ(back[i] & 0x8000, i & 0x8000);
      } else {
        EXPECT_EQ(wide[i], ref) << i;
        EXPECT_EQ(std::signbit(wide[i]), std::signbit(ref)) << i;
        EXPECT_EQ(back[i], i) << "round trip " << i;
      }
    }
  }
}

TEST(CpuCopy, NanAndInfToIntsAndBool) {
  std::vector<float> src = {NAN, INFINITY, -INFINITY, 1e30f, -0.f, 0.25f};
  std::vector<int64_t> i64(src.size());
  std::vector<uint8_t> b(src.size());
  auto s = desc(src.data(), kF32, {6});
  ASSERT_EQ(cpu::copy(desc(i64.data(), kI64, {6}), s), 0);
  ASSERT_EQ(cpu::copy(desc(b.data(), kBool, {6}), s), 0);
  EXPECT_EQ(i64, (std::vector<int64_t>{0, INT64_MAX, INT64_MIN, INT64_MAX, 0, 0}));
  EXPECT_EQ(b, (std::vector<uint8_t>{1, 1, 1, 1, 0, 1}));
}

// Values at and around every integer dtype's bounds, NaN and infinities.
std::vector<double> boundary_values() {
  std::vector<double> v = {NAN, -NAN, INFINITY, -INFINITY, 0.0, -0.0, -0.9, 0.9, -1.0, 3e9, -3e9,
                           1e300, -1e300, 0x1p63, -0x1p63, 0x1p64, -0x1p64};
  v.push_back(std::nextafter(0x1p63, 0.0));  // the largest double below 2^63
  v.push_back(std::nextafter(-0x1p63, -INFINITY));
  for (double b : {128.0, 256.0, 32768.0, 2147483648.0}) {
    for (double d : {-1.5, -1.0, -0.5, 0.0, 0.5})  // max + d + 1 and -(max + 1) + d
      v.insert(v.end(), {b + d, -b + d});
  }
  return v;
}

template <typename D>
void check_saturation() {
  const std::vector<double> xs = boundary_values();
  const int64_t n = int64_t(xs.size());
  std::vector<float> fs(xs.size());
  for (size_t i = 0; i < xs.size(); ++i)  // float copies (out-of-range ones as +-inf)
    fs[i] = std::fabs(xs[i]) > std::numeric_limits<float>::max() ? float(std::copysign(INFINITY, xs[i])) : float(xs[i]);
  std::vector<D> got(xs.size());
  ASSERT_EQ(cpu::copy(desc(got.data(), code<D>(), {n}), desc(const_cast<double *>(xs.data()), kF64, {n})), 0);
  for (int64_t i = 0; i < n; ++i)
    EXPECT_EQ(int64_t(got[i]), int64_t(ref_saturate<D>(xs[i]))) << "f64 " << xs[i] << " -> dtype " << code<D>();
  ASSERT_EQ(cpu::copy(desc(got.data(), code<D>(), {n}), desc(fs.data(), kF32, {n})), 0);
  for (int64_t i = 0; i < n; ++i)
    EXPECT_EQ(int64_t(got[i]), int64_t(ref_saturate<D>(fs[i]))) << "f32 " << fs[i] << " -> dtype " << code<D>();
}

TEST(CpuCopy, FloatToIntSaturatesForEveryIntegerDtype) {
  check_saturation<uint8_t>();
  check_saturation<int8_t>();
  check_saturation<int16_t>();
  check_saturation<int32_t>();
  check_saturation<int64_t>();
  // The cases, spelled out.
  double src[4] = {INFINITY, 3e9, -1.0, 1e300};
  int32_t i32[4];
  uint8_t u8[4];
  ASSERT_EQ(cpu::copy(desc(i32, kI32, {4}), desc(src, kF64, {4})), 0);
  ASSERT_EQ(cpu::copy(desc(u8, kU8, {4}), desc(src, kF64, {4})), 0);
  EXPECT_EQ(std::vector<int32_t>(i32, i32 + 4), (std::vector<int32_t>{INT32_MAX, INT32_MAX, -1, INT32_MAX}));
  EXPECT_EQ(std::vector<uint8_t>(u8, u8 + 4), (std::vector<uint8_t>{255, 255, 0, 255}));
}

// ---- layouts: naive multi-index reference ----
void ref_walk(const TensorDesc &t, int dim, int64_t off, std::vector<int64_t> &out) {
  if (dim == t.ndim) { out.push_back(off); return; }
  for (int64_t i = 0; i < t.shape[dim]; ++i) ref_walk(t, dim + 1, off + i * t.strides[dim], out);
}
std::vector<int64_t> offsets(const TensorDesc &t) {
  std::vector<int64_t> o;
  ref_walk(t, 0, 0, o);
  return o;
}

TEST(CpuCopy, PermutedNegativeBroadcastLayouts) {
  std::vector<float> buf(4 * 5 * 6);
  for (size_t i = 0; i < buf.size(); ++i) buf[i] = float(i) + 0.5f;
  struct Case { std::vector<int64_t> shape, strides; int64_t base; };
  std::vector<Case> cases = {
      {{6, 5, 4}, {1, 6, 30}, 0},            // fully permuted 3-D
      {{4, 30}, {30, 1}, 0},                 // contiguous
      {{5, 6}, {6, 1}, 0},                   // slice
      {{4, 5, 6}, {-30, 6, -1}, 95},         // negative strides
      {{3, 7, 6}, {0, 0, 1}, 4},             // broadcast src
      {{2, 3}, {-1, 0}, 7},                  // negative + broadcast
  };
  for (const auto &c : cases) {
    auto s = desc(buf.data() + c.base, kF32, c.shape, c.strides);
    int64_t n = 1;
    for (auto x : c.shape) n *= x;
    // dst: contiguous f32, transposed f64 (cast), and reversed i32.
    std::vector<float> d1(n);
    ASSERT_EQ(cpu::copy(desc(d1.data(), kF32, c.shape), s), 0);
    auto so = offsets(s);
    for (int64_t i = 0; i < n; ++i) ASSERT_EQ(d1[i], buf[c.base + so[i]]);
    std::vector<double> d2(n, -1);
    std::vector<int64_t> tstr(c.shape.size());
    int64_t st = 1;
    for (size_t k = 0; k < c.shape.size(); ++k) { tstr[k] = st; st *= c.shape[k]; }  // Fortran order
    auto d2d = desc(d2.data(), kF64, c.shape, tstr);
    ASSERT_EQ(cpu::copy(d2d, s), 0);
    auto d2o = offsets(d2d);
    for (int64_t i = 0; i < n; ++i) ASSERT_EQ(d2[d2o[i]], double(buf[c.base + so[i]]));
    std::vector<int32_t> d3(n);
    std::vector<int64_t> rstr(c.shape.size());
    st = 1;
    for (int k = int(c.shape.size()) - 1; k >= 0; --k) { rstr[k] = -st; st *= c.shape[k]; }
    auto d3d = desc(d3.data() + n - 1, kI32, c.shape, rstr);
    ASSERT_EQ(cpu::copy(d3d, s), 0);
    auto d3o = offsets(d3d);
    for (int64_t i = 0; i < n; ++i) ASSERT_EQ(d3[n - 1 + d3o[i]], int32_t(buf[c.base + so[i]]));
  }
}

// Transposes of the two innermost dims (copy.cpp's tiles, in bands over
// threads for the large ones): every element size, sizes that leave partial
// tiles and bands, outer dims, a padded dst row, a reversed src column step.
TEST(CpuCopy, TransposesInTilesAndBands) {
  struct Case { std::vector<int64_t> shape, src_strides, dst_strides; int64_t base; };
  const std::vector<Case> cases = {
      {{37, 131}, {1, 37}, {}, 0},                    // partial tiles both ways
      {{3, 21, 70}, {1470, 1, 21}, {}, 0},            // an outer dim
      {{21, 70}, {1, 21}, {80, 1}, 0},                // dst rows 80 apart
      {{21, 70}, {1, -21}, {}, 21 * 69},              // src columns reversed
      {{64, 64}, {1, 64}, {}, 0},                     // whole tiles
      {{613, 1031}, {1, 613}, {}, 0},                 // split over threads: bands of one plane
      {{5, 301, 307}, {92407, 1, 301}, {}, 0},        // bands of several planes
      {{40, 17, 401}, {6817, 1, 17}, {}, 0},          // more planes than chunks
  };
  for (int dt : {kU8, kF16, kF32, kF64})
    for (const Case &c : cases)
      for (int threads : {1, 2, 4}) {
        const auto es = static_cast<int64_t>(dtype_size(dt));
        int64_t n = 1;
        for (int64_t x : c.shape) n *= x;
        std::vector<uint8_t> src(static_cast<size_t>(n * es)), dst(static_cast<size_t>(n * es * 2), 0xee);
        for (size_t i = 0; i < src.size(); ++i) src[i] = static_cast<uint8_t>(i * 131 + i / 7);
        const TensorDesc s = desc(src.data() + c.base * es, dt, c.shape, c.src_strides);
        const TensorDesc d = desc(dst.data(), dt, c.shape, c.dst_strides);
        ASSERT_EQ(cpu::copy(d, s, nullptr, threads), 0);
        const auto so = offsets(s), dof = offsets(d);
        for (size_t i = 0; i < so.size(); ++i)
          ASSERT_EQ(std::memcmp(dst.data() + dof[i] * es, src.data() + (c.base + so[i]) * es, es), 0)
              << "dtype " << dt << " case " << (&c - cases.data()) << " threads " << threads << " i " << i;
      }
}

TEST(CpuCopy, ZeroDimAndZeroSize) {
  double a = 2.75;
  int16_t b = -1;
  ASSERT_EQ(cpu::copy(desc(&b, kI16, {}), desc(&a, kF64, {})), 0);
  EXPECT_EQ(b, 2);
  std::vector<int8_t> dst(4, 9);
  ASSERT_EQ(cpu::copy(desc(dst.data(), kI8, {3, 0}), desc(nullptr, kF32, {3, 0})), 0);
  ASSERT_EQ(cpu::copy(desc(nullptr, kI8, {0}), desc(nullptr, kI8, {0})), 0);
  ASSERT_EQ(cpu::fill(desc(nullptr, kF16, {0, 5}), 0x3c00), 0);
  ASSERT_EQ(run_arange(desc(nullptr, kI64, {0}), 0, 1, 0, 1), 0);
  EXPECT_EQ(dst, std::vector<int8_t>(4, 9));
  float f = 0, g = 1.5f;
  uint32_t g_bits;
  std::memcpy(&g_bits, &g, 4);
  ASSERT_EQ(cpu::fill(desc(&f, kF32, {}), g_bits), 0);
  EXPECT_EQ(f, 1.5f);
}

TEST(CpuCopy, RejectsBadArguments) {
  float x[4] = {};
  EXPECT_NE(cpu::copy(desc(x, EK_NUM_DTYPES, {4}), desc(x, kF32, {4})), 0);
  EXPECT_NE(cpu::copy(desc(x, kF32, {4}), desc(x, kF32, {2, 2})), 0);
  EXPECT_NE(cpu::fill(desc(x, -1, {4}), 0), 0);
  auto bad = desc(x, kF32, {4});
  bad.ndim = 9;
  EXPECT_NE(run_arange(bad, 0, 1, 0, 1), 0);
}

// An element of dt for v (detail::scalar_element), or nullopt-like false.
template <typename T>
bool element(ek_scalar v, int dt, T *out) {
  uint64_t bits = 0;
  if (!detail::scalar_element(v, dt, &bits)) return false;
  std::memcpy(out, &bits, sizeof(T));
  return true;
}
ek_scalar sf(double f) { ek_scalar v{}; v.kind = EK_SCALAR_FLOAT64; v.f = f; return v; }
ek_scalar si(int64_t i) { ek_scalar v{}; v.kind = EK_SCALAR_INT64; v.i = i; return v; }
ek_scalar su(uint64_t u) { ek_scalar v{}; v.kind = EK_SCALAR_UINT64; v.u = u; return v; }

TEST(CpuFill, EveryDtypeAndStrided) {
  int64_t big = (int64_t(1) << 62) + 1;
  std::vector<int64_t> i64(6, 0);
  uint64_t elem = 0;
  ASSERT_TRUE(detail::scalar_element(si(big), kI64, &elem));
  ASSERT_EQ(cpu::fill(desc(i64.data(), kI64, {3}, {2}), elem), 0);
  EXPECT_EQ(i64, (std::vector<int64_t>{big, 0, big, 0, big, 0}));
  uint16_t h[3];
  ASSERT_TRUE(detail::scalar_element(sf(0.1), kF16, &elem));
  ASSERT_EQ(cpu::fill(desc(h, kF16, {3}), elem), 0);
  EXPECT_EQ(h[2], ref_to_f16(0.1f));
  double d[4] = {};
  ASSERT_TRUE(detail::scalar_element(sf(0.3), kF64, &elem));
  ASSERT_EQ(cpu::fill(desc(d + 3, kF64, {2, 2}, {-2, 0}), elem), 0);  // negative + broadcast dst
  EXPECT_EQ(d[3], 0.3);
  EXPECT_EQ(d[1], 0.3);
  EXPECT_EQ(d[0], 0.0);
}

// The scalar -> element rule (ek.h ek_scalar) against values worked by hand.
TEST(ScalarElement, ExactWhereItFitsRefusedWhereItDoesNot) {
  int64_t i64 = 0;
  EXPECT_TRUE(element(si((int64_t(1) << 60) + 1), kI64, &i64));
  EXPECT_EQ(i64, (int64_t(1) << 60) + 1);
  EXPECT_TRUE(element(su(uint64_t(INT64_MAX)), kI64, &i64));
  EXPECT_EQ(i64, INT64_MAX);
  EXPECT_FALSE(element(su(uint64_t(INT64_MAX) + 1), kI64, &i64));
  EXPECT_FALSE(element(sf(9.25e18), kI64, &i64));
  EXPECT_FALSE(element(sf(0x1p63), kI64, &i64));
  EXPECT_TRUE(element(sf(-0x1p63), kI64, &i64));
  EXPECT_EQ(i64, INT64_MIN);
  int8_t i8 = 0;
  EXPECT_FALSE(element(si(300), kI8, &i8));
  EXPECT_FALSE(element(si(-129), kI8, &i8));
  EXPECT_FALSE(element(sf(128.0), kI8, &i8));
  EXPECT_FALSE(element(sf(NAN), kI8, &i8));
  EXPECT_FALSE(element(sf(INFINITY), kI8, &i8));
  EXPECT_TRUE(element(sf(127.9), kI8, &i8));
  EXPECT_EQ(i8, 127);
  EXPECT_TRUE(element(sf(-128.9), kI8, &i8));
  EXPECT_EQ(i8, -128);
  uint8_t u8 = 9;
  EXPECT_FALSE(element(si(-1), kU8, &u8));
  EXPECT_FALSE(element(si(256), kU8, &u8));
  EXPECT_TRUE(element(sf(-0.5), kU8, &u8));
  EXPECT_EQ(u8, 0);
  int32_t i32 = 0;
  EXPECT_FALSE(element(sf(3e9), kI32, &i32));
  EXPECT_TRUE(element(sf(-2147483648.5), kI32, &i32));
  EXPECT_EQ(i32, INT32_MIN);
  EXPECT_FALSE(element(sf(-2147483649.0), kI32, &i32));
  int16_t i16 = 0;
  EXPECT_FALSE(element(su(~uint64_t(0)), kI16, &i16));
  // bool: value != 0.
  uint8_t b = 7;
  EXPECT_TRUE(element(si(2), kBool, &b));
  EXPECT_EQ(b, 1);
  EXPECT_TRUE(element(sf(NAN), kBool, &b));
  EXPECT_EQ(b, 1);
  EXPECT_TRUE(element(sf(-0.0), kBool, &b));
  EXPECT_EQ(b, 0);
  // Floats: one rounding from the exact value.
  float f = 0;
  EXPECT_TRUE(element(su((uint64_t(1) << 63) + (uint64_t(1) << 39) + 1), kF32, &f));
  EXPECT_EQ(f, 0x1p63f + 0x1p40f);  // through a double it would tie and round down to 2^63
  EXPECT_TRUE(element(si(16777217), kF32, &f));
  EXPECT_EQ(f, 16777216.0f);
  double d = 0;
  EXPECT_TRUE(element(si((int64_t(1) << 53) + 1), kF64, &d));
  EXPECT_EQ(d, 0x1p53);
  uint16_t h = 0;
  EXPECT_TRUE(element(sf(1e10), kF16, &h));
  EXPECT_EQ(h, 0x7c00);
  EXPECT_TRUE(element(si(30001), kF16, &h));
  EXPECT_EQ(h, ref_to_f16(30001.0f));
  EXPECT_TRUE(element(sf(-0.1), kBF16, &h));
  EXPECT_EQ(h, ref_to_bf16(-0.1f));
  ek_scalar bad = si(1);
  bad.kind = static_cast<ek_scalar_kind>(4);
  EXPECT_FALSE(element(bad, kF32, &f));
}

TEST(CpuArange, FloatIntAndStrided) {
  std::vector<double> d(7);
  ASSERT_EQ(run_arange(desc(d.data(), kF64, {7}), 0.5, 0.1, 0, 0), 0);
  for (int i = 0; i < 7; ++i) {
    volatile double p = i * 0.1;
    EXPECT_EQ(d[i], 0.5 + p);
  }
  std::vector<int64_t> q(4);
  int64_t base = (int64_t(1) << 60) + 3;
  ASSERT_EQ(run_arange(desc(q.data(), kI64, {4}), 0, 0, base, -5), 0);
  for (int i = 0; i < 4; ++i) EXPECT_EQ(q[i], base - 5 * i);
  // Transposed dst: element i (C order of dst's shape (2,3)) lands at strides (1,2).
  std::vector<int16_t> t(6);
  ASSERT_EQ(run_arange(desc(t.data(), kI16, {2, 3}, {1, 2}), 0, 0, 10, 1), 0);
  EXPECT_EQ(t, (std::vector<int16_t>{10, 13, 11, 14, 12, 15}));
  std::vector<uint16_t> h(3);
  ASSERT_EQ(run_arange(desc(h.data(), kF16, {3}), 1.0, 1.0 / 3, 0, 0), 0);
  EXPECT_EQ(h[1], ref_to_f16(float(1.0 + 1.0 / 3)));
  uint8_t bl[3];
  ASSERT_EQ(run_arange(desc(bl, kBool, {3}), 0, 0, -1, 1), 0);
  EXPECT_EQ(bl[0], 1);
  EXPECT_EQ(bl[1], 0);
  EXPECT_EQ(bl[2], 1);
}

// A size-1 dim with a stride near INT64_MAX / 4 (INT64_MAX - 3 bytes for
// float32), on the source or the destination: the walk must never form an
// offset past the last element (the copy overflowed int64 once, fuzz_views).
TEST(CpuCopy, HugeStrideOfASizeOneDim) {
  float src[2] = {1.5f, -2.f}, dst[2] = {};
  auto huge = desc(src, kF32, {2, 1}, {1, INT64_MAX / 4});
  ASSERT_EQ(cpu::copy(desc(dst, kF32, {2, 1}), huge), 0);
  EXPECT_EQ(dst[1], -2.f);
  double wide[2] = {};
  ASSERT_EQ(cpu::copy(desc(wide, kF64, {2, 1}, {1, INT64_MAX / 8}), huge), 0);  // with a cast
  EXPECT_EQ(wide[0], 1.5);
  EXPECT_EQ(wide[1], -2.0);
  uint64_t four = 0;
  const float f4 = 4.f;
  std::memcpy(&four, &f4, sizeof f4);
  ASSERT_EQ(cpu::fill(desc(dst, kF32, {2, 1}, {1, INT64_MAX / 4}), four), 0);
  EXPECT_EQ(dst[1], 4.f);
  ASSERT_EQ(run_arange(desc(dst, kF32, {1, 2}, {INT64_MAX / 4, 1}), 3, 1, 0, 0), 0);
  EXPECT_EQ(dst[1], 4.f);
}

// The shared walk (cpu/strided.hpp): C order, each tensor's own byte
// offsets, the same visits whether or not its dims are coalesced.
TEST(CpuStrided, VisitsInCOrderWithOrWithoutCoalescing) {
  const int64_t shape[4] = {2, 1, 3, 2};
  int32_t a[12], b[12];
  auto ta = desc(a, kI32, {2, 1, 3, 2});                            // contiguous
  auto tb = desc(b + 11, kI16, {2, 1, 3, 2}, {-1, 99, -4, 2});      // permuted, reversed
  const TensorDesc *both[2] = {&ta, &tb};
  for (bool merge : {false, true}) {
    cpu::Strided<2> w(4, shape, both);
    if (merge) w.coalesce();
    std::vector<int64_t> seen_a, seen_b;
    std::vector<std::vector<int64_t>> coords;
    w.for_each([&](const int64_t *off, const int64_t *idx) {
      seen_a.push_back(off[0]);
      seen_b.push_back(off[1]);
      coords.emplace_back(idx, idx + w.ndim);
    });
    ASSERT_EQ(seen_a.size(), 12u);
    int i = 0;
    for (int64_t d0 = 0; d0 < 2; ++d0)
      for (int64_t d2 = 0; d2 < 3; ++d2)
        for (int64_t d3 = 0; d3 < 2; ++d3, ++i) {
          EXPECT_EQ(seen_a[i], i * 4) << "element " << i;
          EXPECT_EQ(seen_b[i], (-d0 - 4 * d2 + 2 * d3) * 2) << "element " << i;
          if (!merge) {
            EXPECT_EQ(coords[i], (std::vector<int64_t>{d0, 0, d2, d3}));
          }
        }
  }
  cpu::Strided<1> flat(4, shape, {&ta});
  flat.coalesce();
  EXPECT_EQ(flat.ndim, 1);  // a contiguous layout walks as one flat loop
  EXPECT_EQ(flat.shape[0], 12);
  cpu::Strided<1> scalar(0, shape, {&ta});
  int visits = 0;
  scalar.for_each([&](const int64_t *off, const int64_t *) { visits += off[0] == 0; });
  EXPECT_EQ(visits, 1);  // a 0-d tensor is one element
  const int64_t empty[2] = {3, 0};
  cpu::Strided<1> none(2, empty, {&ta});
  none.for_each([&](const int64_t *, const int64_t *) { ++visits; });
  EXPECT_EQ(visits, 1);
}

}  // namespace
