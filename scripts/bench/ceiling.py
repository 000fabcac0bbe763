#!/usr/bin/env python3
"""The layout-only ceiling of the bundled samples: each sample's AoS original, relayout's rewrite,
and its hand-written variants (soa, layout, best, aosoa where written), built with the same flags and
timed in interleaved rounds on one GPU.

    ceiling.py prepare BATCH_OUT FOLDER [--rewrite LABEL=DIR ...]
                                          # where relayout runs: BATCH_OUT is a `relayout batch` output
                                          # folder of samples/batch.toml (its apps/NAME/rewritten/ is the
                                          # tool's rewrite; an application it left untouched has none);
                                          # each --rewrite adds DIR/NAME/ (a `relayout rewrite -o`
                                          # folder per sample) as the variant LABEL
    python3 FOLDER/ceiling.py run FOLDER [--rounds R]   # where the GPU is: nvcc and python3 only
    ceiling.py report FOLDER/results.json [-o FILE.md]

`run` builds every program with nvcc and the manifest's flags, runs each once with --tiny (its own
check against the CPU reference) and then R rounds (default 3) of the default size, every program
once per round in the same order; the time is the sample's own RESULT kernel_ms (the median of its
timed repetitions), and a run counts only with `check=PASS`.
"""

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
ORDER = ["aos", "tool", "soa", "layout", "best", "aosoa"]


def prepare(batch_out, folder, rewrites=()):
    if os.path.exists(folder):
        sys.exit(f"ceiling.py: {folder} exists; give a new folder")
    import tomllib  # only here: the GPU machine's python3 may be older

    manifest_path = os.path.join(REPO, "samples", "batch.toml")
    with open(manifest_path, "rb") as f:
        manifest = tomllib.load(f)
    flags = manifest["defaults"]["flags"]
    os.makedirs(folder)
    programs = []
    for app in manifest["app"]:
        name, source_dir = app["name"], os.path.join(REPO, "samples", app["dir"])
        sources = {"aos": app["sources"], **{k: v for k, v in app.get("variants", {}).items()}}
        rewritten = os.path.join(batch_out, "apps", name, "rewritten")
        for variant in ORDER:
            target = os.path.join(folder, name, variant)
            if variant == "tool":
                if not os.path.isdir(rewritten):
                    continue
                shutil.copytree(rewritten, target)
                files = app["sources"]
            elif variant in sources:
                os.makedirs(target)
                files = sources[variant]
                for s in files:
                    shutil.copy(os.path.join(source_dir, s), target)
            else:
                continue
            programs.append({"sample": name, "variant": variant, "dir": os.path.relpath(target, folder),
                             "sources": files})
        for label, rewrite_dir in rewrites:
            if label in ORDER:
                sys.exit(f"ceiling.py: --rewrite {label}: the label names a column of its own")
            source = os.path.join(rewrite_dir, name)
            if not os.path.isdir(source):
                continue
            target = os.path.join(folder, name, label)
            shutil.copytree(source, target)
            programs.append({"sample": name, "variant": label, "dir": os.path.relpath(target, folder),
                             "sources": app["sources"]})
    # Each program's folder is FOLDER/NAME/VARIANT, so the samples' ../common/bench.h is FOLDER/NAME/common.
    for name in {p["sample"] for p in programs}:
        shutil.copytree(os.path.join(REPO, "samples", "common"), os.path.join(folder, name, "common"))
    with open(os.path.join(folder, "programs.json"), "w") as f:
        json.dump({"flags": flags, "programs": programs}, f, indent=1)
    shutil.copy(os.path.abspath(__file__), os.path.join(folder, "ceiling.py"))
    print(f"{len(programs)} programs in {folder}; on the GPU machine: python3 {folder}/ceiling.py run {folder}")


def result_line(text):
    m = re.search(r"^RESULT .*kernel_ms=([0-9.]+).*check=(PASS|FAIL)", text, re.M)
    return (float(m.group(1)), m.group(2)) if m else (None, "no RESULT line")


