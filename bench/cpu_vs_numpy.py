#!/usr/bin/env python3
"""libek's CPU backend against NumPy, same process, single thread (issue 20).

Each row times one op on f32 data through the Python binding (into a
preallocated ``out=`` where the op has one) and the NumPy equivalent, and
reports the median of ``--repeat`` runs in ms and the libek / NumPy time ratio
(below 1.0: libek is faster). Run single-threaded for the issue's numbers:

    OMP_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1 EK_NUM_THREADS=1 \\
    EK_LIBRARY=build-cpu/libek.so.0 PYTHONPATH=bindings/python \\
        python3 bench/cpu_vs_numpy.py [--json out.json] [--quick]

With all cores (``EK_NUM_THREADS=<cores>``) the memory-bound rows (copy,
add, mul, exp, sum) are also reported in GB/s and as a share of the best
copy bandwidth measured in the same run: NumPy's ``copyto`` (one memcpy) or
libek's copy (threaded); the issue's target is 80%.

``--quick`` (CI) uses small sizes and few runs: a smoke test of every row in a
few seconds, its ratios are call-overhead bound and mean little.

Other benchmarks add rows by appending to ROWS: ``(name, setup)`` where
``setup(n, ek, np)`` returns ``(ek_fn, np_fn)``, two no-argument callables.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import time

for _v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "EK_NUM_THREADS"):
    os.environ.setdefault(_v, "1")  # before NumPy loads its BLAS

import numpy as np  # noqa: E402


def _rand(shape, seed=0):
    return np.random.default_rng(seed).standard_normal(shape, dtype=np.float32)


def _binary(opname):
    def setup(n, ek, np_):
        a, b = _rand(n, 1), _rand(n, 2)
        c = np.empty_like(a)
        ea, eb, ec = ek.from_numpy(a), ek.from_numpy(b), ek.from_numpy(c)
        ek_op, np_op = getattr(ek, opname), getattr(np, {"add": "add", "mul": "multiply"}[opname])
        return (lambda: ek_op(ea, eb, out=ec)), (lambda: np_op(a, b, out=c))
    return setup


def _copy(n, ek, np_):
    a = _rand(n)
    c = np.empty_like(a)
    ea, ec = ek.from_numpy(a), ek.from_numpy(c)
    return (lambda: ec.copy_(ea)), (lambda: np.copyto(c, a))


def _exp(n, ek, np_):
    a = _rand(n)
    c = np.empty_like(a)
    ea, ec = ek.from_numpy(a), ek.from_numpy(c)
    return (lambda: ek.exp(ea, out=ec)), (lambda: np.exp(a, out=c))


def _where(n, ek, np_):
    a, b = _rand(n, 1), _rand(n, 2)
    m = _rand(n, 3) > 0
    c = np.empty_like(a)
    ea, eb, em, ec = ek.from_numpy(a), ek.from_numpy(b), ek.from_numpy(m), ek.from_numpy(c)
    return (lambda: ek.where(em, ea, eb, out=ec)), (lambda: np.where(m, a, b))


def _cast_f16(n, ek, np_):
    a = _rand(n)
    h = np.empty(n, np.float16)
    ea, eh = ek.from_numpy(a), ek.from_numpy(h)
    from ek import _capi
    return (lambda: _capi.cast(ea, ek.float16, out=eh)), (lambda: np.copyto(h, a, casting="unsafe"))


def _sum_all(n, ek, np_):
    a = _rand(n)
    ea = ek.from_numpy(a)
    return (lambda: ek.sum(ea)), (lambda: a.sum())


def _square(n):
    side = int(round(n ** 0.5))
    return side, side


def _sum_dim(dim):
    def setup(n, ek, np_):
        a = _rand(_square(n))
        ea = ek.from_numpy(a)
        return (lambda: ek.sum(ea, dim)), (lambda: a.sum(dim))
    return setup


def _softmax(n, ek, np_):
    x = _rand((max(1, n // 4096), 1024))
    out = np.empty_like(x)
    ex, eo = ek.from_numpy(x), ek.from_numpy(out)

    def np_softmax():
        e = np.exp(x - x.max(axis=1, keepdims=True))
        e /= e.sum(axis=1, keepdims=True)
        return e
    return (lambda: ek.softmax(ex, -1, out=eo)), np_softmax


def _transpose(n, ek, np_):
    side = int(round((n // 4) ** 0.5))
    x = _rand((side, side))
    y = np.empty_like(x)
    ex, ey = ek.from_numpy(x), ek.from_numpy(y)
    ext = ex.transpose(0, 1)
    return (lambda: ey.copy_(ext)), (lambda: np.copyto(y, x.T))


def _index_select(n, ek, np_):
    rows, cols = max(1, n // 4096), 1024
    x = _rand((rows, cols))
    idx = np.random.default_rng(4).integers(0, rows, rows, dtype=np.int64)
    out = np.empty_like(x)
    ex, ei, eo = ek.from_numpy(x), ek.from_numpy(idx), ek.from_numpy(out)
    return (lambda: ek.index_select(ex, 0, ei, out=eo)), (lambda: np.take(x, idx, axis=0, out=out))


def _masked_select(n, ek, np_):
    a = _rand(n)
    m = _rand(n, 3) > 0
    ea, em = ek.from_numpy(a), ek.from_numpy(m)
    return (lambda: ek.masked_select(ea, em)), (lambda: a[m])


def _cumsum(n, ek, np_):
    a = _rand(n)
    c = np.empty_like(a)
    ea, ec = ek.from_numpy(a), ek.from_numpy(c)
    return (lambda: ek.cumsum(ea, 0, out=ec)), (lambda: np.cumsum(a, out=c))


def _matmul(n, ek, np_):
    from cpu_matmul import matmul_setup  # BLAS's own benchmark (bench/cpu_matmul.py)
    return matmul_setup(n, ek, np_)


# (name, setup); n is the element count of the large operand (16M f32 by default).
ROWS = [
    ("copy (memcpy)", _copy),
    ("add", _binary("add")),
    ("mul", _binary("mul")),
    ("exp", _exp),
    ("where", _where),
    ("cast f32->f16", _cast_f16),
    ("sum", _sum_all),
    ("sum dim 0 (square)", _sum_dim(0)),
    ("sum dim 1 (square)", _sum_dim(1)),
    ("softmax (n/4096)x1024, dim -1", _softmax),
    ("transpose (sqrt(n/4))^2 to contiguous", _transpose),
    ("index_select (n/4096)x1024 rows", _index_select),
    ("masked_select", _masked_select),
    ("cumsum", _cumsum),
    ("matmul (sqrt(n/4))^2 f32", _matmul),
]


# Bytes each row moves per element of n (read + written), for GB/s: the
# memory-bound rows, reported as a share of the copy's bandwidth.
BYTES_PER_ELEMENT = {"copy (memcpy)": 8, "add": 12, "mul": 12, "exp": 8, "sum": 4}


def _median_ms(fn, repeat):
    fn()  # warm up: pages, pools, lazy loading
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t0) * 1e3)
    return statistics.median(times)


def run(n, repeat, only=None):
    import ek
    results = []
    for name, setup in ROWS:
        if only and not any(o in name for o in only):
            continue
        ek_fn, np_fn = setup(n, ek, np)
        ek_fn()
        ek.synchronize("cpu")

        def ek_sync():
            ek_fn()
            ek.synchronize("cpu")
        # Interleaved halves: a slow phase of the shared machine hits both sides.
        e1, n1 = _median_ms(ek_sync, repeat), _median_ms(np_fn, repeat)
        e2, n2 = _median_ms(ek_sync, repeat), _median_ms(np_fn, repeat)
        e, t = min(e1, e2), min(n1, n2)
        row = {"op": name, "n": n, "ek_ms": e, "numpy_ms": t, "ratio": e / t if t else None}
        if name in BYTES_PER_ELEMENT:
            nbytes = BYTES_PER_ELEMENT[name] * n
            row["ek_gbs"], row["numpy_gbs"] = nbytes / e / 1e6, nbytes / t / 1e6
        results.append(row)
        print(f"  {name}: ek {e:.2f} ms, numpy {t:.2f} ms", file=sys.stderr)
    return results


def bandwidth(results):
    """The memory-bound rows' libek GB/s as % of the best copy: NumPy's
    (one memcpy) or libek's (a copy on EK_NUM_THREADS threads)."""
    copy = next((r for r in results if r["op"] == "copy (memcpy)"), None)
    if not copy:
        return []
    best = max(copy["ek_gbs"], copy["numpy_gbs"])
    return [{"op": r["op"], "ek_gbs": r["ek_gbs"], "copy_gbs": best, "percent": 100 * r["ek_gbs"] / best}
            for r in results if "ek_gbs" in r]


