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
	tap_is_int(parse(ARGV("-q", "ls")), PERFEX_USAGE_ERROR,
		   "unknown short option");
	tap_is_str(error, "invalid option '-q'", "unknown short: message");
	tap_is_int(parse(ARGV("-jq", "ls")), PERFEX_USAGE_ERROR,
		   "unknown short option in a cluster");
	tap_is_str(error, "invalid option '-q'", "in a cluster: message");
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
	       !strcmp(options.events.event[0].text, "tsc") &&
	       !strcmp(options.events.event[1].text, "cs") &&
	       !strcmp(options.command[0], "ls"), "-e LIST");
	tap_ok(parse(ARGV("-etask-clock", "-e", "faults:u", "ls")) ==
	       PERFEX_RUN && options.events.nr == 2 &&
	       !strcmp(options.events.event[0].text, "task-clock") &&
	       !strcmp(options.events.event[1].text, "faults:u"),
	       "-eEVENT, and -e repeated adds up");
	tap_ok(parse(ARGV("--event", "tsc", "--event=cycles:k", "ls")) ==
	       PERFEX_RUN && options.events.nr == 2 &&
	       !strcmp(options.events.event[1].text, "cycles:k"),
	       "--event EVENT and --event=EVENT");
	tap_ok(parse(ARGV("-o", "f", "-e", "cs", "ls")) == PERFEX_RUN &&
	       !strcmp(options.output, "f") && options.events.nr == 1,
	       "-o and -e together");
	tap_ok(parse(ARGV("-e", "bogus,r1c2,0xc0@1", "ls")) == PERFEX_RUN &&
	       options.events.nr == 3 &&
	       !strcmp(options.events.event[0].text, "bogus") &&
	       !strcmp(options.events.event[2].text, "0xc0@1"),
	       "-e: names kept as written, parsed once the machine is known");
	tap_is_int(parse(ARGV("-e", "tsc,,cs", "ls")), PERFEX_USAGE_ERROR,
		   "-e with an empty name in the list");
	tap_is_str(error, "empty event name", "empty name: message");
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


static void test_csv(void)
{
	tap_ok(parse(ARGV("-x,", "ls")) == PERFEX_RUN && options.csv_sep &&
	       !strcmp(options.csv_sep, ",") && !options.json, "-xSEP");
	tap_ok(parse(ARGV("-x", ";", "ls")) == PERFEX_RUN &&
	       !strcmp(options.csv_sep, ";"), "-x SEP");
	tap_ok(parse(ARGV("--field-separator=::", "ls")) == PERFEX_RUN &&
	       !strcmp(options.csv_sep, "::"), "--field-separator=SEP");
	tap_ok(parse(ARGV("--field-separator", " ", "ls")) == PERFEX_RUN &&
	       !strcmp(options.csv_sep, " "), "--field-separator SEP");
	tap_ok(parse(ARGV("ls")) == PERFEX_RUN && !options.csv_sep,
	       "no -x: not CSV");
	tap_is_int(parse(ARGV("-x", "", "ls")), PERFEX_USAGE_ERROR,
		   "-x with an empty separator");
	tap_is_str(error, "option '-x': empty separator",
		   "-x empty: message");
	tap_is_int(parse(ARGV("-x")), PERFEX_USAGE_ERROR, "-x without SEP");
	tap_is_str(error, "option '-x' requires an argument",
		   "-x without SEP: message");
	tap_is_int(parse(ARGV("-x", ",", "ls", "--json")), PERFEX_RUN,
		   "--json after the command is the command's");
}

static void test_json(void)
{
	tap_ok(parse(ARGV("-j", "ls")) == PERFEX_RUN && options.json, "-j");
	tap_ok(parse(ARGV("--json", "ls")) == PERFEX_RUN && options.json,
	       "--json");
	tap_ok(parse(ARGV("ls")) == PERFEX_RUN && !options.json,
	       "no --json");
	tap_ok(parse(ARGV("-jo", "f", "ls")) == PERFEX_RUN && options.json &&
	       !strcmp(options.output, "f"), "-jo FILE: a cluster");
	tap_is_int(parse(ARGV("--json=yes", "ls")), PERFEX_USAGE_ERROR,
		   "--json=VALUE");
	tap_is_str(error, "option '--json' doesn't allow an argument",
		   "--json=VALUE: message");
	tap_is_int(parse(ARGV("-j", "-x,", "ls")), PERFEX_USAGE_ERROR,
		   "-j and -x");
	tap_is_str(error, "-x and --json cannot be used together",
		   "-j and -x: message");
}

