/*
 * ccplan_export.h - CCP_EXTERN, the mark of a public function of the
 * ccplan libraries.  The libraries are compiled with hidden visibility
 * (C_VISIBILITY_PRESET, cmake/install.cmake), so that a shared object an
 * application builds from them exports the public API (ccp_*) and none
 * of the library's own functions (ir_*, cache_*, ccp__*); every function
 * declared in the installed headers carries CCP_EXTERN.  Included by
 * ccplan_errors.h, and so by every public header.
 */
#ifndef CCPLAN_EXPORT_H
#define CCPLAN_EXPORT_H

#if defined(__GNUC__) || defined(__clang__)
#define CCP_EXTERN __attribute__((visibility("default")))
#else
#define CCP_EXTERN
#endif

#endif
