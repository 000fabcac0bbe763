#!/usr/bin/env bash
# GPU machine: runs what scripts/gpu/prepare.sh built (build/gpu and build/samples):
# runtime self-tests, the toy samples (original, instrumented with a profile written to $OUT,
# SoA rewrite; tiny and default sizes), then every bundled sample variant (scripts/gpu/samples.sh).
# Prints a short table last. --toys-only skips the bundled samples.
set -u -o pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${RELAYOUT_BUILD_DIR:-$root/build}
out=${OUT:-$root/out}
mkdir -p "$out"
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1)
short=$(echo "$gpu" | grep -oiE 'h100|h200|a100|l40s|b200' | head -1 | tr 'A-Z' 'a-z')
log=$out/toys-${short:-gpu}.log
echo "GPU: $gpu; $(date -u +%Y-%m-%dT%H:%M:%SZ)" | tee "$log"
export LD_LIBRARY_PATH=/usr/local/cuda/targets/x86_64-linux/lib:${LD_LIBRARY_PATH:-}

for t in "$build"/gpu/relayout_*selftest; do
  [ -x "$t" ] && { echo "== $(basename "$t")"; timeout 120 "$t"; echo "exit=$?"; } >>"$log" 2>&1
done
table="toy variant size kernel_ms check"
for toy in stream gather; do
  dir=$build/gpu/$toy
  for size in tiny default; do
    args=(); [ $size = tiny ] && args=(--tiny)
    for variant in original instrumented soa; do
      exe=$dir/$variant; [ $variant = original ] || exe=$dir/$variant/program
      prof=$out/$toy.profile.json; [ $size = tiny ] && prof=$out/$toy.tiny.profile.json
      echo "== $toy $variant $size" >>"$log"
      RELAYOUT_PROFILE=$prof timeout 300 "$exe" "${args[@]}" >"$out/run.txt" 2>&1
      rc=$?
      cat "$out/run.txt" >>"$log"
      ms=$(grep -o 'kernel_ms=[0-9.]*' "$out/run.txt" | cut -d= -f2)
      check=FAIL; [ $rc -eq 0 ] && grep -q '^PASS' "$out/run.txt" && check=PASS
      table+=$'\n'"$toy $variant $size ${ms:--} $check"
    done
  done
done
rm -f "$out/run.txt" "$out"/*.tiny.profile.json
[ "${1:-}" != --toys-only ] && [ -x "$root/scripts/gpu/samples.sh" ] && bash "$root/scripts/gpu/samples.sh" --out "$out" "$build/samples" >"$out/samples-stdout.txt" 2>&1
echo "$table" | while read -r a b c d e; do printf '%-7s %-13s %-8s %-10s %s\n' "$a" "$b" "$c" "$d" "$e"; done | tee -a "$log"
[ -f "$out/samples-stdout.txt" ] && tail -40 "$out/samples-stdout.txt"
