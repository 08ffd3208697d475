// Custom kernels, modules: from source (NVRTC, options, compile errors) and
// from images, the memory and disk caches, and the lifetimes of modules and
// kernels. On a CPU context every entry point refuses with
// EK_ERROR_NOT_SUPPORTED. Kernels and launches: test_kernel.cpp.
#include <string>
#include <thread>
#include <vector>

#include "file_checks.hpp"
#include "module_test.hpp"

using ektest::Tensor;

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
  ek_kernel_attributes attributes = EK_KERNEL_ATTRIBUTES_INIT;
  EK_FAILS(ek_kernel_get_attributes(nullptr, &attributes), EK_ERROR_NULL_POINTER, "k");
  const unsigned dims[3] = {1, 1, 1};
  EK_FAILS(ek_kernel_launch(nullptr, nullptr, dims, dims, 0, nullptr, 0), EK_ERROR_NULL_POINTER,
           "ek_kernel_launch: k is NULL");
  EK_FAILS(ek_kernel_launch_values(nullptr, nullptr, dims, dims, 0, nullptr, 0),
           EK_ERROR_NULL_POINTER, "ek_kernel_launch_values: k is NULL");
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
  EK_OK(ek_kernel_launch(nullptr, k, grid, block, 0, args, 4));
  std::vector<float> got = ektest::to_host<float>(ty);
  for (int i = 0; i < n; ++i) ASSERT_EQ(got[i], a * x[i] + y[i]) << "element " << i;
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
  EK_OK(ek_kernel_launch(nullptr, k, grid, block, 0, args, 1));
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
  expect_scale_runs(m, warns);
}

// Warnings through the process-wide log callback, for as long as it lives.
struct CapturedWarnings {
  std::vector<std::string> lines;
  CapturedWarnings() { EXPECT_EQ(ek_log_set_callback(record, this), EK_SUCCESS); }
  ~CapturedWarnings() { EXPECT_EQ(ek_log_set_callback(nullptr, nullptr), EK_SUCCESS); }
  static void record(ek_log_level level, const char *message, void *self) {
    if (level == EK_LOG_WARN) static_cast<CapturedWarnings *>(self)->lines.push_back(message);
  }
};

std::vector<std::string> names_in(const std::string &dir) {
  std::vector<std::string> names;
  for (const auto &e : std::filesystem::directory_iterator(dir))
    names.push_back(e.path().filename().string());
  return names;
}

// A cache directory others can write (EK_KERNEL_CACHE_DIR=/tmp/x made by
// someone else) could hold their images: it is not used, one warning says
// why, and kernels still compile, in memory only.
TEST_P(ModuleTest, WorldWritableCacheDirectoryIsWarnedAboutAndNotUsed) {
  CUDA_ONLY();
  const std::string dir = new_temp_dir();
  ASSERT_EQ(chmod(dir.c_str(), 0777), 0);
  CapturedWarnings warnings;
  Context warns;
  make_context(dir, EK_LOG_WARN, &warns.c);
  const std::string source = unique(kScale);
  Module first, second;
  ASSERT_EQ(ek_module_from_source(warns, source.c_str(), "test.cu", nullptr, 0, &first.m),
            EK_SUCCESS);
  EK_OK(ek_module_compile(first));
  EXPECT_EQ(origin(first), EK_MODULE_COMPILED);
  expect_scale_runs(first, warns);
  ASSERT_EQ(ek_module_from_source(warns, source.c_str(), "test.cu", nullptr, 0, &second.m),
            EK_SUCCESS);
  EK_OK(ek_module_compile(second));
  EXPECT_EQ(origin(second), EK_MODULE_MEMORY_CACHE);
  EXPECT_TRUE(names_in(dir).empty()) << "written into " << dir << ": " << names_in(dir)[0];
  ASSERT_EQ(warnings.lines.size(), 1u) << "one warning, not one per module";
  EXPECT_NE(warnings.lines[0].find(dir + " is writable by group or others"), std::string::npos)
      << warnings.lines[0];
  EXPECT_NE(warnings.lines[0].find("chmod go-w"), std::string::npos) << warnings.lines[0];
  chmod(dir.c_str(), 0700);
}

// FIFOs at an entry's name and at nvrtc.hint would block a plain open() for
// ever: both are rejected without waiting, and replaced by real files.
TEST_P(ModuleTest, FifosInTheCacheDirectoryDoNotBlock) {
  CUDA_ONLY();
  const std::string source = unique(kScale);
  {
    Module m;
    from_source(source, &m);
    EK_OK(ek_module_compile(m));
  }
  std::string entry;
  for (const std::string &name : names_in(cache_dir))
    if (name.size() > 4 && name.compare(name.size() - 4, 4, ".ekc") == 0) entry = name;
  ASSERT_FALSE(entry.empty()) << "no entry in " << cache_dir;
  const std::string dir = new_temp_dir();
  const std::vector<std::string> fifos = {dir + "/" + entry, dir + "/nvrtc.hint"};
  for (const std::string &fifo : fifos) ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  Context elsewhere, on_fifos;
  make_context(new_temp_dir(), EK_LOG_OFF, &elsewhere.c);
  EK_OK(ek_kernel_cache_clear(elsewhere));  // the memory cache
  make_context(dir, EK_LOG_OFF, &on_fifos.c);
  Module m;
  ASSERT_EQ(ek_module_from_source(on_fifos, source.c_str(), "test.cu", nullptr, 0, &m.m),
            EK_SUCCESS);
  ek_status status = EK_ERROR_INTERNAL;
  EXPECT_TRUE(filecheck::finishes([&] { status = ek_module_compile(m); }, fifos))
      << "compiling blocked on a FIFO";
  EK_OK(status);
  EXPECT_EQ(origin(m), EK_MODULE_COMPILED);
  expect_scale_runs(m, on_fifos);
  for (const std::string &fifo : fifos)
    EXPECT_EQ(filecheck::type_of(fifo), mode_t(S_IFREG)) << fifo << " was not replaced";
}

// ---------------------------------------------------------------- CUDA: images

TEST_P(ModuleTest, CubinImageLoadsOnItsArchitecture) {
  CUDA_ONLY();
  std::vector<char> image = file_from_env("EK_TEST_CUBIN");
  if (image.empty()) GTEST_SKIP() << "EK_TEST_CUBIN is not set (meson test sets it)";
  ek_device_info info = EK_DEVICE_INFO_INIT;
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
  EK_OK(ek_kernel_launch(nullptr, k, grid, block, 0, args, 4));
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
