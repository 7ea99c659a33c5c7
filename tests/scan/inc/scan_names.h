/*
 * scan_names.h - test_scan: plan names as macros, in a header found
 * through -I, and a pragma that maps a string name to its YAML (relative
 * to this header's directory).  CCPLAN_SCAN hides the pragma from the
 * compiler, which would warn about it under -Wall.
 */
#ifndef SCAN_NAMES_H
#define SCAN_NAMES_H

#define BCAST    "bcast_1k"
#define ALLTOALL "alltoall-8"

#ifdef CCPLAN_SCAN
#pragma ccplan plan("alltoall-8", "../data/alltoall8.yaml")
#endif

#endif
