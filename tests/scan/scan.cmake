# tests/scan/scan.cmake - test_scan: `ccplan scan` (compiler/scan.c,
# scan_cmd.c), the plan names of the cache, and ccp_plan_lookup
# (runtime/lookup/lookup.c).  Include it from tests/CMakeLists.txt:
#   include(${CMAKE_CURRENT_SOURCE_DIR}/scan/scan.cmake)
#
# At build time `ccplan scan --emit c` writes the plans the sample
# program (scan/src/app.c, more.c) asks for into one C file with the set
# test_plans; the test links that file, and app.c itself, with the
# project's warnings (-Werror under CCPLAN_WERROR), as an application
# would.  At run time it scans the samples and the bad sources, runs the
# command into temporary caches and C files, and looks plans up.
include(${PROJECT_SOURCE_DIR}/compiler/scan.cmake) # no-op when included
find_package(cmocka REQUIRED CONFIG)

if(NOT CCPLAN_LIBCLANG OR NOT CCPLAN_LIBCLANG_INCLUDE_DIR)
  message(STATUS "test_scan: no libclang, not built")
  return()
endif()

set(CCP_SCAN_DIR ${CMAKE_CURRENT_LIST_DIR})
set(CCP_SCAN_OUT ${CMAKE_CURRENT_BINARY_DIR}/scan)
file(MAKE_DIRECTORY ${CCP_SCAN_OUT})
file(GLOB CCP_SCAN_INPUTS CONFIGURE_DEPENDS ${CCP_SCAN_DIR}/src/*
                                            ${CCP_SCAN_DIR}/inc/*
                                            ${CCP_SCAN_DIR}/data/*)
add_custom_command(
  OUTPUT ${CCP_SCAN_OUT}/test_plans.c
  COMMAND ccplan scan ${CCP_SCAN_DIR}/src/app.c ${CCP_SCAN_DIR}/src/more.c
          --emit c -o ${CCP_SCAN_OUT}/test_plans.c --symbol test_plans
          --yaml-dir ${CCP_SCAN_DIR}/data
          -- -I${PROJECT_SOURCE_DIR}/include -I${CCP_SCAN_DIR}/inc
  DEPENDS ccplan ${CCP_SCAN_INPUTS}
  COMMENT "Scanning the test_scan sample program for plans"
  VERBATIM)

add_executable(test_scan ${CCP_SCAN_DIR}/test_scan.c
                         ${CCP_SCAN_DIR}/src/app.c
                         ${CCP_SCAN_DIR}/src/more.c
                         ${CCP_SCAN_OUT}/test_plans.c)
target_include_directories(test_scan PRIVATE ${CMOCKA_INCLUDE_DIR}
                                             ${CCP_SCAN_DIR}/inc)
# plans by name: the cache loader's library
target_link_libraries(test_scan PRIVATE ccp_compiler ccp_runtime_cache
                                        ${CMOCKA_LIBRARIES})
# ir_slice_check, which ccp_plan_load_emitted needs, through the emit
# test's shim while the codec does not export it (tests/emit.cmake)
file(READ ${PROJECT_SOURCE_DIR}/ir/codec.c _ccp_scan_codec)
string(FIND "${_ccp_scan_codec}" "int ir_slice_check(" _ccp_scan_has_check)
if(_ccp_scan_has_check EQUAL -1 AND
   EXISTS ${PROJECT_SOURCE_DIR}/tests/emit/slice_check_shim.c)
  target_sources(test_scan PRIVATE
                 ${PROJECT_SOURCE_DIR}/tests/emit/slice_check_shim.c)
endif()
target_compile_definitions(test_scan PRIVATE
  CCP_SCAN_CC="${CMAKE_C_COMPILER}")
add_test(NAME test_scan COMMAND test_scan WORKING_DIRECTORY ${CCP_SCAN_DIR})
set_tests_properties(test_scan PROPERTIES
  ENVIRONMENT "CCPLAN_SOURCE_DIR=${PROJECT_SOURCE_DIR};CCPLAN_BIN=$<TARGET_FILE:ccplan>"
  TIMEOUT 120)
