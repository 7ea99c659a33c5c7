/*
 * scan.c - finding the plans a C program asks for (scan.h): libclang
 * parses each source with the build's flags; the calls of
 * ccp_plan_lookup come from the AST (the name argument evaluated after
 * macro expansion), and the `#pragma ccplan` lines from the tokens of the
 * source and of every non-system header it includes, since libclang gives
 * no cursor for a pragma it does not know.  Tokens in a region the
 * preprocessor skipped (#if 0, #ifdef of an undefined macro) do not count.
 * The resolution of names to YAML files needs no libclang and is at the
 * end.  docs/scan.md gives the rules.
 */
/* realpath() is XSI, beyond the _POSIX_C_SOURCE the build defines */
#define _XOPEN_SOURCE 700

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#ifdef CCPLAN_HAVE_LIBCLANG
#include <dlfcn.h>

#include <clang-c/Index.h>
#endif

#include "ccplan_errors.h"
#include "scan.h"

/* Something already taken from a file, so that a header scanned by
 * several sources gives one request, note or error. */
struct scan_seen {
	unsigned long long id[3]; /* the file's unique ID (libclang's) */
	unsigned offset;          /* where in the file */
	int what;                 /* enum seen_what */
	char *name;               /* the plan name, or NULL */
};

enum seen_what { SEEN_CALL, SEEN_NOTE, SEEN_PRAGMA, SEEN_ERROR };

/* ---- growing arrays and small helpers ---------------------------------- */

/* Room for one more of size bytes in *p (n used, *cap allocated). */
static int grow(void *p, size_t *cap, size_t n, size_t size)
{
	void **pp = p;
	if (n < *cap)
		return 0;
	size_t ncap = *cap ? *cap * 2 : 16;
	if (ncap > SIZE_MAX / size)
		return CCP_ENOMEM;
	void *q = realloc(*pp, ncap * size);
	if (!q)
		return CCP_ENOMEM;
	*pp = q;
	*cap = ncap;
	return 0;
}

/* The text of line `line` of the file at path into buf ("" if it cannot
 * be read), for the caret under a diagnostic. */
static void source_line(const char *path, int line, char *buf, size_t len)
{
	buf[0] = '\0';
	FILE *f = fopen(path, "r");
	if (!f || line < 1) {
		if (f)
			fclose(f);
		return;
	}
	int at = 1, ch;
	size_t k = 0;
	while ((ch = getc(f)) != EOF) {
		if (ch == '\n') {
			if (at++ == line)
				break;
			continue;
		}
		if (at == line && ch != '\r' && k + 1 < len)
			buf[k++] = (char)ch;
	}
	buf[k] = '\0';
	fclose(f);
}

/* Add an error at file:line:column (file may be NULL when there is none,
 * line 0 when there is no position). */
static int add_error(struct scan *s, const char *file, int line, int column,
                     const char *fmt, ...) FRONT_PRINTF(5, 6);

static int add_error(struct scan *s, const char *file, int line, int column,
                     const char *fmt, ...)
{
	if (grow(&s->errors, &s->caperrors, s->nerrors, sizeof *s->errors))
		return CCP_ENOMEM;
	struct diag *d = &s->errors[s->nerrors++];
	char src[256];
	va_list ap;
	memset(d, 0, sizeof *d);
	if (file && line > 0)
		source_line(file, line, src, sizeof src);
	else
		src[0] = '\0';
	front_diag(d, file ? file : "", line, column, src, "%s", "");
	va_start(ap, fmt);
	vsnprintf(d->message, sizeof d->message, fmt, ap);
	va_end(ap);
	return 0;
}

/* dir/file, or file when it is absolute or dir is empty or "." */
static char *path_join(const char *dir, const char *file)
{
	if (file[0] == '/' || !dir[0] || strcmp(dir, ".") == 0)
		return strdup(file);
	size_t n = strlen(dir) + strlen(file) + 2;
	char *p = malloc(n);
	if (p)
		snprintf(p, n, "%s/%s", dir, file);
	return p;
}

/* The directory part of path ("." when it has none), malloc'd. */
static char *dir_of(const char *path)
{
	const char *slash = strrchr(path, '/');
	if (!slash)
		return strdup(".");
	if (slash == path)
		return strdup("/");
	size_t n = (size_t)(slash - path);
	char *d = malloc(n + 1);
	if (d) {
		memcpy(d, path, n);
		d[n] = '\0';
	}
	return d;
}

void scan_init(struct scan *s)
{
	memset(s, 0, sizeof *s);
}

void scan_fini(struct scan *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->nreqs; i++) {
		free(s->reqs[i].name);
		free(s->reqs[i].at.file);
		free(s->reqs[i].yaml);
		free(s->reqs[i].yaml_at.file);
	}
	for (size_t i = 0; i < s->nnotes; i++) {
		free(s->notes[i].at.file);
		free(s->notes[i].message);
	}
	for (size_t i = 0; i < s->nseen; i++)
		free(s->seen[i].name);
	free(s->reqs);
	free(s->notes);
	free(s->errors);
	free(s->seen);
	memset(s, 0, sizeof *s);
}

#ifdef CCPLAN_HAVE_LIBCLANG

/* ---- libclang, loaded when a scan needs it ------------------------------
 *
 * Linking libclang would load LLVM into every ccplan command (measured:
 * 45 ms and 55 MB more for `ccplan --version`, the cli test 40 s -> 60 s),
 * so scan.c dlopens it on first use instead: CCPLAN_LIBCLANG from the
 * environment, else the library the build found (CCPLAN_LIBCLANG_SO),
 * else the usual names.  The functions are called through this table;
 * each pointer is checked at compile time to have its declaration's
 * exact type. */
