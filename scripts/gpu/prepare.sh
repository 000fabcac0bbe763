#!/usr/bin/env bash
# Dev machine: builds everything the GPU run needs into build/gpu (carried to the GPU machine,
# which has nvcc but no clang): for each toy sample the original program, the instrumented one
# (relayout instrument + nvcc + the runtime) and the SoA rewrite (relayout rewrite --layout soa),
# plus the runtime self-tests; and the bundled samples' binaries, copied into build/gpu-samples.
# Then, on the GPU: scripts/gpu/run-all.sh --toys-only and
# scripts/gpu/samples.sh build/gpu-samples.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${RELAYOUT_BUILD_DIR:-$root/build}
bash "$root/scripts/build.sh"
relayout=$build/tool/relayout
out=$build/gpu
rm -rf "$out" && mkdir -p "$out"
nvcc=(/usr/local/cuda/bin/nvcc -O3 -arch=sm_90 -lineinfo -std=c++17)
link=("$build/runtime/librelayout_rt.a" -L/usr/local/cuda/targets/x86_64-linux/lib -lcupti -lcuda)

for toy in stream gather; do
  src=$root/samples/toy_$toy/$toy.cu
  "$relayout" instrument "$src" -o "$out/$toy/instrumented" -- -O3 -arch=sm_90
  "$relayout" rewrite --sites "$out/$toy/instrumented/$toy.sites.json" --layout soa "$src" -o "$out/$toy/soa" -- -O3 -arch=sm_90
  "${nvcc[@]}" "$src" -o "$out/$toy/original"
  "${nvcc[@]}" -I "$root/runtime/include" -I "$(dirname "$src")" "$out/$toy/instrumented/$toy.cu" -o "$out/$toy/instrumented/program" "${link[@]}"
  "${nvcc[@]}" -I "$(dirname "$src")" "$out/$toy/soa/$toy.cu" -o "$out/$toy/soa/program"
done
cp "$build"/runtime/relayout_*selftest "$out/" 2>/dev/null || true
# The sample binaries alone (the build folder's object files would not fit a device call).
rm -rf "$build/gpu-samples"
for exe in "$build"/samples/*/sample_*; do
  name=$(basename "$(dirname "$exe")")
  mkdir -p "$build/gpu-samples/$name" && cp "$exe" "$build/gpu-samples/$name/"
done
echo "prepared: $(du -sh "$out" | cut -f1) in $out"
