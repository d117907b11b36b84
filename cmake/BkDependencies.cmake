# Third-party dependencies, all from Debian bookworm packages (see
# scripts/setup.sh). Each is wrapped so that module CMakeLists only name
# targets.

find_package(Threads REQUIRED)
find_package(absl CONFIG REQUIRED)
if(BK_TSAN AND NOT absl_DIR MATCHES "^${BK_TSAN_ABSL_PREFIX}")
  message(FATAL_ERROR "BK_TSAN: found Abseil in ${absl_DIR}, not the instrumented one")
endif()
find_package(Protobuf REQUIRED)
find_package(gRPC CONFIG REQUIRED)
find_package(RocksDB CONFIG REQUIRED)
find_package(prometheus-cpp CONFIG REQUIRED)
find_package(Catch2 2 REQUIRED)
find_package(nlohmann_json 3 REQUIRED)
find_package(yaml-cpp REQUIRED)
find_package(spdlog REQUIRED)

# ZooKeeper C client: Debian ships neither a CMake config nor a .pc file.
find_path(ZOOKEEPER_INCLUDE_DIR zookeeper/zookeeper.h REQUIRED)
find_library(ZOOKEEPER_MT_LIBRARY zookeeper_mt REQUIRED)
if(NOT TARGET bk::zookeeper)
  add_library(bk::zookeeper UNKNOWN IMPORTED)
  set_target_properties(bk::zookeeper PROPERTIES
    IMPORTED_LOCATION ${ZOOKEEPER_MT_LIBRARY}
    INTERFACE_INCLUDE_DIRECTORIES ${ZOOKEEPER_INCLUDE_DIR}
    # Without THREADED the synchronous API is not declared.
    INTERFACE_COMPILE_DEFINITIONS THREADED)
endif()

# libsystemd for sd_notify (optional: the daemon falls back to the plain
# NOTIFY_SOCKET protocol when it is missing).
find_package(PkgConfig)
if(PkgConfig_FOUND)
  pkg_check_modules(SYSTEMD IMPORTED_TARGET libsystemd)
endif()
