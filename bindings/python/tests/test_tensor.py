import numpy as np
import pytest

import ek

NP_DTYPES = [ek.bool_, ek.uint8, ek.int8, ek.int16, ek.int32, ek.int64, ek.float16,
             ek.float32, ek.float64]


def sample(dt, shape=(3, 4)):
    rng = np.random.default_rng(0)
    if dt is ek.bool_:
        return rng.integers(0, 2, shape).astype(np.bool_)
    if dt.is_floating_point:
        return rng.standard_normal(shape).astype(dt.numpy)
    return rng.integers(0, 100, shape).astype(dt.numpy)


def test_dtypes_attributes():
    assert ek.float32.name == "float32" and ek.float32.itemsize == 4
    assert ek.bfloat16.itemsize == 2 and ek.bfloat16.numpy is None
    assert ek.bool_.numpy == np.bool_
    assert ek.dtype("float16") is ek.float16
    assert ek.dtype(np.int16) is ek.int16
    assert ek.dtype("bool_") is ek.bool_
    assert ek.dtype(np.complex64) is ek.complex64
    with pytest.raises(ek.DtypeError):
        ek.dtype(np.clongdouble)


@pytest.mark.parametrize("dt", NP_DTYPES, ids=lambda d: d.name)
def test_round_trip(device, dt):
    a = sample(dt)
    t = ek.from_numpy(a, device=device)
    assert t.shape == a.shape and t.dtype is dt and t.device.startswith(device)
    assert t.strides == (4, 1) and t.ndim == 2 and t.numel() == 12 and len(t) == 3
    assert t.is_contiguous() and t.data_ptr() != 0
    np.testing.assert_array_equal(t.numpy(), a)
    assert t.tolist() == a.tolist()
    np.testing.assert_array_equal(ek.tensor(a, device=device).numpy(), a)
    np.testing.assert_array_equal(np.asarray(t), a)


def test_bfloat16(device):
    t = ek.tensor([1.0, 2.5, -3.0], dtype=ek.bfloat16, device=device)
    assert t.dtype is ek.bfloat16
    with pytest.raises(ek.DtypeError, match="bfloat16"):
        t.numpy()
    assert t.astype(ek.float32).numpy().tolist() == [1.0, 2.5, -3.0]
    assert t.tolist() == [1.0, 2.5, -3.0]
    assert "bfloat16" in repr(t)


def test_noncontiguous_from_numpy(device):
    a = np.arange(30, dtype=np.int32).reshape(5, 6)[::2, ::-3]
    np.testing.assert_array_equal(ek.from_numpy(a, device=device).numpy(), a)


def test_factories(device):
    assert ek.empty(2, 3, device=device).shape == (2, 3)
    assert ek.zeros((2, 3), device=device).dtype is ek.float32
    np.testing.assert_array_equal(ek.zeros(2, 3, device=device).numpy(), np.zeros((2, 3)))
    np.testing.assert_array_equal(ek.ones([4], dtype=ek.int8, device=device).numpy(), np.ones(4))
    f = ek.full((2, 2), 2**62 + 1, dtype=ek.int64, device=device)
    assert f.numpy().tolist() == [[2**62 + 1] * 2] * 2
    assert ek.full((2,), True, device=device).dtype is ek.bool_
    np.testing.assert_array_equal(ek.arange(5, device=device).numpy(), np.arange(5))
    np.testing.assert_allclose(ek.arange(1, 2, 0.25, device=device).numpy(),
                               np.arange(1, 2, 0.25, dtype=np.float32))
    np.testing.assert_array_equal(ek.arange(10, 0, -3, device=device).numpy(), np.arange(10, 0, -3))
    assert ek.arange(3, dtype=ek.float64, device=device).dtype is ek.float64
    assert ek.zeros_like(f).dtype is ek.int64


