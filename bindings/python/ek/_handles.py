"""Handle lifetimes: every libek handle the binding owns is released exactly
once, is never passed to C after its release, and nothing is used or freed
after the interpreter's exit began. (In C a released handle is undefined
behaviour; these rules are what make it impossible from Python.)

Design notes: bindings/python/README.md, "Internals"."""

from __future__ import annotations

import atexit
import ctypes
import weakref

from ._errors import InvalidArgumentError, ShutdownError, shut_down
from ._lib import lib

__all__ = ["own", "releaser", "closed_error", "check_running", "set_null", "shut_down"]

_live: dict = {}  # weakref -> handle to release when its referent dies


class _PopLive:
    """A release function's argument type: the argument is a key of _live."""
    from_param = _live.pop


def releaser(name: str, keep=None, lib_=lib):
    """``fn(wr)`` = ``name(_live.pop(wr))`` in one C-level call (the weakref
    callback of registered handles). ``keep`` stays alive as long as ``fn``
    (a tensor releaser keeps its context's token)."""
    fn = lib_[name]  # a function object of our own: argtypes of its own
    fn.argtypes = [_PopLive]
    fn.restype = ctypes.c_int
    fn.keep = keep
    return fn


class _Token:
    """Whose death releases one registered handle (``handle``: the copy)."""
    __slots__ = ("handle", "__weakref__")


def own(h, release, keep=None) -> _Token:
    """Register a copy of ``h``, released by ``release`` (a ``releaser``) when
    the returned token dies; ``keep`` (a context's token) outlives it."""
    if shut_down[0]:  # h comes from a call in flight at exit: left unused, not freed
        raise ShutdownError()
    copy = type(h).from_buffer_copy(h)
    copy.keep = keep
    tok = _Token()
    tok.handle = copy
    _live[weakref.ref(tok, release)] = copy
    return tok


def set_null(h) -> None:
    """Set a handle object to NULL in place (every alias of it sees NULL)."""
    ctypes.c_void_p.from_buffer(h).value = None


def closed_error(obj):
    """The error for using ``obj`` after its close (or after exit)."""
    if shut_down[0]:
        return ShutdownError()
    return InvalidArgumentError(f"ek: {obj!r} is closed")


class _Closes:
    """``with obj:`` closes obj at the end of the block."""

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self.close()


class _Handle(_Closes):
    """Base of the classes owning a libek handle ``_h`` of a context ``_ctx``:
    released by ``close()``, at the end of a ``with`` block or on collection
    (its token's death). ``closed`` and ``_handle()`` may be refined."""

    _h = None
    _tok = None
    _ctx = None

    def _own(self, h, release, ctx) -> None:
        """Own h (released by ``release``, a ``releaser``); ctx outlives it."""
        self._ctx = ctx
        self._tok = own(h, release, ctx._tok)
        self._h = h

    def _handle(self):
        """The handle; InvalidArgumentError once closed (ShutdownError at exit)."""
        if self.closed or shut_down[0]:
            raise closed_error(self)
        return self._h

    @property
    def closed(self) -> bool:
        """True after ``close()``."""
        return not self._h

    def close(self) -> None:
        """Release the handle now (later uses raise InvalidArgumentError). Idempotent."""
        self._h = None
        self._tok = None  # its death releases the handle

    @property
    def context(self) -> "Context":  # noqa: F821 - (a cycle)
        """The ek.Context the object belongs to."""
        return self._ctx

    @property
    def device(self) -> str | None:
        """"cpu" or "cuda:N" (None before an event's first record)."""
        return None if self._ctx is None else self._ctx.device


def check_running() -> None:
    if shut_down[0]:
        raise ShutdownError()


def _at_exit() -> None:
    shut_down[0] = True
    for h in list(_live.values()):
        set_null(h)


atexit.register(_at_exit)
