// bench_ops: elementwise and reduction ops through the C API, timed with ek
// events (warm-up 5, median of 30), on tensors larger than L2, plus the
// host time per tiny op (enqueue cost, no sync per op).
// Bytes counted: each input element read once, each output element written once.
// Usage: bench_ops
#include <chrono>
#include <cstdio>
#include <functional>
#include <vector>

#include "bench_common.hpp"

namespace {

constexpr int kWarmup = 5, kReps = 30;

struct Env {
  ek_context ctx;
  ek_stream s;
  ek_event a, b;
};

ek_tensor random_like(const Env &e, std::vector<int64_t> shape) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  double step = 1;
  while (n * step > 1024) step /= 2;
  ek_tensor flat = nullptr, out = nullptr;
  EK_CHECK(ek_arange(e.ctx, 0.5, 0.5 + n * step, step, EK_FLOAT32, e.s, &flat));
  EK_CHECK(ek_view_reshape(flat, static_cast<int>(shape.size()), shape.data(), &out));
  EK_CHECK(ek_tensor_release(flat));
  return out;
}

double time_ms(const Env &e, const std::function<void()> &op) {
  for (int i = 0; i < kWarmup; ++i) op();
  std::vector<double> ms;
  for (int i = 0; i < kReps; ++i) {
    EK_CHECK(ek_event_record(e.a, e.s));
    op();
    EK_CHECK(ek_event_record(e.b, e.s));
    EK_CHECK(ek_event_synchronize(e.b));
    float t = 0;
    EK_CHECK(ek_event_elapsed_ms(e.a, e.b, &t));
    ms.push_back(t);
  }
  return bench::median(ms);
}

void report(const char *name, double bytes, double ms) {
  std::printf("| %-28s | %9.3f ms | %6.3f TB/s |\n", name, ms, bytes / (ms * 1e-3) / 1e12);
}

void elementwise(const Env &e) {
  const int64_t n = int64_t{1} << 28;  // 256M f32: 1 GiB per operand
  ek_tensor x = random_like(e, {n}), y = random_like(e, {n}), z = nullptr;
  EK_CHECK(ek_binary(e.s, EK_BINARY_ADD, x, y, &z));
  report("add 256M f32", 12.0 * n, time_ms(e, [&] { EK_CHECK(ek_binary(e.s, EK_BINARY_ADD, x, y, &z)); }));
  report("mul 256M f32", 12.0 * n, time_ms(e, [&] { EK_CHECK(ek_binary(e.s, EK_BINARY_MUL, x, y, &z)); }));
  report("exp 256M f32", 8.0 * n, time_ms(e, [&] { EK_CHECK(ek_unary(e.s, EK_UNARY_EXP, x, &z)); }));
  for (ek_tensor t : {x, y, z}) EK_CHECK(ek_tensor_release(t));
}

void reductions(const Env &e) {
  const int64_t n = int64_t{1} << 28;
  ek_tensor x = random_like(e, {n}), r = nullptr;
  report("sum 256M f32", 4.0 * n, time_ms(e, [&] {
    EK_CHECK(ek_tensor_release(r));
    r = nullptr;
    EK_CHECK(ek_reduce(e.s, EK_REDUCE_SUM, x, 0, nullptr, 0, &r));
  }));
  EK_CHECK(ek_tensor_release(x));
  EK_CHECK(ek_tensor_release(r));
  ek_tensor m = random_like(e, {32768, 1024});
  for (int dim : {1, 0}) {
    ek_tensor out = nullptr;
    report(dim ? "sum rows of 32768x1024" : "sum cols of 32768x1024", 4.0 * 32768 * 1024,
           time_ms(e, [&] {
             EK_CHECK(ek_tensor_release(out));
             out = nullptr;
             EK_CHECK(ek_reduce(e.s, EK_REDUCE_SUM, m, 1, &dim, 0, &out));
           }));
    EK_CHECK(ek_tensor_release(out));
  }
  EK_CHECK(ek_tensor_release(m));
}

extern "C" int bench_launch_empty(void *stream);

