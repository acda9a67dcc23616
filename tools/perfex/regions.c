// SPDX-License-Identifier: GPL-2.0
/*
 * perfex --regions: reading the region area, and the region report.
 *
 * The area (lib/src/region_area.h) is a header, a table of names, then
 * entries the library hands out in every process of the run: a thread
 * entry for each thread at its first region call, a record for each
 * region a thread uses.  perfex_regions_read() reads it as it is in
 * memory, trusting nothing: a bad magic or version, more bytes used than
 * the area has, an entry that runs past those used, one misaligned or of
 * an unknown type, or a record that names no thread entry before it is
 * an error, said, not a crash.  An entry never finished (type 0: its
 * thread was stopped while writing it) is skipped by its size, and
 * counted; one without a size yet ends the reading, and the bytes after
 * it are counted as unread.
 *
 * The entries of one pid and tid are one thread: a thread that execs
 * starts again in the area, and its counts since its creation are its
 * last entry's.  Threads are reported by pid, then tid, and regions by
 * number, which is the order of their first use in the run.  A record's
 * counts are its inner and outer sums; a thread's time in regions (in at
 * least one: the union of their intervals) is its covered sums and the
 * outer sums of its records.
 *
 * perfex_region_report_make() maps the sums to perfex's events, as the
 * final read's are (perfex_event_count()), and works out what was
 * counted outside every region: the run's counts, less every thread's
 * time in regions, and for a thread that ended, its total less its time
 * in regions.  A region's counts include those of the regions nested in
 * it: without nesting, the regions and the outside add up to the run.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "region_area.h"
#include "regions.h"

/* A thread entry as found, before the entries of a tid are merged. */
struct raw_thread {
	unsigned long long offset;
	const struct region_thread *entry;
	unsigned int thread;	/* its merged thread, or NO_THREAD */
};

struct raw_record {
	const struct region_record *entry;
	unsigned int region;
	unsigned int thread;	/* the merged thread */
};

#define NO_THREAD	(~0u)

/* What the reading has found so far. */
struct reader {
	const unsigned char *area;
	unsigned long long limit;	/* the end of what may be read */
	struct raw_thread *raw_thread;
	unsigned int nr_raw_threads, raw_threads_size;
	struct raw_record *raw_record;
	unsigned int nr_raw_records, raw_records_size;
	char *why;
	size_t why_size;
};

static int __attribute__((format(printf, 2, 3)))
malformed(struct reader *r, const char *fmt, ...)
{
	va_list ap;
	int len;

	len = snprintf(r->why, r->why_size, "the region area is malformed: ");
	va_start(ap, fmt);
	if (len >= 0 && (size_t)len < r->why_size)
		vsnprintf(r->why + len, r->why_size - len, fmt, ap);
	va_end(ap);
	errno = EPROTO;
	return -1;
}

/* Room for one more of @nr elements of @elem bytes in *@array. */
static int grow(void **array, unsigned int nr, unsigned int *size,
		size_t elem)
{
	unsigned int new_size;
	void *p;

	if (nr < *size)
		return 0;
	new_size = *size ? *size * 2 : 64;
	p = realloc(*array, (size_t)new_size * elem);
	if (!p)
		return -1;
	*array = p;
	*size = new_size;
	return 0;
}

/* The header: its magic, version and sizes, and where entries end. */
static int read_header(struct reader *r, const struct region_area *hdr,
		       size_t size)
{
	unsigned long long used;

	if (size < sizeof(*hdr))
		return malformed(r, "%zu bytes, less than its header", size);
	if (hdr->magic != REGION_AREA_MAGIC)
		return malformed(r, "magic 0x%08x, not 0x%08x", hdr->magic,
				 REGION_AREA_MAGIC);
	if (hdr->version != REGION_AREA_VERSION)
		return malformed(r, "version %u, perfex reads %u",
				 hdr->version, REGION_AREA_VERSION);
	if (hdr->size < sizeof(*hdr) || hdr->size > size)
		return malformed(r, "it says it has %llu bytes, it has %zu",
				 (unsigned long long)hdr->size, size);
	/*
	 * The library hands out no byte past the end: an entry that does
	 * not fit is counted lost instead.
	 */
	used = __atomic_load_n(&hdr->used, __ATOMIC_ACQUIRE);
	if (used < sizeof(*hdr) || used > hdr->size)
		return malformed(r, "%llu bytes used of its %llu", used,
				 (unsigned long long)hdr->size);
	r->limit = used;
	return 0;
}

