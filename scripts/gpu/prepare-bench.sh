#!/usr/bin/env bash
# Dev machine: writes the sources of every program the GPU benchmark (scripts/gpu/bench.sh) builds
# and runs, with relayout (the GPU machine has nvcc but no Clang), into build/gpu-bench:
#
#   src/NAME/VARIANT/NAME.cu   instrumented or rewritten sources, one folder per variant
#   manifest.txt               "NAME VARIANT SOURCE [ARGS...]": what bench.sh builds and runs
#   librelayout_rt.a           the runtime every program links (CUPTI kernel times for all)
#
#   scripts/gpu/prepare-bench.sh overhead             the sampling sweep: the instrumented variants
#                                                     of every sample (every block, sampled, trace),
#                                                     the tool's SoA rewrite, the hand-written
#                                                     variants, and tests/gpu/attribution.cu in
#                                                     four builds
#   scripts/gpu/prepare-bench.sh default [FLAGS...]   the original and relayout's default sampling
#                                                     (or the defaults with FLAGS), without and with
#                                                     --trace, and the attribution builds
#   scripts/gpu/prepare-bench.sh hw                   the default-instrumented samples only (the
#                                                     hardware cross-check, hw_table.py)
#   scripts/gpu/prepare-bench.sh rewrites             relayout's SoA rewrite and its clustered rewrite
#                                                     with the clusters of each hand-tuned _best.cu
#                                                     (the plans of tests/lit/samples), beside the
#                                                     hand-written variants
#   scripts/gpu/prepare-bench.sh layouts PROFILES_DIR the layouts to time against each other:
#                                                     the original, relayout's SoA and clustered
#                                                     rewrites, each analysis mode's pick (plans
#                                                     made here from the profiles of the first
#                                                     round), the rewrite with the clusters of
#                                                     each _best.cu, and the hand-written variants
#
# Then, where the GPU is: `bash scripts/gpu/bench.sh build/gpu-bench`.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${RELAYOUT_BUILD_DIR:-$root/build}
relayout=$build/tool/relayout
out=$build/gpu-bench
round=${1:-}
samples=(sph idw cfd particlefilter himeno hpcg stencil25 nbody)
flags=(-- -O3 -arch=sm_90)

case "$round" in
  overhead | default | rewrites | hw) ;;
  layouts) profiles=${2:?usage: prepare-bench.sh layouts PROFILES_DIR} ;;
  *) echo "usage: scripts/gpu/prepare-bench.sh overhead | default | hw | rewrites | layouts PROFILES_DIR" >&2; exit 2 ;;
esac
rm -rf "$out" && mkdir -p "$out/src"
strip --strip-debug -o "$out/librelayout_rt.a" "$build/runtime/librelayout_rt.a"
# The runtime's GPU self-tests (built by CMake here) run first on the GPU.
mkdir -p "$out/selftest"
for t in "$build"/runtime/relayout_*selftest; do strip --strip-debug -o "$out/selftest/$(basename "$t")" "$t"; done
manifest=$out/manifest.txt
: >"$manifest"
log=$out/prepare.log
: >"$log"

# instrument NAME VARIANT FLAGS...: instrumented sources of the sample in src/NAME/VARIANT.
instrument() {
  local name=$1 variant=$2
  shift 2
  local dir=$out/src/$name/$variant
  "$relayout" instrument "$root/samples/$name/$name.cu" -o "$dir" "$@" "${flags[@]}" 2>>"$log"
  echo "$name $variant build/gpu-bench/src/$name/$variant/$name.cu" >>"$manifest"
}

# rewrite NAME VARIANT PLAN: the sample rewritten by a plan, or skipped with the reason logged.
rewrite() {
  local name=$1 variant=$2 plan=$3 dir=$out/src/$1/$2
  if "$relayout" rewrite --plan "$plan" "$root/samples/$name/$name.cu" -o "$dir" "${flags[@]}" 2>>"$log"; then
    echo "$name $variant build/gpu-bench/src/$name/$variant/$name.cu" >>"$manifest"
  else
    echo "$name: $variant rewrite refused (see prepare.log)" >&2
  fi
}

hand_variants() {
  local name=$1
  echo "$name aos samples/$name/$name.cu" >>"$manifest"
  echo "$name soa samples/$name/${name}_soa.cu" >>"$manifest"
  echo "$name best samples/$name/${name}_best.cu" >>"$manifest"
}

attribution_builds() {
  # The attribution check: every block, sampled blocks and launches, a trace, an overflowing trace.
  local attr=$root/tests/gpu/attribution.cu all="--sample-blocks 1 --sample-launches 0 --sample-executions 1"
  for spec in "agg:$all" "sampled:--sample-blocks 4 --sample-launches 3 --sample-executions 1" \
              "trace:$all --trace --trace-launches 2" "overflow:$all --trace --trace-capacity 100"; do
    local variant=${spec%%:*} extra
    read -r -a extra <<<"${spec#*:}"
    "$relayout" instrument "$attr" -o "$out/src/attribution/$variant" "${extra[@]}" "${flags[@]}" 2>>"$log"
    echo "attribution $variant build/gpu-bench/src/attribution/$variant/attribution.cu" >>"$manifest"
  done
}

