#!/usr/bin/env python3
"""ptx-arithmetic.py FILE.ptx: checks, in the PTX of an instrumented unit (built with -lineinfo),
that every kernel's instrumented path computes what its plain copy computes: the same
floating-point operations (with their rounding and types) on the same source lines, counting the
functions each calls, transitively. A hook that cut a multiply and an add into separate blocks
would turn an fma on a line into mul + add there, and show up here. Counts are not compared:
loops may unroll differently around the hooks without changing what one iteration computes.
Prints one line per kernel; exit status 1 on a difference or when no kernel has a plain copy."""
import re
import subprocess
import sys

HEADER = re.compile(r"^\s*(?:\.visible\s+|\.weak\s+)?(?:\.entry|\.func)\s+(?:\([^)]*\)\s*)?([\w$]+)")
LOC = re.compile(r"^\s*\.loc\s+(\d+)\s+(\d+)\s+\d+")
ARITH = re.compile(r"^\s*(?:@!?%\w+\s+)?((?:fma|mul|add|sub|div|sqrt|rcp|rsqrt|neg|abs|min|max|cvt)"
                   r"\.[\w.]*f(?:16|32|64)\b[\w.]*)")
CALL = re.compile(r"^\s*(?:@!?%\w+\s+)?call(?:\.uni)?\s+(?:\([^)]*\),\s*)?([A-Za-z_$][\w$]*)")


def functions(path):
    out, name = {}, None
    for line in open(path):
        m = HEADER.match(line)
        if m:
            name = m.group(1)
            out[name] = []
        elif name:
            out[name].append(line)
    return out


def is_runtime(name):
    return "__rl_" in name and "__rl_plain" not in name


def arithmetic(funcs, name, seen):
    """{(file, line, operation)} of the function and of those it calls directly, transitively."""
    if name in seen or name not in funcs or is_runtime(name):
        return set()
    seen.add(name)
    out, loc = set(), None
    for line in funcs[name]:
        m = LOC.match(line)
        if m:
            loc = m.groups()
            continue
        m = ARITH.match(line)
        if m:
            out.add((loc, m.group(1)))
            continue
        m = CALL.match(line)
        if m:
            out |= arithmetic(funcs, m.group(1), seen)
    return out


def where(loc):
    return "file %s line %s" % loc if loc else "no line"


def main():
    funcs = functions(sys.argv[1])
    names = list(funcs)
    demangled = subprocess.run(["c++filt"], input="\n".join(names), capture_output=True, text=True,
                               check=True).stdout.split("\n")
    by_demangled = dict(zip(demangled, names))
    compared, different = 0, 0
    for pretty, mangled in zip(demangled, names):
        if "__rl_plain" not in pretty:
            continue
        hooked = by_demangled.get(pretty.replace("__rl_plain", ""))
        if hooked is None or not any(".entry" in l for l in open(sys.argv[1]) if hooked in l):
            continue
        plain, instrumented = arithmetic(funcs, mangled, set()), arithmetic(funcs, hooked, set())
        compared += 1
        name = pretty.replace("__rl_plain", "")
        if plain == instrumented:
            print("same arithmetic: %s (%d operations by line)" % (name, len(plain)))
            continue
        different += 1
        print("DIFFERENT arithmetic: %s" % name)
        for loc, op in sorted(plain - instrumented, key=str):
            print("  only in the plain copy: %s at %s" % (op, where(loc)))
        for loc, op in sorted(instrumented - plain, key=str):
            print("  only instrumented: %s at %s" % (op, where(loc)))
    if compared == 0:
        print("no kernel with a plain copy in " + sys.argv[1])
    return 1 if different or compared == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
