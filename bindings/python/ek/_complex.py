"""Complex tensors (ek.complex64, ek.complex128): ``ek.real``/``ek.imag``
(views sharing the tensor's storage, as torch.real/torch.imag) and the
``Tensor.real``/``.imag`` properties, ``ek.conj``/``.conj()``.
Arithmetic takes Python complex numbers (``x * 1j``) as EK_SCALAR_COMPLEX."""

from __future__ import annotations

from . import _capi
from ._tensor import Tensor, tensor_methods

__all__ = ["real", "imag", "conj", "is_complex"]


def real(input: Tensor) -> Tensor:  # noqa: A002
    """The real parts as a view (float32 of complex64, float64 of
    complex128); a real tensor's own view. Writing into it writes input."""
    return _capi.view_real(input)


def imag(input: Tensor) -> Tensor:  # noqa: A002
    """The imaginary parts as a view; DtypeError for a real tensor (as
    torch.imag: it has no imaginary storage)."""
    return _capi.view_imag(input)


def conj(input: Tensor, *, out: Tensor | None = None) -> Tensor:  # noqa: A002
    """The complex conjugate, a new tensor (a copy of a real one)."""
    return _capi.conj(input, out=out)


def is_complex(input: Tensor) -> bool:  # noqa: A002
    """Whether input's dtype is complex64 or complex128."""
    return input.dtype.is_complex


@tensor_methods
class ComplexMethods:
    @property
    def real(self) -> Tensor:
        """ek.real(self): a view of the real parts."""
        return _capi.view_real(self)

    @property
    def imag(self) -> Tensor:
        """ek.imag(self): a view of the imaginary parts (complex tensors only)."""
        return _capi.view_imag(self)

    def conj(self) -> Tensor:
        """ek.conj(self): the complex conjugate (a copy for real tensors)."""
        return _capi.conj(self)

    def is_complex(self) -> bool:
        """Whether the dtype is complex64 or complex128."""
        return self.dtype.is_complex
