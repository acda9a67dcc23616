/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * Reading the hardware counters from user space.
 */
#ifndef LIBPERFCTR_CPU_H
#define LIBPERFCTR_CPU_H

#include <linux/types.h>

#if defined(__x86_64__) || defined(__i386__)

#define CPU_HAS_TSC 1

static inline __u64 cpu_read_tsc(void)
{
	__u32 lo, hi;

	asm volatile("rdtsc" : "=a" (lo), "=d" (hi));
	return ((__u64)hi << 32) | lo;
}

#else

#define CPU_HAS_TSC 0

static inline __u64 cpu_read_tsc(void)
{
	return 0;
}

#endif

#endif /* LIBPERFCTR_CPU_H */
