"""Custom kernels: ek.RawModule, ek.RawKernel, ek.ElementwiseKernel.

CPU cases check what needs no GPU (the constructors refuse a CPU device, the
parameter lists are checked, argument conversion); the CUDA cases (run with
EK_TEST_DEVICE=cuda or all) compile with NVRTC. A fatbin for the image test is
found through EK_TEST_FATBIN (e.g. build/examples/scale.fatbin, built by
nvcc from examples/custom_kernel/scale.cu)."""

import ctypes
import gc
import os
import uuid

import numpy as np
import pytest

import ek
from ek import _ffi, _kernels

SAXPY = r'''
extern "C" __global__ void saxpy(float a, const float *x, float *y, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}
'''

AFFINE = r'''
extern "C" __global__ void affine(unsigned long long n, float a, float b,
                                  const float *x, float *y) {
  unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + b;
}
'''


def _unique(src):
    """The source with a comment making it unique: a fresh cache key, so that
    the first module of it is compiled (not found in a cache)."""
    return src + f"\n// {uuid.uuid4().hex}\n"


# ------------------------------------------------------------------ CPU


@pytest.fixture
def cpu_device(device):
    if device != "cpu":
        pytest.skip("CPU-only test")
    return device


def test_constructors_refuse_cpu(cpu_device):
    with pytest.raises(ek.NotSupportedError, match="CUDA"):
        ek.RawModule(SAXPY, device="cpu")
    with pytest.raises(ek.NotSupportedError):
        ek.RawModule(image=b"\x7fELF not really", device="cpu")
    with pytest.raises(ek.NotSupportedError):
        ek.RawKernel(SAXPY, "saxpy", device="cpu")
    with pytest.raises(ek.NotSupportedError):
        ek.ElementwiseKernel("float32 x", "float32 z", "z = x", device="cpu")
    with pytest.raises(ek.NotSupportedError):
        ek.context("cpu").kernel_cache_clear()
    # without device=: checked at once, built for the tensors' device at the call
    k = ek.ElementwiseKernel("float32 x", "float32 z", "z = x")
    assert (k.nin, k.nout, k.name) == (1, 1, "ek_elementwise")
    with pytest.raises(ek.NotSupportedError):
        k(ek.ones(3))
    k.close()
    assert ek.NotSupportedError.status == ek._ffi.EK_ERROR_NOT_SUPPORTED


def test_raw_module_arguments(cpu_device):
    with pytest.raises(TypeError, match="exactly one"):
        ek.RawModule()
    with pytest.raises(TypeError, match="exactly one"):
        ek.RawModule(SAXPY, image=b"x", device="cpu")
    with pytest.raises(TypeError, match="source code only"):
        ek.RawModule(image=b"x", options=("-DN=1",), device="cpu")
    with pytest.raises(TypeError):
        ek.RawModule(12, device="cpu")


@pytest.mark.parametrize("in_params,out_params", [
    ("floot32 x", "float32 z"),          # unknown type
    ("float32 x, float32 x", "float32 z"),  # duplicate name
    ("float32 i", "float32 z"),          # reserved
    ("float32 x", ""),                   # no outputs
    ("float32 2x", "float32 z"),         # not an identifier
    (", ".join(f"float32 a{j}" for j in range(17)), "float32 z"),  # too many
])
def test_elementwise_bad_params(cpu_device, in_params, out_params):
    with pytest.raises(ek.InvalidArgumentError) as ei:
        ek.ElementwiseKernel(in_params, out_params, "z = 0")
    assert "ek_elementwise_create" in str(ei.value)
    # the lists are checked before the device, so on a CPU device too
    with pytest.raises(ek.InvalidArgumentError):
        ek.ElementwiseKernel(in_params, out_params, "z = 0", device="cpu")


def test_elementwise_bad_name(cpu_device):
    with pytest.raises(ek.InvalidArgumentError):
        ek.ElementwiseKernel("float32 x", "float32 z", "z = x", "not an identifier")


