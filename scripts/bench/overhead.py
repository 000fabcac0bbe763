#!/usr/bin/env python3
"""What a profiled run costs, on the bundled samples and the corpus programs (issue 16's benchmark).

    overhead.py prepare OUT [--only NAME,...] [--variants V,...] [--options "..."] [--add]
                                                  where relayout is built: instrument every program
                                                  (--add: beside the variants OUT already has)
    overhead.py run OUT [--runs N] [--only ...]   where the GPU is (nvcc, no relayout): build, run, time
    overhead.py report OUT -o FILE.md             where relayout is built: picks, ratios, the page
    overhead.py picks OUT... [--mode M] [--analyze-options "..."]
                                                  where relayout is built: per program and folder,
                                                  whether every traced run's picks equal the full run's

Variants of each program, all built with `nvcc -O3 -lineinfo` and the program's flags:
  original    as written, timed through librelayout_kerneltime.so (CUPTI, nothing else linked)
  sampled     `relayout instrument` at its defaults (one block in 8 of each kernel's first launch)
  traced      the same with --trace: what `relayout optimize` profiles with
  everywhere  --trace --plain-clones=false --block-front 1: the instrumented code in every launch and
              block, the classifying blocks spread over each grid (as before either was a default)
  checkpoints --trace --checkpoint-launches 8: also the 8th, 16th, ... launch of each kernel, weighted
  full        --sample-blocks 1 --sample-launches 0 --trace: every block of every launch classified
Two more, only when named in --variants, say what the traced build's cost is made of: the traced
sources built with -DRELAYOUT_ABLATE=1 (*nocall*: every hook's inline draw, no classifier call) and
=2 (*nohook*: no hooks, the rest of the instrumented kernel as traced); their profiles count nothing.

The measure is the GPU time of all the program's kernels summed (CUPTI activity records), from
the profile the runtime writes for instrumented builds and from librelayout_kerneltime.so for the
original; each run's output is kept and compared with the original's, printed times masked.
`report` analyses the traced, checkpoints and full profiles (paper mode, and model mode on the traces) and
writes the table: per program its kernel time per variant, the ratios, whether outputs are equal,
and whether the picks equal those of full profiling; geometric means over samples and corpus.
"""

import argparse
import concurrent.futures
import datetime
import glob
import hashlib
import json
import math
import os
import re
import shlex
import shutil
import statistics
import subprocess
import sys
import time
import tomllib

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
# Where relayout was built (scripts/build.sh's folder).
BUILD = os.environ.get("RELAYOUT_BUILD_DIR") or os.path.join(ROOT, "build")

def manifest(path):
    """The applications of a `relayout batch` manifest, [defaults] applied (the one list of them)."""
    with open(os.path.join(ROOT, path), "rb") as f:
        text = tomllib.load(f)
    folder = os.path.dirname(path)
    return [dict(text.get("defaults", {}), **app) | {"dir": os.path.join(folder, app.get("dir", "."))}
            for app in text.get("app", [])]


VARIANTS = {
    "sampled": [],
    "traced": ["--trace"],
    "everywhere": ["--trace", "--plain-clones=false", "--block-front", "1"],
    "checkpoints": ["--trace", "--checkpoint-launches", "8"],
    # Traced too: its model-mode picks are the reference for the traced build's.
    "full": ["--sample-blocks", "1", "--sample-launches", "0", "--full-executions", "0", "--min-blocks", "1",
             "--max-blocks", "0", "--trace"],
    "nocall": ["--trace"],
    "nohook": ["--trace"],
}
DEFAULT_VARIANTS = ["sampled", "traced", "everywhere", "checkpoints", "full"]
# The cost breakdown's builds: the traced sources with part of the hooks compiled out (rt.cuh).
ABLATIONS = {"nocall": "-DRELAYOUT_ABLATE=1", "nohook": "-DRELAYOUT_ABLATE=2"}


