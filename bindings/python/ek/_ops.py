"""Elementwise ops: the C calls behind Tensor's operators and op methods and
behind the module-level functions (``ek.exp``, ``ek.add``, ...), and the
helpers every op module shares (operand conversion, ``out=``, streams).

Every op is one C call (``ek_unary``, ``ek_binary``, ``ek_binary_scalar``);
type promotion, broadcasting and their errors belong to
the C library. This module only turns Python operands into handles:

- a Tensor is passed as is; a Python or NumPy number goes to
  ``ek_binary_scalar`` as an ek_scalar of its kind (``_cint.scalar``: exact
  for any 64-bit integer), which only raises the tensor's category, as in
  PyTorch: ``int8_tensor + 1`` stays int8, ``bool_tensor + 2`` is int64,
  ``int_tensor * 2.0`` is float32, ``bool_tensor & True`` stays bool;
- lists and NumPy arrays become tensors on the other operand's device (Python
  floats as float32, ints as int64, arrays keep their dtype).

``out=`` writes into an existing tensor (the C call gets ``*out = out``); the
in-place forms (``x += y``, ``x.add_(y)``) are the same call with out = self.
When the promoted dtype differs from self's but casts to it within its kind
(float64 result into a float32 tensor), the result is computed and copied in,
as PyTorch does; otherwise the C library's DtypeError is raised.

The call path is kept lean (host time per tiny op is a target): the C
functions are bound once, the stream lookup is one attribute read outside
``with stream:`` blocks, and ``out`` tensors reuse a cached pointer to their
handle.
"""

from __future__ import annotations

import ctypes
import numbers

import numpy as np

from . import _ffi
from ._cint import scalar
from ._context import context
from ._errors import DtypeError, InvalidArgumentError, ShapeError, check
from ._lib import lib
from ._stream import _current_handle, _entered
from ._tensor import Tensor, _from_numpy

__all__ = ["UNARY_OPS", "BINARY_OPS", "gelu", "round", "positive", "bitwise_not", "functions",
           "install"]

_T = Tensor
_wrap = Tensor._wrap
_new_handle = _ffi.ek_tensor
_byref = ctypes.byref
_c_unary = lib.ek_unary
_c_binary = lib.ek_binary
_c_binary_scalar = lib.ek_binary_scalar

UNARY_OPS = {k[len("EK_UNARY_"):].lower(): v for k, v in _ffi.ek_unary_op_values.items()}
"""Unary op name ("exp", "gelu_tanh", ...) -> ek_unary_op value (from ek.h)."""

_BINARY_RENAME = {"floor_div": "floor_divide", "shift_left": "bitwise_left_shift",
                  "shift_right": "bitwise_right_shift"}
BINARY_OPS = {_BINARY_RENAME.get(n, n): v for n, v in
              ((k[len("EK_BINARY_"):].lower(), v) for k, v in _ffi.ek_binary_op_values.items())}
"""Binary op name ("add", "floor_divide", "bitwise_left_shift", ...) -> ek_binary_op value."""

_B = BINARY_OPS
_U = UNARY_OPS


# ------------------------------------------------------------------ call helpers

def _stream(ctx):
    """The current stream handle for ctx: None (its default stream) unless
    inside a ``with stream:`` block."""
    if _entered[0]:
        return _current_handle(ctx)
    return None


def _bad_out(out):
    raise TypeError(f"out= must be an ek.Tensor, not {type(out).__name__}")


def _op(fn, ctx, out, *args) -> Tensor:
    """``fn(stream, *args, &out)``: a new tensor of ctx, or written into out."""
    st = _stream(ctx)
    if out is None:
        h = _new_handle()
        rc = fn(st, *args, _byref(h))
        if rc:
            check(rc)
        return _wrap(h, ctx)
    if type(out) is not _T:
        _bad_out(out)
    rc = fn(st, *args, out._outp())
    if rc:
        check(rc)
    return out


