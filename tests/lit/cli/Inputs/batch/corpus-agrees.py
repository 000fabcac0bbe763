#!/usr/bin/env python3
"""corpus-agrees.py CORPUS_DIR: checks that CORPUS_DIR/batch.toml says what sources.txt and apps.txt
say of each application (sources, flags, run arguments), and that every application of sources.txt
is in the manifest or named in its comment as not listed. Prints one line per application; exit 1
on any disagreement."""
import os
import sys
import tomllib

corpus = sys.argv[1]
text = open(os.path.join(corpus, "batch.toml")).read()
manifest = {a["name"]: a for a in tomllib.loads(text)["app"]}
args = {}
for line in open(os.path.join(corpus, "apps.txt")):
    words = line.split()
    if words:
        args[words[0]] = " ".join(words[2:])
bad = 0
for line in open(os.path.join(corpus, "sources.txt")):
    if not line.strip() or line.startswith("#"):
        continue
    name, rest = line.split(None, 1)
    files, flags = rest.split(" -- ")
    app = manifest.pop(name, None)
    if app is None:
        listed = "#   " + name + " (" in text
        print("%s: %s" % (name, "not listed, said so" if listed else "MISSING from the manifest"))
        bad += not listed
        continue
    problems = [what for what, ok in (("sources", app.get("sources") == files.split()),
                                      ("flags", app.get("flags") == flags.split()),
                                      ("run", app.get("run", "") == args.get(name, ""))) if not ok]
    print("%s: %s" % (name, "agrees" if not problems else "DIFFERS in " + ", ".join(problems)))
    bad += bool(problems)
for name in manifest:
    print("%s: IN THE MANIFEST ONLY" % name)
    bad += 1
sys.exit(1 if bad else 0)
