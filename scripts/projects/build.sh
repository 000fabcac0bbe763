#!/usr/bin/env bash
# Builds the example projects (tests/projects/charges: make, tests/projects/fluid: CMake) through
# `relayout nvcc` in one mode, for scripts/gpu/projects.sh.
#
#   scripts/projects/build.sh OUT plain|generate|use [--relayout PREFIX]
#
# OUT/APP/MODE is the program; OUT/APP/args the arguments of its runs; generate leaves the site maps
# in OUT/APP/relayout/, where the profile goes for `relayout analyze OUT/APP/relayout`, whose
# plan.json the use mode builds with. PREFIX is an installed relayout (default: the build tree,
# build/, which has the same shape).
set -eu -o pipefail
usage() { echo "usage: scripts/projects/build.sh OUT plain|generate|use [--relayout PREFIX]" >&2; exit 2; }
[ $# -ge 2 ] || usage
out="$1" mode="$2"; shift 2
root="$(cd "$(dirname "$0")/../.." && pwd)"
prefix="$root/build"
while [ $# -gt 0 ]; do
  case "$1" in
    --relayout) prefix="$(cd "$2" && pwd)"; shift 2 ;;
    *) usage ;;
  esac
done
case "$mode" in plain|generate|use) ;; *) usage ;; esac
mkdir -p "$out" && out="$(cd "$out" && pwd)"
nvcc="${RELAYOUT_NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}"
export RELAYOUT_NVCC="$nvcc"
wrapper="$prefix/tool/relayout"; [ -x "$wrapper" ] || wrapper="$prefix/bin/relayout"

# charges: make with NVCC=relayout-nvcc, the mode from the environment.
mkdir -p "$out/charges"
echo "4194304 40" > "$out/charges/args"
ln -sf "$wrapper" "$out/charges/relayout-nvcc"
envs=()
[ "$mode" = generate ] && envs=(RELAYOUT_GENERATE="$out/charges/relayout")
[ "$mode" = use ] && envs=(RELAYOUT_USE="$out/charges/relayout/plan.json")
compiler="$out/charges/relayout-nvcc"; [ "$mode" = plain ] && compiler="$nvcc"
env "${envs[@]}" make -s -C "$root/tests/projects/charges" BUILD="$out/charges/build-$mode" NVCC="$compiler" -j2
cp "$out/charges/build-$mode/particles" "$out/charges/$mode"

# fluid: CMake with the relayout package.
mkdir -p "$out/fluid"
echo "1048576 20" > "$out/fluid/args"
options=(-DFLUID_RELAYOUT=off)
[ "$mode" != plain ] && options=(-DFLUID_RELAYOUT="$mode" -Drelayout_DIR="$prefix/lib/cmake/relayout"
                                 -DFLUID_PLAN="$out/fluid/relayout/plan.json")
cmake -S "$root/tests/projects/fluid" -B "$out/fluid/build-$mode" -G Ninja -DCMAKE_CUDA_COMPILER="$nvcc" \
      "${options[@]}" > "$out/fluid/cmake-$mode.log"
# The generate folder is the build's (relayout_enable's DIR): move it where analyze is run.
cmake --build "$out/fluid/build-$mode"
cp "$out/fluid/build-$mode/fluid" "$out/fluid/$mode"
if [ "$mode" = generate ]; then rm -rf "$out/fluid/relayout"; cp -r "$out/fluid/build-$mode/relayout" "$out/fluid/relayout"; fi
echo "built $mode programs in $out/charges and $out/fluid"
