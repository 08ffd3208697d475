// bench_alloc: libek's caching pool (ek_malloc / ek_free) against cudaMallocAsync
// and cudaMalloc, on CUDA device 0.
//   (a) alloc+free pair latency of a cached size, 512 B .. 512 MiB
//   (b) 1..16 threads, each on its own stream: aggregate pairs/s
//   (c) replay of a deterministic training-like trace over 4 streams
// Usage: bench_alloc [--json PATH] [--device cuda|cpu] [--scale N]
//   --device cpu: only (c), for ek on a CPU context (no GPU needed; the pool's
//   placement is the same, CPU streams just never wait). --scale N divides
//   every trace size by N for hosts with less memory than the trace reserves.
#include "bench_common.hpp"

#include <atomic>
#include <chrono>
#include <cstdint>
#include <thread>

using bench::Record;
using Clock = std::chrono::steady_clock;

namespace {

double seconds_since(Clock::time_point t0) {
  return std::chrono::duration<double>(Clock::now() - t0).count();
}

// ------------------------------------------------------------ allocators
// One interface over the three allocators, so every part runs them alike.
struct Allocator {
  virtual ~Allocator() = default;
  virtual void *alloc(size_t bytes, int stream) = 0;
  virtual void free(void *p, int stream) = 0;
  virtual void sync() = 0;  // waits for every stream
};

struct EkAlloc final : Allocator {
  ek_context ctx = nullptr;
  std::vector<ek_stream> streams;
  EkAlloc(ek_context c, int nstreams) : ctx(c), streams(nstreams) {
    for (auto &s : streams) EK_CHECK(ek_stream_create(ctx, &s));
  }
  ~EkAlloc() override {
    for (auto s : streams) EK_CHECK(ek_stream_destroy(s));
  }
  void *alloc(size_t bytes, int s) override {
    void *p = nullptr;
    EK_CHECK(ek_malloc(streams[s], ctx, bytes, &p));
    return p;
  }
  void free(void *p, int s) override { EK_CHECK(ek_free(streams[s], ctx, p)); }
  void sync() override {
    for (auto s : streams) EK_CHECK(ek_stream_synchronize(s));
  }
};

struct AsyncAlloc final : Allocator {  // cudaMallocAsync on the device's default pool
  std::vector<cudaStream_t> streams;
  explicit AsyncAlloc(int nstreams) : streams(nstreams) {
    for (auto &s : streams) CUDA_CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  }
  ~AsyncAlloc() override {
    for (auto s : streams) CUDA_CHECK(cudaStreamDestroy(s));
  }
  void *alloc(size_t bytes, int s) override {
    void *p = nullptr;
    CUDA_CHECK(cudaMallocAsync(&p, bytes, streams[s]));
    return p;
  }
  void free(void *p, int s) override { CUDA_CHECK(cudaFreeAsync(p, streams[s])); }
  void sync() override {
    for (auto s : streams) CUDA_CHECK(cudaStreamSynchronize(s));
  }
};

struct PlainAlloc final : Allocator {  // cudaMalloc / cudaFree (synchronous)
  void *alloc(size_t bytes, int) override {
    void *p = nullptr;
    CUDA_CHECK(cudaMalloc(&p, bytes));
    return p;
  }
  void free(void *p, int) override { CUDA_CHECK(cudaFree(p)); }
  void sync() override { CUDA_CHECK(cudaDeviceSynchronize()); }
};

cudaMemPool_t default_pool() {
  cudaMemPool_t pool;
  CUDA_CHECK(cudaDeviceGetDefaultMemPool(&pool, 0));
  return pool;
}
void set_release_threshold(uint64_t bytes) {
  CUDA_CHECK(cudaMemPoolSetAttribute(default_pool(), cudaMemPoolAttrReleaseThreshold, &bytes));
}
void trim_async_pool() {
  CUDA_CHECK(cudaDeviceSynchronize());
  CUDA_CHECK(cudaMemPoolTrimTo(default_pool(), 0));
}

// ------------------------------------------------------------ (a) latency
// Per-pair time of each batch (seconds); the stream is synchronized at the end
// of each batch inside the timed region (that is when a pool with release
// threshold 0 hands memory back).
std::vector<double> pair_latency(Allocator &a, size_t bytes, int warmup, int batches, int batch) {
  for (int i = 0; i < warmup; ++i) a.free(a.alloc(bytes, 0), 0);
  a.sync();
  std::vector<double> per_pair;
  for (int b = 0; b < batches; ++b) {
    auto t0 = Clock::now();
    for (int i = 0; i < batch; ++i) a.free(a.alloc(bytes, 0), 0);
    a.sync();
    per_pair.push_back(seconds_since(t0) / batch);
  }
  return per_pair;
}

// ------------------------------------------------------------ (b) threads
// Each thread does `pairs` alloc/free pairs on its own stream, sizes cycling
// through 512 B, 64 KiB, 1 MiB. Returns aggregate pairs/s.
double threaded_rate(Allocator &a, int threads, int pairs) {
  const size_t sizes[] = {512, 64 << 10, 1 << 20};
  std::atomic<int> ready{0};
  std::atomic<bool> go{false};
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t)
    pool.emplace_back([&, t] {
      for (int i = 0; i < 300; ++i) a.free(a.alloc(sizes[i % 3], t), t);  // warm-up
      ready.fetch_add(1);
      while (!go.load(std::memory_order_acquire)) std::this_thread::yield();
      for (int i = 0; i < pairs; ++i) a.free(a.alloc(sizes[i % 3], t), t);
    });
  while (ready.load() < threads) std::this_thread::yield();
  auto t0 = Clock::now();
  go.store(true, std::memory_order_release);
  for (auto &th : pool) th.join();
  double s = seconds_since(t0);
  a.sync();
  return static_cast<double>(threads) * pairs / s;
}

