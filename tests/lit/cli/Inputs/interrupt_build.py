#!/usr/bin/env python3
"""interrupt_build.py PROGRAM -- COMMAND...: runs COMMAND (a relayout command that builds with nvcc),
waits until one of its descendants is nvcc, sends relayout SIGINT, and waits for relayout to end.
Then it checks that no process relayout started is left, and that PROGRAM (the build's output) does
not exist, also a few seconds later (an orphaned nvcc would write it then). Prints what it saw and
exits 1 when a check fails."""
import os
import signal
import subprocess
import sys
import time


def children(pid):
    out = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                stat = f.read()
        except OSError:
            continue
        # pid (comm) state ppid ...: comm may hold spaces and parentheses.
        fields = stat[stat.rindex(")") + 2:].split()
        if int(fields[1]) == pid:
            out.append(int(entry))
    return out


def descendants(pid):
    found, todo = [], [pid]
    while todo:
        for child in children(todo.pop()):
            found.append(child)
            todo.append(child)
    return found


def name(pid):
    try:
        with open(f"/proc/{pid}/comm") as f:
            return f.read().strip()
    except OSError:
        return ""


def main():
    program = sys.argv[1]
    command = sys.argv[sys.argv.index("--") + 1:]
    relayout = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    deadline = time.time() + 120
    seen = []
    while time.time() < deadline and relayout.poll() is None:
        seen = descendants(relayout.pid)
        if any(name(p) in ("nvcc", "cicc", "ptxas", "cudafe++", "gcc", "cc1plus") for p in seen):
            break
        time.sleep(0.05)
    if relayout.poll() is not None:
        print("interrupt_build: relayout ended before nvcc started")
        return 1
    relayout.send_signal(signal.SIGINT)
    _, err = relayout.communicate(timeout=120)
    sys.stdout.write(err)
    print(f"interrupt_build: relayout exit {relayout.returncode}")
    left = [p for p in seen if os.path.exists(f"/proc/{p}") and name(p)]
    time.sleep(3)
    left = [p for p in left if os.path.exists(f"/proc/{p}")]
    ok = True
    if left:
        print("interrupt_build: still running: " + ", ".join(f"{p} ({name(p)})" for p in left))
        ok = False
    if os.path.exists(program):
        print(f"interrupt_build: {program} exists")
        ok = False
    print("interrupt_build: " + ("nothing left" if ok else "something left"))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
