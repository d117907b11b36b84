#!/usr/bin/env bash
# ThreadSanitizer over the suites that run without gRPC in the process
# (label tsan: common, journal, storage, ledger state, GC's metadata filter,
# the in-process metadata store, placement, monitor; test/CMakeLists.txt).
#
#   scripts/tsan.sh              fetch, build, run
#   scripts/tsan.sh --no-run     fetch and build only
#
# Debian's Abseil is not built with TSan, so absl::Mutex is invisible to it:
# two threads incrementing a counter under an absl::MutexLock are reported
# as a race. This script therefore
#   1. unpacks Debian's source of exactly the installed Abseil
#      (scripts/setup.sh --abseil-source; adds deb-src to apt's sources once),
#   2. builds it with -fsanitize=thread into build-tsan/abseil/install (same
#      options and sonames as Debian's; ccache makes a rebuild cheap),
#   3. builds the suites with preset tsan (clang, -fsanitize=thread, an RPATH
#      to that Abseil: cmake/BkTsan.cmake) and runs them.
#
# What TSan cannot see: RocksDB, protobuf, gRPC, spdlog and libstdc++'s
# compiled parts are not instrumented. Their calls to pthread mutexes and
# condition variables are intercepted, so locks they take still order the
# accesses around them; their own reads and writes, and orderings they make
# with atomics inside their code, are invisible. A race between our code and
# a RocksDB background thread on memory RocksDB touches is not reported;
# races between our threads are, whatever RocksDB does meanwhile.
# Suppressions (third-party only, each explained): test/support/tsan_defaults.cc.
#
# The tsan test preset leaves out two journal-reader tests that scan tens of
# MiB byte by byte on one thread: nothing for TSan to see, and two thirds of
# its run time.
set -euo pipefail
cd "$(dirname "$0")/.."
run=1
[[ "${1:-}" == "--no-run" ]] && run=0

./scripts/setup.sh --abseil-source build-tsan/abseil/src
export CCACHE_BASEDIR="$PWD" CCACHE_NOHASHDIR=true  # as scripts/build.sh
src="$(ls -d build-tsan/abseil/src/abseil-*/ | head -n 1)"
launcher=()
command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
cmake -S "$src" -B build-tsan/abseil/build -G Ninja \
  -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_CXX_COMPILER=clang++ "${launcher[@]}" \
  -DCMAKE_CXX_STANDARD=17 -DABSL_PROPAGATE_CXX_STD=ON \
  -DBUILD_SHARED_LIBS=ON -DBUILD_TESTING=OFF \
  "-DCMAKE_CXX_FLAGS=-fsanitize=thread -fno-omit-frame-pointer" \
  "-DCMAKE_SHARED_LINKER_FLAGS=-fsanitize=thread" \
  -DCMAKE_INSTALL_PREFIX="$PWD/build-tsan/abseil/install" \
  -DCMAKE_INSTALL_LIBDIR=lib '-DCMAKE_INSTALL_RPATH=$ORIGIN' >/dev/null
echo "tsan: building the instrumented Abseil"
cmake --build build-tsan/abseil/build -j "${BK_JOBS:-2}" --target install \
  >build-tsan/abseil/build.log
cmake --preset tsan >/dev/null
cmake --build --preset tsan -j "${BK_JOBS:-2}"
[[ $run == 1 ]] && ctest --preset tsan
exit 0
