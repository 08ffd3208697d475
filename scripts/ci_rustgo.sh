#!/usr/bin/env bash
# The Rust and Go bindings as a consumer outside the tree uses them (issue 15):
# against a libek installed into a temporary prefix, builds the Rust quickstart
# from a copy of examples/rust/consumer (a crate depending on ek by path) and
# the Go quickstart from a copy of examples/go/quickstart (go.mod: require +
# replace), runs both WITHOUT LD_LIBRARY_PATH (their rpath finds libek), checks
# that ek-sys fails at build time, naming PKG_CONFIG_PATH and EK_LIB_DIR, when
# it cannot find libek, and runs `cargo package --no-verify --offline` for the
# ek-sys and ek crates.
#
# The library: the CPU build dir build-consumers/ (shared with
# scripts/ci_consumers.sh), installed into a temporary --prefix, so the
# installed ek.pc is the one a user gets and build/ (possibly a CUDA build,
# configured for another prefix) is left alone. EK_PREFIX=DIR uses a libek
# already installed there instead.
#   bash scripts/ci_rustgo.sh
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
work=$(mktemp -d "${TMPDIR:-/tmp}/ek-ci-rustgo.XXXXXX")
trap 'rm -rf "$work"' EXIT
step() { printf -- '---- ci_rustgo: %s\n' "$*"; }
# Nothing may find libek but the rpath (scripts/test.sh exports these).
unset LD_LIBRARY_PATH EK_LIBRARY EK_LIB_DIR

prefix=${EK_PREFIX:-}
if [ -z "$prefix" ]; then
  prefix="$work/prefix"
  # The CPU build dir scripts/ci_consumers.sh keeps (one library build for
  # both scripts), installed here with this prefix.
  build=build-consumers
  step "libek (CPU, $build/) installed into $prefix"
  [ -d "$build" ] || meson setup "$build" -Dcuda=disabled -Dtests=false -Dbench=false \
    -Ddefault_library=both >/dev/null
  meson configure "$build" -Dprefix="$prefix" >/dev/null
  nice -n 10 ninja -C "$build" -j"${EK_JOBS:-2}" >/dev/null
  meson install -C "$build" --quiet --no-rebuild
fi
pc=$(find "$prefix" -name ek.pc -path '*/pkgconfig/*' | head -n 1)
[ -n "$pc" ] || { echo "no ek.pc under $prefix"; exit 1; }
export PKG_CONFIG_PATH
PKG_CONFIG_PATH=$(dirname "$pc")
libdir=$(pkg-config --variable=libdir ek)
echo "PKG_CONFIG_PATH=$PKG_CONFIG_PATH (libdir $libdir)"

# Prints the binary's RUNPATH and runs it with no LD_LIBRARY_PATH; the
# quickstarts print sum(y) = 64 (64 rows of a softmax).
run_bare() {
  readelf -d "$1" | grep -E 'RUNPATH|RPATH' || { echo "$1 has no rpath"; exit 1; }
  env -u LD_LIBRARY_PATH "$1" | tee "$work/out"
  grep -q 'sum(y) = 64.0' "$work/out" || { echo "$1: unexpected output"; exit 1; }
}

step "Rust: examples/rust/consumer built outside the tree"
cp -r examples/rust/consumer "$work/rust"
rm -rf "$work/rust/target" "$work/rust/Cargo.lock"
sed -i "s#\"\\.\\./\\.\\./\\.\\./#\"$root/#" "$work/rust/Cargo.toml"
export CARGO_TARGET_DIR="$work/rust/target"
(cd "$work/rust" && cargo build --offline -q)
run_bare "$work/rust/target/debug/quickstart"

step "Rust: ek-sys without libek fails at build time, naming PKG_CONFIG_PATH and EK_LIB_DIR"
if (cd "$work/rust" && PKG_CONFIG_PATH="$work/none" PKG_CONFIG_LIBDIR="$work/none" \
      cargo build --offline -q -p ek-sys) >"$work/fail.log" 2>&1; then
  echo "ek-sys built without libek"; exit 1
fi
grep -E 'error: ek-sys cannot find libek' "$work/fail.log"
grep -q PKG_CONFIG_PATH "$work/fail.log" && grep -q EK_LIB_DIR "$work/fail.log" ||
  { cat "$work/fail.log"; exit 1; }

step "Rust: cargo package --no-verify --offline (ek-sys, ek)"
(cd bindings/rust && cargo package --no-verify --offline --allow-dirty --target-dir "$work/package" 2>&1)
unset CARGO_TARGET_DIR

step "Go: examples/go/quickstart built outside the tree (require + replace)"
cp -r examples/go/quickstart "$work/go"
sed -i "s#=> \\.\\./\\.\\./\\.\\./bindings/go#=> $root/bindings/go#" "$work/go/go.mod"
grep -E '^(require|replace)' "$work/go/go.mod"
(cd "$work/go" && GOPROXY=off GOFLAGS=-mod=mod CGO_LDFLAGS="-Wl,-rpath,$libdir" go build -o quickstart .)
run_bare "$work/go/quickstart"

step "OK: Rust and Go programs ran against $prefix without LD_LIBRARY_PATH"
