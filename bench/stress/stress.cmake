# bench/stress/stress.cmake - the load test (issue 9,
# docs/reliability.md, "Load"): stress_compile compiles random inputs through
# one plan cache; stress_run executes plans over and over on the sockets
# transport or MPI.  Benchmarks: bench/stress.sh runs them (`make
# stress`); their names are not bench_*, so `make bench` leaves them out.
# Included from bench/CMakeLists.txt; the smoke tests are
# tests/stress.cmake.
add_executable(stress_compile ${CMAKE_CURRENT_LIST_DIR}/stress_compile.c)
target_include_directories(stress_compile PRIVATE ${CMAKE_CURRENT_LIST_DIR}/..)
target_link_libraries(stress_compile PRIVATE ccp_compiler)

# stress_run needs the MPI transport for its MPI half and the test
# programs' expected results (tests/mpi/mpi_common.c, which uses MPI), so
# it is built only where MPI is; it runs over sockets without mpirun.
if(NOT TARGET MPI::MPI_C)
  find_package(MPI COMPONENTS C QUIET)
endif()
if(TARGET MPI::MPI_C AND TARGET ccp_backend_mpi AND TARGET ccp_backend_sockets)
  add_executable(stress_run ${CMAKE_CURRENT_LIST_DIR}/stress_run.c
                            ${PROJECT_SOURCE_DIR}/tests/mpi/mpi_common.c)
  target_include_directories(stress_run PRIVATE ${CMAKE_CURRENT_LIST_DIR}/..
                                                ${PROJECT_SOURCE_DIR}/tests/mpi)
  target_link_libraries(stress_run PRIVATE ccp_backend_mpi ccp_backend_sockets
                                           MPI::MPI_C)
endif()
