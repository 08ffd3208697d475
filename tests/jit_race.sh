#!/usr/bin/env bash
# Two processes compile the same kernel into one empty kernel cache at once:
# both must succeed (entries are written to a temporary file and renamed),
# and a third process must then find the kernel in the disk cache.
# Usage: jit_race.sh PATH/TO/custom_kernel_jit. Exit 77 (skipped) without a GPU.
set -u
jit=$1
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
export EK_KERNEL_CACHE_DIR="$dir/cache"
"$jit" > "$dir/a.log" 2>&1 & a=$!
"$jit" > "$dir/b.log" 2>&1 & b=$!
wait $a; ra=$?
wait $b; rb=$?
cat "$dir/a.log" "$dir/b.log"
if grep -q "no CUDA device" "$dir/a.log"; then echo "SKIPPED: no CUDA device"; exit 77; fi
[ $ra -eq 0 ] && [ $rb -eq 0 ] || { echo "FAIL: racing processes exited $ra and $rb"; exit 1; }
"$jit" > "$dir/c.log" 2>&1 || { cat "$dir/c.log"; echo "FAIL: third process"; exit 1; }
cat "$dir/c.log"
grep -q "from the disk cache" "$dir/c.log" || { echo "FAIL: third process did not hit the disk cache"; exit 1; }
ls -A "$dir/cache" | grep -q '\.tmp$' && { echo "FAIL: temporary files left behind"; exit 1; }
echo "PASS: both racing processes succeeded; the third loaded from the disk cache"
