"""libek data-parallel step in Python: one process per GPU.

    python -m ek.distributed.launch --nproc-per-node 2 examples/python/data_parallel.py

(run directly, it launches itself on every GPU). Each rank computes a
gradient-like tensor, g_r[i] = (r + 1) * sin(i), all_reduce with
ReduceOp.AVG averages it over the ranks in place, and every rank checks it
against (n + 1) / 2 * sin(i). The same step as examples/c/data_parallel.c.
"""

import os
import subprocess
import sys

import numpy as np

import ek
import ek.distributed as dist


def main() -> int:
    dist.init_process_group()
    rank, n = dist.get_rank(), dist.get_world_size()
    i = np.arange(4096)
    grad = ek.from_numpy(((rank + 1) * np.sin(i)).astype(np.float32), device=dist.device())
    dist.all_reduce(grad, dist.ReduceOp.AVG)
    err = np.abs(grad.numpy() - (n + 1) / 2 * np.sin(i)).max()
    dist.destroy_process_group()
    print(f"rank {rank} of {n}: largest error {err:.2e}", flush=True)
    return 0 if err < 1e-5 else 1


if __name__ == "__main__":
    if "EK_RANK" not in os.environ:  # not launched: launch on every GPU
        if ek.device_count("cuda") == 0:
            print("data_parallel: no CUDA device, nothing to do")
            sys.exit(0)
        sys.exit(subprocess.call([sys.executable, "-m", "ek.distributed.launch", __file__]))
    sys.exit(main())
