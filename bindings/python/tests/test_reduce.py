"""Reductions, max/min with indices, var/std, norms, softmax and scans against NumPy."""

import math

import numpy as np
import pytest

import ek
from ek_helpers import check, kind, sample



def _np_dims(dim):
    return dim if dim is None or isinstance(dim, int) else tuple(dim)


@pytest.mark.parametrize("dim, keepdim", [(None, False), ((0, 2), True), (-1, False)], ids=str)
@pytest.mark.parametrize("dt", [ek.bool_, ek.int32, ek.float32], ids=lambda d: d.name)
def test_sum_prod_any_all_amax(device, dt, dim, keepdim):
    a = sample(dt, (3, 4, 5), seed=1)
    if kind(dt) == 1:
        a = (a % 3).astype(dt.numpy)  # keeps products small
    x = ek.from_numpy(a, device=device)
    ax = _np_dims(dim)
    acc = ek.int64 if kind(dt) < 2 else dt
    a64 = a.astype(np.float64) if kind(dt) == 2 else a.astype(np.int64)
    rt = 1e-2 if dt is ek.float16 else None
    check(x.sum(dim, keepdim), a64.sum(axis=ax, keepdims=keepdim), acc, rtol=rt, atol=rt)
    check(ek.sum(x, dim=dim, keepdim=keepdim), a64.sum(axis=ax, keepdims=keepdim), acc,
          rtol=rt, atol=rt)
    check(x.prod(dim, keepdim), a64.prod(axis=ax, keepdims=keepdim), acc,
          rtol=1e-2 if dt is ek.float16 else 1e-5 if dt is ek.float32 else None)
    check(x.any(dim, keepdim), a.astype(bool).any(axis=ax, keepdims=keepdim), ek.bool_)
    check(ek.all(x, dim, keepdim), a.astype(bool).all(axis=ax, keepdims=keepdim), ek.bool_)
    check(x.amax(dim, keepdim), a.max(axis=ax, keepdims=keepdim), dt)
    check(ek.amin(x, dim, keepdim), a.min(axis=ax, keepdims=keepdim), dt)
    if dt.is_floating_point:
        check(x.mean(dim, keepdim), a64.mean(axis=ax, keepdims=keepdim), dt, rtol=rt, atol=rt)
    else:
        with pytest.raises(ek.DtypeError, match="ek_reduce"):
            x.mean(dim)
        check(x.mean(dim, keepdim, dtype=ek.float64), a64.mean(axis=ax, keepdims=keepdim),
              ek.float64)


@pytest.mark.parametrize("dt", [ek.int32, ek.float32, ek.float64], ids=lambda d: d.name)
def test_max_min_with_dim(device, dt):
    a = sample(dt, (4, 5), seed=2)
    x = ek.from_numpy(a, device=device)
    for dim in (0, 1, -1):
        for keepdim in (False, True):
            r = x.max(dim, keepdim)
            assert isinstance(r, ek.ValuesIndices) and r._fields == ("values", "indices")
            values, indices = r
            check(values, a.max(axis=dim, keepdims=keepdim), dt)
            check(indices, np.argmax(a, axis=dim, keepdims=keepdim), ek.int64)
            r = ek.min(x, dim=dim, keepdim=keepdim)
            check(r.values, a.min(axis=dim, keepdims=keepdim), dt)
            check(r.indices, np.argmin(a, axis=dim, keepdims=keepdim), ek.int64)
    check(x.max(), a.max(), dt)
    check(ek.min(x), a.min(), dt)
    check(x.argmax(), np.argmax(a), ek.int64)
    check(x.argmin(dim=1, keepdim=True), np.argmin(a, axis=1, keepdims=True), ek.int64)
    y = ek.from_numpy(a[::-1].copy(), device=device)
    check(x.max(y), np.maximum(a, a[::-1]), dt)  # torch.max(a, b)
    check(ek.min(x, y), np.minimum(a, a[::-1]), dt)
    with pytest.raises(TypeError, match="amax"):
        x.max(dim=(0, 1))
    v = ek.empty(5, dtype=dt, device=device)
    i = ek.empty(5, dtype=ek.int64, device=device)
    r = x.max(0, out=(v, i))
    assert r.values is v and r.indices is i
    check(i, np.argmax(a, axis=0), ek.int64)


def test_reduce_nan_and_empty(device):
    x = ek.tensor([1.0, float("nan"), 3.0], device=device)
    assert math.isnan(x.max().item()) and x.argmax().item() == 1
    assert x.max(0).indices.item() == 1
    e = ek.empty(0, 3, device=device)
    assert e.sum().item() == 0 and e.prod().item() == 1
    assert not e.any().item() and e.all().item()
    assert math.isnan(e.mean().item())
    with pytest.raises(ek.ShapeError):
        e.max()
    with pytest.raises(ek.ShapeError):
        e.argmax()


