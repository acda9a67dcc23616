/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * Virtual per-process performance counters: the user-space ABI.
 *
 * A thread's counters are controlled through five system calls and read
 * either through vperfctr_read() or, without a system call, from a
 * read-only page obtained by mmap() on the state's file descriptor.
 * See Documentation/perfctr/ for the model and the fast-read algorithm.
 *
 * Every structure here has fixed-width fields and explicit padding, so
 * 32-bit and 64-bit callers share one layout.  Reserved fields must be
 * zero on input and are zero on output.
 */
#ifndef _UAPI_LINUX_PERFCTR_H
#define _UAPI_LINUX_PERFCTR_H

#include <linux/types.h>

/*
 * System call numbers, the same on every architecture.  They lie in a
 * block that mainline does not allocate (it hands out numbers in order
 * and is in the 460s), so on a kernel without perfctr these calls fail
 * with ENOSYS instead of reaching some other system call.
 */
#define __NR_vperfctr_open	600
#define __NR_vperfctr_control	601
#define __NR_vperfctr_unlink	602
#define __NR_vperfctr_read	603
#define __NR_vperfctr_iresume	604

/*
 * ABI version: major in the high 16 bits, minor in the low 16.
 * Major 6 is the fixed-width 64-bit layout of this file; perfctr 2.6
 * and 2.7 used major 5 with native C types.
 */
#define PERFCTR_ABI_MAJOR	6
#define PERFCTR_ABI_MINOR	2
#define PERFCTR_ABI_VERSION	((PERFCTR_ABI_MAJOR << 16) | PERFCTR_ABI_MINOR)

/* Most counters one control can describe (x86: GP + fixed; arm64: 31+1). */
#define PERFCTR_MAX_NRCTRS	32

/* perfctr_info.cpu_features */
#define PERFCTR_FEATURE_RDPMC	0x01	/* user space may read counters */
#define PERFCTR_FEATURE_RDTSC	0x02	/* user space may read the TSC */
#define PERFCTR_FEATURE_PCINT	0x04	/* overflow interrupts available */
#define PERFCTR_FEATURE_TOPDOWN	0x08	/* x86 TopDown slots and metrics */

/* perfctr_info.cpu_type */
#define PERFCTR_X86_GENERIC	0	/* TSC only, no usable PMU */
#define PERFCTR_X86_INTEL_ARCH	1	/* Intel architectural perfmon */
#define PERFCTR_X86_AMD		2	/* AMD legacy, core or PerfMonV2 */
#define PERFCTR_ARM64_GENERIC	3	/* generic timer only, no usable PMU */
#define PERFCTR_ARM64_PMUV3	4	/* Arm PMUv3 */

/* Description of the counters this machine has. */
struct perfctr_info {
	__u32 abi_version;
	__u32 cpu_type;
	__u32 cpu_features;
	__u32 cpu_khz;
	__u32 tsc_to_cpu_mult;
	__u32 nrctrs;		/* general-purpose counters */
	__u32 ctr_width;	/* their width in bits */
	__u32 nrfixed;		/* fixed-function counters */
	__u32 fixed_width;	/* their width in bits */
	__u32 nrmetrics;	/* x86 TopDown metrics: 0, 4 or 8 */
	char driver_version[32];
};

/*
 * x86: pmc_map[] names a counter the way the rdpmc instruction does:
 * general-purpose counter i as i, Intel fixed-function counter j as
 * PERFCTR_MAP_X86_FIXED | j.
 */
#define PERFCTR_MAP_X86_FIXED		0x40000000u

/*
 * x86 TopDown (Intel, from Ice Lake; PERFCTR_FEATURE_TOPDOWN): fixed
 * counter 3 counts pipeline slots, and the PERF_METRICS register holds,
 * in byte k, category k's share of the slots counted since both were
 * last reset, 0xff being all of them.  A counter with pmc_map[]
 * PERFCTR_MAP_X86_METRIC | k counts category k's slots: at every suspend
 * and sample the kernel adds the category's share of the slots counted
 * since resume to its sum, and restarts the slots counter and
 * PERF_METRICS from zero at every resume, so each sum keeps the 8-bit
 * precision of one period between switches or samples however long the
 * thread runs, and the level 1 sums add up to the slots exactly.  A live
 * value may step back by the rounding of the running period's share.
 * Categories 0 to 3 are level 1 and split the slots among themselves; 4
 * to 7 (nrmetrics 8) are level 2, each a part of category k - 4.  A
 * metric counter's evntsel[] takes the USR and OS bits of a fixed
 * counter, the same in every counter of the control that uses the slots
 * counter (fixed counter 3 and the metric counters); it counts in
 * accumulation mode only.  rdpmc reads the metrics as 1 << 29, which is
 * PERFCTR_MAP_X86_METRIC.
 */
