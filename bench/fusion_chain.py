#!/usr/bin/env python3
"""Automatic fusion (issue 19): elementwise chains of 3, 6 and 12 ops, libek
fused and eager, PyTorch eager, torch.compile and CuPy on the same GPU and the
same inputs.

Inputs are made once with PyTorch and shared (ek.from_dlpack, CuPy through
DLPack). libek runs on the default stream of the device's default context,
fused inside ``ek.fusion(True)`` and eager inside ``ek.fusion(False)``; its
Python layer (ctypes) is in the host time only, since every library is timed
with its own CUDA events on its own stream: WARMUP rounds, then the median of
REPS; each round times every library once, in turn (interleaved, so a drift of
the GPU's clocks over the run is shared), each call holding its result until
the second event (a sleep kernel first
keeps the GPU busy while the host enqueues the chain, so the events see
device time; as bench/compare_ops.py). torch.compile
(mode "default") compiles during the warm-up, which is not timed.

Effective bandwidth counts only the chain's inputs read once and its output
written once; the sum(x*y) row (a reduction fusing its elementwise prologue)
counts x and y once. Also: one op with fusion on against off (a group of one op runs
the eager kernel), and a 1000-step loop whose scalars change every step, with
the number of fused kernels compiled (ek.fusion_stats).

Writes JSON (--json) and prints a table.
Usage: fusion_chain.py [--n ELEMENTS] [--json FILE] [--steps 1000]
"""
from __future__ import annotations

import argparse
import contextlib
import json
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bindings" / "python"))

import ek  # noqa: E402
import torch  # noqa: E402

try:
    import cupy as cp
except ImportError:  # the table shows "—"
    cp = None

# The warm-up covers libek's launch tuner, which times the first 15 large
# launches of each fused kernel (torch.compile times its candidates inside
# its first call, also untimed here).
WARMUP, REPS = 20, 40
# About 0.5 ms at the H100's clocks: longer than the host takes to build a
# 12-op chain from Python (each op about 7 us, then the group's launch), so a
# fused chain, which launches only at the second event, is timed on the device
# alone, as the other libraries' queued kernels are.
SLEEP_CYCLES = 1_000_000


class Ops:
    """The chain's primitives for one library (x * s and x + y are operators everywhere)."""

    def __init__(self, relu, exp, tanh, sigmoid):
        self.relu, self.exp, self.tanh, self.sigmoid = relu, exp, tanh, sigmoid


EK_OPS = Ops(lambda t: t.relu(), lambda t: t.exp(), lambda t: t.tanh(), lambda t: t.sigmoid())
TORCH_OPS = Ops(torch.relu, torch.exp, torch.tanh, torch.sigmoid)
CUPY_OPS = None if cp is None else Ops(lambda t: cp.maximum(t, 0), cp.exp, cp.tanh,
                                       lambda t: 1 / (1 + cp.exp(-t)))


def chain3(o, x, y):  # mul, add, mul by a scalar
    return (x * y + x) * 0.5


def chain6(o, x, y):  # + relu, sub, tanh
    return o.tanh(o.relu(x * y + x) * 0.5 - y)


def chain12(o, x, y):  # + sigmoid, mul, add, exp, mul, sub
    t = chain6(o, x, y)
    return (o.exp(o.sigmoid(t) * x + 0.25) * y - x)


def sum_xy(o, x, y):  # a reduction with an elementwise prologue: x and y read once
    return (x * y).sum()


CHAINS = [("chain3", chain3, 3), ("chain6", chain6, 6), ("chain12", chain12, 12)]


def sleep_on(torch_stream) -> None:
    with torch.cuda.stream(torch_stream):
        torch.cuda._sleep(SLEEP_CYCLES)


class Timer:
    """One library's way to time a call on its own stream with its own events."""

    def __init__(self, record, elapsed, sync, torch_stream, scope=None):
        self.record, self.elapsed, self.sync = record, elapsed, sync
        self.torch_stream, self.scope = torch_stream, scope

    def sample(self, run) -> float:
        """Device ms of one run() between two events."""
        sleep_on(self.torch_stream)
        with self.scope() if self.scope else contextlib.nullcontext():
            a = self.record()
            # Held until the second event: a pending chain whose result is gone
            # is dropped unevaluated (nobody can read it), and nothing would be timed.
            out = run()  # noqa: F841
            b = self.record()
        self.sync(b)
        del out
        return self.elapsed(a, b)


