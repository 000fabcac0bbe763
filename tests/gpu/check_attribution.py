#!/usr/bin/env python3
"""Checks a profile of tests/gpu/attribution.cu (instrumented by relayout, run on a GPU).

usage: check_attribution.py PROFILE.json SITES.json [--trace full|overflow] [--period P] [--launches L]
                            [--checkpoints K] [--approx PCT]

Asserts that both kernels' 40 launches were counted, that the helper's sites are split by calling
kernel with each kernel's own access pattern (perBody: 32 sectors and no shared address per warp
access; perBlock: one sector, every access shared), that the blocks each kernel ran and
classified match the sampling (--period: one block in P; --launches: the first L launches;
--checkpoints: K checkpoint launches, weighted), and,
with --trace, that the binary trace
(docs/formats.md) holds exactly the first launches of each kernel with the element index each lane
touched (perBody: its global thread index; perBlock: its block index); for `overflow`, that a full buffer kept whole warp
accesses only and counted the rest as dropped. --approx PCT: the
warp executions are estimates (a launch that shares out first executions among its warps, each
weighted), within PCT percent of the exact count; the per-access ratios stay exact. Prints PASS or
the failed checks, exit status 0 or 1."""
import json
import struct
import sys

from check_common import take, verdict, weighted_launches

LAUNCHES, BLOCKS_PER_LAUNCH, WARPS_PER_BLOCK = 40, (1 << 16) // 128, 128 // 32
WARPS_PER_LAUNCH = BLOCKS_PER_LAUNCH * WARPS_PER_BLOCK
failures = []


def check(condition, what):
    if not condition:
        failures.append(what)
    return condition


def main(argv):
    args = argv[1:]
    trace_mode = take(args, "--trace", str, None)
    period = take(args, "--period", int, 1)
    sampled_launches = take(args, "--launches", int, LAUNCHES)
    checkpoints = take(args, "--checkpoints", int, 0)
    approx = take(args, "--approx", lambda pct: float(pct) / 100, None)
    if len(args) != 2 or trace_mode not in (None, "full", "overflow"):
        print(__doc__, file=sys.stderr)
        return 2
    profile = json.load(open(args[0]))
    sites = json.load(open(args[1]))

    launches = {k["name"].split("(")[0]: k["launches"] for k in profile["kernels"]}
    for kernel in ("perBody", "perBlock"):
        check(launches.get(kernel) == LAUNCHES, f"{kernel}: {launches.get(kernel)} launches counted, expected {LAUNCHES}")

    check([k["name"] for k in sites["kernels"]] == ["perBody", "perBlock"], f"site map kernels: {sites['kernels']}")
    helper = [s["id"] for s in sites["sites"] if s["function"] == "weigh"]
    check(len(helper) == 2, f"weigh has {len(helper)} sites, expected 2 (m, x)")
    unit = profile["units"][0]
    split = {(r["site"], r["kernel"]): r["counters"] for r in unit.get("kernel_sites", [])}
    classified = weighted_launches(sampled_launches, LAUNCHES, checkpoints) * BLOCKS_PER_LAUNCH // period
    blocks = {k["kernel"]: (k["blocks"], k["classified"]) for k in unit.get("kernel_blocks", [])}
    for kernel in ("perBody", "perBlock"):
        check(blocks.get(kernel) == (LAUNCHES * BLOCKS_PER_LAUNCH, classified),
              f"{kernel}: blocks run/classified {blocks.get(kernel)}, expected {(LAUNCHES * BLOCKS_PER_LAUNCH, classified)}")
    execs = classified * WARPS_PER_BLOCK
    for site in helper:
        body, block = split.get((site, "perBody")), split.get((site, "perBlock"))
        if not check(body and block, f"site {site}: no per-kernel rows ({sorted(split)})"):
            continue
        if approx is None:
            check(body[0] == execs and block[0] == execs,
                  f"site {site}: warp executions {body[0]} / {block[0]}, expected {execs} each")
        else:
            check(abs(body[0] - execs) <= approx * execs and abs(block[0] - execs) <= approx * execs,
                  f"site {site}: warp executions {body[0]} / {block[0]}, expected {execs} each within {approx:.0%}")
        check(body[2] == 32 * body[0] and body[5] == 0, f"site {site} under perBody: {body}, expected 32 sectors, no sharing")
        check(block[2] == block[0] and block[5] == block[0], f"site {site} under perBlock: {block}, expected 1 sector, all shared")
        check(unit["sites"][site][0] == body[0] + block[0], f"site {site}: total {unit['sites'][site][0]} != sum of kernels")
        check((site, "?") not in split, f"site {site}: counted under an unknown kernel")

    if trace_mode:
        check_trace(profile, args[0], helper, trace_mode)
    return verdict(failures)


