"""Selection and fused updates: ek.where, clamp/clip, lerp, axpby (ek_where,
ek_clamp, ek_lerp, ek_axpby) as module functions and Tensor methods."""

from __future__ import annotations

import ctypes

from . import _ffi
from ._cint import scalar
from ._dtype import DTYPES
from ._errors import InvalidArgumentError
from ._lib import lib
from ._ops import (BINARY_OPS, _DEFAULT_FOR_KIND, _arg, _as_tensor, _binary, _full0, _kind,
                   _op, _scalar)
from ._tensor import Tensor

__all__ = ["where", "clamp", "clip", "lerp", "axpby", "functions", "install"]

_T = Tensor
_B = BINARY_OPS
_byref = ctypes.byref


def _ternary_operand(v, other, ctx):
    """where()'s a/b: a scalar takes the other operand's dtype when its kind
    allows (where(c, x_f16, 0.0) stays float16), else the default dtype."""
    if type(v) is _T:
        return v
    s = _scalar(v)
    if s is None:
        return _as_tensor(v, ctx)
    val, kind = s
    dt = DTYPES[_DEFAULT_FOR_KIND[kind]]
    if type(other) is _T and kind <= _kind(other.dtype):
        dt = other.dtype
    return _full0(val, dt, ctx)


def where(condition, input=None, other=None, *, out=None):  # noqa: A002
    """``input`` where ``condition`` is true (nonzero), else ``other``
    (ek_where), all three broadcast; the result has input's and other's
    promoted dtype. Either may be a number. ``where(condition)`` alone is
    ``nonzero(condition, as_tuple=True)``."""
    if input is None and other is None:
        from ._indexing import nonzero
        return nonzero(condition, as_tuple=True)
    like = condition if type(condition) is _T else (input if type(input) is _T else other)
    cond = _arg(condition, like)
    ctx = cond._ctx
    a = _ternary_operand(input, other, ctx)
    b = _ternary_operand(other, a, ctx)
    return _op(lib.ek_where, ctx, out, cond._h, a._h, b._h)


def _where_method(self, condition, other, *, out=None):
    """self where condition, else other (as ``ek.where(condition, self, other)``)."""
    return where(condition, self, other, out=out)


def clamp(input, min=None, max=None, *, out=None):  # noqa: A001,A002
    """Limit values to [min, max] (either may be None). Number bounds use
    ek_clamp (cast to input's dtype, result in input's dtype); tensor bounds
    broadcast (``maximum``/``minimum``)."""
    x = _arg(input)
    if type(min) is _T or type(max) is _T:
        r = x
        if min is not None:
            r = _binary(_B["maximum"], r, min)
        if max is not None:
            r = _binary(_B["minimum"], r, max, out)
        elif out is not None:
            out.copy_(r)
            r = out
        return r
    if min is None and max is None:
        raise InvalidArgumentError("clamp: at least one of min and max must be given",
                                   _ffi.EK_ERROR_INVALID_ARGUMENT)
    lo = None if min is None else _byref(scalar(min, "clamp: min"))
    hi = None if max is None else _byref(scalar(max, "clamp: max"))
    return _op(lib.ek_clamp, x._ctx, out, x._h, lo, hi)


clip = clamp


def _clamp_method(self, min=None, max=None, *, out=None):  # noqa: A002
    """Limit values to [min, max] (see ``ek.clamp``)."""
    return clamp(self, min, max, out=out)


def _clamp_inplace(self, min=None, max=None):  # noqa: A002
    """In place: self = clamp(self, min, max); returns self."""
    return clamp(self, min, max, out=self)


def lerp(input, end, weight, *, out=None):  # noqa: A002
    """input + weight * (end - input) (ek_lerp, float tensors; PyTorch's
    formula). ``end`` may be a number; a tensor ``weight`` broadcasts
    (computed with elementwise ops)."""
    start = _arg(input, end)
    ctx = start._ctx
    end = _ternary_operand(end, start, ctx)
    if type(weight) is _T:
        r = _binary(_B["mul"], weight, _binary(_B["sub"], end, start))
        return _binary(_B["add"], start, r, out)
    return _op(lib.ek_lerp, ctx, out, start._h, end._h, scalar(weight, "lerp: weight"))


def _lerp_method(self, end, weight, *, out=None):
    """self + weight * (end - self) (see ``ek.lerp``)."""
    return lerp(self, end, weight, out=out)


def _lerp_inplace(self, end, weight):
    """In place: self = lerp(self, end, weight); returns self."""
    return lerp(self, end, weight, out=self)


def axpby(alpha, x, beta, y, *, out=None):
    """alpha * x + beta * y in one pass (ek_axpby); ``out=y`` accumulates in
    place. Broadcast and promotion as ``+``."""
    x = _arg(x, y)
    y = _arg(y, x)
    return _op(lib.ek_axpby, x._ctx, out, scalar(alpha, "axpby: alpha"), x._h,
               scalar(beta, "axpby: beta"), y._h)


def functions() -> dict:
    """The module-level functions of this module, by name."""
    return {"where": where, "clamp": clamp, "clip": clip, "lerp": lerp, "axpby": axpby}


def install(cls) -> None:
    """Add where, clamp(_), clip(_), lerp(_) to Tensor."""
    cls.where = _where_method
    cls.clamp, cls.clip = _clamp_method, _clamp_method
    cls.clamp_, cls.clip_ = _clamp_inplace, _clamp_inplace
    cls.lerp, cls.lerp_ = _lerp_method, _lerp_inplace
