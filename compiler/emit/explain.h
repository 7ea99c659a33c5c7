/* explain.h - the plain-text view of a plan, in the spirit of EXPLAIN. */
#ifndef CCP_EXPLAIN_H
#define CCP_EXPLAIN_H

#include <stdio.h>

#include "compile.h"

/* One line describing the machine ("mesh 16x16, xy routing, all-port"). */
void explain_machine(const ir_machine *m, char *buf, size_t len);
/* The per-phase table and the summary against the lower bound. */
int explain_plan(const struct compiled *c, FILE *out);
/* The same without the per-phase table: phases, transfers and bytes; the
 * lower bound; the largest link load against the link bound; predicted
 * time; the algorithm and why it was picked. */
int explain_summary(const struct compiled *c, FILE *out);
/* One rank's operations in order, one addressed line each, as its
 * runtime executes them (SQLite's EXPLAIN of a program); CCP_EINVAL for
 * a rank the plan does not have. */
int explain_rank(const struct compiled *c, int32_t rank, FILE *out);
/* For a direct plan of a matrix: the link term of its bound against the
 * degree term (by class of links where the machine has several), and,
 * where the ranks sit matters, what a placement (ccplan place)
 * would make of the bound, searched up to 4,096 ranks (IN.yaml in the
 * advice stands for the plan's input).  Prints nothing for other plans. */
int explain_placement(const struct compiled *c, FILE *out);

#endif
