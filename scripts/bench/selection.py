#!/usr/bin/env python3
"""Which layout relayout picks, measured: the selection benchmark of issue 60.

    selection.py run OUT [--manifests M,...] [--jobs N] [--repeat N]
                                    where relayout and a GPU are: `relayout batch` over each manifest
                                    (default: the samples and the corpus) with every layout relayout
                                    can emit timed against the original (--candidates-every-layout)
    selection.py prepare OUT        where relayout is, without a GPU: the profiling round
                                    (batch --prepare), then run OUT/*-prep/run.sh where the GPU is
    selection.py collect OUT        where relayout is: the profiles back, the candidates built
                                    (batch --collect); then run OUT/*-prep-verify/run.sh on the GPU
    selection.py finish OUT         the verification round back (batch --collect)
    selection.py report OUT -o FILE.md [--gpu NAME] [--command TEXT]
                                    the page: per program each layout's kernel time against the
                                    original, the model's pick (without measuring), the measured
                                    pick and what was applied
    selection.py rescore OUT [-o FILE.md] [--sites-from PREP]
                                    where relayout is, after `finish`: the model of this checkout
                                    run again on the round's profiles (analysis only, no GPU), its
                                    picks looked up among the layouts the round measured, and
                                    scored as `report` scores the round's own picks; with
                                    --sites-from, the site maps of a later `prepare` folder (the
                                    same sources instrumented by this checkout, for what newer
                                    site maps record) stand in for the round's

The report reads what the batch left (OUT/NAME/summary.json, apps/APP/selection.json) and checks
issue 60's targets: no applied rewrite slower than its original (beyond 2%), the applied layout
within 3% of the fastest measured one, the model's pick within 3% of the fastest on at least 90%.
"""

import argparse
import datetime
import glob
import json
import math
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BUILD = os.environ.get("RELAYOUT_BUILD_DIR") or os.path.join(ROOT, "build")
MANIFESTS = {"samples": "samples/batch.toml", "corpus": "tests/corpus/batch.toml"}


def relayout():
    return os.environ.get("RELAYOUT") or os.path.join(BUILD, "tool", "relayout")


def batch(args, manifest, out, *extra):
    command = [relayout(), "batch", os.path.join(ROOT, MANIFESTS[manifest]), "-o", os.path.join(out, manifest),
               "--candidates-every-layout"] + list(extra)
    print("selection.py:", " ".join(command), file=sys.stderr, flush=True)
    return subprocess.run(command).returncode


def manifests(args):
    return [m for m in args.manifests.split(",") if m]


def cmd_run(args):
    os.makedirs(args.out, exist_ok=True)
    for m in manifests(args):
        batch(args, m, args.out, "--jobs", str(args.jobs), "--force")
    return 0


def cmd_prepare(args):
    os.makedirs(args.out, exist_ok=True)
    for m in manifests(args):
        batch(args, m, args.out, "--jobs", str(args.jobs), "--prepare", os.path.join(args.out, m + "-prep"))
    return 0


def cmd_collect(args):
    for m in manifests(args):
        batch(args, m, args.out, "--jobs", str(args.jobs), "--collect", os.path.join(args.out, m + "-prep"))
    return 0


def cmd_finish(args):
    for m in manifests(args):
        batch(args, m, args.out, "--collect", os.path.join(args.out, m + "-prep-verify"))
    return 0


