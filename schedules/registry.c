/* registry.c - the table of every generator (generators.def), looked up
 * by name. */
#include <string.h>

#include "sched.h"

const struct sch_generator *const sch_generators[] = {
#define SCH_GENERATOR(name) &sch_##name,
#include "generators.def"
#undef SCH_GENERATOR
        NULL,
};

const struct sch_generator *sch_find(const char *name)
{
	for (int k = 0; sch_generators[k]; k++)
		if (strcmp(sch_generators[k]->name, name) == 0)
			return sch_generators[k];
	return NULL;
}
