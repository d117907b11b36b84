# Helpers that give every first-party target the same flags, and the
# include roots that make the module arrows a property of the build.
#
# Include roots
# -------------
# Code spells every header by its path from the repository root
# ("bookie/journal/journal.h", "placement/types.h"). The repository root
# itself is on no target's include path: that let any target include any
# header, whatever it linked. Instead each library owns one folder and
# exports an include root that holds that folder and nothing else, made at
# configure time in the build tree:
#
#   build/include/bk_journal/bookie/journal -> <source>/bookie/journal
#   build/include/bk_placement/placement    -> <source>/placement
#
# (symbolic links, so an edited header is seen at once and compiler
# messages name a path that leads to the file). "-Ibuild/include/bk_journal"
# resolves "bookie/journal/*.h" and no other header. The root is a PUBLIC
# include directory of its library, so a target sees exactly the headers of
# the libraries it links directly and of those they link PUBLIC; a PRIVATE
# link gives the linker the library and nothing to the includer. Header
# lookup goes through the roots in turn, so "bookie/journal/x.h" and
# "bookie/storage/y.h" resolve from two roots side by side.
#
# A folder whose subfolders are libraries of their own (bookie/ holds
# journal/, storage/, ...) is exported FLAT: a real directory with one link
# per header directly in the folder, found with a CONFIGURE_DEPENDS glob
# (a new header there re-runs the configure step on the next build).
#
# Why this works with CMake 3.25 + Ninja + ccache: links are plain files to
# the compiler; gcc and clang write the path as found (through the link)
# into the depfile, and Ninja stats it, which follows the link to the
# source's mtime; ccache hashes the headers' contents and, with
# CCACHE_BASEDIR at the worktree and CCACHE_NOHASHDIR (scripts/build.sh), sees the same relative
# -I paths in every worktree's build/, so hits carry across worktrees.
#
# Tests, fuzz targets and benchmarks see the test/ tree (their own helpers,
# build/include/bk_tests/test) plus the libraries they link.
#
# Libraries match folders: bk_library checks that every source lies in the
# library's folder (directly in it when FLAT) and that no other library
# claims the folder. The layering test (scripts/check_layering.py, CTest
# "module includes follow the layout table's arrows") checks the arrows of
# README.md's layout table on the includes themselves.

set(BK_INCLUDE_ROOTS ${CMAKE_BINARY_DIR}/include)

# Every library with its folder and its first-party links, one per line
# ("<target> <folder> <dep>..."), for the layering test's link check.
set(BK_LINKS_FILE ${CMAKE_BINARY_DIR}/bk_links.txt)
file(WRITE ${BK_LINKS_FILE} "")

# bk_record_links(TARGET FOLDER DEPS...): adds TARGET to BK_LINKS_FILE.
function(bk_record_links target folder)
  string(JOIN " " deps ${ARGN})
  file(APPEND ${BK_LINKS_FILE} "${target} ${folder} ${deps}\n")
endfunction()

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

