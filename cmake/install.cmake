# install.cmake - what `cmake --install` puts where, and the files a
# build system finds it by: a CMake package (find_package(ccplan) with
# components) and one pkg-config file per part (docs/install.md).
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

# The package's components, each one export set and one file of targets
# (ccplan-<component>-targets.cmake), so that the package's config file
# finds a component's dependency (SQLite, libyaml, libsodium, MPI,
# OpenSHMEM) only when the component is asked for:
#   runtime    the command, the runtime and the IR it decodes (no
#              dependency); always loaded
#   cache      the cache loader (ccp_plan_load_cache, ccp_plan_lookup); SQLite
#   inspector  the inspector, its machine model and what it links: the
#              schedulers, the YAML front end, the cost presets; libyaml,
#              and the cache component
#   sockets    the TCP sockets transport, its handshake and the
#              coordinator of jobs srun or mpirun started; libsodium,
#              threads
#   mpi        the MPI transport, if it was built; MPI
#   shmem      the OpenSHMEM transport, if it was built; an OpenSHMEM
set(_ccp_set_runtime ccplan ccp_runtime ccp_ir)
set(_ccp_set_cache ccp_runtime_cache ccp_cache)
set(_ccp_set_inspector ccp_inspector ccp_schedules ccp_front ccp_model)
set(_ccp_set_sockets ccp_backend_sockets ccp_sock_launch ccp_sock_wire)
set(_ccp_set_mpi ccp_backend_mpi)
set(_ccp_set_shmem ccp_backend_shmem)
set(CCPLAN_COMPONENTS runtime cache inspector)
foreach(c sockets mpi shmem)
  list(GET _ccp_set_${c} 0 _t)
  if(TARGET ${_t})
    list(APPEND CCPLAN_COMPONENTS ${c})
  endif()
endforeach()