#define PERFCTR_MAP_X86_METRIC		0x20000000u
#define PERFCTR_X86_FIXED_SLOTS		3	/* fixed counter 3: slots */
#define PERFCTR_X86_TOPDOWN_RETIRING	0
#define PERFCTR_X86_TOPDOWN_BAD_SPEC	1
#define PERFCTR_X86_TOPDOWN_FE_BOUND	2
#define PERFCTR_X86_TOPDOWN_BE_BOUND	3
#define PERFCTR_X86_TOPDOWN_HEAVY_OPS	4	/* part of retiring */
#define PERFCTR_X86_TOPDOWN_BR_MISPREDICT 5	/* part of bad speculation */
#define PERFCTR_X86_TOPDOWN_FETCH_LAT	6	/* part of frontend bound */
#define PERFCTR_X86_TOPDOWN_MEM_BOUND	7	/* part of backend bound */
#define PERFCTR_X86_TOPDOWN_NR		8

/*
 * The slots of TopDown category @k among @slots slots, from PERF_METRICS
 * value @metrics; the kernel's arithmetic, which the fast read repeats.
 * Level 1: the slots are split in the proportions of bytes 0 to 3, each
 * category rounded down at its cumulative boundary, so that the four
 * always add up to @slots exactly (to none if the four bytes are all 0).
 * Level 2: byte k in the same proportion, rounded down, and never more
 * than its level 1 category.  @slots below 2^54 (fixed counter 3 has 48
 * bits at most), so that no product overflows.
 */
static __inline__ __u64 perfctr_x86_topdown_byte(__u64 metrics, unsigned int k)
{
	return (metrics >> (8 * k)) & 0xff;
}

static __inline__ __u64 perfctr_x86_topdown_slots(__u64 slots, __u64 metrics,
						  unsigned int k)
{
	__u64 total = 0, below = 0, level1, part;
	unsigned int j;

	for (j = 0; j < 4; j++) {
		if (j < (k & 3))
			below += perfctr_x86_topdown_byte(metrics, j);
		total += perfctr_x86_topdown_byte(metrics, j);
	}
	if (!total || k >= PERFCTR_X86_TOPDOWN_NR)
		return 0;
	level1 = (slots * (below + perfctr_x86_topdown_byte(metrics, k & 3))) /
		 total - (slots * below) / total;
	if (k < 4)
		return level1;
	part = slots * perfctr_x86_topdown_byte(metrics, k) / total;
	return part < level1 ? part : level1;
}

/*
 * arm64: pmc_map[] is the PMUv3 counter index: event counter n
 * (PMEVCNTR<n>_EL0) as n, the cycle counter (PMCCNTR_EL0) as
 * PERFCTR_MAP_ARM64_CYCLES, its bit in PMCNTENSET_EL0.  evntsel[] is laid
 * out as PMEVTYPER<n>_EL0: the event number in bits 0..15 (0x11, CPU_CYCLES,
 * for the cycle counter), and the bits that exclude EL1 (the kernel) and
 * EL0 (user mode).  Counting the kernel, that is leaving EXCLUDE_EL1 clear,
 * needs the privilege to count kernel mode.  No other bit may be set.
 */
#define PERFCTR_MAP_ARM64_CYCLES	31
#define PERFCTR_ARM64_EVENT_MASK	0xffffu
#define PERFCTR_ARM64_EXCLUDE_EL1	0x80000000u
#define PERFCTR_ARM64_EXCLUDE_EL0	0x40000000u

/*
 * Software counters.  A counter whose pmc_map[] entry has
 * PERFCTR_MAP_SOFTWARE set counts a kernel event of the thread instead of
 * a hardware event; the low bits of the entry say which.  They work on
 * every machine, with or without a hardware PMU, in accumulation and in
 * interrupt mode, are inherited and propagated like hardware counters, and
 * are read from the state page without a system call.  Several counters
 * may count the same software event.
 *
 * For the fault events, evntsel[] selects the mode of the access that
 * faulted: PERFCTR_SW_USR for user-mode accesses, PERFCTR_SW_OS for
 * kernel accesses to user memory on the thread's behalf (the latter needs
 * the privilege to count kernel mode).  At least one must be set.  For
 * the other software events evntsel[] must be zero.
 */
