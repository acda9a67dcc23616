// SPDX-License-Identifier: GPL-2.0
/*
 * perfex's report, laid out like perf stat's:
 *
 *	(blank)
 *	 Performance counter stats for './spin 1':
 *	(blank)
 *	          1,000.12 msec task-clock             #    0.999 CPUs ...
 *	                 3      context-switches       #    2.999 /sec
 *	                 0      cpu-migrations         #    0.000 /sec
 *	                37      page-faults            #   36.995 /sec
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
 * minimal system without locale data.  task-clock is in milliseconds,
 * and said how many CPUs it kept busy on average (task-clock over the
 * elapsed time); the other software events get their rate per second of
 * task-clock (of the elapsed time if task-clock is not counted), with a
 * K, M or G prefix from a thousand up.
 *
 * When the command's children counted anything (child processes, and
 * threads other than the first, once reaped), each count comes in
 * three columns: the command's own thread, its children, and the total;
 * the comments are about the total:
 *
 *	              self          children             total
 *	             12.34            456.78            469.12 msec task-cl...
 */
#include <stdio.h>
#include <string.h>

#include "format.h"

#define COUNT_WIDTH	18
#define NAME_WIDTH	22	/* the comments start after it, at least */
#define CELL_SIZE	(THOUSANDS_BUF_SIZE + 4)	/* a msec value fits */

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

/**
 * format_msec - @ns nanoseconds as milliseconds with two decimals
 * @buf: where the text goes, NUL-terminated
 * @size: its size; THOUSANDS_BUF_SIZE + 3 always suffices
 * @ns: the duration
 *
 * Rounded to the nearest hundredth, thousands separated, no floating
 * point: 1000123456 gives "1,000.12".
 * Return: the length of the text, or 0 if @size is too small.
 */
size_t format_msec(char *buf, size_t size, unsigned long long ns)
{
	unsigned long long hundredths = ns / 10000 + (ns % 10000 >= 5000);
	char whole[THOUSANDS_BUF_SIZE];
	int len;

	format_thousands(whole, sizeof(whole), hundredths / 100);
	len = snprintf(buf, size, "%s.%02llu", whole, hundredths % 100);
	if (len < 0 || (size_t)len >= size) {
		if (size)
			buf[0] = '\0';
		return 0;
	}
	return len;
}

/**
 * format_rate - a rate per second the way perf stat gives it
 * @buf: where the text goes, NUL-terminated
 * @size: its size
 * @per_second: the rate
 *
 * Eight columns, three decimals, and a K, M or G prefix from 1000 up:
 * "  36.995 /sec", " 105.882 K/sec".
 * Return: what snprintf() returns.
 */
