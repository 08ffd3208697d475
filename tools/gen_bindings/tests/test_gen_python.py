"""The generator (tools/gen_bindings/gen.py, header.py) as the Python binding
uses it: --check, stale files, refusal of header forms it does not know.
Runs without libek."""

import os
import shutil
import subprocess
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
GEN_DIR = os.path.dirname(HERE)
ROOT = os.path.normpath(os.path.join(GEN_DIR, "..", ".."))
ONLY = ["--only", "python", "--only", "python_ops", "--only", "python_pyi"]
PY_FILES = ["bindings/python/ek/_ffi.py", "bindings/python/ek/_capi.py",
            "bindings/python/ek/_ops.py", "bindings/python/ek/_status.py",
            "bindings/python/ek/__init__.pyi"]


def _gen(*args, root=ROOT):
    return subprocess.run([sys.executable, os.path.join(root, "tools", "gen_bindings", "gen.py"),
                           *ONLY, *args], capture_output=True, text=True)


def test_gen_ffi_check():
    r = _gen("--check")
    assert r.returncode == 0, r.stdout + r.stderr


@pytest.fixture
def tree(tmp_path):
    """A copy of what the Python emitters read and write."""
    for rel in ("tools/gen_bindings", "include", "bindings/python/ek"):
        shutil.copytree(os.path.join(ROOT, rel), tmp_path / rel,
                        ignore=shutil.ignore_patterns("__pycache__", "tests"))
    return tmp_path


@pytest.mark.parametrize("rel", PY_FILES)
def test_gen_ffi_detects_stale(tree, rel):
    (tree / rel).write_text("# old\n")
    r = _gen("--check", root=str(tree))
    assert r.returncode == 1 and "+++" in r.stdout and rel in r.stderr
    assert _gen(root=str(tree)).returncode == 0  # rewrites it
    assert (tree / rel).read_text() == open(os.path.join(ROOT, rel)).read()


def test_stubs_follow_the_sources(tree):
    # A hand-written function changes: the generated stub is stale until regenerated.
    p = tree / "bindings/python/ek/_join.py"
    p.write_text(p.read_text().replace('"""torch.cat: see ``ek.concat``."""', '"""Changed."""'))
    r = _gen("--check", root=str(tree))
    assert r.returncode == 1 and "Changed." in r.stdout


@pytest.mark.parametrize("edit, message", [
    (("#ifdef EK_EXPERIMENTAL", "#ifdef EK_OTHER"), "unknown conditional"),
    (("static inline ek_scalar ek_scalar_bool(int v) {", "static inline ek_scalar x(int v);"),
     "static inline"),
    (("size_t struct_size;             /* set by the caller: sizeof(ek_tensor_info) */",
      "int x; size_t struct_size;"), "struct_size must be its first field"),
    (("EK_API ek_status ek_nonzero(ek_stream stream, ek_tensor x, ek_tensor *out);",
      "EK_API ek_status ek_nonzero(ek_stream stream, ek_tensor x, ek_mystery *out);"),
     "unknown C type"),
])
def test_gen_ffi_refuses(tmp_path, edit, message):
    header = open(os.path.join(ROOT, "include", "ek.h")).read()
    assert edit[0] in header
    bad = tmp_path / "ek.h"
    bad.write_text(header.replace(edit[0], edit[1]))
    r = _gen("--check", "--header", str(bad))
    assert r.returncode == 2 and message in r.stderr, r.stderr


def test_op_layer_follows_the_header(tmp_path):
    sys.path.insert(0, GEN_DIR)
    try:
        import emit_python_ops
        import header
        header_text = open(os.path.join(ROOT, "include", "ek.h")).read()
        bad = tmp_path / "ek.h"
        bad.write_text(header_text.replace('X(EK_UNARY_SIGNBIT, 40, "signbit")',
                                           'X(EK_UNARY_SIGNBIT, 40, "signbit") X(EK_UNARY_CBRT, 41, "cbrt")'))
        out = emit_python_ops.outputs(header.parse(str(bad)))["bindings/python/ek/_ops.py"]
        assert "def cbrt(input, *, out=None)" in out and "rc = _c_unary(st, 41, x._h, _byref(h))" in out
        assert "def cbrt_(self)" in out and "('unary', 'cbrt', 41)" in out
    finally:
        sys.path.remove(GEN_DIR)