def interleaved(timed: dict) -> dict:
    """Median ms per entry of {name: (timer, run)}: each rep samples every
    entry once, in turn, so drift in the GPU's clocks or temperature over the
    run falls on all of them alike."""
    ms = {name: [] for name in timed}
    for rep in range(WARMUP + REPS):
        for name, (timer, run) in timed.items():
            t = timer.sample(run)
            if rep >= WARMUP:
                ms[name].append(t)
    return {name: statistics.median(v) for name, v in ms.items()}


def ek_timer(fused) -> Timer:
    s = ek.current_stream("cuda")

    def record():
        e = ek.Event("cuda")
        e.record(s)  # also evaluates the stream's pending group: the chain is inside the pair
        return e

    return Timer(record, lambda a, b: a.elapsed_time(b), lambda b: b.synchronize(),
                 torch.cuda.ExternalStream(s.native), lambda: ek.fusion(fused, stream=s))


def torch_timer() -> Timer:
    s = torch.cuda.Stream()

    def record():
        e = torch.cuda.Event(enable_timing=True)
        e.record(s)
        return e

    return Timer(record, lambda a, b: a.elapsed_time(b), lambda b: b.synchronize(), s,
                 lambda: torch.cuda.stream(s))


def cupy_timer() -> Timer:
    s = cp.cuda.Stream(non_blocking=True)

    def record():
        e = cp.cuda.Event()
        e.record(s)
        return e

    return Timer(record, cp.cuda.get_elapsed_time, lambda b: b.synchronize(),
                 torch.cuda.ExternalStream(s.ptr), lambda: s)


def chain_row(name, fn, nops, dtype, n, tensors=3) -> dict:
    """tensors: how many n-element tensors the chain moves (inputs and output)."""
    tx = torch.randn(n, device="cuda", dtype=dtype)
    ty = torch.randn(n, device="cuda", dtype=dtype)
    torch.cuda.synchronize()
    ex, ey = ek.from_dlpack(tx), ek.from_dlpack(ty)
    row = {"chain": name, "ops": nops, "dtype": str(dtype).replace("torch.", ""), "n": n}
    compiled = torch.compile(lambda a, b: fn(TORCH_OPS, a, b))
    t0 = time.perf_counter()
    compiled(tx, ty)
    torch.cuda.synchronize()
    row["torch_compile_first_call_s"] = time.perf_counter() - t0
    timed = {"ek_fused": (ek_timer(True), lambda: fn(EK_OPS, ex, ey)),
             "ek_eager": (ek_timer(False), lambda: fn(EK_OPS, ex, ey)),
             "torch": (torch_timer(), lambda: fn(TORCH_OPS, tx, ty)),
             "torch_compile": (torch_timer(), lambda: compiled(tx, ty))}
    if cp is not None and dtype != torch.bfloat16:  # CuPy has no bfloat16
        cx, cy = cp.from_dlpack(tx), cp.from_dlpack(ty)
        timed["cupy"] = (cupy_timer(), lambda: fn(CUPY_OPS, cx, cy))
    before = ek.fusion_stats("cuda")
    for lib, ms in interleaved(timed).items():
        row[f"{lib}_ms"] = ms
    after = ek.fusion_stats("cuda")
    row["ek_fused_launches"] = after["fused_launches"] - before["fused_launches"]
    row["ek_prologue_fusions"] = after.get("prologue_fusions", 0) - before.get("prologue_fusions", 0)
    bytes_moved = tensors * n * tx.element_size()  # x and y read once (and the result written once)
    for k in [k for k in row if k.endswith("_ms")]:
        if row[k]:
            row[k.replace("_ms", "_tbps")] = bytes_moved / (row[k] * 1e-3) / 1e12
    # Same values as eager? (bit equality is tested in tests/.) Half chains
    # keep f32 intermediates when fused; the "rounded" mode rounds each one
    # as eager does and is the one compared.
    with ek.fusion(False, device="cuda"):
        ref = fn(EK_OPS, ex, ey)
    half = dtype in (torch.float16, torch.bfloat16)
    with ek.fusion("rounded" if half else True, device="cuda"):
        got = fn(EK_OPS, ex, ey)
    row["fused_equals_eager"] = bool(torch.equal(torch.from_dlpack(ref), torch.from_dlpack(got)))
    row["compared_mode"] = "rounded" if half else "on"
    return row


