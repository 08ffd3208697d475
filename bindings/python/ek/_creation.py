"""Tensor factories: empty, zeros, ones, full, arange, linspace, eye, tensor,
from_numpy, *_like; tril and triu (also Tensor methods)."""

from __future__ import annotations

import ctypes
import numpy as np

from . import _ffi
from ._cint import c_int64, int64_array, scalar
from ._context import context
from ._dtype import DTYPES, dtype as _as_dtype
from ._errors import check
from ._lib import lib
from ._stream import _current_handle
from ._tensor import Tensor, _empty, _from_numpy, _shape_args

__all__ = ["empty", "zeros", "ones", "full", "arange", "linspace", "eye", "tril", "triu",
           "tensor", "from_numpy", "empty_like", "zeros_like", "ones_like", "full_like",
           "install"]

float32 = DTYPES["float32"]


def _dt(d, default):
    return default if d is None else _as_dtype(d)


def empty(*shape, dtype=None, device="cpu") -> Tensor:
    """An uninitialised C-contiguous tensor (dtype default float32)."""
    return _empty(_shape_args(shape), _dt(dtype, float32), context(device))


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
    dt = _dt(dtype, _scalar_dtype(fill_value))
    dims = _shape_args((shape,))
    ctx = context(device)
    out = _ffi.ek_tensor()
    check(lib.ek_full(_current_handle(ctx), ctx._handle(), len(dims), int64_array(dims), dt.code,
                      scalar(fill_value, "full: fill_value"), ctypes.byref(out)))
    return Tensor._wrap(out, ctx)


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
    dt = _as_dtype(dtype)
    ctx = context(device)
    out = _ffi.ek_tensor()
    check(lib.ek_arange(_current_handle(ctx), ctx._handle(), scalar(start, "arange: start"),
                        scalar(stop, "arange: stop"), scalar(step, "arange: step"), dt.code,
                        ctypes.byref(out)))
    return Tensor._wrap(out, ctx)


def linspace(start, stop, num, *, endpoint=True, dtype=None, device="cpu") -> Tensor:
    """1-D tensor of num evenly spaced values from start to stop (stop
    included unless endpoint=False), as numpy.linspace (ek_linspace): computed
    in float64, the last element exactly stop; integer dtypes round toward
    -inf. dtype default float32 (as torch.linspace)."""
    dt = _dt(dtype, float32)
    ctx = context(device)
    out = _ffi.ek_tensor()
    check(lib.ek_linspace(_current_handle(ctx), ctx._handle(), scalar(start, "linspace: start"),
                          scalar(stop, "linspace: stop"), c_int64(num, "linspace: num"),
                          1 if endpoint else 0, dt.code, ctypes.byref(out)))
    return Tensor._wrap(out, ctx)


def eye(n, m=None, *, k=0, dtype=None, device="cpu") -> Tensor:
    """n x m (m default n) tensor with ones on diagonal k (0 the main one,
    k > 0 above, k < 0 below) and zeros elsewhere, as numpy.eye (ek_eye).
    dtype default float32."""
    dt = _dt(dtype, float32)
    ctx = context(device)
    out = _ffi.ek_tensor()
    check(lib.ek_eye(_current_handle(ctx), ctx._handle(), c_int64(n, "eye: n"),
                     c_int64(n if m is None else m, "eye: m"), c_int64(k, "eye: k"), dt.code,
                     ctypes.byref(out)))
    return Tensor._wrap(out, ctx)


def _triangle(fn, x, diagonal, out):
    if not isinstance(x, Tensor):
        raise TypeError(f"expected an ek.Tensor, got {type(x).__name__}")
    k = c_int64(diagonal, "diagonal")
    if out is None:
        h = _ffi.ek_tensor()
        check(fn(x._stream(), x._h, k, ctypes.byref(h)))
        return Tensor._wrap(h, x._ctx)
    if not isinstance(out, Tensor):
        raise TypeError(f"out must be an ek.Tensor, not {type(out).__name__}")
    check(fn(x._stream(), x._h, k, out._outp()))
    return out


def tril(input, diagonal=0, *, out=None) -> Tensor:  # noqa: A002
    """The lower triangle of each matrix over the last two dims: elements with
    j - i <= diagonal kept, the rest 0 (torch.tril, ek_tril). out may be
    input itself (in place)."""
    return _triangle(lib.ek_tril, input, diagonal, out)


def triu(input, diagonal=0, *, out=None) -> Tensor:  # noqa: A002
    """The upper triangle of each matrix over the last two dims: elements with
    j - i >= diagonal kept, the rest 0 (torch.triu, ek_triu). out may be
    input itself (in place)."""
    return _triangle(lib.ek_triu, input, diagonal, out)


def _tril_method(self, diagonal=0) -> Tensor:
    """The lower triangle (see ek.tril)."""
    return tril(self, diagonal)


def _triu_method(self, diagonal=0) -> Tensor:
    """The upper triangle (see ek.triu)."""
    return triu(self, diagonal)


def _tril_inplace(self, diagonal=0) -> Tensor:
    """Zero the elements above diagonal, in place; returns self."""
    return tril(self, diagonal, out=self)


def _triu_inplace(self, diagonal=0) -> Tensor:
    """Zero the elements below diagonal, in place; returns self."""
    return triu(self, diagonal, out=self)


def install(cls) -> None:
    """Add tril, triu, tril_, triu_ to Tensor."""
    cls.tril, cls.triu = _tril_method, _triu_method
    cls.tril_, cls.triu_ = _tril_inplace, _triu_inplace


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