def _kind(dt) -> int:
    """0 bool, 1 integer, 2 floating."""
    return 0 if dt.name == "bool" else (2 if dt.is_floating_point else 1)


def _scalar(x):
    """x as (value, kind) when it is a real Python/NumPy scalar, else None."""
    if isinstance(x, (bool, np.bool_)):
        return bool(x), 0
    if isinstance(x, (numbers.Integral, np.integer)):
        return int(x), 1
    if isinstance(x, (numbers.Real, np.floating)) and not isinstance(x, np.ndarray):
        return float(x), 2
    return None


_DEFAULT_FOR_KIND = {0: "bool", 1: "int64", 2: "float32"}


def _full0(value, dtype, ctx) -> Tensor:
    """A 0-d tensor holding value."""
    from ._creation import full
    return full((), value, dtype=dtype, device=ctx)


def _as_tensor(x, ctx) -> Tensor:
    """Data (Tensor, array, list, scalar, DLPack object) as a tensor on ctx.
    Python floats become float32 and ints int64; arrays keep their dtype.
    TypeError for what has no tensor form."""
    if type(x) is _T:
        return x
    if isinstance(x, np.ndarray):
        return _from_numpy(x, ctx)
    if hasattr(x, "__dlpack__") and not isinstance(x, (list, tuple)):
        from ._dlpack import from_dlpack
        t = from_dlpack(x)
        return t if t._ctx is ctx else t.to(ctx)
    arr = np.asarray(x)
    if arr.dtype.kind == "f" and arr.dtype == np.float64:
        arr = arr.astype(np.float32)
    elif arr.dtype.kind in "iu" and arr.dtype != np.uint8:
        arr = arr.astype(np.int64)
    elif arr.dtype.kind not in "biuf":
        raise TypeError(f"ek: cannot use {type(x).__name__} ({arr.dtype}) as a tensor operand")
    return _from_numpy(arr, ctx)


def _arg(x, like=None) -> Tensor:
    """An op's tensor argument: x itself, or x made a tensor on like's device
    (the CPU when like is None)."""
    if type(x) is _T:
        return x
    ctx = like._ctx if type(like) is _T else context("cpu")
    return _as_tensor(x, ctx)


# ------------------------------------------------------------------ unary

def _unary(op, x, out=None) -> Tensor:
    ctx = x._ctx
    st = _stream(ctx)
    if out is None:
        h = _new_handle()
        rc = _c_unary(st, op, x._h, _byref(h))
        if rc:
            check(rc)
        return _wrap(h, ctx)
    if type(out) is not _T:
        _bad_out(out)
    rc = _c_unary(st, op, x._h, out._outp())
    if rc:
        check(rc)
    return out


# ------------------------------------------------------------------ binary

def _binary(op, a, b, out=None) -> Tensor:
    """a op b; a is a Tensor, b anything (NotImplemented when b has no tensor form)."""
    ctx = a._ctx
    st = _stream(ctx)
    tb = type(b)
    if tb is _T:
        if out is None:
            h = _new_handle()
            rc = _c_binary(st, op, a._h, b._h, _byref(h))
            if rc:
                check(rc)
            return _wrap(h, ctx)
        if type(out) is not _T:
            _bad_out(out)
        rc = _c_binary(st, op, a._h, b._h, out._outp())
        if rc:
            check(rc)
        return out
    if tb is float or tb is int:
        s = scalar(b)
        if out is None:
            h = _new_handle()
            rc = _c_binary_scalar(st, op, a._h, s, 0, _byref(h))
            if rc:
                check(rc)
            return _wrap(h, ctx)
        if type(out) is not _T:
            _bad_out(out)
        rc = _c_binary_scalar(st, op, a._h, s, 0, out._outp())
        if rc:
            check(rc)
        return out
    return _binary_other(op, a, b, out, False)


def _rbinary(op, a, b, out=None) -> Tensor:
    """b op a (b the left operand, not a Tensor)."""
    return _binary_other(op, a, b, out, True)


