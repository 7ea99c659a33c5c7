# The load test's smoke version (bench/stress.sh --smoke, label stress):
# 50 random compiles through one cache, and four plans run 200 times on 4
# ranks over sockets and over MPI, every result checked and memory
# watched, so that the stress programs do not rot.  The full run is a
# benchmark (`make stress`, docs/reliability.md, "Load").
set(CCP_STRESS ${PROJECT_SOURCE_DIR}/bench/stress.sh --smoke)
if(TARGET stress_compile)
  add_test(NAME stress_compile_smoke
           COMMAND ${CCP_STRESS} --part compile ${CMAKE_BINARY_DIR})
  set_tests_properties(stress_compile_smoke PROPERTIES LABELS stress
                       TIMEOUT 300)
endif()
if(TARGET stress_run)
  add_test(NAME stress_sockets_smoke
           COMMAND ${CCP_STRESS} --part sockets ${CMAKE_BINARY_DIR})
  add_test(NAME stress_mpi_smoke
           COMMAND ${CCP_STRESS} --part mpi ${CMAKE_BINARY_DIR})
  set_tests_properties(stress_sockets_smoke stress_mpi_smoke PROPERTIES
                       LABELS stress TIMEOUT 300)
  # one mpirun at a time on the machine's cores (tests/mpi/mpi.cmake)
  set_tests_properties(stress_mpi_smoke PROPERTIES RESOURCE_LOCK mpi)
endif()
