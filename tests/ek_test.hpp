// Shared test fixtures: the devices a run covers (EK_TEST_DEVICE=cpu|cuda|all,
// default cpu), contexts per device, and helpers that fail with ek_last_error().
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include "ek.h"

namespace ektest {

inline std::vector<ek_device_type> test_devices() {
  const char *env = std::getenv("EK_TEST_DEVICE");
  std::string want = env && *env ? env : "cpu";
  std::vector<ek_device_type> out;
  if (want == "cpu" || want == "all") out.push_back(EK_CPU);
  if (want == "cuda" || want == "all") out.push_back(EK_CUDA);
  return out;
}

inline std::string device_name(const testing::TestParamInfo<ek_device_type> &info) {
  return info.param == EK_CUDA ? "cuda" : "cpu";
}

// Skips (visibly) when CUDA is asked for but absent; EK_REQUIRE_GPU=1 makes it a failure.
inline bool cuda_available() {
  int n = 0;
  return ek_device_count(EK_CUDA, &n) == EK_SUCCESS && n > 0;
}
inline bool gpu_required() {
  const char *v = std::getenv("EK_REQUIRE_GPU");
  return v && std::strcmp(v, "1") == 0;
}

// Operation count for the stress suites (test_concurrency, test_leaks):
// EK_STRESS_OPS when set; otherwise 10^5, as the hardening issue asks, on CUDA
// and cpu_default on the CPU, which each suite states and justifies in its
// header (the CPU backend computes on the calling thread; both suites now
// afford the full 10^5 there too).
inline int64_t stress_ops(ek_device_type device, int64_t cpu_default) {
  const char *env = std::getenv("EK_STRESS_OPS");
  if (env && *env) {
    long long n = std::strtoll(env, nullptr, 10);
    if (n > 0) return n;
  }
  return device == EK_CUDA ? 100000 : cpu_default;
}

// Sets (or, with value NULL, unsets) an environment variable for a scope.
class ScopedEnv {
 public:
  ScopedEnv(const char *name, const char *value) : name_(name) {
    if (const char *old = std::getenv(name)) {
      had_ = true;
      old_ = old;
    }
    if (value) setenv(name, value, 1);
    else unsetenv(name);
  }
  ~ScopedEnv() {
    if (had_) setenv(name_.c_str(), old_.c_str(), 1);
    else unsetenv(name_.c_str());
  }
  ScopedEnv(const ScopedEnv &) = delete;
  ScopedEnv &operator=(const ScopedEnv &) = delete;

 private:
  std::string name_, old_;
  bool had_ = false;
};

// An ek_scalar of v's C++ kind: bool, signed integer (INT64), unsigned
// integer (UINT64) or floating point (FLOAT64): scalar(3), scalar(2.5).
template <typename T>
ek_scalar scalar(T v) {
  ek_scalar s{};
  if constexpr (std::is_same<T, bool>::value) {
    s.kind = EK_SCALAR_BOOL;
    s.i = v;
  } else if constexpr (std::is_floating_point<T>::value) {
    s.kind = EK_SCALAR_FLOAT64;
    s.f = static_cast<double>(v);
  } else if constexpr (std::is_signed<T>::value) {
    s.kind = EK_SCALAR_INT64;
    s.i = v;
  } else {
    s.kind = EK_SCALAR_UINT64;
    s.u = v;
  }
  return s;
}

#define EK_OK(call) ASSERT_EQ((call), EK_SUCCESS) << #call << ": " << ek_last_error()
#define EK_EXPECT_OK(call) EXPECT_EQ((call), EK_SUCCESS) << #call << ": " << ek_last_error()
// Expects a status and that the message names the function and contains text.
#define EK_FAILS(call, status, text)                                         \
  do {                                                                       \
    ASSERT_EQ((call), (status)) << #call << ": " << ek_last_error();         \
    EXPECT_NE(std::string(ek_last_error()).find(text), std::string::npos)    \
        << "message: " << ek_last_error();                                   \
  } while (0)

// A fixture parameterised by device: ctx is a fresh context on it.
class DeviceTest : public testing::TestWithParam<ek_device_type> {
 protected:
  void SetUp() override {
    if (GetParam() == EK_CUDA && !cuda_available()) {
      if (gpu_required()) FAIL() << "EK_REQUIRE_GPU=1 but no CUDA device is available";
      GTEST_SKIP() << "no CUDA device";
    }
    ek_device dev{GetParam(), 0};
    ASSERT_EQ(ek_context_create(dev, nullptr, &ctx), EK_SUCCESS) << ek_last_error();
    ASSERT_EQ(ek_memory_stats_get(ctx, &baseline), EK_SUCCESS);
    ASSERT_EQ(ek_live_handles(&handles_before), EK_SUCCESS);
  }
  void TearDown() override {
    if (!ctx) return;
    ek_memory_stats now{};
    ASSERT_EQ(ek_context_synchronize(ctx), EK_SUCCESS) << ek_last_error();
    ASSERT_EQ(ek_memory_stats_get(ctx, &now), EK_SUCCESS);
    EXPECT_EQ(now.allocated_bytes, 0u) << "the test leaked pool memory";
    EXPECT_EQ(now.active_blocks, 0u);
    EXPECT_EQ(ek_context_destroy(ctx), EK_SUCCESS) << ek_last_error();
    int64_t handles = 0;
    ek_live_handles(&handles);
    EXPECT_EQ(handles, handles_before - 1) << "the test leaked handles";
  }
  // A CPU context for references, created on demand and destroyed by the caller.
  ek_context cpu_context() {
    ek_context c = nullptr;
    EXPECT_EQ(ek_context_create(ek_device{EK_CPU, 0}, nullptr, &c), EK_SUCCESS);
    return c;
  }
  ek_context ctx = nullptr;
  ek_memory_stats baseline{};
  int64_t handles_before = 0;
};

#define EK_INSTANTIATE_DEVICES(suite) \
  INSTANTIATE_TEST_SUITE_P(Devices, suite, testing::ValuesIn(ektest::test_devices()), \
                           ektest::device_name)

// Owns a tensor handle for the duration of a test.
struct Tensor {
  ek_tensor t = nullptr;
  Tensor() = default;
  explicit Tensor(ek_tensor h) : t(h) {}
  ~Tensor() { ek_tensor_release(t); }
  Tensor(const Tensor &) = delete;
  Tensor &operator=(const Tensor &) = delete;
  ek_tensor *out() { return &t; }
  operator ek_tensor() const { return t; }
};

template <typename T>
std::vector<T> to_host(ek_tensor t) {
  ek_tensor_info info{};
  EXPECT_EQ(ek_tensor_get_info(t, &info), EK_SUCCESS);
  std::vector<T> out(static_cast<size_t>(info.numel));
  EXPECT_EQ(ek_tensor_to_host(t, out.data(), out.size() * sizeof(T), nullptr), EK_SUCCESS)
      << ek_last_error();
  return out;
}

}  // namespace ektest