/* The thread entry at @offset, by a binary search: they are in order. */
static int raw_thread_at(const struct reader *r, unsigned long long offset)
{
	unsigned int lo = 0, hi = r->nr_raw_threads, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (r->raw_thread[mid].offset == offset)
			return mid;
		if (r->raw_thread[mid].offset < offset)
			lo = mid + 1;
		else
			hi = mid;
	}
	return -1;
}

static int add_thread(struct reader *r, unsigned long long offset,
		      unsigned int size)
{
	const struct region_thread *t = (const void *)(r->area + offset);
	struct raw_thread *raw;

	if (size < sizeof(*t))
		return malformed(r, "thread entry at offset %llu: %u bytes, "
				 "not %zu", offset, size, sizeof(*t));
	if ((t->flags & REGION_THREAD_COUNTERS) &&
	    t->nrctrs > PERFCTR_MAX_NRCTRS)
		return malformed(r, "thread entry at offset %llu: %u counters",
				 offset, t->nrctrs);
	if (grow((void **)&r->raw_thread, r->nr_raw_threads,
		 &r->raw_threads_size, sizeof(*r->raw_thread)) < 0)
		return -1;
	raw = &r->raw_thread[r->nr_raw_threads++];
	raw->offset = offset;
	raw->entry = t;
	raw->thread = NO_THREAD;
	return 0;
}

static int add_record(struct reader *r, unsigned long long offset,
		      unsigned int size)
{
	const struct region_record *rec = (const void *)(r->area + offset);
	struct raw_record *raw;
	int thread;

	if (size < sizeof(*rec))
		return malformed(r, "record at offset %llu: %u bytes, not %zu",
				 offset, size, sizeof(*rec));
	if (rec->region < 1 || rec->region > PERFCTR_REGIONS_MAX)
		return malformed(r, "record at offset %llu: region %u",
				 offset, rec->region);
	thread = raw_thread_at(r, rec->thread);
	if (thread < 0)
		return malformed(r, "record at offset %llu: no thread entry "
				 "at offset %llu", offset,
				 (unsigned long long)rec->thread);
	if (grow((void **)&r->raw_record, r->nr_raw_records,
		 &r->raw_records_size, sizeof(*r->raw_record)) < 0)
		return -1;
	raw = &r->raw_record[r->nr_raw_records++];
	raw->entry = rec;
	raw->region = rec->region;
	raw->thread = thread;	/* the raw one, until they are merged */
	return 0;
}

/*
 * The entries, from the end of the header to what is used.  Each is
 * aligned as its 64-bit members need, as the library hands them out.
 */
static int read_entries(struct reader *r, struct perfex_regions *regions,
			const struct region_area *hdr)
{
	unsigned long long offset = sizeof(*hdr);
	const struct region_entry *e;
	unsigned int type, size;

	while (offset < r->limit) {
		if (offset % 8)
			return malformed(r, "an entry at offset %llu, not "
					 "aligned", offset);
		if (r->limit - offset < sizeof(*e))
			return malformed(r, "an entry at offset %llu runs past "
					 "the %llu bytes used", offset,
					 r->limit);
		e = (const void *)(r->area + offset);
		type = __atomic_load_n(&e->type, __ATOMIC_ACQUIRE);
		size = e->size;
		if (type == 0 && size == 0) {
			regions->unread_bytes = r->limit - offset;
			break;
		}
		if (size < sizeof(*e))
			return malformed(r, "the entry at offset %llu has %u "
					 "bytes", offset, size);
		if (size > r->limit - offset)
			return malformed(r, "the entry at offset %llu has %u "
					 "bytes, past the %llu used", offset,
					 size, r->limit);
		if (type == REGION_THREAD) {
			if (add_thread(r, offset, size) < 0)
				return -1;
		} else if (type == REGION_RECORD) {
			if (add_record(r, offset, size) < 0)
				return -1;
		} else if (type == 0) {
			regions->unfinished++;
		} else {
			return malformed(r, "the entry at offset %llu has type "
					 "%u", offset, type);
		}
		offset += size;
	}
	return 0;
}

