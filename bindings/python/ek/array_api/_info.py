"""__array_namespace_info__(): what this namespace supports, per device."""

from __future__ import annotations

import ek
from .._dtype import DTYPES
from . import _dtypes

__all__ = ["__array_namespace_info__"]



class Info:
    """The standard's inspection object (``__array_namespace_info__()``)."""

    def capabilities(self) -> dict:
        """Boolean-mask indexing and data-dependent shapes (nonzero, unique)
        are supported; arrays have at most EK_MAX_DIMS (8) dims."""
        return {"boolean indexing": True, "data-dependent shapes": True, "max dimensions": 8}

    def default_device(self) -> str:
        return "cpu"

    def devices(self) -> list:
        """"cpu", then "cuda:0" … for each CUDA device present."""
        return ["cpu"] + [f"cuda:{i}" for i in range(ek.device_count("cuda"))]

    def default_dtypes(self, *, device=None) -> dict:
        """The same on every device: float32 (as PyTorch), complex64, int64."""
        self._check(device)
        out = {"real floating": DTYPES["float32"], "integral": DTYPES["int64"],
               "indexing": DTYPES["int64"]}
        if "complex64" in DTYPES:
            out["complex floating"] = DTYPES["complex64"]
        return out

    def dtypes(self, *, device=None, kind=None) -> dict:
        """The standard's dtypes of this build, by name, filtered by kind (a
        kind name or a tuple, as isdtype)."""
        self._check(device)
        std = {n: DTYPES[n] for n in _dtypes.STANDARD_NAMES if n in DTYPES}
        if kind is None:
            return std
        return {n: d for n, d in std.items() if _dtypes.isdtype(d, kind)}

    def _check(self, device):
        if device is not None and str(device) not in self.devices():
            raise ValueError(f"ek.array_api: device {device!r} is not one of {self.devices()}")


def __array_namespace_info__() -> Info:
    """The namespace's inspection object."""
    return Info()
