"""Advanced indexing and assignment (NumPy's rules) and the indexing ops."""

import numpy as np
import pytest

import ek

A = np.arange(2 * 3 * 4 * 5, dtype=np.float32).reshape(2, 3, 4, 5)

KEYS = [
    ([0, 1],), (np.array([[0, 1], [1, 0]]),), (slice(None), [2, 0, -1]), (Ellipsis, [4, 0]),
    ([0, 1], [2, 0]), ([0, 1], slice(None), [1, 3]), (slice(None), [0, 2], slice(None), 0),
    (0, [1, 2], [0, 3]), ([1], 0, slice(None), [2]), (A[:, :, 0, 0] > 30,),
    (slice(None), A[0, :, :, 0] > 20), (A[:, 0, 0, 0] > 10, slice(None), 1),
    ([[0], [1]], slice(None), [[0, 1, 2]]), (None, [0, 1], None), (A > 50,),
    (0, 0, A[0, 0] > 5), (slice(None), slice(None), A[0, 0] > 7), ("tensor", [0, 1]),
    (np.array([], dtype=np.int64),), (slice(None, None, -1), [0, 1], slice(1, 3)),
    (slice(None), [0, 2], [1, 3], slice(None, None, 2)), (-1, Ellipsis, [-1, -2]),
    (np.array([0, 1], dtype=np.int32), [[2], [1]]), ([True, False],),
    (slice(1, None), np.array([True, False, True]), [0, -1]),
]


def _key(k, device):
    if k and isinstance(k[0], str):
        return (ek.tensor(k[1], device=device),), (np.array(k[1]),)
    return k, k


@pytest.mark.parametrize("key", KEYS, ids=lambda k: str(
    [type(x).__name__ + (str(np.shape(x)) if hasattr(x, "shape") else "") for x in k]))
def test_advanced_getitem(device, key):
    k, nk = _key(key, device)
    t = ek.from_numpy(A, device=device)
    expected = A[nk]
    got = t[k]
    assert got.shape == expected.shape
    np.testing.assert_array_equal(got.numpy(), expected)
    # the result is a copy: writing to it leaves t alone
    if got.numel():
        got.fill_(-7)
        np.testing.assert_array_equal(t.numpy(), A)


@pytest.mark.parametrize("key", KEYS, ids=lambda k: str(
    [type(x).__name__ for x in k]))
def test_advanced_setitem(device, key):
    k, nk = _key(key, device)
    shape = A[nk].shape
    values = [-1, np.arange(int(np.prod(shape)), dtype=np.float32).reshape(shape) + 1000,
              np.arange(shape[-1] if shape else 1, dtype=np.float32) + 500]
    targets = np.arange(A.size).reshape(A.shape)[nk]
    if device == "cuda" and np.unique(targets).size < targets.size:
        # Repeated targets with different values: which write wins is
        # unspecified on CUDA (as in PyTorch); NumPy's last-wins is not promised.
        values = values[:1]
    for value in values:
        t = ek.from_numpy(A, device=device)
        a = A.copy()
        a[nk] = value
        t[k] = value if not isinstance(value, np.ndarray) else ek.from_numpy(value,
                                                                             device=device)
        np.testing.assert_array_equal(t.numpy(), a)


def test_setitem_values_cast_and_broadcast(device):
    t = ek.zeros(4, 3, dtype=ek.int32, device=device)
    a = np.zeros((4, 3), np.int32)
    t[[0, 2]] = [[1, 2, 3]]            # leading 1 dim dropped, cast to int32
    a[[0, 2]] = [[1, 2, 3]]
    t[t > 1] = 9
    a[a > 1] = 9
    t[ek.tensor([3]), ek.tensor([0, 2])] = ek.tensor([5.7, 6.2], device=device)
    a[[3], [0, 2]] = [5, 6]
    t[..., np.array([True, False, True])] += 1   # getitem, iadd, setitem
    a[..., np.array([True, False, True])] += 1
    np.testing.assert_array_equal(t.numpy(), a)
    with pytest.raises(ek.ShapeError):
        t[[0, 1]] = np.ones((3, 3))


def test_mask_on_a_view_writes_through(device):
    t = ek.from_numpy(A.copy(), device=device)
    v = t[1, ::2]          # a strided view
    v[v > 80] = 0
    a = A.copy()
    w = a[1, ::2]
    w[w > 80] = 0
    np.testing.assert_array_equal(t.numpy(), a)


def test_index_errors(device):
    # A bad index tensor that gathers fails at the call on the CPU; CUDA's
    # default check is deferred to the next synchronization, which names it.
    t = ek.from_numpy(A, device=device)
    with pytest.raises(IndexError) as ei:
        t[[0, 2]]
        ek.synchronize(device)
    assert isinstance(ei.value, ek.EkIndexError) and "index 2" in str(ei.value)
    with pytest.raises(ek.EkIndexError):
        t[[0, 1], [0, 3]]
        ek.synchronize(device)
    with pytest.raises(ek.EkIndexError, match="-4"):
        t[:, [-4]]
        ek.synchronize(device)
    with pytest.raises(ek.ShapeError, match="mask of shape"):  # EK_ERROR_SHAPE, as ek.h says
        t[np.array([True, False, True])]
    with pytest.raises(ek.ShapeError, match="broadcast"):
        t[[0, 1], [0, 1, 2]]
    with pytest.raises(ek.DtypeError, match="int64 or int32"):
        t[np.array([0.5])]
    with pytest.raises(IndexError, match="too many"):
        t[0, 0, 0, 0, [0]]
    with pytest.raises(ek.EkIndexError):
        t[[5]] = 1
    # a bool scalar is a 0-d mask (NumPy): a new dim of size 1 or 0
    assert t[True].shape == (1,) + t.shape and t[False].shape == (0,) + t.shape


