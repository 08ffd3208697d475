#!/usr/bin/env python3
"""A launch-bound training-style step, eager and replayed from a CUDA graph:
libek (Python binding) and PyTorch side by side on one GPU (issue 16).

The step: 4 layers on x [64, 512], each
    h = gelu(x @ W + b); d = h - mean(h, 1); x = d * rsqrt(mean(d * d, 1))
9 ops a layer, 36 a step. Inputs are made once by PyTorch and shared with
libek through DLPack (no copy), so both compute the same numbers.

Four variants: eager libek, libek graph replay (ek.cuda.graph), eager
PyTorch, torch.cuda.graph replay; and libek with automatic fusion on
(ek.fusion, issue 19), eager and replayed. Each: WARMUP steps, then REPS samples of
STEPS back-to-back steps between two CUDA events on the variant's stream
(device time per step, launch gaps included), and the host time spent
enqueueing them (perf_counter, no synchronization inside). Medians. For the
replays, host time per captured op = host time per replay / 36.

Usage: graph_step.py [out.json]   (JSON on stdout without a path)
"""
from __future__ import annotations

import json
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bindings" / "python"))

import torch  # noqa: E402

import ek  # noqa: E402

LAYERS, M, N = 4, 64, 512
OPS_PER_STEP = 9 * LAYERS
WARMUP, REPS, STEPS = 20, 30, 50


def make_inputs():
    g = torch.Generator(device="cuda").manual_seed(0)
    x = torch.randn(M, N, device="cuda", generator=g)
    ws = [torch.randn(N, N, device="cuda", generator=g) / N ** 0.5 for _ in range(LAYERS)]
    bs = [torch.randn(N, device="cuda", generator=g) * 0.1 for _ in range(LAYERS)]
    return x, ws, bs


def ek_step(x, ws, bs):
    for w, b in zip(ws, bs):
        h = ek.gelu(x @ w + b)
        d = h - ek.mean(h, 1, keepdim=True)
        x = d * ek.rsqrt(ek.mean(d * d, 1, keepdim=True))
    return x


def torch_step(x, ws, bs):
    for w, b in zip(ws, bs):
        h = torch.nn.functional.gelu(x @ w + b)
        d = h - h.mean(1, keepdim=True)
        x = d * torch.rsqrt((d * d).mean(1, keepdim=True))
    return x


def timed(run, record, elapsed, sync):
    """Median device ms per step and host us per step of `run` (one step)."""
    for _ in range(WARMUP):
        run()
    sync()
    dev, host = [], []
    for _ in range(REPS):
        start, end = record(), None
        t0 = time.perf_counter()
        for _ in range(STEPS):
            run()
        t1 = time.perf_counter()
        end = record()
        sync()
        dev.append(elapsed(start, end) / STEPS)
        host.append((t1 - t0) * 1e6 / STEPS)
    return {"device_ms_per_step": statistics.median(dev), "host_us_per_step": statistics.median(host)}


def ek_variants(x_t, ws_t, bs_t):
    s = ek.current_stream("cuda")
    x, ws, bs = ek.from_dlpack(x_t), [ek.from_dlpack(w) for w in ws_t], [ek.from_dlpack(b) for b in bs_t]

    def record():
        return s.record_event()

    def elapsed(a, b):
        return a.elapsed_time(b)

    out = {"eager": timed(lambda: ek_step(x, ws, bs), record, elapsed, s.synchronize)}
    g = ek.cuda.CUDAGraph()
    with ek.cuda.graph(g):
        y = ek_step(x, ws, bs)
    g.upload()
    out["graph"] = timed(g.replay, record, elapsed, s.synchronize)
    g.replay()
    s.synchronize()
    ref = ek_step(x, ws, bs)
    out["graph_matches_eager"] = bool(torch.allclose(torch.from_dlpack(y), torch.from_dlpack(ref),
                                                     rtol=1e-4, atol=1e-4))
    try:
        out.update(fused_variants(s, x, ws, bs, ref))
    except ek.Error as e:  # fusion's failure is reported, the other rows kept
        out["fused_error"] = str(e)
    return out


def fused_variants(s, x, ws, bs, ref):
    """Issue 19: the same step with automatic fusion on for the stream
    (elementwise runs between the matmuls and reductions become one kernel
    each), eager and replayed; the fused kernels compile in the warm-up, so
    the capture replays them. The launches per step and the fused kernels'
    count come from ek.fusion_stats."""
    out = {}
    with ek.fusion(True, stream=s, device="cuda"):
        before = ek.fusion_stats("cuda")
        out["fused_eager"] = timed(lambda: ek_step(x, ws, bs), s.record_event,
                                   lambda a, b: a.elapsed_time(b), s.synchronize)
        g = ek.cuda.CUDAGraph()
        with ek.cuda.graph(g):
            y = ek_step(x, ws, bs)
        g.upload()
        out["fused_graph"] = timed(g.replay, s.record_event, lambda a, b: a.elapsed_time(b),
                                   s.synchronize)
        g.replay()
        s.synchronize()
        after = ek.fusion_stats("cuda")
    out["fused_matches_eager"] = bool(torch.allclose(torch.from_dlpack(y), torch.from_dlpack(ref),
                                                     rtol=1e-4, atol=1e-4))
    out["fusion_stats_delta"] = {k: after[k] - before[k] for k in after}
    return out


def torch_variants(x, ws, bs):
    s = torch.cuda.Stream()
    out = {}
    with torch.cuda.stream(s):
        def record():
            e = torch.cuda.Event(enable_timing=True)
            e.record(s)
            return e

        def elapsed(a, b):
            return a.elapsed_time(b)

        out["eager"] = timed(lambda: torch_step(x, ws, bs), record, elapsed, s.synchronize)
        g = torch.cuda.CUDAGraph()
        with torch.cuda.graph(g, stream=s):
            torch_step(x, ws, bs)
        out["graph"] = timed(g.replay, record, elapsed, s.synchronize)
    return out


def main() -> None:
    x, ws, bs = make_inputs()
    torch.cuda.synchronize()  # libek reads them on its own streams
    result = {
        "bench": "graph_step",
        "device": torch.cuda.get_device_name(),
        "torch": torch.__version__,
        "shape": [M, N], "layers": LAYERS, "ops_per_step": OPS_PER_STEP,
        "warmup": WARMUP, "reps": REPS, "steps_per_rep": STEPS,
        "libek": ek_variants(x, ws, bs),
        "pytorch": torch_variants(x, ws, bs),
    }
    for lib in ("libek", "pytorch"):
        r = result[lib]
        r["graph"]["host_us_per_captured_op"] = r["graph"]["host_us_per_step"] / OPS_PER_STEP
        r["graph_speedup_over_eager"] = (r["eager"]["device_ms_per_step"] /
                                         r["graph"]["device_ms_per_step"])
    result["libek_graph_vs_torch_graph"] = (result["libek"]["graph"]["device_ms_per_step"] /
                                            result["pytorch"]["graph"]["device_ms_per_step"])
    text = json.dumps(result, indent=1)
    if len(sys.argv) > 1:
        Path(sys.argv[1]).write_text(text + "\n")
    print(text)


if __name__ == "__main__":
    main()
