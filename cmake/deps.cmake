# deps.cmake: the Debian-packaged libraries cudalab links (libyaml, SQLite, jansson)
# and Check for the tests. With CUDALAB_STATIC_DEPS the .a archives are preferred, so
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
find_package(Threads REQUIRED)
target_link_libraries(dep_sqlite INTERFACE Threads::Threads ${CMAKE_DL_LIBS} m)

pkg_check_modules(CHECK IMPORTED_TARGET check)
