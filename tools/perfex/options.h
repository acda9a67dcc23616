/* SPDX-License-Identifier: GPL-2.0 */
#ifndef PERFEX_OPTIONS_H
#define PERFEX_OPTIONS_H

#include <stddef.h>

#include "events.h"

struct perfex_options {
	const char *output;	/* -o FILE; NULL: standard error */
	struct perfex_event_list events;	/* -e; none: the defaults */
	char **command;		/* NULL-terminated, as execvp() wants it */
	int command_argc;
};

enum perfex_action {
	PERFEX_RUN,
	PERFEX_HELP,
	PERFEX_VERSION,
	PERFEX_USAGE_ERROR,
};

enum perfex_action perfex_parse_options(int argc, char **argv,
					struct perfex_options *options,
					char *error, size_t error_size);

#endif /* PERFEX_OPTIONS_H */
