"""Joining and rearranging against NumPy: concat/cat, stack, split, chunk,
unstack, flip, roll, tile/repeat, moveaxis, broadcast_tensors, meshgrid, on
contiguous, transposed and empty inputs, with mixed dtypes and negative dims."""

import numpy as np
import pytest

import ek

A = np.arange(24, dtype=np.float32).reshape(2, 3, 4)


def _t(a, device):
    return ek.from_numpy(np.ascontiguousarray(a), device=device)


def _transposed(a, device):
    """A non-contiguous tensor holding a's values."""
    t = ek.from_numpy(np.ascontiguousarray(np.swapaxes(a, 0, -1)), device=device)
    return t.transpose(0, -1)


@pytest.mark.parametrize("dim", [0, 1, 2, -1, -3])
def test_concat_matches_numpy(device, dim):
    b = A + 100
    got = ek.concat([_t(A, device), _transposed(b, device)], dim)
    np.testing.assert_array_equal(got.numpy(), np.concatenate([A, b], dim))
    np.testing.assert_array_equal(ek.cat((_t(A, device), _t(A, device)), dim=dim).numpy(),
                                  np.concatenate([A, A], dim))


def test_concat_promotes_and_skips_legacy_empty(device):
    a = ek.tensor([1, 2], dtype=ek.int32, device=device)
    b = ek.tensor([0.5], dtype=ek.float16, device=device)
    r = ek.concat([a, b])
    assert r.dtype == ek.float16
    assert r.tolist() == [1.0, 2.0, 0.5]
    m = ek.tensor([[1.0, 2.0]], device=device)
    e = ek.empty(0, dtype=ek.float64, device=device)
    r = ek.cat([e, m, m])
    assert r.shape == (2, 2) and r.dtype == ek.float64
    assert ek.concat([_t(A, device)], axis=None).shape == (24,)


def test_concat_into_out(device):
    out = ek.zeros(4, 3, device=device)
    x = ek.ones(2, 3, device=device)
    assert ek.cat([x, x], out=out) is out
    assert out.numpy().sum() == 12


def test_concat_bad_shapes_message(device):
    with pytest.raises(ek.ShapeError, match=r"ek_concat: xs\[1\] has shape \[2,4\] but xs\[0\] "
                                             r"has \[2,3\]: they must match outside dim 0"):
        ek.concat([ek.zeros(2, 3, device=device), ek.zeros(2, 4, device=device)])
    with pytest.raises(ek.InvalidArgumentError, match="ek_concat: n is 0"):
        ek.concat([])


@pytest.mark.parametrize("dim", [0, 1, 3, -1, -4])
def test_stack_matches_numpy(device, dim):
    got = ek.stack([_t(A, device), _transposed(A * 2, device)], dim)
    np.testing.assert_array_equal(got.numpy(), np.stack([A, A * 2], dim))
    with pytest.raises(ek.ShapeError, match="ek_stack"):
        ek.stack([_t(A, device), _t(A[0], device)])


@pytest.mark.parametrize("sections", [1, 2, 3, [1, 0, 2], [3]])
def test_split_matches_torch(device, sections):
    t = _transposed(A, device)
    pieces = ek.split(t, sections, dim=1)
    if isinstance(sections, int):
        bounds = list(range(sections, 3, sections))
    else:
        bounds = list(np.cumsum(sections)[:-1])
    expected = np.split(A, bounds, axis=1)
    assert len(pieces) == len(expected)
    for p, e in zip(pieces, expected):
        np.testing.assert_array_equal(p.numpy(), e)
    assert t.split(2, -1)[1].shape == (2, 3, 2)
    with pytest.raises(ek.ShapeError, match="the 2 sizes add up to 2, but dim 1 has size 3"):
        ek.split(t, [1, 1], dim=1)


def test_chunk_unstack_views(device):
    t = ek.arange(5, dtype=ek.float32, device=device)
    assert [c.tolist() for c in ek.chunk(t, 4)] == [[0, 1], [2, 3], [4]]
    assert len(ek.chunk(ek.empty(0, device=device), 3)) == 3
    parts = t.chunk(2)
    parts[0][0] = 42  # views share storage
    assert t[0].item() == 42
    rows = ek.unstack(_t(A, device), axis=1)
    assert len(rows) == 3
    np.testing.assert_array_equal(rows[2].numpy(), A[:, 2])
    assert len(_t(A, device).unbind(-1)) == 4
    with pytest.raises(ek.InvalidArgumentError, match="ek_view_chunk: chunks is 0"):
        ek.chunk(t, 0)


@pytest.mark.parametrize("dims", [None, 0, (1,), (0, 2), (-1, -2)])
def test_flip_matches_numpy(device, dims):
    got = ek.flip(_transposed(A, device), dims)
    np.testing.assert_array_equal(got.numpy(), np.flip(A, dims))
    with pytest.raises(ek.InvalidArgumentError, match="ek_flip: dim 0 appears twice"):
        ek.flip(_t(A, device), (0, 0))


