// SPDX-License-Identifier: LGPL-2.1
/*
 * The library's fast reads on the machine itself, no perfctr kernel
 * needed: the inline reads of <libperfctr.h> on a made-up state page
 * whose TSC and task-clock run, next to a bare rdtsc, in TSC ticks per
 * read, the loop subtracted.  The page says what a kernel would say of
 * a thread on its CPU; no hardware counter is live, since rdpmc needs
 * a kernel that allows it.  make bench-host runs it.
 */
#include <stdio.h>
#include <string.h>

#include "internal.h"

#define LOOPS	10000000L
#define ROUNDS	7

static volatile unsigned long long sink;

static inline unsigned long long ticks(void)
{
	return __perfctr_cpu_tsc_ordered(NULL);
}

static inline unsigned long long opaque(unsigned long long x)
{
	__asm__ __volatile__("" : "+r" (x));
	return x;
}

#define TIMED(name, expr)						\
static double name(const struct vperfctr *v)				\
{									\
	unsigned long long acc = 0, t;					\
	long i;								\
									\
	(void)v;							\
	t = ticks();							\
	for (i = 0; i < LOOPS; i++)					\
		acc += (expr);						\
	t = ticks() - t;						\
	sink = acc;							\
	return (double)t / LOOPS;					\
}

TIMED(time_empty, opaque(i))
TIMED(time_rdtsc, __perfctr_cpu_tsc(NULL))
TIMED(time_read_tsc, vperfctr_read_tsc(v))
TIMED(time_read_task_clock, vperfctr_read_pmc(v, 0))
TIMED(time_read_faults, vperfctr_read_pmc(v, 1))

static double time_read_ctrs(const struct vperfctr *v)
{
	struct perfctr_sum_ctrs sum;
	unsigned long long acc = 0, t;
	long i;

	t = ticks();
	for (i = 0; i < LOOPS; i++) {
		vperfctr_read_ctrs(v, &sum);
		acc += sum.pmc[0];
	}
	t = ticks() - t;
	sink = acc;
	return (double)t / LOOPS;
}

/* The least of ROUNDS timings: the one least disturbed. */
static double least(double (*fn)(const struct vperfctr *),
		    const struct vperfctr *v)
{
	double best = fn(v), t;
	int r;

	for (r = 1; r < ROUNDS; r++) {
		t = fn(v);
		best = t < best ? t : best;
	}
	return best;
}

int main(void)
{
	static struct vperfctr_state page;
	struct vperfctr handle;
	struct perfctr_pmc_state *pmc = page.cpu_state.pmc;
	double loop;

	if (!__PERFCTR_CPU_CLOCK) {
		printf("bench_fast_read: no user-space clock on this machine\n");
		return 0;
	}
	memset(&handle, 0, sizeof(handle));
	page.magic = VPERFCTR_STATE_MAGIC;
	page.abi_version = PERFCTR_ABI_VERSION;
	page.flags = VPERFCTR_STATE_ONCPU;
	page.time_mult = 1u << 31;
	page.time_shift = 31;
	page.cpu_state.cstatus = PERFCTR_CSTATUS_TSC_ON | 2;
	page.cpu_state.tsc_start = ticks();
	pmc[0].map = PERFCTR_MAP_SOFTWARE | PERFCTR_SW_TASK_CLOCK;
	pmc[0].width = 64;
	pmc[0].start = page.cpu_state.tsc_start;
	pmc[1].map = PERFCTR_MAP_SOFTWARE | PERFCTR_SW_PAGE_FAULTS;
	pmc[1].width = 64;
	pmc[1].sum = 42;
	page.nrsums = 2;
	page.live = VPERFCTR_LIVE_TSC;
	page.live_clock = 1;
	handle.fd = -1;
	handle.is_self = 1;
	handle.state = &page;
	handle.fast.own = &page;

	loop = least(time_empty, &handle);
	printf("fast reads on this CPU, TSC ticks per read, loop subtracted\n"
	       "(the least of %d runs of %ld reads):\n", ROUNDS, LOOPS);
	printf("  %-36s %6.1f\n", "bare rdtsc",
	       least(time_rdtsc, &handle) - loop);
	printf("  %-36s %6.1f\n", "vperfctr_read_tsc()",
	       least(time_read_tsc, &handle) - loop);
	printf("  %-36s %6.1f\n", "vperfctr_read_pmc(), task-clock",
	       least(time_read_task_clock, &handle) - loop);
	printf("  %-36s %6.1f\n", "vperfctr_read_pmc(), page-faults",
	       least(time_read_faults, &handle) - loop);
	printf("  %-36s %6.1f\n", "vperfctr_read_ctrs(), TSC + 2",
	       least(time_read_ctrs, &handle) - loop);
	return 0;
}
