#!/usr/bin/env python3
"""Small matrix products, where launches and latency, not flops, set the time:
libek, PyTorch and CuPy on the same GPU and the same inputs.

libek and PyTorch capture REPLAYED back-to-back products of one shape into a
CUDA graph (ek.cuda.graph, torch.cuda.graph), and the replays are timed with
that library's CUDA events: WARMUP replays, then the median of REPS. Device
time per product includes the gaps between kernels in a graph, as a captured
step sees them. Then all three libraries (CuPy cannot capture cuBLAS calls)
eagerly: REPLAYED products queued behind a sleep kernel, between two events. Inputs are PyTorch's, shared through
DLPack; float32 products use no TF32 in any library.

Shapes are row-major [M, K] @ [K, N] ("b" prefix: a batch of them). Run it
with EK_LIBRARY pointing at another build to compare two libeks.

Usage: small_matmul.py [--json FILE]
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bindings" / "python"))

import ek  # noqa: E402
import torch  # noqa: E402

try:
    import cupy as cp
except ImportError:
    cp = None

WARMUP, REPS, REPLAYED = 5, 30, 20
SLEEP_CYCLES = 500_000  # keeps the GPU busy while the host enqueues REPLAYED products

# (batch, M, K, N, dtype): bench/graph_step's layer first, then around it.
SHAPES = [
    (1, 64, 512, 512, torch.float32),
    (1, 1, 512, 512, torch.float32),
    (1, 16, 64, 64, torch.float32),
    (1, 64, 128, 128, torch.float32),
    (1, 32, 256, 256, torch.float32),
    (1, 64, 256, 256, torch.float32),
    (1, 32, 512, 1024, torch.float32),
    (1, 128, 256, 512, torch.float32),
    (1, 128, 512, 512, torch.float32),
    (8, 64, 64, 64, torch.float32),
    (1, 256, 512, 512, torch.float32),
    (1, 512, 64, 512, torch.float32),
    (1, 1024, 256, 256, torch.float32),
    (1, 4096, 128, 128, torch.float32),
    (1, 64, 1024, 1024, torch.float32),
    (1, 64, 256, 256, torch.float64),
    (1, 128, 256, 256, torch.float64),
]


def median_ms(replay, record, elapsed, sync) -> float:
    for _ in range(WARMUP):
        replay()
    ms = []
    for _ in range(REPS):
        a = record()
        replay()
        b = record()
        sync(b)
        ms.append(elapsed(a, b))
    return statistics.median(ms)


def time_ek(x, w) -> float:
    s = ek.current_stream("cuda")
    out = ek.matmul(x, w)  # the result is written in place by every replay
    g = ek.cuda.CUDAGraph()
    with ek.cuda.graph(g):
        for _ in range(REPLAYED):
            ek.matmul(x, w, out=out)
    return median_ms(g.replay, s.record_event, lambda a, b: a.elapsed_time(b),
                     lambda b: b.synchronize()) / REPLAYED


def time_torch(x, w) -> float:
    out = torch.matmul(x, w)
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g, stream=s):
        for _ in range(REPLAYED):
            torch.matmul(x, w, out=out)

    def record():
        e = torch.cuda.Event(enable_timing=True)
        e.record(s)
        return e

    with torch.cuda.stream(s):
        return median_ms(g.replay, record, lambda a, b: a.elapsed_time(b),
                         lambda b: b.synchronize()) / REPLAYED


def time_queued(run, record, elapsed, sync, sleep) -> float:
    """Median device ms per product of REPLAYED products queued behind a sleep
    kernel (CuPy cannot capture cuBLAS calls, so every library is also timed so)."""
    ms = []
    for rep in range(WARMUP + REPS):
        sleep()
        a = record()
        for _ in range(REPLAYED):
            run()
        b = record()
        sync(b)
        if rep >= WARMUP:
            ms.append(elapsed(a, b))
    return statistics.median(ms) / REPLAYED


def queued_all(x, w) -> dict:
    """Eager products, queued: libek, PyTorch and CuPy (us per product)."""
    def torch_sleep(stream):
        def sleep():
            with torch.cuda.stream(stream):
                torch.cuda._sleep(SLEEP_CYCLES)
        return sleep

    s = ek.current_stream("cuda")
    ex, ew = ek.from_dlpack(x), ek.from_dlpack(w)
    eout = ek.matmul(ex, ew)
    out = {"ek": time_queued(lambda: ek.matmul(ex, ew, out=eout), s.record_event,
                             lambda a, b: a.elapsed_time(b), lambda b: b.synchronize(),
                             torch_sleep(torch.cuda.ExternalStream(s.native)))}
    ts = torch.cuda.Stream()
    tout = torch.matmul(x, w)

    def trecord():
        e = torch.cuda.Event(enable_timing=True)
        e.record(ts)
        return e

    with torch.cuda.stream(ts):
        out["torch"] = time_queued(lambda: torch.matmul(x, w, out=tout), trecord,
                                   lambda a, b: a.elapsed_time(b), lambda b: b.synchronize(),
                                   torch_sleep(ts))
    if cp is not None:
        cx, cw = cp.from_dlpack(x), cp.from_dlpack(w)
        cout = cp.matmul(cx, cw)
        cs = cp.cuda.Stream(non_blocking=True)

        def crecord():
            e = cp.cuda.Event()
            e.record(cs)
            return e

        with cs:
            out["cupy"] = time_queued(lambda: cp.matmul(cx, cw, out=cout), crecord,
                                      cp.cuda.get_elapsed_time, lambda b: b.synchronize(),
                                      torch_sleep(torch.cuda.ExternalStream(cs.ptr)))
    return {k: v * 1e3 for k, v in out.items()}


def row(batch, m, k, n, dtype) -> dict:
    lead = (batch,) if batch > 1 else ()
    x = torch.randn(*lead, m, k, device="cuda", dtype=dtype)
    w = torch.randn(*lead, k, n, device="cuda", dtype=dtype)
    ex, ew = ek.from_dlpack(x), ek.from_dlpack(w)
    r = {"batch": batch, "m": m, "k": k, "n": n, "dtype": str(dtype).replace("torch.", "")}
    r["ek_us"] = time_ek(ex, ew) * 1e3
    r["torch_us"] = time_torch(x, w) * 1e3
    q = queued_all(x, w)
    for lib, us in q.items():
        r[f"{lib}_queued_us"] = us
    r.setdefault("cupy_queued_us", None)
    flops = 2.0 * batch * m * k * n
    for lib in ("ek", "torch"):
        r[f"{lib}_tflops"] = flops / (r[f"{lib}_us"] * 1e-6) / 1e12
    r["ek_over_torch"] = r["ek_us"] / r["torch_us"]
    # Against float64 on the CPU: libek's error beside PyTorch's (cuBLAS).
    ref = torch.matmul(x.double().cpu(), w.double().cpu())
    got = torch.from_dlpack(ek.matmul(ex, ew)).double().cpu()
    r["ek_rel_err"] = float((got - ref).norm() / ref.norm())
    r["torch_rel_err"] = float((torch.matmul(x, w).double().cpu() - ref).norm() / ref.norm())
    return r


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--json")
    args = ap.parse_args()
    torch.backends.cuda.matmul.allow_tf32 = False
    rows = [row(*s) for s in SHAPES]
    result = {"bench": "small_matmul", "device": torch.cuda.get_device_name(),
              "library": Path(os.environ.get("EK_LIBRARY", "libek.so.0 (the loader's)")).name,
              "torch": torch.__version__, "cupy": cp.__version__ if cp else None,
              "replayed_per_graph": REPLAYED, "rows": rows}
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=1))
    print("us per product: in a graph (ek, torch), then queued eagerly (ek, torch, cupy)")
    print(f"{'shape':>26} {'dtype':>8} {'ek':>7} {'torch':>7} {'ek/torch':>8} {'ek TF/s':>8} "
          f"{'ek q':>7} {'torch q':>7} {'cupy q':>7} {'ek err':>8} {'torch err':>9}")
    for r in rows:
        shape = f"{r['batch']}x[{r['m']},{r['k']}]@[{r['k']},{r['n']}]"
        cu = "—" if r["cupy_queued_us"] is None else f"{r['cupy_queued_us']:.2f}"
        print(f"{shape:>26} {r['dtype']:>8} {r['ek_us']:7.2f} {r['torch_us']:7.2f} "
              f"{r['ek_over_torch']:8.3f} {r['ek_tflops']:8.2f} {r['ek_queued_us']:7.2f} "
              f"{r['torch_queued_us']:7.2f} {cu:>7} {r['ek_rel_err']:8.1e} {r['torch_rel_err']:9.1e}")


if __name__ == "__main__":
    main()
