#!/bin/sh
# Usage: check_suites.sh TESTS_DIR LISTED...
# Fails, naming them, for the TESTS_DIR/test_*.cpp files that tests/meson.build
# does not list (they would never be built nor run). Missing listed files fail
# earlier, in meson's files().
dir=$1
shift
status=0
for path in "$dir"/test_*.cpp; do
  [ -e "$path" ] || continue
  name=${path##*/}
  listed=no
  for l in "$@"; do
    [ "$l" = "$name" ] && listed=yes && break
  done
  if [ "$listed" = no ]; then
    echo "check_suites: tests/$name is not listed in tests/meson.build (add it to a suite list)" >&2
    status=1
  fi
done
[ "$status" = 0 ] && echo "check_suites: every tests/test_*.cpp is listed ($# files)"
exit "$status"
