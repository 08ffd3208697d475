"""Manipulation, indexing and linear-algebra functions with the standard's
signatures (axis=, keepdims=, copy=) over ek's views and ops."""

from __future__ import annotations

import numpy as np

import ek
from .._errors import ShapeError

__all__ = ["broadcast_arrays", "broadcast_to", "concat", "expand_dims", "flip", "matmul",
           "matrix_transpose", "moveaxis", "permute_dims", "repeat", "reshape", "roll",
           "squeeze", "stack", "take", "take_along_axis", "tile", "unstack"]

matmul = ek.matmul
moveaxis = ek.moveaxis


def broadcast_arrays(*arrays):
    return list(ek.broadcast_arrays(*arrays))


def broadcast_to(x, /, shape):
    """A broadcast view of x with shape (ValueError when x does not broadcast to it)."""
    shape = tuple(shape)
    if len(shape) < x.ndim or any(s != n and s != 1 for s, n in
                                  zip(x.shape[::-1], shape[::-1])):
        raise ValueError(f"ek.array_api.broadcast_to: shape {x.shape} does not broadcast to "
                         f"{shape}")
    return x.expand(shape)


def concat(arrays, /, *, axis=0):
    """arrays joined along axis; axis=None joins them flattened."""
    if axis is None:
        return ek.concat([a.reshape(-1) for a in arrays], 0)
    return ek.concat(list(arrays), axis)


def stack(arrays, /, *, axis=0):
    return ek.stack(list(arrays), axis)


def unstack(x, /, *, axis=0):
    return ek.unstack(x, axis)


def expand_dims(x, /, axis=0):
    if not -x.ndim - 1 <= axis <= x.ndim:
        raise IndexError(f"ek.array_api.expand_dims: axis {axis} is out of range for "
                         f"{x.ndim + 1} dims")
    return x.unsqueeze(axis)


def flip(x, /, *, axis=None):
    return ek.flip(x, axis=axis)


def roll(x, /, shift, *, axis=None):
    return ek.roll(x, shift, axis=axis)


def permute_dims(x, /, axes):
    return x.permute(tuple(axes))


def matrix_transpose(x, /):
    return x.mT


def reshape(x, /, shape, *, copy=None):
    """x with a new shape: a view when possible (copy=None), always a copy
    (copy=True), or a view or ValueError (copy=False)."""
    shape = tuple(shape)
    if copy:
        return x.clone().reshape(shape)
    if copy is False:
        try:
            return x.view(shape)
        except ShapeError as e:
            raise ValueError(f"ek.array_api.reshape: copy=False but no view exists ({e})") \
                from None
    return x.reshape(shape)


def squeeze(x, /, axis):
    """x without the size-1 axis (an int or tuple); ValueError when one is not size 1."""
    axes = (axis,) if isinstance(axis, int) else tuple(axis)
    for a in axes:
        if x.shape[a] != 1:
            raise ValueError(f"ek.array_api.squeeze: axis {a} has size {x.shape[a]}, not 1")
    return x.squeeze(axes) if axes else x


def tile(x, /, repetitions):
    return ek.tile(x, tuple(repetitions))


def repeat(x, repeats, /, *, axis=None):
    """Each element repeated (numpy.repeat): repeats is an int or a 1-D
    integer array matching the axis; axis=None repeats the flattened x."""
    if axis is None:
        x, axis = x.reshape(-1), 0
    n = x.shape[axis]
    counts = repeats.numpy() if isinstance(repeats, ek.Tensor) else repeats
    index = np.repeat(np.arange(n, dtype=np.int64), counts)
    return ek.index_select(x, axis, ek.from_numpy(index, device=x.device))


def take(x, indices, /, *, axis=None):
    """x's elements at indices along axis (optional for 1-D x)."""
    if axis is None:
        if x.ndim != 1:
            raise ValueError(f"ek.array_api.take: axis is needed for a {x.ndim}-D array")
        axis = 0
    return ek.index_select(x, axis, indices)


def take_along_axis(x, indices, /, *, axis=-1):
    return ek.gather(x, axis, indices)
