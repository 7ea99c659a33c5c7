/*
 * suggest.h - "did you mean": the valid name nearest to a misspelt one.
 * Every suggestion of the front end (keys, topologies, collectives,
 * presets, ...), of the compiler (algorithms) and of the command line
 * (commands, options, help topics) comes from here, so they all agree on
 * what counts as close.
 */
#ifndef CCP_SUGGEST_H
#define CCP_SUGGEST_H

#include <stddef.h>

/* Names longer than this are never compared (SIZE_MAX distance). */
#define SUGGEST_MAX_LEN 64

/* The edit distance of a and b: insertions, deletions, substitutions and
 * swaps of two neighbours cost 1 (optimal string alignment, the restricted
 * Damerau-Levenshtein distance).  Letters are compared without case and
 * '-' equals '_', so "Edn-Torus" is at 0 from "edn_torus".  SIZE_MAX when
 * either string is longer than SUGGEST_MAX_LEN. */
size_t suggest_distance(const char *a, const char *b);

/* The largest distance at which a name of len characters is still a
 * likely typo: 1 up to 3 characters, 2 up to 9, 3 beyond. */
size_t suggest_limit(size_t len);

/* The name of names[0..count) nearest to s, when it is a likely typo:
 * at a distance within suggest_limit of that name's length and smaller
 * than that length; the first of equally near names.  Failing that, the
 * one name that s (3 characters or more) begins, as in "hyper" for
 * "hypercube".  NULL when no name is close; s itself is never returned
 * (an exact match is not a typo).  NULL entries of names are skipped. */
const char *suggest_nearest(const char *s, const char *const *names,
                            size_t count);

/* The option of a command's help text nearest to arg: every word of help
 * that starts with '-' followed by a letter ("-o", "--no-cache") is a
 * candidate, compared without its leading dashes (and arg without its
 * "=VALUE"), so "-no-cache" and "--no-cahce" both find "--no-cache".
 * The option is copied into buf (cap bytes); NULL when none is close or
 * arg does not start with '-'. */
const char *suggest_option(const char *arg, const char *help, char *buf,
                           size_t cap);

#endif
