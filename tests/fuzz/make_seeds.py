#!/usr/bin/env python3
"""Collects the fuzz targets' seed corpora from the files committed to the repository, so that no
large file is copied into tests/fuzz: ROOT OUT writes OUT/{profile,sitemap,plan,trace,analyze}/.
  profile: the samples' and projects' recorded profiles, the hand-written ones of the lit tests,
           and synthetic profiles (tests/lit/cli/Inputs/synthetic_*.py) of the seed site maps
  sitemap: the lit tests' site maps and tests/fuzz/seeds/sitemap/
  plan:    the lit tests' plans (*.plan.in, their @SHA@ filled in)
  trace:   the recorded traces (*.trace.xz), cut to their first groups, and the synthetic ones
  analyze: site map + profile (+ trace) joined by AnalyzeFuzzer's separator line"""
import glob
import json
import lzma
import os
import shutil
import struct
import subprocess
import sys
import tempfile

SEPARATOR = b"\n#relayout-fuzz-part#\n"  # FuzzSupport.h's kPartSeparator
TRACE_HEADER, TRACE_RECORD = 64, 32
SEED_RECORDS = 96  # records kept of a recorded trace: small inputs fuzz fast

root, out = sys.argv[1], sys.argv[2]
here = os.path.join(root, "tests", "fuzz")
inputs = os.path.join(root, "tests", "lit", "cli", "Inputs")
shutil.rmtree(out, ignore_errors=True)
for kind in ("profile", "sitemap", "plan", "trace", "analyze"):
    os.makedirs(os.path.join(out, kind))


def files(*patterns):
    return sorted(p for pattern in patterns for p in glob.glob(os.path.join(root, pattern)))


def write(kind, name, data):
    with open(os.path.join(out, kind, name), "wb") as f:
        f.write(data)


def read(path):
    with open(path, "rb") as f:
        return f.read()


def cut_trace(data):
    """The header and the first whole groups of at most SEED_RECORDS records, the header's count set."""
    count = 0
    while count < (len(data) - TRACE_HEADER) // TRACE_RECORD:
        group = data[TRACE_HEADER + count * TRACE_RECORD + 31] or 1
        if count + group > SEED_RECORDS:
            break
        count += group
    header = bytearray(data[:TRACE_HEADER])
    struct.pack_into("<Q", header, 16, count)
    return bytes(header) + data[TRACE_HEADER:TRACE_HEADER + count * TRACE_RECORD]


for path in files("samples/*/profiles/*.profile.json", "tests/projects/*/profiles/*.profile.json",
                  "tests/lit/cli/Inputs/*/*.profile.json"):
    write("profile", os.path.basename(path), read(path))
for path in files("samples/*/profiles/*.trace.xz", "tests/projects/*/profiles/*.trace.xz"):
    write("trace", os.path.basename(path)[:-3], cut_trace(lzma.decompress(read(path))))

site_maps = files("tests/lit/cli/Inputs/*/*.sites.json", "tests/fuzz/seeds/sitemap/*.sites.json")
for path in site_maps:
    write("sitemap", os.path.basename(path), read(path))

for path in files("tests/lit/*/Inputs/*.plan.in"):
    write("plan", os.path.basename(path)[:-3], read(path).replace(b"@SHA@", b"4" * 64))

# The lit tests' hand-written profiles with the site maps they were written for (edits/: the
# profile of nbody.cu and site maps of its edited versions).
edits = os.path.join(inputs, "edits")
for path in sorted(glob.glob(os.path.join(edits, "*.sites.json"))):
    write("analyze", os.path.basename(path)[:-11] + ".seed",
          read(path) + SEPARATOR + read(os.path.join(edits, "nbody.profile.json")))

# Synthetic profiles and traces of each seed site map, as the lit tests make them.
with tempfile.TemporaryDirectory() as tmp:
    for path in site_maps:
        name = os.path.basename(path)[:-11]
        for pattern in ("coalesced", "gather", "broadcast"):
            profile = subprocess.run([sys.executable, os.path.join(inputs, "synthetic_profile.py"), path, pattern, "100"],
                                     check=True, capture_output=True).stdout
            write("profile", f"{name}.{pattern}.profile.json", profile)
            write("analyze", f"{name}.{pattern}.seed", read(path) + SEPARATOR + profile)
        for pattern in ("stream", "gather"):
            traced = os.path.join(tmp, f"{name}.{pattern}.profile.json")
            subprocess.run([sys.executable, os.path.join(inputs, "synthetic_trace.py"), path, pattern, traced, "2"],
                           check=True, capture_output=True)
            profile, trace = read(traced), read(traced[:-5] + ".trace")
            write("profile", f"{name}.{pattern}.traced.profile.json", profile)
            write("trace", f"{name}.{pattern}.trace", trace)
            write("analyze", f"{name}.{pattern}.traced.seed", read(path) + SEPARATOR + profile + SEPARATOR + trace)

for kind in sorted(os.listdir(out)):
    print(f"{kind}: {len(os.listdir(os.path.join(out, kind)))} seeds")