# bk_include_root(TARGET FOLDER [FLAT]): makes TARGET's include root for
# FOLDER (relative to the repository root) and adds it as a PUBLIC include
# directory (INTERFACE for an INTERFACE library).
function(bk_include_root target folder)
  cmake_parse_arguments(ARG "FLAT" "" "" ${ARGN})
  set(root ${BK_INCLUDE_ROOTS}/${target})
  set(link ${root}/${folder})
  get_filename_component(parent ${link} DIRECTORY)
  file(MAKE_DIRECTORY ${parent})
  if(ARG_FLAT)
    if(IS_SYMLINK ${link})
      file(REMOVE ${link})
    endif()
    file(MAKE_DIRECTORY ${link})
    file(GLOB headers CONFIGURE_DEPENDS
      ${CMAKE_SOURCE_DIR}/${folder}/*.h ${CMAKE_SOURCE_DIR}/${folder}/*.inc)
    foreach(h ${headers})
      get_filename_component(name ${h} NAME)
      file(CREATE_LINK ${h} ${link}/${name} SYMBOLIC)
    endforeach()
  else()
    if(IS_DIRECTORY ${link} AND NOT IS_SYMLINK ${link})
      file(REMOVE_RECURSE ${link})
    endif()
    file(CREATE_LINK ${CMAKE_SOURCE_DIR}/${folder} ${link} SYMBOLIC)
  endif()
  get_target_property(type ${target} TYPE)
  if(type STREQUAL "INTERFACE_LIBRARY")
    target_include_directories(${target} INTERFACE ${root})
  else()
    target_include_directories(${target} PUBLIC ${root})
  endif()
endfunction()

# bk_library(NAME SOURCES ... [DEPS ...] [PRIVATE_DEPS ...] [FOLDER dir]
#            [FLAT])
# A static library of the sources of one folder (default: the folder of the
# calling CMakeLists.txt). DEPS are linked PUBLIC: what the library's
# headers include. PRIVATE_DEPS are what only its .cc files include; a
# target linking this library does not see their headers.
function(bk_library name)
  cmake_parse_arguments(ARG "FLAT" "FOLDER" "SOURCES;DEPS;PRIVATE_DEPS"
                        ${ARGN})
  set(folder ${ARG_FOLDER})
  if(NOT folder)
    file(RELATIVE_PATH folder ${CMAKE_SOURCE_DIR} ${CMAKE_CURRENT_SOURCE_DIR})
  endif()
  # One library per folder, and every source in it.
  get_property(owner GLOBAL PROPERTY BK_FOLDER_OWNER_${folder})
  if(owner)
    message(FATAL_ERROR "${name}: folder ${folder}/ is library ${owner}'s")
  endif()
  set_property(GLOBAL PROPERTY BK_FOLDER_OWNER_${folder} ${name})
  foreach(src ${ARG_SOURCES})
    get_filename_component(abs ${src} ABSOLUTE)
    file(RELATIVE_PATH rel ${CMAKE_SOURCE_DIR}/${folder} ${abs})
    get_filename_component(dir ${rel} DIRECTORY)
    if(rel MATCHES "^\\.\\./" OR (ARG_FLAT AND NOT dir STREQUAL ""))
      message(FATAL_ERROR
        "${name}: ${src} is not in its folder ${folder}/ (libraries match "
        "folders; see cmake/BkTargets.cmake)")
    endif()
  endforeach()
  add_library(${name} STATIC ${ARG_SOURCES})
  if(ARG_FLAT)
    bk_include_root(${name} ${folder} FLAT)
  else()
    bk_include_root(${name} ${folder})
  endif()
  target_link_libraries(${name} PUBLIC ${ARG_DEPS} PRIVATE ${ARG_PRIVATE_DEPS})
  bk_record_links(${name} ${folder} ${ARG_DEPS} ${ARG_PRIVATE_DEPS})
  bk_warnings(${name})
  set_property(GLOBAL APPEND PROPERTY BK_LIBRARIES ${name})
endfunction()

# The test/ tree as an include root: test helpers and test-only headers
# ("test/support/temp_dir.h", "test/unit/client/local_bookies.h").
add_library(bk_tests_root INTERFACE)
bk_include_root(bk_tests_root test)

# bk_test_includes(TARGET): a test, fuzz target or test helper sees test/.
function(bk_test_includes target)
  target_link_libraries(${target} PRIVATE bk_tests_root)
endfunction()

# bk_test_library(NAME SOURCES ... DEPS ...): test support code under test/
# (test/support holds several small ones). DEPS are PUBLIC.
function(bk_test_library name)
  cmake_parse_arguments(ARG "" "" "SOURCES;DEPS" ${ARGN})
  add_library(${name} STATIC ${ARG_SOURCES})
  target_link_libraries(${name} PUBLIC bk_tests_root ${ARG_DEPS})
  bk_warnings(${name})
endfunction()

# bk_test(NAME SOURCES ... DEPS ... [LABELS ...])
# One Catch2 executable, its test cases discovered by CTest. It sees test/
# and the headers of what it links.
function(bk_test name)
  cmake_parse_arguments(ARG "" "" "SOURCES;DEPS;LABELS" ${ARGN})
  add_executable(${name} ${ARG_SOURCES})
  target_link_libraries(${name} PRIVATE ${ARG_DEPS} Catch2::Catch2WithMain)
  bk_test_includes(${name})
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
