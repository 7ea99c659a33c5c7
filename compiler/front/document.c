/*
 * document.c - the top of the YAML front end: an input's top-level keys
 * (machine, communication, algorithm, contention, seed, select), the
 * front_parse_* entry points that read a file or a string through the
 * node tree (tree.c) and the schema (machine_schema.c, comm_schema.c)
 * into a struct front_input, opening files safely, and the memory limit
 * every layer checks an input against before spending memory on it.
 *
 * Limits: FRONT_MAX_FILE bytes of YAML (front.h).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tree.h"

/* ---- the memory limit ---------------------------------------------------- */

static uint64_t max_memory = FRONT_MAX_MEMORY_DEFAULT;

void front_set_max_memory(uint64_t bytes)
{
	max_memory = bytes ? bytes : FRONT_MAX_MEMORY_DEFAULT;
}

uint64_t front_max_memory(void)
{
	return max_memory;
}

void front_format_bytes(char *buf, size_t len, uint64_t v)
{
	if (v >= UINT64_C(1) << 60)
		snprintf(buf, len, "more than an EiB");
	else if (v >= UINT64_C(1) << 30)
		snprintf(buf, len, "%.1f GiB", (double)v / 1073741824.0);
	else if (v >= UINT64_C(1) << 20)
		snprintf(buf, len, "%.0f MiB", (double)v / 1048576.0);
	else
		snprintf(buf, len, "%.0f KiB", (double)v / 1024.0);
}

/* ---- the document ----------------------------------------------------- */

enum {
	TK_MACHINE,
	TK_COMMUNICATION,
	TK_ALGORITHM,
	TK_CONTENTION,
	TK_SEED,
	TK_SELECT,
	TK_N
};
static const char *const top_keys[TK_N] = {
        "machine", "communication", "algorithm", "contention", "seed", "select",
};

/* Where a key that mapping path does not accept belongs instead ("the
 * top level", "communication", ...), into buf; false if nowhere. */
bool document_key_home(const char *key, const char *path, char *buf, size_t cap)
{
	static const struct key_names top = {top_keys, TK_N};
	static const struct {
		const char *path, *words; /* words: as the message says it */
		const struct key_names *keys;
	} maps[] = {
	        {"", "the top level", &top},
	        {"machine", "machine", &machine_schema_keys},
	        {"machine.cost", "machine.cost", &machine_schema_cost_keys},
	        {"machine.graph", "machine.graph", &graph_schema_keys},
	        {"machine.graph.links", "each entry of machine.graph.links",
	         &graph_schema_link_keys},
	        {"machine.levels", "each entry of machine.levels",
	         &machine_schema_level_keys},
	        {"machine.levels", "each entry of a fat tree's machine.levels",
	         &machine_schema_tree_keys},
	        {"machine.dragonfly", "machine.dragonfly",
	         &machine_schema_dfly_keys},
	        {"communication", "communication", &comm_schema_keys},
	        {"communication.generate", "communication.generate",
	         &comm_schema_gen_keys},
	};
	size_t n = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < sizeof maps / sizeof maps[0]; i++) {
		if (!strncmp(path, maps[i].path, strlen(maps[i].path)) &&
		    (path[strlen(maps[i].path)] == '\0' ||
		     path[strlen(maps[i].path)] == '['))
			continue; /* the mapping it is in */
		for (size_t j = 0; j < maps[i].keys->count; j++) {
			if (strcmp(key, maps[i].keys->names[j]) != 0)
				continue;
			if (n < cap)
				n += (size_t)snprintf(buf + n, cap - n, "%s%s",
				                      n ? " or " : "",
				                      maps[i].words);
			break;
		}
	}
	return n > 0 && n < cap;
}

/* Check that the root is a mapping (of what the message says it wants)
 * and read its keys into k. */
static int root_map_keys(struct ctx *x, struct keys *k, const char *want)
{
	if (x->v[0].kind != YN_MAP) {
		char b[64];
		return tree_err_at(
		        x, 0, "top level: expected a mapping with %s, got %s",
		        want, tree_desc(x, 0, b, sizeof b));
	}
	return tree_map_keys(x, 0, "", k);
}

