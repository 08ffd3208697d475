// The fixture and helpers of the custom-kernel suites (test_module.cpp:
// modules, caches, images, lifetimes; test_kernel.cpp: kernels and launches):
// a context on a kernel cache directory of the test's own, kernel sources,
// owners of module and kernel handles.
#pragma once

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "ek_test.hpp"

using ektest::Tensor;

inline const char *kSaxpy = R"(
extern "C" __global__ void saxpy(int n, float a, const float *x, float *y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}
)";

// y = a * x: the same result however often it runs, as ek_kernel_launch_auto needs.
inline const char *kScale = R"(
extern "C" __global__ void scale(unsigned long long n, float a, const float *x, float *y) {
  unsigned long long i = blockIdx.x * static_cast<unsigned long long>(blockDim.x) + threadIdx.x;
  if (i < n) y[i] = a * x[i];
}
)";

// Each block fills `count` floats of dynamic shared memory with ones and sums them.
inline const char *kSharedSum = R"(
extern "C" __global__ void shared_sum(int count, float *out) {
  extern __shared__ float s[];
  for (int i = threadIdx.x; i < count; i += blockDim.x) s[i] = 1.0f;
  __syncthreads();
  if (threadIdx.x == 0) {
    float t = 0;
    for (int i = 0; i < count; ++i) t += s[i];
    out[blockIdx.x] = t;
  }
}
)";

// A source no module of this process (or any earlier process: the disk cache
// is per test) has compiled, so its first compilation really runs NVRTC.
inline std::string unique(const char *source) {
  static std::atomic<int> counter{0};
  const auto now = std::chrono::steady_clock::now().time_since_epoch().count();
  return std::string(source) + "// " + std::to_string(getpid()) + "-" + std::to_string(now) +
         "-" + std::to_string(counter++) + "\n";
}