def test_tensor_from_python(device):
    t = ek.tensor([[1, 2], [3, 4]], device=device)
    assert t.dtype is ek.int64 and t.tolist() == [[1, 2], [3, 4]]
    assert ek.tensor([1.5], device=device).dtype is ek.float32
    assert ek.tensor(True, device=device).item() is True
    s = ek.tensor(3.5, device=device)
    assert s.shape == () and s.item() == 3.5 and float(s) == 3.5
    assert ek.tensor([1.7, -2.7], dtype=ek.int32, device=device).tolist() == [1, -2]
    assert ek.tensor(np.zeros(2, np.complex64), device=device).dtype is ek.complex64
    with pytest.raises(ek.DtypeError):
        ek.tensor(np.zeros(2, np.clongdouble), device=device)
    with pytest.raises(ValueError):
        t.item()
    with pytest.raises(TypeError):
        len(s)


def test_repr(device):
    r = repr(ek.arange(3, device=device))
    assert "ek.tensor([0, 1, 2]" in r and "ek.int64" in r


def test_fill_copy_cast(device):
    t = ek.zeros(2, 3, dtype=ek.float64, device=device)
    t.fill_(2.5)
    assert t.numpy().tolist() == [[2.5] * 3] * 2
    t.copy_(ek.tensor([1, 2, 3], device=device))  # broadcast + cast
    assert t.tolist() == [[1.0, 2.0, 3.0]] * 2
    t.copy_(np.array([[7], [8]]))
    assert t.tolist() == [[7.0] * 3, [8.0] * 3]
    assert t.astype(ek.int16).dtype is ek.int16
    assert t.to(ek.float64) is t
    assert t.to(ek.float32).dtype is ek.float32
    with pytest.raises(ek.ShapeError):
        t.copy_(ek.zeros(4, device=device))


def test_fill_is_exact_and_refuses_values_that_do_not_fit(device):
    t = ek.zeros(2, dtype=ek.int64, device=device)
    assert t.fill_(2**60 + 1).tolist() == [2**60 + 1] * 2
    assert t.fill_(-(2**63)).tolist() == [-(2**63)] * 2
    with pytest.raises(ek.InvalidArgumentError, match="9223372036854775808 does not fit"):
        t.fill_(2**63)  # a uint64 scalar
    with pytest.raises(ek.InvalidArgumentError, match="int64"):
        t.fill_(9.25e18)
    with pytest.raises(OverflowError):
        t.fill_(2**64)
    assert t.tolist() == [-(2**63)] * 2  # untouched by the failures
    i8 = ek.zeros(3, dtype=ek.int8, device=device)
    with pytest.raises(ek.InvalidArgumentError, match="value 300 does not fit the integer dtype int8"):
        i8.fill_(300)
    with pytest.raises(ek.InvalidArgumentError, match="nan"):
        i8.fill_(float("nan"))
    assert i8.fill_(-128.9).tolist() == [-128] * 3
    assert ek.zeros(1, dtype=ek.uint8, device=device).fill_(255).tolist() == [255]
    assert ek.zeros(1, dtype=ek.bool_, device=device).fill_(float("nan")).tolist() == [True]
    assert ek.zeros(1, dtype=ek.bool_, device=device).fill_(True).tolist() == [True]
    assert ek.zeros(1, dtype=ek.float64, device=device).fill_(2**64 - 1).tolist() == [2.0**64]


def test_float_to_int_casts_saturate(device):
    x = ek.tensor(np.array([np.nan, np.inf, -np.inf, 3e9, -3e9, 1e300, 2.9, -2.9]), device=device)
    assert x.astype(ek.int32).tolist() == [0, 2**31 - 1, -(2**31), 2**31 - 1, -(2**31), 2**31 - 1, 2, -2]
    assert x.astype(ek.uint8).tolist() == [0, 255, 0, 255, 0, 255, 2, 0]
    assert x.astype(ek.int64).tolist() == [0, 2**63 - 1, -(2**63), 3 * 10**9, -3 * 10**9, 2**63 - 1,
                                           2, -2]


def test_to_device_and_back(device):
    a = np.arange(12, dtype=np.float32).reshape(3, 4)
    t = ek.from_numpy(a).to(device)
    assert t.device.startswith(device)
    back = t.T.cpu()
    assert back.device == "cpu"
    np.testing.assert_array_equal(back.numpy(), a.T)
    u = t.to(device, ek.int32)
    assert u.dtype is ek.int32


