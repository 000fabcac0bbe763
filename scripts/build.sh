#!/usr/bin/env bash
# Configures and builds relayout into ./build (or $RELAYOUT_BUILD_DIR).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${RELAYOUT_BUILD_DIR:-$root/build}
export PATH=/usr/local/cuda/bin:$PATH
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_CUDA_COMPILER=/usr/local/cuda/bin/nvcc >/dev/null
cmake --build "$build" -j "$(nproc)"
