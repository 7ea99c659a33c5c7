# The MPI transport's tests, included from tests/CMakeLists.txt; nothing is
# registered when the transport is not built (MPI not found).
#
# Three programs, each run by mpirun on 2, 4 and 8 ranks through
# run_mpi_tests.sh, which first compiles the YAML inputs of this directory
# with `ccplan compile --no-cache` into the build tree:
#   mpi_collectives_N  every nN_*.yaml plan, under S2, S1 and NO_BARRIER,
#                      every byte checked, and against MPI's collectives
#   mpi_errors_N       plans that differ, short buffers, the wrong
#                      communicator: the same error on every rank
#   mpi_transport_N    the transport's functions called directly
#   mpi_nonblocking_N  ccp_plan_start/test/wait on multi-phase plans,
#                      every byte against execute's; the misuses
# Open MPI's AVX reductions (4.1 on) saturate an integer sum that
# overflows (open-mpi/ompi#8045, closed as wontfix), so MPI_Reduce would
# disagree with the wrapping sum of n4_reduce_byte_sum: the tests turn that
# component off (OMPI_MCA_op=^avx; other MPIs ignore the variable).
# All carry the label `mpi` (ctest -L mpi) and take one lock, so that two
# mpiruns never share the machine's cores.
if(NOT BUILD_TESTING OR NOT TARGET ccp_backend_mpi)
  return()
endif()

# MPI::MPI_C is an imported target of the backends directory: find it here
# as well (this file runs in the tests directory).
find_package(MPI COMPONENTS C QUIET)
set(CCP_MPI_TEST_DIR ${PROJECT_SOURCE_DIR}/tests/mpi)

foreach(prog mpi_collectives mpi_errors mpi_transport mpi_nonblocking)
  add_executable(${prog} ${CCP_MPI_TEST_DIR}/${prog}.c
                         ${CCP_MPI_TEST_DIR}/mpi_common.c)
  target_link_libraries(${prog} PRIVATE ccp_backend_mpi MPI::MPI_C)
  ccp_sanitize_mpi(${prog}) # tests/sanitize/sanitize.cmake
endforeach()

# Open MPI refuses to run as root, and more ranks than cores, unless told.
set(CCP_MPI_FLAGS ${MPIEXEC_PREFLAGS})
execute_process(COMMAND ${MPIEXEC_EXECUTABLE} --version
                OUTPUT_VARIABLE _ccp_mpiexec_version
                ERROR_VARIABLE _ccp_mpiexec_version
                RESULT_VARIABLE _ccp_mpiexec_rc)
if(_ccp_mpiexec_version MATCHES "Open MPI|OpenRTE")
  list(APPEND CCP_MPI_FLAGS --oversubscribe --allow-run-as-root)
endif()

set(CCP_MPI_RUN ${CCP_MPI_TEST_DIR}/run_mpi_tests.sh $<TARGET_FILE:ccplan>)
set(CCP_MPI_WORK ${PROJECT_BINARY_DIR}/mpi-tests)

# the plans of the error tests, by the size they run on: two different
# plans of that size, then plans of other sizes and a reduction of that
# size (scratch on every rank, the root receiving in the last phase);
# n2_alltoall_pex and n2_alltoall_gen among them (receives of the wrong
# length, rank pairs)
set(CCP_MPI_ERR_2 n2_alltoall_pex n2_alltoall_gen n4_alltoall_pex
                  n2_reduce_int32_sum)
set(CCP_MPI_ERR_4 n4_alltoall_pex n4_alltoall_gen n2_alltoall_pex
                  n2_alltoall_gen n8_alltoall_pex n4_reduce_int32_sum)
set(CCP_MPI_ERR_8 n8_alltoall_pex n8_alltoall_pex_gen n4_alltoall_pex
                  n2_bcast_binomial n2_alltoall_pex n2_alltoall_gen
                  n8_reduce_int32_sum)

# the plans of the non-blocking tests: several phases, relays, scratch,
# a reduction and an irregular exchange
set(CCP_MPI_NB_2 n2_bcast_binomial n2_alltoall_pex n2_allreduce_ring)
set(CCP_MPI_NB_4 n4_bcast_binomial n4_alltoall_pex n4_allreduce_rd
                 n4_irregular_ac n4_bcast_scatter_allgather)
set(CCP_MPI_NB_8 n8_bcast_sbt n8_alltoall_pex n8_allreduce_ring
                 n8_irregular_lp n8_reduce_chain)

set(CCP_MPI_ENV OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
                OMPI_MCA_op=^avx)
# Under the sanitizers, LeakSanitizer would report Open MPI's own blocks
# at exit: they are suppressed by library, and ccplan's leaks are still
# reported (tests/sanitize/sanitize.cmake).
list(APPEND CCP_MPI_ENV ${CCP_SANITIZE_MPI_ENV})

foreach(n 2 4 8)
  set(launch ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} ${n}
             ${CCP_MPI_FLAGS})
  file(GLOB yamls CONFIGURE_DEPENDS ${CCP_MPI_TEST_DIR}/n${n}_*.yaml)
  list(SORT yamls)
  add_test(NAME mpi_collectives_${n}
           COMMAND ${CCP_MPI_RUN} ${CCP_MPI_WORK}/collectives_${n} ${launch}
                   -- $<TARGET_FILE:mpi_collectives> ${MPIEXEC_POSTFLAGS}
                   ${yamls})
  set(errs)
  foreach(y ${CCP_MPI_ERR_${n}})
    list(APPEND errs ${CCP_MPI_TEST_DIR}/${y}.yaml)
  endforeach()
  add_test(NAME mpi_errors_${n}
           COMMAND ${CCP_MPI_RUN} ${CCP_MPI_WORK}/errors_${n} ${launch}
                   -- $<TARGET_FILE:mpi_errors> ${MPIEXEC_POSTFLAGS} ${errs})
  add_test(NAME mpi_transport_${n}
           COMMAND ${CCP_MPI_RUN} ${CCP_MPI_WORK}/transport_${n} ${launch}
                   -- $<TARGET_FILE:mpi_transport> ${MPIEXEC_POSTFLAGS})
  set(nb)
  foreach(y ${CCP_MPI_NB_${n}})
    list(APPEND nb ${CCP_MPI_TEST_DIR}/${y}.yaml)
  endforeach()
  add_test(NAME mpi_nonblocking_${n}
           COMMAND ${CCP_MPI_RUN} ${CCP_MPI_WORK}/nonblocking_${n} ${launch}
                   -- $<TARGET_FILE:mpi_nonblocking> ${MPIEXEC_POSTFLAGS} ${nb})
  set_tests_properties(mpi_collectives_${n} mpi_errors_${n}
                       mpi_transport_${n} mpi_nonblocking_${n} PROPERTIES
    LABELS mpi
    TIMEOUT 120
    RESOURCE_LOCK mpi
    ENVIRONMENT "${CCP_MPI_ENV}")
endforeach()
