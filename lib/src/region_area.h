/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * The region area: where the code regions of <perfctr/regions.h> keep
 * their counts, and what perfex --regions reads after the run.
 *
 * perfex makes the area (a memfd), passes its descriptor to the command
 * in the environment (REGION_AREA_ENV=fd) and reads it when the command
 * and all it started have ended.  Every process of the run maps the same
 * area, MAP_SHARED, so a region's name has one number in all of them and
 * a process killed before its exit leaves its counts.  Without perfex a
 * process makes its own, private area.
 *
 * The area is a header, the table of names, then entries, handed out by
 * an atomic add to 'used' and never freed: a region thread entry for
 * each thread at its first region call, and a region record for each
 * region a thread uses, at its first use.  An entry's 'type' is stored
 * last, with release ordering: a reader skips an entry whose type is 0.
 * A thread writes only its own entries, with plain stores; only 'used',
 * 'lost' and a name's 'state' are shared.
 *
 * Not part of the library's API: perfex and the library are built from
 * one tree, and the version changes with any change here.
 */
#ifndef LIBPERFCTR_REGION_AREA_H
#define LIBPERFCTR_REGION_AREA_H

#include <linux/perfctr.h>
#include <perfctr/regions.h>

#define REGION_AREA_ENV		"PERFCTR_REGIONS_FD"
#define REGION_AREA_MAGIC	0x70726731u	/* "prg1" */
#define REGION_AREA_VERSION	1

/* A name's state: empty, being written by whoever claimed it, ready. */
#define REGION_NAME_EMPTY	0
#define REGION_NAME_WRITING	1
#define REGION_NAME_READY	2

struct region_name {
	__u32 state;
	char name[PERFCTR_REGION_NAME_SIZE];
};

struct region_area {
	__u32 magic;
	__u32 version;
	__u64 size;		/* of the whole area, in bytes */
	__u64 used;		/* bytes handed out, the header's included */
	__u64 lost;		/* entries that did not fit */
	/* Region number n (struct perfctr_region.id) is names[n - 1]. */
	struct region_name names[PERFCTR_REGIONS_MAX];
};

#define REGION_THREAD		1
#define REGION_RECORD		2

struct region_entry {
	__u32 type;		/* REGION_THREAD or REGION_RECORD; 0: unused */
	__u32 size;		/* bytes, this header included */
};

/* REGION_THREAD flags */
#define REGION_THREAD_COUNTERS	0x1	/* it had counters: nrctrs is theirs */
#define REGION_THREAD_ENDED	0x2	/* 'total' is its counts at its end */

/* A thread that made region calls. */
struct region_thread {
	struct region_entry entry;
	__s32 pid;
	__s32 tid;
	__u32 flags;
	__u32 nrctrs;		/* counters read: the state's nrsums */
	__u32 depth;		/* regions open now, or at its end */
	__u32 reserved;
	/*
	 * Its time in regions (in at least one) is covered and the outer
	 * sums of its records: covered holds what no outer sum does, the
	 * time before the last region began when regions overlapped.
	 */
	struct perfctr_sum_ctrs cover_start;
	struct perfctr_sum_ctrs covered;
	/* All it counted, at its end (REGION_THREAD_ENDED). */
	struct perfctr_sum_ctrs total;
};

/* A region of one thread. */
struct region_record {
	struct region_entry entry;
	__u64 thread;		/* offset of its struct region_thread */
	__u32 region;		/* its number */
	__u32 open;		/* begun, not ended */
	__u64 calls;
	__u64 lone_begins;
	__u64 lone_ends;
	__u64 unread;		/* ends whose counters could not be read */
	struct perfctr_sum_ctrs start;	/* at its begin, while open */
	/*
	 * Its counts are inner + outer: outer holds the calls that ended
	 * the thread's time in regions (no other region open), inner the
	 * others.
	 */
	struct perfctr_sum_ctrs inner;
	struct perfctr_sum_ctrs outer;
};

/*
 * The area's size: room for about 75,000 threads' and records' entries,
 * 64 MiB of which only the pages written become memory.
 */
#define REGION_AREA_SIZE	(64ul << 20)

#endif /* LIBPERFCTR_REGION_AREA_H */
