#!/usr/bin/env python3
"""Python host time per tiny op: ``add(a, b, out=c)`` on two 1M-element
float32 tensors, N calls back to back, then one synchronisation, for ek,
PyTorch and CuPy (each when importable).

"host us/op" is the time the Python loop took divided by N: what a Python
program pays per op when the GPU keeps up (1M float32 adds take ~4 us of an
H100's memory bandwidth, less than the host time, so the launch queue never
fills). "wall us/op" includes the final synchronisation. The best of
``--repeat`` runs is reported.

    EK_LIBRARY=build/libek.so.0 PYTHONPATH=bindings/python python3 bindings/python/bench_overhead.py
    ... --device cpu --n 2000      # the same loop on the CPU backend (a smoke test)
    ... --json out.json

Target (issue 5): ek <= 9 us per op on the H100 (PyTorch 2.11: 9.25 us, CuPy
14.2: 12.6 us on the same machine).
"""

from __future__ import annotations

import argparse
import json
import sys
import time

SIZE = 1 << 20


def _time(fn, sync, n, repeat):
    for _ in range(min(n, 1000)):  # warm up: caches, pools, lazy loading
        fn()
    sync()
    best = None
    for _ in range(repeat):
        t0 = time.perf_counter()
        for _ in range(n):
            fn()
        t1 = time.perf_counter()
        sync()
        t2 = time.perf_counter()
        r = ((t1 - t0) / n * 1e6, (t2 - t0) / n * 1e6)
        best = r if best is None or r[0] < best[0] else best
    return best


def bench_ek(device, n, repeat):
    import ek
    a = ek.randn(SIZE, device=device)
    b = ek.randn(SIZE, device=device)
    c = ek.empty(SIZE, device=device)
    add = ek.add
    out = {"ek": _time(lambda: add(a, b, out=c), lambda: ek.synchronize(device), n, repeat)}
    # The same call through the bound C function directly: the floor of ctypes.
    from ek import _ffi
    from ek._lib import lib
    fn, op, p = lib.ek_binary, _ffi.EK_BINARY_ADD, c._outp()
    ah, bh = a._h, b._h
    out["ek (raw ctypes call)"] = _time(lambda: fn(None, op, ah, bh, p),
                                        lambda: ek.synchronize(device), n, repeat)
    out["ek (a + b, allocating)"] = _time(lambda: a + b, lambda: ek.synchronize(device), n,
                                          repeat)
    return out


def bench_torch(device, n, repeat):
    import torch
    if device == "cuda" and not torch.cuda.is_available():
        return {}
    a = torch.randn(SIZE, device=device)
    b = torch.randn(SIZE, device=device)
    c = torch.empty(SIZE, device=device)
    sync = torch.cuda.synchronize if device == "cuda" else (lambda: None)
    return {"torch " + torch.__version__: _time(lambda: torch.add(a, b, out=c), sync, n,
                                                repeat)}


def bench_cupy(device, n, repeat):
    if device != "cuda":
        return {}
    import cupy
    a = cupy.random.standard_normal(SIZE, dtype=cupy.float32)
    b = cupy.random.standard_normal(SIZE, dtype=cupy.float32)
    c = cupy.empty(SIZE, dtype=cupy.float32)
    sync = cupy.cuda.Device().synchronize
    return {"cupy " + cupy.__version__: _time(lambda: cupy.add(a, b, out=c), sync, n, repeat)}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--device", default=None, help="cuda (default when a GPU exists) or cpu")
    ap.add_argument("--n", type=int, default=20000, help="calls per run (default 20000)")
    ap.add_argument("--repeat", type=int, default=5, help="runs; the best is kept (default 5)")
    ap.add_argument("--json", help="write the results here")
    args = ap.parse_args(argv)
    import ek
    device = args.device or ("cuda" if ek.cuda.is_available() else "cpu")
    info = ek.device_info(device)["name"]
    print(f"add(a, b, out=c), float32[{SIZE}], {args.n} calls back to back, then sync; "
          f"{device} ({info}), Python {sys.version.split()[0]}")
    results = {}
    for name, fn in (("ek", bench_ek), ("torch", bench_torch), ("cupy", bench_cupy)):
        try:
            results.update(fn(device, args.n, args.repeat))
        except ImportError:
            print(f"  {name}: not importable, skipped")
    print(f"  {'library':<28} {'host us/op':>10} {'wall us/op':>10}")
    for name, (host, wall) in results.items():
        print(f"  {name:<28} {host:10.2f} {wall:10.2f}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"device": device, "device_name": info, "n": args.n, "size": SIZE,
                       "results": {k: {"host_us": v[0], "wall_us": v[1]}
                                   for k, v in results.items()}}, f, indent=2)
    host = results["ek"][0]
    if device == "cuda":
        print(f"ek host time per op: {host:.2f} us (target <= 9 us): "
              f"{'OK' if host <= 9.0 else 'OVER TARGET'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
