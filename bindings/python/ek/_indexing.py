"""Indexing: ``t[key]`` and ``t[key] = value`` with NumPy's rules, and the
indexing ops (index_select, gather, scatter, index_put, masked_select,
masked_fill, masked_scatter, nonzero).

Basic keys (ints, slices with any step, None, ...) give views (ek_view_*).
Advanced keys follow NumPy (and PyTorch):

- one integer tensor/list/array on one dim: ``ek_index_select`` (the index's
  shape replaces that dim);
- several: each index is bounds-checked and made non-negative by the C library
  (``ek_index_select`` of an arange), combined into one linear index over the
  indexed dims (moved first, ``ek_reshape``) and gathered with one
  ``ek_index_select``;
- a boolean mask: ``ek_masked_select`` when it is the only advanced index,
  otherwise its ``ek_nonzero`` columns act as integer indices;
- the result dims of the advanced indices go where the first of them was when
  the advanced indices (ints included) are adjacent in the key, else first.

Assignment goes through views for basic keys (``ek_fill``/``ek_copy``),
``ek_masked_fill`` for a number under a single mask, and ``ek_index_put`` (on a
view with the indexed dims first) for everything else: values broadcast to
the indexed shape as in NumPy.
"""

from __future__ import annotations

import operator

import numpy as np

from . import _ffi
from ._errors import EkIndexError
from ._lib import lib
from ._ops import _arg, _as_tensor, _op, _scalar
from ._cint import INT64_MAX as _INT64_MAX, INT64_MIN as _INT64_MIN, c_int, scalar
from ._tensor import Tensor, _i64

__all__ = ["getitem", "setitem", "index_select", "gather", "scatter", "scatter_add",
           "index_put", "masked_select", "masked_fill", "masked_scatter", "nonzero", "install"]

_T = Tensor
_ADVANCED = (_T, np.ndarray, list)


def _index_error(msg):
    return EkIndexError(msg, _ffi.EK_ERROR_INDEX)


# ------------------------------------------------------------------ basic indexing

def _bound(v) -> int:
    """A slice bound as an int64 that is not the EK_SLICE_MIN/MAX sentinel."""
    return min(max(operator.index(v), _INT64_MIN + 1), _INT64_MAX - 1)


def _basic(t, key) -> Tensor:
    """Views for ints, slices, None and ... (key a tuple)."""
    n_ell = 0
    consumed = 0
    for k in key:
        if k is Ellipsis:
            n_ell += 1
        elif k is not None:
            consumed += 1
    if n_ell > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    if consumed > t.ndim:
        raise IndexError(f"too many indices for tensor of dimension {t.ndim}")
    v, d = t, 0
    for k in key:
        if k is Ellipsis:
            d += t.ndim - consumed
        elif k is None:
            v = v._new(lib.ek_view_unsqueeze, v._h, d)
            d += 1
        elif isinstance(k, (bool, np.bool_)):
            raise TypeError("ek: boolean scalar indices are not supported")
        elif isinstance(k, slice):
            if k.start is None and k.stop is None and k.step is None:
                d += 1
                continue
            step = 1 if k.step is None else operator.index(k.step)
            if step == 0:
                raise ValueError("slice step cannot be zero")
            # Clamped, never wrapped by ctypes: out-of-range bounds act as in
            # Python (INT64_MIN/MAX themselves mean None: EK_SLICE_MIN/MAX),
            # and a step beyond the size takes one element either way.
            start = _ffi.EK_SLICE_MIN if k.start is None else _bound(k.start)
            stop = _ffi.EK_SLICE_MAX if k.stop is None else _bound(k.stop)
            step = min(max(step, -_INT64_MAX), _INT64_MAX)
            v = v._new(lib.ek_view_slice, v._h, d, start, stop, step)
            d += 1
        else:
            try:
                i = operator.index(k)
            except TypeError:
                raise TypeError(f"ek: invalid index {k!r} of type {type(k).__name__}") from None
            if not _INT64_MIN <= i <= _INT64_MAX:
                raise IndexError(f"index {i} is out of range")
            v = v._new(lib.ek_view_select, v._h, d, i)
    if v is t:
        v = t._new(lib.ek_view_reshape, t._h, t.ndim, _i64(t.shape))
    return v


