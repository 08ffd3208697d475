import ctypes
import gc
import os
import subprocess
import sys

import numpy as np
import pytest

import ek
from ek import _errors, _ffi

HERE = os.path.dirname(os.path.abspath(__file__))
PKG_ROOT = os.path.dirname(HERE)


def test_exception_classes():
    pairs = {
        "EK_ERROR_INVALID_ARGUMENT": (ek.InvalidArgumentError, ValueError),
        "EK_ERROR_SHAPE": (ek.ShapeError, ValueError),
        "EK_ERROR_DTYPE": (ek.DtypeError, TypeError),
        "EK_ERROR_INDEX": (ek.EkIndexError, IndexError),
        "EK_ERROR_OVERFLOW": (ek.EkOverflowError, OverflowError),
        "EK_ERROR_OUT_OF_MEMORY": (ek.OutOfMemoryError, MemoryError),
        "EK_ERROR_NO_DEVICE": (ek.NoDeviceError, ek.Error),
        "EK_ERROR_DEVICE": (ek.DeviceError, ek.Error),
        "EK_ERROR_NOT_SUPPORTED": (ek.NotSupportedError, ek.Error),
        "EK_ERROR_NOT_READY": (ek.NotReadyError, ek.Error),
        "EK_ERROR_COMPILE": (ek.CompileError, ek.Error),
        "EK_ERROR_LIBRARY": (ek.LibraryError, ek.Error),
        "EK_ERROR_IO": (ek.IOError_, OSError),
        "EK_ERROR_INTERNAL": (ek.InternalError, ek.Error),
        "EK_ERROR_CAPTURE": (ek.CaptureError, RuntimeError),
        "EK_ERROR_TIMEOUT": (ek.TimeoutError_, TimeoutError),
    }
    for name, (cls, base) in pairs.items():
        e = _errors.error_for(getattr(_ffi, name), "msg")
        assert type(e) is cls and isinstance(e, base) and isinstance(e, ek.Error)
        assert e.status_name == name and e.message == "msg"
    assert ek.IndexError_ is ek.EkIndexError and ek.OverflowError_ is ek.EkOverflowError
    # every status of ek.h has a class
    for value in _ffi.STATUS_NAMES:
        if value:
            assert type(_errors.error_for(value)) is not ek.Error
    _errors.check(0)


def test_error_message_from_c():
    with pytest.raises(ek.ShapeError) as ei:
        ek.zeros(2, 3).T.view(6)
    e = ei.value
    assert e.status == _ffi.EK_ERROR_SHAPE
    assert "ek_view_reshape" in e.message and "ek_view_reshape" in str(e)


def test_overflow():
    with pytest.raises(ek.EkOverflowError):
        ek.empty(2**40, 2**40, dtype=ek.float64)


def test_memory_stats_and_snapshot():
    ctx = ek.Context("cpu")
    s0 = ctx.memory_stats()
    assert {"allocated_bytes", "reserved_bytes", "peak_allocated_bytes",
            "fragmentation", "limit_bytes"} <= set(s0)
    t = ek.empty(1000, dtype=ek.float64, device=ctx)
    s1 = ctx.memory_stats()
    assert s1["allocated_bytes"] >= 8000 and s1["active_blocks"] >= 1
    snap = ctx.memory_snapshot()
    live = [b for b in snap if b["allocated"]]
    assert any(b["requested"] == 8000 for b in live)
    assert all({"segment_address", "size", "stream_id"} <= set(b) for b in snap)
    del t
    gc.collect()
    assert ctx.memory_stats()["allocated_bytes"] == 0
    ctx.reset_peak_memory_stats()
    assert ctx.memory_stats()["peak_allocated_bytes"] == 0
    ctx.empty_cache()
    assert ctx.memory_stats()["reserved_bytes"] == 0
    ctx.set_memory_limit(1 << 20)
    assert ctx.memory_stats()["limit_bytes"] == 1 << 20
    with pytest.raises(ek.InvalidArgumentError):
        ctx.set_memory_fraction(1.5)
    assert isinstance(ek.memory_stats("cpu"), dict)
    assert isinstance(ek.memory_snapshot("cpu"), list)


def test_cuda_memory_api(cuda_device):
    t = ek.empty(1 << 20, device="cuda")
    st = ek.cuda.memory_stats()
    assert st["allocated_bytes"] >= 4 << 20
    assert ek.cuda.memory_snapshot()
    del t
    gc.collect()
    ek.cuda.synchronize()
    ek.cuda.empty_cache()
    ek.cuda.reset_peak_memory_stats()
    assert ek.cuda.memory_allocated() == 0


