"""libek's log messages to a Python callable instead of stderr
(ek_log_set_callback)."""

from __future__ import annotations

import atexit
import sys
import threading
import traceback

from . import _ffi
from ._errors import InvalidArgumentError, check
from ._lib import lib

__all__ = ["set_log_callback"]

_LEVEL_NAMES = _ffi.ek_log_level_names

_lock = threading.Lock()  # orders the C call with the update of _installed
_installed = None         # the ctypes function C may call: kept alive while it may
_exit_hook = [False]
_local = threading.local()  # in_callback: this thread is running the callback


def _trampoline(fn):
    def call(level, message, _user_data):
        _local.in_callback = True
        try:
            fn(_LEVEL_NAMES.get(level, str(level)), message.decode("utf-8", "replace"))
        except BaseException:  # noqa: BLE001 - must not unwind into C
            print("ek: exception in the log callback (ignored):", file=sys.stderr)
            traceback.print_exc()
        finally:
            _local.in_callback = False
    return _ffi.ek_log_callback(call)


def _clear_at_exit() -> None:
    # C threads must not call into an interpreter that is shutting down.
    try:
        set_log_callback(None)
    except Exception:  # noqa: BLE001 - interpreter shutdown
        pass


def set_log_callback(fn) -> None:
    """Send libek's log messages to ``fn(level, message)`` instead of stderr,
    for the whole process; ``None`` restores stderr.

    ``level`` is "error", "warn", "info" or "debug"; ``message`` a str. What
    is logged depends on each context's ``log_level`` (or ``EK_LOG_LEVEL``);
    nothing by default. ``fn`` may run on any thread, concurrently; an
    exception in it is printed and ignored. Once this returns, the previous
    callable is never called again. Calling it from inside ``fn`` raises
    InvalidArgumentError; messages libek logs while ``fn`` runs on that
    thread go to stderr.

        >>> import logging
        >>> log = logging.getLogger("ek")
        >>> ek.set_log_callback(lambda level, msg: log.log(
        ...     {"error": 40, "warn": 30, "info": 20, "debug": 10}[level], msg))
    """
    global _installed
    if getattr(_local, "in_callback", False):
        raise InvalidArgumentError("ek.set_log_callback: called from inside the log callback "
                                   "(it would wait for itself)")
    if fn is not None and not callable(fn):
        raise TypeError(f"ek.set_log_callback: {fn!r} is not callable")
    c_fn = None if fn is None else _trampoline(fn)
    with _lock:
        # A function type called with no argument is its NULL pointer.
        check(lib.ek_log_set_callback(_ffi.ek_log_callback() if c_fn is None else c_fn, None))
        # The library no longer calls the previous function: it may be freed.
        _installed = c_fn
        if c_fn is not None and not _exit_hook[0]:
            atexit.register(_clear_at_exit)
            _exit_hook[0] = True
