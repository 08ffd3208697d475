"""complex64 and complex128 (issue 18): NumPy and DLPack round trips, Python
complex scalars, .real/.imag views and conj, elementwise ops and reductions
against NumPy on contiguous, transposed and empty inputs, and the errors of
the ops that refuse complex."""

import numpy as np
import pytest

import ek

COMPLEX = [ek.complex64, ek.complex128]


def _data(dt, shape=(3, 4), seed=0):
    rng = np.random.default_rng(seed)
    return (rng.uniform(-2, 2, shape) + 1j * rng.uniform(-2, 2, shape)).astype(dt.numpy)


def _tol(dt):
    return dict(rtol=2e-5, atol=1e-6) if dt is ek.complex64 else dict(rtol=1e-12, atol=1e-13)


@pytest.mark.parametrize("dt", COMPLEX, ids=str)
def test_round_trips(dt, device):
    a = _data(dt)
    t = ek.from_numpy(a, device=device)
    assert t.dtype is dt and ek.dtype(dt.numpy) is dt and t.is_complex()
    np.testing.assert_array_equal(t.numpy(), a)
    np.testing.assert_array_equal(t.transpose(0, 1).numpy(), a.T)
    assert t[1, 2].item() == complex(a[1, 2])
    if device == "cpu":
        np.testing.assert_array_equal(np.from_dlpack(t), a)
        assert ek.from_dlpack(a).dtype is dt
    e = ek.from_numpy(np.zeros((0, 3), dt.numpy), device=device)
    assert e.numpy().shape == (0, 3)
    np.testing.assert_array_equal(ek.full((2,), 1 - 2j, dtype=dt, device=device).numpy(),
                                  np.full(2, 1 - 2j, dt.numpy))


@pytest.mark.parametrize("dt", COMPLEX, ids=str)
def test_real_imag_conj(dt, device):
    a = _data(dt)
    t = ek.from_numpy(a, device=device)
    np.testing.assert_array_equal(t.real.numpy(), a.real)
    np.testing.assert_array_equal(ek.imag(t.transpose(0, 1)).numpy(), a.T.imag)
    np.testing.assert_array_equal(ek.conj(t).numpy(), np.conj(a))
    t.imag.fill_(0.5)  # a view: writes land in t
    assert (t.numpy().imag == 0.5).all()
    r = ek.ones(3, device=device)
    np.testing.assert_array_equal(r.real.numpy(), np.ones(3, np.float32))
    np.testing.assert_array_equal(r.conj().numpy(), np.ones(3, np.float32))


@pytest.mark.parametrize("dt", COMPLEX, ids=str)
@pytest.mark.parametrize("op", ["add", "sub", "mul", "div", "pow"])
def test_binary_against_numpy(dt, op, device):
    a, b = _data(dt, seed=1), _data(dt, seed=2)
    x, y = ek.from_numpy(a, device=device), ek.from_numpy(b, device=device)
    f = {"add": np.add, "sub": np.subtract, "mul": np.multiply, "div": np.divide, "pow": np.power}[op]
    g = {"add": ek.add, "sub": ek.sub, "mul": ek.mul, "div": ek.div, "pow": ek.pow}[op]
    np.testing.assert_allclose(g(x, y).numpy(), f(a, b), **_tol(dt))
    np.testing.assert_allclose(g(x.transpose(0, 1), y.transpose(0, 1)).numpy(), f(a.T, b.T), **_tol(dt))
    np.testing.assert_allclose(g(x, y[0]).numpy(), f(a, b[0]), **_tol(dt))  # broadcast
    assert g(x[:0], y[:0]).shape == (0, 4)


@pytest.mark.parametrize("dt", COMPLEX, ids=str)
@pytest.mark.parametrize("op", ["exp", "log", "sqrt", "sin", "cos", "tan", "tanh", "sinh", "cosh",
                                "expm1", "log1p", "square", "reciprocal", "neg"])
def test_unary_against_numpy(dt, op, device):
    a = _data(dt, seed=3)
    f = {"neg": np.negative}.get(op, getattr(np, op, None))
    got = getattr(ek, op)(ek.from_numpy(a, device=device)).numpy()
    np.testing.assert_allclose(got, f(a), rtol=1e-4 if dt is ek.complex64 else 1e-11, atol=1e-5)


def test_scalars_abs_and_predicates(device):
    a = np.array([1 + 2j, -3j, np.nan + 0j, np.inf + 1j], np.complex64)
    x = ek.from_numpy(a, device=device)
    assert (x * 1j).dtype is ek.complex64
    with np.errstate(invalid="ignore"):
        np.testing.assert_array_equal((x * 1j).numpy(), a * np.complex64(1j))
    np.testing.assert_array_equal((2 - x).numpy(), 2 - a)
    assert (ek.ones(2, dtype=ek.float64, device=device) * 1j).dtype is ek.complex128
    np.testing.assert_allclose(ek.abs(x[:2]).numpy(), np.abs(a[:2]), rtol=1e-6)
    assert ek.abs(x).dtype is ek.float32
    np.testing.assert_array_equal(ek.isnan(x).numpy(), np.isnan(a))
    np.testing.assert_array_equal(ek.isinf(x).numpy(), np.isinf(a))
    np.testing.assert_array_equal((x == x).numpy(), a == a)


