// SPDX-License-Identifier: GPL-2.0
/*
 * perfex's number formatting and report layout.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format.h"
#include "tap.h"
#include "topdown.h"

#define COUNT(n, v, c, k) \
	{ .name = (n), .value = (v), .children = (c), .kind = (k) }

static void thousands(unsigned long long value, const char *want)
{
	char buf[THOUSANDS_BUF_SIZE];
	size_t len;

	len = format_thousands(buf, sizeof(buf), value);
	tap_is_str(buf, want, "thousands: %llu", value);
	tap_is_int(len, strlen(want), "thousands: %llu: length", value);
}

static void test_thousands(void)
{
	char small[4] = "xyz";

	thousands(0, "0");
	thousands(7, "7");
	thousands(999, "999");
	thousands(1000, "1,000");
	thousands(1001, "1,001");
	thousands(999999, "999,999");
	thousands(1000000, "1,000,000");
	thousands(2998123456ull, "2,998,123,456");
	thousands(18446744073709551615ull, "18,446,744,073,709,551,615");

	tap_ok(format_thousands(small, sizeof(small), 1000) == 0 &&
	       small[0] == '\0', "thousands: too small a buffer: empty, 0");
	tap_is_int(format_thousands(small, sizeof(small), 999), 3,
		   "thousands: exactly fitting buffer");
}

static void test_seconds(void)
{
	char buf[32];

	format_seconds(buf, sizeof(buf), 1001234567);
	tap_is_str(buf, "1.001234567", "seconds: 1001234567 ns");
	format_seconds(buf, sizeof(buf), 0);
	tap_is_str(buf, "0.000000000", "seconds: 0 ns");
	format_seconds(buf, sizeof(buf), 999999999);
	tap_is_str(buf, "0.999999999", "seconds: just under one");
	format_seconds(buf, sizeof(buf), 12000000001ull);
	tap_is_str(buf, "12.000000001", "seconds: 12 s and 1 ns");
}

static char *report_text(const struct perfex_report *report)
{
	char *text = NULL;
	size_t size = 0;
	FILE *out = open_memstream(&text, &size);

	perfex_print_report(out, report);
	fclose(out);
	return text;
}

static void test_report(void)
{
	char *command[] = { "./spin", "1", NULL };
	struct perfex_count count =
		COUNT("tsc", 2998123456ull, 0, PERFEX_COUNT_PLAIN);
	struct perfex_report report = {
		.command = command,
		.counts = &count,
		.nr_counts = 1,
		.elapsed_ns = 1001234567,
		.user_ns = 998000000,
		.sys_ns = 1000000,
	};
	char *text;

	text = report_text(&report);
	tap_is_str(text,
		   "\n"
		   " Performance counter stats for './spin 1':\n"
		   "\n"
		   "     2,998,123,456      tsc\n"
		   "\n"
		   "       1.001234567 seconds time elapsed\n"
		   "\n"
		   "       0.998000000 seconds user\n"
		   "       0.001000000 seconds sys\n"
		   "\n",
		   "report: perf stat layout");
	free(text);

	count.value = 0;
	report.elapsed_ns = 0;
	report.user_ns = 0;
	report.sys_ns = 0;
	command[1] = NULL;
	text = report_text(&report);
	tap_is_str(text,
		   "\n"
		   " Performance counter stats for './spin':\n"
		   "\n"
		   "                 0      tsc\n"
		   "\n"
		   "       0.000000000 seconds time elapsed\n"
		   "\n"
		   "       0.000000000 seconds user\n"
		   "       0.000000000 seconds sys\n"
		   "\n",
		   "report: zero counts and times, no arguments");
	free(text);

	count.value = 18446744073709551615ull;
	text = report_text(&report);
	tap_ok(strstr(text, "\n18,446,744,073,709,551,615      tsc\n") != NULL,
	       "report: a count wider than its column is not cut");
	free(text);
}

static void msec(unsigned long long ns, const char *want)
{
	char buf[THOUSANDS_BUF_SIZE + 4];

	format_msec(buf, sizeof(buf), ns);
	tap_is_str(buf, want, "msec: %llu ns", ns);
}

static void test_msec(void)
{
	char small[5];

	msec(0, "0.00");
	msec(4999, "0.00");
	msec(5000, "0.01");
	msec(849999, "0.85");
	msec(1000123456, "1,000.12");
	msec(1000125000, "1,000.13");
	msec(999995000, "1,000.00");
	msec(18446744073709551615ull, "18,446,744,073,709.55");
	tap_ok(format_msec(small, sizeof(small), 12345678) == 0 &&
	       small[0] == '\0', "msec: too small a buffer: empty, 0");
}

static void rate(double per_second, const char *want)
{
	char buf[32];

	format_rate(buf, sizeof(buf), per_second);
	tap_is_str(buf, want, "rate: %g/s", per_second);
}

static void test_rate(void)
{
	rate(0, "   0.000 /sec");
	rate(36.995, "  36.995 /sec");
	rate(999.9994, " 999.999 /sec");
	rate(105882, " 105.882 K/sec");
	rate(2.5e6, "   2.500 M/sec");
	rate(7e9, "   7.000 G/sec");
	rate(7e12, "7000.000 G/sec");
}

/* The default events of a single-threaded command, as perf stat shows. */
static void test_report_default(void)
{
	char *command[] = { "spin", "1", NULL };
	struct perfex_count counts[] = {
		COUNT("task-clock", 1000123456, 0, PERFEX_COUNT_TASK_CLOCK),
		COUNT("context-switches", 3, 0, PERFEX_COUNT_EVENTS),
		COUNT("cpu-migrations", 0, 0, PERFEX_COUNT_EVENTS),
		COUNT("page-faults", 105918, 0, PERFEX_COUNT_EVENTS),
		COUNT("tsc", 2998123456ull, 0, PERFEX_COUNT_PLAIN),
	};
	struct perfex_report report = {
		.command = command,
		.counts = counts,
		.nr_counts = 5,
		.elapsed_ns = 1001234567,
		.user_ns = 998000000,
		.sys_ns = 1000000,
	};
	char *text;

	text = report_text(&report);
	tap_is_str(text,
		   "\n"
		   " Performance counter stats for 'spin 1':\n"
		   "\n"
		   "          1,000.12 msec task-clock             #    0.999 CPUs utilized\n"
		   "                 3      context-switches       #    3.000 /sec\n"
		   "                 0      cpu-migrations         #    0.000 /sec\n"
		   "           105,918      page-faults            #  105.905 K/sec\n"
		   "     2,998,123,456      tsc\n"
		   "\n"
		   "       1.001234567 seconds time elapsed\n"
		   "\n"
		   "       0.998000000 seconds user\n"
		   "       0.001000000 seconds sys\n"
		   "\n",
		   "report: default events, no children");
	free(text);

	/* Nothing to divide by: no comments, and no trailing blanks. */
	counts[0].value = 0;
	report.elapsed_ns = 0;
	report.nr_counts = 4;
	text = report_text(&report);
	tap_ok(strstr(text, "\n              0.00 msec task-clock\n") &&
	       strstr(text, "\n                 3      context-switches\n") &&
	       !strchr(text, '#'),
	       "report: zero task-clock and elapsed time: no comments");
	free(text);

	/* No task-clock: the rates are per second of elapsed time. */
	report.counts = &counts[1];
	report.nr_counts = 1;
	report.elapsed_ns = 500000000;
	text = report_text(&report);
	tap_ok(strstr(text, "\n                 3      context-switches       "
		      "#    6.000 /sec\n") != NULL,
	       "report: without task-clock, rates per elapsed second");
	free(text);

	/* A long name pushes the comments right, for every line. */
	counts[0].value = 2000000;
	counts[3].name = "page-faults-with-a-very-long-name";
	report.counts = counts;
	report.nr_counts = 4;
	report.elapsed_ns = 4000000;
	text = report_text(&report);
	tap_ok(strstr(text, " msec task-clock                        #    "
		      "0.500 CPUs utilized\n") &&
	       strstr(text, "      page-faults-with-a-very-long-name # ") &&
	       strstr(text, "      cpu-migrations                    # "),
	       "report: comments aligned after the longest name");
	free(text);
}