def check_trace(profile, profile_path, helper, mode):
    info = profile.get("trace")
    if not check(info is not None, "the profile has no trace object"):
        return
    folder = profile_path.rsplit("/", 1)[0] if "/" in profile_path else "."
    data = open(f"{folder}/{info['file']}", "rb").read()
    magic, version, size, records, dropped, period, per_kernel, capacity = struct.unpack_from("<8sIIQQIIQ", data, 0)
    check(magic == b"RLTRACE\0" and version == 1 and size == 32, f"header {magic} {version} {size}")
    check(len(data) == 64 + 32 * records, f"file of {len(data)} bytes for {records} records")
    check((records, dropped) == (info["records"], info["dropped"]), "header and profile disagree on records/dropped")
    kernels = [l["kernel"].split("(")[0] for l in info["launches"]]
    i = 0
    groups = 0
    warp_sites = {}  # (launch, warp) -> sites recorded, in order
    while i < records:
        addr, element, launch, warp, site, unit, field, lane, group = struct.unpack_from("<QQIIIBBBB", data, 64 + 32 * i)
        if not check(1 <= group <= 32 and i + group <= records, f"record {i}: group {group}"):
            return
        for j in range(group):
            a, e, l, w, s, u, f, ln, g = struct.unpack_from("<QQIIIBBBB", data, 64 + 32 * (i + j))
            if not check(g == group and l == launch and w == warp and s == site, f"record {i + j}: not part of group at {i}"):
                return
            if s in helper and kernels[l] == "perBody" and not check(e == w * 32 + ln, f"record {i + j}: element {e}, thread {w * 32 + ln}"):
                return
            if s in helper and kernels[l] == "perBlock" and not check(e == w // WARPS_PER_BLOCK, f"record {i + j}: element {e}, block {w // WARPS_PER_BLOCK}"):
                return
        warp_sites.setdefault((launch, warp), []).append(site)
        i += group
        groups += 1
    for kernel in ("perBody", "perBlock"):
        n = kernels.count(kernel)
        check(n <= per_kernel, f"{n} launches of {kernel} traced, limit {per_kernel}")
    if mode == "full":
        check(dropped == 0, f"{dropped} records dropped")
        check(sorted(kernels) == ["perBlock"] * per_kernel + ["perBody"] * per_kernel, f"traced launches {kernels}")
        # Each traced launch traces its first warps_per_launch warps (all of them before ABI 4).
        traced_warps = WARPS_PER_LAUNCH // period
        if info.get("warps_per_launch"):
            traced_warps = min(traced_warps, info["warps_per_launch"])
        expected = 2 * per_kernel * traced_warps * 32 * len(helper)
        check(records == expected, f"{records} records, expected {expected}")
        for (launch, warp), seen in warp_sites.items():  # each warp's accesses once, none twice
            if not check(sorted(seen) == sorted(helper), f"launch {launch} warp {warp}: sites {seen}"):
                break
    else:
        check(dropped > 0 and records <= capacity, f"overflow: {records} records, {dropped} dropped, capacity {capacity}")


if __name__ == "__main__":
    sys.exit(main(sys.argv))
