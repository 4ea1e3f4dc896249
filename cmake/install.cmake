# install.cmake: where `cmake --install` puts cudalab, and the .deb CPack makes of it.
#
#   bin/cudalab, bin/cudalab-run, bin/cudalab-probe       (the last two with CUDA)
#   share/cudalab/{labs,reference,questions}                the home, read-only: the installed
#                                                           cudalab finds it from bin/../share
#   share/man/man1/cudalab*.1                               when the build generated them
#   share/bash-completion/completions/cudalab, share/zsh/vendor-completions/_cudalab,
#   share/fish/vendor_completions.d/cudalab.fish          when the build generated them
#
# The man page and completions come from the CLI's command table (its generator writes them
# under ${PROJECT_BINARY_DIR}/man and ${PROJECT_BINARY_DIR}/completions); whatever of them
# exists at install time is installed, so this file needs no edit when they appear.
include(GNUInstallDirs)

install(DIRECTORY labs reference DESTINATION ${CMAKE_INSTALL_DATADIR}/cudalab
        PATTERN "CMakeLists.txt" EXCLUDE)
# the bank only: questions/*.yaml (the generators are compiled into cudalab)
install(DIRECTORY questions/ DESTINATION ${CMAKE_INSTALL_DATADIR}/cudalab/questions
        FILES_MATCHING PATTERN "*.yaml" PATTERN "*.md"
        PATTERN "src" EXCLUDE PATTERN "include" EXCLUDE PATTERN "gen" EXCLUDE)

install(CODE "
  set(_bin \"${PROJECT_BINARY_DIR}\")
  set(_dest \"\$ENV{DESTDIR}\${CMAKE_INSTALL_PREFIX}\")
  file(GLOB _man \"\${_bin}/man/*.1\")
  if(_man)
    file(INSTALL \${_man} DESTINATION \"\${_dest}/${CMAKE_INSTALL_MANDIR}/man1\")
  endif()
  foreach(_pair \"cudalab.bash|share/bash-completion/completions|cudalab\"
                \"_cudalab|share/zsh/vendor-completions|_cudalab\"
                \"cudalab.fish|share/fish/vendor_completions.d|cudalab.fish\")
    string(REPLACE \"|\" \";\" _p \"\${_pair}\")
    list(GET _p 0 _from)
    list(GET _p 1 _dir)
    list(GET _p 2 _to)
    if(EXISTS \"\${_bin}/completions/\${_from}\")
      file(INSTALL \"\${_bin}/completions/\${_from}\" DESTINATION \"\${_dest}/\${_dir}\" RENAME \${_to})
    endif()
  endforeach()
")

# ---- the .deb: cpack -G DEB in the build folder ----
set(CPACK_PACKAGE_NAME cudalab)
set(CPACK_PACKAGE_VENDOR "cudalab")
set(CPACK_PACKAGE_CONTACT "cudalab maintainers <cudalab@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "CUDA interview and training lab: graded kernel labs and a bilingual question bank")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
# libyaml, SQLite and jansson are linked statically (CUDALAB_STATIC_DEPS); the runner needs
# the CUDA runtime from the toolkit (NVIDIA's packages or runfile), found through its RPATH,
# and nvcc to compile solutions: a prerequisite, as for building.
set(CPACK_DEBIAN_PACKAGE_DEPENDS "libc6, libstdc++6, libgcc-s1")
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "diffutils, openssh-client")
set(CPACK_DEBIAN_PACKAGE_DESCRIPTION "CUDA interview and training lab\nGraded kernel labs (correctness against a CPU reference, speed against this GPU's measured ceilings), a bilingual question bank for quizzes and mock interviews, and classroom grading. Running kernels needs the CUDA toolkit (nvcc, libcudart) and an NVIDIA GPU; everything else works without one.")
include(CPack)
