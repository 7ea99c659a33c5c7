# The OpenSHMEM transport (backends/shmem.c, include/ccplan_shmem.h):
# library ccp_backend_shmem, built only when an OpenSHMEM is found; its
# tests are tests/shmem/shmem.cmake (registered from tests/CMakeLists.txt).
# Without OpenSHMEM nothing here is built and the rest of the project is unaffected.
#
# The OpenSHMEM is found by cmake/ccplanOpenSHMEM.cmake (oshcc --showme,
# or a pkg-config module oshmem), as the imported target
# OpenSHMEM::OpenSHMEM; the installed package finds it the same way, so
# the exported ccplan::backend_shmem carries no library path.
find_program(CCP_OSHRUN NAMES oshrun shmemrun)
mark_as_advanced(CCP_OSHRUN)

include(${PROJECT_SOURCE_DIR}/cmake/ccplanOpenSHMEM.cmake)
ccplan_find_openshmem(_ccp_shmem_found GLOBAL)
if(NOT _ccp_shmem_found)
  message(STATUS "OpenSHMEM not found (no oshcc, no pkg-config oshmem): "
                 "the OpenSHMEM transport (ccp_backend_shmem) and its "
                 "tests are not built")
  return()
endif()

add_library(ccp_backend_shmem STATIC ${CMAKE_CURRENT_LIST_DIR}/shmem.c)
target_link_libraries(ccp_backend_shmem PUBLIC ccp_runtime
                                               OpenSHMEM::OpenSHMEM)
set_target_properties(ccp_backend_shmem PROPERTIES
                      POSITION_INDEPENDENT_CODE ON)
message(STATUS "OpenSHMEM found: building ccp_backend_shmem")
