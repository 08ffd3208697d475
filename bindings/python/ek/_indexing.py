"""Indexing: ``t[key]`` and ``t[key] = value`` through ek_index and
ek_index_assign (NumPy's rules, resolved by the C library: ints, slices with
any step, None, ..., integer index tensors/lists/arrays, bool masks), and
the indexing ops whose Python forms add to the C call (scatter's reduce=,
index_put, masked_scatter, nonzero's as_tuple); index_select, gather,
masked_select and masked_fill are the generated ones (_capi)."""

from __future__ import annotations

from . import _capi
from ._core import _T, _arg, _as_tensor, _is_number, _key, _stream
from ._errors import InvalidArgumentError, check
from ._lib import lib
from ._tensor import tensor_methods

__all__ = ["index_select", "gather", "scatter", "scatter_add", "index_put", "masked_select",
           "masked_fill", "masked_scatter", "nonzero"]

index_select, gather = _capi.index_select, _capi.gather
masked_select, masked_fill = _capi.masked_select, _capi.masked_fill


def _value(value, x) -> _T:
    """An assigned value as a tensor on x's device (a number: 0-d of x's dtype,
    stored exactly or refused as ek_fill stores it)."""
    if type(value) is _T:
        return value if value._ctx is x._ctx else value.to(x._ctx)
    if _is_number(value):
        from ._creation import full
        return full((), value, dtype=x.dtype, device=x._ctx)
    return _as_tensor(value, x._ctx)


def setitem(t, key, value) -> None:
    """``t[key] = value`` (ek_index_assign): value broadcasts to t[key]'s shape
    and is converted to t's dtype."""
    v = _value(value, t)
    k = _key(key, "ek_index_assign: key", t)
    check(lib.ek_index_assign(_stream(t._ctx), v._h, 0, t._h, len(k), k))


def _cast(v, x):
    return v if v.dtype is x.dtype else v.astype(x.dtype)


def scatter(input, dim: int, index, src, *, reduce: str | None = None, out=None):  # noqa: A002
    """input with out[index[i][j]][j] = src[i][j] for dim 0 (torch.scatter);
    ``src`` a tensor (cast to input's dtype) or a number; ``reduce="add"``
    accumulates (scatter_add). With duplicate indices and no reduce, which
    candidate lands is unspecified."""
    if reduce not in (None, "add", "sum"):
        raise InvalidArgumentError(f"scatter: reduce={reduce!r} is not supported (None, 'add')")
    x = _arg(input)
    idx = _arg(index, x)
    if _is_number(src):
        from ._creation import full
        s = full(tuple(idx.shape), src, dtype=x.dtype, device=x._ctx)
    else:
        s = _cast(_arg(src, x), x)
    return _capi.scatter(x, dim, idx, s, reduce is not None, out=out)


def scatter_add(input, dim: int, index, src, *, out=None):  # noqa: A002
    """scatter with accumulation: duplicates add up (torch.scatter_add)."""
    return scatter(input, dim, index, src, reduce="add", out=out)


def index_put(input, indices, values, accumulate: bool = False, *, out=None):  # noqa: A002
    """input with input[indices[0], ..., indices[n-1]] = values (ek_index_put;
    torch.index_put): the index tensors broadcast together and address the
    first n dims; values (cast to input's dtype) broadcast to the indexed
    shape; ``accumulate`` adds (duplicates add up)."""
    x = _arg(input)
    return _capi.index_put(x, indices, _cast(_value(values, x), x), accumulate, out=out)


def masked_scatter(input, mask, source, *, out=None):  # noqa: A002
    """input with the positions where mask is true taking source's elements in
    C order (ek_masked_scatter; source needs at least as many elements)."""
    x = _arg(input)
    return _capi.masked_scatter(x, mask, _cast(_arg(source, x), x), out=out)


def nonzero(input, *, as_tuple: bool = False):  # noqa: A002
    """int64 tensor [n, ndim] of the indices of input's nonzero elements in C
    order (ek_nonzero; synchronizes); with ``as_tuple``, one 1-D tensor per dim
    (the array API's nonzero: a 0-d input raises InvalidArgumentError, as the
    standard asks; without ``as_tuple`` it gives [1, 0] or [0, 0] as torch)."""
    if as_tuple and _arg(input).ndim == 0:
        raise InvalidArgumentError("ek.nonzero: a 0-d tensor has no dims to index "
                                   "(as_tuple=True needs at least one dim)")
    r = _capi.nonzero(input)
    if as_tuple:
        return tuple(r[:, j] for j in range(r.shape[1])) if r.shape[1] else (r.reshape(-1),)
    return r


@tensor_methods
class IndexingMethods:
    __getitem__ = _capi.index
    __setitem__ = setitem
    index_select, gather, scatter, scatter_add, index_put = (index_select, gather, scatter,
                                                             scatter_add, index_put)
    masked_select, masked_fill, masked_scatter, nonzero = (masked_select, masked_fill,
                                                           masked_scatter, nonzero)

    def scatter_(self, dim, index, src, *, reduce=None):
        """In place: scatter into self; returns self."""
        return scatter(self, dim, index, src, reduce=reduce, out=self)

    def scatter_add_(self, dim, index, src):
        """In place: scatter_add into self; returns self."""
        return scatter(self, dim, index, src, reduce="add", out=self)

    def index_put_(self, indices, values, accumulate=False):
        """In place: self[indices] = values (or += with accumulate); returns self."""
        return index_put(self, indices, values, accumulate, out=self)

    def masked_fill_(self, mask, value):
        """In place: self[mask] = value; returns self."""
        return masked_fill(self, mask, value, out=self)

    def masked_scatter_(self, mask, source):
        """In place: masked positions take source's elements; returns self."""
        return masked_scatter(self, mask, source, out=self)
