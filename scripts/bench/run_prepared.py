#!/usr/bin/env python3
"""Runs a folder that `relayout batch --prepare` (or a `--collect` of profiles) wrote, its applications
spread over the GPUs of one machine: each GPU runs one application at a time (`run.sh NAME` with
CUDA_VISIBLE_DEVICES set), taking the next one when it is done, so a folder of many applications
finishes in about 1/N of the time. What each run writes stays where run.sh puts it.

    run_prepared.py FOLDER [--gpus N] [--per-gpu K] [--only NAME,...]

Needs only python3 and what run.sh needs (the CUDA driver, CUPTI); runs where the GPUs are.
"""

import argparse
import json
import os
import queue
import subprocess
import sys
import threading
import time


def visible_gpus():
    try:
        out = subprocess.run(["nvidia-smi", "-L"], capture_output=True, text=True, check=True).stdout
        return max(1, sum(1 for line in out.splitlines() if line.startswith("GPU ")))
    except (OSError, subprocess.CalledProcessError):
        return 1


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("folder")
    parser.add_argument("--gpus", type=int, default=0, help="GPUs to use (default: every one nvidia-smi lists)")
    parser.add_argument("--per-gpu", type=int, default=1,
                        help="applications at once on each GPU (default 1; more only where times do not matter, "
                             "as in a profiling round)")
    parser.add_argument("--only", default="", help="only these applications (comma-separated)")
    args = parser.parse_args()
    with open(os.path.join(args.folder, "stage.json")) as f:
        apps = json.load(f)["applications"]
    if args.only:
        wanted = set(args.only.split(","))
        apps = [a for a in apps if a in wanted]
    gpus = args.gpus or visible_gpus()
    work = queue.Queue()
    for a in apps:
        work.put(a)
    failed = []
    lock = threading.Lock()
    start = time.time()

    def worker(gpu):
        while True:
            try:
                app = work.get_nowait()
            except queue.Empty:
                return
            began = time.time()
            env = dict(os.environ, CUDA_VISIBLE_DEVICES=str(gpu))
            rc = subprocess.run(["sh", os.path.join(args.folder, "run.sh"), app], env=env,
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode
            with lock:
                if rc:
                    failed.append(app)
                print(f"run_prepared: {app}: GPU {gpu}, exit {rc}, {time.time() - began:.0f} s "
                      f"({time.time() - start:.0f} s in all)", flush=True)

    threads = [threading.Thread(target=worker, args=(g,)) for g in range(gpus) for _ in range(max(1, args.per_gpu))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    print(f"run_prepared: {len(apps) - len(failed)} of {len(apps)} applications exited 0 on {gpus} GPU(s) in "
          f"{time.time() - start:.0f} s" + (f"; failed: {', '.join(failed)}" if failed else ""), flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
