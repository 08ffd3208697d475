// Custom kernels: modules from source (NVRTC) and from images, kernels and
// their attributes, launches and the checks on their arguments, the autotuned
// launch, the kernel cache and the lifetimes of modules and kernels. On a CPU
// context every entry point refuses with EK_ERROR_NOT_SUPPORTED.
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <thread>
#include <vector>

#include "ek_test.hpp"

using ektest::Tensor;

namespace {

const char *kSaxpy = R"(
extern "C" __global__ void saxpy(int n, float a, const float *x, float *y) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}
)";

// y = a * x: the same result however often it runs, as ek_kernel_launch_auto needs.
const char *kScale = R"(
extern "C" __global__ void scale(unsigned long long n, float a, const float *x, float *y) {
  unsigned long long i = blockIdx.x * static_cast<unsigned long long>(blockDim.x) + threadIdx.x;
  if (i < n) y[i] = a * x[i];
}
)";

// Each block fills `count` floats of dynamic shared memory with ones and sums them.
const char *kSharedSum = R"(
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
std::string unique(const char *source) {
  static std::atomic<int> counter{0};
  const auto now = std::chrono::steady_clock::now().time_since_epoch().count();
  return std::string(source) + "// " + std::to_string(getpid()) + "-" + std::to_string(now) +
         "-" + std::to_string(counter++) + "\n";
}

std::vector<char> file_from_env(const char *variable) {
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

ek_kernel_arg arg(const void *value, size_t size) { return ek_kernel_arg{value, size}; }

}  // namespace

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
    ASSERT_EQ(ek_tensor_from_host(ctx, 1, &n, EK_FLOAT32, values.data(), nullptr, t->out()),
              EK_SUCCESS) << ek_last_error();
    ASSERT_EQ(ek_tensor_data(*t, data), EK_SUCCESS);
  }
  // Launches kScale's kernel (from any module) on 1000 elements: y = 2x.
  void expect_scale_runs(ek_module m) {
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
    EK_OK(ek_kernel_launch(k, nullptr, grid, block, 0, args, 4));
    std::vector<float> y = ektest::to_host<float>(ty);
    for (size_t i = 0; i < x.size(); ++i) ASSERT_EQ(y[i], 2.0f * x[i]) << "element " << i;
  }
  std::string cache_dir;
  std::vector<std::string> temp_dirs;
};
EK_INSTANTIATE_DEVICES(ModuleTest);

// ---------------------------------------------------------------- every device

TEST_P(ModuleTest, NullArgumentsAreRejected) {
  ek_module m = nullptr;
  ek_kernel k = nullptr;
  EK_FAILS(ek_module_from_source(nullptr, kSaxpy, "x.cu", nullptr, 0, &m), EK_ERROR_NULL_POINTER,
           "ctx");
  EK_FAILS(ek_module_from_source(ctx, nullptr, "x.cu", nullptr, 0, &m), EK_ERROR_NULL_POINTER,
           "ek_module_from_source: source is NULL");
  EK_FAILS(ek_module_from_source(ctx, kSaxpy, "x.cu", nullptr, 0, nullptr),
           EK_ERROR_NULL_POINTER, "out");
  EK_FAILS(ek_module_from_image(ctx, nullptr, 10, &m), EK_ERROR_NULL_POINTER, "image");
  EK_FAILS(ek_module_from_image(ctx, kSaxpy, 10, nullptr), EK_ERROR_NULL_POINTER, "out");
  EK_FAILS(ek_module_compile(nullptr), EK_ERROR_NULL_POINTER, "ek_module_compile: m is NULL");
  ek_module_origin o;
  EK_FAILS(ek_module_get_origin(nullptr, &o), EK_ERROR_NULL_POINTER, "m");
  EK_FAILS(ek_module_get_kernel(nullptr, "saxpy", &k), EK_ERROR_NULL_POINTER, "m");
  ek_kernel_attributes attributes;
  EK_FAILS(ek_kernel_get_attributes(nullptr, &attributes), EK_ERROR_NULL_POINTER, "k");
  const unsigned dims[3] = {1, 1, 1};
  EK_FAILS(ek_kernel_launch(nullptr, nullptr, dims, dims, 0, nullptr, 0), EK_ERROR_NULL_POINTER,
           "ek_kernel_launch: k is NULL");
  EK_FAILS(ek_kernel_launch_auto(nullptr, nullptr, 10, 0, nullptr, 0, nullptr),
           EK_ERROR_NULL_POINTER, "k");
  EK_FAILS(ek_kernel_cache_clear(nullptr), EK_ERROR_NULL_POINTER, "ctx");
  EXPECT_EQ(m, nullptr);
  EXPECT_EQ(k, nullptr);
}

