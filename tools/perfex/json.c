// SPDX-License-Identifier: GPL-2.0
/*
 * perfex --json: the report as one JSON object a line, one line per
 * count, with perf stat -j's members:
 *
 *	{"counter-value" : "1000.123456", "unit" : "msec",
 *	 "event" : "task-clock", "event-runtime" : 1001234567,
 *	 "pcnt-running" : 100.00, "metric-value" : "0.998877",
 *	 "metric-unit" : "CPUs utilized"}
 *
 * (on one line).  counter-value is a string, as in perf: the count with
 * six decimals, task-clock in milliseconds (exact, from the
 * nanoseconds), "<not counted>" if it could not be read.  -r adds
 * "variance", the relative standard deviation of the mean in percent;
 * the metric members are there only when the human report has a
 * figure; "self" and "children", in counter-value's form, when it shows
 * the children apart.  An interval (-I) starts with "interval", its
 * time in seconds.  event-runtime and pcnt-running are as in the CSV
 * form (csv.c), and so are the lines of --topdown: the slots, then each
 * category with its share of the slots as its metric, "metric-value" :
 * "30.000000", "metric-unit" : "retiring".
 */
#include <stdio.h>

#include "format.h"
#include "metrics.h"
#include "regions.h"
#include "topdown.h"

/* @s as a JSON string, quotes and all. */
static void print_string(FILE *out, const char *s)
{
	fputc('"', out);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fprintf(out, "\\%c", *s);
		else if ((unsigned char)*s < 0x20)
			fprintf(out, "\\u%04x", *s);
		else
			fputc(*s, out);
	}
	fputc('"', out);
}

static void print_value(FILE *out, const struct perfex_count *count,
			unsigned long long value)
{
	if (count->not_counted)
		fputs("\"<not counted>\"", out);
	else if (count->kind == PERFEX_COUNT_TASK_CLOCK)
		fprintf(out, "\"%llu.%06llu\"", value / 1000000,
			value % 1000000);
	else
		fprintf(out, "\"%llu.000000\"", value);
}

/* One object: @count, and @metric if not NULL. */
static void print_object(FILE *out, const char *prefix,
			 const struct perfex_count *count,
			 const struct perfex_metric *metric,
			 unsigned long long wall_ns, int with_noise,
			 int with_children)
{
	fprintf(out, "{%s\"counter-value\" : ", prefix);
	print_value(out, count, perfex_count_total(count));
	fprintf(out, ", \"unit\" : \"%s\", \"event\" : ",
		count->kind == PERFEX_COUNT_TASK_CLOCK ? "msec" : "");
	print_string(out, count->name);
	if (with_noise)
		fprintf(out, ", \"variance\" : %.2f", count->noise);
	fprintf(out, ", \"event-runtime\" : %llu, \"pcnt-running\" : 100.00",
		wall_ns);
	if (metric) {
		fprintf(out, ", \"metric-value\" : \"%f\", \"metric-unit\" : ",
			metric->value);
		print_string(out, metric->unit);
	}
	if (with_children) {
		fputs(", \"self\" : ", out);
		print_value(out, count, count->value);
		fputs(", \"children\" : ", out);
		print_value(out, count, count->children);
	}
	fputs("}\n", out);
}

/* The objects of the counts, then of the TopDown breakdown, if any. */
static void print_objects(FILE *out, const char *prefix,
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
		print_object(out, prefix, count, has ? &metric : NULL,
			     wall_ns, with_noise, with_children);
}

/**
 * perfex_print_report_json - write the report as JSON lines
 * @out: where to
 * @report: what to say
 */
void perfex_print_report_json(FILE *out, const struct perfex_report *report)
{
	print_objects(out, "", report->counts, report->nr_counts,
		      report->topdown, report->elapsed_ns, report->runs > 1,
		      perfex_report_has_children(report));
}

/**
 * perfex_print_interval_json - write an interval as JSON lines
 * @out: where to
 * @iv: the interval
 */
void perfex_print_interval_json(FILE *out, const struct perfex_interval *iv)
{
	char prefix[48];

	snprintf(prefix, sizeof(prefix), "\"interval\" : %llu.%09llu, ",
		 iv->time_ns / 1000000000ull, iv->time_ns % 1000000000ull);
	print_objects(out, prefix, iv->counts, iv->nr_counts, iv->topdown,
		      iv->length_ns, 0, 0);
}