# ------------------------------------------------------------------ advanced indexing

def _index_tensor(k, ctx) -> Tensor:
    """An advanced index entry as a tensor on ctx: bool (mask) or int32/int64."""
    if type(k) is _T:
        t = k
    else:
        arr = np.asarray(k)
        if arr.dtype.kind == "f" and arr.size == 0:
            arr = arr.astype(np.int64)  # [] is an empty integer index
        if arr.dtype.kind not in "biu":
            raise _index_error(f"ek: index arrays must be integer or bool, not {arr.dtype}")
        if arr.dtype.kind in "iu" and arr.dtype not in (np.int32, np.int64):
            arr = arr.astype(np.int64)
        return _as_tensor(arr, ctx)
    name = t.dtype.name
    if t.dtype.is_floating_point:
        raise _index_error(f"ek: tensors used as indices must be integer or bool, not {name}")
    if name not in ("bool", "int32", "int64"):
        t = t.astype("int64")
    return t if t._ctx is ctx else t.to(ctx)


class _Plan:
    """A key split into a view (basic part applied) and advanced indices."""

    __slots__ = ("view", "dims", "indices", "masks", "first", "adjacent")


def _plan(t, key, allow_mask_fast_path) -> _Plan:
    ctx = t._ctx
    entries = []
    consumed = 0
    n_ell = 0
    for k in key:
        if k is None or isinstance(k, slice):
            entries.append(k)
            consumed += isinstance(k, slice)
        elif k is Ellipsis:
            n_ell += 1
            entries.append(k)
        elif isinstance(k, _ADVANCED):
            it = _index_tensor(k, ctx)
            if it.dtype.name == "bool" and it.ndim == 0:
                raise TypeError("ek: 0-d boolean indices are not supported")
            entries.append(it)
            consumed += it.ndim if it.dtype.name == "bool" else 1
        elif isinstance(k, (bool, np.bool_)):
            raise TypeError("ek: boolean scalar indices are not supported")
        else:
            try:
                entries.append(operator.index(k))
            except TypeError:
                raise TypeError(f"ek: invalid index {k!r} of type {type(k).__name__}") from None
            consumed += 1
    if n_ell > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    if consumed > t.ndim:
        raise IndexError(f"too many indices for tensor of dimension {t.ndim}")

    # NumPy: the advanced indices (ints included) adjacent in the key put their
    # result dims where the first of them was, otherwise first.
    adv_pos = [i for i, e in enumerate(entries) if type(e) is _T or type(e) is int]
    adjacent = adv_pos == list(range(adv_pos[0], adv_pos[-1] + 1))

    # The basic part (tensors replaced by full slices) as one view; the tensors'
    # dims counted in that view's coordinates.
    basic, adv, d, first = [], [], 0, None
    for e in entries:
        if type(e) is _T:
            if first is None:
                first = d
            k = e.ndim if e.dtype.name == "bool" else 1
            adv.append((d, e))
            basic.extend([slice(None)] * k)
            d += k
        elif e is Ellipsis:
            basic.append(e)
            d += t.ndim - consumed
        elif e is None or isinstance(e, slice):
            basic.append(e)
            d += 1
        else:  # int: a view that removes the dim
            if first is None:
                first = d
            basic.append(e)
    v = _basic(t, tuple(basic))

    mask_fast = allow_mask_fast_path and len(adv) == 1 and adv[0][1].dtype.name == "bool"
    dims, indices, masks = [], [], []
    for d, e in adv:
        if e.dtype.name == "bool":
            want = tuple(v.shape[d:d + e.ndim])
            if tuple(e.shape) != want:
                raise _index_error(
                    f"ek: boolean index of shape {list(e.shape)} does not match the indexed "
                    f"dims {list(want)}")
            if mask_fast:
                masks.append((d, e))
            else:
                nz = nonzero(e)
                for j in range(e.ndim):
                    dims.append(d + j)
                    indices.append(nz[:, j])
        else:
            dims.append(d)
            indices.append(e)
    p = _Plan()
    p.view, p.dims, p.indices, p.masks = v, dims, indices, masks
    p.first, p.adjacent = first, adjacent
    return p