/* A command with children: self, children and total. */
static void test_report_children(void)
{
	char *command[] = { "forker", "4", "256", NULL };
	struct perfex_count counts[] = {
		COUNT("task-clock", 8123456, 21345678, PERFEX_COUNT_TASK_CLOCK),
		COUNT("context-switches", 1, 8, PERFEX_COUNT_EVENTS),
		COUNT("cpu-migrations", 0, 3, PERFEX_COUNT_EVENTS),
		COUNT("page-faults", 41, 1100, PERFEX_COUNT_EVENTS),
		COUNT("tsc", 24370368, 64037034, PERFEX_COUNT_PLAIN),
	};
	struct perfex_report report = {
		.command = command,
		.counts = counts,
		.nr_counts = 5,
		.elapsed_ns = 14760000,
		.user_ns = 1000000,
		.sys_ns = 24000000,
	};
	char *text;

	text = report_text(&report);
	tap_is_str(text,
		   "\n"
		   " Performance counter stats for 'forker 4 256':\n"
		   "\n"
		   "              self          children             total\n"
		   "              8.12             21.35             29.47 msec task-clock             #    1.997 CPUs utilized\n"
		   "                 1                 8                 9      context-switches       #  305.404 /sec\n"
		   "                 0                 3                 3      cpu-migrations         #  101.801 /sec\n"
		   "                41             1,100             1,141      page-faults            #   38.718 K/sec\n"
		   "        24,370,368        64,037,034        88,407,402      tsc\n"
		   "\n"
		   "       0.014760000 seconds time elapsed\n"
		   "\n"
		   "       0.001000000 seconds user\n"
		   "       0.024000000 seconds sys\n"
		   "\n",
		   "report: children: self, children and total columns");
	free(text);

	/* One child count is enough for the columns. */
	counts[0].children = 0;
	counts[1].children = 0;
	counts[2].children = 0;
	counts[3].children = 0;
	counts[4].children = 1;
	text = report_text(&report);
	tap_ok(strstr(text, "\n              self          children"
		      "             total\n") != NULL,
	       "report: one non-zero child count: columns");
	free(text);

	/* A wide cell widens its column, and the header with it. */
	counts[4].children = 18446744073709551615ull - counts[4].value;
	text = report_text(&report);
	tap_ok(strstr(text, "\n              self                    children"
		      "                       total\n") &&
	       strstr(text, "\n        24,370,368  18,446,744,073,685,181,247"
		      "  18,446,744,073,709,551,615      tsc\n") &&
	       strstr(text, "\n              8.12                        0.00"
		      "                        8.12 msec task-clock "),
	       "report: columns as wide as their widest cell");
	free(text);
}


