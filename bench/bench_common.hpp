// Shared helpers for the libek benchmarks: status checks, order statistics,
// a tiny JSON writer and the --json argument.
#pragma once

#include <cuda_runtime.h>
#include <ek.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#define EK_CHECK(call)                                                                  \
  do {                                                                                  \
    ek_status s_ = (call);                                                              \
    if (s_ != EK_SUCCESS) {                                                             \
      std::fprintf(stderr, "%s:%d: %s -> %s: %s\n", __FILE__, __LINE__, #call,          \
                   ek_status_string(s_), ek_last_error());                              \
      std::exit(1);                                                                     \
    }                                                                                   \
  } while (0)

#define CUDA_CHECK(call)                                                                \
  do {                                                                                  \
    cudaError_t e_ = (call);                                                            \
    if (e_ != cudaSuccess) {                                                            \
      std::fprintf(stderr, "%s:%d: %s -> %s: %s\n", __FILE__, __LINE__, #call,          \
                   cudaGetErrorName(e_), cudaGetErrorString(e_));                       \
      std::exit(1);                                                                     \
    }                                                                                   \
  } while (0)

namespace bench {

// p in [0, 1]; nearest rank on the sorted samples.
inline double percentile(std::vector<double> v, double p) {
  if (v.empty()) return NAN;
  std::sort(v.begin(), v.end());
  size_t i = static_cast<size_t>(std::ceil(p * static_cast<double>(v.size())));
  i = i == 0 ? 0 : i - 1;
  return v[std::min(i, v.size() - 1)];
}
inline double median(std::vector<double> v) {
  if (v.empty()) return NAN;
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}
inline double minimum(const std::vector<double> &v) {
  return v.empty() ? NAN : *std::min_element(v.begin(), v.end());
}

// A context with one stream and two timing events, as the op benchmarks use.
struct Env {
  ek_context ctx;
  ek_stream s;
  ek_event a, b;
};

// In empty_kernel.cu (linked by the benchmarks that time device work).
extern "C" int bench_launch_sleep(void *stream, unsigned long long ns);

// Median device ms of op between events a and b on stream s, after `warmup`
// calls. With `queued`, a 50 us sleep kernel runs first, so the op is already
// enqueued when the start event fires: the time is the op's device time,
// without the host's launch latency (5-7 us on the H100 hosts). Without it,
// the time is what a lone op costs from an idle stream (launch included).
inline double device_ms(ek_stream s, ek_event a, ek_event b, const std::function<void()> &op,
                        bool queued = true, int warmup = 5, int reps = 30) {
  void *native = nullptr;
  EK_CHECK(ek_stream_get_native(s, &native));
  for (int i = 0; i < warmup; ++i) op();
  std::vector<double> ms;
  for (int i = 0; i < reps; ++i) {
    if (queued && bench_launch_sleep(native, 50000) != 0) std::exit(1);
    EK_CHECK(ek_event_record(s, a));
    op();
    EK_CHECK(ek_event_record(s, b));
    EK_CHECK(ek_event_synchronize(b));
    float t = 0;
    EK_CHECK(ek_event_get_elapsed_ms(a, b, &t));
    ms.push_back(t);
  }
  return median(ms);
}

// One JSON object with flat values, in insertion order.
struct Record {
  std::vector<std::pair<std::string, std::string>> kv;
  Record &str(const std::string &k, const std::string &v) {
    std::string q = "\"";
    for (char c : v) q += (c == '"' || c == '\\') ? std::string("\\") + c : std::string(1, c);
    kv.emplace_back(k, q + "\"");
    return *this;
  }
  Record &num(const std::string &k, double v) {
    char b[64];
    if (std::isfinite(v)) std::snprintf(b, sizeof b, "%.9g", v);
    else std::snprintf(b, sizeof b, "null");
    kv.emplace_back(k, b);
    return *this;
  }
  Record &integer(const std::string &k, long long v) {
    kv.emplace_back(k, std::to_string(v));
    return *this;
  }
  std::string json() const {
    std::string s = "{";
    for (size_t i = 0; i < kv.size(); ++i)
      s += (i ? ", \"" : "\"") + kv[i].first + "\": " + kv[i].second;
    return s + "}";
  }
};

struct Report {
  Record meta;
  std::vector<Record> rows;
  Record &add() { rows.emplace_back(); return rows.back(); }
  void write(const char *path) const {
    if (!path) return;
    FILE *f = std::fopen(path, "w");
    if (!f) { std::perror(path); std::exit(1); }
    std::fprintf(f, "{\"meta\": %s,\n \"results\": [\n", meta.json().c_str());
    for (size_t i = 0; i < rows.size(); ++i)
      std::fprintf(f, "  %s%s\n", rows[i].json().c_str(), i + 1 < rows.size() ? "," : "");
    std::fprintf(f, " ]}\n");
    if (std::fclose(f) != 0) { std::perror(path); std::exit(1); }
    std::printf("wrote %s\n", path);
  }
};

// Command line: [--json PATH] [--device cuda|cpu] [--scale N]. Exits on
// anything else. scale divides every trace size (keeps the shape) so that a
// small host can replay the trace; the default 1 replays it as on the GPU.
struct Args {
  const char *json = nullptr;
  bool cpu = false;
  size_t scale = 1;
};
inline Args parse_args(int argc, char **argv, bool device_options) {
  Args a;
  for (int i = 1; i < argc; ++i) {
    bool has_value = i + 1 < argc;
    if (!std::strcmp(argv[i], "--json") && has_value) a.json = argv[++i];
    else if (device_options && !std::strcmp(argv[i], "--device") && has_value &&
             (!std::strcmp(argv[i + 1], "cpu") || !std::strcmp(argv[i + 1], "cuda")))
      a.cpu = !std::strcmp(argv[++i], "cpu");
    else if (device_options && !std::strcmp(argv[i], "--scale") && has_value &&
             std::atoll(argv[i + 1]) > 0)
      a.scale = static_cast<size_t>(std::atoll(argv[++i]));
    else {
      std::fprintf(stderr, "usage: %s [--json PATH]%s\n", argv[0],
                   device_options ? " [--device cuda|cpu] [--scale N]" : "");
      std::exit(2);
    }
  }
  return a;
}

// Returns the PATH of "--json PATH" (NULL when absent); exits on other arguments.
inline const char *json_arg(int argc, char **argv) { return parse_args(argc, argv, false).json; }

// Name of CUDA device 0 through the ek API, and its record in the report.
inline void describe_device(Record &meta) {
  int n = 0;
  EK_CHECK(ek_device_get_count(EK_CUDA, &n));
  if (n == 0) {
    std::fprintf(stderr, "no CUDA device\n");
    std::exit(1);
  }
  ek_device_info info = EK_DEVICE_INFO_INIT;
  EK_CHECK(ek_device_get_info(ek_device{EK_CUDA, 0}, &info));
  std::printf("device: %s (sm_%d%d, %d SMs, %.1f GiB, L2 %.0f MiB), libek %u\n", info.name,
              info.compute_major, info.compute_minor, info.multiprocessors,
              info.total_memory / 1073741824.0, info.l2_cache_size / 1048576.0, ek_version());
  meta.str("device", info.name)
      .integer("sms", info.multiprocessors)
      .integer("total_memory", static_cast<long long>(info.total_memory))
      .integer("l2_cache_size", static_cast<long long>(info.l2_cache_size))
      .integer("ek_version", ek_version());
}

inline std::string human_bytes(double b) {
  const char *u[] = {"B", "KiB", "MiB", "GiB"};
  int i = 0;
  while (b >= 1024 && i < 3) { b /= 1024; ++i; }
  char s[32];
  std::snprintf(s, sizeof s, "%g %s", std::round(b * 10) / 10, u[i]);
  return s;
}

}  // namespace bench
