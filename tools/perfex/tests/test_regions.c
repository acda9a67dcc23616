// SPDX-License-Identifier: GPL-2.0
/*
 * perfex --regions: region areas made up in memory, as the library
 * leaves them, read, mapped to perfex's events and reported in the three
 * forms; and areas that are not what they should be.
 *
 * The events are task-clock, cycles, instructions and tsc on the Intel
 * machine of machines.h, built as perfex builds them, so that the sums
 * are indexed as the control's counters are.  The main run has process
 * 100 with threads 100 and 101: thread 100 uses regions "solve" and
 * "io", thread 101 "solve", and a third thread, which made no region
 * call, counted only in the run's children:
 *
 *	            task-clock       cycles  instructions          tsc
 *	100 solve  300,000,000  900,000,000  1,800,000,000  900,000,000
 *	100 io     100,000,000  200,000,000    100,000,000  300,000,000
 *	100 total  500,000,000 1,300,000,000 2,100,000,000 1,500,000,000
 *	101 solve  200,000,000  600,000,000    600,000,000  600,000,000
 *	101 total  250,000,000  700,000,000    700,000,000  750,000,000
 *	third       50,000,000  100,000,000    100,000,000  150,000,000
 *
 * so that the run counted 800 ms, 2.1e9 cycles, 2.9e9 instructions and
 * 2.4e9 TSC ticks, of which 200 ms, 4e8, 4e8 and 6e8 outside regions.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "events.h"
#include "machines.h"
#include "parse.h"
#include "region_area.h"
#include "regions.h"
#include "tap.h"

#define AREA_SIZE	(sizeof(struct region_area) + (64u << 10))
#define MS		1000000ull

enum { TASK_CLOCK, CYCLES, INSTRUCTIONS, TSC, NR_EVENTS };

static struct perfex_event_list events;
static unsigned int nrctrs;	/* the control's counters, as nrsums */
static union {
	struct region_area hdr;
	unsigned char bytes[AREA_SIZE];
	__u64 align;
} *area;
static char why[256];

/* The events, as perfex builds them for the Intel machine. */
static void set_up_events(void)
{
	struct vperfctr_control control, fallback;
	unsigned int bad, i;

	if (perfex_add_events(&events, "task-clock,cycles,instructions,tsc",
			      why, sizeof(why)) < 0 ||
	    perfex_build_control(&events, &intel, &control, &fallback, why,
				 sizeof(why), &bad) < 0) {
		printf("Bail out! events: %s\n", why);
		exit(1);
	}
	for (i = 0; i < NR_EVENTS; i++) {
		if (events.event[i].index != PERFCTR_EVENT_TSC_INDEX &&
		    (unsigned int)events.event[i].index + 1 > nrctrs)
			nrctrs = events.event[i].index + 1;
	}
}

/* @sum with the four events' values. */
static void sums(struct perfctr_sum_ctrs *sum, unsigned long long clock,
		 unsigned long long cycles, unsigned long long insns,
		 unsigned long long tsc)
{
	const unsigned long long value[NR_EVENTS] = {
		clock, cycles, insns, tsc,
	};
	unsigned int i;

	memset(sum, 0, sizeof(*sum));
	for (i = 0; i < NR_EVENTS; i++) {
		if (events.event[i].index == PERFCTR_EVENT_TSC_INDEX)
			sum->tsc = value[i];
		else
			sum->pmc[events.event[i].index] = value[i];
	}
}

static void area_reset(void)
{
	memset(area, 0, sizeof(*area));
	area->hdr.magic = REGION_AREA_MAGIC;
	area->hdr.version = REGION_AREA_VERSION;
	area->hdr.size = AREA_SIZE;
	area->hdr.used = sizeof(area->hdr);
}

static void name(unsigned int number, const char *text)
{
	area->hdr.names[number - 1].state = REGION_NAME_READY;
	snprintf(area->hdr.names[number - 1].name, PERFCTR_REGION_NAME_SIZE,
		 "%s", text);
}

/* An entry of @type, handed out as the library does. */
static void *entry(__u32 type, size_t size)
{
	struct region_entry *e = (void *)(area->bytes + area->hdr.used);

	size = (size + 7) & ~7ul;
	e->size = size;
	e->type = type;
	area->hdr.used += size;
	return e;
}

static struct region_thread *thread(int pid, int tid, __u32 flags)
{
	struct region_thread *t = entry(REGION_THREAD, sizeof(*t));

	t->pid = pid;
	t->tid = tid;
	t->flags = flags;
	if (flags & REGION_THREAD_COUNTERS)
		t->nrctrs = nrctrs;
	return t;
}

#define COUNTED		(REGION_THREAD_COUNTERS | REGION_THREAD_ENDED)