TEST_P(ModuleTest, ReleasingNullIsANoOp) {
  EK_OK(ek_module_release(nullptr));
  EK_OK(ek_kernel_release(nullptr));
}

// ---------------------------------------------------------------- CPU

TEST_P(ModuleTest, CpuContextRefusesCustomKernels) {
  if (GetParam() != EK_CPU) GTEST_SKIP() << "CPU-only behaviour";
  ek_module m = nullptr;
  EK_FAILS(ek_module_from_source(ctx, kSaxpy, "x.cu", nullptr, 0, &m), EK_ERROR_NOT_SUPPORTED,
           "ek_module_from_source: custom kernels need a CUDA context");
  const char image[] = "not an image";
  EK_FAILS(ek_module_from_image(ctx, image, sizeof image, &m), EK_ERROR_NOT_SUPPORTED,
           "ek_module_from_image: custom kernels need a CUDA context");
  EK_FAILS(ek_kernel_cache_clear(ctx), EK_ERROR_NOT_SUPPORTED,
           "ek_kernel_cache_clear: custom kernels need a CUDA context");
  EXPECT_EQ(m, nullptr);
}

// ---------------------------------------------------------------- CUDA: modules from source

TEST_P(ModuleTest, OptionsAreChecked) {
  CUDA_ONLY();
  ek_module m = nullptr;
  const char *arch[] = {"-DX=1", "-arch=sm_80"};
  EK_FAILS(ek_module_from_source(ctx, kSaxpy, "x.cu", arch, 2, &m), EK_ERROR_INVALID_ARGUMENT,
           "options[1] \"-arch=sm_80\"");
  const char *gpu_arch[] = {"--gpu-architecture=compute_90"};
  EK_FAILS(ek_module_from_source(ctx, kSaxpy, "x.cu", gpu_arch, 1, &m),
           EK_ERROR_INVALID_ARGUMENT, "options[0]");
  EK_FAILS(ek_module_from_source(ctx, kSaxpy, "x.cu", nullptr, 1, &m), EK_ERROR_NULL_POINTER,
           "options is NULL");
  const char *null_option[] = {"-DX=1", nullptr};
  EK_FAILS(ek_module_from_source(ctx, kSaxpy, "x.cu", null_option, 2, &m),
           EK_ERROR_NULL_POINTER, "options[1] is NULL");
  EK_FAILS(ek_module_from_source(ctx, kSaxpy, "x.cu", arch, -1, &m), EK_ERROR_INVALID_ARGUMENT,
           "n_options is -1");
  EXPECT_EQ(m, nullptr);
}

TEST_P(ModuleTest, SaxpyFromSourceMatchesTheHost) {
  CUDA_ONLY();
  Module m;
  from_source(kSaxpy, &m);
  EXPECT_EQ(origin(m), EK_MODULE_NOT_LOADED);  // compiled lazily
  Kernel k;
  get_kernel(m, "saxpy", &k);
  const int n = 100003;  // not a multiple of the block
  std::vector<float> x(n), y(n);
  for (int i = 0; i < n; ++i) {
    x[i] = 0.5f * static_cast<float>(i % 1000);
    y[i] = static_cast<float>(i % 7) - 3.0f;
  }
  Tensor tx, ty;
  void *px = nullptr, *py = nullptr;
  upload(x, &tx, &px);
  upload(y, &ty, &py);
  float a = 3.0f;
  int count = n;
  ek_kernel_arg args[] = {arg(&count, sizeof count), arg(&a, sizeof a), arg(&px, sizeof px),
                          arg(&py, sizeof py)};
  const unsigned grid[3] = {(n + 255) / 256, 1, 1}, block[3] = {256, 1, 1};
  EK_OK(ek_kernel_launch(k, nullptr, grid, block, 0, args, 4));
  std::vector<float> got = ektest::to_host<float>(ty);
  for (int i = 0; i < n; ++i) ASSERT_EQ(got[i], a * x[i] + y[i]) << "element " << i;
}

