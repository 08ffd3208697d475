import numpy as np
import pytest

import ek

A = np.arange(2 * 3 * 4 * 5, dtype=np.float32).reshape(2, 3, 4, 5)

INDICES = [
    0, -1, 1, (0, 1), (-1, -2, -3), slice(None), slice(1, None), slice(None, None, -1),
    slice(None, None, 2), slice(5, -10, -1), slice(-100, 100), (slice(None), 2),
    (Ellipsis, 1), (Ellipsis, slice(None, None, -2)), (None, 0), (0, None, slice(1, 3)),
    (slice(None), None, slice(None, None, -1), Ellipsis, None),
    (1, slice(2, 0, -1), Ellipsis, slice(4, None, -3)), (Ellipsis,), (1, 2, 3, 4),
    (slice(3, 1), ), (slice(None, None, 3), slice(None, None, -2), slice(-1, None), slice(1, 4, 2)),
]


@pytest.mark.parametrize("idx", INDICES, ids=repr)
def test_getitem_matches_numpy(device, idx):
    t = ek.from_numpy(A, device=device)
    v = t[idx]
    expected = A[idx]
    assert v.shape == np.shape(expected)
    np.testing.assert_array_equal(v.numpy(), expected)


@pytest.mark.parametrize("idx", INDICES, ids=repr)
def test_setitem_through_views(device, idx):
    t = ek.from_numpy(A, device=device)
    a = A.copy()
    t[idx] = -1
    a[idx] = -1
    np.testing.assert_array_equal(t.numpy(), a)


def test_setitem_tensor_and_array(device):
    t = ek.zeros(3, 4, dtype=ek.int32, device=device)
    a = np.zeros((3, 4), np.int32)
    t[1] = ek.tensor([1, 2, 3, 4], device=device)
    a[1] = [1, 2, 3, 4]
    t[:, ::-2] = np.array([[7], [8], [9]])
    a[:, ::-2] = [[7], [8], [9]]
    t[2, 0] = 5.9  # cast like PyTorch: truncation
    a[2, 0] = 5
    np.testing.assert_array_equal(t.numpy(), a)


def test_index_errors(device):
    t = ek.from_numpy(A, device=device)
    with pytest.raises(IndexError) as ei:
        t[2]
    assert isinstance(ei.value, ek.EkIndexError) and "ek_index" in ei.value.message
    with pytest.raises(IndexError):
        t[0, 0, 0, 0, 0]
    with pytest.raises(TypeError):
        t[1.5]
    with pytest.raises(ValueError):
        t[::0]


def test_views_share_storage(device):
    t = ek.zeros(4, 4, device=device)
    v = t.T[1:3]
    v.fill_(1)
    a = np.zeros((4, 4), np.float32)
    a.T[1:3] = 1
    np.testing.assert_array_equal(t.numpy(), a)


def test_view_ops(device):
    t = ek.from_numpy(A, device=device)
    np.testing.assert_array_equal(t.transpose(1, 3).numpy(), A.swapaxes(1, 3))
    np.testing.assert_array_equal(t.permute(2, 0, 3, 1).numpy(), A.transpose(2, 0, 3, 1))
    np.testing.assert_array_equal(t.T.numpy(), A.T)
    assert t.T.strides == tuple(s // 4 for s in A.T.strides)
    np.testing.assert_array_equal(t.reshape(6, -1).numpy(), A.reshape(6, -1))
    np.testing.assert_array_equal(t.view(-1).numpy(), A.reshape(-1))
    # reshape of a non-viewable tensor copies; view refuses with the C message
    np.testing.assert_array_equal(t.T.reshape(-1).numpy(), A.T.reshape(-1))
    with pytest.raises(ek.ShapeError, match="ek_view_reshape"):
        t.T.view(-1)
    np.testing.assert_array_equal(t.flatten().numpy(), A.reshape(-1))
    np.testing.assert_array_equal(t.flatten(1, 2).numpy(), A.reshape(2, 12, 5))
    np.testing.assert_array_equal(t.T.flatten().numpy(), A.T.reshape(-1))
    u = t[:, :1].unsqueeze(0)
    assert u.shape == (1, 2, 1, 4, 5)
    assert u.squeeze().shape == (2, 4, 5)
    assert u.squeeze(0).shape == (2, 1, 4, 5)
    assert u.squeeze((0, 2)).shape == (2, 4, 5)
    e = ek.tensor([[1], [2]], device=device).expand(3, 2, 4)
    assert e.shape == (3, 2, 4) and e.strides[0] == 0
    np.testing.assert_array_equal(e.numpy(), np.broadcast_to([[1], [2]], (3, 2, 4)))
    s = ek.arange(10, device=device).as_strided((3, 3), (1, 1))
    np.testing.assert_array_equal(s.numpy(), np.lib.stride_tricks.as_strided(
        np.arange(10), (3, 3), (8, 8)))
    with pytest.raises(ek.EkIndexError):
        ek.arange(10, device=device).as_strided((3, 3), (4, 1))
    c = t.T.contiguous()
    assert c.is_contiguous() and not t.T.is_contiguous()
    assert t.contiguous() is t
    with pytest.raises(ek.ShapeError):
        t.expand(3, 3)


def test_iteration(device):
    t = ek.arange(6, device=device).reshape(2, 3)
    assert [r.tolist() for r in t] == [[0, 1, 2], [3, 4, 5]]