set(_ccp_cmake_dir ${CMAKE_INSTALL_LIBDIR}/cmake/ccplan)
foreach(c ${CCPLAN_COMPONENTS})
  # ccplan::runtime for ccp_runtime, ...; the command is ccplan::ccplan.
  # Hidden visibility: only what the public headers mark CCP_EXTERN
  # (include/ccplan_export.h) is visible outside a shared object built
  # from these libraries; the tests and the command link them statically,
  # where hidden symbols still resolve.  tests/package_test.sh checks it.
  foreach(t ${_ccp_set_${c}})
    string(REGEX REPLACE "^ccp_" "" _export_name ${t})
    set_target_properties(${t} PROPERTIES EXPORT_NAME ${_export_name})
    get_target_property(_type ${t} TYPE)
    if(_type STREQUAL "STATIC_LIBRARY")
      set_target_properties(${t} PROPERTIES C_VISIBILITY_PRESET hidden)
    endif()
  endforeach()
  install(TARGETS ${_ccp_set_${c}}
          EXPORT ccplan_${c}
          RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
          ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
          INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
  install(EXPORT ccplan_${c} FILE ccplan-${c}-targets.cmake NAMESPACE ccplan::
          DESTINATION ${_ccp_cmake_dir})
endforeach()
file(GLOB _ccp_public_headers ${PROJECT_SOURCE_DIR}/include/*.h)
install(FILES ${_ccp_public_headers}
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})

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
              ${PROJECT_SOURCE_DIR}/cmake/ccplanOpenSHMEM.cmake
        DESTINATION ${_ccp_cmake_dir})

# pkg-config.  The .pc files find the prefix from where they are
# installed, so that `cmake --install --prefix` anywhere gives working
# files.  The libraries are static: what they need is in Requires and
# Libs, not Requires.private.
file(RELATIVE_PATH CCPLAN_PC_UP
     /prefix/${CMAKE_INSTALL_LIBDIR}/pkgconfig /prefix)

# _ccp_pc_flags(<cflags-var> <libs-var> INCDIRS ... LIBS ...) - include
# directories and libraries (absolute paths, names or flags) as the
# Cflags and Libs of a .pc file
function(_ccp_pc_flags cflags libs)
  cmake_parse_arguments(A "" "" "INCDIRS;LIBS" ${ARGN})
  set(c "")
  foreach(d ${A_INCDIRS})
    string(APPEND c " -I${d}")
  endforeach()
  set(l "")
  set(dirs "")
  foreach(lib ${A_LIBS})
    if(IS_ABSOLUTE "${lib}")
      get_filename_component(dir "${lib}" DIRECTORY)
      get_filename_component(name "${lib}" NAME_WE)
      string(REGEX REPLACE "^lib" "" name "${name}")
      if(NOT dir IN_LIST dirs)
        list(APPEND dirs "${dir}")
        string(APPEND l " -L${dir}")
      endif()
      string(APPEND l " -l${name}")
    elseif(lib MATCHES "^-")
      string(APPEND l " ${lib}")
    else()
      string(APPEND l " -l${lib}")
    endif()
  endforeach()
  set(${cflags} "${c}" PARENT_SCOPE)
  set(${libs} "${l}" PARENT_SCOPE)
endfunction()

# ccplan-runtime: the runtime alone; ccplan: with the sockets transport;
# ccplan-cache: with the cache loader and SQLite; ccplan-inspector: the
# inspector and its machine model, with libyaml; ccplan-mpi and
# ccplan-shmem: a transport, with what its MPI or OpenSHMEM needs
set(_ccp_pcs ccplan-runtime ccplan-cache ccplan-inspector)
if(TARGET ccp_backend_sockets)
  list(APPEND _ccp_pcs ccplan)
endif()
if(TARGET ccp_backend_mpi)
  # the MPI's own pkg-config module if it has one (Open MPI: mpi-c,
  # ompi-c; MPICH: mpich), else the flags FindMPI found
  set(CCPLAN_MPI_REQUIRES "")
  set(CCPLAN_MPI_CFLAGS "")
  set(CCPLAN_MPI_LIBS "")
  foreach(m mpi-c ompi-c mpich)
    string(MAKE_C_IDENTIFIER "_CCP_PC_${m}" _v)
    pkg_check_modules(${_v} QUIET ${m})
    if(${_v}_FOUND)
      set(CCPLAN_MPI_REQUIRES ", ${m}")
      break()
    endif()
  endforeach()
  if(NOT CCPLAN_MPI_REQUIRES)
    find_package(MPI COMPONENTS C QUIET)
    _ccp_pc_flags(CCPLAN_MPI_CFLAGS CCPLAN_MPI_LIBS
                  INCDIRS ${MPI_C_INCLUDE_DIRS} LIBS ${MPI_C_LIBRARIES})
  endif()
  list(APPEND _ccp_pcs ccplan-mpi)
endif()
if(TARGET ccp_backend_shmem)
  # the OpenSHMEM's pkg-config module, or the flags its compiler wrapper
  # gave (cmake/ccplanOpenSHMEM.cmake)
  set(CCPLAN_SHMEM_REQUIRES "")
  set(CCPLAN_SHMEM_CFLAGS "")
  set(CCPLAN_SHMEM_LIBS "")
  get_target_property(_osh_libs OpenSHMEM::OpenSHMEM INTERFACE_LINK_LIBRARIES)
  if(_osh_libs STREQUAL "PkgConfig::CCP_OSHMEM_PC")
    set(CCPLAN_SHMEM_REQUIRES ", oshmem")
  else()
    get_target_property(_osh_inc OpenSHMEM::OpenSHMEM
                        INTERFACE_INCLUDE_DIRECTORIES)
    _ccp_pc_flags(CCPLAN_SHMEM_CFLAGS CCPLAN_SHMEM_LIBS
                  INCDIRS ${_osh_inc} LIBS ${_osh_libs})
  endif()
  list(APPEND _ccp_pcs ccplan-shmem)
endif()
foreach(_pc ${_ccp_pcs})
  configure_file(${PROJECT_SOURCE_DIR}/cmake/${_pc}.pc.in
                 ${PROJECT_BINARY_DIR}/${_pc}.pc @ONLY)
  install(FILES ${PROJECT_BINARY_DIR}/${_pc}.pc
          DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
endforeach()

# ccplan-bench, the benchmark of plans against MPI's own collectives
# (docs/bench-mpi.md), is installed by bench/mpi/bench_mpi.cmake, which
# defines it after this file

# the manual page and the bash completion (docs/cli.md)
install(FILES ${PROJECT_SOURCE_DIR}/docs/ccplan.1
        DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
install(FILES ${PROJECT_SOURCE_DIR}/completions/ccplan.bash
        DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions
        RENAME ccplan)
# the documentation, as the source tree lays it out, so that the links
# between README.md, docs/ and examples/ hold: share/doc/ccplan
install(FILES ${PROJECT_SOURCE_DIR}/README.md
        DESTINATION ${CMAKE_INSTALL_DOCDIR})
file(GLOB _ccp_docs ${PROJECT_SOURCE_DIR}/docs/*.md
                    ${PROJECT_SOURCE_DIR}/docs/ccplan.1)
install(FILES ${_ccp_docs} DESTINATION ${CMAKE_INSTALL_DOCDIR}/docs)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/docs/img
        DESTINATION ${CMAKE_INSTALL_DOCDIR}/docs)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/examples
        DESTINATION ${CMAKE_INSTALL_DOCDIR})
