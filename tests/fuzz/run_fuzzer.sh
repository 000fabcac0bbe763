#!/usr/bin/env bash
# One bounded libFuzzer run (ctest's fuzz_NAME): FUZZER CORPUS SEEDS SECONDS. The corpus starts
# empty and grows from the seeds; a crash, leak, hang (over 10 s on one input) or an input that
# needs more than 2 GB stops the run with a non-zero exit and leaves the input as CORPUS-crash-*
# (-timeout-*, -oom-*) for `FUZZER FILE` to replay.
set -euo pipefail
fuzzer=$1 corpus=$2 seeds=$3 seconds=$4
rm -rf "$corpus"
mkdir -p "$corpus"
exec "$fuzzer" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
  -artifact_prefix="$corpus-" "$corpus" "$seeds"
