#!/usr/bin/env bash
# Dev machine: relayout on every bundled sample, built for the GPU run (scripts/gpu/tool-samples.sh):
# build/gpu-tool/NAME/instrumented (relayout instrument + nvcc + runtime) and build/gpu-tool/NAME/soa
# (relayout rewrite --layout soa) where the rewriter handles the sample. What it refuses is listed.
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${RELAYOUT_BUILD_DIR:-$root/build}
relayout=$build/tool/relayout
out=$build/gpu-tool
rm -rf "$out" && mkdir -p "$out"
nvcc=(/usr/local/cuda/bin/nvcc -O3 -arch=sm_90 -lineinfo -std=c++17)
link=("$build/runtime/librelayout_rt.a" -L/usr/local/cuda/targets/x86_64-linux/lib -lcupti -lcuda)
for name in sph idw cfd particlefilter himeno hpcg stencil25 nbody; do
  src=$root/samples/$name/$name.cu
  dir=$out/$name
  mkdir -p "$dir"
  if "$relayout" instrument "$src" -o "$dir/inst" -- -O3 -arch=sm_90 2>"$dir/instrument.log" &&
     "${nvcc[@]}" -I "$root/runtime/include" -I "$root/samples/$name" "$dir/inst/$name.cu" -o "$dir/instrumented" "${link[@]}"; then
    echo "$name: instrumented"
  else
    echo "$name: instrumentation FAILED (see $dir/instrument.log)"
    continue
  fi
  if "$relayout" rewrite --sites "$dir/inst/$name.sites.json" --layout soa "$src" -o "$dir/soa-src" -- -O3 -arch=sm_90 \
       2>"$dir/rewrite.log" && ! grep -q "warning:" "$dir/rewrite.log" &&
     "${nvcc[@]}" -I "$root/samples/$name" "$dir/soa-src/$name.cu" -o "$dir/soa"; then
    echo "$name: SoA rewrite built"
  else
    echo "$name: SoA rewrite refused or failed: $(grep -m1 -o 'warning: .*' "$dir/rewrite.log" | cut -c1-150)"
  fi
done
echo "prepared: $(du -sh "$out" | cut -f1) in $out"
