#!/usr/bin/env python3
"""all_reduce, all_gather and reduce_scatter through libek (ek.distributed)
and through torch.distributed (NCCL) in the same processes, one per GPU.

    python3 bench/nccl_bench.py [--nproc N] [--json PATH] [--max-mib 4096]

starts itself on every GPU with python -m ek.distributed.launch. Sizes are
nccl-tests' "size": the bytes of the whole message (all_reduce: the tensor;
all_gather: the gathered output; reduce_scatter: the input to scatter), float32,
1 MiB to 4 GiB in steps of x8, plus 256 MiB and 1 GiB (the issue's anchor
rows). Each case: warm-up, then reps of `iters` back-to-back collectives
between two CUDA events of the framework on its stream, the libraries'
batches interleaved rep by rep (so drift in clocks or temperature reaches all
alike); the median time per collective. libek runs twice, with its default
(NCCL's blocking mode for collectives) and with EK_COMM_NONBLOCKING
(ek_comm_config.blocking). algbw = size / time, busbw = algbw * 2(n-1)/n
(all_reduce) or (n-1)/n (all_gather, reduce_scatter), as nccl-tests. Rank 0 writes the JSON
(default bench/results/nccl.json) and prints a Markdown table.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
MIB = 1 << 20
COLLS = ["all_reduce", "all_gather", "reduce_scatter"]


def sizes(max_mib):
    out = sorted({1, 8, 64, 256, 512, 1024, 4096})
    return [s * MIB for s in out if s <= max_mib]


def bus_factor(coll, n):
    return 2 * (n - 1) / n if coll == "all_reduce" else (n - 1) / n


def iters_for(size):
    return 20 if size <= 8 * MIB else 10 if size <= 256 * MIB else 3


class Case:
    """One library's collective at one size: a warmed-up closure and its timer."""

    def __init__(self, run, record_start, record_end, elapsed_ms, sync, size, release=None):
        self.run, self.record_start, self.record_end = run, record_start, record_end
        self.elapsed_ms, self.sync, self.iters = elapsed_ms, sync, iters_for(size)
        self.release, self.per_op = release, []
        for _ in range(max(2, self.iters // 2)):
            run()
        sync()

    def batch(self):
        self.record_start()
        for _ in range(self.iters):
            self.run()
        self.record_end()
        self.sync()
        self.per_op.append(self.elapsed_ms() / self.iters)


def timed(cases, reps):
    """Median and best ms per collective of each case. The batches interleave
    (one of each case per rep, every other rep in reverse order), so clock and
    temperature drift reach every library alike."""
    for rep in range(reps):
        for case in (cases if rep % 2 == 0 else cases[::-1]):
            case.batch()
    return [(statistics.median(c.per_op), min(c.per_op)) for c in cases]


# ---------------------------------------------------------------- libek
def bench_ek(coll, size, n, dev, comm):
    import ek
    elems = size // 4
    part = elems // n
    if coll == "all_reduce":
        x = ek.ones((elems,), dtype="float32", device=dev)
        run = lambda: comm.all_reduce(x)  # noqa: E731 - in place, as torch's
    elif coll == "all_gather":
        x = ek.ones((part,), dtype="float32", device=dev)
        out = ek.empty(n, part, dtype="float32", device=dev)
        run = lambda: comm.all_gather_into_tensor(out, x)  # noqa: E731
    else:
        x = ek.ones((n, part), dtype="float32", device=dev)
        out = ek.empty(part, dtype="float32", device=dev)
        run = lambda: comm.reduce_scatter_tensor(out, x)  # noqa: E731
    start, end = ek.Event(dev), ek.Event(dev)
    return Case(run, start.record, end.record, lambda: start.elapsed_time(end),
                end.synchronize, size)


# ---------------------------------------------------------------- torch
def bench_torch(coll, size, n, dev):
    import torch
    import torch.distributed as tdist
    elems = size // 4
    part = elems // n
    if coll == "all_reduce":
        x = torch.ones(elems, dtype=torch.float32, device=dev)
        run = lambda: tdist.all_reduce(x)  # noqa: E731
    elif coll == "all_gather":
        x = torch.ones(part, dtype=torch.float32, device=dev)
        out = torch.empty(n * part, dtype=torch.float32, device=dev)
        run = lambda: tdist.all_gather_into_tensor(out, x)  # noqa: E731
    else:
        x = torch.ones(n * part, dtype=torch.float32, device=dev)
        out = torch.empty(part, dtype=torch.float32, device=dev)
        run = lambda: tdist.reduce_scatter_tensor(out, x)  # noqa: E731
    start = torch.cuda.Event(enable_timing=True)
    end = torch.cuda.Event(enable_timing=True)
    return Case(run, start.record, end.record, lambda: start.elapsed_time(end),
                end.synchronize, size, release=torch.cuda.empty_cache)


def worker(a):
    import ek
    import ek.distributed as dist
    dist.init_process_group(timeout=300)
    rank, n, dev = dist.get_rank(), dist.get_world_size(), dist.device()
    have_torch = False
    try:
        import torch
        import torch.distributed as tdist
        torch.cuda.set_device(dist.get_local_rank())
        tdist.init_process_group("nccl", init_method=f"tcp://127.0.0.1:{a.port}", rank=rank,
                                 world_size=n, device_id=torch.device(dev))
        have_torch = True
    except Exception as e:  # noqa: BLE001 - reported in the JSON, libek still measured
        torch_error = repr(e)
    # A second libek communicator in NCCL's non-blocking mode (ek_comm_config.blocking),
    # its id sent by torch.distributed.
    nonblocking = None
    if have_torch:
        uid = [dist.get_unique_id() if rank == 0 else None]
        tdist.broadcast_object_list(uid, src=0)
        nonblocking = dist.Communicator(dev, n, uid[0], rank, timeout=300, blocking=False)
    runs = [("ek", lambda *x: bench_ek(*x, dist._comm()))]
    if nonblocking is not None:
        runs += [("ek_nonblocking", lambda *x: bench_ek(*x, nonblocking)), ("torch", bench_torch)]
    rows = []
    for coll in COLLS:
        for size in sizes(a.max_mib):
            row = {"collective": coll, "size_bytes": size, "ranks": n}
            names = [name for name, _ in runs]
            cases = [fn(coll, size, n, dev) for _, fn in runs]
            for name, (med, best) in zip(names, timed(cases, a.reps)):
                algbw = size / (med * 1e-3) / 1e9
                row[name] = {"median_ms": med, "min_ms": best, "algbw_GBps": algbw,
                             "busbw_GBps": algbw * bus_factor(coll, n)}
            releases = [c.release for c in cases if c.release]
            del cases
            for release in releases:
                release()
            rows.append(row)
            ek.context(dev).empty_cache()  # the next size starts from an empty pool
    if rank == 0:
        import platform
        doc = {"bench": "nccl_bench", "ranks": n, "dtype": "float32",
               "host": platform.node(), "time": time.strftime("%Y-%m-%dT%H:%M:%S"),
               "torch": None if not have_torch else __import__("torch").__version__,
               "torch_error": None if have_torch else torch_error, "rows": rows}
        with open(a.json, "w") as f:
            json.dump(doc, f, indent=1)
        print_table(doc)
    if nonblocking is not None:
        nonblocking.close()
    if have_torch:
        tdist.destroy_process_group()
    dist.destroy_process_group()


def print_table(doc):
    print(f"\n{doc['ranks']} ranks, float32; busbw GB/s (median time)\n")
    print("| collective | size | libek | libek, non-blocking | torch | libek / torch | non-blocking / torch |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    cell = lambda v: f"{v['busbw_GBps']:.1f} ({v['median_ms'] * 1e3:.0f} us)" if v else "-"  # noqa: E731
    for r in doc["rows"]:
        e, b, t = r["ek"], r.get("ek_nonblocking"), r.get("torch")
        size = f"{r['size_bytes'] // MIB} MiB" if r["size_bytes"] < 1 << 30 else f"{r['size_bytes'] >> 30} GiB"
        ratio = lambda v: f"{v['busbw_GBps'] / t['busbw_GBps']:.3f}" if v and t else "-"  # noqa: E731
        print(f"| {r['collective']} | {size} | {cell(e)} | {cell(b)} | {cell(t)} | {ratio(e)} | {ratio(b)} |")


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--nproc", type=int, default=None, help="GPUs (default: all)")
    p.add_argument("--json", default=os.path.join(HERE, "results", "nccl.json"))
    p.add_argument("--max-mib", type=int, default=4096)
    p.add_argument("--reps", type=int, default=11)
    p.add_argument("--port", type=int, default=29517)
    p.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    a = p.parse_args()
    if a.worker:
        return worker(a)
    cmd = [sys.executable, "-m", "ek.distributed.launch"]
    if a.nproc:
        cmd += ["--nproc-per-node", str(a.nproc)]
    cmd += [os.path.abspath(__file__), "--worker", "--json", os.path.abspath(a.json),
            "--max-mib", str(a.max_mib), "--reps", str(a.reps), "--port", str(a.port)]
    return subprocess.call(cmd)


if __name__ == "__main__":
    sys.exit(main())