def test_lifetimes_release_handles():
    import gc
    gc.collect()
    before = ek.live_handles()
    t = ek.zeros(10)
    v = t[2:5]
    del t
    assert v.numpy().tolist() == [0.0] * 3  # view keeps storage
    del v
    gc.collect()
    assert ek.live_handles() == before


def test_context_num_threads():
    # Threads for large CPU ops; the results do not depend on the count.
    one, four = ek.Context("cpu", num_threads=1), ek.Context("cpu", num_threads=4)
    assert one.config["num_threads"] == 1 and four.config["num_threads"] == 4
    assert ek.Context("cpu").config["num_threads"] >= 1
    data = [((i * 7919) % 1000) / 997.0 for i in range(1 << 19)]
    sums = [ek.tensor(data, dtype="float32", device=c).sum().item() for c in (one, four)]
    assert sums[0] == sums[1]
    with pytest.raises(ek.InvalidArgumentError, match="num_threads -1"):
        ek.Context("cpu", num_threads=-1)


def test_context_index_check():
    # CUDA gathers may report a bad index at the next synchronization instead.
    assert ek.Context("cpu").config["index_check"] == "call"
    assert ek.Context("cpu", index_check="deferred").config["index_check"] == "deferred"
    with pytest.raises(ek.InvalidArgumentError, match="index_check 'later'"):
        ek.Context("cpu", index_check="later")
    if ek.cuda.is_available():
        assert ek.Context("cuda").config["index_check"] == "deferred"  # CUDA's default
        ctx = ek.Context("cuda", index_check="deferred")
        x = ek.arange(4.0, device=ctx)
        bad = ek.tensor([1, 9], device=ctx)
        ek.index_select(x, 0, bad)  # returns at once
        with pytest.raises(ek.EkIndexError, match=r"ek_index_select .*met index 9.*deferred"):
            ctx.synchronize()
        ctx.synchronize()  # reported once
        assert ek.index_select(x, 0, ek.tensor([3, 0], device=ctx)).tolist() == [3.0, 0.0]
        at_call = ek.Context("cuda", index_check="call")
        with pytest.raises(ek.EkIndexError, match="ek_index_select: index 9 is out of range"):
            ek.index_select(ek.arange(4.0, device=at_call), 0, ek.tensor([1, 9], device=at_call))


def test_context_explicit():
    ctx = ek.Context("cpu", memory_limit=1 << 24, log_level="off")
    assert ctx.device == "cpu" and ctx.config["memory_limit"] == 1 << 24
    t = ek.zeros(4, device=ctx)
    assert t.context is ctx
    with pytest.raises(ek.InvalidArgumentError, match="still alive"):
        ctx.close()
    del t
    import gc
    gc.collect()
    ctx.close()
    assert "closed" in repr(ctx)
    with pytest.raises(ek.InvalidArgumentError):
        ctx.memory_stats()
    assert ek.context("cpu") is ek.context("cpu")


def test_context_memory_limit_oom():
    ctx = ek.Context("cpu", memory_limit=1 << 20)
    with pytest.raises(ek.OutOfMemoryError) as ei:
        ek.empty(1 << 22, dtype=ek.uint8, device=ctx)
    assert isinstance(ei.value, MemoryError) and ei.value.message


def test_bad_device():
    with pytest.raises(ek.InvalidArgumentError):
        ek.zeros(2, device="tpu")


def test_no_cuda_device_error():
    if ek.device_count("cuda") > 0:
        pytest.skip("a GPU is present")
    with pytest.raises(ek.NoDeviceError):
        ek.Context("cuda:0")
    with pytest.raises(ek.NoDeviceError):
        ek.device_info("cuda:0")


def test_version_and_info():
    # The library's version string (ek_version_string) spells out its number
    # (ek_version), and equals this package's version: both come from meson.build.
    assert ek.version() == ".".join(map(str, ek.version_info()))
    assert ek.version() == ek.__version__
    assert len(ek.version_info()) == 3
    assert ek.device_count("cpu") == 1
    info = ek.device_info("cpu")
    assert info["type"] == "cpu" and info["total_memory"] > 0