/* Hardware events, made up: the figures perf stat derives from them. */
static void test_report_hardware(void)
{
	char *command[] = { "work", NULL };
	struct perfex_count counts[] = {
		COUNT("task-clock", 1000000000, 0, PERFEX_COUNT_TASK_CLOCK),
		COUNT("cycles", 3000000000ull, 0, PERFEX_COUNT_EVENTS),
		COUNT("instructions", 4500000000ull, 0, PERFEX_COUNT_EVENTS),
		COUNT("branches", 900000000, 0, PERFEX_COUNT_EVENTS),
		COUNT("branch-misses", 9000000, 0, PERFEX_COUNT_EVENTS),
		COUNT("cache-references", 50000000, 0, PERFEX_COUNT_EVENTS),
		COUNT("cache-misses", 5000000, 0, PERFEX_COUNT_EVENTS),
	};
	struct perfex_report report = {
		.command = command,
		.counts = counts,
		.nr_counts = 7,
		.elapsed_ns = 2000000000,
		.user_ns = 1000000000,
	};
	char *text;

	text = report_text(&report);
	tap_is_str(text,
		   "\n"
		   " Performance counter stats for 'work':\n"
		   "\n"
		   "          1,000.00 msec task-clock             #    0.500 CPUs utilized\n"
		   "     3,000,000,000      cycles                 #    3.000 GHz\n"
		   "     4,500,000,000      instructions           #    1.50  insn per cycle\n"
		   "       900,000,000      branches               #  900.000 M/sec\n"
		   "         9,000,000      branch-misses          #    1.00% of all branches\n"
		   "        50,000,000      cache-references       #   50.000 M/sec\n"
		   "         5,000,000      cache-misses           #   10.00% of all cache refs\n"
		   "\n"
		   "       2.000000000 seconds time elapsed\n"
		   "\n"
		   "       1.000000000 seconds user\n"
		   "       0.000000000 seconds sys\n"
		   "\n",
		   "report: hardware events, with perf's figures");
	free(text);

	/* The figures are about the totals, children included. */
	counts[1].children = 3000000000ull;
	counts[2].children = 1500000000ull;
	text = report_text(&report);
	tap_ok(strstr(text, "      cycles                 #    6.000 GHz\n") &&
	       strstr(text, "      instructions           #    1.00  insn per "
		      "cycle\n"),
	       "report: hardware figures from the totals");
	free(text);
}