def run(folder, rounds):
    with open(os.path.join(folder, "programs.json")) as f:
        spec = json.load(f)

    def build(p):
        cmd = ["nvcc", *spec["flags"], "-lineinfo", "-o", "program", *p["sources"]]
        r = subprocess.run(cmd, cwd=os.path.join(folder, p["dir"]), capture_output=True, text=True)
        p["build"] = "ok" if r.returncode == 0 else r.stderr[-2000:]
        print(f"build {p['sample']} {p['variant']}: {'ok' if r.returncode == 0 else 'FAILED'}", flush=True)

    with ThreadPoolExecutor(max_workers=os.cpu_count() or 4) as pool:
        list(pool.map(build, spec["programs"]))
    built = [p for p in spec["programs"] if p["build"] == "ok"]

    def once(p, args):
        d = os.path.join(folder, p["dir"])
        try:
            r = subprocess.run(["./program", *args], cwd=d, capture_output=True, text=True, timeout=300)
            return result_line(r.stdout) if r.returncode == 0 else (None, f"exit {r.returncode}")
        except subprocess.TimeoutExpired:
            return None, "timeout"

    gpu = subprocess.run(["nvidia-smi", "--query-gpu=name", "--format=csv,noheader"], capture_output=True,
                         text=True).stdout.strip().splitlines()
    for p in built:
        p["tiny"] = once(p, ["--tiny"])[1]
        p["runs"], p["checks"] = [], []
    for r in range(rounds):
        for p in built:
            ms, check = once(p, [])
            p["checks"].append(check)
            if check == "PASS":
                p["runs"].append(ms)
            print(f"round {r + 1} {p['sample']} {p['variant']}: {ms} {check}", flush=True)
        # Written after every round, so that a run stopped early keeps the rounds it finished.
        with open(os.path.join(folder, "results.json"), "w") as f:
            json.dump({"gpu": gpu[0] if gpu else "?", "rounds": r + 1, "flags": spec["flags"],
                       "programs": spec["programs"]}, f, indent=1)
    print(f"wrote {folder}/results.json")


def report(results_path, out):
    with open(results_path) as f:
        res = json.load(f)
    by = {}
    for p in res["programs"]:
        ok = p.get("runs") and all(c == "PASS" for c in p.get("checks", [])) and p.get("tiny") == "PASS"
        by.setdefault(p["sample"], {})[p["variant"]] = statistics.median(p["runs"]) if ok else None
    # The variants timed: the usual ones in their order, then those --rewrite added. Without any
    # relayout rewrite (a folder prepared without a batch output) there is no tool column.
    present = [p["variant"] for p in res["programs"]]
    columns = [v for v in ORDER if v in present]
    columns += [v for v in dict.fromkeys(present) if v not in ORDER]
    with_tool = "tool" in columns
    lines = ["| sample | " + " | ".join(columns) + (" | tool / layout |" if with_tool else " |"),
             "|---|" + "---:|" * (len(columns) + with_tool)]
    geo = {v: [] for v in columns}
    for sample, times in by.items():
        aos = times.get("aos")
        cells = []
        for v in columns:
            t = times.get(v)
            if v == "tool" and t is None and "tool" not in times:
                t = aos  # relayout left the sample as it is
            if t is None or not aos:
                cells.append("–" if v not in times and v != "tool" else "FAIL")
                continue
            geo[v].append(aos / t)
            cells.append(f"{t:.1f} ({aos / t:.2f}×)")
        tool = times.get("tool", aos)
        ratio = f"{times['layout'] / tool:.2f}" if tool and times.get("layout") else "–"
        lines.append(f"| {sample} | " + " | ".join(cells) + (f" | {ratio} |" if with_tool else " |"))
    gm = lambda xs: (statistics.geometric_mean(xs) if xs else float("nan"))
    # A column some samples lack (aosoa) gets its mean over the samples it has, and says how many.
    means = [(f"{gm(geo[v]):.2f}×" + ("" if len(geo[v]) == len(by) else f" ({len(geo[v])} samples)")) if geo[v] else "–"
             for v in columns]
    lines.append("| geometric mean | " + " | ".join(means) + (" | |" if with_tool else " |"))
    text = "\n".join(lines) + "\n"
    if out:
        with open(out, "w") as f:
            f.write(text)
    print(text)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("prepare")
    p.add_argument("batch_out")
    p.add_argument("folder")
    p.add_argument("--rewrite", action="append", default=[], metavar="LABEL=DIR",
                   help="another rewrite of the samples to time: DIR/NAME/ holds sample NAME's rewritten sources")
    r = sub.add_parser("run")
    r.add_argument("folder")
    r.add_argument("--rounds", type=int, default=3)
    q = sub.add_parser("report")
    q.add_argument("results")
    q.add_argument("-o", dest="out", default="")
    args = parser.parse_args()
    if args.command == "prepare":
        rewrites = []
        for item in args.rewrite:
            label, sep, where = item.partition("=")
            if not sep or not label or not where:
                sys.exit(f"ceiling.py: --rewrite {item}: give LABEL=DIR")
            rewrites.append((label, where))
        prepare(args.batch_out, args.folder, rewrites)
    elif args.command == "run":
        run(args.folder, args.rounds)
    else:
        report(args.results, args.out)


if __name__ == "__main__":
    main()
