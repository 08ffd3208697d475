"""What the ops share: Python operands to handles (numbers as ek_scalar of
their kind, data as tensors on the other operand's device, keys as
ek_index_item arrays), the current stream, calls with ``out=``, and the paths
the generated ops (_ops.py, _capi.py) fall back to. Semantics are the C
library's (promotion, broadcasting, the in-place out-dtype rule, indexing)."""

from __future__ import annotations

import ctypes
import numbers
import operator

import numpy as np

from . import _ffi
from ._cint import (INT64_MAX, INT64_MIN, c_int as _int, dims_tuple, int64_array, int_array,
                    scalar as _scalar)
from ._context import context
from ._dtype import dtype as _dtype_of
from ._errors import check
from ._lib import lib
from ._stream import _current_handle, _entered
from ._tensor import Tensor, _from_numpy

__all__ = []

_T = Tensor
_wrap = Tensor._wrap
_new_handle = _ffi.ek_tensor
_byref = ctypes.byref
_c_binary = lib.ek_binary
_c_binary_scalar = lib.ek_binary_scalar
_c_unary = lib.ek_unary
_c_reduce = lib.ek_reduce


def _stream(ctx):
    """This thread's current stream of ctx (None: its default stream)."""
    return _current_handle(ctx) if _entered[0] else None


def _outp(out):
    if type(out) is not _T:
        raise TypeError(f"out= must be an ek.Tensor, not {type(out).__name__}")
    return out._outp()


def _call(fn, ctx, out, *args) -> Tensor:
    """``fn(*args, &out)``: a new tensor of ctx, or written into out."""
    if out is None:
        h = _new_handle()
        rc = fn(*args, _byref(h))
        if rc:
            check(rc)
        return _wrap(h, ctx)
    rc = fn(*args, _outp(out))
    if rc:
        check(rc)
    return out


def _call_n(fn, ctx, out, n, *args) -> tuple:
    """``fn(*args, &out_1, ..., &out_n)``; out is None or a tuple of n tensors."""
    if out is None:
        hs = [_new_handle() for _ in range(n)]
        check(fn(*args, *[_byref(h) for h in hs]))
        return tuple(_wrap(h, ctx) for h in hs)
    outs = tuple(out) if isinstance(out, (tuple, list)) else ()
    if len(outs) != n:
        raise TypeError(f"out= must be a tuple of {n} tensors")
    check(fn(*args, *[_outp(o) for o in outs]))
    return outs


def _outs(fn, ctx, n, *args) -> tuple:
    """``fn(*args, outs)`` with an array of n new handles."""
    arr = (_new_handle * n)()
    check(fn(*args, arr))
    return tuple(_wrap(arr[i], ctx) for i in range(n))


def _as_tensor(x, ctx) -> Tensor:
    """Data (Tensor, array, list, scalar, DLPack object) as a tensor on ctx.
    Python floats become float32 and ints int64; arrays keep their dtype."""
    if type(x) is _T:
        return x
    if isinstance(x, np.ndarray):
        return _from_numpy(x, ctx)
    if hasattr(x, "__dlpack__") and not isinstance(x, (list, tuple)):
        from ._dlpack import from_dlpack
        t = from_dlpack(x)
        return t if t._ctx is ctx else t.to(ctx)
    arr = np.asarray(x)
    if arr.dtype == np.float64:
        arr = arr.astype(np.float32)
    elif arr.dtype.kind in "iu" and arr.dtype != np.uint8:
        arr = arr.astype(np.int64)
    elif arr.dtype.kind not in "biuf":
        raise TypeError(f"ek: cannot use {type(x).__name__} ({arr.dtype}) as a tensor operand")
    return _from_numpy(arr, ctx)


def _arg(x, like=None) -> Tensor:
    """An op's tensor argument: x itself, or x made a tensor on like's device
    (the CPU when like is not a Tensor)."""
    if type(x) is _T:
        return x
    return _as_tensor(x, like._ctx if type(like) is _T else context("cpu"))


def _tensors(seq, what, like=None) -> ctypes.Array:
    """A sequence of tensors (or data) as an ek_tensor array that keeps them alive."""
    if type(seq) is _T:
        raise TypeError(f"{what}: takes a sequence of tensors, not one tensor")
    items = list(seq)
    like = next((t for t in items if type(t) is _T), like)
    ts = [_arg(t, like) for t in items]
    arr = (_new_handle * len(ts))(*[t._h for t in ts])
    arr.keep = ts
    return arr


def _ctx_of(arr):
    return arr.keep[0]._ctx if arr.keep else context("cpu")


def _i64(v, what, like=None):
    return None if v is None else int64_array(v, what)


def _ints(v, what, like=None):
    return None if v is None else int_array(v, what)


def _opt_scalar(v, what):
    return None if v is None else _byref(_scalar(v, what))


def _double(v, what) -> float:
    return float(v)


def _str(s) -> bytes:
    return s.encode() if isinstance(s, str) else s


def _is_number(x) -> bool:
    return isinstance(x, (numbers.Number, np.generic)) and not isinstance(x, np.ndarray)


# ------------------------------------------------------------------ elementwise

def _unary(op, x, out) -> Tensor:
    x = _arg(x)
    return _call(_c_unary, x._ctx, out, _stream(x._ctx), op, x._h)


