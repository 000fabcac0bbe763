#!/usr/bin/env python3
"""corpus-complete.py CORPUS_DIR: every application folder of CORPUS_DIR is in CORPUS_DIR/batch.toml (the
one list of the corpus's sources, flags and run arguments) or named in its comment as not listed, and
every application of the manifest has a folder. Prints one line per application; exit 1 on a gap."""
import os
import sys
import tomllib

corpus = sys.argv[1]
text = open(os.path.join(corpus, "batch.toml")).read()
listed = {a["name"]: a for a in tomllib.loads(text)["app"]}
bad = 0
for name in sorted(os.listdir(corpus)):
    if not os.path.isdir(os.path.join(corpus, name)):
        continue
    if name in listed:
        print("%s: listed" % name)
    elif "#   " + name + " (" in text:
        print("%s: not listed, said so" % name)
    else:
        print("%s: MISSING from the manifest" % name)
        bad += 1
for name, app in listed.items():
    if not os.path.isdir(os.path.join(corpus, app.get("dir", name))):
        print("%s: IN THE MANIFEST ONLY" % name)
        bad += 1
sys.exit(1 if bad else 0)
