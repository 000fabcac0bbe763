#!/usr/bin/env python3
"""Two plans from the same profiles, rewritten and timed against the original: whether a change to
the analysis that moves picks moves them to layouts that run as fast and print the same.

    plan_ab.py rewrite OUT NAME [--profile-variant full] [--analyze-options '...'] [--only P,Q]
    overhead.py run OUT --runs 5 --variants original,A,B     (where the GPU is)
    plan_ab.py summary OUT A B

OUT is an `overhead.py prepare` folder whose runs hold the profiles (`runs/P/VARIANT.0/profile.json`
and its trace). `rewrite` decides with `relayout analyze --mode model` and the given options on
each program's profile of --profile-variant (else its traced one), rewrites the program's sources
to that plan (`relayout rewrite --plan`) into `src/P/NAME` and adds NAME to the manifest as a
rewritten variant, which `overhead.py run` builds as plain CUDA and times like the original.
`summary` prints, per program, each variant's plan and median kernel time over the original's,
and whether every run printed the original's output (times masked).
"""
import argparse
import json
import os
import statistics
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import overhead  # noqa: E402


def rewrite(args):
    out = os.path.abspath(args.out)
    relayout = os.path.join(overhead.BUILD, "tool", "relayout")
    manifest_path = os.path.join(out, "manifest.json")
    manifest = json.load(open(manifest_path))
    for p in manifest["programs"]:
        if args.only and p["name"] not in args.only.split(","):
            continue
        source = next((v for v in (args.profile_variant, "traced") if v in p["variants"] and
                       os.path.exists(os.path.join(out, "runs", p["name"], v + ".0", "profile.json"))), None)
        if source is None:
            print("%s: no profile of %s or traced, skipped" % (p["name"], args.profile_variant))
            continue
        plan = os.path.join(out, "plans", "%s.%s.plan.json" % (p["name"], args.name))
        os.makedirs(os.path.dirname(plan), exist_ok=True)
        cmd = [relayout, "analyze", "--mode", "model", "--profile",
               os.path.join(out, "runs", p["name"], source + ".0", "profile.json"), "-o", plan]
        cmd += [a for s in p["variants"][source]["sites"] for a in ("--sites", os.path.join(out, s))]
        cmd += args.analyze_options.split()
        r = subprocess.run(cmd, capture_output=True, text=True)
        if r.returncode != 0:
            sys.exit("%s: analyze failed:\n%s" % (p["name"], r.stderr[-2000:]))
        folder = os.path.join(overhead.ROOT, p["dir"])
        tree = os.path.join(out, "src", p["name"], args.name)
        subprocess.run(["rm", "-rf", tree], check=True)
        cmd = [relayout, "rewrite", "--plan", plan] + p["files"] + ["--out-root", tree, "--in-root", folder, "--"]
        r = subprocess.run(cmd + p["flags"], cwd=folder, capture_output=True, text=True)
        if r.returncode != 0:
            sys.exit("%s: rewrite failed:\n%s" % (p["name"], r.stderr[-2000:]))
        p["variants"][args.name] = {"tree": os.path.relpath(tree, out), "rewritten": True, "from": source,
                                    "plan": os.path.relpath(plan, out),
                                    "files": [os.path.relpath(os.path.join(tree, f), out) for f in p["files"]],
                                    "sites": []}
        print("%s: %s from the %s profile" % (p["name"], picks(plan), source))
    json.dump(manifest, open(manifest_path, "w"), indent=1)


def picks(plan):
    structs = json.load(open(plan))["structs"]
    return "; ".join("%s %s%s" % (s["name"], s["layout"], "" if s["layout"] != "clustered" else " " + " ".join(
        "{%s}" % ",".join(c["fields"]) for c in s["clusters"])) for s in structs)


def summary(args):
    out = os.path.abspath(args.out)
    manifest = json.load(open(os.path.join(out, "manifest.json")))
    results = json.load(open(os.path.join(out, "results.json")))
    print("| program | variant | plan | kernel ms (median) | over the original | output equal |")
    print("|---|---|---|---|---|---|")
    for p in manifest["programs"]:
        rows = {v: [r for r in results if r["name"] == p["name"] and r["variant"] == v and r["kernel_ns"]]
                for v in ["original"] + args.variants}
        if not rows["original"] or not all(rows[v] for v in args.variants):
            continue
        base = statistics.median(r["kernel_ns"] for r in rows["original"])
        reference = overhead.masked(open(os.path.join(out, rows["original"][0]["output"])).read())
        for v in args.variants:
            ms = statistics.median(r["kernel_ns"] for r in rows[v])
            equal = all(r["exit"] == 0 and r["check"] and
                        overhead.masked(open(os.path.join(out, r["output"])).read()) == reference for r in rows[v])
            print("| %s | %s | %s | %.3f | %.3fx | %s |" % (p["name"], v, picks(os.path.join(
                out, p["variants"][v]["plan"])), ms / 1e6, ms / base, "yes" if equal else "no"))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="command", required=True)
    a = sub.add_parser("rewrite", help="decide and rewrite each program as variant NAME")
    a.add_argument("out")
    a.add_argument("name")
    a.add_argument("--profile-variant", default="full")
    a.add_argument("--analyze-options", default="")
    a.add_argument("--only", default="")
    b = sub.add_parser("summary", help="the rewritten variants' times and outputs against the original's")
    b.add_argument("out")
    b.add_argument("variants", nargs="+")
    args = ap.parse_args()
    {"rewrite": rewrite, "summary": summary}[args.command](args)


if __name__ == "__main__":
    main()
