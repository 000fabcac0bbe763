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


def verdict(failures):
    """Prints PASS or the failed checks; returns the exit status."""
    if failures:
        print("FAIL\n  " + "\n  ".join(failures))
        return 1
    print("PASS")
    return 0
