"""Matrix products: ek.matmul and ``@`` (ek_matmul), ek.gemm and
Tensor.addmm_ (ek_gemm, in place), Tensor.dot."""

from __future__ import annotations

from . import _ffi
from ._cint import scalar
from ._errors import ShapeError, check
from ._lib import lib
from ._ops import _arg, _as_tensor, _op, _stream
from ._tensor import Tensor

__all__ = ["matmul", "gemm", "functions", "install"]

_T = Tensor


def matmul(input, other, *, out=None):  # noqa: A002
    """NumPy/PyTorch matmul (ek_matmul): 1-D @ 1-D is a dot product, 1-D
    operands are promoted to row/column vectors, leading dims are batch dims
    and broadcast. float16/bfloat16/float32/float64, both of one dtype."""
    a = _arg(input, other)
    b = _arg(other, a)
    return _op(lib.ek_matmul, a._ctx, out, a._h, b._h)


def _matmul_dunder(self, other):
    try:
        b = _as_tensor(other, self._ctx)
    except (TypeError, ValueError):
        return NotImplemented
    return _op(lib.ek_matmul, self._ctx, None, self._h, b._h)


def _rmatmul_dunder(self, other):
    try:
        a = _as_tensor(other, self._ctx)
    except (TypeError, ValueError):
        return NotImplemented
    return _op(lib.ek_matmul, self._ctx, None, a._h, self._h)


def _imatmul_dunder(self, other):
    r = _matmul_dunder(self, other)
    if r is NotImplemented:
        return r
    if r.shape != self.shape:
        raise ShapeError(f"@=: result shape {list(r.shape)} differs from {list(self.shape)}",
                         _ffi.EK_ERROR_SHAPE)
    return self.copy_(r)


def gemm(a, b, c, *, alpha: float = 1.0, beta: float = 0.0):
    """c = alpha * a @ b + beta * c in place on c (ek_gemm); returns c. 2-D
    a [m,k], b [k,n], c [m,n], or 3-D with a batch dim (a or b may have a batch
    of 1). beta == 0 ignores c's old values. c must not overlap a or b."""
    if type(c) is not _T:
        raise TypeError("gemm: c must be an ek.Tensor (it is written in place)")
    a = _arg(a, c)
    b = _arg(b, c)
    rc = lib.ek_gemm(_stream(c._ctx), scalar(alpha, "gemm: alpha"), a._h, b._h,
                     scalar(beta, "gemm: beta"), c._h)
    if rc:
        check(rc)
    return c


def _addmm_(self, mat1, mat2, *, beta: float = 1.0, alpha: float = 1.0):
    """In place: self = beta * self + alpha * mat1 @ mat2 (ek_gemm); returns self."""
    return gemm(mat1, mat2, self, alpha=alpha, beta=beta)


def _dot(self, other):
    """Dot product of two 1-D tensors (a 0-d tensor)."""
    return matmul(self, other)


def functions() -> dict:
    """The module-level functions of this module, by name."""
    return {"matmul": matmul, "gemm": gemm}


def _matmul_method(self, other, *, out=None):
    """self @ other (see ``ek.matmul``)."""
    return matmul(self, other, out=out)


def install(cls) -> None:
    """Add @, @=, matmul, dot and addmm_ to Tensor."""
    cls.__matmul__, cls.__rmatmul__, cls.__imatmul__ = (_matmul_dunder, _rmatmul_dunder,
                                                        _imatmul_dunder)
    cls.matmul = _matmul_method
    cls.dot = _dot
    cls.addmm_ = _addmm_
