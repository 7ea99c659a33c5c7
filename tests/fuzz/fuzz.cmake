# tests/fuzz/fuzz.cmake - the fuzz harnesses, one per input surface
# (docs/reliability.md, "Fuzzing").  Included from tests/CMakeLists.txt.
#
# In every build each harness is also an ordinary program (with replay.c)
# that CTest runs over the harness's corpus and regression inputs, so a
# crash found once stays fixed.  With CCPLAN_FUZZ=ON (clang; the whole
# project instrumented, see the top-level CMakeLists.txt) each harness is
# a libFuzzer target too: fuzz_yaml, fuzz_plan, fuzz_matrix, fuzz_cache,
# fuzz_exec.  `make fuzz-smoke` runs them (tests/fuzz/run.sh).
set(CCP_FUZZ_DIR ${CMAKE_CURRENT_LIST_DIR})
set(CCP_FUZZ_HARNESSES yaml plan matrix cache exec)

# What each replay runs besides tests/fuzz/NAME/{corpus,regress}: the
# YAML harness also every input of examples/ and the good and bad
# catalogues, from tests/good so that their `file:` names resolve.
set(CCP_FUZZ_EXTRA_yaml ${PROJECT_SOURCE_DIR}/examples
                        ${PROJECT_SOURCE_DIR}/tests/good
                        ${PROJECT_SOURCE_DIR}/tests/bad)
set(CCP_FUZZ_CWD_yaml ${PROJECT_SOURCE_DIR}/tests/good)
# The YAML harness bounds generated patterns (fuzz_yaml.c).
set(CCP_FUZZ_LINK_yaml -Wl,--wrap=ir_matrix_regular
                       -Wl,--wrap=ir_matrix_density
                       -Wl,--wrap=ir_matrix_skewed)
# The executing harness runs plans on the tests' loopback transport with
# guard zones around the buffers (tests/support/).
set(CCP_FUZZ_LIBS_exec ccp_test_support)

foreach(h ${CCP_FUZZ_HARNESSES})
  set(srcs ${CCP_FUZZ_DIR}/fuzz_${h}.c ${CCP_FUZZ_DIR}/fuzz_util.c)
  add_executable(fuzz_${h}_replay ${srcs} ${CCP_FUZZ_DIR}/replay.c)
  set(targets fuzz_${h}_replay)
  if(CCPLAN_FUZZ)
    add_executable(fuzz_${h} ${srcs})
    target_link_options(fuzz_${h} PRIVATE -fsanitize=fuzzer)
    list(APPEND targets fuzz_${h})
  endif()
  foreach(t ${targets})
    target_link_libraries(${t} PRIVATE ccp_compiler ccp_runtime_cache
                                       SQLite::SQLite3 ${CCP_FUZZ_LIBS_${h}})
    target_include_directories(${t} PRIVATE ${CCP_FUZZ_DIR}
                                            ${XXHASH_INCLUDE_DIR})
    target_link_options(${t} PRIVATE ${CCP_FUZZ_LINK_${h}})
  endforeach()

  set(inputs ${CCP_FUZZ_EXTRA_${h}})
  foreach(d corpus regress)
    if(EXISTS ${CCP_FUZZ_DIR}/${h}/${d})
      list(APPEND inputs ${CCP_FUZZ_DIR}/${h}/${d})
    endif()
  endforeach()
  set(cwd ${CCP_FUZZ_DIR})
  if(CCP_FUZZ_CWD_${h})
    set(cwd ${CCP_FUZZ_CWD_${h}})
  endif()
  add_test(NAME fuzz_${h}_replay COMMAND fuzz_${h}_replay ${inputs}
           WORKING_DIRECTORY ${cwd})
  set_tests_properties(fuzz_${h}_replay PROPERTIES LABELS fuzz TIMEOUT 120)
endforeach()