def test_flip_method(device):
    t = _t(A, device)
    np.testing.assert_array_equal(t.flip(0, 2).numpy(), np.flip(A, (0, 2)))
    np.testing.assert_array_equal(t.flip([1]).numpy(), np.flip(A, 1))


@pytest.mark.parametrize("shifts,dims", [(1, None), (-7, None), (2, 1), ((1, -2), (0, 2)),
                                         ((3, 4), (-1, -1)), (25, None)])
def test_roll_matches_numpy(device, shifts, dims):
    for t in (_t(A, device), _transposed(A, device)):
        np.testing.assert_array_equal(ek.roll(t, shifts, dims).numpy(), np.roll(A, shifts, dims))
    np.testing.assert_array_equal(_t(A, device).roll(shifts, dims).numpy(), np.roll(A, shifts, dims))


def test_roll_bad_input(device):
    with pytest.raises(ek.InvalidArgumentError, match="ek_roll: dims is NULL"):
        ek.roll(_t(A, device), (1, 2))
    with pytest.raises(ek.EkIndexError, match="dim 3 is out of range"):
        ek.roll(_t(A, device), 1, 3)


@pytest.mark.parametrize("reps", [(2,), (1, 2), (2, 1, 1), (2, 2, 2, 2), (0, 1, 1), (3, 1, 2, 1, 2)])
def test_tile_matches_numpy(device, reps):
    np.testing.assert_array_equal(ek.tile(_transposed(A, device), reps).numpy(), np.tile(A, reps))


def test_repeat_method_and_bad_input(device):
    t = ek.tensor([[1, 2]], dtype=ek.int64, device=device)
    assert t.repeat(2, 2).tolist() == [[1, 2, 1, 2], [1, 2, 1, 2]]
    assert t.repeat((1, 1, 2)).shape == (1, 1, 4)
    with pytest.raises(ek.InvalidArgumentError, match=r"ek_repeat: repeats\[0\] is -1"):
        t.repeat(-1, 1)


def test_moveaxis_matches_numpy(device):
    t = _t(A, device)
    np.testing.assert_array_equal(ek.moveaxis(t, 0, -1).numpy(), np.moveaxis(A, 0, -1))
    np.testing.assert_array_equal(t.movedim((0, 2), (2, 0)).numpy(), np.moveaxis(A, (0, 2), (2, 0)))
    with pytest.raises(ek.InvalidArgumentError, match="ek_view_moveaxis: dim 1 appears twice in dst"):
        ek.moveaxis(t, (0, 1), (1, 1))


def test_broadcast_tensors(device):
    a = ek.tensor([[1.0], [2.0]], device=device)
    b = ek.tensor([1, 2, 3], dtype=ek.int32, device=device)
    x, y = ek.broadcast_tensors(a, b)
    ex, ey = np.broadcast_arrays(a.numpy(), b.numpy())
    np.testing.assert_array_equal(x.numpy(), ex)
    np.testing.assert_array_equal(y.numpy(), ey)
    assert y.dtype == ek.int32 and y.stride() == (0, 1)
    assert ek.broadcast_arrays is ek.broadcast_tensors
    with pytest.raises(ek.ShapeError, match=r"ek_broadcast_tensors: xs\[1\] of shape \[2\]"):
        ek.broadcast_tensors(b, ek.zeros(2, device=device))


@pytest.mark.parametrize("indexing", ["ij", "xy"])
def test_meshgrid_matches_numpy(device, indexing):
    xs = [np.arange(3, dtype=np.float32), np.arange(2, dtype=np.float32) + 10,
          np.arange(4, dtype=np.float32) - 5]
    got = ek.meshgrid(*[ek.from_numpy(x, device=device) for x in xs], indexing=indexing)
    for g, e in zip(got, np.meshgrid(*xs, indexing=indexing)):
        np.testing.assert_array_equal(g.numpy(), e)
    with pytest.raises(ek.DtypeError, match=r"ek_meshgrid: xs\[1\] is int64 but xs\[0\] is float32"):
        ek.meshgrid(ek.from_numpy(xs[0], device=device), ek.tensor([1, 2], device=device))


def test_empty_inputs(device):
    e = ek.empty(0, 3, device=device)
    assert ek.flip(e, 0).shape == (0, 3)
    assert ek.roll(e, 2).shape == (0, 3)
    assert ek.tile(e, (2, 2)).shape == (0, 6)
    assert ek.stack([e, e], 1).shape == (0, 2, 3)
    assert ek.concat([e, e], 1).shape == (0, 6)
    assert len(ek.split(e, 0)) == 1
