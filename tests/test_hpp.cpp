// include/ek.hpp, the C++ binding: RAII and reference counts, ek::Error,
// marshalling of every parameter kind, operators, one smoke call per generated
// op, threads, and the three cases every binding shares (issue 14). The C
// semantics themselves are tested by the C suites. Device-parameterised
// (EK_TEST_DEVICE); built with -Wall -Wextra -Werror and EK_EXPERIMENTAL.
#include "ek.hpp"

#include <cmath>
#include <cstdio>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "ek_test.hpp"

namespace {

using ek::DType;
using ek::Tensor;

class Hpp : public testing::TestWithParam<ek_device_type> {
 protected:
  void SetUp() override {
    if (GetParam() == EK_CUDA && !ektest::cuda_available()) {
      if (ektest::gpu_required()) FAIL() << "EK_REQUIRE_GPU=1 but no CUDA device is available";
      GTEST_SKIP() << "no CUDA device";
    }
    handles_before = ek::live_handles();
    ctx = ek::Context(ek::Device::of({GetParam(), 0}));
  }
  void TearDown() override {
    if (!ctx) return;
    EXPECT_EQ(ctx.memory_stats().allocated_bytes, 0u) << "the test leaked pool memory";
    ctx.close();
    EXPECT_EQ(ek::live_handles(), handles_before) << "the test leaked handles";
  }
  template <class T>
  Tensor vec(const std::vector<T> &v, ek::Span<int64_t> shape) {
    return ek::from_vector(ctx, v, shape);
  }
  template <class T>
  Tensor vec(const std::vector<T> &v) {
    return ek::from_vector(ctx, v);
  }
  int64_t handles_before = 0;
  ek::Context ctx;
};

// The status and message of what f throws.
template <class F>
std::pair<ek::Status, std::string> thrown(F &&f) {
  try {
    f();
  } catch (const ek::Error &e) {
    return {e.status(), e.what()};
  }
  return {ek::Status::Success, ""};
}

bool same_values(const std::vector<double> &a, const std::vector<double> &b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (!(a[i] == b[i] || (std::isnan(a[i]) && std::isnan(b[i])))) return false;
  return true;
}

TEST_P(Hpp, HandlesAreReleasedByCopiesMovesAndScopes) {
  const int64_t start = ek::live_handles();
  {
    Tensor a = ek::zeros(ctx, {2, 3}, DType::Float32);
    EXPECT_EQ(ek::live_handles(), start + 1);
    Tensor b = a;                // retain: the same handle
    EXPECT_EQ(b.get(), a.get());
    Tensor c = std::move(b);     // no new reference
    EXPECT_FALSE(b);
    Tensor d;
    d = c;
    Tensor &alias = d;
    d = alias;                   // self-assignment keeps it
    c = Tensor();
    EXPECT_EQ(d.get(), a.get());
    Tensor v = a.select(0, 1);   // a view: a new handle
    EXPECT_EQ(ek::live_handles(), start + 2);
    a = Tensor();
    d = Tensor();
    EXPECT_EQ(v.to_vector<float>(), std::vector<float>(3, 0.0f));  // storage lives on with its view
    ek_tensor raw = v.detach();  // the caller's now
    EXPECT_EQ(ek_tensor_release(raw), EK_SUCCESS);
    Tensor borrowed = Tensor::borrow(ek::ones(ctx, {1}, DType::Int32).get());  // a retain of a temporary
    EXPECT_EQ(borrowed.item<int>(), 1);
  }
  EXPECT_EQ(ek::live_handles(), start);
  {
    ek::Stream s(ctx);
    ek::Stream moved = std::move(s);
    ek::Event e(ctx);
    ek::Stream def = ctx.default_stream();  // borrowed: never destroyed
    EXPECT_FALSE(def.owned());
    EXPECT_EQ(ek::live_handles(), start + 2);
  }
  EXPECT_EQ(ek::live_handles(), start);
}

TEST_P(Hpp, ErrorsCarryStatusAndMessage) {
  Tensor a = ek::zeros(ctx, {2, 3}, DType::Float32), b = ek::zeros(ctx, {4, 5}, DType::Float32);
  auto [status, message] = thrown([&] { ek::matmul(a, b); });
  EXPECT_EQ(status, ek::Status::ErrorShape);
  EXPECT_NE(message.find("ek_matmul"), std::string::npos) << message;
  EXPECT_NE(message.find("[2,3]"), std::string::npos) << message;
  EXPECT_EQ(thrown([&] { a & a; }).first, ek::Status::ErrorDtype);
  EXPECT_EQ(thrown([&] { a.select(5, 0); }).first, ek::Status::ErrorIndex);
  EXPECT_EQ(thrown([&] { ek::full(ctx, {1}, DType::Int8, 300); }).first, ek::Status::ErrorInvalidArgument);
  // Arrays sharing one count must agree (checked by the binding, named).
  auto roll = thrown([&] { ek::roll(a, {1, 2}, {0}); });
  EXPECT_EQ(roll.first, ek::Status::ErrorInvalidArgument);
  EXPECT_NE(roll.second.find("ek_roll"), std::string::npos);
  EXPECT_EQ(thrown([&] { a.item<float>(); }).first, ek::Status::ErrorShape);
  // A failed call leaves a given out as it was.
  Tensor out = ek::zeros(ctx, {3}, DType::Float32);
  EXPECT_EQ(thrown([&] { ek::exp(a, &out); }).first, ek::Status::ErrorShape);
  EXPECT_EQ(out.to_vector<float>(), std::vector<float>(3, 0.0f));
  // A context with live tensors refuses to close and stays usable.
  ek::Context other(ctx.device());
  Tensor t = ek::zeros(other, {1}, DType::Float32);
  EXPECT_EQ(thrown([&] { other.close(); }).first, ek::Status::ErrorInvalidArgument);
  EXPECT_TRUE(other);
  t = Tensor();
  other.close();
  EXPECT_FALSE(other);
  EXPECT_EQ(ek::status_string(ek::Status::ErrorShape), "EK_ERROR_SHAPE");
  EXPECT_EQ(ek::status_description(ek::Status::ErrorShape), "shape mismatch");
}

TEST_P(Hpp, ScalarsKeepTheirKind) {
  EXPECT_EQ(ek::Scalar(true).kind(), ek::ScalarKind::Bool);
  EXPECT_EQ(ek::Scalar(-3).kind(), ek::ScalarKind::Int64);
  EXPECT_EQ(ek::Scalar(uint64_t{1} << 63).kind(), ek::ScalarKind::Uint64);
  EXPECT_EQ(ek::Scalar(2.5f).kind(), ek::ScalarKind::Float64);
  const int64_t big = (int64_t{1} << 62) + 1;  // not a double
  EXPECT_EQ(ek::full(ctx, {}, DType::Int64, big).item<int64_t>(), big);
  EXPECT_EQ(ek::full(ctx, {2}, DType::Uint8, uint8_t{255}).to_vector<uint8_t>(), (std::vector<uint8_t>{255, 255}));
  EXPECT_EQ(ek::full(ctx, {1}, DType::Bool, true).to_vector<bool>(), std::vector<bool>{true});
}

TEST_P(Hpp, HostVectorsOfEveryType) {
  EXPECT_EQ(vec(std::vector<bool>{true, false}).to_vector<bool>(), (std::vector<bool>{true, false}));
  EXPECT_EQ(vec(std::vector<uint8_t>{1, 255}).to_vector<uint8_t>(), (std::vector<uint8_t>{1, 255}));
  EXPECT_EQ(vec(std::vector<int8_t>{-1, 2}).to_vector<int8_t>(), (std::vector<int8_t>{-1, 2}));
  EXPECT_EQ(vec(std::vector<int16_t>{-300, 2}).to_vector<int16_t>(), (std::vector<int16_t>{-300, 2}));
  EXPECT_EQ(vec(std::vector<int32_t>{-70000}).to_vector<int32_t>(), std::vector<int32_t>{-70000});
  EXPECT_EQ(vec(std::vector<int64_t>{INT64_MIN}).to_vector<int64_t>(), std::vector<int64_t>{INT64_MIN});
  EXPECT_EQ(vec(std::vector<float>{0.5f}).to_vector<float>(), std::vector<float>{0.5f});
  EXPECT_EQ(vec(std::vector<double>{0.1}).to_vector<double>(), std::vector<double>{0.1});
  Tensor m = vec(std::vector<int32_t>{1, 2, 3, 4, 5, 6}, {2, 3});
  EXPECT_EQ(m.shape(), (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(m.strides(), (std::vector<int64_t>{3, 1}));
  EXPECT_EQ(m.dtype(), DType::Int32);
  EXPECT_EQ(m.to_vector<double>(), (std::vector<double>{1, 2, 3, 4, 5, 6}));  // cast on the way
  EXPECT_EQ(m.device(), ctx.device());
  EXPECT_EQ(m.context().get(), ctx.get());
  int32_t host[6];
  m.transpose(0, 1).to_host(host, sizeof host);
  EXPECT_EQ(host[1], 4);
}

TEST_P(Hpp, ParameterKindsMarshal) {
  Tensor x = vec(std::vector<float>{-2, -1, 0, 1, 2, 3}, {2, 3});
  // Arrays: initializer lists, vectors, std::array, one value; empty means all.
  std::vector<int> dims{1};
  std::array<int64_t, 2> shape{3, 2};
  EXPECT_EQ(x.sum(dims).to_vector<float>(), (std::vector<float>{-3, 6}));
  EXPECT_EQ(x.sum(1, true).shape(), (std::vector<int64_t>{2, 1}));  // flag
  EXPECT_EQ(x.sum().item<float>(), 3.0f);
  EXPECT_EQ(x.view(shape).shape(), (std::vector<int64_t>{3, 2}));
  EXPECT_EQ(x.reshape({-1}).numel(), 6);
  // Optional scalars, doubles, int64, enums and dtypes.
  EXPECT_EQ(x.clamp(-1).to_vector<float>(), (std::vector<float>{-1, -1, 0, 1, 2, 3}));
  EXPECT_EQ(x.clamp(std::nullopt, 1).to_vector<float>(), (std::vector<float>{-2, -1, 0, 1, 1, 1}));
  EXPECT_FLOAT_EQ(x.var({}, 0.0).item<float>(), ek::var(ek::VarKind::Variance, x, {}, 0.0).item<float>());
  EXPECT_EQ(ek::eye(ctx, 2, 3, 1, DType::Int64).to_vector<int64_t>(), (std::vector<int64_t>{0, 1, 0, 0, 0, 1}));
  EXPECT_EQ(x.cast(DType::Int8).dtype(), DType::Int8);
  EXPECT_EQ(x.softmax(-1).shape(), x.shape());
  // Outputs: a given tensor is written; an empty one receives the result.
  Tensor out = ek::zeros(ctx, {2, 3}, DType::Float32), fresh;
  Tensor r = ek::abs(x, &out);
  EXPECT_EQ(r.get(), out.get());
  ek::neg(x, &fresh);
  EXPECT_EQ(fresh.to_vector<float>(), (std::vector<float>{2, 1, 0, -1, -2, -3}));
  auto [values, indices] = x.reduce_with_indices(ek::ReduceOp::Max, 1);
  EXPECT_EQ(values.to_vector<float>(), (std::vector<float>{0, 3}));
  EXPECT_EQ(indices.to_vector<int64_t>(), (std::vector<int64_t>{2, 2}));
  // Tensor arrays in and out.
  EXPECT_EQ(ek::concat({x, x}, 0).shape(), (std::vector<int64_t>{4, 3}));
  std::vector<Tensor> grids = ek::meshgrid({vec(std::vector<int32_t>{1, 2}), vec(std::vector<int32_t>{3, 4, 5})},
                                           ek::MeshgridIndexing::Ij);
  ASSERT_EQ(grids.size(), 2u);
  EXPECT_EQ(grids[1].shape(), (std::vector<int64_t>{2, 3}));
  EXPECT_EQ(x.split_sizes(1, {1, 2})[1].shape(), (std::vector<int64_t>{2, 2}));
  EXPECT_EQ(x.split(1, 2).size(), 2u);
  EXPECT_EQ(x.chunk(0, 2).size(), 2u);
  EXPECT_EQ(ek::broadcast_tensors({x, vec(std::vector<float>{1, 2, 3})})[1].shape(), x.shape());
  // Streams: an owned stream, a borrowed default one, a raw handle.
  ek::Stream s(ctx);
  EXPECT_EQ(ek::exp(x, nullptr, s).shape(), x.shape());
  EXPECT_EQ(x.exp(nullptr, ctx.default_stream()).shape(), x.shape());
  EXPECT_EQ(x.exp(nullptr, s.get()).shape(), x.shape());
  EXPECT_EQ(s.context().get(), ctx.get());
  s.synchronize();
  EXPECT_TRUE(s.query());
  ek::Event e0(ctx), e1(ctx);
  e0.record(s);
  x.fill(1.0, s);
  e1.record(s);
  s.wait(e1);
  e1.synchronize();
  EXPECT_TRUE(e1.query());
  EXPECT_GE(ek::Event::elapsed_ms(e0, e1), 0.0f);
  // Copies, random numbers, gemm.
  Tensor y = ek::zeros(ctx, {2, 3}, DType::Float64);
  y.copy_from(x);
  EXPECT_EQ(y.to_vector<double>(), std::vector<double>(6, 1.0));
  ctx.seed(7);
  Tensor u = ek::zeros(ctx, {1000}, DType::Float32).random(ek::RandomDist::Uniform, 2, 3);
  EXPECT_GE(u.min().item<float>(), 2.0f);
  EXPECT_EQ(ctx.random_state().offset, 1000u);
  Tensor c = ek::zeros(ctx, {2, 2}, DType::Float32);
  ek::gemm(1, ek::ones(ctx, {2, 3}, DType::Float32), ek::ones(ctx, {3, 2}, DType::Float32), 0.5, c);
  EXPECT_EQ(c.to_vector<float>(), std::vector<float>(4, 3.0f));
}

TEST_P(Hpp, Operators) {
  Tensor a = vec(std::vector<int32_t>{6, 7, -8}), b = vec(std::vector<int32_t>{2, 3, 3});
  EXPECT_EQ((a + b).to_vector<int32_t>(), (std::vector<int32_t>{8, 10, -5}));
  EXPECT_EQ((a - 1).to_vector<int32_t>(), (std::vector<int32_t>{5, 6, -9}));
  EXPECT_EQ((10 - a).to_vector<int32_t>(), (std::vector<int32_t>{4, 3, 18}));
  EXPECT_EQ((a * b).to_vector<int32_t>(), (std::vector<int32_t>{12, 21, -24}));
  EXPECT_EQ((a / b).dtype(), DType::Float32);  // true division
  EXPECT_EQ((a % b).to_vector<int32_t>(), (std::vector<int32_t>{0, 1, 1}));  // Python's %
  EXPECT_EQ((a & 3).to_vector<int32_t>(), (std::vector<int32_t>{2, 3, 0}));
  EXPECT_EQ((a | b).to_vector<int32_t>(), (std::vector<int32_t>{6, 7, -5}));
  EXPECT_EQ((a ^ b).to_vector<int32_t>(), (std::vector<int32_t>{4, 4, -5}));
  EXPECT_EQ((b << 1).to_vector<int32_t>(), (std::vector<int32_t>{4, 6, 6}));
  EXPECT_EQ((a >> 1).to_vector<int32_t>(), (std::vector<int32_t>{3, 3, -4}));
  EXPECT_EQ((-a).to_vector<int32_t>(), (std::vector<int32_t>{-6, -7, 8}));
  EXPECT_EQ((a == 7).to_vector<bool>(), (std::vector<bool>{false, true, false}));
  EXPECT_EQ((a != b).to_vector<bool>(), (std::vector<bool>{true, true, true}));
  EXPECT_EQ((a < b).to_vector<bool>(), (std::vector<bool>{false, false, true}));
  EXPECT_EQ((a <= 6).to_vector<bool>(), (std::vector<bool>{true, false, true}));
  EXPECT_EQ((a > b).to_vector<bool>(), (std::vector<bool>{true, true, false}));
  EXPECT_EQ((0 >= a).to_vector<bool>(), (std::vector<bool>{false, false, true}));
  Tensor acc = a;  // the same tensor: in place affects both references
  acc += b;
  acc *= 2;
  acc -= 1;
  EXPECT_EQ(a.to_vector<int32_t>(), (std::vector<int32_t>{15, 19, -11}));
  acc <<= 1;
  acc >>= 1;
  acc &= 0xff;
  acc |= 0x100;
  acc ^= 0x100;
  acc %= 100;
  EXPECT_EQ(acc.to_vector<int32_t>(), (std::vector<int32_t>{15, 19, 45}));
  EXPECT_EQ(thrown([&] { acc /= 2; }).first, ek::Status::ErrorDtype);  // float into int32
}

// One call of every generated op form, checked against the uniform form it wraps.
TEST_P(Hpp, EveryGeneratedOp) {
  Tensor f = vec(std::vector<float>{0.25f, 0.5f, 0.75f, 1.5f, -0.5f, 2.0f}, {2, 3});
  Tensor i = vec(std::vector<int32_t>{5, 3, 7, 1, 2, 9}, {2, 3}), j = vec(std::vector<int32_t>{2, 4, 1, 3, 1, 2}, {2, 3});
  auto values = [](const Tensor &t) { return t.to_vector<double>(); };
  int n = 0;
#define EK_UNARY_SMOKE(name, op) \
  EXPECT_TRUE(same_values(values(ek::name(f)), values(ek::unary(ek::op, f)))) << #name; \
  EXPECT_TRUE(same_values(values(f.name()), values(ek::unary(ek::op, f)))) << #name; \
  ++n;
  EK_HPP_UNARY_NAMES(EK_UNARY_SMOKE)
#define EK_COUNT(name, value, text) +1
  EXPECT_EQ(n, 0 EK_UNARY_OP_LIST(EK_COUNT));
#define EK_BINARY_SMOKE(name, op) \
  EXPECT_TRUE(same_values(values(ek::name(i, j)), values(ek::binary(ek::op, i, j)))) << #name; \
  EXPECT_TRUE(same_values(values(i.name(j)), values(ek::binary(ek::op, i, j)))) << #name;
  EK_HPP_BINARY_NAMES(EK_BINARY_SMOKE)
#define EK_BINARY_SCALAR_SMOKE(name, op) \
  EXPECT_TRUE(same_values(values(ek::name(i, 3)), values(ek::binary_scalar(ek::op, i, 3, false)))) << #name; \
  EXPECT_TRUE(same_values(values(ek::name(3, i)), values(ek::binary_scalar(ek::op, i, 3, true)))) << #name; \
  EXPECT_TRUE(same_values(values(i.name(3)), values(ek::binary_scalar(ek::op, i, 3, false)))) << #name;
  EK_HPP_BINARY_SCALAR_NAMES(EK_BINARY_SCALAR_SMOKE)
#define EK_REDUCE_SMOKE(name, op) \
  EXPECT_TRUE(same_values(values(ek::name(f, {1})), values(ek::reduce(ek::op, f, {1})))) << #name; \
  EXPECT_TRUE(same_values(values(f.name()), values(ek::reduce(ek::op, f)))) << #name;
  EK_HPP_REDUCE_NAMES(EK_REDUCE_SMOKE)
#define EK_KIND_SMOKE(uniform, ...) \
  [&](auto named, auto op) { EXPECT_TRUE(same_values(values(named()), values(ek::uniform(op, f, __VA_ARGS__)))); }
#define EK_VAR_SMOKE(name, op) EK_KIND_SMOKE(var, {0}, 1.0)([&] { return f.name({0}); }, ek::op);
  EK_HPP_VAR_NAMES(EK_VAR_SMOKE)
#define EK_SOFTMAX_SMOKE(name, op) EK_KIND_SMOKE(softmax, 1)([&] { return ek::name(f, 1); }, ek::op);
  EK_HPP_SOFTMAX_NAMES(EK_SOFTMAX_SMOKE)
#define EK_SCAN_SMOKE(name, op) EK_KIND_SMOKE(scan, 0)([&] { return f.name(0); }, ek::op);
  EK_HPP_SCAN_NAMES(EK_SCAN_SMOKE)

  // The other uniform forms, once each (their semantics are the C suites').
  auto shape = [](const Tensor &t) { return t.shape(); };
  using S = std::vector<int64_t>;
  Tensor mask = f > 0.6;
  Tensor idx = vec(std::vector<int64_t>{1, 0});
  EXPECT_EQ(shape(ek::empty(ctx, {2, 2}, DType::Float32)), (S{2, 2}));
  EXPECT_EQ(shape(f.contiguous()), (S{2, 3}));
  EXPECT_EQ(ek::arange(ctx, 0, 5, 2, DType::Int64).to_vector<int64_t>(), (std::vector<int64_t>{0, 2, 4}));
  EXPECT_EQ(shape(ek::stack({f, f}, 0)), (S{2, 2, 3}));
  EXPECT_EQ(f.flip({1}).to_vector<float>()[0], 0.75f);
  EXPECT_EQ(i.roll(1, {}).to_vector<int32_t>()[0], 9);
  EXPECT_EQ(shape(f.repeat({2, 1})), (S{4, 3}));
  EXPECT_EQ(ek::linspace(ctx, 0, 1, 3, true, DType::Float32).to_vector<float>(), (std::vector<float>{0, 0.5f, 1}));
  EXPECT_EQ(shape(ek::eye(ctx, 3, 3, 0, DType::Bool)), (S{3, 3}));
  EXPECT_EQ(f.tril().to_vector<float>()[1], 0.0f);
  EXPECT_EQ(f.triu(1).to_vector<float>()[0], 0.0f);
  EXPECT_EQ(shape(ek::where(mask, f, i)), (S{2, 3}));
  EXPECT_EQ(f.lerp(f, 0.5).to_vector<float>(), f.to_vector<float>());
  EXPECT_EQ(ek::axpby(2, f, 1, f).to_vector<float>(), (f * 3).to_vector<float>());
  EXPECT_EQ(shape(f.matmul(f.transpose(0, 1))), (S{2, 2}));
  EXPECT_EQ(shape(f.index_select(1, idx)), (S{2, 2}));
  EXPECT_EQ(shape(f.gather(1, vec(std::vector<int64_t>{0, 0}, {2, 1}))), (S{2, 1}));
  EXPECT_EQ(shape(f.scatter(1, vec(std::vector<int64_t>{0}, {1, 1}), f, true)), (S{2, 3}));
  EXPECT_EQ(shape(f.index_put({idx}, ek::zeros(ctx, {3}, DType::Float32))), (S{2, 3}));
  EXPECT_EQ(f.masked_select(mask).numel(), 3);
  EXPECT_EQ(f.masked_fill(mask, 0).max().item<float>(), 0.5f);
  EXPECT_EQ(shape(f.masked_scatter(mask, f)), (S{2, 3}));
  EXPECT_EQ(shape(mask.nonzero()), (S{3, 2}));
  // Views.
  EXPECT_EQ(shape(f.slice(1, 0, 3, 2)), (S{2, 2}));
  EXPECT_EQ(shape(f.permute({1, 0})), (S{3, 2}));
  EXPECT_EQ(shape(f.expand({4, 2, 3})), (S{4, 2, 3}));
  EXPECT_EQ(shape(f.unsqueeze(0).squeeze()), (S{2, 3}));
  EXPECT_EQ(shape(f.flatten()), (S{6}));
  EXPECT_EQ(shape(f.as_strided({3}, {1}, 1)), (S{3}));
  EXPECT_EQ(shape(f.moveaxis({0}, {1})), (S{3, 2}));
}

TEST_P(Hpp, ThreadsShareAContextAndKeepTheirMessages) {
  Tensor shared = ek::ones(ctx, {64}, DType::Float32);
  std::vector<std::thread> threads;
  std::vector<int> ok(8, 0);
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&, t] {
      try {
        for (int k = 0; k < 50; ++k) {
          Tensor copy = shared;  // concurrent retains and releases
          Tensor r = (copy * t + 1).sum();
          if (r.item<float>() != 64.0f * t + 64.0f) return;
        }
        const int64_t cols = 2 + t;
        auto [status, message] = thrown([&] { ek::matmul(ek::zeros(ctx, {1, cols}, DType::Float32), shared); });
        if (status != ek::Status::ErrorShape) return;
        if (message.find("[1," + std::to_string(cols) + "]") == std::string::npos) return;  // this thread's own
        ok[static_cast<size_t>(t)] = 1;
      } catch (...) {
      }
    });
  }
  for (auto &th : threads) th.join();
  EXPECT_EQ(ok, std::vector<int>(8, 1));
}

