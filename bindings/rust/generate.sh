#!/bin/sh
# Regenerates ek-sys/src/bindings.rs from include/ek.h with bindgen (0.60).
#   ./generate.sh          rewrite the committed file
#   ./generate.sh --check  regenerate to a temporary file and diff (CI); exit 1 on drift
set -eu
here=$(cd "$(dirname "$0")" && pwd)
header="$here/../../include/ek.h"
out="$here/ek-sys/src/bindings.rs"
BINDGEN=${BINDGEN:-bindgen}
# ek.h includes ek_version.h, which only the build generates (from meson.build's
# version). The crates read the version at run time (ek_version_string), so an
# empty stand-in keeps bindings.rs free of the version and of any build dir.
work=$(mktemp -d "${TMPDIR:-/tmp}/ek-bindings.XXXXXX")
trap 'rm -rf "$work"' EXIT
: >"$work/ek_version.h"

gen() {
  # C enums become newtypes (never Rust enums: an unknown value would be UB).
  # EK_EXPERIMENTAL: the crate offers the experimental declarations too
  # (profiler, elementwise builders, autotuned launches), documented as such.
  # The ek_scalar constructors are static inline (no library symbol): bindgen
  # skips inline functions by default, and the blocklist keeps it so; the
  # ek crate builds ek_scalar values itself.
  "$BINDGEN" "$header" \
    --size_t-is-usize \
    --newtype-enum 'ek_.*' \
    --allowlist-function 'ek_.*' \
    --allowlist-type 'ek_.*' \
    --allowlist-var 'EK_.*' \
    --blocklist-function 'ek_scalar_.*' \
    --output "$1" \
    -- -I"$work" -DEK_EXPERIMENTAL
}

case "${1:-}" in
  --check)
    tmp="$work/bindings.rs"
    gen "$tmp"
    if ! diff -u "$out" "$tmp"; then
      echo "bindings/rust/ek-sys/src/bindings.rs is stale: run bindings/rust/generate.sh" >&2
      exit 1
    fi
    echo "bindings.rs up to date"
    ;;
  "")
    gen "$out"
    echo "wrote $out"
    ;;
  *)
    echo "usage: $0 [--check]" >&2
    exit 2
    ;;
esac
