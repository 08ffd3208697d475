#!/usr/bin/env python3
"""Peer copy GB/s, device 0 -> device 1: libek's ek_copy between two CUDA
contexts (Tensor.copy_) against cudaMemcpyPeerAsync (through CuPy) and
torch's Tensor.copy_, 1 GiB float32 by default, plus a strided (transposed)
and a casting (float32 -> bfloat16) libek copy of the same tensor.

Each case: warm-up, then reps of one copy between two CUDA events on the
destination device's stream; median and best GB/s (bytes of the source).
Writes bench/results/peer_copy.json (or --json PATH) and prints a table.
"""
import argparse
import json
import os
import statistics
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def stats(ms, nbytes):
    med = statistics.median(ms)
    return {"median_ms": med, "min_ms": min(ms), "GBps": nbytes / (med * 1e-3) / 1e9,
            "best_GBps": nbytes / (min(ms) * 1e-3) / 1e9, "reps": len(ms)}


def run(copy, start, end, elapsed, reps):
    for _ in range(3):
        copy()
    ms = []
    for _ in range(reps):
        start()
        copy()
        end()
        ms.append(elapsed())
    return ms


def bench_ek(n, reps, nbytes):
    import ek
    side = int(n ** 0.5)
    src = ek.ones((n,), dtype="float32", device="cuda:0")
    dst = ek.empty(n, dtype="float32", device="cuda:1")
    out = {}
    e0, e1 = ek.Event("cuda:1"), ek.Event("cuda:1")

    def timing(copy):
        def elapsed():
            e1.synchronize()
            return e0.elapsed_time(e1)
        return stats(run(copy, e0.record, e1.record, elapsed, reps), nbytes)

    out["ek_contiguous"] = timing(lambda: dst.copy_(src))
    src2 = src.reshape(side, n // side)
    dst2 = ek.empty(n // side, side, dtype="float32", device="cuda:1")
    out["ek_transposed"] = timing(lambda: dst2.copy_(src2.T))
    dst3 = ek.empty(n, dtype="bfloat16", device="cuda:1")
    out["ek_cast_bf16"] = timing(lambda: dst3.copy_(src))
    return out


def bench_cupy(n, reps, nbytes):
    import cupy as cp
    with cp.cuda.Device(0):
        src = cp.ones(n, dtype=cp.float32)
    with cp.cuda.Device(1):
        dst = cp.empty(n, dtype=cp.float32)
        s = cp.cuda.Stream(non_blocking=True)
        e0, e1 = cp.cuda.Event(), cp.cuda.Event()
        copy = lambda: cp.cuda.runtime.memcpyPeerAsync(dst.data.ptr, 1, src.data.ptr, 0, nbytes, s.ptr)  # noqa: E731

        def elapsed():
            e1.synchronize()
            return cp.cuda.get_elapsed_time(e0, e1)
        return {"cudaMemcpyPeerAsync": stats(run(copy, lambda: e0.record(s), lambda: e1.record(s),
                                                     elapsed, reps), nbytes)}


def bench_torch(n, reps, nbytes):
    import torch
    src = torch.ones(n, dtype=torch.float32, device="cuda:0")
    dst = torch.empty(n, dtype=torch.float32, device="cuda:1")
    with torch.cuda.device(1):
        e0 = torch.cuda.Event(enable_timing=True)
        e1 = torch.cuda.Event(enable_timing=True)

        def elapsed():
            e1.synchronize()
            return e0.elapsed_time(e1)
        return {"torch_copy_": stats(run(lambda: dst.copy_(src), e0.record, e1.record, elapsed, reps),
                                     nbytes)}


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--mib", type=int, default=1024)
    p.add_argument("--reps", type=int, default=20)
    p.add_argument("--json", default=os.path.join(HERE, "results", "peer_copy.json"))
    a = p.parse_args()
    import ek
    if ek.device_count("cuda") < 2:
        print("peer_copy: needs 2 CUDA devices")
        return 0
    nbytes = a.mib << 20
    n = nbytes // 4
    res = {}
    for name, fn in (("ek", bench_ek), ("cupy", bench_cupy), ("torch", bench_torch)):
        try:
            res.update(fn(n, a.reps, nbytes))
        except ImportError as e:
            res[name + "_error"] = repr(e)
    doc = {"bench": "peer_copy", "bytes": nbytes, "dtype": "float32", "src": "cuda:0",
           "dst": "cuda:1", "results": res}
    with open(a.json, "w") as f:
        json.dump(doc, f, indent=1)
    ref = res.get("cudaMemcpyPeerAsync", {}).get("GBps")
    print(f"\npeer copy {a.mib} MiB cuda:0 -> cuda:1\n\n| case | GB/s (median) | best | vs cudaMemcpyPeerAsync |")
    print("| --- | --- | --- | --- |")
    for k, v in res.items():
        if isinstance(v, dict):
            ratio = f"{v['GBps'] / ref:.3f}" if ref else "-"
            print(f"| {k} | {v['GBps']:.1f} | {v['best_GBps']:.1f} | {ratio} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