TEST_P(ModuleTest, AttributesDescribeTheKernel) {
  CUDA_ONLY();
  Module m;
  from_source(kSaxpy, &m);
  Kernel k;
  get_kernel(m, "saxpy", &k);
  ek_kernel_attributes a{};
  EK_OK(ek_kernel_get_attributes(k, &a));
  EXPECT_EQ(a.num_params, 4);
  EXPECT_EQ(a.param_bytes, 24u);  // int, float, then two 8-byte-aligned pointers
  EXPECT_GT(a.num_regs, 0);
  EXPECT_GE(a.max_threads_per_block, 256);
  EXPECT_LE(a.max_threads_per_block, 1024);
  EXPECT_EQ(a.shared_bytes, 0u);
  EXPECT_EQ(a.local_bytes, 0u);
  ek_device_info info{};
  EK_OK(ek_device_get_info(ek_device{EK_CUDA, 0}, &info));
  EXPECT_EQ(a.binary_version, info.compute_major * 10 + info.compute_minor);
  EXPECT_GT(a.ptx_version, 0);
  EK_FAILS(ek_kernel_get_attributes(k, nullptr), EK_ERROR_NULL_POINTER, "attributes");
}

TEST_P(ModuleTest, OptionsReachTheCompiler) {
  CUDA_ONLY();
  const char *source = R"(
extern "C" __global__ void fill(float *y) { y[threadIdx.x] = VALUE; })";
  const char *options[] = {"-DVALUE=2.5f", "--use_fast_math"};
  Module m;
  EK_OK(ek_module_from_source(ctx, source, "fill.cu", options, 2, &m.m));
  Kernel k;
  get_kernel(m, "fill", &k);
  Tensor t;
  void *p = nullptr;
  upload(std::vector<float>(32, 0.0f), &t, &p);
  ek_kernel_arg args[] = {arg(&p, sizeof p)};
  const unsigned grid[3] = {1, 1, 1}, block[3] = {32, 1, 1};
  EK_OK(ek_kernel_launch(k, nullptr, grid, block, 0, args, 1));
  for (float v : ektest::to_host<float>(t)) ASSERT_EQ(v, 2.5f);
}

TEST_P(ModuleTest, CompileErrorCarriesNvrtcsLogAndIsRemembered) {
  CUDA_ONLY();
  const char *bad = R"(
extern "C" __global__ void broken(float *y) { y[0] = not_declared_anywhere; })";
  Module m;
  from_source(bad, &m, "broken.cu");
  EK_FAILS(ek_module_compile(m), EK_ERROR_COMPILE,
           "ek_module_compile: NVRTC failed to compile broken.cu:\n");
  const std::string first = ek_last_error();
  EXPECT_NE(first.find("error"), std::string::npos) << first;
  EXPECT_NE(first.find("not_declared_anywhere"), std::string::npos) << first;
  // Not retried: the same message, under the name of the function called.
  EK_FAILS(ek_module_compile(m), EK_ERROR_COMPILE, "not_declared_anywhere");
  EXPECT_EQ(std::string(ek_last_error()), first);
  Kernel k;
  EK_FAILS(ek_module_get_kernel(m, "broken", &k.k), EK_ERROR_COMPILE,
           "ek_module_get_kernel: NVRTC failed to compile broken.cu");
  EXPECT_EQ(origin(m), EK_MODULE_NOT_LOADED);
  EXPECT_EQ(k.k, nullptr);
}

TEST_P(ModuleTest, LongCompileLogIsKeptWhole) {
  CUDA_ONLY();
  std::string source = "extern \"C\" __global__ void k(int *p) {\n";
  for (int i = 0; i < 60; ++i)
    source += "  p[" + std::to_string(i) + "] = an_undeclared_identifier_with_a_long_name_" +
              std::to_string(i) + ";\n";
  source += "}\n";
  Module m;
  from_source(source, &m, "long.cu");
  EK_FAILS(ek_module_compile(m), EK_ERROR_COMPILE, "an_undeclared_identifier_with_a_long_name_59");
  EXPECT_GT(std::string(ek_last_error()).size(), 4096u);
}

