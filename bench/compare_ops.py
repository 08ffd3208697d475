#!/usr/bin/env python3
"""libek, PyTorch and CuPy side by side on the same GPU, the same inputs.

Inputs are made once with PyTorch and shared: libek wraps them (ek_tensor_wrap,
no copy) and CuPy takes them through DLPack. libek is called through a thin
ctypes shim over the C API (ek._lib), so its column includes ctypes' cost;
bench_ops (C) gives the C-only numbers. Each library is timed on its own
stream with its own CUDA events: 5 warm-up calls, then the median of 30
(sleep kernel, start event, op, end event, sync). The sleep (about 50 us, the
same for every library) keeps the GPU busy while the host enqueues the start
event and the op, so the events measure the op's device time, not the host's
launch latency (5-7 us per launch on the H100 hosts). Tiny ops are also timed
"alone" (no sleep: what one op costs from an idle stream, launch included).
Bytes count every input element read once
and every output element written once; matmul counts 2*m*n*k flops.

Writes JSON (--json), a Markdown table (--md) and a PNG chart (--png).
Usage: compare_ops.py [--json F] [--md F] [--png F] [--only SUBSTRING]
"""
from __future__ import annotations

import argparse
import ctypes
import json
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bindings" / "python"))

try:
    import torch
    import cupy as cp
except ImportError:  # --redraw needs neither; a run without CuPy shows "—"
    cp = None
if "--redraw" not in sys.argv:
    from ek import _ffi
    from ek._lib import lib

WARMUP, REPS = 5, 30
DT = {} if "--redraw" in sys.argv else {torch.float32: _ffi.EK_FLOAT32, torch.float16: _ffi.EK_FLOAT16,
      torch.bfloat16: _ffi.EK_BFLOAT16, torch.int64: _ffi.EK_INT64, torch.bool: _ffi.EK_BOOL}


def check(status: int) -> None:
    if status != 0:
        raise RuntimeError(lib.ek_last_error().decode())


class Ek:
    """The shim: one CUDA context, one stream, two events."""

    def __init__(self):
        self.ctx = _ffi.ek_context()
        check(lib.ek_context_create(_ffi.ek_device(_ffi.EK_CUDA, 0), None, ctypes.byref(self.ctx)))
        self.s = _ffi.ek_stream()
        check(lib.ek_stream_create(self.ctx, ctypes.byref(self.s)))
        self.ev = [_ffi.ek_event(), _ffi.ek_event()]
        for e in self.ev:
            check(lib.ek_event_create(self.ctx, ctypes.byref(e)))
        self.keep = []
        native = ctypes.c_void_p()
        check(lib.ek_stream_get_native(self.s, ctypes.byref(native)))
        self.torch_stream = torch.cuda.ExternalStream(native.value)

    def wrap(self, t: torch.Tensor):
        """An ek tensor over t's memory (t stays alive in self.keep)."""
        self.keep.append(t)
        h = _ffi.ek_tensor()
        shape = (ctypes.c_int64 * max(t.dim(), 1))(*t.shape)
        strides = (ctypes.c_int64 * max(t.dim(), 1))(*t.stride())
        check(lib.ek_tensor_wrap(self.ctx, ctypes.c_void_p(t.data_ptr()), t.dim(), shape, strides,
                                 DT[t.dtype], _ffi.ek_deleter(), None, ctypes.byref(h)))
        return h

    def time_ms(self, op, queued=True) -> float:
        for _ in range(WARMUP):
            op()
        ms, out = [], ctypes.c_float()
        for _ in range(REPS):
            if queued:
                sleep(self.torch_stream)
            check(lib.ek_event_record(self.s, self.ev[0]))
            op()
            check(lib.ek_event_record(self.s, self.ev[1]))
            check(lib.ek_event_synchronize(self.ev[1]))
            check(lib.ek_event_get_elapsed_ms(self.ev[0], self.ev[1], ctypes.byref(out)))
            ms.append(out.value)
        return statistics.median(ms)


SLEEP_CYCLES = 100_000  # about 50 us at the H100's clocks


def sleep(torch_stream) -> None:
    """Keeps the stream's GPU queue busy while the host enqueues what follows."""
    with torch.cuda.stream(torch_stream):
        torch.cuda._sleep(SLEEP_CYCLES)


def time_cuda(op, event_cls, stream_ctx, torch_stream, queued) -> float:
    """Median ms of op on a library's own stream, with that library's events."""
    with stream_ctx:
        for _ in range(WARMUP):
            op()
        ms = []
        for _ in range(REPS):
            a, b = event_cls(), event_cls()
            if queued:
                sleep(torch_stream)
            a.record()
            op()
            b.record()
            b.synchronize()
            ms.append(a.elapsed_time(b) if hasattr(a, "elapsed_time") else cp.cuda.get_elapsed_time(a, b))
        return statistics.median(ms)


