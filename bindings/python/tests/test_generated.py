"""The generated op layer: one call of every op of ek.h through it (the
ops of the lists in ek._ops, every uniform op and view in ek._capi), and the
marshalling of each parameter kind. The ops' semantics are tested in C."""

import numpy as np
import pytest

import ek
from ek import _capi, _ffi, _ops

FAMILY_ARGS = {"unary": (), "binary": (2.0,), "reduce": (), "scan": (0,), "softmax": (),
               "var": ()}


def _reached_c(fn, cname, *args, **kw):
    """Call fn: a result, or an ek.Error whose C message names cname."""
    try:
        return fn(*args, **kw)
    except ek.Error as e:
        assert cname in e.message, (cname, e.message)
        return None


@pytest.mark.parametrize("family, name, value", _ops.OPS, ids=[o[1] for o in _ops.OPS])
def test_every_list_op_once(device, family, name, value):
    x = ek.tensor([[0.5, 1.5], [2.0, -1.0]], device=device)
    cname = "ek_" + {"unary": "unary", "binary": "binary", "reduce": "reduce", "scan": "scan",
                     "softmax": "softmax", "var": "var"}[family]
    args = FAMILY_ARGS[family]
    r = _reached_c(getattr(ek, name), cname, x, *args)
    m = _reached_c(getattr(x, name), cname, *args)
    if r is not None:  # the function and the method are the same call
        assert isinstance(r, ek.Tensor) and r.tolist() == m.tolist() or np.isnan(r.numpy()).any()
        if getattr(ek, name) is getattr(_ops, name):  # not replaced by a hand-written form
            assert name in getattr(ek, name).__doc__ and cname in getattr(ek, name).__doc__
        out = ek.empty(r.shape, dtype=r.dtype, device=device)
        assert getattr(ek, name)(x, *args, out=out) is out


def _args(kinds, x, device):
    """Arguments of the right kinds for a _capi function (not always valid ones)."""
    ints = ek.tensor([0, 1], device=device)
    by_kind = {"tensor": x, "scalar": 1, "opt_scalar": 0.5, "dtype": ek.float32, "enum": 0,
               "flag": False, "int": 0, "int64": 1, "uint64": 1, "size": 1, "double": 1.0,
               "string": "x"}
    arrays = {"int64_t": [2], "int": [0], "ek_tensor": [x, ints], "ek_index_item": (0,)}
    out = []
    for k in kinds:
        if k in by_kind:
            out.append(by_kind[k])
        elif k.startswith("array:"):
            out.append(arrays[k[6:]])
    return out


@pytest.mark.parametrize("name", sorted(_capi.SIGNATURES))
def test_every_uniform_op_once(device, name):
    cname, kinds = _capi.SIGNATURES[name]
    fn = getattr(_capi, name)
    x = ek.tensor([[1.0, 2.0], [3.0, 4.0]], device=device)
    kw = {"device": device} if "ctx" in kinds else {}
    r = _reached_c(fn, cname, *_args(kinds, x, device), **kw)
    assert r is None or isinstance(r, (ek.Tensor, tuple))
    assert fn.__doc__.startswith(cname)


def test_marshalling_of_each_kind(device):
    x = ek.tensor([[1.0, 2.0], [3.0, 4.0]], device=device)
    # int (a C int), int64, arrays: out of range is OverflowError naming the parameter,
    # never a wrapped value.
    with pytest.raises(OverflowError, match="ek_index_select: dim"):
        _capi.index_select(x, 2**31, [0])
    with pytest.raises(OverflowError, match="ek_tril: k"):
        _capi.tril(x, 2**63)
    with pytest.raises(OverflowError, match="ek_view_reshape: shape"):
        _capi.view_reshape(x, [2**64 + 4])
    with pytest.raises(OverflowError, match="ek_flip: dims"):
        _capi.flip(x, [2**32 + 1])
    # scalar: kinds exact, a non-number refused before the call
    assert _capi.full([1], ek.int64, 2**62 + 1, device=device).item() == 2**62 + 1
    assert _capi.full([1], ek.float64, 2**63 + 5, device=device).dtype is ek.float64
    with pytest.raises(TypeError, match="ek_full: value"):
        _capi.full([1], ek.int64, "1", device=device)
    # opt_scalar: None passes NULL
    assert _capi.clamp(x, None, 2.5).tolist() == [[1.0, 2.0], [2.5, 2.5]]
    # dtype: anything ek.dtype takes
    assert _capi.cast(x, "int32").dtype is ek.int32 and _capi.cast(x, np.int16).dtype is ek.int16
    # flag, double
    assert _capi.reduce(_ffi.EK_REDUCE_SUM, x, [1], True).shape == (2, 1)
    assert _capi.var(_ffi.EK_VAR_VARIANCE, x, [], 0, False).item() == 1.25
    # tensors from data on the first tensor's device; arrays of tensors keep them alive
    assert _capi.where([[1, 0], [0, 1]], x, [[0.0]]).tolist() == [[1.0, 0.0], [0.0, 4.0]]
    assert _capi.concat([x, [[5.0, 6.0]]], 0).shape == (3, 2)
    # several outputs (a tuple; out= takes one too) and arrays of outputs
    v, i = _capi.reduce_with_indices(_ffi.EK_REDUCE_MAX, x, 1, False)
    assert v.tolist() == [2.0, 4.0] and i.tolist() == [1, 1]
    assert _capi.reduce_with_indices(_ffi.EK_REDUCE_MAX, x, 1, False, out=(v, i))[0] is v
    with pytest.raises(TypeError, match="tuple of 2"):
        _capi.reduce_with_indices(_ffi.EK_REDUCE_MAX, x, 1, False, out=v)
    a, b = _capi.view_split_sizes(x, 1, [1, 1])
    assert a.shape == (2, 1) and b.tolist() == [[2.0], [4.0]]
    # out= must be a tensor
    with pytest.raises(TypeError, match="out="):
        _capi.contiguous(x, out=np.empty(4))
