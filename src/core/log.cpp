// Logging: messages filtered by a level (a context's, or the process's for
// messages about no context) go to the user's callback (ek_log_set_callback)
// or to stderr.
#include <cstdio>
#include <cstdlib>
#include <shared_mutex>
#include <strings.h>

#include "core/internal.hpp"

namespace ek {
namespace {

// Deliveries hold the lock shared while the callback runs, so replacing it
// (exclusive) waits for the calls in flight: after ek_log_set_callback
// returns, the previous callback is never called again.
std::shared_mutex g_sink_mutex;
ek_log_callback g_callback = nullptr;
void *g_user_data = nullptr;

// Set while this thread runs the callback: a message logged meanwhile (the
// callback called ek_*) goes to stderr instead of recursing, and
// ek_log_set_callback is refused (its exclusive lock would wait for the
// shared one this thread holds).
thread_local bool t_in_callback = false;

class InCallback {
 public:
  InCallback() { t_in_callback = true; }
  ~InCallback() { t_in_callback = false; }
  InCallback(const InCallback &) = delete;
  InCallback &operator=(const InCallback &) = delete;
};

const char *level_name(ek_log_level level) {
  static const char *names[] = {"off", "error", "warn", "info", "debug"};
  return names[level];
}

void deliver(ek_log_level level, const std::string &message) {
  if (!t_in_callback) {
    std::shared_lock<std::shared_mutex> lock(g_sink_mutex);
    if (g_callback) {
      InCallback guard;
      g_callback(level, message.c_str(), g_user_data);
      return;
    }
  }
  std::fprintf(stderr, "[ek %s] %s\n", level_name(level), message.c_str());
}

ek_log_level read_process_log_level() {
  ek_log_level level = EK_LOG_OFF;
  const char *v = std::getenv("EK_LOG_LEVEL");
  // An invalid value logs nothing here; ek_context_create reports it.
  if (v && *v) parse_log_level(v, &level);
  return level;
}

}  // namespace

bool parse_log_level(const char *text, ek_log_level *level) {
  for (int i = EK_LOG_OFF; i <= EK_LOG_DEBUG; ++i) {
    if (strcasecmp(text, level_name(static_cast<ek_log_level>(i))) == 0) {
      *level = static_cast<ek_log_level>(i);
      return true;
    }
  }
  return false;
}

ek_log_level process_log_level() {
  static const ek_log_level level = read_process_log_level();
  return level;
}

void log_message(ek_log_level level, ek_log_level threshold, const char *format, ...) {
  if (!log_enabled(level, threshold)) return;
  va_list args;
  va_start(args, format);
  std::string message = vformat(format, args);
  va_end(args);
  deliver(level, message);
}

}  // namespace ek

extern "C" {

EK_API ek_status ek_log_set_callback(ek_log_callback callback, void *user_data) {
  EK_API_ENTRY;
  EK_CHECK(!ek::t_in_callback, EK_ERROR_INVALID_ARGUMENT,
           "called from inside the log callback (it would wait for itself)");
  std::unique_lock<std::shared_mutex> lock(ek::g_sink_mutex);
  ek::g_callback = callback;
  ek::g_user_data = callback ? user_data : nullptr;
  return EK_SUCCESS;
}

}  // extern "C"