static void add_sums(struct perfctr_sum_ctrs *to,
		     const struct perfctr_sum_ctrs *sum)
{
	unsigned int i;

	to->tsc += sum->tsc;
	for (i = 0; i < PERFCTR_MAX_NRCTRS; i++)
		to->pmc[i] += sum->pmc[i];
}

static int cmp_int(long long a, long long b)
{
	return a < b ? -1 : a > b;
}

/* By pid, tid, then offset: the entries of a thread in their order. */
static int cmp_raw_thread(const void *a, const void *b, void *arg)
{
	const struct reader *r = arg;
	const struct raw_thread *x = &r->raw_thread[*(const int *)a];
	const struct raw_thread *y = &r->raw_thread[*(const int *)b];

	if (x->entry->pid != y->entry->pid)
		return cmp_int(x->entry->pid, y->entry->pid);
	if (x->entry->tid != y->entry->tid)
		return cmp_int(x->entry->tid, y->entry->tid);
	return cmp_int(x->offset, y->offset);
}

/* One more entry of @thread, later in the area than those before. */
static void merge_thread(struct perfex_region_thread *thread,
			 const struct region_thread *t)
{
	int counters = !!(t->flags & REGION_THREAD_COUNTERS);

	thread->pid = t->pid;
	thread->tid = t->tid;
	thread->depth += t->depth;
	if (counters) {
		if (!thread->counters || t->nrctrs < thread->nrctrs)
			thread->nrctrs = t->nrctrs;
		thread->counters = 1;
		add_sums(&thread->covered, &t->covered);
	}
	/* Its counts since its creation are those of its last entry. */
	thread->ended = counters && (t->flags & REGION_THREAD_ENDED);
	if (thread->ended)
		thread->total = t->total;
}

/*
 * The threads, their entries merged, by pid and tid; with @only_tid,
 * that thread alone, the others counted as left out.
 */
static int merge_threads(struct reader *r, struct perfex_regions *regions,
			 int only_tid)
{
	const struct region_thread *t, *prev = NULL;
	unsigned int i, n = r->nr_raw_threads;
	int *order;

	order = malloc((n ? n : 1) * sizeof(*order));
	regions->thread = calloc(n ? n : 1, sizeof(*regions->thread));
	if (!order || !regions->thread) {
		free(order);
		return -1;
	}
	for (i = 0; i < n; i++)
		order[i] = i;
	qsort_r(order, n, sizeof(*order), cmp_raw_thread, r);
	for (i = 0; i < n; i++) {
		t = r->raw_thread[order[i]].entry;
		if (!prev || t->pid != prev->pid || t->tid != prev->tid) {
			if (only_tid && t->tid != only_tid)
				regions->left_out++;
			else
				regions->nr_threads++;
		}
		prev = t;
		if (only_tid && t->tid != only_tid)
			continue;
		merge_thread(&regions->thread[regions->nr_threads - 1], t);
		r->raw_thread[order[i]].thread = regions->nr_threads - 1;
	}
	free(order);
	return 0;
}

/* By region, then thread. */
static int cmp_raw_record(const void *a, const void *b)
{
	const struct raw_record *x = a, *y = b;

	if (x->region != y->region)
		return cmp_int(x->region, y->region);
	return cmp_int(x->thread, y->thread);
}

static void add_tally(struct perfex_region_tally *tally,
		      const struct region_record *e)
{
	tally->calls += e->calls;
	tally->open += e->open;
	tally->lone_begins += e->lone_begins;
	tally->lone_ends += e->lone_ends;
	tally->unread += e->unread;
}

static void merge_record(struct perfex_region_record *rec,
			 const struct raw_record *raw)
{
	const struct region_record *e = raw->entry;

	rec->thread = raw->thread;
	add_tally(&rec->tally, e);
	add_sums(&rec->sum, &e->inner);
	add_sums(&rec->sum, &e->outer);
}

