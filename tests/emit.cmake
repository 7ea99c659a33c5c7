# tests/emit.cmake - test_emit_c: the C emitter and the two loaders that
# need no .ccp file (ccp_plan_load_emitted, ccp_plan_load_cache).
#
# At build time `ccplan compile --emit c` emits plans of several
# collectives and `ccplan compile` writes their .ccp files; the emitted
# files are compiled into the test with the project's warnings (and
# -Werror under CCPLAN_WERROR), so a plan is linked exactly as an
# application links it.  The test then compares, rank by rank, what
# ccp_plan_load_emitted and ccp_plan_load_file load.  Included from
# tests/CMakeLists.txt; paths are relative to this file, so it works from
# any directory.
find_package(cmocka REQUIRED CONFIG)

set(CCP_EMIT_OUT ${CMAKE_CURRENT_BINARY_DIR}/emit)
file(MAKE_DIRECTORY ${CCP_EMIT_OUT})

# name=input: the symbol is plan_NAME; the odd entries take it from the
# output file's name, the others from --name.
set(CCP_EMIT_PLANS
    bcast_edn=examples/mesh32-edn.yaml
    scatter=examples/mesh16-tree-scatter.yaml
    gather=tests/emit/gather.yaml
    reduce=tests/emit/reduce.yaml
    alltoall=tests/emit/alltoall.yaml
    irregular=examples/ipsc-irregular.yaml
    transpose=tests/emit/transpose.yaml
    idle=tests/emit/idle.yaml)
set(CCP_EMIT_SOURCES)
set(CCP_EMIT_BY_NAME OFF)
foreach(entry ${CCP_EMIT_PLANS})
  string(REPLACE "=" ";" pair ${entry})
  list(GET pair 0 name)
  list(GET pair 1 input)
  set(in ${PROJECT_SOURCE_DIR}/${input})
  set(c ${CCP_EMIT_OUT}/plan_${name}.c)
  set(ccp ${CCP_EMIT_OUT}/plan_${name}.ccp)
  if(CCP_EMIT_BY_NAME)
    set(naming --name plan_${name})
    set(CCP_EMIT_BY_NAME OFF)
  else()
    set(naming)
    set(CCP_EMIT_BY_NAME ON)
  endif()
  add_custom_command(
    OUTPUT ${c} ${ccp}
    COMMAND ccplan compile ${in} --no-cache --emit c ${naming} -o ${c}
    COMMAND ccplan compile ${in} --no-cache -o ${ccp}
    DEPENDS ccplan ${in}
    COMMENT "Emitting plan_${name}.c and plan_${name}.ccp"
    VERBATIM)
  list(APPEND CCP_EMIT_SOURCES ${c})
endforeach()

add_executable(test_emit_c ${CMAKE_CURRENT_LIST_DIR}/emit/test_emit_c.c
                           ${CCP_EMIT_SOURCES})
target_link_libraries(test_emit_c PRIVATE ccp_runtime_cache ${CMOCKA_LIBRARIES})
target_include_directories(test_emit_c PRIVATE ${CMOCKA_INCLUDE_DIR})
target_compile_definitions(test_emit_c PRIVATE
                           CCP_EMIT_OUT="${CCP_EMIT_OUT}")
add_test(NAME test_emit_c COMMAND test_emit_c
         WORKING_DIRECTORY ${CMAKE_CURRENT_LIST_DIR})
set_tests_properties(test_emit_c PROPERTIES
  ENVIRONMENT "CCPLAN_SOURCE_DIR=${PROJECT_SOURCE_DIR};CCPLAN_BIN=$<TARGET_FILE:ccplan>"
  TIMEOUT 300)