/*
 * perfex --regions --json: the region report, after the report, one
 * object per event for each region's total and each of its threads,
 * then for the outside of every region, in total and for each thread,
 * the lines of the CSV form (csv.c) as members:
 *
 *	{"region" : "solve", "thread" : "1234:1235", "calls" : 4,
 *	 "counter-value" : "2000000000.000000", "unit" : "",
 *	 "event" : "cycles", "metric-value" : "3.240000",
 *	 "metric-unit" : "GHz", "open" : 0, "lone-begins" : 0,
 *	 "lone-ends" : 0, "unread" : 0}
 *
 * (on one line).  "region" is "" for the outside, whose objects have no
 * "calls", "open", "lone-begins", "lone-ends" or "unread"; "thread" is
 * "total" or "PID:TID"; "counter-value" is as in the report's objects,
 * or "<not counted>" or "<unknown>" as in the CSV form; the metric
 * members are there only when the human region report has a figure.
 * Without events to report, a region's objects have no counter-value,
 * unit or event.  The report's warnings go to standard error.
 */
static void print_region_members(FILE *out, const char *region,
				 const char *thread,
				 const struct perfex_region_tally *tally)
{
	fputs("{\"region\" : ", out);
	print_string(out, region);
	fputs(", \"thread\" : ", out);
	print_string(out, thread);
	if (tally)
		fprintf(out, ", \"calls\" : %llu", tally->calls);
}

static void print_region_tally(FILE *out,
			       const struct perfex_region_tally *tally)
{
	if (tally)
		fprintf(out, ", \"open\" : %llu, \"lone-begins\" : %llu, "
			"\"lone-ends\" : %llu, \"unread\" : %llu", tally->open,
			tally->lone_begins, tally->lone_ends, tally->unread);
	fputs("}\n", out);
}

/*
 * The objects of one total or thread: an event each, @counts' unless
 * @value says what stands for them all.
 */
static void print_region_objects(FILE *out, const char *region,
				 const char *thread,
				 const struct perfex_region_tally *tally,
				 const struct perfex_count *counts,
				 unsigned int nr, const char *value)
{
	const struct perfex_count *count;
	struct perfex_metric metric;
	unsigned int i;

	if (!nr) {
		print_region_members(out, region, thread, tally);
		print_region_tally(out, tally);
	}
	for (i = 0; i < nr; i++) {
		count = &counts[i];
		print_region_members(out, region, thread, tally);
		fputs(", \"counter-value\" : ", out);
		if (value)
			print_string(out, value);
		else
			print_value(out, count, count->value);
		fprintf(out, ", \"unit\" : \"%s\", \"event\" : ",
			count->kind == PERFEX_COUNT_TASK_CLOCK ? "msec" : "");
		print_string(out, count->name);
		if (!value && !count->not_counted &&
		    perfex_metric_of(counts, nr, i, 0, &metric) == 0) {
			fprintf(out, ", \"metric-value\" : \"%f\", "
				"\"metric-unit\" : ", metric.value);
			print_string(out, metric.unit);
		}
		print_region_tally(out, tally);
	}
}

/**
 * perfex_print_regions_json - write the region report as JSON lines
 * @out: where to
 * @report: what to say
 */
void perfex_print_regions_json(FILE *out,
			       const struct perfex_region_report *report)
{
	const struct perfex_regions *regions = report->regions;
	const struct perfex_region_stats *stats;
	const struct perfex_region_row *row;
	unsigned int nr = report->nr_counts, i, j;
	char thread[32];

	for (i = 0; i < regions->nr_regions; i++) {
		stats = &report->stats[i];
		print_region_objects(out, stats->region->name, "total",
				     &stats->region->tally, stats->counts, nr,
				     NULL);
		for (j = 0; j < stats->region->nr_records; j++) {
			row = &stats->row[j];
			perfex_region_thread_name(thread, sizeof(thread),
						  row->thread);
			print_region_objects(out, stats->region->name, thread,
					     &row->record->tally, row->counts,
					     nr, perfex_region_row_value(row));
		}
	}
	if (!regions->nr_threads || !nr)
		return;
	print_region_objects(out, "", "total", NULL, report->outside, nr,
			     NULL);
	for (j = 0; j < regions->nr_threads; j++) {
		row = &report->outside_row[j];
		perfex_region_thread_name(thread, sizeof(thread), row->thread);
		print_region_objects(out, "", thread, NULL, row->counts, nr,
				     perfex_region_row_value(row));
	}
}