def time_torch(op, queued=True) -> float:
    s = torch.cuda.Stream()
    return time_cuda(op, lambda: torch.cuda.Event(enable_timing=True), torch.cuda.stream(s), s, queued)


def time_cupy(op, queued=True) -> float:
    s = cp.cuda.Stream(non_blocking=True)
    return time_cuda(op, cp.cuda.Event, s, torch.cuda.ExternalStream(s.ptr), queued)


class Out:
    """A reusable ek output handle (ops write into it after the first call)."""

    def __init__(self):
        self.h = _ffi.ek_tensor()

    @property
    def ref(self):
        return ctypes.byref(self.h)


def rand(*shape, dtype=None):  # float32 unless dtype (no torch at import: --redraw)
    return torch.rand(*shape, device="cuda", dtype=torch.float32).to(dtype or torch.float32)


def cases(e: Ek):
    """(name, unit, amount, ek_op, torch_op, cupy_op); unit 'B' bytes or 'F' flops."""
    out = []
    n = 1 << 28
    x, y = rand(n), rand(n)
    ex, ey, ez = e.wrap(x), e.wrap(y), Out()
    z = torch.empty_like(x)
    cx, cy = (cp.from_dlpack(x), cp.from_dlpack(y)) if cp else (None, None)
    cz = cp.empty_like(cx) if cp else None
    for name, op, tfn, cfn in (("add", _ffi.EK_BINARY_ADD, torch.add, cp and cp.add),
                               ("mul", _ffi.EK_BINARY_MUL, torch.mul, cp and cp.multiply)):
        out.append((f"{name} 256M f32", "B", 12 * n,
                    lambda op=op: check(lib.ek_binary(e.s, op, ex, ey, ez.ref)),
                    lambda tfn=tfn: tfn(x, y, out=z),
                    cfn and (lambda cfn=cfn: cfn(cx, cy, out=cz))))
    out += half_cases(e, n)
    es = Out()
    out.append(("sum 256M f32", "B", 4 * n,
                lambda: check(lib.ek_reduce(e.s, _ffi.EK_REDUCE_SUM, ex, 0, None, 0, es.ref)),
                lambda: x.sum(), cp and (lambda: cx.sum())))
    m = rand(32768, 1024)
    em, cm = e.wrap(m), cp and cp.from_dlpack(m)
    for dim, label in ((1, "rows"), (0, "columns")):
        eo, dims = Out(), (ctypes.c_int * 1)(dim)
        out.append((f"sum over {label} 32768x1024", "B", 4 * m.numel(),
                    lambda eo=eo, dims=dims: check(lib.ek_reduce(e.s, _ffi.EK_REDUCE_SUM, em, 1, dims, 0, eo.ref)),
                    lambda dim=dim: m.sum(dim), cp and (lambda dim=dim: cm.sum(axis=dim))))
    out += softmax_cases(e)
    out += join_cases(e)
    out += matmul_cases(e)
    out += index_cases(e)
    out += tiny_cases(e)
    return out


def half_cases(e: Ek, n: int):
    """16-bit floats: mul over n elements (fast path), a bias add (rows path)."""
    out = []
    for dt, label in ((torch.bfloat16, "bf16"), (torch.float16, "f16")):
        x, y = rand(n, dtype=dt), rand(n, dtype=dt)
        ex, ey, ez, z = e.wrap(x), e.wrap(y), Out(), torch.empty_like(x)
        cfn = None
        if cp and dt != torch.bfloat16:  # CuPy has no bfloat16
            cx, cy = cp.from_dlpack(x), cp.from_dlpack(y)
            cz = cp.empty_like(cx)
            cfn = lambda cx=cx, cy=cy, cz=cz: cp.multiply(cx, cy, out=cz)  # noqa: E731
        out.append((f"mul 256M {label}", "B", 6 * n,
                    lambda ex=ex, ey=ey, ez=ez: check(lib.ek_binary(e.s, _ffi.EK_BINARY_MUL, ex, ey, ez.ref)),
                    lambda x=x, y=y, z=z: torch.mul(x, y, out=z), cfn))
    m, bias = rand(32768, 4096, dtype=torch.bfloat16), rand(4096, dtype=torch.bfloat16)
    em, eb, eo, z = e.wrap(m), e.wrap(bias), Out(), torch.empty_like(m)
    out.append(("bias add 32768x4096 bf16", "B", 2 * 2 * m.numel(),
                lambda: check(lib.ek_binary(e.s, _ffi.EK_BINARY_ADD, em, eb, eo.ref)),
                lambda: torch.add(m, bias, out=z), None))
    return out


