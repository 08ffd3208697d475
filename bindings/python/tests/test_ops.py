"""Operators, scalar operands, in-place forms, where/clamp/lerp/axpby and matrix products
(representative cases; every op is called once in test_generated.py)."""

import math
import operator

import numpy as np
import pytest

import ek
from ek_helpers import FLOAT_DTYPES, INT_DTYPES, NP_DTYPES, check, kind, promote, sample

def test_unary_special_values(device):
    x = ek.tensor([float("nan"), float("inf"), -float("inf"), -0.0, 2.5, -2.5, 0.5],
                  device=device)
    assert x.isnan().tolist() == [True, False, False, False, False, False, False]
    assert x.isinf().tolist() == [False, True, True, False, False, False, False]
    assert math.isnan(x.sign().tolist()[0])
    assert x.round().tolist()[4:] == [2.0, -2.0, 0.0]  # half to even
    g = np.array([2.5, -2.5, 0.5])
    np.testing.assert_allclose(x[4:].gelu(approximate="tanh").numpy(), 0.5 * g * (
        1 + np.tanh(math.sqrt(2 / math.pi) * (g + 0.044715 * g ** 3))), rtol=1e-5, atol=1e-7)
    with pytest.raises(ek.InvalidArgumentError):
        x.gelu(approximate="fast")
    np.testing.assert_allclose(ek.tensor([1.2345, 2.5], device=device).round(decimals=2)
                               .numpy(), [1.23, 2.5], rtol=1e-6)
    assert round(ek.tensor(2.5, device=device)).item() == 2.0


# ------------------------------------------------------------------ binary

BINARY_REF = {
    "add": np.add, "sub": np.subtract, "mul": np.multiply, "div": np.divide,
    "floor_divide": np.floor_divide, "remainder": np.remainder, "pow": np.power,
    "atan2": np.arctan2, "maximum": np.maximum, "minimum": np.minimum, "eq": np.equal,
    "ne": np.not_equal, "lt": np.less, "le": np.less_equal, "gt": np.greater,
    "ge": np.greater_equal, "logical_and": np.logical_and, "logical_or": np.logical_or,
    "logical_xor": np.logical_xor, "bitwise_and": np.bitwise_and, "bitwise_or": np.bitwise_or,
    "bitwise_xor": np.bitwise_xor, "bitwise_left_shift": np.left_shift,
    "bitwise_right_shift": np.right_shift,
    "logaddexp": np.logaddexp, "hypot": np.hypot, "copysign": np.copysign,
    "nextafter": np.nextafter,
}
CMP = {"eq", "ne", "lt", "le", "gt", "ge", "logical_and", "logical_or", "logical_xor"}
BITWISE = {"bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_left_shift",
           "bitwise_right_shift"}
FLOAT_RESULT = {"div", "atan2", "logaddexp", "hypot", "copysign", "nextafter"}


def _operands(name, da, db):
    a = sample(da, (3, 1, 4), seed=1)
    b = sample(db, (2, 4), seed=2)
    if name in ("div", "floor_divide", "remainder", "atan2") or name == "pow":
        if kind(db) == 1:
            b = np.where(b == 0, 3, b).astype(b.dtype)
        elif kind(db) == 2:
            b = np.where(np.abs(b) < 0.25, 1.5, b).astype(b.dtype)
    if name == "pow":
        if kind(db) < 2:
            b = (np.abs(b.astype(np.int64)) % 4).astype(b.dtype)
        else:
            a = np.abs(a) + 0.5 if kind(da) == 2 else a
            b = np.abs(b) % 3 if kind(db) == 2 else b
        if kind(da) == 1:
            a = (a % 7).astype(a.dtype)
    if name in ("bitwise_left_shift", "bitwise_right_shift") and kind(db) == 1:
        b = (np.abs(b.astype(np.int64)) % 4).astype(b.dtype)
    if name == "bitwise_left_shift" and kind(da) == 1:
        a = (np.abs(a.astype(np.int64)) % 16).astype(a.dtype)
    if kind(da) < 2 and kind(db) < 2 and name in ("floor_divide", "remainder") and \
            da is ek.bool_ and db is ek.bool_:
        b = np.ones_like(b)
    return a, b


