/*
 * help_topics.h - `ccplan help TOPIC`: short references for the terminal
 * (the input format, the plan format, the algorithms, the cost presets,
 * the environment, the exit statuses).  docs/ holds the full reference;
 * these are what a user needs at the prompt, in plain text.
 */
#ifndef CCP_HELP_TOPICS_H
#define CCP_HELP_TOPICS_H

#include <stdio.h>

/* The topics, NULL-terminated, in the order `ccplan help` lists them. */
extern const char *const help_topic_names[];

/* Print topic to out; 0, or -1 if there is no such topic. */
int help_topic_print(const char *topic, FILE *out);

/* Print what one algorithm (a generator's name, or "auto") is; 0, or -1
 * if there is no such algorithm. */
int help_algorithm_print(const char *name, FILE *out);

/* Print the table of docs/algorithms.md: one row per generator, its
 * collectives and machine from its domain's data (sch_domain_colls,
 * sch_domain_machine), its summary and its page.  test_registry checks
 * that the page holds exactly this table. */
void help_algorithm_table(FILE *out);

/* Write text to out with lines longer than width broken at spaces,
 * continuation lines indented by indent columns. */
void help_wrap(FILE *out, const char *text, int indent, int width);

#endif
