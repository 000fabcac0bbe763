#!/usr/bin/env python3
"""Stands in for an instrumented program under `relayout profile --hw`, as CUPTI behaves on the
GPU: each run measures one kernel, the first launched (a()), or the one RELAYOUT_HW_KERNEL names.
It writes its profile to $RELAYOUT_PROFILE and appends one line per run to the log given as its
argument. A third kernel, c(), was never launched: no run is made for it."""
import json
import os
import sys

kernels = [("a()", "_Z1av", 3), ("b()", "_Z1bv", 2), ("c()", "_Z1cv", 0)]
only = os.environ.get("RELAYOUT_HW_KERNEL")
with open(sys.argv[1], "a") as log:
    log.write(f"run hw={os.environ.get('RELAYOUT_HW', '')} kernel={only or '-'}\n")
measured = next((name for name, mangled, _ in kernels if mangled == only), "a()") if os.environ.get("RELAYOUT_HW") else None


def line(function, number, sectors):
    return {"file": "/src/app.cu", "line": number, "function": function, "instructions": 10, "loads": 10,
            "stores": 0, "sectors": sectors, "ideal_sectors": 40}


profile = {
    "format": "relayout-profile", "version": 1, "device": "fake", "created": "2026-01-01T00:00:00Z",
    "command": sys.argv, "units": [],
    "kernels": [{"name": n, "mangled": m, "launches": l, "total_ns": 0} for n, m, l in kernels],
}
if measured:
    profile["hw"] = {
        "source": "cupti-sass-metrics", "device": "fake", "chip": "GH100",
        "metrics": {"instructions": "smsp__sass_inst_executed"},
        "excluded": {"runtime_instructions": 5, "unmapped_instructions": 1},
        "lines": [line(measured, 10 if measured == "a()" else 20, 320)],
    }
json.dump(profile, open(os.environ["RELAYOUT_PROFILE"], "w"))