/* Region @number's name, printable; "(region N)" if it has none. */
static void region_name(char *name, const struct region_area *hdr,
			unsigned int number)
{
	const struct region_name *n = &hdr->names[number - 1];
	char *p;

	if (__atomic_load_n(&n->state, __ATOMIC_ACQUIRE) != REGION_NAME_READY ||
	    !n->name[0]) {
		snprintf(name, PERFCTR_REGION_NAME_SIZE, "(region %u)", number);
		return;
	}
	memcpy(name, n->name, PERFCTR_REGION_NAME_SIZE);
	name[PERFCTR_REGION_NAME_SIZE - 1] = '\0';
	for (p = name; *p; p++) {
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			*p = '?';
	}
}

/* The records of the threads kept, merged by region and thread. */
static int merge_records(struct reader *r, struct perfex_regions *regions,
			 const struct region_area *hdr)
{
	struct perfex_region_record *rec = NULL;
	struct perfex_region *region = NULL;
	unsigned int i, n = 0, nr_records = 0;
	struct raw_record *raw;
	int new_region;

	for (i = 0; i < r->nr_raw_records; i++) {
		raw = &r->raw_record[i];
		raw->thread = r->raw_thread[raw->thread].thread;
		if (raw->thread != NO_THREAD)
			r->raw_record[n++] = *raw;
	}
	if (n)
		qsort(r->raw_record, n, sizeof(*r->raw_record),
		      cmp_raw_record);
	regions->records = calloc(n ? n : 1, sizeof(*regions->records));
	regions->region = calloc(n ? n : 1, sizeof(*regions->region));
	if (!regions->records || !regions->region)
		return -1;
	for (i = 0; i < n; i++) {
		raw = &r->raw_record[i];
		new_region = i == 0 || raw->region != raw[-1].region;
		if (new_region) {
			region = &regions->region[regions->nr_regions++];
			region->number = raw->region;
			region_name(region->name, hdr, raw->region);
			region->record = &regions->records[nr_records];
		}
		if (new_region || raw->thread != raw[-1].thread) {
			rec = &regions->records[nr_records++];
			region->nr_records++;
		}
		merge_record(rec, raw);
		add_tally(&region->tally, raw->entry);
		/* The thread's time in regions that its covered is not. */
		add_sums(&regions->thread[raw->thread].covered,
			 &raw->entry->outer);
	}
	return 0;
}

/**
 * perfex_regions_read - what a region area holds
 * @regions: set to its threads and regions; perfex_regions_free() it
 * @area: the area, in memory (it may still be written to: only what its
 *        header says is used, and entries whose type says they are
 *        finished, are read)
 * @size: the bytes at @area
 * @only_tid: 0, or the one thread to report (--no-children: the
 *            command's own); the others are counted in left_out
 * @why: if it fails, why, without a prefix
 * @why_size: its size
 *
 * Return: 0, or -1 with errno EPROTO (the area is malformed: @why says
 * how) or ENOMEM.
 */
int perfex_regions_read(struct perfex_regions *regions, const void *area,
			size_t size, int only_tid, char *why, size_t why_size)
{
	const struct region_area *hdr = area;
	struct reader r = {
		.area = area, .why = why, .why_size = why_size,
	};
	int ret = -1, err;

	memset(regions, 0, sizeof(*regions));
	if (read_header(&r, hdr, size) < 0)
		return -1;
	regions->lost = __atomic_load_n(&hdr->lost, __ATOMIC_RELAXED);
	if (read_entries(&r, regions, hdr) == 0 &&
	    merge_threads(&r, regions, only_tid) == 0 &&
	    merge_records(&r, regions, hdr) == 0)
		ret = 0;
	err = errno;
	free(r.raw_thread);
	free(r.raw_record);
	if (ret < 0) {
		/* Malformed, @why says how; else out of memory. */
		if (err != EPROTO)
			snprintf(why, why_size, "reading the region area: %s",
				 strerror(err));
		perfex_regions_free(regions);
		errno = err;
	}
	return ret;
}

void perfex_regions_free(struct perfex_regions *regions)
{
	free(regions->thread);
	free(regions->region);
	free(regions->records);
	memset(regions, 0, sizeof(*regions));
}

/* Does @thread count @event?  Its counters were perfex's control's. */
static int counts_event(const struct perfex_region_thread *thread,
			const struct perfex_event *event)
{
	if (!thread->counters)
		return 0;
	return event->index == PERFCTR_EVENT_TSC_INDEX ||
	       (event->index >= 0 && (unsigned int)event->index <
				     thread->nrctrs);
}

