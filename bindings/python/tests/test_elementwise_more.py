"""Issue 18's elementwise ops (asin ... signbit, logaddexp, hypot, copysign,
nextafter) and value fixes (floor_divide/remainder signs, sign(nan), float64
data, arange near 2**53) against NumPy."""

import math

import numpy as np
import pytest

import ek

UNARY = {"asin": np.arcsin, "acos": np.arccos, "atan": np.arctan, "sinh": np.sinh,
         "cosh": np.cosh, "asinh": np.arcsinh, "acosh": np.arccosh, "atanh": np.arctanh,
         "log10": np.log10}
BINARY = {"logaddexp": np.logaddexp, "hypot": np.hypot, "copysign": np.copysign,
          "nextafter": np.nextafter}
TOL = {"float16": 1e-3, "float32": 2e-6, "float64": 1e-14}

X = np.array([-3.5, -1.0, -0.75, -0.0, 0.0, 0.2, 0.5, 0.99, 1.0, 1.5, 2.0, 8.5, -np.inf,
              np.inf, np.nan, 1e-3, 100.0])


def _np(t):
    return t.numpy()


def _same(got, want):
    """Equal arrays, NaN matching NaN and zeros matching in sign."""
    np.testing.assert_array_equal(np.signbit(got[~np.isnan(want)]), np.signbit(want[~np.isnan(want)]))
    np.testing.assert_array_equal(got, want)


def test_numpy_names_and_in_place(device):
    t = ek.tensor([0.25, -0.5], dtype=ek.float64, device=device)
    np.testing.assert_array_equal(_np(ek.arcsin(t)), _np(ek.asin(t)))
    np.testing.assert_allclose(_np(t.arctanh()), np.arctanh([0.25, -0.5]), rtol=1e-15)
    u = ek.tensor([0.25, -0.5], dtype=ek.float64, device=device)
    assert u.atan_() is u
    np.testing.assert_allclose(_np(u), np.arctan([0.25, -0.5]), rtol=1e-15)


def test_signbit(device):
    x = np.array([-0.0, 0.0, -np.nan, np.nan, -np.inf, np.inf, -2.0, 3.0], dtype=np.float32)
    got = ek.signbit(ek.tensor(x, device=device))
    assert got.dtype == ek.bool_
    np.testing.assert_array_equal(_np(got), np.signbit(x))
    i = ek.tensor([-3, 0, 4], dtype=ek.int32, device=device)
    np.testing.assert_array_equal(_np(i.signbit()), [True, False, False])
    assert not hasattr(i, "signbit_")


def test_nextafter_float16_steps_its_own_ulp(device):
    a = ek.tensor([1.0, 1.0, 0.0, 65504.0], dtype=ek.float16, device=device)
    got = _np(ek.nextafter(a, 2.0))
    want = np.nextafter(np.float16([1.0, 1.0, 0.0, 65504.0]), np.float16(2.0))
    np.testing.assert_array_equal(got, want)
    assert got[0] == np.float16(1.0009765625)  # a float32 ulp would round back to 1


def test_binary_ops_of_integers_give_float32(device):
    a = ek.tensor([1, -2, 3], device=device)
    b = ek.tensor([2, 2, -1], device=device)
    for name, f in BINARY.items():
        got = getattr(ek, name)(a, b)
        assert got.dtype == ek.float32, name
        _same(_np(got), f(np.float32([1, -2, 3]), np.float32([2, 2, -1])))


def test_logaddexp_infinities_as_numpy(device):
    a = np.array([np.inf, -np.inf, np.inf, -np.inf, np.nan, 0.0])
    b = np.array([np.inf, -np.inf, -np.inf, np.inf, 1.0, -np.inf])
    got = _np(ek.logaddexp(ek.tensor(a, dtype=ek.float64, device=device), ek.tensor(b, dtype=ek.float64, device=device)))
    with np.errstate(all="ignore"):
        _same(got, np.logaddexp(a, b))


