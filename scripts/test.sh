#!/usr/bin/env bash
# The test command: installs what is missing, builds, runs the whole quick
# test suite (unit, integration, and the short mode of the fault suite).
# .ci/run calls exactly this.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
./scripts/build.sh default
ctest --preset default