def _broadcast_shape(indices) -> tuple:
    try:
        return tuple(np.broadcast_shapes(*[tuple(i.shape) for i in indices]))
    except ValueError:
        raise _index_error("ek: shape mismatch: indexing tensors could not be broadcast "
                           f"together with shapes {[list(i.shape) for i in indices]}") from None


def _move_block(r, start, n, to) -> Tensor:
    """Permute r so that its dims [start, start+n) sit at position `to`."""
    if start == to or n == 0:
        return r
    rest = [i for i in range(r.ndim) if not start <= i < start + n]
    block = list(range(start, start + n))
    return r.permute(rest[:to] + block + rest[to:])


def _permute_first(v, dims) -> tuple:
    """v with `dims` moved first (a view) and the shape of the other dims."""
    others = [i for i in range(v.ndim) if i not in dims]
    vp = v.permute(list(dims) + others) if list(dims) + others != list(range(v.ndim)) else v
    return vp, tuple(v.shape[i] for i in others)


def getitem(t, key) -> Tensor:
    """``t[key]``: a view for basic keys, a new tensor for advanced ones."""
    if not isinstance(key, tuple):
        key = (key,)
    for k in key:
        if isinstance(k, _ADVANCED):
            break
    else:
        return _basic(t, key)
    p = _plan(t, key, True)
    v = p.view
    if p.masks:
        (d, mask), = p.masks
        k = mask.ndim
        vp, rest = _permute_first(v, list(range(d, d + k)))
        m = mask.reshape(tuple(mask.shape) + (1,) * len(rest)) if rest else mask
        sel = masked_select(vp, m)
        inner = int(np.prod(rest)) if rest else 1
        nnz = sel.numel() // inner if inner else int(mask.sum().item())
        r = sel.reshape((nnz,) + rest)
        return _move_block(r, 0, 1, d if p.adjacent else 0)
    dims, indices = p.dims, p.indices
    bshape = _broadcast_shape(indices)
    if len(indices) == 1:
        d, idx = dims[0], indices[0]
        r = index_select(v, d, idx if idx.ndim == 1 else idx.reshape(-1))
        shape = tuple(v.shape[:d]) + bshape + tuple(v.shape[d + 1:])
        if shape != r.shape:
            r = r.reshape(shape)
        return r if p.adjacent else _move_block(r, d, len(bshape), 0)
    from ._creation import arange
    lin = None
    for d, idx in zip(dims, indices):
        size = v.shape[d]
        flat = idx if idx.ndim == 1 else idx.reshape(-1)
        norm = index_select(arange(size, device=v._ctx), 0, flat)  # checked, non-negative
        if idx.ndim != 1:
            norm = norm.reshape(idx.shape)
        lin = norm if lin is None else lin * size + norm
    vp, rest = _permute_first(v, dims)
    n = 1
    for d in dims:
        n *= v.shape[d]
    vp = vp.reshape((n,) + rest)
    r = index_select(vp, 0, lin.reshape(-1) if lin.ndim != 1 else lin)
    r = r.reshape(bshape + rest)
    return _move_block(r, 0, len(bshape), p.first) if p.adjacent else r


def _value_tensor(value, v) -> Tensor:
    """An assigned value as a tensor of v's dtype on v's device."""
    if type(value) is _T:
        t = value if value._ctx is v._ctx else value.to(v._ctx)
    else:
        s = _scalar(value)
        if s is not None:
            from ._creation import full
            return full((), s[0], dtype=v.dtype, device=v._ctx)
        t = _as_tensor(value, v._ctx)
    return t if t.dtype is v.dtype else t.astype(v.dtype)


