# tests/shmem/shmem.cmake - the OpenSHMEM transport's tests (label shmem),
# included from tests/CMakeLists.txt; nothing is registered when the
# transport is not built (OpenSHMEM not found).
#
# Every YAML here is compiled to a plan in the build tree; its name says
# how shmem_plans checks it: nN_COLLECTIVE_..., nN_reduce_DTYPE_OP_...,
# and nN_irregular_... reads the matrix nN_irregular.csv that the YAML
# names.  One oshrun per rank count (2, 4, 8) runs every plan of that
# count, the error cases and the transport-level checks.
if(NOT BUILD_TESTING OR NOT TARGET ccp_backend_shmem)
  return()
endif()
if(NOT CCP_OSHRUN)
  message(STATUS "oshrun not found: the OpenSHMEM tests are not registered")
  return()
endif()

set(_shm_src ${PROJECT_SOURCE_DIR}/tests/shmem)
set(_shm_bin ${PROJECT_BINARY_DIR}/tests/shmem)
file(MAKE_DIRECTORY ${_shm_bin})

add_executable(shmem_plans ${_shm_src}/shmem_plans.c)
target_link_libraries(shmem_plans PRIVATE ccp_backend_shmem)
ccp_sanitize_mpi(shmem_plans) # tests/sanitize/sanitize.cmake

file(GLOB _shm_yamls CONFIGURE_DEPENDS ${_shm_src}/*.yaml)
file(GLOB _shm_csvs CONFIGURE_DEPENDS ${_shm_src}/*.csv)
set(_shm_plans "")
foreach(n 2 4 8)
  set(_shm_args_${n} "")
endforeach()
foreach(y ${_shm_yamls})
  get_filename_component(name ${y} NAME_WE)
  set(out ${_shm_bin}/${name}.ccp)
  add_custom_command(OUTPUT ${out}
    COMMAND ccplan compile ${y} -o ${out} --no-cache
    DEPENDS ccplan ${y} ${_shm_csvs}
    COMMENT "ccplan compile ${name}.yaml" VERBATIM)
  list(APPEND _shm_plans ${out})
  if(NOT name MATCHES "^n([0-9]+)_([a-z]+)_")
    message(FATAL_ERROR "tests/shmem/${name}.yaml: name it nN_COLLECTIVE_...")
  endif()
  set(n ${CMAKE_MATCH_1})
  set(coll ${CMAKE_MATCH_2})
  set(spec "plan:${out}")
  if(name MATCHES "^n[0-9]+_(reduce_scatter|allreduce|reduce)_([a-z0-9]+)_([a-z]+)$")
    # reductions: nN_COLLECTIVE_DTYPE_OP
    string(APPEND spec ",dtype=${CMAKE_MATCH_2},op=${CMAKE_MATCH_3}")
  elseif(coll STREQUAL "irregular")
    string(APPEND spec ",csv=${_shm_src}/n${n}_irregular.csv")
  elseif(coll STREQUAL "bcast" AND NOT _shm_bcast_${n})
    set(_shm_bcast_${n} ${out}) # the first: the error tests use it
  elseif(coll STREQUAL "scatter" AND NOT _shm_scatter_${n})
    set(_shm_scatter_${n} ${out})
  endif()
  list(APPEND _shm_args_${n} ${spec})
endforeach()
add_custom_target(shmem_plan_files ALL DEPENDS ${_shm_plans})
add_dependencies(shmem_plans shmem_plan_files)

foreach(n 2 4 8)
  set(args ${_shm_args_${n}} transport)
  if(_shm_bcast_${n} AND _shm_scatter_${n})
    list(APPEND args "mismatch:${_shm_bcast_${n}},${_shm_scatter_${n}}"
                     "short:${_shm_scatter_${n}}")
  endif()
  add_test(NAME shmem_n${n}
           COMMAND ${_shm_src}/shmem_test.sh ${CCP_OSHRUN} ${n}
                   $<TARGET_FILE:shmem_plans> ${args})
  # 8 PEs on a small machine: never alongside other tests
  # under the sanitizers: the symmetric heap out of ASan's shadow, and
  # Open MPI's blocks at exit suppressed (tests/sanitize/sanitize.cmake)
  set_tests_properties(shmem_n${n} PROPERTIES LABELS shmem TIMEOUT 180
                       RUN_SERIAL TRUE
                       ENVIRONMENT "${CCP_SANITIZE_SHMEM_ENV}")
endforeach()