TEST_P(ModuleTest, UnknownKernelNameIsRejected) {
  CUDA_ONLY();
  Module m;
  from_source(kSaxpy, &m, "saxpy.cu");
  Kernel k;
  EK_FAILS(ek_module_get_kernel(m, "saxpy_typo", &k.k), EK_ERROR_INVALID_ARGUMENT,
           "module saxpy.cu has no kernel \"saxpy_typo\"");
  EXPECT_NE(std::string(ek_last_error()).find("extern \"C\""), std::string::npos);
  EK_FAILS(ek_module_get_kernel(m, nullptr, &k.k), EK_ERROR_NULL_POINTER, "name");
  EK_FAILS(ek_module_get_kernel(m, "saxpy", nullptr), EK_ERROR_NULL_POINTER, "out");
  EXPECT_EQ(k.k, nullptr);
}

TEST_P(ModuleTest, ConcurrentFirstUsesCompileOnce) {
  CUDA_ONLY();
  Module m;
  from_source(unique(kSaxpy), &m);
  constexpr int kThreads = 4;
  ek_kernel kernels[kThreads] = {};
  ek_status status[kThreads];
  std::vector<std::thread> threads;
  for (int i = 0; i < kThreads; ++i)
    threads.emplace_back([&, i] { status[i] = ek_module_get_kernel(m, "saxpy", &kernels[i]); });
  for (std::thread &t : threads) t.join();
  for (int i = 0; i < kThreads; ++i) {
    EXPECT_EQ(status[i], EK_SUCCESS) << "thread " << i;
    EK_EXPECT_OK(ek_kernel_release(kernels[i]));
  }
  EXPECT_EQ(origin(m), EK_MODULE_COMPILED);
}

// ---------------------------------------------------------------- CUDA: launches

class LaunchTest : public ModuleTest {
 protected:
  void SetUp() override {
    ModuleTest::SetUp();
    if (IsSkipped() || HasFatalFailure() || GetParam() != EK_CUDA) return;
    from_source(kSaxpy, &module);
    get_kernel(module, "saxpy", &saxpy);
    upload(std::vector<float>(1024, 1.0f), &tx, &px);
    upload(std::vector<float>(1024, 0.0f), &ty, &py);
  }
  void TearDown() override {
    ek_kernel_release(saxpy.k);
    saxpy.k = nullptr;
    ek_module_release(module.m);
    module.m = nullptr;
    ek_tensor_release(tx.t);
    ek_tensor_release(ty.t);
    tx.t = ty.t = nullptr;
    ModuleTest::TearDown();
  }
  ek_status launch(const unsigned grid[3], const unsigned block[3], size_t shared = 0) {
    return ek_kernel_launch(saxpy, nullptr, grid, block, shared, args, 4);
  }
  Module module;
  Kernel saxpy;
  Tensor tx, ty;
  void *px = nullptr, *py = nullptr;
  int n = 1024;
  float a = 2.0f;
  ek_kernel_arg args[4] = {arg(&n, sizeof n), arg(&a, sizeof a), arg(&px, sizeof px),
                           arg(&py, sizeof py)};
};
EK_INSTANTIATE_DEVICES(LaunchTest);

TEST_P(LaunchTest, WrongArgumentsAreRejected) {
  CUDA_ONLY();
  const unsigned grid[3] = {4, 1, 1}, block[3] = {256, 1, 1};
  EK_FAILS(ek_kernel_launch(saxpy, nullptr, grid, block, 0, args, 3), EK_ERROR_INVALID_ARGUMENT,
           "kernel saxpy takes 4 arguments; n_args is 3");
  EK_FAILS(ek_kernel_launch(saxpy, nullptr, grid, block, 0, args, 5), EK_ERROR_INVALID_ARGUMENT,
           "n_args is 5");
  ek_kernel_arg wrong[4] = {args[0], arg(&a, 8), args[2], args[3]};
  EK_FAILS(ek_kernel_launch(saxpy, nullptr, grid, block, 0, wrong, 4), EK_ERROR_INVALID_ARGUMENT,
           "args[1].size is 8; parameter 1 of kernel saxpy takes 4 bytes");
  ek_kernel_arg null_value[4] = {args[0], args[1], arg(nullptr, sizeof(void *)), args[3]};
  EK_FAILS(ek_kernel_launch(saxpy, nullptr, grid, block, 0, null_value, 4),
           EK_ERROR_NULL_POINTER, "args[2].value is NULL");
  EK_FAILS(ek_kernel_launch(saxpy, nullptr, grid, block, 0, nullptr, 4), EK_ERROR_NULL_POINTER,
           "args is NULL");
  EK_FAILS(ek_kernel_launch(saxpy, nullptr, nullptr, block, 0, args, 4), EK_ERROR_NULL_POINTER,
           "grid");
  EK_FAILS(ek_kernel_launch(saxpy, nullptr, grid, nullptr, 0, args, 4), EK_ERROR_NULL_POINTER,
           "block");
}

