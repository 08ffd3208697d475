#!/bin/sh
# Installs the build into a temporary root, checks what is installed (stripped
# library, ek.pc with its URL and Libs.private, the CMake package, libek.a when
# built with -Ddefault_library=both), then compiles and runs the C quickstart
# the way a consumer would: pkg-config --cflags --libs ek and an rpath to the
# libdir, without LD_LIBRARY_PATH. scripts/ci_consumers.sh does the rest
# (CMake, static links) on a real prefix.
set -eu
build="$1"
source="$2"
root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
meson install -C "$build" --destdir "$root" --quiet --no-rebuild
pc=$(dirname "$(find "$root" -name ek.pc | head -1)")
[ -n "$pc" ] || { echo "ek.pc was not installed"; exit 1; }
libdir=$(cd "$pc/.." && pwd)
fail() { echo "$*"; exit 1; }
grep -q '^URL: https://github.com/libek/libek$' "$pc/ek.pc" || fail "ek.pc: no project URL"
grep -q '^Libs.private:.*-lstdc++' "$pc/ek.pc" || fail "ek.pc: Libs.private lacks the C++ runtime"
for f in ekConfig.cmake ekConfigVersion.cmake; do
  [ -f "$libdir/cmake/ek/$f" ] || fail "$libdir/cmake/ek/$f was not installed"
done
# meson introspect's JSON: option values, the project version.
opt() { meson introspect "$build" --buildoptions |
  python3 -c "import json,sys; print([o['value'] for o in json.load(sys.stdin) if o['name'] == '$1'][0])"; }
version=$(meson introspect "$build" --projectinfo | python3 -c "import json,sys; print(json.load(sys.stdin)['version'])")
grep -q "PACKAGE_VERSION \"$version\"" "$libdir/cmake/ek/ekConfigVersion.cmake" ||
  fail "ekConfigVersion.cmake: not the project version $version"
if [ "$(opt default_library)" = both ]; then
  [ -f "$libdir/libek.a" ] || fail "default_library=both but libek.a was not installed"
fi
# strip=true is meson.build's default; a build dir made before it keeps false.
if [ "$(opt strip)" = True ]; then
  for lib in libek.so.0 libek.a; do
    [ -f "$libdir/$lib" ] || continue
    readelf -S "$libdir/$lib" | grep -q '\.debug_' && fail "strip=true but the installed $lib has debug sections"
  done
fi
export PKG_CONFIG_PATH="$pc" PKG_CONFIG_SYSROOT_DIR="$root"
flags=$(pkg-config --cflags --libs ek)
echo "pkg-config --cflags --libs ek: $flags"
echo "pkg-config --static --libs ek: $(pkg-config --static --libs ek)"
cc -std=c11 -Wall -Werror "$source/examples/c/quickstart.c" $flags -Wl,-rpath,"$libdir" -o "$root/quickstart"
env -u LD_LIBRARY_PATH "$root/quickstart"
