#!/usr/bin/env bash
# Runs each corpus program as originally built and as rewritten on this machine's GPU, interleaved,
# and checks that the rewrite prints what the original prints.
#
#   scripts/gpu/compare.sh ORIGINAL_BIN_DIR REWRITTEN_BIN_DIR OUT_DIR [--runs N] [--timeout S]
#
# For every program in REWRITTEN_BIN_DIR (scripts/corpus/rewrite.sh) and its original in
# ORIGINAL_BIN_DIR (scripts/corpus/build.sh), both run N times (default 3) with the arguments
# tests/corpus/apps.txt gives, alternating. A run passes when it exits 0 and prints "CHECK PASSED"
# (its own check against its CPU reference). The outputs must be equal once the times the programs
# print are masked (every number followed by "ms" becomes "<t> ms"): the rewrite computes the same
# results to the last printed digit. Time: the median of the "GPU ... ms" each program prints, or
# of the wall time where it prints none. A table goes to OUT_DIR/compare.md and stdout.
# Exit status: 0 when every run passed with equal output, 1 otherwise, 2 on a usage error.
set -u -o pipefail
usage() { echo "usage: scripts/gpu/compare.sh ORIGINAL_BIN_DIR REWRITTEN_BIN_DIR OUT_DIR [--runs N] [--timeout S]" >&2; exit 2; }
[ $# -ge 3 ] || usage
orig="$(cd "$1" && pwd)" || usage
rewritten="$(cd "$2" && pwd)" || usage
out="$3"; shift 3
runs=3 timeout_s=120
while [ $# -gt 0 ]; do
  case "$1" in
    --runs) runs="$2"; shift 2 ;;
    --timeout) timeout_s="$2"; shift 2 ;;
    *) usage ;;
  esac
done
root="$(cd "$(dirname "$0")/../.." && pwd)"
corpus="$root/tests/corpus"
# shellcheck source=../corpus/lib.sh
. "$root/scripts/corpus/lib.sh"
mkdir -p "$out" && out="$(cd "$out" && pwd)"
# The time of one run: the program's own "GPU ... ms", else the wall seconds in ms.
timeOf() { local t; t=$(grep -oE 'GPU( time)? [0-9.]+ ms' "$1" | head -1 | grep -oE '[0-9.]+'); echo "${t:-$2}"; }
median() { python3 -c "import statistics, sys; print('%.3f' % statistics.median(float(x) for x in sys.argv[1:]))" "$@"; }
status=0
table="$out/compare.md"
echo "| app | runs passed | output equal | original | rewritten | speed-up | timed by |" > "$table"
echo "|---|---|---|---|---|---|---|" >> "$table"
while read -r app _binary args; do
  [ -n "$app" ] && [ -x "$rewritten/$app" ] && [ -x "$orig/$app" ] || continue
  passed=0 equal=yes times_o=() times_r=() by=program
  for run in $(seq 1 "$runs"); do
    for variant in original rewritten; do
      bin="$orig/$app"; [ $variant = rewritten ] && bin="$rewritten/$app"
      dir="$out/$app/$variant.$run"; mkdir -p "$dir"
      start=$(date +%s.%N)
      # shellcheck disable=SC2086  # the arguments are words from apps.txt
      ( cd "$dir" && timeout "$timeout_s" "$bin" $args ) > "$dir.out" 2>&1
      rc=$?
      wall=$(python3 -c "import sys; print(1000 * (float(sys.argv[2]) - float(sys.argv[1])))" "$start" "$(date +%s.%N)")
      [ $rc -eq 0 ] && grep -q "CHECK PASSED" "$dir.out" && passed=$((passed + 1))
      grep -qE 'GPU( time)? [0-9.]+ ms' "$dir.out" || by=wall
      t=$(timeOf "$dir.out" "$wall")
      if [ $variant = original ]; then times_o+=("$t"); else times_r+=("$t"); fi
    done
    cmp -s <(mask_times "$out/$app/original.1.out") <(mask_times "$out/$app/rewritten.$run.out") || equal=no
    cmp -s <(mask_times "$out/$app/original.1.out") <(mask_times "$out/$app/original.$run.out") || equal="no (the original differs run to run)"
  done
  mo=$(median "${times_o[@]}") mr=$(median "${times_r[@]}")
  ratio=$(python3 -c "import sys; print('%.2fx' % (float(sys.argv[1]) / float(sys.argv[2])))" "$mo" "$mr")
  [ "$passed" -eq $((2 * runs)) ] && [ "$equal" = yes ] || status=1
  echo "| $app | $passed/$((2 * runs)) | $equal | $mo ms | $mr ms | $ratio | $by |" >> "$table"
done < "$root/tests/corpus/apps.txt"
cat "$table"
exit $status
