// The elementwise ops' out-dtype rule (ek.h's conventions): a given *out of
// another dtype receives the result converted when the result's category
// (bool < integer < float) is not above out's, in place included (x += y);
// otherwise EK_ERROR_DTYPE naming both dtypes. Expected values by hand.
#include <vector>

#include "ek_test.hpp"

namespace {

using ektest::Tensor;
using ektest::dtype_of;
using ektest::values_of;

class OutDtype : public ektest::DeviceTest {};
EK_INSTANTIATE_DEVICES(OutDtype);

// The cross-language case: float32 x += float64 y stays float32.
TEST_P(OutDtype, Float32PlusFloat64InPlace) {
  Tensor x(make({2}, EK_FLOAT32, {1.5, 2.5})), y(make({2}, EK_FLOAT64, {0.25, 0.5}));
  ek_tensor o = x.t;
  EK_OK(ek_binary(nullptr, EK_BINARY_ADD, x, y, &o));
  EXPECT_EQ(o, x.t);
  EXPECT_EQ(dtype_of(x), EK_FLOAT32);
  EXPECT_EQ(ektest::to_host<float>(x), (std::vector<float>{1.75f, 3.0f}));
}

// The cross-language case: int64 + 2^60 as an integer scalar, exactly.
TEST_P(OutDtype, Int64PlusTwoToTheSixtyIsExact) {
  const int64_t big = int64_t{1} << 60;
  const int64_t values[2] = {1, 2};
  Tensor x(ektest::upload(ctx, {2}, EK_INT64, values)), y;
  EK_OK(ek_binary_scalar(nullptr, EK_BINARY_ADD, x, ek_scalar_int(big), 0, y.out()));
  EXPECT_EQ(dtype_of(y), EK_INT64);
  EXPECT_EQ(ektest::to_host<int64_t>(y), (std::vector<int64_t>{big + 1, big + 2}));
  ek_tensor o = x.t;  // in place too
  EK_OK(ek_binary_scalar(nullptr, EK_BINARY_ADD, x, ek_scalar_int(big), 0, &o));
  EXPECT_EQ(ektest::to_host<int64_t>(x), (std::vector<int64_t>{big + 1, big + 2}));
}

TEST_P(OutDtype, LowerOrEqualCategoryResultsConvertOnStore) {
  Tensor i(make({3}, EK_INT32, {-2, 0, 5})), f(make({3}, EK_FLOAT32, {0.5, -1.25, 3}));
  Tensor as_f64(make({3}, EK_FLOAT64, {9, 9, 9}));
  ek_tensor o = as_f64.t;
  EK_OK(ek_unary(nullptr, EK_UNARY_ABS, i, &o));  // int32 result into float64
  EXPECT_EQ(values_of(as_f64), (ektest::Values{2, 0, 5}));
  EK_OK(ek_binary(nullptr, EK_BINARY_GT, f, i, &o));  // bool result into float64
  EXPECT_EQ(values_of(as_f64), (ektest::Values{1, 0, 0}));
  Tensor as_i8(make({3}, EK_INT8, {9, 9, 9}));
  o = as_i8.t;
  EK_OK(ek_binary_scalar(nullptr, EK_BINARY_MUL, i, ek_scalar_int(3), 0, &o));  // int32 -> int8
  EXPECT_EQ(values_of(as_i8), (ektest::Values{-6, 0, 15}));
  Tensor as_f16(make({3}, EK_FLOAT16, {9, 9, 9}));
  o = as_f16.t;
  Tensor cond(make({3}, EK_BOOL, {1, 0, 1}));
  EK_OK(ek_where(nullptr, cond, f, i, &o));  // float32 result into float16
  EXPECT_EQ(values_of(as_f16), (ektest::Values{0.5, 0, 3}));
  o = as_f64.t;
  const ek_scalar lo = ek_scalar_int(-1), hi = ek_scalar_int(4);
  EK_OK(ek_clamp(nullptr, i, &lo, &hi, &o));  // int32 result into float64
  EXPECT_EQ(values_of(as_f64), (ektest::Values{-1, 0, 4}));
  EK_OK(ek_axpby(nullptr, ek_scalar_int(2), i, ek_scalar_int(-1), i, &o));
  EXPECT_EQ(values_of(as_f64), (ektest::Values{-2, 0, 5}));
  Tensor g(make({3}, EK_FLOAT64, {1.5, 1, 7}));
  o = f.t;  // lerp of float32 and float64 (a float64 result) into the float32 start
  EK_OK(ek_lerp(nullptr, f, g, ek_scalar_float(0.5), &o));
  EXPECT_EQ(ektest::to_host<float>(f), (std::vector<float>{1.0f, -0.125f, 5.0f}));
}

TEST_P(OutDtype, HigherCategoryResultsAreRejected) {
  Tensor x(make({2}, EK_INT32, {1, 2})), y(make({2}, EK_FLOAT32, {0.5, 0.5}));
  ek_tensor o = x.t;  // x_int += y_f32
  EK_FAILS(ek_binary(nullptr, EK_BINARY_ADD, x, y, &o), EK_ERROR_DTYPE,
           "ek_binary: out has dtype int32; the result is float32");
  EXPECT_EQ(values_of(x), (ektest::Values{1, 2}));  // untouched
  EK_FAILS(ek_unary(nullptr, EK_UNARY_SQRT, x, &o), EK_ERROR_DTYPE, "the result is float32");
  EK_FAILS(ek_binary_scalar(nullptr, EK_BINARY_MUL, x, ek_scalar_float(0.5), 0, &o),
           EK_ERROR_DTYPE, "ek_binary_scalar: out has dtype int32");
  Tensor b(make({2}, EK_BOOL, {1, 0}));
  o = b.t;  // an integer result into a bool out
  EK_FAILS(ek_binary(nullptr, EK_BINARY_ADD, x, x, &o), EK_ERROR_DTYPE,
           "out has dtype bool; the result is int32, whose category (integer) is above out's "
           "(bool)");
  EK_FAILS(ek_lerp(nullptr, y, y, ek_scalar_float(0.5), &o), EK_ERROR_DTYPE, "out has dtype bool");
  Tensor wrong_shape(make({3}, EK_FLOAT64, {0, 0, 0}));
  o = wrong_shape.t;  // a shape mismatch is still one, whatever the dtypes
  EK_FAILS(ek_binary(nullptr, EK_BINARY_ADD, x, y, &o), EK_ERROR_SHAPE, "[3]");
  Tensor broadcast;
  const int64_t two = 2;
  Tensor one(make({1}, EK_FLOAT64, {0}));
  EK_OK(ek_view_expand(one, 1, &two, broadcast.out()));
  o = broadcast.t;
  EK_FAILS(ek_binary(nullptr, EK_BINARY_ADD, x, y, &o), EK_ERROR_INVALID_ARGUMENT, "broadcast");
}

TEST_P(OutDtype, ConvertingIntoAStridedOut) {
  Tensor base(make({2, 2}, EK_FLOAT64, {0, 0, 0, 0})), col;
  EK_OK(ek_view_select(base, 1, 1, col.out()));  // base[:, 1]
  Tensor x(make({2}, EK_INT64, {3, 4}));
  ek_tensor o = col.t;
  EK_OK(ek_binary(nullptr, EK_BINARY_MUL, x, x, &o));
  EXPECT_EQ(values_of(base), (ektest::Values{0, 9, 0, 16}));
}

}  // namespace
