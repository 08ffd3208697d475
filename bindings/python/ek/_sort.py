"""Sorting and searching (ek.h's "sorting and searching" section) with
PyTorch's names and arguments: ek.sort, argsort, topk, searchsorted, unique,
count_nonzero, diff, and Tensor.sort/.argsort/.topk. ek.h's order: NaN is
greater than +inf (last ascending, first descending), -0.0 == +0.0."""

from __future__ import annotations

import collections

from . import _capi
from ._cint import c_int, c_int64, dims_tuple
from ._core import _arg, _byref, _new_handle, _outp, _stream, _wrap
from ._errors import check
from ._lib import lib
from ._tensor import Tensor, tensor_methods

__all__ = ["sort", "argsort", "topk", "searchsorted", "unique", "count_nonzero", "diff",
           "SortResult", "TopkResult"]

SortResult = collections.namedtuple("SortResult", ["values", "indices"])
SortResult.__doc__ = """(values, indices) of ek.sort, as torch.return_types.sort."""
TopkResult = collections.namedtuple("TopkResult", ["values", "indices"])
TopkResult.__doc__ = """(values, indices) of ek.topk, as torch.return_types.topk."""


def sort(input, dim: int = -1, descending: bool = False, stable: bool = False, *,  # noqa: A002
         out=None) -> SortResult:
    """input sorted along dim and where each value came from (int64), as
    torch.sort (ek_sort). ``stable`` keeps equal elements in input order."""
    return SortResult(*_capi.sort(input, dim, descending, stable, out=out))


def argsort(input, dim: int = -1, descending: bool = False, stable: bool = False) -> Tensor:  # noqa: A002
    """The int64 indices that sort input along dim (torch.argsort; ek_sort
    without values)."""
    x = _arg(input)
    h = _new_handle()
    check(lib.ek_sort(_stream(x._ctx), x._h, c_int(dim, "argsort: dim"), 1 if descending else 0,
                      1 if stable else 0, None, _byref(h)))
    return _wrap(h, x._ctx)


def topk(input, k: int, dim: int = -1, largest: bool = True, sorted: bool = True, *,  # noqa: A002
         out=None) -> TopkResult:
    """The k largest (or smallest) elements along dim and their int64 indices
    (torch.topk; ek_topk). Which of several elements equal to the k-th are
    taken is unspecified."""
    return TopkResult(*_capi.topk(input, k, dim, largest, sorted, out=out))


def searchsorted(sorted_sequence, values, *, right: bool = False, out_int32: bool = False,
                 side: str | None = None, out=None) -> Tensor:
    """Insertion positions of values in the innermost dim of sorted_sequence
    (torch.searchsorted; ek_searchsorted): 1-D, or sharing values' leading
    dims. ``side="right"`` is ``right=True``; int32 positions with out_int32."""
    if side is not None:
        if side not in ("left", "right"):
            raise ValueError(f"searchsorted: side must be 'left' or 'right', not {side!r}")
        right = side == "right"
    seq = _arg(sorted_sequence, values)
    return _capi.searchsorted(seq, _arg(values, seq), right,
                              "int32" if out_int32 else "int64", out=out)


def unique(input, sorted: bool = True, return_inverse: bool = False,  # noqa: A002
           return_counts: bool = False, dim=None):
    """The distinct elements of input, flattened and sorted (torch.unique;
    ek_unique); with return_inverse and/or return_counts a tuple (values,
    inverse?, counts?) as torch. Each NaN is distinct; -0.0 equals +0.0.
    Synchronous on CUDA (the count is read back). ``sorted=False`` still
    sorts; ``dim`` is not supported."""
    if dim is not None:
        raise NotImplementedError("unique(dim=...) is not supported; unique flattens")
    x = _arg(input)
    values, inverse, counts = _new_handle(), _new_handle(), _new_handle()
    check(lib.ek_unique(_stream(x._ctx), x._h, _byref(values),
                        _byref(inverse) if return_inverse else None,
                        _byref(counts) if return_counts else None))
    result = [_wrap(values, x._ctx)]
    if return_inverse:
        result.append(_wrap(inverse, x._ctx))
    if return_counts:
        result.append(_wrap(counts, x._ctx))
    return result[0] if len(result) == 1 else tuple(result)


def count_nonzero(input, dim=None, keepdim: bool = False, *, axis=None,  # noqa: A002
                  keepdims: bool | None = None, out=None) -> Tensor:
    """The number of nonzero elements over dim (None: all; an int or a
    tuple), int64 (torch.count_nonzero; ek_count_nonzero). NaN counts."""
    dims = dims_tuple(axis if axis is not None else dim)
    if keepdims is not None:
        keepdim = keepdims
    return _capi.count_nonzero(input, list(dims), keepdim, out=out)


def diff(input, n: int = 1, dim: int = -1, prepend=None, append=None, *,  # noqa: A002
         axis=None, out=None) -> Tensor:
    """The n-th forward difference along dim (torch.diff; ek_diff); prepend
    and append are joined to input along dim first. bool uses !=."""
    x = _arg(input, prepend if isinstance(prepend, Tensor) else append)
    pre = None if prepend is None else _arg(prepend, x)
    app = None if append is None else _arg(append, x)
    d = dim if axis is None else axis
    h = _new_handle()
    check(lib.ek_diff(_stream(x._ctx), x._h, c_int64(n, "diff: n"), c_int(d, "diff: dim"),
                      pre._h if pre is not None else None, app._h if app is not None else None,
                      _byref(h) if out is None else _outp(out)))
    return _wrap(h, x._ctx) if out is None else out


@tensor_methods
class SortMethods:
    def sort(self, dim: int = -1, descending: bool = False, stable: bool = False) -> SortResult:
        """See ``ek.sort``."""
        return sort(self, dim, descending, stable)

    def argsort(self, dim: int = -1, descending: bool = False, stable: bool = False) -> Tensor:
        """See ``ek.argsort``."""
        return argsort(self, dim, descending, stable)

    def topk(self, k: int, dim: int = -1, largest: bool = True, sorted: bool = True) -> TopkResult:  # noqa: A002
        """See ``ek.topk``."""
        return topk(self, k, dim, largest, sorted)

    def unique(self, sorted: bool = True, return_inverse: bool = False,  # noqa: A002
               return_counts: bool = False, dim=None):
        """See ``ek.unique``."""
        return unique(self, sorted, return_inverse, return_counts, dim)

    def count_nonzero(self, dim=None, keepdim: bool = False) -> Tensor:
        """See ``ek.count_nonzero``."""
        return count_nonzero(self, dim, keepdim)

    def diff(self, n: int = 1, dim: int = -1, prepend=None, append=None) -> Tensor:
        """See ``ek.diff``."""
        return diff(self, n, dim, prepend, append)
