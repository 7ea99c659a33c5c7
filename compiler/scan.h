/*
 * scan.h - finding the plans a C program asks for (`ccplan scan`,
 * docs/scan.md).  A source asks for a plan in two ways: a call
 * ccp_plan_lookup(ctx, "NAME", rank, &plan) whose name argument is a
 * string literal after preprocessing, and a line
 * `#pragma ccplan plan(NAME, "file.yaml")` that also says which YAML
 * input the name stands for.  scan_source parses one source with libclang
 * (the build's -D and -I flags apply) and collects both; scan_resolve then
 * maps every distinct name to its YAML file.
 *
 * Nothing here prints: problems are diagnostics at file:line:column
 * (struct diag of front.h), collected in the scan so that a command can
 * report all of them.  Built without libclang (CCPLAN_HAVE_LIBCLANG
 * undefined), scan_source fails with CCP_EINTERNAL and says so.
 */
#ifndef CCP_SCAN_H
#define CCP_SCAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "front.h"

/* Longest plan name, in bytes without the NUL (as CACHE_PLAN_NAME_MAX). */
#define SCAN_NAME_MAX 255
/* The function whose calls are plan requests (include/ccplan_lookup.h). */
#define SCAN_LOOKUP_FN "ccp_plan_lookup"
/* Defined (to 1) while ccplan scan parses a source, so that a source can
 * hide its pragmas from the compiler: #ifdef CCPLAN_SCAN ... #endif. */
#define SCAN_MACRO "CCPLAN_SCAN"

/* How a source asked for a plan. */
enum scan_form {
	SCAN_CALL,  /* ccp_plan_lookup(ctx, "NAME", rank, &plan) */
	SCAN_PRAGMA /* #pragma ccplan plan(NAME, "file.yaml") */
};

/* A position in a source or header, as the user wrote it. */
struct scan_pos {
	char *file; /* path as the compiler found it (malloc'd) */
	int line;   /* 1-based */
	int column; /* 1-based, in bytes */
};

/* One request for a plan. */
struct scan_req {
	enum scan_form form; /* call or pragma */
	char *name;          /* the plan's name (malloc'd) */
	struct scan_pos at;  /* the call (where it is expanded) or the
	                        pragma's name */
	char *yaml;          /* pragma: the file as written, resolved against
	                        the pragma's directory (malloc'd); call: NULL */
	struct scan_pos yaml_at; /* pragma: the file's string; call: unused */
};

/* A call that is not a request (its name is not a literal), for -v. */
struct scan_note {
	struct scan_pos at; /* the call */
	char *message;      /* what and why (malloc'd) */
};

/* Everything the scan of a set of sources found.  Zero it (or
 * scan_init) before the first scan_source; scan_fini frees it. */
struct scan {
	struct scan_req *reqs; /* requests, in the order found */
	size_t nreqs, capreqs;
	struct scan_note *notes; /* calls that are not requests */
	size_t nnotes, capnotes;
	struct diag *errors; /* problems, in the order found */
	size_t nerrors, caperrors;
	struct scan_seen *seen; /* files and calls already taken, so a
	                           header scanned by several sources counts
	                           once (scan.c) */
	size_t nseen, capseen;
};

/* One distinct plan: a name and the YAML file it stands for. */
struct scan_plan {
	const char *name;          /* borrowed from the request */
	char *yaml;                /* the file, as a path from the current
	                              directory (malloc'd) */
	const struct scan_req *by; /* the request that decided the file: the
	                              pragma, else the first call */
};

void scan_init(struct scan *s);
void scan_fini(struct scan *s);

/* Parse the C source at path with libclang, given the compiler flags
 * args[0..nargs) (as after `--`: -D, -I, -std ...; SCAN_MACRO is defined
 * first), and add what it asks for to s: every call of SCAN_LOOKUP_FN in
 * it and in the headers it includes (not system headers), and every
 * `#pragma ccplan` line of the file and those headers that the
 * preprocessor does not skip.  Returns 0; CCP_EPARSE when the source has
 * errors (a malformed pragma, a bad name, an error the compiler reports:
 * each added to s->errors); CCP_EIO if path cannot be read; CCP_ENOMEM;
 * CCP_EINTERNAL if libclang fails or is not built in (said in
 * s->errors). */
int scan_source(struct scan *s, const char *path, const char *const *args,
                int nargs);

/* Map every distinct name of s to its YAML file: the file of a pragma
 * naming it (in any source scanned), else NAME.yaml in the directory of
 * the file holding the first call, else in each of dirs[0..ndirs) in
 * order.  *plans (malloc'd, free with scan_plans_free) gets the plans
 * sorted by name.  Returns 0, or CCP_EPARSE with an error in s->errors
 * for each pragma whose file does not exist, each name two pragmas map to
 * different files, and each call whose file cannot be found (at the
 * position of the pragma's file string, the second pragma's name, and the
 * call); CCP_ENOMEM. */
int scan_resolve(struct scan *s, const char *const *dirs, size_t ndirs,
                 struct scan_plan **plans, size_t *nplans);
void scan_plans_free(struct scan_plan *plans, size_t nplans);

/* Whether this build can scan (was linked with libclang). */
bool scan_available(void);

#endif
