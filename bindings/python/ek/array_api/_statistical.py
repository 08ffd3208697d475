"""Reductions, scans and searching with the standard's axis=/keepdims=/dtype=
semantics: axis=() reduces nothing, dtype= is honoured for integers, and
integer sums accumulate in the default integer dtype."""

from __future__ import annotations

import ek
from .._dtype import DTYPES

__all__ = ["all", "any", "argmax", "argmin", "cumulative_prod", "cumulative_sum", "max",
           "mean", "min", "nonzero", "prod", "std", "sum", "var", "where"]

where = ek.where


def _axes(x, axis):
    """None (every axis) or a tuple of axes; () means none."""
    if axis is None:
        return None
    return (axis,) if isinstance(axis, int) else tuple(axis)


def _acc_dtype(x, dtype):
    """The dtype of sum/prod/cumulative_*: dtype, else the default integer
    (or uint64 when ek has it) for integers and bool, else x's."""
    if dtype is not None:
        return ek.dtype(dtype)
    name = x.dtype.name
    if name.startswith("uint") and "uint64" in DTYPES:
        return DTYPES["uint64"]
    if name == "bool" or name.startswith(("int", "uint")):
        return DTYPES["int64"]
    return x.dtype


def _reduce(fn, x, axis, keepdims, dtype=None):
    axes = _axes(x, axis)
    x = x if dtype is None or x.dtype is dtype else x.astype(dtype)
    if axes == ():
        return x.clone()
    out = fn(x, axes, keepdims)
    return out if dtype is None or out.dtype is dtype else out.astype(dtype)


def sum(x, /, *, axis=None, dtype=None, keepdims=False):  # noqa: A001
    return _reduce(ek.sum, x, axis, keepdims, _acc_dtype(x, dtype))


def prod(x, /, *, axis=None, dtype=None, keepdims=False):
    return _reduce(ek.prod, x, axis, keepdims, _acc_dtype(x, dtype))


def max(x, /, *, axis=None, keepdims=False):  # noqa: A001
    return _reduce(ek.amax, x, axis, keepdims)


def min(x, /, *, axis=None, keepdims=False):  # noqa: A001
    return _reduce(ek.amin, x, axis, keepdims)


def mean(x, /, *, axis=None, keepdims=False):
    return _reduce(ek.mean, x, axis, keepdims)


def all(x, /, *, axis=None, keepdims=False):  # noqa: A001
    return _reduce(ek.all, x, axis, keepdims, DTYPES["bool"])


def any(x, /, *, axis=None, keepdims=False):  # noqa: A001
    return _reduce(ek.any, x, axis, keepdims, DTYPES["bool"])


def var(x, /, *, axis=None, correction=0.0, keepdims=False):
    """Variance with correction (0: population, 1: sample); axis=() is the
    variance of single elements, 0 / (1 - correction)."""
    if _axes(x, axis) == ():
        return (x - x) / (1 - correction)
    return ek.var(x, _axes(x, axis), correction=correction, keepdim=keepdims)


def std(x, /, *, axis=None, correction=0.0, keepdims=False):
    return ek.sqrt(var(x, axis=axis, correction=correction, keepdims=keepdims))


def _arg(fn, x, axis, keepdims):
    out = fn(x, axis, keepdims)
    if axis is None and keepdims:
        return out.reshape((1,) * x.ndim)
    return out


def argmax(x, /, *, axis=None, keepdims=False):
    return _arg(ek.argmax, x, axis, keepdims)


def argmin(x, /, *, axis=None, keepdims=False):
    return _arg(ek.argmin, x, axis, keepdims)


def _scan(fn, x, axis, dtype, include_initial, identity):
    if axis is None:
        if x.ndim != 1:
            raise ValueError(f"ek.array_api: axis is needed for a {x.ndim}-D array")
        axis = 0
    dt = _acc_dtype(x, dtype)
    xs = x if x.dtype is dt else x.astype(dt)
    out = fn(xs, axis, dtype=dt)
    out = out if out.dtype is dt else out.astype(dt)
    if not include_initial:
        return out
    shape = list(x.shape)
    shape[axis] = 1
    return ek.concat([ek.full(tuple(shape), identity, dtype=dt, device=x.device), out], axis)


def cumulative_sum(x, /, *, axis=None, dtype=None, include_initial=False):
    """Running sums along axis (optional for 1-D x); include_initial starts
    with a 0."""
    return _scan(ek.cumsum, x, axis, dtype, include_initial, 0)


def cumulative_prod(x, /, *, axis=None, dtype=None, include_initial=False):
    """Running products along axis; include_initial starts with a 1."""
    return _scan(ek.cumprod, x, axis, dtype, include_initial, 1)


def nonzero(x, /):
    """A tuple of index arrays (int64) of x's nonzero elements, one per axis;
    ValueError for a 0-d x."""
    if x.ndim == 0:
        raise ValueError("ek.array_api.nonzero: x is 0-d (use nonzero(atleast 1-d x))")
    return tuple(ek.nonzero(x, as_tuple=True))
