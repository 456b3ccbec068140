# How a fresh build is kept short (issue 27): scripts/run and scripts/test turn these on; a plain
# `cmake -S . -B build` leaves them off, so an edit-compile loop recompiles one file, and a file
# that forgets an #include still fails to build there.
#
#   -DCMAKE_UNITY_BUILD=ON   CMake's unity build: each library's and the tests' .cpp files are
#                            compiled in batches (one translation unit per batch), so the heavy
#                            headers (fmt and nlohmann/json are header-only, Catch2, CLI11) are
#                            parsed, and their inline functions compiled, once per batch instead
#                            of once per file.
#   -DGEMMSCOPE_PCH=ON       precompiled headers: the standard and third-party headers most files
#                            include are parsed once per target.
#   ccache                   scripts/run and scripts/test use it when `ccache` is on PATH
#                            (CMAKE_CXX_COMPILER_LAUNCHER).
#
# In a batch the files of a target share one translation unit, so two files that define the same
# name at file scope (in an anonymous namespace, `static`, or a #define) would clash. The batches
# are made at configure time from the files' text: a file joins the first batch that has room
# and none of its file-scope names, so new files (the folders' globs) need nothing, and two
# files that both define `kId` or `run(...)` are never in one batch. A file that must be compiled
# alone for another reason (its #defines come before any header, it is generated) is named with
# gemmscope_unity_exclude() in its folder's CMakeLists.txt.

option(GEMMSCOPE_PCH "Precompile the standard and third-party headers most files include" OFF)

# The headers most files include (counted over the tree), and the costly ones.
set(GEMMSCOPE_PCH_HEADERS
    <algorithm> <array> <cmath> <cstdint> <cstring> <filesystem> <functional> <map> <memory>
    <optional> <set> <stdexcept> <string> <string_view> <vector>
    <fmt/format.h> <nlohmann/json.hpp>)

# gemmscope_build_speed(target BATCH n [PCH header... | PCH_FROM other | NO_PCH]): at most n
# files per unity batch of `target` (when CMAKE_UNITY_BUILD is on), and its precompiled headers
# (when GEMMSCOPE_PCH is on): the common ones above plus the extra ones given, or those of
# `other` (compiled once for both: same flags and definitions), or none (a target of one batch
# gains nothing: compiling the headers costs as much as parsing them). The batches are made
# when the calling folder's CMakeLists.txt ends, so sources and exclusions added after this
# call count.
function(gemmscope_build_speed target)
  cmake_parse_arguments(PARSE_ARGV 1 arg "NO_PCH" "BATCH;PCH_FROM" "PCH")
  if(GEMMSCOPE_PCH AND arg_PCH_FROM)
    target_precompile_headers(${target} REUSE_FROM ${arg_PCH_FROM})
  elseif(GEMMSCOPE_PCH AND NOT arg_NO_PCH)
    target_precompile_headers(${target} PRIVATE ${GEMMSCOPE_PCH_HEADERS} ${arg_PCH})
  endif()
  if(CMAKE_UNITY_BUILD)
    # (a deferred call's arguments are read when it runs: EVAL fixes their values now)
    cmake_language(EVAL CODE "cmake_language(DEFER CALL _gemmscope_unity_batches [[${target}]] [[${arg_BATCH}]])")
  endif()
endfunction()

# gemmscope_front_end(target): in a sanitizer build (scripts/test), the target's own code at -O0.
# For the code around the model -- the command line's parsing and printing, the app's views and
# their data -- whose run time in the tests is a few frames and a few commands, while its compile
# at -O1 under ASan+UBSan was a third of a fresh test build (a batch of gui/core: 130 s of a core
# at -O1, 71 s at -O0 without its precompiled headers; GCC 12, 2026-12-02). The engine, the
# kernels and run/ (the model, the references the tests check against) stay at -O1.
function(gemmscope_front_end target)
  if(GEMMSCOPE_SANITIZE)
    target_compile_options(${target} PRIVATE -O0)
  endif()
endfunction()

# gemmscope_unity_exclude(file...): compile these files on their own.
function(gemmscope_unity_exclude)
  set_source_files_properties(${ARGN} PROPERTIES SKIP_UNITY_BUILD_INCLUSION ON)
endfunction()