TEST_P(LaunchTest, GeometryIsChecked) {
  CUDA_ONLY();
  ek_kernel_attributes attr{};
  EK_OK(ek_kernel_get_attributes(saxpy, &attr));
  const unsigned one[3] = {1, 1, 1};
  const unsigned zero_grid[3] = {0, 1, 1};
  EK_FAILS(launch(zero_grid, one), EK_ERROR_INVALID_ARGUMENT, "must not be 0");
  const unsigned zero_block[3] = {32, 1, 0};
  EK_FAILS(launch(one, zero_block), EK_ERROR_INVALID_ARGUMENT, "must not be 0");
  const unsigned tall_grid[3] = {1, 65536, 1};
  EK_FAILS(launch(tall_grid, one), EK_ERROR_INVALID_ARGUMENT, "exceeds");
  const unsigned wide_grid[3] = {1u << 31, 1, 1};
  EK_FAILS(launch(wide_grid, one), EK_ERROR_INVALID_ARGUMENT, "exceeds");
  const unsigned wide_block[3] = {2048, 1, 1};
  EK_FAILS(launch(one, wide_block), EK_ERROR_INVALID_ARGUMENT, "exceeds");
  const unsigned many_threads[3] = {32, 32, 2};  // 2048 threads, each dim within its limit
  EK_FAILS(launch(one, many_threads), EK_ERROR_INVALID_ARGUMENT, "2048 threads; kernel saxpy");
  EK_FAILS(launch(one, one, size_t{1} << 30), EK_ERROR_INVALID_ARGUMENT, "shared_bytes");
  const unsigned most[3] = {static_cast<unsigned>(attr.max_threads_per_block), 1, 1};
  EK_OK(launch(one, most));  // the limit itself is fine
  EK_OK(ek_context_synchronize(ctx));
}

TEST_P(LaunchTest, StreamsOfThisContextOnly) {
  CUDA_ONLY();
  const unsigned grid[3] = {4, 1, 1}, block[3] = {256, 1, 1};
  ek_stream s = nullptr;
  EK_OK(ek_stream_create(ctx, &s));
  EK_EXPECT_OK(ek_kernel_launch(saxpy, s, grid, block, 0, args, 4));
  EK_EXPECT_OK(ek_stream_synchronize(s));
  std::vector<float> y = ektest::to_host<float>(ty);
  EXPECT_EQ(y[0], 2.0f);
  EXPECT_EQ(y[1023], 2.0f);
  EK_EXPECT_OK(ek_stream_destroy(s));
  Context other;
  make_context(cache_dir, EK_LOG_OFF, &other.c);
  ek_stream foreign = nullptr;
  EK_OK(ek_stream_create(other, &foreign));
  EK_FAILS(ek_kernel_launch(saxpy, foreign, grid, block, 0, args, 4), EK_ERROR_INVALID_ARGUMENT,
           "another context");
  EK_FAILS(ek_kernel_launch_auto(saxpy, foreign, 1024, 0, args, 4, nullptr),
           EK_ERROR_INVALID_ARGUMENT, "another context");
  EK_EXPECT_OK(ek_stream_destroy(foreign));
}

TEST_P(ModuleTest, DynamicSharedMemoryAbove48KiB) {
  CUDA_ONLY();
  Module m;
  from_source(kSharedSum, &m);
  Kernel k;
  get_kernel(m, "shared_sum", &k);
  Tensor t;
  void *out = nullptr;
  upload(std::vector<float>(2, 0.0f), &t, &out);
  int count = 24 * 1024;  // 96 KiB of floats: past the 48 KiB without opting in
  ek_kernel_arg args[] = {arg(&count, sizeof count), arg(&out, sizeof out)};
  const unsigned grid[3] = {2, 1, 1}, block[3] = {256, 1, 1};
  EK_OK(ek_kernel_launch(k, nullptr, grid, block, count * sizeof(float), args, 2));
  std::vector<float> sums = ektest::to_host<float>(t);
  EXPECT_EQ(sums[0], static_cast<float>(count));
  EXPECT_EQ(sums[1], static_cast<float>(count));
}

