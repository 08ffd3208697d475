// Devices, contexts, their configuration (explicit and from the environment)
// and their lifetime rules.
#include <cstddef>
#include <cmath>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "ek_test.hpp"

namespace {

using ektest::ScopedEnv;

// Clears every variable a context reads, so tests start from the defaults.
struct CleanEnv {
  ScopedEnv limit{"EK_MEMORY_LIMIT", nullptr}, fraction{"EK_MEMORY_FRACTION", nullptr},
      cache{"EK_KERNEL_CACHE_DIR", nullptr}, log{"EK_LOG_LEVEL", nullptr};
};

ek_memory_stats stats_of(ek_context c) {
  ek_memory_stats s = EK_MEMORY_STATS_INIT;
  EXPECT_EQ(ek_memory_get_stats(c, &s), EK_SUCCESS) << ek_last_error();
  return s;
}

ek_context_config config_of(ek_context c) {
  ek_context_config cfg = EK_CONTEXT_CONFIG_INIT;
  EXPECT_EQ(ek_context_get_config(c, &cfg), EK_SUCCESS) << ek_last_error();
  return cfg;
}

// Writes an arbitrary int into an enum field without an out-of-range enum cast.
void set_raw_log_level(ek_context_config *cfg, int value) {
  static_assert(sizeof(cfg->log_level) == sizeof(int), "enum is int-sized");
  std::memcpy(&cfg->log_level, &value, sizeof value);
}

}  // namespace

class ContextTest : public ektest::DeviceTest {
 protected:
  ek_device device() const { return ek_device{GetParam(), 0}; }
  // Creates a second context on the test's device; the test destroys it.
  ek_context make(const ek_context_config *cfg = nullptr) {
    ek_context c = nullptr;
    EXPECT_EQ(ek_context_create(device(), cfg, &c), EK_SUCCESS) << ek_last_error();
    return c;
  }
  // Expects context creation to fail naming `text`, leaving out untouched.
  void expect_create_fails(const ek_context_config *cfg, const char *text) {
    ek_context sentinel = reinterpret_cast<ek_context>(0x1);
    ek_context c = sentinel;
    EK_FAILS(ek_context_create(device(), cfg, &c), EK_ERROR_INVALID_ARGUMENT, text);
    EXPECT_EQ(c, sentinel);
    EXPECT_NE(std::string(ek_last_error()).find("ek_context_create"), std::string::npos);
  }
  uint64_t device_memory() {
    ek_device_info info = EK_DEVICE_INFO_INIT;
    EXPECT_EQ(ek_device_get_info(device(), &info), EK_SUCCESS) << ek_last_error();
    return info.total_memory;
  }
};
EK_INSTANTIATE_DEVICES(ContextTest);

// ---------------------------------------------------------------- devices

TEST(Devices, CpuCountIsOne) {
  int n = -1;
  EK_OK(ek_device_get_count(EK_CPU, &n));
  EXPECT_EQ(n, 1);
}

TEST(Devices, CudaCountIsNeverAnError) {
  int n = -1;
  EK_OK(ek_device_get_count(EK_CUDA, &n));
  EXPECT_GE(n, 0);
}

TEST(Devices, CountRejectsNullAndUnknownTypes) {
  int n = 0;
  EK_FAILS(ek_device_get_count(EK_CPU, nullptr), EK_ERROR_NULL_POINTER, "count is NULL");
  EK_FAILS(ek_device_get_count(static_cast<ek_device_type>(7), &n), EK_ERROR_INVALID_ARGUMENT,
           "unknown device type 7");
}

TEST(Devices, CpuInfoHasNameAndMemory) {
  ek_device_info info = EK_DEVICE_INFO_INIT;
  EK_OK(ek_device_get_info(ek_device{EK_CPU, 0}, &info));
  EXPECT_STRNE(info.name, "");
  EXPECT_EQ(info.type, EK_CPU);
  EXPECT_EQ(info.index, 0);
  EXPECT_GT(info.total_memory, 0u);
  EXPECT_GE(info.multiprocessors, 1);
  EXPECT_EQ(info.compute_major, 0);
}

