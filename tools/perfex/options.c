// SPDX-License-Identifier: GPL-2.0
/*
 * perfex's command line: options first, then the command and its
 * arguments, which are never looked at.  The first argument that is not
 * an option, or whatever follows "--", starts the command.
 *
 * Short options may be clustered (-jo FILE); an option's argument may be
 * attached (-oFILE, --output=FILE) or the next argument.  Long options
 * are spelt in full: no abbreviations.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "options.h"

/* What a bad value should have been, for the error. */
#define RUNS_WANTED	"number of runs (1 to 100000)"
#define INTERVAL_WANTED	"interval (milliseconds, at least 10)"
#define NO_ARGUMENT	"option '%s' doesn't allow an argument"

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

/*
 * An option's argument into @value: @attached if it came as -oFILE or
 * --output=FILE, else the next argument.  @name is the option as the
 * user spelt it, for the error.
 */
static enum perfex_action take_arg(struct parser *p, const char *attached,
				   const char *name, const char **value)
{
	if (attached) {
		*value = attached;
		return PERFEX_RUN;
	}
	if (p->i + 1 >= p->argc) {
		char msg[64];

		snprintf(msg, sizeof(msg), "option '%s' requires an argument",
			 name);
		return usage_error(p, "%s", msg);
	}
	*value = p->argv[++p->i];
	return PERFEX_RUN;
}

/* A whole decimal number from @min to @max, nothing else; -1 if not. */
static long long parse_number(const char *arg, long long min, long long max)
{
	long long value;
	char *end;

	if (arg[0] < '0' || arg[0] > '9')
		return -1;
	value = strtoll(arg, &end, 10);
	if (*end || value < min || value > max)
		return -1;
	return value;
}

static enum perfex_action bad_value(struct parser *p, const char *name,
				    const char *what, const char *value)
{
	char msg[160];

	snprintf(msg, sizeof(msg), "option '%s': invalid %s '%.40s'", name,
		 what, value);
	return usage_error(p, "%s", msg);
}

/* An option with an argument, by its letter; @name as spelt. */
static enum perfex_action take_option(struct parser *p, char opt,
				      const char *attached, const char *name)
{
	struct perfex_options *o = p->options;
	enum perfex_action action;
	const char *value;
	long long n;

	action = take_arg(p, attached, name, &value);
	if (action != PERFEX_RUN)
		return action;

	switch (opt) {
	case 'o':
		if (!value[0])
			return usage_error(p, "option '%s': empty file name",
					   name);
		o->output = value;
		break;
	case 'e':
		if (perfex_add_events(&o->events, value, p->error,
				      p->error_size) < 0)
			return PERFEX_USAGE_ERROR;
		break;
	case 'x':
		if (!value[0])
			return usage_error(p, "option '%s': empty separator",
					   name);
		o->csv_sep = value;
		break;
	case 'r':
		n = parse_number(value, 1, PERFEX_MAX_RUNS);
		if (n < 0)
			return bad_value(p, name, RUNS_WANTED, value);
		o->runs = n;
		break;
	case 'p':
		n = parse_number(value, 1, 0x3fffffff);
		if (n < 0)
			return bad_value(p, name, "thread id", value);
		o->tid = n;
		break;
	case 'I':
		n = parse_number(value, PERFEX_MIN_INTERVAL_MS,
				 PERFEX_MAX_INTERVAL_MS);
		if (n < 0)
			return bad_value(p, name, INTERVAL_WANTED, value);
		o->interval_ms = n;
		break;
	}
	return PERFEX_RUN;
}

static const struct {
	const char *name;
	char opt;		/* the short option it is */
	int has_arg;
} long_options[] = {
	{ "output",		'o', 1 },
	{ "event",		'e', 1 },
	{ "field-separator",	'x', 1 },
	{ "repeat",		'r', 1 },
	{ "pid",		'p', 1 },
	{ "tid",		'p', 1 },
	{ "interval-print",	'I', 1 },
	{ "json",		'j', 0 },
	{ "no-children",	'C', 0 },
	{ "topdown",		'T', 0 },
	{ "regions",		'R', 0 },
	{ "info",		'i', 0 },
	{ "list",		'l', 0 },
	{ "help",		'h', 0 },
	{ "version",		'V', 0 },
};

