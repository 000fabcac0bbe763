"""Writes the profile tests/gpu/check_loops.py expects of tests/gpu/loops.cu, from its site map:
exact counts, or with one site's warp executions scaled (FUNCTION:FACTOR), as a profile of a GPU
run would come (check-loops.test)."""
import json
import sys

LAUNCHES, WARPS = 4, (1 << 16) // 32
PER_WARP = {"gather": (12, 384), "ragged": (32, 528), "weigh": (8, 256), "helped": (8, 256), "direct": (1000, 32000),
            "walk": (1048, 29568)}

sites = json.load(open(sys.argv[1]))
scaled, factor = (sys.argv[3].split(":")[0], float(sys.argv[3].split(":")[1])) if len(sys.argv) > 3 else (None, 1.0)
rows = []
for site in sites["sites"]:
    warps, lanes = PER_WARP[site["function"]]
    execs = LAUNCHES * WARPS * warps * (factor if site["function"] == scaled else 1.0)
    rows.append([int(execs), LAUNCHES * WARPS * lanes, 0, 0, 0, 0])
loops = [LAUNCHES * WARPS * PER_WARP[loop["function"]][1] for loop in sites["loops"]]
json.dump({"units": [{"sites": rows, "loops": loops}]}, open(sys.argv[2], "w"))
