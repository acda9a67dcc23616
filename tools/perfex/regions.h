/* SPDX-License-Identifier: GPL-2.0 */
/*
 * perfex --regions: what the command's code regions counted, read from
 * the region area (lib/src/region_area.h) once the command has ended,
 * then mapped to perfex's events for the region report.
 */
#ifndef PERFEX_REGIONS_H
#define PERFEX_REGIONS_H

#include <stddef.h>

#include <linux/perfctr.h>
#include <perfctr/regions.h>

#include "events.h"
#include "format.h"

/*
 * A thread that made region calls.  A thread that execs keeps its tid
 * and starts again in the area with a new entry: the entries of one pid
 * and tid are one thread.
 */
struct perfex_region_thread {
	int pid;
	int tid;
	int counters;		/* it had counters: nrctrs, and tsc */
	int ended;		/* its last entry ended: total is known */
	unsigned int nrctrs;	/* the fewest of its entries' */
	unsigned int depth;	/* regions left open at its end */
	/*
	 * While at least one region was open in it (its entries' covered
	 * and their records' outer sums).
	 */
	struct perfctr_sum_ctrs covered;
	/* All it counted, from its creation (ended only). */
	struct perfctr_sum_ctrs total;
};

/* The calls of a region, in a thread or in all. */
struct perfex_region_tally {
	unsigned long long calls;	/* begin-end pairs */
	unsigned long long open;	/* left open: not in the sums */
	unsigned long long lone_begins;	/* begins while open */
	unsigned long long lone_ends;	/* ends while not open */
	unsigned long long unread;	/* ends whose counters were unread */
};

/* A region in one thread. */
struct perfex_region_record {
	unsigned int thread;	/* its index in perfex_regions.thread */
	struct perfex_region_tally tally;
	struct perfctr_sum_ctrs sum;	/* nested regions included */
};

/* A region used, and its threads. */
struct perfex_region {
	unsigned int number;	/* the library's, from 1 */
	char name[PERFCTR_REGION_NAME_SIZE];
	struct perfex_region_tally tally;	/* of all its threads */
	struct perfex_region_record *record;	/* by thread, as thread[] */
	unsigned int nr_records;
};

/* What a region area says. */
struct perfex_regions {
	struct perfex_region_thread *thread;	/* by pid, then tid */
	unsigned int nr_threads;
	struct perfex_region *region;		/* by number: those used */
	unsigned int nr_regions;
	struct perfex_region_record *records;	/* all of region[]'s */
	unsigned long long lost;	/* entries that did not fit */
	unsigned int unfinished;	/* entries never finished: skipped */
	unsigned long long unread_bytes;	/* after one never sized */
	unsigned int left_out;		/* threads of another tid */
};

int perfex_regions_read(struct perfex_regions *regions, const void *area,
			size_t size, int only_tid, char *why, size_t why_size);
void perfex_regions_free(struct perfex_regions *regions);

/* How a thread's counts stand, in a region or outside them. */
enum perfex_region_counted {
	PERFEX_REGION_COUNTED,
	PERFEX_REGION_NO_COUNTERS,	/* the thread had none */
	PERFEX_REGION_NOT_ENDED,	/* outside: its total is unknown */
};

/* A line of the report: a thread's part in a region, or outside. */
struct perfex_region_row {
	const struct perfex_region_thread *thread;
	const struct perfex_region_record *record;	/* NULL: outside */
	enum perfex_region_counted counted;
	struct perfex_count *counts;	/* nr_counts, if counted */
};

/* A region's lines: its total, then a row per thread. */
struct perfex_region_stats {
	const struct perfex_region *region;
	unsigned int uncounted;	/* its threads without counters */
	/* Over its threads with counters; not_counted if none counts it. */
	struct perfex_count *counts;
	struct perfex_region_row *row;	/* region->nr_records */
};

/* The region report: the regions, then what was counted outside them. */
struct perfex_region_report {
	char *const *command;	/* NULL-terminated */
	const struct perfex_regions *regions;
	unsigned int nr_counts;		/* the events reported */
	struct perfex_region_stats *stats;	/* regions->nr_regions */
	/*
	 * The run's counts, less what its threads counted in regions;
	 * not_counted where the regions counted more than the run.
	 */
	struct perfex_count *outside;
	struct perfex_region_row *outside_row;	/* regions->nr_threads */
	unsigned int uncounted;		/* threads without counters */
	struct perfex_count *count_block;	/* all the counts above */
};

int perfex_region_report_make(struct perfex_region_report *report,
			      const struct perfex_regions *regions,
			      const struct perfex_event_list *events,
			      unsigned int nr_counts,
			      const struct perfex_count *run);
void perfex_region_report_free(struct perfex_region_report *report);
int perfex_region_warning(const struct perfex_region_report *report,
			  unsigned int i, char *buf, size_t size);
void perfex_region_thread_name(char *buf, size_t size,
			       const struct perfex_region_thread *thread);
const char *perfex_region_row_value(const struct perfex_region_row *row);

/* The three forms of the report (format.c, csv.c, json.c). */
void perfex_print_regions(FILE *out,
			  const struct perfex_region_report *report);
void perfex_print_regions_csv(FILE *out,
			      const struct perfex_region_report *report,
			      const char *sep);
void perfex_print_regions_json(FILE *out,
			       const struct perfex_region_report *report);

#endif /* PERFEX_REGIONS_H */