static struct region_record *record(const struct region_thread *t,
				    unsigned int region, __u64 calls)
{
	struct region_record *r = entry(REGION_RECORD, sizeof(*r));

	r->thread = (const unsigned char *)t - area->bytes;
	r->region = region;
	r->calls = calls;
	return r;
}

static int read_area(struct perfex_regions *regions, int only_tid)
{
	why[0] = '\0';
	return perfex_regions_read(regions, area, sizeof(*area), only_tid, why,
				   sizeof(why));
}

/* The run's counts: thread 100's own, the others' as children. */
static void run_counts(struct perfex_count *run)
{
	struct perfctr_sum_ctrs self, children;
	unsigned int i;

	sums(&self, 500 * MS, 1300000000, 2100000000, 1500000000);
	sums(&children, 300 * MS, 800000000, 800000000, 900000000);
	for (i = 0; i < NR_EVENTS; i++) {
		perfex_event_count(&events.event[i], &self, &run[i]);
		run[i].children = perfex_event_value(&events.event[i],
						     &children);
	}
}

/* The area of the main run, in the order the library may write it. */
static void main_area(void)
{
	struct region_thread *t100, *t101;
	struct region_record *r;

	area_reset();
	name(1, "solve");
	name(2, "io");
	t100 = thread(100, 100, COUNTED);
	r = record(t100, 1, 2);
	sums(&r->outer, 300 * MS, 900000000, 1800000000, 900000000);
	t101 = thread(100, 101, COUNTED);
	r = record(t101, 1, 2);
	sums(&r->outer, 200 * MS, 600000000, 600000000, 600000000);
	r = record(t100, 2, 1);
	sums(&r->outer, 100 * MS, 200000000, 100000000, 300000000);
	sums(&t100->total, 500 * MS, 1300000000, 2100000000, 1500000000);
	sums(&t101->total, 250 * MS, 700000000, 700000000, 750000000);
}

/* Counts @counts are @want, event by event; none <not counted>. */
static int counts_are(const struct perfex_count *counts,
		      const unsigned long long want[NR_EVENTS])
{
	unsigned int i;

	for (i = 0; i < NR_EVENTS; i++) {
		if (counts[i].not_counted || counts[i].value != want[i] ||
		    counts[i].children) {
			printf("#   count %u: %llu%s, not %llu\n", i,
			       counts[i].value,
			       counts[i].not_counted ? " (not counted)" : "",
			       want[i]);
			return 0;
		}
	}
	return 1;
}

static char *text_of(const struct perfex_region_report *report, int form)
{
	char *text = NULL;
	size_t size = 0;
	FILE *out = open_memstream(&text, &size);

	if (form == 'x')
		perfex_print_regions_csv(out, report, ",");
	else if (form == 'j')
		perfex_print_regions_json(out, report);
	else
		perfex_print_regions(out, report);
	fclose(out);
	return text;
}

/* The line of @text that starts with @start, whole, or "". */
static const char *line_starting(const char *text, const char *start)
{
	static char line[512];
	unsigned int n;

	for (n = 0; nth_line(text, n, line, sizeof(line)) == 0; n++) {
		if (strncmp(line, start, strlen(start)) == 0)
			return line;
	}
	return "";
}

static void test_read(void)
{
	struct perfex_regions regions;
	const struct perfex_region *solve, *io;

	main_area();
	tap_is_int(read_area(&regions, 0), 0, "read: the main run");
	tap_is_str(why, "", "read: nothing said");
	tap_ok(regions.nr_threads == 2 && regions.thread[0].tid == 100 &&
	       regions.thread[1].tid == 101 && regions.thread[1].pid == 100,
	       "read: two threads, by tid");
	tap_ok(regions.thread[0].counters && regions.thread[0].ended &&
	       regions.thread[0].nrctrs == nrctrs,
	       "read: with counters, ended");
	tap_is_int(regions.nr_regions, 2, "read: two regions");
	solve = &regions.region[0];
	io = &regions.region[1];
	tap_ok(solve->number == 1 && !strcmp(solve->name, "solve") &&
	       io->number == 2 && !strcmp(io->name, "io"),
	       "read: by number, named");
	tap_ok(solve->tally.calls == 4 && solve->nr_records == 2 &&
	       solve->record[0].thread == 0 && solve->record[1].thread == 1 &&
	       solve->record[0].tally.calls == 2,
	       "read: solve: 4 calls in two threads, in thread order");
	tap_ok(io->tally.calls == 1 && io->nr_records == 1 &&
	       io->record[0].thread == 0, "read: io: 1 call in thread 100");
	tap_is_u64(regions.thread[0].covered.tsc, 1200000000,
		   "read: thread 100's time in regions: its records' outer");
	tap_ok(!regions.lost && !regions.unfinished &&
	       !regions.unread_bytes && !regions.left_out,
	       "read: nothing amiss");
	perfex_regions_free(&regions);
}