def read_json(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def programs(out, names):
    """Per application of each batch folder: its summary row and its selection."""
    rows = []
    for m in names:
        summary = read_json(os.path.join(out, m, "summary.json"))
        if not summary:
            continue
        for app in summary["applications"]:
            folder = app.get("folder") or os.path.join(out, m, "apps", app["name"])
            rows.append((m, app, read_json(os.path.join(folder, "selection.json"))))
    return rows


def write_page(args, lines):
    """The page's lines to -o FILE, or to standard output."""
    text = "\n".join(lines) + "\n"
    if args.output:
        with open(args.output, "w") as f:
            f.write(text)
    else:
        sys.stdout.write(text)
    return 0


def fmt_ms(v):
    return "–" if v is None else f"{v:.4g}"


def evaluate(selection):
    """The original's time, each candidate's, the fastest, the pick's and the applied one's."""
    original = selection["original"]["time_ms"]
    times = {"original": original}
    pick = "original"
    for c in selection["candidates"]:
        if c.get("outputs") == "equal" and c.get("time_ms"):
            times[c["name"]] = c["time_ms"]
        if c.get("pick"):
            pick = c["name"]
    fastest = min(times, key=times.get)
    applied = selection.get("applied") or "original"
    return original, times, fastest, pick, applied


def cmd_report(args):
    names = manifests(args)
    rows = programs(args.out, names)
    lines = []
    date = args.date or datetime.date.today().isoformat()
    lines.append(f"# Which layout relayout picks, and what measuring it changes: {args.gpu}\n")
    lines.append(f"- GPU: {args.gpu}; {date}; relayout at {args.commit or 'the commit that adds this page'}.")
    lines.append(f"- Command: `{args.command}`" if args.command else
                 "- Command: `scripts/bench/selection.py prepare|collect|finish|report OUT` (two round trips).")
    lines.append("- Kernel time: CUPTI's summed kernel durations of the whole run, median of the interleaved runs "
                 "of each program (relayout-verify); `(wall)` marks a program timed whole, where no kernel times "
                 "were measured. Every rewrite listed printed what the original printed "
                 "(the program's own check against its CPU reference included); `differs` marks one that did not.")
    lines.append("- Columns: each layout relayout can emit, timed against the original (soa and clustered on every "
                 "struct at once, and the other candidates the analysis ranked), the model's pick without "
                 "measuring (its time, and its loss against the fastest), the fastest measured, and what "
                 "relayout applied (a candidate only when faster than the original beyond the runs' spread).\n")
    lines.append("| set | program | original ms | candidates: kernel ms (speed-up) | model's pick | pick lost | "
                 "fastest | applied | applied lost | result |")
    lines.append("|---|---|---|---|---|---|---|---|---|---|")
    stats = {"programs": 0, "pick_ok": 0, "applied_ok": 0, "slower_applied": 0, "speedups": []}
    for m, app, sel in rows:
        if not sel or not sel.get("candidates") and sel.get("result") != "nothing":
            lines.append(f"| {m} | {app['name']} | – | – | – | – | – | – | – | {app['status']}: "
                         f"{app.get('why', '').replace('|', ' ')[:80]} |")
            continue
        if sel.get("result") == "nothing":
            lines.append(f"| {m} | {app['name']} | {fmt_ms(sel['original']['time_ms'])} | none | as written | 0% | "
                         f"original | original | 0% | {app['status']} |")
            continue
        original, times, fastest, pick, applied = evaluate(sel)
        cells = []
        for c in sel["candidates"]:
            if c.get("outputs") != "equal":
                cells.append(f"{c['name']} differs")
            else:
                cells.append(f"{c['name']} {fmt_ms(c.get('time_ms'))} ({original / c['time_ms']:.2f}×)"
                             if c.get("time_ms") else f"{c['name']} –")
        best = times[fastest]
        pick_time = times.get(pick, original)
        applied_time = times.get(applied, original)
        pick_lost = pick_time / best - 1
        applied_lost = applied_time / best - 1
        stats["programs"] += 1
        stats["pick_ok"] += pick_lost <= 0.03
        stats["applied_ok"] += applied_lost <= 0.03
        stats["slower_applied"] += applied_time > original * 1.02
        stats["speedups"].append(original / applied_time)
        # Without the kernel-time library beside relayout-verify, the programs are timed whole.
        wall = " (wall)" if sel.get("basis") == "wall" else ""
        lines.append(f"| {m} | {app['name']} | {fmt_ms(original)}{wall} | {'; '.join(cells)} | {pick} | "
                     f"{100 * pick_lost:.1f}% | {fastest} | {applied} | {100 * applied_lost:.1f}% | {app['status']} |")
    n = stats["programs"]
    if n:
        geo = math.exp(sum(math.log(s) for s in stats["speedups"]) / n)
        lines.append("")
        lines.append(f"Over the {n} programs measured:\n")
        lines.append(f"- applied rewrites slower than their original by more than 2%: **{stats['slower_applied']}** "
                     "(target 0);")
        lines.append(f"- applied layout within 3% of the fastest measured: **{stats['applied_ok']} of {n}** "
                     "(target: all);")
        lines.append(f"- the model's pick alone, without measuring, within 3% of the fastest: "
                     f"**{stats['pick_ok']} of {n}** ({100 * stats['pick_ok'] / n:.1f}%; target 90%);")
        lines.append(f"- kernel speed-up of what was applied over the original, geometric mean: **{geo:.2f}×**.")
    return write_page(args, lines)


def plan_layout(struct):
    """A plan struct's layout as rescore compares them: "soa transposed W" for a transposed SoA."""
    return f"soa transposed {struct['transpose']}" if struct.get("transpose") else struct["layout"]


def round_candidates(app):
    """The candidates the round built for one program (its candidates.json): per candidate its
    name, the layouts its plan asked, the layouts its rewrite applied and, per struct the rewrite
    refused, the layout asked."""
    out = []
    for c in (read_json(os.path.join(app, "candidates", "candidates.json")) or {}).get("candidates", []):
        plan = (read_json(os.path.join(app, c["plan"])) or {}).get("structs", [])
        asked = {s["name"]: plan_layout(s) for s in plan if s["layout"] != "aos"}
        applied = {k: v for k, v in c.get("layouts", {}).items() if v != "aos"}
        for struct, width in c.get("transposed", {}).items():
            applied[struct] = f"soa transposed {width}"
        out.append((c["name"], asked, applied, {struct: asked.get(struct) for struct in c.get("not_applied", {})}))
    return out


def measured_pick(layouts, candidates):
    """The round's candidate that stands for a plan's layouts: the one built from the same plan,
    else the one whose rewrite applied them once the layouts the rewriter refused in the round are
    taken out (those structs would stay as they are in the rewrite too); None if none."""
    if not layouts:
        return "original"
    for name, asked, _, _ in candidates:
        if asked == layouts:
            return name
    kept = dict(layouts)
    for _, _, _, refused in candidates:
        for struct, layout in refused.items():
            if kept.get(struct) == layout:
                kept.pop(struct)
    if not kept:
        return "original"
    return next((name for name, _, applied, _ in candidates if applied == kept), None)


def site_maps(out, manifest, name):
    app = os.path.join(out, manifest, "apps", name, "instrumented")
    return sorted(os.path.relpath(p, app) for p in glob.glob(os.path.join(app, "**", "*.sites.json"), recursive=True))


def same_sites(round_map, later_map):
    """Whether a later site map numbers the same sites as the round's (same source, same sites in
    order), so that the round's profile counters fit it."""
    a, b = read_json(round_map), read_json(later_map)
    def key(m):
        places = [(s["location"]["file"], s["location"]["line"], s["location"]["col"], s["struct"], s["field"])
                  for s in m["sites"]]
        return m["source"]["sha256"], places
    return key(a) == key(b)


def analyze_again(out, manifest, name, work, sites_from=None):
    """The current relayout's plan for one program of the round: its site maps (or those of
    `sites_from` where they number the same sites), the profile and trace of the profiling round,
    the PTX the round compiled. Returns {struct: layout}, or None where it cannot be analysed."""
    app = os.path.join(out, manifest, "apps", name)
    profile = os.path.join(out, manifest + "-prep", name, "profile.json")
    sites = [os.path.join(app, "instrumented", m) for m in site_maps(out, manifest, name)]
    if sites_from:
        later = [os.path.join(sites_from, manifest, "apps", name, "instrumented", m) for m in site_maps(out, manifest, name)]
        if not all(os.path.exists(p) and same_sites(s, p) for s, p in zip(sites, later)):
            return None
        sites = later
    if not os.path.exists(profile) or not sites:
        return None
    plan = os.path.join(work, name + ".plan.json")
    command = [relayout(), "analyze", "--profile", profile, "-o", plan] + ["--sites=" + s for s in sites]
    command += ["--ptx=" + p for p in sorted(glob.glob(os.path.join(app, "ptx", "*.ptx")))]
    if subprocess.run(command, capture_output=True).returncode != 0:
        return None
    return {s["name"]: plan_layout(s) for s in read_json(plan)["structs"] if s["layout"] != "aos"}


def cmd_rescore(args):
    """Scores the current model against a finished round: its pick per program, by the round's times."""
    names = manifests(args)
    lines = ["| set | program | round's pick | this model's pick | pick lost |", "|---|---|---|---|---|"]
    ok = scored = unmeasured = 0
    with tempfile.TemporaryDirectory() as work:
        for m, app, sel in programs(args.out, names):
            if not sel or not sel.get("candidates"):
                continue
            original, times, fastest, round_pick, _ = evaluate(sel)
            candidates = round_candidates(os.path.join(args.out, m, "apps", app["name"]))
            layouts = analyze_again(args.out, m, app["name"], work, args.sites_from)
            if layouts is None:
                lines.append(f"| {m} | {app['name']} | {round_pick} | (analysis failed, or site maps that do not fit) | – |")
                continue
            pick = measured_pick(layouts, candidates)
            if pick is None:
                unmeasured += 1
                spelled = ", ".join(f"{k} {v}" for k, v in sorted(layouts.items()))
                lines.append(f"| {m} | {app['name']} | {round_pick} | {spelled} (not measured) | – |")
                continue
            lost = times.get(pick, original) / times[fastest] - 1
            scored += 1
            ok += lost <= 0.03
            lines.append(f"| {m} | {app['name']} | {round_pick} | {pick} | {100 * lost:.1f}% |")
    lines.append("")
    lines.append(f"This model's pick within 3% of the fastest measured: **{ok} of {scored}** scored"
                 + (f"; {unmeasured} picks the round did not measure" if unmeasured else "") + ".")
    return write_page(args, lines)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command_name", required=True)
    for name, fn in [("run", cmd_run), ("prepare", cmd_prepare), ("collect", cmd_collect), ("finish", cmd_finish),
                     ("report", cmd_report), ("rescore", cmd_rescore)]:
        p = sub.add_parser(name)
        p.add_argument("out", help="the benchmark's folder (one batch folder per manifest inside)")
        p.add_argument("--manifests", default="samples,corpus", help="which: samples, corpus (comma-separated)")
        p.add_argument("--jobs", type=int, default=2)
        p.set_defaults(fn=fn)
        if name in ("report", "rescore"):
            p.add_argument("-o", dest="output", help="the page to write (default: standard output)")
        if name == "rescore":
            p.add_argument("--sites-from", help="a `prepare` folder of this checkout whose site maps stand in for the round's")
        if name == "report":
            p.add_argument("--gpu", default="the GPU", help="the GPU's name, as the page states it")
            p.add_argument("--date", help="the day the programs ran (default: today)")
            p.add_argument("--commit", help="relayout's commit")
            p.add_argument("--command", help="the commands, as the page states them")
    args = parser.parse_args()
    return args.fn(args)


if __name__ == "__main__":
    sys.exit(main())