def programs(only):
    """Each program: name, kind, folder (from the repository root), sources, flags, run arguments, from
    the samples' and the corpus's batch manifests."""
    out = []
    for kind, path, check in (("sample", "samples/batch.toml", "check=PASS"),
                              ("corpus", "tests/corpus/batch.toml", "CHECK PASSED")):
        for app in manifest(path):
            out.append({"name": app["name"], "kind": kind, "dir": app["dir"], "files": app["sources"],
                        "flags": app.get("flags", []), "args": app.get("run", "").split(), "check": check})
    if only:
        out = [p for p in out if p["name"] in only.split(",")]
    return out


def instrumented_path(tree, original):
    """The instrumented copy of `original` (absolute) in `tree`: the same path below the common root."""
    best, best_len = None, -1
    parts = original.split("/")
    for candidate in glob.glob(os.path.join(tree, "**", parts[-1]), recursive=True):
        c = os.path.relpath(candidate, tree).split("/")
        n = 0
        while n < len(c) and n < len(parts) and c[-1 - n] == parts[-1 - n]:
            n += 1
        if n == len(c) and n > best_len:
            best, best_len = candidate, n
    return best


def prepare(args):
    relayout = os.path.join(BUILD, "tool", "relayout")
    out = os.path.abspath(args.out)
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True,
                            text=True).stdout.strip()
    # Sources prepared from uncommitted changes say so: the page names the commit they came from.
    if subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=ROOT, capture_output=True,
                      text=True).stdout.strip():
        commit += "+changes"
    header = runtime_header_hash()
    manifest_path = os.path.join(out, "manifest.json")
    earlier = json.load(open(manifest_path)) if args.add and os.path.exists(manifest_path) else None
    # One folder, one configuration: checked before anything in OUT is replaced (its runtime
    # libraries too, which the earlier variants link).
    if earlier and earlier.get("options", "") != args.options:
        sys.exit("overhead.py: %s was prepared with --options=%r; --add needs the same" % (out, earlier["options"]))
    if earlier and (earlier.get("commit"), earlier.get("rt_cuh")) != (commit, header):
        sys.exit("overhead.py: %s was prepared at relayout %s; --add needs the same commit and runtime header" % (
            out, earlier.get("commit")))
    os.makedirs(os.path.join(out, "lib"), exist_ok=True)
    for lib in ("librelayout_rt.a", "librelayout_kerneltime.so"):
        subprocess.run(["strip", "--strip-debug", "-o", os.path.join(out, "lib", lib),
                        os.path.join(BUILD, "lib", lib)], check=True)
    manifest = []
    for p in programs(args.only):
        folder = os.path.join(ROOT, p["dir"])
        p["variants"] = {}
        for variant, options in VARIANTS.items():
            if variant not in (args.variants.split(",") if args.variants else DEFAULT_VARIANTS):
                continue
            options = options + args.options.split()
            tree = os.path.join(out, "src", p["name"], variant)
            shutil.rmtree(tree, ignore_errors=True)
            cmd = [relayout, "instrument"] + p["files"] + ["-o", tree] + options + ["--"] + p["flags"]
            r = subprocess.run(cmd, cwd=folder, capture_output=True, text=True)
            if r.returncode != 0:
                print("%s %s: instrument failed:\n%s" % (p["name"], variant, r.stderr[-2000:]), file=sys.stderr)
                continue
            p["variants"][variant] = {
                "tree": os.path.relpath(tree, out),
                "files": [os.path.relpath(instrumented_path(tree, os.path.join(folder, f)), out) for f in p["files"]],
                "sites": sorted(os.path.relpath(s, out) for s in glob.glob(os.path.join(tree, "**", "*.sites.json"),
                                                                           recursive=True)),
            }
        print("prepared %s: %s" % (p["name"], " ".join(p["variants"])))
        manifest.append(p)
    if earlier:  # --add: the new variants join the programs' earlier ones
        added = {p["name"]: p for p in manifest}
        for p in earlier["programs"]:
            if p["name"] in added:
                p["variants"].update(added.pop(p["name"])["variants"])
        manifest = earlier["programs"] + list(added.values())
    json.dump({"commit": commit, "rt_cuh": header, "options": args.options, "programs": manifest},
              open(manifest_path, "w"), indent=1)


def nvcc():
    return shutil.which("nvcc") or "/usr/local/cuda/bin/nvcc"


