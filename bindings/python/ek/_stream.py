"""Streams and events, and the thread-local current stream."""

from __future__ import annotations

import ctypes
import threading
import weakref

from . import _ffi
from ._context import Context, context
from ._errors import InvalidArgumentError, check
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


def _current_handle(ctx: Context):
    """Handle of this thread's current stream of ctx, or None (the default stream)."""
    if not _entered[0]:
        return None
    s = getattr(_tls, "stack", None)
    if s:
        for st in reversed(s):
            if st._ctx is ctx:
                return st._h
    return None


def _destroy_stream(handle, _ctx) -> None:
    # _ctx: keeps the context alive until the stream is gone.
    try:
        if lib.ek_stream_destroy(handle) != _ffi.EK_SUCCESS:
            lib.ek_clear_error()
    except Exception:  # noqa: BLE001
        pass


def _destroy_event(handle, _ctx) -> None:
    try:
        if lib.ek_event_destroy(handle) != _ffi.EK_SUCCESS:
            lib.ek_clear_error()
    except Exception:  # noqa: BLE001
        pass


def _addr(h) -> int:
    return ctypes.cast(h, ctypes.c_void_p).value or 0


class Stream:
    """A stream of a device's context (a non-blocking cudaStream_t on CUDA; on
    CPU work runs synchronously).

    Used as a context manager it becomes this thread's current stream for its
    context: ops on tensors of that context inside the block run on it::

        s = ek.Stream("cuda")
        with s:
            y = x.contiguous()
        s.synchronize()
    """

    def __init__(self, device="cpu"):
        ctx = context(device)
        h = _ffi.ek_stream()
        check(lib.ek_stream_create(ctx._handle(), ctypes.byref(h)))
        self._init(h, ctx, owned=True)

    def _init(self, h, ctx, owned):
        self._h = h
        self._ctx = ctx
        self._owned = owned
        self._finalizer = weakref.finalize(self, _destroy_stream, h, ctx) if owned else None

    @classmethod
    def _borrowed(cls, h, ctx) -> "Stream":
        self = cls.__new__(cls)
        self._init(h, ctx, owned=False)
        return self

    @classmethod
    def from_native(cls, ptr: int, device="cuda") -> "Stream":
        """Wrap an existing cudaStream_t (an int, e.g.
        ``torch.cuda.current_stream().cuda_stream``) without taking ownership.
        CUDA only (NotSupportedError on CPU)."""
        ctx = context(device)
        h = _ffi.ek_stream()
        check(lib.ek_stream_wrap(ctx._handle(), ctypes.c_void_p(int(ptr) or None), ctypes.byref(h)))
        self = cls.__new__(cls)
        self._init(h, ctx, owned=True)
        return self

    @property
    def context(self) -> Context:
        return self._ctx

    @property
    def device(self) -> str:
        return self._ctx.device

    @property
    def native(self) -> int:
        """The cudaStream_t as an int (0 on CPU)."""
        p = ctypes.c_void_p()
        check(lib.ek_stream_native(self._h, ctypes.byref(p)))
        return p.value or 0

    cuda_stream = native

    def synchronize(self) -> None:
        """Wait until all work submitted to the stream has completed."""
        check(lib.ek_stream_synchronize(self._h))

    def query(self) -> bool:
        """True when all work submitted to the stream has completed."""
        done = ctypes.c_int()
        check(lib.ek_stream_query(self._h, ctypes.byref(done)))
        return bool(done.value)

    def wait_event(self, event: "Event") -> None:
        """Later work on this stream waits for ``event`` (no host wait)."""
        check(lib.ek_stream_wait_event(self._h, event._handle()))

    def wait_stream(self, other: "Stream") -> None:
        """Later work on this stream waits for the work submitted to ``other`` so far."""
        self.wait_event(other.record_event())

    def record_event(self, event: "Event | None" = None) -> "Event":
        """Record an event (a new one when None) on this stream and return it."""
        event = Event(self._ctx) if event is None else event
        event.record(self)
        return event

    def __enter__(self) -> "Stream":
        _stack().append(self)
        with _entered_lock:
            _entered[0] += 1
        return self

    def __exit__(self, *exc) -> None:
        s = _stack()
        # Remove the innermost occurrence (tolerates out-of-order exits).
        for i in range(len(s) - 1, -1, -1):
            if s[i] is self:
                del s[i]
                with _entered_lock:
                    _entered[0] -= 1
                break

    def __eq__(self, other) -> bool:
        return isinstance(other, Stream) and _addr(self._h) == _addr(other._h)

    def __hash__(self) -> int:
        return hash(_addr(self._h))

    def __repr__(self) -> str:
        kind = "" if self._owned else ", default"
        return f"ek.Stream(device={self.device!r}{kind}, handle=0x{_addr(self._h):x})"


def current_stream(device="cpu") -> Stream:
    """This thread's current stream for a device's default context (its default
    stream outside any ``with stream:`` block)."""
    ctx = context(device)
    s = getattr(_tls, "stack", None)
    if s:
        for st in reversed(s):
            if st._ctx is ctx:
                return st
    return ctx.default_stream


def synchronize(device="cpu") -> None:
    """Wait for all work of a device's default context."""
    context(device).synchronize()


class Event:
    """A timing event. Created on ``device``'s context, or, when device is None,
    on the context of the stream it is first recorded on.

    ``start.elapsed_time(end)`` gives milliseconds between two recorded events.
    """

    def __init__(self, device=None):
        self._h = None
        self._ctx = None
        self._finalizer = None
        if device is not None:
            self._create(context(device))

    def _create(self, ctx: Context) -> None:
        h = _ffi.ek_event()
        check(lib.ek_event_create(ctx._handle(), ctypes.byref(h)))
        self._h, self._ctx = h, ctx
        self._finalizer = weakref.finalize(self, _destroy_event, h, ctx)

    def _handle(self):
        if self._h is None:
            raise InvalidArgumentError("ek.Event: the event was never recorded",
                                       _ffi.EK_ERROR_INVALID_ARGUMENT)
        return self._h

    @property
    def device(self) -> str | None:
        return self._ctx.device if self._ctx is not None else None

    def record(self, stream: Stream | None = None) -> None:
        """Capture the work submitted to ``stream`` so far (default: this
        thread's current stream of the event's context)."""
        if stream is None:
            if self._ctx is None:
                st = _stack()
                stream = st[-1] if st else None
                ctx = stream._ctx if stream is not None else context("cpu")
                self._create(ctx)
            h = _current_handle(self._ctx) if stream is None else stream._h
        else:
            if self._ctx is None:
                self._create(stream._ctx)
            h = stream._h
        check(lib.ek_event_record(self._h, h))

    def synchronize(self) -> None:
        """Wait until the captured work has completed."""
        check(lib.ek_event_synchronize(self._handle()))

    def query(self) -> bool:
        """True when the captured work has completed (or the event was never recorded)."""
        if self._h is None:
            return True
        done = ctypes.c_int()
        check(lib.ek_event_query(self._h, ctypes.byref(done)))
        return bool(done.value)

    def elapsed_time(self, end: "Event") -> float:
        """Milliseconds from this event to ``end`` (both recorded and completed;
        NotReadyError otherwise)."""
        ms = ctypes.c_float()
        check(lib.ek_event_elapsed_ms(self._handle(), end._handle(), ctypes.byref(ms)))
        return float(ms.value)

    def __repr__(self) -> str:
        return f"ek.Event(device={self.device!r})"
