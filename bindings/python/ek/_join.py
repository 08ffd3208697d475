"""Joining and rearranging (ek.h's "joining and rearranging" section):
ek.concat/cat, stack, flip, roll, tile (Tensor.repeat), meshgrid copy;
split, chunk, unstack/unbind, moveaxis/movedim, broadcast_tensors/
broadcast_arrays return views. PyTorch's semantics and argument names; the
array API's ``axis=`` is accepted where the standard has it."""

from __future__ import annotations

import ctypes
import operator

from . import _ffi
from ._cint import c_int, c_int64, int64_array, int_array
from ._errors import check
from ._lib import lib
from ._ops import _arg, _op
from ._tensor import Tensor

__all__ = ["concat", "cat", "stack", "split", "chunk", "unstack", "unbind", "flip", "roll",
           "tile", "moveaxis", "movedim", "broadcast_tensors", "broadcast_arrays", "meshgrid",
           "functions", "install"]

_T = Tensor
_byref = ctypes.byref


def _tensors(seq, what: str) -> list:
    """A sequence of tensors (numbers and lists become tensors on the first
    tensor's device)."""
    if isinstance(seq, _T):
        raise TypeError(f"{what} takes a sequence of tensors, not one tensor")
    items = list(seq)
    like = next((t for t in items if type(t) is _T), None)
    return [_arg(t, like) for t in items]


def _handles(ts) -> ctypes.Array:
    return (_ffi.ek_tensor * max(len(ts), 1))(*[t._h for t in ts])


def _ctx_of(ts):
    return ts[0]._ctx if ts else None


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
    ts = _tensors(tensors, "concat")
    d = dim
    if axis is None:
        ts = [t.reshape(-1) for t in ts]
        d = 0
    elif axis is not _UNSET:
        d = _dim(dim, axis)
    return _op(lib.ek_concat, _ctx_of(ts), out, len(ts), _handles(ts), c_int(d, "concat: dim"))


def cat(tensors, dim: int = 0, *, out=None) -> Tensor:
    """torch.cat: see ``ek.concat``."""
    return concat(tensors, dim, out=out)


def stack(tensors, dim: int | None = None, *, axis: int | None = None, out=None) -> Tensor:
    """The tensors (one shape) joined along a new dim (ek_stack); dtypes promoted."""
    ts = _tensors(tensors, "stack")
    d = _dim(dim, axis)
    return _op(lib.ek_stack, _ctx_of(ts), out, len(ts), _handles(ts), c_int(d, "stack: dim"))


def _pieces(fn, x: Tensor, *args) -> tuple:
    """A two-phase split (count, then the views) as a tuple of Tensors."""
    count = ctypes.c_int64()
    check(fn(x._h, *args, 0, None, _byref(count)))
    arr = (_ffi.ek_tensor * max(count.value, 1))()
    check(fn(x._h, *args, count.value, arr, _byref(count)))
    return tuple(Tensor._wrap(arr[i], x._ctx) for i in range(count.value))


def split(tensor, split_size_or_sections, dim: int = 0) -> tuple:
    """Views of tensor along dim (torch.split): pieces of an int size (the
    last may be smaller), or of each size in a list (ek_view_split,
    ek_view_split_sizes)."""
    x = _arg(tensor)
    d = c_int(dim, "split: dim")
    if isinstance(split_size_or_sections, (list, tuple)):
        sizes = list(split_size_or_sections)
        arr = (_ffi.ek_tensor * max(len(sizes), 1))()
        check(lib.ek_view_split_sizes(x._h, d, len(sizes), int64_array(sizes, "split: sizes"),
                                      arr))
        return tuple(Tensor._wrap(arr[i], x._ctx) for i in range(len(sizes)))
    size = c_int64(split_size_or_sections, "split: split_size")
    return _pieces(lib.ek_view_split, x, d, size)


def chunk(input, chunks: int, dim: int = 0) -> tuple:  # noqa: A002
    """Views of input in ``chunks`` pieces of ceil(size / chunks) along dim,
    maybe fewer (ek_view_chunk; torch.chunk)."""
    x = _arg(input)
    return _pieces(lib.ek_view_chunk, x, c_int(dim, "chunk: dim"), c_int64(chunks, "chunk: chunks"))


def unstack(x, dim: int | None = None, *, axis: int | None = None) -> tuple:
    """The views x[..., i, ...] along dim for every i (torch.unbind,
    array API unstack)."""
    t = _arg(x)
    d = c_int(_dim(dim, axis), "unstack: dim")
    n = t.shape[d] if t.ndim else 0
    if t.ndim == 0:
        check(lib.ek_view_select(t._h, d, 0, _byref(_ffi.ek_tensor())))  # the C error for 0-d
    return tuple(t._new(lib.ek_view_select, t._h, d, i) for i in range(n))


def unbind(input, dim: int = 0) -> tuple:  # noqa: A002
    """torch.unbind: see ``ek.unstack``."""
    return unstack(input, dim)


def _dims_arg(dims, ndim: int) -> list:
    if dims is None:
        return list(range(ndim))
    if isinstance(dims, (list, tuple)):
        return [operator.index(d) for d in dims]
    return [operator.index(dims)]