/* -r: means, each with the standard deviation of its mean. */
static void test_report_runs(void)
{
	char *command[] = { "spin", "1", NULL };
	struct perfex_count counts[] = {
		COUNT("task-clock", 1000123456, 0, PERFEX_COUNT_TASK_CLOCK),
		COUNT("context-switches", 3, 0, PERFEX_COUNT_EVENTS),
		COUNT("tsc", 2998123456ull, 0, PERFEX_COUNT_PLAIN),
		COUNT("cpu-migrations", 0, 0, PERFEX_COUNT_EVENTS),
	};
	struct perfex_report report = {
		.command = command,
		.counts = counts,
		.nr_counts = 4,
		.runs = 5,
		.elapsed_ns = 1001234567,
		.elapsed_stddev_ns = 1234567,
		.user_ns = 998000000,
		.sys_ns = 1000000,
	};
	char *text;

	counts[0].noise = 0.05;
	counts[1].noise = 12.5;
	counts[2].noise = 0.004;
	text = report_text(&report);
	tap_is_str(text,
		   "\n"
		   " Performance counter stats for 'spin 1' (5 runs):\n"
		   "\n"
		   "          1,000.12 msec task-clock             #    0.999 CPUs utilized             ( +-  0.05% )\n"
		   "                 3      context-switches       #    3.000 /sec                      ( +- 12.50% )\n"
		   "     2,998,123,456      tsc                                                         ( +-  0.00% )\n"
		   "                 0      cpu-migrations         #    0.000 /sec\n"
		   "\n"
		   "           1.00123 +- 0.00123 seconds time elapsed  ( +-  0.12% )\n"
		   "\n",
		   "runs: header, means with noise, elapsed +- stddev; no user, sys");
	free(text);

	/* Exactly the same every run: no noise to show, to the ns. */
	report.elapsed_stddev_ns = 0;
	counts[0].noise = counts[1].noise = counts[2].noise = 0;
	text = report_text(&report);
	tap_ok(strstr(text, "\n       1.001234567 +- 0.000000000 seconds time "
		      "elapsed\n\n") && !strstr(text, "( +-"),
	       "runs: no spread: nine decimals, no percentages");
	free(text);

	/* A spread of seconds: the decimals of its first two digits. */
	report.elapsed_ns = 12000000000ull;
	report.elapsed_stddev_ns = 2500000000ull;
	text = report_text(&report);
	tap_ok(strstr(text, "\n             12.00 +- 2.50 seconds time elapsed"
		      "  ( +- 20.83% )\n") != NULL,
	       "runs: a spread over a second: two decimals");
	free(text);
}

