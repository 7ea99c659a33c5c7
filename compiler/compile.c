/*
 * compile.c - the pipeline, one pass after another, and the plan loader.
 */
#define _XOPEN_SOURCE 700 /* realpath */
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "compile.h"
#include "sched.h"
#include "select.h"

/* A diagnostic at the algorithm key of the input. */
static void at_algorithm(const struct front_input *in, struct diag *d,
                         const char *msg)
{
	d->line = in->algorithm_line;
	d->column = in->algorithm_column;
	snprintf(d->message, sizeof d->message, "%s", msg);
}

int compile_generate(const struct front_input *in,
                     const struct sch_generator *g, ir_plan *p, ir_report *r,
                     char *why, size_t len)
{
	struct sch_options o = {
	        .seed = in->has_seed ? in->seed : in->comm.seed,
	        .forbid_contention = in->contention == CONTENTION_FORBID,
	};
	memset(r, 0, sizeof *r);
	int rc = g->generate(&in->machine, &in->comm, &o, p);
	if (rc) {
		snprintf(why, len, "%s: %s", g->name, ccp_strerror(rc));
		ir_plan_fini(p);
		return rc;
	}
	ir_plan_trim(p);
	if (in->contention == CONTENTION_FORBID)
		p->flags &=
		        ~(IR_PLAN_LINK_CONTENTION | IR_PLAN_NODE_CONTENTION);
	front_input_hash(in, p->input_hash);

	/* verify: no plan leaves the compiler without it */
	if ((rc = ir_verify(p, r)) != 0) {
		snprintf(why, len, "%s: plan rejected by the verifier: %s",
		         g->name, r->message);
		ir_report_fini(r);
		ir_plan_fini(p);
	}
	return rc;
}

/* algorithm: auto -- the best verified candidate, with the runner-up
 * recorded in the plan. */
static int compile_auto(const struct front_input *in, struct compiled *c,
                        struct diag *d)
{
	struct select_result sr;
	int rc = select_run(in, in->select == SELECT_SIMULATED,
	                    in->select == SELECT_MODEL, &sr);
	if (rc) {
		snprintf(d->message, sizeof d->message, "auto: %s",
		         ccp_strerror(rc));
		return rc;
	}
	struct select_row *best =
	        sr.n > 0 && sr.rows[0].rc == 0 ? &sr.rows[0] : NULL;
	if (!best) {
		at_algorithm(
		        in, d,
		        sr.n ? "auto: no algorithm that applies made a "
		               "plan the verifier accepts"
		             : "auto: no algorithm applies to this machine "
		               "and communication");
		select_fini(&sr);
		return CCP_ENOTAPPLY;
	}
	c->plan = best->plan;
	c->report = best->report;
	memset(&best->plan, 0, sizeof best->plan);
	memset(&best->report, 0, sizeof best->report);
	best->rc = CCP_EINVAL; /* moved out: select_fini leaves it */
	ir_selection *s = &c->plan.sel;
	s->method = sr.by_model ? IR_SELECT_MODEL : IR_SELECT_SIMULATED;
	s->time_us = sr.by_model ? best->predicted : best->sim_max;
	s->runner_up_us = NAN;
	for (size_t i = 0; i < sr.n; i++)
		s->candidates += sr.rows[i].rc == 0 || &sr.rows[i] == best;
	if (sr.n > 1 && sr.rows[1].rc == 0) {
		snprintf(s->runner_up, sizeof s->runner_up, "%s",
		         sr.rows[1].g->name);
		s->runner_up_us =
		        sr.by_model ? sr.rows[1].predicted : sr.rows[1].sim_max;
	}
	select_fini(&sr);
	return 0;
}

int compile_input(const struct front_input *in, struct compiled *c,
                  struct diag *d)
{
	int rc;
	char msg[512], why[256];
	memset(c, 0, sizeof *c);

	if (strcmp(in->algorithm, "auto") == 0) {
		if ((rc = compile_auto(in, c, d)) != 0)
			return rc;
		goto lower;
	}
	/* generate */
	const struct sch_generator *g = sch_find(in->algorithm);
	if (!g) {
		const char *names[64];
		size_t count = 0;
		for (int k = 0; sch_generators[k] && count < 63; k++)
			names[count++] = sch_generators[k]->name;
		names[count++] = "auto";
		const char *near = front_nearest(in->algorithm, names, count);
		if (near)
			snprintf(msg, sizeof msg,
			         "unknown algorithm '%s'; did you mean '%s'?",
			         in->algorithm, near);
		else
			snprintf(msg, sizeof msg,
			         "unknown algorithm '%s' (ccplan --help lists "
			         "them)",
			         in->algorithm);
		at_algorithm(in, d, msg);
		return CCP_EPARSE;
	}
	if ((rc = g->applies(&in->machine, &in->comm, why, sizeof why)) != 0) {
		at_algorithm(in, d, why);
		return rc;
	}
	if ((rc = compile_generate(in, g, &c->plan, &c->report, d->message,
	                           sizeof d->message)) != 0)
		return rc;

lower:
	if ((rc = ir_lower(&c->plan, &c->slices)) != 0) {
		snprintf(d->message, sizeof d->message, "lowering: %s",
		         ccp_strerror(rc));
		goto out_free;
	}
	return 0;

out_free:
	compiled_fini(c);
	return rc;
}

