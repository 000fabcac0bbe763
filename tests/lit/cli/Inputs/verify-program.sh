#!/bin/sh
# Stands in for a program that relayout-verify runs, on a machine without a GPU: what it prints
# depends on the name it runs under (a link to this script). `original` and `same` print the same;
# `close` prints a number 8e-7 relative off the original's; `far` one 2% off; `fails` fails.
# With $VERIFY_OUT set, it also writes that file (`far-file` writes another number there); with
# $VERIFY_ELAPSED set, it prints a line that changes from run to run. Where relayout-verify asks for
# kernel times ($RELAYOUT_KERNEL_TIME, set when it is given a kernel-time library), it writes a fixed
# one as librelayout_kerneltime.so would: 100 ms, `fast` 80 ms, `faster` 70 ms, `slow` 120 ms (all
# four print what `original` prints), and runs that long.
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
if [ -n "${RELAYOUT_KERNEL_TIME:-}" ]; then
  ns=100000000
  case $name in fast) ns=80000000 ;; faster) ns=70000000 ;; slow) ns=120000000 ;; esac
  echo "{\"format\":\"relayout-kernel-time\",\"version\":1,\"kernel_ns\":$ns,\"kernels\":1}" >>"$RELAYOUT_KERNEL_TIME"
  # A run lasts at least as long as its kernels, as on a GPU: the whole run's wall time then agrees
  # with the kernel times, whatever a loaded machine adds to starting the shell.
  sleep "$(printf "0.%03d" $((ns / 1000000)))"
fi
exit 0