def test_streams_and_events(device):
    s = ek.Stream(device)
    assert s.device.startswith(device)
    start, end = ek.Event(), ek.Event()
    with s:
        assert ek.current_stream(device) is s
        start.record()
        t = ek.arange(100000, device=device, dtype=ek.float32)
        u = t[::-1].contiguous()
        end.record()
    assert ek.current_stream(device) != s
    s.synchronize()
    end.synchronize()
    assert s.query() and end.query()
    assert start.elapsed_time(end) >= 0.0
    assert u[0].item() == 99999.0
    s2 = ek.Stream(device)
    s2.wait_stream(s)
    s2.synchronize()
    e = s.record_event()
    assert e.device == s.device
    ek.synchronize(device)
    assert ek.current_stream(device) == ek.context(device).default_stream


def test_event_errors():
    a, b = ek.Event("cpu"), ek.Event("cpu")
    with pytest.raises(ek.InvalidArgumentError, match="recorded"):
        a.elapsed_time(b)
    with pytest.raises(ek.InvalidArgumentError):
        ek.Event().synchronize()


def test_stream_from_native_cpu_not_supported():
    with pytest.raises(ek.NotSupportedError):
        ek.Stream.from_native(0, "cpu")


def test_stream_from_native_torch(cuda_device):
    torch = pytest.importorskip("torch")
    ts = torch.cuda.current_stream()
    s = ek.Stream.from_native(ts.cuda_stream, "cuda")
    assert s.native == ts.cuda_stream
    with s:
        t = ek.arange(10, device="cuda")
    s.synchronize()
    assert t.tolist() == list(range(10))


def test_compare_with_torch(cuda_device):
    torch = pytest.importorskip("torch")
    import numpy as np
    a = np.arange(60, dtype=np.float32).reshape(3, 4, 5)
    t = ek.from_numpy(a, device="cuda")
    tt = torch.from_numpy(a).cuda()
    for idx in [(1, slice(None, None, 2)), (slice(None), 0, slice(1, 4))]:
        np.testing.assert_array_equal(t[idx].numpy(), tt[idx].cpu().numpy())
    np.testing.assert_array_equal(t.permute(2, 0, 1).contiguous().numpy(),
                                  tt.permute(2, 0, 1).contiguous().cpu().numpy())


def _run_py(code, env_extra):
    env = {k: v for k, v in os.environ.items() if k != "EK_LIBRARY"}
    env.update(env_extra)
    env["PYTHONPATH"] = PKG_ROOT
    env["LD_LIBRARY_PATH"] = ""
    return subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True)


def test_library_not_found_message(tmp_path, monkeypatch):
    from ek import _lib
    # The system search may find a real libek (LD_LIBRARY_PATH); this test is about the message.
    monkeypatch.setattr(_lib.ctypes.util, "find_library", lambda name: None)
    with pytest.raises(ImportError) as ei:
        _lib.load(environ={"EK_LIBRARY": str(tmp_path / "nope.so.0")}, pkg_dir=str(tmp_path))
    msg = str(ei.value)
    assert str(tmp_path / "nope.so.0") in msg
    assert str(tmp_path / "libek.so.0") in msg
    assert "find_library('ek')" in msg and "EK_LIBRARY" in msg


def test_library_not_found_subprocess(tmp_path):
    r = _run_py("import ek", {"EK_LIBRARY": str(tmp_path / "missing.so")})
    if r.returncode == 0:
        pytest.skip("libek is installed system-wide or beside the package")
    assert "ImportError" in r.stderr and "missing.so" in r.stderr


def test_ffi_binds_every_function():
    from ek._lib import lib
    for name, (restype, argtypes, params, _doc) in _ffi.FUNCTIONS.items():
        fn = getattr(lib, name)
        assert fn.restype is restype and fn.argtypes == argtypes
        assert len(params) == len(argtypes)
    assert _ffi.EK_MAX_DIMS == 8 and _ffi.EK_SLICE_MIN == -(2**63)
    assert [f for f, _ in _ffi.ek_tensor_info._fields_][:4] == ["struct_size", "dtype", "ndim",
                                                                 "shape"]
    assert dict(_ffi.ek_tensor_info._fields_)["shape"] == ctypes.POINTER(ctypes.c_int64)


