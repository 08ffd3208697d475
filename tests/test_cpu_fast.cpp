// The CPU fast paths (contiguous and broadcast runs with dtypes fixed at
// compile time: src/cpu/elementwise.cpp, ternary.cpp, copy.cpp) against the
// strided reference loops, bit for bit: the same op on contiguous tensors and
// on strided views (every other element of a larger buffer) of equal values,
// which take the strided loops, for every op and every dtype.
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <vector>

#include "cpu/copy.hpp"
#include "cpu/elementwise.hpp"
#include "cpu/ternary.hpp"

namespace {
using namespace ek;

constexpr int64_t kN = 1031;  // odd: vector loops' tails too
const int kDtypes[] = {kBool, kU8, kI8, kI16, kI32, kI64, kF16, kBF16, kF32, kF64};

// Random bytes: every float encoding (NaN payloads, inf, subnormals) and every
// integer; bool elements 0 or 1.
struct Buffer {
  int dtype;
  std::vector<char> contig, strided;  // strided: element i at 2 * i
  Buffer(int dt, uint32_t seed) : dtype(dt), contig(kN * dtype_size(dt)), strided(2 * kN * dtype_size(dt)) {
    std::mt19937 rng(seed);
    const size_t es = dtype_size(dt);
    for (auto &c : contig) c = static_cast<char>(rng());
    if (dt == kBool)
      for (auto &c : contig) c = static_cast<char>(c & 1);
    for (int64_t i = 0; i < kN; ++i) std::memcpy(&strided[2 * i * es], &contig[i * es], es);
  }
  TensorDesc desc(bool strided_view, int64_t step = 1) {
    TensorDesc t{};
    t.data = strided_view ? strided.data() : contig.data();
    t.dtype = dtype;
    t.ndim = 1;
    t.shape[0] = kN;
    t.strides[0] = strided_view ? 2 : step;
    return t;
  }
  // The strided view's elements, packed.
  std::vector<char> packed() const {
    const size_t es = dtype_size(dtype);
    std::vector<char> v(kN * es);
    for (int64_t i = 0; i < kN; ++i) std::memcpy(&v[i * es], &strided[2 * i * es], es);
    return v;
  }
};

int compute_of(int dt) { return dt == kF64 ? ew::kCF64 : dtype_is_float(dt) ? ew::kCF32 : ew::kCI64; }

void expect_same(const Buffer &fast, const Buffer &ref, const char *what, int op) {
  ASSERT_EQ(fast.contig, ref.packed()) << what << " op " << op << " dtype " << fast.dtype;
}

TEST(CpuFast, UnaryMatchesStrided) {
  for (int dt : kDtypes)
    for (int op = EK_UNARY_NEG; op <= EK_UNARY_SIGNBIT; ++op) {
      Buffer x(dt, 1), fast(dt, 2), ref(dt, 3);
      ew::Args g{op, compute_of(dt), ew::kNoScalar, ew::kRoundNone, 0, 0, fast.desc(false), x.desc(false), {}};
      ASSERT_EQ(cpu::unary(g), 0);
      g.out = ref.desc(true);
      g.a = x.desc(true);
      ASSERT_EQ(cpu::unary(g), 0);
      expect_same(fast, ref, "unary", op);
    }
}

// b contiguous, b broadcast (stride 0) and b a host scalar, a likewise.
TEST(CpuFast, BinaryMatchesStrided) {
  for (int dt : kDtypes)
    for (int op = EK_BINARY_ADD; op <= EK_BINARY_NEXTAFTER; ++op)
      for (int form = 0; form < 5; ++form) {
        Buffer a(dt, 4), b(dt, 5), fast(dt, 6), ref(dt, 7);
        ew::Args g{op, compute_of(dt), ew::kNoScalar, ew::kRoundNone, -2.5, 3, {}, {}, {}};
        if (form == 3) g.scalar = ew::kScalarB;
        if (form == 4) g.scalar = ew::kScalarA;
        auto run = [&](bool strided, Buffer &out) {
          g.out = out.desc(strided);
          g.a = form == 2 ? a.desc(false, 0) : a.desc(strided);
          g.b = form == 1 ? b.desc(false, 0) : b.desc(strided);
          ASSERT_EQ(cpu::binary(g), 0);
        };
        run(false, fast);
        run(true, ref);
        expect_same(fast, ref, "binary form", op * 10 + form);
      }
}

TEST(CpuFast, TernaryMatchesStrided) {
  for (int dt : kDtypes)
    for (int op = tern::kWhere; op <= tern::kAxpby; ++op)
      for (int form = 0; form < 3; ++form) {
        if (op == tern::kLerp && !dtype_is_float(dt)) continue;  // float compute only
        Buffer c(kBool, 8), x(dt, 9), y(dt, 10), fast(dt, 11), ref(dt, 12);
        tern::Args g{op, compute_of(dt), {0.75, -1.5}, {3, -2}, {}, {}, {}, {}};
        auto run = [&](bool strided, Buffer &out) {
          g.out = out.desc(strided);
          g.cond = op == tern::kWhere ? c.desc(strided) : TensorDesc{};
          g.x = form == 1 ? x.desc(false, 0) : x.desc(strided);
          g.y = op == tern::kClamp ? TensorDesc{} : form == 2 ? y.desc(false, 0) : y.desc(strided);
          ASSERT_EQ(cpu::ternary(g), 0);
        };
        run(false, fast);
        run(true, ref);
        expect_same(fast, ref, "ternary form", op * 10 + form);
      }
}

// Casts between every dtype pair, and same-dtype gathers (a strided source
// into a contiguous run: a transpose's inner loop).
TEST(CpuFast, CopyMatchesStrided) {
  for (int sd : kDtypes)
    for (int dd : kDtypes) {
      Buffer s(sd, 13), fast(dd, 14), ref(dd, 15), gathered(dd, 16);
      ASSERT_EQ(cpu::copy(fast.desc(false), s.desc(false)), 0);
      ASSERT_EQ(cpu::copy(ref.desc(true), s.desc(true)), 0);
      expect_same(fast, ref, "copy to", dd * 100 + sd);
      ASSERT_EQ(cpu::copy(gathered.desc(false), s.desc(true)), 0);  // strided source, contiguous run
      ASSERT_EQ(gathered.contig, ref.packed()) << "gather " << sd << " -> " << dd;
    }
}

}  // namespace