// ---------------------------------------------------------------- CUDA: autotuned launches

TEST_P(ModuleTest, LaunchAutoPicksACandidateOnceAndComputesRight) {
  CUDA_ONLY();
  Module m;
  from_source(kScale, &m);
  Kernel k;
  get_kernel(m, "scale", &k);
  const size_t count = 1 << 20;
  std::vector<float> x(count);
  for (size_t i = 0; i < count; ++i) x[i] = static_cast<float>(i % 4096) * 0.25f;
  Tensor tx, ty;
  void *px = nullptr, *py = nullptr;
  upload(x, &tx, &px);
  upload(std::vector<float>(count, -1.0f), &ty, &py);
  unsigned long long n = count;
  float a = -3.0f;
  ek_kernel_arg args[] = {arg(&n, sizeof n), arg(&a, sizeof a), arg(&px, sizeof px),
                          arg(&py, sizeof py)};
  unsigned block = 0;
  EK_OK(ek_kernel_launch_auto(k, nullptr, n, 0, args, 4, &block));
  EXPECT_TRUE(block == 32 || block == 64 || block == 128 || block == 256 || block == 512 ||
              block == 1024) << block;
  std::vector<float> y = ektest::to_host<float>(ty);
  for (size_t i = 0; i < count; ++i) ASSERT_EQ(y[i], a * x[i]) << "element " << i;
  // The same bucket (n rounded up to a power of two) reuses the choice.
  unsigned again = 0;
  EK_OK(ek_kernel_launch_auto(k, nullptr, n, 0, args, 4, &again));
  EXPECT_EQ(again, block);
  n = count - 5;
  EK_OK(ek_kernel_launch_auto(k, nullptr, n, 0, args, 4, &again));
  EXPECT_EQ(again, block);
  EK_OK(ek_kernel_launch_auto(k, nullptr, n, 0, args, 4, nullptr));
}

TEST_P(ModuleTest, LaunchAutoChecksItsArguments) {
  CUDA_ONLY();
  Module m;
  from_source(kScale, &m);
  Kernel k;
  get_kernel(m, "scale", &k);
  Tensor tx;
  void *px = nullptr;
  upload(std::vector<float>(16, 1.0f), &tx, &px);
  unsigned long long n = 16;
  float a = 1.0f;
  ek_kernel_arg args[] = {arg(&n, sizeof n), arg(&a, sizeof a), arg(&px, sizeof px),
                          arg(&px, sizeof px)};
  unsigned block = 99;
  EK_OK(ek_kernel_launch_auto(k, nullptr, 0, 0, args, 4, &block));  // n == 0: no launch
  EXPECT_EQ(block, 0u);
  EK_FAILS(ek_kernel_launch_auto(k, nullptr, 16, 0, args, 2, &block), EK_ERROR_INVALID_ARGUMENT,
           "takes 4 arguments");
  ek_kernel_arg small[] = {arg(&a, sizeof a), args[1], args[2], args[3]};
  EK_FAILS(ek_kernel_launch_auto(k, nullptr, 16, 0, small, 4, &block), EK_ERROR_INVALID_ARGUMENT,
           "args[0].size is 4");
  EK_FAILS(ek_kernel_launch_auto(k, nullptr, 1ull << 62, 0, args, 4, &block),
           EK_ERROR_INVALID_ARGUMENT, "2^31-1 blocks");
  EK_FAILS(ek_kernel_launch_auto(k, nullptr, 16, size_t{1} << 30, args, 4, &block),
           EK_ERROR_INVALID_ARGUMENT, "shared_bytes");
  EXPECT_EQ(block, 0u);
}

// ---------------------------------------------------------------- CUDA: the caches

TEST_P(ModuleTest, OriginsFollowTheCaches) {
  CUDA_ONLY();
  const std::string source = unique(kScale);
  Module first, second, third;
  from_source(source, &first);
  EXPECT_EQ(origin(first), EK_MODULE_NOT_LOADED);
  EK_OK(ek_module_compile(first));
  EXPECT_EQ(origin(first), EK_MODULE_COMPILED);
  EK_OK(ek_module_compile(first));  // once loaded, nothing more happens
  EXPECT_EQ(origin(first), EK_MODULE_COMPILED);
  from_source(source, &second);
  EK_OK(ek_module_compile(second));
  EXPECT_EQ(origin(second), EK_MODULE_MEMORY_CACHE);
  EK_OK(ek_kernel_cache_clear(ctx));
  from_source(source, &third);
  EK_OK(ek_module_compile(third));
  EXPECT_EQ(origin(third), EK_MODULE_COMPILED);
  expect_scale_runs(first);  // loaded modules stay usable after the clear
  expect_scale_runs(third);
}

