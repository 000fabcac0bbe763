#!/usr/bin/env bash
# On a GPU machine: `relayout optimize --verify` on each of the eight bundled samples, then a table.
#
#   scripts/gpu/verify-samples.sh [--relayout PATH] [--kerneltime-lib PATH] [--repeat N] [--tiny]
#                                 [--only NAME,NAME] [--flags 'NVCC-FLAGS'] [--timeout S] OUT
#
# Run from the repository root. For each sample (sph idw cfd particlefilter himeno hpcg stencil25
# nbody) it runs
#   relayout optimize samples/NAME/NAME.cu -o OUT/NAME --verify --repeat N [--run=--tiny] \
#     --ignore-lines '^RESULT ' --ignore-lines ' ms per step' -- -O3 -arch=sm_90
# which instruments, builds and profiles the sample, decides, rewrites, then builds the original and
# the rewritten program plainly, runs each N times (default 5, interleaved) and compares their
# standard output. The samples print their own kernel times (the RESULT line, nbody's "ms per
# step"): those lines are left out of the comparison; everything else must match byte for byte.
# Samples run at their default size (as scripts/gpu/samples.sh runs them); --tiny runs the test size.
#
# --relayout PATH: the relayout to run (default: $RELAYOUT, else build/tool/relayout), e.g. one built
# elsewhere. --kerneltime-lib PATH: librelayout_kerneltime.so, when it is not in lib/ beside that
# relayout's folder (exported as RELAYOUT_KERNELTIME_LIBRARY; without it kernel times are not
# measured, wall times are). --timeout S bounds each sample's optimize (default 1800 s).
#
# Output: OUT/NAME/ (optimize's folder: plan.json, report.md, rewritten/ or rejected/, verify/),
# OUT/NAME.log (optimize's output), OUT/table.txt (the table, also printed last).
# Time: about 1-3 minutes a sample at the default size with N=5 (builds included).
# Exit status: 0 when every sample verified equal, 1 otherwise, 2 on a usage error.
set -u -o pipefail

usage() {
  echo "usage: scripts/gpu/verify-samples.sh [--relayout PATH] [--kerneltime-lib PATH] [--repeat N] [--tiny]" >&2
  echo "                                     [--only NAME,NAME] [--flags 'NVCC-FLAGS'] [--timeout S] OUT" >&2
  [ $# -gt 0 ] && echo "error: $*" >&2
  exit 2
}

samples=(sph idw cfd particlefilter himeno hpcg stencil25 nbody)
relayout=${RELAYOUT:-build/tool/relayout}
repeat=5
tiny=0
flags="-O3 -arch=sm_90"
limit=1800
out=""
is_uint() { [[ "$1" =~ ^[0-9]+$ ]]; }
while [ $# -gt 0 ]; do
  case "$1" in
    --relayout) [ $# -ge 2 ] || usage "--relayout needs a path"; relayout=$2; shift 2 ;;
    --kerneltime-lib) [ $# -ge 2 ] || usage "--kerneltime-lib needs a path"
      export RELAYOUT_KERNELTIME_LIBRARY=$2; shift 2 ;;
    --repeat) { [ $# -ge 2 ] && is_uint "$2" && [ "$2" -gt 0 ]; } || usage "--repeat needs a number > 0"
      repeat=$2; shift 2 ;;
    --tiny) tiny=1; shift ;;
    --only) [ $# -ge 2 ] || usage "--only needs sample names"; IFS=',' read -r -a samples <<<"$2"; shift 2 ;;
    --flags) [ $# -ge 2 ] || usage "--flags needs nvcc flags"; flags=$2; shift 2 ;;
    --timeout) { [ $# -ge 2 ] && is_uint "$2" && [ "$2" -gt 0 ]; } || usage "--timeout needs seconds > 0"
      limit=$2; shift 2 ;;
    -h|--help) usage ;;
    -*) usage "unknown option $1" ;;
    *) [ -z "$out" ] || usage "one OUT folder"; out=$1; shift ;;
  esac
done
[ -n "$out" ] || usage "OUT is missing"
[ -x "$relayout" ] || usage "no relayout at $relayout (give --relayout PATH)"
[ -n "${RELAYOUT_KERNELTIME_LIBRARY:-}" ] && [ ! -f "$RELAYOUT_KERNELTIME_LIBRARY" ] &&
  usage "no file $RELAYOUT_KERNELTIME_LIBRARY (--kerneltime-lib)"
mkdir -p "$out" || usage "cannot create $out"
read -r -a flag_words <<<"$flags"
run_args=()
[ "$tiny" = 1 ] && run_args=(--run=--tiny)

status=0
for name in "${samples[@]}"; do
  source=samples/$name/$name.cu
  if [ ! -f "$source" ]; then
    echo "verify-samples: no $source (run from the repository root)" >&2
    status=1
    continue
  fi
  echo "== $name"
  start=$SECONDS
  timeout -k 10 "$limit" "$relayout" optimize "$source" -o "$out/$name" --verify --repeat "$repeat" \
    ${run_args[@]+"${run_args[@]}"} --ignore-lines '^RESULT ' --ignore-lines ' ms per step' \
    -- "${flag_words[@]}" >"$out/$name.log" 2>&1
  rc=$?
  echo "$rc" >"$out/$name.exit"
  [ "$rc" -eq 0 ] || status=1
  echo "   exit $rc after $((SECONDS - start)) s (output in $out/$name.log)"
done

# The table: per sample, the layouts chosen, whether the outputs were equal, the kernel speed-up.
python3 - "$out" "${samples[@]}" <<'PY' | tee "$out/table.txt"
import json, os, sys
out, names = sys.argv[1], sys.argv[2:]
def load(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None
rows = [("sample", "decision", "equal?", "kernel speed-up", "spread", "wall speed-up")]
for name in names:
    plan = load(os.path.join(out, name, "plan.json"))
    verify = load(os.path.join(out, name, "verify", "verify.json"))
    try:
        exit_code = open(os.path.join(out, name + ".exit")).read().strip()
    except OSError:
        exit_code = "?"
    decision = "; ".join("%s: %s" % (s["name"], s["layout"]) for s in plan["structs"]) if plan else "-"
    equal = {"equal": "yes", "mismatch": "NO (rejected)", "original-failed": "original failed"}.get(
        (verify or {}).get("verdict"), "error (exit %s)" % exit_code)
    speedup = ((verify or {}).get("speedup") or {})
    kernel, wall = speedup.get("kernel"), speedup.get("wall")
    rows.append((name, decision, equal,
                 "%.2fx" % kernel["median"] if kernel else "-",
                 "%.2f-%.2fx" % (kernel["min"], kernel["max"]) if kernel else "-",
                 "%.2fx" % wall["median"] if wall else "-"))
widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
for r in rows:
    print("  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip())
PY
exit "$status"
