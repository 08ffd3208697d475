#!/usr/bin/env python3
"""all_reduce, all_gather and reduce_scatter through libek (ek.distributed)
and through torch.distributed (NCCL) in the same processes, one per GPU.

    python3 bench/nccl_bench.py [--nproc N] [--json PATH] [--max-mib 4096]

starts itself on every GPU with python -m ek.distributed.launch. Sizes are
nccl-tests' "size": the bytes of the whole message (all_reduce: the tensor;
all_gather: the gathered output; reduce_scatter: the input to scatter), float32,
1 MiB to 4 GiB in steps of x8, plus 256 MiB and 1 GiB (the issue's anchor
rows). Each case: warm-up, then reps of `iters` back-to-back collectives
between two CUDA events of the framework on its stream; the median time per
collective; libek runs twice, with its default (NCCL's blocking mode for
collectives) and with EK_COMM_NONBLOCKING (ek_comm_config.blocking); algbw = size / time, busbw = algbw * 2(n-1)/n (all_reduce) or
(n-1)/n (all_gather, reduce_scatter), as nccl-tests. Rank 0 writes the JSON
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


def timed(run, record_start, record_end, elapsed_ms, sync, size, reps):
    """Median ms per collective of `reps` batches after a warm-up batch."""
    iters = iters_for(size)
    for _ in range(max(2, iters // 2)):
        run()
    sync()
    per_op = []
    for _ in range(reps):
        record_start()
        for _ in range(iters):
            run()
        record_end()
        sync()
        per_op.append(elapsed_ms() / iters)
    return statistics.median(per_op), min(per_op)


# ---------------------------------------------------------------- libek
def bench_ek(coll, size, n, dev, reps, comm):
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
    result = timed(run, start.record, end.record, lambda: start.elapsed_time(end),
                   end.synchronize, size, reps)
    del x
    return result


# ---------------------------------------------------------------- torch
def bench_torch(coll, size, n, dev, reps):
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
    result = timed(run, start.record, end.record, lambda: start.elapsed_time(end),
                   end.synchronize, size, reps)
    del x
    torch.cuda.empty_cache()
    return result


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
        for i, size in enumerate(sizes(a.max_mib)):
            row = {"collective": coll, "size_bytes": size, "ranks": n}
            # Every other size in reverse order, so no library always goes first.
            for name, fn in (runs if i % 2 == 0 else runs[::-1]):
                med, best = fn(coll, size, n, dev, a.reps)
                algbw = size / (med * 1e-3) / 1e9
                row[name] = {"median_ms": med, "min_ms": best, "algbw_GBps": algbw,
                             "busbw_GBps": algbw * bus_factor(coll, n)}
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
    p.add_argument("--reps", type=int, default=7)
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