def _binary_other(op, a, b, out, scalar_first) -> Tensor:
    ctx = a._ctx
    if _scalar(b) is not None:
        return _op(_c_binary_scalar, ctx, out, op, a._h, scalar(b), 1 if scalar_first else 0)
    try:
        b = _as_tensor(b, ctx)
    except (TypeError, ValueError):
        return NotImplemented
    if scalar_first:
        return _op(_c_binary, ctx, out, op, b._h, a._h)
    return _op(_c_binary, ctx, out, op, a._h, b._h)


def _inplace(compute, self, name):
    """Run ``compute(out=self)``; when the result dtype differs from self's but
    casts to it within its kind (or from a lower kind), compute a new tensor
    and copy it in, as PyTorch's in-place ops do."""
    try:
        return compute(self)
    except DtypeError as e:
        err = e
    try:
        r = compute(None)
    except DtypeError:
        raise err from None
    if r is NotImplemented:
        return r
    if _kind(r.dtype) > _kind(self.dtype):
        raise DtypeError(f"{name}: result type {r.dtype} can't be cast to the in-place "
                         f"target's dtype {self.dtype}", _ffi.EK_ERROR_DTYPE) from None
    if r.shape != self.shape:
        raise ShapeError(f"{name}: result shape {list(r.shape)} does not match the in-place "
                         f"target's shape {list(self.shape)}", _ffi.EK_ERROR_SHAPE) from None
    return self.copy_(r)


# ------------------------------------------------------------------ operators

def _make_binary_ops(name, op):
    # The hot path (two tensors, optional out) is inlined in each closure:
    # host time per tiny op is a target, and every Python call costs ~0.1 us.
    def method(self, other, *, out=None):
        if type(other) is _T:
            ctx = self._ctx
            st = _current_handle(ctx) if _entered[0] else None
            if out is None:
                h = _new_handle()
                rc = _c_binary(st, op, self._h, other._h, _byref(h))
                if rc:
                    check(rc)
                return _wrap(h, ctx)
            if type(out) is _T:
                p = out._p
                rc = _c_binary(st, op, self._h, other._h, p if p is not None else out._outp())
                if rc:
                    check(rc)
                return out
        r = _binary(op, self, other, out)
        if r is NotImplemented:
            raise TypeError(f"ek.{name}: unsupported operand type {type(other).__name__}")
        return r

    def inplace(self, other):
        r = _inplace(lambda o: _binary(op, self, other, o), self, f"Tensor.{name}_")
        if r is NotImplemented:
            raise TypeError(f"ek.{name}_: unsupported operand type {type(other).__name__}")
        return r

    def function(input, other, *, out=None):  # noqa: A002 - torch's name
        if type(input) is _T:
            return method(input, other, out=out)
        if type(other) is _T:
            r = _rbinary(op, other, input, out)
            if r is NotImplemented:
                raise TypeError(f"ek.{name}: unsupported operand type {type(input).__name__}")
            return r
        return method(_arg(input), other, out=out)

    if name in _FAST_FUNCTIONS:
        # ek.add(a, b, out=c) and friends: one Python frame down to the C call.
        def function(input, other, *, out=None, _slow=function):  # noqa: A002,F811
            if type(input) is _T and type(other) is _T:
                ctx = input._ctx
                st = _current_handle(ctx) if _entered[0] else None
                if out is None:
                    h = _new_handle()
                    rc = _c_binary(st, op, input._h, other._h, _byref(h))
                    if rc:
                        check(rc)
                    return _wrap(h, ctx)
                if type(out) is _T:
                    p = out._p
                    rc = _c_binary(st, op, input._h, other._h,
                                   p if p is not None else out._outp())
                    if rc:
                        check(rc)
                    return out
            return _slow(input, other, out=out)

    doc = _BINARY_DOCS.get(name, name)
    method.__doc__ = (f"{doc}, elementwise (ek_binary {name.upper()}); ``other`` is a "
                      "tensor (broadcast) or a number. Result dtype by PyTorch's promotion "
                      "rules; ``out=`` writes into an existing tensor.")
    inplace.__doc__ = f"In place: self = {doc} (``out=self``); returns self."
    function.__doc__ = (f"{doc}, elementwise: ``ek.{name}(input, other, out=None)``; either "
                        "operand may be a number.")
    _name(name, method, inplace, function)
    return method, inplace, function