inline std::vector<char> file_from_env(const char *variable) {
  const char *path = std::getenv(variable);
  if (!path || !*path) return {};
  std::ifstream in(path, std::ios::binary);
  return std::vector<char>(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

struct Module {
  ek_module m = nullptr;
  ~Module() { ek_module_release(m); }
  operator ek_module() const { return m; }
};
struct Kernel {
  ek_kernel k = nullptr;
  ~Kernel() { ek_kernel_release(k); }
  operator ek_kernel() const { return k; }
};
struct Context {
  ek_context c = nullptr;
  ~Context() { ek_context_destroy(c); }
  operator ek_context() const { return c; }
};

inline ek_kernel_arg arg(const void *value, size_t size) { return ek_kernel_arg{value, size}; }
// Typed arguments (ek_kernel_value), every unused field 0.
inline ek_kernel_value tensor_value(ek_tensor t) {
  ek_kernel_value v{};
  v.kind = EK_KERNEL_VALUE_TENSOR;
  v.tensor = t;
  return v;
}
inline ek_kernel_value scalar_value(ek_dtype dtype, ek_scalar s) {
  ek_kernel_value v{};
  v.kind = EK_KERNEL_VALUE_SCALAR;
  v.dtype = dtype;
  v.scalar = s;
  return v;
}
inline ek_kernel_value bytes_value(const void *bytes, size_t size) {
  ek_kernel_value v{};
  v.kind = EK_KERNEL_VALUE_BYTES;
  v.bytes = bytes;
  v.size = size;
  return v;
}

// Stores the bytes of its scalar arguments: a 2-byte half, a 1-byte bool.
inline const char *kBits = R"(
extern "C" __global__ void bits(unsigned short h, bool b, long long i, int *out) {
  out[0] = h;
  out[1] = b;
  out[2] = static_cast<int>(i >> 40);
}
)";

#define CUDA_ONLY() \
  if (GetParam() != EK_CUDA) GTEST_SKIP() << "custom kernels run on CUDA contexts only"

class ModuleTest : public ektest::DeviceTest {
 protected:
  // The fixture's context again, on a kernel cache directory of this test's own.
  void SetUp() override {
    DeviceTest::SetUp();
    if (IsSkipped() || HasFatalFailure() || !ctx) return;
    cache_dir = new_temp_dir();
    ASSERT_EQ(ek_context_destroy(ctx), EK_SUCCESS) << ek_last_error();
    ctx = nullptr;
    make_context(cache_dir, EK_LOG_OFF, &ctx);
  }
  void TearDown() override {
    DeviceTest::TearDown();
    std::error_code ec;
    for (const std::string &dir : temp_dirs) std::filesystem::remove_all(dir, ec);
  }
  std::string new_temp_dir() {
    char path[] = "/tmp/ek-module-test-XXXXXX";
    EXPECT_NE(mkdtemp(path), nullptr);
    temp_dirs.push_back(path);
    return path;
  }
  void make_context(const std::string &dir, ek_log_level level, ek_context *out) {
    ek_context_config cfg = EK_CONTEXT_CONFIG_INIT;
    cfg.kernel_cache_dir = dir.c_str();
    cfg.log_level = level;
    ASSERT_EQ(ek_context_create(ek_device{GetParam(), 0}, &cfg, out), EK_SUCCESS)
        << ek_last_error();
  }
  void from_source(const std::string &source, Module *m, const char *name = "test.cu") {
    ASSERT_EQ(ek_module_from_source(ctx, source.c_str(), name, nullptr, 0, &m->m), EK_SUCCESS)
        << ek_last_error();
  }
  void get_kernel(ek_module m, const char *name, Kernel *k) {
    ASSERT_EQ(ek_module_get_kernel(m, name, &k->k), EK_SUCCESS) << ek_last_error();
  }
  ek_module_origin origin(ek_module m) {
    ek_module_origin o = EK_MODULE_NOT_LOADED;
    EXPECT_EQ(ek_module_get_origin(m, &o), EK_SUCCESS) << ek_last_error();
    return o;
  }
  // A float32 tensor holding values; its device pointer in *data.
  void upload(const std::vector<float> &values, Tensor *t, void **data) {
    const int64_t n = static_cast<int64_t>(values.size());
    ASSERT_EQ(ek_tensor_from_host(nullptr, ctx, 1, &n, EK_FLOAT32, values.data(), t->out()),
              EK_SUCCESS) << ek_last_error();
    ASSERT_EQ(ek_tensor_get_data(*t, data), EK_SUCCESS);
  }
  // Launches kScale's kernel (from any module) on 1000 elements: y = 2x.
  // module_ctx: the module's context when it is not ctx. Its kernel runs on
  // that context's stream, which nothing orders with ctx's, where x and y
  // are uploaded and y read back: both are synchronized around the launch.
  void expect_scale_runs(ek_module m, ek_context module_ctx = nullptr) {
    Kernel k;
    get_kernel(m, "scale", &k);
    std::vector<float> x(1000);
    for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<float>(i) - 300.0f;
    Tensor tx, ty;
    void *px = nullptr, *py = nullptr;
    upload(x, &tx, &px);
    upload(std::vector<float>(x.size(), -1.0f), &ty, &py);
    unsigned long long n = x.size();
    float a = 2.0f;
    ek_kernel_arg args[] = {arg(&n, sizeof n), arg(&a, sizeof a), arg(&px, sizeof px),
                            arg(&py, sizeof py)};
    const unsigned grid[3] = {4, 1, 1}, block[3] = {256, 1, 1};
    if (module_ctx) {
      EK_OK(ek_context_synchronize(ctx));
    }
    EK_OK(ek_kernel_launch(nullptr, k, grid, block, 0, args, 4));
    if (module_ctx) {
      EK_OK(ek_context_synchronize(module_ctx));
    }
    std::vector<float> y = ektest::to_host<float>(ty);
    for (size_t i = 0; i < x.size(); ++i) ASSERT_EQ(y[i], 2.0f * x[i]) << "element " << i;
  }
  std::string cache_dir;
  std::vector<std::string> temp_dirs;
};
