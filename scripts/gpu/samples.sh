#!/usr/bin/env bash
# Runs every bundled sample variant on this machine's GPU and writes a Markdown results page.
#
#   scripts/gpu/samples.sh [--out PATH] [--only NAME,NAME] [--tiny-only] [--timeout S]
#                          [--tiny-timeout S] [--budget S] [BIN_DIR]
#
# Run from the repository root on the GPU machine. BIN_DIR (default build/samples) holds the
# prebuilt binaries as BIN_DIR/NAME/sample_NAME_VARIANT (a build root whose samples/ folder holds
# them is accepted too). Samples looked for, in order: sph idw cfd particlefilter himeno hpcg
# stencil25 nbody; a missing one is noted and skipped. Every variant found (aos, soa, best first,
# then any other) runs first with --tiny (its check only), for all samples, then at its default
# size. Each run's `RESULT sample=... variant=... kernel_ms=... check=...` line (samples/common/
# bench.h) is collected; a crash, a timeout, a non-zero exit, a missing RESULT line or check=FAIL
# is recorded as FAIL and the script goes on.
#
# Output: docs/results/samples-GPU.md (GPU = short lower-case name from nvidia-smi, e.g. h100,
# h200), or PATH given by --out (a .md file, or a folder to put samples-GPU.md in), or
# $OUT/samples-GPU.md when $OUT is set (an output folder). Every run's
# full output goes to samples-GPU.log beside it (two files in all). A short table is printed last
# on stdout.
# Exit status: 0 when every run passed, 1 when any failed or was skipped or no binary was found,
# 2 on a usage error.
#
# Time: a --tiny run takes about 0.3-3 s (CUDA start-up, the 1 GiB copy-bandwidth probe, the
# check); a default-size run about 1-20 s (>= 50 ms of kernel time x 6 timed repetitions, plus the
# CPU reference check; nbody's three took 1.1-1.8 s each on an H200, its six runs 5 s in all).
# All 8 samples x 3 variants: expected 1-8 minutes. Bounds: each run gets
# `timeout` (--tiny-timeout, default 60 s; --timeout, default 150 s), and the whole script a budget
# (--budget, default 540 s so that it fits a 10-minute call; 0 = none): runs that would start
# after the budget is spent are recorded as SKIP, and a run never gets more than the budget left.
set -u -o pipefail

