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
 *
 * With --topdown, lines of the same fields follow the counts: the slots,
 * with no metric, then each TopDown category (topdown-retiring, ...,
 * and for level 2 the rests, topdown-light-ops, topdown-machine-clears,
 * topdown-fetch-bw and topdown-core-bound) with its slots, and as its
 * metric its share of the slots in percent and its name, as the human
 * report has them: "30.0,retiring".
 */
#include <stdio.h>

#include "format.h"
#include "metrics.h"
#include "regions.h"
#include "topdown.h"

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

/* One line: @count, and @metric or, if NULL, two empty fields. */
static void print_line(FILE *out, const char *sep, const char *prefix,
		       const struct perfex_count *count,
		       const struct perfex_metric *metric,
		       unsigned long long wall_ns, int with_noise,
		       int with_children)
{
	char number[32];

	fputs(prefix, out);
	print_value(out, count, perfex_count_total(count));
	fprintf(out, "%s%s%s%s", sep,
		count->kind == PERFEX_COUNT_TASK_CLOCK ? "msec" : "", sep,
		count->name);
	if (with_noise)
		fprintf(out, "%s%.2f%%", sep, count->noise);
	fprintf(out, "%s%llu%s100.00", sep, wall_ns, sep);
	if (metric) {
		perfex_metric_number(number, sizeof(number), metric);
		fprintf(out, "%s%s%s%s", sep, number, sep, metric->unit);
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

/* The lines of the counts, then of the TopDown breakdown, if any. */
static void print_lines(FILE *out, const char *sep, const char *prefix,
			const struct perfex_count *counts, unsigned int nr,
			const struct perfex_topdown *td,
			unsigned long long wall_ns, int with_noise,
			int with_children)
{
	const struct perfex_count *count;
	struct perfex_metric metric;
	unsigned int i;
	int has;

	for (i = 0; (count = perfex_topdown_line(counts, nr, td, i, wall_ns,
						 &metric, &has)); i++)
		print_line(out, sep, prefix, count, has ? &metric : NULL,
			   wall_ns, with_noise, with_children);
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
	print_lines(out, sep, "", report->counts, report->nr_counts,
		    report->topdown, report->elapsed_ns, report->runs > 1,
		    perfex_report_has_children(report));
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

	snprintf(prefix, sizeof(prefix), "%llu.%09llu%s",
		 iv->time_ns / 1000000000ull, iv->time_ns % 1000000000ull,
		 sep);
	print_lines(out, sep, prefix, iv->counts, iv->nr_counts, iv->topdown,
		    iv->length_ns, 0, 0);
}

/*
 * perfex --regions -x SEP: the region report, after the report, one line
 * per event for each region's total and each of its threads, then for
 * the outside of every region, in total and for each thread:
 *
 *	region,thread,calls,value,unit,event,metric-value,metric-unit,
 *	open,lone-begins,lone-ends,unread
 *
 * (on one line).  region is the region's name, empty for the outside
 * (a region's name is never empty); thread is "total" or "PID:TID";
 * calls, open (left open), lone-begins, lone-ends and unread (ends that
 * could not read the counters) are the region's, in all its threads or
 * in one, and empty for the outside.  value, unit
 * and event are as in the report's lines, value "<not counted>" for a
 * thread without counters or a count that cannot be known, "<unknown>"
 * outside for a thread that had not ended when its process did; the
 * metric is the figure of the human region report, or two empty fields.
 * Without events to report (--topdown alone), a region's lines have
 * empty value, unit, event and metric fields, and there are no outside
 * lines.  The report's warnings go to standard error.
 */
static void print_region_fields(FILE *out, const char *sep,
				const char *region, const char *thread,
				const struct perfex_region_tally *tally)
{
	fprintf(out, "%s%s%s%s", region, sep, thread, sep);
	if (tally)
		fprintf(out, "%llu", tally->calls);
	fputs(sep, out);
}

static void print_region_tally(FILE *out, const char *sep,
			       const struct perfex_region_tally *tally)
{
	if (tally)
		fprintf(out, "%s%llu%s%llu%s%llu%s%llu", sep, tally->open,
			sep, tally->lone_begins, sep, tally->lone_ends, sep,
			tally->unread);
	else
		fprintf(out, "%s%s%s%s", sep, sep, sep, sep);
	fputc('\n', out);
}

/*
 * The lines of one total or thread: an event each, @counts' unless
 * @value says what stands for them all.
 */
static void print_region_lines(FILE *out, const char *sep,
			       const char *region, const char *thread,
			       const struct perfex_region_tally *tally,
			       const struct perfex_count *counts,
			       unsigned int nr, const char *value)
{
	const struct perfex_count *count;
	struct perfex_metric metric;
	char number[32];
	unsigned int i;

	if (!nr) {
		print_region_fields(out, sep, region, thread, tally);
		fprintf(out, "%s%s%s%s", sep, sep, sep, sep);
		print_region_tally(out, sep, tally);
	}
	for (i = 0; i < nr; i++) {
		count = &counts[i];
		print_region_fields(out, sep, region, thread, tally);
		if (value)
			fputs(value, out);
		else
			print_value(out, count, count->value);
		fprintf(out, "%s%s%s%s", sep,
			count->kind == PERFEX_COUNT_TASK_CLOCK ? "msec" : "",
			sep, count->name);
		if (!value && !count->not_counted &&
		    perfex_metric_of(counts, nr, i, 0, &metric) == 0) {
			perfex_metric_number(number, sizeof(number), &metric);
			fprintf(out, "%s%s%s%s", sep, number, sep,
				metric.unit);
		} else {
			fprintf(out, "%s%s", sep, sep);
		}
		print_region_tally(out, sep, tally);
	}
}

/**
 * perfex_print_regions_csv - write the region report with fields
 *                            separated
 * @out: where to
 * @report: what to say
 * @sep: the separator
 */
void perfex_print_regions_csv(FILE *out,
			      const struct perfex_region_report *report,
			      const char *sep)
{
	const struct perfex_regions *regions = report->regions;
	const struct perfex_region_stats *stats;
	const struct perfex_region_row *row;
	unsigned int nr = report->nr_counts, i, j;
	char thread[32];

	for (i = 0; i < regions->nr_regions; i++) {
		stats = &report->stats[i];
		print_region_lines(out, sep, stats->region->name, "total",
				   &stats->region->tally, stats->counts, nr,
				   NULL);
		for (j = 0; j < stats->region->nr_records; j++) {
			row = &stats->row[j];
			perfex_region_thread_name(thread, sizeof(thread),
						  row->thread);
			print_region_lines(out, sep, stats->region->name,
					   thread, &row->record->tally,
					   row->counts, nr,
					   perfex_region_row_value(row));
		}
	}
	if (!regions->nr_threads || !nr)
		return;
	print_region_lines(out, sep, "", "total", NULL, report->outside, nr,
			   NULL);
	for (j = 0; j < regions->nr_threads; j++) {
		row = &report->outside_row[j];
		perfex_region_thread_name(thread, sizeof(thread), row->thread);
		print_region_lines(out, sep, "", thread, NULL, row->counts, nr,
				   perfex_region_row_value(row));
	}
}
