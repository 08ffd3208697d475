// Issue 18's linear algebra: integer ek_matmul/ek_gemm against an exact
// wrapping reference (every integer dtype, overflow, batches, broadcast,
// 1-D operands, empty and non-contiguous operands); ek_tensordot, ek_vecdot
// and ek_outer against a double-precision reference. Every device of the run.
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "ek_test.hpp"

using ektest::dtype_of;
using ektest::numel_of;
using ektest::Shape;
using ektest::shape_of;
using ektest::sliced;
using ektest::Tensor;
using ektest::text;
using ektest::to_host;
using ektest::values_of;

namespace {

constexpr ek_dtype kMatmulInts[] = {EK_UINT8, EK_INT8, EK_INT16, EK_INT32, EK_INT64};

// v wrapped to dt's width, as an int64 (two's complement, as the cast rule).
int64_t wrap(uint64_t v, ek_dtype dt) {
  switch (dt) {
    case EK_UINT8: return static_cast<uint8_t>(v);
    case EK_INT8: return static_cast<int8_t>(static_cast<uint8_t>(v));
    case EK_INT16: return static_cast<int16_t>(static_cast<uint16_t>(v));
    case EK_INT32: return static_cast<int32_t>(static_cast<uint32_t>(v));
    default: return static_cast<int64_t>(v);
  }
}

// Any integer tensor's values (any strides, any device) exactly, in C order.
std::vector<int64_t> ints_of(ek_tensor t) {
  Tensor i64;
  EXPECT_EQ(ek_cast(nullptr, t, EK_INT64, i64.out()), EK_SUCCESS) << ek_last_error();
  return to_host<int64_t>(i64);
}

struct IntRef {
  Shape shape;
  std::vector<int64_t> v;
};

// NumPy matmul in wrapping uint64 arithmetic, wrapped to dt at the end (the
// same value modulo 2^bits as wrapping in dt all along).
IntRef int_reference(Shape sa, const std::vector<int64_t> &va, Shape sb,
                     const std::vector<int64_t> &vb, ek_dtype dt) {
  const bool a_vec = sa.size() == 1, b_vec = sb.size() == 1;
  if (a_vec) sa.insert(sa.begin(), 1);
  if (b_vec) sb.push_back(1);
  const int64_t m = sa[sa.size() - 2], k = sa.back(), n = sb.back();
  const size_t na = sa.size() - 2, nb = sb.size() - 2, nbat = std::max(na, nb);
  IntRef r;
  for (size_t d = 0; d < nbat; ++d) {
    int64_t x = d + na >= nbat ? sa[d + na - nbat] : 1, y = d + nb >= nbat ? sb[d + nb - nbat] : 1;
    r.shape.push_back(x == 1 ? y : x);
  }
  const Shape batch = r.shape;
  if (!a_vec) r.shape.push_back(m);
  if (!b_vec) r.shape.push_back(n);
  Shape idx(nbat, 0);
  for (int64_t q = 0; q < numel_of(batch); ++q) {
    int64_t oa = 0, ob = 0;
    for (size_t d = 0; d < nbat; ++d) {
      if (d + na >= nbat) oa = oa * sa[d + na - nbat] + (sa[d + na - nbat] == 1 ? 0 : idx[d]);
      if (d + nb >= nbat) ob = ob * sb[d + nb - nbat] + (sb[d + nb - nbat] == 1 ? 0 : idx[d]);
    }
    for (int64_t i = 0; i < m; ++i)
      for (int64_t j = 0; j < n; ++j) {
        uint64_t s = 0;
        for (int64_t p = 0; p < k; ++p)
          s += static_cast<uint64_t>(va[oa * m * k + i * k + p]) *
               static_cast<uint64_t>(vb[ob * k * n + p * n + j]);
        r.v.push_back(wrap(s, dt));
      }
    for (int d = static_cast<int>(nbat) - 1; d >= 0 && ++idx[d] == batch[d]; --d) idx[d] = 0;
  }
  return r;
}

class LinalgExt : public ektest::DeviceTest {
 protected:
  // Random bytes of dt: every value of the dtype, so products overflow.
  ek_tensor random_ints(const Shape &shape, ek_dtype dt, unsigned seed) {
    auto bytes = ektest::random_bytes(dt, numel_of(shape), seed);
    return ektest::upload(ctx, shape, dt, bytes.data());
  }
  ek_tensor random(const Shape &shape, ek_dtype dt, uint32_t seed) {
    return make(shape, dt, ektest::random_values(static_cast<size_t>(numel_of(shape)), seed, -2, 2));
  }
  void check_int(ek_tensor a, ek_tensor b, const std::string &what) {
    Tensor out;
    ASSERT_EQ(ek_matmul(nullptr, a, b, out.out()), EK_SUCCESS) << what << ": " << ek_last_error();
    const ek_dtype dt = dtype_of(out);
    IntRef r = int_reference(shape_of(a), ints_of(a), shape_of(b), ints_of(b), dt);
    EXPECT_EQ(shape_of(out), r.shape) << what;
    EXPECT_EQ(ints_of(out), r.v) << what << " (" << ek_dtype_name(dt) << ")";
  }
};

EK_INSTANTIATE_DEVICES(LinalgExt);

TEST_P(LinalgExt, IntegerMatmulIsExactAndWraps) {
  const std::vector<std::pair<Shape, Shape>> shapes = {
      {{37, 53}, {53, 29}},   {{130, 17}, {17, 131}},   {{2, 1, 5, 7}, {3, 7, 4}},
      {{7}, {7, 3}},          {{4, 7}, {7}},            {{9}, {9}},
      {{0, 3}, {3, 4}},       {{3, 0}, {0, 4}},         {{2, 3, 4}, {4, 0}}};
  unsigned seed = 1;
  for (ek_dtype dt : kMatmulInts)
    for (const auto &s : shapes) {
      Tensor a(random_ints(s.first, dt, seed++)), b(random_ints(s.second, dt, seed++));
      check_int(a, b, std::string(ek_dtype_name(dt)) + " " + text(s.first) + " @ " + text(s.second));
    }
}

TEST_P(LinalgExt, IntegerMatmulReadsAnyLayout) {
  for (ek_dtype dt : kMatmulInts) {
    Tensor a_store(random_ints({21, 33}, dt, 7)), b(random_ints({21, 19}, dt, 8));
    Tensor a_t(ektest::transposed(a_store, 0, 1));  // [33,21], column-major
    check_int(a_t, b, std::string(ek_dtype_name(dt)) + " transposed a");
    Tensor wide(random_ints({21, 40}, dt, 9)), stepped(sliced(wide, 1, 0, EK_SLICE_MAX, 2));
    check_int(a_t, stepped, std::string(ek_dtype_name(dt)) + " stepped b");
    Tensor bt(ektest::transposed(b, 0, 1));  // [19,21] @ [21,33]: both transposed views
    check_int(bt, a_store, std::string(ek_dtype_name(dt)) + " transposed both");
  }
}

TEST_P(LinalgExt, IntegerMatmulIntoAGivenOut) {
  Tensor a(random_ints({5, 6}, EK_INT32, 11)), b(random_ints({6, 4}, EK_INT32, 12));
  Tensor store(random_ints({4, 5}, EK_INT32, 13)), col(ektest::transposed(store, 0, 1));
  ek_tensor o = col.t;
  EK_OK(ek_matmul(nullptr, a, b, &o));
  EXPECT_EQ(ints_of(col), int_reference({5, 6}, ints_of(a), {6, 4}, ints_of(b), EK_INT32).v);
}

TEST_P(LinalgExt, MixedIntegerDtypesPromote) {
  Tensor a(random_ints({6, 5}, EK_INT8, 21)), b(random_ints({5, 3}, EK_UINT8, 22));
  Tensor out;
  EK_OK(ek_matmul(nullptr, a, b, out.out()));
  EXPECT_EQ(dtype_of(out), EK_INT16);
  EXPECT_EQ(ints_of(out), int_reference({6, 5}, ints_of(a), {5, 3}, ints_of(b), EK_INT16).v);
  Tensor f(random({5, 3}, EK_FLOAT32, 23)), mixed;
  EK_OK(ek_matmul(nullptr, a, f, mixed.out()));
  EXPECT_EQ(dtype_of(mixed), EK_FLOAT32) << "integer with float gives the float";
}

TEST_P(LinalgExt, IntegerGemmScalesExactly) {
  for (ek_dtype dt : {EK_INT32, EK_INT64, EK_INT8}) {
    Tensor a(random_ints({2, 9, 11}, dt, 31)), b(random_ints({1, 11, 6}, dt, 32));
    Tensor c(random_ints({2, 9, 6}, dt, 33));
    const auto c0 = ints_of(c);
    const int64_t alpha = -3, beta = 7;
    EK_OK(ek_gemm(nullptr, ek_scalar_int(alpha), a, b, ek_scalar_int(beta), c));
    IntRef ab = int_reference({2, 9, 11}, ints_of(a), {1, 11, 6}, ints_of(b), dt);
    std::vector<int64_t> want(ab.v.size());
    for (size_t i = 0; i < want.size(); ++i)
      want[i] = wrap(static_cast<uint64_t>(alpha) * static_cast<uint64_t>(ab.v[i]) +
                         static_cast<uint64_t>(beta) * static_cast<uint64_t>(c0[i]), dt);
    EXPECT_EQ(ints_of(c), want) << ek_dtype_name(dt);
  }
  Tensor a(random_ints({3, 4}, EK_INT32, 34)), b(random_ints({4, 2}, EK_INT32, 35));
  Tensor c(random_ints({3, 2}, EK_INT32, 36));
  EK_FAILS(ek_gemm(nullptr, ek_scalar_float(2.5), a, b, ek_scalar_int(0), c),
           EK_ERROR_INVALID_ARGUMENT, "ek_gemm: alpha = 2.5");
  EK_OK(ek_gemm(nullptr, ek_scalar_float(2.0), a, b, ek_scalar_int(0), c));
}

TEST_P(LinalgExt, BoolMatmulIsRefused) {
  Tensor a(random_ints({3, 4}, EK_BOOL, 41)), b(random_ints({4, 2}, EK_BOOL, 42));
  Tensor out;
  EK_FAILS(ek_matmul(nullptr, a, b, out.out()), EK_ERROR_DTYPE, "ek_matmul: bool operands");
  EXPECT_EQ(out.t, nullptr);
}

}  // namespace
