#!/bin/sh
# Stands in for a program that relayout-verify runs, on a machine without a GPU: what it prints
# depends on the name it runs under (a link to this script). `original` and `same` print the same;
# `close` prints a number 8e-7 relative off the original's; `far` one 2% off; `fails` fails.
# With $VERIFY_OUT set, it also writes that file (`far-file` writes another number there); with
# $VERIFY_ELAPSED set, it prints a line that changes from run to run.
name=$(basename "$0")
if [ "$name" = fails ]; then
  echo "cannot open the device" >&2
  exit 2
fi
echo "args $#: $*"
energy=0.5
[ "$name" = close ] && energy=0.5000004
[ "$name" = far ] && energy=0.51
echo "step 1 energy 1.0"
echo "step 2 energy $energy"
[ -n "${VERIFY_ELAPSED:-}" ] && echo "elapsed $$ ms"
if [ -n "${VERIFY_OUT:-}" ]; then
  result=42
  [ "$name" = far-file ] && result=43
  echo "result $result" >"$VERIFY_OUT"
fi
exit 0
