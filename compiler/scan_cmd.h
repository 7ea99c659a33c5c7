/*
 * scan_cmd.h - `ccplan scan`: the precompile step.  It finds the plans C
 * sources ask for (scan.h), compiles each plan's YAML input, and stores
 * the plans in the plan cache under their names, or writes them all into
 * one C file with a table the runtime looks names up in
 * (include/ccplan_lookup.h, docs/scan.md).
 */
#ifndef CCP_SCAN_CMD_H
#define CCP_SCAN_CMD_H

#include <stdbool.h>
#include <stddef.h>

/* The set symbol's default, and its longest (which leaves room for
 * "_NNN_name" in 63 characters). */
#define SCAN_SYMBOL_DEFAULT "ccplan_plans"
#define SCAN_SYMBOL_MAX     40

/* What `ccplan scan` is asked (the command line parses it: cli/). */
struct scan_opts {
	const char *const *files; /* sources, in order */
	size_t nfiles;            /* how many, at least 1 */
	const char *const *dirs;  /* --yaml-dir, in order */
	size_t ndirs;             /* how many */
	const char *const *flags; /* after --, for libclang */
	int nflags;               /* how many */
	const char *cache_path;   /* --cache, or NULL: the default */
	const char *out;          /* -o, with emit */
	const char *symbol;       /* --symbol, or SCAN_SYMBOL_DEFAULT */
	const char *depfile;      /* --depfile, or NULL */
	bool emit;                /* --emit c */
	bool verbose;             /* -v */
};

/* Scan o->files, compile each plan they ask for, and store the plans in
 * the cache or (emit) write them into o->out.  Prints every problem
 * ("ccplan scan: ...", file:line:column for sources, pragmas and YAML).
 * Returns the exit status (compile.h): 0 done, 1 a plan rejected by the
 * verifier, 2 bad input (a source, a pragma, a missing or bad YAML), 3
 * internal.  Nothing is written unless every plan compiled. */
int scan_run(const struct scan_opts *o);

#endif
