#!/usr/bin/env bash
# Instruments every corpus application (tests/corpus/apps.txt) and builds the instrumented program,
# for a profiled run on a GPU machine (scripts/gpu/profile-corpus.sh).
#
#   scripts/corpus/instrument.sh OUTDIR [APP...]
#
# For each app: `relayout optimize --build-only` on the sources and flags tests/corpus/sources.txt
# lists, into OUTDIR/APP (instrumented sources, site maps, program; log in OUTDIR/APP.log); the
# program goes to OUTDIR/bin/APP. Environment: RELAYOUT (default: build/tool/relayout).
# Exit status: the number of apps that did not build.
set -u -o pipefail
[ $# -ge 1 ] || { echo "usage: scripts/corpus/instrument.sh OUTDIR [APP...]" >&2; exit 2; }
out="$1"; shift
root="$(cd "$(dirname "$0")/../.." && pwd)"
corpus="$root/tests/corpus"
# shellcheck source=lib.sh
. "$root/scripts/corpus/lib.sh"
relayout="${RELAYOUT:-$root/build/tool/relayout}"
[ -x "$relayout" ] || { echo "instrument.sh: $relayout is not built" >&2; exit 2; }
mkdir -p "$out/bin" && out="$(cd "$out" && pwd)"
apps=("$@")
[ ${#apps[@]} -gt 0 ] || mapfile -t apps < <(awk 'NF {print $1}' "$corpus/apps.txt")
failed=0
for app in "${apps[@]}"; do
  app_sources "$app" || { echo "FAILED $app (not in tests/corpus/sources.txt)"; failed=$((failed + 1)); continue; }
  rm -rf "$out/$app"
  if ( cd "$corpus/$app" && "$relayout" optimize -o "$out/$app" --build-only "${files[@]}" -- "${flags[@]}" 2>&1 ) \
       > "$out/$app.log" 2>&1 \
       && cp "$out/$app/instrumented/program" "$out/bin/$app"; then
    echo "built $app"
  else
    echo "FAILED $app (see $out/$app.log)"; failed=$((failed + 1))
  fi
done
exit $failed
