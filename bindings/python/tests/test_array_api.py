"""ek.array_api against the Python array API standard (2024.12), on every
device; the semantics checked are the specification's, the values NumPy's."""

import math

import numpy as np
import pytest

import ek
import ek.array_api as xp
from ek.array_api import _pending


def A(data, device, dtype=None):
    return xp.asarray(data, dtype=dtype, device=device)


def test_namespace_and_versions(device):
    x = A([1.0, 2.0], device)
    assert x.__array_namespace__() is xp
    assert x.__array_namespace__(api_version="2023.12") is xp
    with pytest.raises(ValueError, match=r"api_version '2021\.12' is not supported"):
        x.__array_namespace__(api_version="2021.12")
    assert xp.__array_api_version__ == "2024.12"


def test_info(device):
    info = xp.__array_namespace_info__()
    assert info.default_device() == "cpu"
    assert device in info.devices() or device == "cuda"
    d = info.default_dtypes()
    assert d["real floating"] is xp.float32 and d["integral"] is d["indexing"] is xp.int64
    assert set(info.dtypes(kind="signed integer")) == {"int8", "int16", "int32", "int64"}
    assert "float16" not in info.dtypes()
    assert info.capabilities()["boolean indexing"] is True
    with pytest.raises(ValueError, match="device 'tpu' is not one of"):
        info.dtypes(device="tpu")


def test_dtype_functions():
    assert xp.result_type(xp.int8, xp.uint8) is xp.int16
    assert xp.result_type(xp.float32, xp.float64, 1.0) is xp.float64
    assert xp.result_type(xp.int8, 300) is xp.int8
    assert xp.result_type(True) is xp.bool
    with pytest.raises(TypeError, match="do not promote"):
        xp.result_type(xp.int32, xp.float32)
    assert xp.can_cast(xp.int8, xp.int64) and not xp.can_cast(xp.int64, xp.int8)
    assert not xp.can_cast(xp.bool, xp.int8) and not xp.can_cast(xp.float32, xp.int64)
    assert xp.isdtype(xp.uint8, "unsigned integer") and xp.isdtype(xp.int8, ("bool", "integral"))
    assert not xp.isdtype(xp.float32, "integral") and xp.isdtype(xp.float32, xp.float32)
    with pytest.raises(ValueError, match="unknown kind 'floating'"):
        xp.isdtype(xp.float32, "floating")
    fi = xp.finfo(xp.float64)
    assert (fi.bits, fi.eps, fi.max, fi.dtype) == (64, np.finfo(np.float64).eps,
                                                   np.finfo(np.float64).max, xp.float64)
    assert xp.iinfo(xp.int16).min == -32768 and xp.iinfo(xp.uint8).max == 255
    with pytest.raises(TypeError, match="int32 is not a floating dtype"):
        xp.finfo(xp.int32)


def test_array_attributes(device):
    x = A(np.arange(24.0).reshape(2, 3, 4), device)
    assert x.mT.shape == (2, 4, 3) and np.array_equal(x.mT.numpy(), np.swapaxes(x.numpy(), -1, -2))
    assert x.device.startswith(device) and xp.size(x) == 24
    assert x.to_device(x.device) is x
    moved = x.to_device("cpu", stream=ek.current_stream(device))
    assert moved.device == "cpu" and np.array_equal(moved.numpy(), x.numpy())
    with pytest.raises(TypeError, match="stream must be an ek.Stream, not int"):
        x.to_device("cpu", stream=0)
    assert int(A(7, device).__index__()) == 7 and [10, 11, 12][A(1, device)] == 11
    with pytest.raises(TypeError, match="needs a 0-d integer tensor"):
        A(1.5, device).__index__()
    assert complex(A(2.0, device)) == 2 + 0j and float(A(3, device)) == 3.0
    with pytest.raises(ValueError, match="needs at least 2 dims"):
        A([1.0], device).mT
    assert x.__dlpack_device__()[0] in (1, 2)
    assert np.array_equal(xp.from_dlpack(x).numpy(), x.numpy())


def test_asarray_defaults_and_copy(device):
    assert A(1, device).dtype is xp.int64 and A(1.0, device).dtype is xp.float32
    assert A(True, device).dtype is xp.bool and A([[1, 2.5]], device).dtype is xp.float32
    assert A(0.1, device, xp.float64).item() == 0.1  # not through float32
    x = A([1, 2], device)
    assert xp.asarray(x) is x and xp.asarray(x, copy=True) is not x
    with pytest.raises(ValueError, match="copy=False"):
        xp.asarray(x, dtype=xp.float32, copy=False)
    with pytest.raises(ValueError, match="copy=False, but a list cannot be shared"):
        xp.asarray([1, 2], copy=False)


