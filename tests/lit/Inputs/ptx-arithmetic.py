#!/usr/bin/env python3
"""ptx-arithmetic.py FILE.ptx [--original ORIGINAL.ptx [--plain-only]]: checks, in the PTX of an
instrumented unit (built with -lineinfo), that every kernel's instrumented path computes what its
plain copy computes: the same floating-point operations (with their rounding and types) on the
same source lines, counting the functions each calls, transitively. A hook that cut a multiply and
an add into separate blocks would turn an fma on a line into mul + add there, and show up here.
Counts are not compared: loops may unroll differently around the hooks without changing what one
iteration computes.
With --original (the same unit built from the original sources, same flags), every plain copy
must also be the original function's PTX, instruction for instruction (names, labels and
line-table lines aside): unsampled code runs the code as written, with its rounding, unrolling
and registers. --plain-only skips the first check: where the compiler attributes an instruction
to line 0 in one path and to a source line in the other, it reports a difference that is not one.
Prints one line per kernel; exit status 1 on a difference or when no kernel has a plain copy."""
import argparse
import difflib
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


def merged_copies(plain, instrumented):
    """The instrumented path's operations at line 0 of a file where the plain path has the same
    operation in that file: an instruction the compiler made of two (a loop invariant hoisted from
    a split loop's hooked body and its plain copy) takes line 0, the two lines merged. A multiply
    cut from its add would still show: the add alone on its line, or the fma missing."""
    return {(loc, op) for loc, op in instrumented - plain
            if loc and loc[1] == "0" and any(l and l[0] == loc[0] and o == op for l, o in plain)}


def where(loc):
    return "file %s line %s" % loc if loc else "no line"


def demangle(names):
    return subprocess.run(["c++filt"], input="\n".join(names), capture_output=True, text=True,
                          check=True).stdout.split("\n")


def code(lines, own_name):
    """A function's instructions without what differs between two builds of the same code: its
    own and its callees' (mangled) names, label and stack-frame numbers, line-table entries."""
    out, depth = [], 0
    for line in lines:
        text = line.split("//")[0].strip()
        if not text or text.startswith((".loc", "$L__tmp", "$L__func_end")):
            continue
        text = re.sub(r"\b_Z\w+", "NAME", text.replace(own_name, "SELF"))
        out.append(re.sub(r"(\$L__BB|__local_depot)\d+", r"\1N", text))
        depth += text.count("{") - text.count("}")
        if depth == 0 and "}" in text:
            break  # the body ends; what follows is the file's (line tables, other sections)
    return out


def compare_with_original(funcs, demangled, names, path):
    """Each plain copy against the function of the original build it copies: 'same code' or a
    'DIFFERENT code' line with the first instructions that differ."""
    original = functions(path)
    original_names = list(original)
    by_original = dict(zip(demangle(original_names), original_names))
    compared, different = 0, 0
    for pretty, mangled in zip(demangled, names):
        if "__rl_plain" not in pretty:
            continue
        name = pretty.replace("__rl_plain", "")
        source = by_original.get(name)
        if source is None:
            print("MISSING from the original build: %s" % name)
            different += 1
            continue
        compared += 1
        mine, theirs = code(funcs[mangled], mangled), code(original[source], source)
        if mine == theirs:
            print("same code: %s (%d instructions)" % (name, len(mine)))
            continue
        different += 1
        print("DIFFERENT code: %s (%d instructions, the original %d)" % (name, len(mine), len(theirs)))
        for line in list(difflib.unified_diff(theirs, mine, "original", "plain copy", lineterm="", n=1))[:12]:
            print("  " + line)
    return compared, different


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("ptx", help="the instrumented unit's PTX")
    parser.add_argument("--original", help="the original unit's PTX, built with the same flags")
    parser.add_argument("--plain-only", action="store_true",
                        help="only compare the plain copies with --original")
    args = parser.parse_args()
    if args.plain_only and not args.original:
        parser.error("--plain-only needs --original")
    original, plain_only = args.original, args.plain_only
    funcs = functions(args.ptx)
    names = list(funcs)
    demangled = demangle(names)
    by_demangled = dict(zip(demangled, names))
    compared, different = 0, 0
    for pretty, mangled in zip(demangled, names):
        if "__rl_plain" not in pretty or plain_only:
            continue
        hooked = by_demangled.get(pretty.replace("__rl_plain", ""))
        if hooked is None or not any(".entry" in l for l in open(args.ptx) if hooked in l):
            continue
        plain, instrumented = arithmetic(funcs, mangled, set()), arithmetic(funcs, hooked, set())
        compared += 1
        name = pretty.replace("__rl_plain", "")
        merged = merged_copies(plain, instrumented)
        if plain == instrumented - merged:
            print("same arithmetic: %s (%d operations by line%s)" %
                  (name, len(plain), ", %d merged to line 0" % len(merged) if merged else ""))
            continue
        different += 1
        print("DIFFERENT arithmetic: %s" % name)
        for loc, op in sorted(plain - instrumented, key=str):
            print("  only in the plain copy: %s at %s" % (op, where(loc)))
        for loc, op in sorted(instrumented - plain - merged, key=str):
            print("  only instrumented: %s at %s" % (op, where(loc)))
    if compared == 0 and not plain_only:
        print("no kernel with a plain copy in " + args.ptx)
    if original:
        copies, differing = compare_with_original(funcs, demangled, names, original)
        different += differing
        compared = copies if plain_only else compared and copies
    return 1 if different or compared == 0 else 0


if __name__ == "__main__":
    sys.exit(main())
