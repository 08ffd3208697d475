#!/usr/bin/env bash
# C/C++ consumers of an installed libek: builds the CPU library with
# -Ddefault_library=both (in build-consumers/, kept between runs like the
# other build dirs), installs it stripped (meson.build's strip=true) into a
# temporary prefix, then builds and runs from that prefix, with no
# LD_LIBRARY_PATH anywhere:
#   1. the C quickstart through pkg-config, with an rpath to pkg-config's libdir;
#   2. the C++ quickstart through find_package(ek CONFIG) and ek::ek (CMake's
#      build RPATH, and the install RPATH of an installed copy);
#   3. static links (pkg-config --static, and CMake's ek::ek_static), run with
#      libek.so moved out of the prefix.
# The consumers are examples/consumers/*; README.md, "Install", says the same.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
build=build-consumers
step() { printf '\n---- consumers: %s\n' "$*"; }
unset LD_LIBRARY_PATH  # every program below must find libek by itself

tmp=$(mktemp -d "${TMPDIR:-/tmp}/ek-consumers.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
prefix=$tmp/prefix

step "build the CPU library (shared and static) in $build/"
[ -d "$build" ] || meson setup "$build" -Dcuda=disabled -Dtests=false -Dbench=false \
  -Ddefault_library=both >/dev/null
meson configure "$build" -Dprefix="$prefix" -Ddefault_library=both
nice -n 10 ninja -C "$build" -j"${EK_JOBS:-2}" >/dev/null

step "meson install into $prefix (strip=true)"
meson install -C "$build" --quiet --no-rebuild
libdir=$(dirname "$(find "$prefix" -name ek.pc)")/..
libdir=$(cd "$libdir" && pwd)
(cd "$prefix" && find . -type f -o -type l | sort | sed 's|^\./|  |')
for lib in libek.so.0 libek.a; do
  if readelf -S "$libdir/$lib" | grep -q '\.debug_'; then echo "$lib has debug sections: not stripped"; exit 1; fi
done
echo "libek.so.0: $(stat -c %s "$(readlink -f "$libdir/libek.so.0")") bytes;" \
  "libek.a: $(stat -c %s "$libdir/libek.a") bytes; no .debug_* sections in either"
export PKG_CONFIG_PATH=$libdir/pkgconfig
echo "pkg-config --libs ek:          $(pkg-config --libs ek)"
echo "pkg-config --static --libs ek: $(pkg-config --static --libs ek)"
[ "$(pkg-config --variable=libdir ek)" = "$libdir" ] || { echo "ek.pc's libdir is not $libdir"; exit 1; }

# The consumers are built from copies outside the source tree, as a user would.
runs() {  # program: runs it, shows where libek came from
  echo "\$ $1"
  "$1"
  echo "libek resolved: $(ldd "$1" | grep -o 'libek[^ ]* => [^ ]*' || echo 'none (static)')"
}

step "1. pkg-config C (rpath from pkg-config --variable=libdir ek)"
mkdir "$tmp/c"
cp examples/consumers/pkgconfig-c/Makefile examples/c/quickstart.c "$tmp/c/"
make -s -C "$tmp/c" SRC=quickstart.c
runs "$tmp/c/quickstart"

step "2. CMake C++ (find_package(ek CONFIG), ek::ek)"
cmake_q() { cmake "$@" >"$tmp/cmake.log" 2>&1 || { cat "$tmp/cmake.log"; exit 1; }; }
mkdir "$tmp/cpp"
cp examples/consumers/cmake-cpp/CMakeLists.txt examples/cpp/quickstart.cpp "$tmp/cpp/"
cmake_q -S "$tmp/cpp" -B "$tmp/cpp/build" -DCMAKE_PREFIX_PATH="$prefix" \
  -DEK_QUICKSTART_SOURCE="$tmp/cpp/quickstart.cpp" -DCMAKE_BUILD_TYPE=Release
cmake_q --build "$tmp/cpp/build" -j"${EK_JOBS:-2}"
runs "$tmp/cpp/build/quickstart_cpp"
cmake_q --install "$tmp/cpp/build" --prefix "$tmp/app"
echo "installed copy's run path: $(readelf -d "$tmp/app/bin/quickstart_cpp" | sed -n 's/.*Library r[a-z]*path: //p')"
runs "$tmp/app/bin/quickstart_cpp"

step "3. static links (pkg-config --static; CMake ek::ek_static)"
mkdir "$tmp/static"
cp examples/consumers/static/Makefile examples/c/quickstart.c "$tmp/static/"
make -s -C "$tmp/static" SRC=quickstart.c
cmake_q -S "$tmp/cpp" -B "$tmp/cpp/build-static" -DCMAKE_PREFIX_PATH="$prefix" -DEK_STATIC=ON \
  -DEK_QUICKSTART_SOURCE="$tmp/cpp/quickstart.cpp" -DCMAKE_BUILD_TYPE=Release
cmake_q --build "$tmp/cpp/build-static" -j"${EK_JOBS:-2}"
mkdir "$tmp/hidden"
mv "$libdir"/libek.so* "$tmp/hidden/"
echo "libek.so* moved out of $libdir"
for p in "$tmp/static/quickstart_static" "$tmp/cpp/build-static/quickstart_cpp"; do
  if readelf -d "$p" | grep -q 'NEEDED.*libek'; then echo "$p needs libek.so"; exit 1; fi
  runs "$p"
done

step "all three consumers ran from $prefix without LD_LIBRARY_PATH"
