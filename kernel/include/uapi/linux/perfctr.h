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
#define PERFCTR_ABI_MINOR	0
#define PERFCTR_ABI_VERSION	((PERFCTR_ABI_MAJOR << 16) | PERFCTR_ABI_MINOR)

/* Most counters one control can describe (x86: GP + fixed; arm64: 31+1). */
#define PERFCTR_MAX_NRCTRS	32

/* perfctr_info.cpu_features */
#define PERFCTR_FEATURE_RDPMC	0x01	/* user space may read counters */
#define PERFCTR_FEATURE_RDTSC	0x02	/* user space may read the TSC */
#define PERFCTR_FEATURE_PCINT	0x04	/* overflow interrupts available */

/* perfctr_info.cpu_type */
#define PERFCTR_X86_GENERIC	0	/* TSC only, no usable PMU */

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
	__u32 _reserved0;
	char driver_version[32];
};

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

/* The whole control of a thread's virtual counters. */
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
	__u32 map;		/* hardware counter (rdpmc index on x86) */
	__u32 _reserved0;
	__u64 start;		/* hardware value when last resumed */
	__u64 sum;		/* total up to the last suspend or sample */
};

/*
 * The hardware-dependent part of the state page.  While the owner runs,
 * value = sum + (now - start), "now" being the live hardware counter;
 * while it is suspended, value = sum.
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
	struct perfctr_cpu_state cpu_state;
};

/* statfs() f_type of the vperfctrfs pseudo file system. */
#define VPERFCTRFS_MAGIC	0x76706673	/* "vpfs" */

#endif /* _UAPI_LINUX_PERFCTR_H */