def test_ffi_api_1_0_forms():
    # Every struct the library fills starts with struct_size; new() sets it.
    for cls in _ffi.SIZED_STRUCTS:
        assert cls._fields_[0] == ("struct_size", ctypes.c_size_t)
        assert _ffi.new(cls).struct_size == ctypes.sizeof(cls)
        arr = _ffi.new(cls, 3)
        assert len(arr) == 3 and arr[0].struct_size == ctypes.sizeof(cls)
    with pytest.raises(TypeError):
        _ffi.new(_ffi.ek_scalar)
    # The static inline ek_scalar constructors are no symbols; experimental
    # declarations are bound and listed.
    assert "ek_scalar_int" in _ffi.INLINE_FUNCTIONS
    assert not set(_ffi.INLINE_FUNCTIONS) & set(_ffi.FUNCTIONS)
    assert {"ek_profiler_start", "ek_elementwise_destroy", "ek_kernel_launch_auto",
            "ek_profile_record"} <= _ffi.EXPERIMENTAL
    assert _ffi.FUNCTIONS["ek_profiler_start"][3].startswith("Experimental")
    assert "ek_softmax" not in _ffi.EXPERIMENTAL
    # Variants as enums from the X-macro lists.
    assert _ffi.ek_softmax_kind_values == {"EK_SOFTMAX_PLAIN": 0, "EK_SOFTMAX_LOG": 1}
    assert _ffi.ek_scan_op_values == {"EK_SCAN_SUM": 0, "EK_SCAN_PROD": 1}
    assert _ffi.ek_var_kind_values == {"EK_VAR_VARIANCE": 0, "EK_VAR_STD": 1}


def _stub_names():
    import ast
    tree = ast.parse(open(os.path.join(PKG_ROOT, "ek", "__init__.pyi")).read())
    top, tensor = set(), set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            top.add(node.name)
        elif isinstance(node, ast.AnnAssign):
            top.add(node.target.id)
        elif isinstance(node, ast.Assign):
            top.update(t.id for t in node.targets)
        if isinstance(node, ast.ClassDef) and node.name == "Tensor":
            for m in node.body:
                if isinstance(m, ast.FunctionDef):
                    tensor.add(m.name)
                elif isinstance(m, ast.AnnAssign):
                    tensor.add(m.target.id)
    return top, tensor


def test_type_stubs_are_generated_and_cover_the_api():
    assert open(os.path.join(PKG_ROOT, "ek", "__init__.pyi")).readline().startswith(
        "# Generated by tools/gen_bindings")
    _test_type_stubs_cover_the_api()


def _test_type_stubs_cover_the_api():
    top, tensor = _stub_names()
    assert sorted(set(ek.__all__) - top - {"cuda"}) == []
    public = {n for n in dir(ek.Tensor) if not n.startswith("_") or
              (n.startswith("__") and n in vars(ek.Tensor) and n not in (
                  "__init__", "__slots__", "__module__", "__doc__", "__weakref__",
                  "__dict__", "__qualname__", "__firstlineno__", "__static_attributes__"))}
    assert sorted(public - tensor) == []


def test_public_functions_have_docstrings():
    missing = [n for n in ek.__all__ if callable(getattr(ek, n)) and
               not isinstance(getattr(ek, n), type) and not getattr(ek, n).__doc__]
    missing += [f"Tensor.{n}" for n in dir(ek.Tensor) if not n.startswith("_")
                and callable(getattr(ek.Tensor, n)) and not getattr(ek.Tensor, n).__doc__]
    assert missing == []


def _bad_calls(device):
    f = ek.ones(2, 3, device=device)
    i = ek.ones(2, 3, dtype=ek.int32, device=device)
    return [
        (lambda: f.exp(out=ek.empty(3, device=device)), ek.ShapeError, "ek_unary"),
        (lambda: f + ek.ones(4, device=device), ek.ShapeError, "ek_binary"),
        (lambda: f & 1, ek.DtypeError, "ek_binary_scalar"),
        (lambda: f.sum(dim=5), ek.Error, "ek_reduce"),
        (lambda: i.var(), ek.DtypeError, "ek_var"),
        (lambda: f.max(dim=7), ek.Error, "ek_reduce_with_indices"),
        (lambda: ek.where(f > 0, f, ek.ones(4, device=device)), ek.ShapeError, "ek_where"),
        (lambda: ek.tensor([True], device=device).clamp(0, 1), ek.DtypeError, "ek_clamp"),
        (lambda: ek.lerp(i, i, 0.5), ek.DtypeError, "ek_lerp"),
        (lambda: ek.axpby(1, f, 1, ek.ones(5, device=device)), ek.ShapeError, "ek_axpby"),
        (lambda: i.softmax(0), ek.DtypeError, "ek_softmax"),
        (lambda: f.log_softmax(4), ek.Error, "ek_softmax"),
        (lambda: f.cumsum(4), ek.Error, "ek_scan"),
        (lambda: f.cumprod(-4), ek.Error, "ek_scan"),
        (lambda: f @ f, ek.ShapeError, "ek_matmul"),
        (lambda: ek.gemm(f, f, f), ek.ShapeError, "ek_gemm"),
        (lambda: f.index_select(0, [2]), ek.EkIndexError, "ek_index_select"),
        (lambda: f.gather(1, [[3]]), ek.EkIndexError, "ek_gather"),
        (lambda: f.scatter(1, [[3]], 1.0), ek.EkIndexError, "ek_scatter"),
        (lambda: f.index_put(([5],), 1.0), ek.EkIndexError, "ek_index_put"),
        (lambda: f.masked_select(ek.ones(4, dtype=ek.bool_, device=device)), ek.ShapeError,
         "ek_masked_select"),
        (lambda: f.masked_fill(ek.ones(4, dtype=ek.bool_, device=device), 0), ek.ShapeError,
         "ek_masked_fill"),
        (lambda: f.masked_scatter(f > 0, ek.ones(2, device=device)), ek.Error,
         "ek_masked_scatter"),
        (lambda: f.uniform_(1, 1), ek.InvalidArgumentError, "ek_random"),
    ]


