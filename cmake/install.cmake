# install.cmake - what `cmake --install` puts where, and the files a
# build system finds it by: a CMake package (find_package(ccplan)) and a
# pkg-config file for the runtime.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(_ccp_install_targets ccp_runtime ccp_runtime_cache ccp_ir ccp_cache)
# the inspector (ccplan_inspector.h, ccplan_machine.h), with what it
# links: the schedulers, the YAML front end and the model's cost presets
list(APPEND _ccp_install_targets ccp_inspector ccp_schedules ccp_front
                                 ccp_model)
if(TARGET ccp_backend_sockets)
  # with the library of its handshake, which links libsodium
  list(APPEND _ccp_install_targets ccp_backend_sockets ccp_sock_wire)
endif()
set(CCPLAN_HAVE_MPI FALSE)
if(TARGET ccp_backend_mpi)
  list(APPEND _ccp_install_targets ccp_backend_mpi)
  set(CCPLAN_HAVE_MPI TRUE)
endif()
if(TARGET ccp_backend_shmem)
  list(APPEND _ccp_install_targets ccp_backend_shmem)
  if(TARGET ccp_oshmem)
    list(APPEND _ccp_install_targets ccp_oshmem)
  endif()
endif()
# Hidden visibility: only what the public headers mark CCP_EXTERN
# (include/ccplan_export.h) is visible outside a shared object built from
# these libraries; the tests and the command link them statically, where
# hidden symbols still resolve.  tests/package_test.sh checks it.
foreach(t ${_ccp_install_targets})
  string(REPLACE "ccp_" "" _export_name ${t})
  set_target_properties(${t} PROPERTIES EXPORT_NAME ${_export_name}
                                        C_VISIBILITY_PRESET hidden)
endforeach()
set_target_properties(ccplan PROPERTIES EXPORT_NAME ccplan)

install(TARGETS ccplan ${_ccp_install_targets}
        EXPORT ccplanTargets
        RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
file(GLOB _ccp_public_headers ${PROJECT_SOURCE_DIR}/include/*.h)
install(FILES ${_ccp_public_headers}
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})

set(_ccp_cmake_dir ${CMAKE_INSTALL_LIBDIR}/cmake/ccplan)
install(EXPORT ccplanTargets NAMESPACE ccplan::
        DESTINATION ${_ccp_cmake_dir})
configure_package_config_file(
  ${PROJECT_SOURCE_DIR}/cmake/ccplanConfig.cmake.in
  ${PROJECT_BINARY_DIR}/ccplanConfig.cmake
  INSTALL_DESTINATION ${_ccp_cmake_dir})
write_basic_package_version_file(
  ${PROJECT_BINARY_DIR}/ccplanConfigVersion.cmake
  COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/ccplanConfig.cmake
              ${PROJECT_BINARY_DIR}/ccplanConfigVersion.cmake
              ${PROJECT_SOURCE_DIR}/cmake/ccplanPlans.cmake
        DESTINATION ${_ccp_cmake_dir})
# the .pc file finds the prefix from where it is installed, so that
# `cmake --install --prefix` anywhere gives a working file
file(RELATIVE_PATH CCPLAN_PC_UP
     /prefix/${CMAKE_INSTALL_LIBDIR}/pkgconfig /prefix)
# ccplan: the runtime and the sockets transport, no SQLite; ccplan-cache:
# with the cache loader (ccp_plan_load_cache, ccp_plan_lookup) and SQLite;
# ccplan-inspector: the inspector and its machine model, with libyaml
foreach(_pc ccplan ccplan-cache ccplan-inspector)
  configure_file(${PROJECT_SOURCE_DIR}/cmake/${_pc}.pc.in
                 ${PROJECT_BINARY_DIR}/${_pc}.pc @ONLY)
  install(FILES ${PROJECT_BINARY_DIR}/${_pc}.pc
          DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
endforeach()

# the manual page and the bash completion (docs/cli.md)
install(FILES ${PROJECT_SOURCE_DIR}/docs/ccplan.1
        DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
install(FILES ${PROJECT_SOURCE_DIR}/completions/ccplan.bash
        DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions
        RENAME ccplan)
