#!/bin/sh
# The shared library exports ek_* functions and nothing else, and every
# function ek.h declares (its EK_EXPERIMENTAL section included).
set -eu
lib="$1"
header="${2:-$(dirname "$0")/../include/ek.h}"
symbols=$(nm -D --defined-only "$lib" | awk '$2 ~ /^[TDBRVW]$/ {print $3}' | sed 's/@.*//')
count=$(printf '%s\n' "$symbols" | grep -c '^ek_' || true)
others=$(printf '%s\n' "$symbols" | grep -v '^ek_' | grep -v '^EK_0$' || true)
if [ -n "$others" ]; then
  echo "exported symbols outside ek_*:"; printf '%s\n' "$others" | head -20
  exit 1
fi
[ "$count" -gt 50 ] || { echo "only $count ek_* symbols exported"; exit 1; }
declared=$(tr '\n' ' ' < "$header" | grep -o 'EK_API [^(;]*(' | grep -o 'ek_[a-z0-9_]*($' | tr -d '(' |
  sort -u)
missing=$(printf '%s\n' "$declared" | grep -vxF "$symbols" || true)
if [ -n "$missing" ]; then
  echo "declared in ek.h but not exported:"; printf '%s\n' "$missing"
  exit 1
fi
soname=$(objdump -p "$lib" | awk '/SONAME/ {print $2}')
[ "$soname" = "libek.so.0" ] || { echo "SONAME is '$soname', not libek.so.0"; exit 1; }
echo "$count ek_* symbols exported, nothing else, all $(printf '%s\n' "$declared" | wc -l) of ek.h;" \
  "SONAME $soname"
