// bench_ops: the kernel library through the C API, timed with ek events
// (warm-up 5, median of 30, each behind a sleep kernel so that the events see
// device time, not launch latency: see time_ms), on tensors larger than L2
// where size is not the point, plus the host time per tiny op (enqueue cost,
// no sync per op) and tiny ops' device time alone, queued and pipelined.
// Bytes counted: each input element read once, each output element written
// once; matmul counts 2*m*n*k flops and is compared with cuBLAS called
// directly (cublasGemmEx, same compute type) in the same run.
// Usage: bench_ops
#include <cublas_v2.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

#include "bench_common.hpp"

namespace {

constexpr int kWarmup = 5, kReps = 30;

using bench::Env;

ek_tensor random_like(const Env &e, std::vector<int64_t> shape) {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  double step = 1;
  while (n * step > 1024) step /= 2;
  ek_tensor flat = nullptr, out = nullptr;
  EK_CHECK(ek_arange(e.s, e.ctx, ek_scalar_float(0.5), ek_scalar_float(0.5 + n * step),
                     ek_scalar_float(step), EK_FLOAT32, &flat));
  EK_CHECK(ek_view_reshape(flat, static_cast<int>(shape.size()), shape.data(), &out));
  EK_CHECK(ek_tensor_release(flat));
  return out;
}

extern "C" int bench_launch_empty(void *stream);

double time_ms(const Env &e, const std::function<void()> &op, bool queued = true) {
  return bench::device_ms(e.s, e.a, e.b, op, queued, kWarmup, kReps);
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

void softmax(const Env &e) {
  for (auto shape : {std::vector<int64_t>{32768, 1024}, {1024, 32768}, {10000}}) {
    ek_tensor x = random_like(e, shape), out = nullptr;
    double n = 1;
    for (int64_t d : shape) n *= double(d);
    std::string name = "softmax " + std::to_string(shape[0]) + (shape.size() > 1 ? "x" + std::to_string(shape[1]) : "");
    report(name.c_str(), 8.0 * n,
           time_ms(e, [&] { EK_CHECK(ek_softmax(e.s, EK_SOFTMAX_PLAIN, x, -1, &out)); }));
    for (ek_tensor t : {x, out}) EK_CHECK(ek_tensor_release(t));
  }
}

// ek_concat of 8 x 32M f32 (1 GiB out): one vectorized copy per input.
void joining(const Env &e) {
  const int64_t n = int64_t{1} << 25;
  std::vector<ek_tensor> xs;
  for (int i = 0; i < 8; ++i) xs.push_back(random_like(e, {n}));
  ek_tensor out = nullptr;
  EK_CHECK(ek_concat(e.s, 8, xs.data(), 0, &out));
  report("concat 8 x 32M f32", 2.0 * 4 * 8 * n,
         time_ms(e, [&] { EK_CHECK(ek_concat(e.s, 8, xs.data(), 0, &out)); }));
  xs.push_back(out);
  for (ek_tensor t : xs) EK_CHECK(ek_tensor_release(t));
}

// C = A @ B, row-major n x n, as cuBLAS sees it: C^T = B^T A^T (column-major).
void cublas_matmul(cublasHandle_t h, int n, cudaDataType dt, const void *a, const void *b, void *c) {
  const float one = 1, zero = 0;
  if (cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, b, dt, n, a, dt, n, &zero, c, dt, n,
                   CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT) != CUBLAS_STATUS_SUCCESS) std::exit(1);
}

void matmul(const Env &e) {
  cublasHandle_t h = nullptr;
  void *native = nullptr;
  EK_CHECK(ek_stream_get_native(e.s, &native));
  if (cublasCreate(&h) != CUBLAS_STATUS_SUCCESS || cublasSetStream(h, static_cast<cudaStream_t>(native)))
    std::exit(1);
  struct Case { int n; ek_dtype dt; cudaDataType cdt; const char *name; };
  for (Case c : {Case{1024, EK_FLOAT32, CUDA_R_32F, "f32"}, Case{4096, EK_FLOAT32, CUDA_R_32F, "f32"},
                 Case{4096, EK_BFLOAT16, CUDA_R_16BF, "bf16"}, Case{8192, EK_BFLOAT16, CUDA_R_16BF, "bf16"}}) {
    ek_tensor a32 = random_like(e, {c.n, c.n}), a = nullptr, b = nullptr, out = nullptr;
    EK_CHECK(ek_cast(e.s, a32, c.dt, &a));
    EK_CHECK(ek_cast(e.s, a32, c.dt, &b));
    EK_CHECK(ek_matmul(e.s, a, b, &out));
    const double flops = 2.0 * c.n * c.n * double(c.n);
    double ek_ms = time_ms(e, [&] { EK_CHECK(ek_matmul(e.s, a, b, &out)); });
    void *pa = nullptr, *pb = nullptr, *pc = nullptr;
    EK_CHECK(ek_tensor_get_data(a, &pa));
    EK_CHECK(ek_tensor_get_data(b, &pb));
    EK_CHECK(ek_tensor_get_data(out, &pc));
    double blas_ms = time_ms(e, [&] { cublas_matmul(h, c.n, c.cdt, pa, pb, pc); });
    std::printf("| matmul %d^2 %s | %.3f ms, %.1f TFLOP/s | cuBLAS %.3f ms, %.1f TFLOP/s | %.3fx |\n", c.n,
                c.name, ek_ms, flops / ek_ms / 1e9, blas_ms, flops / blas_ms / 1e9, blas_ms / ek_ms);
    for (ek_tensor t : {a32, a, b, out}) EK_CHECK(ek_tensor_release(t));
  }
  cublasDestroy(h);
}

void indexing(const Env &e) {
  const int64_t n = int64_t{1} << 26;
  ek_tensor x = random_like(e, {n}), u = nullptr, mask = nullptr, idx = nullptr, g = nullptr;
  EK_CHECK(ek_tensor_empty(e.s, e.ctx, 1, &n, EK_FLOAT32, &u));
  EK_CHECK(ek_random(e.s, EK_RANDOM_UNIFORM, ek_scalar_int(0), ek_scalar_int(1), nullptr, u));
  EK_CHECK(ek_binary_scalar(e.s, EK_BINARY_LT, u, ek_scalar_float(0.5), 0, &mask));
  report("masked_select 64M f32 half true", 7.0 * n, time_ms(e, [&] {
    ek_tensor sel = nullptr;
    EK_CHECK(ek_masked_select(e.s, x, mask, &sel));
    EK_CHECK(ek_tensor_release(sel));
  }));
  const int64_t m = int64_t{1} << 20;
  EK_CHECK(ek_tensor_empty(e.s, e.ctx, 1, &m, EK_INT64, &idx));
  EK_CHECK(ek_random(e.s, EK_RANDOM_RANDINT, ek_scalar_int(0), ek_scalar_int(n), nullptr, idx));
  report("gather 1M of 64M f32", 16.0 * m, time_ms(e, [&] { EK_CHECK(ek_index_select(e.s, x, 0, idx, &g)); }));
  for (ek_tensor t : {x, u, mask, idx, g}) EK_CHECK(ek_tensor_release(t));
}

// Host microseconds per call of op: the median over batches of 64 calls, each
// batch enqueued on an idle stream. A long back-to-back loop would fill the
// launch queue and then time the device (a 6 us kernel makes every call 6 us).
double host_us(const Env &e, const std::function<void()> &op) {
  constexpr int kBatch = 64, kBatches = 300;
  for (int i = 0; i < 1000; ++i) op();
  std::vector<double> per_call;
  for (int b = 0; b < kBatches; ++b) {
    EK_CHECK(ek_stream_synchronize(e.s));
    auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < kBatch; ++i) op();
    auto t1 = std::chrono::steady_clock::now();
    per_call.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count() / kBatch);
  }
  EK_CHECK(ek_stream_synchronize(e.s));
  std::nth_element(per_call.begin(), per_call.begin() + kBatches / 2, per_call.end());
  return per_call[kBatches / 2];
}