def runtime_header_hash():
    """The runtime header's hash: `run` builds with the header of the tree it runs in, which may be
    newer than the commit the sources were prepared at."""
    return hashlib.sha256(open(os.path.join(ROOT, "runtime", "include", "relayout", "rt.cuh"), "rb").read()
                          ).hexdigest()[:12]


def build_command(out, p, variant):
    """nvcc on the program's sources (instrumented ones from their tree), its own flags, -O3."""
    folder = os.path.join(ROOT, p["dir"])
    binary = os.path.join(out, "bin", p["name"], variant)
    extra = sorted(f for f in os.listdir(folder) if f.endswith((".cpp", ".cc")) and f not in p["files"])
    includes, flags = [], []
    tree = root = None
    if variant != "original":  # the tree mirrors the files below their common folder, `root`
        tree = os.path.join(out, p["variants"][variant]["tree"])
        first = os.path.relpath(os.path.join(out, p["variants"][variant]["files"][0]), tree)
        root = os.path.join(folder, p["files"][0])[:-len(first)]
    it = iter(p["flags"])
    for flag in it:
        folder_arg = flag[2:] if flag.startswith("-I") and len(flag) > 2 else (next(it) if flag == "-I" else None)
        if folder_arg is None:
            flags.append(flag)
            continue
        absolute = os.path.abspath(os.path.join(folder, folder_arg))
        if tree and (absolute + "/").startswith(root):  # an instrumented header first, else the original
            mirrored = os.path.join(tree, os.path.relpath(absolute, root))
            if os.path.isdir(mirrored):
                includes += ["-I", mirrored]
        includes += ["-I", absolute]
    if variant == "original":
        sources = [os.path.join(folder, f) for f in p["files"]]
        runtime = []
    elif p["variants"][variant].get("rewritten"):  # a rewrite (plan_ab.py): plain CUDA, no runtime
        sources = [os.path.join(out, f) for f in p["variants"][variant]["files"]]
        runtime = []
    else:  # instrumented: its sources, linked with the runtime
        sources = [os.path.join(out, f) for f in p["variants"][variant]["files"]]
        cupti = "/usr/local/cuda/extras/CUPTI/lib64"
        runtime = [ABLATIONS[variant]] if variant in ABLATIONS else []
        runtime += ["-I", os.path.join(ROOT, "runtime", "include"), "-Xlinker", "--undefined=relayout_rt_register_unit",
                    os.path.join(out, "lib", "librelayout_rt.a"), "-L" + cupti, "-lcupti", "-lcuda"]
    # Host C++ files the program's own build gives the host compiler (a CPU reference) go to g++.
    objects = [binary + "." + os.path.splitext(f)[0] + ".o" for f in extra]
    commands = [["g++", "-O3", "-std=c++17", "-I", folder, "-c", os.path.join(folder, f), "-o", o]
                for f, o in zip(extra, objects)]
    return commands + [[nvcc(), "-O3", "-lineinfo"] + flags + includes + ["-I", folder] + sources + objects +
                       runtime + ["-o", binary]], folder


NOTES_MARKER = "<!-- Written by hand below this line; overhead.py report keeps it. -->"
NUMBER = r"[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?"


def masked(text):
    """The output with printed times and rates masked (`12.5 ms`, `kernel_ms=12.5`, `gbps=900`) and
    relayout's own lines left out: what is left is what the program computed."""
    lines = [l for l in text.splitlines() if not l.startswith("relayout:")]
    lines = [re.sub(NUMBER + r" ?ms\b", "<t> ms", l) for l in lines]
    return "\n".join(re.sub(r"\b(\w*_ms|\w*gbps|pct_copy|gflops)=" + NUMBER, r"\1=<t>", l) for l in lines)


