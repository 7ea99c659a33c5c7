# bench/mpi/bench_mpi.cmake - ccplan-bench: compiled plans over the MPI
# transport against MPI's own collectives (docs/bench-mpi.md).  Included
# from bench/CMakeLists.txt; built only when MPI and the MPI transport
# (ccp_backend_mpi, backends/mpi.cmake) are there.  A benchmark prints
# tables: it is not registered with CTest, and its name is not bench_*
# (`make bench` runs those without mpirun); `make bench-mpi` runs it.
if(NOT TARGET MPI::MPI_C)
  find_package(MPI COMPONENTS C QUIET)
endif()
if(TARGET MPI::MPI_C AND TARGET ccp_backend_mpi)
  add_executable(ccplan-bench ${CMAKE_CURRENT_LIST_DIR}/ccplan_bench.c)
  target_include_directories(ccplan-bench
                             PRIVATE ${CMAKE_CURRENT_LIST_DIR}/..)
  target_link_libraries(ccplan-bench PRIVATE ccp_backend_mpi ccp_runtime
                                             ccp_compiler MPI::MPI_C m)
  # installed next to ccplan (cmake/install.cmake)
  install(TARGETS ccplan-bench RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
  # ccplan-fixed-cost: one plan's execution against the same MPI calls
  # made bare and in variants (docs/bench-mpi.md, "The fixed cost of an
  # execution"); a tool for the runtime's developers, not installed
  add_executable(ccplan-fixed-cost ${CMAKE_CURRENT_LIST_DIR}/fixed_cost.c)
  target_link_libraries(ccplan-fixed-cost PRIVATE ccp_backend_mpi
                                                  ccp_runtime MPI::MPI_C)
  # ccplan-overlap: a halo exchange overlapping computation through
  # ccp_plan_start/test/wait, against MPI_Ineighbor_alltoallv
  # (docs/bench-mpi.md, "Overlap"); the inspector makes its plans
  if(TARGET ccp_inspector)
    add_executable(ccplan-overlap ${CMAKE_CURRENT_LIST_DIR}/ccplan_overlap.c)
    target_link_libraries(ccplan-overlap PRIVATE ccp_backend_mpi
                                                 ccp_inspector MPI::MPI_C)
    install(TARGETS ccplan-overlap RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
  endif()
endif()