/* @thread's counts of the events in @sum, <not counted> where none. */
static void thread_counts(const struct perfex_event_list *events,
			  unsigned int nr,
			  const struct perfex_region_thread *thread,
			  const struct perfctr_sum_ctrs *sum,
			  struct perfex_count *counts)
{
	unsigned int i;

	for (i = 0; i < nr; i++) {
		perfex_event_count(&events->event[i], sum, &counts[i]);
		if (!counts_event(thread, &events->event[i])) {
			counts[i].value = 0;
			counts[i].not_counted = 1;
		}
	}
}

/* @counts less @less, count by count; <not counted> where negative. */
static void subtract(struct perfex_count *counts,
		     const struct perfex_count *less, unsigned int nr)
{
	unsigned int i;

	for (i = 0; i < nr; i++) {
		if (less[i].not_counted)
			continue;
		if (counts[i].not_counted ||
		    less[i].value > counts[i].value) {
			counts[i].value = 0;
			counts[i].not_counted = 1;
		} else {
			counts[i].value -= less[i].value;
		}
	}
}

/* Add @counts to @total, where counted; @total counted if any is. */
static void add_counts(struct perfex_count *total,
		       const struct perfex_count *counts, unsigned int nr)
{
	unsigned int i;

	for (i = 0; i < nr; i++) {
		if (counts[i].not_counted)
			continue;
		if (total[i].not_counted) {
			total[i].not_counted = 0;
			total[i].value = 0;
		}
		total[i].value += counts[i].value;
	}
}

/* No count yet: names and kinds, all <not counted>. */
static void no_counts(const struct perfex_event_list *events,
		      unsigned int nr, struct perfex_count *counts)
{
	static const struct perfctr_sum_ctrs zero;
	unsigned int i;

	for (i = 0; i < nr; i++) {
		perfex_event_count(&events->event[i], &zero, &counts[i]);
		counts[i].not_counted = 1;
	}
}

static void make_region(struct perfex_region_report *report,
			struct perfex_region_stats *stats,
			const struct perfex_region *region,
			const struct perfex_event_list *events,
			struct perfex_count **next)
{
	const struct perfex_regions *regions = report->regions;
	unsigned int nr = report->nr_counts, j;
	struct perfex_region_row *row;

	stats->region = region;
	stats->counts = *next;
	*next += nr;
	no_counts(events, nr, stats->counts);
	for (j = 0; j < region->nr_records; j++) {
		row = &stats->row[j];
		row->record = &region->record[j];
		row->thread = &regions->thread[row->record->thread];
		row->counts = *next;
		*next += nr;
		thread_counts(events, nr, row->thread, &row->record->sum,
			      row->counts);
		if (!row->thread->counters) {
			row->counted = PERFEX_REGION_NO_COUNTERS;
			stats->uncounted++;
			continue;
		}
		row->counted = PERFEX_REGION_COUNTED;
		add_counts(stats->counts, row->counts, nr);
	}
}

/*
 * Outside every region: the run's counts less every thread's covered,
 * and each thread's total less its covered, if it ended.
 */
static void make_outside(struct perfex_region_report *report,
			 const struct perfex_event_list *events,
			 const struct perfex_count *run,
			 struct perfex_count **next)
{
	const struct perfex_regions *regions = report->regions;
	unsigned int nr = report->nr_counts, i, t;
	struct perfex_count *covered = *next;
	struct perfex_region_row *row;

	report->outside = covered + nr;
	*next += 2 * nr;
	no_counts(events, nr, covered);
	for (i = 0; i < nr; i++) {
		report->outside[i] = run[i];
		report->outside[i].value = perfex_count_total(&run[i]);
		report->outside[i].children = 0;
		report->outside[i].noise = 0;
	}
	for (t = 0; t < regions->nr_threads; t++) {
		const struct perfex_region_thread *thread = &regions->thread[t];

		row = &report->outside_row[t];
		row->thread = thread;
		row->counts = *next;
		*next += nr;
		thread_counts(events, nr, thread, &thread->covered,
			      row->counts);
		add_counts(covered, row->counts, nr);
		if (!thread->counters) {
			row->counted = PERFEX_REGION_NO_COUNTERS;
			report->uncounted++;
		} else if (!thread->ended) {
			row->counted = PERFEX_REGION_NOT_ENDED;
		} else {
			struct perfex_count less[PERFEX_MAX_EVENTS];

			memcpy(less, row->counts, nr * sizeof(*less));
			thread_counts(events, nr, thread, &thread->total,
				      row->counts);
			subtract(row->counts, less, nr);
			row->counted = PERFEX_REGION_COUNTED;
		}
	}
	subtract(report->outside, covered, nr);
}

