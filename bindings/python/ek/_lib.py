"""Finding and loading libek.

Design notes: bindings/python/README.md, "Internals"."""

from __future__ import annotations

import ctypes
import ctypes.util
import importlib.util
import os
import warnings

from . import _ffi

__all__ = ["lib", "load", "LIBRARY_PATH", "CUDA_WHEEL_LIBRARIES"]

_PKG_DIR = os.path.dirname(os.path.abspath(__file__))

# cuBLAS and NVRTC: libek dlopens them by soname at first use (libcublas.so.13,
# libnvrtc.so.13, then .12, then unversioned), and dlopen returns a library of
# that soname already in the process. NVIDIA's wheels (pip install "ek[cuda]")
# put them in site-packages/nvidia/cu13/lib, where the dynamic linker does not
# look, so they are loaded from there, by path, before libek. Without the
# wheels (or with EK_CUDA_WHEELS=0) libek's dlopen searches the system:
# LD_LIBRARY_PATH, then the ld.so cache (a CUDA toolkit's ld.so.conf.d entry).
# Dependencies first: libcublas.so.13 needs libcublasLt.so.13.
_CUDA_WHEEL_FILES = {"cuBLAS": ("libcublasLt.so.13", "libcublas.so.13"),
                     "NVRTC": ("libnvrtc.so.13",)}


def _cuda_wheel_dirs(find_spec=importlib.util.find_spec):
    """The lib directories of the namespace package nvidia.cu13 on sys.path."""
    try:
        spec = find_spec("nvidia.cu13")
    except (ImportError, ValueError):
        return []
    roots = (spec.submodule_search_locations or []) if spec else []
    return [os.path.join(root, "lib") for root in roots]


def preload_cuda_wheels(environ=None, dirs=None, cdll=ctypes.CDLL):
    """Load cuBLAS and NVRTC from NVIDIA's wheels, if installed; returns
    {"cuBLAS": path, ...} for those loaded. A wheel that fails to load is
    warned about and left to the system search."""
    environ = os.environ if environ is None else environ
    if environ.get("EK_CUDA_WHEELS") == "0":
        return {}
    dirs = _cuda_wheel_dirs() if dirs is None else dirs
    loaded = {}
    for what, files in _CUDA_WHEEL_FILES.items():
        for d in dirs:
            paths = [os.path.join(d, f) for f in files]
            if not all(os.path.isfile(p) for p in paths):
                continue
            try:
                for p in paths:
                    cdll(p, mode=ctypes.RTLD_GLOBAL)
            except OSError as e:
                warnings.warn(f"ek: cannot load {what} from NVIDIA's wheel ({e}); "
                              "libek will search the system for it", RuntimeWarning, stacklevel=2)
                continue
            loaded[what] = paths[-1]
            break
    return loaded


def _candidates(environ=None, pkg_dir=None):
    environ = os.environ if environ is None else environ
    pkg_dir = _PKG_DIR if pkg_dir is None else pkg_dir
    out = []
    env = environ.get("EK_LIBRARY")
    if env:
        out.append(("EK_LIBRARY", env))
    for name in ("libek.so.0", "libek.so"):
        out.append(("package", os.path.join(pkg_dir, name)))
    # Where the wheel (meson-python) puts the libek it built: beside the package.
    out.append(("wheel", os.path.join(os.path.dirname(pkg_dir), ".ek.mesonpy.libs", "libek.so.0")))
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


CUDA_WHEEL_LIBRARIES = preload_cuda_wheels()
lib, LIBRARY_PATH = load()
