# deps.cmake: the Debian-packaged libraries cudalab links (libyaml, SQLite, jansson,
# libarchive and nettle for the classroom) and Check for the tests. With CUDALAB_STATIC_DEPS the .a archives are preferred, so
# the binaries run on a machine that has only the CUDA driver (the GPU box).
find_package(PkgConfig REQUIRED)

function(cudalab_dep target pcname libname)
  pkg_check_modules(PC_${target} REQUIRED IMPORTED_TARGET ${pcname})
  set(static_lib "")
  if(CUDALAB_STATIC_DEPS)
    find_library(${target}_STATIC NAMES lib${libname}.a HINTS ${PC_${target}_LIBRARY_DIRS})
    set(static_lib ${${target}_STATIC})
  endif()
  add_library(${target} INTERFACE)
  if(static_lib)
    target_link_libraries(${target} INTERFACE ${static_lib})
    target_include_directories(${target} INTERFACE ${PC_${target}_INCLUDE_DIRS})
  else()
    target_link_libraries(${target} INTERFACE PkgConfig::PC_${target})
  endif()
endfunction()

cudalab_dep(dep_yaml yaml-0.1 yaml)
cudalab_dep(dep_sqlite sqlite3 sqlite3)
cudalab_dep(dep_jansson jansson jansson)
cudalab_dep(dep_nettle nettle nettle)
# utf8proc: student ids from non-ASCII names (NFC, case folding) in the classroom
cudalab_dep(dep_utf8proc libutf8proc utf8proc)
# libarchive (student archives). Static, for the portable binaries, from the .a files Debian
# ships (libarchive, nettle, lzma, bz2, z) for the formats cudalab reads (tar, zip; gzip,
# bzip2, xz): Debian has no libzstd.a, so a static build links failing zstd stubs (only
# zip's rare zstd members need them). Otherwise the shared library.
pkg_check_modules(PC_dep_archive REQUIRED IMPORTED_TARGET libarchive)
add_library(dep_archive INTERFACE)
set(archive_static "")
if(CUDALAB_STATIC_DEPS)
  foreach(l archive nettle lzma bz2 z)
    find_library(archive_static_${l} NAMES lib${l}.a HINTS ${PC_dep_archive_LIBRARY_DIRS})
    if(NOT archive_static_${l})
      set(archive_static "")
      break()
    endif()
    list(APPEND archive_static ${archive_static_${l}})
  endforeach()
endif()
if(archive_static)
  add_library(dep_zstd_absent STATIC ${PROJECT_SOURCE_DIR}/grader/classroom/static/zstd_absent.c)
  target_link_libraries(dep_archive INTERFACE ${archive_static} dep_zstd_absent)
  target_include_directories(dep_archive INTERFACE ${PC_dep_archive_INCLUDE_DIRS})
  message(STATUS "cudalab: libarchive linked statically (tar, zip; gzip, bzip2, xz)")
else()
  target_link_libraries(dep_archive INTERFACE PkgConfig::PC_dep_archive)
endif()

pkg_check_modules(CHECK IMPORTED_TARGET check)