def run(args):
    out = os.path.abspath(args.out)
    manifest = json.load(open(os.path.join(out, "manifest.json")))
    todo = [p for p in manifest["programs"] if not args.only or p["name"] in args.only.split(",")]
    jobs = []
    for p in todo:
        os.makedirs(os.path.join(out, "bin", p["name"]), exist_ok=True)
        for variant in ["original"] + list(p["variants"]):
            if not args.variants or variant in args.variants.split(","):
                jobs.append((p, variant))
    start = time.time()

    def build(job):
        p, variant = job
        commands, cwd = build_command(out, p, variant)
        log = ""
        for cmd in commands:
            r = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True)
            log += " ".join(cmd) + "\n" + r.stdout + r.stderr
            if r.returncode != 0:
                break
        open(os.path.join(out, "bin", p["name"], variant + ".build.log"), "w").write(log)
        return p["name"], variant, r.returncode

    with concurrent.futures.ThreadPoolExecutor(os.cpu_count() or 4) as pool:
        failed = [(n, v) for n, v, rc in pool.map(build, jobs) if rc != 0]
    print("built %d programs in %.0f s, %d failed: %s" % (len(jobs), time.time() - start, len(failed), failed),
          flush=True)
    results_path = os.path.join(out, "results.json")
    results = json.load(open(results_path)) if os.path.exists(results_path) else []
    kerneltime = os.path.join(out, "lib", "librelayout_kerneltime.so")
    smi = shutil.which("nvidia-smi")
    gpu = subprocess.run([smi, "--query-gpu=name,driver_version", "--format=csv,noheader"], capture_output=True,
                         text=True).stdout.strip().splitlines() if smi else ["no GPU"]
    deadline = start + args.budget
    for p in todo:
        runs = {"original": args.runs, "sampled": 1, "traced": args.runs, "everywhere": 1, "checkpoints": 1,
                "full": 1}
        runs.update({v: args.runs for v in p["variants"] if v not in runs})  # the breakdown's, and made by hand
        # One unmeasured run first: a program's first launches can run much slower (kmeans' original
        # measured 2.2 ms in one session and 5.6 ms in another; under ncu its first launch took
        # 2.5 ms, the later ones 14 us), and they are most of a small program's time. Then the
        # variants take turns, so that a drift in the GPU's state falls on all of them.
        warm = os.path.join(out, "bin", p["name"], "original")
        if os.path.exists(warm):
            try:
                subprocess.run([warm] + p["args"], cwd=os.path.join(out, "bin", p["name"]), capture_output=True,
                               timeout=args.timeout)
            except subprocess.TimeoutExpired:
                pass
        turns = [(i, variant) for i in range(max(runs.values())) for variant, count in runs.items() if i < count]
        for i, variant in turns:
            if args.variants and variant not in args.variants.split(","):
                continue
            binary = os.path.join(out, "bin", p["name"], variant)
            if not os.path.exists(binary):
                continue
            if time.time() > deadline:
                print("budget spent: %s %s not run" % (p["name"], variant), flush=True)
                continue
            work = os.path.join(out, "runs", p["name"], "%s.%d" % (variant, i))
            shutil.rmtree(work, ignore_errors=True)
            os.makedirs(work)
            env = dict(os.environ)
            plain = variant == "original" or p["variants"][variant].get("rewritten")  # timed by injection
            if plain:
                env["CUDA_INJECTION64_PATH"] = kerneltime
                env["RELAYOUT_KERNEL_TIME"] = os.path.join(work, "kernel-time.json")
            else:
                env["RELAYOUT_PROFILE"] = os.path.join(work, "profile.json")
            t0 = time.time()
            try:
                r = subprocess.run([binary] + p["args"], cwd=work, env=env, capture_output=True, text=True,
                                   timeout=args.timeout)
                rc, text = r.returncode, r.stdout + r.stderr
            except subprocess.TimeoutExpired as e:
                partial = e.stdout or ""
                rc, text = None, partial.decode(errors="replace") if isinstance(partial, bytes) else partial
            wall = time.time() - t0
            open(os.path.join(work, "output.txt"), "w").write(text)
            ns, by_kernel = None, {}
            try:
                if plain:
                    for line in open(env["RELAYOUT_KERNEL_TIME"]):
                        process = json.loads(line)
                        for name, k in process.get("by_kernel", {}).items():
                            by_kernel[name] = by_kernel.get(name, 0) + k["ns"]
                        ns = (ns or 0) + process["kernel_ns"]
                else:
                    for k in json.load(open(env["RELAYOUT_PROFILE"]))["kernels"]:
                        by_kernel[k["mangled"]] = by_kernel.get(k["mangled"], 0) + k["total_ns"]
                    ns = sum(by_kernel.values())
            except (OSError, ValueError, KeyError):
                pass
            row = {"name": p["name"], "kind": p["kind"], "variant": variant, "run": i, "exit": rc,
                   "check": p["check"] in text, "kernel_ns": ns, "by_kernel": by_kernel, "wall_s": round(wall, 3),
                   "output": os.path.relpath(os.path.join(work, "output.txt"), out)}
            results = [r for r in results if not (r["name"] == p["name"] and r["variant"] == variant and
                                                  r["run"] == i)] + [row]
            print("%-16s %-10s %d exit=%s check=%s kernel_ms=%s wall=%.1fs" % (
                p["name"], variant, i, rc, row["check"], "-" if ns is None else "%.3f" % (ns / 1e6), wall),
                flush=True)
        json.dump(results, open(results_path, "w"), indent=1)
    json.dump({"gpu": gpu, "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d"),
               "rt_cuh": runtime_header_hash(),
               "nvcc": subprocess.run([nvcc(), "--version"], capture_output=True, text=True).stdout.strip()
               .splitlines()[-1]}, open(os.path.join(out, "machine.json"), "w"))