#define CLANG_FUNCS(X)                                                         \
	X(clang_createIndex, CXIndex, (int, int))                              \
	X(clang_disposeIndex, void, (CXIndex))                                 \
	X(clang_parseTranslationUnit2, enum CXErrorCode,                       \
	  (CXIndex, const char *, const char *const *, int,                    \
	   struct CXUnsavedFile *, unsigned, unsigned, CXTranslationUnit *))   \
	X(clang_disposeTranslationUnit, void, (CXTranslationUnit))             \
	X(clang_getTranslationUnitCursor, CXCursor, (CXTranslationUnit))       \
	X(clang_getNumDiagnostics, unsigned, (CXTranslationUnit))              \
	X(clang_getDiagnostic, CXDiagnostic, (CXTranslationUnit, unsigned))    \
	X(clang_getDiagnosticSeverity, enum CXDiagnosticSeverity,              \
	  (CXDiagnostic))                                                      \
	X(clang_getDiagnosticSpelling, CXString, (CXDiagnostic))               \
	X(clang_getDiagnosticLocation, CXSourceLocation, (CXDiagnostic))       \
	X(clang_disposeDiagnostic, void, (CXDiagnostic))                       \
	X(clang_getCString, const char *, (CXString))                          \
	X(clang_disposeString, void, (CXString))                               \
	X(clang_getExpansionLocation, void,                                    \
	  (CXSourceLocation, CXFile *, unsigned *, unsigned *, unsigned *))    \
	X(clang_getFileLocation, void,                                         \
	  (CXSourceLocation, CXFile *, unsigned *, unsigned *, unsigned *))    \
	X(clang_getFileName, CXString, (CXFile))                               \
	X(clang_getFileUniqueID, int, (CXFile, CXFileUniqueID *))              \
	X(clang_File_isEqual, int, (CXFile, CXFile))                           \
	X(clang_getFileContents, const char *,                                 \
	  (CXTranslationUnit, CXFile, size_t *))                               \
	X(clang_getInclusions, void,                                           \
	  (CXTranslationUnit, CXInclusionVisitor, CXClientData))               \
	X(clang_getLocationForOffset, CXSourceLocation,                        \
	  (CXTranslationUnit, CXFile, unsigned))                               \
	X(clang_Location_isInSystemHeader, int, (CXSourceLocation))            \
	X(clang_getRange, CXSourceRange, (CXSourceLocation, CXSourceLocation)) \
	X(clang_getRangeStart, CXSourceLocation, (CXSourceRange))              \
	X(clang_getRangeEnd, CXSourceLocation, (CXSourceRange))                \
	X(clang_getSkippedRanges, CXSourceRangeList *,                         \
	  (CXTranslationUnit, CXFile))                                         \
	X(clang_disposeSourceRangeList, void, (CXSourceRangeList *))           \
	X(clang_tokenize, void,                                                \
	  (CXTranslationUnit, CXSourceRange, CXToken **, unsigned *))          \
	X(clang_disposeTokens, void, (CXTranslationUnit, CXToken *, unsigned)) \
	X(clang_getTokenKind, CXTokenKind, (CXToken))                          \
	X(clang_getTokenSpelling, CXString, (CXTranslationUnit, CXToken))      \
	X(clang_getTokenLocation, CXSourceLocation,                            \
	  (CXTranslationUnit, CXToken))                                        \
	X(clang_getTokenExtent, CXSourceRange, (CXTranslationUnit, CXToken))   \
	X(clang_visitChildren, unsigned,                                       \
	  (CXCursor, CXCursorVisitor, CXClientData))                           \
	X(clang_getNullCursor, CXCursor, (void))                               \
	X(clang_getCursorKind, enum CXCursorKind, (CXCursor))                  \
	X(clang_getCursorLocation, CXSourceLocation, (CXCursor))               \
	X(clang_getCursorSpelling, CXString, (CXCursor))                       \
	X(clang_isExpression, unsigned, (enum CXCursorKind))                   \
	X(clang_Cursor_getNumArguments, int, (CXCursor))                       \
	X(clang_Cursor_getArgument, CXCursor, (CXCursor, unsigned))            \
	X(clang_Cursor_Evaluate, CXEvalResult, (CXCursor))                     \
	X(clang_EvalResult_getKind, CXEvalResultKind, (CXEvalResult))          \
	X(clang_EvalResult_getAsStr, const char *, (CXEvalResult))             \
	X(clang_EvalResult_dispose, void, (CXEvalResult))

