"""Linear algebra beyond matmul (ek.h's "linear algebra" section):
tensordot, vecdot and outer. PyTorch's and the array API's argument names
(``dims=``/``axes=``, ``dim=``/``axis=``)."""

from __future__ import annotations

import operator

from . import _capi
from ._cint import c_int
from ._core import _arg, _call, _stream
from ._lib import lib
from ._tensor import Tensor, tensor_methods

__all__ = ["tensordot", "vecdot", "outer"]

_UNSET = object()


def tensordot(a, b, dims=2, *, axes=_UNSET, out=None) -> Tensor:
    """Sums the products of a and b over pairs of dims (ek_tensordot;
    numpy/torch.tensordot): ``dims`` an int n contracts a's last n dims with
    b's first n; a pair of sequences (a_dims, b_dims) contracts those dims.
    The result has a's remaining dims, then b's."""
    if axes is not _UNSET:
        dims = axes
    a = _arg(a, b)
    b = _arg(b, a)
    ctx = a._ctx
    if isinstance(dims, (list, tuple)) and len(dims) == 2:
        da, db = ([d] if isinstance(d, int) else d for d in dims)
        return _capi.tensordot(a, b, da, db, out=out)
    n = c_int(operator.index(dims), "ek.tensordot: dims")
    return _call(lib.ek_tensordot, ctx, out, _stream(ctx), a._h, b._h, n, None, None)


def vecdot(x, y, dim: int = -1, *, axis=None, out=None) -> Tensor:
    """sum(x * y) along dim, the other dims broadcast (ek_vecdot; the array
    API's vecdot for real dtypes); the contracted dim does not broadcast."""
    return _capi.vecdot(x, y, dim if axis is None else axis, out=out)


def outer(a, b, *, out=None) -> Tensor:
    """out[i, j] = a[i] * b[j] for 1-D a and b (ek_outer; torch.outer)."""
    return _capi.outer(a, b, out=out)


@tensor_methods
class LinalgMethods:
    tensordot, vecdot, outer = tensordot, vecdot, outer
    ger = outer