def header_note(manifest, machine):
    """Whether the runs were built with the runtime header of the commit the sources were prepared at."""
    prepared, built = manifest.get("rt_cuh"), machine.get("rt_cuh")
    if not prepared or not built:
        return " (runtime header not recorded)"
    if prepared == built:
        return " (its runtime header built the runs)"
    return " (the runs were built with another runtime header, sha256 %s…, than that commit's, %s…)" % (built, prepared)


def decisions(out, p, variant, mode, relayout, run=0, options=()):
    """Each struct's layout and clusters from `relayout analyze` on the profile of the variant's run
    (with more `analyze` options, if given)."""
    v = p["variants"].get(variant)
    profile = os.path.join(out, "runs", p["name"], "%s.%d" % (variant, run), "profile.json")
    if not v or not os.path.exists(profile):
        return None
    tag = "".join("." + re.sub(r"[^A-Za-z0-9=]+", "", o) for o in options)
    plan = os.path.join(out, "plans", "%s.%s.%d.%s%s.json" % (p["name"], variant, run, mode, tag))
    os.makedirs(os.path.dirname(plan), exist_ok=True)
    cmd = [relayout, "analyze", "--mode", mode, "--profile", profile, "-o", plan] + list(options)
    for s in v["sites"]:
        cmd += ["--sites", os.path.join(out, s)]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        return "error: " + r.stderr.strip().splitlines()[-1] if r.stderr.strip() else "error"
    return {s["name"]: [s["layout"], sorted(sorted(c["fields"]) for c in s["clusters"])]
            for s in json.load(open(plan))["structs"]}


def agreement(picks, reference):
    """Whether the picks of each run (None: no profile) equal the reference's: `yes` for all, `no`
    for none, else how many of the runs; `-` when nothing is compared."""
    compared = [run for run in picks if run is not None]
    if reference is None or not compared:
        return "-"
    same = sum(run == reference for run in compared)
    if same == len(compared):
        return "yes"
    return "no" if same == 0 else "%d of %d runs" % (same, len(compared))


def recorded_full_picks():
    """Full profiling's paper-mode picks per corpus program, as tests/corpus/recorded-picks.json holds
    them (every block of every launch classified), for runs without a `full` variant."""
    recorded = json.load(open(os.path.join(ROOT, "tests", "corpus", "recorded-picks.json")))
    return {name: entry["full"] for name, entry in recorded.items() if "full" in entry}


def kernel_costs(mine, count=3):
    """The `count` kernels whose traced time exceeds the original's most: (name, original ms, traced ms),
    medians over the runs that recorded kernels."""
    def medians(variant):
        per = {}
        for r in mine:
            if r["variant"] == variant and r["exit"] == 0:
                for name, ns in (r.get("by_kernel") or {}).items():
                    per.setdefault(name, []).append(ns)
        return {name: statistics.median(v) for name, v in per.items()}
    original, traced = medians("original"), medians("traced")
    if not original or not traced:
        return []
    demangle = shutil.which("c++filt") or shutil.which("llvm-cxxfilt-22")
    added = sorted(traced, key=lambda n: traced[n] - original.get(n, 0), reverse=True)[:count]
    names = added
    if demangle:
        names = subprocess.run([demangle], input="\n".join(added), capture_output=True, text=True).stdout.split("\n")
    # The function's name alone, without its parameters: enough to find it in the source.
    short = [re.sub(r"\(.*", "", n).split(" ")[-1] for n in names]
    return [(s, original.get(n, 0) / 1e6, traced[n] / 1e6) for s, n in zip(short, added)]


