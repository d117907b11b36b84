#!/usr/bin/env bash
# Builds the libFuzzer targets (preset `fuzz`: clang, -fsanitize=fuzzer,
# address,undefined) and runs each for a while against its committed corpus
# (test/fuzz/corpus/<target>/; new inputs go to build-fuzz/fuzz-corpus/).
#
#   scripts/fuzz.sh                  build, then 20 s per target
#   scripts/fuzz.sh --seconds 300    longer runs
#   scripts/fuzz.sh --no-build       run what is built (exit 77 if nothing)
#   scripts/fuzz.sh --only request   one target
#
# A crash leaves its input as build-fuzz/fuzz-artifacts/crash-*; add it to
# the target's corpus once fixed, so the regression tests keep it.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=20
build=1
only=""
build_dir=build-fuzz
while [[ $# -gt 0 ]]; do
  case "$1" in
    --seconds) seconds="$2"; shift 2 ;;
    --no-build) build=0; shift ;;
    --only) only="$2"; shift 2 ;;
    --build-dir) build_dir="$2"; shift 2 ;;
    *) echo "unknown argument $1" >&2; exit 2 ;;
  esac
done
targets="entry_decode journal_reader entry_log_reader config cluster_file scenario_yaml request"
[[ -n "$only" ]] && targets="$only"

if [[ $build == 1 ]]; then
  command -v clang++ >/dev/null || { echo "clang++ not found" >&2; exit 1; }
  # as scripts/build.sh; the compiles need it, not only the configure step
  export CCACHE_BASEDIR="$PWD" CCACHE_NOHASHDIR=true
  cmake --preset fuzz >/dev/null
  cmake --build --preset fuzz -j2 --target $(for t in $targets; do printf 'fuzz_%s ' "$t"; done)
fi

found=0
for t in $targets; do [[ -x "$build_dir/bin/fuzz_$t" ]] && found=1; done
if [[ $found == 0 ]]; then
  echo "no fuzz binaries in $build_dir (run scripts/fuzz.sh to build them): skipped"
  exit 77
fi

mkdir -p "$build_dir/fuzz-artifacts"
failed=0
for t in $targets; do
  bin="$build_dir/bin/fuzz_$t"
  [[ -x "$bin" ]] || { echo "fuzz_$t: not built, skipped"; continue; }
  work="$build_dir/fuzz-corpus/$t"
  mkdir -p "$work"
  echo "== fuzz_$t for ${seconds}s"
  if ! ASAN_OPTIONS=detect_leaks=0 "$bin" -max_total_time="$seconds" \
      -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
      -artifact_prefix="$build_dir/fuzz-artifacts/$t-" \
      "$work" "test/fuzz/corpus/$t" 2>&1 | tail -n 12; then
    echo "fuzz_$t FAILED"; failed=1
  fi
done
exit $failed
