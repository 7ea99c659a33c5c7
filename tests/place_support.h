/*
 * place_support.h - what bench/bench_place.c and
 * tests/schedules/test_place.c share: a pattern with its ranks renamed
 * by a map (a placement, one rank per node) or by a seeded shuffle (a
 * stencil in a random rank order).
 *
 * Header-only (the bench and the test are separate executables).  No
 * cmocka and no output: NULL when memory runs out.
 */
#ifndef CCP_PLACE_SUPPORT_H
#define CCP_PLACE_SUPPORT_H

#include <stdint.h>
#include <stdlib.h>

#include "ir.h"
#include "matrix.h"
#include "rng.h"

/* x with rank r renamed to[r] (to a permutation of x's ranks), bytes and
 * message order kept: x as it runs when rank r sits on node to[r]. */
static inline ir_matrix *place_renamed(const ir_matrix *x, const int32_t *to)
{
	struct ir_edge *e = malloc(((size_t)x->nnz + 1) * sizeof *e);
	ir_matrix *out = NULL;
	size_t bad;

	if (!e)
		return NULL;
	for (int32_t s = 0; s < x->n; s++)
		for (int64_t i = x->row[s]; i < x->row[s + 1]; i++)
			e[i] = (struct ir_edge){to[s], to[x->dst[i]],
			                        x->bytes[i], (uint64_t)i};
	if (ir_matrix_from_edges(x->n, e, (size_t)x->nnz, &out, &bad) != 0)
		out = NULL;
	free(e);
	return out;
}

/* x with its ranks renamed by a shuffle seeded with seed. */
static inline ir_matrix *place_scrambled(const ir_matrix *x, uint64_t seed)
{
	int32_t n = x->n, *perm = malloc(((size_t)n + 1) * sizeof *perm);
	struct ir_rng r;
	ir_matrix *out;

	if (!perm)
		return NULL;
	ir_rng_seed(&r, seed);
	for (int32_t i = 0; i < n; i++)
		perm[i] = i;
	for (int32_t i = n - 1; i > 0; i--) {
		int32_t j = (int32_t)ir_rng_below(&r, (uint64_t)i + 1);
		int32_t t = perm[i];
		perm[i] = perm[j];
		perm[j] = t;
	}
	out = place_renamed(x, perm);
	free(perm);
	return out;
}

#endif
