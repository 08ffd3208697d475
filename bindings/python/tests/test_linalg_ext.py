"""Issue 18 in Python: integer matmul, tensordot/vecdot/outer, and the
reductions' dim=() and dtype=, clip() without bounds, nonzero of a 0-d
tensor, boolean masks with a zero-size dim — against NumPy."""

import numpy as np
import pytest

import ek
from ek_helpers import check

INTS = [np.uint8, np.int8, np.int16, np.int32, np.int64]


def rand_ints(rng, shape, dt):
    info = np.iinfo(dt)
    return rng.integers(info.min, info.max, shape, dtype=dt, endpoint=True)


@pytest.mark.parametrize("dt", INTS)
def test_integer_matmul_wraps_as_numpy(device, dt):
    rng = np.random.default_rng(1)
    for sa, sb in [((37, 53), (53, 29)), ((2, 1, 5, 7), (3, 7, 4)), ((7,), (7, 3)), ((0, 3), (3, 4)),
                   ((3, 0), (0, 4))]:
        a, b = rand_ints(rng, sa, dt), rand_ints(rng, sb, dt)
        got = ek.tensor(a, device=device) @ ek.tensor(b, device=device)
        with np.errstate(over="ignore"):
            want = np.matmul(a, b)  # NumPy wraps integer products too
        assert got.dtype is ek.dtype(dt)
        np.testing.assert_array_equal(got.numpy(), want)
    a = rand_ints(rng, (20, 9), dt)
    x = ek.tensor(a, device=device)
    np.testing.assert_array_equal((x.T @ x[:, ::2]).numpy(), np.matmul(a.T, a[:, ::2]))


def test_mixed_integer_matmul_promotes(device):
    a, b = np.arange(6, dtype=np.int8).reshape(2, 3), np.arange(3, dtype=np.uint8)
    got = ek.matmul(ek.tensor(a, device=device), ek.tensor(b, device=device))
    assert got.dtype is ek.int16 and got.tolist() == (a.astype(np.int16) @ b).tolist()


def test_tensordot_vecdot_outer(device):
    rng = np.random.default_rng(2)
    a, b = rng.standard_normal((3, 4, 5)), rng.standard_normal((4, 5, 2))
    x, y = ek.tensor(a, device=device), ek.tensor(b, device=device)
    check(ek.tensordot(x, y), np.tensordot(a, b), rtol=1e-12, atol=1e-12)
    check(ek.tensordot(x, y, dims=([1, 2], [0, 1])), np.tensordot(a, b, ([1, 2], [0, 1])),
          rtol=1e-12, atol=1e-12)
    check(ek.tensordot(x, y, axes=0), np.tensordot(a, b, 0), rtol=1e-12, atol=1e-12)
    check(x.tensordot(x, dims=([0, 2], [0, 2])), np.tensordot(a, a, ([0, 2], [0, 2])),
          rtol=1e-12, atol=1e-12)
    c = rng.standard_normal((3, 1, 5))
    check(ek.vecdot(x, ek.tensor(c, device=device)), np.sum(a * c, axis=-1), rtol=1e-12,
          atol=1e-12)
    check(ek.vecdot(x, x, axis=0), np.sum(a * a, axis=0), rtol=1e-12, atol=1e-12)
    u, v = np.arange(4, dtype=np.int32), np.arange(3, dtype=np.int32)
    got = ek.outer(ek.tensor(u, device=device), ek.tensor(v, device=device))
    assert got.dtype is ek.int32 and got.tolist() == np.outer(u, v).tolist()


def test_linalg_bad_input_messages(device):
    x = ek.ones(3, 4, device=device)
    with pytest.raises(ek.ShapeError, match=r"ek_tensordot: a's dim 0 \(size 3\) and b's dim 1"):
        ek.tensordot(x, x, dims=([0], [1]))
    with pytest.raises(ek.ShapeError, match="ek_vecdot: dim -1 of x"):
        ek.vecdot(x, ek.ones(3, 1, device=device))
    with pytest.raises(ek.ShapeError, match="ek_outer: a .* must be 1-D"):
        ek.outer(x, x)
    with pytest.raises(ek.DtypeError, match="ek_matmul: bool operands"):
        ek.ones(2, 2, dtype=ek.bool_, device=device) @ ek.ones(2, 2, dtype=ek.bool_, device=device)


def test_reductions_honour_empty_dims_and_dtype(device):
    a = np.arange(12, dtype=np.float32).reshape(3, 4)
    x = ek.tensor(a, device=device)
    check(ek.sum(x, dim=()), a)
    check(x.amax(dim=[]), a)
    check(ek.mean(x, dim=(), keepdim=True), a)
    check(ek.var(x, dim=(), correction=0), np.zeros_like(a))
    check(ek.sum(x), np.array(a.sum(), np.float32))  # dim=None still reduces all
    i8 = np.full((2, 40), 100, np.int8)
    t = ek.tensor(i8, device=device)
    with np.errstate(over="ignore"):
        for dt in (np.int8, np.int16, np.int32):
            for got, want in [(ek.sum(t, 1, dtype=dt), i8.sum(1, dtype=dt)),
                              (ek.prod(t, 1, dtype=dt), i8.prod(1, dtype=dt)),
                              (ek.cumsum(t, 1, dtype=dt), i8.cumsum(1, dtype=dt)),
                              (t.cumprod(1, dtype=dt), i8.cumprod(1, dtype=dt))]:
                assert got.dtype is ek.dtype(dt)
                np.testing.assert_array_equal(got.numpy(), want)
        out = ek.empty(2, dtype=ek.int16, device=device)
        ek.sum(t, 1, out=out)  # an integer out of another dtype receives the wrapped sum
        np.testing.assert_array_equal(out.numpy(), i8.sum(1, dtype=np.int16))
    check(ek.sum(t, 1, dtype=ek.float32), i8.astype(np.float32).sum(1))


def test_clip_nonzero_and_empty_masks(device):
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    x = ek.tensor(a, device=device)
    c = ek.clip(x)
    check(c, a)
    c[0, 0] = 7  # a copy, not x
    assert x[0, 0].item() == 0
    assert ek.tensor([True, False], device=device).clip().tolist() == [True, False]
    with pytest.raises(ek.InvalidArgumentError, match="0-d"):
        ek.nonzero(ek.tensor(5.0, device=device), as_tuple=True)
    z = ek.zeros(3, 0, device=device)
    assert z[z > 0].shape == (0,)
    assert z[ek.ones(3, dtype=ek.bool_, device=device)].shape == (3, 0)
    z[z > 0] = 1.0
    assert ek.tensor(5.0, device=device)[True].shape == (1,)
