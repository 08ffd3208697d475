"""Reductions (sum, mean, prod, max, min, argmax, argmin, any, all, norm,
var, std), max/min along a dim with indices, softmax/log_softmax and the
scans (cumsum, cumprod): ek_reduce, ek_var (VARIANCE or STD),
ek_reduce_with_indices, ek_softmax (PLAIN or LOG) and ek_scan (SUM or PROD).
Semantics, result dtypes and errors are the C library's (PyTorch's)."""

from __future__ import annotations

import collections
import ctypes
import math
import operator

import numpy as np

from . import _ffi
from ._cint import c_int, int_array
from ._errors import InvalidArgumentError, check
from ._lib import lib
from ._ops import _arg, _op, _stream
from ._tensor import Tensor

__all__ = ["ValuesIndices", "sum", "mean", "prod", "max", "min", "amax", "amin", "argmax",
           "argmin", "any", "all", "norm", "var", "std", "softmax", "log_softmax", "cumsum",
           "cumprod", "install"]

_T = Tensor
_wrap = Tensor._wrap
_R = {k[len("EK_REDUCE_"):].lower(): v for k, v in _ffi.ek_reduce_op_values.items()}

ValuesIndices = collections.namedtuple("ValuesIndices", ["values", "indices"])
ValuesIndices.__doc__ = """(values, indices) of max/min along a dim, as torch.return_types.max."""

_NONE = (0, None)


def _dims(dim):
    """dim (None, an int or a sequence of ints) -> (ndims, int array or None)."""
    if dim is None:
        return _NONE
    if isinstance(dim, (int, np.integer)):
        return 1, int_array((dim,), "dim")
    d = [operator.index(v) for v in dim]
    if not d:
        return _NONE
    return len(d), int_array(d, "dim")


def _cast_input(x, dtype):
    return x if dtype is None else x.astype(dtype)


def _reduce(name, x, dim, keepdim, out):
    n, arr = _dims(dim)
    return _op(lib.ek_reduce, x._ctx, out, _R[name], x._h, n, arr, 1 if keepdim else 0)


def sum(input, dim=None, keepdim: bool = False, *, dtype=None, out=None):  # noqa: A001,A002
    """Sum over dim (an int, a tuple, or None for every dim). bool and integers
    sum to int64, floats keep their dtype (f16/bf16 accumulate in f32). With
    ``dtype``, the input is converted first. The same bits from run to run."""
    return _reduce("sum", _cast_input(_arg(input), dtype), dim, keepdim, out)


def mean(input, dim=None, keepdim: bool = False, *, dtype=None, out=None):  # noqa: A002
    """Mean over dim (int, tuple or None); float input only (DtypeError
    otherwise, as PyTorch: use ``dtype=ek.float32``). NaN over zero elements."""
    return _reduce("mean", _cast_input(_arg(input), dtype), dim, keepdim, out)


def prod(input, dim=None, keepdim: bool = False, *, dtype=None, out=None):  # noqa: A002
    """Product over dim (int, tuple or None); integers give int64."""
    return _reduce("prod", _cast_input(_arg(input), dtype), dim, keepdim, out)


def amax(input, dim=None, keepdim: bool = False, *, out=None):  # noqa: A002
    """Maximum over dim (int, tuple or None), input's dtype; NaN propagates.
    ShapeError over zero elements."""
    return _reduce("max", _arg(input), dim, keepdim, out)


def amin(input, dim=None, keepdim: bool = False, *, out=None):  # noqa: A002
    """Minimum over dim (int, tuple or None), input's dtype; NaN propagates."""
    return _reduce("min", _arg(input), dim, keepdim, out)


def _max_min(x, dim, keepdim, out, name):
    if type(dim) is _T or (dim is not None and not isinstance(dim, (int, np.integer))
                           and not isinstance(dim, (tuple, list))):
        from ._ops import BINARY_OPS, _binary
        return _binary(BINARY_OPS["minimum" if name == "min" else "maximum"], x, dim, out)
    if dim is None:
        return _reduce(name, x, None, False, out)
    if not isinstance(dim, (int, np.integer)):
        raise TypeError(f"{name}(dim=...): dim must be an int (values and indices along one "
                        f"dim); use a{name}(dim=tuple) for the values over several dims")
    st = _stream(x._ctx)
    dim = c_int(dim, f"{name}: dim")
    if out is None:
        v, i = _ffi.ek_tensor(), _ffi.ek_tensor()
        rc = lib.ek_reduce_with_indices(st, _R[name], x._h, dim, 1 if keepdim else 0,
                                        ctypes.byref(v), ctypes.byref(i))
        if rc:
            check(rc)
        return ValuesIndices(_wrap(v, x._ctx), _wrap(i, x._ctx))
    values, indices = out
    rc = lib.ek_reduce_with_indices(st, _R[name], x._h, dim, 1 if keepdim else 0,
                                    values._outp(), indices._outp())
    if rc:
        check(rc)
    return ValuesIndices(values, indices)


def max(input, dim=None, keepdim: bool = False, *, out=None):  # noqa: A001,A002
    """As torch.max: ``max(x)`` is the maximum of all elements (0-d);
    ``max(x, dim)`` returns ``ValuesIndices(values, indices)`` along one dim
    (indices int64, first occurrence, NaN wins; ek_reduce_with_indices); ``max(x, other)``
    with a tensor ``other`` is ``maximum(x, other)``. ``out`` for the dim form
    is a (values, indices) pair."""
    return _max_min(_arg(input), dim, keepdim, out, "max")