_FAST_FUNCTIONS = {"add", "sub", "mul", "div", "maximum", "minimum"}


def _dunder(op, reflected=False):
    if reflected:
        def f(self, other):
            return _rbinary(op, self, other)
    else:
        def f(self, other):
            if type(other) is _T:
                ctx = self._ctx
                h = _new_handle()
                rc = _c_binary(_current_handle(ctx) if _entered[0] else None, op, self._h,
                               other._h, _byref(h))
                if rc:
                    check(rc)
                return _wrap(h, ctx)
            return _binary(op, self, other)
    return f


def _idunder(op, name):
    def f(self, other):
        return _inplace(lambda o: _binary(op, self, other, o), self, name)
    return f


def _make_unary_ops(name, op):
    def method(self, *, out=None):
        return _unary(op, self, out)

    def inplace(self):
        return _inplace(lambda o: _unary(op, self, o), self, f"Tensor.{name}_")

    def function(input, *, out=None):  # noqa: A002
        return _unary(op, _arg(input), out)

    doc = _UNARY_DOCS.get(name, f"{name}(x)")
    method.__doc__ = f"{doc}, elementwise (ek_unary {name.upper()}); ``out=`` writes into " \
                     "an existing tensor."
    inplace.__doc__ = f"In place: self = {doc}; returns self."
    function.__doc__ = f"{doc}, elementwise: ``ek.{name}(input, out=None)``."
    _name(name, method, inplace, function)
    return method, inplace, function


def _name(name, method, inplace, function) -> None:
    method.__name__, method.__qualname__ = name, f"Tensor.{name}"
    inplace.__name__, inplace.__qualname__ = name + "_", f"Tensor.{name}_"
    function.__name__ = function.__qualname__ = name


def _pow(self, other, modulo=None):
    if modulo is not None:
        return NotImplemented
    return _binary(_B["pow"], self, other)


def _rpow(self, other, modulo=None):
    if modulo is not None:
        return NotImplemented
    return _rbinary(_B["pow"], self, other)


def positive(input):  # noqa: A002
    """+x: the tensor itself (as torch.positive)."""
    return _arg(input)


_MINUS_ONE = scalar(-1)


def bitwise_not(input, *, out=None):  # noqa: A002
    """~x: logical not for bool tensors, bitwise not (x ^ -1) for integers;
    DtypeError for floats (there is no bitwise not of a float)."""
    x = _arg(input)
    k = _kind(x.dtype)
    if k == 0:
        return _unary(_U["logical_not"], x, out)
    if k == 1:
        return _op(_c_binary_scalar, x._ctx, out, _B["bitwise_xor"], x._h, _MINUS_ONE, 0)
    raise DtypeError(f"bitwise_not (~): {x.dtype} tensor; ~ is defined for integer and bool "
                     "tensors only", _ffi.EK_ERROR_DTYPE)


def _gelu_method(self, approximate: str = "none", *, out=None):
    """GELU: x * Phi(x), exact (erf) form; ``approximate="tanh"`` uses the tanh
    approximation (ek_unary GELU / GELU_TANH)."""
    return _unary(_gelu_op(approximate), self, out)


def _gelu_op(approximate):
    if approximate == "none":
        return _U["gelu"]
    if approximate == "tanh":
        return _U["gelu_tanh"]
    raise InvalidArgumentError(f"gelu: approximate must be 'none' or 'tanh', not {approximate!r}",
                               _ffi.EK_ERROR_INVALID_ARGUMENT)


