#!/usr/bin/env python3
"""Turns the records of scripts/gpu/samples.sh into the Markdown results page and a short table.

Inputs (written by samples.sh into the logs folder): meta.txt (key=value lines), records.tsv (one
run a line: sample variant phase status kernel_ms gbps copy_gbps pct_copy gflops seconds reason
command) and notes.txt. Python 3 standard library only.
"""
import argparse
import os
import sys

FIELDS = ["sample", "variant", "phase", "status", "kernel_ms", "gbps", "copy_gbps", "pct_copy", "gflops",
          "seconds", "reason", "command"]


def read_meta(path):
    meta = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            key, sep, value = line.rstrip("\n").partition("=")
            if sep:
                meta[key] = value
    return meta


def read_records(path):
    records = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            cols = line.rstrip("\n").split("\t")
            if len(cols) < len(FIELDS):
                cols += [""] * (len(FIELDS) - len(cols))
            records.append(dict(zip(FIELDS, cols)))
    return records


def num(text):
    try:
        return float(text)
    except (TypeError, ValueError):
        return None


def fmt(value, spec, empty="—"):
    return empty if value is None else format(value, spec)


def build_rows(records):
    """One row per (sample, variant), in run order, with the tiny and default records."""
    rows, index = [], {}
    for r in records:
        key = (r["sample"], r["variant"])
        if key not in index:
            index[key] = {"sample": r["sample"], "variant": r["variant"], "tiny": None, "default": None}
            rows.append(index[key])
        index[key][r["phase"]] = r
    for row in rows:
        timed = row["default"] or row["tiny"]
        row["size"] = "default" if row["default"] else "tiny"
        row["ms"] = num(timed["kernel_ms"]) if timed else None
        row["gbps"] = num(timed["gbps"]) if timed else None
        row["pct"] = num(timed["pct_copy"]) if timed else None
        gflops = num(timed["gflops"]) if timed else None
        row["gflops"] = gflops if gflops else None  # 0 = the sample has no flop model
        aos = index.get((row["sample"], "aos"))
        aos_rec = aos and (aos["default"] or aos["tiny"])
        aos_ms = num(aos_rec["kernel_ms"]) if aos_rec and aos_rec["phase"] == (timed or {}).get("phase") else None
        row["speedup"] = aos_ms / row["ms"] if aos_ms and row["ms"] else None
    return rows


def status(rec):
    return rec["status"] if rec else "—"


def markdown(meta, rows, records, notes):
    gpu = meta.get("gpu_name", "unknown GPU")
    out = [f"# Bundled samples on {gpu}", ""]
    out.append(f"- Date: {meta.get('date', '?')}")
    count = meta.get("gpu_count", "").strip()
    driver = meta.get("driver", "").strip()
    extra = ", ".join(x for x in [f"{count} visible" if count else "", f"driver {driver}" if driver else ""] if x)
    out.append(f"- GPU (`nvidia-smi --query-gpu=name`): {gpu}" + (f" ({extra})" if extra else ""))
    out.append(f"- Command, from the repository root: `{meta.get('command', '?')}`")
    out.append(f"- Binaries: `{meta.get('bin_dir', '?')}`; each variant ran `timeout {meta.get('tiny_timeout', '?')} BIN "
               f"--tiny` (its check only), then `timeout {meta.get('run_timeout', '?')} BIN` (its default size); "
               f"budget {meta.get('budget', '?')} s (0 = none); the whole script took {meta.get('total_s', '?')} s.")
    out.append("")
    sizes = {row["size"] for row in rows}
    out.append("Time: the median of the sample's timed region (bench::medianMs, >= 5 repetitions after a warm-up)"
               + (" at the default size" if sizes == {"default"} else "; rows marked (tiny) come from --tiny runs")
               + ". vs aos: the AoS original's time over this variant's, same run. GB/s: the sample's byte model "
               "(fewest bytes a step must move, see its README) over the time; % copy: that as a share of the "
               "device-to-device copy bandwidth the same binary measured. GFLOPS: the sample's flop model "
               "(— where it has none). tiny / default: the check of each run (FAIL also for a crash, a "
               "timeout, a non-zero exit or no RESULT line; SKIP: not run, budget spent).")
    out.append("")
    out.append("| sample | variant | time (ms) | vs aos | GB/s | % copy | GFLOPS | tiny | default |")
    out.append("|---|---|---:|---:|---:|---:|---:|---|---|")
    for row in rows:
        ms = fmt(row["ms"], ".3f") + (" (tiny)" if row["size"] == "tiny" and row["ms"] is not None else "")
        out.append(f"| {row['sample']} | {row['variant']} | {ms} | {fmt(row['speedup'], '.2f')}"
                   f"{'×' if row['speedup'] is not None else ''} | {fmt(row['gbps'], '.1f')} | "
                   f"{fmt(row['pct'], '.1f')}{'%' if row['pct'] is not None else ''} | {fmt(row['gflops'], '.1f')} | "
                   f"{status(row['tiny'])} | {status(row['default'])} |")
    if not rows:
        out.append("| (no sample binaries found) | | | | | | | | |")
    copies = [num(r["copy_gbps"]) for r in records if num(r["copy_gbps"])]
    if copies:
        out += ["", f"Copy bandwidth measured by the runs (bench::copyBandwidthGBs, read + write): "
                    f"{min(copies):.0f}–{max(copies):.0f} GB/s."]
    if notes:
        out += ["", "## Notes", ""] + [f"- {n}" for n in notes]
    bad = [r for r in records if r["status"] != "PASS"]
    if bad:
        out += ["", "## Failures and skips", ""]
        for r in bad:
            out.append(f"- {r['sample']} {r['variant']} ({r['phase']}): {r['status']}"
                       f"{' — ' + r['reason'] if r['reason'] else ''}")
    out += ["", "## Runs", "", f"Every run's full output is in `{meta.get('log', '?')}` beside this page.", "",
            "| command | seconds | result |",
            "|---|---:|---|"]
    for r in records:
        out.append(f"| `{r['command']}` | {r['seconds']} | {r['status']}{' (' + r['reason'] + ')' if r['reason'] else ''} |")
    return "\n".join(out) + "\n"


def short_table(rows):
    lines = [f"{'sample':<15} {'variant':<8} {'ms':>10} {'vs aos':>7} {'%copy':>6} {'GFLOPS':>9}  tiny  default"]
    for row in rows:
        ms = fmt(row["ms"], ".3f", "-") + ("t" if row["size"] == "tiny" and row["ms"] is not None else "")
        lines.append(f"{row['sample']:<15} {row['variant']:<8} {ms:>10} {fmt(row['speedup'], '.2f', '-'):>7} "
                     f"{fmt(row['pct'], '.1f', '-'):>6} {fmt(row['gflops'], '.1f', '-'):>9}  "
                     f"{status(row['tiny']).replace('—', '-'):<5} {status(row['default']).replace('—', '-')}")
    return "\n".join(lines)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--meta", required=True)
    parser.add_argument("--records", required=True)
    parser.add_argument("--notes", default=None)
    parser.add_argument("--out", required=True)
    args = parser.parse_args()
    meta = read_meta(args.meta)
    records = read_records(args.records)
    notes = []
    if args.notes and os.path.exists(args.notes):
        with open(args.notes, encoding="utf-8") as f:
            notes = [(line.strip()[6:] if line.startswith("note: ") else line.strip()) for line in f if line.strip()]
    rows = build_rows(records)
    with open(args.out, "w", encoding="utf-8") as f:
        f.write(markdown(meta, rows, records, notes))
    print()
    print(short_table(rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