def min(input, dim=None, keepdim: bool = False, *, out=None):  # noqa: A001,A002
    """As torch.min: the minimum of all elements, ``ValuesIndices`` along one
    dim, or ``minimum(x, other)``."""
    return _max_min(_arg(input), dim, keepdim, out, "min")


def argmax(input, dim=None, keepdim: bool = False, *, out=None):  # noqa: A002
    """int64 index of the maximum (first occurrence; NaN counts as the
    maximum): over all elements the C-order flat index, else along dim (an
    int, or a tuple: index into the flattened reduced dims)."""
    return _reduce("argmax", _arg(input), dim, keepdim, out)


def argmin(input, dim=None, keepdim: bool = False, *, out=None):  # noqa: A002
    """int64 index of the minimum (see argmax)."""
    return _reduce("argmin", _arg(input), dim, keepdim, out)


def any(input, dim=None, keepdim: bool = False, *, out=None):  # noqa: A001,A002
    """True where any element over dim is nonzero (bool result)."""
    return _reduce("any", _arg(input), dim, keepdim, out)


def all(input, dim=None, keepdim: bool = False, *, out=None):  # noqa: A001,A002
    """True where every element over dim is nonzero (bool result)."""
    return _reduce("all", _arg(input), dim, keepdim, out)


_NORMS = {1: "norm_l1", 2: "norm_l2", "fro": "norm_l2", math.inf: "norm_inf"}


def norm(input, p=2, dim=None, keepdim: bool = False, *, out=None):  # noqa: A002
    """Vector norm over dim (int, tuple or None): p = 1 (sum of |x|), 2 or
    "fro" (Euclidean), ``inf`` (max |x|). Float input only."""
    name = _NORMS.get(p if isinstance(p, str) else float(p))
    if name is None:
        raise InvalidArgumentError(f"norm: p={p!r} is not supported (1, 2, 'fro', inf)",
                                   _ffi.EK_ERROR_INVALID_ARGUMENT)
    return _reduce(name, _arg(input), dim, keepdim, out)


def _var(kind, x, dim, correction, keepdim, unbiased, out):
    if unbiased is not None:
        correction = 1 if unbiased else 0
    n, arr = _dims(dim)
    return _op(lib.ek_var, x._ctx, out, kind, x._h, n, arr, float(correction),
               1 if keepdim else 0)


def var(input, dim=None, *, correction: float = 1, keepdim: bool = False,  # noqa: A002
        unbiased: bool | None = None, out=None):
    """Variance over dim (int, tuple or None) with divisor max(0, N -
    correction) (``unbiased=False`` is correction 0). Float input only."""
    return _var(_ffi.EK_VAR_VARIANCE, _arg(input), dim, correction, keepdim, unbiased, out)


def std(input, dim=None, *, correction: float = 1, keepdim: bool = False,  # noqa: A002
        unbiased: bool | None = None, out=None):
    """Standard deviation over dim: sqrt of ``var`` with the same arguments."""
    return _var(_ffi.EK_VAR_STD, _arg(input), dim, correction, keepdim, unbiased, out)


def _along(fn, kind, x, dim, dtype, out):
    """fn(stream, kind, x, dim, &out): ek_softmax or ek_scan."""
    x = _cast_input(x, dtype)
    return _op(fn, x._ctx, out, kind, x._h, c_int(dim))


def softmax(input, dim: int = -1, *, dtype=None, out=None):  # noqa: A002
    """exp(x - max) / sum(exp(x - max)) along dim (ek_softmax); float input,
    result in its dtype (with ``dtype``, the input is converted first)."""
    return _along(lib.ek_softmax, _ffi.EK_SOFTMAX_PLAIN, _arg(input), dim, dtype, out)


def log_softmax(input, dim: int = -1, *, dtype=None, out=None):  # noqa: A002
    """log(softmax(x)) along dim, computed stably (ek_softmax LOG)."""
    return _along(lib.ek_softmax, _ffi.EK_SOFTMAX_LOG, _arg(input), dim, dtype, out)


def cumsum(input, dim: int, *, dtype=None, out=None):  # noqa: A002
    """Inclusive cumulative sum along dim (ek_scan SUM): bool and integers give
    int64, floats keep their dtype."""
    return _along(lib.ek_scan, _ffi.EK_SCAN_SUM, _arg(input), dim, dtype, out)


def cumprod(input, dim: int, *, dtype=None, out=None):  # noqa: A002
    """Inclusive cumulative product along dim (ek_scan PROD); dtypes as cumsum."""
    return _along(lib.ek_scan, _ffi.EK_SCAN_PROD, _arg(input), dim, dtype, out)


_FUNCTIONS = {"sum": sum, "mean": mean, "prod": prod, "max": max, "min": min, "amax": amax,
              "amin": amin, "argmax": argmax, "argmin": argmin, "any": any, "all": all,
              "norm": norm, "var": var, "std": std, "softmax": softmax,
              "log_softmax": log_softmax, "cumsum": cumsum, "cumprod": cumprod}


def functions() -> dict:
    """The module-level functions of this module, by name."""
    return dict(_FUNCTIONS)


def install(cls) -> None:
    """Add the reduction, softmax and scan methods to Tensor (same signatures
    as the module functions, self first)."""
    for name, fn in _FUNCTIONS.items():
        setattr(cls, name, fn)

    def cumsum_(self, dim: int):
        """In place: self = cumsum(self, dim); returns self."""
        return cumsum(self, dim, out=self)

    def cumprod_(self, dim: int):
        """In place: self = cumprod(self, dim); returns self."""
        return cumprod(self, dim, out=self)

    cls.cumsum_, cls.cumprod_ = cumsum_, cumprod_