static void test_report(void)
{
	static const unsigned long long solve[] = {
		500 * MS, 1500000000, 2400000000, 1500000000,
	}, solve_101[] = {
		200 * MS, 600000000, 600000000, 600000000,
	}, io[] = {
		100 * MS, 200000000, 100000000, 300000000,
	}, outside[] = {
		200 * MS, 400000000, 400000000, 600000000,
	}, outside_100[] = {
		100 * MS, 200000000, 200000000, 300000000,
	}, outside_101[] = {
		50 * MS, 100000000, 100000000, 150000000,
	};
	struct perfex_count run[NR_EVENTS];
	struct perfex_region_report report;
	struct perfex_regions regions;
	unsigned long long sum;
	unsigned int i;

	main_area();
	run_counts(run);
	read_area(&regions, 0);
	tap_is_int(perfex_region_report_make(&report, &regions, &events,
					     NR_EVENTS, run), 0,
		   "report: made");
	tap_ok(counts_are(report.stats[0].counts, solve),
	       "report: solve: the total of its threads");
	tap_ok(counts_are(report.stats[0].row[1].counts, solve_101) &&
	       report.stats[0].row[1].thread->tid == 101 &&
	       report.stats[0].row[1].counted == PERFEX_REGION_COUNTED,
	       "report: solve: thread 101's");
	tap_ok(counts_are(report.stats[1].counts, io), "report: io");
	tap_ok(counts_are(report.outside, outside),
	       "report: outside: the run's less the threads' time in "
	       "regions");
	tap_ok(counts_are(report.outside_row[0].counts, outside_100) &&
	       counts_are(report.outside_row[1].counts, outside_101),
	       "report: outside, by thread: its total less its time in "
	       "regions");
	for (i = 0, sum = 0; i < 2; i++)
		sum += report.stats[i].counts[TASK_CLOCK].value;
	tap_is_u64(sum + report.outside[TASK_CLOCK].value,
		   perfex_count_total(&run[TASK_CLOCK]),
		   "report: regions and outside add up to the run");
	tap_ok(!strcmp(report.stats[0].counts[CYCLES].name, "cycles") &&
	       report.stats[0].counts[TASK_CLOCK].kind ==
	       PERFEX_COUNT_TASK_CLOCK, "report: events named as perfex's");
	tap_is_int(perfex_region_warning(&report, 0, why, sizeof(why)), -1,
		   "report: no warning");
	perfex_region_report_free(&report);
	perfex_regions_free(&regions);
}

static void test_human(void)
{
	struct perfex_count run[NR_EVENTS];
	struct perfex_region_report report;
	struct perfex_regions regions;
	char *command[] = { "./solve", "2", NULL };
	char *text;

	main_area();
	run_counts(run);
	read_area(&regions, 0);
	perfex_region_report_make(&report, &regions, &events, NR_EVENTS, run);
	report.command = command;
	text = text_of(&report, 0);
	tap_is_str(text,
		   "\n"
		   " Region counter stats for './solve 2':\n"
		   "\n"
		   " region 'solve': 4 calls in 2 threads\n"
		   "\n"
		   "            500.00 msec task-clock\n"
		   "     1,500,000,000      cycles                 #    3.000 GHz\n"
		   "     2,400,000,000      instructions           #    1.60  insn per cycle\n"
		   "     1,500,000,000      tsc\n"
		   "\n"
		   "            thread  calls  task-clock (msec)       cycles   instructions          tsc\n"
		   "           100:100      2             300.00  900,000,000  1,800,000,000  900,000,000\n"
		   "           100:101      2             200.00  600,000,000    600,000,000  600,000,000\n"
		   "\n"
		   " region 'io': 1 call in 1 thread\n"
		   "\n"
		   "            100.00 msec task-clock\n"
		   "       200,000,000      cycles                 #    2.000 GHz\n"
		   "       100,000,000      instructions           #    0.50  insn per cycle\n"
		   "       300,000,000      tsc\n"
		   "\n"
		   "            thread  calls  task-clock (msec)       cycles  instructions          tsc\n"
		   "           100:100      1             100.00  200,000,000   100,000,000  300,000,000\n"
		   "\n"
		   " (outside regions)\n"
		   "\n"
		   "            200.00 msec task-clock\n"
		   "       400,000,000      cycles                 #    2.000 GHz\n"
		   "       400,000,000      instructions           #    1.00  insn per cycle\n"
		   "       600,000,000      tsc\n"
		   "\n"
		   "            thread  task-clock (msec)       cycles  instructions          tsc\n"
		   "           100:100             100.00  200,000,000   200,000,000  300,000,000\n"
		   "           100:101              50.00  100,000,000   100,000,000  150,000,000\n"
		   "\n",
		   "human: the main run, whole");
	free(text);
	perfex_region_report_free(&report);
	perfex_regions_free(&regions);
}

