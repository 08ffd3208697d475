"""The elementwise and matrix ops whose Python forms are more than the C call
(the rest is generated in _ops.py and _capi.py): gelu(approximate=),
round(decimals=), positive, bitwise_not (~), where with number operands,
clamp/lerp with tensor bounds or weights, axpby, matmul (@) and gemm."""

from __future__ import annotations

import numbers

import numpy as np

from . import _capi, _ffi
from ._cint import scalar
from ._core import _T, _arg, _as_tensor, _binary, _is_number, _stream, _unary
from ._dtype import DTYPES
from ._errors import DtypeError, InvalidArgumentError, ShapeError, check
from ._lib import lib
from ._tensor import tensor_methods

__all__ = ["gelu", "round", "positive", "bitwise_not", "where", "clamp", "clip", "lerp",
           "axpby", "matmul", "gemm"]

_U = {k[len("EK_UNARY_"):].lower(): v for k, v in _ffi.ek_unary_op_values.items()}
_B = {k[len("EK_BINARY_"):].lower(): v for k, v in _ffi.ek_binary_op_values.items()}


def _kind(dt) -> int:
    """0 bool, 1 integer, 2 floating."""
    return 0 if dt.name == "bool" else (2 if dt.is_floating_point else 1)


def gelu(input, approximate: str = "none", *, out=None):  # noqa: A002
    """GELU elementwise: x * Phi(x), ``approximate`` "none" (the erf form) or
    "tanh" (ek_unary GELU / GELU_TANH)."""
    if approximate not in ("none", "tanh"):
        raise InvalidArgumentError(f"gelu: approximate must be 'none' or 'tanh', not "
                                   f"{approximate!r}")
    return _unary(_U["gelu" if approximate == "none" else "gelu_tanh"], input, out)


def round(input, decimals: int = 0, *, out=None):  # noqa: A001,A002
    """Round half to even; with ``decimals``, to that many decimal places
    (x * 10**d rounded, / 10**d, as torch.round)."""
    if decimals == 0:
        return _unary(_U["round"], input, out)
    scale = 10.0 ** decimals
    r = _unary(_U["round"], _binary(_B["mul"], _arg(input), scale), None)
    return _binary(_B["div"], r, scale, out)


def positive(input):  # noqa: A002
    """+x: the tensor itself (as torch.positive)."""
    return _arg(input)


def bitwise_not(input, *, out=None):  # noqa: A002
    """~x: logical not for bool tensors, bitwise not (x ^ -1) for integers;
    DtypeError for floats."""
    x = _arg(input)
    k = _kind(x.dtype)
    if k == 0:
        return _unary(_U["logical_not"], x, out)
    if k == 1:
        return _binary(_B["bitwise_xor"], x, -1, out)
    raise DtypeError(f"bitwise_not (~): {x.dtype} tensor; ~ is defined for integer and bool "
                     "tensors only")


def _operand(v, other, ctx):
    """where()'s and lerp's operands: a number takes the other operand's dtype
    when its kind allows (where(c, x_f16, 0.0) stays float16), else bool,
    int64 or float32."""
    if not _is_number(v):
        return _as_tensor(v, ctx)
    kind = 0 if isinstance(v, (bool, np.bool_)) else \
        1 if isinstance(v, (numbers.Integral, np.integer)) else 2
    dt = DTYPES[("bool", "int64", "float32")[kind]]
    if type(other) is _T and kind <= _kind(other.dtype):
        dt = other.dtype
    from ._creation import full
    return full((), v, dtype=dt, device=ctx)


def where(condition, input=None, other=None, *, out=None):  # noqa: A002
    """``input`` where ``condition`` is true (nonzero), else ``other``
    (ek_where), all three broadcast, the result in input's and other's
    promoted dtype; either may be a number. ``where(condition)`` alone is
    ``nonzero(condition, as_tuple=True)``."""
    if input is None and other is None:
        from ._indexing import nonzero
        return nonzero(condition, as_tuple=True)
    like = condition if type(condition) is _T else (input if type(input) is _T else other)
    cond = _arg(condition, like)
    a = _operand(input, other, cond._ctx)
    return _capi.where(cond, a, _operand(other, a, cond._ctx), out=out)


