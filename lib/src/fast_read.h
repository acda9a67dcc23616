/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * Computing counter values from the mapped state page, out of line.
 *
 * The arithmetic is <perfctr/fast_read.h>'s, the one the inline reads
 * use.  Here it is wrapped in the retries and given a clock as a
 * struct vperfctr_clock, so that a test can run it on a page and clock
 * it makes up.
 */
#ifndef LIBPERFCTR_FAST_READ_H
#define LIBPERFCTR_FAST_READ_H

#include <linux/perfctr.h>
#include <perfctr/fast_read.h>

/*
 * How often a reader retries when the kernel updates the page under it.
 * A reader on the owner thread never needs more than one retry per
 * context switch; the bound only protects against a page stuck odd.
 */
#define VPERFCTR_READ_RETRIES	100

/* The first minor version of ABI 6 whose page has 'live' and 'nrsums'. */
#define VPERFCTR_LIVE_MINOR	2

struct vperfctr_clock {
	__u64 (*read_tsc)(void *arg);
	/* NULL when the counters cannot be read from user space. */
	__u64 (*read_pmc)(void *arg, __u32 map);
	void *arg;
};

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