def test_kernel_args_as_typed_values(cpu_device):
    # Each argument becomes an ek_kernel_value: libek does the byte marshalling.
    t = ek.ones(3)

    class S(ctypes.Structure):
        _fields_ = [("a", ctypes.c_int), ("b", ctypes.c_double)]

    args = (np.float32(2.5), np.int64(-3), np.uint8(7), np.float64(0.25), np.bool_(True),
            ctypes.c_int(5), np.int64(2**62 + 1), ctypes.c_uint64(9), np.uint64(2**64 - 1),
            S(1, 2.0), t)
    arr = _kernels._kernel_values(args, "k")
    T, SC, B = (_ffi.EK_KERNEL_VALUE_TENSOR, _ffi.EK_KERNEL_VALUE_SCALAR,
                _ffi.EK_KERNEL_VALUE_BYTES)
    assert [v.kind for v in arr] == [SC] * 7 + [B, SC, B, T]  # np.uint64: an ek dtype now
    assert [ek._dtype.from_code(v.dtype).name for v in arr[:7]] == [
        "float32", "int64", "uint8", "float64", "bool", "int32", "int64"]
    assert arr[0].scalar.f == 2.5 and arr[1].scalar.i == -3 and arr[2].scalar.i == 7
    assert arr[4].scalar.kind == _ffi.EK_SCALAR_BOOL and arr[5].scalar.i == 5
    assert arr[6].scalar.i == 2**62 + 1  # exact: no float on the way
    assert arr[7].size == 8 and ctypes.c_uint64.from_address(arr[7].bytes).value == 9
    assert ek._dtype.from_code(arr[8].dtype).name == "uint64"
    assert arr[8].scalar.kind == _ffi.EK_SCALAR_UINT64 and arr[8].scalar.u == 2**64 - 1
    assert arr[9].size == ctypes.sizeof(S) and S.from_address(arr[9].bytes).b == 2.0
    assert ctypes.cast(arr[10].tensor, ctypes.c_void_p).value == \
        ctypes.cast(t._h, ctypes.c_void_p).value
    assert arr.keep[-1] is t


@pytest.mark.parametrize("bare", [5, 2.0, True, -1, 1 << 40])
def test_kernel_args_refuse_bare_python_scalars(cpu_device, bare):
    with pytest.raises(TypeError, match=r"np\.int32|np\.float32|ctypes"):
        _kernels._kernel_values((np.float32(1), bare), "k")


def test_kernel_args_other_errors(cpu_device):
    with pytest.raises(TypeError, match="tuple"):
        _kernels._kernel_values(np.float32(1), "k")
    with pytest.raises(TypeError):
        _kernels._kernel_values(("text",), "k")
    with pytest.raises(TypeError):
        _kernels._kernel_values((np.array([1, 2]),), "k")  # arrays are not arguments
    with pytest.raises(TypeError):
        _kernels._kernel_values((np.str_("x"),), "k")


def test_dims(cpu_device):
    assert list(_kernels._dims(4, "g")) == [4, 1, 1]
    assert list(_kernels._dims((4, 2), "g")) == [4, 2, 1]
    assert list(_kernels._dims(np.array([4, 2, 3]), "g")) == [4, 2, 3]
    with pytest.raises(ek.InvalidArgumentError):
        _kernels._dims((1, 1, 1, 1), "g")
    with pytest.raises(ek.InvalidArgumentError):
        _kernels._dims(-1, "g")
    with pytest.raises(TypeError):
        _kernels._dims(2.0, "g")


def test_cuda_kernel_cache_clear_without_gpu(cpu_device):
    if ek.cuda.is_available():
        pytest.skip("a CUDA device is present")
    with pytest.raises(ek.NoDeviceError):
        ek.cuda.kernel_cache_clear()


# ------------------------------------------------------------------ CUDA


