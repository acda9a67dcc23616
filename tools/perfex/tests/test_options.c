// SPDX-License-Identifier: GPL-2.0
/*
 * perfex's command line.
 */
#include <string.h>

#include "options.h"
#include "tap.h"

#define ARGV(...)	((char *[]){ "perfex", __VA_ARGS__, NULL })
#define ARGC(argv)	argc_of(argv)

static int argc_of(char **argv)
{
	int argc = 0;

	while (argv[argc])
		argc++;
	return argc;
}

static struct perfex_options options;
static char error[128];

static enum perfex_action parse(char **argv)
{
	error[0] = '\0';
	return perfex_parse_options(ARGC(argv), argv, &options, error,
				    sizeof(error));
}

static void test_command_only(void)
{
	char **argv = ARGV("./spin", "-o", "x");

	tap_is_int(parse(argv), PERFEX_RUN, "command: run");
	tap_ok(options.command == argv + 1 && options.command_argc == 3,
	       "command: starts at the first non-option");
	tap_ok(options.output == NULL, "command: its -o is not ours");
}

static void test_output(void)
{
	tap_ok(parse(ARGV("-o", "out.txt", "ls")) == PERFEX_RUN &&
	       options.output && !strcmp(options.output, "out.txt") &&
	       !strcmp(options.command[0], "ls"), "-o FILE");
	tap_ok(parse(ARGV("-oout.txt", "ls")) == PERFEX_RUN &&
	       !strcmp(options.output, "out.txt"), "-oFILE");
	tap_ok(parse(ARGV("--output", "a", "ls")) == PERFEX_RUN &&
	       !strcmp(options.output, "a"), "--output FILE");
	tap_ok(parse(ARGV("--output=b", "ls")) == PERFEX_RUN &&
	       !strcmp(options.output, "b"), "--output=FILE");
	tap_ok(parse(ARGV("-o", "a", "-o", "c", "ls")) == PERFEX_RUN &&
	       !strcmp(options.output, "c"), "-o twice: the last wins");
	tap_is_int(parse(ARGV("-o")), PERFEX_USAGE_ERROR, "-o without FILE");
	tap_is_str(error, "option '-o' requires an argument",
		   "-o without FILE: message");
	tap_is_int(parse(ARGV("--output=", "ls")), PERFEX_USAGE_ERROR,
		   "--output= with an empty name");
}

static void test_help_version(void)
{
	tap_is_int(parse(ARGV("-h")), PERFEX_HELP, "-h");
	tap_is_int(parse(ARGV("--help", "ls")), PERFEX_HELP, "--help");
	tap_is_int(parse(ARGV("--version")), PERFEX_VERSION, "--version");
	tap_is_int(parse(ARGV("ls", "--help")), PERFEX_RUN,
		   "--help after the command is the command's");
}

static void test_errors(void)
{
	tap_is_int(parse((char *[]){ "perfex", NULL }), PERFEX_USAGE_ERROR,
		   "no arguments");
	tap_is_str(error, "no command given", "no arguments: message");
	tap_is_int(parse(ARGV("-x", "ls")), PERFEX_USAGE_ERROR,
		   "unknown short option");
	tap_is_str(error, "invalid option '-x'", "unknown short: message");
	tap_is_int(parse(ARGV("--frobnicate", "ls")), PERFEX_USAGE_ERROR,
		   "unknown long option");
	tap_is_str(error, "unrecognized option '--frobnicate'",
		   "unknown long: message");
	tap_is_int(parse(ARGV("--out", "a", "ls")), PERFEX_USAGE_ERROR,
		   "abbreviated long option");
	tap_is_int(parse(ARGV("-o", "a")), PERFEX_USAGE_ERROR,
		   "-o FILE and no command");
}

static void test_events(void)
{
	tap_ok(parse(ARGV("ls")) == PERFEX_RUN && options.events.nr == 0,
	       "no -e: no events (the defaults are perfex's choice)");
	tap_ok(parse(ARGV("-e", "tsc,cs", "ls")) == PERFEX_RUN &&
	       options.events.nr == 2 &&
	       !strcmp(options.events.event[1].name, "cs") &&
	       !strcmp(options.command[0], "ls"), "-e LIST");
	tap_ok(parse(ARGV("-etask-clock", "-e", "faults:u", "ls")) ==
	       PERFEX_RUN && options.events.nr == 2 &&
	       !strcmp(options.events.event[0].name, "task-clock") &&
	       !strcmp(options.events.event[1].name, "faults:u"),
	       "-eEVENT, and -e repeated adds up");
	tap_ok(parse(ARGV("--event", "tsc", "--event=major-faults:k", "ls")) ==
	       PERFEX_RUN && options.events.nr == 2 &&
	       options.events.event[1].type == PERFCTR_SW_MAJOR_FAULTS,
	       "--event EVENT and --event=EVENT");
	tap_ok(parse(ARGV("-o", "f", "-e", "cs", "ls")) == PERFEX_RUN &&
	       !strcmp(options.output, "f") && options.events.nr == 1,
	       "-o and -e together");
	tap_is_int(parse(ARGV("-e", "bogus", "ls")), PERFEX_USAGE_ERROR,
		   "-e with an unknown event");
	tap_is_str(error, "unknown event 'bogus'", "unknown event: message");
	tap_is_int(parse(ARGV("-e")), PERFEX_USAGE_ERROR, "-e without EVENTS");
	tap_is_str(error, "option '-e' requires an argument",
		   "-e without EVENTS: message");
	tap_is_int(parse(ARGV("--event")), PERFEX_USAGE_ERROR,
		   "--event without EVENTS");
	tap_is_int(parse(ARGV("--event=", "ls")), PERFEX_USAGE_ERROR,
		   "--event= with nothing");
	tap_is_str(error, "empty event name", "--event=: message");
	tap_ok(parse(ARGV("ls", "-e", "bogus")) == PERFEX_RUN &&
	       options.events.nr == 0, "-e after the command is the command's");
}

static void test_double_dash(void)
{
	char **argv = ARGV("--", "-weird-name", "x");

	tap_ok(parse(argv) == PERFEX_RUN && options.command == argv + 2 &&
	       options.command_argc == 2, "-- ends the options");
	tap_is_int(parse(ARGV("--")), PERFEX_USAGE_ERROR,
		   "-- and no command");
	argv = ARGV("-", "x");
	tap_ok(parse(argv) == PERFEX_RUN && options.command == argv + 1,
	       "a lone '-' is a command");
}

int main(void)
{
	test_command_only();
	test_output();
	test_help_version();
	test_errors();
	test_events();
	test_double_dash();
	return tap_done();
}