TEST(Devices, InfoRejectsNullAndMissingCpu) {
  ek_device_info info = EK_DEVICE_INFO_INIT;
  EK_FAILS(ek_device_get_info(ek_device{EK_CPU, 0}, nullptr), EK_ERROR_NULL_POINTER,
           "info is NULL");
  EK_FAILS(ek_device_get_info(ek_device{EK_CPU, 1}, &info), EK_ERROR_NO_DEVICE,
           "CPU device index 1 does not exist");
}

TEST(Devices, CudaInfoWhenPresent) {
  int n = 0;
  EK_OK(ek_device_get_count(EK_CUDA, &n));
  if (n == 0) GTEST_SKIP() << "no CUDA device";
  for (int i = 0; i < n; ++i) {
    ek_device_info info = EK_DEVICE_INFO_INIT;
    EK_OK(ek_device_get_info(ek_device{EK_CUDA, i}, &info));
    EXPECT_STRNE(info.name, "");
    EXPECT_EQ(info.type, EK_CUDA);
    EXPECT_EQ(info.index, i);
    EXPECT_GE(info.compute_major, 3);
    EXPECT_GT(info.multiprocessors, 0);
    EXPECT_GT(info.l2_cache_size, 0u);
    EXPECT_GT(info.total_memory, 0u);
  }
}

// Without a GPU index 0 is missing; with one, the index past the count is.
TEST(Devices, MissingCudaDeviceIsNoDeviceWithClearMessage) {
  int n = 0;
  EK_OK(ek_device_get_count(EK_CUDA, &n));
  ek_device missing{EK_CUDA, n};
  ek_device_info info = EK_DEVICE_INFO_INIT;
  std::string expected = "CUDA device " + std::to_string(n) + " does not exist";
  EK_FAILS(ek_device_get_info(missing, &info), EK_ERROR_NO_DEVICE, expected);
  ek_context ctx = nullptr;
  EK_FAILS(ek_context_create(missing, nullptr, &ctx), EK_ERROR_NO_DEVICE, expected);
  EXPECT_EQ(ctx, nullptr);
  EK_FAILS(ek_context_create(ek_device{EK_CUDA, -1}, nullptr, &ctx), EK_ERROR_NO_DEVICE,
           "CUDA device -1 does not exist");
}

TEST(Devices, UnknownDeviceTypeIsInvalid) {
  ek_context ctx = nullptr;
  EK_FAILS(ek_context_create(ek_device{static_cast<ek_device_type>(5), 0}, nullptr, &ctx),
           EK_ERROR_INVALID_ARGUMENT, "unknown device type 5");
}

// ---------------------------------------------------------------- config

TEST(ContextConfig, InitMacroAndFunctionAgree) {
  ek_context_config a = EK_CONTEXT_CONFIG_INIT;
  ek_context_config b;
  std::memset(&b, 0x5a, sizeof b);
  EK_OK(ek_context_config_init(&b));
  EXPECT_EQ(a.struct_size, sizeof(ek_context_config));
  EXPECT_EQ(b.struct_size, a.struct_size);
  EXPECT_EQ(b.memory_limit, 0u);
  EXPECT_EQ(b.memory_fraction, 0.0);
  EXPECT_EQ(b.allow_tf32, 0);
  EXPECT_EQ(b.kernel_cache_dir, nullptr);
  EXPECT_EQ(b.log_level, EK_LOG_OFF);
  EK_FAILS(ek_context_config_init(nullptr), EK_ERROR_NULL_POINTER, "config is NULL");
}

TEST_P(ContextTest, DefaultsWithoutEnvironment) {
  CleanEnv env;
  ek_context c = make();
  ek_context_config cfg = config_of(c);
  EXPECT_EQ(cfg.struct_size, sizeof(ek_context_config));
  EXPECT_EQ(cfg.memory_limit, 0u);
  EXPECT_EQ(cfg.memory_fraction, 0.0);
  EXPECT_EQ(cfg.log_level, EK_LOG_OFF);
  ASSERT_NE(cfg.kernel_cache_dir, nullptr);
  EXPECT_STRNE(cfg.kernel_cache_dir, "");
  EXPECT_EQ(stats_of(c).limit_bytes, 0u);
  EK_OK(ek_context_destroy(c));
}