def _expected(name, a, b, da, db):
    res = promote(da, db)
    if name in CMP:
        return BINARY_REF[name](a, b), ek.bool_
    if name in FLOAT_RESULT and kind(res) < 2:
        res = ek.float32
    if res.is_floating_point:
        x, y = a.astype(np.float64), b.astype(np.float64)
        with np.errstate(all="ignore"):  # bool / bool divides by zero
            r = BINARY_REF[name](x, y)
        if name == "remainder":  # a - floor(a / b) * b
            r = x - np.floor(x / y) * y
        if name == "nextafter" and res.numpy is not None:  # one ulp of the result dtype
            r = np.nextafter(x.astype(res.numpy), y.astype(res.numpy))
        return r, res
    if res is ek.bool_:
        x, y = a, b
        r = BINARY_REF[name](x.astype(np.int64), y.astype(np.int64)) if name not in BITWISE \
            else BINARY_REF[name](x, y)
        if name in ("add", "mul", "pow", "maximum", "minimum"):
            r = r != 0
        return r, res
    with np.errstate(all="ignore"):
        r = BINARY_REF[name](a.astype(res.numpy), b.astype(res.numpy))
    return r, res


OPERATORS = [("+", operator.add, "add"), ("-", operator.sub, "sub"), ("*", operator.mul, "mul"),
             ("/", operator.truediv, "div"), ("//", operator.floordiv, "floor_divide"),
             ("%", operator.mod, "remainder"), ("**", operator.pow, "pow"),
             ("&", operator.and_, "bitwise_and"), ("|", operator.or_, "bitwise_or"),
             ("^", operator.xor, "bitwise_xor"), ("<<", operator.lshift, "bitwise_left_shift"),
             (">>", operator.rshift, "bitwise_right_shift"), ("==", operator.eq, "eq"),
             ("!=", operator.ne, "ne"), ("<", operator.lt, "lt"), ("<=", operator.le, "le"),
             (">", operator.gt, "gt"), (">=", operator.ge, "ge")]


@pytest.mark.parametrize("sym,fn,name", OPERATORS, ids=[o[0] for o in OPERATORS])
def test_operators(device, sym, fn, name):
    dt = ek.int32 if name in BITWISE else ek.float32
    a, b = _operands(name, dt, dt)
    x, y = ek.from_numpy(a, device=device), ek.from_numpy(b, device=device)
    ref, res = _expected(name, a, b, dt, dt)
    check(fn(x, y), ref, res)
    # NumPy arrays and lists on either side
    check(fn(x, b), ref, res)
    check(fn(a, y), ref, res)
    if name not in CMP:  # in place, with a broadcast right operand
        z = ek.from_numpy(np.broadcast_to(a, ref.shape).copy(), device=device)
        iop = getattr(operator, "i" + fn.__name__.strip("_"))
        z2 = iop(z, y)
        assert z2 is z
        check(z, ref, res)


SCALARS = [2, 3.5, 2.0, True, -1, np.int16(3), np.float32(0.5), np.float64(-1.0)]


@pytest.mark.parametrize("s", SCALARS, ids=repr)
@pytest.mark.parametrize("dt", [ek.bool_, ek.int8, ek.int64, ek.float16, ek.float32],
                         ids=lambda d: d.name)
def test_scalar_operands(device, s, dt):
    a = sample(dt, seed=3)
    x = ek.from_numpy(a, device=device)
    sk = 0 if isinstance(s, (bool, np.bool_)) else (1 if isinstance(s, (int, np.integer))
                                                    else 2)
    # a Python/NumPy scalar only raises the tensor's kind (PyTorch's rule)
    res = dt if sk <= kind(dt) else (ek.int64 if sk == 1 else ek.float32)
    if dt is ek.bool_ and sk == 0:
        res = ek.bool_
    av = a.astype(np.float64)
    sv = float(s)
    if not (dt is ek.bool_ and sk == 0):
        check(x + s, av + sv, res)
        check(s + x, sv + av, res)
        check(x * s, av * sv, res)
        if res is not ek.bool_:
            check(s - x, sv - av, res)
    check(x == s, av == sv, ek.bool_)
    check(s < x, sv < av, ek.bool_)
    check(x / 2, av / 2, ek.float32 if kind(dt) < 2 else dt)
    check(2 ** ek.abs(x).astype(ek.float32), 2 ** np.abs(av), ek.float32)


