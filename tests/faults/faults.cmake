# Faults produced for real (label faults): the plan cache killed, damaged,
# on a full disk and in a read-only directory, and every command's output
# file made to fail mid-write (cache_faults.sh; cache_poke damages the
# database behind the cache's back).  Mounts (tmpfs, read-only bind) need
# root; without it the script falls back to ulimit -f, another user or
# chmod, and says so.
add_executable(cache_poke ${CMAKE_CURRENT_LIST_DIR}/cache_poke.c
                          ${CMAKE_CURRENT_LIST_DIR}/../fuzz/fuzz_util.c)
target_include_directories(cache_poke PRIVATE ${XXHASH_INCLUDE_DIR}
                                              ${CMAKE_CURRENT_LIST_DIR}/../fuzz)
target_link_libraries(cache_poke PRIVATE ccp_ir SQLite::SQLite3)

foreach(part kill flip full readonly output seal)
  add_test(NAME faults_${part}
           COMMAND ${CMAKE_CURRENT_LIST_DIR}/cache_faults.sh
                   $<TARGET_FILE:ccplan> $<TARGET_FILE:cache_poke> ${part})
  set_tests_properties(faults_${part} PROPERTIES LABELS faults TIMEOUT 300)
endforeach()
# the kills are timed against the compile's own duration: not beside
# another CPU-heavy test
set_tests_properties(faults_kill PROPERTIES RUN_SERIAL TRUE)
