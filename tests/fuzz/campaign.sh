#!/usr/bin/env bash
# A longer fuzzing campaign than ctest's (docs/results/fuzz-*.md): every target for SECONDS on one
# core, one after the other, from the committed seeds; each target's corpus is kept in
# BUILD/fuzz-campaign/corpus/NAME for the next campaign, its log in BUILD/fuzz-campaign/NAME.log.
# Usage: tests/fuzz/campaign.sh [BUILD (build-fuzz)] [SECONDS (170)] [TARGET...]
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${1:-$root/build-fuzz}
seconds=${2:-170}
shift $(($# < 2 ? $# : 2))
targets=("${@:-profile sitemap plan trace analyze}")
read -r -a targets <<<"${targets[*]}"
out=$build/fuzz-campaign
mkdir -p "$out"
python3 "$root/tests/fuzz/make_seeds.py" "$root" "$out/seeds" >/dev/null
status=0
for t in "${targets[@]}"; do
  mkdir -p "$out/corpus/$t"
  "$build/tests/fuzz/relayout_fuzz_$t" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
    -print_final_stats=1 -artifact_prefix="$out/$t-" "$out/corpus/$t" "$out/seeds/$t" >"$out/$t.log" 2>&1
  rc=$?
  ((rc == 0)) || status=1
  echo "$t: exit $rc; $(grep -E 'DONE' "$out/$t.log" | tail -1)"
  grep -E '^stat::(number_of_executed_units|average_exec_per_sec|peak_rss_mb)' "$out/$t.log" | tr '\n' ' '
  echo
done
exit $status