def test_every_op_raises_its_class_with_the_c_message(device):
    for fn, cls, cname in _bad_calls(device):
        with pytest.raises(cls) as ei:
            fn()
            ek.synchronize(device)  # CUDA's gathers report a bad index here by default
        e = ei.value
        assert cname in e.message, (cname, e.message)
        assert e.status_name.startswith("EK_ERROR_") and str(e).endswith(f"[{e.status_name}]")


def test_status_names_and_descriptions_from_c():
    e = ek.ShapeError("m")
    assert e.status_name == "EK_ERROR_SHAPE" and e.description == "shape mismatch"
    assert ek.Error("x", 12345).status_name == "EK_UNKNOWN_STATUS"


def test_raw_memory(device):
    with ek.Memory(1024, device=device) as m:
        assert m.ptr % 512 == 0 and m.nbytes == 1024 and not m.closed
        src = np.arange(256, dtype=np.int32)
        ek.memcpy(m, src)  # host -> pool memory (device memory on CUDA)
        back = np.zeros(256, np.int32)
        ek.memcpy(back, m)
        ek.synchronize(device)
        np.testing.assert_array_equal(back, src)
        m.record_stream(ek.Stream(device))
        assert ek.memory_stats(device)["active_blocks"] >= 1
    assert m.closed
    m.free()  # idempotent
    with pytest.raises(ek.InvalidArgumentError, match="closed"):
        m.record_stream(ek.current_stream(device))
    assert ek.Memory(0, device=device).ptr == 0
    with pytest.raises(OverflowError):
        ek.Memory(-1, device=device)
    with pytest.raises(TypeError, match="nbytes is needed"):
        ek.memcpy(1, 2)
    with pytest.raises(TypeError, match="ek.memcpy"):
        ek.memcpy(object(), b"x")


def test_memory_callback_threshold(device):
    ctx = ek.Context(device)
    seen = []
    ctx.set_memory_callback(lambda event, n: seen.append((event, n)), threshold_bytes=1)
    t = ek.empty(1 << 16, device=ctx)
    assert seen and seen[0][0] == "threshold" and seen[0][1] >= 1
    ctx.set_memory_callback(lambda e, n: 1 / 0, threshold_bytes=1)  # errors are printed
    ctx.set_memory_callback(None)
    del t


def test_library_lacking_functions_is_refused_unless_allowed(tmp_path, monkeypatch):
    import ctypes.util
    import warnings
    from ek import _lib
    libm = ctypes.util.find_library("m")
    if not libm:
        pytest.skip("no libm to stand in for an old libek")
    # Only the stand-in may be found (not a real libek on LD_LIBRARY_PATH).
    real = ctypes.util.find_library
    monkeypatch.setattr(ctypes.util, "find_library", lambda n: None if n == "ek" else real(n))
    with pytest.raises(ImportError, match="lacks .* function"):
        _lib.load(environ={"EK_LIBRARY": libm}, pkg_dir=str(tmp_path))
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        old, path = _lib.load(environ={"EK_LIBRARY": libm, "EK_ALLOW_MISSING_FUNCTIONS": "1"},
                              pkg_dir=str(tmp_path))
    assert path == libm and any("ek_matmul" in str(x.message) for x in w)
    with pytest.raises(ek.NotSupportedError, match="ek_matmul"):
        old.ek_matmul(None, None, None, None)