TEST_P(ContextTest, MemoryLimitFromEnvironmentAcceptsUnits) {
  CleanEnv env;
  const std::pair<const char *, uint64_t> cases[] = {
      {"64M", 64ull << 20}, {"1G", 1ull << 30}, {"1048576", 1048576}, {"512KiB", 512ull << 10}};
  for (const auto &[text, bytes] : cases) {
    ScopedEnv limit("EK_MEMORY_LIMIT", text);
    ek_context c = make();
    EXPECT_EQ(config_of(c).memory_limit, bytes) << text;
    EXPECT_EQ(stats_of(c).limit_bytes, bytes) << text;
    EK_OK(ek_context_destroy(c));
  }
}

TEST_P(ContextTest, MemoryFractionFromEnvironmentSetsTheLimit) {
  CleanEnv env;
  ScopedEnv fraction("EK_MEMORY_FRACTION", "0.5");
  ek_context c = make();
  EXPECT_EQ(config_of(c).memory_fraction, 0.5);
  double expected = 0.5 * static_cast<double>(device_memory());
  EXPECT_NEAR(static_cast<double>(stats_of(c).limit_bytes), expected, expected * 0.01);
  EK_OK(ek_context_destroy(c));
}

TEST_P(ContextTest, CacheDirAndLogLevelFromEnvironment) {
  CleanEnv env;
  ScopedEnv dir("EK_KERNEL_CACHE_DIR", "/tmp/ek-test-cache-env");
  ScopedEnv log("EK_LOG_LEVEL", "warn");
  ek_context c = make();
  ek_context_config cfg = config_of(c);
  EXPECT_STREQ(cfg.kernel_cache_dir, "/tmp/ek-test-cache-env");
  EXPECT_EQ(cfg.log_level, EK_LOG_WARN);
  EK_OK(ek_context_destroy(c));
}

TEST_P(ContextTest, EnvironmentIsReadOnlyAtCreation) {
  CleanEnv env;
  ek_context c = nullptr;
  {
    ScopedEnv limit("EK_MEMORY_LIMIT", "64M");
    c = make();
  }
  ScopedEnv limit("EK_MEMORY_LIMIT", "1G");
  EXPECT_EQ(config_of(c).memory_limit, 64ull << 20);
  EXPECT_EQ(stats_of(c).limit_bytes, 64ull << 20);
  EK_OK(ek_context_destroy(c));
}

TEST_P(ContextTest, ExplicitConfigWinsOverEnvironment) {
  CleanEnv env;
  ScopedEnv limit("EK_MEMORY_LIMIT", "1G");
  ScopedEnv dir("EK_KERNEL_CACHE_DIR", "/tmp/ek-from-env");
  ScopedEnv log("EK_LOG_LEVEL", "debug");
  ek_context_config cfg = EK_CONTEXT_CONFIG_INIT;
  cfg.memory_limit = 64ull << 20;
  char dir_buf[64] = "/tmp/ek-from-config";
  cfg.kernel_cache_dir = dir_buf;
  cfg.log_level = EK_LOG_ERROR;
  cfg.allow_tf32 = 1;
  ek_context c = make(&cfg);
  std::strcpy(dir_buf, "/changed");  // the context keeps its own copy
  ek_context_config got = config_of(c);
  EXPECT_EQ(got.memory_limit, 64ull << 20);
  EXPECT_EQ(stats_of(c).limit_bytes, 64ull << 20);
  EXPECT_STREQ(got.kernel_cache_dir, "/tmp/ek-from-config");
  EXPECT_EQ(got.log_level, EK_LOG_ERROR);
  EXPECT_EQ(got.allow_tf32, 1);
  EK_OK(ek_context_destroy(c));
}

TEST_P(ContextTest, ExplicitFractionSetsTheLimit) {
  CleanEnv env;
  ek_context_config cfg = EK_CONTEXT_CONFIG_INIT;
  cfg.memory_fraction = 0.25;
  ek_context c = make(&cfg);
  double expected = 0.25 * static_cast<double>(device_memory());
  EXPECT_NEAR(static_cast<double>(stats_of(c).limit_bytes), expected, expected * 0.01);
  EK_OK(ek_context_destroy(c));
}

