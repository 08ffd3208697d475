"""Joining and rearranging (ek.h's "joining and rearranging" section):
ek.concat/cat, stack, flip, roll, tile (Tensor.repeat), meshgrid copy;
split, chunk, unstack/unbind, moveaxis/movedim, broadcast_tensors/
broadcast_arrays return views. PyTorch's semantics and argument names; the
array API's ``axis=`` is accepted where the standard has it."""

from __future__ import annotations

import ctypes

from . import _capi, _ffi
from ._cint import c_int, c_int64, dims_tuple
from ._core import _arg
from ._errors import InvalidArgumentError, check
from ._lib import lib
from ._tensor import Tensor, tensor_methods

__all__ = ["concat", "cat", "stack", "split", "chunk", "unstack", "unbind", "flip", "roll",
           "tile", "moveaxis", "movedim", "broadcast_tensors", "broadcast_arrays", "meshgrid"]


def _dim(dim, axis, default=0):
    """PyTorch's dim or the array API's axis (one of them)."""
    if axis is not None:
        if dim is not None and dim != default:
            raise TypeError("give dim or axis, not both")
        return axis
    return default if dim is None else dim


_UNSET = object()


def concat(tensors, dim: int = 0, *, axis=_UNSET, out=None) -> Tensor:
    """The tensors joined along dim (ek_concat; torch.cat): equal sizes
    outside dim, dtypes promoted; 1-D empty tensors are skipped as in torch.
    ``axis=None`` (array API) joins the tensors flattened."""
    if axis is None:
        return _capi.concat([_arg(t).reshape(-1) for t in tensors], 0, out=out)
    return _capi.concat(tensors, dim if axis is _UNSET else _dim(dim, axis), out=out)


def cat(tensors, dim: int = 0, *, out=None) -> Tensor:
    """torch.cat: see ``ek.concat``."""
    return concat(tensors, dim, out=out)


def stack(tensors, dim: int | None = None, *, axis: int | None = None, out=None) -> Tensor:
    """The tensors (one shape) joined along a new dim (ek_stack); dtypes promoted."""
    return _capi.stack(tensors, _dim(dim, axis), out=out)


def _pieces(fn, x: Tensor, *args) -> tuple:
    """A two-phase split (count, then the views) as a tuple of Tensors."""
    count = ctypes.c_int64()
    check(fn(x._h, *args, 0, None, ctypes.byref(count)))
    arr = (_ffi.ek_tensor * max(count.value, 1))()
    check(fn(x._h, *args, count.value, arr, ctypes.byref(count)))
    return tuple(Tensor._wrap(arr[i], x._ctx) for i in range(count.value))


def split(tensor, split_size_or_sections, dim: int = 0) -> tuple:
    """Views of tensor along dim (torch.split): pieces of an int size (the
    last may be smaller), or of each size in a list (ek_view_split,
    ek_view_split_sizes)."""
    if isinstance(split_size_or_sections, (list, tuple)):
        return _capi.view_split_sizes(tensor, dim, split_size_or_sections)
    return _pieces(lib.ek_view_split, _arg(tensor), c_int(dim, "split: dim"),
                   c_int64(split_size_or_sections, "split: split_size"))


def chunk(input, chunks: int, dim: int = 0) -> tuple:  # noqa: A002
    """Views of input in ``chunks`` pieces of ceil(size / chunks) along dim,
    maybe fewer (ek_view_chunk; torch.chunk)."""
    return _pieces(lib.ek_view_chunk, _arg(input), c_int(dim, "chunk: dim"),
                   c_int64(chunks, "chunk: chunks"))


def unstack(x, dim: int | None = None, *, axis: int | None = None) -> tuple:
    """The views x[..., i, ...] along dim for every i (torch.unbind,
    array API unstack)."""
    t = _arg(x)
    d = _dim(dim, axis)
    if t.ndim == 0:
        _capi.view_select(t, d, 0)  # the C error for 0-d
    return tuple(_capi.view_select(t, d, i) for i in range(t.shape[d]))


