// Complex dtypes (issue 18): names, sizes and promotion; host round trips,
// casts (real -> complex, complex64 <-> complex128, complex -> real refused),
// fills; the ek_view_real/ek_view_imag views and ek_conj; elementwise ops against
// std::complex<double> references (add, sub and mul of complex64 exactly,
// the transcendental ones within a tolerance) on contiguous, transposed,
// broadcast and empty inputs; sum and mean over dims; the ops that refuse
// complex, each with its message.
#include <cmath>
#include <complex>
#include <functional>
#include <vector>

#include "ek_test.hpp"

using ektest::dtype_of;
using ektest::Shape;
using ektest::shape_of;
using ektest::Tensor;
using ektest::to_host;
using ektest::upload;

namespace {

using Z = std::complex<double>;
using Zs = std::vector<Z>;

// n values with parts on [-2, 2), exact in float32.
Zs random_complex(size_t n, uint32_t seed) {
  const auto re = ektest::random_values(n, seed, -2, 2), im = ektest::random_values(n, seed + 7, -2, 2);
  Zs z(n);
  for (size_t i = 0; i < n; ++i) z[i] = Z(re[i], im[i]);
  return z;
}

// Rounds both parts to float32 (complex64's storage).
Z round64(Z z) { return Z(static_cast<float>(z.real()), static_cast<float>(z.imag())); }

class Complex : public ektest::DeviceTest {
 protected:
  // A tensor of dtype dt (complex64 or complex128) holding z (rounded to dt).
  ek_tensor make_z(const Shape &shape, ek_dtype dt, const Zs &z) {
    Tensor wide(upload(ctx, shape, EK_COMPLEX128, z.data()));
    ek_tensor t = nullptr;
    EXPECT_EQ(ek_cast(nullptr, wide, dt, &t), EK_SUCCESS) << ek_last_error();
    return t;
  }
  // Any complex tensor's values in C order, as complex128.
  Zs values_z(ek_tensor t) {
    Tensor wide;
    EXPECT_EQ(ek_cast(nullptr, t, EK_COMPLEX128, wide.out()), EK_SUCCESS) << ek_last_error();
    return to_host<Z>(wide);
  }
  ek_dtype binary_dtype(ek_dtype a, ek_dtype b) {
    const int64_t one = 1;
    Tensor ta, tb, out;
    EXPECT_EQ(ek_full(nullptr, ctx, 1, &one, a, ek_scalar_int(1), ta.out()), EK_SUCCESS) << ek_last_error();
    EXPECT_EQ(ek_full(nullptr, ctx, 1, &one, b, ek_scalar_int(1), tb.out()), EK_SUCCESS) << ek_last_error();
    EXPECT_EQ(ek_binary(nullptr, EK_BINARY_ADD, ta, tb, out.out()), EK_SUCCESS) << ek_last_error();
    return dtype_of(out);
  }
  // op(a, b) against want on the same values, within tol (relative to |want| + 1; 0: exact).
  void check_binary(ek_binary_op op, ek_tensor a, ek_tensor b, const Zs &za, const Zs &zb, ek_dtype dt,
                    const std::function<Z(Z, Z)> &want, double tol) {
    Tensor out;
    EK_OK(ek_binary(nullptr, op, a, b, out.out()));
    EXPECT_EQ(dtype_of(out), dt);
    const Zs got = values_z(out);
    ASSERT_EQ(got.size(), za.size());
    for (size_t i = 0; i < got.size(); ++i) {
      Z w = want(za[i], zb[i]);
      if (dt == EK_COMPLEX64) w = round64(w);
      if (tol == 0) {
        EXPECT_EQ(got[i], w) << "op " << int(op) << " at " << i;
      } else {
        EXPECT_LE(std::abs(got[i] - w), tol * (std::abs(w) + 1)) << "op " << int(op) << " at " << i << ": " << got[i] << " vs " << w;
      }
    }
  }
};

TEST_P(Complex, NamesSizesAndPromotion) {
  EXPECT_STREQ(ek_dtype_name(EK_COMPLEX64), "complex64");
  EXPECT_STREQ(ek_dtype_name(EK_COMPLEX128), "complex128");
  EXPECT_EQ(ek_dtype_size(EK_COMPLEX64), 8u);
  EXPECT_EQ(ek_dtype_size(EK_COMPLEX128), 16u);
  EXPECT_EQ(binary_dtype(EK_COMPLEX64, EK_FLOAT64), EK_COMPLEX128);
  EXPECT_EQ(binary_dtype(EK_COMPLEX64, EK_INT64), EK_COMPLEX64);
  EXPECT_EQ(binary_dtype(EK_FLOAT16, EK_COMPLEX64), EK_COMPLEX64);
  EXPECT_EQ(binary_dtype(EK_BOOL, EK_COMPLEX128), EK_COMPLEX128);
  EXPECT_EQ(binary_dtype(EK_COMPLEX64, EK_COMPLEX128), EK_COMPLEX128);
  const int64_t n = 2;
  Tensor f32, f64, i32, r1, r2, r3;
  EK_OK(ek_full(nullptr, ctx, 1, &n, EK_FLOAT32, ek_scalar_float(2), f32.out()));
  EK_OK(ek_full(nullptr, ctx, 1, &n, EK_FLOAT64, ek_scalar_float(2), f64.out()));
  EK_OK(ek_full(nullptr, ctx, 1, &n, EK_INT32, ek_scalar_int(2), i32.out()));
  EK_OK(ek_binary_scalar(nullptr, EK_BINARY_MUL, f32, ek_scalar_complex(0, 1), 0, r1.out()));
  EK_OK(ek_binary_scalar(nullptr, EK_BINARY_MUL, f64, ek_scalar_complex(0, 1), 0, r2.out()));
  EK_OK(ek_binary_scalar(nullptr, EK_BINARY_SUB, i32, ek_scalar_complex(1, 1), 1, r3.out()));  // (1+1j) - x
  EXPECT_EQ(dtype_of(r1), EK_COMPLEX64);
  EXPECT_EQ(dtype_of(r2), EK_COMPLEX128);
  EXPECT_EQ(dtype_of(r3), EK_COMPLEX64);
  EXPECT_EQ(values_z(r1), (Zs{Z(0, 2), Z(0, 2)}));
  EXPECT_EQ(values_z(r3), (Zs{Z(-1, 1), Z(-1, 1)}));
}

TEST_P(Complex, RoundTripsCastsAndFills) {
  const std::vector<std::complex<float>> host = {{1.5f, -2}, {0, 3}, {-0.25f, 0}, {7, 8}};
  Tensor c64(upload(ctx, {2, 2}, EK_COMPLEX64, host.data())), c128, back, re, bad, full, eye;
  EXPECT_EQ(to_host<std::complex<float>>(c64), host);
  EK_OK(ek_cast(nullptr, c64, EK_COMPLEX128, c128.out()));
  EK_OK(ek_cast(nullptr, c128, EK_COMPLEX64, back.out()));
  EXPECT_EQ(to_host<std::complex<float>>(back), host);
  Tensor f(ektest::make(ctx, {3}, EK_FLOAT32, {1, -2, 0.5}));
  EK_OK(ek_cast(nullptr, f, EK_COMPLEX128, re.out()));
  EXPECT_EQ(values_z(re), (Zs{Z(1, 0), Z(-2, 0), Z(0.5, 0)}));
  EK_FAILS(ek_cast(nullptr, c64, EK_FLOAT32, bad.out()), EK_ERROR_DTYPE, "ek_view_real");
  EXPECT_EQ(bad.t, nullptr);
  EK_FAILS(ek_copy(nullptr, c64, f), EK_ERROR_DTYPE, "imaginary part");
  Tensor nz(upload(ctx, {3}, EK_COMPLEX64, std::vector<std::complex<float>>{{0, 0}, {0, -1}, {2, 0}}.data())), as_bool;
  EK_OK(ek_cast(nullptr, nz, EK_BOOL, as_bool.out()));
  EXPECT_EQ(ektest::values_of(as_bool), (ektest::Values{0, 1, 1}));
  const int64_t shape[2] = {3, 2};
  EK_OK(ek_full(nullptr, ctx, 2, shape, EK_COMPLEX64, ek_scalar_complex(1.5, -4), full.out()));
  for (Z z : values_z(full)) EXPECT_EQ(z, Z(1.5, -4));
  EK_OK(ek_fill(nullptr, ek_scalar_int(3), full));
  for (Z z : values_z(full)) EXPECT_EQ(z, Z(3, 0));
  Tensor real_t(ektest::make(ctx, {2}, EK_FLOAT32, {0, 0}));
  EK_FAILS(ek_fill(nullptr, ek_scalar_complex(1, 1), real_t), EK_ERROR_DTYPE, "complex");
  EK_OK(ek_eye(nullptr, ctx, 2, 2, 0, EK_COMPLEX128, eye.out()));
  EXPECT_EQ(values_z(eye), (Zs{Z(1, 0), Z(0, 0), Z(0, 0), Z(1, 0)}));
  // a strided (transposed) complex copy
  Tensor t(ektest::transposed(c64, 0, 1)), packed;
  EK_OK(ek_contiguous(nullptr, t, packed.out()));
  EXPECT_EQ(to_host<std::complex<float>>(packed), (std::vector<std::complex<float>>{host[0], host[2], host[1], host[3]}));
}

TEST_P(Complex, RealImagViewsAndConj) {
  const Zs z = {Z(1, 2), Z(3, -4), Z(-5, 6), Z(0, -1), Z(2, 2), Z(7, 0)};
  for (ek_dtype dt : {EK_COMPLEX64, EK_COMPLEX128}) {
    Tensor x(make_z({2, 3}, dt, z)), re, im, conj, xt, ret, fr, bad;
    EK_OK(ek_view_real(x, re.out()));
    EK_OK(ek_view_imag(x, im.out()));
    EXPECT_EQ(dtype_of(re), dt == EK_COMPLEX64 ? EK_FLOAT32 : EK_FLOAT64);
    EXPECT_EQ(shape_of(im), (Shape{2, 3}));
    EXPECT_EQ(ektest::values_of(re), (ektest::Values{1, 3, -5, 0, 2, 7}));
    EXPECT_EQ(ektest::values_of(im), (ektest::Values{2, -4, 6, -1, 2, 0}));
    // writes through the view land in x
    EK_OK(ek_fill(nullptr, ek_scalar_float(9), im));
    EXPECT_EQ(values_z(x)[1], Z(3, 9));
    // a transposed x's parts
    xt.t = ektest::transposed(x, 0, 1);
    EK_OK(ek_view_real(xt, ret.out()));
    EXPECT_EQ(ektest::values_of(ret), (ektest::Values{1, 0, 3, 2, -5, 7}));
    EK_OK(ek_conj(nullptr, xt, conj.out()));
    EXPECT_EQ(values_z(conj), (Zs{Z(1, -9), Z(0, -9), Z(3, -9), Z(2, -9), Z(-5, -9), Z(7, -9)}));
    // a real tensor: real is itself, imag refused, conj a copy
    Tensor f(ektest::make(ctx, {2}, EK_FLOAT32, {1, 2})), fc;
    EK_OK(ek_view_real(f, fr.out()));
    EXPECT_EQ(ektest::values_of(fr), (ektest::Values{1, 2}));
    EK_FAILS(ek_view_imag(f, bad.out()), EK_ERROR_DTYPE, "complex");
    EK_OK(ek_conj(nullptr, f, fc.out()));
    EXPECT_EQ(ektest::values_of(fc), (ektest::Values{1, 2}));
  }
}

TEST_P(Complex, Arithmetic) {
  const Zs za = random_complex(35, 1), zb = random_complex(35, 2);
  for (ek_dtype dt : {EK_COMPLEX64, EK_COMPLEX128}) {
    const double tol = dt == EK_COMPLEX64 ? 2e-6 : 1e-13;
    Tensor a(make_z({5, 7}, dt, za)), b(make_z({5, 7}, dt, zb));
    Zs ra = values_z(a), rb = values_z(b);  // as stored
    check_binary(EK_BINARY_ADD, a, b, ra, rb, dt, std::plus<Z>(), 0);
    check_binary(EK_BINARY_SUB, a, b, ra, rb, dt, std::minus<Z>(), 0);
    check_binary(EK_BINARY_MUL, a, b, ra, rb, dt, std::multiplies<Z>(), dt == EK_COMPLEX64 ? 0 : tol);
    check_binary(EK_BINARY_DIV, a, b, ra, rb, dt, std::divides<Z>(), tol);
    check_binary(EK_BINARY_POW, a, b, ra, rb, dt, [](Z x, Z y) { return std::pow(x, y); }, 10 * tol);
    check_binary(EK_BINARY_EQ, a, a, ra, ra, EK_BOOL, [](Z, Z) { return Z(1); }, 0);
    // non-contiguous: a transposed against a transposed
    Tensor at(ektest::transposed(a, 0, 1)), bt(ektest::transposed(b, 0, 1));
    Zs rat = values_z(at), rbt = values_z(bt);
    check_binary(EK_BINARY_MUL, at, bt, rat, rbt, dt, std::multiplies<Z>(), dt == EK_COMPLEX64 ? 0 : tol);
    // broadcast: a row against every row
    Tensor row(ektest::sliced(b, 0, 0, 1, 1)), out;
    EK_OK(ek_binary(nullptr, EK_BINARY_ADD, a, row, out.out()));
    const Zs got = values_z(out);
    for (size_t i = 0; i < got.size(); ++i) EXPECT_EQ(got[i], (dt == EK_COMPLEX64 ? round64(ra[i] + rb[i % 7]) : ra[i] + rb[i % 7]));
    // empty
    Tensor e1(ektest::sliced(a, 0, 0, 0, 1)), e2;
    EK_OK(ek_binary(nullptr, EK_BINARY_MUL, e1, e1, e2.out()));
    EXPECT_EQ(shape_of(e2), (Shape{0, 7}));
  }
}

TEST_P(Complex, UnaryOps) {
  Zs z = random_complex(24, 3);
  z[0] = Z(0, 0);
  struct Case {
    ek_unary_op op;
    std::function<Z(Z)> want;
  };
  const Case cases[] = {
      {EK_UNARY_NEG, [](Z x) { return -x; }},
      {EK_UNARY_SQUARE, [](Z x) { return x * x; }},
      {EK_UNARY_EXP, [](Z x) { return std::exp(x); }},
      {EK_UNARY_EXPM1, [](Z x) { return std::exp(x) - 1.0; }},
      {EK_UNARY_LOG1P, [](Z x) { return std::log(1.0 + x); }},
      {EK_UNARY_SQRT, [](Z x) { return std::sqrt(x); }},
      {EK_UNARY_SIN, [](Z x) { return std::sin(x); }},
      {EK_UNARY_COS, [](Z x) { return std::cos(x); }},
      {EK_UNARY_TAN, [](Z x) { return std::tan(x); }},
      {EK_UNARY_SINH, [](Z x) { return std::sinh(x); }},
      {EK_UNARY_COSH, [](Z x) { return std::cosh(x); }},
      {EK_UNARY_TANH, [](Z x) { return std::tanh(x); }},
      {EK_UNARY_SIGN, [](Z x) { return x == Z(0) ? Z(0) : x / std::abs(x); }},
      {EK_UNARY_ASIN, [](Z x) { return std::asin(x); }},
      {EK_UNARY_ACOS, [](Z x) { return std::acos(x); }},
      {EK_UNARY_ATAN, [](Z x) { return std::atan(x); }},
      {EK_UNARY_ASINH, [](Z x) { return std::asinh(x); }},
      {EK_UNARY_ACOSH, [](Z x) { return std::acosh(x); }},
      {EK_UNARY_ATANH, [](Z x) { return std::atanh(x); }},
      {EK_UNARY_ROUND, [](Z x) { return Z(std::nearbyint(x.real()), std::nearbyint(x.imag())); }},
  };
  for (ek_dtype dt : {EK_COMPLEX64, EK_COMPLEX128}) {
    const double tol = dt == EK_COMPLEX64 ? 4e-6 : 1e-12;
    Tensor x(make_z({4, 6}, dt, z));
    const Zs rx = values_z(x);
    for (const Case &c : cases) {
      Tensor out;
      EK_OK(ek_unary(nullptr, c.op, x, out.out()));
      EXPECT_EQ(dtype_of(out), dt);
      const Zs got = values_z(out);
      for (size_t i = 0; i < got.size(); ++i) {
        const Z w = c.want(rx[i]);
        EXPECT_LE(std::abs(got[i] - w), tol * (std::abs(w) + 1)) << "op " << int(c.op) << " at " << rx[i] << ": " << got[i] << " vs " << w;
      }
    }
    Tensor ab, lg, rc;
    EK_OK(ek_unary(nullptr, EK_UNARY_ABS, x, ab.out()));
    EXPECT_EQ(dtype_of(ab), dt == EK_COMPLEX64 ? EK_FLOAT32 : EK_FLOAT64);
    const auto mags = ektest::values_of(ab);
    for (size_t i = 0; i < mags.size(); ++i) EXPECT_NEAR(mags[i], std::abs(rx[i]), tol * (std::abs(rx[i]) + 1));
    // log and reciprocal away from 0
    Tensor nz(ektest::sliced(x, 1, 1, 6, 1));
    EK_OK(ek_unary(nullptr, EK_UNARY_LOG, nz, lg.out()));
    EK_OK(ek_unary(nullptr, EK_UNARY_RECIPROCAL, nz, rc.out()));
    const Zs rnz = values_z(nz), glg = values_z(lg), grc = values_z(rc);
    for (size_t i = 0; i < rnz.size(); ++i) {
      EXPECT_LE(std::abs(glg[i] - std::log(rnz[i])), tol * (std::abs(std::log(rnz[i])) + 1));
      EXPECT_LE(std::abs(grc[i] - 1.0 / rnz[i]), tol * (std::abs(1.0 / rnz[i]) + 1));
    }
  }
}

TEST_P(Complex, Predicates) {
  const double inf = INFINITY, nan = NAN;
  const Zs z = {Z(1, 2), Z(nan, 0), Z(0, inf), Z(-inf, nan), Z(0, 0)};
  Tensor x(make_z({5}, EK_COMPLEX128, z)), isnan, isinf, isfin, ne;
  EK_OK(ek_unary(nullptr, EK_UNARY_ISNAN, x, isnan.out()));
  EK_OK(ek_unary(nullptr, EK_UNARY_ISINF, x, isinf.out()));
  EK_OK(ek_unary(nullptr, EK_UNARY_ISFINITE, x, isfin.out()));
  EXPECT_EQ(dtype_of(isnan), EK_BOOL);
  EXPECT_EQ(ektest::values_of(isnan), (ektest::Values{0, 1, 0, 1, 0}));
  EXPECT_EQ(ektest::values_of(isinf), (ektest::Values{0, 0, 1, 1, 0}));
  EXPECT_EQ(ektest::values_of(isfin), (ektest::Values{1, 0, 0, 0, 1}));
  EK_OK(ek_binary_scalar(nullptr, EK_BINARY_NE, x, ek_scalar_complex(1, 2), 0, ne.out()));
  EXPECT_EQ(ektest::values_of(ne), (ektest::Values{0, 1, 1, 1, 1}));
}

TEST_P(Complex, SumAndMean) {
  const Zs z = random_complex(24, 5);
  for (ek_dtype dt : {EK_COMPLEX64, EK_COMPLEX128}) {
    const double tol = dt == EK_COMPLEX64 ? 1e-5 : 1e-12;
    Tensor x(make_z({2, 3, 4}, dt, z)), all, rows, mean;
    const Zs rx = values_z(x);
    EK_OK(ek_reduce(nullptr, EK_REDUCE_SUM, x, 0, nullptr, 0, all.out()));
    EXPECT_EQ(dtype_of(all), dt);
    Z total = 0;
    for (Z v : rx) total += v;
    EXPECT_LE(std::abs(values_z(all)[0] - total), tol * 24);
    const int dims[2] = {0, 2};
    EK_OK(ek_reduce(nullptr, EK_REDUCE_MEAN, x, 2, dims, 1, mean.out()));
    EXPECT_EQ(shape_of(mean), (Shape{1, 3, 1}));
    const Zs got = values_z(mean);
    for (int j = 0; j < 3; ++j) {
      Z m = 0;
      for (int i = 0; i < 2; ++i)
        for (int k = 0; k < 4; ++k) m += rx[i * 12 + j * 4 + k];
      EXPECT_LE(std::abs(got[j] - m / 8.0), tol * 8) << j;
    }
    // any/all: over x != 0
    Tensor zs(make_z({2, 2}, dt, {Z(0, 0), Z(0, -1), Z(0, 0), Z(0, 0)})), any, every;
    const int d1 = 1;
    EK_OK(ek_reduce(nullptr, EK_REDUCE_ANY, zs, 1, &d1, 0, any.out()));
    EK_OK(ek_reduce(nullptr, EK_REDUCE_ALL, x, 0, nullptr, 0, every.out()));
    EXPECT_EQ(ektest::values_of(any), (ektest::Values{1, 0}));
    EXPECT_EQ(ektest::values_of(every), (ektest::Values{1}));
    // over an empty dim: 0
    Tensor e(ektest::sliced(x, 0, 0, 0, 1)), es;
    const int d0 = 0;
    EK_OK(ek_reduce(nullptr, EK_REDUCE_SUM, e, 1, &d0, 0, es.out()));
    for (Z v : values_z(es)) EXPECT_EQ(v, Z(0));
  }
}

TEST_P(Complex, Matmul) {
  const Zs za = random_complex(2 * 3 * 4, 11), zb = random_complex(4 * 5, 12);
  for (ek_dtype dt : {EK_COMPLEX64, EK_COMPLEX128}) {
    const double tol = dt == EK_COMPLEX64 ? 1e-5 : 1e-12;
    Tensor a(make_z({2, 3, 4}, dt, za)), b(make_z({4, 5}, dt, zb)), c, bt, ct, real_b, cr;
    const Zs ra = values_z(a), rb = values_z(b);
    EK_OK(ek_matmul(nullptr, a, b, c.out()));
    EXPECT_EQ(dtype_of(c), dt);
    EXPECT_EQ(shape_of(c), (Shape{2, 3, 5}));
    const Zs got = values_z(c);
    for (int q = 0; q < 2; ++q)
      for (int i = 0; i < 3; ++i)
        for (int j = 0; j < 5; ++j) {
          Z w = 0;
          for (int k = 0; k < 4; ++k) w += ra[q * 12 + i * 4 + k] * rb[k * 5 + j];
          EXPECT_LE(std::abs(got[q * 15 + i * 5 + j] - w), tol * (std::abs(w) + 4)) << q << i << j;
        }
    // a transposed operand, and a real one (promoted to complex)
    Tensor bb(make_z({5, 4}, dt, zb));
    bt.t = ektest::transposed(bb, 0, 1);
    EK_OK(ek_matmul(nullptr, a, bt, ct.out()));
    EXPECT_EQ(shape_of(ct), (Shape{2, 3, 5}));
    real_b.t = ektest::make(ctx, {4, 2}, EK_FLOAT32, {1, 0, 0, 1, 2, 0, 0, 0});
    EK_OK(ek_matmul(nullptr, a, real_b, cr.out()));
    const Zs gr = values_z(cr);
    EXPECT_LE(std::abs(gr[0] - (ra[0] + 2.0 * ra[2])), tol * 8);
    EXPECT_LE(std::abs(gr[1] - ra[1]), tol * 8);
  }
}

TEST_P(Complex, VecdotConjugatesX) {
  Tensor x(make_z({2, 2}, EK_COMPLEX128, {Z(1, 2), Z(0, 1), Z(3, 0), Z(1, -1)})),
      y(make_z({2}, EK_COMPLEX128, {Z(2, 0), Z(0, 1)})), v;
  EK_OK(ek_vecdot(nullptr, x, y, -1, v.out()));
  // conj(1+2i)*2 + conj(i)*i = 2-4i + 1; conj(3)*2 + conj(1-i)*i = 6 + (1+i)i = 5+i
  EXPECT_EQ(values_z(v), (Zs{Z(3, -4), Z(5, 1)}));
}

TEST_P(Complex, CumsumMaskedFillAndWhere) {
  const Zs z = random_complex(6, 21);
  for (ek_dtype dt : {EK_COMPLEX64, EK_COMPLEX128}) {
    Tensor x(make_z({2, 3}, dt, z)), cs, mask, filled;
    const Zs rx = values_z(x);
    EK_OK(ek_scan(nullptr, EK_SCAN_SUM, x, 1, cs.out()));
    EXPECT_EQ(dtype_of(cs), dt);
    const Zs got = values_z(cs);
    for (int i = 0; i < 2; ++i) {
      Z acc = 0;
      for (int j = 0; j < 3; ++j) {
        acc += rx[i * 3 + j];
        EXPECT_LE(std::abs(got[i * 3 + j] - acc), 1e-5) << i << j;
      }
    }
    const uint8_t m[3] = {1, 0, 1};
    const int64_t three = 3;
    EK_OK(ek_tensor_from_host(nullptr, ctx, 1, &three, EK_BOOL, m, mask.out()));
    EK_OK(ek_masked_fill(nullptr, x, mask, ek_scalar_complex(7, -1), filled.out()));
    EXPECT_EQ(values_z(filled), (Zs{Z(7, -1), rx[1], Z(7, -1), Z(7, -1), rx[4], Z(7, -1)}));
    // where(mask, x, real 2): the real operand promotes to (2, 0)
    Tensor two(ektest::make(ctx, {1}, EK_FLOAT32, {2})), w;
    EK_OK(ek_where(nullptr, mask, x, two, w.out()));
    EXPECT_EQ(dtype_of(w), dt);
    EXPECT_EQ(values_z(w), (Zs{rx[0], Z(2, 0), rx[2], rx[3], Z(2, 0), rx[5]}));
  }
}

// Ops that move elements as bytes (on CUDA: 16-byte elements for complex128).
TEST_P(Complex, JoinsGathersAndTriangles) {
  const Zs z = random_complex(6, 9);
  for (ek_dtype dt : {EK_COMPLEX64, EK_COMPLEX128}) {
    Tensor x(make_z({2, 3}, dt, z)), cat, flip, tril, sel, idx, mask, picked;
    const Zs rx = values_z(x);
    const ek_tensor xs[2] = {x, x};
    EK_OK(ek_concat(nullptr, 2, xs, 0, cat.out()));
    Zs want = rx;
    want.insert(want.end(), rx.begin(), rx.end());
    EXPECT_EQ(values_z(cat), want);
    const int d1 = 1;
    EK_OK(ek_flip(nullptr, x, 1, &d1, flip.out()));
    EXPECT_EQ(values_z(flip), (Zs{rx[2], rx[1], rx[0], rx[5], rx[4], rx[3]}));
    EK_OK(ek_tril(nullptr, x, 0, tril.out()));
    EXPECT_EQ(values_z(tril), (Zs{rx[0], 0, 0, rx[3], rx[4], 0}));
    const int64_t i2[2] = {2, 0};
    const int64_t two = 2;
    EK_OK(ek_tensor_from_host(nullptr, ctx, 1, &two, EK_INT64, i2, idx.out()));
    EK_OK(ek_index_select(nullptr, x, 1, idx, sel.out()));
    EXPECT_EQ(values_z(sel), (Zs{rx[2], rx[0], rx[5], rx[3]}));
    // accumulating puts add both parts (index 0 twice)
    const int64_t i0[2] = {0, 0};
    Tensor rows, vals(make_z({2, 3}, dt, Zs(6, Z(1, 1)))), acc;
    EK_OK(ek_tensor_from_host(nullptr, ctx, 1, &two, EK_INT64, i0, rows.out()));
    const ek_tensor rows_idx[1] = {rows};
    EK_OK(ek_index_put(nullptr, x, 1, rows_idx, vals, 1, acc.out()));
    const Zs got_acc = values_z(acc);
    for (int j = 0; j < 3; ++j) {
      EXPECT_EQ(got_acc[j], rx[j] + Z(2, 2)) << j;
      EXPECT_EQ(got_acc[3 + j], rx[3 + j]) << j;
    }
    EK_OK(ek_unary(nullptr, EK_UNARY_ISFINITE, x, mask.out()));
    EK_OK(ek_masked_select(nullptr, x, mask, picked.out()));
    EXPECT_EQ(values_z(picked), rx);
  }
}

// The element moves that run element by element on CUDA (strided compaction,
// masked_scatter, gather, scatter, index_put, roll, repeat, nonzero): every
// part of a complex128 element must arrive, not its first 8 bytes only.
TEST_P(Complex, StridedMovesKeepBothParts) {
  const Zs z = random_complex(6, 33);
  for (ek_dtype dt : {EK_COMPLEX64, EK_COMPLEX128}) {
    Tensor x(make_z({2, 3}, dt, z)), xt, picked, scattered, gathered, put, rolled, repeated, nz;
    const Zs rx = values_z(x);
    EK_OK(ek_view_transpose(x, 0, 1, xt.out()));  // [3, 2]: rx[0], rx[3], rx[1], rx[4], rx[2], rx[5]
    const uint8_t m[6] = {1, 1, 0, 1, 1, 0};
    const int64_t s32[2] = {3, 2};
    Tensor mask;
    EK_OK(ek_tensor_from_host(nullptr, ctx, 2, s32, EK_BOOL, m, mask.out()));
    EK_OK(ek_masked_select(nullptr, xt, mask, picked.out()));
    EXPECT_EQ(values_z(picked), (Zs{rx[0], rx[3], rx[4], rx[2]}));
    // masked_scatter: the true slots of the transposed x take source's values in order
    Tensor source(make_z({4}, dt, Zs{Z(1, -1), Z(2, -2), Z(3, -3), Z(4, -4)}));
    EK_OK(ek_masked_scatter(nullptr, xt, mask, source, scattered.out()));
    const Zs sc = {round64(Z(1, -1)), round64(Z(2, -2)), rx[1], round64(Z(3, -3)), round64(Z(4, -4)), rx[5]};
    EXPECT_EQ(values_z(scattered), sc);
    const int64_t gi[6] = {2, 0, 1, 1, 2, 0};
    const int64_t s23[2] = {2, 3};
    Tensor index;
    EK_OK(ek_tensor_from_host(nullptr, ctx, 2, s23, EK_INT64, gi, index.out()));
    EK_OK(ek_gather(nullptr, x, 1, index, gathered.out()));
    EXPECT_EQ(values_z(gathered), (Zs{rx[2], rx[0], rx[1], rx[4], rx[5], rx[3]}));
    Tensor src(make_z({2, 3}, dt, Zs{Z(5, 6), Z(7, 8), Z(9, 10), Z(-5, 6), Z(-7, 8), Z(-9, 10)})), sct;
    const int64_t perm[6] = {1, 2, 0, 2, 0, 1};
    Tensor pidx;
    EK_OK(ek_tensor_from_host(nullptr, ctx, 2, s23, EK_INT64, perm, pidx.out()));
    EK_OK(ek_scatter(nullptr, x, 1, pidx, src, 0, sct.out()));
    EXPECT_EQ(values_z(sct), (Zs{Z(9, 10), Z(5, 6), Z(7, 8), Z(-7, 8), Z(-9, 10), Z(-5, 6)}));
    const int64_t row[1] = {1}, one = 1;
    Tensor ri, vals(make_z({2}, dt, Zs{Z(0, 1), Z(0, 2)}));
    EK_OK(ek_tensor_from_host(nullptr, ctx, 1, &one, EK_INT64, row, ri.out()));
    const ek_tensor ris[1] = {ri};
    EK_OK(ek_index_put(nullptr, xt, 1, ris, vals, 0, put.out()));  // row 1 of the transpose
    EXPECT_EQ(values_z(put), (Zs{rx[0], rx[3], Z(0, 1), Z(0, 2), rx[2], rx[5]}));
    const int64_t shift = 1;
    const int d0 = 0;
    EK_OK(ek_roll(nullptr, xt, 1, &shift, &d0, rolled.out()));
    EXPECT_EQ(values_z(rolled), (Zs{rx[2], rx[5], rx[0], rx[3], rx[1], rx[4]}));
    const int64_t reps[2] = {1, 2};
    EK_OK(ek_repeat(nullptr, xt, 2, reps, repeated.out()));
    EXPECT_EQ(values_z(repeated), (Zs{rx[0], rx[3], rx[0], rx[3], rx[1], rx[4], rx[1], rx[4], rx[2], rx[5], rx[2], rx[5]}));
    // nonzero: (0, 0) is zero, (0, 1) and (1, 0) are not
    Tensor zs(make_z({4}, dt, Zs{Z(0, 0), Z(0, 1), Z(1, 0), Z(0, 0)}));
    EK_OK(ek_nonzero(nullptr, zs, nz.out()));
    EXPECT_EQ(to_host<int64_t>(nz), (std::vector<int64_t>{1, 2}));
  }
}

// prod and cumprod run as trees of complex multiplies in complex128: against
// sequential std::complex<double> products within a relative tolerance (odd
// lengths take the halving's middle column), on a transposed x, over each dim,
// every dim and none of zero length (the empty product is 1 + 0i); the CPU's
// bits exactly.
TEST_P(Complex, ProdAndCumprod) {
  const Zs z = random_complex(35, 41);
  for (ek_dtype dt : {EK_COMPLEX64, EK_COMPLEX128}) {
    const double tol = dt == EK_COMPLEX64 ? 1e-6 : 1e-13;
    Tensor x(make_z({5, 7}, dt, z)), xt;
    const Zs rx = values_z(x);
    EK_OK(ek_view_transpose(x, 0, 1, xt.out()));  // [7, 5]: xt[i][j] = rx[j * 7 + i]
    auto near = [&](const Zs &got, const Zs &want, const char *what) {
      ASSERT_EQ(got.size(), want.size()) << what;
      for (size_t i = 0; i < got.size(); ++i)
        EXPECT_LE(std::abs(got[i] - want[i]), tol * (std::abs(want[i]) + 1)) << what << " at " << i << ": " << got[i] << " vs " << want[i];
    };
    for (int dim : {0, 1}) {
      Tensor p, keep, cp;
      EK_OK(ek_reduce(nullptr, EK_REDUCE_PROD, xt, 1, &dim, 0, p.out()));
      EXPECT_EQ(dtype_of(p), dt);
      EK_OK(ek_reduce(nullptr, EK_REDUCE_PROD, xt, 1, &dim, 1, keep.out()));
      EXPECT_EQ(shape_of(keep), dim == 0 ? (Shape{1, 5}) : (Shape{7, 1}));
      EK_OK(ek_scan(nullptr, EK_SCAN_PROD, xt, dim, cp.out()));
      EXPECT_EQ(shape_of(cp), (Shape{7, 5}));
      Zs want_p, want_cp(35);
      for (int o = 0; o < (dim == 0 ? 5 : 7); ++o) {
        Z acc = 1;
        for (int k = 0; k < (dim == 0 ? 7 : 5); ++k) {
          const int i = dim == 0 ? k : o, j = dim == 0 ? o : k;  // xt's coordinates
          acc *= rx[j * 7 + i];
          want_cp[i * 5 + j] = acc;
        }
        want_p.push_back(acc);
      }
      near(values_z(p), want_p, "prod");
      near(values_z(keep), want_p, "prod keepdim");
      near(values_z(cp), want_cp, "cumprod");
    }
    Tensor all;
    EK_OK(ek_reduce(nullptr, EK_REDUCE_PROD, x, 0, nullptr, 0, all.out()));
    Z acc = 1;
    for (const Z &v : rx) acc *= v;
    near(values_z(all), {acc}, "prod of all");
    Tensor empty(make_z({0, 3}, dt, {})), ep, ecp;
    const int d0 = 0;
    EK_OK(ek_reduce(nullptr, EK_REDUCE_PROD, empty, 1, &d0, 0, ep.out()));
    EXPECT_EQ(values_z(ep), (Zs{1, 1, 1}));
    EK_OK(ek_scan(nullptr, EK_SCAN_PROD, empty, 0, ecp.out()));
    EXPECT_EQ(shape_of(ecp), (Shape{0, 3}));
    // The same launches on a CPU context give the same bits (no FMA in mul).
    ek_context cpu = cpu_context();
    {
      Tensor wide(upload(cpu, {5, 7}, EK_COMPLEX128, rx.data())), xc, pc, cc, p, c;
      EK_OK(ek_cast(nullptr, wide, dt, xc.out()));
      const int d1 = 1;
      EK_OK(ek_reduce(nullptr, EK_REDUCE_PROD, xc, 1, &d1, 0, pc.out()));
      EK_OK(ek_reduce(nullptr, EK_REDUCE_PROD, x, 1, &d1, 0, p.out()));
      EXPECT_EQ(values_z(p), values_z(pc));
      EK_OK(ek_scan(nullptr, EK_SCAN_PROD, xc, 1, cc.out()));
      EK_OK(ek_scan(nullptr, EK_SCAN_PROD, x, 1, c.out()));
      EXPECT_EQ(values_z(c), values_z(cc));
    }
    EXPECT_EQ(ek_context_destroy(cpu), EK_SUCCESS) << ek_last_error();
  }
}

// ek_gemm with complex alpha and beta (CUDA: cgemm/zgemm; the CPU: the matmul
// of the parts, then the scaling): against std::complex references, on a
// transposed c, a batch broadcast from 2-D operands, beta = 0 over NaN, alpha
// = 0 and k = 0 (beta c only).
TEST_P(Complex, GemmWithComplexCoefficients) {
  const Zs za = random_complex(6, 51), zb = random_complex(12, 52), zc = random_complex(16, 53);
  const Z alpha(0.5, -1.25), beta(2, 0.25);
  for (ek_dtype dt : {EK_COMPLEX64, EK_COMPLEX128}) {
    const double tol = dt == EK_COMPLEX64 ? 1e-5 : 1e-13;
    Tensor a(make_z({2, 3}, dt, za)), b(make_z({3, 4}, dt, zb));
    const Zs ra = values_z(a), rb = values_z(b);
    // want[q][i][j] = alpha (a @ b)[i][j] + beta c[q][i][j]
    auto want = [&](const Zs &c, Z al, Z be, bool with_c) {
      Zs w(c.size());
      for (size_t q = 0; q < c.size() / 8; ++q)
        for (int i = 0; i < 2; ++i)
          for (int j = 0; j < 4; ++j) {
            Z acc = 0;
            for (int l = 0; l < 3; ++l) acc += ra[i * 3 + l] * rb[l * 4 + j];
            const size_t at = q * 8 + i * 4 + j;
            w[at] = al * acc + (with_c ? be * c[at] : Z(0));
          }
      return w;
    };
    auto near = [&](const Zs &got, const Zs &w, const char *what) {
      ASSERT_EQ(got.size(), w.size()) << what;
      for (size_t i = 0; i < got.size(); ++i)
        EXPECT_LE(std::abs(got[i] - w[i]), tol * (std::abs(w[i]) + 1)) << what << " at " << i << ": " << got[i] << " vs " << w[i];
    };
    const ek_scalar al = ek_scalar_complex(alpha.real(), alpha.imag()), be = ek_scalar_complex(beta.real(), beta.imag());
    {  // c stored transposed: [4, 2] viewed as [2, 4] (column-major matrices)
      Tensor store(make_z({4, 2}, dt, Zs(zc.begin(), zc.begin() + 8))), c;
      EK_OK(ek_view_transpose(store, 0, 1, c.out()));
      const Zs rc = values_z(c);
      EK_OK(ek_gemm(nullptr, al, a, b, be, c));
      near(values_z(c), want(rc, alpha, beta, true), "transposed c");
    }
    Tensor c3(make_z({2, 2, 4}, dt, zc));  // a batch of two, a and b broadcast
    const Zs rc3 = values_z(c3);
    EK_OK(ek_gemm(nullptr, al, a, b, be, c3));
    near(values_z(c3), want(rc3, alpha, beta, true), "batched c");
    Tensor cn(make_z({2, 4}, dt, Zs(8, Z(NAN, 1))));  // beta = 0: c's NaNs are never read
    EK_OK(ek_gemm(nullptr, al, a, b, ek_scalar_int(0), cn));
    near(values_z(cn), want(Zs(8), alpha, 0, false), "beta 0");
    Tensor c0(make_z({2, 4}, dt, Zs(zc.begin(), zc.begin() + 8)));
    const Zs rc0 = values_z(c0);
    EK_OK(ek_gemm(nullptr, ek_scalar_complex(0, 0), a, b, be, c0));  // alpha = 0: beta c
    Zs scaled(8);
    for (int i = 0; i < 8; ++i) scaled[i] = beta * rc0[i];
    near(values_z(c0), scaled, "alpha 0");
    // A 1x1 product (cuBLASLt's zgemm loads alpha and beta as aligned pairs:
    // session 9's crash): i (a0 . b0) + (1 - i) c
    Tensor r(make_z({1, 3}, dt, Zs(za.begin(), za.begin() + 3))), col(make_z({3, 1}, dt, Zs(zb.begin(), zb.begin() + 3)));
    Tensor c11(make_z({1, 1}, dt, Zs{Z(2, 0)}));
    EK_OK(ek_gemm(nullptr, ek_scalar_complex(0, 1), r, col, ek_scalar_complex(1, -1), c11));
    const Zs rr = values_z(r), rcol = values_z(col);
    const Z dot = rr[0] * rcol[0] + rr[1] * rcol[1] + rr[2] * rcol[2];
    near(values_z(c11), Zs{Z(0, 1) * dot + Z(1, -1) * Z(2, 0)}, "1x1");
  }
  Tensor a(make_z({2, 3}, EK_COMPLEX64, za)), b(make_z({3, 4}, EK_COMPLEX64, zb));
  Tensor cf(ektest::make(ctx, {2, 4}, EK_FLOAT32, std::vector<double>(8, 0))), fa;
  EK_FAILS(ek_gemm(nullptr, ek_scalar_float(1), a, b, ek_scalar_float(0), cf), EK_ERROR_DTYPE,
           "c is float32 and a is complex64: both need one dtype");
  EK_OK(ek_cast(nullptr, cf, EK_FLOAT32, fa.out()));
  Tensor fb2(ektest::make(ctx, {4, 4}, EK_FLOAT32, std::vector<double>(16, 1)));
  EK_FAILS(ek_gemm(nullptr, ek_scalar_complex(1, 1), fa, fb2, ek_scalar_float(0), cf), EK_ERROR_DTYPE,
           "alpha: a complex value ((1+1j)) is not taken here");
}

// C99 Annex G's special values (G.6: infinite and NaN parts, signed zeros),
// the same on both devices: the inverse functions and the checks of sqrt,
// log, exp and tanh. tanh(+inf + iy) is 1 + 0i for y > 0 as the array API
// says (Annex G: 1 + i0 sin(2y)). "any" marks a sign C leaves unspecified.
TEST_P(Complex, AnnexGSpecialValues) {
  const double inf = INFINITY, nan = NAN, p2 = M_PI / 2, p4 = M_PI / 4;
  struct Case {
    ek_unary_op op;
    Z in, want;
    bool any_re = false, any_im = false;
  };
  const Case cases[] = {
      {EK_UNARY_ACOSH, {0, 0}, {0, p2}}, {EK_UNARY_ACOSH, {-0.0, 0}, {0, p2}},
      {EK_UNARY_ACOSH, {1, inf}, {inf, p2}}, {EK_UNARY_ACOSH, {0, nan}, {nan, p2}, false, true},
      {EK_UNARY_ACOSH, {1, nan}, {nan, nan}}, {EK_UNARY_ACOSH, {-inf, 1}, {inf, M_PI}},
      {EK_UNARY_ACOSH, {inf, 1}, {inf, 0}}, {EK_UNARY_ACOSH, {-inf, inf}, {inf, 3 * p4}},
      {EK_UNARY_ACOSH, {inf, inf}, {inf, p4}}, {EK_UNARY_ACOSH, {-inf, nan}, {inf, nan}},
      {EK_UNARY_ACOSH, {nan, 1}, {nan, nan}}, {EK_UNARY_ACOSH, {nan, inf}, {inf, nan}},
      {EK_UNARY_ACOSH, {nan, nan}, {nan, nan}}, {EK_UNARY_ACOSH, {1, -inf}, {inf, -p2}},
      {EK_UNARY_ACOSH, {inf, -1}, {inf, -0.0}},
      {EK_UNARY_ACOS, {0, 0}, {p2, -0.0}}, {EK_UNARY_ACOS, {-0.0, 0}, {p2, -0.0}},
      {EK_UNARY_ACOS, {0, nan}, {p2, nan}, false, true}, {EK_UNARY_ACOS, {1, inf}, {p2, -inf}},
      {EK_UNARY_ACOS, {1, nan}, {nan, nan}}, {EK_UNARY_ACOS, {-inf, 1}, {M_PI, -inf}},
      {EK_UNARY_ACOS, {inf, 1}, {0, -inf}}, {EK_UNARY_ACOS, {-inf, inf}, {3 * p4, -inf}},
      {EK_UNARY_ACOS, {inf, inf}, {p4, -inf}}, {EK_UNARY_ACOS, {inf, nan}, {nan, inf}, false, true},
      {EK_UNARY_ACOS, {nan, 1}, {nan, nan}}, {EK_UNARY_ACOS, {nan, inf}, {nan, -inf}},
      {EK_UNARY_ACOS, {0, -0.0}, {p2, 0}}, {EK_UNARY_ACOS, {inf, -1}, {0, inf}},
      {EK_UNARY_ASINH, {0, 0}, {0, 0}}, {EK_UNARY_ASINH, {-0.0, -0.0}, {-0.0, -0.0}},
      {EK_UNARY_ASINH, {1, inf}, {inf, p2}}, {EK_UNARY_ASINH, {1, nan}, {nan, nan}},
      {EK_UNARY_ASINH, {inf, 1}, {inf, 0}}, {EK_UNARY_ASINH, {inf, inf}, {inf, p4}},
      {EK_UNARY_ASINH, {inf, nan}, {inf, nan}}, {EK_UNARY_ASINH, {nan, 0}, {nan, 0}},
      {EK_UNARY_ASINH, {nan, 1}, {nan, nan}}, {EK_UNARY_ASINH, {nan, inf}, {inf, nan}, true, false},
      {EK_UNARY_ASINH, {-inf, -1}, {-inf, -0.0}}, {EK_UNARY_ASINH, {-1, inf}, {-inf, p2}},
      {EK_UNARY_ATANH, {0, 0}, {0, 0}}, {EK_UNARY_ATANH, {-0.0, 0}, {-0.0, 0}},
      {EK_UNARY_ATANH, {0, nan}, {0, nan}}, {EK_UNARY_ATANH, {1, 0}, {inf, 0}},
      {EK_UNARY_ATANH, {1, inf}, {0, p2}}, {EK_UNARY_ATANH, {1, nan}, {nan, nan}},
      {EK_UNARY_ATANH, {inf, 1}, {0, p2}}, {EK_UNARY_ATANH, {inf, inf}, {0, p2}},
      {EK_UNARY_ATANH, {inf, nan}, {0, nan}}, {EK_UNARY_ATANH, {nan, 1}, {nan, nan}},
      {EK_UNARY_ATANH, {nan, inf}, {0, p2}, true, false}, {EK_UNARY_ATANH, {-1, -0.0}, {-inf, -0.0}},
      {EK_UNARY_ATANH, {-inf, -1}, {-0.0, -p2}},
      {EK_UNARY_SQRT, {-0.0, 0}, {0, 0}}, {EK_UNARY_SQRT, {0, -0.0}, {0, -0.0}},
      {EK_UNARY_SQRT, {nan, inf}, {inf, inf}}, {EK_UNARY_SQRT, {-inf, 1}, {0, inf}},
      {EK_UNARY_SQRT, {inf, -1}, {inf, -0.0}}, {EK_UNARY_SQRT, {-inf, nan}, {nan, inf}, false, true},
      {EK_UNARY_SQRT, {inf, nan}, {inf, nan}},
      {EK_UNARY_LOG, {-0.0, 0}, {-inf, M_PI}}, {EK_UNARY_LOG, {0, -0.0}, {-inf, -0.0}},
      {EK_UNARY_LOG, {1, inf}, {inf, p2}}, {EK_UNARY_LOG, {-inf, -1}, {inf, -M_PI}},
      {EK_UNARY_LOG, {-inf, inf}, {inf, 3 * p4}}, {EK_UNARY_LOG, {nan, inf}, {inf, nan}},
      {EK_UNARY_EXP, {-0.0, 0}, {1, 0}}, {EK_UNARY_EXP, {1, inf}, {nan, nan}},
      {EK_UNARY_EXP, {inf, 0}, {inf, 0}}, {EK_UNARY_EXP, {-inf, inf}, {0, 0}, true, true},
      {EK_UNARY_EXP, {inf, inf}, {inf, nan}, true, false}, {EK_UNARY_EXP, {nan, 0}, {nan, 0}},
      {EK_UNARY_EXP, {-inf, -inf}, {0, -0.0}, true, false},
      {EK_UNARY_TANH, {0, 0}, {0, 0}}, {EK_UNARY_TANH, {0, inf}, {0, nan}},
      {EK_UNARY_TANH, {1, inf}, {nan, nan}}, {EK_UNARY_TANH, {inf, 1}, {1, 0}},
      {EK_UNARY_TANH, {inf, nan}, {1, 0}, false, true}, {EK_UNARY_TANH, {nan, -0.0}, {nan, -0.0}},
      {EK_UNARY_TANH, {-inf, -1}, {-1, -0.0}},
  };
  // One part: NaN for NaN, infinities and zeros exactly (their signs unless any), else within tol.
  auto part_ok = [](double got, double want, bool any, double tol) {
    if (want != want) return got != got;
    if (any) got = std::fabs(got), want = std::fabs(want);
    if (want == 0) return got == 0 && std::signbit(got) == std::signbit(want);
    if (std::isinf(want)) return got == want;
    return std::fabs(got - want) <= tol * std::fabs(want);
  };
  for (ek_dtype dt : {EK_COMPLEX64, EK_COMPLEX128}) {
    const double tol = dt == EK_COMPLEX64 ? 1e-6 : 1e-15;
    for (const Case &c : cases) {
      Tensor x(make_z({1}, dt, {c.in})), out;
      EK_OK(ek_unary(nullptr, c.op, x, out.out()));
      const Z got = values_z(out)[0];
      EXPECT_TRUE(part_ok(got.real(), c.want.real(), c.any_re, tol) && part_ok(got.imag(), c.want.imag(), c.any_im, tol))
          << "op " << int(c.op) << " of " << c.in << ": got " << got << ", want " << c.want << " ("
          << ek_dtype_name(dt) << ")";
    }
  }
}

TEST_P(Complex, RefusedOps) {
  Tensor x(make_z({3}, EK_COMPLEX64, {Z(1, 1), Z(2, 0), Z(0, 3)})), out;
  EK_FAILS(ek_reduce(nullptr, EK_REDUCE_MAX, x, 0, nullptr, 0, out.out()), EK_ERROR_DTYPE,
           "max does not support complex dtypes, got complex64");
  EK_FAILS(ek_binary(nullptr, EK_BINARY_LT, x, x, out.out()), EK_ERROR_DTYPE, "complex");
  EK_FAILS(ek_unary(nullptr, EK_UNARY_FLOOR, x, out.out()), EK_ERROR_DTYPE, "complex");
  EK_FAILS(ek_clamp(nullptr, x, nullptr, nullptr, out.out()), EK_ERROR_DTYPE, "clamp does not support complex");
  EK_FAILS(ek_scan(nullptr, EK_SCAN_PROD, x, 1, out.out()), EK_ERROR_INDEX, "dim 1 is out of range");
  EK_FAILS(ek_sort(nullptr, x, 0, 0, 1, out.out(), nullptr), EK_ERROR_DTYPE, "complex64");
  const int64_t n = 3;
  EK_FAILS(ek_arange(nullptr, ctx, ek_scalar_int(0), ek_scalar_int(3), ek_scalar_int(1), EK_COMPLEX64, out.out()),
           EK_ERROR_DTYPE, "complex64");
  EK_FAILS(ek_full(nullptr, ctx, 1, &n, EK_FLOAT32, ek_scalar_complex(1, 2), out.out()), EK_ERROR_DTYPE, "complex");
  EK_FAILS(ek_binary_scalar(nullptr, EK_BINARY_MAXIMUM, x, ek_scalar_float(1), 0, out.out()), EK_ERROR_DTYPE,
           "maximum does not support complex");
  EXPECT_EQ(out.t, nullptr);
}

EK_INSTANTIATE_DEVICES(Complex);

}  // namespace
