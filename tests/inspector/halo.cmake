# Tests of the halo-exchange example (examples/halo/, built by
# examples/halo/halo.cmake when the MPI transport is): it is run twice
# through mpirun (label `inspector`): the first run must miss the plan
# cache and store the plan, the second must hit it.  Included from
# tests/CMakeLists.txt.
if(NOT BUILD_TESTING OR NOT TARGET halo OR NOT MPIEXEC_EXECUTABLE)
  return()
endif()
set(_halo_flags ${MPIEXEC_PREFLAGS})
execute_process(COMMAND ${MPIEXEC_EXECUTABLE} --version
                OUTPUT_VARIABLE _halo_version ERROR_QUIET)
if(_halo_version MATCHES "Open MPI|OpenRTE")
  list(APPEND _halo_flags --allow-run-as-root --oversubscribe)
endif()
# Open MPI's own blocks at exit are not ours: suppressed by library
# under the sanitizers (tests/sanitize/sanitize.cmake)
set(_halo_asan "${CCP_SANITIZE_MPI_ENV}")
set(_halo_db ${CMAKE_BINARY_DIR}/examples/halo-test.db)
set(_halo_run ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} 6 ${_halo_flags}
              $<TARGET_FILE:halo> ${MPIEXEC_POSTFLAGS} --points 6000
              --iters 5 --cache ${_halo_db})
add_test(NAME halo_clean
         COMMAND ${CMAKE_COMMAND} -E rm -f ${_halo_db} ${_halo_db}-wal
                 ${_halo_db}-shm)
add_test(NAME halo_miss COMMAND ${_halo_run} --expect-hit no)
add_test(NAME halo_hit COMMAND ${_halo_run} --expect-hit yes)
set_tests_properties(halo_clean PROPERTIES
  LABELS inspector FIXTURES_SETUP halo_db)
set_tests_properties(halo_miss PROPERTIES
  LABELS inspector FIXTURES_REQUIRED halo_db FIXTURES_SETUP halo_plan
  TIMEOUT 60 ENVIRONMENT "OMPI_MCA_mpi_yield_when_idle=1;${_halo_asan}")
set_tests_properties(halo_hit PROPERTIES
  LABELS inspector FIXTURES_REQUIRED "halo_db;halo_plan" DEPENDS halo_miss
  TIMEOUT 60 ENVIRONMENT "OMPI_MCA_mpi_yield_when_idle=1;${_halo_asan}")