def test_scalar_promotion_details(device):
    i8 = ek.tensor([1, 2, 100], dtype=ek.int8, device=device)
    assert (i8 + 1).dtype is ek.int8
    assert (i8 * 2.5).dtype is ek.float32
    assert (ek.tensor([1.0], dtype=ek.float16, device=device) * 2.0).dtype is ek.float16
    assert (ek.tensor([True], device=device) + 2).dtype is ek.int64
    assert (ek.tensor([True, False], device=device) & True).dtype is ek.bool_
    big = ek.tensor([1], dtype=ek.int64, device=device)
    assert (big + (2**62 + 1)).item() == 2**62 + 2  # exact beyond 2**53
    assert (7 // ek.tensor([2, -2], device=device)).tolist() == [3, -4]
    assert (ek.tensor([7, -7], device=device) % 3).tolist() == [1, 2]
    assert (2 ** ek.tensor([3, 4], device=device)).tolist() == [8, 16]
    with pytest.raises(TypeError):
        ek.ones(2, device=device) + "a"
    with pytest.raises(TypeError):
        pow(ek.ones(2, device=device), 2, 3)
    assert (ek.ones(2, device=device) == None) is False  # noqa: E711


def test_integral_float_scalar_gives_float(device):
    # Issue 12 item 22: the dtype does not depend on the value: a float number
    # with an integer or bool tensor gives float32, as 2.5 does (PyTorch).
    a = ek.arange(3, device=device)
    b = ek.tensor([True, False], device=device)
    for r, want in [(a + 2.0, [2, 3, 4]), (a * 1.0, [0, 1, 2]), (a ** 2.0, [0, 1, 4]),
                    (b + 2.0, [3, 2]), (2.0 - a, [2, 1, 0]), (a - 2.0, [-2, -1, 0]),
                    (a // 2.0, [0, 0, 1]), (a % 2.0, [0, 1, 0]), (ek.add(1.0, a), [1, 2, 3]),
                    (a.mul(1.0), [0, 1, 2]), (a + np.float64(2.0), [2, 3, 4]),
                    (ek.tensor([1, 2, 4], dtype=ek.int8, device=device) ** -1.0,
                     [1, 0.5, 0.25])]:
        assert r.dtype is ek.float32 and r.tolist() == want, (r.dtype, r.tolist(), want)
    assert (a == 2.0).tolist() == [False, False, True]
    assert (a + 2).dtype is ek.int64 and (b + 2).dtype is ek.int64 and (b + True).dtype is ek.bool_
    x = ek.arange(3, device=device)
    with pytest.raises(ek.DtypeError):  # float32 result into an int64 tensor, as PyTorch
        x += 2.0
    assert x.tolist() == [0, 1, 2]
    with pytest.raises(ek.DtypeError):  # no bitwise op on floats
        a & 2.0


def test_invert_neg_abs_pos(device):
    b = ek.tensor([True, False], device=device)
    assert (~b).tolist() == [False, True]
    for dt in INT_DTYPES:
        a = np.array([0, 1, 5, 100], dt.numpy)
        check(~ek.from_numpy(a, device=device), ~a, dt)
    with pytest.raises(ek.DtypeError, match="~"):
        ~ek.ones(2, device=device)
    x = ek.tensor([-1.5, 2.0], device=device)
    assert (-x).tolist() == [1.5, -2.0] and abs(x).tolist() == [1.5, 2.0] and +x is x
    y = ek.tensor([5, 6], dtype=ek.int16, device=device)
    y.bitwise_not_()
    assert y.tolist() == [-6, -7]


def test_in_place_semantics(device):
    a = ek.zeros(3, 4, device=device)
    h = a.data_ptr()
    a += 1
    a *= ek.arange(4, dtype=ek.float32, device=device)
    a -= 0.5
    assert a.data_ptr() == h
    np.testing.assert_array_equal(a.numpy(), np.tile(np.arange(4) - 0.5, (3, 1)))
    # float64 result cast back into float32 (same kind), as PyTorch
    a += ek.ones(4, dtype=ek.float64, device=device)
    assert a.dtype is ek.float32 and a[0, 0].item() == 0.5
    i = ek.arange(4, dtype=ek.int32, device=device)
    i += ek.ones(4, dtype=ek.int64, device=device)
    assert i.dtype is ek.int32 and i.tolist() == [1, 2, 3, 4]
    with pytest.raises(ek.DtypeError, match="ek_binary_scalar"):  # the C rule: float into int
        i += 1.5
    with pytest.raises(ek.DtypeError):
        i /= 2
    with pytest.raises(ek.ShapeError):
        b = ek.ones(4, device=device)
        b += ek.ones(3, 4, device=device)
    # through views: writes land in the base tensor
    t = ek.zeros(4, 6, device=device)
    v = t.T[::2]
    v += 1
    ref = np.zeros((4, 6), np.float32)
    ref.T[::2] += 1
    np.testing.assert_array_equal(t.numpy(), ref)
    t[1:3, ::3] *= 5
    ref[1:3, ::3] *= 5
    np.testing.assert_array_equal(t.numpy(), ref)
    t.add_(1).mul_(2).clamp_(max=3)
    np.testing.assert_array_equal(t.numpy(), np.minimum((ref + 1) * 2, 3))


def test_noncontiguous_operands(device):
    a = np.arange(48, dtype=np.float32).reshape(6, 8)
    x = ek.from_numpy(a, device=device)
    check(x.T[::2] * x.T[1::2][::-1], a.T[::2] * a.T[1::2][::-1])
    check(ek.exp(x[:, 1::3] / 10), np.exp(a[:, 1::3].astype(np.float64) / 10))
    e = ek.tensor([1.0, 2.0], device=device).expand(3, 2)
    check(e + x[:3, :2], np.broadcast_to([1.0, 2.0], (3, 2)) + a[:3, :2])


def test_binary_errors(device):
    with pytest.raises(ek.ShapeError) as ei:
        ek.ones(3, device=device) + ek.ones(4, device=device)
    assert "ek_binary" in ei.value.message and ei.value.status_name == "EK_ERROR_SHAPE"
    with pytest.raises(ek.ShapeError):
        ek.add(ek.ones(3, device=device), ek.ones(3, device=device),
               out=ek.empty(4, device=device))
    with pytest.raises(ek.DtypeError):
        ek.add(ek.ones(3, device=device), ek.ones(3, device=device),
               out=ek.empty(3, dtype=ek.int32, device=device))
    with pytest.raises(TypeError, match="out="):
        ek.add(ek.ones(3, device=device), 1, out=np.empty(3))
    with pytest.raises(ek.DtypeError):
        ek.ones(2, device=device) << 1


def test_named_aliases(device):
    x = ek.tensor([1.0, -2.0], device=device)
    assert ek.subtract(x, 1).tolist() == [0.0, -3.0]
    assert ek.multiply(2, x).tolist() == [2.0, -4.0]
    assert ek.true_divide(x, 2).tolist() == [0.5, -1.0]
    assert x.greater(0).tolist() == [True, False]
    assert ek.negative(x).tolist() == [-1.0, 2.0] and ek.absolute(x).tolist() == [1.0, 2.0]
    assert ek.add(1, 2).item() == 3  # two numbers: a CPU tensor
    assert ek.exp([0.0]).tolist() == [1.0]


# ------------------------------------------------------------------ selection, fused updates

def test_where(device):
    c = np.array([[True, False, True]])
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    b = np.float32(-1)
    t = ek.where(ek.from_numpy(c, device=device), ek.from_numpy(a, device=device), -1.0)
    check(t, np.where(c, a, b), ek.float32)
    h = ek.tensor([1.0, 2.0], dtype=ek.float16, device=device)
    assert ek.where(h > 1, h, 0.0).dtype is ek.float16
    assert ek.where(h > 1, 1, 0).dtype is ek.int64
    x = ek.from_numpy(a, device=device)
    check(x.where(x > 2, ek.zeros(3, device=device)), np.where(a > 2, a, 0))
    i = ek.where(x > 2)
    assert [v.tolist() for v in i] == [list(r) for r in np.where(a > 2)]
    # integer condition (nonzero is true), int/float mix promotes
    r = ek.where(ek.tensor([0, 2], device=device), ek.tensor([1, 2], device=device),
                 ek.tensor([0.5, 0.5], device=device))
    assert r.dtype is ek.float32 and r.tolist() == [0.5, 2.0]


def test_clamp(device):
    a = sample(ek.float32, seed=4)
    x = ek.from_numpy(a, device=device)
    check(x.clamp(-1, 1), np.clip(a, -1, 1))
    check(ek.clamp(x, min=0.5), np.maximum(a, 0.5))
    check(x.clip(max=0), np.minimum(a, 0))
    lo = ek.full((4,), -0.5, device=device)
    check(ek.clamp(x, lo, 0.5), np.clip(a, -0.5, 0.5))
    i = ek.tensor([-5, 0, 5], dtype=ek.int8, device=device)
    assert i.clamp(-2.7, 2.7).tolist() == [-2, 0, 2] and i.clamp(-2, 2).dtype is ek.int8
    check(x.clamp(), a)  # no bound: a copy (the array API's clip)
    with pytest.raises(ek.DtypeError):
        ek.tensor([True], device=device).clamp(0, 1)
    y = x.clone()
    y.clamp_(0, 1)
    check(y, np.clip(a, 0, 1))


def test_lerp_axpby(device):
    a, b = sample(ek.float32, seed=5), sample(ek.float32, seed=6)
    x, y = ek.from_numpy(a, device=device), ek.from_numpy(b, device=device)
    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    check(ek.lerp(x, y, 0.25), a64 + 0.25 * (b64 - a64))
    check(x.lerp(y, 1.0), b64)
    check(x.lerp(2.0, 0.5), a64 + 0.5 * (2 - a64))
    w = ek.full((4,), 0.75, device=device)
    check(ek.lerp(x, y, w), a64 + 0.75 * (b64 - a64))
    with pytest.raises(ek.DtypeError):
        ek.lerp(ek.ones(2, dtype=ek.int32, device=device), ek.ones(2, dtype=ek.int32,
                                                                   device=device), 0.5)
    check(ek.axpby(2.0, x, -0.5, y), 2 * a64 - 0.5 * b64)
    z = y.clone()
    assert ek.axpby(2.0, x, 1.0, z, out=z) is z
    check(z, 2 * a64 + b64)
    with pytest.raises(ek.InvalidArgumentError):
        ek.axpby(0.5, ek.ones(2, dtype=ek.int32, device=device), 1,
                 ek.ones(2, dtype=ek.int32, device=device))


# ------------------------------------------------------------------ matrix products

@pytest.mark.parametrize("dt", FLOAT_DTYPES, ids=lambda d: d.name)
@pytest.mark.parametrize("sa,sb", [((5, 7), (7, 3)), ((7,), (7,)), ((7,), (7, 2)),
                                   ((4, 7), (7,)), ((2, 4, 7), (7, 3)), ((2, 1, 4, 7),
                                                                         (3, 7, 2))],
                         ids=str)
def test_matmul(device, dt, sa, sb):
    a, b = sample(dt, sa, seed=7), sample(dt, sb, seed=8)
    x, y = ek.from_numpy(a, device=device), ek.from_numpy(b, device=device)
    ref = a.astype(np.float64) @ b.astype(np.float64)
    rt = {ek.float16: 1e-2, ek.float32: 1e-5, ek.float64: 1e-12}[dt]
    check(x @ y, ref, dt, rtol=rt, atol=rt * 10)
    check(ek.matmul(x, y), ref, dt, rtol=rt, atol=rt * 10)
    check(x.matmul(y), ref, dt, rtol=rt, atol=rt * 10)


def test_matmul_views_and_errors(device):
    a = sample(ek.float32, (6, 4), seed=9)
    x = ek.from_numpy(a, device=device)
    check(x.T @ x, a.T.astype(np.float64) @ a, rtol=1e-5, atol=1e-5)  # transposed view
    check(x[::2] @ x.T[:, 1::2], a[::2].astype(np.float64) @ a.T[:, 1::2], rtol=1e-5,
          atol=1e-5)
    check(a @ x.T, a.astype(np.float64) @ a.T, rtol=1e-5, atol=1e-5)  # __rmatmul__
    with pytest.raises(ek.ShapeError, match="ek_matmul"):
        x @ x
    assert (x @ x.T.astype(ek.float64)).dtype is ek.float64  # mixed dtypes promote
    assert (ek.ones(2, 2, dtype=ek.int32, device=device) @ ek.ones(2, 2, dtype=ek.int32,
                                                                   device=device)).tolist() == \
        [[2, 2], [2, 2]]
    with pytest.raises(ek.DtypeError, match="bool operands"):
        ek.ones(2, 2, dtype=ek.bool_, device=device) @ ek.ones(2, 2, dtype=ek.bool_, device=device)
    m = ek.ones(4, 4, device=device)
    m @= ek.full((4, 4), 0.5, device=device)
    assert m[0, 0].item() == 2.0


def test_gemm(device):
    a, b, c = (sample(ek.float32, s, seed=i) for i, s in enumerate([(3, 5), (5, 4), (3, 4)]))
    x, y, z = (ek.from_numpy(v, device=device) for v in (a, b, c))
    r = ek.gemm(x, y, z, alpha=2.0, beta=0.5)
    assert r is z
    check(z, 2 * (a.astype(np.float64) @ b) + 0.5 * c, rtol=1e-5, atol=1e-5)
    z.addmm_(x, y, beta=0.0)
    check(z, a.astype(np.float64) @ b, rtol=1e-5, atol=1e-5)
    # transposed operands (views) and a batch
    ab = sample(ek.float32, (2, 3, 5), seed=11)
    zb = ek.zeros(2, 3, 4, device=device)
    ek.gemm(ek.from_numpy(ab, device=device), y, zb)
    check(zb, ab.astype(np.float64) @ b, rtol=1e-5, atol=1e-5)
    zt = ek.zeros(5, 4, device=device)
    ek.gemm(x.T, ek.from_numpy(c, device=device), zt)
    check(zt, a.T.astype(np.float64) @ c, rtol=1e-5, atol=1e-5)
    with pytest.raises(ek.ShapeError):
        ek.gemm(x, x, z)
    with pytest.raises(TypeError):
        ek.gemm(x, y, c)
