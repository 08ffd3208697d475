#!/usr/bin/env bash
# Gathers what scripts/gpu_batch.sh runs into .carry/ (ignored by git): the
# library, test, example and bench binaries from build/, and the Rust and Go
# test binaries (built here: the GPU machine has no cargo or go).
set -euo pipefail
cd "$(dirname "$0")/.."
rm -rf .carry && mkdir -p .carry/{lib,tests,examples,bench,rust,go}
cp -P build/libek.so build/libek.so.0 build/libek.so.0.1.0 .carry/lib/
find build/tests -maxdepth 1 -type f -executable \( -name "test_*" -o -name cuda_copy_check \) -exec cp {} .carry/tests/ \;
cp build/examples/quickstart .carry/examples/
cp build/bench/bench_alloc build/bench/bench_copy build/bench/bench_ops .carry/bench/
export PKG_CONFIG_PATH="$PWD/build/meson-uninstalled" LD_LIBRARY_PATH="$PWD/build"
if [ -d bindings/rust ]; then
  (cd bindings/rust && cargo test --offline --no-run --message-format=json 2>/dev/null) |
    python3 -c 'import sys,json
for l in sys.stdin:
  m=json.loads(l)
  if m.get("reason")=="compiler-artifact" and m.get("executable") and m["profile"]["test"]: print(m["executable"])' |
    while read -r exe; do cp "$exe" .carry/rust/; done
fi
[ -d bindings/go ] && (cd bindings/go && go test -c -o ../../.carry/go/ek.test .)
find .carry -type f -exec strip --strip-debug {} \; 2>/dev/null || true
du -sh .carry
