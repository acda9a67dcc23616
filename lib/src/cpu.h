/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * Reading the hardware counters from user space.
 */
#ifndef LIBPERFCTR_CPU_H
#define LIBPERFCTR_CPU_H

#include <linux/types.h>

#if defined(__x86_64__) || defined(__i386__)

#define CPU_HAS_TSC 1
#define CPU_HAS_PMC 1

static inline __u64 cpu_read_tsc(void)
{
	__u32 lo, hi;

	asm volatile("rdtsc" : "=a" (lo), "=d" (hi));
	return ((__u64)hi << 32) | lo;
}

/*
 * Counter @map, named as rdpmc names it (bit 30: fixed counter).  Only
 * while the state page has VPERFCTR_STATE_RDPMC: otherwise it faults.
 */
static inline __u64 cpu_read_pmc(__u32 map)
{
	__u32 lo, hi;

	asm volatile("rdpmc" : "=a" (lo), "=d" (hi) : "c" (map));
	return ((__u64)hi << 32) | lo;
}

#else

#define CPU_HAS_TSC 0
#define CPU_HAS_PMC 0

static inline __u64 cpu_read_tsc(void)
{
	return 0;
}

static inline __u64 cpu_read_pmc(__u32 map)
{
	(void)map;
	return 0;
}

#endif

#endif /* LIBPERFCTR_CPU_H */
