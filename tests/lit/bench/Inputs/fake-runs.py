#!/usr/bin/env python3
"""Writes what `overhead.py run` would leave in OUT (machine.json, results.json, each run's output)
for the programs OUT was prepared with, from a scenario per program, so that `overhead.py report`
can be checked without a GPU. Scenarios, by program:
  cloth    every run of the original prints the same, every traced run prints it too
  boids    the original's third run prints another digit, and so does the second traced run
  options  the original is deterministic, one traced run prints another digit
Kernel times: original 1.0 ms, traced 1.25 ms, everywhere 2.0 ms."""
import json
import os
import sys

out = sys.argv[1]
manifest = json.load(open(os.path.join(out, "manifest.json")))
text = "energy 1.2345\nCHECK PASSED\n"
other = "energy 1.2346\nCHECK PASSED\n"
results = []
for p in manifest["programs"]:
    runs = [("original", i, 1_000_000) for i in range(3)] + [("traced", i, 1_250_000) for i in range(3)]
    if "everywhere" in p["variants"]:
        runs.append(("everywhere", 0, 2_000_000))
    for variant, i, ns in runs:
        printed = text
        if p["name"] == "boids" and variant == "original" and i == 2:
            printed = other
        if p["name"] in ("boids", "options") and variant == "traced" and i == 1:
            printed = other
        if variant != "original":
            printed += "relayout: profile written to %s.%d/profile.json\n" % (variant, i)
        folder = os.path.join(out, "runs", p["name"], "%s.%d" % (variant, i))
        os.makedirs(folder, exist_ok=True)
        open(os.path.join(folder, "output.txt"), "w").write(printed)
        results.append({"name": p["name"], "kind": p["kind"], "variant": variant, "run": i, "exit": 0,
                        "check": True, "kernel_ns": ns, "by_kernel": {"k": ns}, "wall_s": 0.1,
                        "output": os.path.relpath(os.path.join(folder, "output.txt"), out)})
json.dump(results, open(os.path.join(out, "results.json"), "w"))
json.dump({"gpu": ["Test GPU, 1.0"], "date": "2026-01-01", "rt_cuh": manifest["rt_cuh"], "nvcc": "Build test"},
          open(os.path.join(out, "machine.json"), "w"))
