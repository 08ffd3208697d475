// bench_copy: libek's copy kernels through the public API, timed with ek events.
//   contiguous f32 copy (1 GiB, 2 GiB) vs cudaMemcpyAsync D2D of the same bytes,
//   transpose 8192x8192 f32 (ek_copy and ek_contiguous into a preallocated out),
//   cast f32 -> f16 of 256M elements, strided slice (every other column of
//   16384x16384 f32).
// Bytes counted: each element read once plus each element written once, at
// their dtype sizes. TB/s = 1e12 B/s. Warm-up 5, then 30 timed reps.
// Usage: bench_copy [--json PATH]
#include "bench_common.hpp"

#include <cstdint>
#include <functional>

namespace {

constexpr int kWarmup = 5, kReps = 30;

struct Env {
  ek_context ctx;
  ek_stream stream;
  ek_event start, stop;
};

// Non-zero, distinct-ish values 1, 1+s, 1+2s, ... with s = 2^-k keeping them
// under ~1024 (exact in f32, finite in f16), shaped as `shape`.
ek_tensor filled(const Env &e, std::vector<int64_t> shape) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  double step = 1;
  while (n * step > 1024) step /= 2;
  ek_tensor flat = nullptr, out = nullptr;
  EK_CHECK(ek_arange(e.stream, e.ctx, ek_scalar_float(1.0), ek_scalar_float(1.0 + n * step),
                     ek_scalar_float(step), EK_FLOAT32, &flat));
  EK_CHECK(ek_view_reshape(flat, static_cast<int>(shape.size()), shape.data(), &out));
  EK_CHECK(ek_tensor_release(flat));
  return out;
}

// The poison value: float dtypes only, so -7 fits.
ek_scalar poison() {
  ek_scalar v{};
  v.kind = EK_SCALAR_FLOAT64;
  v.f = -7.0;
  return v;
}

ek_tensor empty(const Env &e, std::vector<int64_t> shape, ek_dtype dt) {
  ek_tensor t = nullptr;
  EK_CHECK(ek_tensor_empty(e.stream, e.ctx, static_cast<int>(shape.size()), shape.data(), dt, &t));
  EK_CHECK(ek_fill(e.stream, poison(), t));  // the check sees unwritten elements
  return t;
}

ek_tensor_info info(ek_tensor t) {
  ek_tensor_info i = EK_TENSOR_INFO_INIT;
  EK_CHECK(ek_tensor_get_info(t, &i));
  return i;
}

// Per-rep milliseconds, each rep between two ek events on the stream.
std::vector<double> time_ms(const Env &e, const std::function<void()> &op) {
  for (int i = 0; i < kWarmup; ++i) op();
  EK_CHECK(ek_stream_synchronize(e.stream));
  std::vector<double> ms;
  for (int i = 0; i < kReps; ++i) {
    EK_CHECK(ek_event_record(e.stream, e.start));
    op();
    EK_CHECK(ek_event_record(e.stream, e.stop));
    EK_CHECK(ek_event_synchronize(e.stop));
    float t = 0;
    EK_CHECK(ek_event_get_elapsed_ms(e.start, e.stop, &t));
    ms.push_back(t);
  }
  return ms;
}

float half_to_float(uint16_t h) {
  int e = (h >> 10) & 31, m = h & 1023;
  float v = e == 0 ? std::ldexp(float(m), -24)
          : e == 31 ? (m ? NAN : INFINITY) : std::ldexp(float(m + 1024), e - 25);
  return (h >> 15) ? -v : v;
}

