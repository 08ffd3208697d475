// One conformance table for the backends, in the spirit of ggml's
// test-backend-ops: each row names an op, the dtypes, shapes and layouts it
// runs on, and the tolerance of its results. A row's inputs are built once
// per (dtype, shapes, layout) on the host as bytes (random values rounded to
// the dtype by the CPU backend's cast, or raw bit patterns), uploaded to each
// context unchanged, then viewed in the layout under test:
//  - LayoutInvariance (every run, the CI's CPU-only one included): on the CPU
//    backend the op on each strided view gives what it gives on a contiguous
//    copy of the same values;
//  - CudaMatchesCpu (EK_TEST_DEVICE=cuda or all): the same bytes and views on
//    CUDA against the CPU backend. Skipped, with the reason, when the run
//    leaves CUDA out or finds no GPU; with EK_REQUIRE_GPU=1 no GPU fails.
//
// Layouts: contiguous; offset (contiguous, one element past the buffer's start,
// so vector loads are misaligned); transposed (the last two dims of a buffer stored the
// other way round); stepped (every other element of the last dim); reversed
// (dim 0 walked with step -1); expanded (dim 0 a stride-0 broadcast of one
// row). Indices that must stay distinct, and outputs written in place, keep
// their inputs contiguous (Input::strided).
//
// Tolerances (Tol), per output dtype f16 / bf16 / f32 / f64; a result is
// within tolerance when |got - want| <= rel * max(1, |want|, magnitude), NaN
// matches NaN and an infinity itself; integer and bool outputs are always
// compared exactly:
//  - kExact: the same bytes (any NaN matching any NaN). Moves, copies, casts,
//    comparisons, selection (where, clamp, max/min/arg*), indexing, random
//    numbers (ek.h: the Philox mapping is the same on both backends) and lerp
//    and axpby (ek.h: one fused multiply-add per product on both).
//  - kUlps 2e-3 / 1.6e-2 / 1e-5 / 1e-12: elementwise float math. CUDA's
//    libdevice and the host's libm differ by a few ulp in f32 and f64; f16 and
//    bf16 compute in f32 and round once, so such a difference can move the
//    rounded result by one ulp of the narrow type (2^-10, 2^-7), doubled.
//  - kAccumulate 2e-3 / 1.6e-2 / 2e-5 / 1e-12, relative to the magnitude (the
//    same op on |x| in f64) where Row::magnitude: reductions, scans, softmax,
//    var/std. The backends sum in different orders (CUDA trees in f32, the CPU
//    in f64 for f32 scans), so errors grow with the sum of |x|, not with the
//    result, which cancellation can make small.
//  - kProduct 2e-3 / 1.6e-2 / 4e-4 / 1e-12: products (prod, cumprod) of
//    factors in [0.999, 1.001), in different orders. Each f32 rounding adds
//    up to 2^-25 relative error; they add up like a random walk, measured
//    2e-5 on the H100 over 2000 factors; 4e-4 keeps a 20x margin, still under
//    one factor's own weight (up to 1e-3).
//  - kMatmul 2e-3 / 1e-2 / 2e-4 / 1e-12, relative to |a| @ |b|: the bound of
//    test_matmul.cpp, 2 (u_out + (k + 1) u_acc), for k up to 1024 (cuBLAS
//    accumulates f16/bf16/f32 in f32; TF32 stays off, the default).
#include <algorithm>
#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include <gtest/gtest-spi.h>

#include "ek_test.hpp"

using ektest::Shape;
using ektest::Tensor;
using ektest::Values;

