#!/usr/bin/env python3
"""Writes a gather profile (every lane alone on its sector) for a site map in which sites inside
loops ran FACTOR times as often as the others, so that the field access tree has Loop nodes of
different Counts. Usage: loop_profile.py SITES.json [FACTOR]"""
import json
import sys

sites = json.load(open(sys.argv[1]))
factor = int(sys.argv[2]) if len(sys.argv) > 2 else 64


def row(site):
    w = 1000 * (factor if site["loop"] is not None else 1)
    return [w, 32 * w, 32 * w, 32 * w, 0, 0]


json.dump({
    "format": "relayout-profile", "version": 1,
    "device": "synthetic (loops x%d)" % factor, "created": "2026-01-01T00:00:00Z", "command": ["synthetic"],
    "kernels": [],
    "units": [{
        "source": sites["source"]["path"], "sha256": sites["source"]["sha256"], "block_period": 1,
        "counter_columns": ["warp_execs", "lane_execs", "sectors", "lines", "near_lanes", "shared_warps"],
        "sites": [row(s) for s in sites["sites"]],
    }],
}, sys.stdout, indent=1)
