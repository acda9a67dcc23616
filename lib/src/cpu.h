/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * Reading the hardware counters from user space.
 */
#ifndef LIBPERFCTR_CPU_H
#define LIBPERFCTR_CPU_H

#include <linux/types.h>
#include <linux/perfctr.h>

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
 * The TSC, read strictly after the loads before it and before the loads
 * after it, as a read of another thread's page needs: the kernel reads
 * the TSC that ends a running period only once the page's seq is odd, so
 * a reader that finds seq unchanged after this read read an earlier TSC,
 * and never sees a sum larger than the one the kernel then stores.
 */
static inline __u64 cpu_read_tsc_ordered(void)
{
	__u32 lo, hi;

	asm volatile("lfence; rdtsc; lfence" : "=a" (lo), "=d" (hi) :: "memory");
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

#elif defined(__aarch64__)

#define CPU_HAS_TSC 1
#define CPU_HAS_PMC 1

/*
 * The "TSC" is the generic timer's virtual count, which the kernel lets
 * every task read.  The isb keeps the CPU from reading it early, ahead
 * of the loads of the state page before it, and the clobber keeps the
 * compiler from moving those loads.
 */
static inline __u64 cpu_read_tsc(void)
{
	__u64 tsc;

	asm volatile("isb; mrs %0, cntvct_el0" : "=r" (tsc) :: "memory");
	return tsc;
}

/* As on x86: ordered before the loads after it too, for another's page. */
static inline __u64 cpu_read_tsc_ordered(void)
{
	__u64 tsc;

	asm volatile("isb; mrs %0, cntvct_el0; isb" : "=r" (tsc) :: "memory");
	return tsc;
}

#define PMEVCNTR(n) \
	case n: \
		asm volatile("mrs %0, pmevcntr" #n "_el0" \
			     : "=r" (value) :: "memory"); \
		break

/*
 * Counter @map: PMEVCNTR<map>_EL0, or PMCCNTR_EL0 for the cycle counter
 * (PERFCTR_MAP_ARM64_CYCLES).  Each event counter is read by its own
 * register, not through PMSELR_EL0 and PMXEVCNTR_EL0: a context switch
 * between writing the one and reading the other would read another
 * counter, or fault.  Only while the state page has VPERFCTR_STATE_RDPMC:
 * otherwise the kernel has not granted EL0 reads (PMUSERENR_EL0) and it
 * faults.  As in cpu_read_tsc(), the clobber keeps the read between
 * the loads of the page around it.
 */
static inline __u64 cpu_read_pmc(__u32 map)
{
	__u64 value = 0;

	switch (map) {
	PMEVCNTR(0); PMEVCNTR(1); PMEVCNTR(2); PMEVCNTR(3);
	PMEVCNTR(4); PMEVCNTR(5); PMEVCNTR(6); PMEVCNTR(7);
	PMEVCNTR(8); PMEVCNTR(9); PMEVCNTR(10); PMEVCNTR(11);
	PMEVCNTR(12); PMEVCNTR(13); PMEVCNTR(14); PMEVCNTR(15);
	PMEVCNTR(16); PMEVCNTR(17); PMEVCNTR(18); PMEVCNTR(19);
	PMEVCNTR(20); PMEVCNTR(21); PMEVCNTR(22); PMEVCNTR(23);
	PMEVCNTR(24); PMEVCNTR(25); PMEVCNTR(26); PMEVCNTR(27);
	PMEVCNTR(28); PMEVCNTR(29); PMEVCNTR(30);
	case PERFCTR_MAP_ARM64_CYCLES:
		asm volatile("mrs %0, pmccntr_el0"
			     : "=r" (value) :: "memory");
		break;
	}
	return value;
}

#undef PMEVCNTR

#else

#define CPU_HAS_TSC 0
#define CPU_HAS_PMC 0

static inline __u64 cpu_read_tsc(void)
{
	return 0;
}

static inline __u64 cpu_read_tsc_ordered(void)
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
