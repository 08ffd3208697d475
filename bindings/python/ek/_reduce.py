"""max/min in PyTorch's three forms and norm(p=); the other reductions
(sum, mean, prod, amax, amin, argmax, argmin, any, all), the scans, softmax
and var/std are generated from ek.h's lists (_ops.py)."""

from __future__ import annotations

import collections
import math

import numpy as np

from . import _capi, _ffi
from ._core import _T, _arg, _binary, _reduce
from ._errors import InvalidArgumentError
from ._tensor import tensor_methods

__all__ = ["ValuesIndices", "max", "min", "norm"]

_R = {k[len("EK_REDUCE_"):].lower(): v for k, v in _ffi.ek_reduce_op_values.items()}

ValuesIndices = collections.namedtuple("ValuesIndices", ["values", "indices"])
ValuesIndices.__doc__ = """(values, indices) of max/min along a dim, as torch.return_types.max."""


def _max_min(x, dim, keepdim, out, name):
    if dim is None:
        return _reduce(_R[name], x, None, False, None, out)
    if type(dim) is _T or not isinstance(dim, (int, np.integer, tuple, list)):
        return _binary(_ffi.EK_BINARY_MAXIMUM if name == "max" else _ffi.EK_BINARY_MINIMUM,
                       x, dim, out)
    if not isinstance(dim, (int, np.integer)):
        raise TypeError(f"{name}(dim=...): dim must be an int (values and indices along one "
                        f"dim); use a{name}(dim=tuple) for the values over several dims")
    return ValuesIndices(*_capi.reduce_with_indices(_R[name], x, dim, keepdim, out=out))


def max(input, dim=None, keepdim: bool = False, *, out=None):  # noqa: A001,A002
    """As torch.max: ``max(x)`` is the maximum of all elements (0-d);
    ``max(x, dim)`` returns ``ValuesIndices(values, indices)`` along one dim
    (indices int64, first occurrence, NaN wins; ek_reduce_with_indices);
    ``max(x, other)`` with a tensor ``other`` is ``maximum(x, other)``. ``out``
    for the dim form is a (values, indices) pair."""
    return _max_min(_arg(input), dim, keepdim, out, "max")


def min(input, dim=None, keepdim: bool = False, *, out=None):  # noqa: A001,A002
    """As torch.min: the minimum of all elements, ``ValuesIndices`` along one
    dim, or ``minimum(x, other)``."""
    return _max_min(_arg(input), dim, keepdim, out, "min")


_NORMS = {1: "norm_l1", 2: "norm_l2", "fro": "norm_l2", math.inf: "norm_inf"}


def norm(input, p=2, dim=None, keepdim: bool = False, *, out=None):  # noqa: A002
    """Vector norm over dim (int, tuple or None): p = 1 (sum of |x|), 2 or
    "fro" (Euclidean), ``inf`` (max |x|). Float input only."""
    name = _NORMS.get(p if isinstance(p, str) else float(p))
    if name is None:
        raise InvalidArgumentError(f"norm: p={p!r} is not supported (1, 2, 'fro', inf)")
    return _reduce(_R[name], input, dim, keepdim, None, out)


@tensor_methods
class ReduceMethods:
    max, min, norm = max, min, norm