/* The whole input: the root mapping and everything under it. */
static int parse_root_map(struct ctx *x)
{
	static const char *const contention[] = {"forbid", "allow"};
	struct front_input *in = x->in;
	struct keys k = {top_keys, TK_N, {0}, {0}};
	int64_t seed = 0;
	int idx = 0, rc;

	rc = root_map_keys(x, &k,
	                   "the keys machine and communication (algorithm: optional)");
	if (rc < 0)
		return rc;
	for (int j = TK_MACHINE; j < TK_ALGORITHM; j++)
		if (k.val[j] == NONE)
			return tree_missing(x, 0, "", top_keys[j], NULL);
	rc = machine_schema_parse(x, k.val[TK_MACHINE], &in->machine);
	if (rc < 0)
		return rc;
	rc = comm_schema_parse(x, k.val[TK_COMMUNICATION], &in->machine,
	                       &in->comm);
	if (rc < 0)
		return rc;
	/* without the key the compiler chooses, as with algorithm: auto
	 * (the same canonical form, so the same cached plan); its messages
	 * then point at the top mapping */
	uint32_t av = k.val[TK_ALGORITHM] != NONE ? k.val[TK_ALGORITHM] : 0;
	if (k.val[TK_ALGORITHM] == NONE)
		snprintf(in->algorithm, sizeof in->algorithm, "auto");
	else if ((rc = tree_get_name(x, av, "algorithm", in->algorithm)) < 0)
		return rc;
	in->algorithm_line = (int)x->v[av].line;
	in->algorithm_column = (int)x->v[av].col;
	tree_line_of(x->buf, x->len, x->v[av].line, in->algorithm_source,
	             sizeof in->algorithm_source);
	in->contention = CONTENTION_DEFAULT;
	if (k.val[TK_CONTENTION] != NONE) {
		rc = tree_get_enum(x, k.val[TK_CONTENTION], "contention",
		                   "contention policy", contention, 2, &idx);
		if (rc < 0)
			return rc;
		in->contention =
		        idx == 0 ? CONTENTION_FORBID : CONTENTION_ALLOW;
	}
	if (k.val[TK_SELECT] != NONE) {
		static const char *const by[] = {"simulated", "model"};
		if (strcmp(in->algorithm, "auto") != 0)
			return tree_err_at(
			        x, k.val[TK_SELECT],
			        "select: only with algorithm: auto (this "
			        "input names '%s')",
			        in->algorithm);
		rc = tree_get_enum(x, k.val[TK_SELECT], "select", "selection",
		                   by, 2, &idx);
		if (rc < 0)
			return rc;
		in->select = idx == 0 ? SELECT_SIMULATED : SELECT_MODEL;
	}
	if (k.val[TK_SEED] != NONE) {
		rc = tree_get_int(x, k.val[TK_SEED], "seed", 0, INT64_MAX, NULL,
		                  &seed);
		if (rc < 0)
			return rc;
		in->seed = (uint64_t)seed;
		in->has_seed = true;
	}
	return 0;
}

/* Reset in to an empty input: no matrix, costs not given (NaN). */
static void input_init(struct front_input *in)
{
	ir_cost *c = &in->machine.cost;

	memset(in, 0, sizeof *in);
	ir_cost_unset(c);
	for (int i = 0; i < IR_MAX_DIMS; i++)
		in->machine.dims[i] = 1;
}

/* A machine alone: the root mapping has the one key machine, read by the
 * compiler's own schema (front_parse_machine). */
static int parse_machine_root(struct ctx *x)
{
	static const char *const keys[] = {"machine"};
	struct keys k = {keys, 1, {0}, {0}};
	int rc;

	rc = root_map_keys(x, &k, "the key machine");
	if (rc < 0)
		return rc;
	if (k.val[0] == NONE)
		return tree_missing(x, 0, "", "machine", NULL);
	return machine_schema_parse(x, k.val[0], &x->in->machine);
}

/* Parse buf (len bytes) named name, its root mapping read by root (the
 * whole input, parse_root_map, or a machine alone); matrix files relative
 * to dir. */
static int parse_text(const char *name, const char *dir, const char *buf,
                      size_t len, int (*root)(struct ctx *),
                      struct front_input *in, struct diag *d)
{
	struct ctx x = {0};
	int rc;

	x.name = name;
	x.dir = dir;
	x.buf = buf;
	x.len = len;
	x.d = d;
	x.in = in;
	input_init(in);
	memset(d, 0, sizeof *d);
	if (len > FRONT_MAX_FILE) {
		front_diag(d, name, 0, 0, NULL,
		           "input too large: more than %zu MiB of YAML",
		           FRONT_MAX_FILE >> 20);
		return CCP_EPARSE;
	}
	rc = tree_build(&x);
	if (rc < 0)
		goto out_free_tree;
	rc = root(&x);
	if (rc < 0)
		front_input_fini(in);
out_free_tree:
	free(x.v);
	tb_free(&x.chars);
	return rc;
}

int front_parse_string(const char *name, const char *text, size_t len,
                       struct front_input *in, struct diag *d)
{
	if (!text)
		len = 0;
	return parse_text(name ? name : "<string>", "", text ? text : "", len,
	                  parse_root_map, in, d);
}

int front_parse_machine(const char *name, const char *text, size_t len,
                        ir_machine *m, struct diag *d)
{
	struct front_input in;
	int rc;

	if (!text)
		len = 0;
	rc = parse_text(name ? name : "<string>", "", text ? text : "", len,
	                parse_machine_root, &in, d);
	if (rc == 0) {
		*m = in.machine; /* the placement map's and graph's
		                    references move too */
		in.machine.place = NULL;
		in.machine.graph = NULL;
	}
	front_input_fini(&in);
	return rc;
}

