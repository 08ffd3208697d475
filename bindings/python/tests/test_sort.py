"""Sorting and searching against NumPy: sort/argsort (stable, descending,
NaN last ascending / first descending, any dim, non-contiguous), topk,
searchsorted, unique (inverse, counts), count_nonzero, diff, the Tensor
methods, and a bad-input message."""

import numpy as np
import pytest

import ek

RNG = np.random.default_rng(0)


def _t(a, device):
    return ek.from_numpy(np.ascontiguousarray(a), device=device)


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.int64, np.uint8, np.int16])
@pytest.mark.parametrize("dim", [0, 1, -1])
def test_sort_stable_matches_numpy(device, dtype, dim):
    a = RNG.integers(0, 20, size=(5, 40)).astype(dtype)
    values, indices = ek.sort(_t(a, device), dim=dim, stable=True)
    np.testing.assert_array_equal(indices.numpy(), np.argsort(a, axis=dim, kind="stable"))
    np.testing.assert_array_equal(values.numpy(), np.sort(a, axis=dim))
    desc = ek.sort(_t(a, device), dim=dim, descending=True, stable=True)
    # Descending and stable: equal elements keep input order (torch), i.e. a stable sort of -a.
    np.testing.assert_array_equal(desc.indices.numpy(), np.argsort(-a.astype(np.float64), axis=dim, kind="stable"))
    np.testing.assert_array_equal(_t(a, device).argsort(dim, stable=True).numpy(),
                                  np.argsort(a, axis=dim, kind="stable"))


def test_sort_nan_and_non_contiguous(device):
    a = np.array([3.0, np.nan, -1.0, -0.0, np.inf, 0.0, -np.inf], dtype=np.float32)
    v, i = ek.sort(_t(a, device), stable=True)
    np.testing.assert_array_equal(v.numpy(), np.sort(a))  # NumPy also puts NaN last
    np.testing.assert_array_equal(i.numpy(), [6, 2, 3, 5, 0, 4, 1])
    d = ek.sort(_t(a, device), descending=True, stable=True)
    assert np.isnan(d.values.numpy()[0]) and d.indices.numpy()[0] == 1
    b = RNG.standard_normal((6, 7)).astype(np.float32)
    t = _t(b.T.copy(), device).transpose(0, 1)  # b's values, not contiguous
    s = t.sort(dim=0)
    np.testing.assert_array_equal(s.values.numpy(), np.sort(b, axis=0))


@pytest.mark.parametrize("largest", [True, False])
def test_topk_matches_numpy(device, largest):
    a = RNG.permutation(5000).astype(np.float32).reshape(2, 2500)
    v, i = ek.topk(_t(a, device), 7, largest=largest)
    want = -np.sort(-a, axis=1)[:, :7] if largest else np.sort(a, axis=1)[:, :7]
    np.testing.assert_array_equal(v.numpy(), want)
    np.testing.assert_array_equal(np.take_along_axis(a, i.numpy(), 1), want)
    r = _t(a, device).topk(0)
    assert r.values.shape == (2, 0)
    assert ek.topk(_t(a, device), 2, dim=0).values.shape == (2, 2500)


def test_searchsorted(device):
    seq = np.array([1, 2, 2, 3, 5], dtype=np.float32)
    vals = np.array([[0, 2, 2.5], [6, 5, 1]], dtype=np.float32)
    for right in (False, True):
        got = ek.searchsorted(_t(seq, device), _t(vals, device), right=right)
        np.testing.assert_array_equal(got.numpy(), np.searchsorted(seq, vals, side="right" if right else "left"))
        assert got.dtype == ek.int64
    assert ek.searchsorted(_t(seq, device), _t(vals, device), out_int32=True).dtype == ek.int32
    bseq = np.array([[1, 3, 5], [10, 20, 30]], dtype=np.int64)
    bval = np.array([[4, 0], [25, 31]], dtype=np.int64)
    np.testing.assert_array_equal(ek.searchsorted(_t(bseq, device), _t(bval, device), side="right").numpy(),
                                  [[2, 0], [2, 3]])


def test_unique(device):
    a = np.array([[3, 1, 2], [3, 1, 1]], dtype=np.int32)
    u = ek.unique(_t(a, device))
    np.testing.assert_array_equal(u.numpy(), [1, 2, 3])
    u, inv, cnt = ek.unique(_t(a, device), return_inverse=True, return_counts=True)
    nu, ninv, ncnt = np.unique(a, return_inverse=True, return_counts=True)
    np.testing.assert_array_equal(u.numpy(), nu)
    np.testing.assert_array_equal(inv.numpy(), ninv.reshape(a.shape))
    np.testing.assert_array_equal(cnt.numpy(), ncnt)
    u2, c2 = _t(np.array([np.nan, 1, np.nan], np.float32), device).unique(return_counts=True)
    assert u2.shape == (3,) and c2.numpy().tolist() == [1, 1, 1]  # each NaN distinct
    assert ek.unique(_t(np.zeros(0, np.float32), device)).shape == (0,)


def test_count_nonzero_and_diff(device):
    a = np.array([[0, -0.0, np.nan], [1, 0, 2]], dtype=np.float32)
    assert ek.count_nonzero(_t(a, device)).item() == 3
    np.testing.assert_array_equal(ek.count_nonzero(_t(a, device), dim=1).numpy(), [1, 2])
    assert ek.count_nonzero(_t(a, device), dim=(0,), keepdim=True).shape == (1, 3)
    b = np.array([[1, 4, 9, 16], [2, 2, 5, 1]], dtype=np.int64)
    for n in (0, 1, 2, 5):
        np.testing.assert_array_equal(ek.diff(_t(b, device), n=n).numpy(), np.diff(b, n=n))
    pre = np.array([[0], [10]], dtype=np.int64)
    np.testing.assert_array_equal(ek.diff(_t(b, device), prepend=_t(pre, device), append=_t(pre, device)).numpy(),
                                  np.diff(b, prepend=pre, append=pre))
    np.testing.assert_array_equal(ek.diff(_t(b, device), dim=0).numpy(), np.diff(b, axis=0))
    bb = np.array([True, True, False, True])
    np.testing.assert_array_equal(ek.diff(_t(bb, device)).numpy(), np.diff(bb))


def test_bad_input_messages(device):
    x = _t(np.arange(6, dtype=np.float32).reshape(2, 3), device)
    with pytest.raises(ek.Error, match=r"ek_topk: k 4 is out of range \[0, 3\] for dim 1 of size 3"):
        ek.topk(x, 4)
    with pytest.raises(ek.Error, match="ek_searchsorted: sorted_sequence"):
        ek.searchsorted(_t(np.zeros((3, 2), np.float32), device), x)
    with pytest.raises(ek.Error, match="ek_diff: n must be >= 0"):
        ek.diff(x, n=-1)
