# ccplanOpenSHMEM.cmake - find an OpenSHMEM and give it as the imported
# target OpenSHMEM::OpenSHMEM (its include directories and libraries).
#
# ccplan's build uses it (backends/shmem.cmake), and the installed package
# uses it again for its shmem component (ccplanConfig.cmake), so that the
# exported ccplan::backend_shmem names this target and no library path:
# the libraries are found on the machine that builds the application.
#
#   ccplan_find_openshmem(<found-var> [GLOBAL])
#
# sets <found-var> to TRUE when the target exists (GLOBAL: visible in
# every directory of the project, as ccplan's own build needs).
#
# Open MPI's OpenSHMEM (oshmem) has no pkg-config file and no CMake
# package: its compiler wrapper knows the flags, so ask it (oshcc
# --showme:incdirs, --showme:libdirs, --showme:libs) and look for shmem.h
# and the libraries where it says.  A pkg-config module named oshmem
# (other OpenSHMEMs may ship one) is tried first.  Set CCP_OSHCC to the
# wrapper to use another one than the first oshcc or shmemcc on the PATH.
include_guard(GLOBAL)

function(ccplan_find_openshmem found)
  cmake_parse_arguments(A "GLOBAL" "" "" ${ARGN})
  set(${found} FALSE PARENT_SCOPE)
  if(TARGET OpenSHMEM::OpenSHMEM)
    set(${found} TRUE PARENT_SCOPE)
    return()
  endif()
  set(global "")
  if(A_GLOBAL)
    set(global GLOBAL)
  endif()

  find_package(PkgConfig QUIET)
  if(PKG_CONFIG_FOUND)
    pkg_check_modules(CCP_OSHMEM_PC QUIET IMPORTED_TARGET ${global} oshmem)
  endif()
  if(CCP_OSHMEM_PC_FOUND)
    add_library(OpenSHMEM::OpenSHMEM INTERFACE IMPORTED ${global})
    set_target_properties(OpenSHMEM::OpenSHMEM PROPERTIES
                          INTERFACE_LINK_LIBRARIES PkgConfig::CCP_OSHMEM_PC)
    set(${found} TRUE PARENT_SCOPE)
    return()
  endif()

  find_program(CCP_OSHCC NAMES oshcc shmemcc)
  mark_as_advanced(CCP_OSHCC)
  if(NOT CCP_OSHCC)
    return()
  endif()
  foreach(what incdirs libdirs libs)
    execute_process(COMMAND ${CCP_OSHCC} --showme:${what}
                    OUTPUT_VARIABLE out ERROR_QUIET
                    RESULT_VARIABLE rc OUTPUT_STRIP_TRAILING_WHITESPACE)
    set(${what} "")
    if(rc EQUAL 0)
      separate_arguments(${what} UNIX_COMMAND "${out}")
    endif()
  endforeach()
  find_path(CCP_SHMEM_INCLUDE_DIR shmem.h HINTS ${incdirs} NO_DEFAULT_PATH)
  mark_as_advanced(CCP_SHMEM_INCLUDE_DIR)
  if(NOT CCP_SHMEM_INCLUDE_DIR OR NOT libs)
    return()
  endif()
  set(paths "")
  foreach(lib ${libs})
    find_library(CCP_OSH_LIB_${lib} ${lib} HINTS ${libdirs})
    mark_as_advanced(CCP_OSH_LIB_${lib})
    if(NOT CCP_OSH_LIB_${lib})
      return()
    endif()
    list(APPEND paths ${CCP_OSH_LIB_${lib}})
  endforeach()
  add_library(OpenSHMEM::OpenSHMEM INTERFACE IMPORTED ${global})
  # an imported target's include directories are SYSTEM for its users:
  # shmem.h is not ours to keep free of -Wpedantic warnings
  set_target_properties(OpenSHMEM::OpenSHMEM PROPERTIES
                        INTERFACE_INCLUDE_DIRECTORIES "${incdirs}"
                        INTERFACE_LINK_LIBRARIES "${paths}")
  set(${found} TRUE PARENT_SCOPE)
endfunction()
