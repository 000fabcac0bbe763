#!/usr/bin/env python3
"""What relayout decides from each profile a GPU benchmark run returned.

usage: decisions.py RELAYOUT SITES_DIR PROFILES_DIR [--mode paper|model] [--out FILE.json]

For every PROFILES_DIR/NAME.CONFIG.json (scripts/gpu/bench.sh) whose sample has a site map
SITES_DIR/NAME/*/NAME.sites.json (scripts/gpu/prepare-bench.sh; every instrumented variant has the same one), runs `relayout analyze`
and records each struct's layout (with its clusters) per (sample, config). Model mode is run only
on profiles that carry a trace. Prints one line per analysis and writes the JSON to --out."""
import json
import os
import subprocess
import sys
import tempfile


def analyze(relayout, sites, profile, mode):
    with tempfile.TemporaryDirectory() as tmp:
        plan_path = os.path.join(tmp, "plan.json")
        run = subprocess.run([relayout, "analyze", "--sites", sites, "--profile", profile, "--mode", mode,
                              "-o", plan_path], capture_output=True, text=True)
        if run.returncode != 0:
            return {"error": run.stderr.strip().splitlines()[-1] if run.stderr.strip() else "failed"}
        plan = json.load(open(plan_path))
    return {s["name"]: layout_of(s) for s in plan["structs"]}


def layout_of(struct):
    if struct["layout"] != "clustered":
        return struct["layout"]
    groups = ["{" + ",".join(c["fields"]) + "}" for c in struct["clusters"]]
    return "clustered " + " ".join(groups)


def main(argv):
    args = argv[1:]
    mode, out = "paper", None
    for flag in ("--mode", "--out"):
        if flag in args:
            i = args.index(flag)
            value = args[i + 1]
            del args[i:i + 2]
            mode, out = (value, out) if flag == "--mode" else (mode, value)
    if len(args) != 3:
        print(__doc__, file=sys.stderr)
        return 2
    relayout, sites_dir, profiles_dir = args
    decisions = {}
    for entry in sorted(os.listdir(profiles_dir)):
        if not entry.endswith(".json") or entry.count(".") != 2:
            continue
        name, config, _ = entry.split(".")
        found = [os.path.join(sites_dir, name, d, f"{name}.sites.json") for d in sorted(os.listdir(os.path.join(sites_dir, name)))
                 if os.path.exists(os.path.join(sites_dir, name, d, f"{name}.sites.json"))] if os.path.isdir(os.path.join(sites_dir, name)) else []
        sites = found[0] if found else ""
        profile = os.path.join(profiles_dir, entry)
        if not os.path.exists(sites) or not config.startswith("inst-"):
            continue
        if mode == "model" and "trace" not in json.load(open(profile)):
            continue
        result = analyze(relayout, sites, profile, mode)
        decisions.setdefault(name, {})[config] = result
        print(f"{name:15} {config:13} {mode:6} {result}")
    if out:
        json.dump(decisions, open(out, "w"), indent=1, sort_keys=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
