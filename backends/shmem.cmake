# The OpenSHMEM transport (backends/shmem.c, include/ccplan_shmem.h):
# library ccp_backend_shmem, built only when an OpenSHMEM is found; its
# tests are tests/shmem/shmem.cmake (registered from tests/CMakeLists.txt).
# Without OpenSHMEM nothing here is built and the rest of the project is unaffected.
#
# Open MPI's OpenSHMEM (oshmem) has no pkg-config file and no CMake
# package: its compiler wrapper knows the flags, so ask it
# (oshcc --showme:incdirs, --showme:libdirs, --showme:libs) and look for
# shmem.h and the libraries where it says.  A pkg-config module named
# oshmem (other OpenSHMEMs may ship one) is tried first.
find_program(CCP_OSHCC NAMES oshcc shmemcc)
find_program(CCP_OSHRUN NAMES oshrun shmemrun)
mark_as_advanced(CCP_OSHCC CCP_OSHRUN)

# The include directories and library files found go straight onto
# ccp_backend_shmem (absolute paths), so that the installed, exported
# target (cmake/install.cmake) carries them without a helper target.
set(_ccp_shmem_found FALSE)
pkg_check_modules(CCP_OSHMEM_PC QUIET oshmem)
if(CCP_OSHMEM_PC_FOUND)
  set(_ccp_osh_incdirs ${CCP_OSHMEM_PC_INCLUDE_DIRS})
  set(_ccp_osh_libpaths ${CCP_OSHMEM_PC_LINK_LIBRARIES})
  set(_ccp_shmem_found TRUE)
elseif(CCP_OSHCC)
  foreach(what incdirs libdirs libs)
    execute_process(COMMAND ${CCP_OSHCC} --showme:${what}
                    OUTPUT_VARIABLE _out ERROR_QUIET
                    RESULT_VARIABLE _rc OUTPUT_STRIP_TRAILING_WHITESPACE)
    if(_rc EQUAL 0)
      separate_arguments(_ccp_osh_${what} UNIX_COMMAND "${_out}")
    else()
      set(_ccp_osh_${what} "")
    endif()
  endforeach()
  find_path(CCP_SHMEM_INCLUDE_DIR shmem.h HINTS ${_ccp_osh_incdirs}
            NO_DEFAULT_PATH)
  mark_as_advanced(CCP_SHMEM_INCLUDE_DIR)
  set(_ccp_osh_libpaths "")
  set(_ccp_osh_ok TRUE)
  foreach(lib ${_ccp_osh_libs})
    find_library(CCP_OSH_LIB_${lib} ${lib} HINTS ${_ccp_osh_libdirs})
    mark_as_advanced(CCP_OSH_LIB_${lib})
    if(CCP_OSH_LIB_${lib})
      list(APPEND _ccp_osh_libpaths ${CCP_OSH_LIB_${lib}})
    else()
      set(_ccp_osh_ok FALSE)
    endif()
  endforeach()
  if(CCP_SHMEM_INCLUDE_DIR AND _ccp_osh_ok AND _ccp_osh_libpaths)
    set(_ccp_shmem_found TRUE)
  endif()
endif()

if(NOT _ccp_shmem_found)
  message(STATUS "OpenSHMEM not found (no oshcc, no pkg-config oshmem): "
                 "the OpenSHMEM transport (ccp_backend_shmem) and its "
                 "tests are not built")
  return()
endif()

add_library(ccp_backend_shmem STATIC ${CMAKE_CURRENT_LIST_DIR}/shmem.c)
# SYSTEM: shmem.h is not ours to keep free of -Wpedantic warnings
target_include_directories(ccp_backend_shmem SYSTEM PUBLIC
                           ${_ccp_osh_incdirs})
target_link_libraries(ccp_backend_shmem PUBLIC ccp_runtime
                                               ${_ccp_osh_libpaths})
set_target_properties(ccp_backend_shmem PROPERTIES
                      POSITION_INDEPENDENT_CODE ON)
message(STATUS "OpenSHMEM found: building ccp_backend_shmem")