static void test_repeat(void)
{
	tap_ok(parse(ARGV("ls")) == PERFEX_RUN && options.runs == 1,
	       "no -r: one run");
	tap_ok(parse(ARGV("-r", "5", "ls")) == PERFEX_RUN && options.runs == 5,
	       "-r N");
	tap_ok(parse(ARGV("-r12", "ls")) == PERFEX_RUN && options.runs == 12,
	       "-rN");
	tap_ok(parse(ARGV("--repeat=3", "ls")) == PERFEX_RUN &&
	       options.runs == 3, "--repeat=N");
	tap_ok(parse(ARGV("-jr3", "ls")) == PERFEX_RUN && options.json &&
	       options.runs == 3, "-jr3: a cluster");
	tap_ok(parse(ARGV("-r", "100000", "ls")) == PERFEX_RUN &&
	       options.runs == 100000, "-r 100000: the most");
	tap_is_int(parse(ARGV("-r", "0", "ls")), PERFEX_USAGE_ERROR, "-r 0");
	tap_is_str(error, "option '-r': invalid number of runs (1 to 100000) "
		   "'0'", "-r 0: message");
	tap_is_int(parse(ARGV("-r", "100001", "ls")), PERFEX_USAGE_ERROR,
		   "-r 100001");
	tap_is_int(parse(ARGV("-r", "-2", "ls")), PERFEX_USAGE_ERROR, "-r -2");
	tap_is_int(parse(ARGV("-r", "1.5", "ls")), PERFEX_USAGE_ERROR,
		   "-r 1.5");
	tap_is_int(parse(ARGV("-r", "", "ls")), PERFEX_USAGE_ERROR, "-r ''");
	tap_is_int(parse(ARGV("-r", "99999999999999999999", "ls")),
		   PERFEX_USAGE_ERROR, "-r with an overflowing number");
	tap_is_int(parse(ARGV("--repeat")), PERFEX_USAGE_ERROR,
		   "--repeat without N");
	tap_is_str(error, "option '--repeat' requires an argument",
		   "--repeat without N: message");
}

static void test_pid(void)
{
	char **argv = ARGV("-p", "123", "sleep", "1");

	tap_ok(parse(ARGV("-p", "123")) == PERFEX_RUN && options.tid == 123 &&
	       !options.command && options.command_argc == 0,
	       "-p TID: no command needed");
	tap_ok(parse(argv) == PERFEX_RUN && options.tid == 123 &&
	       options.command == argv + 3 && options.command_argc == 2,
	       "-p TID COMMAND");
	tap_ok(parse(ARGV("-p77")) == PERFEX_RUN && options.tid == 77,
	       "-pTID");
	tap_ok(parse(ARGV("--pid=5")) == PERFEX_RUN && options.tid == 5,
	       "--pid=TID");
	tap_ok(parse(ARGV("--tid", "7")) == PERFEX_RUN && options.tid == 7,
	       "--tid TID");
	tap_ok(parse(ARGV("ls")) == PERFEX_RUN && options.tid == 0,
	       "no -p");
	tap_ok(parse(ARGV("ls", "-p", "5")) == PERFEX_RUN && options.tid == 0,
	       "-p after the command is the command's");
	tap_is_int(parse(ARGV("-p", "0")), PERFEX_USAGE_ERROR, "-p 0");
	tap_is_str(error, "option '-p': invalid thread id '0'",
		   "-p 0: message");
	tap_is_int(parse(ARGV("-p", "12ab")), PERFEX_USAGE_ERROR, "-p 12ab");
	tap_is_int(parse(ARGV("-p", "-3")), PERFEX_USAGE_ERROR, "-p -3");
	tap_is_int(parse(ARGV("-p")), PERFEX_USAGE_ERROR, "-p without TID");
	tap_is_int(parse(ARGV("-r", "2", "-p", "5")), PERFEX_USAGE_ERROR,
		   "-r 2 with -p");
	tap_is_str(error, "-r cannot be used with -p", "-r with -p: message");
	tap_ok(parse(ARGV("-r", "1", "-p", "5")) == PERFEX_RUN,
	       "-r 1 with -p: one run is no repeat");
}

