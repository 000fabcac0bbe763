#!/usr/bin/env python3
"""Where relayout's sectors per access and the hardware's agree, per sample (docs/results/hw-crosscheck-*.md).

usage: hw_table.py RELAYOUT SITES_DIR PROFILES_DIR

For every PROFILES_DIR/NAME.hw.json (scripts/gpu/bench.sh: the default-sampled instrumented
program run with RELAYOUT_HW=1, once per kernel), runs `relayout analyze --report-json` with the
site map SITES_DIR/NAME/inst-default/NAME.sites.json and prints, per sample, how many source
lines with sites agree, differ, or lack data, then each line that differs."""
import json
import os
import subprocess
import sys
import tempfile


def rows_of(relayout, sites, profile):
    with tempfile.TemporaryDirectory() as tmp:
        report = os.path.join(tmp, "report.json")
        run = subprocess.run([relayout, "analyze", "--mode", "paper", "--sites", sites, "--profile", profile,
                              "-o", os.path.join(tmp, "plan.json"), "--report-json", report],
                             capture_output=True, text=True)
        if run.returncode != 0:
            raise SystemExit(f"{profile}: relayout analyze failed: {run.stderr.strip()}")
        return json.load(open(report)).get("hw", {}).get("rows", [])


def main(argv):
    if len(argv) != 4:
        raise SystemExit(__doc__)
    relayout, sites_dir, profiles = argv[1:]
    print("| sample | lines with sites | agree | differ | not executed | no hw data |")
    print("|---|---|---|---|---|---|")
    differing = []
    for name in sorted(f[:-len(".hw.json")] for f in os.listdir(profiles) if f.endswith(".hw.json")):
        sites = os.path.join(sites_dir, name, "inst-default", f"{name}.sites.json")
        if not os.path.exists(sites):
            continue
        rows = rows_of(relayout, sites, os.path.join(profiles, f"{name}.hw.json"))
        count = {k: sum(1 for r in rows if r["agreement"] == k) for k in ("agree", "differ", "not executed", "no hw data")}
        print(f"| {name} | {len(rows)} | {count['agree']} | {count['differ']} | {count['not executed']} | {count['no hw data']} |")
        differing += [(name, r) for r in rows if r["agreement"] == "differ"]
    print("\nLines that differ (relayout's sectors per warp access vs the hardware's per instruction, ideal):\n")
    print("| sample | line | fields | relayout | hardware | hw ideal | hw instructions |")
    print("|---|---|---|---|---|---|---|")
    for name, r in differing:
        print(f"| {name} | {os.path.basename(r['file'])}:{r['line']} | {', '.join(r.get('sites', []))} | "
              f"{r['tool_sectors_per_exec']:.2f} | {r['hw_sectors_per_instruction']:.2f} | "
              f"{r['hw_ideal_sectors_per_instruction']:.2f} | {r['hw_instructions']} |")


if __name__ == "__main__":
    main(sys.argv)
