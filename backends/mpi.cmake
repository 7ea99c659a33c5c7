# The MPI transport (backends/mpi.c, include/ccplan_mpi.h): library
# ccp_backend_mpi, built only when an MPI with a C binding is found; its
# tests are tests/mpi/mpi.cmake (registered from tests/CMakeLists.txt).
# Without MPI nothing here is built and the rest of the project is
# unaffected.
find_package(MPI COMPONENTS C QUIET)
if(NOT MPI_C_FOUND)
  message(STATUS "MPI not found: the MPI transport (ccp_backend_mpi) and "
                 "its tests are not built")
  return()
endif()

add_library(ccp_backend_mpi STATIC ${CMAKE_CURRENT_LIST_DIR}/mpi.c)
target_link_libraries(ccp_backend_mpi PUBLIC ccp_runtime MPI::MPI_C)
# mpi_ir.h: the MPI names of the IR's types, for the tests and the bench
target_include_directories(ccp_backend_mpi PUBLIC
                           $<BUILD_INTERFACE:${CMAKE_CURRENT_LIST_DIR}>)
set_target_properties(ccp_backend_mpi PROPERTIES POSITION_INDEPENDENT_CODE ON)
message(STATUS "MPI ${MPI_C_VERSION} found: building ccp_backend_mpi")