def cupy_softmax(ct):
    ex = cp.exp(ct - ct.max(axis=-1, keepdims=True))
    return ex / ex.sum(axis=-1, keepdims=True)


def softmax_cases(e: Ek):
    if not hasattr(lib, "ek_softmax"):
        return []
    res = []
    for shape in ((32768, 1024), (1024, 32768), (10000,)):
        t = rand(*shape)
        et, eo = e.wrap(t), Out()
        ct = cp and cp.from_dlpack(t)
        name = "softmax " + "x".join(map(str, shape))
        res.append((name, "B", 8 * t.numel(),
                    lambda et=et, eo=eo: check(lib.ek_softmax(e.s, _ffi.EK_SOFTMAX_PLAIN, et, -1, eo.ref)),
                    lambda t=t: torch.softmax(t, -1), cp and (lambda ct=ct: cupy_softmax(ct))))
    return res


def join_cases(e: Ek):
    """concat of 8 x 32M f32 into a reused 1 GiB output, for all three."""
    if not hasattr(lib, "ek_concat"):
        return []
    n = 1 << 25
    xs = [rand(n) for _ in range(8)]
    exs = (_ffi.ek_tensor * 8)(*[e.wrap(x) for x in xs])
    eo, z = Out(), torch.empty(8 * n, device="cuda")
    cxs = cp and [cp.from_dlpack(x) for x in xs]
    cz = cp and cp.empty(8 * n, dtype=cp.float32)
    return [("concat 8 x 32M f32", "B", 2 * 4 * 8 * n,
             lambda: check(lib.ek_concat(e.s, 8, exs, 0, eo.ref)),
             lambda: torch.cat(xs, out=z), cp and (lambda: cp.concatenate(cxs, out=cz)))]


def matmul_cases(e: Ek):
    if not hasattr(lib, "ek_matmul"):
        return []
    res = []
    for size, dt, label in ((1024, torch.float32, "f32"), (4096, torch.float32, "f32"),
                            (4096, torch.bfloat16, "bf16"), (8192, torch.bfloat16, "bf16")):
        a, b = rand(size, size, dtype=dt), rand(size, size, dtype=dt)
        ea, eb, eo = e.wrap(a), e.wrap(b), Out()
        ca, cb = (cp.from_dlpack(a), cp.from_dlpack(b)) if cp and dt != torch.bfloat16 else (None, None)
        res.append((f"matmul {size}^2 {label}", "F", 2 * size ** 3,
                    lambda ea=ea, eb=eb, eo=eo: check(lib.ek_matmul(e.s, ea, eb, eo.ref)),
                    lambda a=a, b=b: a @ b, ca is not None and (lambda ca=ca, cb=cb: ca @ cb)))
    return res


def index_cases(e: Ek):
    res = []
    n = 1 << 26
    x = rand(n)
    ex = e.wrap(x)
    cx = cp and cp.from_dlpack(x)
    if hasattr(lib, "ek_masked_select"):
        mask = torch.rand(n, device="cuda") < 0.5
        emask, eo = e.wrap(mask), Out()
        cmask = cp and cp.from_dlpack(mask)

        def ek_masked():
            check(lib.ek_tensor_release(eo.h))
            eo.h = _ffi.ek_tensor()
            check(lib.ek_masked_select(e.s, ex, emask, eo.ref))
        res.append(("masked_select 64M f32, half true", "B", 5 * n + 2 * n,
                    ek_masked, lambda: x[mask], cp and (lambda: cx[cmask])))
    if hasattr(lib, "ek_index_select"):
        idx = torch.randint(0, n, (1 << 20,), device="cuda")
        eidx, eo2 = e.wrap(idx), Out()
        cidx = cp and cp.from_dlpack(idx)
        res.append(("gather 1M of 64M f32", "B", (8 + 4 + 4) * idx.numel(),
                    lambda: check(lib.ek_index_select(e.s, ex, 0, eidx, eo2.ref)),
                    lambda: x[idx], cp and (lambda: cx[cidx])))
    return res


def tiny_cases(e: Ek):
    """Latency-bound: one small op between the events."""
    n = 1 << 20
    x, y = rand(n), rand(n)
    ex, ey, ez, es = e.wrap(x), e.wrap(y), Out(), Out()
    z = torch.empty_like(x)
    cx, cy = (cp.from_dlpack(x), cp.from_dlpack(y)) if cp else (None, None)
    cz = cp.empty_like(cx) if cp else None
    r = rand(10000)
    er, eo, cr = e.wrap(r), Out(), cp and cp.from_dlpack(r)
    ops = [("add 1M f32", 12 * n, lambda: check(lib.ek_binary(e.s, _ffi.EK_BINARY_ADD, ex, ey, ez.ref)),
            lambda: torch.add(x, y, out=z), cp and (lambda: cp.add(cx, cy, out=cz))),
           ("sum 1M f32", 4 * n, lambda: check(lib.ek_reduce(e.s, _ffi.EK_REDUCE_SUM, ex, 0, None, 0, es.ref)),
            lambda: x.sum(), cp and (lambda: cx.sum())),
           ("softmax 10000", 8 * r.numel(), lambda: check(lib.ek_softmax(e.s, _ffi.EK_SOFTMAX_PLAIN, er, -1, eo.ref)),
            lambda: torch.softmax(r, -1), cp and (lambda: cupy_softmax(cr)))]
    return [(f"{name} ({how})", "B", amount, ek_op, t_op, c_op, how == "device")
            for how in ("alone", "device") for name, amount, ek_op, t_op, c_op in ops]


