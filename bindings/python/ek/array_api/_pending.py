"""Functions over ek functions that other work adds (sorting, sets,
counting, differences, tensordot/vecdot, complex parts). Until the ek
package has the function, calling the wrapper raises NotImplementedError
naming it; NEEDS maps each wrapper to the ek function(s) it stands on (the
README table and the tests read it)."""

from __future__ import annotations

import collections

import ek

__all__ = ["argsort", "conj", "count_nonzero", "diff", "imag", "real", "searchsorted", "sort",
           "tensordot", "unique_all", "unique_counts", "unique_inverse", "unique_values",
           "vecdot"]

NEEDS = {"argsort": ("argsort",), "sort": ("sort",), "searchsorted": ("searchsorted",),
         "unique_values": ("unique",), "unique_counts": ("unique",),
         "unique_inverse": ("unique",), "unique_all": ("unique", "argsort"),
         "count_nonzero": ("count_nonzero",), "diff": ("diff",), "tensordot": ("tensordot",),
         "vecdot": ("vecdot",), "real": ("real",), "imag": ("imag",), "conj": ("conj",)}


def missing(name: str) -> list:
    """The ek functions that the wrapper ``name`` needs and ek lacks."""
    return [f for f in NEEDS.get(name, ()) if not hasattr(ek, f)]


def _ek(wrapper: str, name: str):
    fn = getattr(ek, name, None)
    if fn is None:
        raise NotImplementedError(f"ek.array_api.{wrapper} needs ek.{name}, which this ek "
                                  f"package does not have yet")
    return fn


def sort(x, /, *, axis=-1, descending=False, stable=True):
    return _ek("sort", "sort")(x, dim=axis, descending=descending, stable=stable)[0]


def argsort(x, /, *, axis=-1, descending=False, stable=True):
    return _ek("argsort", "argsort")(x, dim=axis, descending=descending, stable=stable)


def searchsorted(x1, x2, /, *, side="left", sorter=None):
    """Insertion points of x2 in the sorted 1-D x1 (side "left" or "right");
    sorter: indices that sort x1."""
    if side not in ("left", "right"):
        raise ValueError(f"ek.array_api.searchsorted: side must be 'left' or 'right', not "
                         f"{side!r}")
    fn = _ek("searchsorted", "searchsorted")
    if sorter is not None:
        x1 = ek.index_select(x1, 0, sorter)
    return fn(x1, x2, right=side == "right")


UniqueAllResult = collections.namedtuple("UniqueAllResult",
                                         ["values", "indices", "inverse_indices", "counts"])
UniqueCountsResult = collections.namedtuple("UniqueCountsResult", ["values", "counts"])
UniqueInverseResult = collections.namedtuple("UniqueInverseResult",
                                             ["values", "inverse_indices"])


def unique_values(x, /):
    return _ek("unique_values", "unique")(x, sorted=True)


def unique_counts(x, /):
    values, counts = _ek("unique_counts", "unique")(x, sorted=True, return_counts=True)
    return UniqueCountsResult(values, counts)


def unique_inverse(x, /):
    values, inverse = _ek("unique_inverse", "unique")(x, sorted=True, return_inverse=True)
    return UniqueInverseResult(values, inverse.reshape(x.shape))


def unique_all(x, /):
    """Values, the flat index of each value's first occurrence, inverse
    indices (x's shape) and counts. The first occurrences come from a stable
    argsort of the inverse indices: each group starts at counts' running sum."""
    unique, argsort_ = _ek("unique_all", "unique"), _ek("unique_all", "argsort")
    values, inverse, counts = unique(x, sorted=True, return_inverse=True, return_counts=True)
    order = argsort_(inverse.reshape(-1), dim=0, stable=True)
    starts = ek.cumsum(counts, 0) - counts
    return UniqueAllResult(values, ek.index_select(order, 0, starts), inverse.reshape(x.shape),
                           counts)


def count_nonzero(x, /, *, axis=None, keepdims=False):
    fn = _ek("count_nonzero", "count_nonzero")
    if axis == ():
        return (x != 0).astype(ek.int64)
    return fn(x, dim=axis, keepdim=keepdims)


def diff(x, /, *, axis=-1, n=1, prepend=None, append=None):
    return _ek("diff", "diff")(x, n=n, dim=axis, prepend=prepend, append=append)


def tensordot(x1, x2, /, *, axes=2):
    return _ek("tensordot", "tensordot")(x1, x2, dims=axes)


def vecdot(x1, x2, /, *, axis=-1):
    return _ek("vecdot", "vecdot")(x1, x2, dim=axis)


def _complex_part(name: str, x, of_real):
    """ek.<name>(x) of a complex array; of a real one its part as NumPy gives
    it, a new array (ek.imag refuses real tensors, as torch.imag; vecdot's
    reference in the standard's tests conjugates real arrays too)."""
    if isinstance(x, ek.Tensor) and not x.dtype.name.startswith("complex"):
        return of_real(x)
    return _ek(name, name)(x)


def real(x, /):
    return _complex_part("real", x, lambda t: t.clone())


def imag(x, /):
    return _complex_part("imag", x, ek.zeros_like)


def conj(x, /):
    return _complex_part("conj", x, lambda t: t.clone())
