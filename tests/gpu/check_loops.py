#!/usr/bin/env python3
"""Checks a profile of tests/gpu/loops.cu (instrumented by relayout with every block classifying).

usage: check_loops.py PROFILE.json SITES.json [--approx PCT] [--skip FUNCTION] [--launches N]

Without --approx the counts must be exact (no execution sampling); with it, each site's warp and
lane executions and each loop's count must lie within PCT percent of the exact ones (executions
drawn per iteration and weighted). Exact counts, over N launches (`loops N`, default 4) of 2048
warps of 32 lanes each:
gather's three sites 12 executions per warp, ragged's site and loop 32 per warp (528 lanes: lane l
runs l + 1 iterations), weigh's two sites 8 per warp, direct's two sites 1,000 per warp (a loop
run hooked for a prefix by a classifying warp, weighted by its trip count), walk's two sites and
loop 1,048 per warp (29,568 lanes: lane l runs 800 + 8 l iterations; a loop thinned by a
classifying warp). --skip FUNCTION leaves that function's sites
and loops out. Prints PASS or the failed checks."""
import json
import sys

from check_common import take, verdict

WARPS = (1 << 16) // 32
EXPECTED = {  # function: (warp executions per warp, lane executions per warp), per site and loop
    "gather": (12, 12 * 32),
    "ragged": (32, 528),
    "weigh": (8, 8 * 32),
    "helped": (8, 8 * 32),
    "direct": (1000, 1000 * 32),
    "walk": (1048, 29568),
}


def main(argv):
    args = argv[1:]
    approx = take(args, "--approx", lambda pct: float(pct) / 100, 0.0)
    skip = take(args, "--skip", str, None)
    launches = take(args, "--launches", int, 4)
    if len(args) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    profile, sites = json.load(open(args[0])), json.load(open(args[1]))
    unit = profile["units"][0]
    failures = []

    def near(got, exact, what):
        if abs(got - exact) > approx * exact:
            failures.append(f"{what}: {got}, expected {exact}" + (f" within {approx:.0%}" if approx else ""))

    count = {}
    for site in sites["sites"]:
        function = site["function"]
        count[function] = count.get(function, 0) + 1
        if function == skip:
            continue
        warps, lanes = EXPECTED[function]
        row = unit["sites"][site["id"]]
        what = f"site {site['id']} ({function} {site['member']})"
        near(row[0], launches * WARPS * warps, what + " warp executions")
        near(row[1], launches * WARPS * lanes, what + " lane executions")
    if count != {"gather": 3, "ragged": 1, "weigh": 2, "direct": 2, "walk": 2}:
        failures.append(f"sites per function {count}, expected gather 3, ragged 1, weigh 2, direct 2, walk 2")
    loops = sites["loops"]
    if len(loops) != 5 or len(unit.get("loops", [])) != 5:
        failures.append(f"{len(loops)} loops in the site map, {len(unit.get('loops', []))} counted, expected 5")
    else:
        for loop in (l for l in loops if l["function"] != skip):
            near(unit["loops"][loop["id"]], launches * WARPS * EXPECTED[loop["function"]][1],
                 f"loop {loop['id']} ({loop['function']}) lane iterations")
    return verdict(failures)


if __name__ == "__main__":
    sys.exit(main(sys.argv))
