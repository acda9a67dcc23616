// SPDX-License-Identifier: GPL-2.0
/*
 * perfex's report, laid out like perf stat's:
 *
 *	(blank)
 *	 Performance counter stats for './spin 1':
 *	(blank)
 *	     2,998,123,456      tsc
 *	(blank)
 *	       1.001234567 seconds time elapsed
 *	(blank)
 *	       0.998000000 seconds user
 *	       0.001000000 seconds sys
 *	(blank)
 *
 * Counts are right-aligned in 18 columns with ',' between groups of
 * three digits whatever the locale, so the report reads the same in a
 * minimal system without locale data.
 */
#include <stdio.h>

#include "format.h"

#define COUNT_WIDTH	18

/**
 * format_thousands - @value in decimal with ',' every three digits
 * @buf: where the text goes, NUL-terminated
 * @size: its size; THOUSANDS_BUF_SIZE always suffices
 * @value: the number
 *
 * Return: the length of the text, or 0 if @size is too small (then
 * @buf holds "" if @size allows).
 */
size_t format_thousands(char *buf, size_t size, unsigned long long value)
{
	char tmp[THOUSANDS_BUF_SIZE];
	size_t len = 0, i;
	int digits = 0;

	/* Right to left, then reversed into @buf. */
	do {
		if (digits && digits % 3 == 0)
			tmp[len++] = ',';
		tmp[len++] = '0' + value % 10;
		value /= 10;
		digits++;
	} while (value);

	if (len + 1 > size) {
		if (size)
			buf[0] = '\0';
		return 0;
	}
	for (i = 0; i < len; i++)
		buf[i] = tmp[len - 1 - i];
	buf[len] = '\0';
	return len;
}

/**
 * format_seconds - @ns nanoseconds as seconds with nine decimals
 * @buf: where the text goes, NUL-terminated
 * @size: its size
 * @ns: the duration
 *
 * Exact, with no floating point: 1001234567 gives "1.001234567".
 * Return: what snprintf() returns.
 */
size_t format_seconds(char *buf, size_t size, unsigned long long ns)
{
	return snprintf(buf, size, "%llu.%09llu", ns / 1000000000ull,
			ns % 1000000000ull);
}

static void print_command(FILE *out, char *const *command)
{
	const char *sep = "";

	for (; *command; command++) {
		fprintf(out, "%s%s", sep, *command);
		sep = " ";
	}
}

static void print_seconds(FILE *out, unsigned long long ns, const char *what)
{
	char buf[32];

	format_seconds(buf, sizeof(buf), ns);
	fprintf(out, "%*s seconds %s\n", COUNT_WIDTH, buf, what);
}

/**
 * perfex_print_report - write the report on a finished command
 * @out: where to
 * @report: what to say
 */
void perfex_print_report(FILE *out, const struct perfex_report *report)
{
	char buf[THOUSANDS_BUF_SIZE];
	unsigned int i;

	fprintf(out, "\n Performance counter stats for '");
	print_command(out, report->command);
	fprintf(out, "':\n\n");

	for (i = 0; i < report->nr_counts; i++) {
		format_thousands(buf, sizeof(buf), report->counts[i].value);
		fprintf(out, "%*s      %s\n", COUNT_WIDTH, buf,
			report->counts[i].name);
	}

	fprintf(out, "\n");
	print_seconds(out, report->elapsed_ns, "time elapsed");
	fprintf(out, "\n");
	print_seconds(out, report->user_ns, "user");
	print_seconds(out, report->sys_ns, "sys");
	fprintf(out, "\n");
}