/**
 * perfex_region_report_make - the region report of a run
 * @report: set to the report; perfex_region_report_free() it
 * @regions: what the region area held; kept, as the report points to it
 * @events: the events counted, whose indexes are the counters' in the
 *          sums, as in the final read; kept, for their names
 * @nr_counts: how many of them are reported (not --topdown's)
 * @run: the run's counts of them, as the report has them: their totals
 *       are the whole run's, the children's included unless
 *       --no-children left them out
 *
 * Return: 0, or -1 with errno ENOMEM.
 */
int perfex_region_report_make(struct perfex_region_report *report,
			      const struct perfex_regions *regions,
			      const struct perfex_event_list *events,
			      unsigned int nr_counts,
			      const struct perfex_count *run)
{
	unsigned int i, nr_rows = 0;
	struct perfex_region_row *rows;
	struct perfex_count *next;

	memset(report, 0, sizeof(*report));
	report->regions = regions;
	report->nr_counts = nr_counts;
	for (i = 0; i < regions->nr_regions; i++)
		nr_rows += regions->region[i].nr_records;
	nr_rows += regions->nr_threads;
	report->stats = calloc(regions->nr_regions + 1,
			       sizeof(*report->stats));
	rows = calloc(nr_rows + 1, sizeof(*rows));
	/* A region's total, its rows', the covered, outside and rows'. */
	next = calloc((size_t)(regions->nr_regions + nr_rows + 2) *
		      (nr_counts ? nr_counts : 1), sizeof(*next));
	if (!report->stats || !rows || !next) {
		free(report->stats);
		free(rows);
		free(next);
		memset(report, 0, sizeof(*report));
		errno = ENOMEM;
		return -1;
	}
	report->count_block = next;
	report->outside_row = rows;
	rows += regions->nr_threads;
	make_outside(report, events, run, &next);
	for (i = 0; i < regions->nr_regions; i++) {
		report->stats[i].row = rows;
		rows += regions->region[i].nr_records;
		make_region(report, &report->stats[i], &regions->region[i],
			    events, &next);
	}
	return 0;
}

void perfex_region_report_free(struct perfex_region_report *report)
{
	free(report->count_block);
	free(report->outside_row);
	free(report->stats);
	memset(report, 0, sizeof(*report));
}

/**
 * perfex_region_row_value - what the CSV and JSON forms give as the
 *                           counts of a row that has none
 * @row: the row
 *
 * Return: "<not counted>" for a thread without counters, "<unknown>"
 * outside for a thread that had not ended, NULL if it has its counts.
 */
const char *perfex_region_row_value(const struct perfex_region_row *row)
{
	switch (row->counted) {
	case PERFEX_REGION_NO_COUNTERS:
		return "<not counted>";
	case PERFEX_REGION_NOT_ENDED:
		return "<unknown>";
	case PERFEX_REGION_COUNTED:
		break;
	}
	return NULL;
}

/* "PID:TID", as the report names a thread. */
void perfex_region_thread_name(char *buf, size_t size,
			       const struct perfex_region_thread *thread)
{
	snprintf(buf, size, "%d:%d", thread->pid, thread->tid);
}

/* Threads whose counts outside regions came out negative. */
static unsigned int threads_over(const struct perfex_region_report *report)
{
	const struct perfex_region_row *row;
	unsigned int t, i, n = 0;

	for (t = 0; t < report->regions->nr_threads; t++) {
		row = &report->outside_row[t];
		if (row->counted != PERFEX_REGION_COUNTED)
			continue;
		for (i = 0; i < report->nr_counts; i++) {
			if (row->counts[i].not_counted)
				break;
		}
		n += i < report->nr_counts;
	}
	return n;
}

