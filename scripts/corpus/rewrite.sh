#!/usr/bin/env bash
# Rewrites every corpus application (tests/corpus/apps.txt) with relayout, to one forced layout or
# to the plan its profile leads to, and builds the rewritten copy with the application's own
# build, for a GPU comparison with the originals that scripts/corpus/build.sh builds.
#
#   scripts/corpus/rewrite.sh OUTDIR [--layout soa|aos | --profiles PROFILE_DIR] [APP...]
#
# For each app: the sources tests/corpus/sources.txt lists are instrumented (for their site maps).
# With --layout L (default soa) they are rewritten with `relayout rewrite --layout L` into
# OUTDIR/L/APP/out. With --profiles, `relayout analyze` decides from PROFILE_DIR/APP/profile.json
# (as scripts/gpu/profile-corpus.sh writes it; the trace beside it) into OUTDIR/plan/APP/plan.json
# and report.md, and `relayout rewrite --plan` applies that plan; an app without a profile is
# skipped. The summary lines (which struct was applied, or why not) go to OUTDIR/L/APP/rewrite.log.
# When at least one struct was applied, a copy of the app with the rewritten files laid over it is
# built like build.sh builds the original, and the program goes to OUTDIR/L/bin/APP.
# A table (app, decisions, structs applied, refused, built) goes to OUTDIR/L/rewrite.md and stdout.
# Environment: RELAYOUT (default: build/tool/relayout under the repository).
# Exit status: the number of apps whose rewrite or build failed outright (a struct refused with a
# reason, or a plan that keeps every struct as it is, is not a failure).
set -u -o pipefail
usage() { echo "usage: scripts/corpus/rewrite.sh OUTDIR [--layout soa|aos | --profiles PROFILE_DIR] [APP...]" >&2; exit 2; }
[ $# -ge 1 ] || usage
out="$1"; shift
layout=soa profiles=
if [ "${1:-}" = "--layout" ]; then layout="${2:-}"; shift 2 || usage; fi
if [ "${1:-}" = "--profiles" ]; then
  profiles="$(cd "${2:-}" && pwd)" || usage
  layout=plan; shift 2
fi
root="$(cd "$(dirname "$0")/../.." && pwd)"
corpus="$root/tests/corpus"
# shellcheck source=lib.sh
. "$root/scripts/corpus/lib.sh"
relayout="${RELAYOUT:-$root/build/tool/relayout}"
[ -x "$relayout" ] || { echo "rewrite.sh: $relayout is not built" >&2; exit 2; }
mkdir -p "$out" && out="$(cd "$out" && pwd)/$layout"
apps=("$@")
[ ${#apps[@]} -gt 0 ] || mapfile -t apps < <(awk 'NF {print $1}' "$corpus/apps.txt")
mkdir -p "$out/bin"
table="$out/rewrite.md"
echo "| app | decided | applied | not applied | built |" > "$table"
echo "|---|---|---|---|---|" >> "$table"
failed=0
for app in "${apps[@]}"; do
  app_sources "$app" || { echo "rewrite.sh: $app is not in tests/corpus/sources.txt" >&2; failed=$((failed + 1)); continue; }
  work="$out/$app"
  rm -rf "$work" && mkdir -p "$work"
  sites=()
  ( cd "$corpus/$app" && "$relayout" instrument "${files[@]}" -o "$work/inst" -- "${flags[@]}" ) > "$work/instrument.log" 2>&1
  for f in "${files[@]}"; do sites+=(--sites "$work/inst/${f%.*}.sites.json"); done
  decided="forced $layout"
  if [ -n "$profiles" ]; then
    [ -s "$profiles/$app/profile.json" ] || { rm -rf "$work"; continue; }
    if ! "$relayout" analyze "${sites[@]}" --profile "$profiles/$app/profile.json" -o "$work/plan.json" \
         --report-md "$work/report.md" > "$work/analyze.log" 2>&1; then
      echo "| $app | analyze failed (see $work/analyze.log) | 0 | 0 | no |" >> "$table"; failed=$((failed + 1)); continue
    fi
    # STRUCT:LAYOUT for every struct of the plan
    decided=$(python3 -c 'import json, sys
print(" ".join("%s:%s" % (s["name"], s["layout"]) for s in json.load(open(sys.argv[1]))["structs"]))' "$work/plan.json")
    ( cd "$corpus/$app" && "$relayout" rewrite --plan "$work/plan.json" "${files[@]}" -o "$work/out" \
        -- "${flags[@]}" ) > "$work/rewrite.log" 2>&1
  else
    ( cd "$corpus/$app" && "$relayout" rewrite "${sites[@]}" --layout "$layout" "${files[@]}" -o "$work/out" \
        -- "${flags[@]}" ) > "$work/rewrite.log" 2>&1
  fi
  applied=$(grep -c "layout applied$" "$work/rewrite.log")
  refused=$(grep -c "layout not applied" "$work/rewrite.log")
  built=no
  if [ "$applied" -gt 0 ]; then
    cp -r "$corpus/$app" "$work/src" && cp "$work/out"/* "$work/src/"
    if build_app "$work/src" "$(app_binary "$app")" "$out/bin/$app"; then
      built=yes
    else
      built="FAILED (see $work/src/build.log)"; failed=$((failed + 1))
    fi
  elif [ -n "$profiles" ] && [ "$refused" = 0 ] && ! grep -q "error:" "$work/rewrite.log"; then
    built="no: the plan keeps every struct"
  elif [ -n "$profiles" ] && ! grep -q "error:" "$work/rewrite.log"; then
    built="no: no struct applied"
  elif ! grep -q "layout not applied" "$work/rewrite.log"; then
    built="no rewrite (see $work/rewrite.log)"; failed=$((failed + 1))
  fi
  echo "| $app | $decided | $applied | $refused | $built |" >> "$table"
done
cat "$table"
exit $failed
