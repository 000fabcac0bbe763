#!/usr/bin/env bash
# On a GPU machine: relayout-verify on the original and rewritten program of each of the eight
# bundled samples, built beforehand on a machine with relayout by scripts/verify/build-samples.sh
# (the GPU machines have nvcc but no Clang, so relayout itself cannot run there), then a table.
#
#   scripts/gpu/verify-samples.sh [--verify PATH] [--kerneltime-lib PATH] [--repeat N] [--tiny]
#                                 [--only NAME,NAME] [--timeout S] PAIRS OUT
#
# PAIRS: build-samples.sh's OUT (unpacked from its tarball): PAIRS/NAME/verify/{original,rewritten}/
# program, PAIRS/NAME/plan.json, PAIRS/bin/relayout-verify, PAIRS/lib/librelayout_kerneltime.so.
# For each sample (sph idw cfd particlefilter himeno hpcg stencil25 nbody) it runs, in OUT/NAME/,
#   relayout-verify --original PAIRS/NAME/verify/original/program \
#     --rewritten PAIRS/NAME/verify/rewritten/program --repeat N [--run=--tiny] \
#     --ignore-lines '^RESULT ' --ignore-lines ' ms per step' -o OUT/NAME
# which runs each program N times (default 5, interleaved), compares their standard output and
# times their kernels (CUPTI, through librelayout_kerneltime.so). The samples print their own kernel
# times (the RESULT line, nbody's "ms per step"): those lines are left out of the comparison;
# everything else must match byte for byte. Samples run at their default size (as
# scripts/gpu/samples.sh runs them); --tiny runs the test size.
#
# --verify PATH: the relayout-verify to run (default: PAIRS/bin/relayout-verify, else
# $RELAYOUT_VERIFY, else build/tool/relayout-verify). --kerneltime-lib PATH: librelayout_kerneltime.so
# when it is not in lib/ beside that relayout-verify's folder (without it kernel times are not
# measured, wall times are). --timeout S bounds each sample's relayout-verify (default 600 s).
#
# Output: OUT/NAME/ (original/run-K/, rewritten/run-K/, verify.json), OUT/NAME.log (relayout-verify's
# output), OUT/table.txt (the table, also printed last).
# Time: about 10-60 s a sample at the default size with N=5 (2 x N runs).
# Exit status: 0 when every sample verified equal, 1 otherwise, 2 on a usage error.
set -u -o pipefail

usage() {
  echo "usage: scripts/gpu/verify-samples.sh [--verify PATH] [--kerneltime-lib PATH] [--repeat N] [--tiny]" >&2
  echo "                                     [--only NAME,NAME] [--timeout S] PAIRS OUT" >&2
  [ $# -gt 0 ] && echo "error: $*" >&2
  exit 2
}

samples=(sph idw cfd particlefilter himeno hpcg stencil25 nbody)
verify_tool=""
kerneltime=()
repeat=5
tiny=0
limit=600
folders=()
is_uint() { [[ "$1" =~ ^[0-9]+$ ]]; }
while [ $# -gt 0 ]; do
  case "$1" in
    --verify) [ $# -ge 2 ] || usage "--verify needs a path"; verify_tool=$2; shift 2 ;;
    --kerneltime-lib) { [ $# -ge 2 ] && [ -f "$2" ]; } || usage "--kerneltime-lib needs a file"
      kerneltime=(--kerneltime-lib "$(cd "$(dirname "$2")" && pwd)/$(basename "$2")"); shift 2 ;;
    --repeat) { [ $# -ge 2 ] && is_uint "$2" && [ "$2" -gt 0 ]; } || usage "--repeat needs a number > 0"
      repeat=$2; shift 2 ;;
    --tiny) tiny=1; shift ;;
    --only) [ $# -ge 2 ] || usage "--only needs sample names"; IFS=',' read -r -a samples <<<"$2"; shift 2 ;;
    --timeout) { [ $# -ge 2 ] && is_uint "$2" && [ "$2" -gt 0 ]; } || usage "--timeout needs seconds > 0"
      limit=$2; shift 2 ;;
    -h|--help) usage ;;
    -*) usage "unknown option $1" ;;
    *) folders+=("$1"); shift ;;
  esac
done
[ "${#folders[@]}" -eq 2 ] || usage "give PAIRS and OUT"
[ -d "${folders[0]}" ] || usage "no folder ${folders[0]} (PAIRS: scripts/verify/build-samples.sh's OUT)"
pairs=$(cd "${folders[0]}" && pwd)
mkdir -p "${folders[1]}" || usage "cannot create ${folders[1]}"
out=$(cd "${folders[1]}" && pwd)
if [ -z "$verify_tool" ]; then
  verify_tool=$pairs/bin/relayout-verify
  [ -x "$verify_tool" ] || verify_tool=${RELAYOUT_VERIFY:-build/tool/relayout-verify}
fi
[ -x "$verify_tool" ] || usage "no relayout-verify at $verify_tool (give --verify PATH)"
verify_tool=$(cd "$(dirname "$verify_tool")" && pwd)/$(basename "$verify_tool")
run_args=()
[ "$tiny" = 1 ] && run_args=(--run=--tiny)

status=0
for name in "${samples[@]}"; do
  original=$pairs/$name/verify/original/program rewritten=$pairs/$name/verify/rewritten/program
  rm -f "$out/$name.exit"
  if [ ! -x "$original" ] || [ ! -x "$rewritten" ]; then
    echo "verify-samples: no $original or $rewritten (build-samples.sh did not build $name)" >&2
    status=1
    continue
  fi
  echo "== $name"
  start=$SECONDS
  mkdir -p "$out/$name"
  (cd "$out/$name" && timeout -k 10 "$limit" "$verify_tool" --original "$original" --rewritten "$rewritten" \
    --repeat "$repeat" ${run_args[@]+"${run_args[@]}"} ${kerneltime[@]+"${kerneltime[@]}"} \
    --ignore-lines '^RESULT ' --ignore-lines ' ms per step' -o "$out/$name") >"$out/$name.log" 2>&1
  rc=$?
  echo "$rc" >"$out/$name.exit"
  [ "$rc" -eq 0 ] || status=1
  echo "   exit $rc after $((SECONDS - start)) s (output in $out/$name.log)"
done

# The table: per sample, the layouts chosen, whether the outputs were equal, the kernel speed-up.
python3 - "$pairs" "$out" "${samples[@]}" <<'PY' | tee "$out/table.txt"
import json, os, sys
pairs, out, names = sys.argv[1], sys.argv[2], sys.argv[3:]
def load(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None
rows = [("sample", "decision", "equal?", "kernel speed-up", "spread", "wall speed-up")]
for name in names:
    plan = load(os.path.join(pairs, name, "plan.json"))
    verify = load(os.path.join(out, name, "verify.json"))
    try:
        exit_code = open(os.path.join(out, name + ".exit")).read().strip()
    except OSError:
        exit_code = "?"
    decision = "; ".join("%s: %s" % (s["name"], s["layout"]) for s in plan["structs"]) if plan else "-"
    equal = {"equal": "yes", "mismatch": "NO (differs)", "original-failed": "original failed"}.get(
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
