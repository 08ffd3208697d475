// Version, status names, the per-thread error message and handle accounting.
#include <string>
#include <thread>

#include "ek_test.hpp"

TEST(Version, MacrosMatchTheLoadedLibrary) {
  EXPECT_EQ(ek_version(), static_cast<unsigned>(EK_VERSION_NUMBER));
  EXPECT_EQ(EK_VERSION_NUMBER, EK_VERSION_MAJOR * 10000 + EK_VERSION_MINOR * 100 + EK_VERSION_PATCH);
}

TEST(Version, StringIsTheNumberSpelledOut) {
  const unsigned v = ek_version();
  const std::string spelled = std::to_string(v / 10000) + "." + std::to_string(v / 100 % 100) + "." +
                              std::to_string(v % 100);
  ASSERT_NE(ek_version_string(), nullptr);
  EXPECT_EQ(std::string(ek_version_string()), spelled);
  EXPECT_STREQ(ek_version_string(), EK_VERSION_STRING);
}

TEST(Status, EveryCodeHasANameAndDescription) {
  EXPECT_STREQ(ek_status_string(EK_SUCCESS), "EK_SUCCESS");
  EXPECT_STREQ(ek_status_string(EK_ERROR_OUT_OF_MEMORY), "EK_ERROR_OUT_OF_MEMORY");
  EXPECT_STREQ(ek_status_description(EK_ERROR_SHAPE), "shape mismatch");
  EXPECT_STREQ(ek_status_string(static_cast<ek_status>(999)), "EK_UNKNOWN_STATUS");
  EXPECT_STREQ(ek_status_description(static_cast<ek_status>(-1)), "unknown status");
}

TEST(LastError, NamesTheFunctionAndTheValues) {
  ek_context ctx = nullptr;
  ASSERT_EQ(ek_context_create(ek_device{EK_CPU, 3}, nullptr, &ctx), EK_ERROR_NO_DEVICE);
  EXPECT_STREQ(ek_last_error(), "ek_context_create: CPU device index 3 does not exist (only 0)");
  EXPECT_EQ(ctx, nullptr);
}

TEST(LastError, IsNeverNullAndCanBeCleared) {
  ek_clear_error();
  ASSERT_NE(ek_last_error(), nullptr);
  EXPECT_STREQ(ek_last_error(), "");
  ek_device_get_count(EK_CPU, nullptr);
  EXPECT_STREQ(ek_last_error(), "ek_device_get_count: count is NULL");
}

TEST(LastError, IsPerThread) {
  ek_device_get_count(static_cast<ek_device_type>(7), nullptr);
  std::string other;
  std::thread([&] {
    ek_dtype_size(EK_FLOAT32);
    other = ek_last_error();
  }).join();
  EXPECT_EQ(other, "");
  EXPECT_STREQ(ek_last_error(), "ek_device_get_count: count is NULL");
}

TEST(Dtypes, SizesAndNames) {
  const size_t sizes[] = {1, 1, 1, 2, 4, 8, 2, 2, 4, 8, 2, 4, 8, 8, 16};
  const char *names[] = {"bool",    "uint8",    "int8",    "int16",   "int32",
                         "int64",   "float16",  "bfloat16", "float32", "float64",
                         "uint16",  "uint32",   "uint64",  "complex64", "complex128"};
  static_assert(sizeof sizes / sizeof sizes[0] == EK_NUM_DTYPES, "a size per dtype");
  for (int d = 0; d < EK_NUM_DTYPES; ++d) {
    EXPECT_EQ(ek_dtype_size(static_cast<ek_dtype>(d)), sizes[d]);
    EXPECT_STREQ(ek_dtype_name(static_cast<ek_dtype>(d)), names[d]);
  }
  EXPECT_EQ(ek_dtype_size(static_cast<ek_dtype>(EK_NUM_DTYPES)), 0u);
  EXPECT_STREQ(ek_dtype_name(static_cast<ek_dtype>(-1)), "unknown");
}

TEST(LiveHandles, CountsContextsAndTensors) {
  int64_t before = 0, during = 0, after = 0;
  EK_OK(ek_live_handles(&before));
  ek_context ctx = nullptr;
  EK_OK(ek_context_create(ek_device{EK_CPU, 0}, nullptr, &ctx));
  ek_tensor t = nullptr;
  int64_t shape[1] = {4};
  EK_OK(ek_tensor_empty(nullptr, ctx, 1, shape, EK_FLOAT32, &t));
  EK_OK(ek_live_handles(&during));
  EXPECT_EQ(during, before + 2);
  EK_OK(ek_tensor_release(t));
  EK_OK(ek_context_destroy(ctx));
  EK_OK(ek_live_handles(&after));
  EXPECT_EQ(after, before);
  EK_FAILS(ek_live_handles(nullptr), EK_ERROR_NULL_POINTER, "ek_live_handles: count is NULL");
}
