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
  # It measures the first candidate 2.5x faster than the original, with equal outputs, and picks it.
  cat > "$folder/bin/relayout-verify" << 'STANDIN'
#!/bin/sh
while [ $# -gt 0 ]; do
  case $1 in
  -o) out=$2; shift ;;
  --candidate) name=${name:-${2%%=*}}; shift ;;
  esac
  shift
done
mkdir -p "$out"
speedup='{"kernel": {"median": 2.5, "min": 2.4, "max": 2.6}}'
echo "{\"format\": \"relayout-verify\", \"version\": 1, \"verdict\": \"equal\", \"speed\": \"faster\", \"speedup\": $speedup, \"chosen\": \"$name\", \"reported\": \"$name\", \"original\": {}, \"candidates\": [{\"name\": \"$name\", \"verdict\": \"equal\", \"speed\": \"faster\", \"margin\": 0.04, \"speedup\": $speedup}]}" > "$out/verify.json"
STANDIN
  ;;
*)
  echo "slurm-stand-ins.sh: no stage $stage" >&2
  exit 1
  ;;
esac
