"""Finding and loading libek.

Design notes: bindings/python/README.md, "Internals"."""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import warnings

from . import _ffi

__all__ = ["lib", "load", "LIBRARY_PATH"]

_PKG_DIR = os.path.dirname(os.path.abspath(__file__))


def _candidates(environ=None, pkg_dir=None):
    environ = os.environ if environ is None else environ
    pkg_dir = _PKG_DIR if pkg_dir is None else pkg_dir
    out = []
    env = environ.get("EK_LIBRARY")
    if env:
        out.append(("EK_LIBRARY", env))
    for name in ("libek.so.0", "libek.so"):
        out.append(("package", os.path.join(pkg_dir, name)))
    found = ctypes.util.find_library("ek")
    out.append(("find_library('ek')", found))
    return out


class _Missing:
    """Stands in for a function the loaded library lacks (EK_ALLOW_MISSING_FUNCTIONS=1)."""

    def __init__(self, name):
        self.__name__ = name

    def __call__(self, *args):
        from ._errors import NotSupportedError
        raise NotSupportedError(f"{self.__name__}: not in the loaded libek ({LIBRARY_PATH}); "
                                "it is older than ek.h", _ffi.EK_ERROR_NOT_SUPPORTED)


def _stub_missing(lib, missing) -> None:
    for name in missing:
        setattr(lib, name, _Missing(name))


def load(environ=None, pkg_dir=None):
    """Load and bind libek; returns ``(CDLL, path)``.

    Raises ImportError naming every path tried and why each failed.
    """
    environ = os.environ if environ is None else environ
    tried = []
    for how, path in _candidates(environ, pkg_dir):
        if not path:
            tried.append(f"  {how}: not found")
            continue
        if os.path.sep in path and not os.path.exists(path):
            tried.append(f"  {how}: {path}: no such file")
            continue
        try:
            lib = ctypes.CDLL(path)
        except OSError as e:
            tried.append(f"  {how}: {path}: {e}")
            continue
        missing = _ffi.bind(lib)
        if missing and environ.get("EK_ALLOW_MISSING_FUNCTIONS") == "1":
            warnings.warn(f"ek: {path} lacks {len(missing)} function(s) of ek.h: "
                          f"{', '.join(missing)}; calling them raises ek.NotSupportedError "
                          "(EK_ALLOW_MISSING_FUNCTIONS=1)", RuntimeWarning, stacklevel=2)
            _stub_missing(lib, missing)
            return lib, path
        if missing:
            tried.append(f"  {how}: {path}: lacks {len(missing)} function(s) of ek.h "
                         f"({', '.join(missing[:5])}{', ...' if len(missing) > 5 else ''}); "
                         "the library is older than the binding")
            continue
        return lib, path
    raise ImportError(
        "ek: cannot load libek. Tried:\n" + "\n".join(tried) +
        "\nSet EK_LIBRARY=/path/to/libek.so.0 or copy libek.so.0 next to "
        f"{_PKG_DIR}/__init__.py.")


lib, LIBRARY_PATH = load()
