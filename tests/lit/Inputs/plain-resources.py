#!/usr/bin/env python3
"""plain-resources.py ORIGINAL INSTRUMENTED: reads two `nvcc -Xptxas -v` logs (the original source
and its instrumented copy) and checks that every kernel of the original has a plain clone in the
instrumented build (its name with __rl_plain) using the same registers, barriers, shared memory,
stack and spills: launches and blocks that classify nothing then run at the original's occupancy.
A kernel the instrumented build has unchanged and without a clone (a library's, such as CUB's) is
reported as untouched.
Prints one line per kernel; exit status 1 on any difference or missing clone."""
import re
import sys


def kernels(path):
    out, current = {}, None
    for line in open(path, errors="replace"):
        m = re.search(r"Compiling entry function '([^']+)'", line)
        if m:
            current = m.group(1)
            out[current] = {}
            continue
        if current is None:
            continue
        for key, pattern in (("registers", r"Used (\d+) registers"), ("barriers", r"used (\d+) barriers"),
                             ("smem", r"(\d+) bytes smem"), ("stack", r"(\d+) bytes stack frame"),
                             ("spill stores", r"(\d+) bytes spill stores"), ("spill loads", r"(\d+) bytes spill loads")):
            m = re.search(pattern, line)
            if m:
                out[current][key] = int(m.group(1))
    return out


def plain_name(mangled):
    """_Z13computeForcesP4Bodyif -> _Z23computeForces__rl_plainP4Bodyif (the identifier's length grows)."""
    # The kernel's own name is the last identifier of the nested name (or the only one).
    nested = mangled.startswith("_ZN")
    pos, last = (3 if nested else 2), None
    while pos < len(mangled) and mangled[pos].isdigit():
        digits = re.match(r"\d+", mangled[pos:]).group(0)
        length = int(digits)
        last = (pos, len(digits), length)
        pos += len(digits) + length
        if not nested:
            break
    if last is None:
        return None
    start, ndigits, length = last
    name = mangled[start + ndigits:start + ndigits + length]
    return mangled[:start] + str(length + len("__rl_plain")) + name + "__rl_plain" + mangled[start + ndigits + length:]


def main():
    original, instrumented = kernels(sys.argv[1]), kernels(sys.argv[2])
    if not original:
        print("no kernel in " + sys.argv[1])
        return 1
    failed = 0
    for name, usage in sorted(original.items()):
        clone = plain_name(name)
        got = instrumented.get(clone)
        if got is None and instrumented.get(name) == usage:
            print("UNTOUCHED %s (not instrumented: a library's kernel)" % name)
        elif got is None:
            print("MISSING %s (no %s)" % (name, clone))
            failed += 1
        elif got != usage:
            print("DIFFERS %s: original %s, plain clone %s" % (name, usage, got))
            failed += 1
        else:
            print("SAME %s %s" % (name, " ".join("%s=%d" % kv for kv in sorted(usage.items()))))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