// Device microseconds per op when 100 run back to back between two events:
// max(host enqueue, kernel) in steady state, the number a loop of tiny ops sees.
double pipelined_us(const Env &e, const std::function<void()> &op) {
  return 1e3 * time_ms(e, [&] {
           for (int i = 0; i < 100; ++i) op();
         }, false) / 100;
}

// Tiny ops (1M f32 = 4 MB, L2-resident): the launch floor, libek's host cost
// above it, and the device time of one op alone and of one op in a stream of them.
void tiny_ops(const Env &e) {
  ek_tensor x = random_like(e, {1 << 20}), y = random_like(e, {1 << 20}), z = nullptr, s = nullptr;
  EK_CHECK(ek_binary(e.s, EK_BINARY_ADD, x, y, &z));
  EK_CHECK(ek_reduce(e.s, EK_REDUCE_SUM, x, 0, nullptr, 0, &s));
  void *native = nullptr;
  EK_CHECK(ek_stream_get_native(e.s, &native));
  auto empty = [&] {
    if (bench_launch_empty(native) != 0) std::exit(1);
  };
  auto add = [&] { EK_CHECK(ek_binary(e.s, EK_BINARY_ADD, x, y, &z)); };
  auto sum = [&] { EK_CHECK(ek_reduce(e.s, EK_REDUCE_SUM, x, 0, nullptr, 0, &s)); };
  ek_tensor row = random_like(e, {10000}), p = nullptr;
  auto soft = [&] { EK_CHECK(ek_softmax(e.s, EK_SOFTMAX_PLAIN, row, -1, &p)); };
  auto view = [&] {
    ek_tensor v = nullptr;
    EK_CHECK(ek_view_slice(x, 0, 1, 100, 1, &v));
    EK_CHECK(ek_tensor_release(v));
  };
  std::printf("| host: empty kernel launch (<<<>>>) | %.2f us |\n", host_us(e, empty));
  std::printf("| host: ek_view_slice + release (no launch) | %.2f us |\n", host_us(e, view));
  std::printf("| host: add 1M f32 (into out) | %.2f us |\n", host_us(e, add));
  std::printf("| host: sum 1M f32 (into out) | %.2f us |\n", host_us(e, sum));
  std::printf("| host: softmax 10000 f32 (into out) | %.2f us |\n", host_us(e, soft));
  for (bool queued : {false, true}) {
    const char *how = queued ? "queued" : "alone";
    std::printf("| device, %s: empty kernel | %.2f us |\n", how, 1e3 * time_ms(e, empty, queued));
    std::printf("| device, %s: add 1M f32 | %.2f us |\n", how, 1e3 * time_ms(e, add, queued));
    std::printf("| device, %s: sum 1M f32 | %.2f us |\n", how, 1e3 * time_ms(e, sum, queued));
    std::printf("| device, %s: softmax 10000 f32 | %.2f us |\n", how, 1e3 * time_ms(e, soft, queued));
  }
  std::printf("| device, pipelined: add 1M f32 | %.2f us |\n", pipelined_us(e, add));
  std::printf("| device, pipelined: sum 1M f32 | %.2f us |\n", pipelined_us(e, sum));
  std::printf("| device, pipelined: softmax 10000 f32 | %.2f us |\n", pipelined_us(e, soft));
  for (ek_tensor t : {x, y, z, s, row, p}) EK_CHECK(ek_tensor_release(t));
}

}  // namespace

int main() {
  Env e{};
  int n = 0;
  EK_CHECK(ek_device_get_count(EK_CUDA, &n));
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
  softmax(e);
  joining(e);
  indexing(e);
  tiny_ops(e);
  matmul(e);
  EK_CHECK(ek_event_destroy(e.a));
  EK_CHECK(ek_event_destroy(e.b));
  EK_CHECK(ek_stream_destroy(e.s));
  EK_CHECK(ek_context_destroy(e.ctx));
  return 0;
}