@pytest.mark.parametrize("dt", COMPLEX, ids=str)
def test_reductions(dt, device):
    a = _data(dt, (2, 3, 4), seed=4)
    x = ek.from_numpy(a, device=device)
    np.testing.assert_allclose(ek.sum(x).item(), a.sum(), **_tol(dt))
    np.testing.assert_allclose(ek.mean(x, dim=(0, 2), keepdim=True).numpy(),
                               a.mean(axis=(0, 2), keepdims=True), **_tol(dt))
    assert ek.sum(x).dtype is dt


@pytest.mark.parametrize("dt", COMPLEX, ids=str)
def test_prod_and_cumprod(dt, device):
    a = _data(dt, (3, 5, 4), seed=6)
    x = ek.from_numpy(a, device=device).transpose(0, 2)  # [4, 5, 3], not contiguous
    b = a.transpose(2, 1, 0)
    np.testing.assert_allclose(ek.prod(x, dim=1).numpy(), b.prod(axis=1), **_tol(dt))
    np.testing.assert_allclose(ek.prod(x, dim=(0, 2), keepdim=True).numpy(),
                               b.prod(axis=(0, 2), keepdims=True), **_tol(dt))
    np.testing.assert_allclose(ek.cumprod(x, dim=1).numpy(), b.cumprod(axis=1), **_tol(dt))
    assert ek.prod(x).dtype is dt and ek.cumprod(x, dim=0).dtype is dt
    e = ek.from_numpy(np.zeros((0, 2), dt.numpy), device=device)
    np.testing.assert_array_equal(ek.prod(e, dim=0).numpy(), np.ones(2, dt.numpy))


@pytest.mark.parametrize("dt", COMPLEX, ids=str)
def test_gemm_complex_coefficients(dt, device):
    a, b, c = _data(dt, (2, 3), seed=7), _data(dt, (3, 4), seed=8), _data(dt, (2, 4), seed=9)
    tc = ek.from_numpy(c, device=device)
    out = ek.gemm(ek.from_numpy(a, device=device), ek.from_numpy(b, device=device), tc,
                  alpha=0.5 - 1j, beta=2 + 0.25j)
    assert out is tc
    np.testing.assert_allclose(tc.numpy(), (0.5 - 1j) * (a @ b) + (2 + 0.25j) * c, **_tol(dt))
    f = ek.ones((2, 2), device=device)
    with pytest.raises(ek.DtypeError, match=r"alpha: a complex value \(\(0\+1j\)\) is not taken here"):
        ek.gemm(f, f, ek.zeros((2, 2), device=device), alpha=1j)


_SPECIAL = [0.0, -0.0, 0.5, -0.5, 1.0, -1.0, 2.0, -2.0, np.inf, -np.inf, np.nan]


@pytest.mark.parametrize("name", ["asinh", "acosh", "atanh", "asin", "acos", "atan", "sqrt", "log",
                                  "exp", "tanh"])
def test_special_values_as_numpy(name, device):
    """C99 Annex G's infinities, NaNs and signed zeros, which NumPy follows;
    tanh(+-inf + iy) keeps y's sign on its zero (the array API's 1 + 0j for
    y > 0) where NumPy takes sin(2y)'s."""
    z = np.array([complex(a, b) for a in _SPECIAL for b in _SPECIAL])
    if name == "tanh":
        z = z[~(np.isinf(z.real) & np.isfinite(z.imag))]
    got = getattr(ek, name)(ek.from_numpy(z, device=device)).numpy()
    with np.errstate(all="ignore"):
        want = getattr(np, {"asinh": "arcsinh", "acosh": "arccosh", "atanh": "arctanh", "asin": "arcsin",
                            "acos": "arccos", "atan": "arctan"}.get(name, name))(z)
    for part in ("real", "imag"):
        g, w = getattr(got, part), getattr(want, part)
        np.testing.assert_allclose(g, w, rtol=1e-13, atol=0, err_msg=f"{name} {part} of {z}")
        zero = w == 0
        np.testing.assert_array_equal(np.signbit(g[zero]), np.signbit(w[zero]), err_msg=f"{name} {part} zeros")


def test_refusals_name_the_op(device):
    x = ek.from_numpy(np.array([1 + 1j, 2], np.complex64), device=device)
    with pytest.raises(ek.DtypeError, match="max does not support complex dtypes, got complex64"):
        ek.max(x)
    with pytest.raises(ek.DtypeError, match="imaginary part"):
        x.astype(ek.float32)
    with pytest.raises(ek.DtypeError, match="complex"):
        x < x
    with pytest.raises(ek.DtypeError, match="imag needs a complex tensor"):
        ek.ones(2, device=device).imag
