"""What the GPU checks' scripts (check_*.py, run by scripts/runtime-checks.sh) share: their
command-line flags and their verdict."""


def take(args, flag, convert, default):
    """The value after `flag` in args, converted, both removed from args; `default` without it."""
    if flag not in args:
        return default
    i = args.index(flag)
    value = convert(args[i + 1])
    del args[i:i + 2]
    return value


def weighted_launches(first, launches, checkpoints):
    """The launches of a kernel run `launches` times that --sample-launches `first` and
    --checkpoint-launches `checkpoints` classify, each counted at its weight: the first ones at 1,
    then the checkpoints at ordinals 8 * first * 2^j (j < checkpoints), each for the launches since
    the one before (rt_common.h; growth aside)."""
    total, previous, ordinal = first, first, 8 * first
    for _ in range(checkpoints):
        if ordinal > launches:
            break
        total += ordinal - previous
        previous, ordinal = ordinal, ordinal * 2
    return total


def verdict(failures):
    """Prints PASS or the failed checks; returns the exit status."""
    if failures:
        print("FAIL\n  " + "\n  ".join(failures))
        return 1
    print("PASS")
    return 0
