#!/usr/bin/env bash
# Runs prebuilt variants of one program (the original, and rewrites of it) on this machine's GPU,
# checks that each prints what the first prints, and times their kernels.
#
#   scripts/gpu/variants.sh --out DIR [--runs N] [--timeout S] NAME=BINARY... -- ARGS...
#
# Each variant runs N times (default 3), interleaved (original, rewrite, original, ...), with ARGS.
# Its binary must link relayout's runtime (librelayout_rt.a, -lcupti -lcuda): the runtime then
# writes the CUPTI kernel durations of each run to DIR/NAME.RUN.profile.json. Standard output goes
# to DIR/NAME.RUN.out; every run's output must equal the first variant's first run's, byte for
# byte (`cmp`), and its exit status must be 0. A table of per-variant medians of summed kernel time
# and the ratio to the first variant goes to DIR/table.md and to stdout.
# Exit status: 0 when every run exited 0 with the same output, 1 otherwise, 2 on a usage error.
set -u -o pipefail

usage() { echo "usage: scripts/gpu/variants.sh --out DIR [--runs N] [--timeout S] NAME=BINARY... -- ARGS..." >&2; exit 2; }
out="" runs=3 timeout_s=120
variants=()
while [ $# -gt 0 ]; do
  case "$1" in
    --out) out="$2"; shift 2 ;;
    --runs) runs="$2"; shift 2 ;;
    --timeout) timeout_s="$2"; shift 2 ;;
    --) shift; break ;;
    *=*) variants+=("$1"); shift ;;
    *) usage ;;
  esac
done
[ -n "$out" ] && [ ${#variants[@]} -gt 0 ] || usage
mkdir -p "$out"
status=0
reference=""
for run in $(seq 1 "$runs"); do
  for v in "${variants[@]}"; do
    name="${v%%=*}" binary="${v#*=}"
    RELAYOUT_PROFILE="$out/$name.$run.profile.json" timeout "$timeout_s" "$binary" "$@" \
      > "$out/$name.$run.out" 2> "$out/$name.$run.err"
    rc=$?
    if [ $rc -ne 0 ]; then echo "FAIL $name run $run: exit $rc" | tee -a "$out/failures.txt"; status=1; fi
    if [ -z "$reference" ]; then reference="$out/$name.$run.out"
    elif ! cmp -s "$reference" "$out/$name.$run.out"; then
      echo "FAIL $name run $run: output differs from $(basename "$reference")" | tee -a "$out/failures.txt"; status=1
    fi
  done
done
python3 - "$out" "$runs" "${variants[@]}" <<'PY' | tee "$out/table.md"
import json, statistics, sys
out, runs, variants = sys.argv[1], int(sys.argv[2]), [v.split("=", 1)[0] for v in sys.argv[3:]]
def kernel_ms(path):
    try:
        return sum(k["total_ns"] for k in json.load(open(path)).get("kernels", [])) / 1e6
    except (OSError, ValueError):
        return None
print("| variant | kernel ms (median of %d) | runs (ms) | speed-up over %s |" % (runs, variants[0]))
print("|---|---|---|---|")
base = None
for name in variants:
    times = [t for t in (kernel_ms("%s/%s.%d.profile.json" % (out, name, r)) for r in range(1, runs + 1)) if t is not None]
    median = statistics.median(times) if times else None
    base = base if base is not None else median
    ratio = "%.2fx" % (base / median) if median and base else "-"
    print("| %s | %s | %s | %s |" % (name, "%.3f" % median if median else "-", " ".join("%.3f" % t for t in times), ratio))
PY
exit $status
