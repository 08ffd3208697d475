"""NCCL communicators and collectives on ek tensors (ek_comm_* of ek.h), the
core of ``ek.distributed``; PyTorch-like names (``all_reduce`` in place,
``all_gather_into_tensor``, ``reduce_scatter_tensor``, ``all_to_all_single``,
``ReduceOp``)."""

from __future__ import annotations

import contextlib
import ctypes
import enum

from . import _ffi
from ._cint import filled
from ._context import Context, context
from ._errors import InvalidArgumentError, check
from ._handles import _Handle, releaser
from ._lib import lib
from ._stream import stream_handle
from ._tensor import Tensor

__all__ = ["ReduceOp", "Communicator", "get_unique_id", "group"]

_DESTROY = releaser("ek_comm_destroy")


class ReduceOp(enum.IntEnum):
    """The reductions of the collectives (values of ek_reduce_op)."""
    SUM = _ffi.EK_REDUCE_SUM
    AVG = _ffi.EK_REDUCE_MEAN
    PRODUCT = _ffi.EK_REDUCE_PROD
    MAX = _ffi.EK_REDUCE_MAX
    MIN = _ffi.EK_REDUCE_MIN


def get_unique_id() -> bytes:
    """A new 128-byte NCCL unique id (rank 0 makes it and sends it to every
    rank by any channel). LibraryError "NCCL not found (...)" without NCCL."""
    uid = filled(lib.ek_comm_get_unique_id, _ffi.ek_comm_unique_id())
    return ctypes.string_at(ctypes.addressof(uid), 128)  # .internal would stop at a NUL


def _config(timeout: float | None, blocking: bool = True) -> _ffi.ek_comm_config:
    cfg = _ffi.new(_ffi.ek_comm_config)
    cfg.blocking = _ffi.EK_COMM_BLOCKING if blocking else _ffi.EK_COMM_NONBLOCKING
    if timeout is not None:
        if timeout <= 0:
            raise InvalidArgumentError(f"ek.distributed: timeout must be > 0 seconds, got {timeout}")
        cfg.timeout_ms = max(1, int(timeout * 1000))
    return cfg


def _unique_id(uid: bytes) -> _ffi.ek_comm_unique_id:
    if not isinstance(uid, (bytes, bytearray)) or len(uid) != 128:
        raise InvalidArgumentError("ek.distributed: the unique id must be 128 bytes "
                                   "(from ek.distributed.get_unique_id())")
    return _ffi.ek_comm_unique_id.from_buffer_copy(bytes(uid))


def _out(t: Tensor | None):
    """(ek_tensor *out, holder): t's handle for an existing tensor, else a NULL one."""
    if t is not None:
        return t._outp(), None
    h = _ffi.ek_tensor()
    return ctypes.byref(h), h