usage() {
  echo "usage: scripts/gpu/samples.sh [--out PATH] [--only NAME,NAME] [--tiny-only] [--timeout S]" >&2
  echo "                              [--tiny-timeout S] [--budget S] [BIN_DIR]" >&2
  [ $# -gt 0 ] && echo "error: $*" >&2
  exit 2
}
orig_args=("$@")

samples=(sph idw cfd particlefilter himeno hpcg stencil25 nbody)
bin_dir=build/samples
out_opt=""
only=""
tiny_only=0
run_timeout=150
tiny_timeout=60
budget=540
is_uint() { [[ "$1" =~ ^[0-9]+$ ]]; }
while [ $# -gt 0 ]; do
  case "$1" in
    --out) [ $# -ge 2 ] || usage "--out needs a path"; out_opt=$2; shift 2 ;;
    --only) [ $# -ge 2 ] || usage "--only needs sample names"; only=$2; shift 2 ;;
    --tiny-only) tiny_only=1; shift ;;
    --timeout) { [ $# -ge 2 ] && is_uint "$2" && [ "$2" -gt 0 ]; } || usage "--timeout needs seconds > 0"
      run_timeout=$2; shift 2 ;;
    --tiny-timeout) { [ $# -ge 2 ] && is_uint "$2" && [ "$2" -gt 0 ]; } || usage "--tiny-timeout needs seconds > 0"
      tiny_timeout=$2; shift 2 ;;
    --budget) { [ $# -ge 2 ] && is_uint "$2"; } || usage "--budget needs seconds (0 = none)"; budget=$2; shift 2 ;;
    -h|--help) usage ;;
    -*) usage "unknown option $1" ;;
    *) bin_dir=$1; shift ;;
  esac
done
if [ -n "$only" ]; then
  IFS=',' read -r -a samples <<<"$only"
fi
# Accept the build root as well as its samples/ folder.
if [ -d "$bin_dir/samples" ] && ! ls -d "$bin_dir"/*/sample_*_* >/dev/null 2>&1; then
  bin_dir=$bin_dir/samples
fi
[ -d "$bin_dir" ] || echo "note: $bin_dir does not exist: every sample will be reported missing" >&2

# The GPU, by name and short name (h100, h200, a100, ...).
gpu_name=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -n 1 | sed 's/[[:space:]]*$//')
[ -n "$gpu_name" ] || gpu_name="unknown GPU (nvidia-smi gave no name)"
gpu_count=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | wc -l)
driver=$(nvidia-smi --query-gpu=driver_version --format=csv,noheader 2>/dev/null | head -n 1)
gpu_short=${GPU_SHORT:-}
if [ -z "$gpu_short" ]; then
  for word in $(echo "$gpu_name" | tr '[:upper:]' '[:lower:]' | tr -c 'a-z0-9\n' ' '); do
    case "$word" in nvidia|tesla|geforce|quadro|rtx|gtx|unknown) continue ;; esac
    gpu_short=$word
    break
  done
fi
[ -n "$gpu_short" ] || gpu_short=gpu

# Where the page and the logs go.
if [ -n "$out_opt" ]; then
  case "$out_opt" in *.md) out_md=$out_opt ;; *) out_md=$out_opt/samples-$gpu_short.md ;; esac
elif [ -n "${OUT:-}" ]; then
  out_md=$OUT/samples-$gpu_short.md
else
  out_md=docs/results/samples-$gpu_short.md
fi
out_log=${out_md%.md}.log
mkdir -p "$(dirname "$out_md")" || { echo "error: cannot create $(dirname "$out_md")" >&2; exit 2; }
: >"$out_log" || { echo "error: cannot write $out_log" >&2; exit 2; }
# Bookkeeping in a scratch folder: only the page and the log go to the output folder (a device
# call brings back few files).
work=$(mktemp -d "${TMPDIR:-/tmp}/samples-gpu.XXXXXX") || exit 2
trap 'rm -rf "$work"' EXIT
records=$work/records.tsv
notes=$work/notes.txt
: >"$records"
: >"$notes"

start_s=$SECONDS
command_line="scripts/gpu/samples.sh"
for a in ${orig_args[@]+"${orig_args[@]}"}; do command_line+=" $(printf '%q' "$a")"; done
[ -n "${OUT:-}" ] && [ -z "$out_opt" ] && command_line="OUT=$(printf '%q' "$OUT") $command_line"
date_utc=$(date -u '+%Y-%m-%d %H:%M:%S UTC')
echo "samples.sh: $gpu_name ($gpu_short), binaries in $bin_dir, page $out_md"

# The variants of one sample: aos, soa, best first, then the others in name order.
variants_of() {
  local name=$1 dir=$bin_dir/$1 v f
  for v in aos soa best; do [ -x "$dir/sample_${name}_$v" ] && echo "$v"; done
  for f in "$dir"/sample_"${name}"_*; do
    if [ ! -f "$f" ] || [ ! -x "$f" ]; then continue; fi
    v=${f##*/sample_"${name}"_}
    case "$v" in aos|soa|best) ;; *) echo "$v" ;; esac
  done
}

found=()
for name in "${samples[@]}"; do
  if [ -z "$(variants_of "$name")" ]; then
    echo "note: sample $name: no binaries in $bin_dir/$name (skipped)" | tee -a "$notes" >&2
  else
    found+=("$name")
  fi
done

now() { echo "${EPOCHREALTIME:-$(date +%s)}"; }

# The value of KEY in a RESULT line ("KEY=value" words).
result_field() { echo "$1" | tr ' ' '\n' | sed -n "s/^$2=//p" | head -n 1; }

