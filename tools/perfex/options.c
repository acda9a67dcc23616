// SPDX-License-Identifier: GPL-2.0
/*
 * perfex's command line: options first, then the command and its
 * arguments, which are never looked at.  The first argument that is not
 * an option, or whatever follows "--", starts the command.
 */
#include <stdio.h>
#include <string.h>

#include "options.h"

struct parser {
	int argc;
	char **argv;
	int i;			/* the argument being parsed */
	struct perfex_options *options;
	char *error;
	size_t error_size;
};

static enum perfex_action usage_error(struct parser *p, const char *fmt,
				      const char *what)
{
	snprintf(p->error, p->error_size, fmt, what);
	return PERFEX_USAGE_ERROR;
}

/* -o's FILE: @attached if given as -oFILE or --output=FILE, else next. */
static enum perfex_action take_output(struct parser *p, const char *attached,
				      const char *name)
{
	const char *file = attached;

	if (!file) {
		if (p->i + 1 >= p->argc)
			return usage_error(p, "option '%s' requires an argument",
					   name);
		file = p->argv[++p->i];
	}
	if (!file[0])
		return usage_error(p, "option '%s': empty file name", name);
	p->options->output = file;
	return PERFEX_RUN;
}

/* -e's EVENTS: @attached if given as -eEVENTS or --event=EVENTS. */
static enum perfex_action take_events(struct parser *p, const char *attached,
				      const char *name)
{
	const char *spec = attached;

	if (!spec) {
		if (p->i + 1 >= p->argc)
			return usage_error(p, "option '%s' requires an "
					   "argument", name);
		spec = p->argv[++p->i];
	}
	if (perfex_add_events(&p->options->events, spec, p->error,
			      p->error_size) < 0)
		return PERFEX_USAGE_ERROR;
	return PERFEX_RUN;
}

/* --NAME or --NAME=VALUE. */
static enum perfex_action long_option(struct parser *p, const char *arg)
{
	const char *name = arg + 2;

	if (strcmp(name, "help") == 0)
		return PERFEX_HELP;
	if (strcmp(name, "version") == 0)
		return PERFEX_VERSION;
	if (strcmp(name, "output") == 0)
		return take_output(p, NULL, "--output");
	if (strncmp(name, "output=", 7) == 0)
		return take_output(p, name + 7, "--output");
	if (strcmp(name, "event") == 0)
		return take_events(p, NULL, "--event");
	if (strncmp(name, "event=", 6) == 0)
		return take_events(p, name + 6, "--event");
	return usage_error(p, "unrecognized option '%s'", arg);
}

/* A cluster of short options: -h, -o FILE, -oFILE, -e EVENTS, -ho ... */
static enum perfex_action short_options(struct parser *p, const char *arg)
{
	for (arg++; *arg; arg++) {
		char opt[3] = { '-', *arg, '\0' };

		if (*arg == 'h')
			return PERFEX_HELP;
		if (*arg == 'o')
			return take_output(p, arg[1] ? arg + 1 : NULL, opt);
		if (*arg == 'e')
			return take_events(p, arg[1] ? arg + 1 : NULL, opt);
		return usage_error(p, "invalid option '%s'", opt);
	}
	return PERFEX_RUN;
}

/**
 * perfex_parse_options - read perfex's command line
 * @argc: as given to main()
 * @argv: as given to main()
 * @options: filled in for PERFEX_RUN
 * @error: for PERFEX_USAGE_ERROR, what was wrong, without a prefix
 * @error_size: its size
 *
 * Parsing stops at the first help or version request, or error.
 */
enum perfex_action perfex_parse_options(int argc, char **argv,
					struct perfex_options *options,
					char *error, size_t error_size)
{
	struct parser p = {
		.argc = argc, .argv = argv, .options = options,
		.error = error, .error_size = error_size,
	};
	enum perfex_action action;

	memset(options, 0, sizeof(*options));
	for (p.i = 1; p.i < argc; p.i++) {
		const char *arg = argv[p.i];

		if (strcmp(arg, "--") == 0) {
			p.i++;
			break;
		}
		if (arg[0] != '-' || arg[1] == '\0')
			break;
		if (arg[1] == '-')
			action = long_option(&p, arg);
		else
			action = short_options(&p, arg);
		if (action != PERFEX_RUN)
			return action;
	}

	if (p.i >= argc)
		return usage_error(&p, "%s", "no command given");
	options->command = argv + p.i;
	options->command_argc = argc - p.i;
	return PERFEX_RUN;
}