def test_index_select_gather_scatter(device):
    a = np.arange(12, dtype=np.float32).reshape(3, 4)
    x = ek.from_numpy(a, device=device)
    np.testing.assert_array_equal(x.index_select(1, [3, 0, -1]).numpy(), a[:, [3, 0, -1]])
    i32 = ek.tensor([2, 2], dtype=ek.int32, device=device)  # an index tensor on x's device
    np.testing.assert_array_equal(ek.index_select(x, 0, i32).numpy(), a[[2, 2]])
    if device != "cpu":  # an index tensor of another device is refused, as in every binding
        with pytest.raises(ek.InvalidArgumentError, match="another context"):
            ek.index_select(x, 0, i32.to(device="cpu"))
    idx = np.array([[0, 2], [1, 0], [2, 2]])
    np.testing.assert_array_equal(x.gather(1, idx).numpy(), np.take_along_axis(a, idx, 1))
    np.testing.assert_array_equal(ek.gather(x, 0, idx[:2]).numpy(),  # index smaller than x
                                  [[a[idx[i, j], j] for j in range(2)] for i in range(2)])
    s = x.scatter(1, idx[:, :1], -np.ones((3, 1), np.float32))
    ref = a.copy()
    np.put_along_axis(ref, idx[:, :1], -1, 1)
    np.testing.assert_array_equal(s.numpy(), ref)
    acc = ek.zeros(4, device=device).scatter_add(0, [0, 1, 1, 3], ek.ones(4, device=device))
    assert acc.tolist() == [1.0, 2.0, 0.0, 1.0]
    y = ek.zeros(2, 3, dtype=ek.int64, device=device)
    assert y.scatter_(1, [[2], [0]], 7) is y and y.tolist() == [[0, 0, 7], [7, 0, 0]]
    y.scatter_add_(1, [[2, 2]], ek.ones(1, 2, dtype=ek.int64, device=device))
    assert y.tolist() == [[0, 0, 9], [7, 0, 0]]
    with pytest.raises(ek.EkIndexError, match="ek_index_select"):
        x.index_select(1, [4])
        ek.synchronize(device)  # CUDA: the default check is deferred to here
    with pytest.raises(ek.DtypeError):
        x.index_select(0, ek.tensor([0.0], device=device))
    with pytest.raises(ek.InvalidArgumentError):
        x.scatter(0, [[0]], 1.0, reduce="mul")


def test_index_put_masked_nonzero(device):
    a = np.arange(12, dtype=np.float32).reshape(3, 4)
    x = ek.from_numpy(a, device=device)
    r = ek.index_put(x, ([0, 2], [1, 3]), ek.tensor([-1.0, -2.0], device=device))
    ref = a.copy()
    ref[[0, 2], [1, 3]] = [-1, -2]
    np.testing.assert_array_equal(r.numpy(), ref)
    np.testing.assert_array_equal(x.numpy(), a)  # not in place
    x2 = x.clone()
    x2.index_put_(([0, 0],), 1.0, accumulate=True)
    ref = a.copy()
    ref[0] += 2
    np.testing.assert_array_equal(x2.numpy(), ref)
    m = a % 3 == 0
    np.testing.assert_array_equal(x.masked_select(m).numpy(), a[m])
    np.testing.assert_array_equal(ek.masked_select(x, ek.tensor([True, False, True, False],
                                                                device=device)).numpy(),
                                  a[:, [0, 2]].reshape(-1))
    np.testing.assert_array_equal(x.masked_fill(m, 0.5).numpy(), np.where(m, 0.5, a))
    big = ek.tensor([1, 2, 3], dtype=ek.int64, device=device)
    bm = ek.tensor([True, False, True], device=device)
    assert big.masked_fill(bm, 2**60 + 1).tolist() == [2**60 + 1, 2, 2**60 + 1]
    big[bm] = 2**62 + 3
    assert big.tolist() == [2**62 + 3, 2, 2**62 + 3]
    with pytest.raises(ek.InvalidArgumentError, match="value 1000 does not fit the integer dtype int8"):
        big.astype(ek.int8).masked_fill(bm, 1000)
    y = x.clone()
    assert y.masked_fill_(m, ek.tensor(2.0)) is y
    np.testing.assert_array_equal(y.numpy(), np.where(m, 2, a))
    src = np.arange(100, 112, dtype=np.float32)
    ref = a.copy()
    ref[m] = src[:m.sum()]
    np.testing.assert_array_equal(x.masked_scatter(m, src).numpy(), ref)
    y = x.clone()
    y.masked_scatter_(m, src)
    np.testing.assert_array_equal(y.numpy(), ref)
    nz = x.nonzero()
    assert nz.dtype is ek.int64
    np.testing.assert_array_equal(nz.numpy(), np.argwhere(a))
    for got, want in zip(ek.nonzero(x, as_tuple=True), np.nonzero(a)):
        np.testing.assert_array_equal(got.numpy(), want)
