#!/usr/bin/env bash
# The whole test suite: installs what it needs, builds, runs unit tests and lit tests
# (golden transformations, CLI errors, nvcc builds of every emitted file).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bash "$root/scripts/install-deps.sh" --tests
bash "$root/scripts/build.sh"
cd "${RELAYOUT_BUILD_DIR:-$root/build}"
ctest --output-on-failure -j 2
