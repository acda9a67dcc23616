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
 * K, M or G prefix from a thousand up.  Hardware events get perf's
 * figures (insn per cycle, % of all branches...; see metrics.c).
 *
 * When the command's children counted anything (child processes, and
 * threads other than the first, once reaped), each count comes in
 * three columns: the command's own thread, its children, and the total;
 * the comments are about the total:
 *
 *	              self          children             total
 *	             12.34            456.78            469.12 msec task-cl...
 *
 * With -r the counts are the means of the runs, each followed by the
 * standard deviation of its mean, "( +-  0.12% )", and the elapsed time
 * by its own; the user and system times are left out, as perf does.
 * Counting a running thread (-p), the header names the thread and the
 * report has no user and system times either.
 *
 * With --topdown the TopDown categories follow the counts, as perf stat
 * --topdown shows them: a line of their names and a line of their shares
 * of the slots, each in a column of 21 characters, then the level 2 ones
 * in two more such pairs, each under its level 1 category (the part the
 * CPU counts, then the rest):
 *
 *	             retiring      bad speculation       frontend bound ...
 *	                30.0%                10.0%                20.0% ...
 *
 * When the report shows the children apart, each line of shares is three,
 * the command's own thread's, its children's and the total, named in a
 * first column.  With -I the names come with the header, and each line of
 * shares starts with the interval's time.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "format.h"
#include "metrics.h"
#include "regions.h"
#include "topdown.h"

#define COUNT_WIDTH	18
#define NAME_WIDTH	22	/* the comments start after it, at least */
#define CELL_SIZE	(THOUSANDS_BUF_SIZE + 4)	/* a msec value fits */
#define COMMENT_WIDTH	35	/* "# " and a comment, then the noise */
#define NOT_COUNTED	"<not counted>"
#define HEADER_EVERY	25	/* intervals between headers */
#define INTERVAL_HEADER	\
	"#           time             counts unit events\n"
#define TIME_HEADER	"#           time"	/* as wide as a time */
#define TOPDOWN_WIDTH	21	/* a column of the TopDown table */
#define TOPDOWN_COLS	4	/* its columns: the level 1 categories */
#define PART_WIDTH	8	/* "children", naming a line of shares */

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
 * format_msec_plain - @ns nanoseconds as milliseconds, for machines
 * @buf: where the text goes, NUL-terminated
 * @size: its size
 * @ns: the duration
 *
 * As format_msec(), without the thousands separators: "1000.12".
 * Return: what snprintf() returns.
 */
