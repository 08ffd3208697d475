#!/usr/bin/env bash
# The CUDA wheel on a GPU machine with no internet (issue 15, "On the H100"):
#   scripts/gpu_wheel_check.sh [ek-*.whl]     (default: the first .whl/ek-*.whl)
# Installs the wheel (--no-deps) into a venv that sees the system's numpy,
# then from /, with no EK_LIBRARY, LD_LIBRARY_PATH or PYTHONPATH:
#  1. runs examples/python/quickstart.py on the GPU and compiles a kernel with
#     NVRTC, printing where cuBLAS and NVRTC were loaded from;
#  2. hides the system's cuBLAS and NVRTC (the dynamic loader run with
#     --inhibit-cache, so the ld.so.conf entry of the CUDA toolkit is not read;
#     only the driver's directory on LD_LIBRARY_PATH; EK_CUDA_WHEELS=0) and
#     shows libek's error naming each missing library while the CPU still works.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
whl=${1:-$(ls "$root"/.whl/ek-*.whl 2>/dev/null | head -n 1)}
[ -f "$whl" ] || { echo "usage: $0 path/to/ek-*.whl" >&2; exit 2; }
whl=$(cd "$(dirname "$whl")" && pwd)/$(basename "$whl")
work=$(mktemp -d "${TMPDIR:-/tmp}/ek-gpu-wheel.XXXXXX")
trap 'rm -rf "$work"' EXIT
unset EK_LIBRARY PYTHONPATH EK_DEVICE
step() { printf '\n== gpu_wheel_check: %s\n' "$*"; }

step "venv (--system-site-packages), pip install --no-deps $(basename "$whl")"
python3 -m venv --system-site-packages "$work/venv"
vpy="$work/venv/bin/python"
# python3 may itself be a venv's (the GPU machines' PyTorch one), whose numpy
# the new venv does not see: link that numpy alone in (not its site-packages,
# which may hold NVIDIA's wheels and so hide what step 1 is to show).
if ! "$vpy" -c "import numpy" 2>/dev/null; then
  np_dir=$(python3 -c "import numpy, os; print(os.path.dirname(numpy.__file__))")
  site=$("$vpy" -c "import sysconfig; print(sysconfig.get_paths()['purelib'])")
  for d in "$np_dir" "$np_dir.libs"; do
    [ -e "$d" ] && ln -sf "$d" "$site/"
  done
  "$vpy" -c "import numpy" || { echo "gpu_wheel_check: no numpy for the venv" >&2; exit 1; }
fi
"$vpy" -m pip install -q --no-deps --no-index --disable-pip-version-check "$whl"

cat >"$work/probe.py" <<'EOF'
"""probe.py found|hidden QUICKSTART: what the installed wheel does with the
system's cuBLAS/NVRTC present (found) or hidden (hidden)."""
import os, runpy, sys

mode, quickstart = sys.argv[1], sys.argv[2]
import ek

def loaded(tag):
    with open("/proc/self/maps") as f:
        return sorted({l.split()[-1] for l in f if "/" + tag in l})

def quickstart_run(*args):
    sys.argv = [quickstart, *args]
    try:
        runpy.run_path(quickstart, run_name="__main__")
    except SystemExit as e:
        return e.code or 0
    return 0

def nvrtc_compile():
    src = 'extern "C" __global__ void ek_probe(float *x) { x[threadIdx.x] = 1.0f; }'
    mod = ek.RawModule(src, device="cuda")
    mod.compile()
    return mod.origin

print(f"ek {ek.__version__}: {ek.__file__}\nlibek: {ek.LIBRARY_PATH}")
print(f"NVIDIA wheels preloaded: {ek._lib.CUDA_WHEEL_LIBRARIES or 'none'}")
print(f"CUDA available: {ek.cuda.is_available()}; driver: {loaded('libcuda.so') or 'not loaded'}")
if mode == "found":
    if not ek.cuda.is_available():
        sys.exit("gpu_wheel_check: no CUDA device: nothing to check")
    rc = quickstart_run()
    print(f"quickstart (cuda): exit {rc}")
    print(f"NVRTC compile: {nvrtc_compile()}")
    cublas, nvrtc = loaded("libcublas"), loaded("libnvrtc")
    print(f"cuBLAS found at: {cublas or 'NOT LOADED'}")
    print(f"NVRTC found at:  {nvrtc or 'NOT LOADED'}")
    sys.exit(0 if rc == 0 and cublas and nvrtc else 1)

ok = True
if ek.cuda.is_available():
    a = ek.ones((4, 4), device="cuda")
    for what, run in (("cuBLAS (matmul on cuda)", lambda: a @ a),
                      ("NVRTC (RawModule.compile)", nvrtc_compile)):
        try:
            run()
            print(f"{what}: worked: not hidden, loaded from {loaded('libcublas') + loaded('libnvrtc')}")
            ok = False
        except ek.Error as e:
            print(f"{what}: {type(e).__name__}: {e}")
            ok = ok and ("cuBLAS" in str(e) or "NVRTC" in str(e))
else:
    print("CUDA not available with the loader cache hidden (the driver is elsewhere)")
print(f"cuBLAS/NVRTC loaded: {loaded('libcublas') + loaded('libnvrtc') or 'none'}")
rc = quickstart_run("--cpu")
print(f"quickstart --cpu: exit {rc}")
sys.exit(0 if ok and rc == 0 else 1)
EOF

step "1. system cuBLAS/NVRTC: the CUDA quickstart"
# EK_CUDA_WHEELS=0: the system's, even if NVIDIA's wheels are in the system
# site-packages; an empty kernel cache, so NVRTC really compiles.
(cd / && EK_CUDA_WHEELS=0 EK_KERNEL_CACHE_DIR="$work/kcache1" \
  "$vpy" "$work/probe.py" found "$root/examples/python/quickstart.py") | tee "$work/found.log"
driver=$(sed -n "s/^CUDA available: True; driver: \['\(.*\)'\]$/\1/p" "$work/found.log")

step "2. cuBLAS/NVRTC hidden: the error, and the CPU"
mkdir "$work/driver"
# Only the driver stays findable, whatever directory the system keeps it in.
[ -n "$driver" ] && ln -s "$(dirname "$driver")"/lib{cuda,nvidia-}*.so* "$work/driver/" 2>/dev/null || true
loader=$(ls /lib64/ld-linux-x86-64.so.2 /lib/x86_64-linux-gnu/ld-linux-x86-64.so.2 2>/dev/null | head -n 1)
(cd / && EK_CUDA_WHEELS=0 EK_KERNEL_CACHE_DIR="$work/kcache2" LD_LIBRARY_PATH="$work/driver" \
  "$loader" --inhibit-cache "$vpy" "$work/probe.py" hidden "$root/examples/python/quickstart.py")
echo "gpu_wheel_check: OK"