def geomean(values):
    values = [v for v in values if v]
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else None


def report(args):
    out = os.path.abspath(args.out)
    relayout = os.path.join(BUILD, "tool", "relayout")
    manifest = json.load(open(os.path.join(out, "manifest.json")))
    machine = json.load(open(os.path.join(out, "machine.json")))
    results = json.load(open(os.path.join(out, "results.json")))
    recorded = recorded_full_picks()
    rows, ratios = [], {kind: {"traced": [], "sampled": [], "everywhere": [], "checkpoints": []}
                        for kind in ("sample", "corpus")}
    notes, breakdown = [], []
    for p in manifest["programs"]:
        mine = [r for r in results if r["name"] == p["name"]]
        if not mine:
            continue

        def median_ns(variant):
            ns = [r["kernel_ns"] for r in mine if r["variant"] == variant and r["kernel_ns"] and r["exit"] == 0]
            return statistics.median(ns) if ns else None

        def output(variant, i=0):
            row = next((r for r in mine if r["variant"] == variant and r["run"] == i), None)
            return masked(open(os.path.join(out, row["output"])).read()) if row else None

        base, traced = median_ns("original"), median_ns("traced")
        if base and traced and traced > 1.5 * base:
            slowest = kernel_costs(mine)
            if slowest:
                notes.append("%s: the kernels that added most time, traced over original: %s" % (
                    p["name"], "; ".join("`%s` %.3f → %.3f ms" % k for k in slowest)))
        if any(median_ns(v) for v in ABLATIONS) and base:
            parts = [median_ns(v) for v in ("traced", "sampled", "nocall", "nohook")]
            breakdown.append("| %s | %s |" % (p["name"], " | ".join("-" if not ns else "%.2f×" % (ns / base)
                                                                    for ns in parts)))
        cells = {}
        for variant in ("sampled", "traced", "everywhere", "checkpoints", "full"):
            ns = median_ns(variant)
            cells[variant] = (ns, ns / base if ns and base else None)
            if variant in ratios[p["kind"]] and cells[variant][1]:
                ratios[p["kind"]][variant].append(cells[variant][1])
        def outputs(variant):
            return [output(variant, r["run"]) for r in mine if r["variant"] == variant]

        original = output("original")
        # Deterministic when every run of the original printed the same (a program whose sums
        # depend on atomics' order may differ in its third run only).
        deterministic = original is not None and all(o == original for o in outputs("original"))

        def printed_original(variant):
            return all(o == original for o in outputs(variant))

        equal, equal_checkpoints = printed_original("traced"), printed_original("checkpoints")
        checks = all(r["check"] and r["exit"] == 0 for r in mine if r["variant"] != "full")
        # Picks are compared for every traced run: a pick that changes from run to run is wrong in
        # some of them, which the first run alone may not show.
        traced_runs = sorted({r["run"] for r in mine if r["variant"] == "traced"})
        paper_traced = [decisions(out, p, "traced", "paper", relayout, i) for i in traced_runs]
        model_traced = [decisions(out, p, "traced", "model", relayout, i) for i in traced_runs]
        paper_full = decisions(out, p, "full", "paper", relayout)
        if paper_full is None:  # no full run here: the corpus's recorded full-profiling picks
            paper_full = recorded.get(p["name"])
        paper_checkpoints = decisions(out, p, "checkpoints", "paper", relayout)
        model_everywhere = decisions(out, p, "everywhere", "model", relayout)
        model_full = decisions(out, p, "full", "model", relayout)

        def differing(picks, reference, what):
            """A note naming the runs whose picks differ, with the first one's picks."""
            runs = [i for i, run in zip(traced_runs, picks) if run is not None and reference is not None and
                    run != reference]
            if runs:
                notes.append("%s: %s (traced run%s %s): %s, %s" % (
                    p["name"], what, "s" if len(runs) > 1 else "", ", ".join(map(str, runs)),
                    picks[traced_runs.index(runs[0])], reference))

        same_paper, same_model = agreement(paper_traced, paper_full), agreement(model_traced, model_everywhere)
        same_model_full = agreement(model_traced, model_full)
        same_checkpoints = agreement([paper_checkpoints], paper_full)
        differing(paper_traced, paper_full, "paper-mode picks differ from full profiling's")
        if same_checkpoints == "no":
            notes.append("%s: paper-mode picks with checkpoints differ: %s, full %s" % (
                p["name"], paper_checkpoints, paper_full))
        if paper_checkpoints is not None and not equal_checkpoints and deterministic:
            notes.append("%s: with checkpoints the output differs from the original's" % p["name"])
        differing(model_traced, model_everywhere, "model-mode picks differ from the hooks-everywhere profile's")
        differing(model_traced, model_full, "model-mode picks differ from full profiling's")

        def ms(ns):
            return "-" if ns is None else "%.1f" % (ns / 1e6)

        def ratio(r):
            return "-" if r is None else "%.2f×" % r

        rows.append("| %s | %s | %s | %s %s | %s %s | %s %s | %s %s | %s | %s | %s | %s | %s | %s |" % (
            p["name"], p["kind"], ms(base), ms(cells["sampled"][0]), ratio(cells["sampled"][1]),
            ms(cells["traced"][0]), ratio(cells["traced"][1]), ms(cells["everywhere"][0]),
            ratio(cells["everywhere"][1]), ms(cells["checkpoints"][0]), ratio(cells["checkpoints"][1]),
            "yes" if equal else ("no" if deterministic else "no (original varies)"),
            "pass" if checks else "FAIL", same_paper, same_model_full, same_model, same_checkpoints))
    lines = ["# What profiling costs: samples and corpus with plain clones (%s)" % machine["date"], "",
             "- GPU: %s; %s; relayout at %s%s." % ("; ".join(machine["gpu"]), machine["nvcc"], manifest["commit"],
                                                   header_note(manifest, machine)),
             "- Regenerated by `scripts/bench/overhead.py` (prepare, run on the GPU machine, report); "
             "this page: `%s`." % " ".join(["scripts/bench/overhead.py"] + sys.argv[1:]),
             "- Kernel time: the GPU time of every kernel of the run summed (CUPTI activity records), "
             "median of the runs; ratio to the original's in the same session.",
             "- Variants: *sampled* = `relayout instrument` defaults (one block in 8 of each kernel's first "
             "launch, from the grid's first quarter, plain clones elsewhere); *traced* = the same with `--trace` "
             "(what `optimize` runs); *everywhere* = `--trace --plain-clones=false --block-front 1` (hooks in "
             "every launch and block, classifying blocks spread over the grid, as before either default); "
             "*checkpoints* = `--trace --checkpoint-launches 8` (also the 8th, 16th, ... "
             "launch of each kernel, weighted); *full* = every block of every launch classified (for the picks).",
             "- Output equal: every traced run printed what the original printed (times masked).",
             "- Same picks: `relayout analyze --mode paper` on each traced run's profile against the full one "
             "(without a full run, a corpus program's recorded in tests/corpus/recorded-picks.json); "
             "`--mode model` (what `optimize` applies) on each traced run's profile against the full one and "
             "against the hooks-everywhere one; the last column, paper mode on the checkpoints profile against "
             "the full one. *k of n runs*: the picks of k traced runs out of n equal the reference's.", "",
             "| program | kind | original ms | sampled | traced | everywhere | checkpoints | output equal | checks | "
             "same picks (paper, vs full) | same picks (model, vs full) | same picks (model, vs everywhere) | "
             "same picks (checkpoints, vs full) |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|"] + rows + [""]
    for kind in ("sample", "corpus"):
        r = ratios[kind]
        if r["traced"]:
            others = "".join("; %.2f× %s" % (geomean(r[v]), label) for v, label in
                             (("sampled", "sampled"), ("everywhere", "with hooks everywhere"),
                              ("checkpoints", "with checkpoints")) if r[v])
            lines.append("- **%s: geometric mean %.2f× traced (%d programs), worst %.2f×%s.**" % (
                "Samples" if kind == "sample" else "Corpus", geomean(r["traced"]), len(r["traced"]),
                max(r["traced"]), others))
    if breakdown:
        lines += ["", "What the traced build's cost is made of, kernel time over the original's: *sampled* without the "
                  "trace, *nocall* with every hook's inline draw but no classifier call, *nohook* with no hooks "
                  "(the instrumented kernels' entry and plain copies as traced; `RELAYOUT_ABLATE` in rt.cuh):", "",
                  "| program | traced | sampled | nocall | nohook |", "|---|---|---|---|---|"] + breakdown
    if notes:
        lines += ["", "Differences:", ""] + ["- " + n for n in notes]
    # What a person wrote below the marker in an earlier version of the page stays.
    kept = ""
    if os.path.exists(args.o):
        old = open(args.o).read()
        if NOTES_MARKER in old:
            kept = old[old.index(NOTES_MARKER) + len(NOTES_MARKER):]
    lines += ["", NOTES_MARKER]
    open(args.o, "w").write("\n".join(lines) + (kept if kept else "\n"))
    print("\n".join(lines))


