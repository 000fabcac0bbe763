#!/usr/bin/env python3
"""How far apart relayout should place the arrays of one block (docs/results/array-gap-h200.md).

Takes a program and its rewrite, writes copies of the rewrite whose k<Struct>ArrayGap constants
are set to each gap, builds the original and every copy with nvcc, runs them interleaved, checks
that each printed what the original printed (lines matching --time-pattern left out), and prints
a Markdown table of kernel times, fastest first.

  array_gap.py --original DIR --rewrite DIR --sources main.cu neighbor.cu --args "32 2000" -o OUT
"""
import argparse
import re
import shutil
import statistics
import subprocess
import sys
from pathlib import Path

GAP = re.compile(r"(static constexpr size_t k\w+ArrayGap = )\d+;")


def build(folder: Path, sources, nvcc, flags):
    cmd = [nvcc, *flags, "-o", "program", *sources]
    done = subprocess.run(cmd, cwd=folder, capture_output=True, text=True)
    if done.returncode:
        sys.exit(f"{folder}: build failed:\n{done.stderr[-2000:]}")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--original", required=True, type=Path)
    ap.add_argument("--rewrite", required=True, type=Path, help="relayout's rewrite of the same program")
    ap.add_argument("--sources", nargs="+", required=True)
    ap.add_argument("--args", default="", help="the program's arguments")
    ap.add_argument("--gaps", default="0,128,384,1152,2176,4224,8320,16512,65664")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--nvcc", default="nvcc")
    ap.add_argument("--flags", default="-O3 -std=c++17 -arch=sm_90")
    ap.add_argument("--time-pattern", default=r"kernel time ([0-9.]+) ms")
    ap.add_argument("-o", "--out", required=True, type=Path)
    a = ap.parse_args()

    a.out.mkdir(parents=True, exist_ok=True)
    variants = {"original": a.out / "original"}
    shutil.copytree(a.original, variants["original"], dirs_exist_ok=True)
    for gap in a.gaps.split(","):
        folder = a.out / f"gap{gap}"
        shutil.copytree(a.rewrite, folder, dirs_exist_ok=True)
        for name in a.original.iterdir():  # headers the rewrite did not change
            if name.is_file() and not (folder / name.name).exists():
                shutil.copy(name, folder / name.name)
        changed = 0
        for f in folder.iterdir():
            if f.suffix in (".cu", ".cuh", ".h", ".hpp"):
                text, n = GAP.subn(lambda m: m.group(1) + gap + ";", f.read_text())
                changed += n
                f.write_text(text)
        if not changed:
            sys.exit(f"{a.rewrite}: no k...ArrayGap constant to set")
        variants[f"gap {gap}"] = folder
    flags = a.flags.split()
    for folder in variants.values():
        build(folder, a.sources, a.nvcc, flags)

    pattern = re.compile(a.time_pattern)
    times = {name: [] for name in variants}
    outputs = {}
    for _ in range(a.repeat):
        for name, folder in variants.items():
            run = subprocess.run(["./program", *a.args.split()], cwd=folder, capture_output=True, text=True)
            if run.returncode:
                sys.exit(f"{name}: exit {run.returncode}\n{run.stderr[-2000:]}")
            found = pattern.search(run.stdout)
            if not found:
                sys.exit(f"{name}: no line matches {a.time_pattern!r}")
            times[name].append(float(found.group(1)))
            outputs[name] = [l for l in run.stdout.splitlines() if not pattern.search(l)]
    base = statistics.median(times["original"])
    print("| variant | kernel ms (median) | min..max | vs original | output |")
    print("|---|---|---|---|---|")
    for name in sorted(variants, key=lambda n: statistics.median(times[n])):
        t = times[name]
        same = "equal" if outputs[name] == outputs["original"] else "DIFFERS"
        print(f"| {name} | {statistics.median(t):.1f} | {min(t):.1f}..{max(t):.1f} | "
              f"{base / statistics.median(t):.3f}x | {same} |")


if __name__ == "__main__":
    main()
