# ccplanPlans.cmake - compile communication plans as part of a build.
#
# ccplan_add_plans(TARGET app YAML a.yaml [b.yaml ...])
#   Each YAML is compiled at build time with `ccplan compile --emit c`
#   into <binary dir>/ccplan/<name>.c, whose one symbol is
#   `const struct ccp_emitted_plan <name>` (<name>: the YAML's base name
#   made a C identifier; declare it with CCP_EMITTED_PLAN(name) or
#   `extern const struct ccp_emitted_plan name;`).  The files are added to
#   the target, which is linked with ccplan::runtime; a changed YAML is
#   compiled again.
#
# ccplan_scan_sources(TARGET app [SOURCES s.c ...])
#   Runs `ccplan scan` over the target's C sources (or SOURCES) with the
#   target's include directories and definitions, and adds the one C file
#   it writes: every plan the sources ask for (ccp_plan_lookup calls with a
#   literal name, `#pragma ccplan plan(NAME, "file.yaml")`), in the set
#   `ccplan_plans` (ccplan_lookup.h).  It runs again when a source or a
#   YAML it read changes (a depfile).  The target is linked with
#   ccplan::runtime_cache, the library of ccp_plan_lookup, which reads the
#   plan cache (SQLite) for a name no linked set has.

function(_ccplan_command out)
  if(TARGET ccplan::ccplan)
    set(${out} ccplan::ccplan PARENT_SCOPE)
  elseif(TARGET ccplan)
    set(${out} ccplan PARENT_SCOPE)
  else()
    message(FATAL_ERROR "ccplan: no ccplan command target")
  endif()
endfunction()

# The library NAME (runtime, or runtime_cache: ccp_plan_lookup, which the
# scanned sources call, reads the plan cache when no linked set has the
# name): the installed package's target, or in ccplan's own build its
# target ccp_NAME.  An installed package found without the component of
# the target (COMPONENTS) is told which one to ask for.
function(_ccplan_library out name component)
  if(TARGET ccplan::${name})
    set(${out} ccplan::${name} PARENT_SCOPE)
  elseif(TARGET ccp_${name})
    set(${out} ccp_${name} PARENT_SCOPE)
  else()
    message(FATAL_ERROR "ccplan: no target ccplan::${name}: find the package "
                        "with its component, find_package(ccplan COMPONENTS "
                        "${component})")
  endif()
endfunction()

function(ccplan_add_plans)
  cmake_parse_arguments(A "" "TARGET" "YAML" ${ARGN})
  if(NOT A_TARGET OR NOT A_YAML)
    message(FATAL_ERROR "ccplan_add_plans(TARGET t YAML a.yaml ...)")
  endif()
  _ccplan_command(cc)
  _ccplan_library(rt runtime runtime)
  set(dir ${CMAKE_CURRENT_BINARY_DIR}/ccplan)
  file(MAKE_DIRECTORY ${dir})
  foreach(y ${A_YAML})
    get_filename_component(abs ${y} ABSOLUTE)
    get_filename_component(base ${y} NAME_WE)
    string(MAKE_C_IDENTIFIER ${base} name)
    set(out ${dir}/${name}.c)
    add_custom_command(
      OUTPUT ${out}
      COMMAND ${cc} compile ${abs} --emit c --name ${name} -o ${out}
              --no-cache
      DEPENDS ${abs} ${cc}
      COMMENT "ccplan: compiling plan ${name}"
      VERBATIM)
    target_sources(${A_TARGET} PRIVATE ${out})
  endforeach()
  target_link_libraries(${A_TARGET} PRIVATE ${rt})
endfunction()

function(ccplan_scan_sources)
  cmake_parse_arguments(A "" "TARGET" "SOURCES" ${ARGN})
  if(NOT A_TARGET)
    message(FATAL_ERROR "ccplan_scan_sources(TARGET t [SOURCES ...])")
  endif()
  _ccplan_command(cc)
  _ccplan_library(rt runtime_cache cache)
  set(srcs ${A_SOURCES})
  if(NOT srcs)
    get_target_property(srcs ${A_TARGET} SOURCES)
    list(FILTER srcs INCLUDE REGEX "\\.c$")
  endif()
  set(abs_srcs "")
  foreach(s ${srcs})
    get_filename_component(a ${s} ABSOLUTE)
    list(APPEND abs_srcs ${a})
  endforeach()
  set(dir ${CMAKE_CURRENT_BINARY_DIR}/ccplan)
  file(MAKE_DIRECTORY ${dir})
  set(out ${dir}/${A_TARGET}_plans.c)
  set(inc "$<TARGET_PROPERTY:${A_TARGET},INCLUDE_DIRECTORIES>")
  set(def "$<TARGET_PROPERTY:${A_TARGET},COMPILE_DEFINITIONS>")
  add_custom_command(
    OUTPUT ${out}
    COMMAND ${cc} scan ${abs_srcs} --emit c -o ${out} --depfile ${out}.d --
            "$<$<BOOL:${inc}>:-I$<JOIN:${inc},;-I>>"
            "$<$<BOOL:${def}>:-D$<JOIN:${def},;-D>>"
    DEPENDS ${abs_srcs} ${cc}
    DEPFILE ${out}.d
    COMMENT "ccplan: scanning ${A_TARGET}'s sources for plans"
    COMMAND_EXPAND_LISTS
    VERBATIM)
  target_sources(${A_TARGET} PRIVATE ${out})
  target_link_libraries(${A_TARGET} PRIVATE ${rt})
endfunction()
