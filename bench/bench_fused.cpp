// Times an elementwise kernel built from an expression (ek_elementwise_*):
// z = x * y + max(x, 0.0f) over 256M float32 (1 GiB per operand: 2 reads +
// 1 write = 3 GiB of traffic), the contiguous vectorized specialisation, next
// to the built-in ek_binary MUL over the same tensors (same traffic) as the
// bandwidth reference of this run. Device time between ek events, each rep
// behind a 50 us sleep kernel (bench_ops' time_ms pattern): 5 warm-ups, the
// median of 30. The first launch (generation + NVRTC or the kernel cache) is
// timed on the host, separately.
// Usage: bench_fused [--json PATH]
#include <chrono>
#include <cstdio>
#include <functional>
#include <vector>

#include "bench_common.hpp"

namespace {

constexpr int kWarmup = 5, kReps = 30;

using bench::Env;

double time_ms(const Env &e, const std::function<void()> &op) {
  return bench::device_ms(e.s, e.a, e.b, op, true, kWarmup, kReps);
}

// Values in [0.5, 1024): ek_arange with a step that keeps them small.
ek_tensor filled(const Env &e, int64_t n, double start) {
  ek_tensor t = nullptr;
  double step = 1;
  while (n * step > 1024) step /= 2;
  EK_CHECK(ek_arange(e.s, e.ctx, ek_scalar_float(start), ek_scalar_float(start + n * step),
                     ek_scalar_float(step), EK_FLOAT32, &t));
  return t;
}

void report(bench::Report &rep, const char *name, double bytes, double ms) {
  const double tbs = bytes / (ms * 1e-3) / 1e12;
  std::printf("| %-36s | %9.3f ms | %6.3f TB/s |\n", name, ms, tbs);
  rep.add().str("op", name).num("median_ms", ms).num("tb_per_s", tbs).num("bytes", bytes);
}

// A few elements against the host, so a fast wrong kernel does not pass.
void check(ek_tensor x, ek_tensor y, ek_tensor z) {
  float hx[8], hy[8], hz[8];
  ek_tensor v[3] = {nullptr, nullptr, nullptr};
  for (int k = 0; k < 3; ++k) EK_CHECK(ek_view_slice(k == 0 ? x : k == 1 ? y : z, 0, 0, 8, 1, &v[k]));
  EK_CHECK(ek_tensor_to_host(nullptr, v[0], hx, sizeof hx));
  EK_CHECK(ek_tensor_to_host(nullptr, v[1], hy, sizeof hy));
  EK_CHECK(ek_tensor_to_host(nullptr, v[2], hz, sizeof hz));
  for (ek_tensor t : v) EK_CHECK(ek_tensor_release(t));
  for (int i = 0; i < 8; ++i) {
    float want = hx[i] * hy[i] + (hx[i] > 0 ? hx[i] : 0.0f);
    if (std::fabs(hz[i] - want) > 1e-6f * std::fabs(want) + 1e-6f) {
      std::fprintf(stderr, "wrong result at %d: %g, want %g\n", i, hz[i], want);
      std::exit(1);
    }
  }
}

}  // namespace

int main(int argc, char **argv) {
  const char *json = bench::json_arg(argc, argv);
  bench::Report rep;
  bench::describe_device(rep.meta);
  Env e{};
  EK_CHECK(ek_context_create(ek_device{EK_CUDA, 0}, nullptr, &e.ctx));
  EK_CHECK(ek_stream_create(e.ctx, &e.s));
  EK_CHECK(ek_event_create(e.ctx, &e.a));
  EK_CHECK(ek_event_create(e.ctx, &e.b));

  const int64_t n = int64_t{1} << 28;  // 256M f32: 1 GiB per operand
  const double bytes = 12.0 * static_cast<double>(n);
  ek_tensor x = filled(e, n, 0.5), y = filled(e, n, -300.0), z = nullptr;
  ek_elementwise k = nullptr;
  EK_CHECK(ek_elementwise_create(e.ctx, "float32 x, float32 y", "float32 z",
                                 "z = x * y + max(x, 0.0f)", "fused", &k));
  ek_tensor in[2] = {x, y};
  EK_CHECK(ek_stream_synchronize(e.s));
  auto t0 = std::chrono::steady_clock::now();
  EK_CHECK(ek_elementwise_launch(e.s, k, in, 2, &z, 1));  // compiles, or finds the cache
  EK_CHECK(ek_stream_synchronize(e.s));
  const double first_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  std::printf("first launch (generate + compile or cache, run): %.1f ms host time\n", first_ms);
  rep.meta.num("first_launch_ms", first_ms);
  check(x, y, z);

  std::printf("| op | median | achieved (read + written) |\n|---|---|---|\n");
  report(rep, "ek_elementwise x*y+max(x,0) 256M f32", bytes,
         time_ms(e, [&] { EK_CHECK(ek_elementwise_launch(e.s, k, in, 2, &z, 1)); }));
  report(rep, "ek_binary mul 256M f32 (reference)", bytes,
         time_ms(e, [&] { EK_CHECK(ek_binary(e.s, EK_BINARY_MUL, x, y, &z)); }));

  EK_CHECK(ek_elementwise_destroy(k));
  for (ek_tensor t : {x, y, z}) EK_CHECK(ek_tensor_release(t));
  EK_CHECK(ek_event_destroy(e.a));
  EK_CHECK(ek_event_destroy(e.b));
  EK_CHECK(ek_stream_destroy(e.s));
  EK_CHECK(ek_context_destroy(e.ctx));
  rep.write(json);
  return 0;
}