TEST_P(Hpp, ContextMemoryDevicesVersion) {
  EXPECT_EQ(ek::version() / 10000, static_cast<unsigned>(EK_VERSION_MAJOR));
  EXPECT_EQ(ek::version_string(), EK_VERSION_STRING);
  EXPECT_EQ(ek::device_count(ek::DeviceType::Cpu), 1);
  EXPECT_GT(std::string(ek::device_info(ek::Device::cpu()).name).size(), 0u);
  EXPECT_EQ(ek::dtype_size(DType::Bfloat16), 2u);
  EXPECT_EQ(ek::dtype_name(DType::Float32), "float32");
  EXPECT_EQ(ek::dtype_of<int64_t>(), DType::Int64);
  EXPECT_EQ(ek::Context::default_config().struct_size, sizeof(ek_context_config));
  EXPECT_EQ(ctx.config().struct_size, sizeof(ek_context_config));
  ctx.synchronize();
  {
    Tensor t = ek::zeros(ctx, {1024}, DType::Float32);
    EXPECT_GE(ctx.memory_stats().allocated_bytes, 4096u);
    EXPECT_FALSE(ctx.memory_snapshot().empty());
    EXPECT_NE(ctx.memory_snapshot_json().find("\"segments\""), std::string::npos);
  }
  ctx.reset_peaks();
  ctx.empty_cache();
  ctx.set_memory_limit(0);
  ctx.set_memory_fraction(1.0);
  void *p = ek::malloc(ctx, 256);
  ek::record_stream(ctx, p, ctx.default_stream());
  std::vector<char> host(256, 'x'), back(256);
  ek::memcpy(ctx, host.data(), p, 256);
  ek::memcpy(ctx, p, back.data(), 256);
  ek::free(ctx, p);
  EXPECT_EQ(back, host);
  std::string path = testing::TempDir() + "ek_hpp_snapshot.json";
  ctx.write_memory_snapshot_json(path);
  std::remove(path.c_str());
  std::vector<uint64_t> events;
  ctx.empty_cache();
  const uint64_t threshold = ctx.memory_stats().reserved_bytes + 1;  // crossed by the next segment
  ctx.set_memory_callback([&](ek::MemoryEvent, uint64_t bytes) { events.push_back(bytes); }, threshold);
  { Tensor t = ek::zeros(ctx, {1 << 20}, DType::Float32); }
  ctx.set_memory_callback(nullptr);
  EXPECT_FALSE(events.empty());
  std::vector<std::string> logged;
  ek::set_log_callback([&](ek::LogLevel, const char *m) { logged.push_back(m); });
  ek::set_log_callback(nullptr);
  ek::clear_error();
  EXPECT_EQ(ek::last_error(), "");
}