def setitem(t, key, value) -> None:
    """``t[key] = value``: writes into t through views, ek_masked_fill or ek_index_put."""
    if not isinstance(key, tuple):
        key = (key,)
    for k in key:
        if isinstance(k, _ADVANCED):
            break
    else:
        v = _basic(t, key)
        if _scalar(value) is not None and not isinstance(value, np.ndarray):
            v.fill_(value)
        else:
            v.copy_(value)
        return
    is_scalar = _scalar(value) is not None and not isinstance(value, np.ndarray)
    p = _plan(t, key, is_scalar)
    v = p.view
    if p.masks:
        (d, mask), = p.masks
        vp, rest = _permute_first(v, list(range(d, d + mask.ndim)))
        m = mask.reshape(tuple(mask.shape) + (1,) * len(rest)) if rest else mask
        masked_fill(vp, m, value, out=vp)
        return
    dims, indices = p.dims, p.indices
    bshape = _broadcast_shape(indices)
    vp, rest = _permute_first(v, dims)
    if p.adjacent:
        before = tuple(v.shape[:p.first])
        after = rest[len(before):]
        shape = before + bshape + after
    else:
        before, shape = (), bshape + rest
    val = _value_tensor(value, v)
    while val.ndim > len(shape) and val.shape[0] == 1:
        val = val[0]
    if tuple(val.shape) != shape:
        val = val.expand(shape)
    if p.adjacent and before:
        val = _move_block(val, len(before), len(bshape), 0)
    index_put(vp, tuple(indices), val, out=vp)


# ------------------------------------------------------------------ indexing ops

def _idx(index, like) -> Tensor:
    """index as a tensor on like's device; a tensor's dtype is left for the C call to judge."""
    if type(index) is not _T:
        return _index_tensor(index, like._ctx)
    return index if index._ctx is like._ctx else index.to(device=like._ctx)


def index_select(input, dim: int, index, *, out=None):  # noqa: A002
    """input's slices along dim at the 1-D index's positions (ek_index_select;
    negative indices count from the end; EkIndexError when out of range)."""
    x = _arg(input)
    i = _idx(index, x)  # a local: the Tensor must outlive the call
    return _op(lib.ek_index_select, x._ctx, out, x._h, c_int(dim, "index_select: dim"), i._h)


def gather(input, dim: int, index, *, out=None):  # noqa: A002
    """out[i][j] = input[index[i][j]][j] for dim 0 (torch.gather): index has
    input's ndim and, outside dim, sizes no larger than input's."""
    x = _arg(input)
    i = _idx(index, x)
    return _op(lib.ek_gather, x._ctx, out, x._h, c_int(dim, "gather: dim"), i._h)


def _src(src, x, index) -> Tensor:
    if type(src) is not _T and _scalar(src) is not None:
        from ._creation import full
        return full(tuple(index.shape), src, dtype=x.dtype, device=x._ctx)
    s = _arg(src, x)
    return s if s.dtype is x.dtype else s.astype(x.dtype)


def scatter(input, dim: int, index, src, *, reduce: str | None = None, out=None):  # noqa: A002
    """input with out[index[i][j]][j] = src[i][j] for dim 0 (torch.scatter);
    ``src`` a tensor (cast to input's dtype) or a number; ``reduce="add"``
    accumulates (scatter_add). With duplicate indices and no reduce, which
    candidate lands is unspecified."""
    if reduce not in (None, "add", "sum"):
        from ._errors import InvalidArgumentError
        raise InvalidArgumentError(f"scatter: reduce={reduce!r} is not supported (None, 'add')",
                                   _ffi.EK_ERROR_INVALID_ARGUMENT)
    x = _arg(input)
    idx = _idx(index, x)
    s = _src(src, x, idx)
    return _op(lib.ek_scatter, x._ctx, out, x._h, c_int(dim, "scatter: dim"), idx._h, s._h,
               0 if reduce is None else 1)