def unbind(input, dim: int = 0) -> tuple:  # noqa: A002
    """torch.unbind: see ``ek.unstack``."""
    return unstack(input, dim)


def flip(input, dims=None, *, axis=None, out=None) -> Tensor:  # noqa: A002
    """A copy of input reversed along dims (ek_flip; torch.flip); dims None
    (the array API's default) reverses every dim."""
    x = _arg(input)
    dims = dims if axis is None else axis
    return _capi.flip(x, range(x.ndim) if dims is None else dims_tuple(dims), out=out)


def roll(input, shifts, dims=None, *, axis=None, out=None) -> Tensor:  # noqa: A002
    """input with elements shifted by shifts along dims, wrapping round
    (ek_roll; torch.roll); dims None rolls the flattened tensor."""
    x = _arg(input)
    dims = dims if axis is None else axis
    sh = list(shifts) if isinstance(shifts, (list, tuple)) else [shifts]
    ds = dims_tuple(dims) if dims is not None else None
    if ds is not None and len(ds) != len(sh):
        raise InvalidArgumentError(f"roll: {len(sh)} shifts for {len(ds)} dims")
    return _capi.roll(x, sh, ds, out=out)


def tile(input, dims, *, out=None) -> Tensor:  # noqa: A002
    """input repeated dims[i] times along dim i (ek_repeat; numpy.tile and
    torch.tile: fewer reps than dims count from the right)."""
    return _capi.repeat(input, list(dims) if isinstance(dims, (list, tuple)) else [dims], out=out)


def moveaxis(x, source, destination) -> Tensor:
    """A view of x with dims source moved to destination (ek_view_moveaxis;
    numpy.moveaxis, torch.movedim); ints or sequences of one length."""
    t = _arg(x)
    src, dst = dims_tuple(source), dims_tuple(destination)
    if len(src) != len(dst):
        raise ValueError(f"moveaxis: {len(src)} source dims but {len(dst)} destinations")
    return _capi.view_moveaxis(t, src, dst)


movedim = moveaxis


def broadcast_tensors(*tensors) -> tuple:
    """Views of the tensors expanded to their broadcast shape
    (ek_broadcast_tensors; stride 0 where broadcast: not writable by ops)."""
    from ._core import _tensors
    arr = _tensors(tensors, "broadcast_tensors")
    outs = (_ffi.ek_tensor * len(arr))()
    check(lib.ek_broadcast_tensors(len(arr), arr, outs))
    return tuple(Tensor._wrap(outs[i], t._ctx) for i, t in enumerate(arr.keep))


broadcast_arrays = broadcast_tensors

_INDEXING = {k: v for v, k in _ffi.ek_meshgrid_indexing_names.items()}


def meshgrid(*tensors, indexing: str = "ij") -> tuple:
    """Coordinate grids of the 1-D tensors (ek_meshgrid; copies). indexing
    "ij" (torch's default) or "xy" (numpy's and the array API's default:
    pass it explicitly)."""
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    if indexing not in _INDEXING:
        raise ValueError(f"meshgrid: indexing must be 'ij' or 'xy', not {indexing!r}")
    return _capi.meshgrid(tensors, _INDEXING[indexing])


@tensor_methods
class JoinMethods:
    def flip(self, *dims) -> Tensor:
        """A copy of self reversed along dims (see ``ek.flip``)."""
        return flip(self, dims[0] if len(dims) == 1 and isinstance(dims[0], (list, tuple))
                    else dims)

    def repeat(self, *sizes) -> Tensor:
        """torch.Tensor.repeat: self tiled sizes[i] times along dim i."""
        return tile(self, list(sizes[0] if len(sizes) == 1 and isinstance(sizes[0], (list, tuple))
                               else sizes))

    split, chunk, unbind, roll, tile, moveaxis, movedim = (split, chunk, unbind, roll, tile,
                                                           moveaxis, moveaxis)
