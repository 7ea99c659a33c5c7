# The halo-exchange example (examples/halo/halo.c, README.md there): an
# MPI program using the inspector (ccp_inspector) and the MPI transport
# (ccp_backend_mpi).  Built only when the MPI transport is; with CTest it
# is also run twice through mpirun (label `inspector`): the first run
# must miss the plan cache and store the plan, the second must hit it.
# The MPI transport and CTest are set up later in the top-level
# CMakeLists.txt, so the targets are made at its end.
function(ccp_halo_example)
  if(NOT TARGET ccp_backend_mpi OR NOT TARGET ccp_inspector)
    return()
  endif()
  add_executable(halo ${PROJECT_SOURCE_DIR}/examples/halo/halo.c)
  target_link_libraries(halo PRIVATE ccp_inspector ccp_backend_mpi m)
  ccp_sanitize_mpi(halo) # tests/sanitize/sanitize.cmake
  if(NOT BUILD_TESTING OR NOT MPIEXEC_EXECUTABLE)
    return()
  endif()
  set(flags ${MPIEXEC_PREFLAGS})
  execute_process(COMMAND ${MPIEXEC_EXECUTABLE} --version
                  OUTPUT_VARIABLE version ERROR_QUIET)
  if(version MATCHES "Open MPI|OpenRTE")
    list(APPEND flags --allow-run-as-root --oversubscribe)
  endif()
  # Open MPI's own blocks at exit are not ours: suppressed by library
  # under the sanitizers (tests/sanitize/sanitize.cmake)
  set(asan "${CCP_SANITIZE_MPI_ENV}")
  set(db ${CMAKE_BINARY_DIR}/examples/halo-test.db)
  set(run ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} 6 ${flags}
          $<TARGET_FILE:halo> ${MPIEXEC_POSTFLAGS} --points 6000
          --iters 5 --cache ${db})
  add_test(NAME halo_clean
           COMMAND ${CMAKE_COMMAND} -E rm -f ${db} ${db}-wal ${db}-shm)
  add_test(NAME halo_miss COMMAND ${run} --expect-hit no)
  add_test(NAME halo_hit COMMAND ${run} --expect-hit yes)
  set_tests_properties(halo_clean PROPERTIES
    LABELS inspector FIXTURES_SETUP halo_db)
  set_tests_properties(halo_miss PROPERTIES
    LABELS inspector FIXTURES_REQUIRED halo_db FIXTURES_SETUP halo_plan
    TIMEOUT 60 ENVIRONMENT "OMPI_MCA_mpi_yield_when_idle=1;${asan}")
  set_tests_properties(halo_hit PROPERTIES
    LABELS inspector FIXTURES_REQUIRED "halo_db;halo_plan" DEPENDS halo_miss
    TIMEOUT 60 ENVIRONMENT "OMPI_MCA_mpi_yield_when_idle=1;${asan}")
endfunction()
cmake_language(DEFER DIRECTORY ${PROJECT_SOURCE_DIR} CALL ccp_halo_example)