def picks(args):
    """Per program, whether each traced run's picks equal the full run's, in one or more prepared and
    run folders: how a change to the analysis moves the picks, on profiles already recorded."""
    relayout = os.path.join(BUILD, "tool", "relayout")
    options = shlex.split(args.analyze_options)
    folders = [os.path.abspath(o) for o in args.out]
    rows, whole = {}, dict.fromkeys(folders, 0)
    for out in folders:
        for p in json.load(open(os.path.join(out, "manifest.json")))["programs"]:
            full = decisions(out, p, "full", args.mode, relayout, 0, options)
            if full is None:
                continue
            runs = sorted(int(os.path.basename(r).split(".")[1])
                          for r in glob.glob(os.path.join(out, "runs", p["name"], "traced.*")))
            traced = [decisions(out, p, "traced", args.mode, relayout, i, options) for i in runs]
            rows.setdefault(p["name"], {})[out] = agreement(traced, full)
            whole[out] += rows[p["name"]][out] == "yes"
    print("| program | " + " | ".join(os.path.basename(out) for out in folders) + " |")
    print("|---|" + "---|" * len(folders))
    for name, row in rows.items():
        print("| %s | %s |" % (name, " | ".join(row.get(out, "-") for out in folders)))
    print("| programs whose every traced run equals full | %s |" % " | ".join(str(whole[out]) for out in folders))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = ap.add_subparsers(dest="command", required=True)
    a = sub.add_parser("prepare")
    a.add_argument("out")
    a.add_argument("--only")
    a.add_argument("--variants", help="only these instrumented variants (default: sampled,traced,everywhere,"
                   "checkpoints,full; also nocall,nohook)")
    a.add_argument("--options", default="", help="more `relayout instrument` options for every variant")
    a.add_argument("--add", action="store_true",
                   help="keep OUT's prepared programs and variants, adding these (e.g. `everywhere` for the "
                        "corpus only)")
    b = sub.add_parser("run")
    b.add_argument("out")
    b.add_argument("--runs", type=int, default=3)
    b.add_argument("--only")
    b.add_argument("--timeout", type=int, default=120)
    b.add_argument("--budget", type=int, default=540, help="seconds after which no run starts")
    b.add_argument("--variants", help="only these variants (original and those prepared)")
    c = sub.add_parser("report")
    c.add_argument("out")
    c.add_argument("-o", required=True)
    d = sub.add_parser("picks", help="compare each traced run's picks with the full run's, as a Markdown table")
    d.add_argument("out", nargs="+", help="prepared and run folders")
    d.add_argument("--mode", default="model", choices=["model", "paper"])
    d.add_argument("--analyze-options", default="", help="more `relayout analyze` options, e.g. --keep-tree-clusters")
    args = ap.parse_args()
    {"prepare": prepare, "run": run, "report": report, "picks": picks}[args.command](args)


if __name__ == "__main__":
    main()
