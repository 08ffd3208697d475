"""Creation functions with the standard's signatures and default dtypes
(bool, int64, float32: as ek and PyTorch)."""

from __future__ import annotations

import builtins
import math

import numpy as np

import ek
from .._dtype import DTYPES

__all__ = ["arange", "asarray", "empty", "empty_like", "eye", "from_dlpack", "full",
           "full_like", "linspace", "meshgrid", "ones", "ones_like", "tril", "triu", "zeros",
           "zeros_like"]

_DEV = "cpu"


def _device(device, like=None):
    return device if device is not None else (like.device if like is not None else _DEV)


def _shape(shape) -> tuple:
    return (shape,) if isinstance(shape, int) else tuple(shape)


def _default_dtype(value):
    if isinstance(value, builtins.bool):
        return DTYPES["bool"]
    if isinstance(value, int):
        return DTYPES["int64"]
    if isinstance(value, complex):
        return ek.dtype("complex64")
    return DTYPES["float32"]


def _host(arr: np.ndarray, dt, device):
    """A tensor of dt from host values, converted in NumPy when it can (exact
    float64 values) and by ek otherwise (bfloat16)."""
    dt = ek.dtype(dt)
    if dt.numpy is not None:
        return ek.from_numpy(np.asarray(arr, dtype=dt.numpy), device=device)
    return ek.tensor(arr, dtype=dt, device=device)


def _copy_rule(x, dtype, device, copy):
    same = (dtype is None or ek.dtype(dtype) is x.dtype) and \
        (device is None or str(device) == x.device)
    if same and not copy:
        return x
    if copy is False:
        raise ValueError("ek.array_api.asarray: copy=False but the dtype or device differs "
                         "(a copy is needed)")
    out = x.to(device or x.device, dtype or x.dtype)
    return out.clone() if out is x else out


def asarray(obj, /, *, dtype=None, device=None, copy=None):
    """An array of obj: an ek array (itself unless dtype, device or copy=True
    ask otherwise), an object with __dlpack__ (a NumPy array, a PyTorch or
    CuPy tensor: shared unless copy=True or a conversion needs a copy), or a
    Python scalar or nested sequence (copied; bool, int64 or float32 by
    default). copy=False raises ValueError where a copy would be needed."""
    if isinstance(obj, ek.Tensor):
        return _copy_rule(obj, dtype, device, copy)
    if hasattr(obj, "__dlpack__") and not copy:
        try:
            shared = ek.from_dlpack(obj)
        except (TypeError, BufferError):  # an ek-less dtype or a read-only buffer
            shared = None
        if shared is not None:
            return _copy_rule(shared, dtype, device, copy)
    if copy is False:
        raise ValueError(f"ek.array_api.asarray: copy=False, but a {type(obj).__name__} "
                         f"cannot be shared without a copy")
    arr = np.asarray(obj)
    if dtype is None and not isinstance(obj, (np.ndarray, np.generic)):
        dtype = {"b": "bool", "i": "int64", "u": "int64", "f": "float32",
                 "c": "complex64"}.get(arr.dtype.kind, arr.dtype)
    return _host(arr, dtype or arr.dtype, _device(device))


def arange(start, /, stop=None, step=1, *, dtype=None, device=None):
    """Values from start (inclusive) to stop (exclusive) by step; int64 when
    every bound is an int, float32 otherwise (unless dtype)."""
    if stop is None:
        start, stop = 0, start
    if dtype is None and not builtins.all(isinstance(v, int) for v in (start, stop, step)):
        dtype = DTYPES["float32"]
    if step == 0:
        raise ValueError("ek.array_api.arange: step must not be 0")
    if math.ceil((stop - start) / step) <= 0:
        return ek.empty(0, dtype=dtype or DTYPES["int64"], device=_device(device))
    return ek.arange(start, stop, step, dtype=dtype, device=_device(device))


def empty(shape, *, dtype=None, device=None):
    return ek.empty(_shape(shape), dtype=dtype, device=_device(device))


def zeros(shape, *, dtype=None, device=None):
    return ek.zeros(_shape(shape), dtype=dtype, device=_device(device))


def ones(shape, *, dtype=None, device=None):
    return ek.ones(_shape(shape), dtype=dtype, device=_device(device))


def full(shape, fill_value, *, dtype=None, device=None):
    """shape filled with fill_value; the dtype of fill_value (bool, int64,
    float32, complex64) unless given."""
    if isinstance(fill_value, ek.Tensor):
        fill_value = fill_value.item()
    dt = ek.dtype(dtype) if dtype is not None else _default_dtype(fill_value)
    return ek.full(_shape(shape), fill_value, dtype=dt, device=_device(device))


def empty_like(x, /, *, dtype=None, device=None):
    return ek.empty(x.shape, dtype=dtype or x.dtype, device=_device(device, x))


def zeros_like(x, /, *, dtype=None, device=None):
    return ek.zeros(x.shape, dtype=dtype or x.dtype, device=_device(device, x))


def ones_like(x, /, *, dtype=None, device=None):
    return ek.ones(x.shape, dtype=dtype or x.dtype, device=_device(device, x))


def full_like(x, /, fill_value, *, dtype=None, device=None):
    return ek.full(x.shape, fill_value, dtype=dtype or x.dtype, device=_device(device, x))


def eye(n_rows, n_cols=None, /, *, k=0, dtype=None, device=None):
    """Ones on diagonal k; any k (one past the matrix is all zeros)."""
    cols = n_rows if n_cols is None else n_cols
    k = max(-n_rows, min(k, cols))
    return ek.eye(n_rows, n_cols, k=k, dtype=dtype, device=_device(device))


def linspace(start, stop, /, num, *, dtype=None, device=None, endpoint=True):
    return ek.linspace(start, stop, num, endpoint=endpoint, dtype=dtype, device=_device(device))


def meshgrid(*arrays, indexing="xy"):
    """Coordinate arrays of 1-D arrays; indexing "xy" (the standard's
    default, Cartesian) or "ij" (matrix)."""
    if indexing not in ("xy", "ij"):
        raise ValueError(f"ek.array_api.meshgrid: indexing must be 'xy' or 'ij', not "
                         f"{indexing!r}")
    return list(ek.meshgrid(*arrays, indexing=indexing)) if arrays else []


def tril(x, /, *, k=0):
    return ek.tril(x, k)


def triu(x, /, *, k=0):
    return ek.triu(x, k)


def from_dlpack(x, /, *, device=None, copy=None):
    """An array sharing x's memory (DLPack), copied when copy=True or when
    device differs."""
    return ek.from_dlpack(x, device=device, copy=copy)