def gelu(input, approximate: str = "none", *, out=None):  # noqa: A002
    """GELU elementwise, ``approximate`` "none" (erf form) or "tanh"."""
    return _unary(_gelu_op(approximate), _arg(input), out)


def _round_method(self, decimals: int = 0, *, out=None):
    """Round half to even; with ``decimals``, to that many decimal places
    (x * 10**d rounded, / 10**d, as torch.round)."""
    if decimals == 0:
        return _unary(_U["round"], self, out)
    scale = 10.0 ** decimals
    r = _unary(_U["round"], _binary(_B["mul"], self, scale))
    return _binary(_B["div"], r, scale, out)


def round(input, decimals: int = 0, *, out=None):  # noqa: A001,A002
    """Round half to even (to ``decimals`` places when given)."""
    return _round_method(_arg(input), decimals, out=out)


def _dunder_round(self, ndigits=None):
    return _round_method(self, 0 if ndigits is None else ndigits)


# ------------------------------------------------------------------ docs

_UNARY_DOCS = {
    "neg": "-x", "abs": "|x|", "sign": "sign(x) (-1, 0, 1; NaN for NaN)", "exp": "e**x",
    "exp2": "2**x", "expm1": "e**x - 1", "log": "natural logarithm", "log2": "log base 2",
    "log1p": "log(1 + x)", "sqrt": "square root", "rsqrt": "1 / sqrt(x)", "square": "x * x",
    "reciprocal": "1 / x", "sin": "sine", "cos": "cosine", "tan": "tangent",
    "tanh": "hyperbolic tangent", "sigmoid": "1 / (1 + e**-x)", "relu": "max(x, 0)",
    "gelu": "GELU, exact (erf) form", "gelu_tanh": "GELU, tanh approximation",
    "silu": "x * sigmoid(x)", "erf": "the error function", "floor": "round toward -inf",
    "ceil": "round toward +inf", "round": "round half to even", "trunc": "round toward zero",
    "logical_not": "not x (bool result)", "isnan": "x is NaN (bool result)",
    "isinf": "x is +-inf (bool result)", "isfinite": "x is finite (bool result)",
    "asin": "inverse sine", "acos": "inverse cosine", "atan": "inverse tangent",
    "sinh": "hyperbolic sine", "cosh": "hyperbolic cosine",
    "asinh": "inverse hyperbolic sine", "acosh": "inverse hyperbolic cosine",
    "atanh": "inverse hyperbolic tangent", "log10": "log base 10",
    "signbit": "x's sign bit is set (bool result; true for -0.0)",
}
_BINARY_DOCS = {
    "add": "a + b", "sub": "a - b", "mul": "a * b", "div": "a / b (true division; "
    "integers give float32)", "floor_divide": "a // b (rounds toward -inf)",
    "remainder": "a % b (sign of the divisor, as Python)", "pow": "a ** b",
    "atan2": "atan2(a, b)", "maximum": "max(a, b) (NaN propagates)",
    "minimum": "min(a, b) (NaN propagates)", "eq": "a == b", "ne": "a != b", "lt": "a < b",
    "le": "a <= b", "gt": "a > b", "ge": "a >= b", "logical_and": "a and b (bool result)",
    "logical_or": "a or b (bool result)", "logical_xor": "a xor b (bool result)",
    "bitwise_and": "a & b", "bitwise_or": "a | b", "bitwise_xor": "a ^ b",
    "bitwise_left_shift": "a << b", "bitwise_right_shift": "a >> b",
    "logaddexp": "log(e**a + e**b), computed stably", "hypot": "sqrt(a**2 + b**2)",
    "copysign": "|a| with the sign of b", "nextafter": "the next float after a toward b",
}

_UNARY_ALIASES = {"negative": "neg", "absolute": "abs", "fix": "trunc", "arcsin": "asin",
                  "arccos": "acos", "arctan": "atan", "arcsinh": "asinh", "arccosh": "acosh",
                  "arctanh": "atanh"}