TEST_P(Hpp, WrappedAndDlpackMemory) {
  if (GetParam() != EK_CPU) GTEST_SKIP() << "wraps host memory";
  static int deleted = 0;
  std::vector<float> data{1, 2, 3, 4};
  {
    Tensor w = Tensor::wrap(ctx, data.data(), {2, 2}, DType::Float32, {1, 2},
                            [](void *, void *) { ++deleted; });
    EXPECT_EQ(w.to_vector<float>(), (std::vector<float>{1, 3, 2, 4}));
    EXPECT_EQ(w.data(), data.data());
    DLManagedTensorVersioned *m = w.to_dlpack();
    Tensor back = Tensor::from_dlpack(ctx, m);  // consumes m: shares the memory
    EXPECT_EQ(back.data(), data.data());
  }
  EXPECT_EQ(deleted, 1);
}

TEST_P(Hpp, KernelsAndModules) {
  const char *source = R"(extern "C" __global__ void axpy(float *y, const float *x, float a, long long n) {
    long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (i < n) y[i] += a * x[i];
  })";
  if (GetParam() == EK_CPU) {
    EXPECT_EQ(thrown([&] { ek::Module::from_source(ctx, source, "axpy.cu", {"-DX=1"}).compile(); }).first,
              ek::Status::ErrorNotSupported);
    EXPECT_EQ(thrown([&] { ek::ElementwiseKernel(ctx, "float32 x", "float32 z", "z = x"); }).first,
              ek::Status::ErrorNotSupported);
    return;
  }
  ek::Module m = ek::Module::from_source(ctx, source, "axpy.cu", {"-DX=1"});
  ek::Kernel k = m.kernel("axpy");
  EXPECT_NE(m.origin(), ek::ModuleOrigin::NotLoaded);
  EXPECT_EQ(k.attributes().num_params, 4);
  Tensor x = vec(std::vector<float>{1, 2, 3}), y = vec(std::vector<float>{10, 10, 10});
  k.launch(1, 32, {y, x, 2.0f, int64_t{3}});
  EXPECT_EQ(y.to_vector<float>(), (std::vector<float>{12, 14, 16}));
  EXPECT_EQ(thrown([&] { k.launch(1, 32, {y, x, 2.0f}); }).first, ek::Status::ErrorInvalidArgument);
  void *py = y.data(), *px = x.data();
  float a = 1.0f;
  long long n = 3;
  k.launch_raw(1, 32, {{&py, sizeof py}, {&px, sizeof px}, {&a, sizeof a}, {&n, sizeof n}});
  EXPECT_EQ(y.to_vector<float>(), (std::vector<float>{13, 16, 19}));
  EXPECT_GT(k.launch_auto(3, {y, x, ek::KernelArg(DType::Float32, 1), ek::KernelArg::value_of(n)}), 0u);
  ek::ElementwiseKernel fma(ctx, "float32 x, float32 y", "float32 z", "z = x * y + 1.0f");
  std::vector<Tensor> z = fma({x, x});
  EXPECT_EQ(z[0].to_vector<float>(), (std::vector<float>{2, 5, 10}));
  ctx.synchronize();
}

