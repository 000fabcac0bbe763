#!/usr/bin/env bash
# What one hook costs the warp that runs it (docs/results/overhead-h100.md, "What one call costs"):
# bench/hook_cost/walk.cu, one warp reading one field per iteration, built as written and
# instrumented four ways, every iteration hooked (--loop-prefix 0), timed in the kernel:
#   original      as written
#   nocall        --trace, built with -DRELAYOUT_ABLATE=1: each hook's inline draw, no call
#   sampled       the defaults: the first executions and then about one in 2, 4, ... classified
#   traced        --trace: the warp traces, calling the classifier at every hook until its depth
#   every         every execution classified (--sample-blocks 1 --sample-launches 0 --full-executions 0)
#
#   scripts/bench/hook-cost.sh FOLDER    (where relayout is) builds everything into FOLDER, a new folder
#   sh FOLDER/run.sh [STEPS]             (where the GPU is) runs each 5 times; prints the median cycles
#                                        per iteration and its difference from the original's
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${RELAYOUT_BUILD_DIR:-$root/build}
[ $# -eq 1 ] || { echo "usage: scripts/bench/hook-cost.sh FOLDER" >&2; exit 2; }
out=$1
[ ! -e "$out" ] || { echo "scripts/bench/hook-cost.sh: $out exists; name a new folder" >&2; exit 2; }
relayout=$build/tool/relayout
nvcc=${NVCC:-nvcc}
mkdir -p "$out/bin" "$out/src" "$out/profiles"
source=$root/bench/hook_cost/walk.cu
flags=(-O3 -arch=sm_90 -std=c++17)
read -ra runtime <<<"$("$relayout" runtime-flags)"  # its headers, library, CUPTI and the driver
"$nvcc" "${flags[@]}" "$source" -o "$out/bin/original"
variant() {  # NAME [-D...] -- INSTRUMENT-OPTIONS...
  local name=$1 defines=()
  shift
  while [ "$1" != -- ]; do defines+=("$1"); shift; done
  shift
  "$relayout" instrument "$source" -o "$out/src/$name" --loop-prefix 0 "$@" -- "${flags[@]}" 2>>"$out/build.log"
  "$nvcc" "${flags[@]}" "${defines[@]}" "$out/src/$name/walk.cu" "${runtime[@]}" -o "$out/bin/$name" 2>>"$out/build.log"
  strip --strip-debug "$out/bin/$name"  # the runtime library's debug info is most of the binary
}
variant nocall -DRELAYOUT_ABLATE=1 -- --trace
variant sampled --
variant traced -- --trace
variant every -- --sample-blocks 1 --sample-launches 0 --full-executions 0
cat >"$out/run.sh" <<'SCRIPT'
#!/bin/sh
# Written by scripts/bench/hook-cost.sh: runs each variant 5 times, prints median cycles per iteration.
cd "$(dirname "$0")" || exit 1
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
steps=${1:-64}
base=
printf '%-9s %10s %10s\n' variant cycles/iter "over original"
for v in original nocall sampled traced every; do
  m=$(for i in 1 2 3 4 5; do RELAYOUT_PROFILE="profiles/$v.json" "bin/$v" "$steps" 2>/dev/null |
        sed -n 's/^cycles per iteration //p'; done | sort -n | sed -n 3p)
  [ -n "$m" ] || { echo "$v: no result" >&2; exit 1; }
  [ -n "$base" ] || base=$m
  printf '%-9s %10s %10s\n' "$v" "$m" "$(echo "$m - $base" | awk '{printf "%.0f", $1 - $3}')"
done
SCRIPT
chmod +x "$out/run.sh"
echo "relayout hook-cost benchmark is in $out: run sh $out/run.sh where the GPU is" >&2
