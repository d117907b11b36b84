# ThreadSanitizer build: preset `tsan`, built and run by scripts/tsan.sh.
#
# Debian's Abseil is not built with -fsanitize=thread, so TSan cannot see
# absl::Mutex and reports every access under one as a race. This build links
# an Abseil built with TSan from Debian's own source of the installed version
# (same options, same sonames), which scripts/tsan.sh puts in
# <build>/abseil/install. The executables carry an RPATH (DT_RPATH, not
# RUNPATH, so that it also applies to the libraries they load) to it: every
# libabsl_* in the process, including those that libgrpc++ needs, is the
# instrumented one.
#
# Still uninstrumented: RocksDB, protobuf, gRPC, spdlog, libstdc++'s compiled
# parts. TSan sees their pthread and atomic interceptor calls (so their locks
# order our accesses) but not their own memory accesses; see scripts/tsan.sh.
if(NOT CMAKE_CXX_COMPILER_ID MATCHES "Clang")
  message(FATAL_ERROR "BK_TSAN needs clang (the tsan preset sets it)")
endif()
set(BK_TSAN_ABSL_PREFIX "${CMAKE_BINARY_DIR}/abseil/install")
if(NOT EXISTS "${BK_TSAN_ABSL_PREFIX}/lib/cmake/absl/abslConfig.cmake")
  message(FATAL_ERROR
    "BK_TSAN needs Abseil built with -fsanitize=thread in "
    "${BK_TSAN_ABSL_PREFIX}: run scripts/tsan.sh, which fetches Debian's "
    "source of it and builds it there")
endif()
set(absl_DIR "${BK_TSAN_ABSL_PREFIX}/lib/cmake/absl" CACHE PATH
    "the instrumented Abseil" FORCE)
add_compile_options(-fsanitize=thread -fno-omit-frame-pointer)
add_link_options(-fsanitize=thread "LINKER:--disable-new-dtags"
                 "LINKER:-rpath,${BK_TSAN_ABSL_PREFIX}/lib")
