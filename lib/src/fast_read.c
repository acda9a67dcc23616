// SPDX-License-Identifier: LGPL-2.1
/*
 * The fast read out of line: the arithmetic of <perfctr/fast_read.h>,
 * retried while the kernel rewrites the page, for any clock.
 *
 * The inline reads try once and come here when the page changed under
 * them, when the page is another thread's (read with a strictly ordered
 * TSC and without the hardware counters, which are not that thread's
 * on this CPU), and in programs built without optimization.
 */
#include <errno.h>
#include <string.h>

#include "fast_read.h"

/**
 * vperfctr_scale_time - TSC ticks to nanoseconds, as the kernel does it
 * @delta: ticks
 * @mult: the page's time_mult
 * @shift: the page's time_shift, at most VPERFCTR_TIME_SHIFT_MAX
 *
 * Return: (@delta * @mult) >> @shift, exact modulo 2^64.
 */
__u64 vperfctr_scale_time(__u64 delta, __u32 mult, __u32 shift)
{
	return __vperfctr_scale(delta, mult, shift);
}

/**
 * vperfctr_state_check - is this a state page of an ABI we speak?
 * @state: the mapped page
 *
 * A newer minor version only adds to the page, so it is accepted.
 * Return: 0, or -1 with errno EPROTO.
 */
int vperfctr_state_check(const struct vperfctr_state *state)
{
	if (state->magic != VPERFCTR_STATE_MAGIC ||
	    (state->abi_version >> 16) != PERFCTR_ABI_MAJOR) {
		errno = EPROTO;
		return -1;
	}
	return 0;
}

/*
 * The clock of one read: a struct vperfctr_clock, and whether a value
 * was live that it could not read.
 */
struct read_clock {
	const struct vperfctr_clock *clock;
	int unreadable;
};

static __u64 clock_tsc(void *arg)
{
	struct read_clock *rc = arg;

	if (!rc->clock->read_tsc) {
		rc->unreadable = 1;
		return 0;
	}
	return rc->clock->read_tsc(rc->clock->arg);
}

static __u64 clock_pmc(void *arg, __u32 map)
{
	const struct read_clock *rc = arg;

	return rc->clock->read_pmc(rc->clock->arg, map);
}

/*
 * One of the page reads, retried: 0, or -1 with errno EAGAIN (the page
 * kept changing) or EOPNOTSUPP (a live value the clock cannot read).
 */
#define RETRY(clock, read)						\
	({								\
		struct read_clock rc = { (clock), 0 };			\
		__perfctr_pmc_fn rd = (clock)->read_pmc ? clock_pmc : NULL; \
		unsigned int tries;					\
		int ret = -1;						\
									\
		(void)rd;						\
		for (tries = 0; tries < VPERFCTR_READ_RETRIES; tries++) { \
			rc.unreadable = 0;				\
			ret = (read);					\
			if (rc.unreadable)				\
				ret = -1;				\
			if (ret <= 0)					\
				break;					\
		}							\
		errno = ret < 0 ? EOPNOTSUPP : ret ? EAGAIN : errno;	\
		ret ? -1 : 0;						\
	})

/**
 * vperfctr_state_read_tsc - the TSC sum from a state page
 * @state: the mapped page
 * @clock: the live counters of the CPU the caller runs on
 * @tsc: where the value goes
 *
 * Return: 0, or -1 with errno EAGAIN (the page kept changing) or
 * EOPNOTSUPP (the TSC is live but @clock cannot read it).
 */
int vperfctr_state_read_tsc(const struct vperfctr_state *state,
			    const struct vperfctr_clock *clock, __u64 *tsc)
{
	return RETRY(clock, vperfctr_page_read_tsc(state, 0, clock_tsc, &rc, tsc));
}

/**
 * vperfctr_state_read_ctrs - the TSC and all counter sums from a page
 * @state: the mapped page
 * @clock: the live counters of the CPU the caller runs on
 * @sum: where the values go; counters not running read as their sums
 *
 * Return: 0, or -1 with errno EAGAIN or EOPNOTSUPP (counters are live
 * but @clock cannot read them, or the page is inconsistent).
 */
int vperfctr_state_read_ctrs(const struct vperfctr_state *state,
			     const struct vperfctr_clock *clock,
			     struct perfctr_sum_ctrs *sum)
{
	return RETRY(clock, vperfctr_page_read_ctrs(state, 0, clock_tsc, rd, &rc,
						    sum));
}

/**
 * vperfctr_state_read_pmc - one counter's sum from a state page
 * @state: the mapped page
 * @clock: the live counters of the CPU the caller runs on
 * @i: the counter, below PERFCTR_MAX_NRCTRS
 * @value: where the value goes
 *
 * Return: 0, or -1 with errno EINVAL (@i out of range), EAGAIN or
 * EOPNOTSUPP.
 */
int vperfctr_state_read_pmc(const struct vperfctr_state *state,
			    const struct vperfctr_clock *clock,
			    unsigned int i, __u64 *value)
{
	if (i >= PERFCTR_MAX_NRCTRS) {
		errno = EINVAL;
		return -1;
	}
	return RETRY(clock, vperfctr_page_read_pmc(state, 0, i, clock_tsc, rd,
						   &rc, value));
}

/* The caller's own page: the TSC and this CPU's counters. */
static __u64 cpu_tsc(void *arg)
{
	return __perfctr_cpu_tsc(arg);
}

static __u64 cpu_pmc(void *arg, __u32 map)
{
	return __perfctr_cpu_pmc(arg, map);
}

/*
 * Another thread's page: its owner runs on another CPU, whose suspend
 * only a strictly ordered clock read is ordered against.
 */
static __u64 cpu_tsc_ordered(void *arg)
{
	return __perfctr_cpu_tsc_ordered(arg);
}

static const struct vperfctr_clock cpu_clock_self = {
	.read_tsc = __PERFCTR_CPU_CLOCK ? cpu_tsc : NULL,
	.read_pmc = __PERFCTR_CPU_CLOCK ? cpu_pmc : NULL,
};

static const struct vperfctr_clock cpu_clock_other = {
	.read_tsc = __PERFCTR_CPU_CLOCK ? cpu_tsc_ordered : NULL,
};

static const struct vperfctr_clock *cpu_clock(int is_self)
{
	return is_self ? &cpu_clock_self : &cpu_clock_other;
}

int vperfctr_cpu_read_tsc(const struct vperfctr_state *state, int is_self,
			  __u64 *tsc)
{
	return vperfctr_state_read_tsc(state, cpu_clock(is_self), tsc);
}

int vperfctr_cpu_read_ctrs(const struct vperfctr_state *state, int is_self,
			   struct perfctr_sum_ctrs *sum)
{
	return vperfctr_state_read_ctrs(state, cpu_clock(is_self), sum);
}

int vperfctr_cpu_read_pmc(const struct vperfctr_state *state, int is_self,
			  unsigned int i, __u64 *value)
{
	return vperfctr_state_read_pmc(state, cpu_clock(is_self), i, value);
}
