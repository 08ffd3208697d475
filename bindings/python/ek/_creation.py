"""Tensor factories: empty, zeros, ones, full, arange, tensor, from_numpy, *_like."""

from __future__ import annotations

import ctypes
import numpy as np

from . import _ffi
from ._cint import scalar
from ._context import context
from ._dtype import DTYPES, dtype as _as_dtype
from ._errors import check
from ._lib import lib
from ._stream import _current_handle
from ._tensor import Tensor, _empty, _from_numpy, _shape_args

__all__ = ["empty", "zeros", "ones", "full", "arange", "tensor", "from_numpy",
           "empty_like", "zeros_like", "ones_like", "full_like"]

float32 = DTYPES["float32"]


def _dt(d, default):
    return default if d is None else _as_dtype(d)


def empty(*shape, dtype=None, device="cpu") -> Tensor:
    """An uninitialised C-contiguous tensor (dtype default float32)."""
    return _empty(_shape_args(shape), _dt(dtype, float32), context(device))


def zeros(*shape, dtype=None, device="cpu") -> Tensor:
    """A tensor of zeros (dtype default float32)."""
    return empty(*shape, dtype=dtype, device=device).fill_(0)


def ones(*shape, dtype=None, device="cpu") -> Tensor:
    """A tensor of ones (dtype default float32)."""
    return empty(*shape, dtype=dtype, device=device).fill_(1)


def _scalar_dtype(value):
    if isinstance(value, (bool, np.bool_)):
        return DTYPES["bool"]
    if isinstance(value, (int, np.integer)):
        return DTYPES["int64"]
    return float32


def full(shape, fill_value, dtype=None, device="cpu") -> Tensor:
    """A tensor filled with fill_value; dtype default from the value (bool,
    int64, float32)."""
    dt = _dt(dtype, _scalar_dtype(fill_value))
    return empty(shape, dtype=dt, device=device).fill_(fill_value)


def empty_like(t: Tensor, dtype=None, device=None) -> Tensor:
    """An uninitialised tensor with t's shape (and dtype/device unless given)."""
    return empty(t.shape, dtype=dtype or t.dtype, device=device or t.context)


def zeros_like(t: Tensor, dtype=None, device=None) -> Tensor:
    """Zeros with t's shape (and dtype/device unless given)."""
    return empty_like(t, dtype, device).fill_(0)


def ones_like(t: Tensor, dtype=None, device=None) -> Tensor:
    """Ones with t's shape (and dtype/device unless given)."""
    return empty_like(t, dtype, device).fill_(1)


def full_like(t: Tensor, fill_value, dtype=None, device=None) -> Tensor:
    """fill_value everywhere, with t's shape (and dtype/device unless given)."""
    return empty_like(t, dtype, device).fill_(fill_value)


def arange(start, stop=None, step=1, dtype=None, device="cpu") -> Tensor:
    """1-D tensor start, start+step, … < stop (as numpy.arange). dtype
    default: int64 when all arguments are integers, else float32."""
    if stop is None:
        start, stop = 0, start
    if dtype is None:
        ints = all(isinstance(v, (int, np.integer)) and not isinstance(v, bool)
                   for v in (start, stop, step))
        dtype = DTYPES["int64"] if ints else float32
    dt = _as_dtype(dtype)
    ctx = context(device)
    out = _ffi.ek_tensor()
    check(lib.ek_arange(_current_handle(ctx), ctx._handle(), scalar(start, "arange: start"),
                        scalar(stop, "arange: stop"), scalar(step, "arange: step"), dt.code,
                        ctypes.byref(out)))
    return Tensor._wrap(out, ctx)


def from_numpy(arr, device="cpu") -> Tensor:
    """A tensor holding a copy of a NumPy array (any strides; same dtype)."""
    return _from_numpy(np.asarray(arr), context(device))


def tensor(data, dtype=None, device="cpu") -> Tensor:
    """A new tensor from data: nested lists/tuples, a scalar, a NumPy array or
    another Tensor (always copied).

    dtype default: a NumPy array's or Tensor's own; for Python data as NumPy
    infers it, except that floats become float32 (as in PyTorch). With a
    dtype, Python data is converted to it once (float64 keeps 0.1 exact)."""
    ctx = context(device)
    dt = None if dtype is None else _as_dtype(dtype)
    if isinstance(data, Tensor):
        out = _empty(data.shape, dt or data.dtype, ctx)
        return out.copy_(data)
    if isinstance(data, np.ndarray) or isinstance(data, np.generic):
        arr = np.asarray(data)
    else:
        arr = np.asarray(data)
        if arr.dtype == np.float64 and dt is None:
            arr = arr.astype(np.float32)
        elif arr.dtype.kind in "iu" and arr.dtype != np.uint8:
            arr = arr.astype(np.int64)
    if dt is not None and dt.numpy is not None and arr.dtype == dt.numpy:
        dt = None
    t = _from_numpy(arr, ctx)
    return t if dt is None else t.astype(dt)
