# The inspector of irregular-problem runtimes (runtime/inspector/,
# include/ccplan_inspector.h, docs/inspector.md): library ccp_inspector.
# Its machine model (ccplan_machine.h, machine.c) reads YAML with the
# compiler's front end, ccp_front, and so libyaml.
# It is kept out of ccp_runtime because it needs the scheduler and SQLite;
# an application that only executes plans links ccp_runtime alone.
# Include this file from the top-level CMakeLists.txt, after the
# libraries ccp_runtime, ccp_schedules and ccp_cache are defined.  Its
# tests are tests/inspector/inspector.cmake (from tests/CMakeLists.txt).
add_library(ccp_inspector STATIC
            ${CMAKE_CURRENT_LIST_DIR}/inspector.c
            ${CMAKE_CURRENT_LIST_DIR}/machine.c)
target_include_directories(ccp_inspector
  PUBLIC $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/include>
  PRIVATE ${XXHASH_INCLUDE_DIR})
target_link_libraries(ccp_inspector PUBLIC ccp_runtime ccp_schedules ccp_cache
                                            ccp_front)
set_target_properties(ccp_inspector PROPERTIES POSITION_INDEPENDENT_CODE ON)
