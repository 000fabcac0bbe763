#!/usr/bin/env python3
"""Checks the lane executions a sampled profile counts for accesses every thread makes once.

usage: check_once_per_thread.py PROFILE.json... --sites SITES.json --function F --kernel K
                                --threads-per-block T [--within PCT]

Each site of function F (a site map's `function`), under kernel K, runs once per thread of K's
classifying blocks, so its lane executions (counters column 1, each classified execution at its
weight) are the classified blocks times T, exactly in expectation. Asserts that, within PCT percent
(default 10), in every profile given (several runs of one build: an estimate that is right only on
average is as good as a wrong one to whoever runs relayout once). Meant for a write after a loop
the warp leaves apart, which it then makes in several lane groups (the corpus's md_celllist,
`Atom::setForce` in `computeForces`). Prints PASS or the failed checks, exit status 0 or 1."""
import json
import sys

from check_common import take, verdict


def main(argv):
    args = argv[1:]
    sites_path = take(args, "--sites", str, None)
    function = take(args, "--function", str, None)
    kernel = take(args, "--kernel", str, None)
    threads = take(args, "--threads-per-block", int, None)
    within = take(args, "--within", float, 10.0) / 100
    if not args or None in (sites_path, function, kernel, threads):
        print(__doc__, file=sys.stderr)
        return 2
    sites = json.load(open(sites_path))
    ids = [s["id"] for s in sites["sites"] if s["function"] == function]
    failures = []
    if not ids:
        failures.append(f"{sites_path}: no site in {function}")
    for path in args:
        unit = json.load(open(path))["units"][0]
        blocks = {b["kernel"]: b["classified"] for b in unit.get("kernel_blocks", [])}
        if kernel not in blocks:
            failures.append(f"{path}: kernel {kernel} not in the profile ({sorted(blocks)})")
            continue
        expected = blocks[kernel] * threads
        rows = {r["site"]: r["counters"] for r in unit.get("kernel_sites", []) if r["kernel"] == kernel}
        for site in ids:
            lanes = rows.get(site, [0, 0])[1]
            if abs(lanes - expected) > within * expected:
                failures.append(f"{path}: site {site} ({function}) lane executions {lanes}, expected {expected} "
                                f"within {within:.0%}")
    return verdict(failures)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
