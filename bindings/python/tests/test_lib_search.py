"""Where ek finds libek, cuBLAS and NVRTC (ek/_lib.py; bindings/python/README.md,
"Finding libek"): libek from EK_LIBRARY, then the package, then the system;
cuBLAS/NVRTC from NVIDIA's wheels (nvidia/cu13/lib on sys.path, loaded by path
before libek) and otherwise from the system, by soname, when libek needs them."""

import ctypes
import os
import shutil
import subprocess
import sys
import textwrap

import pytest

from ek import _lib


def _fake_cu13(root, names=("libcublasLt.so.13", "libcublas.so.13", "libnvrtc.so.13")):
    lib_dir = root / "nvidia" / "cu13" / "lib"
    lib_dir.mkdir(parents=True)
    for n in names:
        (lib_dir / n).write_bytes(b"")
    return lib_dir


class _Recorder:
    def __init__(self):
        self.calls = []

    def __call__(self, path, mode=0):
        self.calls.append((os.path.basename(path), mode))


def test_wheel_dirs_found_on_sys_path(tmp_path, monkeypatch):
    lib_dir = _fake_cu13(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    for m in [m for m in sys.modules if m == "nvidia" or m.startswith("nvidia.")]:
        monkeypatch.delitem(sys.modules, m)
    assert str(lib_dir) in _lib._cuda_wheel_dirs()


def test_no_wheel_dirs_without_the_package():
    def find_spec(name):
        raise ModuleNotFoundError(name)
    assert _lib._cuda_wheel_dirs(find_spec) == []
    assert _lib._cuda_wheel_dirs(lambda name: None) == []


def test_preload_order_and_mode(tmp_path):
    lib_dir = _fake_cu13(tmp_path)
    rec = _Recorder()
    got = _lib.preload_cuda_wheels(environ={}, dirs=[str(lib_dir)], cdll=rec)
    assert got == {"cuBLAS": str(lib_dir / "libcublas.so.13"),
                   "NVRTC": str(lib_dir / "libnvrtc.so.13")}
    # cuBLAS's own dependency first, every one global so libek's dlopen sees it.
    assert rec.calls == [("libcublasLt.so.13", ctypes.RTLD_GLOBAL),
                         ("libcublas.so.13", ctypes.RTLD_GLOBAL),
                         ("libnvrtc.so.13", ctypes.RTLD_GLOBAL)]


def test_preload_takes_only_complete_wheels(tmp_path):
    only_nvrtc = _fake_cu13(tmp_path / "a", names=("libcublas.so.13", "libnvrtc.so.13"))
    rec = _Recorder()
    got = _lib.preload_cuda_wheels(environ={}, dirs=[str(tmp_path / "none"), str(only_nvrtc)],
                                   cdll=rec)
    assert got == {"NVRTC": str(only_nvrtc / "libnvrtc.so.13")}  # libcublasLt is missing
    assert rec.calls == [("libnvrtc.so.13", ctypes.RTLD_GLOBAL)]


def test_preload_switched_off(tmp_path):
    lib_dir = _fake_cu13(tmp_path)
    rec = _Recorder()
    assert _lib.preload_cuda_wheels(environ={"EK_CUDA_WHEELS": "0"}, dirs=[str(lib_dir)],
                                    cdll=rec) == {}
    assert rec.calls == []


def test_preload_broken_wheel_warns(tmp_path):
    lib_dir = _fake_cu13(tmp_path)  # empty files: not ELF, dlopen fails
    with pytest.warns(RuntimeWarning) as record:
        got = _lib.preload_cuda_wheels(environ={}, dirs=[str(lib_dir)])
    assert got == {}
    msgs = [str(w.message) for w in record]
    assert len(msgs) == 2 and all("libek will search the system" in m for m in msgs)
    assert "cannot load cuBLAS from NVIDIA's wheel" in msgs[0] and "libcublasLt.so.13" in msgs[0]
    assert "cannot load NVRTC from NVIDIA's wheel" in msgs[1]


_SONAME_CHECK = textwrap.dedent("""
    import ctypes, sys
    from ek import _lib
    got = _lib.preload_cuda_wheels(environ={}, dirs=[sys.argv[1]])
    assert set(got) == {"cuBLAS", "NVRTC"}, got
    # What libek does: dlopen by soname, no path.
    for soname in ("libcublas.so.13", "libnvrtc.so.13"):
        f = ctypes.CDLL(soname, mode=ctypes.RTLD_LOCAL).ek_fake_marker
        f.restype = ctypes.c_int
        assert f() == 42, soname
    print("ok")
""")


@pytest.mark.skipif(shutil.which("cc") is None, reason="needs a C compiler")
def test_preloaded_wheel_wins_the_soname_lookup(tmp_path):
    # Real shared objects named like NVIDIA's: after the preload, a dlopen by
    # soname (as libek's) returns them, even where a system CUDA has its own.
    lib_dir = tmp_path / "nvidia" / "cu13" / "lib"
    lib_dir.mkdir(parents=True)
    src = tmp_path / "fake.c"
    src.write_text("int ek_fake_marker(void) { return 42; }\n")
    for soname in ("libcublasLt.so.13", "libcublas.so.13", "libnvrtc.so.13"):
        subprocess.run(["cc", "-shared", "-fPIC", f"-Wl,-soname,{soname}", "-o",
                        str(lib_dir / soname), str(src)], check=True)
    # EK_CUDA_WHEELS=0: `import ek` must not preload NVIDIA wheels installed
    # beside this interpreter (PyTorch's), or those would take the sonames first.
    env = dict(os.environ, PYTHONPATH=os.path.dirname(os.path.dirname(_lib.__file__)),
               EK_CUDA_WHEELS="0")
    r = subprocess.run([sys.executable, "-c", _SONAME_CHECK, str(lib_dir)], env=env,
                       capture_output=True, text=True)
    assert r.returncode == 0 and r.stdout.strip() == "ok", r.stderr


def test_libek_order(tmp_path, monkeypatch):
    # EK_LIBRARY, then a copy in the package, then the wheel's (meson-python's
    # .ek.mesonpy.libs beside the package), then the system's.
    real = os.path.realpath(_lib.LIBRARY_PATH)
    pkg, wheel_libs = tmp_path / "ek", tmp_path / ".ek.mesonpy.libs"
    pkg.mkdir()
    wheel_libs.mkdir()
    monkeypatch.setattr(_lib.ctypes.util, "find_library", lambda name: real)
    assert _lib.load(environ={}, pkg_dir=str(pkg))[1] == real
    (wheel_libs / "libek.so.0").symlink_to(real)
    assert _lib.load(environ={}, pkg_dir=str(pkg))[1] == str(wheel_libs / "libek.so.0")
    (pkg / "libek.so.0").symlink_to(real)
    assert _lib.load(environ={}, pkg_dir=str(pkg))[1] == str(pkg / "libek.so.0")
    assert _lib.load(environ={"EK_LIBRARY": real}, pkg_dir=str(pkg))[1] == real
