"""Element types: ``ek.float32`` and friends, and conversion from NumPy/str/Python types."""

from __future__ import annotations

import numpy as np

from . import _ffi
from ._errors import DtypeError
from ._lib import lib

__all__ = ["DType", "dtype", "DTYPES"]

class DType:
    """An element type. ``name`` ("float32"), ``itemsize`` (bytes), ``code``
    (the ek_dtype value), ``numpy`` (the NumPy dtype, or None for bfloat16)."""

    __slots__ = ("name", "code", "itemsize", "numpy")

    def __init__(self, code: int):
        self.code = code
        self.name = lib.ek_dtype_name(code).decode()
        self.itemsize = int(lib.ek_dtype_size(code))
        try:
            self.numpy = np.dtype(self.name)  # ek's names are NumPy's
        except TypeError:
            self.numpy = None  # bfloat16 has no NumPy dtype

    @property
    def is_floating_point(self) -> bool:
        return self.name.startswith(("float", "bfloat"))

    @property
    def is_complex(self) -> bool:
        return self.name.startswith("complex")

    @property
    def is_signed(self) -> bool:
        return self.name != "bool" and not self.name.startswith("uint")

    def __repr__(self) -> str:
        return f"ek.{'bool_' if self.name == 'bool' else self.name}"

    def __str__(self) -> str:
        return self.name

    def __reduce__(self):
        return (dtype, (self.name,))


DTYPES = {}
for _code in sorted(_ffi.ek_dtype_values.values()):
    _d = DType(_code)
    DTYPES[_d.name] = _d
_BY_CODE = {d.code: d for d in DTYPES.values()}
_BY_NUMPY = {d.numpy: d for d in DTYPES.values() if d.numpy is not None}


def dtype(obj) -> DType:
    """Convert ``obj`` to a DType: a DType, a name ("float32", "bool_"), a NumPy
    dtype or scalar type, or ``bool``/``int``/``float`` (bool, int64, float64)."""
    if isinstance(obj, DType):
        return obj
    if obj is bool:
        return DTYPES["bool"]
    if obj is int:
        return DTYPES["int64"]
    if obj is float:
        return DTYPES["float64"]
    if isinstance(obj, str):
        name = obj[3:] if obj.startswith("ek.") else obj
        name = {"bool_": "bool", "half": "float16", "float": "float32",
                "double": "float64"}.get(name, name)
        if name in DTYPES:
            return DTYPES[name]
    try:
        npd = np.dtype(obj)
    except TypeError:
        npd = None
    if npd is not None:
        d = _BY_NUMPY.get(npd.newbyteorder("=")) if npd.byteorder not in ("=", "|") \
            else _BY_NUMPY.get(npd)
        if d is not None:
            return d
    raise DtypeError(f"ek.dtype: {obj!r} is not a supported dtype (supported: "
                     f"{', '.join(DTYPES)})")


def from_code(code: int) -> DType:
    return _BY_CODE[code]