def test_saxpy_vs_numpy(cuda_device):
    n = 1000
    rng = np.random.default_rng(0)
    x_h = rng.standard_normal(n).astype(np.float32)
    y_h = rng.standard_normal(n).astype(np.float32)
    x = ek.from_numpy(x_h, device=cuda_device)
    y = ek.from_numpy(y_h, device=cuda_device)
    with ek.RawModule(SAXPY, device=cuda_device) as mod:
        k = mod.get_function("saxpy")
        assert mod.get_function("saxpy") is k
        k((n + 127) // 128, 128, (np.float32(2), x, y, np.int32(n)))
        np.testing.assert_allclose(y.numpy(), 2 * x_h + y_h, rtol=1e-6, atol=1e-6)
        # tuples for grid and block, ctypes scalars, an explicit stream
        s = ek.Stream(cuda_device)
        k(((n + 63) // 64, 1), (64, 1, 1), (ctypes.c_float(-2.0), x, y, ctypes.c_int(n)),
          stream=s)
        s.synchronize()
        np.testing.assert_allclose(y.numpy(), y_h, rtol=1e-5, atol=1e-5)
        a = k.attributes
        assert a["num_params"] == 4 and a["param_bytes"] >= 4 + 8 + 8 + 4
        assert 0 < a["max_threads_per_block"] <= 1024 and a["num_regs"] > 0
        with pytest.raises(TypeError, match="np.int32"):
            k(1, 32, (2.0, x, y, np.int32(n)))
        with pytest.raises(TypeError, match="ambiguous"):
            k(1, 32, (np.float32(2), x, y, n))
    assert mod.closed
    # the kernel keeps its code loaded after the module is closed
    k(1, 32, (np.float32(0), x, y, np.int32(0)))
    ek.cuda.synchronize()
    k.close()
    with pytest.raises(ek.InvalidArgumentError):
        k(1, 32, (np.float32(0), x, y, np.int32(0)))


def test_raw_kernel_cupy_style(cuda_device):
    n = 300
    x_h = np.arange(n, dtype=np.float32)
    x = ek.from_numpy(x_h, device=cuda_device)
    y = ek.zeros(n, device=cuda_device)
    k = ek.RawKernel(AFFINE, "affine", device=cuda_device)
    k((n + 255) // 256, 256, (np.uint64(n), np.float32(3), np.float32(0.5), x, y))
    np.testing.assert_allclose(y.numpy(), 3 * x_h + 0.5, rtol=1e-6)
    assert k.name == "affine" and k.attributes["num_params"] == 5
    k.close()
    with pytest.raises(ek.InvalidArgumentError):
        ek.RawKernel(AFFINE, "no_such_kernel", device=cuda_device).attributes


def test_wrong_arguments_raise(cuda_device):
    x = ek.zeros(4, device=cuda_device)
    k = ek.RawModule(SAXPY, device=cuda_device).get_function("saxpy")
    with pytest.raises(ek.InvalidArgumentError, match="ek_kernel_launch"):
        k(1, 32, (np.float32(1), x, x))                      # 3 of 4
    with pytest.raises(ek.InvalidArgumentError, match="ek_kernel_launch"):
        k(1, 32, (np.float32(1), x, x, np.int32(4), np.int32(0)))  # 5 of 4
    with pytest.raises(ek.InvalidArgumentError, match="ek_kernel_launch"):
        k(1, 32, (np.float64(1), x, x, np.int32(4)))         # 8 bytes for a float
    with pytest.raises(ek.InvalidArgumentError):
        k(0, 32, (np.float32(1), x, x, np.int32(4)))         # empty grid
    with pytest.raises(ek.InvalidArgumentError):
        k(1, 4096, (np.float32(1), x, x, np.int32(4)))       # too many threads
    with pytest.raises(ek.InvalidArgumentError, match="cpu"):
        k(1, 32, (np.float32(1), ek.zeros(4), x, np.int32(4)))  # a CPU tensor
    with pytest.raises(ek.InvalidArgumentError):
        ek.RawModule(SAXPY, device=cuda_device).get_function("nope")
    with pytest.raises(ek.InvalidArgumentError):
        ek.RawModule(SAXPY, options=("-arch=sm_80",), device=cuda_device)


def test_compile_error_has_nvrtc_log(cuda_device):
    src = 'extern "C" __global__ void bad(float *y) { y[0] = undeclared_thing; }\n'
    mod = ek.RawModule(_unique(src), name="bad_kernel.cu", device=cuda_device)
    assert mod.origin == "not loaded"
    with pytest.raises(ek.CompileError) as ei:
        mod.compile()
    msg = str(ei.value)
    assert "undeclared_thing" in msg and "bad_kernel.cu" in msg
    with pytest.raises(ek.CompileError):  # not retried: fails the same way
        mod.get_function("bad")
    mod.close()


def test_options_reach_nvrtc(cuda_device):
    src = _unique('extern "C" __global__ void k(float *y) { y[0] = SCALE; }\n')
    y = ek.zeros(1, device=cuda_device)
    with pytest.raises(ek.CompileError):
        ek.RawModule(src, device=cuda_device).compile()
    mod = ek.RawModule(src, options=("-DSCALE=4.5f",), device=cuda_device)
    mod.get_function("k")(1, 1, (y,))
    assert y.numpy().tolist() == [4.5]


def test_origin_compiled_then_memory_cache(cuda_device, tmp_path):
    src = _unique(SAXPY)
    ctx = ek.Context(cuda_device, kernel_cache_dir=str(tmp_path))
    m1 = ek.RawModule(src, device=ctx)
    assert m1.origin == "not loaded"
    m1.compile()
    assert m1.origin == "compiled"
    m2 = ek.RawModule(src, device=ctx)
    m2.get_function("saxpy")
    assert m2.origin == "memory cache"
    m1.close()
    m2.close()
    # after clearing the memory cache (and the disk one), it compiles again
    ctx.kernel_cache_clear()
    m3 = ek.RawModule(src, device=ctx)
    m3.compile()
    assert m3.origin == "compiled"
    assert "compiled" in repr(m3)
    m3.close()
    if os.environ.get("EK_KERNEL_CACHE_DIR"):  # never empty a developer's own cache
        ek.cuda.kernel_cache_clear()
        ek.cuda.kernel_cache_clear(0)


def test_image_from_fatbin(cuda_device):
    path = os.environ.get("EK_TEST_FATBIN")
    if not path or not os.path.exists(path):
        pytest.skip("set EK_TEST_FATBIN to a fatbin of examples/custom_kernel/scale.cu "
                    "(built by nvcc into build/examples/scale.fatbin)")
    mod = ek.RawModule(path=path, device=cuda_device)
    assert mod.origin == "image"
    with open(path, "rb") as f:
        mod2 = ek.RawModule(image=f.read(), device=cuda_device)
    assert mod2.origin == "image"
    n = 777
    x_h = np.linspace(-2, 2, n, dtype=np.float32)
    x = ek.from_numpy(x_h, device=cuda_device)
    for m in (mod, mod2):
        k = m.get_function("scale")  # (unsigned long long n, float a, const float *x, float *y)
        assert k.attributes["num_params"] == 4
        y = ek.zeros(n, device=cuda_device)
        k((n + 127) // 128, 128, (np.uint64(n), np.float32(-3), x, y))
        np.testing.assert_allclose(y.numpy(), -3 * x_h, rtol=1e-6)
    mod.close()
    mod2.close()


def test_bad_image_raises(cuda_device):
    with pytest.raises(ek.Error):
        ek.RawModule(image=b"definitely not a cubin", device=cuda_device)
    with pytest.raises(ek.InvalidArgumentError):
        ek.RawModule(image=b"", device=cuda_device)


def test_launch_auto(cuda_device):
    n = 100_000
    x_h = np.linspace(-1, 1, n, dtype=np.float32)
    x = ek.from_numpy(x_h, device=cuda_device)
    y = ek.empty(n, device=cuda_device)
    k = ek.RawModule(AFFINE, device=cuda_device).get_function("affine")
    args = (np.uint64(n), np.float32(2), np.float32(0.25), x, y)
    block = k.launch_auto(n, args)
    assert block in (32, 64, 128, 256, 512, 1024)
    np.testing.assert_allclose(y.numpy(), 2 * x_h + 0.25, rtol=1e-6, atol=1e-6)
    assert k.launch_auto(n, args) == block  # remembered for the bucket
    assert k.launch_auto(0, args) == 0
    with pytest.raises(ek.InvalidArgumentError):
        k.launch_auto(-1, args)
    with pytest.raises(ek.InvalidArgumentError):
        k.launch_auto(n, args[:4])


def test_elementwise_vs_numpy(cuda_device):
    rng = np.random.default_rng(1)
    x_h = rng.standard_normal((5, 7)).astype(np.float32)
    y_h = rng.standard_normal((5, 7)).astype(np.float32)
    x = ek.from_numpy(x_h, device=cuda_device)
    y = ek.from_numpy(y_h, device=cuda_device)
    with ek.ElementwiseKernel("float32 x, float32 y", "float32 z",
                              "z = x * y + max(x, 0.0f)", "fma_relu") as k:
        z = k(x, y)
        assert isinstance(z, ek.Tensor) and z.shape == (5, 7) and z.dtype is ek.float32
        expected = x_h * y_h + np.maximum(x_h, 0)
        np.testing.assert_allclose(z.numpy(), expected, rtol=1e-6, atol=1e-6)
        # into a given output, positionally and as out=
        z2 = ek.zeros(5, 7, device=cuda_device)
        assert k(x, y, z2) is z2
        np.testing.assert_allclose(z2.numpy(), expected, rtol=1e-6, atol=1e-6)
        z3 = ek.zeros(5, 7, device=cuda_device)
        assert k(x, y, out=z3) is z3
        np.testing.assert_allclose(z3.numpy(), expected, rtol=1e-6, atol=1e-6)
        # None: allocated
        assert k(x, y, None).shape == (5, 7)
        # non-contiguous inputs
        zt = k(x.T, y.T)
        np.testing.assert_allclose(zt.numpy(), expected.T, rtol=1e-6, atol=1e-6)
        # scalars become 0-d tensors of their parameter's dtype
        zs = k(x, 2.0)
        np.testing.assert_allclose(zs.numpy(), x_h * 2 + np.maximum(x_h, 0), rtol=1e-6)
        zs = k(x, np.float32(-1))
        np.testing.assert_allclose(zs.numpy(), -x_h + np.maximum(x_h, 0), rtol=1e-6)
        with pytest.raises(ek.DtypeError):
            k(x, ek.ones(5, 7, dtype=ek.float64, device=cuda_device))
        with pytest.raises((ek.ShapeError, ek.InvalidArgumentError)):
            k(x, y, ek.zeros(3, device=cuda_device))
        with pytest.raises(TypeError):
            k(x)
        with pytest.raises(TypeError):
            k(x, y, z2, out=z3)
        with pytest.raises(TypeError):
            k(x, y, np.zeros((5, 7), np.float32))
    with pytest.raises(ek.InvalidArgumentError):
        k(x, y)


def test_elementwise_broadcasting(cuda_device):
    a_h = np.arange(4, dtype=np.float32).reshape(4, 1)
    b_h = np.arange(3, dtype=np.float32).reshape(1, 3) * 10
    k = ek.ElementwiseKernel("float32 a, float32 b", "float32 c", "c = a + b", "bcast_add")
    c = k(ek.from_numpy(a_h, device=cuda_device), ek.from_numpy(b_h, device=cuda_device))
    assert c.shape == (4, 3)
    np.testing.assert_array_equal(c.numpy(), a_h + b_h)
    # an expanded view as input, and a 0-d tensor
    v = ek.from_numpy(np.arange(3, dtype=np.float32), device=cuda_device).expand(2, 3)
    c2 = k(v, ek.tensor(1.5, dtype=ek.float32, device=cuda_device))
    np.testing.assert_array_equal(c2.numpy(), np.broadcast_to(np.arange(3) + 1.5, (2, 3)))
    k.close()


def test_elementwise_two_outputs_and_index(cuda_device):
    x_h = np.array([[-2.5, -1.0, 0.0], [1.5, 3.0, -0.5]], dtype=np.float32)
    x = ek.from_numpy(x_h, device=cuda_device)
    k = ek.ElementwiseKernel("float32 x", "float32 absx, int64 idx",
                             "absx = fabsf(x); idx = i;", "abs_and_index")
    assert (k.nin, k.nout) == (1, 2)
    out = k(x)
    assert isinstance(out, tuple) and len(out) == 2
    absx, idx = out
    assert absx.dtype is ek.float32 and idx.dtype is ek.int64
    np.testing.assert_array_equal(absx.numpy(), np.abs(x_h))
    np.testing.assert_array_equal(idx.numpy(), np.arange(6).reshape(2, 3))
    # one given, one allocated; accumulation into a given output
    acc = ek.ones(2, 3, dtype=ek.int64, device=cuda_device)
    k2 = ek.ElementwiseKernel("float32 x", "float32 y, int64 n", "y = 2 * x; n += i;", "acc")
    y, n = k2(x, None, acc)
    assert n is acc
    np.testing.assert_array_equal(y.numpy(), 2 * x_h)
    np.testing.assert_array_equal(acc.numpy(), 1 + np.arange(6).reshape(2, 3))
    y2, n2 = k2(x, out=(None, acc))
    assert n2 is acc
    k.close()
    k2.close()


def test_elementwise_compile_error(cuda_device):
    k = ek.ElementwiseKernel("float32 x", "float32 z", "z = x + nope_" + uuid.uuid4().hex[:8],
                             "bad_body")
    with pytest.raises(ek.CompileError, match="nope_"):
        k(ek.ones(3, device=cuda_device))
    k.close()


def test_elementwise_dtypes(cuda_device):
    k = ek.ElementwiseKernel("float16 h, int32 n", "float64 d", "d = h * n", "mixed")
    h_h = np.array([0.5, 1.5, -2.0], dtype=np.float16)
    n_h = np.array([2, 3, 4], dtype=np.int32)
    d = k(ek.from_numpy(h_h, device=cuda_device), ek.from_numpy(n_h, device=cuda_device))
    assert d.dtype is ek.float64
    np.testing.assert_array_equal(d.numpy(), h_h.astype(np.float64) * n_h)
    k.close()


def test_elementwise_on_stream_and_device_arg(cuda_device):
    k = ek.ElementwiseKernel("float32 x", "float32 z", "z = x * x", "sq", device=cuda_device)
    s = ek.Stream(cuda_device)
    x = ek.arange(10, dtype=ek.float32, device=cuda_device)
    ek.cuda.synchronize()
    z = k(x, stream=s)
    s.synchronize()
    np.testing.assert_array_equal(z.numpy(), np.arange(10, dtype=np.float32) ** 2)
    with pytest.raises(TypeError):
        k(x, stream="not a stream")
    k.close()


def test_handles_released(cuda_device):
    ek.context(cuda_device)
    ek.context("cpu")  # ElementwiseKernel checks its lists on the CPU context
    gc.collect()
    before = ek.live_handles()
    x = ek.ones(8, device=cuda_device)
    mod = ek.RawModule(SAXPY, device=cuda_device)
    k = mod.get_function("saxpy")
    e = ek.ElementwiseKernel("float32 x", "float32 z", "z = x", "copy_kernel")
    e(x)
    rk = ek.RawKernel(AFFINE, "affine", device=cuda_device)
    del mod, k, e, rk
    gc.collect()
    assert ek.live_handles() == before + 1  # x
    del x
    gc.collect()
    assert ek.live_handles() == before


def test_torch_interop(cuda_device):
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("torch has no CUDA")
    n = 513
    xt = torch.linspace(-3, 3, n, device="cuda", dtype=torch.float32)
    yt = torch.randn(n, device="cuda", dtype=torch.float32)
    expected = 1.5 * xt + yt
    torch.cuda.synchronize()
    # torch tensors as RawKernel arguments (through __cuda_array_interface__)
    k = ek.RawModule(SAXPY, device=cuda_device).get_function("saxpy")
    k((n + 255) // 256, 256, (np.float32(1.5), xt, yt, np.int32(n)))
    ek.cuda.synchronize()
    torch.testing.assert_close(yt, expected)
    # ElementwiseKernel on tensors shared with torch through DLPack
    e = ek.ElementwiseKernel("float32 x, float32 y", "float32 z", "z = x * y + max(x, 0.0f)",
                             "torch_cmp")
    x = ek.from_dlpack(xt)
    y = ek.from_dlpack(yt)
    z = e(x, y)
    ref = xt * yt + torch.clamp(xt, min=0)
    torch.testing.assert_close(torch.from_numpy(z.numpy()).cuda(), ref)
    e.close()


# ------------------------------------------------ the glue, with a fake C side
# Without a GPU the C functions refuse; these run the Python side (argument
# marshalling, handle ownership, output wrapping) against stand-ins for the
# custom-kernel functions of libek, on CPU tensors.


class _FakeLib:
    FAKE = 0x1000

    def __init__(self, real):
        self._real = real
        self.launches = []
        self.released = []

    def __getattr__(self, name):
        return getattr(self._real, name)

    _RELEASE = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.c_void_p)

    def __getitem__(self, name):
        # The binding releases through a C function object (lib[name]) it
        # gives its own argtypes: a C-callable wrapper of the recording method.
        fn = self._RELEASE(getattr(self, name))
        return fn

    def _set(self, ref, value):
        ctypes.memmove(ctypes.addressof(ref._obj), ctypes.byref(ctypes.c_void_p(value)), 8)

    def ek_module_from_source(self, ctx, src, name, opts, n, out):
        self.source = (src, name, [ctypes.cast(opts[i], ctypes.c_char_p).value
                                   for i in range(n)])
        self._set(out, self.FAKE)
        return 0

    def ek_module_from_image(self, ctx, data, size, out):
        self.image = data[:size]
        self._set(out, self.FAKE)
        return 0

    def ek_module_get_kernel(self, m, name, out):
        self._set(out, self.FAKE + 16)
        return 0

    def ek_module_release(self, m):
        self.released.append("module")
        return 0

    def ek_kernel_release(self, k):
        self.released.append("kernel")
        return 0

    def ek_kernel_launch_values(self, stream, k, grid, block, shared, args, n):
        vals = []
        for v in args[:n]:
            if v.kind == ek._ffi.EK_KERNEL_VALUE_TENSOR:
                vals.append(("tensor", ctypes.cast(v.tensor, ctypes.c_void_p).value))
            elif v.kind == ek._ffi.EK_KERNEL_VALUE_SCALAR:
                s = v.scalar
                vals.append(("scalar", ek._dtype.from_code(v.dtype).name,
                             s.f if s.kind == ek._ffi.EK_SCALAR_FLOAT64 else s.i))
            else:
                vals.append(("bytes", ctypes.string_at(v.bytes, v.size)))
        self.launches.append((list(grid), list(block), shared, vals, stream))
        return 0

    def ek_kernel_launch_auto(self, stream, k, n, shared, args, n_args, used):
        used._obj.value = 128
        return 0

    def ek_elementwise_create(self, ctx, ins, outs, body, name, out):
        self._set(out, self.FAKE + 32)
        return 0

    def ek_elementwise_launch(self, stream, k, ins, nin, outs, nout):
        # outputs[j] = inputs[0] cast to float64 when NULL, else copied into
        for j in range(nout):
            if outs[j]:
                self._real.ek_copy(stream, ins[0], outs[j])
            else:
                h = ek._ffi.ek_tensor()
                self._real.ek_cast(stream, ins[0], ek.float64.code, ctypes.byref(h))
                outs[j] = h
        return 0

    def ek_elementwise_destroy(self, k):
        self.released.append("elementwise")
        return 0


@pytest.fixture
def fake_lib(cpu_device, monkeypatch):
    fake = _FakeLib(_kernels.lib)
    monkeypatch.setattr(_kernels, "lib", fake)
    return fake


def test_glue_raw_module(fake_lib):
    t = ek.arange(4, dtype=ek.float32)
    mod = ek.RawModule(SAXPY, name="s.cu", options=("-DA=1", "--use_fast_math"), device="cpu")
    assert fake_lib.source == (SAXPY.encode(), b"s.cu", [b"-DA=1", b"--use_fast_math"])
    k = mod.get_function("saxpy")
    assert mod.get_function("saxpy") is k
    k((3, 2), 64, (np.float32(2), t, ctypes.c_int(7), np.uint64(1 << 40)), shared_mem=16)
    grid, block, shared, vals, stream = fake_lib.launches[-1]
    assert grid == [3, 2, 1] and block == [64, 1, 1] and shared == 16 and stream is None
    assert vals[0] == ("scalar", "float32", 2.0) and vals[2] == ("scalar", "int32", 7)
    assert vals[1] == ("tensor", ctypes.cast(t._h, ctypes.c_void_p).value)
    assert vals[3] == ("scalar", "uint64", 1 << 40)
    s = ek.Stream("cpu")
    k(1, 1, (), stream=s)
    assert fake_lib.launches[-1][4] is s._h
    assert k.launch_auto(10, (t,)) == 128
    with pytest.raises(TypeError, match="ambiguous"):
        k(1, 1, (t, 3))
    with mod:
        pass
    assert fake_lib.released == ["module"] and mod.closed
    with pytest.raises(ek.InvalidArgumentError):
        mod.get_function("other")
    k(1, 1, (t,))  # still usable
    del k
    gc.collect()
    assert fake_lib.released == ["module", "kernel"]
    ek.RawModule(path=__file__, device="cpu").close()
    assert fake_lib.image == open(__file__, "rb").read()
    ek.RawModule(image=bytearray(b"abc"), device="cpu").close()
    assert fake_lib.image == b"abc"


def test_glue_raw_kernel_lazy(fake_lib):
    k = ek.RawKernel(SAXPY, "saxpy", options="-DX", device="cpu")
    assert fake_lib.source[2] == [b"-DX"] and fake_lib.released == []
    k(1, 1, ())
    assert fake_lib.released == ["module"]  # the kernel keeps the code loaded
    k.close()
    k.close()
    assert fake_lib.released == ["module", "kernel"] and k.closed
    with pytest.raises(ek.InvalidArgumentError):
        k(1, 1, ())


def test_glue_elementwise(fake_lib):
    k = ek.ElementwiseKernel("float32 x, float32 y", "float64 z, float64 w", "z = x; w = y;",
                             "two")
    k1 = ek.ElementwiseKernel("float32 x", "float64 z", "z = x")
    fake_lib.released.clear()  # the constructors' checks of the lists, on the CPU context
    x = ek.arange(3, dtype=ek.float32)
    y = ek.ones(3)
    z, w = k(x, y)
    assert z.dtype is ek.float64 and z.numpy().tolist() == [0, 1, 2]
    given = ek.zeros(3, dtype=ek.float64)
    z2, w2 = k(x, y, None, given)
    assert w2 is given and given.numpy().tolist() == [0, 1, 2]
    z3, w3 = k(x, y, out=(given, None))
    assert z3 is given
    z4, _ = k(x, 5.0)  # a scalar input becomes a 0-d tensor
    with pytest.raises(TypeError, match="at least one"):
        k(1.0, 2.0)
    with pytest.raises(TypeError):
        k(x, y, out=given)  # one of two outputs
    assert isinstance(k1(x), ek.Tensor)
    del z, w, z2, w2, z3, w3, z4
    k.close()
    assert fake_lib.released == ["elementwise"]
    del k1
    gc.collect()
    assert fake_lib.released == ["elementwise", "elementwise"]
