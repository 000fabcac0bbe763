#!/usr/bin/env python3
"""A model of relayout's per-execution sampling rule (runtime/include/relayout/rt.cuh,
__rl_budget_plan and __rl_budget_charge, at the defaults: --full-executions 16, no split, no time
budget) for one warp running a loop whose body has its loop hook and one site hook, to tell a bias
of the rule from one of its execution on the GPU (docs/results/overhead-h100.md).

    python3 scripts/bench/sampling_model.py [--warps N] [--seed S]

Prints the estimated warp and lane executions per warp for tests/gpu/loops.cu's ragged loop (32
iterations of 32 down to 1 lanes) and its 12-iteration loop, beside the exact ones."""
import argparse
import random

FULL_EXECUTIONS, MAX_SHIFT, OPEN = 16, 10, 0xFFFFFFFF


def one_warp(lanes_per_iteration, rng):
    """The site's estimated warp and lane executions for one warp: each hook's first execution is
    classified at weight 1, any other when its hash passes the gate and the period, at 2^shift."""
    seen, shift, gate, execs = set(), 0, OPEN, 0
    warps = lanes = 0
    for active in lanes_per_iteration:
        for hook in ("loop", "site"):
            h = rng.getrandbits(32)
            first = hook not in seen
            if not first and h > gate:
                continue  # the hook's inline test: no call
            if first:
                seen.add(hook)
                weight_shift = 0
            elif h <= OPEN >> shift:
                weight_shift = shift
            else:
                gate = OPEN >> shift  # a call that classifies nothing closes the gate
                continue
            if hook == "site":
                warps += 1 << weight_shift
                lanes += active << weight_shift
            execs += 1 if gate == OPEN else 1 << weight_shift
            shift = min(execs // FULL_EXECUTIONS, MAX_SHIFT)
            gate = OPEN >> shift
    return warps, lanes


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--warps", type=int, default=20000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    rng = random.Random(args.seed)
    for name, loop in (("ragged", [32 - k for k in range(32)]), ("12 iterations", [32] * 12)):
        warps = lanes = 0
        for _ in range(args.warps):
            w, l = one_warp(loop, rng)
            warps, lanes = warps + w, lanes + l
        print(f"{name}: {warps / args.warps:.2f} warp executions per warp (exact {len(loop)}), "
              f"{lanes / args.warps:.1f} lane executions (exact {sum(loop)})")


if __name__ == "__main__":
    main()
