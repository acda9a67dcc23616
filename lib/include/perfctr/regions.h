/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * Code regions: the counts of one stretch of a program's code, in every
 * thread that runs it, read without a system call.
 *
 *	PERFCTR_REGION_BEGIN("solve");
 *	solve(grid);
 *	PERFCTR_REGION_END("solve");
 *
 * Built with -DPERFCTR_REGIONS and linked with -lperfctr, each pair adds
 * to region "solve" of the calling thread what its counters counted in
 * between: the thread's own counters, read from its state page.  Built
 * without, the macros are nothing and the program needs no perfctr.
 * This header includes no other, so that a program may carry a copy.
 *
 * The counters are the thread's: those perfex --regions sets up for the
 * program, inherited by every thread and child, or those the program
 * set up itself (vperfctr_control()) before the thread's first region.
 * A thread without counters counts calls only.  Under perfex the counts
 * go to perfex's report; otherwise perfctr_region_read() gives them.
 *
 * A region is named once, by a struct perfctr_region; the macros keep
 * one per call site.  After a thread's first use of a region, a begin or
 * an end makes no system call, allocates nothing and takes no lock.
 * Regions may nest and overlap; each counts from its begin to its end.
 * A begin of a region the thread has open, or an end of one it has not,
 * is counted as such (lone_begins, lone_ends), not as a call; a region
 * still open when its thread ends is reported open.  See
 * perfctr_region_begin(3).
 */
#ifndef PERFCTR_REGIONS_H
#define PERFCTR_REGIONS_H

#ifdef __cplusplus
extern "C" {
#endif

/* A region's name holds at most this many bytes, its NUL included. */
#define PERFCTR_REGION_NAME_SIZE	64

/* A region: its name, and the library's number for it, 0 until used. */
struct perfctr_region {
	const char *name;
	unsigned int id;
};

#define PERFCTR_REGION_INIT(name)	{ (name), 0 }

/*
 * Name @region now rather than at its first begin: 0, or -1 with errno
 * EINVAL (an empty name, or one with a control character),
 * ENAMETOOLONG or ENOSPC (PERFCTR_REGIONS_MAX names in use).
 */
int perfctr_region_register(struct perfctr_region *region);

/*
 * Begin or end @region in the calling thread: 0, or -1 with errno
 * EINVAL (a begin of an open region, an end of one not open: counted
 * in lone_begins or lone_ends), ENOMEM or ENOSPC (no room: the call is
 * lost, and counted as lost under perfex), or what the first use's
 * registration or vperfctr_open() failed with.
 */
int perfctr_region_begin(struct perfctr_region *region);
int perfctr_region_end(struct perfctr_region *region);

/* The most distinct region names a process, or a perfex run, may use. */
#define PERFCTR_REGIONS_MAX		1024

/* perfctr_region_read()'s @scope */
#define PERFCTR_REGION_THREAD		0	/* the calling thread's */
#define PERFCTR_REGION_PROCESS		1	/* all the process's threads */

struct perfctr_region_counts {
	unsigned long long calls;	/* begin-end pairs */
	unsigned long long open;	/* begun, not yet ended */
	unsigned long long lone_begins;	/* begins of a region open */
	unsigned long long lone_ends;	/* ends of a region not open */
	unsigned long long unread;	/* ends that could not read counters */
	unsigned int threads;		/* that began or ended it */
	unsigned int nrctrs;		/* pmc[0] to pmc[nrctrs - 1] */
	unsigned long long tsc;		/* the TSC, if counted */
	unsigned long long pmc[32];	/* counter i, in the control's order */
};

/*
 * What @region counted in @scope: 0, or -1 with errno EINVAL (@scope)
 * or ENOENT (never used there).  A thread's own counts are exact; those
 * of other threads may miss what a pair they are making adds.
 */
int perfctr_region_read(struct perfctr_region *region, int scope,
			struct perfctr_region_counts *counts);

#ifdef PERFCTR_REGIONS
/*
 * @name must be a string literal: each call site keeps its own struct
 * perfctr_region, and sites of one name count as one region.
 */
#define PERFCTR_REGION_BEGIN(name)					\
	do {								\
		static struct perfctr_region __perfctr_region =		\
			PERFCTR_REGION_INIT("" name "");		\
		(void)perfctr_region_begin(&__perfctr_region);		\
	} while (0)
#define PERFCTR_REGION_END(name)					\
	do {								\
		static struct perfctr_region __perfctr_region =		\
			PERFCTR_REGION_INIT("" name "");		\
		(void)perfctr_region_end(&__perfctr_region);		\
	} while (0)
#else
#define PERFCTR_REGION_BEGIN(name)	do { } while (0)
#define PERFCTR_REGION_END(name)	do { } while (0)
#endif

#ifdef __cplusplus
}
#endif

#endif /* PERFCTR_REGIONS_H */
