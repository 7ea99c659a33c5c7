/*
 * scan_cmd.h - `ccplan scan`: the precompile step.  It finds the plans C
 * sources ask for (scan.h), compiles each plan's YAML input, and stores
 * the plans in the plan cache under their names, or writes them all into
 * one C file with a table the runtime looks names up in
 * (include/ccplan_lookup.h, docs/scan.md).
 */
#ifndef CCP_SCAN_CMD_H
#define CCP_SCAN_CMD_H

/* `ccplan scan FILES... [--cache PATH | --emit c -o OUT.c [--symbol S]]
 * [--yaml-dir DIR]... [-v] [-- FLAGS]`, called as cmd_scan(argc - 1,
 * argv + 1): argv[0] is "scan".  Returns the exit status (compile.h):
 * 0 done, 1 a plan rejected by the verifier, 2 bad input (a source, a
 * pragma, a missing or bad YAML, bad arguments), 3 internal.  Nothing is
 * written unless every plan compiled. */
int cmd_scan(int argc, char **argv);

#endif
