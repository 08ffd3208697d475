"""Python numbers to C: ints range-checked, values as ek_scalar.

ctypes converts an int that does not fit its C type by dropping the high bits
(``2**64 + 4`` becomes 4 as an int64_t, ``2**32 + 1`` becomes 1 as an int), so
every int the binding passes to C goes through these first: one that does not
fit raises OverflowError naming the argument, before any C call.

``scalar`` is the one place a Python value becomes an ``ek_scalar`` (fill
values, scalar operands, bounds, coefficients, distribution parameters):
its kind keeps integers exact at any size the C types hold.
"""

from __future__ import annotations

import ctypes
import numbers
import operator

import numpy as np

from . import _ffi

__all__ = ["INT_MIN", "INT_MAX", "INT64_MIN", "INT64_MAX", "UINT64_MAX", "c_int", "c_int64",
           "c_uint64", "int_array", "int64_array", "scalar"]

INT_MIN, INT_MAX = -(1 << 31), (1 << 31) - 1
INT64_MIN, INT64_MAX = -(1 << 63), (1 << 63) - 1
UINT64_MAX = (1 << 64) - 1


def _fit(v, lo: int, hi: int, ctype: str, what: str) -> int:
    i = operator.index(v)
    if not lo <= i <= hi:
        raise OverflowError(f"{what}: {i} does not fit in {ctype} [{lo}, {hi}]")
    return i


def c_int(v, what: str = "dim") -> int:
    """v as a C int (dims, counts)."""
    return _fit(v, INT_MIN, INT_MAX, "a C int", what)


def c_int64(v, what: str = "value") -> int:
    """v as an int64_t (sizes, strides, offsets, indices)."""
    return _fit(v, INT64_MIN, INT64_MAX, "int64", what)


def c_uint64(v, what: str = "value") -> int:
    """v as a uint64_t or size_t (byte counts)."""
    return _fit(v, 0, UINT64_MAX, "uint64", what)


def dims_tuple(dim) -> tuple:
    """dim: None (every dim: ()), an int or a sequence of ints -> a tuple."""
    if dim is None:
        return ()
    return (operator.index(dim),) if isinstance(dim, (int, np.integer)) else \
        tuple(operator.index(v) for v in dim)


def int_array(seq, what: str = "dims") -> ctypes.Array:
    """A sequence of ints as a C int[]."""
    vals = [c_int(v, what) for v in seq]
    return (ctypes.c_int * len(vals))(*vals)


_INT64_ARRAYS = [ctypes.c_int64 * n for n in range(9)]  # shapes: types made once


def int64_array(seq, what: str = "shape") -> ctypes.Array:
    """A sequence of ints as an int64_t[] (ctypes would wrap out-of-range
    values silently, so the range is checked first)."""
    vals = list(map(operator.index, seq))
    if vals and (min(vals) < INT64_MIN or max(vals) > INT64_MAX):
        for v in vals:
            c_int64(v, what)
    n = len(vals)
    return (_INT64_ARRAYS[n] if n < 9 else ctypes.c_int64 * n)(*vals)


def filled(fn, obj, *args):
    """``fn(*args, &obj)`` checked; returns obj (an out-parameter the call filled)."""
    from ._errors import check
    check(fn(*args, ctypes.byref(obj)))
    return obj


def fields(struct) -> dict:
    """A struct the library filled as a dict (struct_size left out)."""
    return {n: getattr(struct, n) for n, _ in struct._fields_ if n != "struct_size"}


def fetch_array(fn, cls, *args) -> list:
    """ek.h's two-phase array query: fn(*args, NULL, 0, &count) sizes it, then
    an array of cls is filled (again if it grew in between)."""
    from ._errors import check
    count = ctypes.c_size_t()
    check(fn(*args, None, 0, ctypes.byref(count)))
    while True:
        cap = count.value
        arr = _ffi.new(cls, max(cap, 1))
        check(fn(*args, arr, cap, ctypes.byref(count)))
        if count.value <= cap:
            return arr[:count.value]


def fetch_text(fn, *args) -> str:
    """ek.h's snprintf-like text query (with slack for text that grows in between)."""
    from ._errors import check
    n = ctypes.c_size_t()
    check(fn(*args, None, 0, ctypes.byref(n)))
    while True:
        buf = ctypes.create_string_buffer(n.value + 4096)
        check(fn(*args, buf, len(buf), ctypes.byref(n)))
        if n.value < len(buf):
            return buf.raw[:n.value].decode("utf-8", "replace")


_Scalar = _ffi.ek_scalar
_BOOL, _INT64, _UINT64, _FLOAT64 = (_ffi.EK_SCALAR_BOOL, _ffi.EK_SCALAR_INT64,
                                    _ffi.EK_SCALAR_UINT64, _ffi.EK_SCALAR_FLOAT64)
_COMPLEX = _ffi.EK_SCALAR_COMPLEX


def scalar(value, what: str = "value") -> _ffi.ek_scalar:
    """A Python or NumPy number as an ek_scalar: bool -> BOOL, int -> INT64
    (UINT64 above int64's range; OverflowError beyond uint64's or below
    int64's), any other real -> FLOAT64, complex -> COMPLEX (functions that
    take no complex value raise DtypeError). TypeError for anything else."""
    t = type(value)
    if t is float:
        return _Scalar(_FLOAT64, 0, 0, 0, value, 0.0)
    if t is not int:  # (the common cases first: each isinstance costs)
        if t is bool or isinstance(value, np.bool_):
            return _Scalar(_BOOL, 0, 1 if value else 0, 0, 0.0, 0.0)
        if not isinstance(value, numbers.Integral):
            return _real(value, what)
        value = operator.index(value)
    if INT64_MIN <= value <= INT64_MAX:
        return _Scalar(_INT64, 0, value, 0, 0.0, 0.0)
    if 0 <= value <= UINT64_MAX:
        return _Scalar(_UINT64, 0, 0, value, 0.0, 0.0)
    raise OverflowError(f"{what}: {value} does not fit in int64 or uint64")


def _real(value, what: str) -> _ffi.ek_scalar:
    if isinstance(value, numbers.Real):
        return _Scalar(_FLOAT64, 0, 0, 0, float(value), 0.0)
    if isinstance(value, numbers.Complex):
        return _Scalar(_COMPLEX, 0, 0, 0, float(value.real), float(value.imag))
    if type(value).__name__ == "Tensor" and value.numel() == 1:  # a one-element ek.Tensor
        return scalar(value.item(), what)
    raise TypeError(f"{what}: expected a real or complex number, got {type(value).__name__}")