def rate(unit: str, amount: float, ms: float | None):
    if ms is None:
        return None
    return amount / (ms * 1e-3) / 1e12


def run(only: str | None):
    e = Ek()
    rows = []
    all_cases = cases(e)
    torch.cuda.synchronize()  # the shared inputs are ready before any library reads them
    for name, unit, amount, ek_op, torch_op, cupy_op, *mode in all_cases:
        if only and only not in name:
            continue
        queued = mode[0] if mode else True
        row = {"op": name, "unit": "TFLOP/s" if unit == "F" else "TB/s", "queued": queued}
        for lib_name, op, timer in (("ek", ek_op, e.time_ms), ("torch", torch_op, time_torch),
                                    ("cupy", cupy_op, time_cupy)):
            ms = timer(op, queued) if op else None
            row[lib_name + "_us"] = None if ms is None else ms * 1e3
            row[lib_name + "_rate"] = rate(unit, amount, ms)
        rows.append(row)
        print(fmt_row(row), flush=True)
    return rows


def fmt(v, spec):
    return "—" if v is None else format(v, spec)


def fmt_row(r) -> str:
    return (f"| {r['op']} | " + " | ".join(f"{fmt(r[k + '_us'], '.1f')} µs ({fmt(r[k + '_rate'], '.2f')})"
                                           for k in ("ek", "torch", "cupy")) + " |")


def write_md(meta, path: Path) -> None:
    rows = meta["rows"]
    lines = [f"Device: {meta['device']}; libek via ctypes, PyTorch {meta['torch']}, "
             f"CuPy {meta['cupy'] or '—'}. Median of {REPS} after {WARMUP} warm-up, "
             "each behind a ~50 us sleep kernel (device time) unless marked (alone); "
             "rate in TB/s (bytes read + written) or TFLOP/s (matmul).", "",
             "| op | libek | PyTorch | CuPy |", "|---|---|---|---|"]
    lines += [fmt_row(r) for r in rows]
    path.write_text("\n".join(lines) + "\n")


def write_png(meta, path: Path) -> None:
    rows, device = meta["rows"], meta["device"]
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(10, 0.45 * len(rows) + 1.5))
    libs = (("ek", "libek"), ("torch", "PyTorch"), ("cupy", "CuPy"))
    h = 0.27
    for i, (key, label) in enumerate(libs):
        # Speed relative to PyTorch: > 1 is faster.
        vals = [(r["torch_us"] / r[key + "_us"]) if r[key + "_us"] and r["torch_us"] else 0 for r in rows]
        ax.barh([j + (i - 1) * h for j in range(len(rows))], vals, height=h, label=label)
    ax.set_yticks(range(len(rows)))
    ax.set_yticklabels([r["op"] for r in rows])
    ax.invert_yaxis()
    ax.axvline(1.0, color="gray", lw=0.8)
    ax.set_xlabel("speed relative to PyTorch (higher is faster)")
    ax.set_title(f"libek vs PyTorch vs CuPy on {device}")
    ax.legend(loc="lower right")
    fig.tight_layout()
    fig.savefig(path, dpi=120)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--json", type=Path)
    ap.add_argument("--md", type=Path)
    ap.add_argument("--png", type=Path)
    ap.add_argument("--only")
    ap.add_argument("--redraw", type=Path, help="draw --md/--png from this JSON, run nothing")
    args = ap.parse_args()
    if args.redraw:
        meta = json.loads(args.redraw.read_text())
    else:
        print("| op | libek | PyTorch | CuPy |\n|---|---|---|---|")
        meta = {"device": torch.cuda.get_device_name(), "torch": torch.__version__,
                "cupy": cp.__version__ if cp else None, "rows": run(args.only)}
    if args.json:
        args.json.write_text(json.dumps(meta, indent=1))
    if args.md:
        write_md(meta, args.md)
    if args.png:
        try:
            write_png(meta, args.png)
        except ImportError as exc:  # the chart can be drawn later with --redraw
            print(f"no chart: {exc}", file=sys.stderr)


if __name__ == "__main__":
    main()
