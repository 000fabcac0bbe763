#!/usr/bin/env bash
# The MPI corpus program (tests/corpus/mpi_gravity) under mpirun, as docs/results/mpi-h200.md
# reports it. Two steps, the first where relayout is built, the second on a machine with a GPU,
# Open MPI and nvcc (the prepared folder carries everything it needs):
#
#   mpi_gravity.sh prepare DIR [PLAN.json...]   instrumented sources (--trace), the runtime, and one
#                                               rewrite per plan (default: forced SoA), into DIR
#   mpi_gravity.sh run DIR OUT                  builds them with mpicxx as host compiler, records a
#                                               profile and trace per rank into OUT/profiles, times
#                                               the original and the rewrites interleaved under
#                                               `mpirun -np 2` and checks each prints what the original prints
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
app=$root/tests/corpus/mpi_gravity
flags=(-O3 -std=c++17 -arch=sm_90 -ccbin mpicxx)

prepare() {
  local dir=$1; shift
  local relayout=${RELAYOUT:-$root/build/tool/relayout}
  [ ! -e "$dir" ] || { echo "mpi_gravity.sh: $dir exists" >&2; exit 2; }
  relayout=$(realpath "$relayout")
  mkdir -p "$dir/rewrites"
  cp -r "$app" "$dir/original"
  "$relayout" instrument --trace "$app/main.cu" "$app/slab.cu" -o "$dir/instrumented" -- "${flags[@]}"
  # The runtime copied into the folder, and the flags that name the copies (relative to it), from
  # relayout itself: `run` needs no relayout where the GPU is.
  (cd "$dir" && "$relayout" runtime-flags --copy-to rt > runtime-flags.txt)
  strip --strip-debug "$dir/rt/lib/librelayout_rt.a"
  if [ $# -eq 0 ]; then
    "$relayout" rewrite --layout soa --sites "$dir/instrumented/main.sites.json,$dir/instrumented/slab.sites.json" \
      "$app/main.cu" "$app/slab.cu" -o "$dir/rewrites/soa" -- "${flags[@]}"
  fi
  for plan in "$@"; do
    local name; name=$(basename "$plan" .json)
    "$relayout" rewrite --plan "$plan" "$app/main.cu" "$app/slab.cu" -o "$dir/rewrites/$name" -- "${flags[@]}"
  done
  for rewrite in "$dir"/rewrites/*; do cp -n "$app"/* "$rewrite"/ 2>/dev/null || true; done
}

run() {
  local dir=$1 out=$2
  local mpi bodies=131072 steps=40 runtime
  mpi=(mpirun --oversubscribe -np 2)
  [ "$(id -u)" -ne 0 ] || mpi+=(--allow-run-as-root)
  mkdir -p "$out/profiles" "$out/runs"
  cd "$dir"
  local variants=(original) v
  for v in rewrites/*; do variants+=("$v"); done
  for v in "${variants[@]}"; do make -s -C "$v" ARCH=sm_90; done
  read -r -a runtime < runtime-flags.txt
  nvcc -lineinfo "${flags[@]}" -I instrumented instrumented/main.cu instrumented/slab.cu \
    -o instrumented/mpi_gravity "${runtime[@]}"
  RELAYOUT_PROFILE="$out/profiles/mpi_gravity.profile.json" "${mpi[@]}" instrumented/mpi_gravity 32768 10 \
    > "$out/instrumented.txt" 2>&1
  for round in 1 2 3 4 5; do
    for v in "${variants[@]}"; do
      local log; log="$out/runs/$(basename "$v").$round.txt"
      "${mpi[@]}" "$v/mpi_gravity" $bodies $steps > "$log" 2>&1
    done
  done
  printf '| variant | ms per run (5 rounds, interleaved) | median | vs original | output |\n|---|---|---|---|---|\n'
  local base
  base=$(grep -h '^time' "$out"/runs/original.*.txt | awk '{print $2}' | sort -n | sed -n 3p)
  for v in "${variants[@]}"; do
    local name times median same
    name=$(basename "$v")
    times=$(for r in 1 2 3 4 5; do grep '^time' "$out/runs/$name.$r.txt" | awk '{print $2}'; done | paste -sd' ')
    median=$(echo "$times" | tr ' ' '\n' | sort -n | sed -n 3p)
    same=different
    cmp -s <(grep -v '^time' "$out/runs/original.1.txt") <(grep -v '^time' "$out/runs/$name.1.txt") && same=identical
    printf '| %s | %s | %s | %sx | %s |\n' "$name" "$times" "$median" "$(awk -v a="$base" -v b="$median" 'BEGIN {printf "%.3f", a / b}')" "$same"
  done
  echo; mpirun --version | head -1; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
}

case ${1-} in
  prepare) shift; [ $# -ge 1 ] || { echo "usage: mpi_gravity.sh prepare DIR [PLAN.json...]" >&2; exit 2; }; prepare "$@" ;;
  run) shift; [ $# -eq 2 ] || { echo "usage: mpi_gravity.sh run DIR OUT" >&2; exit 2; }; run "$@" ;;
  *) echo "usage: mpi_gravity.sh prepare DIR [PLAN.json...] | run DIR OUT" >&2; exit 2 ;;
esac
