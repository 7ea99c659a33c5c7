/*
 * sched.h - the generators: one table entry per algorithm, each saying
 * where it applies and emitting phase IR for the verifier.
 */
#ifndef CCP_SCHED_H
#define CCP_SCHED_H

#include "ir.h"

/* What the user asked of every generator. */
struct sch_options {
	uint64_t seed;          /* for randomised generators */
	bool forbid_contention; /* the user wants a contention-free plan */
};

struct sch_generator {
	const char *name;    /* as written in the YAML's algorithm key */
	const char *summary; /* one line for --help and explain */
	/* 0 if the generator applies to this machine and communication;
	 * CCP_ENOTAPPLY with the reason in why otherwise. */
	int (*applies)(const ir_machine *m, const ir_comm *c, char *why,
	               size_t len);
	/* Build the plan into out (initialised by the generator). */
	int (*generate)(const ir_machine *m, const ir_comm *c,
	                const struct sch_options *o, ir_plan *out);
};

/* The generator called name, or NULL. */
const struct sch_generator *sch_find(const char *name);
/* All generators, NULL-terminated, in the order help lists them. */
extern const struct sch_generator *const sch_generators[];

/* The families (one file each). */
extern const struct sch_generator sch_binomial;
extern const struct sch_generator sch_linear;

#endif