// Host microseconds per call of op, enqueued back to back (no sync per op).
double host_us(const Env &e, const std::function<void()> &op) {
  const int iters = 20000;
  for (int i = 0; i < 1000; ++i) op();
  EK_CHECK(ek_stream_synchronize(e.s));
  auto t0 = std::chrono::steady_clock::now();
  for (int i = 0; i < iters; ++i) op();
  auto t1 = std::chrono::steady_clock::now();
  EK_CHECK(ek_stream_synchronize(e.s));
  return std::chrono::duration<double, std::micro>(t1 - t0).count() / iters;
}

// Device microseconds per op when 100 run back to back between two events:
// max(host enqueue, kernel) in steady state, the number a loop of tiny ops sees.
double pipelined_us(const Env &e, const std::function<void()> &op) {
  return 1e3 * time_ms(e, [&] {
           for (int i = 0; i < 100; ++i) op();
         }) / 100;
}

// Tiny ops (1M f32 = 4 MB, L2-resident): the launch floor, libek's host cost
// above it, and the device time of one op alone and of one op in a stream of them.
void tiny_ops(const Env &e) {
  ek_tensor x = random_like(e, {1 << 20}), y = random_like(e, {1 << 20}), z = nullptr, s = nullptr;
  EK_CHECK(ek_binary(e.s, EK_BINARY_ADD, x, y, &z));
  EK_CHECK(ek_reduce(e.s, EK_REDUCE_SUM, x, 0, nullptr, 0, &s));
  void *native = nullptr;
  EK_CHECK(ek_stream_native(e.s, &native));
  auto empty = [&] {
    if (bench_launch_empty(native) != 0) std::exit(1);
  };
  auto add = [&] { EK_CHECK(ek_binary(e.s, EK_BINARY_ADD, x, y, &z)); };
  auto sum = [&] { EK_CHECK(ek_reduce(e.s, EK_REDUCE_SUM, x, 0, nullptr, 0, &s)); };
  auto view = [&] {
    ek_tensor v = nullptr;
    EK_CHECK(ek_view_slice(x, 0, 1, 100, 1, &v));
    EK_CHECK(ek_tensor_release(v));
  };
  std::printf("| host: empty kernel launch (<<<>>>) | %.2f us |\n", host_us(e, empty));
  std::printf("| host: ek_view_slice + release (no launch) | %.2f us |\n", host_us(e, view));
  std::printf("| host: add 1M f32 (into out) | %.2f us |\n", host_us(e, add));
  std::printf("| host: sum 1M f32 (into out) | %.2f us |\n", host_us(e, sum));
  std::printf("| device, alone: empty kernel | %.2f us |\n", 1e3 * time_ms(e, empty));
  std::printf("| device, alone: add 1M f32 | %.2f us |\n", 1e3 * time_ms(e, add));
  std::printf("| device, alone: sum 1M f32 | %.2f us |\n", 1e3 * time_ms(e, sum));
  std::printf("| device, pipelined: add 1M f32 | %.2f us |\n", pipelined_us(e, add));
  std::printf("| device, pipelined: sum 1M f32 | %.2f us |\n", pipelined_us(e, sum));
  for (ek_tensor t : {x, y, z, s}) EK_CHECK(ek_tensor_release(t));
}

}  // namespace

int main() {
  Env e{};
  int n = 0;
  EK_CHECK(ek_device_count(EK_CUDA, &n));
  if (n == 0) {
    std::printf("no CUDA device\n");
    return 1;
  }
  EK_CHECK(ek_context_create(ek_device{EK_CUDA, 0}, nullptr, &e.ctx));
  EK_CHECK(ek_stream_create(e.ctx, &e.s));
  EK_CHECK(ek_event_create(e.ctx, &e.a));
  EK_CHECK(ek_event_create(e.ctx, &e.b));
  std::printf("| op | median | achieved (read + written) |\n|---|---|---|\n");
  elementwise(e);
  reductions(e);
  tiny_ops(e);
  EK_CHECK(ek_event_destroy(e.a));
  EK_CHECK(ek_event_destroy(e.b));
  EK_CHECK(ek_stream_destroy(e.s));
  EK_CHECK(ek_context_destroy(e.ctx));
  return 0;
}
