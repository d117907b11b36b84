#!/usr/bin/env bash
# Installs the client library (component bkclient) from BUILD_DIR into a
# temporary prefix, builds the consumer project CONSUMER_DIR against it with
# find_package(bkclient), and runs it.
#   scripts/check-client-install.sh build test/install/consumer
set -euo pipefail
build=$(cd "$1" && pwd)
consumer=$(cd "$2" && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/bkclient-install.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
cmake --install "$build" --component bkclient --prefix "$tmp/prefix" >/dev/null
cmake -S "$consumer" -B "$tmp/build" -G Ninja \
  -DCMAKE_PREFIX_PATH="$tmp/prefix" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$tmp/build" -j2 >/dev/null
"$tmp/build/consumer"