def scatter_add(input, dim: int, index, src, *, out=None):  # noqa: A002
    """scatter with accumulation: duplicates add up (torch.scatter_add)."""
    return scatter(input, dim, index, src, reduce="add", out=out)


def index_put(input, indices, values, accumulate: bool = False, *, out=None):  # noqa: A002
    """input with input[indices[0], ..., indices[n-1]] = values (ek_index_put;
    torch.index_put): the index tensors broadcast together and address the
    first n dims; values (cast to input's dtype) broadcast to the indexed
    shape; ``accumulate`` adds (duplicates add up)."""
    x = _arg(input)
    idx = [_idx(i, x) for i in indices]
    arr = (_ffi.ek_tensor * max(len(idx), 1))(*[i._h for i in idx])
    vals = _value_tensor(values, x)
    return _op(lib.ek_index_put, x._ctx, out, x._h, len(idx), arr, vals._h,
               1 if accumulate else 0)


def _mask(mask, x) -> Tensor:
    m = _arg(mask, x)
    return m if m._ctx is x._ctx else m.to(x._ctx)


def masked_select(input, mask, *, out=None):  # noqa: A002
    """1-D tensor of input's elements where the bool mask (broadcast to input)
    is true, in C order (ek_masked_select; synchronizes: the size depends on
    the data)."""
    x = _arg(input)
    m = _mask(mask, x)
    return _op(lib.ek_masked_select, x._ctx, out, x._h, m._h)


def masked_fill(input, mask, value, *, out=None):  # noqa: A002
    """input with ``value`` (a number or one-element tensor) where mask is true
    (ek_masked_fill)."""
    x = _arg(input)
    if type(value) is _T:
        value = value.item()
    m = _mask(mask, x)
    return _op(lib.ek_masked_fill, x._ctx, out, x._h, m._h, scalar(value, "masked_fill"))


def masked_scatter(input, mask, source, *, out=None):  # noqa: A002
    """input with the positions where mask is true taking source's elements in
    C order (ek_masked_scatter; source needs at least as many elements)."""
    x = _arg(input)
    src = _arg(source, x)
    if src.dtype is not x.dtype:
        src = src.astype(x.dtype)
    m = _mask(mask, x)
    return _op(lib.ek_masked_scatter, x._ctx, out, x._h, m._h, src._h)


def nonzero(input, *, as_tuple: bool = False):  # noqa: A002
    """int64 tensor [n, ndim] of the indices of input's nonzero elements in C
    order (ek_nonzero; synchronizes); with ``as_tuple``, one 1-D tensor per dim."""
    x = _arg(input)
    r = _op(lib.ek_nonzero, x._ctx, None, x._h)
    if as_tuple:
        return tuple(r[:, j] for j in range(x.ndim)) if x.ndim else (r.reshape(-1),)
    return r


_FUNCTIONS = {"index_select": index_select, "gather": gather, "scatter": scatter,
              "scatter_add": scatter_add, "index_put": index_put,
              "masked_select": masked_select, "masked_fill": masked_fill,
              "masked_scatter": masked_scatter, "nonzero": nonzero}


def functions() -> dict:
    """The module-level functions of this module, by name."""
    return dict(_FUNCTIONS)


def install(cls) -> None:
    """Add __getitem__/__setitem__ and the indexing methods (with in-place
    ``scatter_``, ``scatter_add_``, ``index_put_``, ``masked_fill_``,
    ``masked_scatter_``) to Tensor."""
    cls.__getitem__ = getitem
    cls.__setitem__ = setitem
    for name, fn in _FUNCTIONS.items():
        setattr(cls, name, fn)

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

    cls.scatter_, cls.scatter_add_, cls.index_put_ = scatter_, scatter_add_, index_put_
    cls.masked_fill_, cls.masked_scatter_ = masked_fill_, masked_scatter_
