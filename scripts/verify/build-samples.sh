#!/usr/bin/env bash
# On a machine with relayout (Clang, nvcc), no GPU needed: builds, for each of the eight bundled
# samples, the original and the rewritten program that scripts/gpu/verify-samples.sh runs with
# relayout-verify on a GPU machine (which has nvcc but no Clang, so relayout cannot run there).
#
#   scripts/verify/build-samples.sh [--relayout PATH] [--only NAME,NAME] [--flags 'NVCC-FLAGS']
#                                   [--gpu h100|h200] OUT
#
# Run from the repository root. For each sample (sph idw cfd particlefilter himeno hpcg stencil25
# nbody) it runs, with RELAYOUT_NO_GPU=1,
#   relayout optimize samples/NAME/NAME.cu -o OUT/NAME --recorded-profile \
#     samples/NAME/profiles/NAME.GPU.profile.json --verify --ignore-lines '^RESULT ' \
#     --ignore-lines ' ms per step' -- -O3 -arch=sm_90
# which decides from the profile recorded on that GPU (default h100: every sample has one), rewrites,
# and builds the original and the rewritten program plainly (OUT/NAME/verify/{original,rewritten}/
# program, stripped here), then prints the relayout-verify command that runs them.
# OUT/bin/relayout-verify and OUT/lib/librelayout_kerneltime.so are copied from relayout's build
# (beside --relayout's folder: BUILD/tool/, BUILD/lib/), so that OUT is all a GPU machine needs, and
# OUT.tar.gz packs OUT without the instrumented trees (its size is printed).
#
# Output: OUT/NAME/ (optimize's folder), OUT/NAME.log (optimize's output), OUT/bin, OUT/lib, OUT.tar.gz.
# Time: about 10-30 s a sample (two nvcc builds and optimize's own work).
# Exit status: 0 when every pair was built, 1 otherwise, 2 on a usage error.
set -u -o pipefail

usage() {
  echo "usage: scripts/verify/build-samples.sh [--relayout PATH] [--only NAME,NAME] [--flags 'NVCC-FLAGS']" >&2
  echo "                                       [--gpu h100|h200] OUT" >&2
  [ $# -gt 0 ] && echo "error: $*" >&2
  exit 2
}

samples=(sph idw cfd particlefilter himeno hpcg stencil25 nbody)
relayout=${RELAYOUT:-build/tool/relayout}
flags="-O3 -arch=sm_90"
gpu=h100
out=""
while [ $# -gt 0 ]; do
  case "$1" in
    --relayout) [ $# -ge 2 ] || usage "--relayout needs a path"; relayout=$2; shift 2 ;;
    --only) [ $# -ge 2 ] || usage "--only needs sample names"; IFS=',' read -r -a samples <<<"$2"; shift 2 ;;
    --flags) [ $# -ge 2 ] || usage "--flags needs nvcc flags"; flags=$2; shift 2 ;;
    --gpu) { [ $# -ge 2 ] && [[ "$2" =~ ^(h100|h200)$ ]]; } || usage "--gpu needs h100 or h200"; gpu=$2; shift 2 ;;
    -h|--help) usage ;;
    -*) usage "unknown option $1" ;;
    *) [ -z "$out" ] || usage "one OUT folder"; out=$1; shift ;;
  esac
done
[ -n "$out" ] || usage "OUT is missing"
[ -x "$relayout" ] || usage "no relayout at $relayout (give --relayout PATH)"
build_dir=$(cd "$(dirname "$relayout")/.." && pwd)
verify_tool=$build_dir/tool/relayout-verify
[ -x "$verify_tool" ] || verify_tool=$build_dir/bin/relayout-verify  # an installed tree
[ -x "$verify_tool" ] || usage "no relayout-verify beside $relayout (build the relayout-verify target)"
kerneltime=$build_dir/lib/librelayout_kerneltime.so
mkdir -p "$out/bin" "$out/lib" || usage "cannot create $out"
read -r -a flag_words <<<"$flags"

cp "$verify_tool" "$out/bin/relayout-verify" && strip "$out/bin/relayout-verify" || exit 1
if [ -f "$kerneltime" ]; then
  cp -L "$kerneltime" "$out/lib/" && strip --strip-unneeded "$out/lib/librelayout_kerneltime.so" || exit 1
else
  echo "build-samples: no $kerneltime: kernel times will not be measured (wall times will)" >&2
fi

status=0
for name in "${samples[@]}"; do
  source=samples/$name/$name.cu profile=samples/$name/profiles/$name.$gpu.profile.json
  if [ ! -f "$source" ] || [ ! -f "$profile" ]; then
    echo "build-samples: no $source or $profile (run from the repository root)" >&2
    status=1
    continue
  fi
  echo "== $name"
  rm -rf "${out:?}/$name"
  RELAYOUT_NO_GPU=1 "$relayout" optimize "$source" -o "$out/$name" --recorded-profile "$profile" --verify \
    --ignore-lines '^RESULT ' --ignore-lines ' ms per step' -- "${flag_words[@]}" >"$out/$name.log" 2>&1
  rc=$?
  pair=("$out/$name/verify/original/program" "$out/$name/verify/rewritten/program")
  if [ "$rc" -ne 0 ] || [ ! -x "${pair[0]}" ] || [ ! -x "${pair[1]}" ]; then
    echo "   FAILED (exit $rc; see $out/$name.log)"
    status=1
    continue
  fi
  strip "${pair[@]}"
  # Only what the GPU machine needs travels: the instrumented tree (its program, site maps) stays.
  rm -rf "$out/$name/instrumented"
  decision=$(python3 -c 'import json, sys
print("; ".join("%s: %s" % (s["name"], s["layout"]) for s in json.load(open(sys.argv[1]))["structs"]))' \
    "$out/$name/plan.json" 2>/dev/null)
  echo "   built $(du -ch "${pair[@]}" | tail -1 | cut -f1) (${decision:-no plan})"
done

tarball=$out.tar.gz
tar -C "$(dirname "$out")" -czf "$tarball" "$(basename "$out")" || status=1
echo "build-samples: $tarball: $(du -h "$tarball" | cut -f1) ($(stat -c %s "$tarball") bytes)"
echo "On the GPU machine: tar -xzf $(basename "$tarball") && scripts/gpu/verify-samples.sh $(basename "$out") OUT"
exit "$status"
