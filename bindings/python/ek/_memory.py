"""Raw memory from a context's pool (ek_malloc, ek_free, ek_memcpy,
ek_record_stream) and the live-handle count. For buffers that are not
tensors: kernel scratch space, staging areas, foreign libraries."""

from __future__ import annotations

import ctypes
import weakref

import numpy as np

from ._cint import c_uint64, filled
from ._context import context
from ._errors import check, shut_down
from ._handles import closed_error
from ._lib import lib
from ._stream import stream_handle as _stream_handle

__all__ = ["Memory", "memcpy", "live_handles"]


def _free(ctx, stream, ptr) -> None:
    if not shut_down[0] and not ctx.closed:  # at exit nothing is freed (see _handles)
        check(lib.ek_free(None if stream is None else stream._h, ctx._h, ptr))


class Memory:
    """``nbytes`` of memory from the pool of ``device``'s default context (or
    an ek.Context): device memory on CUDA, host memory on the CPU, 512-byte
    aligned, stream-ordered on ``stream`` (default: this thread's current
    stream). ``ptr`` is its address (0 for 0 bytes). Returned to the pool by
    ``free()`` (ordered after the work already submitted to its stream), a
    ``with`` block, or when collected; the context stays alive until then."""

    def __init__(self, nbytes: int, device="cpu", *, stream=None):
        ctx = context(device)
        p = filled(lib.ek_malloc, ctypes.c_void_p(), _stream_handle(stream, ctx), ctx._handle(),
                   c_uint64(nbytes, "ek.Memory: nbytes"))
        self.ptr, self.nbytes, self.context = p.value or 0, nbytes, ctx
        self._free = weakref.finalize(self, _free, ctx, stream, p.value)

    def free(self) -> None:
        """Return the block to the pool now; idempotent."""
        self._free()

    @property
    def closed(self) -> bool:
        return not self._free.alive

    def record_stream(self, stream) -> None:
        """The block is also used on ``stream``: its reuse after free waits for
        that stream's work too (ek_record_stream)."""
        check(lib.ek_record_stream(stream._handle(), self.context._handle(), self._ptr()))

    def _ptr(self):
        if self.closed:
            raise closed_error(self)
        return self.ptr or None

    def __enter__(self) -> "Memory":
        return self

    def __exit__(self, *exc) -> None:
        self.free()

    def __repr__(self) -> str:
        return f"ek.Memory({self.nbytes}, device={self.context.device!r}, ptr=0x{self.ptr:x})"


def _address(x, what: str):
    """(address, size or None) of a Memory, an int address, a NumPy array or a
    bytes-like object (bytes only as a source)."""
    if isinstance(x, Memory):
        return x._ptr(), x.nbytes
    if isinstance(x, int):
        return x or None, None
    if isinstance(x, np.ndarray):
        return x.ctypes.data, x.nbytes
    if isinstance(x, bytes):
        return ctypes.cast(ctypes.c_char_p(x), ctypes.c_void_p).value, len(x)
    try:
        buf = (ctypes.c_char * memoryview(x).nbytes).from_buffer(x)
    except TypeError:
        raise TypeError(f"ek.memcpy: {what} must be an ek.Memory, an address, a NumPy array or "
                        f"a writable buffer, not {type(x).__name__}") from None
    return ctypes.addressof(buf), len(buf)


def memcpy(dst, src, nbytes: int | None = None, *, device="cpu", stream=None) -> None:
    """Copy ``nbytes`` (default: the smaller known size) from ``src`` to ``dst``
    (ek_memcpy: any mix of host memory and the device's memory, asynchronous
    on ``stream`` or the current stream of ``device``'s context, a Memory's
    own context when one is given)."""
    ctx = next((m.context for m in (dst, src) if isinstance(m, Memory)), None) or context(device)
    d, dn = _address(dst, "dst")
    s, sn = _address(src, "src")
    if nbytes is None:
        known = [n for n in (dn, sn) if n is not None]
        if not known:
            raise TypeError("ek.memcpy: nbytes is needed for two raw addresses")
        nbytes = min(known)
    check(lib.ek_memcpy(_stream_handle(stream, ctx), ctx._handle(), s, d,
                        c_uint64(nbytes, "ek.memcpy: nbytes")))


def live_handles() -> int:
    """Number of live libek handles (contexts, streams, events, tensors); for leak checks."""
    return filled(lib.ek_live_handles, ctypes.c_int64()).value
