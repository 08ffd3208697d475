"""Shared test data and PyTorch's type-promotion rules (ek.h) written out in NumPy terms."""

import numpy as np

import ek

NP_DTYPES = [ek.bool_, ek.uint8, ek.int8, ek.int16, ek.int32, ek.int64, ek.float16,
             ek.float32, ek.float64, ek.uint16, ek.uint32, ek.uint64]
INT_DTYPES = [ek.uint8, ek.int8, ek.int16, ek.int32, ek.int64]
FLOAT_DTYPES = [ek.float16, ek.float32, ek.float64]

_ORDER = {"bool": 0, "uint8": 1, "int8": 1, "int16": 2, "int32": 3, "int64": 4,
          "float16": 5, "bfloat16": 5, "float32": 6, "float64": 7}


def kind(dt):
    return 0 if dt is ek.bool_ else (2 if dt.is_floating_point else 1)


def promote(a, b):
    """The promoted dtype of two tensors (ek.h: bool < integers < floats; the
    wider within a kind; uint8 with int8 -> int16; f16 with bf16 -> f32)."""
    if a is b:
        return a
    ka, kb = kind(a), kind(b)
    if ka != kb:
        return a if ka > kb else b
    if {a.name, b.name} == {"uint8", "int8"}:
        return ek.int16
    if {a.name, b.name} == {"float16", "bfloat16"}:
        return ek.float32
    return a if _ORDER[a.name] >= _ORDER[b.name] else b


def sample(dt, shape=(3, 4), seed=0, low=None, high=None, positive=False):
    rng = np.random.default_rng(seed)
    if dt is ek.bool_:
        return rng.integers(0, 2, shape).astype(np.bool_)
    if dt.is_floating_point:
        a = rng.standard_normal(shape) * 2
        if positive:
            a = np.abs(a) + 0.1
        return a.astype(dt.numpy)
    lo = (1 if positive else 0 if not dt.is_signed else -20) if low is None else low
    hi = 20 if high is None else high
    return rng.integers(lo, hi, shape).astype(dt.numpy)


def tol(dt):
    """(rtol, atol) for comparing a computed dtype with a float64 reference."""
    if dt in (ek.float16,):
        return 2e-3, 2e-3
    if dt is ek.bfloat16:
        return 1e-2, 1e-2
    if dt is ek.float32:  # CUDA's float32 intrinsics and summation orders: a few ulp
        return 1e-5, 1e-6
    return 1e-12, 1e-12


def check(t, expected, dt=None, rtol=None, atol=None):
    """t (an ek.Tensor) equals expected (NumPy) in shape, dtype (dt) and values."""
    dt = t.dtype if dt is None else dt
    assert t.dtype is dt, (t.dtype, dt)
    got = t.astype(ek.float32).numpy() if dt is ek.bfloat16 else t.numpy()
    expected = np.asarray(expected)
    assert got.shape == expected.shape, (got.shape, expected.shape)
    if dt.is_floating_point:
        r, a = tol(dt)
        np.testing.assert_allclose(got.astype(np.float64), expected.astype(np.float64),
                                   rtol=r if rtol is None else rtol,
                                   atol=a if atol is None else atol, equal_nan=True)
    else:
        np.testing.assert_array_equal(got, expected.astype(dt.numpy))
