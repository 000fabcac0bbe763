#!/bin/sh
# slurm-stand-ins.sh FOLDER STAGE: batch-slurm.test's --slurm-before-submit. No GPU here, so the
# programs a prepared FOLDER holds become CPU-only stand-ins before Slurm runs them: for profiling,
# one that writes the profile the sample ships (the application named "fails" exits 1 instead);
# for verification, a relayout-verify that writes the verify.json it would.
set -eu
folder=$1
stage=$2
profile=$(cd "$(dirname "$0")/../../../../../samples/toy_stream/profiles" && pwd)/stream.h200.profile.json
case $stage in
profile)
  for program in "$folder"/*/program; do
    name=$(basename "$(dirname "$program")")
    if [ "$name" = fails ]; then
      printf '#!/bin/sh\necho "stand-in: %s fails" >&2\nexit 1\n' "$name" > "$program"
    else
      printf '#!/bin/sh\ncp "%s" "$RELAYOUT_PROFILE"\n' "$profile" > "$program"
    fi
  done
  ;;
verify)
  cat > "$folder/bin/relayout-verify" << 'STANDIN'
#!/bin/sh
while [ $# -gt 0 ]; do
  case $1 in -o) out=$2; shift ;; esac
  shift
done
mkdir -p "$out"
echo '{"format": "relayout-verify", "version": 1, "verdict": "equal", "speedup": {"kernel": {"median": 2.5, "min": 2.4, "max": 2.6}}}' > "$out/verify.json"
STANDIN
  ;;
*)
  echo "slurm-stand-ins.sh: no stage $stage" >&2
  exit 1
  ;;
esac