static void test_csv(void)
{
	char field[MAX_FIELDS][FIELD_SIZE], line[512];
	struct perfex_count run[NR_EVENTS];
	struct perfex_region_report report;
	struct perfex_regions regions;
	unsigned int n, good = 0;
	char *text;

	main_area();
	run_counts(run);
	read_area(&regions, 0);
	perfex_region_report_make(&report, &regions, &events, NR_EVENTS, run);
	text = text_of(&report, 'x');
	/* solve: total and 2 threads; io: total and 1; outside: 1 and 2. */
	for (n = 0; nth_line(text, n, line, sizeof(line)) == 0; n++)
		good += csv_split(line, ",", field) == 12;
	tap_ok(n == 8 * NR_EVENTS && good == n,
	       "csv: 32 lines of 12 fields (%u of %u)", good, n);
	tap_is_str(line_starting(text, "solve,total,4,1500000000,"),
		   "solve,total,4,1500000000,,cycles,3.000,GHz,0,0,0,0",
		   "csv: solve's cycles, the GHz of its task-clock");
	tap_is_str(line_starting(text, "solve,total,4,500.00,"),
		   "solve,total,4,500.00,msec,task-clock,,,0,0,0,0",
		   "csv: task-clock in msec, no CPUs utilized");
	tap_is_str(line_starting(text, "solve,100:101,2,600000000,,instr"),
		   "solve,100:101,2,600000000,,instructions,1.00,insn per "
		   "cycle,0,0,0,0", "csv: a thread's line, and its figure");
	tap_is_str(line_starting(text, ",total,,200.00"),
		   ",total,,200.00,msec,task-clock,,,,,,",
		   "csv: outside: no region, calls or tally");
	tap_is_str(line_starting(text, ",100:101,,150000000"),
		   ",100:101,,150000000,,tsc,,,,,,",
		   "csv: outside, a thread's");
	free(text);
	perfex_region_report_free(&report);
	perfex_regions_free(&regions);
}

static void test_json(void)
{
	struct member m[MAX_FIELDS];
	struct perfex_count run[NR_EVENTS];
	struct perfex_region_report report;
	struct perfex_regions regions;
	unsigned int n, good = 0;
	char line[512], *text;
	int nr;

	main_area();
	run_counts(run);
	read_area(&regions, 0);
	perfex_region_report_make(&report, &regions, &events, NR_EVENTS, run);
	text = text_of(&report, 'j');
	for (n = 0; nth_line(text, n, line, sizeof(line)) == 0; n++)
		good += json_parse(line, m, MAX_FIELDS) > 0;
	tap_ok(n == 8 * NR_EVENTS && good == n,
	       "json: 32 objects (%u of %u)", good, n);
	tap_is_str(line_starting(text, "{\"region\" : \"solve\", \"thread\" : "
				 "\"total\", \"calls\" : 4, \"counter-value\" "
				 ": \"2400"),
		   "{\"region\" : \"solve\", \"thread\" : \"total\", "
		   "\"calls\" : 4, \"counter-value\" : \"2400000000.000000\", "
		   "\"unit\" : \"\", \"event\" : \"instructions\", "
		   "\"metric-value\" : \"1.600000\", \"metric-unit\" : "
		   "\"insn per cycle\", \"open\" : 0, \"lone-begins\" : 0, "
		   "\"lone-ends\" : 0, \"unread\" : 0}",
		   "json: solve's instructions");
	nr = json_parse(line_starting(text, "{\"region\" : \"\", \"thread\" : "
				      "\"100:100\""), m, MAX_FIELDS);
	tap_ok(nr > 0 && !member(m, nr, "calls") && !member(m, nr, "open") &&
	       !strcmp(member(m, nr, "counter-value")->value, "100.000000") &&
	       !strcmp(member(m, nr, "unit")->value, "msec"),
	       "json: outside, thread 100: task-clock, no calls");
	free(text);
	perfex_region_report_free(&report);
	perfex_regions_free(&regions);
}

/*
 * Nested regions count in both, once in the thread's time in regions;
 * overlapping ones leave the time between their begins in covered.
 */
