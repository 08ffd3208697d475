#!/usr/bin/env bash
# On a GPU machine: builds libek, its tests, examples and benchmarks there
# (all of its cores; sm_90 only unless SM_ARCHS says otherwise) into
# build-gpu/, and fills .carry/ with them in scripts/pack_gpu.sh's layout, so
# that scripts/gpu_batch.sh runs unchanged. The Rust and Go binaries and
# GoogleTest come packed from the development machine (PACK=bindings
# scripts/pack_gpu.sh). Faster than building the CUDA code on a small
# development machine and carrying it.
set -euo pipefail
cd "$(dirname "$0")/.."
export PKG_CONFIG_PATH="$PWD/.carry/gtest/lib/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"
export PATH="$PATH:/usr/local/cuda/bin"
rm -rf build-gpu
meson setup build-gpu -Dbuildtype=release -Dsm_archs="${SM_ARCHS:-90}" > /dev/null
ninja -C build-gpu -k 0 -j"$(nproc)" > build-gpu/ninja.log 2>&1 || { grep -A12 FAILED build-gpu/ninja.log | head -150; exit 1; }
mkdir -p .carry/{lib,tests,examples,bench}
find build-gpu -maxdepth 1 -name 'libek.so*' ! -type d -exec cp -P {} .carry/lib/ \;
find build-gpu/tests -maxdepth 1 -type f -executable \( -name "test_*" -o -name cuda_copy_check \) \
  -exec cp {} .carry/tests/ \;
cp build-gpu/tests/module_kernel.cubin build-gpu/tests/module_kernel.fatbin \
   build-gpu/tests/module_kernel.ptx .carry/tests/
find build-gpu/examples -maxdepth 1 -type f \( -executable -o -name '*.fatbin' \) \
  -exec cp {} .carry/examples/ \;
find build-gpu/bench -maxdepth 1 -type f -executable -exec cp {} .carry/bench/ \;
