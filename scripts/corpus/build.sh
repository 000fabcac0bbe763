#!/usr/bin/env bash
# Builds every corpus application (tests/corpus/apps.txt) as its own build does, in a copy of its
# folder under OUTDIR/src, and puts each program at OUTDIR/bin/APP.
#
#   scripts/corpus/build.sh OUTDIR [APP...]
#
# An app with a Makefile is built with `make` (NVCC and ARCH may be set in the environment); one
# with only a CMakeLists.txt with CMake into its build/ folder. Exit status: the number of apps
# that did not build (0: all).
set -u -o pipefail
[ $# -ge 1 ] || { echo "usage: scripts/corpus/build.sh OUTDIR [APP...]" >&2; exit 2; }
out="$1"; shift
root="$(cd "$(dirname "$0")/../.." && pwd)"
corpus="$root/tests/corpus"
# shellcheck source=lib.sh
. "$root/scripts/corpus/lib.sh"
apps=("$@")
[ ${#apps[@]} -gt 0 ] || mapfile -t apps < <(awk 'NF {print $1}' "$corpus/apps.txt")
mkdir -p "$out/src" "$out/bin"
failed=0
for app in "${apps[@]}"; do
  rm -rf "$out/src/$app" && cp -r "$corpus/$app" "$out/src/$app"
  if build_app "$out/src/$app" "$(app_binary "$app")" "$out/bin/$app"; then
    echo "built $app"
  else
    echo "FAILED $app (see $out/src/$app/build.log)"; failed=$((failed + 1))
  fi
done
exit $failed
