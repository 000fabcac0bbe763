"""Writes a profile of the corpus's md_celllist as tests/gpu/check_once_per_thread.py reads it, from
its site map: 32 classifying blocks of 128 threads under computeForces and kick, and each site of
Atom::setForce and Atom::kick at one lane execution per thread, or with Atom::setForce's scaled by
FACTOR, as a sampled run would come (check-once-per-thread.test)."""
import json
import sys

CLASSIFIED, THREADS = 32, 128

sites = json.load(open(sys.argv[1]))
factor = float(sys.argv[3]) if len(sys.argv) > 3 else 1.0
rows = []
for site in sites["sites"]:
    if site["function"] == "Atom::setForce":
        lanes = CLASSIFIED * THREADS * factor
        rows.append({"site": site["id"], "kernel": "computeForces", "counters": [int(lanes / 2), int(lanes), 0, 0, 0, 0]})
    elif site["function"] == "Atom::kick":
        rows.append({"site": site["id"], "kernel": "kick", "counters": [CLASSIFIED * 4, CLASSIFIED * THREADS, 0, 0, 0, 0]})
blocks = [{"kernel": k, "blocks": 2500, "classified": CLASSIFIED} for k in ("computeForces", "kick")]
json.dump({"units": [{"kernel_blocks": blocks, "kernel_sites": rows}]}, open(sys.argv[2], "w"))
