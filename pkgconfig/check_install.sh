#!/bin/sh
# Installs the build into a temporary root, then compiles and runs the C
# quickstart the way a consumer would: with pkg-config --cflags --libs ek.
set -eu
build="$1"
source="$2"
root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
meson install -C "$build" --destdir "$root" --quiet --no-rebuild
pc=$(dirname "$(find "$root" -name ek.pc | head -1)")
[ -n "$pc" ] || { echo "ek.pc was not installed"; exit 1; }
export PKG_CONFIG_PATH="$pc" PKG_CONFIG_SYSROOT_DIR="$root"
flags=$(pkg-config --cflags --libs ek)
echo "pkg-config --cflags --libs ek: $flags"
cc -std=c11 -Wall -Werror "$source/examples/c/quickstart.c" $flags -o "$root/quickstart"
libdir=$(pkg-config --libs-only-L ek | sed "s/^ *-L//; s/ *$//")
LD_LIBRARY_PATH="$libdir" "$root/quickstart"
