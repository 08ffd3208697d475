#!/usr/bin/env python3
"""libek's CPU matmul against NumPy's, same process, same BLAS thread count (issue 20).

Times C = A @ B on f32 [size, size] matrices (into a preallocated out) with
NumPy and with libek on the BLAS it loads at run time, and, in a child process
with EK_BLAS=0, libek on its built-in loops (the "before" of issue 20; skip it
with --no-loops, it takes seconds at 2048). Reports medians in ms, the libek /
NumPy time ratio, and which BLAS each side used:

    EK_LIBRARY=build-cpu/libek.so.0 PYTHONPATH=bindings/python \\
        python3 bench/cpu_matmul.py [--size 2048] [--threads 1] [--json out.json] [--quick]

--threads N (default 1) sets OPENBLAS_NUM_THREADS (and OMP_/MKL_/EK_NUM_THREADS)
before NumPy or libek load a BLAS, so both run with N threads; NumPy's wheel
carries its own OpenBLAS (scipy-openblas), libek opens the system's. --quick
(CI) is a 256 smoke run of a few repeats.

bench/cpu_vs_numpy.py can take the row: ROWS.append(("matmul", matmul_setup)).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import time

_THREAD_VARS = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS", "EK_NUM_THREADS")


def _set_threads(argv):
    """--threads N into the environment before NumPy is imported."""
    threads = "1"
    for i, a in enumerate(argv):
        if a == "--threads" and i + 1 < len(argv):
            threads = argv[i + 1]
        elif a.startswith("--threads="):
            threads = a.split("=", 1)[1]
    for v in _THREAD_VARS:
        os.environ[v] = threads
    return threads


if __name__ == "__main__":
    _set_threads(sys.argv[1:])

import numpy as np  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cpu_vs_numpy import _median_ms  # noqa: E402  (one timing rule for both)


def matmul_setup(n, ek, np_):
    """(ek_fn, np_fn) for a cpu_vs_numpy.py row: f32 matrices of sqrt(n / 4)^2
    (2048^2 at its default n of 16M)."""
    side = max(1, int(round((n // 4) ** 0.5)))
    return _pair(side, ek)[:2]


def _pair(side, ek):
    rng = np.random.default_rng(0)
    a = rng.standard_normal((side, side), dtype=np.float32)
    b = rng.standard_normal((side, side), dtype=np.float32)
    c = np.empty_like(a)
    ea, eb, ec = ek.from_numpy(a), ek.from_numpy(b), ek.from_numpy(c)

    def ek_fn():
        ek.matmul(ea, eb, out=ec)
        ek.synchronize("cpu")
    return ek_fn, (lambda: np.matmul(a, b, out=c)), (ec, c)


def _blas_files():
    """The BLAS libraries mapped into this process (NumPy's and libek's)."""
    found = set()
    with open("/proc/self/maps") as f:
        for line in f:
            path = line.split()[-1] if len(line.split()) >= 6 else ""
            if "blas" in os.path.basename(path).lower():
                found.add(os.path.realpath(path))
    return sorted(found)


def _numpy_blas():
    try:
        cfg = np.show_config(mode="dicts")["Build Dependencies"]["blas"]
        return f"{cfg.get('name')} {cfg.get('version')}"
    except Exception:  # older NumPy: no dict mode
        return "unknown"


def measure(side, repeat, loops_only=False):
    """{'numpy_ms', 'ek_ms', 'max_abs_diff', ...}; loops_only: libek alone."""
    import ek
    ek_fn, np_fn, (ec, c) = _pair(side, ek)
    if loops_only:
        return {"ek_loops_ms": _median_ms(ek_fn, repeat)}
    # Interleaved halves: a slow phase of the shared machine hits both sides.
    e1, n1 = _median_ms(ek_fn, repeat), _median_ms(np_fn, repeat)
    e2, n2 = _median_ms(ek_fn, repeat), _median_ms(np_fn, repeat)
    diff = float(np.max(np.abs(ec.numpy() - c)))
    return {"ek_ms": min(e1, e2), "numpy_ms": min(n1, n2), "max_abs_diff": diff,
            "blas_files": _blas_files(), "numpy_blas": _numpy_blas()}


def _loops_in_child(side, repeat, threads):
    env = dict(os.environ, EK_BLAS="0")
    out = subprocess.run([sys.executable, __file__, "--size", str(side), "--repeat", str(repeat),
                          "--threads", threads, "--loops-child"],
                         env=env, check=True, capture_output=True, text=True).stdout
    return json.loads(out)["ek_loops_ms"]


def markdown(r):
    side, loops = r["size"], r.get("ek_loops_ms")
    head = "| op | threads | NumPy ms | libek loops ms (EK_BLAS=0) | libek BLAS ms | libek / NumPy |"
    loops_text = f"{loops:.1f}" if loops is not None else "-"
    row = (f"| matmul {side}² f32 | {r['threads']} | {r['numpy_ms']:.1f} | {loops_text} | "
           f"{r['ek_ms']:.1f} | {r['ratio']:.2f} |")
    return "\n".join([head, "| --- | --- | --- | --- | --- | --- |", row])


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--size", type=int, default=2048, help="matrix side (2048)")
    ap.add_argument("--repeat", type=int, default=7, help="runs per median (twice, interleaved)")
    ap.add_argument("--threads", default="1", help="BLAS threads for NumPy and libek (1)")
    ap.add_argument("--quick", action="store_true", help="CI smoke mode: 256, 3 runs")
    ap.add_argument("--no-loops", action="store_true", help="skip the EK_BLAS=0 child run")
    ap.add_argument("--loops-child", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--json", help="write the results here")
    args = ap.parse_args()
    side, repeat = (256, 3) if args.quick else (args.size, args.repeat)
    if args.loops_child:
        print(json.dumps(measure(side, repeat, loops_only=True)))
        return
    r = measure(side, repeat)
    r.update(size=side, threads=args.threads, ratio=r["ek_ms"] / r["numpy_ms"])
    if not args.no_loops:
        r["ek_loops_ms"] = _loops_in_child(side, max(1, min(repeat, 3)), args.threads)
    print(f"  NumPy BLAS: {r['numpy_blas']}; BLAS files mapped: {', '.join(r['blas_files'])}; "
          f"max |libek - NumPy| = {r['max_abs_diff']:.3g}", file=sys.stderr)
    print(markdown(r))
    if args.json:
        meta = {"numpy": np.__version__, "python": platform.python_version(),
                "machine": platform.machine(), "cpus": os.cpu_count(), "repeat": repeat}
        with open(args.json, "w") as f:
            json.dump({"meta": meta, "results": [r]}, f, indent=1)
            f.write("\n")


if __name__ == "__main__":
    main()
