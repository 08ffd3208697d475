"""Python numbers reach C as ek_scalar values of their own kind (bool, int64,
uint64, float64), built in one place (ek._cint.scalar): integers beyond 2**53
stay exact in binary ops, clamp bounds, axpby coefficients, arange and random
bounds, where a C double would round them."""

import fractions

import numpy as np
import pytest

import ek
from ek import _ffi
from ek._cint import scalar

B = 2**62 + 1  # not a double: 2**62 + 1 rounds to 2**62


@pytest.mark.parametrize("value, kind, field, stored", [
    (True, _ffi.EK_SCALAR_BOOL, "i", 1),
    (np.bool_(False), _ffi.EK_SCALAR_BOOL, "i", 0),
    (-7, _ffi.EK_SCALAR_INT64, "i", -7),
    (np.int8(-3), _ffi.EK_SCALAR_INT64, "i", -3),
    (-(2**63), _ffi.EK_SCALAR_INT64, "i", -(2**63)),
    (2**63 - 1, _ffi.EK_SCALAR_INT64, "i", 2**63 - 1),
    (2**63, _ffi.EK_SCALAR_UINT64, "u", 2**63),
    (np.uint64(2**64 - 1), _ffi.EK_SCALAR_UINT64, "u", 2**64 - 1),
    (2.5, _ffi.EK_SCALAR_FLOAT64, "f", 2.5),
    (np.float32(0.5), _ffi.EK_SCALAR_FLOAT64, "f", 0.5),
    (fractions.Fraction(1, 4), _ffi.EK_SCALAR_FLOAT64, "f", 0.25),
])
def test_scalar_kinds(value, kind, field, stored):
    s = scalar(value)
    assert s.kind == kind and getattr(s, field) == stored
    assert s.reserved_ == 0 and s.imag == 0.0


def test_scalar_refuses():
    for v in (2**64, -(2**63) - 1):
        with pytest.raises(OverflowError, match="clamp: min"):
            scalar(v, "clamp: min")
    for v in ("1", None, [1]):
        with pytest.raises(TypeError, match="real or complex number"):
            scalar(v)
    z = scalar(1 - 2j)  # EK_SCALAR_COMPLEX
    assert (z.f, z.imag) == (1.0, -2.0)


def test_binary_scalar_exact(device):
    x = ek.tensor([1, -1], dtype=ek.int64, device=device)
    assert (x + B).tolist() == [B + 1, B - 1]
    assert (B - x).tolist() == [B - 1, B + 1]
    assert (x * B).tolist() == [B, -B]
    assert (ek.tensor([2**53], dtype=ek.int64, device=device) == 2**53 + 1).tolist() == [False]
    assert (ek.tensor([2**53 + 1], dtype=ek.int64, device=device) - 1).item() == 2**53
    assert (x + np.int64(B)).tolist() == [B + 1, B - 1]
    y = x.clone()
    y += B
    assert y.tolist() == [B + 1, B - 1]
    with pytest.raises(OverflowError):
        x + 2**64


def test_scalar_kind_decides_the_dtype(device):
    i = ek.tensor([1, 2], dtype=ek.int32, device=device)
    b = ek.tensor([True, False], device=device)
    assert (i * 2.0).dtype is ek.float32 and (i * 2).dtype is ek.int32
    assert (b & True).dtype is ek.bool_ and (b & True).tolist() == [True, False]
    assert (b | False).tolist() == [True, False] and (True ^ b).tolist() == [False, True]
    assert (b + 2).dtype is ek.int64


def test_clamp_exact(device):
    x = ek.tensor([2**62, B + 1, 0], dtype=ek.int64, device=device)
    assert x.clamp(B, B).tolist() == [B, B, B]
    assert x.clamp(min=B).tolist() == [B, B + 1, B]
    assert x.clamp(max=B).tolist() == [2**62, B, 0]
    assert ek.tensor([1.5, 3.0], device=device).clamp(2, 2.5).tolist() == [2.0, 2.5]
    with pytest.raises(OverflowError):
        x.clamp(2**64)
    with pytest.raises(TypeError):
        x.clamp("0")


def test_axpby_and_lerp_coefficients(device):
    ones = ek.ones(2, dtype=ek.int64, device=device)
    assert ek.axpby(B, ones, 1, ek.zeros(2, dtype=ek.int64, device=device)).tolist() == [B, B]
    assert ek.axpby(2, ones, -(2**62), ones).tolist() == [2 - 2**62] * 2
    f = ek.tensor([0.0, 1.0], device=device)
    assert ek.axpby(2, f, 1, f).tolist() == [0.0, 3.0]
    assert ek.lerp(f, ek.tensor([4.0, 5.0], device=device), 1).tolist() == [4.0, 5.0]


def test_arange_exact(device):
    a = ek.arange(2**53, 2**53 + 3, device=device)
    assert a.dtype is ek.int64 and a.tolist() == [2**53, 2**53 + 1, 2**53 + 2]
    b = ek.arange(2**62, 2**62 + 3, device=device)
    assert b.shape == (3,) and b.tolist() == [2**62, B, 2**62 + 2]
    assert ek.arange(B, 2**62 - 5, -3, device=device).tolist() == [B, B - 3]
    assert ek.arange(0, 1, 0.25, device=device).tolist() == [0.0, 0.25, 0.5, 0.75]


def test_random_bounds_exact(device):
    r = ek.randint(2**62, 2**62 + 2, (64,), device=device).tolist()
    assert set(r) == {2**62, B}  # a double would make the range empty
    u = ek.empty(1000, dtype=ek.float64, device=device).uniform_(-1, 1).numpy()
    assert (u >= -1).all() and (u < 1).all()


def test_gemm_integer_coefficients(device):
    a = ek.tensor([[1.0, 2.0]], dtype=ek.float64, device=device)
    b = ek.tensor([[3.0], [4.0]], dtype=ek.float64, device=device)
    c = ek.tensor([[1.0]], dtype=ek.float64, device=device)
    assert ek.gemm(a, b, c, alpha=2, beta=1).tolist() == [[23.0]]
    assert ek.gemm(a, b, c, alpha=0.5, beta=0).tolist() == [[5.5]]


def test_fill_and_masked_fill_exact(device):
    x = ek.zeros(3, dtype=ek.int64, device=device)
    x.fill_(B)
    assert x.tolist() == [B] * 3
    m = ek.tensor([True, False, True], device=device)
    assert x.masked_fill(m, -B).tolist() == [-B, B, -B]
