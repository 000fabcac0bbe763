#!/usr/bin/env bash
# GPU machine: builds and runs what scripts/gpu/prepare-bench.sh prepared.
#
#   bash scripts/gpu/bench.sh build/gpu-bench [--budget SECONDS] [--only NAME,NAME]
#
# Every program links relayout's runtime, so every run, instrumented or not, leaves a profile
# whose CUPTI kernel times give the same measure for all: the summed duration of the program's
# own kernels (bench::copyKernel, the bandwidth probe, left out). Each sample checks its own
# output (check=PASS). Writes to $OUT: results.tsv (one row per run), bench.log (everything),
# profiles.tar.xz (profiles and traces); prints the table last. Runs that would start after the
# budget (default 540 s) is spent are recorded as SKIP.
set -u -o pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
dir=${1:?usage: bench.sh PREPARED_DIR [--budget S] [--only NAME,NAME]}
shift
budget=540 only=""
while [ $# -gt 0 ]; do
  case "$1" in
    --budget) budget=$2; shift 2 ;;
    --only) only=",$2,"; shift 2 ;;
    *) echo "bench.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
out=${OUT:-$root/out}
mkdir -p "$out/profiles" "$dir/bin"
log=$out/bench.log
start=$SECONDS
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
echo "GPU: $gpu; $(date -u +%Y-%m-%dT%H:%M:%SZ); nvcc $(nvcc --version | grep -o 'release [0-9.]*'); $(cd "$root" && git rev-parse --short HEAD 2>/dev/null)" | tee "$log"
export LD_LIBRARY_PATH=/usr/local/cuda/targets/x86_64-linux/lib:${LD_LIBRARY_PATH:-}
cupti=/usr/local/cuda/targets/x86_64-linux/lib

# Build everything in the manifest, in parallel.
build_one() {
  local name=$1 variant=$2 src=$3 inc=samples/$1
  [ "$name" = attribution ] && inc=tests/gpu
  mkdir -p "$dir/bin/$name"
  if nvcc -O3 -arch=sm_90 -lineinfo -std=c++17 -I runtime/include -I "$inc" "$src" -o "$dir/bin/$name/$variant" \
       -Xlinker --undefined=relayout_rt_register_unit "$dir/librelayout_rt.a" -L"$cupti" -lcupti -lcuda \
       >"$dir/bin/$name/$variant.build.log" 2>&1; then
    echo "built $name $variant"
  else
    echo "BUILD FAILED $name $variant"; cat "$dir/bin/$name/$variant.build.log"
  fi
}
export -f build_one
export dir cupti
cd "$root"
while read -r name variant src; do
  [ -n "$only" ] && [[ "$only" != *",$name,"* ]] && [ "$name" != attribution ] && continue
  echo "$name $variant $src"
done <"$dir/manifest.txt" | xargs -P "$(nproc)" -L 1 bash -c 'build_one "$@"' _ >>"$log" 2>&1
echo "built in $((SECONDS - start)) s: $(grep -c '^built' "$log") ok, $(grep -c '^BUILD FAILED' "$log") failed" | tee -a "$log"

# Kernel time of one run from its profile: CUPTI durations summed, the bandwidth probe left out.
kernel_ns() {
  python3 - "$1" <<'EOF'
import json, sys
try:
    p = json.load(open(sys.argv[1]))
    print(sum(k["total_ns"] for k in p["kernels"] if "copyKernel" not in k["name"]))
except Exception:
    print("-")
EOF
}

# What `relayout profile --hw` does (tool/ProfileCommand.cpp; there is no relayout on this
# machine): CUPTI patches one kernel per run, so after the first run the program runs once per
# other kernel with RELAYOUT_HW_KERNEL naming it, and the hw lines of those runs join the first's.
hw_runs() {
  local name=$1 variant=$2 first=$out/profiles/$1.hw.json
  run "$name" "$variant" hw RELAYOUT_HW=1 -- --tiny
  [ -s "$first" ] || return
  local kernel
  for kernel in $(python3 - "$first" <<'EOF'
import json, sys
p = json.load(open(sys.argv[1]))
done = {l["function"] for l in p.get("hw", {}).get("lines", [])}
print(" ".join(k["mangled"] for k in p["kernels"] if k.get("launches") and k["name"] not in done and "copyKernel" not in k["name"]))
EOF
  ); do
    run "$name" "$variant" "hw.$kernel" RELAYOUT_HW=1 "RELAYOUT_HW_KERNEL=$kernel" -- --tiny
    python3 - "$first" "$out/profiles/$name.hw.$kernel.json" "$kernel" <<'EOF'
import json, sys
first, other = (json.load(open(path)) for path in sys.argv[1:3])
if "hw" in first and "hw" in other:
    name = next(k["name"] for k in other["kernels"] if k["mangled"] == sys.argv[3])
    first["hw"]["lines"] += [l for l in other["hw"]["lines"] if l["function"] == name]
    for key in ("runtime_instructions", "unmapped_instructions"):
        first["hw"]["excluded"][key] += other["hw"]["excluded"][key]
    json.dump(first, open(sys.argv[1], "w"), indent=1)
EOF
    rm -f "$out/profiles/$name.hw.$kernel.json"
  done
}

