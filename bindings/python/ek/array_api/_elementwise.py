"""Elementwise functions: ek's own ops under the standard's names (promotion,
broadcasting and Python scalars are the library's)."""

from __future__ import annotations

import ek

_SAME = ("abs acos acosh add asin asinh atan atan2 atanh bitwise_and bitwise_left_shift "
         "bitwise_or bitwise_right_shift bitwise_xor ceil copysign cos cosh divide exp expm1 "
         "floor floor_divide greater greater_equal hypot isfinite isinf isnan less less_equal "
         "log log1p log2 log10 logaddexp logical_and logical_not logical_or logical_xor "
         "maximum minimum multiply negative nextafter not_equal positive pow reciprocal "
         "remainder sign signbit sin sinh sqrt square subtract tan tanh trunc").split()
_RENAMED = {"equal": "eq", "bitwise_invert": "bitwise_not"}

__all__ = _SAME + list(_RENAMED) + ["clip", "round"]
globals().update({n: getattr(ek, n) for n in _SAME})
globals().update({n: getattr(ek, e) for n, e in _RENAMED.items()})


def round(x, /):  # noqa: A001 - the standard's name
    """x rounded to the nearest integer, halves to even."""
    return ek.round(x)


def clip(x, /, min=None, max=None):  # noqa: A002
    """x limited to [min, max] (either may be None, a scalar or an array);
    the result has x's dtype; both None gives a copy of x."""
    if min is None and max is None:
        return x.clone()
    out = ek.clip(x, min, max)
    return out if out.dtype is x.dtype else out.astype(x.dtype)
