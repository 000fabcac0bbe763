"""Analyzes each corpus application's profile recorded on an H100 (tests/corpus/NAME/profiles/
NAME.h100.profile.json, relayout's default sampling) in paper mode and compares the layouts picked
with tests/corpus/recorded-picks.json: full profiling's picks (every block and launch classified),
or, where the sampled profile is known to pick otherwise, that pick and why.

    python3 recorded_picks.py RELAYOUT CORPUS_DIR OUT_DIR

Prints one line per application and exits 1 if any pick is other than expected. An application
without a recorded profile (one added to the corpus since) is named as such and not analyzed."""
import glob
import json
import os
import subprocess
import sys
import tomllib


def picks(plan):
    """The plan's layout per struct, its clusters as sorted field lists (the form of recorded-picks.json)."""
    return {s["name"]: [s["layout"], sorted(sorted(c["fields"]) for c in s["clusters"])] for s in plan["structs"]}


def main(relayout, corpus, out):
    relayout, corpus, out = os.path.abspath(relayout), os.path.abspath(corpus), os.path.abspath(out)
    apps = tomllib.load(open(os.path.join(corpus, "batch.toml"), "rb"))["app"]
    expected = json.load(open(os.path.join(corpus, "recorded-picks.json")))
    status = 0
    for app in apps:
        name, folder = app["name"], os.path.join(corpus, app["dir"])
        profile = os.path.join(folder, "profiles", f"{name}.h100.profile.json")
        if not os.path.exists(profile) and name not in expected:
            print(f"{name}: no recorded profile")
            continue
        tree = os.path.join(out, name)
        r = subprocess.run([relayout, "instrument"] + app["sources"] + ["-o", tree, "--"] + app.get("flags", []),
                           cwd=folder, capture_output=True, text=True)
        if r.returncode != 0:
            print(f"{name}: instrument failed: {r.stderr.strip()[-500:]}")
            status = 1
            continue
        sites = sorted(glob.glob(os.path.join(tree, "**", "*.sites.json"), recursive=True))
        plan = os.path.join(out, f"{name}.plan.json")
        r = subprocess.run([relayout, "analyze", "--mode", "paper", "--profile", profile, "-o", plan] +
                           [arg for s in sites for arg in ("--sites", s)], capture_output=True, text=True)
        if r.returncode != 0:
            print(f"{name}: analyze failed: {r.stderr.strip()[-500:]}")
            status = 1
            continue
        got, want = picks(json.load(open(plan))), expected[name]
        if "sampled" in want:
            same = got == want["sampled"]
            verdict = "as recorded, not full profiling's pick" if same else "CHANGED from the recorded pick"
            print(f"{name}: {verdict}: {want['why']}")
        else:
            same = got == want["full"]
            print(f"{name}: {'same as full profiling' if same else 'DIFFERENT from full profiling'}")
        if not same:
            print(f"  got {json.dumps(got, sort_keys=True)}")
            status = 1
    return status


if __name__ == "__main__":
    if len(sys.argv) != 4:
        print(__doc__, file=sys.stderr)
        sys.exit(2)
    sys.exit(main(*sys.argv[1:]))
