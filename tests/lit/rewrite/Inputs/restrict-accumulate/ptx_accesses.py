"""Global loads and stores of one kernel in two PTX files (the original's and the rewrite's), and
the stores inside its loops: a loop is a label followed, later in the kernel, by a branch back to it.

  ptx_accesses.py KERNEL ORIGINAL.ptx REWRITTEN.ptx [--no-loop-stores] [--no-more-loads]

Prints both counts; fails when the rewrite stores more than the original, stores inside a loop
(--no-loop-stores), or loads more than the original (--no-more-loads)."""
import re
import sys


def kernel_lines(path, kernel):
    lines = open(path).read().splitlines()
    entry = re.compile(r"\.entry\s+_Z\d+" + re.escape(kernel) + r"\w*\(")
    start = next((i for i, line in enumerate(lines) if entry.search(line)), None)
    if start is None:
        sys.exit(f"{path}: no kernel {kernel}")
    end = next((i for i in range(start + 1, len(lines)) if re.search(r"\.entry\s", lines[i])), len(lines))
    return lines[start:end]


def accesses(lines):
    loads = sum(1 for line in lines if re.search(r"\bld\.global", line))
    stores = [i for i, line in enumerate(lines) if re.search(r"\bst\.global", line)]
    labels = {m.group(1): i for i, line in enumerate(lines) if (m := re.match(r"^(\$\w+):", line.strip()))}
    in_loops = set()
    for i, line in enumerate(lines):
        m = re.search(r"\bbra(?:\.uni)?\s+(\$\w+);", line)
        if m and labels.get(m.group(1), len(lines)) < i:
            in_loops.update(s for s in stores if labels[m.group(1)] < s < i)
    return loads, len(stores), len(in_loops)


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    flags = {a for a in sys.argv[1:] if a.startswith("--")}
    kernel, original, rewritten = args
    o_loads, o_stores, o_loop = accesses(kernel_lines(original, kernel))
    r_loads, r_stores, r_loop = accesses(kernel_lines(rewritten, kernel))
    print(f"{kernel} original: {o_loads} ld.global, {o_stores} st.global, {o_loop} in loops")
    print(f"{kernel} rewrite: {r_loads} ld.global, {r_stores} st.global, {r_loop} in loops")
    failed = []
    if r_stores > o_stores:
        failed.append("the rewrite stores more than the original")
    if "--no-loop-stores" in flags and r_loop:
        failed.append("the rewrite stores inside a loop")
    if "--no-more-loads" in flags and r_loads > o_loads:
        failed.append("the rewrite loads more than the original")
    for why in failed:
        print(f"{kernel}: {why}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
