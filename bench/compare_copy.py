#!/usr/bin/env python3
"""The copy cases of bench_copy in libek (through ctypes), PyTorch and CuPy.

Each case: warm-up, then timed reps, each between two events of the framework
on one stream; median and min ms. Bytes = elements read + elements written at
their dtype sizes; TB/s = 1e12 B/s from the median.

libek is loaded from $EK_LIBRARY, else build/libek.so.0 or build-bench/libek.so.0
of the repository. PyTorch and CuPy are used when importable.
Writes bench/results/copy.json (or --json PATH) and prints a Markdown table.
"""
import argparse
import ctypes as C
import json
import os
import statistics
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)

GIB = 1 << 30
M_T, M_S = 8192, 16384
# name, bytes moved (read + write)
CASES = [
    ("copy_f32_1GiB", 2 * GIB),
    ("copy_f32_2GiB", 4 * GIB),
    ("transpose_f32_8192", 2 * 4 * M_T * M_T),
    ("cast_f32_f16_256M", 6 * (1 << 28)),
    ("slice_f32_cols_step2", 2 * 4 * M_S * (M_S // 2)),
]


def fill_step(n):
    """Power-of-two step keeping 1 + i*step under ~1024 (exact in f32, finite in f16)."""
    step = 1.0
    while n * step > 1024:
        step /= 2
    return step


def summarize(ms):
    return {"median_ms": statistics.median(ms), "min_ms": min(ms), "reps": len(ms)}


# ---------------------------------------------------------------- libek
class Device(C.Structure):
    _fields_ = [("type", C.c_int), ("index", C.c_int)]


class Scalar(C.Structure):  # ek_scalar, passed by value
    _fields_ = [("kind", C.c_int), ("reserved_", C.c_int32), ("i", C.c_int64), ("u", C.c_uint64),
                ("f", C.c_double), ("imag", C.c_double)]


def f64(v):
    return Scalar(EK_SCALAR_FLOAT64, 0, 0, 0, v, 0.0)


EK_CUDA, EK_FLOAT16, EK_FLOAT32 = 1, 6, 8
EK_SCALAR_FLOAT64 = 3
EK_SLICE_MAX = (1 << 63) - 1


def load_ek():
    paths = [os.environ["EK_LIBRARY"]] if os.environ.get("EK_LIBRARY") else [
        os.path.join(ROOT, d, "libek.so.0") for d in ("build", "build-bench")]
    for p in paths:
        if os.path.exists(p):
            lib = C.CDLL(p)
            break
    else:
        raise OSError("libek.so.0 not found in " + ", ".join(paths) + " (set EK_LIBRARY)")
    P, H = C.POINTER, C.c_void_p
    sigs = {
        "ek_context_create": [Device, H, P(H)],
        "ek_context_destroy": [H],
        "ek_stream_create": [H, P(H)],
        "ek_stream_destroy": [H],
        "ek_stream_synchronize": [H],
        "ek_event_create": [H, P(H)],
        "ek_event_destroy": [H],
        "ek_event_record": [H, H],
        "ek_event_synchronize": [H],
        "ek_event_get_elapsed_ms": [H, H, P(C.c_float)],
        "ek_arange": [H, H, Scalar, Scalar, Scalar, C.c_int, P(H)],
        "ek_tensor_empty": [H, H, C.c_int, P(C.c_int64), C.c_int, P(H)],
        "ek_tensor_release": [H],
        "ek_view_reshape": [H, C.c_int, P(C.c_int64), P(H)],
        "ek_view_transpose": [H, C.c_int, C.c_int, P(H)],
        "ek_view_slice": [H, C.c_int, C.c_int64, C.c_int64, C.c_int64, P(H)],
        "ek_copy": [H, H, H],
        "ek_fill": [H, Scalar, H],
    }
    for name, args in sigs.items():
        f = getattr(lib, name)
        f.argtypes, f.restype = args, C.c_int
    lib.ek_last_error.argtypes, lib.ek_last_error.restype = [], C.c_char_p
    lib.ek_status_string.argtypes, lib.ek_status_string.restype = [C.c_int], C.c_char_p
    return lib


class Ek:
    def __init__(self, lib):
        self.lib = lib
        self.ctx, self.stream = C.c_void_p(), C.c_void_p()
        self.check("ek_context_create", Device(EK_CUDA, 0), None, C.byref(self.ctx))
        self.check("ek_stream_create", self.ctx, C.byref(self.stream))
        self.ev = [C.c_void_p(), C.c_void_p()]
        for e in self.ev:
            self.check("ek_event_create", self.ctx, C.byref(e))

    def check(self, name, *args):
        status = getattr(self.lib, name)(*args)
        if status != 0:
            raise RuntimeError("%s -> %s: %s" % (name, self.lib.ek_status_string(status).decode(),
                                                 self.lib.ek_last_error().decode()))

    def out(self, name, *args):
        t = C.c_void_p()
        self.check(name, *args, C.byref(t))
        return t

    @staticmethod
    def shape(dims):
        return len(dims), (C.c_int64 * len(dims))(*dims)

    def filled(self, dims):
        n = 1
        for d in dims:
            n *= d
        step = fill_step(n)
        flat = self.out("ek_arange", self.stream, self.ctx, f64(1.0), f64(1.0 + n * step),
                        f64(step), EK_FLOAT32)
        t = self.out("ek_view_reshape", flat, *self.shape(dims))
        self.check("ek_tensor_release", flat)
        return t

    def empty(self, dims, dtype=EK_FLOAT32):
        t = self.out("ek_tensor_empty", self.stream, self.ctx, *self.shape(dims), dtype)
        self.check("ek_fill", self.stream, f64(-7.0), t)
        return t

    def time(self, op, warmup, reps):
        for _ in range(warmup):
            op()
        self.check("ek_stream_synchronize", self.stream)
        ms, f = [], C.c_float()
        for _ in range(reps):
            self.check("ek_event_record", self.stream, self.ev[0])
            op()
            self.check("ek_event_record", self.stream, self.ev[1])
            self.check("ek_event_synchronize", self.ev[1])
            self.check("ek_event_get_elapsed_ms", self.ev[0], self.ev[1], C.byref(f))
            ms.append(f.value)
        return ms

    def run(self, case, warmup, reps):
        keep = []
        if case.startswith("copy_f32_"):
            n = int(case[len("copy_f32_")]) << 28
            src, dst = self.filled([n]), self.empty([n])
        elif case == "transpose_f32_8192":
            keep.append(self.filled([M_T, M_T]))
            src, dst = self.out("ek_view_transpose", keep[0], 0, 1), self.empty([M_T, M_T])
        elif case == "cast_f32_f16_256M":
            src, dst = self.filled([1 << 28]), self.empty([1 << 28], EK_FLOAT16)
        else:
            keep.append(self.filled([M_S, M_S]))
            src = self.out("ek_view_slice", keep[0], 1, 0, EK_SLICE_MAX, 2)
            dst = self.empty([M_S, M_S // 2])
        ms = self.time(lambda: self.check("ek_copy", self.stream, src, dst), warmup, reps)
        for t in keep + [src, dst]:
            self.check("ek_tensor_release", t)
        return ms

    def close(self):
        for e in self.ev:
            self.check("ek_event_destroy", e)
        self.check("ek_stream_destroy", self.stream)
        self.check("ek_context_destroy", self.ctx)


# ---------------------------------------------------------------- PyTorch / CuPy
def make_inputs(xp, case, f16):
    """(src view, dst) for a case; xp is torch or cupy; f16 the half dtype."""
    def filled(n, shape):
        a = xp.arange(n, dtype=xp.float32) if xp.__name__ == "cupy" else \
            xp.arange(n, dtype=xp.float32, device="cuda")
        return (a * fill_step(n) + 1).reshape(shape)

    def empty(shape, dt):
        a = xp.empty(shape, dtype=dt) if xp.__name__ == "cupy" else \
            xp.empty(shape, dtype=dt, device="cuda")
        a.fill(-7.0) if xp.__name__ == "cupy" else a.fill_(-7.0)
        return a

    if case.startswith("copy_f32_"):
        n = int(case[len("copy_f32_")]) << 28
        return filled(n, (n,)), empty((n,), xp.float32)
    if case == "transpose_f32_8192":
        return filled(M_T * M_T, (M_T, M_T)).T, empty((M_T, M_T), xp.float32)
    if case == "cast_f32_f16_256M":
        return filled(1 << 28, (1 << 28,)), empty((1 << 28,), f16)
    return filled(M_S * M_S, (M_S, M_S))[:, ::2], empty((M_S, M_S // 2), xp.float32)


def time_events(make_event, elapsed, sync, op, warmup, reps):
    for _ in range(warmup):
        op()
    sync()
    ms = []
    for _ in range(reps):
        a, b = make_event(), make_event()
        a.record()
        op()
        b.record()
        b.synchronize()
        ms.append(elapsed(a, b))
    return ms


def run_torch(torch, case, warmup, reps):
    src, dst = make_inputs(torch, case, torch.float16)
    ms = time_events(lambda: torch.cuda.Event(enable_timing=True), lambda a, b: a.elapsed_time(b),
                     torch.cuda.synchronize, lambda: dst.copy_(src), warmup, reps)
    for i in (0, -1):  # spot check
        if not torch.allclose(dst[i].float(), src[i].float(), rtol=1e-3, atol=0):
            raise RuntimeError("torch %s: wrong result" % case)
    del src, dst
    torch.cuda.empty_cache()
    return ms


def run_cupy(cp, case, warmup, reps):
    src, dst = make_inputs(cp, case, cp.float16)
    ms = time_events(cp.cuda.Event, cp.cuda.get_elapsed_time, cp.cuda.Device().synchronize,
                     lambda: cp.copyto(dst, src, casting="unsafe"), warmup, reps)
    for i in (0, -1):
        if not cp.allclose(dst[i].astype(cp.float32), src[i], rtol=1e-3, atol=0):
            raise RuntimeError("cupy %s: wrong result" % case)
    del src, dst
    cp.get_default_memory_pool().free_all_blocks()
    return ms


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--json", default=os.path.join(HERE, "results", "copy.json"))
    ap.add_argument("--warmup", type=int, default=5)
    ap.add_argument("--reps", type=int, default=30)
    args = ap.parse_args()

    runners, failed = {}, False
    try:
        ek = Ek(load_ek())
        runners["libek"] = lambda case: ek.run(case, args.warmup, args.reps)
    except (OSError, RuntimeError) as e:
        print("libek: unavailable:", e, file=sys.stderr)
        ek, failed = None, True
    try:
        import torch
        if torch.cuda.is_available():
            runners["torch"] = lambda case: run_torch(torch, case, args.warmup, args.reps)
    except ImportError:
        torch = None
    try:
        import cupy
        runners["cupy"] = lambda case: run_cupy(cupy, case, args.warmup, args.reps)
    except ImportError:
        pass

    meta = {"benchmark": "compare_copy", "warmup": args.warmup, "reps": args.reps,
            "bytes": "elements read + elements written, at their dtype sizes; TB = 1e12 B"}
    if torch is not None and torch.cuda.is_available():
        meta["device"] = torch.cuda.get_device_name(0)
        meta["torch"] = torch.__version__
    if "cupy" in runners:
        meta["cupy"] = cupy.__version__
    results = []
    # One framework at a time, so that only one caching pool holds memory.
    for impl, run in runners.items():
        for case, nbytes in CASES:
            try:
                r = summarize(run(case))
            except RuntimeError as e:
                print("%s %s: %s" % (impl, case, e), file=sys.stderr)
                failed = True
                continue
            r.update(op=case, impl=impl, bytes=nbytes,
                     tbps_median=nbytes / (r["median_ms"] * 1e-3) / 1e12,
                     tbps_best=nbytes / (r["min_ms"] * 1e-3) / 1e12)
            results.append(r)
            print("%-22s %-6s median %8.3f ms  min %8.3f ms  %6.3f TB/s" %
                  (case, impl, r["median_ms"], r["min_ms"], r["tbps_median"]), flush=True)
        if impl == "libek":
            try:
                ek.close()
            except RuntimeError as e:
                print("libek: close:", e, file=sys.stderr)
                failed = True

    os.makedirs(os.path.dirname(os.path.abspath(args.json)), exist_ok=True)
    with open(args.json, "w") as f:
        json.dump({"meta": meta, "results": results}, f, indent=1)
    print("wrote", args.json)

    by = {(r["op"], r["impl"]): r["tbps_median"] for r in results}
    cell = lambda op, impl: "%.3f" % by[(op, impl)] if (op, impl) in by else "n/a"
    print("\n| op | bytes | libek TB/s | torch TB/s | cupy TB/s |\n|---|---|---|---|---|")
    for case, nbytes in CASES:
        print("| %s | %.3f GB | %s | %s | %s |" % (case, nbytes / 1e9, cell(case, "libek"),
                                                 cell(case, "torch"), cell(case, "cupy")))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
