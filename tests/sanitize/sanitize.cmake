# tests/sanitize/sanitize.cmake - what the MPI and OpenSHMEM tests need in
# a sanitizer build (CCPLAN_SANITIZE), included from the top-level
# CMakeLists.txt.  docs/reliability.md, "Memory" explains each setting.
#
#   ccp_sanitize_mpi(TARGET)  link tests/sanitize/keep_plugins.c into a
#                             program that runs under mpirun or oshrun
#   CCP_SANITIZE_MPI_ENV      the environment of such a test:
#                             LeakSanitizer's suppressions of Open MPI's
#                             own blocks, with full stacks
#   CCP_SANITIZE_SHMEM_ENV    and of an OpenSHMEM test: also the symmetric
#                             heap moved out of AddressSanitizer's shadow
#
# Outside a sanitizer build the function does nothing and the lists are
# empty.
set(CCP_SANITIZE_MPI_ENV "")
set(CCP_SANITIZE_SHMEM_ENV "")
if(CCPLAN_SANITIZE)
  # fast_unwind_on_malloc=0: Open MPI is built without frame pointers, so
  # the fast unwinder stops at its first frame (often libc's asprintf)
  # and the stack would not show whose block it is.
  set(_ccp_lsan "suppressions=${CMAKE_CURRENT_LIST_DIR}/lsan.supp:fast_unwind_on_malloc=0:print_suppressions=0")
  set(CCP_SANITIZE_MPI_ENV "LSAN_OPTIONS=${_ccp_lsan}")
  # Open MPI's OpenSHMEM maps its symmetric heap at 0xff000000 by
  # default, inside AddressSanitizer's shadow gap on x86-64, where the
  # first memset faults; 0x500000000000 is ordinary application memory
  # for ASan (above 0x10007fff8000, below its allocator at 0x600000000000).
  # With 8 PEs, LeakSanitizer's scan of the threads' TLS faults in most
  # of them (ScanRangeForPointers, in a range near address 0): the TLS is
  # not scanned (use_tls=0), which can only add reports, never hide one.
  set(CCP_SANITIZE_SHMEM_ENV "LSAN_OPTIONS=${_ccp_lsan}:use_tls=0"
      OMPI_MCA_memheap_base_start_address=0x500000000000)
endif()

function(ccp_sanitize_mpi target)
  if(CCPLAN_SANITIZE)
    target_sources(${target} PRIVATE
                   ${PROJECT_SOURCE_DIR}/tests/sanitize/keep_plugins.c)
    target_link_options(${target} PRIVATE
                        LINKER:--export-dynamic-symbol=dlclose)
  endif()
endfunction()