candidate=()
[ "$round" = default ] && candidate=("${@:2}")

# hand_clustered_plan NAME PLAN: the plan with the clusters of NAME_best.cu (tests/lit's inputs).
hand_clustered_plan() {
  local name=$1 plan_in=$root/tests/lit/samples/Inputs/$1-clustered.plan.in
  [ -f "$plan_in" ] || plan_in=$root/tests/lit/rewrite/Inputs/$name-clustered.plan.in
  [ -f "$plan_in" ] || plan_in=$root/tests/lit/rewrite/Inputs/$name-best.plan.in
  [ -f "$plan_in" ] || return 1
  mkdir -p "$(dirname "$2")"
  sed "s/@SHA@/$(sha256sum "$root/samples/$name/$name.cu" | cut -d' ' -f1)/" "$plan_in" >"$2"
}

if [ "$round" = rewrites ]; then
  for name in "${samples[@]}"; do
    hand_variants "$name"
    hand_clustered_plan "$name" "$out/plans/$name/hand-clustered.plan.json" &&
      rewrite "$name" tool-clustered "$out/plans/$name/hand-clustered.plan.json"
    "$relayout" instrument "$root/samples/$name/$name.cu" -o "$out/src/$name/sites" "${flags[@]}" 2>>"$log"
    "$relayout" rewrite --sites "$out/src/$name/sites/$name.sites.json" --layout soa "$root/samples/$name/$name.cu" \
      -o "$out/src/$name/tool-soa" "${flags[@]}" 2>>"$log" &&
      echo "$name tool-soa build/gpu-bench/src/$name/tool-soa/$name.cu" >>"$manifest"
  done
elif [ "$round" = hw ]; then
  # The hardware cross-check alone: bench.sh runs each default-instrumented sample once timed
  # and then with RELAYOUT_HW=1 once per kernel.
  for name in "${samples[@]}"; do instrument "$name" inst-default; done
elif [ "$round" = default ]; then
  for name in "${samples[@]}"; do
    echo "$name aos samples/$name/$name.cu" >>"$manifest"
    instrument "$name" inst-default "${candidate[@]}"
    instrument "$name" inst-trace "${candidate[@]}" --trace --trace-launches 2
  done
  attribution_builds
elif [ "$round" = overhead ]; then
  for name in "${samples[@]}"; do
    hand_variants "$name"
    instrument "$name" inst-full --sample-blocks 1 --sample-launches 0 --sample-executions 1
    instrument "$name" inst-b32 --sample-blocks 32 --sample-launches 0 --sample-executions 1
    instrument "$name" inst-b8l2 --sample-blocks 8 --sample-launches 2 --sample-executions 1
    instrument "$name" inst-b4l2e32 --sample-blocks 4 --sample-launches 2 --sample-executions 32
    instrument "$name" inst-trace --sample-blocks 4 --sample-launches 2 --sample-executions 32 \
      --trace --trace-launches 2
    sites=$out/src/$name/inst-full/$name.sites.json
    dir=$out/src/$name/tool-soa
    if "$relayout" rewrite --sites "$sites" --layout soa "$root/samples/$name/$name.cu" -o "$dir" "${flags[@]}" 2>>"$log"; then
      echo "$name tool-soa build/gpu-bench/src/$name/tool-soa/$name.cu" >>"$manifest"
    fi
  done
  attribution_builds
else
  for name in "${samples[@]}"; do
    hand_variants "$name"
    # The default-sampled instrumented program too: its --hw run compares with the hardware.
    instrument "$name" inst-default
    sites=$out/src/$name/inst-default
    profile=$profiles/$name.inst-default.json
    trace_profile=$profiles/$name.inst-trace.json  # the default sampling with --trace
    [ -f "$profile" ] || { echo "$name: no profile $profile, skipped" >&2; continue; }
    plans=$out/plans/$name && mkdir -p "$plans"
    for layout in soa clustered; do
      "$relayout" analyze --sites "$sites/$name.sites.json" --profile "$profile" --layout $layout \
        -o "$plans/$layout.plan.json" 2>>"$log" && rewrite "$name" "tool-$layout" "$plans/$layout.plan.json"
    done
    "$relayout" analyze --sites "$sites/$name.sites.json" --profile "$profile" --mode paper \
      -o "$plans/paper.plan.json" 2>>"$log" && rewrite "$name" pick-paper "$plans/paper.plan.json"
    # The clusters of the hand-tuned _best.cu too, to set beside that variant (rewrite-<gpu>.md).
    hand_clustered_plan "$name" "$plans/hand-clustered.plan.json" && rewrite "$name" hand-clustered "$plans/hand-clustered.plan.json"
    if [ -f "$trace_profile" ]; then
      "$relayout" analyze --sites "$sites/$name.sites.json" --profile "$trace_profile" --mode model \
        -o "$plans/model.plan.json" 2>>"$log" && rewrite "$name" pick-model "$plans/model.plan.json"
    fi
  done
fi
# The run's arguments per sample (none: default sizes).
echo "prepared $(grep -c . "$manifest") programs in $out ($(du -sh "$out" | cut -f1))"