void compiled_fini(struct compiled *c)
{
	ir_slices_free(c->slices, c->plan.machine.nranks);
	ir_report_fini(&c->report);
	ir_plan_fini(&c->plan);
	memset(c, 0, sizeof *c);
}

/* Write all len bytes of buf to fd; false with errno set if not. */
static bool write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;
	while (len > 0) {
		ssize_t w = write(fd, p, len);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			if (w == 0)
				errno = EIO;
			return false;
		}
		p += w;
		len -= (size_t)w;
	}
	return true;
}

/* The path a symbolic link names, relative to the link's directory
 * (malloc'd), or NULL. */
static char *link_target(const char *link)
{
	char to[4096];
	ssize_t n = readlink(link, to, sizeof to - 1);
	if (n <= 0 || (size_t)n >= sizeof to - 1)
		return NULL;
	to[n] = '\0';
	const char *slash = strrchr(link, '/');
	int dir = to[0] == '/' || !slash ? 0 : (int)(slash - link + 1);
	size_t cap = (size_t)dir + (size_t)n + 1;
	char *p = malloc(cap);
	if (p)
		snprintf(p, cap, "%.*s%s", dir, link, to);
	return p;
}

int write_atomic(const char *path, const void *buf, size_t len, char *err,
                 size_t errlen)
{
	struct stat sb;
	char *real = NULL;
	if (stat(path, &sb) == 0 && !S_ISREG(sb.st_mode)) {
		/* a device or FIFO (-o /dev/null, /dev/stdout to a pipe):
		 * renaming over it would replace it with a file, so it is
		 * written in place; a directory is refused */
		int fd = S_ISDIR(sb.st_mode) ? (errno = EISDIR, -1)
		                             : open(path, O_WRONLY);
		bool ok = fd >= 0 && write_all(fd, buf, len);
		int e = errno;
		if (fd >= 0 && close(fd) != 0 && ok) {
			ok = false;
			e = errno;
		}
		if (ok)
			return 0;
		snprintf(err, errlen, "%s: cannot write: %s", path,
		         strerror(e));
		return CCP_EIO;
	}
	/* a symbolic link stays one: the file it names is replaced (made,
	 * if the link dangles) */
	if (lstat(path, &sb) == 0 && S_ISLNK(sb.st_mode)) {
		real = realpath(path, NULL);
		if (!real && errno == ENOENT)
			real = link_target(path);
		if (real)
			path = real;
	}
	size_t n = strlen(path);
	char *tmp = malloc(n + 16);
	if (!tmp) {
		free(real);
		return CCP_ENOMEM;
	}
	snprintf(tmp, n + 16, "%s.tmp.XXXXXX", path);
	int fd = mkstemp(tmp);
	if (fd < 0) {
		snprintf(err, errlen, "%s: cannot create: %s", path,
		         strerror(errno));
		free(tmp);
		free(real);
		return CCP_EIO;
	}
	if (!write_all(fd, buf, len))
		goto out_unlink;
	/* mkstemp made it 0600; an output file gets the usual 0666 less the
	 * umask (read back by setting it) */
	mode_t mask = umask(0);
	umask(mask);
	if (fchmod(fd, 0666 & ~mask) != 0 || fsync(fd) != 0)
		goto out_unlink;
	if (close(fd) != 0) {
		fd = -1;
		goto out_unlink;
	}
	fd = -1;
	if (rename(tmp, path) != 0)
		goto out_unlink;
	free(tmp);
	free(real);
	return 0;
out_unlink:
	snprintf(err, errlen, "%s: cannot write: %s", path, strerror(errno));
	if (fd >= 0)
		close(fd);
	unlink(tmp);
	free(tmp);
	free(real);
	return CCP_EIO;
}

int compile_encode(const struct compiled *c, uint8_t **img, size_t *len,
                   char *err, size_t errlen)
{
	char why[256] = "";
	int rc = ir_plan_encode(&c->plan, &c->report, c->slices, img, len, why,
	                        sizeof why);
	if (rc)
		snprintf(err, errlen, "encoding the plan: %s%s%s",
		         ccp_strerror(rc), why[0] ? ": " : "", why);
	return rc;
}

int compile_read_file(const char *path, uint8_t **out, size_t *len,
                      char *err, size_t errlen)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return CCP_EIO;
	}
	size_t cap = 1 << 16, n = 0;
	uint8_t *buf = malloc(cap);
	for (;;) {
		if (!buf) {
			fclose(f);
			return CCP_ENOMEM;
		}
		n += fread(buf + n, 1, cap - n, f);
		if (n < cap)
			break;
		cap *= 2;
		uint8_t *q = realloc(buf, cap);
		if (!q)
			free(buf);
		buf = q;
	}
	int bad = ferror(f);
	fclose(f);
	if (bad) {
		free(buf);
		snprintf(err, errlen, "%s: read error", path);
		return CCP_EIO;
	}
	*out = buf;
	*len = n;
	return 0;
}

