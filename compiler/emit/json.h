/*
 * json.h - the JSON export of a plan: machine, communication (with the
 * matrix of an irregular pattern), algorithm, contention flags, lower
 * bound and every phase's transfers with the blocks they carry, in
 * the one documented shape (docs/plan-format.md, "JSON export").
 */
#ifndef CCP_JSON_H
#define CCP_JSON_H

#include <stdio.h>

#include "ir.h"

/* Version of the JSON shape, written as "version": 2 added the plan's
 * contention flags and the matrix of an irregular pattern. */
#define JSON_FORMAT_VERSION 2

/* Write plan p and its report r (both borrowed; r may be NULL, then the
 * lower bound is written as null) to out (borrowed, left open) as one
 * JSON object on one line, followed by a newline.  Returns 0, or CCP_EIO
 * if out reports a write error. */
int json_export(const ir_plan *p, const ir_report *r, FILE *out);

/* The pieces every JSON document of ccplan is written with (the export
 * above, and --json of compare, explain, simulate and cache ls): s
 * (borrowed, at most max bytes of it) as a JSON string, escaped; v as a
 * number, or null when it is not finite (an unknown time). */
void json_put_string(FILE *out, const char *s, size_t max);
void json_put_number(FILE *out, double v);

#endif