static void test_nested(void)
{
	static const unsigned long long outside[] = {
		110 * MS, 110, 110, 110,
	}, outside_7[] = {
		60 * MS, 60, 60, 60,
	};
	struct perfex_count run[NR_EVENTS];
	struct perfex_region_report report;
	struct perfex_regions regions;
	struct region_thread *t7, *t8;
	struct region_record *r;
	unsigned int i;

	area_reset();
	name(1, "outer");
	name(2, "inner");
	name(3, "a");
	name(4, "b");
	/* 7: outer [0, 100) with inner [20, 60) in it; total 160. */
	t7 = thread(7, 7, COUNTED);
	r = record(t7, 2, 1);
	sums(&r->inner, 40 * MS, 40, 40, 40);
	r = record(t7, 1, 1);
	sums(&r->outer, 100 * MS, 100, 100, 100);
	sums(&t7->total, 160 * MS, 160, 160, 160);
	/* 8: a [0, 50), b [30, 90): covered [0, 30), b's outer [30, 90). */
	t8 = thread(7, 8, COUNTED);
	r = record(t8, 3, 1);
	sums(&r->inner, 50 * MS, 50, 50, 50);
	r = record(t8, 4, 1);
	sums(&r->outer, 60 * MS, 60, 60, 60);
	sums(&t8->covered, 30 * MS, 30, 30, 30);
	sums(&t8->total, 90 * MS, 90, 90, 90);
	for (i = 0; i < NR_EVENTS; i++) {
		memset(&run[i], 0, sizeof(run[i]));
		run[i].name = events.event[i].spec.name;
		run[i].value = i == TASK_CLOCK ? 300 * MS : 300;
	}
	read_area(&regions, 0);
	perfex_region_report_make(&report, &regions, &events, NR_EVENTS, run);
	tap_ok(report.stats[0].counts[TASK_CLOCK].value == 100 * MS &&
	       report.stats[1].counts[TASK_CLOCK].value == 40 * MS,
	       "nested: outer counts inner's too");
	tap_is_u64(regions.thread[1].covered.tsc, 90,
		   "overlapping: covered and the last one's outer");
	tap_ok(counts_are(report.outside, outside),
	       "nested, overlapping: outside, each thread's time in regions "
	       "once");
	tap_ok(counts_are(report.outside_row[0].counts, outside_7) &&
	       report.outside_row[1].counts[TSC].value == 0,
	       "nested, overlapping: outside, by thread");
	perfex_region_report_free(&report);
	perfex_regions_free(&regions);
}