TEST_P(ModuleTest, DiskCacheServesAfterTheMemoryCacheIsCleared) {
  CUDA_ONLY();
  const std::string source = unique(kScale);
  Module compiled, from_disk;
  from_source(source, &compiled);
  EK_OK(ek_module_compile(compiled));
  EXPECT_EQ(origin(compiled), EK_MODULE_COMPILED);
  // Clearing through a context on another directory empties the (process-wide)
  // memory cache and leaves this test's directory alone, as a new process would.
  Context elsewhere;
  make_context(new_temp_dir(), EK_LOG_OFF, &elsewhere.c);
  EK_OK(ek_kernel_cache_clear(elsewhere));
  from_source(source, &from_disk);
  EK_OK(ek_module_compile(from_disk));
  EXPECT_EQ(origin(from_disk), EK_MODULE_DISK_CACHE);
  expect_scale_runs(from_disk);
}

TEST_P(ModuleTest, CorruptDiskEntryIsRejectedLoggedAndRebuilt) {
  CUDA_ONLY();
  const std::string source = unique(kScale);
  {
    Module m;
    from_source(source, &m);
    EK_OK(ek_module_compile(m));
  }
  int corrupted = 0;
  for (const auto &entry : std::filesystem::recursive_directory_iterator(cache_dir)) {
    if (!entry.is_regular_file()) continue;
    std::fstream f(entry.path(), std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(static_cast<std::streamoff>(entry.file_size() / 2));
    f.put('\x5a').put('\xa5').put('\x5a');
    ++corrupted;
  }
  ASSERT_GT(corrupted, 0) << "nothing was written to " << cache_dir;
  Context elsewhere, warns;
  make_context(new_temp_dir(), EK_LOG_OFF, &elsewhere.c);
  EK_OK(ek_kernel_cache_clear(elsewhere));
  make_context(cache_dir, EK_LOG_WARN, &warns.c);
  Module m;
  ASSERT_EQ(ek_module_from_source(warns, source.c_str(), "test.cu", nullptr, 0, &m.m), EK_SUCCESS);
  testing::internal::CaptureStderr();
  const ek_status st = ek_module_compile(m);
  const std::string log = testing::internal::GetCapturedStderr();
  EK_OK(st);
  EXPECT_EQ(origin(m), EK_MODULE_COMPILED);
  EXPECT_NE(log.find("rejected"), std::string::npos) << log;
  expect_scale_runs(m);
}

// ---------------------------------------------------------------- CUDA: images

TEST_P(ModuleTest, CubinImageLoadsOnItsArchitecture) {
  CUDA_ONLY();
  std::vector<char> image = file_from_env("EK_TEST_CUBIN");
  if (image.empty()) GTEST_SKIP() << "EK_TEST_CUBIN is not set (meson test sets it)";
  ek_device_info info{};
  EK_OK(ek_device_get_info(ek_device{EK_CUDA, 0}, &info));
  Module m;
  if (info.compute_major != 9 || info.compute_minor != 0) {  // the cubin is sm_90 code only
    EK_FAILS(ek_module_from_image(ctx, image.data(), image.size(), &m.m), EK_ERROR_DEVICE,
             "cuModuleLoadDataEx");
    return;
  }
  EK_OK(ek_module_from_image(ctx, image.data(), image.size(), &m.m));
  EXPECT_EQ(origin(m), EK_MODULE_IMAGE);
  EK_OK(ek_module_compile(m));  // nothing to compile
  expect_scale_runs(m);
}

TEST_P(ModuleTest, FatbinImageLoadsAndRuns) {
  CUDA_ONLY();
  std::vector<char> image = file_from_env("EK_TEST_FATBIN");
  if (image.empty()) GTEST_SKIP() << "EK_TEST_FATBIN is not set (meson test sets it)";
  Module m;
  EK_OK(ek_module_from_image(ctx, image.data(), image.size(), &m.m));
  image.assign(image.size(), '\0');  // loaded before the call returned
  EXPECT_EQ(origin(m), EK_MODULE_IMAGE);
  expect_scale_runs(m);
}

TEST_P(ModuleTest, PtxImageLoadsWithOrWithoutItsNul) {
  CUDA_ONLY();
  std::vector<char> ptx = file_from_env("EK_TEST_PTX");
  if (ptx.empty()) GTEST_SKIP() << "EK_TEST_PTX is not set (meson test sets it)";
  Module without_nul, with_nul;
  EK_OK(ek_module_from_image(ctx, ptx.data(), ptx.size(), &without_nul.m));
  expect_scale_runs(without_nul);
  ptx.push_back('\0');
  EK_OK(ek_module_from_image(ctx, ptx.data(), ptx.size(), &with_nul.m));
  expect_scale_runs(with_nul);
}

TEST_P(ModuleTest, InvalidImagesAreRejected) {
  CUDA_ONLY();
  ek_module m = nullptr;
  const char junk[] = "this is neither PTX nor a cubin nor a fatbin";
  EK_FAILS(ek_module_from_image(ctx, junk, sizeof junk, &m), EK_ERROR_DEVICE,
           "cuModuleLoadDataEx failed");
  EK_FAILS(ek_module_from_image(ctx, junk, 0, &m), EK_ERROR_INVALID_ARGUMENT, "size is 0");
  std::vector<char> cubin = file_from_env("EK_TEST_FATBIN");
  if (!cubin.empty())
    EK_FAILS(ek_module_from_image(ctx, cubin.data(), cubin.size() / 2, &m), EK_ERROR_DEVICE,
             "truncated");
  EXPECT_EQ(m, nullptr);
}

// ---------------------------------------------------------------- CUDA: lifetimes

TEST_P(ModuleTest, KernelKeepsItsModuleLoaded) {
  CUDA_ONLY();
  ek_module m = nullptr;
  EK_OK(ek_module_from_source(ctx, kScale, "scale.cu", nullptr, 0, &m));
  Kernel k;
  get_kernel(m, "scale", &k);
  EK_OK(ek_module_release(m));  // the kernel holds the module
  EK_FAILS(ek_module_compile(m), EK_ERROR_INVALID_ARGUMENT, "not a live ek_module");
  EK_FAILS(ek_module_release(m), EK_ERROR_INVALID_ARGUMENT, "not a live ek_module");
  Tensor tx, ty;
  void *px = nullptr, *py = nullptr;
  upload(std::vector<float>(64, 4.0f), &tx, &px);
  upload(std::vector<float>(64, 0.0f), &ty, &py);
  unsigned long long n = 64;
  float a = 0.5f;
  ek_kernel_arg args[] = {arg(&n, sizeof n), arg(&a, sizeof a), arg(&px, sizeof px),
                          arg(&py, sizeof py)};
  const unsigned grid[3] = {1, 1, 1}, block[3] = {64, 1, 1};
  EK_OK(ek_kernel_launch(k, nullptr, grid, block, 0, args, 4));
  for (float v : ektest::to_host<float>(ty)) ASSERT_EQ(v, 2.0f);
  int64_t before = 0, after = 0;
  EK_OK(ek_live_handles(&before));
  EK_OK(ek_kernel_release(k.k));  // the last reference: the module goes too
  k.k = nullptr;
  EK_OK(ek_live_handles(&after));
  EXPECT_EQ(after, before - 2);
}

TEST_P(ModuleTest, ContextWithLiveModulesIsNotDestroyed) {
  CUDA_ONLY();
  ek_context other = nullptr;
  make_context(cache_dir, EK_LOG_OFF, &other);
  ek_module m = nullptr;
  EK_OK(ek_module_from_source(other, kScale, "scale.cu", nullptr, 0, &m));
  ek_kernel k = nullptr;
  EK_OK(ek_module_get_kernel(m, "scale", &k));
  EK_FAILS(ek_context_destroy(other), EK_ERROR_INVALID_ARGUMENT, "2 tensors, streams or events");
  EK_OK(ek_module_release(m));
  EK_FAILS(ek_context_destroy(other), EK_ERROR_INVALID_ARGUMENT, "still alive");
  EK_OK(ek_kernel_release(k));
  EK_OK(ek_context_destroy(other));
}
