#!/usr/bin/env python3
"""Small ops from Python, where the host's cost per op sets the pace: libek,
PyTorch and CuPy in the same run on the same GPU (issue 16's three rows).

Rows:
- sum of 1M f32, back to back: N sums enqueued in a loop, then one
  synchronize; per op = the loop's wall time / N (host and device overlap, so
  this is max(host cost, device time) per op).
- index_select of 1M random rows (indices, int64) from a 64M f32 vector,
  back to back, as above.
- empty + free of 1 MiB: host time per pair (nothing waits for the GPU).

Each row: 5 rounds of N ops after a warm-up round; the median round is
reported. Also the device time of one op alone (CUDA events around a single
op on an otherwise idle stream, median of 30), to tell a host-bound row from
a device-bound one.

Usage: small_ops.py [--json F] [--n N]
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bindings" / "python"))

import ek  # noqa: E402

try:
    import torch
except ImportError:
    torch = None
try:
    import cupy as cp
except ImportError:
    cp = None

ROUNDS = 5


def per_op_us(step, sync, n: int) -> float:
    """Median over ROUNDS of (wall time of n steps + one sync) / n, in us."""
    for _ in range(n // 4 + 1):
        step()
    sync()
    times = []
    for _ in range(ROUNDS):
        t = time.perf_counter()
        for _ in range(n):
            step()
        sync()
        times.append((time.perf_counter() - t) / n * 1e6)
    return statistics.median(times)


def alone_us(step, event_pair, sync) -> float:
    """Device time of one op (us): events around it, median of 30."""
    start, end, elapsed_ms, record = event_pair
    times = []
    for _ in range(30):
        sync()
        record(start)
        step()
        record(end)
        sync()
        times.append(elapsed_ms(start, end) * 1e3)
    return statistics.median(times)


def ek_events():
    s = ek.current_stream("cuda")
    return (ek.cuda.Event("cuda"), ek.cuda.Event("cuda"), lambda a, b: a.elapsed_time(b),
            lambda e: e.record(s))


def torch_events():
    return (torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True),
            lambda a, b: a.elapsed_time(b), lambda e: e.record())


def cupy_events():
    return (cp.cuda.Event(), cp.cuda.Event(), lambda a, b: cp.cuda.get_elapsed_time(a, b),
            lambda e: e.record())


_ctx = []


def _deferred():
    """A CUDA context whose gathers report bad indices at the next
    synchronization (EK_INDEX_CHECK_DEFERRED), as PyTorch's do."""
    if not _ctx:
        _ctx.append(ek.Context("cuda", index_check="deferred"))
    return _ctx[0]


def libraries():
    """(name, namespace of the row's building blocks) for each library present."""
    out = [("libek", dict(
        sync=lambda: ek.synchronize("cuda"), events=ek_events,
        vec=lambda n: ek.rand(n, device="cuda"),
        idx=lambda n, hi: ek.randint(0, hi, (n,), device="cuda"),
        sum=lambda x: ek.sum(x),
        index_select=lambda x, i: ek.index_select(x, 0, i),
        deferred=True,
        empty=lambda nbytes: ek.empty(nbytes // 4, device="cuda")))]
    if torch is not None and torch.cuda.is_available():
        out.append(("PyTorch", dict(
            sync=torch.cuda.synchronize, events=torch_events,
            vec=lambda n: torch.rand(n, device="cuda"),
            idx=lambda n, hi: torch.randint(0, hi, (n,), device="cuda"),
            sum=lambda x: torch.sum(x),
            index_select=lambda x, i: torch.index_select(x, 0, i),
            empty=lambda nbytes: torch.empty(nbytes // 4, device="cuda"))))
    if cp is not None:
        out.append(("CuPy", dict(
            sync=cp.cuda.Device().synchronize, events=cupy_events,
            vec=lambda n: cp.random.rand(n, dtype=cp.float32),
            idx=lambda n, hi: cp.random.randint(0, hi, (n,), dtype=cp.int64),
            sum=lambda x: cp.sum(x),
            index_select=lambda x, i: cp.take(x, i),
            empty=lambda nbytes: cp.empty(nbytes // 4, dtype=cp.float32))))
    return out


def rows(lib, n: int) -> dict:
    sync = lib["sync"]
    x1 = lib["vec"](1 << 20)
    big = lib["vec"](64 << 20)
    idx = lib["idx"](1 << 20, 64 << 20)
    sum_step = lambda: lib["sum"](x1)  # noqa: E731
    sel_step = lambda: lib["index_select"](big, idx)  # noqa: E731
    empty_step = lambda: lib["empty"](1 << 20)  # noqa: E731
    r = {
        "sum 1M f32": per_op_us(sum_step, sync, n),
        "index_select 1M of 64M f32": per_op_us(sel_step, sync, max(n // 10, 20)),
    }
    if "deferred" in lib:  # libek with its checks deferred, as PyTorch's (operands moved once)
        bd, idd = big.to(_deferred()), idx.to(_deferred())
        dsync = _deferred().synchronize
        r["index_select 1M of 64M f32, check deferred"] = per_op_us(
            lambda: ek.index_select(bd, 0, idd), dsync, max(n // 10, 20))
    r |= {
        "empty+free 1 MiB (host)": per_op_us(empty_step, lambda: None, n * 10),
        "sum 1M f32, alone (device)": alone_us(sum_step, lib["events"](), sync),
        "index_select 1M of 64M f32, alone (device)": alone_us(sel_step, lib["events"](), sync),
    }
    return {k: round(v, 2) for k, v in r.items()}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--json", type=Path)
    ap.add_argument("--n", type=int, default=2000, help="ops per round")
    a = ap.parse_args()
    if not ek.cuda.is_available():
        sys.exit("small_ops.py: no CUDA device")
    results = {name: rows(lib, a.n) for name, lib in libraries()}
    meta = {"device": ek.device_info("cuda")["name"],
            "torch": getattr(torch, "__version__", None), "cupy": getattr(cp, "__version__", None),
            "ops_per_round": a.n, "rounds": ROUNDS}
    keys = list(next(iter(results.values())))
    print(f"{'row (us per op)':44s}" + "".join(f"{n:>10s}" for n in results))
    for k in keys:
        print(f"{k:44s}" + "".join(f"{results[n].get(k, float('nan')):10.2f}" for n in results))
    if a.json:
        a.json.write_text(json.dumps({"meta": meta, "results": results}, indent=1) + "\n")


if __name__ == "__main__":
    main()
