// ek_elementwise_create / _launch / _release: parameter-list errors (checked
// before the device, so they run on the CPU too), NOT_SUPPORTED on a CPU
// context, and on CUDA: results against host references (contiguous and
// vectorized, misaligned, broadcast, transposed and sliced, f16/bf16, bool,
// int32 with the index i), in place, two outputs, outputs read by the body,
// zero-size, bad launches leaving nothing behind, compile errors with the
// log, and a context refusing destruction while a builder lives. The
// fixture checks that no handle or pool memory leaks.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "ek_test.hpp"

using ektest::Tensor;
using ektest::to_host;

namespace {

const char *kSkipCpu =
    "elementwise kernels are CUDA only; the CPU context's EK_ERROR_NOT_SUPPORTED was checked";

// Owns a builder handle for the duration of a test.
struct Builder {
  ek_elementwise h = nullptr;
  Builder() = default;
  ~Builder() { ek_elementwise_destroy(h); }
  Builder(const Builder &) = delete;
  Builder &operator=(const Builder &) = delete;
  operator ek_elementwise() const { return h; }
};

class ElementwiseKernel : public ektest::DeviceTest {
 protected:
  // CUDA: creates the builder. CPU: expects EK_ERROR_NOT_SUPPORTED, leaves b->h NULL.
  void build(Builder *b, const char *in, const char *out, const char *body,
             const char *name = "fused") {
    ek_status st = ek_elementwise_create(ctx, in, out, body, name, &b->h);
    if (GetParam() == EK_CPU) {
      EXPECT_EQ(st, EK_ERROR_NOT_SUPPORTED) << ek_last_error();
      EXPECT_EQ(b->h, nullptr);
      b->h = nullptr;
      return;
    }
    ASSERT_EQ(st, EK_SUCCESS) << ek_last_error();
  }
  ek_tensor from_host(const void *data, std::vector<int64_t> shape, ek_dtype dtype) {
    ek_tensor t = nullptr;
    EXPECT_EQ(ek_tensor_from_host(nullptr, ctx, int(shape.size()), shape.data(), dtype, data, &t),
              EK_SUCCESS) << ek_last_error();
    return t;
  }
  ek_tensor f32(const std::vector<float> &v, std::vector<int64_t> shape) {
    return from_host(v.data(), shape, EK_FLOAT32);
  }
  static ek_tensor cast(ek_tensor t, ek_dtype dtype) {
    ek_tensor out = nullptr;
    EXPECT_EQ(ek_cast(nullptr, t, dtype, &out), EK_SUCCESS) << ek_last_error();
    return out;
  }
  static std::vector<float> as_f32(ek_tensor t) {
    Tensor f(cast(t, EK_FLOAT32));
    return to_host<float>(f);
  }
  static std::vector<int64_t> shape_of(ek_tensor t) {
    ek_tensor_info i = EK_TENSOR_INFO_INIT;
    EXPECT_EQ(ek_tensor_get_info(t, &i), EK_SUCCESS);
    return std::vector<int64_t>(i.shape, i.shape + i.ndim);
  }
  static std::vector<float> random(size_t n, unsigned seed) {
    std::mt19937 gen(seed);
    std::uniform_real_distribution<float> dist(-2.f, 2.f);
    std::vector<float> v(n);
    for (float &x : v) x = dist(gen);
    return v;
  }
};
EK_INSTANTIATE_DEVICES(ElementwiseKernel);

#define EK_BUILD(b, in, out, body)                  \
  Builder b;                                        \
  ASSERT_NO_FATAL_FAILURE(build(&b, in, out, body)); \
  if (!b.h) GTEST_SKIP() << kSkipCpu

// The fused body's value; the device may contract x * y + m into one fma, so
// the comparison allows one rounding of difference.
float fused_ref(float x, float y) { return x * y + std::max(x, 0.0f); }

void expect_close(const std::vector<float> &got, const std::vector<float> &want,
                  const char *what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  size_t bad = 0;
  for (size_t i = 0; i < got.size(); ++i)
    if (std::fabs(got[i] - want[i]) > 1e-6f * std::max(1.0f, std::fabs(want[i])) && bad++ < 5)
      ADD_FAILURE() << what << " at " << i << ": got " << got[i] << ", want " << want[i];
  EXPECT_EQ(bad, 0u) << what;
}

// ------------------------------------------------------ arguments, any device --

TEST_P(ElementwiseKernel, NullArguments) {
  ek_elementwise k = nullptr;
  EK_FAILS(ek_elementwise_create(nullptr, "float32 x", "float32 z", "z = x", "k", &k),
           EK_ERROR_NULL_POINTER, "ek_elementwise_create: ctx is NULL");
  EK_FAILS(ek_elementwise_create(ctx, nullptr, "float32 z", "z = 1", "k", &k),
           EK_ERROR_NULL_POINTER, "in_params is NULL");
  EK_FAILS(ek_elementwise_create(ctx, "float32 x", nullptr, "z = x", "k", &k),
           EK_ERROR_NULL_POINTER, "out_params is NULL");
  EK_FAILS(ek_elementwise_create(ctx, "float32 x", "float32 z", nullptr, "k", &k),
           EK_ERROR_NULL_POINTER, "body is NULL");
  EK_FAILS(ek_elementwise_create(ctx, "float32 x", "float32 z", "z = x", "k", nullptr),
           EK_ERROR_NULL_POINTER, "out is NULL");
  EXPECT_EQ(k, nullptr);
  EK_FAILS(ek_elementwise_launch(nullptr, nullptr, nullptr, 0, nullptr, 1),
           EK_ERROR_NULL_POINTER, "ek_elementwise_launch: k is NULL");
  EK_OK(ek_elementwise_destroy(nullptr));
}

// Parsed before the device check: the same errors on CPU and CUDA.
TEST_P(ElementwiseKernel, BadParameterListsNameTheToken) {
  struct Case {
    const char *in, *out, *name, *text;
  } cases[] = {
      {"flaot32 x", "float32 z", "k", "in_params \"flaot32 x\": unknown type 'flaot32'"},
      {"float32 x", "float32 1z", "k", "out_params \"float32 1z\": '1z'"},
      {"float32 x, float32 x", "float32 z", "k", "duplicate parameter name 'x'"},
      {"float32 x", "float32 x", "k", "duplicate parameter name 'x'"},
      {"float32 i", "float32 z", "k", "'i' is reserved (the element index)"},
      {"float32 x", "int32 int", "k", "'int' is reserved"},
      {"float32 x", "", "k", "out_params declares no outputs"},
      {"float32 x,", "float32 z", "k", "empty parameter"},
      {"float32 x", "float32 z", "my-kernel", "name: 'my-kernel' is not a C identifier"},
      {"float32 x", "float32 z", "ekw_k", "name: 'ekw_k' is reserved"},
      {"int8 a0, int8 a1, int8 a2, int8 a3, int8 a4, int8 a5, int8 a6, int8 a7, int8 a8, "
       "int8 a9, int8 a10, int8 a11, int8 a12, int8 a13, int8 a14, int8 a15",
       "int8 z", "k", "17 parameters; at most 16"},
  };
  for (const Case &c : cases) {
    ek_elementwise k = nullptr;
    EK_FAILS(ek_elementwise_create(ctx, c.in, c.out, "z = x", c.name, &k),
             EK_ERROR_INVALID_ARGUMENT, c.text);
    EXPECT_EQ(k, nullptr);
  }
}

// Every real dtype's ek_dtype_name is a parameter type (complex ones are not);
// a good list on a CPU context is EK_ERROR_NOT_SUPPORTED.
TEST_P(ElementwiseKernel, AcceptsEveryDtypeName) {
  for (int dt = 0; dt < EK_NUM_DTYPES; ++dt) {
    if (dt == EK_COMPLEX64 || dt == EK_COMPLEX128) continue;
    std::string in = std::string(ek_dtype_name(ek_dtype(dt))) + " x";
    Builder k;
    ek_status st = ek_elementwise_create(ctx, in.c_str(), "float64 z", "z = (double)x;", nullptr,
                                         &k.h);
    if (GetParam() == EK_CPU) {
      EXPECT_EQ(st, EK_ERROR_NOT_SUPPORTED) << in;
      EXPECT_NE(std::string(ek_last_error()).find("CPU context"), std::string::npos)
          << ek_last_error();
    } else {
      EXPECT_EQ(st, EK_SUCCESS) << in << ": " << ek_last_error();
    }
  }
}

// ----------------------------------------------------------------- CUDA only --

TEST_P(ElementwiseKernel, FusedMatchesHostReference) {
  EK_BUILD(k, "float32 x, float32 y", "float32 z", "z = x * y + max(x, 0.0f)");
  const int64_t n = (int64_t(1) << 20) + 3;  // a tail past the last 4-element vector
  std::vector<float> hx = random(size_t(n), 1), hy = random(size_t(n), 2), want(static_cast<size_t>(n));
  for (size_t i = 0; i < want.size(); ++i) want[i] = fused_ref(hx[i], hy[i]);
  Tensor x(f32(hx, {n})), y(f32(hy, {n})), z;
  ek_tensor in[2] = {x, y};
  EK_OK(ek_elementwise_launch(nullptr, k, in, 2, z.out(), 1));
  EXPECT_EQ(shape_of(z), std::vector<int64_t>{n});
  expect_close(to_host<float>(z), want, "contiguous");
  // Again into the same output: the cached specialisation, same result.
  EK_OK(ek_elementwise_launch(nullptr, k, in, 2, z.out(), 1));
  expect_close(to_host<float>(z), want, "second launch");
  // Views one element in: not 16-byte aligned, so the scalar contiguous path.
  Tensor xs, ys;
  EK_OK(ek_view_slice(x, 0, 1, n, 1, xs.out()));
  EK_OK(ek_view_slice(y, 0, 1, n, 1, ys.out()));
  ek_tensor in2[2] = {xs, ys};
  Tensor z2;
  EK_OK(ek_elementwise_launch(nullptr, k, in2, 2, z2.out(), 1));
  expect_close(to_host<float>(z2), std::vector<float>(want.begin() + 1, want.end()), "misaligned");
}

TEST_P(ElementwiseKernel, BroadcastsInputs) {
  EK_BUILD(k, "float32 a, float32 b", "float32 c", "c = a * 10.0f + b");
  Tensor a(f32({1, 2, 3}, {3, 1})), b(f32({0.5f, 0.25f, -1, 4}, {1, 4})), c;
  ek_tensor in[2] = {a, b};
  EK_OK(ek_elementwise_launch(nullptr, k, in, 2, c.out(), 1));
  EXPECT_EQ(shape_of(c), (std::vector<int64_t>{3, 4}));
  std::vector<float> got = to_host<float>(c), want;
  for (float av : {1.f, 2.f, 3.f})
    for (float bv : {0.5f, 0.25f, -1.f, 4.f}) want.push_back(av * 10.0f + bv);
  EXPECT_EQ(got, want);
  // A 0-d input broadcast against a vector.
  const float two = 2;
  Tensor s(from_host(&two, {}, EK_FLOAT32)), v(f32({1, 2, 3, 4, 5}, {5})), out;
  ek_tensor in2[2] = {s, v};
  EK_OK(ek_elementwise_launch(nullptr, k, in2, 2, out.out(), 1));
  EXPECT_EQ(to_host<float>(out), (std::vector<float>{21, 22, 23, 24, 25}));
}

TEST_P(ElementwiseKernel, TransposedAndSlicedInputs) {
  EK_BUILD(k, "float32 x, float32 y", "float32 z", "z = x * y + max(x, 0.0f)");
  const int64_t r = 64, c = 33;
  std::vector<float> hx = random(size_t(r * c), 3), hy = random(size_t(c * r * 2), 4);
  Tensor x(f32(hx, {r, c})), y(f32(hy, {c, r * 2}));
  Tensor xt, ys;  // x^T: [33, 64] with strides [1, 33]; every other column of y
  EK_OK(ek_view_transpose(x, 0, 1, xt.out()));
  EK_OK(ek_view_slice(y, 1, 0, r * 2, 2, ys.out()));
  ek_tensor in[2] = {xt, ys};
  Tensor z;
  EK_OK(ek_elementwise_launch(nullptr, k, in, 2, z.out(), 1));
  std::vector<float> want;
  for (int64_t i = 0; i < c; ++i)
    for (int64_t j = 0; j < r; ++j)
      want.push_back(fused_ref(hx[size_t(j * c + i)], hy[size_t(i * r * 2 + j * 2)]));
  expect_close(to_host<float>(z), want, "strided");
  // Into a transposed output view.
  Tensor zt_base, zt;
  const int64_t shape[2] = {r, c};
  EK_OK(ek_tensor_empty(nullptr, ctx, 2, shape, EK_FLOAT32, zt_base.out()));
  EK_OK(ek_view_transpose(zt_base, 0, 1, zt.out()));
  ek_tensor outs[1] = {zt};
  EK_OK(ek_elementwise_launch(nullptr, k, in, 2, outs, 1));
  EXPECT_EQ(outs[0], zt.t);
  expect_close(as_f32(zt), want, "strided output");
}

TEST_P(ElementwiseKernel, HalfAndBfloat16Parameters) {
  EK_BUILD(k, "float16 h, bfloat16 b", "float16 y, bfloat16 w", "y = h * 2.0f + b; w = h - b;");
  const int64_t n = 1000;
  std::vector<float> hh = random(size_t(n), 5), hb = random(size_t(n), 6);
  Tensor hf(f32(hh, {n})), bf(f32(hb, {n}));
  Tensor h(cast(hf, EK_FLOAT16)), b(cast(bf, EK_BFLOAT16)), y, w;
  ek_tensor in[2] = {h, b};
  ek_tensor out[2] = {nullptr, nullptr};
  EK_OK(ek_elementwise_launch(nullptr, k, in, 2, out, 2));
  y.t = out[0];
  w.t = out[1];
  // Reference: float math on the rounded inputs, rounded by ek_cast (RNE).
  std::vector<float> rh = as_f32(h), rb = as_f32(b), ry(static_cast<size_t>(n)), rw(static_cast<size_t>(n));
  for (size_t i = 0; i < ry.size(); ++i) {
    ry[i] = rh[i] * 2.0f + rb[i];
    rw[i] = rh[i] - rb[i];
  }
  Tensor ryf(f32(ry, {n})), rwf(f32(rw, {n}));
  Tensor ry16(cast(ryf, EK_FLOAT16)), rwb(cast(rwf, EK_BFLOAT16));
  std::vector<float> got_y = as_f32(y), want_y = as_f32(ry16);
  // fma contraction may move y by one f16 ulp at a rounding tie; w is exact.
  for (size_t i = 0; i < got_y.size(); ++i)
    EXPECT_NEAR(got_y[i], want_y[i], std::fabs(want_y[i]) * 1e-3f + 1e-7f) << i;
  EXPECT_EQ(as_f32(w), as_f32(rwb));
}

TEST_P(ElementwiseKernel, BoolInputsAndOutputs) {
  EK_BUILD(k, "bool m, int32 a, int32 b", "int32 c, bool pos", "c = m ? a : b; pos = c > 0;");
  const bool hm[5] = {true, false, true, false, true};
  const int32_t ha[5] = {1, -2, 3, 4, -5}, hb[5] = {10, 20, -30, 40, 50};
  Tensor m(from_host(hm, {5}, EK_BOOL)), a(from_host(ha, {5}, EK_INT32)), b(from_host(hb, {5}, EK_INT32));
  ek_tensor in[3] = {m, a, b};
  ek_tensor out[2] = {nullptr, nullptr};
  EK_OK(ek_elementwise_launch(nullptr, k, in, 3, out, 2));
  Tensor c(out[0]), pos(out[1]);
  EXPECT_EQ(to_host<int32_t>(c), (std::vector<int32_t>{1, 20, 3, 40, -5}));
  std::vector<uint8_t> p = to_host<uint8_t>(pos);
  EXPECT_EQ(p, (std::vector<uint8_t>{1, 1, 1, 1, 0}));
}

TEST_P(ElementwiseKernel, InPlaceOutputIsAnInput) {
  EK_BUILD(k, "float32 x, float32 y", "float32 z", "z = x * y + max(x, 0.0f)");
  const int64_t n = 4099;
  std::vector<float> hx = random(size_t(n), 7), hy = random(size_t(n), 8), want(static_cast<size_t>(n));
  for (size_t i = 0; i < want.size(); ++i) want[i] = fused_ref(hx[i], hy[i]);
  Tensor x(f32(hx, {n})), y(f32(hy, {n}));
  ek_tensor in[2] = {x, y};
  ek_tensor out[1] = {x};
  EK_OK(ek_elementwise_launch(nullptr, k, in, 2, out, 1));
  EXPECT_EQ(out[0], x.t);
  expect_close(to_host<float>(x), want, "in place");
}

// An output starts as its element's current value, so a body may accumulate.
TEST_P(ElementwiseKernel, BodyReadsTheOutput) {
  EK_BUILD(k, "float32 x", "float32 acc", "acc += x");
  Tensor x(f32({1, 2, 3, 4, 5, 6}, {2, 3})), acc(f32({10, 20, 30, 40, 50, 60}, {2, 3}));
  ek_tensor in[1] = {x};
  ek_tensor out[1] = {acc};
  EK_OK(ek_elementwise_launch(nullptr, k, in, 1, out, 1));
  EK_OK(ek_elementwise_launch(nullptr, k, in, 1, out, 1));
  EXPECT_EQ(to_host<float>(acc), (std::vector<float>{12, 24, 36, 48, 60, 72}));
}

TEST_P(ElementwiseKernel, TwoOutputs) {
  EK_BUILD(k, "float32 x, float32 y", "float32 s, float32 d", "s = x + y; d = x - y;");
  Tensor x(f32({1, 2, 3}, {3})), y(f32({10, 20, 30}, {3}));
  Tensor d(f32({0, 0, 0}, {3}));
  ek_tensor in[2] = {x, y};
  ek_tensor out[2] = {nullptr, d};  // one new, one given
  EK_OK(ek_elementwise_launch(nullptr, k, in, 2, out, 2));
  Tensor s(out[0]);
  EXPECT_EQ(out[1], d.t);
  EXPECT_EQ(to_host<float>(s), (std::vector<float>{11, 22, 33}));
  EXPECT_EQ(to_host<float>(d), (std::vector<float>{-9, -18, -27}));
}

TEST_P(ElementwiseKernel, Int32WithTheIndex) {
  EK_BUILD(k, "int32 x", "int32 y", "y = x * 2 + (int)i;");
  const int64_t n = 10007;
  std::vector<int32_t> hx(static_cast<size_t>(n)), want(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) {
    hx[size_t(i)] = int32_t(i * 7 - 5000);
    want[size_t(i)] = hx[size_t(i)] * 2 + int32_t(i);
  }
  Tensor x(from_host(hx.data(), {n}, EK_INT32)), y;
  ek_tensor in[1] = {x};
  EK_OK(ek_elementwise_launch(nullptr, k, in, 1, y.out(), 1));
  EXPECT_EQ(to_host<int32_t>(y), want);
  // i is the C-order index over the broadcast shape, also on the strided path.
  Tensor x2(from_host(hx.data(), {100, 100}, EK_INT32)), xt, y2;
  EK_OK(ek_view_transpose(x2, 0, 1, xt.out()));
  ek_tensor in2[1] = {xt};
  EK_OK(ek_elementwise_launch(nullptr, k, in2, 1, y2.out(), 1));
  std::vector<int32_t> got = to_host<int32_t>(y2);
  for (int64_t r = 0; r < 100; ++r)
    for (int64_t c = 0; c < 100; ++c)
      ASSERT_EQ(got[size_t(r * 100 + c)], hx[size_t(c * 100 + r)] * 2 + int32_t(r * 100 + c));
}

// No inputs: the given output sets the shape.
TEST_P(ElementwiseKernel, NoInputsTakeTheOutputShape) {
  Builder k;
  ASSERT_NO_FATAL_FAILURE(build(&k, "", "int64 z", "z = i * 3;", "iota3"));
  if (!k.h) GTEST_SKIP() << kSkipCpu;
  ek_tensor none[1] = {nullptr};
  EK_FAILS(ek_elementwise_launch(nullptr, k, nullptr, 0, none, 1), EK_ERROR_INVALID_ARGUMENT,
           "no inputs");
  EXPECT_EQ(none[0], nullptr);
  Tensor z;
  const int64_t shape[2] = {3, 5};
  EK_OK(ek_tensor_empty(nullptr, ctx, 2, shape, EK_INT64, z.out()));
  ek_tensor out[1] = {z};
  EK_OK(ek_elementwise_launch(nullptr, k, nullptr, 0, out, 1));
  std::vector<int64_t> got = to_host<int64_t>(z);
  for (size_t i = 0; i < got.size(); ++i) EXPECT_EQ(got[i], int64_t(i) * 3);
}

TEST_P(ElementwiseKernel, ZeroSizeAllocatesOutputsOnly) {
  // A body that does not compile: nothing is compiled for an empty launch.
  EK_BUILD(k, "float32 x", "float32 z, int8 w", "this is not C++");
  const int64_t shape[2] = {0, 3};
  Tensor x;
  EK_OK(ek_tensor_empty(nullptr, ctx, 2, shape, EK_FLOAT32, x.out()));
  ek_tensor in[1] = {x};
  ek_tensor out[2] = {nullptr, nullptr};
  EK_OK(ek_elementwise_launch(nullptr, k, in, 1, out, 2));
  Tensor z(out[0]), w(out[1]);
  EXPECT_EQ(shape_of(z), (std::vector<int64_t>{0, 3}));
  EXPECT_EQ(shape_of(w), (std::vector<int64_t>{0, 3}));
}

TEST_P(ElementwiseKernel, BadLaunchesReturnNothing) {
  EK_BUILD(k, "float32 x, float32 y", "float32 z", "z = x + y");
  Tensor x(f32({1, 2, 3}, {3})), y(f32({1, 2, 3, 4}, {4}));
  const int32_t hi[3] = {1, 2, 3};
  Tensor xi(from_host(hi, {3}, EK_INT32));
  ek_tensor out[1] = {nullptr};
  ek_tensor xx[2] = {x, x};
  EK_FAILS(ek_elementwise_launch(nullptr, k, xx, 1, out, 1), EK_ERROR_INVALID_ARGUMENT,
           "n_inputs is 1; kernel fused declares 2 inputs");
  EK_FAILS(ek_elementwise_launch(nullptr, k, xx, 2, out, 2), EK_ERROR_INVALID_ARGUMENT,
           "n_outputs is 2");
  EK_FAILS(ek_elementwise_launch(nullptr, k, nullptr, 2, out, 1), EK_ERROR_NULL_POINTER,
           "inputs is NULL");
  EK_FAILS(ek_elementwise_launch(nullptr, k, xx, 2, nullptr, 1), EK_ERROR_NULL_POINTER,
           "outputs is NULL");
  ek_tensor wrong_dtype[2] = {x, xi};
  EK_FAILS(ek_elementwise_launch(nullptr, k, wrong_dtype, 2, out, 1), EK_ERROR_DTYPE,
           "inputs[1] (y) has dtype int32; parameter y is float32");
  ek_tensor null_input[2] = {x, nullptr};
  EK_FAILS(ek_elementwise_launch(nullptr, k, null_input, 2, out, 1), EK_ERROR_NULL_POINTER,
           "inputs[1] (y) is NULL");
  ek_tensor mismatched[2] = {x, y};
  EK_FAILS(ek_elementwise_launch(nullptr, k, mismatched, 2, out, 1), EK_ERROR_SHAPE,
           "not broadcastable");
  EXPECT_EQ(out[0], nullptr);
  // Given outputs: wrong shape, wrong dtype, a broadcast view, part of an input.
  Tensor z4(f32({0, 0, 0, 0}, {4})), zi(from_host(hi, {3}, EK_INT32)), zb, big(f32({0, 0, 0, 0}, {4}));
  Tensor part, bpart;
  EK_OK(ek_view_expand(Tensor(f32({0}, {1})).t, 1, std::vector<int64_t>{3}.data(), zb.out()));
  ek_tensor given[1] = {z4};
  EK_FAILS(ek_elementwise_launch(nullptr, k, xx, 2, given, 1), EK_ERROR_SHAPE,
           "outputs[0] (z) has shape [4]; the inputs broadcast to [3]");
  given[0] = zi;
  EK_FAILS(ek_elementwise_launch(nullptr, k, xx, 2, given, 1), EK_ERROR_DTYPE,
           "outputs[0] (z) has dtype int32; parameter z is float32");
  given[0] = zb;
  EK_FAILS(ek_elementwise_launch(nullptr, k, xx, 2, given, 1), EK_ERROR_INVALID_ARGUMENT,
           "broadcast view");
  EK_OK(ek_view_slice(big, 0, 0, 3, 1, part.out()));
  EK_OK(ek_view_slice(big, 0, 1, 4, 1, bpart.out()));
  ek_tensor overlapping[2] = {part, x};
  given[0] = bpart;  // big[1:4] written while big[0:3] is read
  EK_FAILS(ek_elementwise_launch(nullptr, k, overlapping, 2, given, 1),
           EK_ERROR_INVALID_ARGUMENT, "outputs[0] (z) overlaps inputs[0] (x)");
  // Another context's tensor.
  ek_context cpu = cpu_context();
  {
    Tensor hx;
    const float v[3] = {1, 2, 3};
    const int64_t s3[1] = {3};
    EK_OK(ek_tensor_from_host(nullptr, cpu, 1, s3, EK_FLOAT32, v, hx.out()));
    ek_tensor foreign[2] = {x, hx};
    EK_FAILS(ek_elementwise_launch(nullptr, k, foreign, 2, out, 1), EK_ERROR_INVALID_ARGUMENT,
             "inputs[1] (y) belongs to another context");
  }
  EK_OK(ek_context_destroy(cpu));
  EXPECT_EQ(out[0], nullptr);
}

TEST_P(ElementwiseKernel, CompileErrorCarriesTheLog) {
  EK_BUILD(k, "float32 x", "float32 z", "z = x +* ;");
  Tensor x(f32({1, 2, 3}, {3}));
  ek_tensor in[1] = {x};
  ek_tensor out[1] = {nullptr};
  EK_FAILS(ek_elementwise_launch(nullptr, k, in, 1, out, 1), EK_ERROR_COMPILE, "fused:body(1)");
  EXPECT_EQ(out[0], nullptr);
  // Not compiled again into success: the same failure.
  ASSERT_EQ(ek_elementwise_launch(nullptr, k, in, 1, out, 1), EK_ERROR_COMPILE);
  EXPECT_EQ(out[0], nullptr);
}

TEST_P(ElementwiseKernel, ContextRefusesDestructionWhileABuilderLives) {
  EK_BUILD(k, "float32 x", "float32 z", "z = x");
  int64_t handles = 0, after = 0;
  EK_OK(ek_live_handles(&handles));
  EXPECT_EQ(ek_context_destroy(ctx), EK_ERROR_INVALID_ARGUMENT);
  EK_OK(ek_elementwise_destroy(k.h));
  k.h = nullptr;
  EK_OK(ek_live_handles(&after));
  EXPECT_EQ(after, handles - 1);
}

}  // namespace