def test_empty_and_non_contiguous(device):
    e = ek.empty(0, 3, device=device)
    for name in list(UNARY) + ["signbit"]:
        assert getattr(ek, name)(e).shape == (0, 3)
    for name in BINARY:
        assert getattr(ek, name)(e, ek.ones(3, device=device)).shape == (0, 3)
    rng = np.random.default_rng(1)
    base = rng.uniform(-0.99, 0.99, (6, 8))
    other = rng.uniform(-3, 3, (8, 12))
    t = ek.tensor(base, dtype=ek.float64, device=device).transpose(0, 1)  # [8, 6], strided
    s = ek.tensor(other, dtype=ek.float64, device=device)[:, ::2]
    assert not t.is_contiguous() and not s.is_contiguous()
    with np.errstate(all="ignore"):
        for name, f in UNARY.items():
            np.testing.assert_allclose(_np(getattr(ek, name)(t)), f(base.T), rtol=1e-14)
        for name, f in BINARY.items():
            np.testing.assert_allclose(_np(getattr(ek, name)(t, s)), f(base.T, other[:, ::2]), rtol=1e-14)


# --------------------------------------------------------------------- fixes

def test_floor_divide_and_remainder_signs(device):
    x = np.array([-np.inf, -7.0, -0.0, 0.0, 7.0, np.inf])
    a, b = np.meshgrid(x, x, indexing="ij")
    a, b = a.ravel(), b.ravel()
    ta = ek.tensor(a, dtype=ek.float64, device=device)
    tb = ek.tensor(b, dtype=ek.float64, device=device)
    with np.errstate(all="ignore"):
        _same(_np(ek.remainder(ta, tb)), np.remainder(a, b))
        want = np.floor_divide(a, b)
        # The array API standard where an operand is infinite (NumPy: NaN, -1.0).
        inf = (np.isinf(a) | np.isinf(b)) & (b != 0)
        want[inf] = a[inf] / b[inf]
        _same(_np(ek.floor_divide(ta, tb)), want)
    one = ek.tensor([1.0], dtype=ek.float64, device=device)
    assert ek.floor_divide(ek.tensor([math.inf], device=device), 1.0).item() == math.inf
    assert math.copysign(1, ek.floor_divide(one, -math.inf).item()) == -1.0
    assert ek.floor_divide(one, -math.inf).item() == 0.0
    assert math.copysign(1, ek.remainder(ek.tensor([-0.0], device=device), 1.0).item()) == 1.0
    assert math.copysign(1, ek.remainder(ek.tensor([0.0], device=device), -1.0).item()) == -1.0


def test_sign_of_nan_is_nan(device):
    got = _np(ek.sign(ek.tensor([math.nan, -2.0, 0.0, 3.0], device=device)))
    assert math.isnan(got[0])
    np.testing.assert_array_equal(got[1:], [-1.0, 0.0, 1.0])


def test_float64_data_is_not_rounded_to_float32(device):
    assert ek.tensor(0.1, dtype=ek.float64, device=device).item() == 0.1
    assert ek.tensor([0.1, 1 / 3], dtype=ek.float64, device=device).tolist() == [0.1, 1 / 3]
    assert ek.tensor(0.1, device=device).dtype == ek.float32  # the default stays float32
    assert ek.tensor([[0.1]], dtype="float64", device=device).item() == 0.1


@pytest.mark.parametrize("start", [2**53, 2**62])
def test_arange_beyond_2_53_has_exact_length(device, start):
    t = ek.arange(start, start + 3, device=device)
    assert t.shape == (3,)
    assert t.tolist() == [start, start + 1, start + 2]


def test_bad_input_names_the_function(device):
    with pytest.raises(ek.ShapeError, match="ek_binary"):
        ek.hypot(ek.ones(3, device=device), ek.ones(2, device=device))
    with pytest.raises(ek.ShapeError, match="ek_unary"):
        ek.asin(ek.ones(3, device=device), out=ek.empty(4, device=device))
