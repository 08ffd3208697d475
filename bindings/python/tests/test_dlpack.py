"""Zero-copy interchange: DLPack with NumPy (CPU) and PyTorch (CPU and CUDA),
__cuda_array_interface__."""

import ctypes
import gc

import numpy as np
import pytest

import ek
from ek_helpers import NP_DTYPES, sample


def _allocated(device="cpu"):
    gc.collect()
    return ek.memory_stats(device)["allocated_bytes"]


@pytest.mark.parametrize("dt", NP_DTYPES, ids=lambda d: d.name)
def test_numpy_from_ek_shares_memory(dt):
    a = sample(dt, (3, 4))
    t = ek.from_numpy(a)
    n = np.from_dlpack(t)
    assert n.dtype == a.dtype and n.shape == (3, 4)
    np.testing.assert_array_equal(n, a)
    t[0, 0] = 1
    assert n[0, 0] == 1  # same memory


def test_numpy_from_ek_views_and_lifetime():
    before = _allocated()
    t = ek.arange(24, dtype=ek.float32).reshape(2, 3, 4)
    v = t.permute(2, 0, 1)[::2, :, 1:]
    n = np.from_dlpack(v)
    np.testing.assert_array_equal(n, v.numpy())
    assert n.strides == tuple(s * 4 for s in v.strides)
    z = np.from_dlpack(ek.tensor(3.5))  # 0-d
    assert z.shape == () and z == 3.5
    del t, v
    assert _allocated() > before  # NumPy holds the storage
    n[0, 0, 0] = 42.0             # and it is still writable, valid memory
    del n, z
    assert _allocated() == before


def test_capsules_unconsumed_and_versioned():
    before = _allocated()
    t = ek.ones(1000)
    c1 = t.__dlpack__()
    c2 = t.__dlpack__(max_version=(1, 0))
    assert "dltensor" in repr(c1) and "dltensor_versioned" in repr(c2)
    assert t.__dlpack_device__() == (1, 0)
    del t, c1, c2
    assert _allocated() == before
    t = ek.arange(5)
    u = ek.from_dlpack(t.__dlpack__())  # a raw capsule
    assert u.tolist() == [0, 1, 2, 3, 4]
    cap = t.__dlpack__()
    ek.from_dlpack(cap)
    with pytest.raises(ek.InvalidArgumentError, match="consumed"):
        ek.from_dlpack(cap)
    with pytest.raises(BufferError):
        t.__dlpack__(dl_device=(2, 0))
    w = ek.from_dlpack(t, copy=True)
    w[0] = 9
    assert t[0].item() == 0


@pytest.mark.parametrize("dt", NP_DTYPES, ids=lambda d: d.name)
def test_ek_from_numpy_shares_memory(dt):
    a = sample(dt, (4, 6))
    t = ek.from_dlpack(a)
    assert t.dtype is dt and t.shape == a.shape and t.device == "cpu"
    np.testing.assert_array_equal(t.numpy(), a)
    t[1, 2] = 0
    assert a[1, 2] == 0


