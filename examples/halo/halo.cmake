# The halo-exchange example (examples/halo/halo.c, README.md there): an
# MPI program using the inspector (ccp_inspector) and the MPI transport
# (ccp_backend_mpi).  Built only when the MPI transport is; include this
# file from the top-level CMakeLists.txt after backends/ and the
# inspector.  Its tests (two runs through mpirun: the first must miss the
# plan cache and store the plan, the second must hit it) are
# tests/inspector/halo.cmake, registered from tests/CMakeLists.txt.
if(TARGET ccp_backend_mpi AND TARGET ccp_inspector)
  add_executable(halo ${PROJECT_SOURCE_DIR}/examples/halo/halo.c)
  target_link_libraries(halo PRIVATE ccp_inspector ccp_backend_mpi m)
  ccp_sanitize_mpi(halo) # tests/sanitize/sanitize.cmake
endif()
