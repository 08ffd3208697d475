"""Random numbers: ek.manual_seed, rand, randn, randint, bernoulli and the
in-place fills (uniform_, normal_, random_, bernoulli_), all through
ek_random (counter-based Philox4x32-10: the same seed gives the same values
on the CPU and on CUDA, and in every language binding).

Each context has its own generator; ``ek.manual_seed(seed)`` seeds every
context, existing and created later, as ``torch.manual_seed`` seeds every
device. Each fill advances the context's offset by the tensor's element count.
"""

from __future__ import annotations

import numpy as np

from . import _context, _ffi
from ._cint import scalar
from ._context import context
from ._dtype import DTYPES, dtype as _as_dtype
from ._errors import InvalidArgumentError, check
from ._lib import lib
from ._core import _arg, _stream
from ._tensor import Tensor, _empty, _shape_args, tensor_methods

__all__ = ["manual_seed", "random_state", "rand", "randn", "normal", "randint", "bernoulli",
           "rand_like", "randn_like", "randint_like"]

_D = {k[len("EK_RANDOM_"):].lower(): v for k, v in _ffi.ek_random_dist_values.items()}


def manual_seed(seed: int, device=None) -> None:
    """Seed the random generators: every context's (existing ones and those
    created later) when device is None, else that device's default context's.
    The offset restarts at 0, so ``manual_seed(0); randn(3)`` gives the same
    numbers on every device and in every binding."""
    seed = _context.seed64(seed)
    if device is not None:
        context(device).manual_seed(seed)
        return
    _context._seed[0] = seed
    for ctx in list(_context._all_contexts):
        if not ctx.closed:
            ctx.manual_seed(seed)


def random_state(device="cpu") -> tuple:
    """(seed, offset) of a device's default context's generator."""
    return context(device).random_state()


def _fill(t: Tensor, dist: str, a, b) -> Tensor:
    """ek_random with parameters a and b as exact scalars (randint's integer
    bounds beyond 2**53 included)."""
    check(lib.ek_random(_stream(t._ctx), _D[dist], scalar(a, dist), scalar(b, dist), None, t._h))
    return t


def _new(size, dtype, default, device) -> Tensor:
    dt = DTYPES[default] if dtype is None else _as_dtype(dtype)
    return _empty(_shape_args(size), dt, context(device))


def rand(*size, dtype=None, device="cpu") -> Tensor:
    """Uniform on [0, 1) (float dtype, default float32)."""
    return _fill(_new(size, dtype, "float32", device), "uniform", 0.0, 1.0)


def randn(*size, dtype=None, device="cpu") -> Tensor:
    """Standard normal (float dtype, default float32)."""
    return _fill(_new(size, dtype, "float32", device), "normal", 0.0, 1.0)


def normal(mean: float = 0.0, std: float = 1.0, size=(), *, dtype=None,
           device="cpu") -> Tensor:
    """Normal numbers with a given mean and standard deviation (float dtype,
    default float32), drawn in one ek_random call: ``ek.normal(0, 0.1, (64,
    128))`` gives the same bits as the C API's ek_random(NORMAL, 0, 0.1)."""
    return _fill(_new((size,), dtype, "float32", device), "normal", mean, std)


def randint(*args, size=None, dtype=None, device="cpu") -> Tensor:
    """Integers uniform on [low, high): ``randint(high, size)``,
    ``randint(low, high, size)`` (size a tuple; dtype default int64)."""
    if size is None and args and not isinstance(args[-1], (int, np.integer)):
        args, size = args[:-1], args[-1]
    if len(args) == 1:
        low, high = 0, args[0]
    elif len(args) == 2:
        low, high = args
    else:
        raise TypeError("randint(high, size) or randint(low, high, size)")
    if size is None:
        raise TypeError("randint: size is required")
    return _fill(_new((size,), dtype, "int64", device), "randint", low, high)


def bernoulli(input, p=None, *, size=None, dtype=None, device=None) -> Tensor:  # noqa: A002
    """0/1 draws. ``bernoulli(probs)`` with a tensor of probabilities: one draw
    per element, in probs' dtype (as torch.bernoulli); ``bernoulli(t, p)``:
    t's shape, dtype and device with probability p; ``bernoulli(p, size=...)``
    with a number p: a new tensor (dtype default float32, bool allowed)."""
    if isinstance(input, Tensor):
        if p is None:
            u = rand(input.shape, dtype=input.dtype if input.dtype.is_floating_point else None,
                     device=input._ctx)
            r = u < input
            return r if dtype is None and input.dtype.name == "bool" else \
                r.astype(input.dtype if dtype is None else dtype)
        t = _empty(input.shape, input.dtype if dtype is None else _as_dtype(dtype),
                   input._ctx if device is None else context(device))
        return _fill(t, "bernoulli", p, 0.0)
    if p is not None:
        raise TypeError("bernoulli(p, size=...): p given twice")
    return _fill(_new((() if size is None else size,), dtype, "float32",
                      "cpu" if device is None else device), "bernoulli", input, 0.0)


def rand_like(t, *, dtype=None, device=None) -> Tensor:
    """rand with t's shape (and dtype/device unless given)."""
    t = _arg(t)
    return rand(t.shape, dtype=dtype or t.dtype, device=device or t._ctx)


def randn_like(t, *, dtype=None, device=None) -> Tensor:
    """randn with t's shape (and dtype/device unless given)."""
    t = _arg(t)
    return randn(t.shape, dtype=dtype or t.dtype, device=device or t._ctx)


def randint_like(t, low=0, high=None, *, dtype=None, device=None) -> Tensor:
    """randint with t's shape (and dtype/device unless given): ``randint_like(t,
    high)`` or ``randint_like(t, low, high)``."""
    t = _arg(t)
    if high is None:
        low, high = 0, low
    return randint(low, high, t.shape, dtype=dtype or t.dtype, device=device or t._ctx)


@tensor_methods
class RandomMethods:
    def uniform_(self, low: float = 0.0, high: float = 1.0):
        """Fill with numbers uniform on [low, high) (float tensors); returns self."""
        return _fill(self, "uniform", low, high)

    def normal_(self, mean: float = 0.0, std: float = 1.0):
        """Fill with normal numbers (float tensors); returns self."""
        return _fill(self, "normal", mean, std)

    def random_(self, low: int = 0, high: int | None = None):
        """Fill with integers uniform on [low, high) (``random_(high)`` is [0, high));
        returns self."""
        if high is None:
            if low == 0:
                raise InvalidArgumentError("random_: give high (integers on [0, high))")
            low, high = 0, low
        return _fill(self, "randint", low, high)

    def bernoulli_(self, p: float = 0.5):
        """Fill with 1 (probability p) or 0; returns self."""
        return _fill(self, "bernoulli", p, 0.0)

    bernoulli = bernoulli