def test_ek_from_numpy_strided_offset_lifetime():
    base = np.arange(60, dtype=np.float64).reshape(6, 10)
    view = base[1::2, 7:1:-3]  # byte offset and negative stride
    t = ek.from_dlpack(view)
    assert t.shape == view.shape and t.strides == tuple(s // 8 for s in view.strides)
    np.testing.assert_array_equal(t.numpy(), view)
    del base, view
    gc.collect()
    np.testing.assert_array_equal(t.numpy(), np.arange(60.0).reshape(6, 10)[1::2, 7:1:-3])
    u = ek.from_dlpack(np.zeros((0, 3), np.float32))
    assert u.shape == (0, 3)
    r = ek.from_dlpack(np.arange(6).reshape(2, 3), device="cpu", copy=True)
    assert r.tolist() == [[0, 1, 2], [3, 4, 5]]
    with pytest.raises(TypeError):
        ek.from_dlpack([1, 2])


def test_round_trip_numpy_ek_numpy():
    a = np.arange(12, dtype=np.int32).reshape(3, 4)
    b = np.from_dlpack(ek.from_dlpack(a)[1:])
    b[0, 0] = -1
    assert a[1, 0] == -1


def test_cuda_array_interface_cpu_absent():
    t = ek.ones(3)
    assert not hasattr(t, "__cuda_array_interface__")


def test_cuda_array_interface(cuda_device):
    t = ek.arange(12, dtype=ek.float32, device="cuda").reshape(3, 4)
    cai = t.__cuda_array_interface__
    assert cai["version"] == 3 and cai["typestr"] == "<f4" and cai["shape"] == (3, 4)
    assert cai["strides"] is None and cai["data"] == (t.data_ptr(), False)
    assert cai["stream"] != 0
    tt = t.T[::2]
    assert tt.shape == (2, 3) and tt.__cuda_array_interface__["strides"] == (8, 16)
    with pytest.raises(ek.DtypeError):
        t.astype(ek.bfloat16).__cuda_array_interface__


def test_cuda_dlpack_round_trip(cuda_device):
    t = ek.arange(10, dtype=ek.float32, device="cuda")
    assert t.__dlpack_device__() == (2, 0)
    u = ek.from_dlpack(t)
    assert u.device == "cuda:0" and u.data_ptr() == t.data_ptr()
    u[0] = 5
    assert t[0].item() == 5


# ------------------------------------------------------------------ PyTorch

def _torch():
    return pytest.importorskip("torch")


def _torch_device(device):
    th = _torch()
    if device == "cuda" and not th.cuda.is_available():
        pytest.skip("torch without CUDA")
    return th


def test_torch_from_ek_shares_memory(device):
    th = _torch_device(device)
    t = ek.arange(12, dtype=ek.float32, device=device).reshape(3, 4)
    p = th.from_dlpack(t)
    assert p.device.type == device and tuple(p.shape) == (3, 4)
    assert p.data_ptr() == t.data_ptr()
    p[0, 0] = 7
    assert t[0, 0].item() == 7
    v = th.from_dlpack(t.T[1:])
    assert tuple(v.stride()) == t.T[1:].strides
    np.testing.assert_array_equal(v.cpu().numpy(), t.T[1:].numpy())
    b = th.from_dlpack(ek.ones(3, dtype=ek.bfloat16, device=device))
    assert b.dtype == th.bfloat16 and b.float().tolist() == [1.0] * 3
    del t
    gc.collect()
    assert p.sum().item() == 7 + sum(range(1, 12))  # torch keeps the storage alive


def test_ek_from_torch_shares_memory(device):
    th = _torch_device(device)
    p = th.arange(20, dtype=th.float32, device=device).reshape(4, 5)[:, 1::2]
    t = ek.from_dlpack(p)
    assert t.device.startswith(device) and t.shape == (4, 2) and t.strides == (5, 2)
    assert t.data_ptr() == p.data_ptr()
    t[0, 0] = -1
    assert p[0, 0].item() == -1
    np.testing.assert_array_equal(t.numpy(), p.cpu().numpy())
    for tdt, edt in [(th.bool, ek.bool_), (th.int8, ek.int8), (th.int64, ek.int64),
                     (th.float16, ek.float16), (th.bfloat16, ek.bfloat16),
                     (th.float64, ek.float64)]:
        assert ek.from_dlpack(th.zeros(3, dtype=tdt, device=device)).dtype is edt
    del p
    gc.collect()
    assert t[0, 0].item() == -1  # ek keeps torch's storage alive


def test_compare_ops_with_torch(device):
    th = _torch_device(device)
    rng = np.random.default_rng(0)
    a = rng.standard_normal((8, 16)).astype(np.float32)
    b = rng.standard_normal((16, 4)).astype(np.float32)
    x, y = ek.from_numpy(a, device=device), ek.from_numpy(b, device=device)
    tx, ty = th.from_numpy(a).to(device), th.from_numpy(b).to(device)
    pairs = [
        ((x @ y).relu().softmax(-1), (tx @ ty).relu().softmax(-1)),
        (x.gelu() * 2 - x.exp().log1p(), th.nn.functional.gelu(tx) * 2 - tx.exp().log1p()),
        (x.sum(1), tx.sum(1)), (x.var(0), tx.var(0)), (x.std(correction=0), tx.std(correction=0)),
        (x.max(1).values, tx.max(1).values), (x.argmin(0), tx.argmin(0)),
        (x.cumsum(1), tx.cumsum(1)), (x.log_softmax(0), tx.log_softmax(0)),
        (x[x > 0], tx[tx > 0]), (x[[0, 3], 2:5], tx[[0, 3], 2:5]),
        (ek.where(x > 0, x, 0.0), th.where(tx > 0, tx, 0.0)), (x.clamp(-0.5, 0.5),
                                                              tx.clamp(-0.5, 0.5)),
        (x.norm(), tx.norm()), (ek.lerp(x, x * 2, 0.3), th.lerp(tx, tx * 2, 0.3)),
    ]
    for i, (got, want) in enumerate(pairs):
        np.testing.assert_allclose(got.numpy(), want.cpu().numpy(), rtol=1e-4, atol=1e-5,
                                   err_msg=f"pair {i}")
    ek.manual_seed(3)
    u = th.from_dlpack(ek.rand(1000, device=device))
    assert 0 <= u.min().item() and u.max().item() < 1


def test_read_only_numpy_source_is_copied():
    # Issue 12 item 18: ek tensors are writable, so a read-only source is
    # copied (its versioned capsule carries DLPACK_FLAG_BITMASK_READ_ONLY).
    a = np.arange(4, dtype=np.float32)
    a.flags.writeable = False
    x = ek.from_dlpack(a)
    x += 1
    assert a.tolist() == [0, 1, 2, 3] and x.tolist() == [1, 2, 3, 4]
    y = ek.from_dlpack(a.__dlpack__(max_version=(1, 0)))  # the capsule itself
    y[0] = 9
    assert a[0] == 0
    with pytest.raises(BufferError, match="read-only"):
        ek.from_dlpack(a, copy=False)
    w = np.zeros(2, dtype=np.float32)  # writable: still shared
    z = ek.from_dlpack(w, copy=False)
    z += 1
    assert w.tolist() == [1, 1]


# ------------------------------------------------------------------ through libek's C DLPack

def test_export_keeps_its_own_context_alive():
    # The capsule's deleter relay keeps a user Context (and its libek
    # context, which counts the export as a live tensor) until a consumer is done.
    before = ek.live_handles()
    ctx = ek.Context("cpu")
    t = ek.arange(6, dtype=ek.int32, device=ctx)
    cap = t.__dlpack__(max_version=(1, 0))
    legacy = t.__dlpack__()
    del t, ctx
    gc.collect()
    n = np.from_dlpack(_Holder(cap))
    m = np.from_dlpack(_Holder(legacy))
    assert n.tolist() == m.tolist() == [0, 1, 2, 3, 4, 5]
    del cap, legacy, n, m
    gc.collect()
    assert ek.live_handles() == before  # the exports, their tensor and the context are gone


class _Holder:
    """Hands a ready capsule to a consumer's from_dlpack."""

    def __init__(self, cap):
        self.cap = cap

    def __dlpack__(self, **_):
        return self.cap

    def __dlpack_device__(self):
        return (1, 0)


def test_rejected_capsules_are_not_consumed():
    # (every dtype NumPy exports, complex included, is an ek dtype: rejected here
    # for a misaligned data pointer)
    unaligned = np.zeros(17, np.uint8)[1:].view(np.float32)
    cap = unaligned.__dlpack__(max_version=(1, 0))
    with pytest.raises(ek.InvalidArgumentError, match="ek_tensor_from_dlpack.*aligned"):
        ek.from_dlpack(cap)
    assert "used_" not in repr(cap)  # still the producer's: its destructor frees it
    with pytest.raises(ek.InvalidArgumentError, match="aligned"):
        ek.from_dlpack(unaligned)
    legacy = unaligned.__dlpack__()
    with pytest.raises(ek.InvalidArgumentError):
        ek.from_dlpack(legacy)
    assert "used_" not in repr(legacy)


def test_newer_major_version_is_a_buffer_error():
    from ek import _dlpack as d
    deleted = []
    deleter = d._VOID_FN(lambda addr: deleted.append(addr))
    mt = d.DLManagedTensorVersioned(version=d.DLPackVersion(2, 0))
    mt.deleter = ctypes.cast(deleter, ctypes.c_void_p).value
    cap = d._PyCapsule_New(ctypes.addressof(mt), d._NAME_V, None)
    with pytest.raises(BufferError, match="version 2.0"):
        ek.from_dlpack(cap)
    assert deleted == [] and "used_" not in repr(cap)


def test_copy_flags_reach_libek():
    a = np.arange(4, dtype=np.float64)
    shared = ek.from_dlpack(a, copy=False)
    copied = ek.from_dlpack(a, copy=True)
    assert shared.data_ptr() == a.ctypes.data and copied.data_ptr() != a.ctypes.data
    a[0] = 5
    assert shared[0].item() == 5 and copied[0].item() == 0
