"""The Python array API standard's array attributes that Tensor's
PyTorch-style interface lacks: __array_namespace__, mT, to_device,
__index__ and __complex__ (the namespace itself is ek.array_api)."""

from __future__ import annotations

from ._errors import DtypeError
from ._stream import Stream
from ._tensor import Tensor, tensor_methods

__all__ = []


@tensor_methods
class ArrayApiMethods:
    def __array_namespace__(self, *, api_version=None):
        """The array API namespace of this tensor: ek.array_api (api_version
        None, "2023.12" or "2024.12"; ValueError otherwise)."""
        from . import array_api
        if api_version is not None and api_version not in array_api.SUPPORTED_VERSIONS:
            raise ValueError(f"Tensor.__array_namespace__: api_version {api_version!r} is not "
                             f"supported (one of {', '.join(array_api.SUPPORTED_VERSIONS)})")
        return array_api

    @property
    def mT(self) -> Tensor:
        """A view with the last two dims swapped (a stack of matrices transposed)."""
        if self.ndim < 2:
            raise ValueError(f"Tensor.mT: needs at least 2 dims, the tensor has {self.ndim}")
        return self.transpose(-2, -1)

    def to_device(self, device, /, *, stream=None) -> Tensor:
        """This tensor on device ("cpu", "cuda:N" or a Context): self when
        already there, else a copy, made on ``stream`` (an ek.Stream) when
        given, else on the current stream."""
        if stream is None:
            return self.to(device)
        if not isinstance(stream, Stream):
            raise TypeError(f"Tensor.to_device: stream must be an ek.Stream, not "
                            f"{type(stream).__name__}")
        with stream:
            return self.to(device)

    def __index__(self) -> int:
        if not self.dtype.name.startswith(("int", "uint")) or self.ndim != 0:
            raise TypeError(f"Tensor.__index__: needs a 0-d integer tensor, not a "
                            f"{self.ndim}-d {self.dtype.name} one")
        return int(self.item())

    def __complex__(self) -> complex:
        if self.numel() != 1:
            raise DtypeError(f"Tensor.__complex__: the tensor has {self.numel()} elements, not 1")
        return complex(self.item())
