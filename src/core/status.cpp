// Version, status names, per-thread error messages, handle counts.
#include <cinttypes>
#include <cstdio>

#include "core/internal.hpp"

namespace {

thread_local std::string t_last_error;
thread_local const char *t_function = nullptr;
thread_local uint64_t t_failures = 0;
std::atomic<int64_t> g_live_handles{0};

}  // namespace

namespace ek {

namespace {
thread_local int t_depth = 0;
}  // namespace
int api_depth() { return t_depth; }

ApiScope::ApiScope(const char *function) : previous_(t_function) {
  t_function = function;
  ++t_depth;
}
ApiScope::~ApiScope() {
  t_function = previous_;
  --t_depth;
}

// printf into a string of any length: messages may carry a whole compiler log.
std::string vformat(const char *format, va_list args) {
  va_list copy;
  va_copy(copy, args);
  char small[512];
  int n = std::vsnprintf(small, sizeof small, format, copy);
  va_end(copy);
  if (n < 0) return format;
  if (static_cast<size_t>(n) < sizeof small) return std::string(small, static_cast<size_t>(n));
  std::string text(static_cast<size_t>(n) + 1, '\0');
  std::vsnprintf(&text[0], text.size(), format, args);
  text.resize(static_cast<size_t>(n));
  return text;
}

uint64_t thread_failure_count() { return t_failures; }

ek_status fail(ek_status status, const char *format, ...) {
  ++t_failures;
  va_list args;
  va_start(args, format);
  std::string message = vformat(format, args);
  va_end(args);
  t_last_error = std::string(t_function ? t_function : "ek") + ": " + message;
  return status;
}

std::string last_error_message() { return t_last_error; }
void restore_last_error(std::string message) { t_last_error = std::move(message); }

std::string format_shape(int ndim, const int64_t *shape) {
  std::string text = "[";
  for (int i = 0; i < ndim; ++i) {
    if (i) text += ",";
    text += std::to_string(shape[i]);
  }
  return text + "]";
}

void handle_created() { g_live_handles.fetch_add(1, std::memory_order_relaxed); }
void handle_destroyed() { g_live_handles.fetch_sub(1, std::memory_order_relaxed); }

}  // namespace ek

extern "C" {

EK_API unsigned ek_version(void) { return EK_VERSION_NUMBER; }

EK_API const char *ek_version_string(void) { return EK_VERSION_STRING; }

EK_API const char *ek_status_string(ek_status status) {
  switch (status) {
#define EK_STATUS_NAME_(name, value, text) \
  case name:                               \
    return #name;
    EK_STATUS_LIST(EK_STATUS_NAME_)
#undef EK_STATUS_NAME_
  }
  return "EK_UNKNOWN_STATUS";
}

EK_API const char *ek_status_description(ek_status status) {
  switch (status) {
#define EK_STATUS_TEXT_(name, value, text) \
  case name:                               \
    return text;
    EK_STATUS_LIST(EK_STATUS_TEXT_)
#undef EK_STATUS_TEXT_
  }
  return "unknown status";
}

EK_API const char *ek_last_error(void) { return t_last_error.c_str(); }

EK_API void ek_clear_error(void) { t_last_error.clear(); }

EK_API ek_status ek_live_handles(int64_t *count) {
  EK_API_ENTRY;
  EK_CHECK_NULL(count);
  *count = g_live_handles.load(std::memory_order_relaxed);
  return EK_SUCCESS;
}

}  // extern "C"
