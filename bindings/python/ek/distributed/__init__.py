"""Multi-GPU collectives over NCCL, PyTorch-style.

One process per GPU, started by ``python -m ek.distributed.launch
--nproc-per-node N script.py args``::

    import ek, ek.distributed as dist
    dist.init_process_group()              # from EK_RANK, EK_WORLD_SIZE, EK_LOCAL_RANK
    g = ek.ones((1024,), device=dist.device())
    dist.all_reduce(g, dist.ReduceOp.AVG)  # in place
    dist.destroy_process_group()

``Communicator`` is the object behind the module-level functions (several
communicators, ``split``, ``Communicator.init_all`` for one process with
several GPUs). NCCL is loaded at run time (EK_NCCL_LIBRARY overrides the
file); without it ``get_unique_id`` and ``init_process_group`` raise
``ek.LibraryError`` "NCCL not found (...)".
"""

from __future__ import annotations

import os

from .._comm import Communicator, ReduceOp, get_unique_id, group

__all__ = ["Communicator", "ReduceOp", "get_unique_id", "group", "init_process_group",
           "destroy_process_group", "is_initialized", "get_rank", "get_world_size",
           "get_local_rank", "device", "all_reduce", "broadcast", "reduce", "all_gather",
           "all_gather_into_tensor", "reduce_scatter_tensor", "all_to_all_single", "send", "recv",
           "barrier", "read_unique_id"]

_default: list = [None]


def read_unique_id() -> bytes:
    """The id the launcher passed: the file EK_COMM_ID_FILE, or hex in EK_COMM_ID."""
    path = os.environ.get("EK_COMM_ID_FILE")
    if path:
        with open(path, "rb") as f:
            return f.read()
    text = os.environ.get("EK_COMM_ID")
    if text:
        return bytes.fromhex(text)
    raise RuntimeError("ek.distributed: neither EK_COMM_ID_FILE nor EK_COMM_ID is set "
                       "(start the script with python -m ek.distributed.launch)")


def _env_int(name: str) -> int:
    value = os.environ.get(name)
    if value is None:
        raise RuntimeError(f"ek.distributed: {name} is not set "
                           "(start the script with python -m ek.distributed.launch)")
    return int(value)


def get_local_rank() -> int:
    return int(os.environ.get("EK_LOCAL_RANK", "0"))


def device() -> str:
    """This process's GPU: "cuda:<EK_LOCAL_RANK>"."""
    return f"cuda:{get_local_rank()}"


def init_process_group(timeout: float | None = None, blocking: bool = True) -> Communicator:
    """Join the job's communicator (rank EK_RANK of EK_WORLD_SIZE, on
    ``device()``) and make it the default of the module-level functions."""
    if _default[0] is not None:
        raise RuntimeError("ek.distributed: init_process_group was already called")
    comm = Communicator(device(), _env_int("EK_WORLD_SIZE"), read_unique_id(),
                        _env_int("EK_RANK"), timeout=timeout, blocking=blocking)
    _default[0] = comm
    return comm


def is_initialized() -> bool:
    return _default[0] is not None


def _comm() -> Communicator:
    if _default[0] is None:
        raise RuntimeError("ek.distributed: call init_process_group() first")
    return _default[0]


def destroy_process_group() -> None:
    comm, _default[0] = _default[0], None
    if comm is not None:
        comm.close()


def get_rank() -> int:
    return _comm().rank


def get_world_size() -> int:
    return _comm().size


def all_reduce(tensor, op=ReduceOp.SUM, **kw):
    return _comm().all_reduce(tensor, op, **kw)


def broadcast(tensor, src=0, **kw):
    return _comm().broadcast(tensor, src, **kw)


def reduce(tensor, dst=0, op=ReduceOp.SUM, **kw):
    return _comm().reduce(tensor, dst, op, **kw)


def all_gather(tensor, **kw):
    return _comm().all_gather(tensor, **kw)


def all_gather_into_tensor(output, input, **kw):
    return _comm().all_gather_into_tensor(output, input, **kw)


def reduce_scatter_tensor(output, input, op=ReduceOp.SUM, **kw):
    return _comm().reduce_scatter_tensor(output, input, op, **kw)


def all_to_all_single(output, input, **kw):
    return _comm().all_to_all_single(output, input, **kw)


def send(tensor, dst, **kw):
    return _comm().send(tensor, dst, **kw)


def recv(tensor, src, **kw):
    return _comm().recv(tensor, src, **kw)


def barrier() -> None:
    """Every rank waits for the others (an all_reduce of one element, synchronized)."""
    import ek
    comm = _comm()
    one = ek.zeros((1,), dtype="float32", device=comm.device)
    comm.all_reduce(one)
    comm.synchronize()
