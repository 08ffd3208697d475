#!/bin/sh
# The shared library exports ek_* functions and nothing else.
set -eu
lib="$1"
symbols=$(nm -D --defined-only "$lib" | awk '$2 ~ /^[TDBRVW]$/ {print $3}' | sed 's/@.*//')
count=$(printf '%s\n' "$symbols" | grep -c '^ek_' || true)
others=$(printf '%s\n' "$symbols" | grep -v '^ek_' | grep -v '^EK_0$' || true)
if [ -n "$others" ]; then
  echo "exported symbols outside ek_*:"; printf '%s\n' "$others" | head -20
  exit 1
fi
[ "$count" -gt 50 ] || { echo "only $count ek_* symbols exported"; exit 1; }
soname=$(objdump -p "$lib" | awk '/SONAME/ {print $2}')
[ "$soname" = "libek.so.0" ] || { echo "SONAME is '$soname', not libek.so.0"; exit 1; }
echo "$count ek_* symbols exported, nothing else; SONAME $soname"