def test_asarray_shares_dlpack_memory():
    n = np.arange(4.0)
    shared, copied = xp.asarray(n, copy=False), xp.asarray(n, copy=True)
    n[0] = 9
    assert shared[0].item() == 9 and copied[0].item() == 0
    assert xp.asarray(n).dtype is xp.float64  # a NumPy array keeps its dtype


def test_creation(device):
    assert xp.arange(5, device=device).dtype is xp.int64
    assert xp.arange(0, 1, 0.25, device=device).tolist() == [0, 0.25, 0.5, 0.75]
    assert xp.arange(5, 1, device=device).shape == (0,)
    assert xp.full((2,), True, device=device).dtype is xp.bool
    assert xp.full((2,), 3, device=device).dtype is xp.int64
    assert xp.eye(2, 3, k=1, device=device).tolist() == [[0, 1, 0], [0, 0, 1]]
    a, b = xp.meshgrid(A([1, 2, 3], device), A([4, 5], device))
    na, nb = np.meshgrid([1, 2, 3], [4, 5])
    assert np.array_equal(a.numpy(), na) and np.array_equal(b.numpy(), nb)
    assert xp.tril(A(np.ones((3, 3)), device), k=-1).numpy().sum() == 3
    assert xp.zeros_like(A([1, 2], device), dtype=xp.float64).dtype is xp.float64


def test_reductions(device):
    n = np.arange(1, 7, dtype=np.int8).reshape(2, 3)
    x = A(n, device)
    assert xp.sum(x).dtype is xp.int64 and xp.sum(x).item() == 21
    assert xp.sum(x, axis=()).shape == (2, 3) and xp.sum(x, axis=()).dtype is xp.int64
    assert xp.sum(x, dtype=xp.int16).dtype is xp.int16
    assert xp.prod(x, axis=1, keepdims=True).tolist() == [[6], [120]]
    assert xp.prod(x, dtype=xp.int8).item() == np.prod(n, dtype=np.int8)  # wraps as int8
    f = A(n.astype(np.float32), device)
    assert xp.sum(f, dtype=xp.float64).dtype is xp.float64
    assert xp.max(f, axis=(0, 1)).item() == 6 and xp.min(f, axis=0).tolist() == [1, 2, 3]
    assert np.allclose(xp.var(f, correction=1).item(), np.var(n, ddof=1))
    assert np.allclose(xp.std(f, axis=0).numpy(), np.std(n, axis=0))
    assert xp.var(f, axis=()).tolist() == [[0] * 3] * 2
    assert xp.argmax(f, keepdims=True).shape == (1, 1)
    assert xp.all(x, axis=()).dtype is xp.bool and xp.any(x).item() is True


def test_cumulative(device):
    x = A([1, 2, 3], device, xp.int8)
    assert xp.cumulative_sum(x).tolist() == [1, 3, 6]
    assert xp.cumulative_sum(x).dtype is xp.int64
    assert xp.cumulative_sum(x, include_initial=True).tolist() == [0, 1, 3, 6]
    assert xp.cumulative_prod(x, include_initial=True, dtype=xp.int16).tolist() == [1, 1, 2, 6]
    m = A(np.ones((2, 2)), device)
    assert xp.cumulative_sum(m, axis=1, include_initial=True).shape == (2, 3)
    with pytest.raises(ValueError, match="axis is needed for a 2-D array"):
        xp.cumulative_sum(m)


def test_elementwise_and_clip(device):
    x = A([-1.5, 0.5, 2.5], device)
    assert xp.equal(x, x).tolist() == [True] * 3
    assert xp.round(x).tolist() == [-2, 0, 2]
    assert xp.bitwise_invert(A([0], device, xp.int8)).tolist() == [-1]
    assert xp.clip(x).tolist() == x.tolist()
    c = xp.clip(A([1, 5, 9], device, xp.int8), 2, 6)
    assert c.tolist() == [2, 5, 6] and c.dtype is xp.int8


def test_manipulation(device):
    n = np.arange(6).reshape(2, 3)
    x = A(n, device)
    assert np.array_equal(xp.concat([x, x], axis=None).numpy(), np.concatenate([n, n], None))
    assert np.array_equal(xp.repeat(x, A([1, 2], device), axis=0).numpy(),
                          np.repeat(n, [1, 2], axis=0))
    assert np.array_equal(xp.repeat(x, 2).numpy(), np.repeat(n, 2))
    assert xp.expand_dims(x, axis=-1).shape == (2, 3, 1)
    assert xp.squeeze(xp.expand_dims(x, axis=0), axis=0).shape == (2, 3)
    with pytest.raises(ValueError, match="axis 1 has size 3, not 1"):
        xp.squeeze(x, axis=1)
    with pytest.raises(ValueError, match="copy=False but no view exists"):
        xp.reshape(x.mT, (6,), copy=False)
    r = xp.reshape(x, (3, 2), copy=True)
    r[0, 0] = 99
    assert x[0, 0].item() == 0
    assert xp.permute_dims(x, (1, 0)).shape == (3, 2)
    assert xp.broadcast_to(A([1], device), (2, 2)).shape == (2, 2)
    with pytest.raises(ValueError, match="does not broadcast"):
        xp.broadcast_to(x, (3, 3))
    assert np.array_equal(xp.take(x, A([2, 0], device), axis=1).numpy(), n[:, [2, 0]])
    idx = A([[0, 2], [1, 1]], device)
    assert np.array_equal(xp.take_along_axis(x, idx, axis=1).numpy(),
                          np.take_along_axis(n, idx.numpy(), 1))


