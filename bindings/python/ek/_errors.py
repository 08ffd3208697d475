"""Exceptions: ``Error``, the base, and ``check``; the class of each status
is generated from ek.h (_status.py, re-exported here)."""

from __future__ import annotations

from . import _ffi
from ._lib import lib

__all__ = ["Error", "ShutdownError", "check", "error_for"]


class Error(Exception):
    """Base class of libek errors.

    ``status`` is the ek_status code, ``status_name`` its name
    ("EK_ERROR_SHAPE"), ``description`` what it means and ``message`` the C
    library's message (from ``ek_last_error()``), which names the failing
    function and values.
    """

    status = -1

    def __init__(self, message: str = "", status: int | None = None):
        if status is not None:
            self.status = status
        self.message = message
        self.status_name = lib.ek_status_string(self.status).decode()
        Exception.__init__(self, message)

    @property
    def description(self) -> str:
        """The status's description ("shape mismatch"; ek_status_description)."""
        return lib.ek_status_description(self.status).decode()

    def __str__(self) -> str:
        return f"{self.message} [{self.status_name}]" if self.message else self.status_name

    def __reduce__(self):
        return (type(self), (self.message, self.status))


SHUTDOWN_MESSAGE = ("ek: libek is shut down (the interpreter is exiting); ek objects can no "
                    "longer be used")
shut_down = [False]
"""[True] once the binding's exit hook ran (see _handles)."""


class ShutdownError(Error, RuntimeError):
    """Raised by every call into libek once the interpreter's exit began (the
    binding's ``atexit`` hook ran): objects still alive then (read by a later
    ``atexit`` hook, a ``__del__`` or a daemon thread) can no longer be used.
    Nothing is freed at exit, so such a call never touches freed memory."""

    status = _ffi.EK_ERROR_INVALID_ARGUMENT

    def __init__(self, message: str = "", status: int | None = None):
        Error.__init__(self, message or SHUTDOWN_MESSAGE, status)


def error_for(status: int, message: str = "") -> Error:
    """The exception object for a status code (unknown codes give ``Error``)."""
    cls = BY_STATUS.get(status, Error)
    return cls(message, status)


def check(status: int) -> None:
    """Raise the exception for ``status`` (with this thread's ek_last_error())
    unless it is EK_SUCCESS; ShutdownError once the interpreter's exit began."""
    if status != _ffi.EK_SUCCESS:
        if shut_down[0]:  # the handles were set to NULL at exit: that is the cause
            raise ShutdownError()
        raw = lib.ek_last_error()
        raise error_for(status, raw.decode("utf-8", "replace") if raw else "")


from ._status import *  # noqa: E402,F401,F403 - they derive from Error
from ._status import BY_STATUS, __all__ as _STATUS_CLASSES  # noqa: E402

__all__ += _STATUS_CLASSES