#define PERFCTR_MAP_SOFTWARE		0x80000000u
#define PERFCTR_SW_TASK_CLOCK		1	/* ns on a CPU, user + kernel */
#define PERFCTR_SW_CONTEXT_SWITCHES	2	/* times switched out */
#define PERFCTR_SW_CPU_MIGRATIONS	3	/* resumed on another CPU */
#define PERFCTR_SW_PAGE_FAULTS		4	/* minor + major */
#define PERFCTR_SW_MINOR_FAULTS		5	/* resolved without I/O */
#define PERFCTR_SW_MAJOR_FAULTS		6	/* needed I/O */
#define PERFCTR_SW_MAX			6

#define PERFCTR_SW_USR			0x10000	/* faults in user mode */
#define PERFCTR_SW_OS			0x20000	/* faults in kernel mode */

/*
 * Interrupt-mode overflow signal: si_code is SI_PMC_OVF and the bit mask
 * of the counters that overflowed (bit i for counter i) is in
 * si_pmc_ovf_mask, an alias of the siginfo's si_int (read it as unsigned).
 * SI_PMC_OVF is negative, so the siginfo has the layout of a queued
 * signal on every ABI; si_pid and si_uid are 0, as for the kernel.
 */
#define SI_PMC_OVF			(-80)
#define si_pmc_ovf_mask			si_int

/* Counter values: 64-bit sums, never wrapping in practice. */
struct perfctr_sum_ctrs {
	__u64 tsc;
	__u64 pmc[PERFCTR_MAX_NRCTRS];
};

/*
 * What the counters count.  Counters 0 .. nractrs-1 are accumulation-mode
 * (a-mode) counters; nractrs .. nractrs+nrictrs-1 are interrupt-mode
 * (i-mode) counters that are preset to ireset[] and signal the owner
 * when they overflow.  pmc_map[i] names the hardware counter used for
 * counter i, evntsel[i] is its event selector.
 */
struct perfctr_cpu_control {
	__u32 tsc_on;
	__u32 nractrs;
	__u32 nrictrs;
	__u32 _reserved0;
	__u32 pmc_map[PERFCTR_MAX_NRCTRS];
	__u64 evntsel[PERFCTR_MAX_NRCTRS];
	__s64 ireset[PERFCTR_MAX_NRCTRS];
	__u64 _reserved1[4];
};

/*
 * The whole control of a thread's virtual counters.  Setting a control
 * resets the sums of the counters, except those whose bit is set in
 * preserve, and the sums of the children.  The TSC sum restarts only if
 * the new control turns the TSC off.  A control with tsc_on, nractrs and
 * nrictrs all zero stops the counters and resets nothing: every sum,
 * the children's too, is kept.
 */
struct vperfctr_control {
	__s32 si_signo;		/* signal sent on i-mode overflow */
	__u32 _reserved0;
	struct perfctr_cpu_control cpu_control;
	__u32 preserve;		/* bit i set: sum of pmc[i] is not reset */
	__u32 flags;		/* none defined yet: must be zero */
	__u64 _reserved1[2];
};

/*
 * cstatus in the state page: bit 31 is tsc_on, bits 16..22 nrictrs,
 * bits 0..6 nractrs.  Zero means the counters are stopped.
 */
#define PERFCTR_CSTATUS_TSC_ON		0x80000000u

static __inline__ __u32 perfctr_cstatus_nractrs(__u32 cstatus)
{
	return cstatus & 0x7f;
}

static __inline__ __u32 perfctr_cstatus_nrictrs(__u32 cstatus)
{
	return (cstatus >> 16) & 0x7f;
}

static __inline__ __u32 perfctr_cstatus_nrctrs(__u32 cstatus)
{
	return perfctr_cstatus_nractrs(cstatus) +
	       perfctr_cstatus_nrictrs(cstatus);
}

static __inline__ int perfctr_cstatus_has_tsc(__u32 cstatus)
{
	return (cstatus & PERFCTR_CSTATUS_TSC_ON) != 0;
}