def test_searching(device):
    x = A([[0, 3], [4, 0]], device)
    rows, cols = xp.nonzero(x)
    assert rows.tolist() == [0, 1] and cols.tolist() == [1, 0]
    with pytest.raises(ValueError, match="x is 0-d"):
        xp.nonzero(A(1, device))
    assert xp.where(x > 0, x, A(-1, device)).tolist() == [[-1, 3], [4, -1]]


def _complex(device):
    """[1+2j], or a float array where ek has no complex dtype yet (the
    wrapper raises NotImplementedError before looking at it)."""
    return A([1 + 2j], device) if hasattr(xp, "complex64") else A([1.0], device)


_PENDING_CALLS = {
    "sort": lambda d: (xp.sort(A([3, 1, 2], d)), [1, 2, 3]),
    "argsort": lambda d: (xp.argsort(A([3, 1, 2], d), descending=True), [0, 2, 1]),
    "searchsorted": lambda d: (xp.searchsorted(A([1, 3, 5], d), A([3], d), side="right"), [2]),
    "unique_values": lambda d: (xp.unique_values(A([2, 1, 2], d)), [1, 2]),
    "unique_counts": lambda d: (xp.unique_counts(A([2, 1, 2], d)).counts, [1, 2]),
    "unique_inverse": lambda d: (xp.unique_inverse(A([2, 1, 2], d)).inverse_indices, [1, 0, 1]),
    "unique_all": lambda d: (xp.unique_all(A([2, 1, 2, 1], d)).indices, [1, 0]),
    "count_nonzero": lambda d: (xp.count_nonzero(A([[0, 1], [2, 3]], d), axis=1), [1, 2]),
    "diff": lambda d: (xp.diff(A([1, 4, 9], d)), [3, 5]),
    "tensordot": lambda d: (xp.tensordot(A([[1.0, 2.0]], d), A([[3.0, 4.0]], d), axes=2), 11.0),
    "vecdot": lambda d: (xp.vecdot(A([1.0, 2.0], d), A([3.0, 4.0], d)), 11.0),
}
if hasattr(xp, "complex64"):
    _PENDING_CALLS |= {
        "real": lambda d: (xp.real(_complex(d)), [1.0]),
        "imag": lambda d: (xp.imag(_complex(d)), [2.0]),
        "conj": lambda d: (xp.conj(_complex(d)), [1 - 2j]),
    }


def test_complex_parts_of_real_arrays(device):
    # As NumPy: the array itself (a copy), and zeros for imag.
    x = A([1.5, -2.0], device)
    for fn, want in ((xp.real, [1.5, -2.0]), (xp.conj, [1.5, -2.0]), (xp.imag, [0.0, 0.0])):
        y = fn(x)
        assert y.tolist() == want and y.dtype == x.dtype and y is not x


@pytest.mark.parametrize("name", sorted(_PENDING_CALLS))
def test_functions_over_other_ek_work(device, name):
    missing = _pending.missing(name)
    if missing:
        with pytest.raises(NotImplementedError, match=rf"needs ek\.{missing[0]}"):
            _PENDING_CALLS[name](device)
        pytest.skip(f"ek.{', ek.'.join(missing)} not in this ek package yet")
    got, want = _PENDING_CALLS[name](device)
    assert got.tolist() == want


def test_every_standard_name_is_defined_or_documented():
    from ek.array_api import _table
    rows = _table.rows()
    assert len(rows) >= 130
    for name, status, _ in rows:
        assert status in ("yes", "waits", "no"), name
        if status == "yes":
            v = getattr(xp, name)
            assert callable(v) or isinstance(v, ek.DType) or name in _table.CONSTANTS, name
    assert not math.isnan(xp.pi) and xp.newaxis is None


def test_dlpack_protocol_as_the_standard_says():
    x = xp.asarray([1.0, 2.0], dtype=xp.float64)
    shared = np.from_dlpack(x)
    copied = np.from_dlpack(x, copy=True)  # x.__dlpack__(copy=True, max_version=...)
    x[0] = 5.0
    assert shared[0] == 5.0 and copied[0] == 1.0
    assert x.__dlpack__(dl_device=x.__dlpack_device__(), max_version=(1, 0)) is not None
