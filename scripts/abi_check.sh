#!/usr/bin/env bash
# Compares the ABI of a built libek with the committed baseline abi/libek.abi
# (libabigail's abidw/abidiff; the policy is docs/ABI.md). Builds nothing.
#   scripts/abi_check.sh [LIBRARY]            check (CI); LIBRARY defaults to build/libek.so.0
#   scripts/abi_check.sh --update [LIBRARY]   rewrite the baseline from LIBRARY
# Only what include/ek.h declares counts: the ek_* functions (src/ek.map exports
# nothing else) and the types they reach; the library's own types are opaque.
# Fails on any change to the existing ABI: abidiff sets bit 8 of its exit code
# for an incompatible change (a function removed, a parameter or return type
# changed, a struct passed by value changed) and bit 4 for any other change,
# such as a struct grown behind a pointer; both fail (rc & 12). New functions
# pass and are listed. Changes to the EK_EXPERIMENTAL section are ignored
# (abi/experimental.suppr).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
baseline=abi/libek.abi

update=0
if [ "${1:-}" = --update ]; then update=1; shift; fi
lib=${1:-build/libek.so.0}
[ $# -le 1 ] && [ "${lib#-}" = "$lib" ] || { echo "usage: $0 [--update] [LIBRARY]" >&2; exit 2; }
[ -f "$lib" ] || { echo "abi_check: $lib not found: build it first (ninja -C build)" >&2; exit 2; }
readelf -S "$lib" | grep -q '\.debug_info' ||
  { echo "abi_check: $lib has no DWARF (meson.build builds the library with -g; was it stripped?)" >&2; exit 2; }

# The library's ABI as abidw sees it, with no path of this machine in it: no
# locations, no corpus or compilation directory, and each translation unit
# named by its path in the source tree.
dump() {
  abidw --headers-dir include --drop-private-types --exported-interfaces-only \
    --no-corpus-path --no-comp-dir-path --no-show-locs --no-elf-needed \
    --type-id-style hash "$1" |
    python3 -c '
import os, re, sys
root, comp_dir = sys.argv[1], os.path.dirname(os.path.abspath(sys.argv[2]))
def unit(m):
    path = os.path.normpath(os.path.join(comp_dir, m.group(2)))
    return m.group(1) + os.path.relpath(path, root) + "'\''"
sys.stdout.write(re.sub(r"(<abi-instr [^>]*?path=\x27)([^\x27]*)\x27", unit, sys.stdin.read()))
' "$root" "$1"
}

# The suppression's pattern must match exactly the functions declared in the
# header's experimental section, or a frozen function could change unchecked.
python3 - <<'PY'
import re, sys
header = open("include/ek.h").read()
pattern = re.search(r"name_regexp = (\S+)", open("abi/experimental.suppr").read()).group(1)
section = re.search(r"#ifdef EK_EXPERIMENTAL\n(.*?)#endif /\* EK_EXPERIMENTAL \*/", header, re.S)
if not section:
    sys.exit("abi_check: include/ek.h has no EK_EXPERIMENTAL section")
declared = lambda text: set(re.findall(r"EK_API [^;(]*?\b(ek_\w+)\(", text))
experimental = declared(section.group(1))
frozen = declared(header) - experimental
wrong = sorted(f for f in experimental if not re.search(pattern, f))
wrong += sorted(f for f in frozen if re.search(pattern, f))
if wrong:
    sys.exit("abi_check: abi/experimental.suppr does not match ek.h's EK_EXPERIMENTAL section: "
             + ", ".join(wrong))
PY

work=$(mktemp -d "${TMPDIR:-/tmp}/ek-abi.XXXXXX")
trap 'rm -rf "$work"' EXIT
dump "$lib" >"$work/current.abi"
if grep -qF -e "$root" -e "${HOME:-$root}" "$work/current.abi"; then
  echo "abi_check: the ABI dump still names a local path:" >&2
  grep -nF -e "$root" -e "${HOME:-$root}" "$work/current.abi" | head -5 >&2
  exit 1
fi

if [ $update = 1 ]; then
  mkdir -p abi
  cp "$work/current.abi" "$baseline"
  echo "abi_check: wrote $baseline from $lib ($(grep -c '<elf-symbol ' "$baseline") functions)"
  exit 0
fi
[ -f "$baseline" ] || { echo "abi_check: no $baseline: run $0 --update" >&2; exit 2; }

# Changes other than additions: the same comparison with added functions not
# counted (abidiff reports those as a change too).
rc=0
# The experimental section may change in any release, and sized structs may
# grow at their end (docs/ABI.md).
suppr=(--suppressions abi/experimental.suppr --suppressions abi/appended.suppr)
abidiff "${suppr[@]}" --no-added-syms "$baseline" "$work/current.abi" >"$work/changes.txt" || rc=$?
added=0
abidiff "${suppr[@]}" "$baseline" "$work/current.abi" >"$work/all.txt" || added=$?
if [ $((rc & 3)) -ne 0 ] || [ $((added & 3)) -ne 0 ]; then
  cat "$work/changes.txt" "$work/all.txt" >&2
  echo "abi_check: abidiff failed (exit codes $rc, $added)" >&2
  exit 1
fi
if [ $((rc & 12)) -ne 0 ]; then
  cat "$work/all.txt"
  kind="a change"; [ $((rc & 8)) -ne 0 ] && kind="an incompatible change"
  echo "abi_check: FAILED: $kind to the ABI of $baseline (abidiff exit code $rc)." >&2
  echo "  An intended break before 1.0: refresh the baseline in the same commit with" >&2
  echo "  scripts/abi_check.sh --update $lib   (docs/ABI.md)" >&2
  exit 1
fi
if [ $((added & 12)) -ne 0 ]; then
  cat "$work/all.txt"
  echo "abi_check: OK, additions only (they join the baseline at the next --update)"
else
  echo "abi_check: OK, the ABI of $lib equals $baseline"
fi
