"""Python ints that do not fit their C type raise OverflowError before any C
call (issue 12 items 13 and 21): ctypes would silently drop the high bits."""

import numpy as np
import pytest

import ek

BIG = [2**64 + 4, 2**63, -(2**63) - 1]


@pytest.mark.parametrize("n", BIG)
def test_shapes_do_not_wrap(device, n):
    for make in (ek.empty, ek.zeros, ek.ones, ek.rand):
        with pytest.raises(OverflowError, match="int64"):
            make(3, n, device=device)
    with pytest.raises(OverflowError, match="int64"):
        ek.full((n,), 1, device=device)


def test_empty_2_63_names_overflow():
    with pytest.raises(OverflowError, match=r"9223372036854775808 does not fit in int64"):
        ek.empty(2**63)


def test_empty_reuses_shapes_of_ints_only(device):
    # ek.empty keeps the int64_t[] of each shape of ints: a float or bool that
    # equals a kept shape is still converted (and refused) as before.
    assert ek.empty(3, 4, device=device).shape == (3, 4)
    assert ek.empty(3, 4, device=device).shape == (3, 4)  # the kept array
    with pytest.raises(TypeError, match="float"):
        ek.empty(3.0, 4, device=device)
    assert ek.empty(True, 4, device=device).shape == (1, 4)  # bool is an int, as in NumPy
    assert ek.empty(np.int64(3), 4, device=device).shape == (3, 4)
    assert ek.empty([3, 4], device=device).shape == (3, 4)
    with pytest.raises(ek.ShapeError, match="negative size -4"):
        ek.empty(3, -4, device=device)
    with pytest.raises(ek.ShapeError, match="negative size -4"):
        ek.empty(3, -4, device=device)  # a kept shape is checked by C each time


DIM = 2**32 + 1  # 1 once truncated to a C int


def test_dims_do_not_wrap(device):
    x = ek.ones(2, 3, device=device)
    calls = [lambda: x.sum(dim=DIM), lambda: x.sum(dim=(0, DIM)), lambda: x.transpose(0, DIM),
             lambda: x.softmax(DIM), lambda: x.log_softmax(DIM), lambda: x.cumsum(DIM),
             lambda: x.max(dim=DIM), lambda: x.unsqueeze(DIM), lambda: x.flatten(0, DIM),
             lambda: x.permute(0, DIM), lambda: x.squeeze(DIM), lambda: x.var(dim=DIM),
             lambda: ek.index_select(x, DIM, [0]), lambda: ek.gather(x, DIM, [[0]]),
             lambda: x.sum(dim=-(2**31) - 1)]
    for call in calls:
        with pytest.raises(OverflowError, match="C int"):
            call()


def test_view_sizes_and_strides_do_not_wrap(device):
    x = ek.arange(6, device=device)
    for call in (lambda: x.view(2**64 + 6), lambda: x.reshape(2**64 + 6),
                 lambda: x.expand(2**64 + 3, 6), lambda: x.as_strided((2,), (2**64 + 1,)),
                 lambda: x.as_strided((2**64 + 2,), (1,)),
                 lambda: x.as_strided((2,), (1,), 2**64)):
        with pytest.raises(OverflowError, match="int64"):
            call()


def test_slices_clamp_like_python(device):
    # slice bounds and steps follow Python (clamped), never wrapped: a step of
    # 2**64 + 1 took every element as step 1.
    x = ek.arange(5, device=device)
    a = list(range(5))
    for k in (slice(None, None, 2**64 + 1), slice(None, None, -(2**64)), slice(2**70, None),
              slice(-(2**70), 2**66, 2**63), slice(2**63 - 1, None), slice(-(2**63), None, -1),
              slice(2**64, None, -1), slice(None, -(2**64), -1)):
        assert x[k].tolist() == a[k], k
    with pytest.raises(IndexError):
        x[2**64]


def test_other_ints_do_not_wrap():
    with pytest.raises(OverflowError):
        ek.Context("cpu", memory_limit=2**64)
    with pytest.raises(OverflowError):
        ek.Context("cpu", memory_limit=-1)
    with pytest.raises(OverflowError):
        ek.context("cpu").set_memory_limit(2**64 + 5)
    with pytest.raises(OverflowError):
        ek.manual_seed(2**64)
    with pytest.raises(OverflowError):
        ek.manual_seed(-(2**63) - 1)
    ek.manual_seed(-1)  # negative seeds count from 2**64, as PyTorch's
    assert ek.random_state("cpu")[0] == 2**64 - 1
    ek.manual_seed(0)
    with pytest.raises(OverflowError):
        ek.context((1, 2**32))
    with pytest.raises(OverflowError):
        ek.context("cuda:4294967296")
    assert ek.empty(np.int64(3)).shape == (3,)