def flip(input, dims=None, *, axis=None, out=None) -> Tensor:  # noqa: A002
    """A copy of input reversed along dims (ek_flip; torch.flip); dims None
    (the array API's default) reverses every dim."""
    x = _arg(input)
    ds = _dims_arg(dims if axis is None else axis, x.ndim)
    return _op(lib.ek_flip, x._ctx, out, x._h, len(ds), int_array(ds, "flip: dims"))


def roll(input, shifts, dims=None, *, axis=None, out=None) -> Tensor:  # noqa: A002
    """input with elements shifted by shifts along dims, wrapping round
    (ek_roll; torch.roll); dims None rolls the flattened tensor."""
    x = _arg(input)
    dims = dims if axis is None else axis
    sh = list(shifts) if isinstance(shifts, (list, tuple)) else [shifts]
    if dims is None:
        return _op(lib.ek_roll, x._ctx, out, x._h, len(sh), int64_array(sh, "roll: shifts"), None)
    ds = _dims_arg(dims, x.ndim)
    if len(ds) != len(sh):
        from ._errors import InvalidArgumentError
        raise InvalidArgumentError(f"roll: {len(sh)} shifts for {len(ds)} dims",
                                   _ffi.EK_ERROR_INVALID_ARGUMENT)
    return _op(lib.ek_roll, x._ctx, out, x._h, len(sh), int64_array(sh, "roll: shifts"),
               int_array(ds, "roll: dims"))


def tile(input, dims, *, out=None) -> Tensor:  # noqa: A002
    """input repeated dims[i] times along dim i (ek_repeat; numpy.tile and
    torch.tile: fewer reps than dims count from the right)."""
    x = _arg(input)
    reps = list(dims) if isinstance(dims, (list, tuple)) else [dims]
    return _op(lib.ek_repeat, x._ctx, out, x._h, len(reps), int64_array(reps, "tile: dims"))


def moveaxis(x, source, destination) -> Tensor:
    """A view of x with dims source moved to destination (ek_view_moveaxis;
    numpy.moveaxis, torch.movedim); ints or sequences of one length."""
    t = _arg(x)
    src = _dims_arg(source, t.ndim)
    dst = _dims_arg(destination, t.ndim)
    if len(src) != len(dst):
        raise ValueError(f"moveaxis: {len(src)} source dims but {len(dst)} destinations")
    return t._new(lib.ek_view_moveaxis, t._h, len(src), int_array(src, "moveaxis: source"),
                  int_array(dst, "moveaxis: destination"))


movedim = moveaxis


def broadcast_tensors(*tensors) -> tuple:
    """Views of the tensors expanded to their broadcast shape
    (ek_broadcast_tensors; stride 0 where broadcast: not writable by ops)."""
    ts = _tensors(tensors, "broadcast_tensors")
    outs = (_ffi.ek_tensor * max(len(ts), 1))()
    check(lib.ek_broadcast_tensors(len(ts), _handles(ts), outs))
    return tuple(Tensor._wrap(outs[i], ts[i]._ctx) for i in range(len(ts)))


broadcast_arrays = broadcast_tensors

_INDEXING = {"ij": _ffi.EK_MESHGRID_IJ, "xy": _ffi.EK_MESHGRID_XY}


def meshgrid(*tensors, indexing: str = "ij") -> tuple:
    """Coordinate grids of the 1-D tensors (ek_meshgrid; copies). indexing
    "ij" (torch's default) or "xy" (numpy's and the array API's default:
    pass it explicitly)."""
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    ts = _tensors(tensors, "meshgrid")
    if indexing not in _INDEXING:
        raise ValueError(f"meshgrid: indexing must be 'ij' or 'xy', not {indexing!r}")
    outs = (_ffi.ek_tensor * max(len(ts), 1))()
    st = _ctx_of(ts)
    from ._ops import _stream
    check(lib.ek_meshgrid(_stream(st) if st else None, len(ts), _handles(ts), _INDEXING[indexing],
                          outs))
    return tuple(Tensor._wrap(outs[i], st) for i in range(len(ts)))


# ---- Tensor methods (PyTorch's)

def _split_method(self, split_size, dim: int = 0) -> tuple:
    """Views of self along dim (see ``ek.split``)."""
    return split(self, split_size, dim)


def _flip_method(self, *dims) -> Tensor:
    """A copy of self reversed along dims (see ``ek.flip``)."""
    return flip(self, dims[0] if len(dims) == 1 and isinstance(dims[0], (list, tuple)) else dims)


def _repeat_method(self, *sizes) -> Tensor:
    """torch.Tensor.repeat: self tiled sizes[i] times along dim i."""
    reps = sizes[0] if len(sizes) == 1 and isinstance(sizes[0], (list, tuple)) else sizes
    return tile(self, list(reps))


def functions() -> dict:
    """The module-level functions of this module, by name."""
    return {n: globals()[n] for n in __all__ if n not in ("functions", "install")}


def install(cls) -> None:
    """Add split, chunk, unbind, flip, roll, repeat, tile, moveaxis/movedim to Tensor."""
    cls.split = _split_method
    cls.chunk = chunk
    cls.unbind = unbind
    cls.flip = _flip_method
    cls.roll = roll
    cls.repeat = _repeat_method
    cls.tile = tile
    cls.moveaxis = moveaxis
    cls.movedim = moveaxis