def markdown(results):
    lines = ["| op (f32, n = %d) | NumPy ms | libek ms | libek / NumPy |" % results[0]["n"],
             "| --- | --- | --- | --- |"]
    for r in results:
        lines.append(f"| {r['op']} | {r['numpy_ms']:.2f} | {r['ek_ms']:.2f} | {r['ratio']:.2f} |")
    bw = bandwidth(results)
    if bw:
        lines += ["", "| memory-bound op (libek, %s threads) | GB/s | %% of copy (%.1f GB/s) |"
                  % (os.environ.get("EK_NUM_THREADS"), bw[0]["copy_gbs"]), "| --- | --- | --- |"]
        lines += [f"| {b['op']} | {b['ek_gbs']:.1f} | {b['percent']:.0f}% |" for b in bw]
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--n", type=int, default=1 << 24, help="elements of the large operand (16M)")
    ap.add_argument("--repeat", type=int, default=7, help="runs per median (twice, interleaved)")
    ap.add_argument("--quick", action="store_true", help="CI smoke mode: 64K elements, 3 runs")
    ap.add_argument("--only", nargs="*", help="rows whose name contains one of these")
    ap.add_argument("--json", help="write the results here")
    args = ap.parse_args()
    n, repeat = (1 << 16, 3) if args.quick else (args.n, args.repeat)
    results = run(n, repeat, args.only)
    print(markdown(results))
    if args.json:
        meta = {"numpy": np.__version__, "python": platform.python_version(), "machine": platform.machine(),
                "cpus": os.cpu_count(), "threads": os.environ.get("EK_NUM_THREADS"), "repeat": repeat}
        with open(args.json, "w") as f:
            json.dump({"meta": meta, "results": results, "bandwidth": bandwidth(results)}, f, indent=1)
            f.write("\n")


if __name__ == "__main__":
    main()