namespace {

// ---------------------------------------------------------------- the table's vocabulary

// Value generators. Integers stay small so that sums and products of a few
// are exact in every dtype; floats are uniform unless the op needs a domain.
enum class Gen {
  kPlain,     // floats [-4, 4); signed -50..50; uint8 0..100; bool 0/1
  kSpecials,  // kPlain with NaN, +-inf, +-0, halves and overflowing values mixed in
  kUnit,      // floats [-1, 1) with kSpecials' values mixed in; others as kPlain
  kPositive,  // floats [0.1, 4); integers 1..50
  kNonzero,   // kPositive with either sign (divisors)
  kNearOne,   // floats [0.999, 1.001) (products); integers as kPlain
  kSmallInt,  // integers -16..16 in every dtype (uint8 0..32): exact sums
  kShift,     // 0..7 (shift amounts)
  kSparse,    // kPlain with 70% zeros
  kBits,      // raw bit patterns (floats finite, bool 0/1), int64 over its whole range
  kIndex,     // in [-n, n), n = the size of input `of` along dim `dim`
  kUnique,    // kIndex with no index repeated along this input's dim `dim`
};

struct Input {
  Gen gen = Gen::kPlain;
  int dtype = -1;        // -1: the row's dtype
  bool strided = true;   // takes the layout under test
  int of = 0, dim = -1;  // kIndex, kUnique: input `of` along dim (-1: the set's dims[0])
};

// One set of shapes (one per input) with the op's dims and keepdim.
struct Set {
  Set(std::vector<Shape> s, std::vector<int> d = {}, int k = 0) : shapes(std::move(s)), dims(std::move(d)), keepdim(k) {}
  std::vector<Shape> shapes;
  std::vector<int> dims;
  int keepdim;
};

enum Layout { kContiguous, kOffset, kTransposed, kStepped, kReversed, kExpanded, kNumLayouts };
const char *const kLayoutNames[] = {"contiguous", "offset", "transposed", "stepped", "reversed", "expanded"};

struct Tol {
  bool exact;
  double rel[4];  // f16, bf16, f32, f64 outputs
};
const Tol kExact{true, {0, 0, 0, 0}};
const Tol kUlps{false, {2e-3, 1.6e-2, 1e-5, 1e-12}};
const Tol kAccumulate{false, {2e-3, 1.6e-2, 2e-5, 1e-12}};
const Tol kProduct{false, {2e-3, 1.6e-2, 4e-4, 1e-12}};
const Tol kMatmul{false, {2e-3, 1e-2, 2e-4, 1e-12}};

using Outs = std::vector<ek_tensor>;
using Runner = std::function<ek_status(const std::vector<ek_tensor> &in, const Set &set, Outs *out)>;

struct Row {
  std::string name;
  std::vector<ek_dtype> dtypes;
  std::vector<Input> inputs;
  std::vector<Set> sets;
  Runner run;
  Tol tol = kExact;
  bool magnitude = false;   // scale float errors by the op on |inputs|
  bool expandable = true;   // kExpanded applies (ops that write their input refuse it)
};

// ---------------------------------------------------------------- inputs

uint32_t lcg(uint32_t &seed) {
  seed = seed * 1664525u + 1013904223u;
  return seed >> 8;
}

double special(uint32_t r) {
  const double inf = std::numeric_limits<double>::infinity();
  const double s[] = {std::nan(""), inf, -inf, 0.0, -0.0, 2.5, -0.5, 3e9, -3e9, 300, -1, 65520, 1e-8};
  return s[r % (sizeof s / sizeof *s)];
}

double draw(Gen g, ek_dtype dt, uint32_t &seed) {
  const uint32_t r = lcg(seed);
  const double u = r / 16777216.0;  // [0, 1)
  const bool fl = ektest::is_float(dt), uns = ektest::is_unsigned(dt);
  if (dt == EK_BOOL) return g == Gen::kPositive || g == Gen::kNonzero ? 1 : g == Gen::kSparse ? r % 10 < 3 : r % 2;
  switch (g) {
    case Gen::kSpecials:
      if (r % 8 == 0) return special(r / 8);
      return draw(Gen::kPlain, dt, seed);
    case Gen::kUnit:
      if (!fl) return draw(Gen::kPlain, dt, seed);
      return r % 8 == 0 ? special(r / 8) : -1 + 2 * u;
    case Gen::kPositive: return fl ? 0.1 + 3.9 * u : 1 + r % 50;
    case Gen::kNonzero: {
      const double v = fl ? 0.1 + 3.9 * u : 1 + r % 50;
      return (r & 1) && !uns ? -v : v;
    }
    case Gen::kNearOne: return fl ? 0.999 + 0.002 * u : draw(Gen::kPlain, dt, seed);
    case Gen::kSmallInt: return uns ? r % 33 : static_cast<int>(r % 33) - 16;
    case Gen::kShift: return r % 8;
    case Gen::kSparse: return r % 10 < 7 ? 0 : draw(Gen::kPlain, dt, seed);
    default: return fl ? -4 + 8 * u : uns ? r % 101 : static_cast<int>(r % 101) - 50;
  }
}

// Index values for input `which` of a set: kIndex anywhere in [-n, n);
// kUnique distinct along the input's own dim (a shuffled prefix of 0..n-1).
std::vector<int64_t> indices(const Input &in, const Set &set, size_t which, uint32_t seed) {
  const Shape &shape = set.shapes[which], &of = set.shapes[static_cast<size_t>(in.of)];
  const int dim = in.dim < 0 ? set.dims[0] : in.dim;
  const int64_t n = of.empty() ? 1 : of[static_cast<size_t>(dim)];  // a 0-d x takes one index
  std::vector<int64_t> v(static_cast<size_t>(ektest::numel_of(shape)));
  if (in.gen == Gen::kIndex) {
    for (auto &x : v) x = static_cast<int64_t>(lcg(seed) % static_cast<uint32_t>(n)) - (lcg(seed) % 3 == 0 ? n : 0);
    return v;
  }
  int64_t inner = 1, len = shape[static_cast<size_t>(dim)];
  for (size_t d = static_cast<size_t>(dim) + 1; d < shape.size(); ++d) inner *= shape[d];
  for (size_t line = 0; line < v.size() / static_cast<size_t>(std::max<int64_t>(len, 1)); ++line) {
    std::vector<int64_t> perm(static_cast<size_t>(n));
    for (int64_t i = 0; i < n; ++i) perm[static_cast<size_t>(i)] = i;
    for (int64_t i = n - 1; i > 0; --i) std::swap(perm[static_cast<size_t>(i)], perm[lcg(seed) % (i + 1)]);
    const int64_t outer = static_cast<int64_t>(line) / inner, in_line = static_cast<int64_t>(line) % inner;
    for (int64_t k = 0; k < len; ++k) v[static_cast<size_t>((outer * len + k) * inner + in_line)] = perm[static_cast<size_t>(k)];
  }
  return v;
}

// The buffer a layout views: shape rearranged so that the view has `shape`.
Shape storage_shape(Shape s, Layout l) {
  if (l == kOffset) return {ektest::numel_of(s) + 1};
  if (s.empty()) return s;
  if (l == kTransposed && s.size() >= 2) std::swap(s[s.size() - 1], s[s.size() - 2]);
  if (l == kStepped) s.back() *= 2;
  if (l == kExpanded) s[0] = 1;
  return s;
}

ek_tensor layout_view(ek_tensor storage, const Shape &shape, Layout l) {
  ek_tensor v = nullptr;
  ek_status st = EK_SUCCESS;
  const int nd = static_cast<int>(shape.size());
  if (l == kOffset) {
    Shape strides(shape.size(), 1);
    for (int d = nd - 2; d >= 0; --d) strides[d] = strides[d + 1] * std::max<int64_t>(shape[d + 1], 1);
    st = ek_view_as_strided(storage, nd, shape.data(), strides.data(), 1, &v);
  } else if (nd == 0 || l == kContiguous || (l == kTransposed && nd < 2)) {
    st = ek_tensor_retain(storage);
    if (st == EK_SUCCESS) v = storage;
  } else if (l == kTransposed) {
    st = ek_view_transpose(storage, nd - 2, nd - 1, &v);
  } else if (l == kStepped) {
    st = ek_view_slice(storage, nd - 1, 0, EK_SLICE_MAX, 2, &v);
  } else if (l == kReversed) {
    st = ek_view_slice(storage, 0, EK_SLICE_MAX, EK_SLICE_MIN, -1, &v);
  } else {
    st = ek_view_expand(storage, nd, shape.data(), &v);
  }
  EXPECT_EQ(st, EK_SUCCESS) << kLayoutNames[l] << " view: " << ek_last_error();
  return v;
}

// One input, ready to upload anywhere: its buffer's shape, dtype and bytes.
struct HostInput {
  Shape storage, shape;
  ek_dtype dtype;
  std::vector<uint8_t> bytes;
  Layout layout;
};

std::vector<uint8_t> bytes_of(ek_tensor t) {
  ek_tensor_info info = ektest::info_of(t);
  std::vector<uint8_t> b(info.nbytes);
  EXPECT_EQ(ek_tensor_to_host(nullptr, t, b.data(), b.size()), EK_SUCCESS) << ek_last_error();
  return b;
}

HostInput host_input(ek_context cpu, const Input &in, const Set &set, size_t which, ek_dtype row_dt,
                     Layout l, uint32_t seed) {
  HostInput h;
  h.shape = set.shapes[which];
  h.layout = in.strided ? l : kContiguous;
  h.storage = storage_shape(h.shape, h.layout);
  h.dtype = in.dtype < 0 ? row_dt : static_cast<ek_dtype>(in.dtype);
  const int64_t n = ektest::numel_of(h.storage);
  if (in.gen == Gen::kIndex || in.gen == Gen::kUnique) {
    Set storage_set = set;
    storage_set.shapes[which] = h.storage;
    auto v = indices(in, storage_set, which, seed);
    Tensor t(ektest::make(cpu, h.storage, h.dtype, Values(v.begin(), v.end())));
    h.bytes = bytes_of(t);
  } else if (in.gen == Gen::kBits) {
    h.bytes = ektest::random_bytes(h.dtype, n, seed);
  } else {
    Values v(static_cast<size_t>(n));
    for (double &x : v) x = draw(in.gen, h.dtype, seed);
    Tensor t(ektest::make(cpu, h.storage, h.dtype, v));
    h.bytes = bytes_of(t);
  }
  return h;
}

// ---------------------------------------------------------------- results

struct Result {
  ek_dtype dtype;
  Shape shape;
  std::vector<uint8_t> bytes;
  Values values;  // through the CPU backend's cast, whatever device made it
};

Result result_of(ek_context cpu, ek_tensor t) {
  ek_tensor_info info = ektest::info_of(t);
  Result r{info.dtype, ektest::shape_of(t), bytes_of(t), {}};
  Tensor host(ektest::upload(cpu, r.shape, r.dtype, r.bytes.data()));
  r.values = ektest::values_of(host);
  return r;
}

double rel_of(const Tol &tol, ek_dtype dt) {
  switch (dt) {
    case EK_FLOAT16: return tol.rel[0];
    case EK_BFLOAT16: return tol.rel[1];
    case EK_FLOAT32: return tol.rel[2];
    default: return tol.rel[3];
  }
}

// got against want (the CPU backend's contiguous or same-layout result).
void compare(const Result &got, const Result &want, const Values *magnitude, const Tol &tol,
             const std::string &what) {
  ASSERT_EQ(got.dtype, want.dtype) << what;
  ASSERT_EQ(got.shape, want.shape) << what;
  ASSERT_EQ(got.values.size(), want.values.size()) << what;
  const bool exact = tol.exact || !ektest::is_float(want.dtype);
  const size_t es = ek_dtype_size(want.dtype);
  const double rel = rel_of(tol, want.dtype);
  int bad = 0;
  for (size_t i = 0; i < want.values.size() && bad < 5; ++i) {
    const double g = got.values[i], w = want.values[i];
    bool ok = std::isnan(w) ? std::isnan(g)
              : exact       ? std::memcmp(&got.bytes[i * es], &want.bytes[i * es], es) == 0
              : std::isinf(w) ? g == w
                              : std::fabs(g - w) <= rel * std::max({1.0, std::fabs(w),
                                                                     magnitude ? (*magnitude)[i] : 0.0});
    if (ok) continue;
    ++bad;
    ADD_FAILURE() << what << ": element " << i << " got " << g << ", want " << w
                  << (exact ? " (exact)" : " (rel " + std::to_string(rel) + ")");
  }
}

// ---------------------------------------------------------------- running rows

struct Contexts {
  ek_context cpu = nullptr, other = nullptr;  // other: CUDA, or none for layout invariance
};

std::vector<ek_tensor> upload_views(ek_context c, const std::vector<HostInput> &hs) {
  std::vector<ek_tensor> views;
  for (const HostInput &h : hs) {
    Tensor storage(ektest::upload(c, h.storage, h.dtype, h.bytes.data()));
    views.push_back(layout_view(storage, h.shape, h.layout));
  }
  return views;
}

void release_all(std::vector<ek_tensor> *ts) {
  for (ek_tensor t : *ts) ek_tensor_release(t);
  ts->clear();
}

std::vector<Result> run_on(ek_context cpu, const Row &row, const Set &set,
                           const std::vector<ek_tensor> &in, const std::string &what) {
  Outs out;
  const ek_status st = row.run(in, set, &out);
  EXPECT_EQ(st, EK_SUCCESS) << what << ": " << ek_last_error();
  std::vector<Result> rs;
  if (st == EK_SUCCESS)
    for (ek_tensor t : out) rs.push_back(result_of(cpu, t));
  release_all(&out);
  return rs;
}

// The op on |x| in float64 for every float input (others as they are): what
// accumulated rounding errors are relative to.
std::vector<Values> magnitudes(ek_context cpu, const Row &row, const Set &set,
                               const std::vector<ek_tensor> &in) {
  std::vector<ek_tensor> wide;
  for (ek_tensor t : in) {
    ek_tensor w = nullptr;
    if (ektest::is_float(ektest::dtype_of(t))) {
      Tensor a;
      EXPECT_EQ(ek_unary(nullptr, EK_UNARY_ABS, t, a.out()), EK_SUCCESS) << ek_last_error();
      EXPECT_EQ(ek_cast(nullptr, a, EK_FLOAT64, &w), EK_SUCCESS) << ek_last_error();
    } else {
      EXPECT_EQ(ek_tensor_retain(t), EK_SUCCESS);
      w = t;
    }
    wide.push_back(w);
  }
  std::vector<Values> mags;
  for (Result &r : run_on(cpu, row, set, wide, row.name + " magnitude")) mags.push_back(r.values);
  release_all(&wide);
  return mags;
}

// Every dtype, set and layout of row: the CPU on the layout against the CPU on
// contiguous copies (ctx.other null) or CUDA on the layout against the CPU on it.
void run_row(const Row &row, const Contexts &ctx) {
  uint32_t seed = 1;
  for (ek_dtype dt : row.dtypes)
    for (size_t si = 0; si < row.sets.size(); ++si)
      for (int li = 0; li < kNumLayouts; ++li) {
        const Set &set = row.sets[si];
        const Layout l = static_cast<Layout>(li);
        if (l == kExpanded && !row.expandable) continue;
        if (!ctx.other && l == kContiguous) continue;  // the same as its reference
        const std::string what = row.name + " " + ek_dtype_name(dt) + " " +
                                 ektest::text(set.shapes[0]) + " " + kLayoutNames[l];
        std::vector<HostInput> hs;
        for (size_t k = 0; k < row.inputs.size(); ++k)
          hs.push_back(host_input(ctx.cpu, row.inputs[k], set, k, dt, l, seed++));
        std::vector<ek_tensor> cpu_in = upload_views(ctx.cpu, hs), other_in;
        if (ctx.other) {
          other_in = upload_views(ctx.other, hs);
        } else {
          for (ek_tensor t : cpu_in) {
            ek_tensor c = nullptr;
            EXPECT_EQ(ek_contiguous(nullptr, t, &c), EK_SUCCESS) << ek_last_error();
            other_in.push_back(c);
          }
        }
        auto want = run_on(ctx.cpu, row, set, cpu_in, what + " (cpu)");
        auto got = run_on(ctx.cpu, row, set, other_in, what + (ctx.other ? " (cuda)" : " (contiguous)"));
        std::vector<Values> mags;
        if (row.magnitude && !row.tol.exact) mags = magnitudes(ctx.cpu, row, set, cpu_in);
        release_all(&cpu_in);
        release_all(&other_in);
        ASSERT_EQ(got.size(), want.size()) << what;
        for (size_t o = 0; o < want.size(); ++o)
          compare(got[o], want[o], o < mags.size() ? &mags[o] : nullptr, row.tol,
                  what + (want.size() > 1 ? " output " + std::to_string(o) : ""));
      }
}

// ---------------------------------------------------------------- the rows

using ektest::kAllDtypes;
using ektest::kFloatDtypes;
using ektest::scalar;

std::vector<ek_dtype> all_dtypes() { return {std::begin(kAllDtypes), std::end(kAllDtypes)}; }
std::vector<ek_dtype> float_dtypes() { return {std::begin(kFloatDtypes), std::end(kFloatDtypes)}; }
std::vector<ek_dtype> all_but_bool() { return {std::begin(kAllDtypes) + 1, std::end(kAllDtypes)}; }
std::vector<ek_dtype> integer_dtypes() { return {std::begin(kAllDtypes), std::begin(kAllDtypes) + 6}; }

// An op with one output: f(in, set, &out).
template <typename F>
Runner one(F f) {
  return [f](const std::vector<ek_tensor> &in, const Set &set, Outs *out) {
    ek_tensor o = nullptr;
    const ek_status st = f(in, set, &o);
    out->push_back(o);
    return st;
  };
}

// A fresh contiguous copy of t on t's context (an output to write in place).
ek_tensor clone(ek_tensor t) {
  ek_context c = nullptr;
  ek_tensor_info info = ektest::info_of(t);
  EXPECT_EQ(ek_tensor_get_context(t, &c), EK_SUCCESS);
  ek_tensor out = nullptr;
  EXPECT_EQ(ek_tensor_empty(nullptr, c, info.ndim, info.shape, info.dtype, &out), EK_SUCCESS);
  EXPECT_EQ(ek_copy(nullptr, t, out), EK_SUCCESS) << ek_last_error();
  return out;
}

struct OpName {
  int op;
  std::string name;
};

// The ops of each public list; every value gets its rows. Before ek.h had the
// X-macro lists, the values by number.
#ifdef EK_UNARY_OP_LIST
#define EKT_OP_NAME_(name, value, text) {value, text},
std::vector<OpName> unary_ops() { return {EK_UNARY_OP_LIST(EKT_OP_NAME_)}; }
std::vector<OpName> binary_ops() { return {EK_BINARY_OP_LIST(EKT_OP_NAME_)}; }
std::vector<OpName> reduce_ops() { return {EK_REDUCE_OP_LIST(EKT_OP_NAME_)}; }
#undef EKT_OP_NAME_
#else
std::vector<OpName> numbered(int last, const std::string &kind) {
  std::vector<OpName> v;
  for (int op = 0; op <= last; ++op) v.push_back({op, kind + std::to_string(op)});
  return v;
}
std::vector<OpName> unary_ops() { return numbered(EK_UNARY_ISFINITE, "op"); }
std::vector<OpName> binary_ops() { return numbered(EK_BINARY_SHIFT_RIGHT, "op"); }
std::vector<OpName> reduce_ops() { return numbered(EK_REDUCE_NORM_INF, "op"); }
#endif

// 0-d, empty, a row against a column, odd sizes, and more than 2^16 elements.
const std::vector<Set> kElementwiseSets = {{{{}}}, {{{0, 3}}}, {{{7, 13}}}, {{{263, 269}}}};
const std::vector<Set> kBinarySets = {{{{}, {5, 7}}},     {{{0, 3}, {3}}},        {{{5, 7}, {7}}},
                                      {{{17, 1}, {1, 40}}}, {{{263, 269}, {263, 269}}}};

void add_unary(std::vector<Row> *rows) {
  for (const OpName &u : unary_ops()) {
    const auto op = static_cast<ek_unary_op>(u.op);
    // Moves and roundings; sign and relu may differ in the sign of a zero.
    const bool exact = op == EK_UNARY_NEG || op == EK_UNARY_ABS || op == EK_UNARY_SQUARE ||
                       op == EK_UNARY_FLOOR || op == EK_UNARY_CEIL || op == EK_UNARY_ROUND ||
                       op == EK_UNARY_TRUNC || op == EK_UNARY_LOGICAL_NOT || op == EK_UNARY_ISNAN ||
                       op == EK_UNARY_ISINF || op == EK_UNARY_ISFINITE || op == EK_UNARY_SIGNBIT;
    // Inverse sine, cosine and hyperbolic tangent: mostly inside their domain.
    const bool unit = op == EK_UNARY_ASIN || op == EK_UNARY_ACOS || op == EK_UNARY_ATANH;
    rows->push_back({"unary_" + u.name, op == EK_UNARY_NEG ? all_but_bool() : all_dtypes(),
                     {{unit ? Gen::kUnit : Gen::kSpecials}}, kElementwiseSets,
                     one([op](const std::vector<ek_tensor> &in, const Set &, ek_tensor *o) {
                       return ek_unary(nullptr, op, in[0], o);
                     }),
                     exact ? kExact : kUlps});
  }
}

void add_binary(std::vector<Row> *rows) {
  for (const OpName &b : binary_ops()) {
    const auto op = static_cast<ek_binary_op>(b.op);
    const bool shift = op == EK_BINARY_SHIFT_LEFT || op == EK_BINARY_SHIFT_RIGHT;
    const bool bits = shift || op == EK_BINARY_BITWISE_AND || op == EK_BINARY_BITWISE_OR ||
                      op == EK_BINARY_BITWISE_XOR;
    const bool divides = op == EK_BINARY_DIV || op == EK_BINARY_FLOOR_DIV || op == EK_BINARY_REMAINDER;
    std::vector<ek_dtype> dts = bits ? integer_dtypes() : op == EK_BINARY_SUB ? all_but_bool() : all_dtypes();
    // The float-only ops added with issue 18 take infinities, NaN and signed zeros too.
    const bool specials = op == EK_BINARY_LOGADDEXP || op == EK_BINARY_HYPOT ||
                          op == EK_BINARY_COPYSIGN || op == EK_BINARY_NEXTAFTER;
    const Gen a = shift ? Gen::kShift : op == EK_BINARY_POW ? Gen::kPositive : specials ? Gen::kSpecials : Gen::kPlain;
    const Gen bg = shift ? Gen::kShift : divides ? Gen::kNonzero : specials ? Gen::kSpecials : Gen::kPlain;
    // Exact where the result is integer or bool, or moves bits (copysign, nextafter);
    // max(-0, 0) may be either zero.
    const Tol tol = op == EK_BINARY_COPYSIGN || op == EK_BINARY_NEXTAFTER ? kExact : kUlps;
    rows->push_back({"binary_" + b.name, dts, {{a}, {bg}}, kBinarySets,
                     one([op](const std::vector<ek_tensor> &in, const Set &, ek_tensor *o) {
                       return ek_binary(nullptr, op, in[0], in[1], o);
                     }), tol});
    // In place into a fresh copy of a (out == a); results of another dtype cannot be.
    if (op == EK_BINARY_ADD || op == EK_BINARY_SUB || op == EK_BINARY_MUL ||
        op == EK_BINARY_MAXIMUM || op == EK_BINARY_MINIMUM)
      rows->push_back({"binary_" + b.name + "_in_place", float_dtypes(), {{a, -1, false}, {bg}},
                       {{{{7, 13}, {13}}}, {{{263, 269}, {263, 269}}}},
                       one([op](const std::vector<ek_tensor> &in, const Set &, ek_tensor *o) {
                         *o = clone(in[0]);
                         ek_tensor a = *o;
                         return ek_binary(nullptr, op, a, in[1], o);
                       }), tol});
    // The scalar on each side: an integer (3) and, where allowed, a float (2.5).
    for (int first = 0; first < 2; ++first) {
      const ek_scalar s = bits || first ? ek_scalar_int(3) : ek_scalar_float(2.5);
      const Gen g = first ? (shift ? Gen::kShift : divides ? Gen::kNonzero : Gen::kPlain) : a;
      rows->push_back({"binary_scalar_" + b.name + (first ? "_first" : "_last"), dts, {{g}},
                       kElementwiseSets,
                       one([op, s, first](const std::vector<ek_tensor> &in, const Set &, ek_tensor *o) {
                         return ek_binary_scalar(nullptr, op, in[0], s, first, o);
                       }), tol});
    }
  }
}

const std::vector<Set> kTernarySets = {{{{1003}, {1003}, {1003}}}, {{{64, 1}, {64, 33}, {33}}},
                                       {{{}, {17, 1}, {1, 40}}},   {{{5, 7}, {}, {5, 7}}},
                                       {{{0, 3}, {3}, {0, 3}}},    {{{263, 269}, {263, 269}, {263, 269}}}};

void add_ternary(std::vector<Row> *rows) {
  rows->push_back({"where", all_dtypes(), {{Gen::kPlain, EK_BOOL}, {Gen::kSpecials}, {Gen::kPlain}},
                   kTernarySets, one([](const std::vector<ek_tensor> &in, const Set &, ek_tensor *o) {
                     return ek_where(nullptr, in[0], in[1], in[2], o);
                   })});
  rows->push_back({"where_float_condition", {EK_FLOAT32}, {{Gen::kSparse}, {Gen::kPlain}, {Gen::kPlain}},
                   kTernarySets, one([](const std::vector<ek_tensor> &in, const Set &, ek_tensor *o) {
                     return ek_where(nullptr, in[0], in[1], in[2], o);
                   })});
  for (int both = 0; both < 2; ++both)
    rows->push_back({both ? "clamp" : "clamp_low", all_but_bool(), {{Gen::kSpecials}}, kElementwiseSets,
                     one([both](const std::vector<ek_tensor> &in, const Set &, ek_tensor *o) {
                       const ek_scalar lo = ek_scalar_float(-1.5), hi = ek_scalar_float(2.25);
                       return ek_clamp(nullptr, in[0], &lo, both ? &hi : nullptr, o);
                     })});
  const std::vector<Set> pairs = {{{{1003}, {1003}}}, {{{64, 33}, {33}}}, {{{}, {5, 7}}},
                                  {{{0, 3}, {3}}},    {{{263, 269}, {263, 269}}}};
  for (double w : {0.3, 0.8})
    rows->push_back({w < 0.5 ? "lerp_small_weight" : "lerp_large_weight", float_dtypes(),
                     {{Gen::kSpecials}, {Gen::kPlain}}, pairs,
                     one([w](const std::vector<ek_tensor> &in, const Set &, ek_tensor *o) {
                       return ek_lerp(nullptr, in[0], in[1], ek_scalar_float(w), o);
                     })});
  rows->push_back({"axpby", all_but_bool(), {{Gen::kPlain}, {Gen::kPlain}}, pairs,
                   one([](const std::vector<ek_tensor> &in, const Set &, ek_tensor *o) {
                     return ek_axpby(nullptr, ek_scalar_int(3), in[0], ek_scalar_int(-2), in[1], o);
                   })});
  // y += 0.5 x in place (out == y); y a fresh contiguous copy, x broadcast into it.
  const std::vector<Set> into = {{{{1003}, {1003}}}, {{{33}, {64, 33}}}, {{{263, 269}, {263, 269}}}};
  rows->push_back({"axpby_in_place", float_dtypes(), {{Gen::kPlain}, {Gen::kPlain, -1, false}}, into,
                   one([](const std::vector<ek_tensor> &in, const Set &, ek_tensor *o) {
                     *o = clone(in[1]);
                     ek_tensor y = *o;
                     return ek_axpby(nullptr, ek_scalar_float(0.5), in[0], ek_scalar_int(1), y, o);
                   })});
}

// Whole tensor, a row (> 2^16 elements), columns with keepdim, many columns at
// once (CUDA's vector loads of columns), two of three
// dims, a 0-d tensor, and an empty tensor reduced along its non-empty dim.
const std::vector<Set> kReduceSets = {{{{263, 269}}, {}},    {{{3, 70001}}, {1}},  {{{37, 65}}, {0}, 1},
                                      {{{2000, 64}}, {0}},   {{{5, 7, 9}}, {0, 2}}, {{{}}, {}},
                                      {{{0, 5}}, {1}}};

void add_reduce(std::vector<Row> *rows) {
  for (const OpName &r : reduce_ops()) {
    const auto op = static_cast<ek_reduce_op>(r.op);
    const bool floats_only = op == EK_REDUCE_MEAN || op == EK_REDUCE_NORM_L1 ||
                             op == EK_REDUCE_NORM_L2 || op == EK_REDUCE_NORM_INF;
    const bool sums = op == EK_REDUCE_SUM || op == EK_REDUCE_MEAN || op == EK_REDUCE_PROD ||
                      op == EK_REDUCE_NORM_L1 || op == EK_REDUCE_NORM_L2;
    std::vector<Set> sets = kReduceSets;
    if (op == EK_REDUCE_SUM || op == EK_REDUCE_PROD || op == EK_REDUCE_ANY || op == EK_REDUCE_ALL)
      sets.push_back({{{0, 5}}, {0}, 1});  // every output over zero elements: the identity
    Row row{"reduce_" + r.name, floats_only ? float_dtypes() : all_dtypes(),
            {{op == EK_REDUCE_PROD ? Gen::kNearOne : Gen::kPlain}}, sets,
            one([op](const std::vector<ek_tensor> &in, const Set &s, ek_tensor *o) {
              return ek_reduce(nullptr, op, in[0], static_cast<int>(s.dims.size()), s.dims.data(),
                               s.keepdim, o);
            }),
            op == EK_REDUCE_PROD ? kProduct : sums ? kAccumulate : kExact};
    row.magnitude = sums;
    rows->push_back(row);
  }
  for (int sq = 0; sq < 2; ++sq)
    rows->push_back({sq ? "std" : "var", float_dtypes(), {{Gen::kPlain}}, kReduceSets,
                     one([sq](const std::vector<ek_tensor> &in, const Set &s, ek_tensor *o) {
                       return ek_var(nullptr, sq ? EK_VAR_STD : EK_VAR_VARIANCE, in[0],
                                     static_cast<int>(s.dims.size()), s.dims.data(), 1, s.keepdim,
                                     o);
                     }),
                     kAccumulate});
  const std::vector<Set> dim_sets = {{{{263, 269}}, {1}}, {{{37, 65}}, {0}, 1}, {{{5, 7, 9}}, {-1}},
                                     {{{}}, {0}},         {{{0, 5}}, {1}}};
  for (int mn = 0; mn < 2; ++mn)
    rows->push_back({mn ? "min_dim" : "max_dim", all_dtypes(), {{Gen::kPlain}}, dim_sets,
                     [mn](const std::vector<ek_tensor> &in, const Set &s, Outs *out) {
                       ek_tensor v = nullptr, i = nullptr;
                       ek_status st =
                           ek_reduce_with_indices(nullptr, mn ? EK_REDUCE_MIN : EK_REDUCE_MAX,
                                                  in[0], s.dims[0], s.keepdim, &v, &i);
                       out->push_back(v);
                       out->push_back(i);
                       return st;
                     }});
}

// Lines along each dim, > 2^16 elements, a 0-d tensor and an empty one.
const std::vector<Set> kLineSets = {{{{263, 269}}, {1}}, {{{263, 269}}, {0}}, {{{3, 70001}}, {-1}},
                                    {{{5, 7, 9}}, {1}},  {{{}}, {0}},         {{{0, 4}}, {1}}};

void add_lines(std::vector<Row> *rows) {
  using Fn = ek_status (*)(ek_stream, ek_tensor, int, ek_tensor *);
  const struct { const char *name; Fn fn; bool floats; Gen gen; bool prod; } ops[] = {
      {"softmax", [](ek_stream s, ek_tensor x, int d, ek_tensor *o) {
         return ek_softmax(s, EK_SOFTMAX_PLAIN, x, d, o); }, true, Gen::kPlain, false},
      {"log_softmax", [](ek_stream s, ek_tensor x, int d, ek_tensor *o) {
         return ek_softmax(s, EK_SOFTMAX_LOG, x, d, o); }, true, Gen::kPlain, false},
      {"cumsum", [](ek_stream s, ek_tensor x, int d, ek_tensor *o) {
         return ek_scan(s, EK_SCAN_SUM, x, d, o); }, false, Gen::kPlain, false},
      {"cumprod", [](ek_stream s, ek_tensor x, int d, ek_tensor *o) {
         return ek_scan(s, EK_SCAN_PROD, x, d, o); }, false, Gen::kNearOne, true}};
  for (const auto &op : ops) {
    Row row{op.name, op.floats ? float_dtypes() : all_dtypes(), {{op.gen}}, kLineSets,
            one([fn = op.fn](const std::vector<ek_tensor> &in, const Set &s, ek_tensor *o) {
              return fn(nullptr, in[0], s.dims[0], o);
            }),
            op.prod ? kProduct : kAccumulate};
    row.magnitude = !op.floats;
    rows->push_back(row);
  }
}

void add_matmul(std::vector<Row> *rows) {
  // Matrix by matrix, batches that broadcast, vector cases, k == 0.
  const std::vector<Set> sets = {{{{33, 65}, {65, 17}}},        {{{96, 256}, {256, 80}}},
                                 {{{6, 64, 96}, {96, 80}}},      {{{4, 1, 48, 64}, {3, 64, 40}}},
                                 {{{1000}, {1000, 30}}},         {{{300}, {300}}},
                                 {{{5, 0}, {0, 4}}}};
  rows->push_back({"matmul", float_dtypes(), {{Gen::kPlain}, {Gen::kPlain}}, sets,
                   one([](const std::vector<ek_tensor> &in, const Set &, ek_tensor *o) {
                     return ek_matmul(nullptr, in[0], in[1], o);
                   }),
                   kMatmul, true});
  // c = 1.5 a @ b - 0.5 c into a copy of c; the magnitude run takes |c| too.
  const std::vector<Set> gemm_sets = {{{{33, 65}, {65, 17}, {33, 17}}}, {{{96, 256}, {256, 80}, {96, 80}}},
                                      {{{1, 20, 30}, {4, 30, 10}, {4, 20, 10}}}};
  rows->push_back({"gemm", float_dtypes(), {{Gen::kPlain}, {Gen::kPlain}, {Gen::kPlain, -1, false}},
                   gemm_sets, one([](const std::vector<ek_tensor> &in, const Set &, ek_tensor *o) {
                     *o = clone(in[2]);
                     return ek_gemm(nullptr, ek_scalar_float(1.5), in[0], in[1],
                                    ek_scalar_float(0.5), *o);
                   }),
                   kMatmul, true});
}

void add_copies(std::vector<Row> *rows) {
  for (ek_dtype to : kAllDtypes) {
    for (int bits = 0; bits < 2; ++bits)
      rows->push_back({std::string(bits ? "cast_bits_to_" : "cast_to_") + ek_dtype_name(to), all_dtypes(),
                       {{bits ? Gen::kBits : Gen::kSpecials}}, kElementwiseSets,
                       one([to](const std::vector<ek_tensor> &in, const Set &, ek_tensor *o) {
                         return ek_cast(nullptr, in[0], to, o);
                       })});
  }
  const std::vector<Set> sets = {{{{}}}, {{{0, 3}}}, {{{7, 13}}}, {{{263, 269}}}, {{{3, 5, 7, 9}}}};
  rows->push_back({"contiguous", all_dtypes(), {{Gen::kBits}}, sets,
                   one([](const std::vector<ek_tensor> &in, const Set &, ek_tensor *o) {
                     return ek_contiguous(nullptr, in[0], o);
                   })});
  // Into a transposed destination, broadcasting src's rows.
  const std::vector<Set> bcast = {{{{13}, {7, 13}}}, {{{1, 13}, {7, 13}}}, {{{269}, {263, 269}}}};
  rows->push_back({"copy_broadcast_into_transposed", all_dtypes(), {{Gen::kBits}, {Gen::kPlain, -1, false}},
                   bcast, one([](const std::vector<ek_tensor> &in, const Set &, ek_tensor *o) {
                     Tensor dst(ektest::transposed(in[1], 0, 1));  // [13,7], copied to a fresh buffer
                     *o = clone(dst);
                     ek_tensor view = ektest::transposed(*o, 0, 1);
                     const ek_status st = ek_copy(nullptr, in[0], view);
                     ek_tensor_release(view);
                     return st;
                   })});
}

void add_indexing(std::vector<Row> *rows) {
  const int i64 = EK_INT64, i32 = EK_INT32, b = EK_BOOL;
  for (int idt : {i64, i32})
    rows->push_back({std::string("index_select_") + ek_dtype_name(static_cast<ek_dtype>(idt)), all_dtypes(),
                     {{Gen::kPlain}, {Gen::kIndex, idt}},
                     {{{{37, 19}, {11}}, {0}}, {{{5, 7, 9}, {20}}, {2}}, {{{}, {}}, {0}}},
                     one([](const std::vector<ek_tensor> &in, const Set &s, ek_tensor *o) {
                       return ek_index_select(nullptr, in[0], s.dims[0], in[1], o);
                     })});
  rows->push_back({"gather", all_dtypes(), {{Gen::kPlain}, {Gen::kIndex, i64}},
                   {{{{37, 19, 23}, {20, 19, 23}}, {0}}, {{{37, 7}, {50, 3}}, {0}}},
                   one([](const std::vector<ek_tensor> &in, const Set &s, ek_tensor *o) {
                     return ek_gather(nullptr, in[0], s.dims[0], in[1], o);
                   })});
  // Accumulating: small integers, exact in every dtype whatever the order.
  rows->push_back({"scatter_add", all_dtypes(),
                   {{Gen::kSmallInt}, {Gen::kIndex, i64, false}, {Gen::kSmallInt}},
                   {{{{37, 19}, {50, 19}, {50, 19}}, {0}}, {{{37, 7}, {20, 3}, {25, 5}}, {0}}},
                   one([](const std::vector<ek_tensor> &in, const Set &s, ek_tensor *o) {
                     return ek_scatter(nullptr, in[0], s.dims[0], in[1], in[2], 1, o);
                   })});
  rows->push_back({"scatter", all_dtypes(), {{Gen::kPlain}, {Gen::kUnique, i64, false}, {Gen::kPlain}},
                   {{{{37, 19}, {20, 19}, {20, 19}}, {0}}},
                   one([](const std::vector<ek_tensor> &in, const Set &s, ek_tensor *o) {
                     return ek_scatter(nullptr, in[0], s.dims[0], in[1], in[2], 0, o);
                   })});
  for (int acc = 0; acc < 2; ++acc)
    rows->push_back({acc ? "index_put_accumulate" : "index_put", all_dtypes(),
                     {{acc ? Gen::kSmallInt : Gen::kPlain},
                      {acc ? Gen::kIndex : Gen::kUnique, i64, false, 0, 0},
                      {acc ? Gen::kSmallInt : Gen::kPlain}},
                     {{{{37, 19}, {acc ? 50 : 20}, {acc ? 50 : 20, 19}}}, {{{37, 19}, {20}, {19}}}},
                     one([acc](const std::vector<ek_tensor> &in, const Set &, ek_tensor *o) {
                       return ek_index_put(nullptr, in[0], 1, &in[1], in[2], acc, o);
                     })});
  const std::vector<Set> masked = {{{{37, 19, 23}, {37, 19, 23}}}, {{{5, 7}, {7}}}, {{{}, {}}},
                                   {{{0, 3}, {0, 3}}}};
  rows->push_back({"masked_select", all_dtypes(), {{Gen::kPlain}, {Gen::kPlain, b}}, masked,
                   one([](const std::vector<ek_tensor> &in, const Set &, ek_tensor *o) {
                     return ek_masked_select(nullptr, in[0], in[1], o);
                   })});
  rows->push_back({"masked_fill", all_dtypes(), {{Gen::kPlain}, {Gen::kPlain, b}}, masked,
                   one([](const std::vector<ek_tensor> &in, const Set &, ek_tensor *o) {
                     return ek_masked_fill(nullptr, in[0], in[1], scalar(1), o);
                   })});
  rows->push_back({"masked_scatter", all_dtypes(), {{Gen::kPlain}, {Gen::kPlain, b}, {Gen::kPlain}},
                   {{{{37, 19, 23}, {37, 19, 23}, {37 * 19 * 23}}}, {{{5, 7}, {7}, {6, 6}}}},
                   one([](const std::vector<ek_tensor> &in, const Set &, ek_tensor *o) {
                     return ek_masked_scatter(nullptr, in[0], in[1], in[2], o);
                   })});
  rows->push_back({"nonzero", all_dtypes(), {{Gen::kSparse}},
                   {{{{}}}, {{{0, 3}}}, {{{37, 19, 23}}}, {{{263, 269}}}},
                   one([](const std::vector<ek_tensor> &in, const Set &, ek_tensor *o) {
                     return ek_nonzero(nullptr, in[0], o);
                   })});
}

void add_random(std::vector<Row> *rows) {
  struct Dist { const char *name; ek_random_dist dist; double a, b; std::vector<ek_dtype> dts; };
  std::vector<ek_dtype> ints = all_but_bool();
  const Dist dists[] = {{"random_uniform", EK_RANDOM_UNIFORM, -3, 5, float_dtypes()},
                        {"random_normal", EK_RANDOM_NORMAL, 1, 3, float_dtypes()},
                        {"random_bernoulli", EK_RANDOM_BERNOULLI, 0.4, 0, all_dtypes()},
                        {"random_randint", EK_RANDOM_RANDINT, 0, 100, ints}};
  for (const Dist &d : dists) {
    Row row{d.name, d.dts, {{Gen::kPlain}}, {{{{}}}, {{{0, 3}}}, {{{300, 70}}}, {{{(1 << 16) + 3}}}},
            [d](const std::vector<ek_tensor> &in, const Set &, Outs *out) {
              // Counters cross 2^32 in the middle of the tensor.
              const ek_philox_state s{sizeof(ek_philox_state), 0xfeedfacecafebeefull,
                                      (uint64_t(1) << 32) - 5000};
              ek_tensor t = in[0];
              EXPECT_EQ(ek_tensor_retain(t), EK_SUCCESS);
              out->push_back(t);
              return ek_random(nullptr, d.dist, ek_scalar_float(d.a), ek_scalar_float(d.b), &s, t);
            }};
    row.expandable = false;  // a broadcast tensor's elements alias: refused
    rows->push_back(row);
  }
  // The context's generator (state NULL), seeded alike on both contexts.
  Row seeded{"random_normal_context_generator", float_dtypes(), {{Gen::kPlain}},
             {{{{300, 70}}}, {{{(1 << 20) + 3}}}},
             [](const std::vector<ek_tensor> &in, const Set &, Outs *out) {
               ek_context c = nullptr;
               ek_tensor t = in[0];
               EXPECT_EQ(ek_tensor_get_context(in[0], &c), EK_SUCCESS);
               EXPECT_EQ(ek_random_set_seed(c, 5), EK_SUCCESS);
               EXPECT_EQ(ek_tensor_retain(t), EK_SUCCESS);
               out->push_back(t);
               return ek_random(nullptr, EK_RANDOM_NORMAL, ek_scalar_int(0), ek_scalar_int(1),
                                nullptr, t);
             }};
  seeded.expandable = false;
  rows->push_back(seeded);
}

const std::vector<Row> &table() {
  static const std::vector<Row> rows = [] {
    std::vector<Row> r;
    add_unary(&r);
    add_binary(&r);
    add_ternary(&r);
    add_reduce(&r);
    add_lines(&r);
    add_matmul(&r);
    add_copies(&r);
    add_indexing(&r);
    add_random(&r);
    return r;
  }();
  return rows;
}

std::vector<size_t> row_indices() {
  std::vector<size_t> v(table().size());
  for (size_t i = 0; i < v.size(); ++i) v[i] = i;
  return v;
}

std::string row_name(const testing::TestParamInfo<size_t> &info) { return table()[info.param].name; }

// ---------------------------------------------------------------- the two runs of each row

class Conformance : public testing::TestWithParam<size_t> {
 protected:
  // Each context must hold no memory after a row: every output was released.
  static void expect_no_leak(ek_context c) {
    ek_memory_stats s = EK_MEMORY_STATS_INIT;
    ASSERT_EQ(ek_context_synchronize(c), EK_SUCCESS) << ek_last_error();
    ASSERT_EQ(ek_memory_get_stats(c, &s), EK_SUCCESS);
    EXPECT_EQ(s.allocated_bytes, 0u) << "the row leaked memory";
  }
  void SetUp() override { ASSERT_EQ(ek_context_create(ek_device{EK_CPU, 0}, nullptr, &cpu), EK_SUCCESS); }
  void TearDown() override {
    expect_no_leak(cpu);
    EXPECT_EQ(ek_context_destroy(cpu), EK_SUCCESS) << ek_last_error();
  }
  ek_context cpu = nullptr;
};

using LayoutInvariance = Conformance;
using CudaMatchesCpu = Conformance;

TEST_P(LayoutInvariance, Row) { run_row(table()[GetParam()], {cpu, nullptr}); }

TEST_P(CudaMatchesCpu, Row) {
  const auto devices = ektest::test_devices();
  if (std::find(devices.begin(), devices.end(), EK_CUDA) == devices.end())
    GTEST_SKIP() << "CUDA against the CPU backend: EK_TEST_DEVICE leaves CUDA out (set cuda or all)";
  if (!ektest::cuda_available()) {
    if (ektest::gpu_required()) FAIL() << "EK_REQUIRE_GPU=1 but no CUDA device is available";
    GTEST_SKIP() << "CUDA against the CPU backend: no CUDA device";
  }
  ek_context cuda = nullptr;
  ASSERT_EQ(ek_context_create(ek_device{EK_CUDA, 0}, nullptr, &cuda), EK_SUCCESS) << ek_last_error();
  run_row(table()[GetParam()], {cpu, cuda});
  expect_no_leak(cuda);
  EXPECT_EQ(ek_context_destroy(cuda), EK_SUCCESS) << ek_last_error();
}

INSTANTIATE_TEST_SUITE_P(Table, LayoutInvariance, testing::ValuesIn(row_indices()), row_name);
INSTANTIATE_TEST_SUITE_P(Table, CudaMatchesCpu, testing::ValuesIn(row_indices()), row_name);

// The comparison can fail: an "op" that reads its input's buffer as if it were
// contiguous (a stride bug) is caught on each strided layout.
TEST(ConformanceTable, CatchesAnOpThatIgnoresStrides) {
  ek_context cpu = nullptr;
  ASSERT_EQ(ek_context_create(ek_device{EK_CPU, 0}, nullptr, &cpu), EK_SUCCESS);
  const Row broken{"broken", {EK_FLOAT32}, {{Gen::kPlain}}, {Set({{7, 13}})},
                   one([](const std::vector<ek_tensor> &in, const Set &, ek_tensor *o) {
                     const Shape shape{7, 13}, strides{13, 1};
                     Tensor flat;
                     ek_status st = ek_view_as_strided(in[0], 2, shape.data(), strides.data(), 0, flat.out());
                     return st == EK_SUCCESS ? ek_contiguous(nullptr, flat, o) : st;
                   })};
  testing::TestPartResultArray failures;
  {
    testing::ScopedFakeTestPartResultReporter intercept(
        testing::ScopedFakeTestPartResultReporter::INTERCEPT_ONLY_CURRENT_THREAD, &failures);
    run_row(broken, {cpu, nullptr});
  }
  std::string messages;
  for (int i = 0; i < failures.size(); ++i) messages += failures.GetTestPartResult(i).message();
  for (const char *layout : {"transposed", "stepped", "reversed", "expanded"})  // offset has C strides
    EXPECT_NE(messages.find(std::string("broken float32 [7,13] ") + layout), std::string::npos) << layout;
  EXPECT_EQ(ek_context_destroy(cpu), EK_SUCCESS);
}

// The path CudaMatchesCpu takes (inputs uploaded to a second context, every
// layout, the contiguous one included), here with a second CPU context, so
// that runs without a GPU exercise it too: a row of each kind.
TEST(ConformanceTable, TheSecondContextPathRunsWithoutAGpu) {
  ek_context cpu = nullptr, other = nullptr;
  ASSERT_EQ(ek_context_create(ek_device{EK_CPU, 0}, nullptr, &cpu), EK_SUCCESS);
  ASSERT_EQ(ek_context_create(ek_device{EK_CPU, 0}, nullptr, &other), EK_SUCCESS);
  const std::vector<std::string> kinds = {"where", "var", "max_dim", "cumsum", "gemm", "cast_to_float16",
                                         "scatter_add", "nonzero", "random_randint"};
  bool unary = false, binary = false;
  for (const Row &row : table()) {
    const bool first_unary = !unary && row.name.rfind("unary_", 0) == 0;
    const bool first_binary = !binary && row.name.rfind("binary_", 0) == 0;
    if (!first_unary && !first_binary && std::find(kinds.begin(), kinds.end(), row.name) == kinds.end()) continue;
    unary = unary || first_unary;
    binary = binary || first_binary;
    SCOPED_TRACE(row.name);
    run_row(row, {cpu, other});
  }
  EXPECT_EQ(ek_context_destroy(other), EK_SUCCESS);
  EXPECT_EQ(ek_context_destroy(cpu), EK_SUCCESS);
}

// The table covers every op of each list (a new enum value gets its rows).
TEST(ConformanceTable, CoversEveryListedOp) {
  std::vector<std::string> names;
  for (const Row &r : table()) names.push_back(r.name);
  auto has = [&](const std::string &n) { return std::find(names.begin(), names.end(), n) != names.end(); };
  for (const OpName &u : unary_ops()) EXPECT_TRUE(has("unary_" + u.name)) << u.name;
  for (const OpName &b : binary_ops()) EXPECT_TRUE(has("binary_" + b.name)) << b.name;
  for (const OpName &r : reduce_ops()) EXPECT_TRUE(has("reduce_" + r.name)) << r.name;
  std::vector<std::string> sorted = names;
  std::sort(sorted.begin(), sorted.end());
  EXPECT_EQ(std::adjacent_find(sorted.begin(), sorted.end()), sorted.end()) << "row names must be unique";
}

}  // namespace
