#!/usr/bin/env bash
# Configures and builds one preset (default: "default", into build/).
set -euo pipefail
cd "$(dirname "$0")/.."
preset="${1:-default}"
export CCACHE_BASEDIR="$PWD"
cmake --preset "$preset" >/dev/null
cmake --build --preset "$preset" -j "${BK_JOBS:-2}"
