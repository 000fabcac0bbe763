#!/usr/bin/env bash
# Runs every corpus program built by scripts/corpus/build.sh on this machine's GPU and checks its
# own verdict against its CPU reference.
#
#   scripts/gpu/corpus.sh BIN_DIR OUT_DIR [--timeout S]
#
# Each program BIN_DIR/APP runs once with the arguments tests/corpus/apps.txt gives it, in its own
# folder under OUT_DIR. A run passes when it exits 0 and prints "CHECK PASSED". Its output goes to
# OUT_DIR/APP.out; a table (app, exit status, verdict, wall seconds) to OUT_DIR/corpus.md and stdout.
# Exit status: 0 when every program passed, 1 otherwise, 2 on a usage error.
set -u -o pipefail
[ $# -ge 2 ] || { echo "usage: scripts/gpu/corpus.sh BIN_DIR OUT_DIR [--timeout S]" >&2; exit 2; }
bin="$(cd "$1" && pwd)"; out="$2"; timeout_s=120
[ "${3:-}" = "--timeout" ] && timeout_s="$4"
root="$(cd "$(dirname "$0")/../.." && pwd)"
mkdir -p "$out"
status=0
table="$out/corpus.md"
echo "| app | exit | verdict | wall s |" > "$table"
echo "|---|---|---|---|" >> "$table"
while read -r app _binary args; do
  [ -n "$app" ] || continue
  mkdir -p "$out/$app"
  start=$(date +%s.%N)
  # shellcheck disable=SC2086  # the arguments are words from apps.txt
  ( cd "$out/$app" && timeout "$timeout_s" "$bin/$app" $args ) > "$out/$app.out" 2>&1
  rc=$?
  wall=$(python3 -c "import sys; print(float(sys.argv[2]) - float(sys.argv[1]))" "$start" "$(date +%s.%N)")
  verdict=FAIL
  [ $rc -eq 0 ] && grep -q "CHECK PASSED" "$out/$app.out" && verdict=PASS
  [ "$verdict" = PASS ] || status=1
  printf "| %s | %s | %s | %.2f |\n" "$app" "$rc" "$verdict" "$wall" >> "$table"
done < "$root/tests/corpus/apps.txt"
cat "$table"
exit $status
