#!/usr/bin/env python3
"""Sorting on the GPU: libek, PyTorch and CuPy in one run, the same inputs.

Cases (issue 18's targets): sort of 16M and 64M f32 uniform on [0, 1), keys
only and with indices; topk k=100 of 1M f32; unique of 16M int32 in
[0, 2^20). Then the other paths (not targets): unique with counts, argsort,
descending, stable, 4096 rows of 4096 along the last dim, 16M int32 with
indices. Inputs are made once with PyTorch and shared (libek wraps them,
CuPy takes them through DLPack). Timing is compare_ops.py's: each library on
its own stream with its own CUDA events, 5 warm-up calls, the median of 30,
each behind a ~50 us sleep kernel so the events measure device time. Rates:
keys per second (input elements / median time).

PyTorch has no keys-only sort: its "keys only" row is torch.sort(x).values
(indices computed anyway), as a PyTorch user would write it; CuPy's rows are
cupy.sort (keys only) and cupy.argsort (indices only: CuPy has no sort with
both). CuPy has no topk. ek_unique and torch.unique both read the count back
(synchronous); cupy.unique too.

Usage: compare_sort.py OUT.json [--only SUBSTRING]
"""
from __future__ import annotations

import argparse
import ctypes
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import compare_ops as co  # noqa: E402  (its timing, shim and library loading)
from compare_ops import Ek, Out, check, cp, time_cupy, time_torch, torch  # noqa: E402

_ffi, lib = co._ffi, co.lib
co.DT[torch.int32] = _ffi.EK_INT32


def sort_cases(e: Ek):
    rows = []
    for n in (1 << 24, 1 << 26):
        x = torch.rand(n, device="cuda")
        ex, cx = e.wrap(x), cp and cp.from_dlpack(x)
        label = f"{n >> 20}M f32"
        v_only, v, i = Out(), Out(), Out()
        rows.append((f"sort {label} keys only", n,
                     lambda ex=ex, v_only=v_only: check(lib.ek_sort(e.s, ex, 0, 0, 0, v_only.ref, None)),
                     lambda x=x: torch.sort(x).values, cp and (lambda cx=cx: cp.sort(cx))))
        rows.append((f"sort {label} with indices", n,
                     lambda ex=ex, v=v, i=i: check(lib.ek_sort(e.s, ex, 0, 0, 0, v.ref, i.ref)),
                     lambda x=x: torch.sort(x), cp and (lambda cx=cx: cp.argsort(cx))))
    return rows


def path_cases(e: Ek):
    """The other sort paths at 16M elements: argsort, descending, stable,
    rows along the last dim (segmented), int32 (sorted as they are)."""
    x = torch.rand(1 << 24, device="cuda")
    x2 = x.view(4096, 4096)
    xi = torch.randint(-(1 << 30), 1 << 30, (1 << 24,), device="cuda", dtype=torch.int32)
    ex, ex2, exi = e.wrap(x), e.wrap(x2), e.wrap(xi)
    cx, cxi = cp and cp.from_dlpack(x), cp and cp.from_dlpack(xi)
    outs = [(Out(), Out()) for _ in range(5)]

    def ek_sort(t, dim, desc, stable, o, values=True):
        return lambda: check(lib.ek_sort(e.s, t, dim, desc, stable, o[0].ref if values else None, o[1].ref))

    n = x.numel()
    return [
        ("argsort 16M f32", n, ek_sort(ex, 0, 0, 0, outs[0], values=False), lambda: torch.argsort(x),
         cp and (lambda: cp.argsort(cx))),
        ("sort 16M f32 descending with indices", n, ek_sort(ex, 0, 1, 0, outs[1]),
         lambda: torch.sort(x, descending=True), None),
        ("sort 16M f32 stable with indices", n, ek_sort(ex, 0, 0, 1, outs[2]),
         lambda: torch.sort(x, stable=True), None),
        ("sort 4096x4096 f32 dim -1 with indices", n, ek_sort(ex2, -1, 0, 0, outs[3]),
         lambda: torch.sort(x2, dim=-1), None),
        ("sort 16M int32 with indices", n, ek_sort(exi, 0, 0, 0, outs[4]), lambda: torch.sort(xi),
         cp and (lambda: cp.argsort(cxi))),
    ]


def topk_cases(e: Ek):
    x = torch.rand(1 << 20, device="cuda")
    ex, v, i = e.wrap(x), Out(), Out()
    return [("topk k=100 of 1M f32", x.numel(),
             lambda: check(lib.ek_topk(e.s, ex, 100, 0, 1, 1, v.ref, i.ref)),
             lambda: torch.topk(x, 100), None)]


def unique_cases(e: Ek):
    x = torch.randint(0, 1 << 20, (1 << 24,), device="cuda", dtype=torch.int32)
    ex, cx = e.wrap(x), cp and cp.from_dlpack(x)

    def ek_unique():
        u = _ffi.ek_tensor()  # a new result each call: the count is only known on the way
        check(lib.ek_unique(e.s, ex, ctypes.byref(u), None, None))
        check(lib.ek_tensor_release(u))

    def ek_unique_counts():
        u, c = _ffi.ek_tensor(), _ffi.ek_tensor()
        check(lib.ek_unique(e.s, ex, ctypes.byref(u), None, ctypes.byref(c)))
        check(lib.ek_tensor_release(u))
        check(lib.ek_tensor_release(c))

    return [("unique 16M int32", x.numel(), ek_unique, lambda: torch.unique(x),
             cp and (lambda: cp.unique(cx))),
            ("unique 16M int32 with counts", x.numel(), ek_unique_counts,
             lambda: torch.unique(x, return_counts=True), cp and (lambda: cp.unique(cx, return_counts=True)))]


def run(only: str | None) -> list:
    e = Ek()
    rows = []
    for name, n, ek_op, torch_op, cupy_op in sort_cases(e) + topk_cases(e) + unique_cases(e) + path_cases(e):
        if only and only not in name:
            continue
        ms = {"libek": e.time_ms(ek_op), "torch": time_torch(torch_op),
              "cupy": time_cupy(cupy_op) if cupy_op else None}
        rate = {k: (n / (v * 1e-3) / 1e9 if v else None) for k, v in ms.items()}
        rows.append({"op": name, "n": n, "ms": ms, "gkeys_per_s": rate,
                     "libek_vs_torch": ms["torch"] / ms["libek"]})
        cell = lambda k: f"{ms[k]:.3f} ms ({rate[k]:.2f} Gkey/s)" if ms[k] else "—"  # noqa: E731
        print(f"| {name} | {cell('libek')} | {cell('torch')} | {cell('cupy')} | "
              f"{ms['torch'] / ms['libek']:.2f}x |", flush=True)
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("json", type=Path)
    ap.add_argument("--only")
    args = ap.parse_args()
    print("| op | libek | PyTorch | CuPy | libek speed-up over PyTorch |\n|---|---|---|---|---|")
    meta = {"device": torch.cuda.get_device_name(), "torch": torch.__version__,
            "cupy": cp.__version__ if cp else None, "rows": run(args.only)}
    args.json.write_text(json.dumps(meta, indent=1))


if __name__ == "__main__":
    main()