@pytest.mark.parametrize("dt", [ek.float32, ek.float64], ids=lambda d: d.name)
def test_var_std_norm(device, dt):
    a = sample(dt, (3, 4, 5), seed=3)
    x = ek.from_numpy(a, device=device)
    a64 = a.astype(np.float64)
    for dim in (None, 1, (0, 2)):
        ax = _np_dims(dim)
        for corr in (0, 1, 2):
            check(x.var(dim, correction=corr), a64.var(axis=ax, ddof=corr), dt)
            check(ek.std(x, dim, correction=corr, keepdim=True),
                  a64.std(axis=ax, ddof=corr, keepdims=True), dt)
        check(x.var(dim, unbiased=False), a64.var(axis=ax), dt)
        check(x.norm(dim=dim), np.sqrt((a64 ** 2).sum(axis=ax)), dt)
        check(x.norm(1, dim), np.abs(a64).sum(axis=ax), dt)
        check(ek.norm(x, math.inf, dim), np.abs(a64).max(axis=ax), dt)
        check(x.norm("fro", dim, keepdim=True), np.sqrt((a64 ** 2).sum(axis=ax,
                                                                       keepdims=True)), dt)
    with pytest.raises(ek.InvalidArgumentError, match="p=3"):
        x.norm(3)
    with pytest.raises(ek.DtypeError):
        ek.ones(3, dtype=ek.int32, device=device).var()


def _softmax(a, dim):
    e = np.exp(a - a.max(axis=dim, keepdims=True))
    return e / e.sum(axis=dim, keepdims=True)


@pytest.mark.parametrize("dt", [ek.float16, ek.float32, ek.float64], ids=lambda d: d.name)
def test_softmax_log_softmax(device, dt):
    a = sample(dt, (3, 4, 6), seed=4) * 5
    x = ek.from_numpy(a, device=device)
    a64 = a.astype(np.float64)
    for dim in (0, 1, -1):
        s = x.softmax(dim)
        check(s, _softmax(a64, dim), dt)
        check(ek.log_softmax(x, dim=dim), np.log(_softmax(a64, dim)), dt,
              rtol=1e-2 if dt is ek.float16 else 1e-5, atol=1e-2 if dt is ek.float16 else 1e-6)
    check(ek.softmax(x), _softmax(a64, -1), dt)
    check(x.T.softmax(0), _softmax(a64.T, 0), dt)  # a strided view
    big = ek.tensor([1000.0, 1000.0, -float("inf")], device=device)
    assert big.softmax(0).tolist() == [0.5, 0.5, 0.0]
    if dt is ek.float32:
        check(ek.softmax(x, 1, dtype=ek.float64), _softmax(a64, 1), ek.float64, rtol=1e-6)
    with pytest.raises(ek.DtypeError, match="ek_softmax"):
        ek.ones(3, dtype=ek.int32, device=device).softmax(0)


@pytest.mark.parametrize("dt", [ek.bool_, ek.int32, ek.int64, ek.float32, ek.float64],
                         ids=lambda d: d.name)
def test_cumsum_cumprod(device, dt):
    a = sample(dt, (3, 5), seed=5)
    if kind(dt) == 1:
        a = (a % 4).astype(dt.numpy)
    x = ek.from_numpy(a, device=device)
    acc = ek.int64 if kind(dt) < 2 else dt
    a64 = a.astype(np.int64 if kind(dt) < 2 else np.float64)
    for dim in (0, 1, -1):
        check(x.cumsum(dim), np.cumsum(a64, axis=dim), acc, rtol=1e-5, atol=1e-5)
        check(ek.cumprod(x, dim), np.cumprod(a64, axis=dim), acc, rtol=1e-5, atol=1e-5)
        check(x.T.cumsum(dim), np.cumsum(a64.T, axis=dim), acc, rtol=1e-5, atol=1e-5)
    if acc is dt:
        y = x.clone()
        assert y.cumsum_(1) is y
        check(y, np.cumsum(a64, axis=1), acc, rtol=1e-5, atol=1e-5)
    with pytest.raises(ek.Error):
        x.cumsum(5)


def test_reduction_errors(device):
    x = ek.ones(2, 3, device=device)
    with pytest.raises(ek.Error) as ei:
        x.sum(dim=4)
    assert "ek_reduce" in ei.value.message
    with pytest.raises(ek.ShapeError):
        x.sum(dim=1, out=ek.empty(3, device=device))
    out = ek.empty(2, device=device)
    assert x.sum(1, out=out) is out and out.tolist() == [3.0, 3.0]
