#!/usr/bin/env bash
# Installs exactly the Debian bookworm packages this project needs to build,
# test and run. Idempotent: when every package is already installed it does
# nothing (no apt-get update, no network).
#
#   scripts/setup.sh                        packages only
#   scripts/setup.sh --abseil-source DIR    also unpacks Debian's source of
#       the installed libabsl-dev into DIR/abseil-<version> (for the TSan
#       build, scripts/tsan.sh). Enables `deb-src` for the configured Debian
#       mirror when apt knows no such source yet (Types: in
#       /etc/apt/sources.list.d/debian.sources, or deb-src lines next to a
#       classic sources.list); downloads nothing when DIR already holds that
#       version.
set -euo pipefail

abseil_dir=""
while [[ $# -gt 0 ]]; do
  case "$1" in
    --abseil-source) abseil_dir="$2"; shift 2 ;;
    *) echo "setup: unknown argument $1" >&2; exit 2 ;;
  esac
done

PACKAGES=(
  # toolchain (dpkg-dev unpacks source packages for --abseil-source)
  build-essential cmake ninja-build pkg-config ccache clang-format clang-tidy
  dpkg-dev
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

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi

if [ ${#missing[@]} -eq 0 ]; then
  echo "setup: all ${#PACKAGES[@]} packages present"
else
  echo "setup: installing ${missing[*]}"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

[[ -z "$abseil_dir" ]] && exit 0

# Debian's source of exactly the installed Abseil, so that the instrumented
# build has the same options (absl::string_view is not std::string_view
# here) and the same sonames as the libraries gRPC was linked against.
version="$(dpkg-query -W -f='${Version}' libabsl-dev)"
upstream="${version%%-*}"
mkdir -p "$abseil_dir"
if [[ -f "$abseil_dir/abseil-$upstream/CMakeLists.txt" &&
      "$(cat "$abseil_dir/version" 2>/dev/null)" == "$version" ]]; then
  echo "setup: abseil $version source present in $abseil_dir"
  exit 0
fi
sources=/etc/apt/sources.list.d/debian.sources
if ! apt-cache showsrc "abseil=$version" 2>/dev/null | grep -q "^Version: $version$"; then
  if [[ -f "$sources" ]] && grep -q '^Types: deb$' "$sources"; then
    echo "setup: enabling deb-src in $sources"
    $SUDO sed -i 's/^Types: deb$/Types: deb deb-src/' "$sources"
  elif [[ ! -f "$sources" ]] && grep -qs '^deb ' /etc/apt/sources.list; then
    echo "setup: adding deb-src lines in /etc/apt/sources.list.d/bk-deb-src.list"
    grep '^deb ' /etc/apt/sources.list | sed 's/^deb /deb-src /' |
      $SUDO tee /etc/apt/sources.list.d/bk-deb-src.list >/dev/null
  fi
  $SUDO apt-get update -qq
fi
rm -rf "$abseil_dir/abseil-$upstream"
# As root, apt would warn that its sandbox user cannot write here.
sandbox=()
[ "$(id -u)" -eq 0 ] && sandbox=(-o APT::Sandbox::User=root)
(cd "$abseil_dir" && apt-get source -qq "${sandbox[@]}" "abseil=$version" >/dev/null)
echo "$version" > "$abseil_dir/version"
echo "setup: abseil $version source unpacked in $abseil_dir/abseil-$upstream"
