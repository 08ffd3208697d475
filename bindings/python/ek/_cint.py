"""Python ints to C integers, range-checked.

ctypes converts an int that does not fit its C type by dropping the high bits
(``2**64 + 4`` becomes 4 as an int64_t, ``2**32 + 1`` becomes 1 as an int), so
every int the binding passes to C goes through these first: one that does not
fit raises OverflowError naming the argument, before any C call.
"""

from __future__ import annotations

import ctypes
import operator

__all__ = ["INT_MIN", "INT_MAX", "INT64_MIN", "INT64_MAX", "UINT64_MAX", "c_int", "c_int64",
           "c_uint64", "int_array", "int64_array"]

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


def int_array(seq, what: str = "dims") -> ctypes.Array:
    """A sequence of ints as a C int[]."""
    vals = [c_int(v, what) for v in seq]
    return (ctypes.c_int * len(vals))(*vals)


def int64_array(seq, what: str = "shape") -> ctypes.Array:
    """A sequence of ints as an int64_t[]."""
    vals = [c_int64(v, what) for v in seq]
    return (ctypes.c_int64 * len(vals))(*vals)

