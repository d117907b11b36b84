# Helpers that give every first-party target the same flags.

# Warnings as errors on our own code only; generated code (protobuf, gRPC)
# is built in its own target without them. With clang the thread-safety
# analysis checks every ABSL_GUARDED_BY / ABSL_EXCLUSIVE_LOCKS_REQUIRED
# (GCC ignores the annotations); the `tsa` preset builds every library with
# it, and the fuzz preset's clang build gets it too.
function(bk_warnings target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Werror
    -Wno-missing-field-initializers)
  if(CMAKE_CXX_COMPILER_ID MATCHES "Clang")
    target_compile_options(${target} PRIVATE -Wthread-safety)
  endif()
endfunction()

# bk_library(NAME SOURCES ... [DEPS ...] [PUBLIC_INCLUDE dir])
function(bk_library name)
  cmake_parse_arguments(ARG "" "" "SOURCES;DEPS" ${ARGN})
  add_library(${name} STATIC ${ARG_SOURCES})
  target_include_directories(${name} PUBLIC ${CMAKE_SOURCE_DIR})
  target_link_libraries(${name} PUBLIC ${ARG_DEPS})
  bk_warnings(${name})
  set_property(GLOBAL APPEND PROPERTY BK_LIBRARIES ${name})
endfunction()

# bk_test(NAME SOURCES ... DEPS ... [LABELS ...])
# One Catch2 executable, its test cases discovered by CTest.
function(bk_test name)
  cmake_parse_arguments(ARG "" "" "SOURCES;DEPS;LABELS" ${ARGN})
  add_executable(${name} ${ARG_SOURCES})
  target_link_libraries(${name} PRIVATE ${ARG_DEPS} Catch2::Catch2WithMain)
  target_include_directories(${name} PRIVATE ${CMAKE_SOURCE_DIR})
  bk_warnings(${name})
  set(labels ${ARG_LABELS})
  if(NOT labels)
    set(labels unit)
  endif()
  # Suites that run without gRPC in the process carry the label tsan: the
  # tsan preset builds and runs those (test/CMakeLists.txt lists them).
  if(name IN_LIST BK_TSAN_SUITES)
    list(APPEND labels tsan)
  endif()
  if(BK_TSAN)
    target_sources(${name} PRIVATE ${CMAKE_SOURCE_DIR}/test/support/tsan_defaults.cc)
  endif()
  catch_discover_tests(${name}
    WORKING_DIRECTORY ${CMAKE_BINARY_DIR})
  # Catch2's discovery script splits a list given as PROPERTIES into loose
  # words, so labels are set by a script CTest runs after discovery, when
  # ${name}_TESTS holds the discovered test names.
  set(script ${CMAKE_CURRENT_BINARY_DIR}/${name}_labels.cmake)
  file(WRITE ${script}
    "if(DEFINED ${name}_TESTS)\n"
    "  set_tests_properties(\${${name}_TESTS} PROPERTIES LABELS \"${labels}\")\n"
    "endif()\n")
  set_property(DIRECTORY APPEND PROPERTY TEST_INCLUDE_FILES ${script})
endfunction()
