// Custom kernels, kernels: attributes, launches and the checks on their
// arguments, geometry, shared memory and streams, and the autotuned launch.
#include <string>
#include <vector>

#include "module_test.hpp"

using ektest::Tensor;

EK_INSTANTIATE_DEVICES(ModuleTest);

// ---------------------------------------------------------------- CUDA: attributes

TEST_P(ModuleTest, AttributesDescribeTheKernel) {
  CUDA_ONLY();
  Module m;
  from_source(kSaxpy, &m);
  Kernel k;
  get_kernel(m, "saxpy", &k);
  ek_kernel_attributes a = EK_KERNEL_ATTRIBUTES_INIT;
  EK_OK(ek_kernel_get_attributes(k, &a));
  EXPECT_EQ(a.num_params, 4);
  EXPECT_EQ(a.param_bytes, 24u);  // int, float, then two 8-byte-aligned pointers
  EXPECT_GT(a.num_regs, 0);
  EXPECT_GE(a.max_threads_per_block, 256);
  EXPECT_LE(a.max_threads_per_block, 1024);
  EXPECT_EQ(a.shared_bytes, 0u);
  EXPECT_EQ(a.local_bytes, 0u);
  ek_device_info info = EK_DEVICE_INFO_INIT;
  EK_OK(ek_device_get_info(ek_device{EK_CUDA, 0}, &info));
  EXPECT_EQ(a.binary_version, info.compute_major * 10 + info.compute_minor);
  EXPECT_GT(a.ptx_version, 0);
  EK_FAILS(ek_kernel_get_attributes(k, nullptr), EK_ERROR_NULL_POINTER, "attributes");
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
    return ek_kernel_launch(nullptr, saxpy, grid, block, shared, args, 4);
  }
  Module module;
  Kernel saxpy;
  Tensor tx, ty;
  void *px = nullptr, *py = nullptr;
  int n = 1024;
  float a = 2.0f;
  ek_kernel_arg args[4] = {arg(&n, sizeof n), arg(&a, sizeof a), arg(&px, sizeof px),
                           arg(&py, sizeof py)};
  ek_kernel_value values[4] = {scalar_value(EK_INT32, ek_scalar_int(1024)),
                               scalar_value(EK_FLOAT32, ek_scalar_float(2.0)), {}, {}};
  ek_status launch_values(const ek_kernel_value *v, int n_args = 4) {
    const unsigned grid[3] = {4, 1, 1}, block[3] = {256, 1, 1};
    return ek_kernel_launch_values(nullptr, saxpy, grid, block, 0, v, n_args);
  }
};
EK_INSTANTIATE_DEVICES(LaunchTest);

TEST_P(LaunchTest, WrongArgumentsAreRejected) {
  CUDA_ONLY();
  const unsigned grid[3] = {4, 1, 1}, block[3] = {256, 1, 1};
  EK_FAILS(ek_kernel_launch(nullptr, saxpy, grid, block, 0, args, 3), EK_ERROR_INVALID_ARGUMENT,
           "kernel saxpy takes 4 arguments; n_args is 3");
  EK_FAILS(ek_kernel_launch(nullptr, saxpy, grid, block, 0, args, 5), EK_ERROR_INVALID_ARGUMENT,
           "n_args is 5");
  ek_kernel_arg wrong[4] = {args[0], arg(&a, 8), args[2], args[3]};
  EK_FAILS(ek_kernel_launch(nullptr, saxpy, grid, block, 0, wrong, 4), EK_ERROR_INVALID_ARGUMENT,
           "args[1].size is 8; parameter 1 of kernel saxpy takes 4 bytes");
  ek_kernel_arg null_value[4] = {args[0], args[1], arg(nullptr, sizeof(void *)), args[3]};
  EK_FAILS(ek_kernel_launch(nullptr, saxpy, grid, block, 0, null_value, 4),
           EK_ERROR_NULL_POINTER, "args[2].value is NULL");
  EK_FAILS(ek_kernel_launch(nullptr, saxpy, grid, block, 0, nullptr, 4), EK_ERROR_NULL_POINTER,
           "args is NULL");
  EK_FAILS(ek_kernel_launch(nullptr, saxpy, nullptr, block, 0, args, 4), EK_ERROR_NULL_POINTER,
           "grid");
  EK_FAILS(ek_kernel_launch(nullptr, saxpy, grid, nullptr, 0, args, 4), EK_ERROR_NULL_POINTER,
           "block");
}

