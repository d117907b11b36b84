#!/usr/bin/env bash
# Installs exactly the Debian bookworm packages this project needs to build,
# test and run. Idempotent: when every package is already installed it does
# nothing (no apt-get update, no network).
set -euo pipefail

PACKAGES=(
  # toolchain
  build-essential cmake ninja-build pkg-config ccache clang-format clang-tidy
  # the fuzz preset: clang with libFuzzer and the sanitizer runtimes
  clang libclang-rt-14-dev
  # libraries
  libgrpc++-dev protobuf-compiler-grpc libprotobuf-dev protobuf-compiler
  libabsl-dev librocksdb-dev prometheus-cpp-dev libzookeeper-mt-dev
  nlohmann-json3-dev libyaml-cpp-dev libspdlog-dev libfmt-dev libsystemd-dev
  catch2
  # servers the tests and the local cluster start themselves
  zookeeper default-jre-headless prometheus
  # tests generate TLS certificates; reports are drawn with gnuplot
  libcivetweb-dev openssl gnuplot-nox
  # deploy/ checks: systemd-analyze (systemd), manifests parsed with PyYAML
  systemd python3-yaml
)

missing=()
for p in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "setup: all ${#PACKAGES[@]} packages present"
  exit 0
fi

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
echo "setup: installing ${missing[*]}"
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
