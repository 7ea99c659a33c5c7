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
endif()