/* -p: the thread, and no user or system time. */
static void test_report_thread(void)
{
	struct perfex_count counts[] = {
		COUNT("task-clock", 500000000, 0, PERFEX_COUNT_TASK_CLOCK),
		COUNT("tsc", 1500000000, 0, PERFEX_COUNT_PLAIN),
	};
	struct perfex_report report = {
		.tid = 1234,
		.counts = counts,
		.nr_counts = 2,
		.elapsed_ns = 1000000000,
	};
	char *text;

	text = report_text(&report);
	tap_is_str(text,
		   "\n"
		   " Performance counter stats for thread id '1234':\n"
		   "\n"
		   "            500.00 msec task-clock             #    0.500 CPUs utilized\n"
		   "     1,500,000,000      tsc\n"
		   "\n"
		   "       1.000000000 seconds time elapsed\n"
		   "\n",
		   "thread: header names it, no user or sys time");
	free(text);
}

static int starts_with(const char *text, const char *prefix)
{
	return strncmp(text, prefix, strlen(prefix)) == 0;
}

static char *interval_text(const struct perfex_interval *iv)
{
	char *text = NULL;
	size_t size = 0;
	FILE *out = open_memstream(&text, &size);

	perfex_print_interval(out, iv);
	fclose(out);
	return text;
}

/* -I: a line per count, after the time; a header now and then. */
static void test_interval(void)
{
	struct perfex_count counts[] = {
		COUNT("task-clock", 500123456, 0, PERFEX_COUNT_TASK_CLOCK),
		COUNT("page-faults", 20, 0, PERFEX_COUNT_EVENTS),
		COUNT("tsc", 1500000000, 0, PERFEX_COUNT_PLAIN),
	};
	struct perfex_interval iv = {
		.time_ns = 1000123456,
		.length_ns = 1000000000,
		.index = 0,
		.counts = counts,
		.nr_counts = 3,
	};
	char *text;

	text = interval_text(&iv);
	tap_is_str(text,
		   "#           time             counts unit events\n"
		   "     1.000123456             500.12 msec task-clock             #    0.500 CPUs utilized\n"
		   "     1.000123456                 20      page-faults            #   39.990 /sec\n"
		   "     1.000123456      1,500,000,000      tsc\n",
		   "interval: the first, with the header");
	free(text);

	iv.index = 1;
	iv.time_ns = 123456789012ull;
	text = interval_text(&iv);
	tap_ok(starts_with(text, "   123.456789012             500.12 msec "
			   "task-clock "),
	       "interval: later ones without the header");
	free(text);

	iv.index = 25;
	text = interval_text(&iv);
	tap_ok(starts_with(text, "#           time             counts"),
	       "interval: the header again after 25");
	free(text);

	counts[0].not_counted = counts[1].not_counted = 1;
	counts[2].not_counted = 1;
	iv.index = 2;
	text = interval_text(&iv);
	tap_ok(strstr(text, "     <not counted> msec task-clock\n") &&
	       strstr(text, "     <not counted>      page-faults\n") &&
	       !strchr(text, '#'),
	       "interval: unreadable counts: <not counted>, no figures");
	free(text);
}

/*
 * --topdown, made up: 12e9 slots, 30% retiring, 10% bad speculation,
 * 20% frontend bound, 40% backend bound; at level 2, 10% heavy
 * operations, 8% branch mispredicts, 12% fetch latency, 25% memory
 * bound.  The counts perfex reads, the slots first.
 */
