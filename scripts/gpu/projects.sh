#!/usr/bin/env bash
# Runs the example projects built through `relayout nvcc` (scripts/projects/build.sh) on this
# machine's GPU.
#
#   scripts/gpu/projects.sh profile BUILT OUT              the generate-mode programs write profiles
#   scripts/gpu/projects.sh compare BUILT OUT [--runs N] [--kerneltime LIB]
#
# BUILT/APP/{plain,generate,use} are the programs of each project (charges, fluid), built with plain
# nvcc and in the wrapper's modes; BUILT/APP/args holds the arguments of its runs.
# profile: runs plain, then generate with RELAYOUT_PROFILE=OUT/APP/APP.profile.json, and checks that
# the instrumented program prints what the plain one prints.
# compare: runs plain and use N times each (default 5), interleaved; the outputs must be equal. With
# --kerneltime (librelayout_kerneltime.so) each run's summed CUPTI kernel time is recorded too.
# The table goes to OUT/projects.md and stdout. Exit status 0 when every output was equal.
set -u -o pipefail
usage() { echo "usage: scripts/gpu/projects.sh profile|compare BUILT OUT [--runs N] [--kerneltime LIB]" >&2; exit 2; }
[ $# -ge 3 ] || usage
step="$1" built="$(cd "$2" && pwd)" || usage
out="$3"; shift 3
runs=5 kerneltime=""
while [ $# -gt 0 ]; do
  case "$1" in
    --runs) runs="$2"; shift 2 ;;
    --kerneltime) kerneltime="$(cd "$(dirname "$2")" && pwd)/$(basename "$2")"; shift 2 ;;
    *) usage ;;
  esac
done
mkdir -p "$out" && out="$(cd "$out" && pwd)"
median() { python3 -c "import statistics, sys; print('%.3f' % statistics.median(float(x) for x in sys.argv[1:]))" "$@"; }
status=0
table="$out/projects.md"

# runOne PROGRAM OUTFILE [ENV...]: runs it in its own folder; prints the wall time in ms, then the
# kernel time in ms (or -) on one line.
runOne() {
  local bin="$1" file="$2"; shift 2
  local dir="${file%.out}.d"; mkdir -p "$dir"
  local start end kt=-
  start=$(date +%s.%N)
  # shellcheck disable=SC2086  # args holds words
  ( cd "$dir" && env "$@" ${kerneltime:+CUDA_INJECTION64_PATH=$kerneltime RELAYOUT_KERNEL_TIME=$dir/kernel-time.json} \
      "$bin" $(cat "$built/$app/args") ) > "$file" 2> "${file%.out}.err"
  local rc=$?
  end=$(date +%s.%N)
  [ -f "$dir/kernel-time.json" ] && kt=$(python3 -c "import json,sys; print('%.3f' % (json.load(open(sys.argv[1]))['kernel_ns'] / 1e6))" "$dir/kernel-time.json" 2>/dev/null || echo -)
  echo "$(python3 -c "import sys; print('%.3f' % (1000 * (float(sys.argv[2]) - float(sys.argv[1]))))" "$start" "$end") $kt $rc"
}

case "$step" in
  profile)
    echo "| app | plain exit | instrumented exit | output equal | profile |" > "$table"
    echo "|---|---|---|---|---|" >> "$table"
    for app in charges fluid; do
      [ -x "$built/$app/plain" ] || continue
      mkdir -p "$out/$app"
      read -r _ _ rc_p < <(runOne "$built/$app/plain" "$out/$app/plain.out")
      read -r _ _ rc_g < <(runOne "$built/$app/generate" "$out/$app/generate.out" RELAYOUT_PROFILE="$out/$app/$app.profile.json")
      equal=yes; cmp -s "$out/$app/plain.out" "$out/$app/generate.out" || { equal=no; status=1; }
      written=no; [ -f "$out/$app/$app.profile.json" ] && written=yes
      [ "$rc_p" = 0 ] && [ "$rc_g" = 0 ] && [ $written = yes ] || status=1
      echo "| $app | $rc_p | $rc_g | $equal | $written |" >> "$table"
    done ;;
  compare)
    echo "| app | output equal | plain kernel ms | use kernel ms | kernel speed-up (min-max) | plain wall ms | use wall ms |" > "$table"
    echo "|---|---|---|---|---|---|---|" >> "$table"
    for app in charges fluid; do
      [ -x "$built/$app/use" ] || continue
      mkdir -p "$out/$app"
      kp=() ku=() wp=() wu=() equal=yes ratios=()
      for run in $(seq 1 "$runs"); do
        read -r w k rc < <(runOne "$built/$app/plain" "$out/$app/plain.$run.out"); wp+=("$w"); kp+=("$k")
        [ "$rc" = 0 ] || equal=no
        read -r w2 k2 rc < <(runOne "$built/$app/use" "$out/$app/use.$run.out"); wu+=("$w2"); ku+=("$k2")
        [ "$rc" = 0 ] || equal=no
        cmp -s "$out/$app/plain.1.out" "$out/$app/use.$run.out" || equal=no
        cmp -s "$out/$app/plain.1.out" "$out/$app/plain.$run.out" || equal="no (plain differs run to run)"
        [ "$k" != - ] && [ "$k2" != - ] && ratios+=("$(python3 -c "import sys; print('%.3f' % (float(sys.argv[1]) / float(sys.argv[2])))" "$k" "$k2")")
      done
      [ "$equal" = yes ] || status=1
      if [ ${#ratios[@]} -gt 0 ]; then
        spread=$(python3 -c "import statistics,sys; r=[float(x) for x in sys.argv[1:]]; print('%.2fx (%.2f-%.2f)' % (statistics.median(r), min(r), max(r)))" "${ratios[@]}")
        kpm=$(median "${kp[@]}") kum=$(median "${ku[@]}")
      else
        spread=- kpm=- kum=-
      fi
      echo "| $app | $equal | $kpm | $kum | $spread | $(median "${wp[@]}") | $(median "${wu[@]}") |" >> "$table"
    done ;;
  *) usage ;;
esac
cat "$table"
exit $status
