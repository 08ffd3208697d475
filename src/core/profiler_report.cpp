// Reports over a profiling session: the summary table and the Chrome trace.
#include <algorithm>
#include <cinttypes>
#include <cstdio>
#include <map>
#include <set>
#include <utility>

#include "core/profiler.hpp"

namespace ek {
namespace {

struct OpTotals {
  uint64_t calls = 0;
  double device_us = 0;
  double host_us = 0;
};

void appendf(std::string *out, const char *format, ...) __attribute__((format(printf, 2, 3)));
void appendf(std::string *out, const char *format, ...) {
  va_list args;
  va_start(args, format);
  *out += vformat(format, args);
  va_end(args);
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

constexpr int kHostPid = 1;
constexpr int kDevicePid = 2;

void write_track_names(std::string *f, const std::vector<ek_profile_record> &records) {
  std::string device = "device";
  if (!records.empty())
    device = std::string(records[0].device.type == EK_CUDA ? "cuda:" : "cpu:") +
             std::to_string(records[0].device.index);
  appendf(f, "{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":%d,\"args\":{\"name\":\"host\"}},\n",
          kHostPid);
  appendf(f, "{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":%d,\"args\":{\"name\":\"%s\"}},\n",
          kDevicePid, device.c_str());
  std::set<uint64_t> threads, streams;
  for (const ek_profile_record &r : records) {
    threads.insert(r.thread_id);
    streams.insert(r.stream_id);
  }
  for (uint64_t t : threads)
    appendf(f,
            "{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":%d,\"tid\":%" PRIu64
            ",\"args\":{\"name\":\"thread %" PRIu64 "\"}},\n",
            kHostPid, t, t);
  for (uint64_t s : streams)
    appendf(f,
            "{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":%d,\"tid\":%" PRIu64
            ",\"args\":{\"name\":\"stream %" PRIu64 "\"}},\n",
            kDevicePid, s, s);
}

std::string json_string(const char *text) {
  std::string out;
  append_json_string(out, text);
  return out;
}

// The call on its thread, its work on its stream, and an arrow between them.
void write_record(std::string *f, const ek_profile_record &r, size_t id) {
  std::string name = json_string(r.name), args = json_string(r.args);
  appendf(f,
          "{\"name\":%s,\"cat\":\"call\",\"ph\":\"X\",\"pid\":%d,\"tid\":%" PRIu64
          ",\"ts\":%.3f,\"dur\":%.3f,\"args\":{\"tensors\":%s,\"stream\":%" PRIu64 "}},\n",
          name.c_str(), kHostPid, r.thread_id, r.host_start_us, r.host_us, args.c_str(),
          r.stream_id);
  if (r.device_us < 0) return;
  appendf(f,
          "{\"name\":%s,\"cat\":\"device\",\"ph\":\"X\",\"pid\":%d,\"tid\":%" PRIu64
          ",\"ts\":%.3f,\"dur\":%.3f,\"args\":{\"tensors\":%s}},\n",
          name.c_str(), kDevicePid, r.stream_id, r.device_start_us, r.device_us, args.c_str());
  appendf(f,
          "{\"name\":\"launch\",\"cat\":\"flow\",\"ph\":\"s\",\"id\":%zu,\"pid\":%d,"
          "\"tid\":%" PRIu64 ",\"ts\":%.3f},\n",
          id, kHostPid, r.thread_id, r.host_start_us);
  appendf(f,
          "{\"name\":\"launch\",\"cat\":\"flow\",\"ph\":\"f\",\"bp\":\"e\",\"id\":%zu,"
          "\"pid\":%d,\"tid\":%" PRIu64 ",\"ts\":%.3f},\n",
          id, kDevicePid, r.stream_id, r.device_start_us);
}

}  // namespace

std::string profile_summary(const std::vector<ek_profile_record> &records, uint64_t dropped) {
  auto rows = totals_by_name(records);
  double device_total = 0;
  for (const auto &row : rows) device_total += row.second.device_us;
  const char *header = "%-28s %8s %12s %14s %7s %11s %12s\n";
  const char *line = "%-28s %8" PRIu64 " %12.3f %14.3f %6.1f%% %11.3f %12.3f\n";
  std::string text;
  appendf(&text, header, "op", "calls", "device ms", "device mean us", "share", "host ms",
          "host mean us");
  for (const auto &[name, t] : rows)
    appendf(&text, line, name.c_str(), t.calls, t.device_us / 1e3, t.device_us / t.calls,
            device_total > 0 ? 100.0 * t.device_us / device_total : 0.0, t.host_us / 1e3,
            t.host_us / t.calls);
  appendf(&text, "%zu calls recorded", records.size());
  if (dropped)
    appendf(&text, ", %" PRIu64 " more not recorded (over %d)", dropped, EK_PROFILER_MAX_RECORDS);
  return text + "\n";
}

ek_status write_chrome_trace(const std::vector<ek_profile_record> &records, const char *path) {
  std::string json = "{\"displayTimeUnit\":\"ms\",\"traceEvents\":[\n";
  write_track_names(&json, records);
  for (size_t i = 0; i < records.size(); ++i) write_record(&json, records[i], i + 1);
  // A closing metadata event spares tracking which record was last.
  appendf(&json, "{\"name\":\"libek\",\"ph\":\"M\",\"pid\":%d,\"args\":{\"calls\":%zu}}\n]}\n",
          kHostPid, records.size());
  return write_file_replacing(path, json);
}

}  // namespace ek
