#!/usr/bin/env bash
# Runs every instrumented corpus program (scripts/corpus/instrument.sh) once on this machine's GPU,
# writing its profile, and checks that instrumentation did not change what it computes.
#
#   scripts/gpu/profile-corpus.sh ORIGINAL_BIN_DIR INSTRUMENTED_BIN_DIR OUT_DIR [--timeout S]
#
# For each program in INSTRUMENTED_BIN_DIR: the original runs once, then the instrumented one with
# RELAYOUT_PROFILE=OUT_DIR/APP/profile.json (the runtime writes the profile and its trace there),
# both with the arguments tests/corpus/apps.txt gives. Their outputs must be equal once printed
# times are masked (every number followed by "ms"), and both must pass their own check ("CHECK
# PASSED"); where they differ, the original runs again to tell whether it varies run to run. Wall time of each run in seconds. Table: OUT_DIR/profile.md and stdout.
# Exit status: 0 when every profile was written with equal output, 1 otherwise, 2 on a usage error.
set -u -o pipefail
usage() { echo "usage: scripts/gpu/profile-corpus.sh ORIGINAL_BIN_DIR INSTRUMENTED_BIN_DIR OUT_DIR [--timeout S]" >&2; exit 2; }
[ $# -ge 3 ] || usage
orig="$(cd "$1" && pwd)" || usage
inst="$(cd "$2" && pwd)" || usage
out="$3"; timeout_s=300
[ "${4:-}" = "--timeout" ] && timeout_s="$5"
root="$(cd "$(dirname "$0")/../.." && pwd)"
corpus="$root/tests/corpus"
# shellcheck source=../corpus/lib.sh
. "$root/scripts/corpus/lib.sh"
mkdir -p "$out" && out="$(cd "$out" && pwd)"
status=0
table="$out/profile.md"
echo "| app | original | instrumented | output equal | profile | wall original s | wall instrumented s |" > "$table"
echo "|---|---|---|---|---|---|---|" >> "$table"
while read -r app _binary args; do
  [ -n "$app" ] && [ -x "$inst/$app" ] && [ -x "$orig/$app" ] || continue
  mkdir -p "$out/$app/original" "$out/$app/instrumented"
  verdicts=() walls=()
  for variant in original instrumented; do
    start=$(date +%s.%N)
    if [ $variant = original ]; then
      # shellcheck disable=SC2086  # the arguments are words from apps.txt
      ( cd "$out/$app/original" && timeout "$timeout_s" "$orig/$app" $args ) > "$out/$app/original.out" 2>&1
    else
      # shellcheck disable=SC2086
      ( cd "$out/$app/instrumented" && RELAYOUT_PROFILE="$out/$app/profile.json" timeout "$timeout_s" "$inst/$app" $args ) \
        > "$out/$app/instrumented.out" 2>&1
    fi
    rc=$?
    walls+=("$(python3 -c "import sys; print('%.2f' % (float(sys.argv[2]) - float(sys.argv[1])))" "$start" "$(date +%s.%N)")")
    v=FAIL; [ $rc -eq 0 ] && grep -q "CHECK PASSED" "$out/$app/$variant.out" && v=PASS
    verdicts+=("$v")
  done
  equal=no
  cmp -s <(mask_times "$out/$app/original.out" | grep -v '^relayout') <(mask_times "$out/$app/instrumented.out" | grep -v '^relayout') && equal=yes
  if [ $equal = no ]; then
    # A second run of the original tells a program whose printed values vary run to run.
    # shellcheck disable=SC2086
    ( cd "$out/$app/original" && timeout "$timeout_s" "$orig/$app" $args ) > "$out/$app/original.2.out" 2>&1
    cmp -s <(mask_times "$out/$app/original.out") <(mask_times "$out/$app/original.2.out") ||
      equal="no (the original differs run to run)"
  fi
  profile=missing; [ -s "$out/$app/profile.json" ] && profile=written
  [ "${verdicts[0]}${verdicts[1]}" = PASSPASS ] && [ "$equal" = yes ] && [ $profile = written ] || status=1
  echo "| $app | ${verdicts[0]} | ${verdicts[1]} | $equal | $profile | ${walls[0]} | ${walls[1]} |" >> "$table"
done < "$root/tests/corpus/apps.txt"
cat "$table"
exit $status
