"""Start one process per GPU, as torchrun does:

    python -m ek.distributed.launch --nproc-per-node N script.py [args...]

Each process gets EK_RANK, EK_WORLD_SIZE, EK_LOCAL_RANK, EK_LOCAL_WORLD_SIZE
and EK_COMM_ID_FILE, a file holding the communicator's 128-byte unique id in
a private (0700) temporary directory removed at the end; the script calls
``ek.distributed.init_process_group()``. When a process fails, the others are
terminated and the launcher exits with its status.

Several nodes: run the launcher on every node with the same --nnodes, its own
--node-rank and an --id-file on a file system all nodes share (a fresh path
per job). Node 0 writes the id there (it carries the address of rank 0's
NCCL bootstrap socket: NCCL_SOCKET_IFNAME picks the interface); the others
wait for it. NCCL's own bootstrap then connects the ranks.
"""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
import tempfile
import time


def _parse(argv):
    p = argparse.ArgumentParser(prog="python -m ek.distributed.launch", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--nproc-per-node", "--nproc_per_node", type=int, default=None,
                   help="processes (GPUs) on this node; default: every CUDA device")
    p.add_argument("--nnodes", type=int, default=1)
    p.add_argument("--node-rank", "--node_rank", type=int, default=0)
    p.add_argument("--id-file", default=None,
                   help="shared path of the unique id (needed with --nnodes > 1)")
    p.add_argument("--id-wait", type=float, default=300.0,
                   help="seconds nodes > 0 wait for --id-file to appear")
    p.add_argument("script")
    p.add_argument("args", nargs=argparse.REMAINDER)
    return p.parse_args(argv)


def _write_id(path: str) -> None:
    from .._comm import get_unique_id
    tmp = path + ".tmp"
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "wb") as f:
        f.write(get_unique_id())
    os.replace(tmp, path)  # readers see no file or the whole id


def _wait_for(path: str, seconds: float) -> None:
    deadline = time.monotonic() + seconds
    while not (os.path.exists(path) and os.path.getsize(path) == 128):
        if time.monotonic() > deadline:
            sys.exit(f"ek.distributed.launch: {path} did not appear within {seconds:g} s")
        time.sleep(0.1)


def _run(a, id_file: str) -> int:
    nproc = a.nproc_per_node
    if nproc is None:
        from .._device import device_count
        nproc = device_count("cuda")
    if nproc < 1:
        sys.exit("ek.distributed.launch: no process to start (no CUDA device? pass --nproc-per-node)")
    world = a.nnodes * nproc
    procs = []
    for local in range(nproc):
        env = dict(os.environ, EK_RANK=str(a.node_rank * nproc + local), EK_WORLD_SIZE=str(world),
                   EK_LOCAL_RANK=str(local), EK_LOCAL_WORLD_SIZE=str(nproc),
                   EK_COMM_ID_FILE=id_file)
        procs.append(subprocess.Popen([sys.executable, a.script, *a.args], env=env))
    status = 0
    try:
        while procs:
            for p in list(procs):
                rc = p.poll()
                if rc is None:
                    continue
                procs.remove(p)
                if rc != 0 and status == 0:
                    status = rc
                    for q in procs:  # one rank failed: the others would wait for it
                        q.send_signal(signal.SIGTERM)
            time.sleep(0.05)
    except KeyboardInterrupt:
        for q in procs:
            q.send_signal(signal.SIGINT)
        for q in procs:
            q.wait()
        return 130
    return status if status >= 0 else 128 - status


def main(argv=None) -> int:
    a = _parse(argv)
    if a.nnodes > 1 and not a.id_file:
        sys.exit("ek.distributed.launch: --nnodes > 1 needs --id-file on a shared file system")
    if a.id_file:
        if a.node_rank == 0:
            _write_id(a.id_file)
        else:
            _wait_for(a.id_file, a.id_wait)
        return _run(a, a.id_file)
    with tempfile.TemporaryDirectory(prefix="ek-dist-") as d:  # mode 0700
        path = os.path.join(d, "unique_id")
        _write_id(path)
        return _run(a, path)


if __name__ == "__main__":
    sys.exit(main())
