"""The three cases every binding tests alike (Python, Rust, Go, C++): the same
indexing expression, an in-place op with mixed dtypes and a 2**60 integer
scalar give the same results, since all go to the one C implementation."""

import ek


def test_indexing_through_ek_index(device):
    x = ek.arange(0, 24, device=device).reshape(2, 3, 4)
    assert x.dtype is ek.int64
    y = x[..., ek.tensor([2, 0], device=device), ::-2]
    assert y.shape == (2, 2, 2) and y.dtype is ek.int64
    assert y.tolist() == [[[11, 9], [3, 1]], [[23, 21], [15, 13]]]
    x[1, ek.tensor([0, 2], device=device)] = ek.tensor([-1, -2, -3, -4], device=device)
    assert x[1].tolist() == [[-1, -2, -3, -4], [16, 17, 18, 19], [-1, -2, -3, -4]]
    x[1, x[1] > 17] = 0
    assert x[1].tolist() == [[-1, -2, -3, -4], [16, 17, 0, 0], [-1, -2, -3, -4]]
    assert x[0].tolist() == [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9, 10, 11]]


def test_in_place_mixed_dtypes_by_the_c_rule(device):
    x = ek.tensor([1.5, 2.5], dtype=ek.float32, device=device)
    p = x.data_ptr()
    x += ek.tensor([0.25, 0.5], dtype=ek.float64, device=device)
    assert x.dtype is ek.float32 and x.data_ptr() == p
    assert x.tolist() == [1.75, 3.0]


def test_integer_scalar_2_60_is_exact(device):
    x = ek.tensor([1, 2], dtype=ek.int64, device=device)
    y = x + 2**60
    assert y.dtype is ek.int64 and y.tolist() == [2**60 + 1, 2**60 + 2]