# The names a file defines at file scope, as far as its text shows: in this code base's style
# (nothing indented inside a namespace) they are the lines starting in column 0 that declare a
# function, variable, type, alias or macro. Over-counting only keeps two files apart.
# `key` is what else a file's names are resolved against: its `using namespace` directives and
# the test-support headers it includes (tests/gui/gui_fixture.hpp opens gs::gui::test,
# tests/support/*.hpp gs::test: with `using namespace gs; using namespace gs::gui;`, `test::`
# means one of them only where the other is not included). Only files of one key share a batch,
# so each sees the directives it would see alone.
function(_gemmscope_file_scope_names path out key_out)
  file(STRINGS "${path}" lines REGEX "^[A-Za-z#]")
  set(names "")
  set(key "")
  set(id "[A-Za-z_][A-Za-z_0-9]*")
  foreach(line IN LISTS lines)
    if(line MATCHES "^#define (${id})")
      list(APPEND names "${CMAKE_MATCH_1}")
    elseif(line MATCHES "^using namespace ([A-Za-z_0-9:]+)" OR line MATCHES "^#include \"(tests/[^\"]+)\"")
      list(APPEND key "${CMAKE_MATCH_1}")
    elseif(line MATCHES "^(namespace|template|extern|#)")
      # scopes, using-directives, template heads, other preprocessor lines: no name
    elseif(line MATCHES "^(struct|class|union|enum|enum class|enum struct) (${id})")
      list(APPEND names "${CMAKE_MATCH_2}")
    elseif(line MATCHES "^using (${id}) =")
      list(APPEND names "${CMAKE_MATCH_1}")
    elseif(line MATCHES "^[^(={]*[ *&](${id}) *([(={[]|$)")
      list(APPEND names "${CMAKE_MATCH_1}")
    endif()
  endforeach()
  list(REMOVE_DUPLICATES names)
  list(SORT key)
  list(REMOVE_DUPLICATES key)
  string(REPLACE ";" " " key "${key}")
  set(${out} "${names}" PARENT_SCOPE)
  set(${key_out} "${key}" PARENT_SCOPE)
endfunction()

# Deferred (see gemmscope_build_speed): each .cpp of `target` that is not excluded or generated
# joins the first batch of its key with fewer than `batch` files and none of its names; a new
# batch opens
# when none fits. Files keep the folders' (sorted) order, so the batches only move where files
# are added.
function(_gemmscope_unity_batches target batch)
  # The project's namespace names (gs::run, gs::gui::test, ...): a file that defines one of them
  # at file scope (`run(...)` under `using namespace gs`) is ambiguous wherever a file of its
  # batch includes that namespace's headers, so it is compiled alone.
  get_property(namespaces GLOBAL PROPERTY _gemmscope_namespaces)
  if(NOT namespaces)
    file(GLOB_RECURSE headers "${PROJECT_SOURCE_DIR}/*.hpp")
    list(FILTER headers EXCLUDE REGEX "^${PROJECT_BINARY_DIR}/")
    set(namespaces "")
    foreach(h IN LISTS headers)
      file(STRINGS "${h}" lines REGEX "^namespace [A-Za-z_0-9:]+ {")
      foreach(line IN LISTS lines)
        string(REGEX REPLACE "^namespace ([A-Za-z_0-9:]+) {.*" "\\1" ns "${line}")
        string(REPLACE "::" ";" parts "${ns}")
        list(APPEND namespaces ${parts})
      endforeach()
    endforeach()
    list(REMOVE_DUPLICATES namespaces)
    set_property(GLOBAL PROPERTY _gemmscope_namespaces "${namespaces}")
  endif()
  get_target_property(sources ${target} SOURCES)
  get_target_property(dir ${target} SOURCE_DIR)
  set_target_properties(${target} PROPERTIES UNITY_BUILD_MODE GROUP)
  set(batches 0)
  set(open "")
  foreach(src IN LISTS sources)
    if(NOT src MATCHES "\\.cpp$")
      continue()
    endif()
    get_source_file_property(skip "${src}" SKIP_UNITY_BUILD_INCLUSION)
    get_source_file_property(generated "${src}" GENERATED)
    if(skip OR generated)
      continue()
    endif()
    cmake_path(ABSOLUTE_PATH src BASE_DIRECTORY "${dir}" OUTPUT_VARIABLE path)
    _gemmscope_file_scope_names("${path}" names key)
    set(alone OFF)
    foreach(name IN LISTS names)
      if(name IN_LIST namespaces)
        set(alone ON)
      endif()
    endforeach()
    if(alone)
      continue()  # no UNITY_GROUP: compiled on its own
    endif()
    set(chosen "")
    foreach(b IN LISTS open)
      if(NOT batch_${b}_key STREQUAL key)
        continue()
      endif()
      set(fits ON)
      foreach(name IN LISTS names)
        if(name IN_LIST batch_${b}_names)
          set(fits OFF)
          break()
        endif()
      endforeach()
      if(fits)
        set(chosen ${b})
        break()
      endif()
    endforeach()
    if(chosen STREQUAL "")
      set(chosen ${batches})
      math(EXPR batches "${batches} + 1")
      list(APPEND open ${chosen})
      set(batch_${chosen}_count 0)
      set(batch_${chosen}_names "")
      set(batch_${chosen}_key "${key}")
    endif()
    set_source_files_properties("${src}" PROPERTIES UNITY_GROUP "${target}_${chosen}")
    list(APPEND batch_${chosen}_names ${names})
    math(EXPR batch_${chosen}_count "${batch_${chosen}_count} + 1")
    if(batch_${chosen}_count GREATER_EQUAL batch)
      list(REMOVE_ITEM open ${chosen})
    endif()
  endforeach()
endfunction()
