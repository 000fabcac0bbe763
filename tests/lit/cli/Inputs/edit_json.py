#!/usr/bin/env python3
"""Writes a copy of a JSON file with values changed at JSON pointers, to make inputs that break one
rule each. Usage: edit_json.py IN OUT EDIT...
  /a/0/b=VALUE   sets the member or element to VALUE (JSON text: 12, -1, 1.5, 1e308, "x", null, [...])
  /a/0/b=@TEXT   sets it to TEXT as written, unparsed (numbers JSON cannot hold exactly: 18446744073709551616)
  /a/0/b-        removes it
  /a/b+=VALUE    appends VALUE to the array /a/b"""
import json
import sys

RAW = "\x00raw{}\x00"


def walk(doc, pointer):
    parts = [p.replace("~1", "/").replace("~0", "~") for p in pointer.split("/")[1:]]
    parent = doc
    for part in parts[:-1]:
        parent = parent[int(part)] if isinstance(parent, list) else parent[part]
    last = parts[-1]
    return parent, int(last) if isinstance(parent, list) and last.isdigit() else last


doc = json.load(open(sys.argv[1]))
raws = []
for edit in sys.argv[3:]:
    if edit.endswith("-"):
        parent, key = walk(doc, edit[:-1])
        del parent[key]
        continue
    if "+=" in edit:
        pointer, value = edit.split("+=", 1)
        parent, key = walk(doc, pointer)
        parent[key].append(json.loads(value))
        continue
    pointer, value = edit.split("=", 1)
    parent, key = walk(doc, pointer)
    if value.startswith("@"):
        raws.append(value[1:])
        parent[key] = RAW.format(len(raws) - 1)
    else:
        parent[key] = json.loads(value)
text = json.dumps(doc, indent=1)
for i, raw in enumerate(raws):
    text = text.replace(json.dumps(RAW.format(i)), raw)
open(sys.argv[2], "w").write(text)