static __inline__ int perfctr_cstatus_enabled(__u32 cstatus)
{
	return cstatus != 0;
}

struct perfctr_pmc_state {
	__u32 map;		/* pmc_map[] entry: rdpmc index on x86 */
	__u32 width;		/* counter width in bits, 64 for software */
	__u64 start;		/* hardware value when last resumed */
	__u64 sum;		/* total up to the last suspend or sample */
};

/*
 * The counters' part of the state page.  While the owner runs (ONCPU),
 * a hardware counter's value is
 *	sum + ((now - start) mod 2^width)
 * "now" being the live hardware counter; while it is suspended, it is sum.
 * A software counter's sum is always current, except task-clock while
 * ONCPU:
 *	sum + (((tsc_now - start) * time_mult) >> time_shift)
 * with the time-stamp counter's value at resume in start.
 */
struct perfctr_cpu_state {
	__u32 cstatus;
	__u32 _reserved0;
	__u64 tsc_start;
	__u64 tsc_sum;
	struct perfctr_pmc_state pmc[PERFCTR_MAX_NRCTRS];
};

#define VPERFCTR_STATE_MAGIC	0x76706663	/* "vpfc" */

/* vperfctr_state.flags */
#define VPERFCTR_STATE_ONCPU	0x01	/* owner is running, counters live */
#define VPERFCTR_STATE_DEAD	0x02	/* owner has exited */
#define VPERFCTR_STATE_DETACHED	0x04	/* state has no owner any more */
#define VPERFCTR_STATE_OVERFLOW	0x08	/* i-mode overflow, awaits iresume */
/*
 * The owner may read its hardware counters in user mode (x86: rdpmc with
 * the pmc[].map index; arm64: PMEVCNTR<map>_EL0, or PMCCNTR_EL0 for the
 * cycle counter), for as long as its control has hardware counters.
 */
#define VPERFCTR_STATE_RDPMC	0x10

/*
 * vperfctr_state.live and live_clock (ABI 6.2): what runs now and must
 * be read live.  Bit i of live (below PERFCTR_MAX_NRCTRS): pmc[i] is a
 * hardware counter that the owner may read in user mode
 * (VPERFCTR_STATE_RDPMC), counting now; bit i of live_clock: pmc[i] is
 * task-clock, counting now.  Either way its value is computed from start
 * as the comment above struct perfctr_cpu_state says.  With neither bit
 * set, its value is its sum, unless VPERFCTR_LIVE_SYSCALL is set:
 * hardware counters count now that user mode may not read, their sums
 * are behind, and only vperfctr_read() has their values.
 * VPERFCTR_LIVE_TSC: the TSC counts now, its value
 * tsc_sum + (tsc_now - tsc_start).  The bits are set only while the owner
 * runs (ONCPU), so a reader needs no other field to know which values
 * are live, nor to tell a hardware counter from task-clock.
 */
#define VPERFCTR_LIVE_TSC	(1ULL << 32)
#define VPERFCTR_LIVE_SYSCALL	(1ULL << 33)

/*
 * The page seen through mmap() on a vperfctr file descriptor: read-only,
 * one page, offset 0.  The kernel makes 'seq' odd while it updates the
 * page and even again when done; a reader that sees 'seq' odd or changed
 * across its reads retries.  Readers on the owner thread itself may also
 * use the perfctr 2.7 rule of re-checking cpu_state.tsc_start.
 */
struct vperfctr_state {
	__u32 magic;		/* VPERFCTR_STATE_MAGIC */
	__u32 abi_version;	/* PERFCTR_ABI_VERSION */
	__u32 seq;
	__u32 flags;
	__u32 time_mult;	/* TSC ticks to ns: (ticks * mult) >> shift */
	__u32 time_shift;
	__u64 live;		/* VPERFCTR_LIVE_* and a bit per live counter */
	__u32 nrsums;		/* cpu_state.pmc[i].sum is 0 for i >= nrsums */
	__u32 live_clock;	/* a bit per live task-clock counter */
	__u64 _reserved1;
	struct perfctr_cpu_state cpu_state;
};

/* statfs() f_type of the vperfctrfs pseudo file system. */
#define VPERFCTRFS_MAGIC	0x76706673	/* "vpfs" */

#endif /* _UAPI_LINUX_PERFCTR_H */