TEST_P(ContextTest, InvalidEnvironmentValuesNameTheVariable) {
  CleanEnv env;
  const std::pair<const char *, const char *> cases[] = {
      {"EK_MEMORY_LIMIT", "lots"},     {"EK_MEMORY_LIMIT", "-5M"},
      {"EK_MEMORY_LIMIT", "64X"},      {"EK_MEMORY_LIMIT", "nan"},
      {"EK_MEMORY_LIMIT", "1e30"},     {"EK_MEMORY_FRACTION", "0"},
      {"EK_MEMORY_FRACTION", "1.5"},   {"EK_MEMORY_FRACTION", "half"},
      {"EK_MEMORY_FRACTION", "nan"},   {"EK_LOG_LEVEL", "loud"},
      {"EK_LOG_LEVEL", "9"}};
  for (const auto &[name, value] : cases) {
    SCOPED_TRACE(std::string(name) + "=" + value);
    ScopedEnv var(name, value);
    expect_create_fails(nullptr, name);
    EXPECT_NE(std::string(ek_last_error()).find(value), std::string::npos) << ek_last_error();
  }
}

TEST_P(ContextTest, InvalidConfigFieldsNameTheField) {
  CleanEnv env;
  ek_context_config cfg = EK_CONTEXT_CONFIG_INIT;
  cfg.struct_size = 0;
  expect_create_fails(&cfg, "ek_context_config.struct_size is 0");
  // Smaller than API 1.0's struct, which ended where num_threads begins.
  cfg.struct_size = offsetof(ek_context_config, num_threads) - 8;
  expect_create_fails(&cfg, ("struct_size is " + std::to_string(cfg.struct_size)).c_str());
  cfg = ek_context_config EK_CONTEXT_CONFIG_INIT;
  cfg.memory_fraction = 1.5;
  expect_create_fails(&cfg, "config->memory_fraction 1.5");
  cfg.memory_fraction = -0.5;
  expect_create_fails(&cfg, "config->memory_fraction");
  cfg.memory_fraction = std::nan("");
  expect_create_fails(&cfg, "config->memory_fraction");
  cfg = ek_context_config EK_CONTEXT_CONFIG_INIT;
  set_raw_log_level(&cfg, 9);
  expect_create_fails(&cfg, "config->log_level 9");
  set_raw_log_level(&cfg, -1);
  expect_create_fails(&cfg, "config->log_level -1");
}

TEST_P(ContextTest, FailedCreationLeaksNoHandles) {
  CleanEnv env;
  int64_t before = 0, after = 0;
  EK_OK(ek_live_handles(&before));
  ScopedEnv var("EK_MEMORY_LIMIT", "lots");
  expect_create_fails(nullptr, "EK_MEMORY_LIMIT");
  EK_OK(ek_live_handles(&after));
  EXPECT_EQ(after, before);
}

TEST_P(ContextTest, GetConfigRejectsNulls) {
  ek_context_config cfg = EK_CONTEXT_CONFIG_INIT;
  EK_FAILS(ek_context_get_config(nullptr, &cfg), EK_ERROR_NULL_POINTER, "ctx is NULL");
  EK_FAILS(ek_context_get_config(ctx, nullptr), EK_ERROR_NULL_POINTER, "config is NULL");
  EK_FAILS(ek_context_create(device(), nullptr, nullptr), EK_ERROR_NULL_POINTER, "out is NULL");
}

// ---------------------------------------------------------------- lifetime

TEST_P(ContextTest, GetDeviceReturnsTheDevice) {
  ek_device d{static_cast<ek_device_type>(9), 9};
  EK_OK(ek_context_get_device(ctx, &d));
  EXPECT_EQ(d.type, GetParam());
  EXPECT_EQ(d.index, 0);
  EK_FAILS(ek_context_get_device(nullptr, &d), EK_ERROR_NULL_POINTER, "ctx is NULL");
  EK_FAILS(ek_context_get_device(ctx, nullptr), EK_ERROR_NULL_POINTER, "device is NULL");
}

TEST_P(ContextTest, SynchronizeSucceedsAndRejectsNull) {
  EK_OK(ek_context_synchronize(ctx));
  EK_FAILS(ek_context_synchronize(nullptr), EK_ERROR_NULL_POINTER, "ctx is NULL");
}

TEST_P(ContextTest, DestroyNullIsANoOp) { EK_OK(ek_context_destroy(nullptr)); }