/* The anomalies, each said, none folded into the counts. */
static void test_anomalies(void)
{
	struct region_thread *t1, *t2, *t3, *t4;
	struct perfex_count run[NR_EVENTS];
	struct perfex_region_report report;
	struct perfex_regions regions;
	struct region_record *r;
	char *command[] = { "./odd", NULL }, warning[256], *text;
	struct region_entry *e;
	unsigned int i;

	area_reset();
	name(1, "solve");
	t1 = thread(200, 200, COUNTED);
	t1->depth = 1;
	r = record(t1, 1, 3);
	r->open = 1;
	r->lone_begins = 2;
	sums(&r->outer, 30 * MS, 30, 30, 30);
	sums(&t1->total, 40 * MS, 40, 40, 40);
	/* Ended with counters it could not read at its end. */
	t2 = thread(200, 201, REGION_THREAD_COUNTERS);
	r = record(t2, 1, 1);
	r->lone_ends = 1;
	r->unread = 2;
	sums(&r->outer, 5 * MS, 5, 5, 5);
	/* No counters: calls only. */
	t3 = thread(200, 202, REGION_THREAD_ENDED);
	r = record(t3, 1, 4);
	/* Region 2, never named, in a child process. */
	t4 = thread(203, 203, COUNTED);
	r = record(t4, 2, 1);
	sums(&r->outer, 1 * MS, 1, 1, 1);
	sums(&t4->total, 2 * MS, 2, 2, 2);
	/* One entry never finished, then one never sized. */
	e = entry(0, sizeof(struct region_record));
	e->size = sizeof(struct region_record);
	area->hdr.used += 64;
	area->hdr.lost = 3;
	run_counts(run);

	tap_is_int(read_area(&regions, 0), 0, "anomalies: read");
	tap_ok(regions.unfinished == 1 && regions.unread_bytes == 64 &&
	       regions.lost == 3, "anomalies: unfinished, unread, lost");
	tap_ok(regions.nr_regions == 2 &&
	       !strcmp(regions.region[1].name, "(region 2)"),
	       "anomalies: a region without a name");
	perfex_region_report_make(&report, &regions, &events, NR_EVENTS, run);
	report.command = command;
	tap_ok(report.stats[0].counts[TSC].value == 35 &&
	       report.stats[0].uncounted == 1 &&
	       report.stats[0].row[2].counted == PERFEX_REGION_NO_COUNTERS,
	       "anomalies: a thread without counters adds calls only");
	tap_ok(regions.region[0].tally.calls == 8 &&
	       regions.region[0].tally.open == 1 &&
	       regions.region[0].tally.lone_begins == 2 &&
	       regions.region[0].tally.lone_ends == 1 &&
	       regions.region[0].tally.unread == 2,
	       "anomalies: solve's tally");
	tap_ok(report.outside_row[0].counted == PERFEX_REGION_COUNTED &&
	       report.outside_row[0].counts[TSC].value == 10 &&
	       report.outside_row[1].counted == PERFEX_REGION_NOT_ENDED &&
	       report.outside_row[2].counted == PERFEX_REGION_NO_COUNTERS,
	       "anomalies: outside: 200 counted, 201 unknown, 202 no "
	       "counters");
	tap_is_u64(report.outside[TSC].value, 2400000000ull - 36,
		   "anomalies: outside: less the covered of every thread "
		   "with counters, ended or not");

	text = text_of(&report, 0);
	tap_is_str(line_starting(text, " region 'solve'"),
		   " region 'solve': 8 calls in 3 threads",
		   "human: the calls of all three threads");
	tap_is_str(line_starting(text, "           200:202      4"),
		   "           200:202      4  no counters",
		   "human: a thread without counters");
	tap_is_str(line_starting(text, "   warning: 'solve' left"),
		   "   warning: 'solve' left open in 200:200: not counted "
		   "since its last begin", "human: left open");
	tap_is_str(line_starting(text, "   warning: 2 lone"),
		   "   warning: 2 lone begins of 'solve' in 200:200: begun "
		   "while open, the earlier begin dropped",
		   "human: lone begins");
	tap_is_str(line_starting(text, "   warning: 1 lone"),
		   "   warning: 1 lone end of 'solve' in 200:201: ended while "
		   "not open, not counted", "human: lone end");
	tap_is_str(line_starting(text, "   warning: 2 ends"),
		   "   warning: 2 ends of 'solve' in 200:201 could not read "
		   "the counters: not counted", "human: unread ends");
	tap_is_str(line_starting(text, " region '(region 2)'"),
		   " region '(region 2)': 1 call in 1 thread",
		   "human: the unnamed region, by number");
	tap_is_str(line_starting(text, "           200:201  unknown"),
		   "           200:201  unknown: the thread had not ended when "
		   "its process did", "human: outside: a thread not ended");
	tap_is_str(line_starting(text, "           200:202  unknown"),
		   "           200:202  unknown: no counters",
		   "human: outside: a thread without counters");
	tap_ok(strstr(text, "\n warning: 3 entries did not fit in the region "
		      "area: the calls of their threads or regions are "
		      "missing\n"
		      " warning: 1 entry of the region area was never finished "
		      "(a thread killed while writing it?): skipped\n"
		      " warning: 64 bytes of the region area, after an entry "
		      "never written, could not be read\n"
		      " warning: 1 thread had no counters: its region calls "
		      "are counted, not its events\n\n") != NULL,
	       "human: the report's warnings, last");
	free(text);

	text = text_of(&report, 'x');
	tap_is_str(line_starting(text, "solve,200:202,4,"),
		   "solve,200:202,4,<not counted>,msec,task-clock,,,0,0,0,0",
		   "csv: no counters: <not counted>");
	tap_is_str(line_starting(text, ",200:201,"),
		   ",200:201,,<unknown>,msec,task-clock,,,,,,",
		   "csv: outside, not ended: <unknown>");
	tap_is_str(line_starting(text, "solve,200:201,"),
		   "solve,200:201,1,5.00,msec,task-clock,,,0,0,1,2",
		   "csv: lone ends and unread ends");
	free(text);

	text = text_of(&report, 'j');
	tap_is_str(line_starting(text, "{\"region\" : \"solve\", \"thread\" : "
				 "\"200:200\""),
		   "{\"region\" : \"solve\", \"thread\" : \"200:200\", "
		   "\"calls\" : 3, \"counter-value\" : \"30.000000\", "
		   "\"unit\" : \"msec\", \"event\" : \"task-clock\", "
		   "\"open\" : 1, \"lone-begins\" : 2, \"lone-ends\" : 0, "
		   "\"unread\" : 0}", "json: open and lone begins");
	free(text);

	for (i = 0; perfex_region_warning(&report, i, warning,
					  sizeof(warning)) == 0; i++)
		;
	tap_is_int(i, 4, "anomalies: four warnings for -x and --json");
	perfex_region_report_free(&report);
	perfex_regions_free(&regions);
}

/* The regions count more than the run: the outside is not made up. */
static void test_over(void)
{
	struct perfex_count run[NR_EVENTS];
	struct perfex_region_report report;
	struct perfex_regions regions;
	struct region_thread *t;
	struct region_record *r;

	area_reset();
	name(1, "solve");
	t = thread(300, 300, COUNTED);
	r = record(t, 1, 1);
	sums(&r->outer, 900 * MS, 1, 1, 1);
	sums(&t->total, 800 * MS, 1, 1, 1);
	run_counts(run);
	read_area(&regions, 0);
	perfex_region_report_make(&report, &regions, &events, NR_EVENTS, run);
	tap_ok(report.outside[TASK_CLOCK].not_counted &&
	       !report.outside[CYCLES].not_counted,
	       "over: the run's task-clock is less than the regions'");
	tap_ok(report.outside_row[0].counts[TASK_CLOCK].not_counted &&
	       report.outside_row[0].counts[TSC].value == 0,
	       "over: so is the thread's");
	perfex_region_warning(&report, 0, why, sizeof(why));
	tap_is_str(why, "1 thread counted more in regions than in all (one "
		   "pid and tid for two threads?): <not counted> outside "
		   "regions", "over: the thread's warning");
	perfex_region_warning(&report, 1, why, sizeof(why));
	tap_is_str(why, "the regions counted more task-clock than the whole "
		   "run (a process still running when the command ended?): "
		   "its count outside regions is unknown",
		   "over: the run's warning");
	tap_is_int(perfex_region_warning(&report, 2, why, sizeof(why)), -1,
		   "over: two warnings");
	perfex_region_report_free(&report);
	perfex_regions_free(&regions);
}

