/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * Computing counter values from the mapped state page.
 *
 * The arithmetic is kept apart from the hardware: a struct vperfctr_clock
 * supplies the live counter values, so the functions below can be run on
 * a page and clock made up by a test.
 */
#ifndef LIBPERFCTR_FAST_READ_H
#define LIBPERFCTR_FAST_READ_H

#include <linux/perfctr.h>

/*
 * How often a reader retries when the kernel updates the page under it.
 * A reader on the owner thread never needs more than one retry per
 * context switch; the bound only protects against a page stuck odd.
 */
#define VPERFCTR_READ_RETRIES	100

struct vperfctr_clock {
	__u64 (*read_tsc)(void *arg);
	/* NULL when the counters cannot be read from user space. */
	__u64 (*read_pmc)(void *arg, __u32 map);
	void *arg;
};

/*
 * The clock of the CPU we run on: rdtsc and rdpmc on x86; on arm64 the
 * generic timer's virtual count and the PMU's counter registers.
 */
extern const struct vperfctr_clock vperfctr_cpu_clock;

/*
 * The largest time_shift the fast read handles: with it, the low part of
 * the split product below cannot overflow 64 bits.  A page with a larger
 * one is left to the system call.
 */
#define VPERFCTR_TIME_SHIFT_MAX	32

__u64 vperfctr_scale_time(__u64 delta, __u32 mult, __u32 shift);
int vperfctr_state_check(const struct vperfctr_state *state);
int vperfctr_state_read_tsc(const struct vperfctr_state *state,
			    const struct vperfctr_clock *clock, __u64 *tsc);
int vperfctr_state_read_ctrs(const struct vperfctr_state *state,
			     const struct vperfctr_clock *clock,
			     struct perfctr_sum_ctrs *sum);
int vperfctr_state_read_pmc(const struct vperfctr_state *state,
			    const struct vperfctr_clock *clock,
			    unsigned int i, __u64 *value);

/* The same, with the clock of the CPU the caller runs on. */
int vperfctr_cpu_read_tsc(const struct vperfctr_state *state, int is_self,
			  __u64 *tsc);
int vperfctr_cpu_read_ctrs(const struct vperfctr_state *state, int is_self,
			   struct perfctr_sum_ctrs *sum);
int vperfctr_cpu_read_pmc(const struct vperfctr_state *state, int is_self,
			  unsigned int i, __u64 *value);

#endif /* LIBPERFCTR_FAST_READ_H */
