#!/usr/bin/env bash
# Installs what relayout needs on Debian 12 (bookworm). clang-22 comes from bookworm-security.
# CUDA 13 with CUPTI is expected at /usr/local/cuda (NVIDIA's installer; not an apt package here).
#   install-deps.sh           what building and running relayout needs (the demo, scripts/main.sh)
#   install-deps.sh --tests   and what the test suite needs besides (scripts/test.sh)
set -euo pipefail
tests=0
[ "${1-}" = "--tests" ] && tests=1
# The build: Clang/LLVM's libraries and tools, the formats' and reports' libraries, GoogleTest, lit
# and FileCheck (llvm-22-tools; the build configures the tests too).
packages=(clang-22 libclang-22-dev llvm-22-dev llvm-22-tools nlohmann-json3-dev libvalijson-dev liblzma-dev libfmt-dev libgtest-dev
          libtomlplusplus-dev libkainjow-mustache-dev cmake ninja-build g++ python3 diffutils patch xz-utils)
if ((tests)); then
  # libclang-rt-22-dev: libFuzzer and the sanitizers' runtimes, for the asan and fuzz presets.
  packages+=(libclang-rt-22-dev)
  # slurm-wlm, munge: batch-slurm.test starts a single-node Slurm of its own (the packages' services are not used).
  packages+=(slurm-wlm munge)
  # chromium renders report.html headless in a lit test (REQUIRES: chromium, skipped without it).
  packages+=(chromium)
  # Open MPI: the MPI corpus program builds with mpicxx as nvcc's host compiler (REQUIRES: mpi).
  packages+=(libopenmpi-dev openmpi-bin)
fi
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  sudo=""; [ "$(id -u)" -eq 0 ] || sudo="sudo"
  echo "relayout: installing ${missing[*]}"
  # The test packages' own services (munge, slurmd, slurmctld) are not wanted, and slurmd without a
  # configuration would fail the installation: a policy-rc.d of ours, for this install only, keeps
  # them stopped where the system has none. The demo's packages start no services.
  policy=/usr/sbin/policy-rc.d
  if ((tests)) && [ ! -e "$policy" ]; then
    printf '#!/bin/sh\nexit 101\n' | $sudo tee "$policy" >/dev/null && $sudo chmod +x "$policy"
    trap '$sudo rm -f "$policy"' EXIT
  fi
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
if [ ! -x /usr/local/cuda/bin/nvcc ] || ! ls /usr/local/cuda/targets/x86_64-linux/lib/libcupti.so* >/dev/null 2>&1; then
  echo "relayout: error: CUDA 13 with CUPTI is needed at /usr/local/cuda" >&2
  exit 1
fi
