#!/bin/sh
# Stands in for a program whose kernel time changes from run to run, on a machine without a GPU:
# run k of the link named `noisy-original` reports the k-th of 100 130 100 100 ... ms, of
# `close-candidate` the k-th of 95 95 105 95 ... ms (a run-count file beside the link keeps k).
# Both print the same. Where relayout-verify asks for kernel times ($RELAYOUT_KERNEL_TIME) it
# writes them as librelayout_kerneltime.so would, and the run lasts that long.
name=$(basename "$0")
count="$(dirname "$0")/$name.runs"
k=$(($(cat "$count" 2>/dev/null || echo 0) + 1))
echo "$k" >"$count"
case $name in
  noisy-original) times="100 130 100 100 100 100 100 100" ;;
  close-candidate) times="95 95 105 95 95 95 95 95" ;;
  *) echo "timed-runs-program.sh: unknown name $name" >&2; exit 2 ;;
esac
ms=$(echo $times | cut -d' ' -f"$k")
echo "result 42"
if [ -n "${RELAYOUT_KERNEL_TIME:-}" ]; then
  echo "{\"format\":\"relayout-kernel-time\",\"version\":1,\"kernel_ns\":${ms}000000,\"kernels\":1}" >>"$RELAYOUT_KERNEL_TIME"
  sleep "$(printf "0.%03d" "$ms")"
fi
exit 0
