"""The standard's data types and data type functions: the dtype objects are
ek's own DType singletons; promotion is the library's (asked of ek_binary on
empty tensors, so result_type always agrees with the operators)."""

from __future__ import annotations

import builtins
import collections
import functools

import numpy as np

import ek
from .._dtype import DType, DTYPES

# The standard's dtypes that this build of ek has (uint16..uint64 and complex
# come with the "dtypes" work); float16 and bfloat16 are ek extras, accepted
# everywhere but not listed by __array_namespace_info__().dtypes().
STANDARD_NAMES = ("bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32",
                  "uint64", "float32", "float64", "complex64", "complex128")
_std = {n: DTYPES[n] for n in STANDARD_NAMES if n in DTYPES}
globals().update(_std)
__all__ = list(_std) + ["astype", "can_cast", "finfo", "iinfo", "isdtype", "result_type"]

_KINDS = {
    "bool": lambda n: n == "bool",
    "signed integer": lambda n: n.startswith("int"),
    "unsigned integer": lambda n: n.startswith("uint"),
    "integral": lambda n: n.startswith(("int", "uint")),
    "real floating": lambda n: n.startswith(("float", "bfloat")),
    "complex floating": lambda n: n.startswith("complex"),
    "numeric": lambda n: n != "bool",
}


def _category(name: str) -> str:
    if name == "bool":
        return "bool"
    if name.startswith(("int", "uint")):
        return "integral"
    return "floating"  # real and complex promote into each other


def isdtype(dtype, kind) -> builtins.bool:
    """True when dtype is of kind: a dtype, one of the standard's kind names
    ("bool", "signed integer", "unsigned integer", "integral", "real floating",
    "complex floating", "numeric") or a tuple of those."""
    if not isinstance(dtype, DType):
        raise TypeError(f"ek.array_api.isdtype: {dtype!r} is not a dtype")
    if isinstance(kind, tuple):
        return any(isdtype(dtype, k) for k in kind)
    if isinstance(kind, DType):
        return dtype is kind
    if kind not in _KINDS:
        raise ValueError(f"ek.array_api.isdtype: unknown kind {kind!r} (one of "
                         f"{', '.join(_KINDS)}, a dtype or a tuple)")
    return _KINDS[kind](dtype.name)


@functools.lru_cache(maxsize=None)
def _promote(a: str, b: str) -> DType:
    if a == b:
        return DTYPES[a]
    ca, cb = _category(a), _category(b)
    if ca != cb:
        raise TypeError(f"ek.array_api: {a} and {b} do not promote (the standard defines no "
                        f"promotion between kinds)")
    return ek.add(ek.empty(0, dtype=a), ek.empty(0, dtype=b)).dtype


def _scalar_dtype(s, dt: DType | None) -> DType:
    """The dtype a Python scalar takes next to dt (a weak scalar), or alone."""
    if isinstance(s, builtins.bool):
        return dt if dt is not None and dt.name == "bool" else DTYPES["bool"]
    if isinstance(s, int):
        return dt if dt is not None and dt.name != "bool" else DTYPES["int64"]
    if isinstance(s, float):
        floating = dt is not None and _category(dt.name) == "floating"
        return dt if floating else DTYPES["float32"]
    if isinstance(s, complex):
        if dt is not None and dt.name.startswith("complex"):
            return dt
        if "complex64" not in DTYPES:
            raise TypeError("ek.array_api: complex scalars need ek's complex dtypes, which this "
                            "build of ek does not have")
        return DTYPES["complex128" if dt is not None and dt.name == "float64" else "complex64"]
    raise TypeError(f"ek.array_api.result_type: {s!r} is neither an array, a dtype nor a "
                    f"Python scalar")


def result_type(*arrays_and_dtypes) -> DType:
    """The dtype of an operation on these arrays, dtypes and Python scalars,
    by the standard's promotion rules (scalars are weak: they adopt the
    array dtype). TypeError for kinds that do not promote (int with float)."""
    dts = [a.dtype if isinstance(a, ek.Tensor) else a for a in arrays_and_dtypes]
    typed = [ek.dtype(d) for d in dts if not isinstance(d, (builtins.bool, int, float, complex))]
    if not dts:
        raise ValueError("ek.array_api.result_type: at least one array or dtype is needed")
    out = None
    for d in typed:
        out = d if out is None else _promote(out.name, d.name)
    for s in (d for d in dts if isinstance(d, (builtins.bool, int, float, complex))):
        out = _scalar_dtype(s, out)
    return out


def can_cast(from_, to) -> builtins.bool:
    """True when from_ (a dtype or array) casts to ``to`` by the promotion
    rules: result_type(from_, to) is ``to``, within one kind."""
    a = from_.dtype if isinstance(from_, ek.Tensor) else ek.dtype(from_)
    b = ek.dtype(to)
    try:
        return _promote(a.name, b.name) is b
    except TypeError:
        return False


def astype(x, dtype, /, *, copy: builtins.bool = True, device=None):
    """x converted to dtype (and moved to device); x itself when nothing
    changes and copy is False."""
    dt = ek.dtype(dtype)
    if device is not None and str(device) != x.device:
        return x.to(device, dt)
    if dt is x.dtype:
        return x.clone() if copy else x
    return x.astype(dt)


finfo_object = collections.namedtuple("finfo_object",
                                      ["bits", "eps", "max", "min", "smallest_normal", "dtype"])
iinfo_object = collections.namedtuple("iinfo_object", ["bits", "max", "min", "dtype"])
_BFLOAT16 = dict(eps=2.0 ** -7, max=3.3895313892515355e38, smallest_normal=2.0 ** -126)


def _info_dtype(type_) -> DType:
    return type_.dtype if isinstance(type_, ek.Tensor) else ek.dtype(type_)


def finfo(type_, /):
    """Machine limits of a floating dtype (or of an array's): bits, eps, max,
    min, smallest_normal (Python floats) and dtype (the real dtype for complex)."""
    dt = _info_dtype(type_)
    if not _KINDS["real floating"](dt.name) and not dt.name.startswith("complex"):
        raise TypeError(f"ek.array_api.finfo: {dt.name} is not a floating dtype")
    if dt.name == "bfloat16":
        f = _BFLOAT16
        return finfo_object(16, f["eps"], f["max"], -f["max"], f["smallest_normal"], dt)
    fi = np.finfo(dt.numpy)
    real = DTYPES.get(fi.dtype.name, dt)
    return finfo_object(fi.bits, float(fi.eps), float(fi.max), float(fi.min),
                        float(fi.smallest_normal), real)


def iinfo(type_, /):
    """Limits of an integer dtype (or of an array's): bits, max, min, dtype."""
    dt = _info_dtype(type_)
    if not _KINDS["integral"](dt.name):
        raise TypeError(f"ek.array_api.iinfo: {dt.name} is not an integer dtype")
    ii = np.iinfo(dt.numpy)
    return iinfo_object(ii.bits, int(ii.max), int(ii.min), dt)