# One run: records a tab-separated line
#   sample variant phase status kernel_ms gbps copy_gbps pct_copy gflops seconds reason command
any_bad=0
run_one() {
  local name=$1 variant=$2 phase=$3 limit=$4
  local bin=$bin_dir/$name/sample_${name}_$variant args=() cut="" log=$work/run.txt
  [ "$phase" = tiny ] && args=(--tiny)
  local cmd="timeout -k 10 $limit $bin${args[*]:+ ${args[*]}}"
  if [ "$budget" -gt 0 ]; then
    local left=$((budget - (SECONDS - start_s)))
    if [ "$left" -le 0 ]; then
      printf '%s\t%s\t%s\tSKIP\t\t\t\t\t\t0\tbudget of %s s spent\t%s\n' "$name" "$variant" "$phase" "$budget" "$cmd" >>"$records"
      printf '  %-15s %-9s %-7s SKIP (budget of %s s spent)\n' "$name" "$variant" "$phase" "$budget"
      any_bad=1
      return
    fi
    if [ "$left" -lt "$limit" ]; then
      limit=$left cut=" (cut to the budget's rest)"
      cmd="timeout -k 10 $limit $bin${args[*]:+ ${args[*]}}"
    fi
  fi
  local t0 rc took
  t0=$(now)
  # The braces keep bash's own "Segmentation fault" notice off the terminal; the log has the rest.
  { timeout -k 10 "$limit" "$bin" "${args[@]}" >"$log" 2>&1 </dev/null; } 2>/dev/null
  rc=$?
  took=$(awk -v a="$t0" -v b="$(now)" 'BEGIN { printf "%.1f", b - a }')
  local line status=FAIL reason="" ms="" gbps="" copy="" pct="" gflops=""
  line=$(grep -E "^RESULT sample=$name variant=$variant " "$log" | tail -n 1)
  if [ -n "$line" ]; then
    ms=$(result_field "$line" kernel_ms) gbps=$(result_field "$line" gbps) copy=$(result_field "$line" copy_gbps)
    pct=$(result_field "$line" pct_copy) gflops=$(result_field "$line" gflops)
    [ "$(result_field "$line" check)" = PASS ] && status=PASS
  fi
  if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
    status=FAIL reason="timeout after $limit s$cut"
  elif [ "$rc" -gt 128 ]; then
    status=FAIL reason="killed by signal $((rc - 128))"
  elif [ -z "$line" ]; then
    status=FAIL reason="exit $rc, no RESULT line"
  elif [ "$rc" -ne 0 ]; then
    status=FAIL reason="exit $rc (check=$(result_field "$line" check))"
  elif [ "$status" != PASS ]; then
    reason="check=FAIL"
  fi
  [ "$status" = PASS ] || any_bad=1
  { echo "=== $name $variant $phase: $status${reason:+ ($reason)}, exit $rc, $took s: $cmd"; cat "$log"; echo; } >>"$out_log"
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$name" "$variant" "$phase" "$status" "$ms" "$gbps" \
    "$copy" "$pct" "$gflops" "$took" "$reason" "$cmd" >>"$records"
  printf '  %-15s %-9s %-7s %-4s %10s ms %6ss %s\n' "$name" "$variant" "$phase" "$status" "${ms:--}" "$took" "$reason"
}

phases=(tiny)
[ "$tiny_only" = 1 ] || phases+=(default)
for phase in "${phases[@]}"; do
  echo "== $phase runs"
  limit=$run_timeout
  [ "$phase" = tiny ] && limit=$tiny_timeout
  for name in ${found[@]+"${found[@]}"}; do
    for variant in $(variants_of "$name"); do
      run_one "$name" "$variant" "$phase" "$limit"
    done
  done
done
total_s=$((SECONDS - start_s))

meta=$work/meta.txt
{
  echo "date=$date_utc"
  echo "gpu_name=$gpu_name"
  echo "gpu_count=$gpu_count"
  echo "driver=$driver"
  echo "command=$command_line"
  echo "bin_dir=$bin_dir"
  echo "tiny_timeout=$tiny_timeout"
  echo "run_timeout=$run_timeout"
  echo "budget=$budget"
  echo "total_s=$total_s"
  echo "log=$(basename "$out_log")"
} >"$meta"

table=$(dirname "$0")/results_table.py
echo "samples.sh: $total_s s; writing $out_md (every run's output in $out_log)"
if command -v python3 >/dev/null 2>&1 && [ -f "$table" ]; then
  python3 "$table" --meta "$meta" --records "$records" --notes "$notes" --out "$out_md" || any_bad=1
else
  # Without python3: the raw records still make a (plain) page.
  { echo "# Sample results: $gpu_name"; echo; echo "Date: $date_utc. Command: \`$command_line\`"; echo
    echo '```'; cat "$notes" "$records"; echo '```'; } >"$out_md"
  cat "$records"
fi
if [ "${#found[@]}" -eq 0 ]; then
  echo "samples.sh: no sample binaries found in $bin_dir" >&2
  any_bad=1
fi
exit "$any_bad"
