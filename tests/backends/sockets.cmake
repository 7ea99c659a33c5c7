# Tests of the sockets transport and `ccplan run` (label runtime):
# sock_collectives is one rank of a test job; sockets_test.sh compiles
# plans of every collective at 2, 4 and 8 ranks and runs them through
# ccplan run (sockets_collectives), breaks jobs on purpose and checks that
# every rank fails in time (sockets_faults), and exercises the launcher
# itself (sockets_launcher); sock_intruder attacks jobs as a local user
# without the key would (sockets_security).  Included from
# tests/CMakeLists.txt.
if(NOT BUILD_TESTING OR NOT TARGET ccp_backend_sockets)
  return()
endif()

add_executable(sock_collectives
               ${PROJECT_SOURCE_DIR}/tests/backends/sock_collectives.c)
# ccp_ir for the codec: the test reads the whole plan to know what every
# rank must receive
target_link_libraries(sock_collectives PRIVATE ccp_backend_sockets ccp_ir)

# a stranger without the job's key: the wire protocol is private
add_executable(sock_intruder
               ${PROJECT_SOURCE_DIR}/tests/backends/sock_intruder.c)
target_link_libraries(sock_intruder PRIVATE ccp_sock_wire ccp_runtime)

foreach(part collectives faults launcher security launchers)
  add_test(NAME sockets_${part}
           COMMAND ${PROJECT_SOURCE_DIR}/tests/backends/sockets_test.sh
                   $<TARGET_FILE:ccplan> $<TARGET_FILE:sock_collectives>
                   ${part})
  set_tests_properties(sockets_${part} PROPERTIES LABELS runtime
                       TIMEOUT 300)
endforeach()
