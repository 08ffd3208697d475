#!/usr/bin/env bash
# Gathers what scripts/gpu_batch.sh runs into .carry/ (ignored by git): the
# library, test, example and bench binaries from build/, and the Rust and Go
# test binaries (built here: the GPU machine has no cargo or go).
# PACK=bindings packs only the Rust and Go parts (the native ones are then
# built on the GPU machine by scripts/gpu_build.sh, with the gtest this packs).
set -euo pipefail
cd "$(dirname "$0")/.."
rm -rf .carry && mkdir -p .carry/{lib,tests,examples,bench,rust,go,overhead}
if [ "${PACK:-all}" = bindings ]; then
  mkdir -p .carry/gtest/{lib/pkgconfig,include}
  cp /usr/lib/x86_64-linux-gnu/libgtest*.a .carry/gtest/lib/
  cp -r /usr/include/gtest .carry/gtest/include/
  for pc in gtest gtest_main; do
    sed 's|^libdir=.*|libdir=${pcfiledir}/..|; s|^includedir=.*|includedir=${pcfiledir}/../../include|' \
      /usr/lib/x86_64-linux-gnu/pkgconfig/$pc.pc > .carry/gtest/lib/pkgconfig/$pc.pc
  done
else
# libek.so, libek.so.MAJOR and libek.so.MAJOR.MINOR.PATCH (not the .p object dir).
find build -maxdepth 1 -name 'libek.so*' ! -type d -exec cp -P {} .carry/lib/ \;
find build/tests -maxdepth 1 -type f -executable \( -name "test_*" -o -name cuda_copy_check \) -exec cp {} .carry/tests/ \;
cp build/tests/module_kernel.cubin build/tests/module_kernel.fatbin build/tests/module_kernel.ptx .carry/tests/
cp build/examples/quickstart build/examples/quickstart_cpp build/examples/custom_kernel_jit build/examples/custom_kernel_static \
   build/examples/scale.fatbin .carry/examples/
cp build/examples/data_parallel .carry/examples/  # issue 17: scripts/gpu_multi.sh
cp build/bench/bench_alloc build/bench/bench_copy build/bench/bench_ops build/bench/bench_fused \
   build/bench/col_variants build/bench/bench_handles build/bench/graph_step .carry/bench/
fi
# The bindings link against any build of the same tree (BUILD: a CPU-only one will do).
b=${BUILD:-build}
export PKG_CONFIG_PATH="$PWD/$b/meson-uninstalled" LD_LIBRARY_PATH="$PWD/$b"
if [ -d bindings/rust ]; then
  (cd bindings/rust && cargo test --offline --no-run --message-format=json 2>/dev/null) |
    python3 -c 'import sys,json
for l in sys.stdin:
  m=json.loads(l)
  if m.get("reason")=="compiler-artifact" and m.get("executable") and m["profile"]["test"]: print(m["executable"])' |
    while read -r exe; do cp "$exe" .carry/rust/; done
fi
[ -d bindings/go ] && (cd bindings/go && go test -c -o ../../.carry/go/ek.test .)
# The quickstarts in Rust and Go, and the per-op overhead of each binding.
(cd bindings/rust && cargo build -q --release --offline --example overhead --example quickstart --example custom_kernel)
cp bindings/rust/target/release/examples/overhead .carry/overhead/rust
cp bindings/rust/target/release/examples/quickstart .carry/examples/quickstart_rust
cp bindings/rust/target/release/examples/custom_kernel .carry/examples/custom_kernel_rust
(cd examples/go/overhead && go build -o ../../../.carry/overhead/go .)
(cd examples/go/quickstart && go build -o ../../../.carry/examples/quickstart_go .)
# Full strip: the 64 MiB carry limit; the dynamic symbols stay.
find .carry -path .carry/gtest -prune -o -type f -exec strip {} \; 2>/dev/null || true
du -sh .carry
