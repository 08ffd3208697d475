"""Arithmetic operators, mapped onto the C library's enum-selected ops.

ek.h does not declare ek_unary/ek_binary/ek_reduce yet; ``install`` adds the
methods listed below for exactly those entry points and enum values that the
generated ``_ffi`` module has, so regenerating ``_ffi.py`` from a grown header
turns them on. Signatures follow DESIGN.md:

    ek_unary(stream, op, x, &out)
    ek_binary(stream, op, a, b, &out)
    ek_reduce(stream, op, x, ndims, dims, keepdim, &out)

Adjust ``_call_*`` if the header settles on something else.
"""

from __future__ import annotations

import ctypes

from . import _ffi

UNARY = {"__neg__": "EK_UNARY_NEG", "__abs__": "EK_UNARY_ABS", "exp": "EK_UNARY_EXP",
         "log": "EK_UNARY_LOG", "sqrt": "EK_UNARY_SQRT", "sin": "EK_UNARY_SIN",
         "cos": "EK_UNARY_COS", "tanh": "EK_UNARY_TANH", "relu": "EK_UNARY_RELU"}
BINARY = {"__add__": "EK_BINARY_ADD", "__sub__": "EK_BINARY_SUB", "__mul__": "EK_BINARY_MUL",
          "__truediv__": "EK_BINARY_DIV", "__pow__": "EK_BINARY_POW",
          "maximum": "EK_BINARY_MAX", "minimum": "EK_BINARY_MIN",
          "__eq__": "EK_BINARY_EQ", "__ne__": "EK_BINARY_NE", "__lt__": "EK_BINARY_LT",
          "__le__": "EK_BINARY_LE", "__gt__": "EK_BINARY_GT", "__ge__": "EK_BINARY_GE"}
REFLECTED = {"__radd__": "__add__", "__rsub__": "__sub__", "__rmul__": "__mul__",
             "__rtruediv__": "__truediv__"}
REDUCE = {"sum": "EK_REDUCE_SUM", "mean": "EK_REDUCE_MEAN", "max": "EK_REDUCE_MAX",
          "min": "EK_REDUCE_MIN", "prod": "EK_REDUCE_PROD"}


def install(cls) -> list:
    """Add operator methods to Tensor for the ops libek provides; returns their names."""
    from ._lib import lib
    from ._tensor import _stream_for

    def operand(a, b):
        if isinstance(b, cls):
            return b
        from ._creation import tensor
        return tensor(b, device=a.context)

    added = []
    if "ek_unary" in _ffi.FUNCTIONS:
        for name, enum in UNARY.items():
            if hasattr(_ffi, enum):
                op = getattr(_ffi, enum)

                def f(self, _op=op):
                    return self._new(lib.ek_unary, _stream_for(self._ctx), _op, self._h)
                f.__name__ = name
                setattr(cls, name, f)
                added.append(name)
    if "ek_binary" in _ffi.FUNCTIONS:
        for name, enum in BINARY.items():
            if hasattr(_ffi, enum):
                op = getattr(_ffi, enum)

                def f(self, other, _op=op):
                    o = operand(self, other)
                    return self._new(lib.ek_binary, _stream_for(self._ctx), _op, self._h, o._h)
                f.__name__ = name
                setattr(cls, name, f)
                added.append(name)
        for rname, name in REFLECTED.items():
            if name in added:
                fwd = getattr(cls, name)
                setattr(cls, rname, lambda self, other, _f=fwd: _f(operand(self, other), self))
                added.append(rname)
        if "__eq__" in added:
            cls.__hash__ = None
    if "ek_reduce" in _ffi.FUNCTIONS:
        for name, enum in REDUCE.items():
            if hasattr(_ffi, enum):
                op = getattr(_ffi, enum)

                def f(self, dim=None, keepdim=False, _op=op):
                    dims = () if dim is None else ((dim,) if isinstance(dim, int) else tuple(dim))
                    arr = (ctypes.c_int * len(dims))(*dims)
                    return self._new(lib.ek_reduce, _stream_for(self._ctx), _op, self._h,
                                     len(dims), arr, int(keepdim))
                f.__name__ = name
                setattr(cls, name, f)
                added.append(name)
    return added
