# The TCP sockets transport (backends/sockets.c, include/ccplan_sockets.h):
# library ccp_backend_sockets.  POSIX sockets only, so it is always built.
# Its ranks are started by `ccplan run` (compiler/run_cmd.c); its tests
# are tests/runtime/sockets.cmake.
add_library(ccp_backend_sockets STATIC ${CMAKE_CURRENT_LIST_DIR}/sockets.c)
target_link_libraries(ccp_backend_sockets PUBLIC ccp_runtime)
set_target_properties(ccp_backend_sockets PROPERTIES
                      POSITION_INDEPENDENT_CODE ON)

# The tests need the ccplan command and CTest, which the top-level
# CMakeLists.txt sets up after this directory (include(CTest) comes last):
# read tests/runtime/sockets.cmake at the end of the top-level directory.
cmake_language(DEFER DIRECTORY ${PROJECT_SOURCE_DIR}
               CALL include ${PROJECT_SOURCE_DIR}/tests/runtime/sockets.cmake)