/* the table: lc_NAME has NAME's type */
#define LC_PTR(name, ret, args) static ret(*lc_##name) args;
CLANG_FUNCS(LC_PTR)
#undef LC_PTR
#define LC_CHECK(name, ret, args)                                              \
	_Static_assert(_Generic(&name, ret(*) args : 1, default : 0),          \
	               #name " is not declared as the table says");
CLANG_FUNCS(LC_CHECK)
#undef LC_CHECK

static void *lc_handle;  /* the library, once loaded */
static char lc_why[512]; /* why it could not be loaded */

/* Load libclang and every function of the table; false (lc_why set) if
 * it cannot be.  Tried once. */
static bool lc_load(void)
{
	static bool tried;
	if (tried)
		return lc_handle != NULL;
	tried = true;
	const char *env = getenv("CCPLAN_LIBCLANG");
	const char *names[] = {env && env[0] ? env : NULL,
#ifdef CCPLAN_LIBCLANG_SO
	                       CCPLAN_LIBCLANG_SO,
#endif
#ifdef CCPLAN_LIBCLANG_SONAME
	                       CCPLAN_LIBCLANG_SONAME,
#endif
	                       "libclang.so", "libclang.so.1"};
	void *h = NULL;
	for (size_t i = 0; i < sizeof names / sizeof names[0] && !h; i++) {
		if (!names[i])
			continue;
		if (!(h = dlopen(names[i], RTLD_NOW | RTLD_LOCAL))) {
			const char *e = dlerror();
			if (!lc_why[0])
				snprintf(lc_why, sizeof lc_why, "%s",
				         e ? e : names[i]);
		}
	}
	if (!h)
		return false;
	void *sym;
#define LC_LOAD(name, ret, args)                                               \
	if (!(sym = dlsym(h, #name))) {                                        \
		snprintf(lc_why, sizeof lc_why, "libclang has no %s", #name);  \
		dlclose(h);                                                    \
		return false;                                                  \
	}                                                                      \
	memcpy(&lc_##name, &sym, sizeof lc_##name);
	CLANG_FUNCS(LC_LOAD)
#undef LC_LOAD
	lc_handle = h;
	return true;
}

/* From here on every clang_NAME is the table's. */
#define clang_createIndex               lc_clang_createIndex
#define clang_disposeIndex              lc_clang_disposeIndex
#define clang_parseTranslationUnit2     lc_clang_parseTranslationUnit2
#define clang_disposeTranslationUnit    lc_clang_disposeTranslationUnit
#define clang_getTranslationUnitCursor  lc_clang_getTranslationUnitCursor
#define clang_getNumDiagnostics         lc_clang_getNumDiagnostics
#define clang_getDiagnostic             lc_clang_getDiagnostic
#define clang_getDiagnosticSeverity     lc_clang_getDiagnosticSeverity
#define clang_getDiagnosticSpelling     lc_clang_getDiagnosticSpelling
#define clang_getDiagnosticLocation     lc_clang_getDiagnosticLocation
#define clang_disposeDiagnostic         lc_clang_disposeDiagnostic
#define clang_getCString                lc_clang_getCString
#define clang_disposeString             lc_clang_disposeString
#define clang_getExpansionLocation      lc_clang_getExpansionLocation
#define clang_getFileLocation           lc_clang_getFileLocation
#define clang_getFileName               lc_clang_getFileName
#define clang_getFileUniqueID           lc_clang_getFileUniqueID
#define clang_File_isEqual              lc_clang_File_isEqual
#define clang_getFileContents           lc_clang_getFileContents
#define clang_getInclusions             lc_clang_getInclusions
#define clang_getLocationForOffset      lc_clang_getLocationForOffset
#define clang_Location_isInSystemHeader lc_clang_Location_isInSystemHeader
#define clang_getRange                  lc_clang_getRange
#define clang_getRangeStart             lc_clang_getRangeStart
#define clang_getRangeEnd               lc_clang_getRangeEnd
#define clang_getSkippedRanges          lc_clang_getSkippedRanges
#define clang_disposeSourceRangeList    lc_clang_disposeSourceRangeList
#define clang_tokenize                  lc_clang_tokenize
#define clang_disposeTokens             lc_clang_disposeTokens
#define clang_getTokenKind              lc_clang_getTokenKind
#define clang_getTokenSpelling          lc_clang_getTokenSpelling
#define clang_getTokenLocation          lc_clang_getTokenLocation
#define clang_getTokenExtent            lc_clang_getTokenExtent
#define clang_visitChildren             lc_clang_visitChildren
#define clang_getNullCursor             lc_clang_getNullCursor
#define clang_getCursorKind             lc_clang_getCursorKind
#define clang_getCursorLocation         lc_clang_getCursorLocation
#define clang_getCursorSpelling         lc_clang_getCursorSpelling
#define clang_isExpression              lc_clang_isExpression
#define clang_Cursor_getNumArguments    lc_clang_Cursor_getNumArguments
#define clang_Cursor_getArgument        lc_clang_Cursor_getArgument
#define clang_Cursor_Evaluate           lc_clang_Cursor_Evaluate
#define clang_EvalResult_getKind        lc_clang_EvalResult_getKind
#define clang_EvalResult_getAsStr       lc_clang_EvalResult_getAsStr
#define clang_EvalResult_dispose        lc_clang_EvalResult_dispose

bool scan_available(void)
{
	return lc_load();
}

/* ---- requests ---------------------------------------------------------- */

static int pos_set(struct scan_pos *p, const char *file, int line, int col)
{
	p->file = strdup(file);
	p->line = line;
	p->column = col;
	return p->file ? 0 : CCP_ENOMEM;
}

/* What is wrong with a plan name, or NULL if nothing. */
static const char *name_problem(const char *name)
{
	size_t n = strlen(name);
	if (n == 0)
		return "an empty plan name";
	if (n > SCAN_NAME_MAX)
		return "a plan name longer than 255 bytes";
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)name[i] < 0x20 || name[i] == 0x7f)
			return "a plan name with a control character";
	return NULL;
}

/* Whether (id, offset, what, name) was taken before; if not, remember
 * it.  1 seen, 0 new, or a negative code. */
static int seen_before(struct scan *s, const unsigned long long id[3],
                       unsigned offset, int what, const char *name)
{
	for (size_t i = 0; i < s->nseen; i++) {
		const struct scan_seen *e = &s->seen[i];
		if (e->offset == offset && e->what == what &&
		    memcmp(e->id, id, sizeof e->id) == 0 &&
		    (e->name ? name && strcmp(e->name, name) == 0 : !name))
			return 1;
	}
	if (grow(&s->seen, &s->capseen, s->nseen, sizeof *s->seen))
		return CCP_ENOMEM;
	struct scan_seen *e = &s->seen[s->nseen];
	memcpy(e->id, id, sizeof e->id);
	e->offset = offset;
	e->what = what;
	e->name = name ? strdup(name) : NULL;
	if (name && !e->name)
		return CCP_ENOMEM;
	s->nseen++;
	return 0;
}

/* Add a request; name and yaml are taken over (freed on failure). */
static int add_req(struct scan *s, enum scan_form form, char *name,
                   const char *file, int line, int col, char *yaml,
                   const char *yfile, int yline, int ycol)
{
	if (grow(&s->reqs, &s->capreqs, s->nreqs, sizeof *s->reqs)) {
		free(name);
		free(yaml);
		return CCP_ENOMEM;
	}
	struct scan_req *r = &s->reqs[s->nreqs];
	memset(r, 0, sizeof *r);
	r->form = form;
	r->name = name;
	r->yaml = yaml;
	s->nreqs++;
	if (pos_set(&r->at, file, line, col))
		return CCP_ENOMEM;
	if (yfile && pos_set(&r->yaml_at, yfile, yline, ycol))
		return CCP_ENOMEM;
	return 0;
}

/* ---- libclang ---------------------------------------------------------- */

/* What one translation unit's walk shares. */
struct tu {
	struct scan *s;       /* where requests, notes and errors go */
	CXTranslationUnit tu; /* the parsed source */
	int rc;               /* first failure (ENOMEM) of a visitor, else 0 */
	int bad;              /* errors of this unit (some maybe seen before) */
};

/* A location as the user sees it: where a macro was expanded, not where
 * its body is written.  file is "" when there is none. */
struct where {
	CXFile file;                   /* NULL when there is none */
	char name[4096];               /* the file's name, as clang found it */
	unsigned line, column, offset; /* 1-based line and column; bytes */
	unsigned long long id[3];      /* the file's unique ID */
};

static void where_of(CXSourceLocation loc, struct where *w)
{
	memset(w, 0, sizeof *w);
	clang_getExpansionLocation(loc, &w->file, &w->line, &w->column,
	                           &w->offset);
	if (!w->file)
		return;
	CXString n = clang_getFileName(w->file);
	snprintf(w->name, sizeof w->name, "%s", clang_getCString(n));
	clang_disposeString(n);
	CXFileUniqueID u;
	if (clang_getFileUniqueID(w->file, &u) == 0)
		memcpy(w->id, u.data, sizeof w->id);
}

static int tu_error(struct tu *t, const struct where *w, const char *fmt, ...)
        FRONT_PRINTF(3, 4);

/* An error at w in unit t (once per place, over all the units). */
static int tu_error(struct tu *t, const struct where *w, const char *fmt, ...)
{
	char msg[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	int seen = seen_before(t->s, w->id, w->offset, SEEN_ERROR, msg);
	if (seen < 0)
		return seen;
	t->bad++;
	if (seen)
		return 0;
	return add_error(t->s, w->name, (int)w->line, (int)w->column, "%s",
	                 msg);
}

/* The last child expression of a cursor (last_expr). */
struct child {
	CXCursor c; /* the child, once found */
	bool found; /* whether there is one */
};

static enum CXChildVisitResult last_expr(CXCursor c, CXCursor parent,
                                         CXClientData data)
{
	struct child *k = data;
	(void)parent;
	if (clang_isExpression(clang_getCursorKind(c))) {
		k->c = c;
		k->found = true;
	}
	return CXChildVisit_Continue;
}

/* The string an argument of a call evaluates to at compile time: a
 * string literal, through macros, parentheses and casts (malloc'd); NULL
 * if it is not one (or on lack of memory: *oom). */
static char *literal_of(CXCursor a, bool *oom)
{
	for (int depth = 0; depth < 8; depth++) {
		CXEvalResult r = clang_Cursor_Evaluate(a);
		if (r) {
			char *name = NULL;
			if (clang_EvalResult_getKind(r) == CXEval_StrLiteral) {
				const char *v = clang_EvalResult_getAsStr(r);
				name = strdup(v ? v : "");
				*oom = name == NULL;
			}
			clang_EvalResult_dispose(r);
			if (name || *oom)
				return name;
		}
		enum CXCursorKind k = clang_getCursorKind(a);
		if (k != CXCursor_UnexposedExpr && k != CXCursor_ParenExpr &&
		    k != CXCursor_CStyleCastExpr)
			return NULL;
		struct child ch = {clang_getNullCursor(), false};
		clang_visitChildren(a, last_expr, &ch);
		if (!ch.found)
			return NULL;
		a = ch.c;
	}
	return NULL;
}

/* A call of ccp_plan_lookup: a request, a note, or an error. */
static int take_call(struct tu *t, CXCursor call)
{
	struct where w;
	where_of(clang_getCursorLocation(call), &w);
	if (!w.file)
		return 0;
	int nargs = clang_Cursor_getNumArguments(call);
	bool oom = false;
	char *name =
	        nargs >= 2 ? literal_of(clang_Cursor_getArgument(call, 1), &oom)
	                   : NULL;
	if (oom)
		return CCP_ENOMEM;
	if (!name) {
		int seen = seen_before(t->s, w.id, w.offset, SEEN_NOTE, NULL);
		if (seen)
			return seen < 0 ? seen : 0;
		if (grow(&t->s->notes, &t->s->capnotes, t->s->nnotes,
		         sizeof *t->s->notes))
			return CCP_ENOMEM;
		struct scan_note *n = &t->s->notes[t->s->nnotes];
		memset(n, 0, sizeof *n);
		n->message = strdup(nargs >= 2 ? SCAN_LOOKUP_FN
		                            "(): the plan name is not a "
		                            "literal; ignored"
		                               : SCAN_LOOKUP_FN
		                            "(): no plan name argument; "
		                            "ignored");
		t->s->nnotes++;
		if (!n->message ||
		    pos_set(&n->at, w.name, (int)w.line, (int)w.column))
			return CCP_ENOMEM;
		return 0;
	}
	const char *bad = name_problem(name);
	if (bad) {
		int rc = tu_error(t, &w, SCAN_LOOKUP_FN "(): %s", bad);
		free(name);
		return rc;
	}
	int seen = seen_before(t->s, w.id, w.offset, SEEN_CALL, name);
	if (seen) {
		free(name);
		return seen < 0 ? seen : 0;
	}
	return add_req(t->s, SCAN_CALL, name, w.name, (int)w.line,
	               (int)w.column, NULL, NULL, 0, 0);
}

static enum CXChildVisitResult visit(CXCursor c, CXCursor parent,
                                     CXClientData data)
{
	struct tu *t = data;
	(void)parent;
	if (t->rc)
		return CXChildVisit_Break;
	if (clang_Location_isInSystemHeader(clang_getCursorLocation(c)))
		return CXChildVisit_Continue;
	if (clang_getCursorKind(c) == CXCursor_CallExpr) {
		CXString sp = clang_getCursorSpelling(c);
		bool is = strcmp(clang_getCString(sp), SCAN_LOOKUP_FN) == 0;
		clang_disposeString(sp);
		if (is && (t->rc = take_call(t, c)) != 0)
			return CXChildVisit_Break;
	}
	return CXChildVisit_Recurse;
}

/* ---- pragmas ----------------------------------------------------------- */

/* The tokens of one file, with what the preprocessor skipped. */
struct toks {
	CXTranslationUnit tu;       /* the unit the file belongs to */
	CXToken *tok;               /* the file's tokens, comments too */
	unsigned n;                 /* how many */
	const char *text;           /* the file's contents (libclang's) */
	size_t size;                /* bytes of text */
	CXSourceRangeList *skipped; /* regions the preprocessor skipped */
};

static unsigned tok_offset(const struct toks *k, unsigned i)
{
	unsigned off = 0;
	clang_getFileLocation(clang_getTokenLocation(k->tu, k->tok[i]), NULL,
	                      NULL, NULL, &off);
	return off;
}

static unsigned tok_end(const struct toks *k, unsigned i)
{
	unsigned off = 0;
	CXSourceRange r = clang_getTokenExtent(k->tu, k->tok[i]);
	clang_getFileLocation(clang_getRangeEnd(r), NULL, NULL, NULL, &off);
	return off;
}

static unsigned tok_line(const struct toks *k, unsigned i)
{
	unsigned line = 0;
	clang_getFileLocation(clang_getTokenLocation(k->tu, k->tok[i]), NULL,
	                      &line, NULL, NULL);
	return line;
}

/* Whether token i is spelled s. */
static bool tok_is(const struct toks *k, unsigned i, const char *s)
{
	CXString sp = clang_getTokenSpelling(k->tu, k->tok[i]);
	bool is = strcmp(clang_getCString(sp), s) == 0;
	clang_disposeString(sp);
	return is;
}

static bool in_skipped(const struct toks *k, unsigned off)
{
	for (unsigned i = 0; k->skipped && i < k->skipped->count; i++) {
		unsigned a = 0, b = 0;
		clang_getFileLocation(
		        clang_getRangeStart(k->skipped->ranges[i]), NULL, NULL,
		        NULL, &a);
		clang_getFileLocation(clang_getRangeEnd(k->skipped->ranges[i]),
		                      NULL, NULL, NULL, &b);
		if (off >= a && off < b)
			return true;
	}
	return false;
}

/* Offset of the newline that ends the logical line holding offset from
 * (backslash-newline continues it), or the file's size. */
static unsigned line_end(const struct toks *k, unsigned from)
{
	for (size_t p = from; p < k->size; p++) {
		if (k->text[p] != '\n')
			continue;
		size_t q = p;
		if (q > 0 && k->text[q - 1] == '\r')
			q--;
		if (q > 0 && k->text[q - 1] == '\\')
			continue;
		return (unsigned)p;
	}
	return (unsigned)k->size;
}

/* A pragma's string literal: a plain "..." with \\ and \" the only
 * escapes; NULL with *why set if it is not one. */
static char *pragma_string(const char *sp, const char **why)
{
	size_t n = strlen(sp);
	*why = NULL;
	if (n < 2 || sp[0] != '"' || sp[n - 1] != '"') {
		*why = "want a plain string \"...\"";
		return NULL;
	}
	char *out = malloc(n);
	if (!out)
		return NULL;
	size_t k = 0;
	for (size_t i = 1; i + 1 < n; i++) {
		if (sp[i] == '\\') {
			if (i + 2 < n &&
			    (sp[i + 1] == '\\' || sp[i + 1] == '"')) {
				out[k++] = sp[++i];
				continue;
			}
			free(out);
			*why = "only the escapes \\\\ and \\\" are understood";
			return NULL;
		}
		out[k++] = sp[i];
	}
	out[k] = '\0';
	return out;
}

/* Parse the pragma whose tokens (comments left out) are d[0..nd): d[0]
 * is the word after `ccplan`.  eol is where a missing token is reported
 * (just after the last one). */
static int take_pragma(struct tu *t, const struct toks *k, const unsigned *d,
                       unsigned nd, const struct where *eol)
{
	struct where w[6];
	const char *what[] = {"'plan'",
	                      "'('",
	                      "a plan name",
	                      "','",
	                      "the YAML file as a string",
	                      "')'"};
	const char *after[] = {"'#pragma ccplan'", "'plan'", "'plan('",
	                       "the plan name",    "','",    "the file name"};
	CXString sp[6];
	unsigned have = nd < 6 ? nd : 6;
	int rc = 0;
	for (unsigned i = 0; i < have; i++) {
		where_of(clang_getTokenLocation(k->tu, k->tok[d[i]]), &w[i]);
		sp[i] = clang_getTokenSpelling(k->tu, k->tok[d[i]]);
	}
	/* the first token that is not what the grammar wants */
	unsigned i = 0;
	const char *why = NULL;
	for (; i < 6; i++) {
		if (i >= nd)
			break;
		CXTokenKind kind = clang_getTokenKind(k->tok[d[i]]);
		const char *s = clang_getCString(sp[i]);
		bool ok;
		switch (i) {
		case 0:
			ok = strcmp(s, "plan") == 0;
			break;
		case 2:
			ok = kind == CXToken_Identifier ||
			     kind == CXToken_Keyword ||
			     (kind == CXToken_Literal && s[0] == '"');
			break;
		case 4:
			ok = kind == CXToken_Literal && s[0] == '"';
			break;
		default: /* '(' ',' ')' */
			ok = kind == CXToken_Punctuation && strlen(s) == 1 &&
			     s[0] == what[i][1];
		}
		if (!ok)
			break;
	}
	if (i < 6) {
		const struct where *at = i < nd ? &w[i] : eol;
		const char *s = i < nd ? clang_getCString(sp[i]) : NULL;
		if (i == 0 && s &&
		    clang_getTokenKind(k->tok[d[0]]) == CXToken_Identifier) {
			static const char *const words[] = {"plan"};
			const char *near = front_nearest(s, words, 1);
			rc = tu_error(t, at,
			              "#pragma ccplan: unknown word '%s'; %s",
			              s,
			              near ? "did you mean 'plan'?"
			                   : "the one pragma is plan(NAME, "
			                     "\"FILE.yaml\")");
		} else if (i == 2 && s && (s[0] == ',' || s[0] == ')')) {
			rc = tu_error(t, at,
			              "#pragma ccplan: missing plan name "
			              "before '%s'",
			              s);
		} else if (i == 4 && s && s[0] == ')') {
			rc = tu_error(t, at,
			              "#pragma ccplan: missing file name: want "
			              "plan(NAME, \"FILE.yaml\")");
		} else if (s) {
			rc = tu_error(t, at,
			              "#pragma ccplan: expected %s after %s, "
			              "not '%s'",
			              what[i], after[i], s);
		} else {
			rc = tu_error(t, at,
			              "#pragma ccplan: expected %s after %s",
			              what[i], after[i]);
		}
		goto out;
	}
	if (nd > 6) {
		struct where x;
		CXString xs = clang_getTokenSpelling(k->tu, k->tok[d[6]]);
		where_of(clang_getTokenLocation(k->tu, k->tok[d[6]]), &x);
		rc = tu_error(t, &x,
		              "#pragma ccplan: unexpected '%s' after ')'",
		              clang_getCString(xs));
		clang_disposeString(xs);
		goto out;
	}
	/* the name: an identifier or a string */
	const char *ns = clang_getCString(sp[2]);
	char *name = ns[0] == '"' ? pragma_string(ns, &why) : strdup(ns);
	if (!name && !why) {
		rc = CCP_ENOMEM;
		goto out;
	}
	if (!name || name_problem(name)) {
		rc = tu_error(t, &w[2], "#pragma ccplan: %s",
		              name ? name_problem(name) : why);
		free(name);
		goto out;
	}
	char *file = pragma_string(clang_getCString(sp[4]), &why);
	if (!file) {
		free(name);
		rc = why ? tu_error(t, &w[4], "#pragma ccplan: file name: %s",
		                    why)
		         : CCP_ENOMEM;
		goto out;
	}
	if (!file[0]) {
		free(name);
		free(file);
		rc = tu_error(t, &w[4], "#pragma ccplan: empty file name");
		goto out;
	}
	int seen = seen_before(t->s, w[2].id, w[2].offset, SEEN_PRAGMA, name);
	if (seen) {
		free(name);
		free(file);
		rc = seen < 0 ? seen : 0;
		goto out;
	}
	char *dir = dir_of(w[4].name);
	char *yaml = dir ? path_join(dir, file) : NULL;
	free(dir);
	free(file);
	if (!yaml) {
		free(name);
		rc = CCP_ENOMEM;
		goto out;
	}
	rc = add_req(t->s, SCAN_PRAGMA, name, w[2].name, (int)w[2].line,
	             (int)w[2].column, yaml, w[4].name, (int)w[4].line,
	             (int)w[4].column);
out:
	for (unsigned j = 0; j < have; j++)
		clang_disposeString(sp[j]);
	return rc;
}

/* Every `#pragma ccplan` of file f that the preprocessor did not skip. */
static int scan_pragmas(struct tu *t, CXFile f)
{
	struct toks k = {t->tu, NULL, 0, NULL, 0, NULL};
	k.text = clang_getFileContents(t->tu, f, &k.size);
	if (!k.text || k.size == 0 || k.size > UINT_MAX)
		return 0;
	/* a cheap test first: most files have no such pragma */
	bool any = false;
	for (size_t p = 0; p + 6 <= k.size && !any; p++)
		any = k.text[p] == 'c' && memcmp(k.text + p, "ccplan", 6) == 0;
	if (!any)
		return 0;
	CXSourceRange all = clang_getRange(
	        clang_getLocationForOffset(t->tu, f, 0),
	        clang_getLocationForOffset(t->tu, f, (unsigned)k.size));
	clang_tokenize(t->tu, all, &k.tok, &k.n);
	k.skipped = clang_getSkippedRanges(t->tu, f);
	unsigned *d = malloc((k.n ? k.n : 1) * sizeof *d);
	int rc = d ? 0 : CCP_ENOMEM;
	unsigned prev_line = 0; /* line of the last non-comment token */
	for (unsigned i = 0; rc == 0 && i < k.n; i++) {
		if (clang_getTokenKind(k.tok[i]) == CXToken_Comment)
			continue;
		unsigned line = tok_line(&k, i);
		bool first = i == 0 || prev_line < line || prev_line == 0;
		prev_line = line;
		if (!first || !tok_is(&k, i, "#"))
			continue;
		unsigned off = tok_offset(&k, i);
		unsigned end = line_end(&k, off);
		/* the directive's tokens, comments left out (a comment may
		 * carry it over a newline) */
		unsigned nd = 0, j = i + 1, last = i;
		for (; j < k.n && tok_offset(&k, j) < end; j++) {
			if (clang_getTokenKind(k.tok[j]) == CXToken_Comment) {
				if (tok_end(&k, j) > end)
					end = line_end(&k, tok_end(&k, j));
				continue;
			}
			d[nd++] = j;
			last = j;
		}
		if (last > i)
			prev_line = tok_line(&k, last);
		if (nd < 2 || !tok_is(&k, d[0], "pragma") ||
		    !tok_is(&k, d[1], "ccplan") || in_skipped(&k, off))
			continue;
		/* where a missing token goes: just after the last one */
		struct where eol;
		where_of(clang_getRangeEnd(
		                 clang_getTokenExtent(k.tu, k.tok[d[nd - 1]])),
		         &eol);
		rc = take_pragma(t, &k, d + 2, nd - 2, &eol);
		i = j - 1;
	}
	free(d);
	clang_disposeSourceRangeList(k.skipped);
	clang_disposeTokens(t->tu, k.tok, k.n);
	return rc;
}

/* The files of a unit: the source and every header it includes. */
struct files {
	CXFile *f;     /* each file once */
	size_t n, cap; /* used, allocated */
	bool oom;      /* an allocation failed */
};

static void on_include(CXFile f, CXSourceLocation *stack, unsigned len,
                       CXClientData data)
{
	struct files *fs = data;
	(void)stack;
	(void)len;
	if (!f || fs->oom)
		return;
	for (size_t i = 0; i < fs->n; i++)
		if (clang_File_isEqual(fs->f[i], f))
			return;
	if (grow(&fs->f, &fs->cap, fs->n, sizeof *fs->f)) {
		fs->oom = true;
		return;
	}
	fs->f[fs->n++] = f;
}

/* Every compiler error of the unit into s. */
static int take_diagnostics(struct tu *t)
{
	unsigned n = clang_getNumDiagnostics(t->tu);
	for (unsigned i = 0; i < n; i++) {
		CXDiagnostic dg = clang_getDiagnostic(t->tu, i);
		int rc = 0;
		if (clang_getDiagnosticSeverity(dg) >= CXDiagnostic_Error) {
			struct where w;
			CXString m = clang_getDiagnosticSpelling(dg);
			where_of(clang_getDiagnosticLocation(dg), &w);
			t->bad++;
			rc = add_error(t->s, w.file ? w.name : NULL,
			               w.file ? (int)w.line : 0, (int)w.column,
			               "%s", clang_getCString(m));
			clang_disposeString(m);
		}
		clang_disposeDiagnostic(dg);
		if (rc)
			return rc;
	}
	return 0;
}

int scan_source(struct scan *s, const char *path, const char *const *args,
                int nargs)
{
	if (!lc_load()) {
		if (add_error(s, path, 0, 0,
		              "cannot load libclang, which ccplan scan needs "
		              "(%s); set CCPLAN_LIBCLANG to its path",
		              lc_why))
			return CCP_ENOMEM;
		return CCP_EINTERNAL;
	}
	FILE *probe = fopen(path, "r");
	if (!probe) {
		int e = errno;
		if (add_error(s, path, 0, 0, "cannot read: %s", strerror(e)))
			return CCP_ENOMEM;
		return CCP_EIO;
	}
	fclose(probe);
	if (nargs < 0 || nargs > INT_MAX - 2)
		return CCP_EINVAL;
	const char **argv = malloc(((size_t)nargs + 2) * sizeof *argv);
	if (!argv)
		return CCP_ENOMEM;
	int na = 0;
	argv[na++] = "-D" SCAN_MACRO "=1";
	for (int i = 0; i < nargs; i++)
		argv[na++] = args[i];
	argv[na++] = "-w"; /* a scan is not the build: no warnings, and
	                      none made errors by -Werror */

	CXIndex idx = clang_createIndex(0, 0);
	CXTranslationUnit unit = NULL;
	enum CXErrorCode ec = CXError_Failure;
	if (idx)
		ec = clang_parseTranslationUnit2(
		        idx, path, argv, na, NULL, 0,
		        CXTranslationUnit_DetailedPreprocessingRecord, &unit);
	free(argv);
	if (ec != CXError_Success || !unit) {
		if (idx)
			clang_disposeIndex(idx);
		if (add_error(s, path, 0, 0,
		              "libclang could not parse the file (error %d); "
		              "check the flags after --",
		              (int)ec))
			return CCP_ENOMEM;
		return CCP_EINTERNAL;
	}
	struct tu t = {s, unit, 0, 0};
	int rc = take_diagnostics(&t);
	if (rc == 0 && t.bad == 0) {
		struct files fs = {NULL, 0, 0, false};
		clang_getInclusions(unit, on_include, &fs);
		rc = fs.oom ? CCP_ENOMEM : 0;
		for (size_t i = 0; rc == 0 && i < fs.n; i++) {
			CXSourceLocation at =
			        clang_getLocationForOffset(unit, fs.f[i], 0);
			if (!clang_Location_isInSystemHeader(at))
				rc = scan_pragmas(&t, fs.f[i]);
		}
		free(fs.f);
		if (rc == 0) {
			clang_visitChildren(
			        clang_getTranslationUnitCursor(unit), visit,
			        &t);
			rc = t.rc;
		}
	}
	clang_disposeTranslationUnit(unit);
	clang_disposeIndex(idx);
	if (rc)
		return rc;
	return t.bad ? CCP_EPARSE : 0;
}

#else /* !CCPLAN_HAVE_LIBCLANG */

bool scan_available(void)
{
	return false;
}

int scan_source(struct scan *s, const char *path, const char *const *args,
                int nargs)
{
	(void)args;
	(void)nargs;
	if (add_error(s, path, 0, 0,
	              "this ccplan was built without libclang: ccplan scan "
	              "is not available (compiler/scan.cmake)"))
		return CCP_ENOMEM;
	return CCP_EINTERNAL;
}

#endif

/* ---- names to files ---------------------------------------------------- */

/* What keeps path from being read as a YAML input, or NULL. */
static const char *file_problem(const char *path)
{
	struct stat sb;
	if (stat(path, &sb) != 0)
		return strerror(errno);
	return S_ISREG(sb.st_mode) ? NULL : "not a regular file";
}

static bool is_file(const char *path)
{
	return file_problem(path) == NULL;
}

static int by_name(const void *a, const void *b)
{
	const struct scan_plan *x = a, *y = b;
	return strcmp(x->name, y->name);
}

void scan_plans_free(struct scan_plan *plans, size_t nplans)
{
	for (size_t i = 0; plans && i < nplans; i++)
		free(plans[i].yaml);
	free(plans);
}

/* The plan of name in plans[0..n), or NULL. */
static struct scan_plan *plan_of(struct scan_plan *plans, size_t n,
                                 const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(plans[i].name, name) == 0)
			return &plans[i];
	return NULL;
}

/* NAME.yaml in the call's directory or one of dirs; the file (malloc'd)
 * into *out, NULL if none; a negative code on failure. */
static int find_default(const struct scan_req *r, const char *const *dirs,
                        size_t ndirs, char **out)
{
	*out = NULL;
	size_t n = strlen(r->name) + 6;
	char *base = malloc(n);
	char *dir = dir_of(r->at.file);
	int rc = base && dir ? 0 : CCP_ENOMEM;
	if (!rc)
		snprintf(base, n, "%s.yaml", r->name);
	for (size_t i = 0; rc == 0 && i <= ndirs && !*out; i++) {
		char *p = path_join(i == 0 ? dir : dirs[i - 1], base);
		if (!p)
			rc = CCP_ENOMEM;
		else if (is_file(p))
			*out = p;
		else
			free(p);
	}
	free(base);
	free(dir);
	return rc;
}

/* The directories NAME.yaml was looked for in, for the error. */
static void dirs_text(const struct scan_req *r, const char *const *dirs,
                      size_t ndirs, char *buf, size_t len)
{
	char *dir = dir_of(r->at.file);
	int n = snprintf(buf, len, "%s", dir ? dir : ".");
	free(dir);
	for (size_t i = 0; i < ndirs && n >= 0 && (size_t)n < len; i++)
		n += snprintf(buf + n, len - (size_t)n, "%s%s",
		              i + 1 == ndirs ? " or " : ", ", dirs[i]);
}

int scan_resolve(struct scan *s, const char *const *dirs, size_t ndirs,
                 struct scan_plan **plans, size_t *nplans)
{
	struct scan_plan *p = calloc(s->nreqs ? s->nreqs : 1, sizeof *p);
	size_t n = 0;
	int rc = 0, bad = 0;
	*plans = NULL;
	*nplans = 0;
	if (!p)
		return CCP_ENOMEM;
	/* pragmas first: they decide a name's file wherever it is used */
	for (size_t i = 0; rc == 0 && i < s->nreqs; i++) {
		const struct scan_req *r = &s->reqs[i];
		if (r->form != SCAN_PRAGMA)
			continue;
		const char *why = file_problem(r->yaml);
		if (why) {
			bad++;
			rc = add_error(s, r->yaml_at.file, r->yaml_at.line,
			               r->yaml_at.column,
			               "plan '%s': cannot read %s: %s", r->name,
			               r->yaml, why);
			continue;
		}
		struct scan_plan *q = plan_of(p, n, r->name);
		if (!q) {
			p[n].name = r->name;
			p[n].by = r;
			if (!(p[n].yaml = strdup(r->yaml)))
				rc = CCP_ENOMEM;
			n++;
			continue;
		}
		char *a = realpath(q->yaml, NULL), *b = realpath(r->yaml, NULL);
		if (a && b && strcmp(a, b) != 0) {
			bad++;
			rc = add_error(s, r->at.file, r->at.line, r->at.column,
			               "plan '%s' is already mapped to %s (at "
			               "%s:%d:%d); it cannot also be %s",
			               r->name, q->yaml, q->by->at.file,
			               q->by->at.line, q->by->at.column,
			               r->yaml);
		}
		free(a);
		free(b);
	}
	/* then calls of names no pragma maps: NAME.yaml */
	for (size_t i = 0; rc == 0 && i < s->nreqs; i++) {
		const struct scan_req *r = &s->reqs[i];
		if (r->form != SCAN_CALL || plan_of(p, n, r->name))
			continue;
		bool failed = false;
		for (size_t j = 0; j < i; j++)
			if (strcmp(s->reqs[j].name, r->name) == 0)
				failed = true; /* reported at the first call */
		if (failed)
			continue;
		char *yaml = NULL;
		bool fileable = !strchr(r->name, '/') &&
		                strcmp(r->name, ".") != 0 &&
		                strcmp(r->name, "..") != 0;
		if (fileable && (rc = find_default(r, dirs, ndirs, &yaml)) != 0)
			break;
		if (!yaml) {
			char where[1024];
			dirs_text(r, dirs, ndirs, where, sizeof where);
			bad++;
			rc = fileable
			             ? add_error(
			                       s, r->at.file, r->at.line,
			                       r->at.column,
			                       "plan '%s': no %s.yaml in %s; "
			                       "add one, give --yaml-dir, or "
			                       "map the name with #pragma "
			                       "ccplan plan(%s, \"FILE.yaml\")",
			                       r->name, r->name, where, r->name)
			             : add_error(
			                       s, r->at.file, r->at.line,
			                       r->at.column,
			                       "plan '%s': the name cannot be "
			                       "a "
			                       "file name; map it with #pragma "
			                       "ccplan plan(\"%s\", "
			                       "\"FILE.yaml\")",
			                       r->name, r->name);
			continue;
		}
		p[n].name = r->name;
		p[n].by = r;
		p[n].yaml = yaml;
		n++;
	}
	if (rc || bad) {
		scan_plans_free(p, n);
		return rc ? rc : CCP_EPARSE;
	}
	qsort(p, n, sizeof *p, by_name);
	*plans = p;
	*nplans = n;
	return 0;
}