TEST_P(Hpp, Profiler) {
  ctx.profiler_start();
  Tensor x = ek::ones(ctx, {4}, DType::Float32).exp();
  ctx.profiler_stop();
  EXPECT_FALSE(ctx.profiler_records().empty());
  EXPECT_NE(ctx.profiler_summary().find("exp"), std::string::npos);
}

// The three cases every binding shares (issue 14), through the C entry points.
TEST_P(Hpp, CrossLanguageIndexing) {
  Tensor x = ek::arange(ctx, 0, 24, 1, DType::Int64).view({2, 3, 4});
  Tensor idx = vec(std::vector<int64_t>{2, 0});
  Tensor y = x.index({ek::Ellipsis, idx, ek::Slice(std::nullopt, std::nullopt, -2)});
  EXPECT_EQ(y.shape(), (std::vector<int64_t>{2, 2, 2}));
  EXPECT_EQ(y.to_vector<int64_t>(), (std::vector<int64_t>{11, 9, 3, 1, 23, 21, 15, 13}));
  x.index_assign({1, idx}, vec(std::vector<int64_t>{-1, -2, -3, -4}));
  Tensor row = x.index({1, ek::Slice(), 0});
  EXPECT_EQ(row.to_vector<int64_t>(), (std::vector<int64_t>{-1, 16, -1}));
  Tensor mask = vec(std::vector<bool>{true, false, true, false});
  x.index_assign({0, 1, mask}, 100);
  EXPECT_EQ(x.index({0, 1}).to_vector<int64_t>(), (std::vector<int64_t>{100, 5, 100, 7}));
  EXPECT_EQ(x.index({ek::NewAxis, 0, -1, ek::Slice(1, 3)}).shape(), (std::vector<int64_t>{1, 2}));
  EXPECT_EQ(thrown([&] { x.index({0, 0, 0, 0}); }).first, ek::Status::ErrorIndex);
}

TEST_P(Hpp, CrossLanguageInPlaceMixedDtypes) {
  Tensor x = vec(std::vector<float>{1.5f, 2.5f});
  x += vec(std::vector<double>{0.25, 0.5});
  EXPECT_EQ(x.dtype(), DType::Float32);
  EXPECT_EQ(x.to_vector<float>(), (std::vector<float>{1.75f, 3.0f}));
}

TEST_P(Hpp, CrossLanguageIntegerScalar) {
  const int64_t big = int64_t{1} << 60;
  Tensor y = vec(std::vector<int64_t>{1, 2}) + big;
  EXPECT_EQ(y.dtype(), DType::Int64);
  EXPECT_EQ(y.to_vector<int64_t>(), (std::vector<int64_t>{big + 1, big + 2}));
}

EK_INSTANTIATE_DEVICES(Hpp);

}  // namespace