size_t format_msec_plain(char *buf, size_t size, unsigned long long ns)
{
	unsigned long long hundredths = ns / 10000 + (ns % 10000 >= 5000);

	return snprintf(buf, size, "%llu.%02llu", hundredths / 100,
			hundredths % 100);
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

/* How the count lines of a report or an interval are laid out. */
struct layout {
	int first;		/* COL_SELF with children, else COL_TOTAL */
	int width[NR_COLS];
	int name_width;
	const char *prefix;	/* before every line: an interval's time */
};

unsigned long long perfex_count_total(const struct perfex_count *count)
{
	return count->value + count->children;
}

/* A count's self, children and total values, by column. */
static void column_values(const struct perfex_count *count,
			  unsigned long long value[NR_COLS])
{
	value[COL_SELF] = count->value;
	value[COL_CHILDREN] = count->children;
	value[COL_TOTAL] = perfex_count_total(count);
}

static void format_cell(char *buf, const struct perfex_count *count,
			unsigned long long value)
{
	if (count->not_counted)
		snprintf(buf, CELL_SIZE, "%s", NOT_COUNTED);
	else if (count->kind == PERFEX_COUNT_TASK_CLOCK)
		format_msec(buf, CELL_SIZE, value);
	else
		format_thousands(buf, CELL_SIZE, value);
}

static int any_children(const struct perfex_count *counts, unsigned int nr)
{
	unsigned int i;

	for (i = 0; i < nr; i++) {
		if (counts[i].children)
			return 1;
	}
	return 0;
}

/**
 * perfex_report_has_children - does the report show the children apart?
 * @report: the report
 *
 * Return: 1 if any count of the children is not zero.
 */
int perfex_report_has_children(const struct perfex_report *report)
{
	return any_children(report->counts, report->nr_counts) ||
	       (report->topdown && report->topdown->slots.children);
}

static int max_int(int a, int b)
{
	return a > b ? a : b;
}

/*
 * Every column as wide as its widest cell, at least COUNT_WIDTH, so
 * that all line up, and two blanks at least before a column.  The
 * children's columns are there if @children says the report has them.
 */
static void lay_out(struct layout *layout, const struct perfex_count *counts,
		    unsigned int nr, int children, const char *prefix)
{
	unsigned long long value[NR_COLS];
	char cell[CELL_SIZE];
	unsigned int i;
	int col;

	layout->first = children ? COL_SELF : COL_TOTAL;
	for (col = 0; col < NR_COLS; col++)
		layout->width[col] = COUNT_WIDTH;
	layout->name_width = NAME_WIDTH;
	layout->prefix = prefix;
	for (i = 0; i < nr; i++) {
		column_values(&counts[i], value);
		for (col = layout->first; col < NR_COLS; col++) {
			int gap = col == layout->first ? 0 : 2;

			format_cell(cell, &counts[i], value[col]);
			layout->width[col] = max_int(layout->width[col],
						     strlen(cell) + gap);
		}
		layout->name_width = max_int(layout->name_width,
					     strlen(counts[i].name));
	}
}

static void print_column_headers(FILE *out, const struct layout *layout)
{
	int col;

	for (col = layout->first; col < NR_COLS; col++)
		fprintf(out, "%*s", layout->width[col], col_header[col]);
	fprintf(out, "\n");
}

/*
 * One count: the count or the three columns, the unit ("msec" or
 * nothing), the name, the comment, and the noise of -r.  Nothing
 * trails the last thing said on the line.
 */
static void print_count(FILE *out, const struct layout *layout,
			const struct perfex_count *counts, unsigned int nr,
			unsigned int i, unsigned long long wall_ns)
{
	const struct perfex_count *count = &counts[i];
	unsigned long long value[NR_COLS];
	char cell[CELL_SIZE], comment[64] = "", noise[32] = "";
	struct perfex_metric metric;
	int col;

	if (!count->not_counted &&
	    perfex_metric_of(counts, nr, i, wall_ns, &metric) == 0) {
		strcpy(comment, "# ");
		perfex_metric_text(comment + 2, sizeof(comment) - 2, &metric);
	}
	if (count->noise)
		snprintf(noise, sizeof(noise), "  ( +-%6.2f%% )", count->noise);

	fputs(layout->prefix, out);
	column_values(count, value);
	for (col = layout->first; col < NR_COLS; col++) {
		format_cell(cell, count, value[col]);
		fprintf(out, "%*s", layout->width[col], cell);
	}
	fprintf(out, " %-4s ",
		count->kind == PERFEX_COUNT_TASK_CLOCK ? "msec" : "");
	if (!comment[0] && !noise[0]) {
		fprintf(out, "%s\n", count->name);
		return;
	}
	fprintf(out, "%-*s ", layout->name_width, count->name);
	if (noise[0])
		fprintf(out, "%-*s%s\n", COMMENT_WIDTH, comment, noise);
	else
		fprintf(out, "%s\n", comment);
}

static void print_header(FILE *out, const struct perfex_report *report)
{
	fprintf(out, "\n Performance counter stats for ");
	if (report->command) {
		fprintf(out, "'");
		print_command(out, report->command);
		fprintf(out, "'");
	} else {
		fprintf(out, "thread id '%d'", report->tid);
	}
	if (report->runs > 1)
		fprintf(out, " (%u runs)", report->runs);
	fprintf(out, ":\n\n");
}

/* Decimals enough for two significant digits of @sd, as perf gives. */
static int elapsed_precision(double sd)
{
	int precision;

	if (!(sd > 0))
		return 9;
	precision = sd > 1 ? 0 : (int)ceil(-log10(sd));
	precision += 2;
	return precision > 9 ? 9 : precision;
}

static void print_footer(FILE *out, const struct perfex_report *report)
{
	double mean, sd, pct;
	int precision;

	fprintf(out, "\n");
	if (report->runs <= 1) {
		print_seconds(out, report->elapsed_ns, "time elapsed");
		fprintf(out, "\n");
		if (report->command) {
			print_seconds(out, report->user_ns, "user");
			print_seconds(out, report->sys_ns, "sys");
			fprintf(out, "\n");
		}
		return;
	}
	mean = report->elapsed_ns / 1e9;
	sd = report->elapsed_stddev_ns / 1e9;
	precision = elapsed_precision(sd);
	fprintf(out, "%*.*f +- %.*f seconds time elapsed", COUNT_WIDTH,
		precision, mean, precision, sd);
	pct = mean ? 100 * sd / mean : 0;
	if (pct)
		fprintf(out, "  ( +-%6.2f%% )", pct);
	fprintf(out, "\n\n");
}

/* The names of the TopDown categories of row @row, after @prefix. */
static void print_topdown_names(FILE *out, const char *prefix,
				unsigned int row)
{
	unsigned int col;

	fputs(prefix, out);
	for (col = 0; col < TOPDOWN_COLS; col++)
		fprintf(out, "%*s", TOPDOWN_WIDTH,
			perfex_topdown_label(row * TOPDOWN_COLS + col));
	fputc('\n', out);
}

/*
 * Their shares of the slots, of @part, after @prefix: "-" where no slot
 * was counted.
 */
static void print_topdown_shares(FILE *out, const char *prefix,
				 const struct perfex_topdown *td,
				 unsigned int row,
				 enum perfex_topdown_part part)
{
	struct perfex_metric metric;
	char cell[CELL_SIZE];
	unsigned int col, i;

	fputs(prefix, out);
	for (col = 0; col < TOPDOWN_COLS; col++) {
		i = row * TOPDOWN_COLS + col;
		if (td->category[i].not_counted || td->slots.not_counted)
			snprintf(cell, sizeof(cell), "%s", NOT_COUNTED);
		else if (perfex_topdown_share(td, i, part, &metric) == 0)
			snprintf(cell, sizeof(cell), metric.fmt, metric.value);
		else
			snprintf(cell, sizeof(cell), "-");
		fprintf(out, "%*s", TOPDOWN_WIDTH, cell);
	}
	fputc('\n', out);
}

/* The TopDown table of a report: its names, and the shares under them. */
static void print_topdown(FILE *out, const struct perfex_report *report)
{
	static const struct {
		enum perfex_topdown_part part;
		const char *name;
	} parts[] = {
		{ PERFEX_TOPDOWN_SELF, "self" },
		{ PERFEX_TOPDOWN_CHILDREN, "children" },
		{ PERFEX_TOPDOWN_TOTAL, "total" },
	};
	const struct perfex_topdown *td = report->topdown;
	int children = perfex_report_has_children(report);
	char name[PART_WIDTH + 1];
	unsigned int row, i;

	if (report->nr_counts)
		fputc('\n', out);
	for (row = 0; row * TOPDOWN_COLS < td->nr; row++) {
		if (!children) {
			print_topdown_names(out, "", row);
			print_topdown_shares(out, "", td, row,
					     PERFEX_TOPDOWN_TOTAL);
			continue;
		}
		print_topdown_names(out, "        ", row);
		for (i = 0; i < sizeof(parts) / sizeof(parts[0]); i++) {
			snprintf(name, sizeof(name), "%-*s", PART_WIDTH,
				 parts[i].name);
			print_topdown_shares(out, name, td, row,
					     parts[i].part);
		}
	}
}

/**
 * perfex_print_report - write the report on a finished command
 * @out: where to
 * @report: what to say
 */
void perfex_print_report(FILE *out, const struct perfex_report *report)
{
	struct layout layout;
	unsigned int i;

	print_header(out, report);
	lay_out(&layout, report->counts, report->nr_counts,
		perfex_report_has_children(report), "");
	if (layout.first == COL_SELF && report->nr_counts)
		print_column_headers(out, &layout);
	for (i = 0; i < report->nr_counts; i++)
		print_count(out, &layout, report->counts, report->nr_counts,
			    i, report->elapsed_ns);
	if (report->topdown)
		print_topdown(out, report);
	print_footer(out, report);
}

/**
 * perfex_print_interval - write the counts of one interval of -I
 * @out: where to
 * @iv: the interval; its counts are what was counted in it
 *
 * Each line starts with the time since counting started, in seconds;
 * a header names the columns before the first interval and every
 * HEADER_EVERY intervals after, as perf stat -I does.  The figures are
 * about the interval alone.
 */
void perfex_print_interval(FILE *out, const struct perfex_interval *iv)
{
	int header = iv->index % HEADER_EVERY == 0;
	struct layout layout;
	char prefix[48];
	unsigned int i, row;

	if (header && iv->nr_counts)
		fputs(INTERVAL_HEADER, out);
	snprintf(prefix, sizeof(prefix), "%6llu.%09llu ",
		 iv->time_ns / 1000000000ull, iv->time_ns % 1000000000ull);
	lay_out(&layout, iv->counts, iv->nr_counts,
		any_children(iv->counts, iv->nr_counts), prefix);
	for (i = 0; i < iv->nr_counts; i++)
		print_count(out, &layout, iv->counts, iv->nr_counts, i,
			    iv->length_ns);
	if (!iv->topdown)
		return;
	/* The time without its blank: the table's columns start with one. */
	prefix[strlen(prefix) - 1] = '\0';
	for (row = 0; header && row * TOPDOWN_COLS < iv->topdown->nr; row++)
		print_topdown_names(out, row ? "#               " : TIME_HEADER,
				    row);
	for (row = 0; row * TOPDOWN_COLS < iv->topdown->nr; row++)
		print_topdown_shares(out, prefix, iv->topdown, row,
				     PERFEX_TOPDOWN_TOTAL);
}

/*
 * perfex --regions: the region report, after the report, laid out as it
 * is, the counts of a region or of the outside in its lines, their
 * figures worked out from them alone (no elapsed time: no CPUs utilized,
 * and rates only where task-clock is counted):
 *
 *	(blank)
 *	 Region counter stats for './solve 2':
 *	(blank)
 *	 region 'solve': 4 calls in 2 threads
 *	(blank)
 *	            500.00 msec task-clock
 *	     1,500,000,000      cycles                 #    3.000 GHz
 *	(blank)
 *	            thread  calls  task-clock (msec)       cycles
 *	           100:100      2             300.00  900,000,000
 *	           100:101      2             200.00  600,000,000
 *	(blank)
 *	   warning: 'solve' left open in 100:101: ...
 *	(blank)
 *	 (outside regions)
 *	(blank)
 *	            200.00 msec task-clock     (the counts, then the
 *	            thread  task-clock (msec)   table without calls)
 *	(blank)
 *	 warning: ...
 *	(blank)
 *
 * A table's columns are as wide as their widest cell or heading, and two
 * blanks; the thread, "pid:tid", right-aligned as the counts are.  A
 * thread without counters has its calls and "no counters"; outside, a
 * thread that had not ended has "unknown".  The warnings of a region
 * follow its table, those of the report come last.
 */
#define REGION_WARNING	"   warning: "

/* The widths of a table of threads' counts. */
struct region_table {
	int calls;		/* it has a column of calls */
	int calls_width;
	int width[PERFEX_MAX_EVENTS];
	unsigned int nr;	/* columns of counts */
};

/* A column's heading: the event, and for task-clock its unit. */
static void column_name(char *buf, size_t size,
			const struct perfex_count *count)
{
	if (count->kind == PERFEX_COUNT_TASK_CLOCK)
		snprintf(buf, size, "%s (msec)", count->name);
	else
		snprintf(buf, size, "%s", count->name);
}

static void lay_out_table(struct region_table *t,
			  const struct perfex_region_row *rows,
			  unsigned int nr_rows,
			  const struct perfex_count *names, unsigned int nr,
			  int calls)
{
	char cell[CELL_SIZE + 16];
	unsigned int i, r;

	t->calls = calls;
	t->nr = nr;
	t->calls_width = strlen("calls") + 2;
	for (i = 0; i < nr; i++) {
		column_name(cell, sizeof(cell), &names[i]);
		t->width[i] = strlen(cell) + 2;
	}
	for (r = 0; r < nr_rows; r++) {
		if (calls) {
			format_thousands(cell, sizeof(cell),
					 rows[r].record->tally.calls);
			t->calls_width = max_int(t->calls_width,
						 strlen(cell) + 2);
		}
		if (rows[r].counted != PERFEX_REGION_COUNTED)
			continue;
		for (i = 0; i < nr; i++) {
			format_cell(cell, &rows[r].counts[i],
				    rows[r].counts[i].value);
			t->width[i] = max_int(t->width[i], strlen(cell) + 2);
		}
	}
}

static void print_table_header(FILE *out, const struct region_table *t,
			       const struct perfex_count *names)
{
	char name[CELL_SIZE + 16];
	unsigned int i;

	fprintf(out, "%*s", COUNT_WIDTH, "thread");
	if (t->calls)
		fprintf(out, "%*s", t->calls_width, "calls");
	for (i = 0; i < t->nr; i++) {
		column_name(name, sizeof(name), &names[i]);
		fprintf(out, "%*s", t->width[i], name);
	}
	fputc('\n', out);
}

static void print_table_row(FILE *out, const struct region_table *t,
			    const struct perfex_region_row *row)
{
	char cell[CELL_SIZE];
	unsigned int i;

	perfex_region_thread_name(cell, sizeof(cell), row->thread);
	fprintf(out, "%*s", COUNT_WIDTH, cell);
	if (t->calls) {
		format_thousands(cell, sizeof(cell), row->record->tally.calls);
		fprintf(out, "%*s", t->calls_width, cell);
	}
	switch (row->counted) {
	case PERFEX_REGION_NO_COUNTERS:
		fprintf(out, "  %sno counters\n", t->calls ? "" : "unknown: ");
		return;
	case PERFEX_REGION_NOT_ENDED:
		fprintf(out, "  unknown: the thread had not ended when its "
			"process did\n");
		return;
	case PERFEX_REGION_COUNTED:
		break;
	}
	for (i = 0; i < t->nr; i++) {
		format_cell(cell, &row->counts[i], row->counts[i].value);
		fprintf(out, "%*s", t->width[i], cell);
	}
	fputc('\n', out);
}

/* Count lines, as the report's, and the table of the threads' under. */
static void print_region_counts(FILE *out, const struct perfex_count *counts,
				unsigned int nr,
				const struct perfex_region_row *rows,
				unsigned int nr_rows, int calls)
{
	struct region_table table;
	struct layout layout;
	unsigned int i;

	if (nr) {
		lay_out(&layout, counts, nr, 0, "");
		for (i = 0; i < nr; i++)
			print_count(out, &layout, counts, nr, i, 0);
		fputc('\n', out);
	}
	if (!nr_rows || (!nr && !calls))
		return;
	lay_out_table(&table, rows, nr_rows, counts, nr, calls);
	print_table_header(out, &table, counts);
	for (i = 0; i < nr_rows; i++)
		print_table_row(out, &table, &rows[i]);
}

/* What went wrong in a region, thread by thread. */
static void print_region_warnings(FILE *out,
				  const struct perfex_region_stats *stats)
{
	const struct perfex_region *region = stats->region;
	const struct perfex_region_tally *rec;
	char thread[32];
	unsigned int j;
	int any = 0;

	for (j = 0; j < region->nr_records; j++) {
		rec = &stats->row[j].record->tally;
		perfex_region_thread_name(thread, sizeof(thread),
					  stats->row[j].thread);
		if (rec->open || rec->lone_begins || rec->lone_ends ||
		    rec->unread) {
			if (!any)
				fputc('\n', out);
			any = 1;
		}
		if (rec->open)
			fprintf(out, REGION_WARNING "'%s' left open in %s: "
				"not counted since its last begin\n",
				region->name, thread);
		if (rec->lone_begins)
			fprintf(out, REGION_WARNING "%llu lone %s of '%s' in "
				"%s: begun while open, the earlier begin "
				"dropped\n", rec->lone_begins,
				rec->lone_begins == 1 ? "begin" : "begins",
				region->name, thread);
		if (rec->lone_ends)
			fprintf(out, REGION_WARNING "%llu lone %s of '%s' in "
				"%s: ended while not open, not counted\n",
				rec->lone_ends,
				rec->lone_ends == 1 ? "end" : "ends",
				region->name, thread);
		if (rec->unread)
			fprintf(out, REGION_WARNING "%llu %s of '%s' in %s "
				"could not read the counters: not counted\n",
				rec->unread, rec->unread == 1 ? "end" : "ends",
				region->name, thread);
	}
}

static void print_region(FILE *out, const struct perfex_region_report *report,
			 const struct perfex_region_stats *stats)
{
	const struct perfex_region *region = stats->region;
	char calls[THOUSANDS_BUF_SIZE];

	format_thousands(calls, sizeof(calls), region->tally.calls);
	fprintf(out, " region '%s': %s %s in %u %s\n\n", region->name, calls,
		region->tally.calls == 1 ? "call" : "calls", region->nr_records,
		region->nr_records == 1 ? "thread" : "threads");
	print_region_counts(out, stats->counts, report->nr_counts, stats->row,
			    region->nr_records, 1);
	print_region_warnings(out, stats);
	fputc('\n', out);
}

/**
 * perfex_print_regions - write the region report
 * @out: where to
 * @report: what to say
 */
void perfex_print_regions(FILE *out, const struct perfex_region_report *report)
{
	const struct perfex_regions *regions = report->regions;
	char warning[256];
	unsigned int i;

	fprintf(out, "\n Region counter stats for '");
	print_command(out, report->command);
	fprintf(out, "':\n\n");
	for (i = 0; i < regions->nr_regions; i++)
		print_region(out, report, &report->stats[i]);
	if (regions->nr_threads && report->nr_counts) {
		fprintf(out, " (outside regions)\n\n");
		print_region_counts(out, report->outside, report->nr_counts,
				    report->outside_row, regions->nr_threads,
				    0);
		fputc('\n', out);
	}
	for (i = 0; perfex_region_warning(report, i, warning,
					  sizeof(warning)) == 0; i++)
		fprintf(out, " warning: %s\n", warning);
	if (i)
		fputc('\n', out);
}
