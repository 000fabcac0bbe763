#!/bin/bash
# Where a layout's time goes, kernel by kernel: builds every variant of one program (APP_DIR/VARIANT/,
# each a full copy of its sources: the original and the candidate rewrites), times each kernel in
# three interleaved rounds (CUPTI, through librelayout_kerneltime, which it builds from
# runtime/kerneltime), and, where ncu and cuobjdump are, reads each kernel's memory counters over
# NCU_ARGS's run and dumps the machine code. Runs where the GPU is (nvcc, CUPTI; ncu optional).
#
#   kernel_breakdown.sh APP_DIR OUT "SOURCES" "ARGS" ["NCU_ARGS"]
#
# OUT/times.txt: per variant, each kernel's median time over the rounds (ms); OUT/ncu/VARIANT.csv
# (per launch; average them by the ID column); OUT/sass/VARIANT.sass.
set -u
app=${1:?APP_DIR}; out=${2:?OUT}; sources=${3:?SOURCES}; args=${4-}; ncu_args=${5-$args}
here=$(cd "$(dirname "$0")/../.." && pwd)
cuda=${CUDA_HOME:-/usr/local/cuda}
mkdir -p "$out/kt" "$out/ncu" "$out/sass"
cupti_inc=$(dirname "$(find "$cuda/" -name cupti.h | head -1)")
cupti_lib=$(dirname "$(find "$cuda/" -name 'libcupti.so*' | head -1)")
g++ -O2 -shared -fPIC -std=c++17 -I"$cuda/include" -I"$cupti_inc" "$here/runtime/kerneltime/KernelTime.cpp" \
  -L"$cupti_lib" -lcupti -Wl,-rpath,"$cupti_lib" -o "$out/kerneltime.so" || exit 1
mapfile -t variants < <(cd "$app" && find . -mindepth 1 -maxdepth 1 -type d -printf "%f\n" | sort)
for v in "${variants[@]}"; do
  # shellcheck disable=SC2086 # SOURCES and ARGS are word lists
  (cd "$app/$v" && nvcc -O3 -std=c++17 -arch=sm_90 -lineinfo -o "$out/$v.program" $sources) || exit 1
done
for round in 1 2 3; do
  for v in "${variants[@]}"; do
    # shellcheck disable=SC2086
    (cd "$app/$v" && RELAYOUT_KERNEL_TIME="$out/kt/$v.$round.json" CUDA_INJECTION64_PATH="$out/kerneltime.so" \
      "$out/$v.program" $args > /dev/null 2> "$out/kt/$v.$round.err")
  done
done
metrics=gpu__time_duration.sum,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,l1tex__t_requests_pipe_lsu_mem_global_op_st.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum,lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sectors_srcunit_tex_op_write.sum,dram__bytes_read.sum,dram__bytes_write.sum,smsp__inst_executed.sum
for v in "${variants[@]}"; do
  if command -v ncu > /dev/null; then
    # shellcheck disable=SC2086
    (cd "$app/$v" && ncu --clock-control none --metrics "$metrics" --launch-skip 4 --launch-count 14 --csv \
      "$out/$v.program" $ncu_args > "$out/ncu/$v.csv" 2> "$out/ncu/$v.err")
  fi
  if command -v cuobjdump > /dev/null; then cuobjdump -sass "$out/$v.program" > "$out/sass/$v.sass"; fi
done
python3 - "$out" "${variants[@]}" > "$out/times.txt" <<'PY'
import collections, json, statistics, sys
out, variants = sys.argv[1], sys.argv[2:]
for v in variants:
    times = collections.defaultdict(list)
    for r in (1, 2, 3):
        for line in open(f"{out}/kt/{v}.{r}.json"):
            d = json.loads(line)
            times["TOTAL"].append(d["kernel_ns"] / 1e6)
            for k, t in d["by_kernel"].items():
                times[k].append(t["ns"] / 1e6)
    print(v, " ".join(f"{k}={statistics.median(x):.3f}" for k, x in sorted(times.items())))
PY
cat "$out/times.txt"
