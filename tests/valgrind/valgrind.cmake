# tests/valgrind/valgrind.cmake - the command under valgrind's memcheck
# (label `valgrind`, docs/reliability.md, "Memory"), included from
# tests/CMakeLists.txt.  The test takes five examples that between them
# reach every part the command has (a mesh with `algorithm: auto`, which
# runs the model and the simulator; an irregular pattern; HPAM; a
# hypercube; a torus), about 20 s each under memcheck; `make valgrind`
# takes every example (about 10 min, most of it examples/delta-alltoall).
# Not in a sanitizer build: valgrind cannot run AddressSanitizer's
# programs.
find_program(CCP_VALGRIND valgrind)
mark_as_advanced(CCP_VALGRIND)
if(CCPLAN_SANITIZE)
  return()
endif()
if(NOT CCP_VALGRIND)
  message(STATUS "valgrind not found: the test `valgrind` is not registered")
  return()
endif()
set(_ccp_vg_examples mesh16-auto mesh8-link-aware hpam-scatter
                     hypercube-pipelined torus8-ytf)
list(TRANSFORM _ccp_vg_examples PREPEND ${PROJECT_SOURCE_DIR}/examples/)
list(TRANSFORM _ccp_vg_examples APPEND .yaml)
add_test(NAME valgrind
         COMMAND ${CMAKE_CURRENT_LIST_DIR}/valgrind_test.sh
                 $<TARGET_FILE:ccplan> ${_ccp_vg_examples})
set_tests_properties(valgrind PROPERTIES LABELS valgrind TIMEOUT 900)