#define TOPDOWN_COUNTS(mod) \
	COUNT("slots" mod, 12000000000ull, 0, PERFEX_COUNT_EVENTS), \
	COUNT("topdown-retiring" mod, 3600000000ull, 0, PERFEX_COUNT_EVENTS), \
	COUNT("topdown-bad-spec" mod, 1200000000ull, 0, PERFEX_COUNT_EVENTS), \
	COUNT("topdown-fe-bound" mod, 2400000000ull, 0, PERFEX_COUNT_EVENTS), \
	COUNT("topdown-be-bound" mod, 4800000000ull, 0, PERFEX_COUNT_EVENTS), \
	COUNT("topdown-heavy-ops" mod, 1200000000ull, 0, PERFEX_COUNT_EVENTS), \
	COUNT("topdown-br-mispredict" mod, 960000000ull, 0, \
	      PERFEX_COUNT_EVENTS), \
	COUNT("topdown-fetch-lat" mod, 1440000000ull, 0, PERFEX_COUNT_EVENTS), \
	COUNT("topdown-mem-bound" mod, 3000000000ull, 0, PERFEX_COUNT_EVENTS)

#define TOPDOWN_LEVEL1 \
	"             retiring      bad speculation       frontend bound        backend bound\n" \
	"                30.0%                10.0%                20.0%                40.0%\n"
#define TOPDOWN_LEVEL2 \
	"     heavy operations   branch mispredicts        fetch latency         memory bound\n" \
	"                10.0%                 8.0%                12.0%                25.0%\n" \
	"     light operations       machine clears      fetch bandwidth           core bound\n" \
	"                20.0%                 2.0%                 8.0%                15.0%\n"

/* --topdown: the table of shares after the counts, as perf stat's. */
static void test_report_topdown(void)
{
	char *command[] = { "./spin", "1", NULL };
	struct perfex_count counts[] = {
		COUNT("instructions:u", 30000000000ull, 0, PERFEX_COUNT_EVENTS),
		TOPDOWN_COUNTS(":u"),
	};
	struct perfex_topdown td;
	struct perfex_report report = {
		.command = command,
		.counts = counts + 1,
		.nr_counts = 0,
		.topdown = &td,
		.elapsed_ns = 2500000000ull,
		.user_ns = 2490000000ull,
		.sys_ns = 1000000,
	};
	char *text;

	perfex_topdown_of(&td, counts + 1, 5);
	text = report_text(&report);
	tap_is_str(text,
		   "\n"
		   " Performance counter stats for './spin 1':\n"
		   "\n"
		   TOPDOWN_LEVEL1
		   "\n"
		   "       2.500000000 seconds time elapsed\n"
		   "\n"
		   "       2.490000000 seconds user\n"
		   "       0.001000000 seconds sys\n"
		   "\n",
		   "topdown report: level 1, a line of names, a line of shares");
	free(text);

	perfex_topdown_of(&td, counts + 1, 9);
	text = report_text(&report);
	tap_is_str(text,
		   "\n"
		   " Performance counter stats for './spin 1':\n"
		   "\n"
		   TOPDOWN_LEVEL1
		   TOPDOWN_LEVEL2
		   "\n"
		   "       2.500000000 seconds time elapsed\n"
		   "\n"
		   "       2.490000000 seconds user\n"
		   "       0.001000000 seconds sys\n"
		   "\n",
		   "topdown report: level 2 under level 1, the counted parts, "
		   "then the rests");
	free(text);

	/* With -e: the counts, a blank line, the table. */
	report.counts = counts;
	report.nr_counts = 1;
	perfex_topdown_of(&td, counts + 1, 5);
	text = report_text(&report);
	tap_ok(strstr(text, ":\n\n    30,000,000,000      instructions:u  "
		      "       #   12.000 G/sec\n\n" TOPDOWN_LEVEL1 "\n") != NULL,
	       "topdown report: after the counts of -e");
	free(text);

	/* Children: the thread's, the children's and the total shares. */
	counts[1].children = 4000000000ull;
	counts[2].children = 1000000000ull;
	counts[3].children = 1000000000ull;
	counts[4].children = 1000000000ull;
	counts[5].children = 1000000000ull;
	perfex_topdown_of(&td, counts + 1, 5);
	text = report_text(&report);
	tap_ok(strstr(text,
		      "\n              self          children             total\n"
		      "    30,000,000,000                 0    30,000,000,000      instructions:u         #   12.000 G/sec\n"
		      "\n"
		      "                     retiring      bad speculation       frontend bound        backend bound\n"
		      "self                    30.0%                10.0%                20.0%                40.0%\n"
		      "children                25.0%                25.0%                25.0%                25.0%\n"
		      "total                   28.8%                13.8%                21.2%                36.2%\n"
		      "\n") != NULL,
	       "topdown report: children: self, children and total lines, "
	       "the counts in columns too");
	free(text);

	/* No slot counted by the thread itself: no share to give. */
	counts[1].value = 0;
	perfex_topdown_of(&td, counts + 1, 5);
	text = report_text(&report);
	tap_ok(strstr(text, "\nself                        -"
		      "                    -                    -"
		      "                    -\n"
		      "children                25.0%                25.0%") != NULL,
	       "topdown report: no slots: '-' for no share");
	free(text);
}

