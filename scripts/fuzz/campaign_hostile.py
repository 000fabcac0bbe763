"""Hostile inputs for mutation-campaign.py that are not mutations of a seed's bytes (issue 61):

  endless   an input that never ends or is larger than relayout reads: /dev/zero, /dev/urandom,
            a sparse file past the 1 GiB cap, given as profile, site map, trace or plan. Must be
            refused with one error naming it, in bounded time and memory.
  journal   a `.relayout-journal` planted in the folder a command writes to (docs/formats.md,
            "Output journal"): naming files outside the folder, absolute paths elsewhere, staged or
            backup names relayout never gives, hashes of content no file holds, a live pid,
            garbage. Relayout acts only on journals it could have written: every planted one is
            refused without touching a file; a journal consistent with what is on disk (a run
            killed after it replaced a file) is rolled back, restoring the file.
"""

import hashlib
import json
import os

from campaign_json import ACCEPT, REFUSE, Mutation

CAP = 1024 << 20  # relayout's read cap for its own files (core/Files.h)


def sha(data):
    return hashlib.sha256(data).hexdigest()


# ---- endless inputs -----------------------------------------------------------------------------

def endless_input(rng, work):
    """A path relayout must refuse to read whole, and the mutation naming it."""
    form = rng.choice(["zero", "urandom", "sparse"])
    if form == "zero":
        return Mutation("endless /dev/zero", REFUSE, b""), "/dev/zero"
    if form == "urandom":
        return Mutation("endless /dev/urandom", REFUSE, b""), "/dev/urandom"
    path = os.path.join(work, "huge.json")
    with open(path, "wb") as f:
        f.truncate(CAP + 1 + rng.randrange(2 * CAP))
    return Mutation("sparse file past the cap", REFUSE, b""), path


# ---- planted journals ---------------------------------------------------------------------------

OUTSIDE = b"outside the folder: relayout must never touch this\n"
BEFORE, AFTER = b"what the file held before\n", b"what an interrupted run wrote\n"


class PlantedFolder:
    """work/out holds notes.txt (what an interrupted run wrote), its backup notes.txt.old-abcdef
    (what it held before) and, unless the mutation says otherwise, a journal; work/outside.txt
    lies outside the folder."""

    def __init__(self, work):
        self.work, self.folder = work, os.path.join(work, "out")
        os.makedirs(self.folder)
        self.outside = os.path.join(work, "outside.txt")
        self.notes = os.path.join(self.folder, "notes.txt")
        self.backup = self.notes + ".old-abcdef"
        self.journal = os.path.join(self.folder, ".relayout-journal")
        for path, data in ((self.outside, OUTSIDE), (self.notes, AFTER), (self.backup, BEFORE)):
            with open(path, "wb") as f:
                f.write(data)
        self.before = self.snapshot()

    def snapshot(self):
        files = {}
        for root, dirs, names in os.walk(self.work):
            for n in names:
                p = os.path.join(root, n)
                files[p] = open(p, "rb").read() if os.path.isfile(p) and not os.path.islink(p) else None
        return files

    def entry(self, **changes):
        e = {"path": self.notes, "staged": self.notes + ".tmp-abcdef", "backup": self.backup,
             "written": sha(AFTER), "previous": sha(BEFORE)}
        e.update(changes)
        return e

    def write(self, doc=None, raw=None, pid=99999999, committed=False, files=None, folders=None):
        if raw is None:
            doc = doc or {"format": "relayout-journal", "version": 2, "pid": pid, "committed": committed,
                          "folders": folders or [], "files": files if files is not None else [self.entry()]}
            raw = json.dumps(doc).encode()
        with open(self.journal, "wb") as f:
            f.write(raw)


def planted_journal(rng, work):
    """Plants a journal in work/out; returns the mutation and the folder (for the oracle)."""
    p = PlantedFolder(work)
    kind = rng.randrange(10)
    if kind == 0:
        p.write(files=[p.entry(path=p.outside, staged=p.outside + ".tmp-abcdef", backup="", previous="",
                               written=sha(OUTSIDE))])
        return Mutation("journal: a file outside its folder", REFUSE, b""), p
    if kind == 1:
        rel = os.path.relpath(p.outside, p.folder)
        p.write(files=[p.entry(path=os.path.join(p.folder, rel), staged=os.path.join(p.folder, rel) + ".tmp-abcdef",
                               backup="", previous="", written=sha(OUTSIDE))])
        return Mutation("journal: ../ out of its folder", REFUSE, b""), p
    if kind == 2:
        other = os.path.join(p.folder, "mine.txt")
        with open(other, "wb") as f:
            f.write(b"the user's\n")
        p.before = p.snapshot()
        p.write(files=[p.entry(staged=other)])
        return Mutation("journal: a staged name relayout never gives", REFUSE, b""), p
    if kind == 3:
        p.write(files=[p.entry(backup=os.path.join(p.folder, "notes.bak"))])
        return Mutation("journal: a backup name relayout never gives", REFUSE, b""), p
    if kind == 4:
        p.write(files=[p.entry(written=sha(b"something else"), previous=sha(b"and something else"))])
        return Mutation("journal: a file changed since (user edit)", REFUSE, b""), p
    if kind == 5:
        p.write(pid=os.getpid())  # alive: another run's journal
        return Mutation("journal: a running process's", REFUSE, b""), p
    if kind == 6:
        p.write(raw=bytes(rng.randrange(256) for _ in range(rng.randrange(1, 200))))
        return Mutation("journal: garbage", REFUSE, b""), p
    if kind == 7:
        p.write(doc={"format": "relayout-journal", "version": rng.choice([1, 3, "2", None]), "pid": 99999999,
                     "committed": False, "folders": [], "files": [p.entry()]})
        return Mutation("journal: another version", REFUSE, b""), p
    if kind == 8:
        p.write(folders=[os.path.dirname(p.work)])
        return Mutation("journal: a folder outside to remove", REFUSE, b""), p
    p.write()
    return Mutation("journal: consistent (killed run)", ACCEPT, b""), p


def journal_verdict(m, p, rc):
    """Why the files after the run break relayout's promises, or None."""
    now = p.snapshot()
    if now.get(p.outside) != OUTSIDE:
        return "the file outside the folder was changed or removed"
    if m.expect == ACCEPT:
        if rc != 0:
            return None  # judged by the campaign (a wrong refusal)
        if now.get(p.notes) != BEFORE:
            return "the consistent journal was not rolled back: notes.txt does not hold what it held before"
        if p.backup in now or os.path.exists(p.journal):
            return "the rollback left its backup or the journal"
        return None
    changed = sorted(os.path.relpath(k, p.work) for k in set(p.before) | set(now)
                     if k in p.before and p.before.get(k) != now.get(k))
    if changed:
        return "a refused journal's folder changed: " + ", ".join(changed)
    return None
