#!/usr/bin/env bash
# The test command: installs what is missing, builds, runs the whole quick
# test suite (unit, integration, and the short mode of the fault suite),
# then builds the libFuzzer targets (preset `fuzz`, clang, into build-fuzz)
# and runs each for a short time. .ci/run calls exactly this.
#
# Before the tests, every library is compiled once more with clang's
# -Wthread-safety under -Werror (preset `tsa`, -O0, into build-tsa): GCC
# ignores the ABSL_GUARDED_BY annotations, so this is what checks them.
# Measured on the 2-core machine: cold (no ccache) 320 CPU-seconds (about
# 2.7 min on two idle cores; 17 min while other builds shared them), warm
# (ccache) 7 CPU-seconds, 10-35 s of wall time.
#
# After them, ThreadSanitizer runs the suites that need no gRPC in the
# process (scripts/tsan.sh: it builds Debian's Abseil with -fsanitize=thread
# first). Measured on the 2-core machine: cold (no ccache) 560 CPU-seconds of
# building, about 5 min on two idle cores; warm 30 CPU-seconds, under a
# minute; the run itself about 1.5 min (45 CPU-seconds). BK_TSAN=0 leaves
# the step out.
#
# The fuzz step, measured on the 2-core machine: a cold build of only the
# fuzz targets (no ccache) 8.5 min, the runs about 1 min at 5 s a target.
# BK_FUZZ_SECONDS sets the time per target; 0 leaves the step out.
set -euo pipefail
cd "$(dirname "$0")/.."

# Each step's wall time, printed as it ends and again at the end, so a slow
# CI run says where its time went.
timings=()
step() {
  local name="$1" start=$SECONDS
  shift
  "$@"
  timings+=("$(printf '%-14s %5d s' "$name" $((SECONDS - start)))")
  echo "test.sh: $name took $((SECONDS - start)) s"
}
summary() {
  echo "test.sh: step times"
  printf '  %s\n' "${timings[@]}"
}
trap summary EXIT

step setup ./scripts/setup.sh
step build ./scripts/build.sh default
step build-tsa ./scripts/build.sh tsa
step ctest ctest --preset default
if [[ "${BK_TSAN:-1}" != 0 ]]; then
  step tsan ./scripts/tsan.sh
fi
fuzz_seconds="${BK_FUZZ_SECONDS:-5}"
if [[ "$fuzz_seconds" != 0 ]]; then
  step fuzz ./scripts/fuzz.sh --seconds "$fuzz_seconds"
fi
