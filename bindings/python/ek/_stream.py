"""Streams and events, and the thread-local current stream."""

from __future__ import annotations

import ctypes
import threading

from . import _ffi
from ._context import Context, context
from ._errors import InvalidArgumentError, check, shut_down
from ._cint import c_uint64, filled
from ._handles import _Handle, closed_error, own, releaser
from ._lib import lib

__all__ = ["Stream", "Event", "current_stream", "synchronize"]

_tls = threading.local()
# Number of `with stream:` blocks open in any thread. While it is 0 (the usual
# case) every op runs on its context's default stream without looking at the
# thread-local stack (a missing thread-local attribute costs ~0.7 us).
_entered = [0]
_entered_lock = threading.Lock()


def _stack() -> list:
    s = getattr(_tls, "stack", None)
    if s is None:
        s = _tls.stack = []
    return s


def _entered_stream(ctx: Context):
    """This thread's innermost ``with stream:`` stream of ctx, or None."""
    for st in reversed(getattr(_tls, "stack", None) or ()):
        if st._ctx is ctx:
            return st
    return None


def _current_handle(ctx: Context):
    """Handle of this thread's current stream of ctx, or None (the default stream)."""
    st = _entered_stream(ctx) if _entered[0] else None
    return None if st is None else st._h  # not closed: close() refuses while entered


def stream_handle(stream, ctx: Context):
    """None (this thread's current stream of ctx) or an ek.Stream -> ek_stream or None."""
    if stream is None:
        return _current_handle(ctx)
    if not isinstance(stream, Stream):
        raise TypeError(f"stream: expected an ek.Stream or None, got {type(stream).__name__} "
                        "(wrap a native stream with ek.Stream.from_native)")
    return stream._handle()


_DESTROY_STREAM = releaser("ek_stream_destroy")
_DESTROY_EVENT = releaser("ek_event_destroy")


def _addr(h) -> int:
    return ctypes.cast(h, ctypes.c_void_p).value or 0


class Stream(_Handle):
    """A stream of a device's context (a non-blocking cudaStream_t on CUDA; on
    CPU work runs synchronously).

    Used as a context manager it becomes this thread's current stream for its
    context: ops on tensors of that context inside the block run on it::

        s = ek.Stream("cuda")
        with s:
            y = x.contiguous()
        s.synchronize()

    ``close()`` destroys it now (after its work completed); otherwise it is
    destroyed when collected.
    """

    def __init__(self, device="cpu"):
        ctx = context(device)
        h = filled(lib.ek_stream_create, _ffi.ek_stream(), ctx._handle())
        self._init(h, ctx, owned=True)

    def _init(self, h, ctx, owned):
        self._ctx = ctx
        self._owned = owned
        self._addr = _addr(h)
        self._entered = 0
        self._tok = own(h, _DESTROY_STREAM, ctx._tok) if owned else None
        self._h = h

    @property
    def closed(self) -> bool:
        """True after ``close()`` (or the context's close, for its default stream)."""
        return not self._h or (not self._owned and self._ctx.closed)

    def close(self) -> None:
        """Destroy the stream now (a context's default stream is only
        forgotten). Later uses raise InvalidArgumentError; closing twice does
        nothing. InvalidArgumentError while a ``with`` block of it is open."""
        if self._entered:
            raise InvalidArgumentError(f"ek: {self!r}.close() inside a 'with' block of it")
        _Handle.close(self)  # the token's death destroys the stream

    @classmethod
    def _borrowed(cls, h, ctx, owned=False) -> "Stream":
        self = cls.__new__(cls)
        self._init(h, ctx, owned)
        return self

    @classmethod
    def from_native(cls, ptr: int, device="cuda") -> "Stream":
        """Wrap an existing cudaStream_t (an int, e.g.
        ``torch.cuda.current_stream().cuda_stream``) without taking ownership.
        CUDA only (NotSupportedError on CPU)."""
        ctx = context(device)
        native = ctypes.c_void_p(c_uint64(ptr, "Stream.from_native: ptr") or None)
        return cls._borrowed(filled(lib.ek_stream_wrap, _ffi.ek_stream(), ctx._handle(), native),
                             ctx, owned=True)

    @property
    def native(self) -> int:
        """The cudaStream_t as an int (0 on CPU)."""
        return filled(lib.ek_stream_get_native, ctypes.c_void_p(), self._handle()).value or 0

    cuda_stream = native

    def synchronize(self) -> None:
        """Wait until all work submitted to the stream has completed."""
        check(lib.ek_stream_synchronize(self._handle()))

    def query(self) -> bool:
        """True when all work submitted to the stream has completed."""
        return bool(filled(lib.ek_stream_query, ctypes.c_int(), self._handle()).value)

    def wait_event(self, event: "Event") -> None:
        """Later work on this stream waits for ``event`` (no host wait)."""
        check(lib.ek_stream_wait_event(self._handle(), event._handle()))

    def wait_stream(self, other: "Stream") -> None:
        """Later work on this stream waits for the work submitted to ``other`` so far."""
        self.wait_event(other.record_event())

    def record_event(self, event: "Event | None" = None) -> "Event":
        """Record an event (a new one when None) on this stream and return it."""
        event = Event(self._ctx) if event is None else event
        event.record(self)
        return event

    def __enter__(self) -> "Stream":
        self._handle()  # not closed
        _stack().append(self)
        with _entered_lock:
            _entered[0] += 1
            self._entered += 1
        return self

    def __exit__(self, *exc) -> None:
        s = _stack()
        # Remove the innermost occurrence (tolerates out-of-order exits).
        for i in range(len(s) - 1, -1, -1):
            if s[i] is self:
                del s[i]
                with _entered_lock:
                    _entered[0] -= 1
                    self._entered -= 1
                break

    def __eq__(self, other) -> bool:
        return isinstance(other, Stream) and self._addr == other._addr

    def __hash__(self) -> int:
        return hash(self._addr)

    def __repr__(self) -> str:
        kind = "" if self._owned else ", default"
        return f"ek.Stream(device={self.device!r}{kind}, handle=0x{self._addr:x})"


