#!/usr/bin/env python3
"""Writes a profile and its binary trace (docs/formats.md, "Trace") for a site map, so that model
mode can be tested without a GPU. Every warp runs every site once, in site order, lane k on one
element of the pattern; the counters say each site ran twice as often as the trace holds
(the trace sampled half of the launches).
  stream: warp w's lanes read elements 32w .. 32w+31
  gather: warp w's lanes read scattered elements (a fixed permutation)
Only the sites reached from KERNEL run (default: every site); the others get zero counters.
Usage: synthetic_trace.py SITES.json PATTERN OUT.profile.json [WARPS] [KERNEL]
Writes OUT.profile.json and OUT.profile.trace (the profile names the trace)."""
import json
import os
import struct
import sys

sites_path, pattern, out = sys.argv[1], sys.argv[2], sys.argv[3]
warps = int(sys.argv[4]) if len(sys.argv) > 4 else 10
kernel = sys.argv[5] if len(sys.argv) > 5 else None
sites = json.load(open(sites_path))
runs = [kernel is None or kernel in site["kernels"] for site in sites["sites"]]
structs = {s["name"]: s for s in sites["structs"]}
BASE = 0x7F0000000000

def element(w, k):
    if pattern == "stream":
        return 32 * w + k
    return (32 * w + k) * 2654435761 % 1000003

records = []
for w in range(warps):
    for site in sites["sites"]:
        if not runs[site["id"]]:
            continue
        s = structs[site["struct"]]
        field = [f["name"] for f in s["fields"]].index(site["field"])
        for k in range(32):
            e = element(w, k)
            records.append(struct.pack("<QQIIIBBBB", BASE + e * s["size"] + site["offset"], e, 0, w, site["id"],
                                       0, field, k, 32))

trace_path = os.path.splitext(out)[0] + ".trace"
with open(trace_path, "wb") as f:
    f.write(b"RLTRACE\0" + struct.pack("<IIQQIIQ", 1, 32, len(records), 0, 1, 2, 1 << 20) + bytes(16))
    f.write(b"".join(records))

w = 2 * warps  # the counters: twice the traced executions
row = [w, 32 * w, 32 * w, 8 * w, 118 * w, 0] if pattern == "stream" else [w, 32 * w, 32 * w, 32 * w, 0, 0]
profile = {
    "format": "relayout-profile", "version": 1,
    "device": "synthetic trace (" + pattern + ")", "created": "2026-01-01T00:00:00Z", "command": ["synthetic"],
    "kernels": [],
    "units": [{
        "source": sites["source"]["path"], "sha256": sites["source"]["sha256"], "block_period": 1,
        "counter_columns": ["warp_execs", "lane_execs", "sectors", "lines", "near_lanes", "shared_warps"],
        "sites": [row if run else [0] * 6 for run in runs],
    }],
    "trace": {"file": os.path.basename(trace_path), "records": len(records), "dropped": 0, "capacity": 1 << 20,
              "block_period": 1, "launches_per_kernel": 2,
              "launches": [{"kernel": (kernel or "step") + "(Particle*, int, float)", "grid_id": 1, "stream": 0}]},
}
json.dump(profile, open(out, "w"), indent=1)