/* An option without an argument, by its letter. */
static enum perfex_action flag_option(struct parser *p, char opt)
{
	switch (opt) {
	case 'h':
		return PERFEX_HELP;
	case 'V':
		return PERFEX_VERSION;
	case 'i':
		return PERFEX_INFO;
	case 'l':
		return PERFEX_LIST;
	case 'j':
		p->options->json = 1;
		break;
	case 'C':
		p->options->no_children = 1;
		break;
	case 'T':
		p->options->topdown = 1;
		break;
	case 'R':
		p->options->regions = 1;
		break;
	}
	return PERFEX_RUN;
}

/* --NAME or --NAME=VALUE. */
static enum perfex_action long_option(struct parser *p, const char *arg)
{
	const char *name = arg + 2, *eq = strchr(name, '=');
	size_t len = eq ? (size_t)(eq - name) : strlen(name);
	char spelt[48];
	unsigned int i;

	for (i = 0; i < sizeof(long_options) / sizeof(long_options[0]); i++) {
		if (strlen(long_options[i].name) != len ||
		    strncmp(long_options[i].name, name, len) != 0)
			continue;
		snprintf(spelt, sizeof(spelt), "--%s", long_options[i].name);
		if (!long_options[i].has_arg) {
			if (eq)
				return usage_error(p, NO_ARGUMENT, spelt);
			return flag_option(p, long_options[i].opt);
		}
		return take_option(p, long_options[i].opt,
				   eq ? eq + 1 : NULL, spelt);
	}
	return usage_error(p, "unrecognized option '%s'", arg);
}

/* A cluster of short options: -h, -o FILE, -oFILE, -jo FILE ... */
static enum perfex_action short_options(struct parser *p, const char *arg)
{
	enum perfex_action action;

	for (arg++; *arg; arg++) {
		char opt[3] = { '-', *arg, '\0' };

		if (strchr("oexrpI", *arg))
			return take_option(p, *arg, arg[1] ? arg + 1 : NULL,
					   opt);
		if (!strchr("hilj", *arg))
			return usage_error(p, "invalid option '%s'", opt);
		action = flag_option(p, *arg);
		if (action != PERFEX_RUN)
			return action;
	}
	return PERFEX_RUN;
}

/*
 * What may follow -l: --long, --pmus and one word, the names to list.
 * @i is the argument after -l.
 */
static enum perfex_action list_arguments(struct parser *p, int i)
{
	struct perfex_options *o = p->options;

	for (; i < p->argc; i++) {
		const char *arg = p->argv[i];

		if (!strcmp(arg, "--long"))
			o->list_long = 1;
		else if (!strcmp(arg, "--pmus"))
			o->list_pmus = 1;
		else if (arg[0] == '-' || arg[0] == '\0')
			return usage_error(p, "-l takes --long, --pmus and a "
					   "word to look for, not '%s'", arg);
		else if (o->list_filter)
			return usage_error(p, "-l takes one word to look for, "
					   "not '%s' too", arg);
		else
			o->list_filter = arg;
	}
	if (o->list_pmus && (o->list_long || o->list_filter))
		return usage_error(p, "%s", "-l --pmus takes nothing else");
	return PERFEX_LIST;
}

/* Options that make no sense together. */
static enum perfex_action check_combination(struct parser *p)
{
	const struct perfex_options *o = p->options;

	if (o->csv_sep && o->json)
		return usage_error(p, "%s", "-x and --json cannot be used "
				   "together");
	if (o->runs > 1 && o->tid)
		return usage_error(p, "%s", "-r cannot be used with -p");
	if (o->runs > 1 && o->interval_ms)
		return usage_error(p, "%s", "-r cannot be used with -I");
	/*
	 * The region area is made for a command perfex starts, and its
	 * counts are those of one run.
	 */
	if (o->regions && o->tid)
		return usage_error(p, "%s", "--regions cannot be used with -p: "
				   "a running thread has no region area");
	if (o->regions && o->runs > 1)
		return usage_error(p, "%s", "-r cannot be used with --regions");
	if (!o->command && !o->tid)
		return usage_error(p, "%s", "no command given");
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
 * Parsing stops at the first help, version, info or list request, or
 * error; a list request takes what follows it (list_arguments()).  A
 * command is needed, except with -p: there it is optional, and counting
 * lasts as long as it runs.
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
	options->runs = 1;
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
		if (action == PERFEX_LIST)
			return list_arguments(&p, p.i + 1);
		if (action != PERFEX_RUN)
			return action;
	}

	if (p.i < argc) {
		options->command = argv + p.i;
		options->command_argc = argc - p.i;
	}
	return check_combination(&p);
}