// Compares a few slabs of dst with the logical source (first/last rows, or the
// first/last 64K elements of 1-D tensors): bitwise for f32, 1e-3 relative for f16.
void check(const Env &e, const char *name, ek_tensor src, ek_tensor dst) {
  ek_tensor_info si = info(src), di = info(dst);
  for (int part = 0; part < 2; ++part) {
    ek_tensor s = nullptr, d = nullptr;
    if (si.ndim == 1) {
      int64_t n = std::min<int64_t>(65536, si.numel), lo = part ? si.numel - n : 0;
      EK_CHECK(ek_view_slice(src, 0, lo, lo + n, 1, &s));
      EK_CHECK(ek_view_slice(dst, 0, lo, lo + n, 1, &d));
    } else {
      EK_CHECK(ek_view_select(src, 0, part ? -1 : 0, &s));
      EK_CHECK(ek_view_select(dst, 0, part ? -1 : 0, &d));
    }
    int64_t n = info(s).numel;
    std::vector<float> hs(n), hd(n);
    std::vector<uint16_t> h16(n);
    EK_CHECK(ek_tensor_to_host(e.stream, s, hs.data(), n * 4));
    if (di.dtype == EK_FLOAT16) {
      EK_CHECK(ek_tensor_to_host(e.stream, d, h16.data(), n * 2));
      for (int64_t i = 0; i < n; ++i) hd[i] = half_to_float(h16[i]);
    } else {
      EK_CHECK(ek_tensor_to_host(e.stream, d, hd.data(), n * 4));
    }
    for (int64_t i = 0; i < n; ++i) {
      bool ok = hs[i] != 0 && (di.dtype == EK_FLOAT16 ? std::fabs(hd[i] - hs[i]) <= 1e-3f * std::fabs(hs[i])
                                                      : std::memcmp(&hd[i], &hs[i], 4) == 0);
      if (!ok) {
        std::fprintf(stderr, "%s: wrong result at slab %d element %lld: got %g, expected %g\n", name,
                     part, static_cast<long long>(i), hd[i], hs[i]);
        std::exit(1);
      }
    }
    EK_CHECK(ek_tensor_release(s));
    EK_CHECK(ek_tensor_release(d));
  }
}

struct Output {
  bench::Report report;
  std::vector<std::string> table;
  void add(const char *op, const char *impl, double bytes, const std::vector<double> &ms,
           double target_tbps) {
    double med = bench::median(ms), mn = bench::minimum(ms);
    double tb_med = bytes / (med * 1e-3) / 1e12, tb_max = bytes / (mn * 1e-3) / 1e12;
    std::printf("%-22s %-16s %10.3f %9.3f %9.3f %9.3f  %s\n", op, impl, bytes / 1e9, med, mn,
                tb_med, target_tbps > 0 ? (tb_med >= target_tbps ? "ok" : "BELOW TARGET") : "");
    report.add().str("op", op).str("impl", impl).num("bytes", bytes).num("median_ms", med)
        .num("min_ms", mn).num("tbps_median", tb_med).num("tbps_best", tb_max)
        .num("target_tbps", target_tbps).integer("reps", static_cast<long long>(ms.size()));
    char line[256];
    std::snprintf(line, sizeof line, "| %s | %s | %.3f GB | %.3f ms | %.3f ms | %.3f TB/s | %s |", op,
                  impl, bytes / 1e9, med, mn, tb_med,
                  target_tbps > 0 ? (std::to_string(target_tbps).substr(0, 3) + " TB/s").c_str() : "-");
    table.push_back(line);
  }
};

}  // namespace

