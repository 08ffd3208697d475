#!/usr/bin/env bash
# The version is written once, in meson.build's project(). Packaging formats
# that need a literal (the Python package, the Rust crates and Cargo.lock)
# hold copies; this script fails, naming each file, when a copy differs.
#   scripts/check_versions.sh            check (CI)
#   scripts/check_versions.sh --update   rewrite the copies from meson.build
set -euo pipefail
cd "$(dirname "$0")/.."

version=$(meson introspect --projectinfo meson.build |
  python3 -c 'import json, sys; print(json.load(sys.stdin)["version"])')
[[ $version =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]] ||
  { echo "meson.build's version '$version' is not MAJOR.MINOR.PATCH" >&2; exit 1; }

# file, the line's prefix before the quoted version, [the line above it]
copies=(
  'bindings/python/ek/_version.py|__version__ = '
  'bindings/rust/ek/Cargo.toml|version = |name = "ek"'
  'bindings/rust/ek-sys/Cargo.toml|version = |name = "ek-sys"'
  'bindings/rust/ek/Cargo.toml|ek-sys = { version = '
  'bindings/rust/Cargo.lock|version = |name = "ek"'
  'bindings/rust/Cargo.lock|version = |name = "ek-sys"'
)

# Prints the first quoted string after $2 on the line of $1 starting with $2 (right after a
# line equal to $3 when $3 is given).
found() {
  awk -v prefix="$2" -v above="$3" '
    index($0, prefix) == 1 && (above == "" || prev == above) {
      v = substr($0, length(prefix) + 1); match(v, /"[^"]*"/)
      print substr(v, RSTART + 1, RLENGTH - 2); exit
    }
    { prev = $0 }' "$1"
}

bad=0
for entry in "${copies[@]}"; do
  IFS='|' read -r file prefix above <<<"$entry"
  have=$(found "$file" "$prefix" "$above")
  [ "$have" = "$version" ] && continue
  if [ "${1:-}" = --update ]; then
    awk -v prefix="$prefix" -v above="$above" -v v="$version" '
      index($0, prefix) == 1 && (above == "" || prev == above) && !done {
        rest = substr($0, length(prefix) + 1); sub(/"[^"]*"/, "\"" v "\"", rest)
        $0 = prefix rest; done = 1
      }
      { prev = $0; print }' "$file" >"$file.tmp" && mv "$file.tmp" "$file"
    echo "updated $file${above:+ ($above)}: '$have' -> '$version'"
  else
    echo "$file${above:+ ($above)} has version '$have', meson.build has '$version'" >&2
    bad=1
  fi
done
if [ $bad = 1 ]; then
  echo "version copies differ from meson.build: run scripts/check_versions.sh --update" >&2
  exit 1
fi
echo "versions: every copy is $version (meson.build)"
