# Tests of the inspector (runtime/inspector/, label `inspector`):
# bench_inspector as a smoke test, test_inspector_machine (the public
# machine model), test_inspector through mpirun with 2, 4 and 8 ranks (MPI transport), and
# test_inspector_sockets through `ccplan run` with 3 ranks (sockets
# transport), to show that the inspector needs only the transport table.
# Included from tests/CMakeLists.txt, when CTest and the transports are
# known; a transport that is not built has no tests here.
if(NOT BUILD_TESTING OR NOT TARGET ccp_inspector)
  return()
endif()

# bench_inspector: one rank's inspector cost at 256..4096 ranks, over a
# stand-in transport (no network); the test runs it small, as a smoke test.
add_executable(bench_inspector
               ${PROJECT_SOURCE_DIR}/tests/inspector/bench_inspector.c)
target_link_libraries(bench_inspector PRIVATE ccp_inspector)
add_test(NAME inspector_bench COMMAND bench_inspector 64 256)
set_tests_properties(inspector_bench PROPERTIES LABELS inspector TIMEOUT 60)
# and reorder on a randomly numbered stencil (-r), small
add_test(NAME inspector_bench_reorder COMMAND bench_inspector -r 64 256)
set_tests_properties(inspector_bench_reorder PROPERTIES
  LABELS inspector TIMEOUT 60)

# test_inspector_machine: the public machine model (ccplan_machine.h), as
# an application uses it; no transport
add_executable(test_inspector_machine
               ${PROJECT_SOURCE_DIR}/tests/inspector/test_inspector_machine.c)
target_include_directories(test_inspector_machine
                           PRIVATE ${CMOCKA_INCLUDE_DIR})
target_link_libraries(test_inspector_machine
                      PRIVATE ccp_inspector ${CMOCKA_LIBRARIES})
add_test(NAME inspector_machine COMMAND test_inspector_machine)
set_tests_properties(inspector_machine PROPERTIES LABELS inspector)

if(TARGET ccp_backend_mpi AND MPIEXEC_EXECUTABLE)
  add_executable(test_inspector
                 ${PROJECT_SOURCE_DIR}/tests/inspector/test_inspector.c)
  target_link_libraries(test_inspector PRIVATE ccp_inspector ccp_backend_mpi)
  ccp_sanitize_mpi(test_inspector) # tests/sanitize/sanitize.cmake
  # Open MPI refuses to run as root, and to put more ranks than cores on
  # a machine, unless told.
  set(ccp_insp_flags ${MPIEXEC_PREFLAGS})
  execute_process(COMMAND ${MPIEXEC_EXECUTABLE} --version
                  OUTPUT_VARIABLE ccp_insp_version ERROR_QUIET)
  if(ccp_insp_version MATCHES "Open MPI|OpenRTE")
    list(APPEND ccp_insp_flags --allow-run-as-root --oversubscribe)
  endif()
  # Under the sanitizers Open MPI's own blocks at exit are suppressed by
  # library (tests/sanitize/sanitize.cmake).
  set(CCP_INSP_ASAN "${CCP_SANITIZE_MPI_ENV}")
  foreach(np 2 4 8)
    add_test(NAME inspector_np${np}
             COMMAND ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} ${np}
                     ${ccp_insp_flags} $<TARGET_FILE:test_inspector>
                     ${MPIEXEC_POSTFLAGS}
                     ${PROJECT_BINARY_DIR}/inspector-np${np}.db)
    # Oversubscribed ranks should give up the core while they wait.
    set_tests_properties(inspector_np${np} PROPERTIES
      LABELS inspector TIMEOUT 60
      ENVIRONMENT "OMPI_MCA_mpi_yield_when_idle=1;${CCP_INSP_ASAN}")
  endforeach()
endif()

# test_inspector_reorder: the suggested order (reorder), 8 ranks
if(TARGET ccp_backend_mpi AND MPIEXEC_EXECUTABLE)
  add_executable(test_inspector_reorder
                 ${PROJECT_SOURCE_DIR}/tests/inspector/test_inspector_reorder.c)
  target_link_libraries(test_inspector_reorder
                        PRIVATE ccp_inspector ccp_backend_mpi)
  ccp_sanitize_mpi(test_inspector_reorder)
  add_test(NAME inspector_reorder
           COMMAND ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} 8
                   ${ccp_insp_flags} $<TARGET_FILE:test_inspector_reorder>
                   ${MPIEXEC_POSTFLAGS}
                   ${PROJECT_BINARY_DIR}/inspector-reorder.db)
  set_tests_properties(inspector_reorder PROPERTIES
    LABELS inspector TIMEOUT 60
    ENVIRONMENT "OMPI_MCA_mpi_yield_when_idle=1;${CCP_INSP_ASAN}")
endif()

if(TARGET ccp_backend_sockets AND TARGET ccplan)
  add_executable(test_inspector_sockets
                 ${PROJECT_SOURCE_DIR}/tests/inspector/test_inspector_sockets.c)
  target_link_libraries(test_inspector_sockets
                        PRIVATE ccp_inspector ccp_backend_sockets)
  add_test(NAME inspector_sockets
           COMMAND $<TARGET_FILE:ccplan> run -n 3
                   $<TARGET_FILE:test_inspector_sockets>
                   ${PROJECT_BINARY_DIR}/inspector-sockets.db)
  set_tests_properties(inspector_sockets PROPERTIES
    LABELS inspector TIMEOUT 60)
endif()