static void test_interval(void)
{
	tap_ok(parse(ARGV("-I", "100", "ls")) == PERFEX_RUN &&
	       options.interval_ms == 100, "-I MS");
	tap_ok(parse(ARGV("-I10", "ls")) == PERFEX_RUN &&
	       options.interval_ms == 10, "-I10: the least");
	tap_ok(parse(ARGV("--interval-print=250", "-p", "9")) == PERFEX_RUN &&
	       options.interval_ms == 250 && options.tid == 9,
	       "--interval-print=MS, with -p");
	tap_ok(parse(ARGV("ls")) == PERFEX_RUN && options.interval_ms == 0,
	       "no -I");
	tap_is_int(parse(ARGV("-I", "9", "ls")), PERFEX_USAGE_ERROR, "-I 9");
	tap_is_str(error, "option '-I': invalid interval (milliseconds, at "
		   "least 10) '9'", "-I 9: message");
	tap_is_int(parse(ARGV("-I", "86400001", "ls")), PERFEX_USAGE_ERROR,
		   "-I beyond a day");
	tap_is_int(parse(ARGV("-I", "1s", "ls")), PERFEX_USAGE_ERROR,
		   "-I 1s");
	tap_is_int(parse(ARGV("-I", "100", "-r", "3", "ls")),
		   PERFEX_USAGE_ERROR, "-I with -r");
	tap_is_str(error, "-r cannot be used with -I", "-I with -r: message");
}

static void test_flags(void)
{
	tap_ok(parse(ARGV("--no-children", "ls")) == PERFEX_RUN &&
	       options.no_children, "--no-children");
	tap_ok(parse(ARGV("ls")) == PERFEX_RUN && !options.no_children,
	       "no --no-children");
	tap_is_int(parse(ARGV("--no-children=1", "ls")), PERFEX_USAGE_ERROR,
		   "--no-children=VALUE");
	tap_is_int(parse(ARGV("--no-child", "ls")), PERFEX_USAGE_ERROR,
		   "--no-child: no abbreviations");
	tap_is_int(parse(ARGV("-i")), PERFEX_INFO, "-i: no command needed");
	tap_is_int(parse(ARGV("--info")), PERFEX_INFO, "--info");
	tap_is_int(parse(ARGV("-l")), PERFEX_LIST, "-l");
	tap_is_int(parse(ARGV("--list", "ls")), PERFEX_LIST, "--list");
	tap_is_int(parse(ARGV("-li")), PERFEX_LIST, "-li: the first wins");
	tap_ok(parse(ARGV("-l")) == PERFEX_LIST && !options.list_filter &&
	       !options.list_long && !options.list_pmus, "-l: all, short");
	tap_ok(parse(ARGV("-l", "--long", "mem_load")) == PERFEX_LIST &&
	       options.list_long && !strcmp(options.list_filter, "mem_load"),
	       "-l --long WORD");
	tap_ok(parse(ARGV("--list", "l1d", "--long")) == PERFEX_LIST &&
	       options.list_long && !strcmp(options.list_filter, "l1d"),
	       "--list WORD --long");
	tap_ok(parse(ARGV("-l", "--pmus")) == PERFEX_LIST && options.list_pmus,
	       "-l --pmus");
	tap_is_int(parse(ARGV("-l", "a", "b")), PERFEX_USAGE_ERROR,
		   "-l takes one word");
	tap_is_str(error, "-l takes one word to look for, not 'b' too",
		   "-l a b: the message");
	tap_is_int(parse(ARGV("-l", "--bogus")), PERFEX_USAGE_ERROR,
		   "-l --bogus: refused");
	tap_is_int(parse(ARGV("--long")), PERFEX_USAGE_ERROR,
		   "--long without -l: refused");
	tap_is_int(parse(ARGV("-l", "--pmus", "skl")), PERFEX_USAGE_ERROR,
		   "-l --pmus WORD: refused");
	tap_is_int(parse(ARGV("-l", "")), PERFEX_USAGE_ERROR,
		   "-l '': refused");
	tap_is_int(parse(ARGV("-r", "0", "-i")), PERFEX_USAGE_ERROR,
		   "an error before -i is an error");
	tap_is_int(parse(ARGV("-e", "bogus", "-i")), PERFEX_INFO,
		   "-e before -i: the events are not looked at");
	tap_is_int(parse(ARGV("--version=2")), PERFEX_USAGE_ERROR,
		   "--version=VALUE");
}

