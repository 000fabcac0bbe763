#!/usr/bin/env bash
# The GPU checks of relayout's runtime that `relayout batch` cannot express, because they check what a
# profile holds rather than what a program prints: the runtime's self-tests, and tests/gpu/attribution.cu
# instrumented nine ways (every block and execution; sampled blocks and launches, without and with
# checkpoint launches; a trace, without and with its time budget; a trace that overflows; sampled
# executions, whose first ones are exact; and first executions shared out among warps, with and
# without a trace), its profiles
# checked by tests/gpu/check_attribution.py, tests/gpu/growth.cu (launch sampling's growth rule and
# a checkpoint, checked by check_growth.py), tests/gpu/loops.cu
# (loop and site counts: exact without execution sampling, within 5% with it, with loop prefixes or
# drawing iterations, by check_loops.py; one known failure, see run.sh), and a profile
# written on the exit() path.
#
#   scripts/runtime-checks.sh FOLDER     (where relayout is) builds everything into FOLDER, a new folder
#   sh FOLDER/run.sh                     (where the GPU is; needs the CUDA driver and python3) runs it
#
# run.sh prints one line per check and exits 1 when one fails; the profiles stay in FOLDER/profiles.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${RELAYOUT_BUILD_DIR:-$root/build}
[ $# -eq 1 ] || { echo "usage: scripts/runtime-checks.sh FOLDER" >&2; exit 2; }
out=$1
[ ! -e "$out" ] || { echo "scripts/runtime-checks.sh: $out exists; name a new folder" >&2; exit 2; }
relayout=$build/tool/relayout
mkdir -p "$out/bin" "$out/src" "$out/profiles"
cp "$build"/runtime/relayout_*selftest "$out/bin/"
cp "$root"/tests/gpu/check_*.py "$out/"
# Exact counts: every warp classifies every hook's first execution (no --site-warps split).
all=(--sample-blocks 1 --max-blocks 0 --sample-launches 0 --sample-executions 1 --site-warps 0)
# Compiles and links instrumented sources with the runtime as BINARY: link_with_runtime BINARY NVCC-ARGS...
link_with_runtime() {
  local binary=$1
  shift
  local compile link
  read -ra compile <<<"$("$relayout" runtime-flags --compile)"
  read -ra link <<<"$("$relayout" runtime-flags --link)"
  /usr/local/cuda/bin/nvcc -O3 -arch=sm_90 -lineinfo -std=c++17 "${compile[@]}" "$@" -o "$binary" "${link[@]}" \
    >>"$out/build.log" 2>&1
}
# Builds tests/gpu/NAME.cu instrumented with OPTIONS... as bin/NAME-VARIANT.
build() {
  local name=$1 variant=$2
  shift 2
  "$relayout" instrument "$root/tests/gpu/$name.cu" -o "$out/src/$variant" "$@" -- -arch=sm_90 -std=c++17 \
    2>>"$out/build.log"
  link_with_runtime "$out/bin/$name-$variant" -I "$root/tests/gpu" "$out/src/$variant/$name.cu"
}
for spec in "agg:${all[*]}" "sampled:--sample-blocks 4 --sample-launches 3 --sample-executions 1 --site-warps 0" \
            "checkpoints:--sample-blocks 4 --sample-launches 3 --checkpoint-launches 2 --sample-executions 1 --site-warps 0" \
            "trace:${all[*]} --trace --trace-launches 2" \
            "overflow:${all[*]} --trace --trace-capacity 100" \
            "execs:--sample-blocks 1 --max-blocks 0 --sample-launches 0 --site-warps 0" \
            "split:--sample-blocks 1 --max-blocks 0 --sample-launches 0 --full-executions 16 --site-warps 8" \
            "splittrace:--sample-blocks 1 --max-blocks 0 --sample-launches 0 --full-executions 16 --site-warps 8 --trace"; do
  variant=${spec%%:*}
  read -r -a extra <<<"${spec#*:}"
  build attribution "$variant" "${extra[@]}"
done
build growth growth --sample-blocks 1 --max-blocks 0 --sample-launches 1 --checkpoint-launches 8 --site-warps 0
build loops exact --sample-blocks 1 --max-blocks 0 --sample-launches 0 --full-executions 0
build loops perhook --sample-blocks 1 --max-blocks 0 --sample-launches 0 --site-warps 0 --draw-iterations=false
build loops draws --sample-blocks 1 --max-blocks 0 --sample-launches 0 --site-warps 0 --draw-iterations
# The corpus's md_celllist as `optimize` profiles it (the defaults and --trace): a write every thread
# makes once, after neighbour loops its warp leaves apart.
md=$root/tests/corpus/md_celllist
"$relayout" instrument "$md/main.cu" "$md/reference.cpp" -o "$out/src/md_celllist" --trace -- -arch=sm_90 -std=c++17 \
  2>>"$out/build.log"
link_with_runtime "$out/bin/md_celllist" -I "$md" "$out/src/md_celllist/main.cu" "$out/src/md_celllist/reference.cpp"
cat >"$out/run.sh" <<'SCRIPT'
#!/bin/sh
# Written by scripts/runtime-checks.sh: runs relayout's runtime checks where the GPU is.
cd "$(dirname "$0")" || exit 1
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
status=0
check() { if "$@" >>run.log 2>&1; then echo "PASS $*"; else echo "FAIL $*"; status=1; fi; }
for t in bin/relayout_*selftest; do
  check env RELAYOUT_PROFILE="profiles/$(basename "$t").json" timeout 120 "$t"
done
for v in agg sampled checkpoints trace overflow execs split splittrace; do
  RELAYOUT_PROFILE="profiles/attribution.$v.json" timeout 120 "bin/attribution-$v" >>run.log 2>&1 || { echo "FAIL attribution $v: exit $?"; status=1; continue; }
  case $v in sampled) opts="--period 4 --launches 3" ;; checkpoints) opts="--period 4 --launches 3 --checkpoints 2" ;;
    trace) opts="--trace full" ;; overflow) opts="--trace overflow" ;;
    split | splittrace) opts="--approx 5" ;; *) opts= ;; esac
  check python3 check_attribution.py "profiles/attribution.$v.json" "src/$v/attribution.sites.json" $opts