int format_rate(char *buf, size_t size, double per_second)
{
	static const char *const prefix[] = { "", "K", "M", "G" };
	unsigned int i = 0;

	while (per_second >= 1000 && i < 3) {
		per_second /= 1000;
		i++;
	}
	return snprintf(buf, size, "%8.3f %s/sec", per_second, prefix[i]);
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

/* The columns of a report: self and children, if shown, then total. */
enum { COL_SELF, COL_CHILDREN, COL_TOTAL, NR_COLS };

static const char *const col_header[NR_COLS] = { "self", "children", "total" };

static void format_cell(char *buf, const struct perfex_count *count,
			unsigned long long value)
{
	if (count->kind == PERFEX_COUNT_TASK_CLOCK)
		format_msec(buf, CELL_SIZE, value);
	else
		format_thousands(buf, CELL_SIZE, value);
}

static unsigned long long total_of(const struct perfex_count *count)
{
	return count->value + count->children;
}

/* The comment on @count, after the '#', or "" for none. */
/* A count's self, children and total values, by column. */
static void column_values(const struct perfex_count *count,
			  unsigned long long value[NR_COLS])
{
	value[COL_SELF] = count->value;
	value[COL_CHILDREN] = count->children;
	value[COL_TOTAL] = total_of(count);
}

static void format_comment(char *buf, size_t size,
			   const struct perfex_count *count,
			   const struct perfex_report *report,
			   unsigned long long per_ns)
{
	double total = total_of(count);

	buf[0] = '\0';
	if (count->kind == PERFEX_COUNT_TASK_CLOCK && report->elapsed_ns)
		snprintf(buf, size, "%8.3f CPUs utilized",
			 total / report->elapsed_ns);
	else if (count->kind == PERFEX_COUNT_EVENTS && per_ns)
		format_rate(buf, size, total * 1e9 / per_ns);
}

/* What the event rates are per: task-clock if counted, else elapsed. */
static unsigned long long rate_base_ns(const struct perfex_report *report)
{
	unsigned int i;

	for (i = 0; i < report->nr_counts; i++) {
		if (report->counts[i].kind == PERFEX_COUNT_TASK_CLOCK &&
		    total_of(&report->counts[i]))
			return total_of(&report->counts[i]);
	}
	return report->elapsed_ns;
}

static int any_children(const struct perfex_report *report)
{
	unsigned int i;

	for (i = 0; i < report->nr_counts; i++) {
		if (report->counts[i].children)
			return 1;
	}
	return 0;
}

static int max_int(int a, int b)
{
	return a > b ? a : b;
}

/*
 * The counts, one line each: the count or the three columns, the unit
 * ("msec" or nothing), the name and the comment.  Every column is as
 * wide as its widest cell, at least COUNT_WIDTH, so that all line up,
 * and a column has two blanks at least before it.
 */
static void print_counts(FILE *out, const struct perfex_report *report)
{
	const int first = any_children(report) ? COL_SELF : COL_TOTAL;
	unsigned long long per_ns = rate_base_ns(report);
	int width[NR_COLS] = { COUNT_WIDTH, COUNT_WIDTH, COUNT_WIDTH };
	int name_width = NAME_WIDTH;
	char cell[CELL_SIZE], comment[64];
	const struct perfex_count *count;
	unsigned long long value[NR_COLS];
	unsigned int i;
	int col;

	for (i = 0; i < report->nr_counts; i++) {
		count = &report->counts[i];
		column_values(count, value);
		for (col = first; col < NR_COLS; col++) {
			format_cell(cell, count, value[col]);
			/* Two blanks at least between columns. */
			width[col] = max_int(width[col], strlen(cell) +
					     (col == first ? 0 : 2));
		}
		name_width = max_int(name_width, strlen(count->name));
	}

	if (first == COL_SELF) {
		for (col = first; col < NR_COLS; col++)
			fprintf(out, "%*s", width[col], col_header[col]);
		fprintf(out, "\n");
	}
	for (i = 0; i < report->nr_counts; i++) {
		count = &report->counts[i];
		column_values(count, value);
		for (col = first; col < NR_COLS; col++) {
			format_cell(cell, count, value[col]);
			fprintf(out, "%*s", width[col], cell);
		}
		fprintf(out, " %-4s ",
			count->kind == PERFEX_COUNT_TASK_CLOCK ? "msec" : "");
		format_comment(comment, sizeof(comment), count, report, per_ns);
		if (comment[0])
			fprintf(out, "%-*s # %s\n", name_width, count->name,
				comment);
		else
			fprintf(out, "%s\n", count->name);
	}
}

/**
 * perfex_print_report - write the report on a finished command
 * @out: where to
 * @report: what to say
 */
void perfex_print_report(FILE *out, const struct perfex_report *report)
{
	fprintf(out, "\n Performance counter stats for '");
	print_command(out, report->command);
	fprintf(out, "':\n\n");

	print_counts(out, report);

	fprintf(out, "\n");
	print_seconds(out, report->elapsed_ns, "time elapsed");
	fprintf(out, "\n");
	print_seconds(out, report->user_ns, "user");
	print_seconds(out, report->sys_ns, "sys");
	fprintf(out, "\n");
}
