// SPDX-License-Identifier: GPL-2.0
/*
 * perfex's number formatting and report layout.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>

#include "format.h"
#include "tap.h"

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
	struct perfex_count count = { "tsc", 2998123456ull };
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

int main(void)
{
	test_thousands();
	test_seconds();
	test_report();
	return tap_done();
}
