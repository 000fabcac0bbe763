# Shared by the corpus scripts (scripts/corpus/*.sh, scripts/gpu/compare.sh and profile-corpus.sh):
# source it after setting `corpus` to tests/corpus.

# Builds the app in DIR as its own build does (make, or CMake into DIR/build), log in DIR/build.log,
# and copies its program (BINARY, relative to DIR) to DEST. Fails when either step does.
build_app() {
  local dir="$1" binary="$2" dest="$3"
  ( cd "$dir" && if [ -f Makefile ]; then make -s > build.log 2>&1; \
    else cmake -S . -B build -DCMAKE_BUILD_TYPE=Release > build.log 2>&1 && cmake --build build >> build.log 2>&1; fi ) \
    && cp "$dir/${binary#./}" "$dest"
}

# The program apps.txt names for APP (./name, or build/name for a CMake app).
app_binary() { awk -v a="$1" '$1 == a {print $2}' "$corpus/apps.txt"; }

# Splits APP's line of sources.txt into the arrays `files` and `flags`; fails when APP has none.
app_sources() {
  local line w seen=0 words
  line=$(awk -v a="$1" '$1 == a' "$corpus/sources.txt")
  [ -n "$line" ] || return 1
  read -r -a words <<< "${line#* }"
  files=() flags=()
  for w in "${words[@]}"; do
    if [ "$w" = "--" ]; then seen=1; elif [ $seen = 0 ]; then files+=("$w"); else flags+=("$w"); fi
  done
}

# A program's output with the times it prints masked: every number followed by "ms" is "<t> ms".
mask_times() { sed -E 's/[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)? ?ms\b/<t> ms/g' "$1"; }
