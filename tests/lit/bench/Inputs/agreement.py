#!/usr/bin/env python3
"""Prints overhead.py's agreement() for the cases overhead-picks.test checks: the picks of several
traced runs against a reference (full profiling's)."""
import importlib.util
import sys

spec = importlib.util.spec_from_file_location("overhead", sys.argv[1])
overhead = importlib.util.module_from_spec(spec)
spec.loader.exec_module(overhead)

soa = {"Atom": ["soa", []]}
clustered = {"Atom": ["clustered", [["force_", "vel_"], ["pos_"]]]}
cases = {
    "all equal": ([clustered, clustered, clustered], clustered),
    "none equal": ([soa, soa], clustered),
    "one of three": ([soa, clustered, soa], clustered),
    "a run without a profile": ([clustered, None, clustered], clustered),
    "no reference": ([soa], None),
    "no profiles": ([None, None], clustered),
}
for name, (picks, reference) in cases.items():
    print("%s: %s" % (name, overhead.agreement(picks, reference)))