def single_op_row(n) -> dict:
    tx, ty = torch.randn(n, device="cuda"), torch.randn(n, device="cuda")
    ex, ey = ek.from_dlpack(tx), ek.from_dlpack(ty)
    ms = interleaved({"on": (ek_timer(True), lambda: ex * ey), "off": (ek_timer(False), lambda: ex * ey)})
    return {"op": "mul", "n": n, "fusion_on_ms": ms["on"], "fusion_off_ms": ms["off"],
            "on_over_off": ms["on"] / ms["off"]}


def loop_row(steps, n) -> dict:
    ex = ek.from_dlpack(torch.randn(n, device="cuda"))
    before = ek.fusion_stats("cuda")
    t0 = time.perf_counter()
    with ek.fusion(True, device="cuda"):
        for step in range(steps):
            y = (ex * (1.0 + step * 1e-3) + float(step)).relu()
            y.eval()
    ek.synchronize("cuda")
    wall = time.perf_counter() - t0
    after = ek.fusion_stats("cuda")
    d = {k: after[k] - before[k] for k in after}
    compiled = wall - d["compile_ns"] * 1e-9  # the one compile, in the first step
    return {"steps": steps, "n": n, "wall_s": wall, "host_us_per_step": wall / steps * 1e6,
            "host_us_per_step_without_compile": compiled / steps * 1e6, **d}


def fmt(v, spec="{:.3f}"):
    return "—" if v is None else spec.format(v)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=256 << 20, help="elements per input (256M)")
    ap.add_argument("--steps", type=int, default=1000)
    ap.add_argument("--json", type=Path)
    args = ap.parse_args()
    meta = {"device": torch.cuda.get_device_name(), "torch": torch.__version__,
            "cupy": cp.__version__ if cp is not None else None, "ek": ek.version(),
            "warmup": WARMUP, "reps": REPS}
    rows = [chain_row(name, fn, k, torch.float32, args.n) for name, fn, k in CHAINS]
    rows.append(chain_row("chain6", chain6, 6, torch.bfloat16, args.n))
    rows.append(chain_row("sum(x*y)", sum_xy, 2, torch.float32, args.n, tensors=2))
    meta["chains"] = rows
    meta["single_op"] = single_op_row(args.n)
    meta["loop"] = loop_row(args.steps, 1 << 20)
    print(f"{'chain':10} {'dtype':9} {'ek fused':>10} {'ek eager':>10} {'torch':>10} {'compile':>10} "
          f"{'cupy':>10}   (TB/s effective; equal)")
    for r in rows:
        print(f"{r['chain']:10} {r['dtype']:9} " + " ".join(
            f"{fmt(r.get(k + '_tbps')):>10}" for k in ("ek_fused", "ek_eager", "torch", "torch_compile", "cupy"))
            + f"   {r['fused_equals_eager']}")
    s = meta["single_op"]
    print(f"single mul: fusion on {s['fusion_on_ms']:.3f} ms, off {s['fusion_off_ms']:.3f} ms "
          f"(on/off {s['on_over_off']:.3f})")
    lp = meta["loop"]
    print(f"{lp['steps']}-step loop, changing scalars: {lp['kernels_compiled']} kernel(s) compiled, "
          f"{lp['fused_launches']} fused launches, {lp['cache_hits_memory']} memory hits, "
          f"{lp['host_us_per_step_without_compile']:.1f} us/step on the host "
          f"(+{lp['compile_ns'] / 1e6:.0f} ms to compile the kernel once)")
    if args.json:
        args.json.write_text(json.dumps(meta, indent=1))


if __name__ == "__main__":
    main()