def _binary(op, a, b, out=None, name=None):
    """a op b for any operands; NotImplemented when one has no tensor form
    (TypeError naming the op when ``name`` is given)."""
    if type(a) is _T:
        tb = type(b)
        if tb is int or tb is float:  # the common scalar case first, inline
            ctx = a._ctx
            st = _current_handle(ctx) if _entered[0] else None
            if out is not None:
                return _call(_c_binary_scalar, ctx, out, st, op, a._h, _scalar(b), 0)
            h = _new_handle()
            rc = _c_binary_scalar(st, op, a._h, _scalar(b), 0, _byref(h))
            if rc:
                check(rc)
            return _wrap(h, ctx)
        r = _binary_other(op, a, b, out, False) if tb is not _T else \
            _call(_c_binary, a._ctx, out, _stream(a._ctx), op, a._h, b._h)
    elif type(b) is _T:
        r = _binary_other(op, b, a, out, True)
    else:
        r = _binary(op, _arg(a), b, out)
    if r is NotImplemented and name:
        raise TypeError(f"ek.{name}: unsupported operand types {type(a).__name__}, "
                        f"{type(b).__name__}")
    return r


def _rbinary(op, a, b, out=None):
    """b op a (b the left operand, not a Tensor)."""
    return _binary_other(op, a, b, out, True)


def _binary_other(op, a, b, out, scalar_first):
    ctx = a._ctx
    tb = type(b)
    if tb is int or tb is float or (tb is not _T and _is_number(b)):
        return _call(_c_binary_scalar, ctx, out, _stream(ctx), op, a._h, _scalar(b),
                     1 if scalar_first else 0)
    try:
        b = _as_tensor(b, ctx)
    except (TypeError, ValueError):
        return NotImplemented
    x, y = (b, a) if scalar_first else (a, b)
    return _call(_c_binary, ctx, out, _stream(ctx), op, x._h, y._h)


# ------------------------------------------------------------------ reductions

def _input(x, dtype) -> Tensor:
    x = _arg(x)
    return x if dtype is None else x.astype(dtype)


def _no_dims(x, dim, keepdim):
    """(x, dims, keepdim) for a reduction: ``dim=()`` reduces no dim (the
    array API), but C's ndims == 0 means every dim, so a new size-1 dim 0 is
    reduced instead (each element over itself, in the op's result dtype)."""
    d = dims_tuple(dim)
    if dim is not None and not d:
        return x.unsqueeze(0), (0,), False
    return x, d, keepdim


def _in_dtype(r, dtype, out) -> Tensor:
    """The result in the asked dtype: an integer sum/prod/cumsum/cumprod comes
    back as int64 and wraps to a narrower dtype (equal to wrapping arithmetic
    in it); a given out (any integer dtype) already received it from C."""
    if dtype is None or out is not None:
        return r
    dt = _dtype_of(dtype)
    return r if r.dtype == dt else r.astype(dt)


def _reduce(op, x, dim, keepdim, dtype, out) -> Tensor:
    x = _input(x, dtype)
    x, d, keepdim = _no_dims(x, dim, keepdim)
    r = _call(_c_reduce, x._ctx, out, _stream(x._ctx), op, x._h, len(d),
              int_array(d, "dim") if d else None, 1 if keepdim else 0)
    return _in_dtype(r, dtype, out)


def _scan(op, x, dim, dtype, out) -> Tensor:
    from . import _capi
    return _in_dtype(_capi.scan(op, _input(x, dtype), dim, out=out), dtype, out)


def _var(op, x, dim, correction, keepdim, out) -> Tensor:
    from . import _capi
    x, d, keepdim = _no_dims(_arg(x), dim, keepdim)
    return _capi.var(op, x, d, correction, keepdim, out=out)


# ------------------------------------------------------------------ indexing keys

_ITEM = _ffi.ek_index_item
_SLICE_ALL = (_ffi.EK_SLICE_MIN, _ffi.EK_SLICE_MAX)


def _bound(v, default) -> int:
    """A slice bound or step as int64, clamped off the EK_SLICE_MIN/MAX sentinels
    (out-of-range values act as in Python; a step beyond any size takes one element)."""
    return default if v is None else min(max(operator.index(v), INT64_MIN + 1), INT64_MAX - 1)


def _index_tensor(k, ctx) -> Tensor:
    """An index array/list/tensor as a tensor on ctx: bool, int32 or int64
    (other integer dtypes become int64; the C library judges the rest)."""
    if type(k) is not _T:
        arr = np.asarray(k)
        if arr.size == 0 and arr.dtype.kind == "f":
            arr = arr.astype(np.int64)  # [] is an empty integer index
        k = _from_numpy(arr, ctx)
    if k.dtype.name in ("uint8", "int8", "int16"):
        k = k.astype("int64")
    return k if k._ctx is ctx else k.to(ctx)


def _key(key, what, like) -> ctypes.Array:
    """A Python indexing key as an ek_index_item array (kept tensors on .keep)."""
    key = key if type(key) is tuple else (key,)
    arr = (_ITEM * len(key))()
    keep = []
    for it, k in zip(arr, key):
        if k is None:
            it.kind = _ffi.EK_INDEX_NONE
        elif k is Ellipsis:
            it.kind = _ffi.EK_INDEX_ELLIPSIS
        elif type(k) is slice:
            it.kind = _ffi.EK_INDEX_SLICE
            it.start, it.stop = _bound(k.start, _SLICE_ALL[0]), _bound(k.stop, _SLICE_ALL[1])
            it.step = _bound(k.step, 1)
        elif type(k) is int or (isinstance(k, (numbers.Integral, np.integer))
                                and not isinstance(k, (bool, np.bool_))):
            it.kind = _ffi.EK_INDEX_INT
            it.start = _bound(k, 0)
        elif isinstance(k, (_T, np.ndarray, list, bool, np.bool_)):
            t = _index_tensor(k, like._ctx)
            keep.append(t)
            it.kind, it.tensor = _ffi.EK_INDEX_TENSOR, t._h
        else:
            raise TypeError(f"{what}: invalid index {k!r} of type {type(k).__name__}")
    arr.keep = keep
    return arr
