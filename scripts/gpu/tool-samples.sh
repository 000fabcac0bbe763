#!/usr/bin/env bash
# GPU machine: for every sample prepared by scripts/gpu/prepare-tool.sh (carry build/gpu-tool and
# build/gpu-samples), runs the original, the instrumented program (profile kept) and relayout's SoA
# rewrite at the default size, each checking itself. Profiles are packed into $OUT/profiles.tgz.
# Prints a table last: time of each, instrumented/original and SoA/original ratios, checks.
set -u -o pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${RELAYOUT_BUILD_DIR:-$root/build}
out=${OUT:-$root/out}
mkdir -p "$out/profiles"
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
log=$out/tool-samples.log
echo "GPU: $gpu; $(date -u +%Y-%m-%dT%H:%M:%SZ); command: scripts/gpu/tool-samples.sh $*" | tee "$log"
export LD_LIBRARY_PATH=/usr/local/cuda/targets/x86_64-linux/lib:${LD_LIBRARY_PATH:-}
run() {  # run NAME VARIANT EXE -> prints "ms check"
  RELAYOUT_PROFILE=$out/profiles/$1.profile.json timeout 120 "$3" >"$out/run.txt" 2>&1
  local rc=$? ms check=FAIL
  { echo "== $1 $2 (exit $rc)"; cat "$out/run.txt"; } >>"$log"
  ms=$(grep -o 'kernel_ms=[0-9.]*' "$out/run.txt" | tail -1 | cut -d= -f2)
  [ $rc -eq 0 ] && grep -q 'check=PASS' "$out/run.txt" && check=PASS
  echo "${ms:--} $check"
}
table="sample original inst soa inst/orig soa/orig checks"
for name in sph idw cfd particlefilter himeno hpcg stencil25 nbody; do
  dir=$build/gpu-tool/$name
  [ -x "$dir/instrumented" ] || continue
  read -r o oc < <(run "$name" original "$build/gpu-samples/$name/sample_${name}_aos")
  read -r i ic < <(run "$name" instrumented "$dir/instrumented")
  s=- sc=-
  [ -x "$dir/soa" ] && read -r s sc < <(run "$name" soa "$dir/soa")
  ri=$(awk -v a="$i" -v b="$o" 'BEGIN{ if (a+0 > 0 && b+0 > 0) printf "%.2f", a/b; else print "-" }')
  rs=$(awk -v a="$s" -v b="$o" 'BEGIN{ if (a+0 > 0 && b+0 > 0) printf "%.2f", a/b; else print "-" }')
  table+=$'\n'"$name $o $i $s $ri $rs $oc/$ic/$sc"
done
rm -f "$out/run.txt"
tar czf "$out/profiles.tgz" -C "$out" profiles && rm -rf "$out/profiles"
echo "$table" | while read -r a b c d e f g; do printf '%-15s %-10s %-10s %-10s %-9s %-9s %s\n' "$a" "$b" "$c" "$d" "$e" "$f" "$g"; done | tee -a "$log"