static void test_topdown(void)
{
	tap_ok(parse(ARGV("--topdown", "ls")) == PERFEX_RUN &&
	       options.topdown && options.events.nr == 0,
	       "--topdown: no events of -e");
	tap_ok(parse(ARGV("ls")) == PERFEX_RUN && !options.topdown,
	       "no --topdown");
	tap_ok(parse(ARGV("--topdown", "-e", "cycles:u", "-I", "100", "-x,",
			  "ls")) == PERFEX_RUN && options.topdown &&
	       options.events.nr == 1 && options.interval_ms == 100,
	       "--topdown with -e, -I and -x");
	tap_ok(parse(ARGV("--topdown", "-p", "42")) == PERFEX_RUN &&
	       options.topdown && options.tid == 42, "--topdown -p TID");
	tap_is_int(parse(ARGV("--topdown=2", "ls")), PERFEX_USAGE_ERROR,
		   "--topdown=VALUE");
	tap_is_str(error, "option '--topdown' doesn't allow an argument",
		   "--topdown=VALUE: message");
	tap_is_int(parse(ARGV("--top", "ls")), PERFEX_USAGE_ERROR,
		   "--top: no abbreviations");
}

static void test_regions(void)
{
	tap_ok(parse(ARGV("--regions", "./solve")) == PERFEX_RUN &&
	       options.regions && !strcmp(options.command[0], "./solve"),
	       "--regions");
	tap_ok(parse(ARGV("ls")) == PERFEX_RUN && !options.regions,
	       "no --regions");
	tap_ok(parse(ARGV("--regions", "--no-children", "-I", "100", "-x,",
			  "-r", "1", "ls")) == PERFEX_RUN && options.regions &&
	       options.no_children && options.interval_ms == 100,
	       "--regions with --no-children, -I, -x and -r 1");
	tap_ok(parse(ARGV("--regions", "-j", "--topdown", "ls")) ==
	       PERFEX_RUN && options.regions && options.json,
	       "--regions with --json and --topdown");
	tap_is_int(parse(ARGV("--regions", "-p", "42")), PERFEX_USAGE_ERROR,
		   "--regions with -p");
	tap_is_str(error, "--regions cannot be used with -p: a running "
		   "thread has no region area", "--regions with -p: message");
	tap_is_int(parse(ARGV("-p", "42", "--regions", "sleep", "1")),
		   PERFEX_USAGE_ERROR, "-p with --regions, and a command");
	tap_is_int(parse(ARGV("--regions", "-r", "2", "ls")),
		   PERFEX_USAGE_ERROR, "--regions with -r 2");
	tap_is_str(error, "-r cannot be used with --regions",
		   "--regions with -r: message");
	tap_is_int(parse(ARGV("--regions=1", "ls")), PERFEX_USAGE_ERROR,
		   "--regions=VALUE");
	tap_is_str(error, "option '--regions' doesn't allow an argument",
		   "--regions=VALUE: message");
	tap_is_int(parse(ARGV("--region", "ls")), PERFEX_USAGE_ERROR,
		   "--region: no abbreviations");
	tap_is_int(parse(ARGV("-R", "ls")), PERFEX_USAGE_ERROR,
		   "--regions has no short option");
	tap_ok(parse(ARGV("ls", "--regions")) == PERFEX_RUN &&
	       !options.regions, "--regions after the command is the "
	       "command's");
}

int main(void)
{
	test_command_only();
	test_output();
	test_help_version();
	test_errors();
	test_events();
	test_double_dash();
	test_csv();
	test_json();
	test_repeat();
	test_pid();
	test_interval();
	test_flags();
	test_topdown();
	test_regions();
	return tap_done();
}
