#!/usr/bin/env bash
# Sets up, builds and runs the quickstart demos (on the GPU when there is one).
set -euo pipefail
cd "$(dirname "$0")/.."
export PATH="$PATH:/usr/local/cuda/bin"
EK_SETUP_BINDINGS=0 scripts/setup.sh
[ -d build ] || meson setup build
ninja -C build
echo "== C quickstart"
build/examples/quickstart
if [ -f examples/python/quickstart.py ]; then
  echo "== Python quickstart"
  EK_LIBRARY="$PWD/build/libek.so.0" PYTHONPATH=bindings/python python3 examples/python/quickstart.py
fi