done
RELAYOUT_PROFILE=profiles/growth.json timeout 120 bin/growth-growth >>run.log 2>&1 || { echo "FAIL growth: exit $?"; status=1; }
check python3 check_growth.py profiles/growth.json
# Known: with --draw-iterations the ragged loop's warp executions come out high (1.7x; its lane
# executions and the other loops are within 5%): XFAIL while that holds, and a failure once it is
# fixed, so that the check is then made a PASS. At the defaults (loop prefixes) it passes.
xfail() { if "$@" >>run.log 2>&1; then echo "XPASS (fixed? make it a check) $*"; status=1; else echo "XFAIL $*"; fi; }
# The sampled runs launch 16 times: over 4 launches the thinned walk's count strayed from the exact
# one by 2.5% (standard deviation over 12 runs on an H100, mean +0.5%), so a 5% bound failed about
# one run in twenty; 16 launches halve the spread.
for v in exact perhook draws; do
  launches=16
  [ $v = exact ] && launches=4
  RELAYOUT_PROFILE="profiles/loops.$v.json" timeout 120 "bin/loops-$v" $launches >>run.log 2>&1 || { echo "FAIL loops $v: exit $?"; status=1; continue; }
  loops="python3 check_loops.py profiles/loops.$v.json src/$v/loops.sites.json --launches $launches"
  case $v in
    exact) check $loops ;;
    perhook) check $loops --approx 5 ;;
    draws)
      check $loops --approx 5 --skip ragged
      xfail $loops --approx 5 ;;
  esac
done
# md_celllist, three runs: Atom::kick's accesses, once per thread of a warp that stays together,
# and Atom::setForce's write, once per thread too but made in about 20 lane groups per warp after
# the neighbour loops, count within 10% in each. The warp's whole first round of such a site is
# classified (__rl_site_once); with its first group only, the others were drawn at the period the
# loops left the warp at, each weighing as much, and setForce's count strayed (overhead-h200.md).
for r in 0 1 2; do
  RELAYOUT_PROFILE=profiles/md_celllist.$r.json timeout 120 bin/md_celllist >>run.log 2>&1 || { echo "FAIL md_celllist: exit $?"; status=1; }
done
once="python3 check_once_per_thread.py profiles/md_celllist.0.json profiles/md_celllist.1.json profiles/md_celllist.2.json --sites src/md_celllist/main.sites.json --threads-per-block 128"
check $once --function Atom::kick --kernel kick
check $once --function Atom::setForce --kernel computeForces
RELAYOUT_PROFILE=profiles/attribution.exit-path.json timeout 120 bin/attribution-agg --exit >>run.log 2>&1
check test -s profiles/attribution.exit-path.json
exit $status
SCRIPT
chmod +x "$out/run.sh"
echo "relayout runtime checks are in $out: run sh $out/run.sh where the GPU is" >&2
