/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the fuzzer (vperfctr_fuzz) and the race stress (vperfctr_stress)
 * share: the seeded random numbers that make a run replayable, clocks,
 * a consistent snapshot of another thread's state page, the driver's
 * description in sysfs, and the tally of checks, kept in memory that
 * every process of a run (forked or executed anew) writes into.
 */
#ifndef VPERFCTR_COMMON_H
#define VPERFCTR_COMMON_H

#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>

#include <linux/perfctr.h>
#include <linux/types.h>

#include "kselftest.h"

/* --- Random numbers ------------------------------------------------------ */

/*
 * xorshift64*, seeded through splitmix64 so that small seeds (1, 2, ...)
 * give unrelated streams.  Every random choice of a run comes from one of
 * these, and each is seeded from the run's seed alone: the same seed
 * makes the same choices.
 */
struct prng {
	__u64 s;
};

static inline __u64 splitmix64(__u64 x)
{
	x += 0x9e3779b97f4a7c15ull;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

static inline void prng_seed(struct prng *p, __u64 seed)
{
	p->s = splitmix64(seed);
	if (!p->s)
		p->s = 1;	/* xorshift's one fixed point */
}

static inline __u64 prng_next(struct prng *p)
{
	p->s ^= p->s >> 12;
	p->s ^= p->s << 25;
	p->s ^= p->s >> 27;
	return p->s * 0x2545f4914f6cdd1dull;
}

/* Uniform in [0, n), n > 0: the bias of the modulo is negligible here. */
static inline __u64 prng_below(struct prng *p, __u64 n)
{
	return prng_next(p) % n;
}

/* True with probability num/den. */
static inline bool prng_chance(struct prng *p, unsigned int num,
			       unsigned int den)
{
	return prng_below(p, den) < num;
}

/* A seed for a sub-task, so that sub-tasks do not share a stream. */
static inline __u64 prng_fork(struct prng *p)
{
	return prng_next(p);
}

/* --- Clocks -------------------------------------------------------------- */

static inline __u64 now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (__u64)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

/*
 * The TSC (arm64: the generic timer's virtual count), read strictly after
 * the loads before it and before the loads after it.  A reader of another
 * thread's page needs both: its TSC must not be older than the resume
 * whose start it subtracts, nor newer than the seq it checks last.
 */
#if defined(__x86_64__)
static inline __u64 read_tsc_ordered(void)
{
	__u32 lo, hi;

	asm volatile("lfence; rdtsc; lfence" : "=a" (lo), "=d" (hi) :: "memory");
	return ((__u64)hi << 32) | lo;
}
#elif defined(__aarch64__)
static inline __u64 read_tsc_ordered(void)
{
	__u64 t;

	asm volatile("isb; mrs %0, cntvct_el0; isb" : "=r" (t) :: "memory");
	return t;
}
#else
#error "perfctr runs on x86-64 and arm64 only"
#endif

/* (ticks * mult) >> shift without overflowing 64 bits, as the kernel does. */
static inline __u64 ticks_to_ns(__u64 ticks, __u32 mult, __u32 shift)
{
	__u64 low = shift ? ticks & ((1ull << shift) - 1) : 0;

	return (ticks >> shift) * mult + ((low * mult) >> shift);
}

/* --- The state page ------------------------------------------------------ */

#define SW_MAP(event)	(PERFCTR_MAP_SOFTWARE | PERFCTR_SW_##event)
#define TASK_CLOCK_MAP	SW_MAP(TASK_CLOCK)

/* A consistent view of a state page, with the live counts added. */
struct page_snap {
	__u32 flags;
	__u32 cstatus;
	__u64 tsc;
	__u64 pmc[PERFCTR_MAX_NRCTRS];
};

/*
 * What another thread, a signal handler or the kernel changes under us:
 * loaded and stored whole, neither cached nor torn by the compiler.
 */
#define load_once(x)		__atomic_load_n(&(x), __ATOMIC_RELAXED)
#define store_once(x, v)	__atomic_store_n(&(x), (v), __ATOMIC_RELAXED)
#define add_once(x, v)		__atomic_fetch_add(&(x), (v), __ATOMIC_RELAXED)

/*
 * The seqcount protocol of the uapi header, from any thread: read seq,
 * the fields and the TSC, then seq again, and retry if it was odd or
 * moved.  While the owner runs, the TSC and task-clock have their live
 * part added; every other software counter is current in its sum, and a
 * hardware counter cannot be read live from another CPU, so its sum is
 * taken as it is (it only grows too).
 *
 * Return: true, or false if the page kept changing for @tries attempts:
 * that is not an error, the caller tries again later.
 */
static inline bool page_read(const struct vperfctr_state *s,
			     struct page_snap *snap, unsigned int tries)
{
	const struct perfctr_cpu_state *cpu = &s->cpu_state;

	while (tries--) {
		__u32 seq = __atomic_load_n(&s->seq, __ATOMIC_ACQUIRE);
		__u32 flags = load_once(s->flags);
		__u32 cstatus = load_once(cpu->cstatus);
		__u32 mult = load_once(s->time_mult);
		__u32 shift = load_once(s->time_shift);
		bool live = flags & VPERFCTR_STATE_ONCPU;
		unsigned int i, nrctrs = perfctr_cstatus_nrctrs(cstatus);
		__u64 now = read_tsc_ordered();

		if (seq & 1)
			continue;
		snap->flags = flags;
		snap->cstatus = cstatus;
		snap->tsc = load_once(cpu->tsc_sum);
		if (live && perfctr_cstatus_has_tsc(cstatus))
			snap->tsc += now - load_once(cpu->tsc_start);
		for (i = 0; i < PERFCTR_MAX_NRCTRS; i++) {
			const struct perfctr_pmc_state *pmc = &cpu->pmc[i];

			snap->pmc[i] = load_once(pmc->sum);
			if (live && i < nrctrs &&
			    load_once(pmc->map) == TASK_CLOCK_MAP && shift < 64)
				snap->pmc[i] += ticks_to_ns(now - load_once(pmc->start),
							    mult, shift);
		}
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		if (load_once(s->seq) == seq)
			return true;
	}
	return false;
}

static inline const struct vperfctr_state *map_state_page(int fd)
{
	void *p = mmap(NULL, sysconf(_SC_PAGESIZE), PROT_READ, MAP_SHARED,
		       fd, 0);

	return p == MAP_FAILED ? NULL : p;
}

/* --- The machine ----------------------------------------------------------- */

/*
 * NULL when the running kernel has perfctr, else why it has not.  A perfctr
 * kernel lists its pseudo file system, vperfctrfs, in /proc/filesystems.
 */
static inline const char *perfctr_missing(void)
{
	char line[128];
	bool found = false;
	FILE *f = fopen("/proc/filesystems", "r");

	if (!f)
		return "cannot read /proc/filesystems";
	while (!found && fgets(line, sizeof(line), f))
		found = !strcmp(line, "nodev\tvperfctrfs\n");
	fclose(f);
	return found ? NULL : "kernel without perfctr: no vperfctrfs in /proc/filesystems";
}

/* /sys/kernel/perfctr/@name as a number, 0 if unreadable. */
static inline long perfctr_sysfs_value(const char *name)
{
	char path[128], buf[64];
	FILE *f;
	long v = 0;

	snprintf(path, sizeof(path), "/sys/kernel/perfctr/%s", name);
	f = fopen(path, "r");
	if (!f)
		return 0;
	if (fgets(buf, sizeof(buf), f))
		v = strtol(buf, NULL, 0);
	fclose(f);
	return v;
}

/* --- The tally of checks ------------------------------------------------- */

/*
 * Each check is a category: it passes if it was made at least once and
 * never failed.  The tally lives in a memfd mapping, shared by every
 * process of the run, including those that replaced themselves by exec
 * (the memfd is not close-on-exec; its number goes on the command line).
 */
#define REPORT_MAX_CHECKS	16
#define REPORT_MAX_MSGS		12
#define REPORT_MSG_LEN		240

struct report {
	__u64 seed;
	unsigned long progress;		/* how far the run got, its own way */
	unsigned long stats[4];		/* what the run exercised, its own way */
	unsigned long made[REPORT_MAX_CHECKS];
	unsigned long failed[REPORT_MAX_CHECKS];
	unsigned int nmsgs;
	char msgs[REPORT_MAX_MSGS][REPORT_MSG_LEN];
};

static struct report *report;
static const char * const *report_names;

static inline struct report *report_map(int fd)
{
	void *p = mmap(NULL, sizeof(struct report), PROT_READ | PROT_WRITE,
		       MAP_SHARED, fd, 0);

	return p == MAP_FAILED ? NULL : p;
}

/* A fresh tally; returns its memfd, or -1. */
static inline int report_create(const char * const *names, __u64 seed)
{
	int fd = memfd_create("vperfctr-report", 0);

	if (fd < 0 || ftruncate(fd, sizeof(struct report)))
		return -1;
	report = report_map(fd);
	if (!report)
		return -1;
	report_names = names;
	report->seed = seed;
	return fd;
}

/* The tally of the run this process belongs to, after an exec. */
static inline bool report_attach(int fd, const char * const *names)
{
	report = report_map(fd);
	report_names = names;
	return !!report;
}

static inline void check_ok(unsigned int check)
{
	add_once(report->made[check], 1);
}

/*
 * A violation: counted, and the first few printed at once (a run that
 * ends in a crash still shows them) with what replays them.
 */
static inline void check_vfail(unsigned int check, const char *fmt, va_list ap)
{
	unsigned int n;

	add_once(report->made[check], 1);
	add_once(report->failed[check], 1);
	n = add_once(report->nmsgs, 1);
	if (n >= REPORT_MAX_MSGS)
		return;
	vsnprintf(report->msgs[n], REPORT_MSG_LEN, fmt, ap);
	printf("# VIOLATION (seed %llu) %s: %s\n",
	       (unsigned long long)report->seed, report_names[check],
	       report->msgs[n]);
	fflush(stdout);
}

static inline __printf(2, 3) void check_fail(unsigned int check, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	check_vfail(check, fmt, ap);
	va_end(ap);
}

/* check_ok() or check_fail(), as @ok says. */
static inline __printf(3, 4) void check(bool ok, unsigned int id, const char *fmt, ...)
{
	va_list ap;

	if (ok) {
		check_ok(id);
		return;
	}
	va_start(ap, fmt);
	check_vfail(id, fmt, ap);
	va_end(ap);
}

#endif /* VPERFCTR_COMMON_H */
