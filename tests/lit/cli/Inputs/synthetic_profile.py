#!/usr/bin/env python3
"""Writes a profile for a site map with made-up counters of a known access pattern, so that the
analysis can be tested without a GPU. Patterns (per warp execution of 32 lanes):
  coalesced: lanes read consecutive 32-byte structs (8 lines, 32 sectors, 118 near lanes)
  gather:    lanes read random structs (32 lines, 32 sectors, 0 near lanes)
  broadcast: lanes read one address (1 line, 1 sector, 32*31 near lanes, shared)
Usage: synthetic_profile.py SITES.json PATTERN [WARPS] [--sha SHA]"""
import json
import sys

ROWS = {
    "coalesced": lambda w: [w, 32 * w, 32 * w, 8 * w, 118 * w, 0],
    "gather": lambda w: [w, 32 * w, 32 * w, 32 * w, 0, 0],
    "broadcast": lambda w: [w, 32 * w, w, w, 32 * 31 * w, w],
}

args = [a for a in sys.argv[1:]]
sha = None
if "--sha" in args:
    i = args.index("--sha")
    sha = args[i + 1]
    del args[i:i + 2]
sites = json.load(open(args[0]))
pattern = args[1]
warps = int(args[2]) if len(args) > 2 else 1000
row = ROWS[pattern](warps)
profile = {
    "format": "relayout-profile", "version": 1,
    "device": "synthetic (" + pattern + ")", "created": "2026-01-01T00:00:00Z", "command": ["synthetic"],
    "kernels": [],
    "units": [{
        "source": sites["source"]["path"], "sha256": sha or sites["source"]["sha256"], "block_period": 1,
        "counter_columns": ["warp_execs", "lane_execs", "sectors", "lines", "near_lanes", "shared_warps"],
        "sites": [row for _ in sites["sites"]],
    }],
}
json.dump(profile, sys.stdout, indent=1)
