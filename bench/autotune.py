#!/usr/bin/env python3
"""ek_kernel_launch_auto against every hand-picked block size.

Two user kernels (RawModule, one element per thread): a memory-bound
y = a*x + b over 64M float32, and an arithmetic-bound one (32 sin/cos steps
per element over 16M float32, where the block size changes occupancy more).
For each, every block size 32..1024 is launched by hand and timed (ek events,
5 warm-ups, median of 20); then launch_auto tunes once and its launches are
timed the same way. Prints each time and auto / best hand-picked.
Usage: autotune.py  (needs a CUDA device)
"""
import statistics
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bindings" / "python"))
import ek  # noqa: E402

SRC = r"""
extern "C" __global__ void axpb(float a, const float *x, float b, float *y, long long n) {
  long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + b;
}
extern "C" __global__ void waves(const float *x, float *y, long long n) {
  long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float v = x[i];
  for (int k = 0; k < 32; ++k) v = __sinf(v) * 0.5f + __cosf(v * 1.5f);
  y[i] = v;
}
"""


def median_ms(stream, launch, warmup=5, reps=20):
    for _ in range(warmup):
        launch()
    times = []
    for _ in range(reps):
        a, b = ek.Event(), ek.Event()
        a.record(stream)
        launch()
        b.record(stream)
        b.synchronize()
        times.append(a.elapsed_time(b))
    return statistics.median(times)


def compare(kernel, n, args, stream):
    rows = {}
    for block in (32, 64, 128, 256, 512, 1024):
        grid = (n + block - 1) // block
        rows[block] = median_ms(stream, lambda: kernel(grid, block, args, stream=stream))
    chosen = kernel.launch_auto(n, args, stream=stream)
    auto = median_ms(stream, lambda: kernel.launch_auto(n, args, stream=stream))
    best = min(rows, key=rows.get)
    return rows, chosen, auto, best


def main():
    if ek.cuda.device_count() == 0:
        print("no CUDA device: nothing to measure")
        return
    s = ek.Stream("cuda")
    mod = ek.RawModule(SRC)
    n1, n2 = 1 << 26, 1 << 24
    x1, y1 = ek.rand(n1, device="cuda"), ek.empty(n1, device="cuda")
    x2, y2 = ek.rand(n2, device="cuda"), ek.empty(n2, device="cuda")
    cases = (("axpb 64M f32", mod.get_function("axpb"), n1,
              (np.float32(2), x1, np.float32(0.25), y1, np.int64(n1))),
             ("waves 16M f32", mod.get_function("waves"), n2, (x2, y2, np.int64(n2))))
    for name, kernel, n, args in cases:
        rows, chosen, auto, best = compare(kernel, n, args, s)
        print(f"{name}: " + ", ".join(f"{b}: {ms * 1e3:.1f} us" for b, ms in rows.items()))
        print(f"  best hand-picked {best} ({rows[best] * 1e3:.1f} us); launch_auto chose {chosen}: "
              f"{auto * 1e3:.1f} us = {auto / rows[best]:.3f} x best")


if __name__ == "__main__":
    main()
