# The TCP sockets transport (backends/sockets.c, include/ccplan_sockets.h):
# library ccp_backend_sockets.  POSIX sockets, and libsodium (found by the
# top-level CMakeLists.txt) for the handshake that authenticates every
# connection.  Its ranks are started by `ccplan run`, its launcher
# (backends/sock_launch.c, library ccp_sock_launch, linked into the ccplan
# command); its tests are tests/backends/sockets.cmake (registered from
# tests/CMakeLists.txt).

# The private wire protocol and its handshake (sock_wire.h), shared by the
# transport, the launcher (ccp_sock_launch) and the tests that
# attack them; the only code that uses libsodium.  Installed with the
# transport, which needs it.
add_library(ccp_sock_wire STATIC ${CMAKE_CURRENT_LIST_DIR}/sock_wire.c)
target_include_directories(ccp_sock_wire
                           PUBLIC $<BUILD_INTERFACE:${CMAKE_CURRENT_LIST_DIR}>)
target_link_libraries(ccp_sock_wire PUBLIC ccp_ir PRIVATE PkgConfig::SODIUM)
set_target_properties(ccp_sock_wire PROPERTIES POSITION_INDEPENDENT_CODE ON)

# The launcher, `ccplan run`: the other end of the wire protocol.  It
# never links the runtime; the ccplan command links it.
add_library(ccp_sock_launch STATIC ${CMAKE_CURRENT_LIST_DIR}/sock_launch.c)
target_include_directories(ccp_sock_launch
                           PUBLIC $<BUILD_INTERFACE:${CMAKE_CURRENT_LIST_DIR}>)
target_link_libraries(ccp_sock_launch PRIVATE ccp_sock_wire)
set_target_properties(ccp_sock_launch PROPERTIES POSITION_INDEPENDENT_CODE ON)

# A job started by srun or mpirun instead is served by a thread of rank
# 0 running the launcher's loop (sock_coord_*): hence ccp_sock_launch and
# threads.
find_package(Threads REQUIRED)
add_library(ccp_backend_sockets STATIC ${CMAKE_CURRENT_LIST_DIR}/sockets.c)
target_link_libraries(ccp_backend_sockets PUBLIC ccp_runtime
                      PRIVATE ccp_sock_launch ccp_sock_wire Threads::Threads)
set_target_properties(ccp_backend_sockets PROPERTIES
                      POSITION_INDEPENDENT_CODE ON)