_BINARY_ALIASES = {"subtract": "sub", "multiply": "mul", "divide": "div", "true_divide": "div",
                   "greater": "gt", "greater_equal": "ge", "less": "lt", "less_equal": "le",
                   "not_equal": "ne", "arctan2": "atan2"}
_NO_INPLACE = {"isnan", "isinf", "isfinite", "signbit"}

_OPERATORS = {"__add__": ("add", "+="), "__sub__": ("sub", "-="), "__mul__": ("mul", "*="),
              "__truediv__": ("div", "/="), "__floordiv__": ("floor_divide", "//="),
              "__mod__": ("remainder", "%="), "__and__": ("bitwise_and", "&="),
              "__or__": ("bitwise_or", "|="), "__xor__": ("bitwise_xor", "^="),
              "__lshift__": ("bitwise_left_shift", "<<="),
              "__rshift__": ("bitwise_right_shift", ">>=")}
_COMPARISONS = {"__eq__": "eq", "__ne__": "ne", "__lt__": "lt", "__le__": "le",
                "__gt__": "gt", "__ge__": "ge"}


def functions() -> dict:
    """The module-level functions of this module, by name (for ``ek``'s namespace)."""
    out = {}
    for name, op in UNARY_OPS.items():
        out[name] = _make_unary_ops(name, op)[2]
    for name, op in BINARY_OPS.items():
        out[name] = _make_binary_ops(name, op)[2]
    for alias, target in {**_UNARY_ALIASES, **_BINARY_ALIASES}.items():
        if target in out:
            out[alias] = out[target]
    out.update(gelu=gelu, round=round, positive=positive, bitwise_not=bitwise_not)
    return out


def install(cls) -> None:
    """Add the operators and op methods to Tensor."""
    for name, op in UNARY_OPS.items():
        method, inplace, _ = _make_unary_ops(name, op)
        setattr(cls, name, method)
        if name not in _NO_INPLACE:
            setattr(cls, name + "_", inplace)
    for name, op in BINARY_OPS.items():
        method, inplace, _ = _make_binary_ops(name, op)
        setattr(cls, name, method)
        setattr(cls, name + "_", inplace)
    for alias, target in {**_UNARY_ALIASES, **_BINARY_ALIASES}.items():
        if target is not None and hasattr(cls, target):
            setattr(cls, alias, getattr(cls, target))
            if hasattr(cls, target + "_"):
                setattr(cls, alias + "_", getattr(cls, target + "_"))
    for dunder, (name, symbol) in _OPERATORS.items():
        op = BINARY_OPS[name]
        setattr(cls, dunder, _dunder(op))
        setattr(cls, "__r" + dunder[2:], _dunder(op, reflected=True))
        setattr(cls, "__i" + dunder[2:], _idunder(op, symbol))
    for dunder, name in _COMPARISONS.items():
        setattr(cls, dunder, _dunder(BINARY_OPS[name]))
    cls.__pow__, cls.__rpow__ = _pow, _rpow
    cls.__ipow__ = _idunder(_B["pow"], "**=")
    cls.__neg__ = lambda self: _unary(_U["neg"], self)
    cls.__abs__ = lambda self: _unary(_U["abs"], self)
    cls.__pos__ = lambda self: self
    cls.__invert__ = lambda self: bitwise_not(self)
    cls.__round__ = _dunder_round
    cls.bitwise_not = bitwise_not
    cls.bitwise_not_ = lambda self: bitwise_not(self, out=self)
    cls.gelu = _gelu_method
    cls.round = _round_method
    for name in ("__neg__", "__abs__", "__pos__", "__invert__", "bitwise_not_"):
        getattr(cls, name).__doc__ = {"__neg__": "-x", "__abs__": "|x|",
                                      "__pos__": "+x: the tensor itself",
                                      "__invert__": "~x (see ek.bitwise_not)",
                                      "bitwise_not_": "In place: self = ~self"}[name]