int main(int argc, char **argv) {
  const char *json = bench::json_arg(argc, argv);
  Output out;
  out.report.meta.str("benchmark", "copy").integer("warmup", kWarmup).integer("reps", kReps)
      .str("bytes", "elements read + elements written, at their dtype sizes; TB = 1e12 B");
  bench::describe_device(out.report.meta);
  Env e{};
  EK_CHECK(ek_context_create(ek_device{EK_CUDA, 0}, nullptr, &e.ctx));
  EK_CHECK(ek_stream_create(e.ctx, &e.stream));
  EK_CHECK(ek_event_create(e.ctx, &e.start));
  EK_CHECK(ek_event_create(e.ctx, &e.stop));
  void *native = nullptr;
  EK_CHECK(ek_stream_get_native(e.stream, &native));
  auto cu_stream = static_cast<cudaStream_t>(native);

  std::printf("%-22s %-16s %10s %9s %9s %9s\n", "op", "impl", "GB moved", "med ms", "min ms", "TB/s");

  // Contiguous f32 copies, and cudaMemcpyAsync of the same bytes.
  for (int64_t gib : {1, 2}) {
    int64_t n = gib << 28;  // f32 elements
    ek_tensor src = filled(e, {n}), dst = empty(e, {n}, EK_FLOAT32);
    std::string op = "copy_f32_" + std::to_string(gib) + "GiB";
    double bytes = 2.0 * n * 4;
    out.add(op.c_str(), "ek_copy", bytes,
            time_ms(e, [&] { EK_CHECK(ek_copy(e.stream, src, dst)); }), 2.9);
    check(e, op.c_str(), src, dst);
    void *s = info(src).data, *d = info(dst).data;
    out.add(op.c_str(), "cudaMemcpyAsync", bytes, time_ms(e, [&] {
      CUDA_CHECK(cudaMemcpyAsync(d, s, n * 4, cudaMemcpyDeviceToDevice, cu_stream));
    }), 0);
    EK_CHECK(ek_tensor_release(src));
    EK_CHECK(ek_tensor_release(dst));
  }

  {  // Transpose 8192 x 8192 f32 into a contiguous tensor.
    const int64_t m = 8192;
    ek_tensor src = filled(e, {m, m}), t = nullptr, dst = empty(e, {m, m}, EK_FLOAT32);
    EK_CHECK(ek_view_transpose(src, 0, 1, &t));
    double bytes = 2.0 * m * m * 4;
    out.add("transpose_f32_8192", "ek_copy", bytes,
            time_ms(e, [&] { EK_CHECK(ek_copy(e.stream, t, dst)); }), 2.2);
    check(e, "transpose (ek_copy)", t, dst);
    EK_CHECK(ek_fill(e.stream, poison(), dst));
    out.add("transpose_f32_8192", "ek_contiguous", bytes, time_ms(e, [&] {
      ek_tensor o = dst;
      EK_CHECK(ek_contiguous(e.stream, t, &o));
    }), 2.2);
    check(e, "transpose (ek_contiguous)", t, dst);
    for (ek_tensor x : {src, t, dst}) EK_CHECK(ek_tensor_release(x));
  }

  {  // Cast f32 -> f16, 256M elements.
    const int64_t n = int64_t(1) << 28;
    ek_tensor src = filled(e, {n}), dst = empty(e, {n}, EK_FLOAT16);
    out.add("cast_f32_f16_256M", "ek_copy", 6.0 * n,
            time_ms(e, [&] { EK_CHECK(ek_copy(e.stream, src, dst)); }), 0);
    check(e, "cast", src, dst);
    EK_CHECK(ek_tensor_release(src));
    EK_CHECK(ek_tensor_release(dst));
  }

  {  // Every other column of 16384 x 16384 f32 into a contiguous 16384 x 8192.
    const int64_t m = 16384;
    ek_tensor src = filled(e, {m, m}), v = nullptr, dst = empty(e, {m, m / 2}, EK_FLOAT32);
    EK_CHECK(ek_view_slice(src, 1, 0, EK_SLICE_MAX, 2, &v));
    out.add("slice_f32_cols_step2", "ek_copy", 2.0 * m * (m / 2) * 4,
            time_ms(e, [&] { EK_CHECK(ek_copy(e.stream, v, dst)); }), 0);
    check(e, "slice", v, dst);
    for (ek_tensor x : {src, v, dst}) EK_CHECK(ek_tensor_release(x));
  }

  EK_CHECK(ek_event_destroy(e.start));
  EK_CHECK(ek_event_destroy(e.stop));
  EK_CHECK(ek_stream_destroy(e.stream));
  EK_CHECK(ek_context_destroy(e.ctx));

  std::printf("\nsummary (bytes = read + written; TB/s from the median)\n");
  std::printf("| op | impl | bytes | median | min | TB/s | target |\n|---|---|---|---|---|---|---|\n");
  for (auto &l : out.table) std::printf("%s\n", l.c_str());
  out.report.write(json);
  return 0;
}