def current_stream(device="cpu") -> Stream:
    """This thread's current stream for a device's default context (its default
    stream outside any ``with stream:`` block)."""
    ctx = context(device)
    return _entered_stream(ctx) or ctx.default_stream


def synchronize(device="cpu") -> None:
    """Wait for all work of a device's default context."""
    context(device).synchronize()


class Event(_Handle):
    """A timing event. Created on ``device``'s context, or, when device is None,
    on the context of the stream it is first recorded on.

    ``start.elapsed_time(end)`` gives milliseconds between two recorded events.
    """

    def __init__(self, device=None):
        self._closed = False
        if device is not None:
            self._create(context(device))

    def _create(self, ctx: Context) -> None:
        self._own(filled(lib.ek_event_create, _ffi.ek_event(), ctx._handle()), _DESTROY_EVENT, ctx)

    def _handle(self):
        if self._h is None and not self._closed and not shut_down[0]:
            raise InvalidArgumentError("ek.Event: the event was never recorded")
        return _Handle._handle(self)

    @property
    def closed(self) -> bool:
        """True after ``close()``."""
        return self._closed

    def close(self) -> None:
        """Destroy the event now; later uses raise InvalidArgumentError.
        Closing twice does nothing."""
        self._closed = True
        _Handle.close(self)  # the token's death destroys the event

    def record(self, stream: Stream | None = None) -> None:
        """Capture the work submitted to ``stream`` so far (default: this
        thread's current stream of the event's context)."""
        if self._closed or shut_down[0]:
            raise closed_error(self)
        if stream is None:
            if self._ctx is None:
                st = _stack()
                stream = st[-1] if st else None
                ctx = stream._ctx if stream is not None else context("cpu")
                self._create(ctx)
            h = _current_handle(self._ctx) if stream is None else stream._handle()
        else:
            h = stream._handle()
            if self._ctx is None:
                self._create(stream._ctx)
        check(lib.ek_event_record(h, self._handle()))

    def synchronize(self) -> None:
        """Wait until the captured work has completed."""
        check(lib.ek_event_synchronize(self._handle()))

    def query(self) -> bool:
        """True when the captured work has completed (or the event was never recorded)."""
        if self._h is None and not self._closed:
            return True
        return bool(filled(lib.ek_event_query, ctypes.c_int(), self._handle()).value)

    def elapsed_time(self, end: "Event") -> float:
        """Milliseconds from this event to ``end`` (both recorded and completed;
        NotReadyError otherwise)."""
        ms = filled(lib.ek_event_get_elapsed_ms, ctypes.c_float(), self._handle(), end._handle())
        return float(ms.value)

    def __repr__(self) -> str:
        return f"ek.Event(device={self.device!r})"
