#!/bin/sh
# Stands in for nvcc: prints each argument on its own line, then exits with status 7.
for a in "$@"; do printf '[%s]\n' "$a"; done
exit 7