/* -I --topdown: perf stat's lines, the time first. */
static void test_interval_topdown(void)
{
	struct perfex_count counts[] = {
		COUNT("task-clock", 500123456, 0, PERFEX_COUNT_TASK_CLOCK),
		TOPDOWN_COUNTS(""),
	};
	struct perfex_topdown td;
	struct perfex_interval iv = {
		.time_ns = 1001281330,
		.length_ns = 1000000000,
		.index = 0,
		.counts = counts + 1,
		.nr_counts = 0,
		.topdown = &td,
	};
	char *text;

	perfex_topdown_of(&td, counts + 1, 5);
	text = interval_text(&iv);
	tap_is_str(text,
		   "#           time             retiring      bad speculation       frontend bound        backend bound\n"
		   "     1.001281330                30.0%                10.0%                20.0%                40.0%\n",
		   "topdown interval: the header, then the shares after the "
		   "time");
	free(text);

	iv.index = 1;
	iv.time_ns = 2003009005;
	text = interval_text(&iv);
	tap_is_str(text,
		   "     2.003009005                30.0%                10.0%                20.0%                40.0%\n",
		   "topdown interval: later ones, the shares alone");
	free(text);

	/* Level 2, after a count of -e: each with its header. */
	iv.index = 0;
	iv.counts = counts;
	iv.nr_counts = 1;
	perfex_topdown_of(&td, counts + 1, 9);
	text = interval_text(&iv);
	tap_is_str(text,
		   "#           time             counts unit events\n"
		   "     2.003009005             500.12 msec task-clock             #    0.500 CPUs utilized\n"
		   "#           time             retiring      bad speculation       frontend bound        backend bound\n"
		   "#                    heavy operations   branch mispredicts        fetch latency         memory bound\n"
		   "#                    light operations       machine clears      fetch bandwidth           core bound\n"
		   "     2.003009005                30.0%                10.0%                20.0%                40.0%\n"
		   "     2.003009005                10.0%                 8.0%                12.0%                25.0%\n"
		   "     2.003009005                20.0%                 2.0%                 8.0%                15.0%\n",
		   "topdown interval: level 2, three lines of shares");
	free(text);

	/* The slots could not be read: no share. */
	counts[1].not_counted = 1;
	iv.index = 1;
	perfex_topdown_of(&td, counts + 1, 5);
	text = interval_text(&iv);
	tap_ok(strstr(text, "     2.003009005        <not counted>        "
		      "<not counted>        <not counted>        <not counted>\n")
	       != NULL, "topdown interval: not counted");
	free(text);
}

int main(void)
{
	test_thousands();
	test_seconds();
	test_msec();
	test_rate();
	test_report();
	test_report_default();
	test_report_children();
	test_report_hardware();
	test_report_runs();
	test_report_thread();
	test_interval();
	test_report_topdown();
	test_interval_topdown();
	return tap_done();
}
