// Reports over a profiling session: the summary table and the Chrome trace.
#include <algorithm>
#include <cerrno>
#include <cinttypes>
#include <cstdio>
#include <map>
#include <set>
#include <utility>

#include <unistd.h>

#include "profiler.hpp"

namespace ek {
namespace {

struct OpTotals {
  uint64_t calls = 0;
  double device_us = 0;
  double host_us = 0;
};

std::string format_row(const char *format, ...) __attribute__((format(printf, 1, 2)));
std::string format_row(const char *format, ...) {
  char line[256];
  va_list args;
  va_start(args, format);
  std::vsnprintf(line, sizeof line, format, args);
  va_end(args);
  return line;
}

std::vector<std::pair<std::string, OpTotals>> totals_by_name(
    const std::vector<ek_profile_record> &records) {
  std::map<std::string, OpTotals> by_name;
  for (const ek_profile_record &r : records) {
    OpTotals &t = by_name[r.name];
    ++t.calls;
    t.device_us += std::max(r.device_us, 0.0);
    t.host_us += r.host_us;
  }
  std::vector<std::pair<std::string, OpTotals>> rows(by_name.begin(), by_name.end());
  std::stable_sort(rows.begin(), rows.end(), [](const auto &a, const auto &b) {
    return a.second.device_us > b.second.device_us;
  });
  return rows;
}

// JSON string contents: names can come from user kernels.
std::string json_escape(const char *text) {
  std::string out;
  for (const char *p = text; *p; ++p) {
    unsigned char c = static_cast<unsigned char>(*p);
    if (c == '"' || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c < 0x20) {
      char code[8];
      std::snprintf(code, sizeof code, "\\u%04x", c);
      out += code;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out;
}

constexpr int kHostPid = 1;
constexpr int kDevicePid = 2;

void write_track_names(std::FILE *f, const std::vector<ek_profile_record> &records) {
  std::string device = "device";
  if (!records.empty())
    device = std::string(records[0].device.type == EK_CUDA ? "cuda:" : "cpu:") +
             std::to_string(records[0].device.index);
  std::fprintf(f, "{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":%d,\"args\":{\"name\":\"host\"}},\n",
               kHostPid);
  std::fprintf(f, "{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":%d,\"args\":{\"name\":\"%s\"}},\n",
               kDevicePid, device.c_str());
  std::set<uint64_t> threads, streams;
  for (const ek_profile_record &r : records) {
    threads.insert(r.thread_id);
    streams.insert(r.stream_id);
  }
  for (uint64_t t : threads)
    std::fprintf(f,
                 "{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":%d,\"tid\":%" PRIu64
                 ",\"args\":{\"name\":\"thread %" PRIu64 "\"}},\n",
                 kHostPid, t, t);
  for (uint64_t s : streams)
    std::fprintf(f,
                 "{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":%d,\"tid\":%" PRIu64
                 ",\"args\":{\"name\":\"stream %" PRIu64 "\"}},\n",
                 kDevicePid, s, s);
}

// The call on its thread, its work on its stream, and an arrow between them.
void write_record(std::FILE *f, const ek_profile_record &r, size_t id) {
  std::string name = json_escape(r.name), args = json_escape(r.args);
  std::fprintf(f,
               "{\"name\":\"%s\",\"cat\":\"call\",\"ph\":\"X\",\"pid\":%d,\"tid\":%" PRIu64
               ",\"ts\":%.3f,\"dur\":%.3f,\"args\":{\"tensors\":\"%s\",\"stream\":%" PRIu64 "}},\n",
               name.c_str(), kHostPid, r.thread_id, r.host_start_us, r.host_us, args.c_str(),
               r.stream_id);
  if (r.device_us < 0) return;
  std::fprintf(f,
               "{\"name\":\"%s\",\"cat\":\"device\",\"ph\":\"X\",\"pid\":%d,\"tid\":%" PRIu64
               ",\"ts\":%.3f,\"dur\":%.3f,\"args\":{\"tensors\":\"%s\"}},\n",
               name.c_str(), kDevicePid, r.stream_id, r.device_start_us, r.device_us,
               args.c_str());
  std::fprintf(f,
               "{\"name\":\"launch\",\"cat\":\"flow\",\"ph\":\"s\",\"id\":%zu,\"pid\":%d,\"tid\":%" PRIu64
               ",\"ts\":%.3f},\n",
               id, kHostPid, r.thread_id, r.host_start_us);
  std::fprintf(f,
               "{\"name\":\"launch\",\"cat\":\"flow\",\"ph\":\"f\",\"bp\":\"e\",\"id\":%zu,\"pid\":%d,"
               "\"tid\":%" PRIu64 ",\"ts\":%.3f},\n",
               id, kDevicePid, r.stream_id, r.device_start_us);
}

}  // namespace

std::string profile_summary(const std::vector<ek_profile_record> &records, uint64_t dropped) {
  auto rows = totals_by_name(records);
  double device_total = 0;
  for (const auto &row : rows) device_total += row.second.device_us;
  const char *header = "%-28s %8s %12s %14s %7s %11s %12s\n";
  const char *line = "%-28s %8" PRIu64 " %12.3f %14.3f %6.1f%% %11.3f %12.3f\n";
  std::string text = format_row(header, "op", "calls", "device ms", "device mean us", "share",
                                "host ms", "host mean us");
  for (const auto &[name, t] : rows)
    text += format_row(line, name.c_str(), t.calls, t.device_us / 1e3, t.device_us / t.calls,
                       device_total > 0 ? 100.0 * t.device_us / device_total : 0.0,
                       t.host_us / 1e3, t.host_us / t.calls);
  text += format_row("%zu calls recorded", records.size());
  if (dropped)
    text += format_row(", %" PRIu64 " more not recorded (over %d)", dropped,
                       EK_PROFILER_MAX_RECORDS);
  return text + "\n";
}

ek_status write_chrome_trace(const std::vector<ek_profile_record> &records, const char *path) {
  std::string temp = std::string(path) + ".tmp." + std::to_string(getpid());
  std::FILE *f = std::fopen(temp.c_str(), "w");
  EK_CHECK(f, EK_ERROR_IO, "cannot write %s: %s", temp.c_str(), std::strerror(errno));
  std::fprintf(f, "{\"displayTimeUnit\":\"ms\",\"traceEvents\":[\n");
  write_track_names(f, records);
  for (size_t i = 0; i < records.size(); ++i) write_record(f, records[i], i + 1);
  // A closing metadata event spares tracking which record was last.
  std::fprintf(f, "{\"name\":\"libek\",\"ph\":\"M\",\"pid\":%d,\"args\":{\"calls\":%zu}}\n]}\n",
               kHostPid, records.size());
  bool written = std::ferror(f) == 0;
  int saved_errno = errno;
  written = std::fclose(f) == 0 && written;
  if (!written || std::rename(temp.c_str(), path) != 0) {
    if (written) saved_errno = errno;
    std::remove(temp.c_str());
    return fail(EK_ERROR_IO, "cannot write %s: %s", path, std::strerror(saved_errno));
  }
  return EK_SUCCESS;
}

}  // namespace ek