// ------------------------------------------------------------ (c) trace
struct Op {
  uint32_t id;
  uint8_t stream;
  bool alloc;
  size_t bytes;
};

struct Rng {  // splitmix64: the same trace on every platform
  uint64_t s;
  uint64_t next() {
    uint64_t z = (s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  int64_t range(int64_t lo, int64_t hi) { return lo + static_cast<int64_t>(next() % uint64_t(hi - lo + 1)); }
  double unit() { return (next() >> 11) * 0x1.0p-53; }
};

struct Trace {
  std::vector<Op> ops;
  uint32_t ids = 0;
  size_t allocs = 0;
};

// A GPT-like model (16 layers, hidden 1024, batch 4, vocab 50304) trained with
// a sequence length drawn per step from [128, 4096]. Streams: 0 compute,
// 1 gradient buckets, 2 input data, 3 optimizer temporaries.
// Peak live memory is about 14 GiB at seq 4096.
Trace make_trace(int steps, uint64_t seed, size_t scale) {
  const size_t L = 16, H = 1024, B = 4, V = 50304, heads = 16;
  Rng r{seed};
  Trace t;
  std::vector<uint8_t> stream_of;
  auto A = [&](size_t bytes, int s) {
    uint32_t id = t.ids++;
    stream_of.push_back(static_cast<uint8_t>(s));
    t.ops.push_back({id, static_cast<uint8_t>(s), true, std::max<size_t>(1, bytes / scale)});
    ++t.allocs;
    return id;
  };
  auto F = [&](uint32_t id) { t.ops.push_back({id, stream_of[id], false, 0}); };
  auto free_reverse = [&](std::vector<uint32_t> &v) {
    for (auto it = v.rbegin(); it != v.rend(); ++it) F(*it);
    v.clear();
  };

  std::vector<uint32_t> persistent;
  // Weights (bf16) and small parameters, allocated once.
  persistent.push_back(A(V * H * 2, 0));  // embedding
  for (size_t l = 0; l < L; ++l)
    for (size_t b : {3 * H * H * 2, 3 * H * 2, H * H * 2, H * 2, 4 * H * H * 2, 4 * H * 2,
                     4 * H * H * 2, H * 2, H * 2 * 2, H * 2 * 2})
      persistent.push_back(A(b, 0));

  struct Kept { uint32_t id; int until; };
  std::vector<Kept> kept;  // buffers that outlive their step (metrics, caches)

  for (int step = 0; step < steps; ++step) {
    for (size_t i = 0; i < kept.size();)
      if (kept[i].until <= step) { F(kept[i].id); kept[i] = kept.back(); kept.pop_back(); }
      else ++i;
    const size_t seq = static_cast<size_t>(r.range(128, 4096)), tok = B * seq;
    const size_t a = tok * H * 2;  // one bf16 activation [tokens, hidden]
    std::vector<uint32_t> data, act, tmp, grads, opt;

    data.push_back(A(tok * 8, 2));  // input ids
    data.push_back(A(tok * 8, 2));  // labels
    act.push_back(A(a, 0));         // embedding output
    for (size_t l = 0; l < L; ++l)  // forward: saved activations
      for (size_t b : {a, tok * 8, 3 * a, a, B * heads * seq * 4, a, a, tok * 8, 4 * a, 4 * a,
                       a, a / 2, a / 2})
        act.push_back(A(b, 0));
    for (size_t c = 0; c < tok; c += 1024) {  // chunked logits and their gradient
      size_t n = std::min<size_t>(1024, tok - c);
      uint32_t logits = A(n * V * 2, 0), dlogits = A(n * V * 2, 0);
      F(logits);
      tmp.push_back(dlogits);
      if (tmp.size() > 1) { F(tmp.front()); tmp.erase(tmp.begin()); }
    }
    free_reverse(tmp);
    for (size_t l = L; l-- > 0;) {  // backward: temporaries, freed layer by layer
      for (size_t b : {a, 4 * a, 4 * a, a, 3 * a, a}) tmp.push_back(A(b, 0));
      if (l % 2 == 0) grads.push_back(A(2 * 12 * H * H * 4, 1));  // fp32 grad bucket, 2 layers
      free_reverse(tmp);
      for (int k = 0; k < 13; ++k) { F(act.back()); act.pop_back(); }
    }
    free_reverse(act);                      // embedding output
    grads.push_back(A(V * H * 4, 1));       // embedding gradient (fp32, 196 MiB)
    if (step == 0)                          // optimizer state, created after the first backward
      for (int k = 0; k < 3; ++k) {
        persistent.push_back(A(V * H * 4, 3));
        for (size_t l = 0; l < L; ++l) persistent.push_back(A(12 * H * H * 4, 3));
      }
    for (size_t l = 0; l < L; ++l) {  // optimizer: norms, scalars, multi-tensor chunks
      for (int k = 0; k < 6; ++k) opt.push_back(A(512 * static_cast<size_t>(r.range(1, 128)), 3));
      opt.push_back(A(static_cast<size_t>(r.range(1, 8)) << 20, 3));
      free_reverse(opt);
    }
    if (r.unit() < 0.05) {  // now and then a buffer that lives on for a while
      size_t b = r.unit() < 0.5 ? a : static_cast<size_t>(r.range(1, 4096)) * 512;
      kept.push_back({A(b, static_cast<int>(r.range(0, 3))), step + static_cast<int>(r.range(1, 200))});
    }
    free_reverse(grads);
    free_reverse(data);
  }
  for (auto &k : kept) F(k.id);
  free_reverse(persistent);
  return t;
}

double replay(Allocator &a, const Trace &t, std::vector<void *> &ptrs) {
  auto t0 = Clock::now();
  for (const Op &op : t.ops) {
    if (op.alloc) ptrs[op.id] = a.alloc(op.bytes, op.stream);
    else a.free(ptrs[op.id], op.stream);
  }
  a.sync();
  return seconds_since(t0);
}

ek_memory_stats ek_stats(ek_context ctx) {
  ek_memory_stats s = EK_MEMORY_STATS_INIT;
  EK_CHECK(ek_memory_get_stats(ctx, &s));
  return s;
}

// (c) for ek: an untimed pass with statistics after every allocation
// (fragmentation at peak), then cold (empty cache) and warm timed replays.
void trace_ek(ek_context ctx, const Trace &trace, int steps, std::vector<std::string> &table,
              bench::Report &report) {
  std::vector<void *> ptrs(trace.ids);
  char line[256];
  EkAlloc a(ctx, 4);
  EK_CHECK(ek_memory_reset_peaks(ctx));
  ek_memory_stats at_peak = EK_MEMORY_STATS_INIT, s;
  for (const Op &op : trace.ops) {
    if (!op.alloc) { a.free(ptrs[op.id], op.stream); continue; }
    ptrs[op.id] = a.alloc(op.bytes, op.stream);
    s = ek_stats(ctx);
    if (s.allocated_bytes > at_peak.allocated_bytes) at_peak = s;
  }
  a.sync();
  EK_CHECK(ek_memory_empty_cache(ctx));
  EK_CHECK(ek_memory_reset_peaks(ctx));
  // Timed: cold (empty cache), then warm (cache kept).
  ek_memory_stats before = ek_stats(ctx);
  double cold = replay(a, trace, ptrs);
  ek_memory_stats after = ek_stats(ctx);
  double warm = replay(a, trace, ptrs);
  ek_memory_stats after2 = ek_stats(ctx);
  double ratio = double(after.peak_reserved_bytes) / double(after.peak_allocated_bytes);
  double n = static_cast<double>(trace.ops.size());
  std::printf("ek_malloc:       cold %.3f s (%.2f Mops/s), warm %.3f s (%.2f Mops/s)\n", cold,
              n / cold / 1e6, warm, n / warm / 1e6);
  std::printf("  peak reserved %.2f GiB / peak allocated %.2f GiB = %.3f (peak requested %.2f GiB)\n",
              after.peak_reserved_bytes / 1073741824.0, after.peak_allocated_bytes / 1073741824.0,
              ratio, after.peak_requested_bytes / 1073741824.0);
  std::printf("  at peak allocated: reserved %.2f GiB, cached free %.2f GiB, largest free %.2f GiB, "
              "fragmentation %.3f\n", at_peak.reserved_bytes / 1073741824.0,
              at_peak.cached_free_bytes / 1073741824.0, at_peak.largest_free_block / 1073741824.0,
              at_peak.fragmentation);
  long long dm = static_cast<long long>(after.device_mallocs - before.device_mallocs);
  long long rt = static_cast<long long>(after.retries - before.retries);
  long long df = static_cast<long long>(after.device_frees - before.device_frees);
  long long dm2 = static_cast<long long>(after2.device_mallocs - after.device_mallocs);
  std::printf("  cold: device_mallocs %lld, device_frees %lld, retries %lld, ooms %llu; warm: "
              "device_mallocs %lld\n", dm, df, rt,
              static_cast<unsigned long long>(after.oom_count - before.oom_count), dm2);
  report.add().str("part", "trace").str("allocator", "ek_malloc")
      .integer("steps", steps).integer("ops", static_cast<long long>(trace.ops.size()))
      .num("cold_s", cold).num("warm_s", warm).num("cold_ops_per_s", n / cold).num("warm_ops_per_s", n / warm)
      .integer("peak_reserved", static_cast<long long>(after.peak_reserved_bytes))
      .integer("peak_allocated", static_cast<long long>(after.peak_allocated_bytes))
      .integer("peak_requested", static_cast<long long>(after.peak_requested_bytes))
      .num("peak_reserved_over_allocated", ratio)
      .num("fragmentation_at_peak", at_peak.fragmentation)
      .integer("reserved_at_peak", static_cast<long long>(at_peak.reserved_bytes))
      .integer("cached_free_at_peak", static_cast<long long>(at_peak.cached_free_bytes))
      .integer("largest_free_at_peak", static_cast<long long>(at_peak.largest_free_block))
      .integer("device_mallocs_cold", dm).integer("device_frees_cold", df)
      .integer("device_mallocs_warm", dm2).integer("retries_cold", rt)
      .integer("oom_count", static_cast<long long>(after2.oom_count - before.oom_count));
  std::snprintf(line, sizeof line,
                "| trace | ek_malloc | cold %.3f s, warm %.3f s (%.2f Mops/s) | reserved/allocated %.3f, "
                "frag@peak %.3f, device_mallocs %lld, retries %lld |",
                cold, warm, n / warm / 1e6, ratio, at_peak.fragmentation, dm, rt);
  table.push_back(line);
}

Trace announce_trace(int steps, size_t scale) {
  Trace trace = make_trace(steps, 20240611, scale);
  std::printf("\n(c) training-like trace: %d steps, %zu ops (%zu allocs), 4 streams, sizes / %zu\n",
              steps, trace.ops.size(), trace.allocs, scale);
  return trace;
}

// --device cpu: (c) for ek only; the CUDA baselines need a GPU.
int run_cpu(const bench::Args &args) {
  bench::Report report;
  report.meta.str("benchmark", "alloc").str("device", "cpu")
      .integer("scale", static_cast<long long>(args.scale));
  ek_context ctx = nullptr;
  EK_CHECK(ek_context_create(ek_device{EK_CPU, 0}, nullptr, &ctx));
  std::vector<std::string> table;
  const int steps = 2000;
  trace_ek(ctx, announce_trace(steps, args.scale), steps, table, report);
  EK_CHECK(ek_context_destroy(ctx));
  std::printf("\nsummary (target: trace reserved/allocated <= 1.3)\n");
  for (auto &l : table) std::printf("%s\n", l.c_str());
  report.write(args.json);
  return 0;
}

}  // namespace

int main(int argc, char **argv) {
  const bench::Args args = bench::parse_args(argc, argv, true);
  if (args.cpu) return run_cpu(args);
  const char *json = args.json;
  bench::Report report;
  report.meta.str("benchmark", "alloc");
  bench::describe_device(report.meta);
  CUDA_CHECK(cudaSetDevice(0));
  CUDA_CHECK(cudaFree(nullptr));  // create the primary context before any timing
  ek_context ctx = nullptr;
  EK_CHECK(ek_context_create(ek_device{EK_CUDA, 0}, nullptr, &ctx));
  std::vector<std::string> table;
  char line[256];

  // ---------------------------------------------------------------- (a)
  std::printf("\n(a) alloc+free pair latency, cached size (us per pair; batches of 1000)\n");
  const size_t sizes[] = {512, 64 << 10, 1 << 20, 64 << 20, 512 << 20};
  struct Variant { const char *name; int kind; uint64_t threshold; };
  const Variant variants[] = {{"ek_malloc", 0, 0},
                              {"cudaMallocAsync(thr=max)", 1, UINT64_MAX},
                              {"cudaMallocAsync(thr=0)", 1, 0},
                              {"cudaMalloc", 2, 0}};
  std::printf("%-26s %10s %10s %10s\n", "allocator", "size", "median", "p99");
  for (const Variant &v : variants) {
    std::string row = std::string("| latency us median/p99 | ") + v.name + " |";
    for (size_t bytes : sizes) {
      std::vector<double> t;
      if (v.kind == 0) {
        EkAlloc a(ctx, 1);
        t = pair_latency(a, bytes, 1000, 200, 1000);
      } else if (v.kind == 1) {
        set_release_threshold(v.threshold);
        AsyncAlloc a(1);
        t = pair_latency(a, bytes, 1000, 200, 1000);
        trim_async_pool();
      } else {
        PlainAlloc a;  // ~100 us a pair: fewer of them
        t = pair_latency(a, bytes, 5, 50, 10);
      }
      double med = bench::median(t) * 1e6, p99 = bench::percentile(t, 0.99) * 1e6;
      std::printf("%-26s %10s %10.3f %10.3f\n", v.name, bench::human_bytes(bytes).c_str(), med, p99);
      report.add().str("part", "latency").str("allocator", v.name)
          .integer("bytes", static_cast<long long>(bytes))
          .num("median_us", med).num("p99_us", p99).integer("batches", static_cast<long long>(t.size()));
      std::snprintf(line, sizeof line, " %s: %.3f/%.3f |", bench::human_bytes(bytes).c_str(), med, p99);
      row += line;
    }
    table.push_back(row);
  }
  EK_CHECK(ek_memory_empty_cache(ctx));

  // ---------------------------------------------------------------- (b)
  std::printf("\n(b) threads, each on its own stream (aggregate Mpairs/s, median of 5)\n");
  set_release_threshold(UINT64_MAX);
  for (int threads : {1, 2, 4, 8, 16}) {
    double rate[2];
    for (int kind = 0; kind < 2; ++kind) {
      std::vector<double> r;
      for (int rep = 0; rep < 5; ++rep) {
        if (kind == 0) { EkAlloc a(ctx, threads); r.push_back(threaded_rate(a, threads, 50000)); }
        else { AsyncAlloc a(threads); r.push_back(threaded_rate(a, threads, 50000)); }
      }
      rate[kind] = bench::median(r);
      report.add().str("part", "threads").str("allocator", kind ? "cudaMallocAsync(thr=max)" : "ek_malloc")
          .integer("threads", threads).num("pairs_per_s", rate[kind]);
    }
    std::printf("threads %2d: ek %8.2f   cudaMallocAsync %8.2f\n", threads, rate[0] / 1e6, rate[1] / 1e6);
    std::snprintf(line, sizeof line, "| threads | %2d | ek %.2f Mpairs/s | cudaMallocAsync %.2f Mpairs/s |",
                  threads, rate[0] / 1e6, rate[1] / 1e6);
    table.push_back(line);
  }
  trim_async_pool();
  EK_CHECK(ek_memory_empty_cache(ctx));

  // ---------------------------------------------------------------- (c)
  const int steps = 2000;
  const Trace trace = announce_trace(steps, args.scale);
  std::vector<void *> ptrs(trace.ids);
  trace_ek(ctx, trace, steps, table, report);
  EK_CHECK(ek_memory_empty_cache(ctx));
  {
    set_release_threshold(UINT64_MAX);
    trim_async_pool();
    cudaMemPool_t pool = default_pool();
    uint64_t zero = 0, high_res = 0, high_used = 0;
    CUDA_CHECK(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReservedMemHigh, &zero));
    CUDA_CHECK(cudaMemPoolSetAttribute(pool, cudaMemPoolAttrUsedMemHigh, &zero));
    AsyncAlloc a(4);
    double cold = replay(a, trace, ptrs);
    CUDA_CHECK(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrReservedMemHigh, &high_res));
    CUDA_CHECK(cudaMemPoolGetAttribute(pool, cudaMemPoolAttrUsedMemHigh, &high_used));
    double warm = replay(a, trace, ptrs);
    double n = static_cast<double>(trace.ops.size());
    double ratio = double(high_res) / double(high_used);
    std::printf("cudaMallocAsync: cold %.3f s (%.2f Mops/s), warm %.3f s (%.2f Mops/s)\n", cold,
                n / cold / 1e6, warm, n / warm / 1e6);
    std::printf("  pool high water: reserved %.2f GiB / used %.2f GiB = %.3f\n",
                high_res / 1073741824.0, high_used / 1073741824.0, ratio);
    report.add().str("part", "trace").str("allocator", "cudaMallocAsync(thr=max)")
        .integer("steps", steps).integer("ops", static_cast<long long>(trace.ops.size()))
        .num("cold_s", cold).num("warm_s", warm).num("cold_ops_per_s", n / cold).num("warm_ops_per_s", n / warm)
        .integer("peak_reserved", static_cast<long long>(high_res))
        .integer("peak_allocated", static_cast<long long>(high_used))
        .num("peak_reserved_over_allocated", ratio);
    std::snprintf(line, sizeof line,
                  "| trace | cudaMallocAsync | cold %.3f s, warm %.3f s (%.2f Mops/s) | reserved/used %.3f |",
                  cold, warm, n / warm / 1e6, ratio);
    table.push_back(line);
  }
  trim_async_pool();
  EK_CHECK(ek_context_destroy(ctx));

  std::printf("\nsummary (targets: ek latency median <= 0.1 us; trace reserved/allocated <= 1.3)\n");
  for (auto &l : table) std::printf("%s\n", l.c_str());
  report.write(json);
  return 0;
}
