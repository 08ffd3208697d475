// libek quickstart in C++ (include/ek.hpp): the forward pass of a two-layer
// perceptron,
//
//   h = relu(x @ W1 + b1),  y = softmax(h @ W2 + b2, dim -1),
//
// with x [64,128], W1 [128,256], b1 [256], W2 [256,10], b2 [10] drawn from
// N(0, 0.1^2) by the context's random generator seeded with 0 (in that order),
// on the GPU when there is one, else on the CPU (EK_DEVICE=cpu or --cpu forces
// the CPU). The same workload as examples/{c,python,rust,go}. No handle is
// released by hand: tensors and the context free themselves, and a failing
// call throws ek::Error.
//
//   c++ -std=c++17 quickstart.cpp $(pkg-config --cflags --libs ek) -o quickstart && ./quickstart
#include <ek.hpp>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

int main(int argc, char **argv) try {
  const char *env = std::getenv("EK_DEVICE");
  const bool force_cpu = (argc > 1 && std::strcmp(argv[1], "--cpu") == 0) || (env && std::strcmp(env, "cpu") == 0);
  const bool gpu = !force_cpu && ek::device_count(ek::DeviceType::Cuda) > 0;
  const ek::Device dev = gpu ? ek::Device::cuda(0) : ek::Device::cpu();
  std::printf("libek %s on %s (%s)\n", ek::version_string().c_str(), ek::device_info(dev).name,
              gpu ? "cuda:0" : "cpu");

  ek::Context ctx(dev);  // declared first: destroyed after its tensors
  ctx.seed(0);
  auto randn = [&](std::vector<int64_t> shape) {
    return ek::empty(ctx, shape, ek::DType::Float32).random(ek::RandomDist::Normal, 0.0, 0.1);
  };
  ek::Tensor x = randn({64, 128}), w1 = randn({128, 256}), b1 = randn({256});
  ek::Tensor w2 = randn({256, 10}), b2 = randn({10});

  ek::Tensor h = x.matmul(w1);
  h += b1;  // in place, as the relu below
  h.relu(&h);
  ek::Tensor y = ek::softmax(h.matmul(w2) + b2, -1);

  // Every row of y sums to 1, so the total is 64.
  const float sum = y.sum().item<float>();
  const std::vector<float> row = y.index({0, ek::Slice(0, 3)}).to_vector<float>();
  const std::vector<int64_t> shape = y.shape();
  std::printf("y = softmax(relu(x @ W1 + b1) @ W2 + b2): shape [%lld, %lld]\n", static_cast<long long>(shape[0]),
              static_cast<long long>(shape[1]));
  std::printf("sum(y) = %.6f\n", sum);
  std::printf("y[0][0:3] = %.6f %.6f %.6f\n", row[0], row[1], row[2]);
  if (shape != std::vector<int64_t>{64, 10} || std::fabs(sum - 64.0f) > 1e-3f) {
    std::fprintf(stderr, "unexpected result\n");
    return 1;
  }
  return 0;
} catch (const ek::Error &e) {
  std::fprintf(stderr, "%s: %s\n", ek::status_string(e.status()).c_str(), e.what());
  return 1;
}
