"""Tensor factories: empty, zeros, ones, full, arange, linspace, eye, tensor,
from_numpy, *_like; tril and triu (also Tensor methods)."""

from __future__ import annotations

import numpy as np

from . import _capi
from ._context import context
from ._dtype import DTYPES, dtype as _as_dtype
from ._tensor import Tensor, _empty, _from_numpy, _shape_args, tensor_methods

__all__ = ["empty", "zeros", "ones", "full", "arange", "linspace", "eye", "tril", "triu",
           "tensor", "from_numpy", "empty_like", "zeros_like", "ones_like", "full_like"]

float32 = DTYPES["float32"]


def _dt(d, default):
    return default if d is None else _as_dtype(d)


def empty(*shape, dtype=None, device="cpu") -> Tensor:
    """An uninitialised C-contiguous tensor (dtype default float32)."""
    if len(shape) == 1 and type(shape[0]) is not int and not isinstance(shape[0], np.integer):
        shape = shape[0]  # empty((2, 3)) as empty(2, 3); _empty checks each size
    return _empty(shape, float32 if dtype is None else _as_dtype(dtype), context(device))


def zeros(*shape, dtype=None, device="cpu") -> Tensor:
    """A tensor of zeros (dtype default float32)."""
    return full(_shape_args(shape), 0, dtype=_dt(dtype, float32), device=device)


def ones(*shape, dtype=None, device="cpu") -> Tensor:
    """A tensor of ones (dtype default float32)."""
    return full(_shape_args(shape), 1, dtype=_dt(dtype, float32), device=device)


def _scalar_dtype(value):
    if isinstance(value, (bool, np.bool_)):
        return DTYPES["bool"]
    if isinstance(value, (int, np.integer)):
        return DTYPES["int64"]
    return float32


def full(shape, fill_value, dtype=None, device="cpu") -> Tensor:
    """A tensor filled with fill_value; dtype default from the value (bool,
    int64, float32)."""
    return _capi.full(_shape_args((shape,)), _dt(dtype, _scalar_dtype(fill_value)), fill_value,
                      device=device)


def empty_like(t: Tensor, dtype=None, device=None) -> Tensor:
    """An uninitialised tensor with t's shape (and dtype/device unless given)."""
    return empty(t.shape, dtype=dtype or t.dtype, device=device or t.context)


def zeros_like(t: Tensor, dtype=None, device=None) -> Tensor:
    """Zeros with t's shape (and dtype/device unless given)."""
    return full_like(t, 0, dtype, device)


def ones_like(t: Tensor, dtype=None, device=None) -> Tensor:
    """Ones with t's shape (and dtype/device unless given)."""
    return full_like(t, 1, dtype, device)


def full_like(t: Tensor, fill_value, dtype=None, device=None) -> Tensor:
    """fill_value everywhere, with t's shape (and dtype/device unless given)."""
    return full(t.shape, fill_value, dtype=dtype or t.dtype, device=device or t.context)


def arange(start, stop=None, step=1, dtype=None, device="cpu") -> Tensor:
    """1-D tensor start, start+step, … < stop (as numpy.arange). dtype
    default: int64 when all arguments are integers, else float32."""
    if stop is None:
        start, stop = 0, start
    if dtype is None:
        ints = all(isinstance(v, (int, np.integer)) and not isinstance(v, bool)
                   for v in (start, stop, step))
        dtype = DTYPES["int64"] if ints else float32
    return _capi.arange(start, stop, step, dtype, device=device)


def linspace(start, stop, num, *, endpoint=True, dtype=None, device="cpu") -> Tensor:
    """1-D tensor of num evenly spaced values from start to stop (stop
    included unless endpoint=False), as numpy.linspace (ek_linspace): computed
    in float64, the last element exactly stop; integer dtypes round toward
    -inf. dtype default float32 (as torch.linspace)."""
    return _capi.linspace(start, stop, num, endpoint, _dt(dtype, float32), device=device)


def eye(n, m=None, *, k=0, dtype=None, device="cpu") -> Tensor:
    """n x m (m default n) tensor with ones on diagonal k (0 the main one,
    k > 0 above, k < 0 below) and zeros elsewhere, as numpy.eye (ek_eye).
    dtype default float32."""
    return _capi.eye(n, n if m is None else m, k, _dt(dtype, float32), device=device)


def tril(input, diagonal=0, *, out=None) -> Tensor:  # noqa: A002
    """The lower triangle of each matrix over the last two dims: elements with
    j - i <= diagonal kept, the rest 0 (torch.tril, ek_tril). out may be
    input itself (in place)."""
    return _capi.tril(input, diagonal, out=out)


def triu(input, diagonal=0, *, out=None) -> Tensor:  # noqa: A002
    """The upper triangle of each matrix over the last two dims: elements with
    j - i >= diagonal kept, the rest 0 (torch.triu, ek_triu). out may be
    input itself (in place)."""
    return _capi.triu(input, diagonal, out=out)


@tensor_methods
class CreationMethods:
    tril, triu = tril, triu

    def tril_(self, diagonal=0):
        """Zero the elements above diagonal, in place; returns self."""
        return tril(self, diagonal, out=self)

    def triu_(self, diagonal=0):
        """Zero the elements below diagonal, in place; returns self."""
        return triu(self, diagonal, out=self)


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