static bool slices_equal(const ir_slice *a, const ir_slice *b)
{
	if (a->rank != b->rank || a->send_bytes != b->send_bytes ||
	    a->recv_bytes != b->recv_bytes ||
	    a->scratch_bytes != b->scratch_bytes || a->nops != b->nops ||
	    a->niovs != b->niovs)
		return false;
	for (uint32_t k = 0; k < a->nops; k++) {
		const ir_op *x = &a->ops[k], *y = &b->ops[k];
		if (x->code != y->code || x->phase != y->phase ||
		    x->peer != y->peer || x->bytes != y->bytes ||
		    x->iov != y->iov || x->niov != y->niov)
			return false;
	}
	for (uint32_t k = 0; k < a->niovs; k++) {
		const ir_iov *x = &a->iovs[k], *y = &b->iovs[k];
		if (x->buf != y->buf || x->off != y->off || x->len != y->len)
			return false;
	}
	return true;
}

int plan_load_image(const uint8_t *img, size_t len, const char *path,
                    struct compiled *c, ir_file_info *fi, char *err,
                    size_t errlen)
{
	char why[256] = "";
	int rc;
	memset(c, 0, sizeof *c);
	if ((rc = ir_plan_decode(img, len, &c->plan, fi, why, sizeof why)) !=
	    0) {
		snprintf(err, errlen, "%s: %s", path, why);
		goto out;
	}
	char mwhy[256];
	if ((rc = ir_machine_check(&c->plan.machine, mwhy, sizeof mwhy)) != 0) {
		snprintf(err, errlen, "%s: bad machine in plan: %s", path,
		         mwhy);
		goto out;
	}
	if ((rc = ir_verify(&c->plan, &c->report)) != 0) {
		snprintf(err, errlen, "%s: plan rejected by the verifier: %s",
		         path, c->report.message);
		goto out;
	}
	if (c->report.lb_phases != fi->lb_phases) {
		snprintf(err, errlen,
		         "%s: the file records a lower bound of %u phases, the "
		         "verifier finds %u",
		         path, fi->lb_phases, c->report.lb_phases);
		rc = CCP_EVERIFY;
		goto out;
	}
	if ((rc = ir_lower(&c->plan, &c->slices)) != 0) {
		snprintf(err, errlen, "%s: lowering: %s", path,
		         ccp_strerror(rc));
		goto out;
	}
	for (int32_t r = 0; r < c->plan.machine.nranks; r++) {
		ir_slice s;
		/* ir_plan_decode checked the whole image: hashed once */
		rc = ir_slice_from_checked(img, len, fi, r, &s, why,
		                           sizeof why);
		if (rc) {
			snprintf(err, errlen, "%s: rank %d: %s", path, (int)r,
			         why);
			goto out;
		}
		bool same = slices_equal(&s, &c->slices[r]);
		ir_slice_fini(&s);
		if (!same) {
			snprintf(err, errlen,
			         "%s: rank %d's operations do not match the "
			         "plan's "
			         "phases",
			         path, (int)r);
			rc = CCP_EVERIFY;
			goto out;
		}
	}
out:
	if (rc)
		compiled_fini(c);
	return rc;
}

int plan_load(const char *path, struct compiled *c, ir_file_info *fi, char *err,
              size_t errlen)
{
	uint8_t *img = NULL;
	size_t len = 0;
	memset(c, 0, sizeof *c);
	int rc = compile_read_file(path, &img, &len, err, errlen);
	if (rc)
		return rc;
	rc = plan_load_image(img, len, path, c, fi, err, errlen);
	free(img);
	return rc;
}

int exit_status(int rc)
{
	switch (rc) {
	case 0:
		return EXIT_OK;
	case CCP_EVERIFY:
		return EXIT_REJECTED;
	case CCP_EPARSE:
	case CCP_ENOTAPPLY:
	case CCP_EFORMAT:
	case CCP_EVERSION:
	case CCP_ECHECKSUM:
	case CCP_ETRUNC:
	case CCP_ERANGE:
	case CCP_EINVAL:
	case CCP_EIO:
		return EXIT_BADINPUT;
	default:
		return EXIT_INTERNAL;
	}
}

int64_t parse_bytes(const char *a, int64_t max)
{
	char *end;
	errno = 0;
	long long v = strtoll(a, &end, 10);
	if (errno || end == a || v < 0 || a[0] == '-' || a[0] == '+')
		return -1;
	int shift = 0;
	if (*end == 'K' || *end == 'k')
		shift = 10;
	else if (*end == 'M' || *end == 'm')
		shift = 20;
	else if (*end == 'G' || *end == 'g')
		shift = 30;
	if (shift)
		end++;
	if (*end || v > (max >> shift))
		return -1;
	return (int64_t)v << shift;
}