results=$out/results.tsv
printf 'sample\tvariant\trun\texit\tcheck\tkernel_ms\tcupti_kernel_ns\tseconds\n' >"$results"
# run NAME VARIANT RUN-LABEL [ENV=VALUE...] -- ARGS...
run() {
  local name=$1 variant=$2 label=$3
  shift 3
  local envs=()
  while [ $# -gt 0 ] && [ "$1" != -- ]; do envs+=("$1"); shift; done
  shift
  local exe=$dir/bin/$name/$variant prof=$out/profiles/$name.$label.json
  local left=$((budget - (SECONDS - start)))
  if [ ! -x "$exe" ] || [ $left -le 5 ]; then
    printf '%s\t%s\t%s\t-\tSKIP\t-\t-\t0\n' "$name" "$variant" "$label" >>"$results"
    return
  fi
  local t0=$SECONDS
  env RELAYOUT_PROFILE="$prof" "${envs[@]}" timeout $((left < 240 ? left : 240)) "$exe" "$@" >"$out/run.txt" 2>&1
  local rc=$? check=FAIL
  { echo "== $name $variant $label $* (exit $rc, $((SECONDS - t0)) s)"; cat "$out/run.txt"; } >>"$log"
  grep -q 'check=PASS\|^PASS' "$out/run.txt" && [ $rc -eq 0 ] && check=PASS
  local ms=$(grep -o 'kernel_ms=[0-9.]*' "$out/run.txt" | tail -1 | cut -d= -f2)
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$name" "$variant" "$label" "$rc" "$check" "${ms:--}" \
    "$(kernel_ns "$prof")" "$((SECONDS - t0))" >>"$results"
}

# The runtime's self-tests and the attribution check first: short, and not about timing.
for t in "$root/$dir"/selftest/relayout_*selftest; do
  [ -x "$t" ] || continue
  (cd "$out" && RELAYOUT_HW_DEBUG=1 RELAYOUT_PROFILE="$out/profiles/$(basename "$t").json" timeout 120 "$t") >"$out/run.txt" 2>&1
  echo "== $(basename "$t"): exit $?, $(grep -c FAIL "$out/run.txt") FAIL lines, last: $(tail -1 "$out/run.txt")" | tee -a "$log"
  cat "$out/run.txt" >>"$log"
done
for variant in agg sampled trace overflow; do
  [ -x "$dir/bin/attribution/$variant" ] || continue
  run attribution "$variant" "$variant" --
  opts=()
  case $variant in
    sampled) opts=(--period 4 --launches 3) ;;
    trace) opts=(--trace full) ;;
    overflow) opts=(--trace overflow) ;;
  esac
  sites=$dir/src/attribution/$variant/attribution.sites.json
  echo "== check attribution $variant: $(python3 tests/gpu/check_attribution.py "$out/profiles/attribution.$variant.json" "$sites" "${opts[@]}" 2>&1)" | tee -a "$log"
done
run attribution agg exit-path -- --exit
echo "== exit() path: profile $( [ -s "$out/profiles/attribution.exit-path.json" ] && echo written || echo MISSING)" | tee -a "$log"

samples=$(cut -d' ' -f1 "$dir/manifest.txt" | grep -v attribution | uniq)
for name in $samples; do
  [ -n "$only" ] && [[ "$only" != *",$name,"* ]] && continue
  for variant in $(awk -v n="$name" '$1 == n { print $2 }' "$dir/manifest.txt"); do
    run "$name" "$variant" "$variant" --
  done
  # Hardware counters beside relayout's own, on the small problem (SASS patching is slow).
  for variant in inst-full inst-default; do
    [ -x "$dir/bin/$name/$variant" ] && { hw_runs "$name" "$variant"; break; }
  done
done
rm -f "$out/run.txt"
tar cJf "$out/profiles.tar.xz" -C "$out" profiles && rm -rf "$out/profiles"
echo "total $((SECONDS - start)) s" | tee -a "$log"
awk -F'\t' '{ printf "%-15s %-13s %-13s %-5s %-6s %-11s %-16s %s\n", $1, $2, $3, $4, $5, $6, $7, $8 }' "$results" | tee -a "$log"