def clamp(input, min=None, max=None, *, out=None):  # noqa: A001,A002
    """Limit values to [min, max] (either or both may be None; neither
    returns a copy of input). Number bounds use
    ek_clamp (result in input's dtype); tensor bounds broadcast
    (``maximum``/``minimum``)."""
    x = _arg(input)
    if type(min) is _T or type(max) is _T:
        r = x if min is None else _binary(_B["maximum"], x, min)
        return _binary(_B["minimum"], r, max, out) if max is not None else \
            (r if out is None else out.copy_(r))
    if min is None and max is None:  # no bound: a copy (array API clip; any dtype)
        return x.clone() if out is None else out.copy_(x)
    return _capi.clamp(x, min, max, out=out)


clip = clamp


def lerp(input, end, weight, *, out=None):  # noqa: A002
    """input + weight * (end - input) (ek_lerp, float tensors; PyTorch's
    formula). ``end`` may be a number; a tensor ``weight`` broadcasts
    (computed with elementwise ops)."""
    start = _arg(input, end)
    end = _operand(end, start, start._ctx)
    if type(weight) is _T:
        r = _binary(_B["mul"], weight, _binary(_B["sub"], end, start))
        return _binary(_B["add"], start, r, out)
    return _capi.lerp(start, end, weight, out=out)


def axpby(alpha, x, beta, y, *, out=None):
    """alpha * x + beta * y in one pass (ek_axpby); ``out=y`` accumulates in
    place. Broadcast and promotion as ``+``."""
    return _capi.axpby(alpha, _arg(x, y), beta, y, out=out)


def matmul(input, other, *, out=None):  # noqa: A002
    """NumPy/PyTorch matmul (ek_matmul): 1-D @ 1-D is a dot product, 1-D
    operands are promoted to row/column vectors, leading dims are batch dims
    and broadcast. Floats and integers (wrapping); mixed dtypes promote."""
    return _capi.matmul(_arg(input, other), other, out=out)


def gemm(a, b, c, *, alpha: complex = 1.0, beta: complex = 0.0):
    """c = alpha * a @ b + beta * c in place on c (ek_gemm); returns c. 2-D
    a [m,k], b [k,n], c [m,n], or 3-D with a batch dim (a or b may have a batch
    of 1). beta == 0 ignores c's old values. c must not overlap a or b. alpha
    and beta may be complex (Python complex) only when c is complex64 or
    complex128; a real c refuses them (DtypeError)."""
    if type(c) is not _T:
        raise TypeError("gemm: c must be an ek.Tensor (it is written in place)")
    a, b = _arg(a, c), _arg(b, c)
    check(lib.ek_gemm(_stream(c._ctx), scalar(alpha, "gemm: alpha"), a._h, b._h,
                      scalar(beta, "gemm: beta"), c._h))
    return c


@tensor_methods
class ElementwiseMethods:
    gelu, round, bitwise_not, clamp, clip, lerp, matmul, dot = (gelu, round, bitwise_not, clamp,
                                                                clamp, lerp, matmul, matmul)
    __invert__ = bitwise_not

    def __round__(self, ndigits=None):
        return round(self, ndigits or 0)

    def bitwise_not_(self):
        """In place: self = ~self; returns self."""
        return bitwise_not(self, out=self)

    def __pos__(self):
        return self

    def where(self, condition, other, *, out=None):
        """self where condition, else other (``ek.where(condition, self, other)``)."""
        return where(condition, self, other, out=out)

    def clamp_(self, min=None, max=None):  # noqa: A002
        """In place: self = clamp(self, min, max); returns self."""
        return clamp(self, min, max, out=self)

    clip_ = clamp_

    def lerp_(self, end, weight):
        """In place: self = lerp(self, end, weight); returns self."""
        return lerp(self, end, weight, out=self)

    def __matmul__(self, other, reflected=False):
        try:
            other = _as_tensor(other, self._ctx)
        except (TypeError, ValueError):
            return NotImplemented
        return matmul(other, self) if reflected else matmul(self, other)

    def __rmatmul__(self, other):
        return self.__matmul__(other, reflected=True)

    def __imatmul__(self, other):
        r = matmul(self, other)
        if r.shape != self.shape:
            raise ShapeError(f"@=: result shape {list(r.shape)} differs from {list(self.shape)}")
        return self.copy_(r)

    def addmm_(self, mat1, mat2, *, beta: float = 1.0, alpha: float = 1.0):
        """In place: self = beta * self + alpha * mat1 @ mat2 (ek_gemm); returns self."""
        return gemm(mat1, mat2, self, alpha=alpha, beta=beta)
