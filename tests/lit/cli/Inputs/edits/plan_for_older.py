#!/usr/bin/env python3
"""Turns a plan and the site map it was made from into the plan of an older version of the source:
the source's sha256 becomes another, and every function with sites gets the token hash HASH in the
plan and in the site map (written to SITES_OUT), as if the instrumenter had computed it.
Usage: plan_for_older.py PLAN SITES HASH PLAN_OUT SITES_OUT"""
import json
import sys

plan_path, sites_path, digest, plan_out, sites_out = sys.argv[1:6]
plan = json.load(open(plan_path))
sites = json.load(open(sites_path))
with_sites = {s["function"] for s in sites["sites"]}
for f in sites["functions"]:
    f["hash"] = digest
for source in plan["sources"]:
    source["sha256"] = "0" * 64
    source["functions"] = [{"name": f["name"], "hash": digest} for f in sites["functions"] if f["name"] in with_sites]
json.dump(plan, open(plan_out, "w"), indent=1)
json.dump(sites, open(sites_out, "w"), indent=1)
