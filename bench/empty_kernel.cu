// Helper kernels for bench_ops: an empty kernel (the floor for a tiny op,
// launched from the same host thread, so bench_ops can report libek's
// overhead above it) and a sleep that keeps the GPU busy while the host
// enqueues the timed region, so that events measure device time rather than
// the host's launch latency.
#include <cuda_runtime.h>

namespace {
__global__ void empty_kernel() {}

__global__ void sleep_kernel(unsigned long long ns) {
  const unsigned long long start = clock64();
  // clock64 counts SM cycles; 1 cycle >= 0.5 ns on any clock below 2 GHz.
  while (clock64() - start < 2 * ns) __nanosleep(1000);
}
}  // namespace

extern "C" int bench_launch_empty(void *stream) {
  empty_kernel<<<1, 32, 0, static_cast<cudaStream_t>(stream)>>>();
  return static_cast<int>(cudaGetLastError());
}

extern "C" int bench_launch_sleep(void *stream, unsigned long long ns) {
  sleep_kernel<<<1, 1, 0, static_cast<cudaStream_t>(stream)>>>(ns);
  return static_cast<int>(cudaGetLastError());
}