/* d for an open that failed with errno: CCP_ENOMEM or CCP_EIO. */
static int open_failed(const char *path, const char *prefix, struct diag *d)
{
	if (errno == ENOMEM) {
		front_diag(d, path, 0, 0, NULL, "out of memory");
		return CCP_ENOMEM;
	}
	front_diag(d, path, 0, 0, NULL, "%s%s", prefix,
	           strerror(errno ? errno : EIO));
	return CCP_EIO;
}

int front_fopen(const char *path, const char *mode, const char *prefix,
                FILE **out, struct diag *d)
{
	errno = 0;
	*out = fopen(path, mode);
	if (*out)
		return 0;
	return open_failed(path, prefix, d);
}

/* What a file is, for a message saying it is not a regular file. */
static const char *file_kind(mode_t mode)
{
	if (S_ISDIR(mode))
		return "a directory";
	if (S_ISFIFO(mode))
		return "a FIFO";
	if (S_ISCHR(mode))
		return "a character device";
	if (S_ISBLK(mode))
		return "a block device";
	if (S_ISSOCK(mode))
		return "a socket";
	return "not a regular file";
}

int front_fopen_regular(const char *path, uint64_t max, FILE **out,
                        struct diag *d)
{
	struct stat sb;
	*out = NULL;
	errno = 0;
	/* O_NONBLOCK: opening a FIFO with no writer must not wait for one */
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return open_failed(path, "", d);
	int rc = CCP_EINVAL;
	if (fstat(fd, &sb) != 0) {
		rc = open_failed(path, "", d);
	} else if (!S_ISREG(sb.st_mode)) {
		front_diag(d, path, 0, 0, NULL,
		           "is %s; a matrix file must be a regular file",
		           file_kind(sb.st_mode));
	} else if ((uint64_t)sb.st_size > max) {
		front_diag(d, path, 0, 0, NULL,
		           "has %" PRIu64 " bytes, more than the %" PRIu64
		           " MiB a matrix file may have (FRONT_MAX_FILE)",
		           (uint64_t)sb.st_size, max >> 20);
	} else {
		/* a regular file: reads block as usual from here on */
		int fl = fcntl(fd, F_GETFL);
		errno = 0;
		if (fl < 0 || fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) < 0 ||
		    !(*out = fdopen(fd, "r")))
			rc = open_failed(path, "", d);
		else
			return 0;
	}
	close(fd);
	return rc;
}

int front_parse_file(const char *path, struct front_input *in, struct diag *d)
{
	char dir[FRONT_PATH_MAX];
	struct tbuf text = {0};
	const char *slash;
	FILE *f;
	int rc;

	input_init(in);
	memset(d, 0, sizeof *d);
	if ((rc = front_fopen(path, "rb", "cannot open: ", &f, d)) != 0)
		return rc;
	/* a regular file says its size: refuse a large one before reading
	 * it (a pipe is read up to the limit) */
	struct stat sb;
	if (fstat(fileno(f), &sb) == 0 && S_ISREG(sb.st_mode) &&
	    (uint64_t)sb.st_size > FRONT_MAX_FILE) {
		front_diag(d, path, 0, 0, NULL,
		           "input too large: more than %zu MiB of YAML",
		           FRONT_MAX_FILE >> 20);
		rc = CCP_EPARSE;
		goto out_free_buf;
	}
	rc = tb_read(&text, f, FRONT_MAX_FILE);
	if (rc == CCP_ENOMEM) {
		front_diag(d, path, 0, 0, NULL, "out of memory");
		goto out_free_buf;
	}
	if (rc < 0) {
		front_diag(d, path, 0, 0, NULL, "cannot read: %s",
		           strerror(errno ? errno : EIO));
		goto out_free_buf;
	}
	if (text.len > FRONT_MAX_FILE) {
		front_diag(d, path, 0, 0, NULL,
		           "input too large: more than %zu MiB of YAML",
		           FRONT_MAX_FILE >> 20);
		rc = CCP_EPARSE;
		goto out_free_buf;
	}
	slash = strrchr(path, '/');
	if (!slash) {
		dir[0] = '\0';
	} else if (slash == path) {
		memcpy(dir, "/", 2);
	} else {
		size_t ld = (size_t)(slash - path);
		if (ld >= sizeof dir)
			ld = sizeof dir - 1;
		memcpy(dir, path, ld);
		dir[ld] = '\0';
	}
	rc = parse_text(path, dir, text.p ? text.p : "", text.len,
	                parse_root_map, in, d);
out_free_buf:
	tb_free(&text);
	fclose(f);
	return rc;
}

void front_input_fini(struct front_input *in)
{
	ir_place_release(in->machine.place);
	in->machine.place = NULL;
	ir_graph_release(in->machine.graph);
	in->machine.graph = NULL;
	ir_comm_fini(&in->comm);
	hostlist_fini(&in->hosts);
}
