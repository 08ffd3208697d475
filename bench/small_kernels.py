#!/usr/bin/env python3
"""Device time of single small elementwise ops, libek against PyTorch (issue
16): the kernels of bench/graph_step.py's step one by one (bias add, gelu,
subtracting and scaling by a per-row column, rsqrt of 64 values), their
16-bit forms, a run-time op (pow), a medium tensor and a strided operand.

Launch cost is taken out: each op is captured K times into a CUDA graph
(ek.cuda.graph / torch.cuda.graph) and the graph replayed between two CUDA
events; per op = elapsed / K (graph node gaps included, alike for both).
WARMUP replays, then the median of REPS. Inputs are made by PyTorch and
shared with libek through DLPack; each row also checks that both give the
same values (to within the op's float tolerance).

Usage: small_kernels.py [out.json]   (a table on stdout; JSON to the path)
"""
from __future__ import annotations

import json
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bindings" / "python"))

import torch  # noqa: E402

import ek  # noqa: E402

K, WARMUP, REPS = 50, 5, 25
M, N = 64, 512


def cases():
    """(name, tensors, libek op, torch op): ops of one or two operands."""
    g = torch.Generator(device="cuda").manual_seed(0)

    def r(*shape, dt=torch.float32):
        return torch.rand(*shape, device="cuda", generator=g, dtype=torch.float32).to(dt) + 0.5

    m, row, col = r(M, N), r(N), r(M, 1)
    mh, rowh = r(M, N, dt=torch.bfloat16), r(N, dt=torch.bfloat16)
    return [
        ("gelu [64,512] f32", (m,), ek.gelu, torch.nn.functional.gelu),
        ("gelu [64,512] bf16", (mh,), ek.gelu, torch.nn.functional.gelu),
        ("rsqrt [64,1] f32", (col,), ek.rsqrt, torch.rsqrt),
        ("exp 1M f32", (r(1 << 20),), ek.exp, torch.exp),
        ("pow [64,512] f32 (run-time op)", (m, m), ek.pow, torch.pow),
        ("mul [64,512] * [64,512] f32", (m, m), lambda a, b: a * b, lambda a, b: a * b),
        ("add [64,512] + [512] f32", (m, row), lambda a, b: a + b, lambda a, b: a + b),
        ("add [64,512] + [512] bf16", (mh, rowh), lambda a, b: a + b, lambda a, b: a + b),
        ("sub [64,512] - [64,1] f32", (m, col), lambda a, b: a - b, lambda a, b: a - b),
        ("mul [64,512] * [64,1] f32", (m, col), lambda a, b: a * b, lambda a, b: a * b),
        ("add [64,512] + [512,64].T f32 (strided)", (m, r(N, M)), lambda a, b: a + b.T,
         lambda a, b: a + b.T),
    ]


def per_op_us(replay, record, elapsed, sync) -> float:
    for _ in range(WARMUP):
        replay()
    sync()
    times = []
    for _ in range(REPS):
        a = record()
        replay()
        b = record()
        sync()
        times.append(elapsed(a, b) * 1e3 / K)
    return statistics.median(times)


def time_ek(op, args):
    s = ek.current_stream("cuda")
    xs = [ek.from_dlpack(a) for a in args]
    op(*xs)  # compiled and cached before the capture
    s.synchronize()
    g = ek.cuda.CUDAGraph()
    with ek.cuda.graph(g):
        outs = [op(*xs) for _ in range(K)]
    g.upload()
    us = per_op_us(g.replay, s.record_event, lambda a, b: a.elapsed_time(b), s.synchronize)
    return us, torch.from_dlpack(outs[-1])


def time_torch(op, args):
    s = torch.cuda.Stream()
    with torch.cuda.stream(s):
        op(*args)
        s.synchronize()
        g = torch.cuda.CUDAGraph()
        with torch.cuda.graph(g, stream=s):
            outs = [op(*args) for _ in range(K)]

        def record():
            e = torch.cuda.Event(enable_timing=True)
            e.record(s)
            return e

        us = per_op_us(g.replay, record, lambda a, b: a.elapsed_time(b), s.synchronize)
    return us, outs[-1]


def main() -> None:
    rows = {}
    for name, args, ek_op, torch_op in cases():
        torch.cuda.synchronize()
        ek_us, ek_out = time_ek(ek_op, args)
        t_us, t_out = time_torch(torch_op, args)
        tol = 1e-2 if t_out.dtype == torch.bfloat16 else 1e-5
        same = bool(torch.allclose(ek_out.float(), t_out.float(), rtol=tol, atol=tol))
        rows[name] = {"libek_us": round(ek_us, 2), "pytorch_us": round(t_us, 2),
                      "ratio": round(ek_us / t_us, 2), "values_agree": same}
    print(f"{'op (device us per op, graph-replayed)':44s}{'libek':>8s}{'PyTorch':>9s}{'ratio':>7s}")
    for name, r in rows.items():
        flag = "" if r["values_agree"] else "  VALUES DIFFER"
        print(f"{name:44s}{r['libek_us']:8.2f}{r['pytorch_us']:9.2f}{r['ratio']:7.2f}{flag}")
    result = {"bench": "small_kernels", "device": torch.cuda.get_device_name(),
              "torch": torch.__version__, "ops_per_graph": K, "warmup": WARMUP, "reps": REPS,
              "rows": rows}
    if len(sys.argv) > 1:
        Path(sys.argv[1]).write_text(json.dumps(result, indent=1) + "\n")


if __name__ == "__main__":
    main()
