/* registry.c - the table of every generator, looked up by name. */
#include <string.h>

#include "sched.h"

/* clang-format off */
const struct sch_generator *const sch_generators[] = {
	&sch_binomial, &sch_linear,
	/* tree scatter and gather (000), direct transpose */
	&sch_tree_scatter, &sch_tree_gather, &sch_transpose_direct,
	/* EDN and SLD broadcast on meshes (001 ch. 3) */
	&sch_edn, &sch_sld,
	/* EDN reduction and gather, the rotated pattern (001 §3.5) */
	&sch_edn_reduce, &sch_edn_gather,
	/* EDN matrix transpose (001 §3.6) */
	&sch_edn_transpose,
	/* baseline broadcasts (001 ch. 5) */
	&sch_rd, &sch_dimensional, &sch_scatter_collect, &sch_fibonacci,
	/* EDN broadcast on tori (001 ch. 4) */
	&sch_edn_torus,
	/* HPAM (000) */
	&sch_hpam_hybrid, &sch_hpam_multicast,
	/* hypercube broadcasts (002) */
	&sch_sbt, &sch_hokao, &sch_reptree,
	/* complete exchange on meshes (003) */
	&sch_pex, &sch_pex_gen, &sch_gen, &sch_rex, &sch_ipex,
	/* irregular all-to-many (004) and the optimal schedulers */
	&sch_ac, &sch_lp, &sch_rs_n, &sch_rs_nl,
	&sch_color, &sch_link_aware, &sch_sized,
	NULL,
};
/* clang-format on */

const struct sch_generator *sch_find(const char *name)
{
	for (int k = 0; sch_generators[k]; k++)
		if (strcmp(sch_generators[k]->name, name) == 0)
			return sch_generators[k];
	return NULL;
}