/* A thread that execs starts again: its entries are one thread. */
static void test_exec(void)
{
	struct perfex_regions regions;
	struct region_thread *before, *after;
	struct region_record *r;

	area_reset();
	name(1, "solve");
	before = thread(400, 400, REGION_THREAD_COUNTERS);
	r = record(before, 1, 2);
	sums(&r->outer, 10 * MS, 10, 10, 10);
	after = thread(400, 400, COUNTED);
	r = record(after, 1, 3);
	sums(&r->outer, 20 * MS, 20, 20, 20);
	sums(&after->total, 50 * MS, 50, 50, 50);
	tap_is_int(read_area(&regions, 0), 0, "exec: read");
	tap_ok(regions.nr_threads == 1 && regions.thread[0].ended &&
	       regions.thread[0].total.tsc == 50 &&
	       regions.thread[0].covered.tsc == 30,
	       "exec: one thread, its last total, all its time in regions");
	tap_ok(regions.nr_regions == 1 && regions.region[0].nr_records == 1 &&
	       regions.region[0].record[0].tally.calls == 5 &&
	       regions.region[0].record[0].sum.tsc == 30,
	       "exec: one record of solve, before and after");
	perfex_regions_free(&regions);
}

/* --no-children: the command's own thread alone. */
static void test_only_tid(void)
{
	struct perfex_count run[NR_EVENTS];
	struct perfex_region_report report;
	struct perfex_regions regions;
	unsigned int i;

	main_area();
	tap_is_int(read_area(&regions, 100), 0, "only 100: read");
	tap_ok(regions.nr_threads == 1 && regions.thread[0].tid == 100 &&
	       regions.left_out == 1 && regions.region[0].tally.calls == 2 &&
	       regions.region[0].nr_records == 1,
	       "only 100: thread 101 left out, and its calls");
	run_counts(run);
	for (i = 0; i < NR_EVENTS; i++)
		run[i].children = 0;
	perfex_region_report_make(&report, &regions, &events, NR_EVENTS, run);
	tap_is_u64(report.outside[TSC].value, 300000000,
		   "only 100: outside: its own count less its time in regions");
	perfex_region_warning(&report, 0, why, sizeof(why));
	tap_is_str(why, "--no-children: the region calls of 1 other thread "
		   "are left out", "only 100: said");
	perfex_region_report_free(&report);
	perfex_regions_free(&regions);

	main_area();
	read_area(&regions, 999);
	perfex_region_report_make(&report, &regions, &events, NR_EVENTS, run);
	perfex_region_warning(&report, 0, why, sizeof(why));
	tap_is_str(why, "the command's own thread made no region calls "
		   "(--no-children leaves out 2 other threads)",
		   "only another: none of the command's own");
	perfex_region_report_free(&report);
	perfex_regions_free(&regions);
}

static void test_no_calls(void)
{
	struct perfex_count run[NR_EVENTS];
	struct perfex_region_report report;
	struct perfex_regions regions;
	char *command[] = { "true", NULL }, *text;

	area_reset();
	run_counts(run);
	tap_is_int(read_area(&regions, 0), 0, "no calls: read");
	perfex_region_report_make(&report, &regions, &events, NR_EVENTS, run);
	report.command = command;
	text = text_of(&report, 0);
	tap_is_str(text, "\n Region counter stats for 'true':\n\n"
		   " warning: no region calls were made: was the program "
		   "built with -DPERFCTR_REGIONS and linked with "
		   "libperfctr?\n\n", "no calls: said, and nothing else");
	free(text);
	text = text_of(&report, 'x');
	tap_is_str(text, "", "no calls: csv: no lines");
	free(text);
	perfex_region_report_free(&report);
	perfex_regions_free(&regions);
}

/* Without events to report (--topdown alone): calls only. */
static void test_no_events(void)
{
	struct perfex_count run[NR_EVENTS];
	struct perfex_region_report report;
	struct perfex_regions regions;
	char *command[] = { "./solve", NULL }, *text;

	main_area();
	run_counts(run);
	read_area(&regions, 0);
	perfex_region_report_make(&report, &regions, &events, 0, run);
	report.command = command;
	text = text_of(&report, 0);
	tap_ok(strstr(text, " region 'solve': 4 calls in 2 threads\n\n"
		      "            thread  calls\n"
		      "           100:100      2\n"
		      "           100:101      2\n\n") &&
	       !strstr(text, "outside"), "no events: calls by thread");
	free(text);
	text = text_of(&report, 'x');
	tap_is_str(line_starting(text, "solve,100:101"),
		   "solve,100:101,2,,,,,,0,0,0,0", "no events: csv");
	free(text);
	perfex_region_report_free(&report);
	perfex_regions_free(&regions);
}

