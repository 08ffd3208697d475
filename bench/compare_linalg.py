#!/usr/bin/env python3
"""Integer matmul on the GPU: libek's own tiled kernel (kernels/int_gemm.cu)
against CuPy (its integer matmul kernel) and PyTorch where it has one
(torch.matmul has no CUDA integer path; torch._int_mm, int8 -> int32 with
int32 results, is listed for int8 as a reference of tensor-core speed, not
the same product). Same inputs for every library (made by PyTorch, shared
without copies), the same timing as compare_ops.py: each library on its own
stream with its own CUDA events, 5 warm-up calls, the median of 30, a sleep
kernel ahead of each timed call. Rates in TOPS (2*m*n*k integer operations
per second, 1e12). libek's results are checked against CuPy's, bit for bit
(both wrap).

Usage: compare_linalg.py [--json F] [--md F] [--sizes 4096,2048]
"""
from __future__ import annotations

import argparse
import ctypes
import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import compare_ops as co  # noqa: E402  (its Ek shim, timers and Out)
from compare_ops import Ek, Out, check, lib, time_cupy, time_torch, torch  # noqa: E402
from ek import _ffi  # noqa: E402

co.DT.update({torch.int8: _ffi.EK_INT8, torch.int32: _ffi.EK_INT32, torch.uint8: _ffi.EK_UINT8,
              torch.int16: _ffi.EK_INT16})
DTYPES = [("int32", torch.int32), ("int8", torch.int8), ("int64", torch.int64)]


def operands(size: int, dt):
    g = torch.Generator(device="cuda").manual_seed(size)
    lo, hi = (-128, 128) if dt == torch.int8 else (-1000, 1000)
    return (torch.randint(lo, hi, (size, size), dtype=dt, device="cuda", generator=g) for _ in range(2))


def torch_op(a, b, dt):
    """PyTorch's integer product, or None when it has none on CUDA."""
    if dt == torch.int8 and hasattr(torch, "_int_mm"):
        return lambda: torch._int_mm(a, b), "torch._int_mm (int8->int32)"
    try:
        torch.matmul(a[:8, :8], b[:8, :8])
        return lambda: torch.matmul(a, b), "torch.matmul"
    except RuntimeError:
        return None, "torch.matmul: no CUDA integer matmul"


def row(e: Ek, size: int, name: str, dt) -> dict:
    a, b = operands(size, dt)
    ea, eb, eo = e.wrap(a), e.wrap(b), Out()
    ops = 2 * size ** 3
    r = {"case": f"matmul {name} {size}^2", "ops": ops}
    r["ek_ms"] = e.time_ms(lambda: check(lib.ek_matmul(e.s, ea, eb, eo.ref)))
    if co.cp is not None:
        ca, cb = co.cp.from_dlpack(a), co.cp.from_dlpack(b)
        r["cupy_ms"] = time_cupy(lambda: co.cp.matmul(ca, cb))
        want = co.cp.matmul(ca, cb)
        r["equal_to_cupy"] = bool(equal(e, eo, want))
    op, note = torch_op(a, b, dt)
    r["torch_note"] = note
    if op is not None:
        r["torch_ms"] = time_torch(op)
    for k in ("ek", "cupy", "torch"):
        if f"{k}_ms" in r:
            r[f"{k}_tops"] = ops / (r[f"{k}_ms"] * 1e-3) / 1e12
    return r


def equal(e: Ek, out: Out, want) -> bool:
    """libek's result (copied to the host) equals CuPy's bit for bit."""
    host = np.empty(want.shape, dtype=want.dtype)
    check(lib.ek_tensor_to_host(e.s, out.h, host.ctypes.data_as(ctypes.c_void_p), host.nbytes))
    return bool(np.array_equal(host, co.cp.asnumpy(want)))


def markdown(rows) -> str:
    lines = ["| case | libek ms | TOPS | CuPy ms | TOPS | PyTorch ms | TOPS | equal |",
             "| --- | ---: | ---: | ---: | ---: | ---: | ---: | --- |"]
    f = lambda r, k: f"{r[k]:.3f}" if k in r else "—"  # noqa: E731
    g = lambda r, k: f"{r[k]:.1f}" if k in r else "—"  # noqa: E731
    for r in rows:
        lines.append(f"| {r['case']} | {f(r, 'ek_ms')} | {g(r, 'ek_tops')} | {f(r, 'cupy_ms')} | "
                     f"{g(r, 'cupy_tops')} | {f(r, 'torch_ms')} | {g(r, 'torch_tops')} | "
                     f"{r.get('equal_to_cupy', '—')} |")
    notes = sorted({r["torch_note"] for r in rows})
    return "\n".join(lines + [""] + [f"PyTorch: {n}" for n in notes]) + "\n"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--json")
    ap.add_argument("--md")
    ap.add_argument("--sizes", default="4096,2048")
    args = ap.parse_args()
    e = Ek()
    rows = [row(e, int(s), name, dt) for s in args.sizes.split(",") for name, dt in DTYPES]
    rows.append({"device": torch.cuda.get_device_name()})
    text = markdown(rows[:-1])
    print(text)
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1))
    if args.md:
        Path(args.md).write_text(text)


if __name__ == "__main__":
    main()