static const char *plural(unsigned long long n, const char *one,
			  const char *more)
{
	return n == 1 ? one : more;
}

/* The warnings that are not about a region, in order; 0 if @k is one. */
enum {
	WARN_NO_CALLS,
	WARN_LEFT_OUT,
	WARN_LOST,
	WARN_UNFINISHED,
	WARN_UNREAD,
	WARN_UNCOUNTED,
	WARN_THREADS_OVER,
	WARN_EVENTS,		/* then one per event: the run's less */
};

/* 0 with @buf set if warning @k applies, -1 if not, 1 past the last. */
static int warning_text(const struct perfex_region_report *report,
			unsigned int k, char *buf, size_t size)
{
	const struct perfex_regions *r = report->regions;
	unsigned int n;

	switch (k) {
	case WARN_NO_CALLS:
		if (r->nr_threads)
			return -1;
		if (r->left_out)
			snprintf(buf, size, "the command's own thread made no "
				 "region calls (--no-children leaves out %u "
				 "other %s)", r->left_out,
				 plural(r->left_out, "thread", "threads"));
		else
			snprintf(buf, size, "no region calls were made: was "
				 "the program built with -DPERFCTR_REGIONS and "
				 "linked with libperfctr?");
		return 0;
	case WARN_LEFT_OUT:
		if (!r->left_out || !r->nr_threads)
			return -1;
		snprintf(buf, size, "--no-children: the region calls of %u "
			 "other %s are left out", r->left_out,
			 plural(r->left_out, "thread", "threads"));
		return 0;
	case WARN_LOST:
		if (!r->lost)
			return -1;
		snprintf(buf, size, "%llu %s did not fit in the region area: "
			 "the calls of %s are missing", r->lost,
			 plural(r->lost, "entry", "entries"),
			 plural(r->lost, "its thread or region",
				"their threads or regions"));
		return 0;
	case WARN_UNFINISHED:
		if (!r->unfinished)
			return -1;
		snprintf(buf, size, "%u %s never finished (%s killed while "
			 "writing %s?): skipped", r->unfinished,
			 plural(r->unfinished, "entry of the region area was",
				"entries of the region area were"),
			 plural(r->unfinished, "a thread", "threads"),
			 plural(r->unfinished, "it", "them"));
		return 0;
	case WARN_UNREAD:
		if (!r->unread_bytes)
			return -1;
		snprintf(buf, size, "%llu bytes of the region area, after an "
			 "entry never written, could not be read",
			 r->unread_bytes);
		return 0;
	case WARN_UNCOUNTED:
		n = report->uncounted;
		if (!n)
			return -1;
		snprintf(buf, size, "%u %s no counters: %s region calls are "
			 "counted, not %s events", n,
			 plural(n, "thread had", "threads had"),
			 plural(n, "its", "their"), plural(n, "its", "their"));
		return 0;
	case WARN_THREADS_OVER:
		n = threads_over(report);
		if (!n)
			return -1;
		snprintf(buf, size, "%u %s counted more in regions than in "
			 "all (one pid and tid for two threads?): <not "
			 "counted> outside regions", n,
			 plural(n, "thread", "threads"));
		return 0;
	}
	k -= WARN_EVENTS;
	if (k >= report->nr_counts)
		return 1;
	if (!report->outside[k].not_counted)
		return -1;
	snprintf(buf, size, "the regions counted more %s than the whole run "
		 "(a process still running when the command ended?): its "
		 "count outside regions is unknown", report->outside[k].name);
	return 0;
}

/**
 * perfex_region_warning - what the report says is amiss, besides its
 *                         regions' own (left open, lone begins and ends)
 * @report: the report
 * @i: which warning, from 0
 * @buf: its text, a sentence without a prefix
 * @size: its size
 *
 * Return: 0, or -1 if there are not that many.
 */
int perfex_region_warning(const struct perfex_region_report *report,
			  unsigned int i, char *buf, size_t size)
{
	unsigned int k;
	int ret;

	for (k = 0;; k++) {
		ret = warning_text(report, k, buf, size);
		if (ret > 0)
			return -1;
		if (ret == 0 && i-- == 0)
			return 0;
	}
}
