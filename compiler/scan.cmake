# compiler/scan.cmake - libclang for `ccplan scan` (compiler/scan.c), and
# the runtime's plan lookup by name (runtime/lookup/lookup.c) while
# ccp_runtime does not build it itself.
#
# Include it from the top CMakeLists.txt after the ccp_compiler and
# ccp_runtime targets:   include(compiler/scan.cmake)
# It also works as -DCMAKE_PROJECT_INCLUDE=.../compiler/scan.cmake, which
# CMake reads right after project(), before those targets exist: the part
# that needs them is then deferred to the end of the top directory.
#
# scan.c is compiled against libclang's C headers but does not link it:
# it dlopens the library the first time a scan needs it, because linking
# it loads LLVM into every ccplan command (45 ms and 55 MB more for
# `ccplan --version`; the cli test took 60 s instead of 40 s).  The path
# found here is built in (CCPLAN_LIBCLANG_SO, and the library's soname);
# the environment variable CCPLAN_LIBCLANG overrides it at run time.
# Without libclang's headers, scan.c builds a stub and `ccplan scan` says
# it is not available.  Set CCPLAN_LIBCLANG_INCLUDE_DIR and
# CCPLAN_LIBCLANG to use another libclang.
include_guard(GLOBAL)

file(GLOB _ccp_llvm_dirs LIST_DIRECTORIES true /usr/lib/llvm-*
     /usr/local/opt/llvm)
list(SORT _ccp_llvm_dirs COMPARE NATURAL ORDER DESCENDING)
set(_ccp_llvm_inc)
set(_ccp_llvm_lib)
foreach(d ${_ccp_llvm_dirs})
  list(APPEND _ccp_llvm_inc ${d}/include)
  list(APPEND _ccp_llvm_lib ${d}/lib)
endforeach()
find_path(CCPLAN_LIBCLANG_INCLUDE_DIR clang-c/Index.h HINTS ${_ccp_llvm_inc})
find_library(CCPLAN_LIBCLANG
             NAMES clang clang-20 clang-19 clang-18 clang-17 clang-16
                   clang-15 clang-14 clang-13
             HINTS ${_ccp_llvm_lib})

function(ccplan_scan_setup)
  if(CCPLAN_LIBCLANG_INCLUDE_DIR AND CCPLAN_LIBCLANG)
    # the soname, so that the runtime package's library is found even
    # where the development symlink is not installed
    set(_soname)
    find_program(_ccp_objdump NAMES objdump)
    if(_ccp_objdump)
      execute_process(COMMAND ${_ccp_objdump} -p ${CCPLAN_LIBCLANG}
                      OUTPUT_VARIABLE _dump ERROR_QUIET)
      string(REGEX MATCH "SONAME +([^\n ]+)" _m "${_dump}")
      set(_soname ${CMAKE_MATCH_1})
    endif()
    target_include_directories(ccp_compiler SYSTEM PRIVATE
                               ${CCPLAN_LIBCLANG_INCLUDE_DIR})
    target_compile_definitions(ccp_compiler PRIVATE CCPLAN_HAVE_LIBCLANG=1
      CCPLAN_LIBCLANG_SO="${CCPLAN_LIBCLANG}")
    if(_soname)
      target_compile_definitions(ccp_compiler PRIVATE
                                 CCPLAN_LIBCLANG_SONAME="${_soname}")
    endif()
    target_link_libraries(ccp_compiler PUBLIC ${CMAKE_DL_LIBS})
    message(STATUS "ccplan scan: libclang ${CCPLAN_LIBCLANG} (${_soname}), "
                   "loaded when a scan runs")
  else()
    message(STATUS "ccplan scan: libclang not found; `ccplan scan` will "
                   "say it is not available")
  endif()
  # plans by name at run time are in the cache loader's library,
  # ccp_runtime_cache (CMakeLists.txt)
endfunction()

if(TARGET ccp_compiler AND TARGET ccp_runtime)
  ccplan_scan_setup()
else()
  cmake_language(DEFER DIRECTORY ${CMAKE_SOURCE_DIR} CALL ccplan_scan_setup)
endif()
