#!/usr/bin/env bash
# The main job: relayout optimize on the bundled streaming sample. With a GPU it builds, runs and
# profiles the instrumented program; without one it uses the profile recorded on a GPU that ships
# with the sample, and says so. Results land in relayout-out/toy_stream/.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bash "$root/scripts/install-deps.sh"
bash "$root/scripts/build.sh"
cd "$root"
sample=samples/toy_stream
"${RELAYOUT_BUILD_DIR:-$root/build}/tool/relayout" optimize "$sample/stream.cu" -o relayout-out/toy_stream \
  --run "-n 1048576 -steps 5" --recorded-profile "$sample/profiles/stream.h200.profile.json" -- -O3 -arch=sm_90
echo
echo "relayout: the rewritten source is relayout-out/toy_stream/rewritten/stream.cu;"
echo "          the decision and its evidence are in relayout-out/toy_stream/report.md"
