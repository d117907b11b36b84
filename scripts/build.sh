#!/usr/bin/env bash
# Configures and builds one preset (default: "default", into build/).
set -euo pipefail
cd "$(dirname "$0")/.."
preset="${1:-default}"
# ccache: paths relative to the worktree, and the working directory left out
# of the hash (ccache hashes it by default when compiling with -g), so a
# clean clone or another worktree hits what this one compiled.
export CCACHE_BASEDIR="$PWD" CCACHE_NOHASHDIR=true
cmake --preset "$preset" >/dev/null
cmake --build --preset "$preset" -j "${BK_JOBS:-2}"
