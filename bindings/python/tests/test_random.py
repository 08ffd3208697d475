"""Random numbers (Philox through ek_random): seeding, distributions, devices."""

import numpy as np
import pytest

import ek


def test_manual_seed_reproducible(device):
    ek.manual_seed(1234)
    a = ek.randn(1000, device=device).numpy()
    u = ek.rand(10, device=device).numpy()
    ek.manual_seed(1234)
    np.testing.assert_array_equal(ek.randn(1000, device=device).numpy(), a)
    np.testing.assert_array_equal(ek.rand(10, device=device).numpy(), u)
    assert ek.random_state(device) == (1234, 1010)
    ek.manual_seed(1235)
    assert not np.array_equal(ek.randn(1000, device=device).numpy(), a)


def test_same_numbers_on_every_context(device):
    ek.manual_seed(7)
    ref = ek.randn(4, 5, device="cpu").numpy()
    ctx = ek.Context(device)          # created after manual_seed: seeded too
    np.testing.assert_array_equal(ek.randn(4, 5, device=ctx).numpy(), ref)
    ctx.manual_seed(7)
    assert ctx.random_state() == (7, 0)
    np.testing.assert_array_equal(ek.randn(4, 5, device=ctx).numpy(), ref)
    ek.manual_seed(7, device=device)
    np.testing.assert_array_equal(ek.randn(20, device=device).numpy(), ref.reshape(-1))


def test_distributions(device):
    ek.manual_seed(0)
    u = ek.rand(20000, device=device).numpy()
    assert u.dtype == np.float32 and u.min() >= 0 and u.max() < 1
    assert abs(u.mean() - 0.5) < 0.02
    n = ek.randn(200, 100, dtype=ek.float64, device=device).numpy()
    assert n.shape == (200, 100) and n.dtype == np.float64
    assert abs(n.mean()) < 0.03 and abs(n.std() - 1) < 0.03
    g = ek.normal(5.0, 0.5, (100, 100), device=device).numpy()
    assert g.dtype == np.float32 and abs(g.mean() - 5) < 0.02 and abs(g.std() - 0.5) < 0.02
    ek.manual_seed(2)
    a = ek.normal(0.0, 0.1, (3, 4), device=device)
    ek.manual_seed(2)
    b = ek.empty(3, 4, device=device).normal_(0.0, 0.1)
    assert a.tolist() == b.tolist()
    r = ek.randint(3, 9, (5000,), device=device).numpy()
    assert r.dtype == np.int64 and r.min() == 3 and r.max() == 8
    r = ek.randint(4, size=(100,), dtype=ek.int8, device=device)
    assert r.dtype is ek.int8 and 0 <= r.numpy().min() and r.numpy().max() < 4
    b = ek.bernoulli(0.25, size=(20000,), device=device).numpy()
    assert b.dtype == np.float32 and set(np.unique(b)) <= {0.0, 1.0}
    assert abs(b.mean() - 0.25) < 0.02
    assert ek.bernoulli(1.0, size=(3,), dtype=ek.bool_, device=device).tolist() == [True] * 3
    p = ek.tensor([0.0, 1.0, 0.0, 1.0], device=device)
    assert ek.bernoulli(p).tolist() == [0.0, 1.0, 0.0, 1.0]
    assert p.bernoulli(0.0).tolist() == [0.0] * 4
    assert ek.randn_like(p).shape == (4,) and ek.rand_like(p).dtype is ek.float32
    assert ek.randint_like(p, 5).dtype is ek.float32


def test_in_place_fills(device):
    t = ek.empty(1000, dtype=ek.float64, device=device)
    assert t.uniform_(-2, 3) is t
    v = t.numpy()
    assert v.min() >= -2 and v.max() < 3
    t.normal_(10, 0.5)
    assert abs(t.numpy().mean() - 10) < 0.1
    i = ek.empty(100, dtype=ek.int32, device=device)
    i.random_(5, 7)
    assert set(np.unique(i.numpy())) <= {5, 6}
    i.random_(2)
    assert set(np.unique(i.numpy())) <= {0, 1}
    i.bernoulli_(1.0)
    assert i.numpy().sum() == 100
    # a strided view is filled in place
    m = ek.zeros(4, 6, device=device)
    m[:, ::2].uniform_(1, 2)
    a = m.numpy()
    assert (a[:, 1::2] == 0).all() and (a[:, ::2] >= 1).all()


def test_random_errors(device):
    with pytest.raises(ek.InvalidArgumentError, match="ek_random"):
        ek.rand(3, device=device).uniform_(1, 0)
    with pytest.raises(ek.DtypeError):
        ek.rand(3, dtype=ek.int32, device=device)
    with pytest.raises(ek.InvalidArgumentError):
        ek.bernoulli(1.5, size=(2,), device=device)
    with pytest.raises(ek.InvalidArgumentError):
        ek.randint(5, 5, (2,), device=device)
    with pytest.raises(TypeError):
        ek.randint(5)
