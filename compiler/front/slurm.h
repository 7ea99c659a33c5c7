/*
 * slurm.h - `ccplan import slurm`: Slurm's tree topology.conf (lines of
 * SwitchName=... Switches=... | Nodes=... [LinkSpeed=...]) read, checked
 * to be one tree, and written as a machine of topology graph in ccplan's
 * YAML (docs/slurm.md).  Library code: returns 0 or a negative CCP_E*
 * code with a diagnostic, never prints.
 */
#ifndef CCP_FRONT_SLURM_H
#define CCP_FRONT_SLURM_H

#include <stddef.h>

#include "front.h"

/* Read topology.conf text (len bytes; name labels the diagnostics and
 * the first comment of the output), or topology.yaml's when name ends in
 * .yaml or .yml (its tree topology named topology, or when NULL the
 * cluster_default one, or the only one), into a machine YAML: *yaml is a
 * malloc'd NUL-terminated text, the caller's.  0; CCP_EPARSE with d at
 * name:line:column (an unknown key, a bad hostlist, a switch defined
 * twice or never, two parents, a cycle, a node under two switches, more
 * than one tree); CCP_ENOMEM. */
int slurm_import_text(const char *name, const char *text, size_t len,
                      const char *topology, char **yaml, struct diag *d);

/* The same from the file at path (at most FRONT_MAX_FILE bytes);
 * CCP_EIO, d without a position, when it cannot be read. */
int slurm_import_file(const char *path, const char *topology, char **yaml,
                      struct diag *d);

#endif
