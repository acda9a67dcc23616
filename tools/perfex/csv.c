// SPDX-License-Identifier: GPL-2.0
/*
 * perfex -x SEP: the report for machines, one line per count, fields
 * separated by SEP, as perf stat -x has them:
 *
 *	value,unit,event,run-time,pcnt-running,metric-value,metric-unit
 *
 * value is the count (the mean with -r), task-clock in milliseconds
 * with two decimals, or "<not counted>"; unit is "msec" or empty; -r
 * puts the relative standard deviation of the mean, "0.12%", after the
 * event.  run-time is how long the counters ran, in ns: the elapsed
 * time, for counters that are never multiplexed, hence a pcnt-running
 * of 100.00.  The metric is the derived figure of the human report,
 * its number and unit ("0.999,CPUs utilized"), or two empty fields.
 * When the report shows the children apart, two fields follow: the
 * command's own count and its children's (value being their sum).
 * Intervals (-I) start with their time in seconds.  Nothing else is
 * printed: no header, no elapsed time.
 */
#include <stdio.h>

#include "format.h"
#include "metrics.h"

static void print_value(FILE *out, const struct perfex_count *count,
			unsigned long long value)
{
	char buf[32];

	if (count->not_counted) {
		fputs("<not counted>", out);
	} else if (count->kind == PERFEX_COUNT_TASK_CLOCK) {
		format_msec_plain(buf, sizeof(buf), value);
		fputs(buf, out);
	} else {
		fprintf(out, "%llu", value);
	}
}

static void print_line(FILE *out, const char *sep, const char *prefix,
		       const struct perfex_count *counts, unsigned int nr,
		       unsigned int i, unsigned long long wall_ns,
		       int with_noise, int with_children)
{
	const struct perfex_count *count = &counts[i];
	struct perfex_metric metric;
	char number[32];

	fputs(prefix, out);
	print_value(out, count, perfex_count_total(count));
	fprintf(out, "%s%s%s%s", sep,
		count->kind == PERFEX_COUNT_TASK_CLOCK ? "msec" : "", sep,
		count->name);
	if (with_noise)
		fprintf(out, "%s%.2f%%", sep, count->noise);
	fprintf(out, "%s%llu%s100.00", sep, wall_ns, sep);
	if (!count->not_counted &&
	    perfex_metric_of(counts, nr, i, wall_ns, &metric) == 0) {
		perfex_metric_number(number, sizeof(number), &metric);
		fprintf(out, "%s%s%s%s", sep, number, sep, metric.unit);
	} else {
		fprintf(out, "%s%s", sep, sep);
	}
	if (with_children) {
		fputs(sep, out);
		print_value(out, count, count->value);
		fputs(sep, out);
		print_value(out, count, count->children);
	}
	fputc('\n', out);
}

/**
 * perfex_print_report_csv - write the report with fields separated
 * @out: where to
 * @report: what to say
 * @sep: the separator
 */
void perfex_print_report_csv(FILE *out, const struct perfex_report *report,
			     const char *sep)
{
	int children = perfex_report_has_children(report);
	unsigned int i;

	for (i = 0; i < report->nr_counts; i++)
		print_line(out, sep, "", report->counts, report->nr_counts, i,
			   report->elapsed_ns, report->runs > 1, children);
}

/**
 * perfex_print_interval_csv - write an interval with fields separated
 * @out: where to
 * @iv: the interval
 * @sep: the separator
 */
void perfex_print_interval_csv(FILE *out, const struct perfex_interval *iv,
			       const char *sep)
{
	char prefix[48];
	unsigned int i;

	snprintf(prefix, sizeof(prefix), "%llu.%09llu%s",
		 iv->time_ns / 1000000000ull, iv->time_ns % 1000000000ull,
		 sep);
	for (i = 0; i < iv->nr_counts; i++)
		print_line(out, sep, prefix, iv->counts, iv->nr_counts, i,
			   iv->length_ns, 0, 0);
}
