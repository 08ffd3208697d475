"""uint16, uint32 and uint64 (issue 18): NumPy and DLPack round trips, NumPy's
promotion of unsigned with signed, uint64 values above 2**63 through ops
whose result depends on the unsigned order, tolist()/item() as Python ints."""

import numpy as np
import pytest

import ek

UNSIGNED = [ek.uint16, ek.uint32, ek.uint64]
BIG = np.array([0, 1, 7, 2**63 - 1, 2**63, 2**63 + 5, 2**64 - 1, 2**64 - 4, 12345, 3], np.uint64)
OTHER = np.array([3, 0, 7, 2**63, 2**63 - 1, 2, 5, 2**64 - 1, 64, 70], np.uint64)


@pytest.mark.parametrize("dt", UNSIGNED, ids=str)
def test_numpy_and_dlpack_round_trips(dt, device):
    info = np.iinfo(dt.numpy)
    a = np.array([[0, 1, info.max], [info.max - 1, 2, 3]], dt.numpy)
    t = ek.from_numpy(a, device=device)
    assert t.dtype is dt and ek.dtype(dt.numpy) is dt
    np.testing.assert_array_equal(t.numpy(), a)
    np.testing.assert_array_equal(t.transpose(0, 1).numpy(), a.T)  # non-contiguous
    assert t.tolist() == a.tolist() and t[0, 2].item() == int(info.max)
    if device == "cpu":
        np.testing.assert_array_equal(np.from_dlpack(t), a)
        back = ek.from_dlpack(a)
        assert back.dtype is dt
        np.testing.assert_array_equal(back.numpy(), a)
    e = ek.from_numpy(np.zeros((0, 3), dt.numpy), device=device)
    assert e.numpy().shape == (0, 3) and e.numpy().dtype == dt.numpy


@pytest.mark.parametrize("a,b,want", [(ek.uint16, ek.int16, ek.int32), (ek.uint32, ek.int32, ek.int64),
                                      (ek.uint64, ek.int64, ek.float64), (ek.uint8, ek.uint64, ek.uint64),
                                      (ek.uint16, ek.int64, ek.int64)])
def test_promotion_follows_numpy(a, b, want):
    x, y = ek.ones(2, dtype=a), ek.ones(2, dtype=b)
    assert (x + y).dtype is want
    assert np.result_type(a.numpy, b.numpy) == want.numpy


def test_uint64_order_dependent_ops(device):
    a, b = ek.from_numpy(BIG, device=device), ek.from_numpy(OTHER, device=device)
    with np.errstate(divide="ignore"):
        np.testing.assert_array_equal((a < b).numpy(), BIG < OTHER)
        np.testing.assert_array_equal(ek.maximum(a, b).numpy(), np.maximum(BIG, OTHER))
        np.testing.assert_array_equal((a + b).numpy(), BIG + OTHER)
        nz = OTHER != 0
        np.testing.assert_array_equal((a // b).numpy()[nz], BIG[nz] // OTHER[nz])
        np.testing.assert_array_equal((a % b).numpy()[nz], BIG[nz] % OTHER[nz])
    np.testing.assert_array_equal((a >> 3).numpy(), BIG >> np.uint64(3))
    assert a.max().item() == 2**64 - 1 and a.argmax().item() == 6
    assert a.sum().dtype is ek.uint64 and a.sum().item() == int(BIG.sum(dtype=np.uint64))
    np.testing.assert_array_equal((a > 2**63).numpy(), BIG > 2**63)
    np.testing.assert_array_equal(a.clamp(2**63, 2**64 - 10).numpy(), np.clip(BIG, 2**63, 2**64 - 10))


def test_bad_fill_value_names_value_and_dtype():
    with pytest.raises(ek.Error, match="uint16"):
        ek.full((2,), 70000, dtype=ek.uint16)
