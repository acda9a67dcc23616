/* SPDX-License-Identifier: GPL-2.0 */
#ifndef PERFEX_OPTIONS_H
#define PERFEX_OPTIONS_H

#include <stddef.h>

#include "events.h"

/* Limits of the numeric options. */
#define PERFEX_MAX_RUNS		100000
#define PERFEX_MIN_INTERVAL_MS	10
#define PERFEX_MAX_INTERVAL_MS	86400000	/* a day */

struct perfex_options {
	const char *output;	/* -o FILE; NULL: standard error */
	struct perfex_event_list events;	/* -e; none: the defaults */
	char **command;		/* NULL-terminated, for execvp() */
	int command_argc;	/* 0 with -p and no command */
	const char *csv_sep;	/* -x SEP; NULL: not CSV */
	int json;		/* --json */
	unsigned int runs;	/* -r N; 1 without */
	int tid;		/* -p TID; 0 without */
	unsigned int interval_ms;	/* -I MS; 0 without */
	int no_children;	/* --no-children */
	int topdown;		/* --topdown */
	int regions;		/* --regions */
	const char *list_filter;	/* -l WORD: names holding it */
	int list_long;		/* -l --long: unit masks, modifiers */
	int list_pmus;		/* -l --pmus: the PMUs libpfm4 knows */
};

enum perfex_action {
	PERFEX_RUN,
	PERFEX_HELP,
	PERFEX_VERSION,
	PERFEX_INFO,		/* -i */
	PERFEX_LIST,		/* -l */
	PERFEX_USAGE_ERROR,
};

enum perfex_action perfex_parse_options(int argc, char **argv,
					struct perfex_options *options,
					char *error, size_t error_size);

#endif /* PERFEX_OPTIONS_H */
