"""ek — Python binding of libek, a GPU tensor runtime with a stable C API.

A thin ctypes layer generated from ``include/ek.h`` by tools/gen_bindings:
the FFI declarations (``ek._ffi``), the uniform ops (``ek._capi``, one
function per op of ek.h), the ops of ek.h's lists by name with the Tensor
methods and operators (``ek._ops``) and the type stubs (``__init__.pyi``).
Everything numeric, indexing included, happens in the C library.

    >>> import ek
    >>> x = ek.arange(6, dtype=ek.float32).reshape(2, 3)
    >>> (x.T @ x).softmax(dim=-1).sum(dim=1)
    >>> x[x > 2] = 0              # boolean-mask assignment
    >>> y = x.to("cuda")          # needs a GPU

Module-level functions mirror PyTorch's (``ek.exp(x)``, ``ek.where(c, a, b)``,
``ek.max(x, dim)``, ``ek.randn``, ...); each Tensor has the same ops as methods
and the Python operators. Custom CUDA kernels (``ek.RawModule``,
``ek.RawKernel``, ``ek.ElementwiseKernel``), the profiler (``ek.profile``),
logging (``ek.set_log_callback``) and raw memory (``ek.Memory``): see
bindings/python/README.md.

The library is found through ``EK_LIBRARY``, then ``libek.so.0`` next to this
package, then the system's library path.
"""

from __future__ import annotations

import ctypes as _ctypes

from . import _ffi, cuda
from ._context import *  # noqa: F401,F403
from ._creation import *  # noqa: F401,F403
from ._device import device_count, device_info
from ._dtype import DType, dtype
from ._errors import Error, ShutdownError, check
from ._status import *  # noqa: F401,F403  (generated: one class per error status)
from ._lib import LIBRARY_PATH, lib as _cdll
from ._log import *  # noqa: F401,F403
from ._memory import *  # noqa: F401,F403
from ._stream import *  # noqa: F401,F403
from ._tensor import Tensor
from ._version import __version__
from ._kernels import *  # noqa: F401,F403
from ._profiler import *  # noqa: F401,F403
from ._ops import *  # noqa: F401,F403  (generated from ek.h's op lists)
from ._elementwise import *  # noqa: F401,F403
from ._reduce import *  # noqa: F401,F403
from ._indexing import *  # noqa: F401,F403
from ._join import *  # noqa: F401,F403
from ._linalg import *  # noqa: F401,F403
from ._random import *  # noqa: F401,F403
from ._sort import *  # noqa: F401,F403
from ._dlpack import from_dlpack
from ._array_object import *  # noqa: F401,F403  (mT, to_device, __array_namespace__, ...)
from ._complex import *  # noqa: F401,F403  (real, imag; Tensor.real/.imag/.conj())
from . import array_api  # noqa: F401  (the Python array API standard namespace)
from . import (_capi, _context, _creation, _elementwise, _indexing, _join, _kernels, _log,
               _memory, _ops, _profiler, _random, _reduce, _status, _stream)
from . import _sort
from . import _linalg
from ._fusion import *  # noqa: F401,F403  (issue 19: automatic fusion)

half, float, double = float16, float32, float64  # noqa: A001 - torch-style aliases
long, int = int64, int32  # noqa: A001


def version() -> str:
    """Version of the loaded libek, "MAJOR.MINOR.PATCH" (ek_version_string);
    ``ek.__version__`` is this package's version."""
    return _cdll.ek_version_string().decode()


def version_info() -> tuple:
    """(major, minor, patch) of the loaded libek."""
    v = _cdll.ek_version()
    return (v // 10000, v // 100 % 100, v % 100)


def memory_stats(device="cpu") -> dict:
    """Pool counters of a device's default context."""
    return context(device).memory_stats()


def memory_snapshot(device="cpu") -> list:
    """Pool blocks of a device's default context."""
    return context(device).memory_snapshot()


def memory_snapshot_json(path=None, device="cpu"):
    """Pool snapshot and statistics of a device's default context as JSON:
    written to path, or returned as a dict (see Context.memory_snapshot_json)."""
    return context(device).memory_snapshot_json(path)


__all__ = ["Tensor", "DType", "dtype", "cuda", "version", "version_info", "device_count",
           "device_info", "memory_stats", "memory_snapshot", "memory_snapshot_json",
           "LIBRARY_PATH", "Error", "ShutdownError", "from_dlpack"]
for _m in (_context, _stream, _log, _status, _kernels, _profiler, _creation, _memory, _ops,
           _elementwise, _reduce, _indexing, _join, _random, _sort):
    __all__ += _m.__all__
__all__ += _linalg.__all__
del _m, annotations