TEST_P(ContextTest, DestroyRefusesWhileATensorIsAlive) {
  ek_context c = make();
  ek_tensor t = nullptr;
  const int64_t shape[1] = {16};
  EK_OK(ek_tensor_empty(nullptr, c, 1, shape, EK_FLOAT32, &t));
  EK_FAILS(ek_context_destroy(c), EK_ERROR_INVALID_ARGUMENT, "still alive");
  EK_OK(ek_tensor_release(t));
  EK_OK(ek_context_destroy(c));
}

TEST_P(ContextTest, DestroyRefusesWhileAStreamOrEventIsAlive) {
  ek_context c = make();
  ek_stream s = nullptr;
  ek_event e = nullptr;
  EK_OK(ek_stream_create(c, &s));
  EK_OK(ek_event_create(c, &e));
  EK_FAILS(ek_context_destroy(c), EK_ERROR_INVALID_ARGUMENT, "2 tensors, streams or events");
  EK_OK(ek_stream_destroy(s));
  EK_FAILS(ek_context_destroy(c), EK_ERROR_INVALID_ARGUMENT, "1 tensors, streams or events");
  EK_OK(ek_event_destroy(e));
  EK_OK(ek_context_destroy(c));
}

TEST_P(ContextTest, RefusedDestroyLeavesTheContextUsable) {
  ek_context c = make();
  ek_stream s = nullptr;
  EK_OK(ek_stream_create(c, &s));
  ASSERT_EQ(ek_context_destroy(c), EK_ERROR_INVALID_ARGUMENT);
  void *p = nullptr;
  EK_OK(ek_malloc(s, c, 1024, &p));
  EK_OK(ek_free(s, c, p));
  EK_OK(ek_stream_destroy(s));
  EK_OK(ek_context_destroy(c));
}

TEST_P(ContextTest, DefaultStreamCannotBeDestroyed) {
  ek_stream s = nullptr;
  EK_OK(ek_context_get_default_stream(ctx, &s));
  ASSERT_NE(s, nullptr);
  EK_FAILS(ek_stream_destroy(s), EK_ERROR_INVALID_ARGUMENT, "default stream");
  ek_context owner = nullptr;
  EK_OK(ek_stream_get_context(s, &owner));
  EXPECT_EQ(owner, ctx);
  EK_FAILS(ek_context_get_default_stream(ctx, nullptr), EK_ERROR_NULL_POINTER, "out is NULL");
}

TEST_P(ContextTest, SeveralContextsHaveIndependentPools) {
  constexpr int kContexts = 4;
  ek_context cs[kContexts] = {};
  void *ptrs[kContexts] = {};
  for (int i = 0; i < kContexts; ++i) {
    cs[i] = make();
    ASSERT_NE(cs[i], nullptr);
    EK_OK(ek_malloc(nullptr, cs[i], 1024u * (i + 1), &ptrs[i]));
  }
  for (int i = 0; i < kContexts; ++i) {
    EXPECT_EQ(stats_of(cs[i]).allocated_bytes, 1024u * (i + 1));
    EXPECT_EQ(stats_of(cs[i]).active_blocks, 1u);
    // A pointer of one context is unknown to another.
    EXPECT_EQ(ek_free(nullptr, cs[(i + 1) % kContexts], ptrs[i]), EK_ERROR_INVALID_ARGUMENT);
  }
  EXPECT_EQ(stats_of(ctx).allocated_bytes, 0u);
  for (int i = 0; i < kContexts; ++i) {
    EK_OK(ek_free(nullptr, cs[i], ptrs[i]));
    EK_OK(ek_context_destroy(cs[i]));
  }
}

TEST_P(ContextTest, ContextsCreatedAndDestroyedRepeatedlyLeakNothing) {
  int64_t before = 0, after = 0;
  EK_OK(ek_live_handles(&before));
  for (int i = 0; i < 20; ++i) {
    ek_context c = make();
    void *p = nullptr;
    EK_OK(ek_malloc(nullptr, c, 4096, &p));
    EK_OK(ek_free(nullptr, c, p));
    EK_OK(ek_context_destroy(c));
  }
  EK_OK(ek_live_handles(&after));
  EXPECT_EQ(after, before);
}