TEST_P(LaunchTest, GeometryIsChecked) {
  CUDA_ONLY();
  ek_kernel_attributes attr = EK_KERNEL_ATTRIBUTES_INIT;
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
  EK_EXPECT_OK(ek_kernel_launch(s, saxpy, grid, block, 0, args, 4));
  EK_EXPECT_OK(ek_stream_synchronize(s));
  std::vector<float> y = ektest::to_host<float>(ty);
  EXPECT_EQ(y[0], 2.0f);
  EXPECT_EQ(y[1023], 2.0f);
  EK_EXPECT_OK(ek_stream_destroy(s));
  Context other;
  make_context(cache_dir, EK_LOG_OFF, &other.c);
  ek_stream foreign = nullptr;
  EK_OK(ek_stream_create(other, &foreign));
  EK_FAILS(ek_kernel_launch(foreign, saxpy, grid, block, 0, args, 4), EK_ERROR_INVALID_ARGUMENT,
           "another context");
  values[2] = tensor_value(tx);
  values[3] = tensor_value(ty);
  EK_FAILS(ek_kernel_launch_auto(foreign, saxpy, 1024, 0, values, 4, nullptr),
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
  EK_OK(ek_kernel_launch(nullptr, k, grid, block, count * sizeof(float), args, 2));
  std::vector<float> sums = ektest::to_host<float>(t);
  EXPECT_EQ(sums[0], static_cast<float>(count));
  EXPECT_EQ(sums[1], static_cast<float>(count));
}

// ---------------------------------------------------------------- CUDA: typed arguments

TEST_P(LaunchTest, TypedValuesLaunch) {
  CUDA_ONLY();
  values[2] = tensor_value(tx);
  values[3] = tensor_value(ty);
  EK_OK(launch_values(values));
  const int count = 1024;
  ek_kernel_value as_bytes[4] = {bytes_value(&count, sizeof count), values[1], values[2],
                                 values[3]};
  EK_OK(launch_values(as_bytes));
  std::vector<float> y = ektest::to_host<float>(ty);
  EXPECT_EQ(y[0], 4.0f);  // y = 2x + y, twice, from 0
  EXPECT_EQ(y[1023], 4.0f);
}

TEST_P(LaunchTest, TypedValuesAreChecked) {
  CUDA_ONLY();
  values[2] = tensor_value(tx);
  values[3] = tensor_value(ty);
  ek_kernel_value v[4];
  auto with = [&](int i, ek_kernel_value x) {
    std::copy(values, values + 4, v);
    v[i] = x;
    return launch_values(v);
  };
  EK_FAILS(with(1, tensor_value(nullptr)), EK_ERROR_NULL_POINTER, "args[1].tensor is NULL");
  ek_kernel_value kind = values[0];
  kind.kind = static_cast<ek_kernel_value_kind>(7);
  EK_FAILS(with(0, kind), EK_ERROR_INVALID_ARGUMENT, "args[0].kind is 7");
  ek_kernel_value stray = tensor_value(tx);
  stray.dtype = EK_FLOAT32;
  EK_FAILS(with(2, stray), EK_ERROR_INVALID_ARGUMENT, "args[2] (kind 0) has a nonzero field");
  ek_kernel_value stray_size = values[1];
  stray_size.size = 4;
  EK_FAILS(with(1, stray_size), EK_ERROR_INVALID_ARGUMENT, "args[1] (kind 1) has a nonzero");
  EK_FAILS(with(0, bytes_value(nullptr, 4)), EK_ERROR_NULL_POINTER,
           "args[0].bytes is NULL and its size is 4");
  EK_FAILS(with(0, scalar_value(EK_INT32, ek_scalar_int(int64_t{1} << 40))),
           EK_ERROR_INVALID_ARGUMENT, "args[0].scalar as int32: value");
  EK_FAILS(with(1, scalar_value(EK_FLOAT64, ek_scalar_float(2.0))), EK_ERROR_INVALID_ARGUMENT,
           "args[1].size is 8; parameter 1 of kernel saxpy takes 4 bytes");
  EK_FAILS(with(1, scalar_value(static_cast<ek_dtype>(42), ek_scalar_float(2.0))),
           EK_ERROR_DTYPE, "args[1].dtype 42");
  ek_scalar bad = ek_scalar_int(0);
  bad.reserved_ = 1;
  EK_FAILS(with(0, scalar_value(EK_INT32, bad)), EK_ERROR_INVALID_ARGUMENT, "args[0].scalar");
  EK_FAILS(launch_values(nullptr), EK_ERROR_NULL_POINTER, "args is NULL");
  EK_FAILS(launch_values(values, 3), EK_ERROR_INVALID_ARGUMENT, "takes 4 arguments");
  ek_context cpu_ctx = nullptr;
  EK_OK(ek_context_create(ek_device{EK_CPU, 0}, nullptr, &cpu_ctx));
  Tensor host(ektest::make(cpu_ctx, {4}, EK_FLOAT32, {0, 0, 0, 0}));
  EK_FAILS(with(3, tensor_value(host)), EK_ERROR_INVALID_ARGUMENT,
           "args[3].tensor lives on cpu:0; kernel saxpy runs on cuda:0");
  ek_tensor_release(host.t);
  host.t = nullptr;
  EK_OK(ek_context_destroy(cpu_ctx));
}

TEST_P(ModuleTest, TypedScalarsTakeTheirDtypesBytes) {
  CUDA_ONLY();
  Module m;
  from_source(kBits, &m);
  Kernel k;
  get_kernel(m, "bits", &k);
  Tensor out(ektest::make(ctx, {3}, EK_INT32, {0, 0, 0}));
  const unsigned one[3] = {1, 1, 1};
  ek_kernel_value args[] = {scalar_value(EK_FLOAT16, ek_scalar_float(1.0)),
                            scalar_value(EK_BOOL, ek_scalar_int(5)),
                            scalar_value(EK_INT64, ek_scalar_int(int64_t{3} << 40)),
                            tensor_value(out)};
  EK_OK(ek_kernel_launch_values(nullptr, k, one, one, 0, args, 4));
  EXPECT_EQ(ektest::to_host<int32_t>(out), (std::vector<int32_t>{0x3c00, 1, 3}));
  args[0] = scalar_value(EK_BFLOAT16, ek_scalar_float(1.0));
  EK_OK(ek_kernel_launch_values(nullptr, k, one, one, 0, args, 4));
  EXPECT_EQ(ektest::to_host<int32_t>(out)[0], 0x3f80);
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
  const float a = -3.0f;
  ek_kernel_value args[] = {scalar_value(EK_INT64, ek_scalar_int(count)),
                            scalar_value(EK_FLOAT32, ek_scalar_float(a)), tensor_value(tx),
                            tensor_value(ty)};
  uint64_t n = count;
  unsigned block = 0;
  EK_OK(ek_kernel_launch_auto(nullptr, k, n, 0, args, 4, &block));
  EXPECT_TRUE(block == 32 || block == 64 || block == 128 || block == 256 || block == 512 ||
              block == 1024) << block;
  std::vector<float> y = ektest::to_host<float>(ty);
  for (size_t i = 0; i < count; ++i) ASSERT_EQ(y[i], a * x[i]) << "element " << i;
  // The same bucket (n rounded up to a power of two) reuses the choice.
  unsigned again = 0;
  EK_OK(ek_kernel_launch_auto(nullptr, k, n, 0, args, 4, &again));
  EXPECT_EQ(again, block);
  n = count - 5;
  args[0].scalar = ek_scalar_int(static_cast<int64_t>(n));
  EK_OK(ek_kernel_launch_auto(nullptr, k, n, 0, args, 4, &again));
  EXPECT_EQ(again, block);
  EK_OK(ek_kernel_launch_auto(nullptr, k, n, 0, args, 4, nullptr));
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
  const ek_kernel_value one = scalar_value(EK_FLOAT32, ek_scalar_float(1.0));
  ek_kernel_value args[] = {scalar_value(EK_INT64, ek_scalar_int(16)), one, tensor_value(tx),
                            tensor_value(tx)};
  unsigned block = 99;
  EK_OK(ek_kernel_launch_auto(nullptr, k, 0, 0, args, 4, &block));  // n == 0: no launch
  EXPECT_EQ(block, 0u);
  EK_FAILS(ek_kernel_launch_auto(nullptr, k, 16, 0, args, 2, &block), EK_ERROR_INVALID_ARGUMENT,
           "takes 4 arguments");
  ek_kernel_value small[] = {one, args[1], args[2], args[3]};
  EK_FAILS(ek_kernel_launch_auto(nullptr, k, 16, 0, small, 4, &block), EK_ERROR_INVALID_ARGUMENT,
           "args[0].size is 4");
  EK_FAILS(ek_kernel_launch_auto(nullptr, k, 1ull << 62, 0, args, 4, &block),
           EK_ERROR_INVALID_ARGUMENT, "2^31-1 blocks");
  EK_FAILS(ek_kernel_launch_auto(nullptr, k, 16, size_t{1} << 30, args, 4, &block),
           EK_ERROR_INVALID_ARGUMENT, "shared_bytes");
  ek_kernel_value bad_kind[] = {args[0], args[1], args[2], args[3]};
  bad_kind[3].kind = static_cast<ek_kernel_value_kind>(9);
  EK_FAILS(ek_kernel_launch_auto(nullptr, k, 16, 0, bad_kind, 4, &block),
           EK_ERROR_INVALID_ARGUMENT, "args[3].kind is 9");
  EXPECT_EQ(block, 0u);
}

