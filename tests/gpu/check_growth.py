#!/usr/bin/env python3
"""Checks a profile of tests/gpu/growth.cu (instrumented with --sample-blocks 1 --max-blocks 0
--sample-launches 1 --checkpoint-launches 8 --site-warps 0: every block of a classified launch,
every first execution).

usage: check_growth.py PROFILE.json

The kernel ran 3 launches of 16 blocks, 3 of 256 and 2 of 2048. Asserts that every block run was
counted (4,912, the plain copy's included), that exactly the first launch, the first launch of
each grown grid and the 8th launch (the first checkpoint, standing for launches 2 to 8: weight 7)
classified (16 + 256 + 2048 + 7 * 2048 blocks), and that each of drift's sites counts one
execution per warp of those blocks (4 per block), at the same weights. Prints PASS or the failed
checks, exit status 0 or 1."""
import json
import sys

from check_common import verdict


def main(argv):
    if len(argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    profile = json.load(open(argv[1]))
    unit = profile["units"][0]
    failures = []
    blocks = {k["kernel"]: (k["blocks"], k["classified"]) for k in unit.get("kernel_blocks", [])}
    expected = (3 * 16 + 3 * 256 + 2 * 2048, 16 + 256 + 2048 + 7 * 2048)
    if blocks.get("drift") != expected:
        failures.append(f"drift: blocks run/classified {blocks.get('drift')}, expected {expected}")
    warps = expected[1] * 4
    for site, counters in enumerate(unit["sites"]):
        if counters[0] != warps:
            failures.append(f"site {site}: {counters[0]} warp executions, expected {warps}")
    return verdict(failures)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
