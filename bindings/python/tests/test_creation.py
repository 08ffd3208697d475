"""ek.full, linspace, eye, tril, triu (and Tensor.tril/triu) against NumPy."""

import numpy as np
import pytest

import ek
from ek_helpers import NP_DTYPES


def test_full_every_dtype_and_exact_ints(device):
    for dt in NP_DTYPES:
        v = True if dt is ek.bool_ else 5
        t = ek.full((2, 3), v, dtype=dt, device=device)
        assert t.dtype is dt
        np.testing.assert_array_equal(t.numpy(), np.full((2, 3), v, dtype=dt.numpy))
    big = 2**62 + 1
    assert ek.full(3, big, device=device).tolist() == [big] * 3  # int64, exact
    assert ek.full((), 2.5, device=device).item() == 2.5
    assert ek.full((0, 4), 1, device=device).shape == (0, 4)
    assert ek.zeros(2, 2, dtype=ek.int8, device=device).tolist() == [[0, 0], [0, 0]]
    assert ek.ones_like(ek.zeros(3, device=device)).tolist() == [1.0] * 3


def test_full_rejects_a_value_outside_the_dtype(device):
    with pytest.raises(ek.InvalidArgumentError, match=r"ek_full: value 300 .*int8"):
        ek.full((2,), 300, dtype=ek.int8, device=device)
    with pytest.raises(ek.ShapeError, match="ek_full: negative size -2"):
        ek.full((3, -2), 0.0, device=device)


@pytest.mark.parametrize("args", [(0.0, 1.0, 5, True), (0.18, -0.59, 8, True), (0.18, -0.59, 8, False),
                                  (3, 9, 1, True), (3, 9, 0, True), (-2.5, 7.25, 13, False)])
def test_linspace_matches_numpy(device, args):
    start, stop, num, endpoint = args
    got = ek.linspace(start, stop, num, endpoint=endpoint, dtype=ek.float64, device=device)
    want = np.linspace(start, stop, num, endpoint=endpoint)
    assert got.shape == (num,)
    assert got.numpy().tolist() == want.tolist()  # bit for bit


def test_linspace_dtypes(device):
    assert ek.linspace(0, 1, 3, device=device).dtype is ek.float32
    for dt in (ek.int8, ek.int32, ek.int64, ek.uint8, ek.int16):
        got = ek.linspace(-1 if dt is not ek.uint8 else 0, 10, 7, dtype=dt, device=device)
        want = np.linspace(-1 if dt is not ek.uint8 else 0, 10, 7, dtype=dt.numpy)
        assert got.tolist() == want.tolist(), dt  # floored, as NumPy 2
    assert ek.linspace(0, 1, 3, dtype=ek.bool_, device=device).tolist() == [False, True, True]
    assert ek.linspace(0, 4, 5, dtype=ek.float16, device=device).tolist() == [0, 1, 2, 3, 4]


def test_linspace_rejects_bad_input(device):
    with pytest.raises(ek.InvalidArgumentError, match="ek_linspace: .*num must be >= 0"):
        ek.linspace(0, 1, -1, device=device)
    with pytest.raises(ek.InvalidArgumentError, match="element 3 is 300, outside int8"):
        ek.linspace(0, 300, 4, dtype=ek.int8, device=device)
    with pytest.raises(OverflowError, match="linspace: num"):
        ek.linspace(0, 1, 2**64, device=device)


@pytest.mark.parametrize("n,m,k", [(3, None, 0), (3, 5, 1), (5, 2, -1), (4, 4, 7), (4, 4, -9),
                                   (0, 3, 0), (3, 0, 0), (2, 3, 2**63 - 1), (2, 3, -2**63)])
def test_eye_matches_numpy(device, n, m, k):
    got = ek.eye(n, m, k=k, device=device)
    assert got.dtype is ek.float32
    np.testing.assert_array_equal(got.numpy(), np.eye(n, m, k=k, dtype=np.float32))


def test_eye_dtypes_and_errors(device):
    for dt in NP_DTYPES:
        np.testing.assert_array_equal(ek.eye(2, 3, k=1, dtype=dt, device=device).numpy(),
                                      np.eye(2, 3, k=1, dtype=dt.numpy))
    with pytest.raises(ek.ShapeError, match="ek_eye: n and m must be >= 0, not n = -1"):
        ek.eye(-1, device=device)


@pytest.mark.parametrize("k", [-4, -1, 0, 1, 2, 5, 2**63 - 1, -2**63])
def test_tril_triu_match_numpy(device, k):
    a = np.arange(1, 2 * 3 * 4 + 1, dtype=np.float32).reshape(2, 3, 4)
    x = ek.from_numpy(a, device=device)
    nk = max(-10, min(k, 10))  # numpy's tri overflows for |k| near 2**63; same triangles
    np.testing.assert_array_equal(ek.tril(x, k).numpy(), np.tril(a, nk))
    np.testing.assert_array_equal(ek.triu(x, k).numpy(), np.triu(a, nk))
    np.testing.assert_array_equal(x.tril(k).numpy(), np.tril(a, nk))
    np.testing.assert_array_equal(x.triu(k).numpy(), np.triu(a, nk))


def test_tril_triu_dtypes_strides_in_place(device):
    for dt in NP_DTYPES:
        a = (np.arange(30).reshape(5, 6) % 7).astype(dt.numpy)
        x = ek.from_numpy(a, device=device)
        np.testing.assert_array_equal(ek.triu(x, -1).numpy(), np.triu(a, -1))
    a = np.arange(48, dtype=np.int32).reshape(4, 12)
    x = ek.from_numpy(a, device=device)
    v = x[:, ::3].T  # non-contiguous [4, 4]
    np.testing.assert_array_equal(v.tril().numpy(), np.tril(a[:, ::3].T))
    assert v.tril_(1) is v  # in place: only the view's elements change
    want = a.copy()
    want[:, ::3] = np.tril(a[:, ::3].T, 1).T
    np.testing.assert_array_equal(x.numpy(), want)
    out = ek.empty(4, 4, dtype=ek.int32, device=device)
    assert ek.triu(v, out=out) is out
    np.testing.assert_array_equal(out.numpy(), np.triu(want[:, ::3].T))
    assert ek.tril(ek.zeros(0, 3, device=device)).shape == (0, 3)


def test_tril_rejects_bad_input(device):
    with pytest.raises(ek.ShapeError, match=r"ek_tril: x must have at least 2 dims.*\[4\]"):
        ek.tril(ek.zeros(4, device=device))
    x = ek.zeros(5, 4, device=device)
    with pytest.raises(ek.InvalidArgumentError, match="ek_triu: out partially overlaps x"):
        ek.triu(x[:4], out=x[1:])
    assert ek.tril([[1, 2], [3, 4]]).tolist() == [[1, 0], [3, 4]]  # data becomes a tensor
