"""Handle lifetimes: every libek handle the binding owns is released exactly
once, is never passed to C after its release, and nothing is used or freed
after the interpreter's exit began. (In C a released handle is undefined
behaviour; these rules are what make it impossible from Python.)

Registry. ``_live`` maps a weak reference to the handle released when the
reference's referent dies: a Tensor itself, or the private token of a
Context, Stream, Event, RawModule, RawKernel or ElementwiseKernel build. The
weakref's callback is a ctypes function object of the release function whose
argument converter is ``_live.pop``: CPython calls ``release(_live.pop(wr))``
without running a Python bytecode in between, so a signal handler (a
KeyboardInterrupt) can land before or after, never between forgetting a
handle and releasing it; and a callback runs once, so a handle is released
once.

Contexts outlive what they own: a context is destroyed when its token dies,
and the token is kept by the Context, by its tensors' release callback and by
the registry entry of each of its streams, events and modules, so it dies
after all of them were released.

Explicit close (``close()`` of those objects): the object first drops its own
handle (later calls raise "closed"), then its token, whose death releases the
registry's copy of the handle. An interrupt between the two only delays the
release to the object's collection; closing twice does nothing.

Exit. The exit hook (registered at import, so it runs after the hooks
registered later and before those registered earlier) frees nothing: it sets
``shut_down`` and sets every registered handle to NULL in place. Any later
call through a Tensor passes NULL and raises ``ShutdownError``, the others
check ``shut_down`` first, and the releases of objects collected during the
interpreter's teardown release NULL (a no-op). Destroying contexts at exit
would race with daemon threads still inside a C call on them; waiting for
those calls would cost every call a counter (and could wait forever on a
blocked thread). The process is exiting: the OS and the driver reclaim host
and device memory, as they do for PyTorch's and CuPy's pools.
"""

from __future__ import annotations

import atexit
import ctypes
import weakref

from . import _ffi
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


def closed_error(what: str):
    """The error for using ``what`` after its close (or after exit)."""
    if shut_down[0]:
        return ShutdownError()
    return InvalidArgumentError(f"{what} is closed", _ffi.EK_ERROR_INVALID_ARGUMENT)


def check_running() -> None:
    if shut_down[0]:
        raise ShutdownError()


def _at_exit() -> None:
    shut_down[0] = True
    for h in list(_live.values()):
        set_null(h)


atexit.register(_at_exit)
