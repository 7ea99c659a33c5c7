# tests/alloc/alloc.cmake - allocation-failure testing (label `alloc`,
# docs/reliability.md, "Memory").  Included from tests/CMakeLists.txt.
#
# alloc_fail: pieces of the compiler, the cache and the runtime, in
#   process, with the N-th allocation failing, for every N.
# alloc_fail_cli: `ccplan compile` as a whole, with the N-th allocation
#   of the process failing (through the preload library
#   libccp_failing_malloc.so), for every N.
# Both replace malloc, which AddressSanitizer replaces too: in a
# sanitizer build they report themselves skipped (exit status 77).
set(_ccp_alloc ${CMAKE_CURRENT_LIST_DIR})

if(CCPLAN_SANITIZE)
  set(_ccp_alloc_src ${_ccp_alloc}/alloc_fail.c)
else()
  set(_ccp_alloc_src ${_ccp_alloc}/alloc_fail.c ${_ccp_alloc}/failing_malloc.c)
endif()
add_executable(alloc_fail ${_ccp_alloc_src})
target_link_libraries(alloc_fail PRIVATE ccp_compiler ccp_runtime
                                         ${CMOCKA_LIBRARIES})
target_include_directories(alloc_fail PRIVATE ${CMOCKA_INCLUDE_DIR}
                                              ${XXHASH_INCLUDE_DIR})
add_test(NAME alloc_fail COMMAND alloc_fail)
set_tests_properties(alloc_fail PROPERTIES LABELS alloc TIMEOUT 300
                     SKIP_RETURN_CODE 77)

# One test per way of compiling (no-cache, miss, hit), so that ctest -j
# runs them side by side: together they make about 2,800 runs.
if(NOT CCPLAN_SANITIZE)
  add_library(ccp_failing_malloc SHARED ${_ccp_alloc}/failing_malloc.c)
  target_compile_definitions(ccp_failing_malloc PRIVATE FM_PRELOAD)
endif()
foreach(way no-cache miss hit)
  if(CCPLAN_SANITIZE)
    add_test(NAME alloc_fail_cli_${way}
             COMMAND sh -c "echo 'skipped: AddressSanitizer replaces malloc'; exit 77")
  else()
    add_test(NAME alloc_fail_cli_${way}
             COMMAND ${_ccp_alloc}/alloc_fail_cli.sh $<TARGET_FILE:ccplan>
                     $<TARGET_FILE:ccp_failing_malloc> ${_ccp_alloc}/small.yaml
                     ${way})
  endif()
  set_tests_properties(alloc_fail_cli_${way} PROPERTIES LABELS alloc
                       TIMEOUT 900 SKIP_RETURN_CODE 77)
endforeach()