class Communicator(_Handle):
    """One rank of an NCCL communicator on a CUDA context.

    ``Communicator("cuda:1", world_size, uid, rank)`` joins the communicator
    named by ``uid`` (``get_unique_id()`` on rank 0); ``Communicator.init_all``
    makes every rank of one in this process. ``timeout`` (seconds; default
    EK_COMM_TIMEOUT_MS or 10 minutes) turns a rank that never joins or dies
    into ``ek.EkTimeoutError``. ``blocking=True`` (the default) launches
    collectives in NCCL's blocking mode (the lowest latency; a group end then
    waits without a timeout), ``blocking=False`` in its non-blocking mode (every
    step bounded by the timeout, some 60 us more a call): see ek_comm_config
    in ek.h. Collectives run on ``stream`` (default: the
    current stream of the context) and return before the GPU has done them.
    """

    def __init__(self, device, world_size: int, unique_id: bytes, rank: int,
                 timeout: float | None = None, blocking: bool = True):
        ctx = context(device)
        h = filled(lib.ek_comm_init_rank, _ffi.ek_comm(), ctx._handle(), world_size,
                   ctypes.byref(_unique_id(unique_id)), rank,
                   ctypes.byref(_config(timeout, blocking)))
        self._own(h, _DESTROY, ctx)

    @classmethod
    def _wrap(cls, h, ctx: Context) -> "Communicator":
        self = cls.__new__(cls)
        self._own(h, _DESTROY, ctx)
        return self

    @classmethod
    def init_all(cls, devices, timeout: float | None = None, blocking: bool = True) -> list:
        """One communicator over ``devices`` (e.g. ["cuda:0", "cuda:1"]) in
        this process: element i is rank i. Drive them inside ``group()``."""
        ctxs = [context(d) for d in devices]
        arr = (_ffi.ek_context * len(ctxs))(*[c._handle() for c in ctxs])
        out = (_ffi.ek_comm * len(ctxs))()
        check(lib.ek_comm_init_all(len(ctxs), arr, ctypes.byref(_config(timeout, blocking)), out))
        return [cls._wrap(out[i], c) for i, c in enumerate(ctxs)]

    def __repr__(self) -> str:
        if self.closed:
            return "<ek.distributed.Communicator closed>"
        return f"<ek.distributed.Communicator rank {self.rank} of {self.size} on {self.device}>"

    @property
    def rank(self) -> int:
        return filled(lib.ek_comm_get_rank, ctypes.c_int(), self._handle()).value

    @property
    def size(self) -> int:
        return filled(lib.ek_comm_get_size, ctypes.c_int(), self._handle()).value

    world_size = size

    def split(self, color: int | None, key: int = 0, timeout: float | None = None):
        """The communicator of the ranks passing the same color, ordered by key;
        None for color None (this rank joins none). Every rank calls it."""
        c = _ffi.EK_COMM_SPLIT_NOCOLOR if color is None else color
        cfg = ctypes.byref(_config(timeout)) if timeout is not None else None
        h = filled(lib.ek_comm_split, _ffi.ek_comm(), self._handle(), c, key, cfg)
        return Communicator._wrap(h, self._ctx) if h else None

    def check(self) -> None:
        """Raise NCCL's asynchronous error, if any (NotReadyError while a step
        is still in progress)."""
        check(lib.ek_comm_get_async_error(self._handle()))

    def abort(self) -> None:
        """Abort the communicator's work now (stuck kernels exit)."""
        check(lib.ek_comm_abort(self._handle()))

    def synchronize(self, stream=None) -> None:
        """Wait for the stream's work, within the timeout (EkTimeoutError then)."""
        check(lib.ek_comm_synchronize(stream_handle(stream, self._ctx), self._handle()))

    # ------------------------------------------------------------ collectives
    def _coll(self, fn, *args, x: Tensor, out: Tensor | None, stream):
        p, holder = _out(out)
        check(fn(stream_handle(stream, self._ctx), self._handle(), *args, x._h, p))
        if out is not None:
            return out
        return Tensor._wrap(holder, self._ctx) if holder else None

    def all_reduce(self, tensor: Tensor, op: ReduceOp = ReduceOp.SUM, *, out: Tensor | None = None,
                   stream=None) -> Tensor:
        """op over ranks of tensor, into tensor (in place, as PyTorch) or into ``out``."""
        return self._coll(lib.ek_comm_all_reduce, int(op), x=tensor,
                          out=tensor if out is None else out, stream=stream)

    def broadcast(self, tensor: Tensor, src: int = 0, *, stream=None) -> Tensor:
        """src's tensor into every rank's tensor (in place)."""
        return self._coll(lib.ek_comm_broadcast, src, x=tensor, out=tensor, stream=stream)

    def reduce(self, tensor: Tensor, dst: int = 0, op: ReduceOp = ReduceOp.SUM, *,
               stream=None) -> Tensor:
        """op over ranks of tensor into dst's tensor (in place; other ranks' unchanged)."""
        out = tensor if self.rank == dst else None
        self._coll(lib.ek_comm_reduce, int(op), dst, x=tensor, out=out, stream=stream)
        return tensor

    def all_gather(self, tensor: Tensor, *, stream=None) -> Tensor:
        """A new tensor [size, *tensor.shape]: row r is rank r's tensor."""
        return self._coll(lib.ek_comm_all_gather, x=tensor, out=None, stream=stream)

    def all_gather_into_tensor(self, output: Tensor, input: Tensor, *, stream=None) -> Tensor:
        """``output`` ([size, *input.shape]) = every rank's input."""
        return self._coll(lib.ek_comm_all_gather, x=input, out=output, stream=stream)

    def reduce_scatter_tensor(self, output: Tensor, input: Tensor,
                              op: ReduceOp = ReduceOp.SUM, *, stream=None) -> Tensor:
        """input [size, ...]: output (input.shape[1:]) on rank r = op over ranks of input[r]."""
        return self._coll(lib.ek_comm_reduce_scatter, int(op), x=input, out=output, stream=stream)

    def all_to_all_single(self, output: Tensor, input: Tensor, *, stream=None) -> Tensor:
        """input [size, ...]: output[q] = rank q's input[this rank]."""
        return self._coll(lib.ek_comm_all_to_all, x=input, out=output, stream=stream)

    def send(self, tensor: Tensor, dst: int, *, stream=None) -> None:
        check(lib.ek_comm_send(stream_handle(stream, self._ctx), self._handle(), tensor._h, dst))

    def recv(self, tensor: Tensor, src: int, *, stream=None) -> Tensor:
        check(lib.ek_comm_recv(stream_handle(stream, self._ctx), self._handle(), src, tensor._h))
        return tensor


@contextlib.contextmanager
def group():
    """Fuse the collectives issued in the block into one launch (needed when
    one thread drives several ranks, or for paired send/recv)."""
    check(lib.ek_comm_group_start())
    try:
        yield
    finally:
        check(lib.ek_comm_group_end())