/* @what is malformed, and said so with @want, or with @want in it. */
static void malformed(const char *what, const char *want, int whole)
{
	struct perfex_regions regions;

	tap_is_int(read_area(&regions, 0), -1, "malformed: %s", what);
	if (whole)
		tap_is_str(why, want, "malformed: %s: said", what);
	else
		tap_ok(strstr(why, want) != NULL, "malformed: %s: said (%s)",
		       what, why);
}

static void test_malformed(void)
{
	struct perfex_regions regions;
	struct region_thread *t;
	struct region_record *r;
	struct region_entry *e, header;
	char want[160];

	main_area();
	area->hdr.magic = 0x12345678;
	malformed("bad magic", "the region area is malformed: magic "
		  "0x12345678, not 0x70726731", 1);

	main_area();
	area->hdr.version = 2;
	malformed("another version", "the region area is malformed: "
		  "version 2, perfex reads 1", 1);

	main_area();
	area->hdr.used = AREA_SIZE + 8;
	snprintf(want, sizeof(want), "the region area is malformed: %zu "
		 "bytes used of its %zu", AREA_SIZE + 8, AREA_SIZE);
	malformed("used past its size", want, 1);

	main_area();
	area->hdr.size = AREA_SIZE * 2;
	snprintf(want, sizeof(want), "the region area is malformed: it says "
		 "it has %zu bytes, it has %zu", AREA_SIZE * 2, AREA_SIZE);
	malformed("larger than it is", want, 1);

	tap_is_int(perfex_regions_read(&regions, area, 100, 0, why,
				       sizeof(why)), -1,
		   "malformed: less than a header");

	area_reset();
	t = thread(1, 1, COUNTED);
	area->hdr.used -= 8;
	snprintf(want, sizeof(want), "the region area is malformed: the "
		 "entry at offset %zu has %zu bytes, past the %zu used",
		 sizeof(struct region_area), sizeof(*t),
		 sizeof(struct region_area) + sizeof(*t) - 8);
	malformed("a truncated entry", want, 1);

	area_reset();
	t = thread(1, 1, COUNTED);
	r = record(t, 1, 1);
	r->thread += 8;
	snprintf(want, sizeof(want), "the region area is malformed: record "
		 "at offset %zu: no thread entry at offset %zu",
		 sizeof(struct region_area) + sizeof(*t),
		 sizeof(struct region_area) + 8);
	malformed("a record of no thread", want, 1);

	area_reset();
	t = thread(1, 1, COUNTED);
	record(t, 0, 1);
	malformed("a record of region 0", ": region 0", 0);

	area_reset();
	t = thread(1, 1, COUNTED);
	t->entry.type = 9;
	snprintf(want, sizeof(want), "the region area is malformed: the "
		 "entry at offset %zu has type 9", sizeof(struct region_area));
	malformed("an unknown type", want, 1);

	area_reset();
	t = thread(1, 1, COUNTED);
	t->entry.size = 4;
	snprintf(want, sizeof(want), "the region area is malformed: the "
		 "entry at offset %zu has 4 bytes", sizeof(struct region_area));
	malformed("an entry smaller than its header", want, 1);

	/* An unfinished entry of 12 bytes leaves the next misaligned. */
	area_reset();
	e = entry(0, 16);
	e->size = 12;
	area->hdr.used -= 4;
	header.type = REGION_THREAD;
	header.size = sizeof(*t);
	memcpy(area->bytes + area->hdr.used, &header, sizeof(header));
	area->hdr.used += sizeof(*t);
	malformed("an entry misaligned", "not aligned", 0);

	area_reset();
	t = thread(1, 1, COUNTED);
	t->nrctrs = PERFCTR_MAX_NRCTRS + 1;
	malformed("too many counters", ": 33 counters", 0);

	area_reset();
	t = thread(1, 1, COUNTED);
	t->entry.size = sizeof(*t) - 8;
	area->hdr.used -= 8;
	malformed("a thread entry too small", "bytes, not", 0);
}

int main(void)
{
	area = aligned_alloc(8, sizeof(*area));
	if (!area)
		return 1;
	set_up_events();
	test_read();
	test_report();
	test_human();
	test_csv();
	test_json();
	test_nested();
	test_anomalies();
	test_over();
	test_exec();
	test_only_tid();
	test_no_calls();
	test_no_events();
	test_malformed();
	free(area);
	return tap_done();
}
