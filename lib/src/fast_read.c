// SPDX-License-Identifier: LGPL-2.1
/*
 * The fast read: counter values from the mapped state page, no system call.
 *
 * While the owner runs, the kernel keeps in the page, per counter, the sum
 * up to the last suspend and the hardware value at the last resume, so
 *
 *	value = sum + ((now - start) mod 2^width)
 *
 * with "now" read from the hardware: with rdpmc, using the counter's map
 * as its index (arm64: the register of counter map, PMEVCNTR<map>_EL0 or
 * PMCCNTR_EL0), when the page says the owner may (VPERFCTR_STATE_RDPMC).
 * The TSC is the time-stamp counter on x86, the generic timer's virtual
 * count (CNTVCT_EL0) on arm64.
 * While the owner is suspended (or gone), value = sum.  Software counters
 * (PERFCTR_MAP_SOFTWARE) have no hardware: the kernel keeps their sum
 * current, so value = sum, except for task-clock, whose start is the TSC
 * at the last resume:
 *
 *	value = sum + ((tsc_now - start) * time_mult) >> time_shift
 *
 * The kernel makes 'seq' odd while it rewrites the page and even again
 * after; a read that saw 'seq' odd, or changed, raced with an update and
 * is done again, TSC read and all.
 */
#include <errno.h>
#include <string.h>

#include "cpu.h"
#include "fast_read.h"

/*
 * Loads of fields the kernel may change under us.  Relaxed atomics keep
 * the compiler from tearing, caching or re-ordering them across the
 * acquire operations on 'seq'.
 */
#define load(field)	__atomic_load_n(&(field), __ATOMIC_RELAXED)

static __u64 cpu_clock_read_tsc(void *arg)
{
	(void)arg;
	return cpu_read_tsc();
}

static __u64 cpu_clock_read_pmc(void *arg, __u32 map)
{
	(void)arg;
	return cpu_read_pmc(map);
}

const struct vperfctr_clock vperfctr_cpu_clock = {
	.read_tsc = CPU_HAS_TSC ? cpu_clock_read_tsc : NULL,
	.read_pmc = CPU_HAS_PMC ? cpu_clock_read_pmc : NULL,
	.arg = NULL,
};

/**
 * vperfctr_scale_time - TSC ticks to nanoseconds, as the kernel does it
 * @delta: ticks
 * @mult: the page's time_mult
 * @shift: the page's time_shift, at most VPERFCTR_TIME_SHIFT_MAX
 *
 * (@delta * @mult) >> @shift without the 64-bit overflow of the product:
 * @delta is split at bit @shift, and the high part is multiplied after
 * the shift, the low part (under 2^@shift) before it.  Exact modulo 2^64
 * for any @delta.
 *
 * Return: the nanoseconds.
 */
__u64 vperfctr_scale_time(__u64 delta, __u32 mult, __u32 shift)
{
	__u64 low_mask = (1ull << shift) - 1;	/* shift <= 32: defined */

	return (delta >> shift) * mult + (((delta & low_mask) * mult) >> shift);
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
 * The functions below are inlined into each entry point, so that with
 * the CPU's own clock, a constant, the indirect calls become the rdtsc
 * and rdpmc instructions themselves: a read of the TSC alone is then a
 * few loads around one rdtsc.
 */
#define always_inline	inline __attribute__((always_inline))

/* The TSC now, read at most once per snapshot: 0, or -1 if unreadable. */
static always_inline int tsc_now(const struct vperfctr_clock *clock, __u64 *now, int *have)
{
	if (!*have) {
		if (!clock->read_tsc)
			return -1;
		*now = clock->read_tsc(clock->arg);
		*have = 1;
	}
	return 0;
}

/*
 * What the counter at @pmc counted since its owner's last resume, into
 * @delta: 0, or -1 if this reader cannot know.  @now and @have_now are
 * the snapshot's TSC, as for tsc_now().
 */
static always_inline int live_delta(const struct vperfctr_state *state,
		      const struct perfctr_pmc_state *pmc,
		      const struct vperfctr_clock *clock,
		      __u64 *now, int *have_now, __u64 *delta)
{
	__u32 map = load(pmc->map);
	__u32 shift;

	*delta = 0;
	if (!(map & PERFCTR_MAP_SOFTWARE)) {
		__u32 width = load(pmc->width);

		/* Without the kernel's leave, the read would fault. */
		if (!clock->read_pmc ||
		    !(load(state->flags) & VPERFCTR_STATE_RDPMC))
			return -1;
		*delta = clock->read_pmc(clock->arg, map) - load(pmc->start);
		if (width < 64)
			*delta &= (1ull << width) - 1;
		return 0;
	}
	/* Software counters are current, all but task-clock. */
	if (map != (PERFCTR_MAP_SOFTWARE | PERFCTR_SW_TASK_CLOCK))
		return 0;
	shift = load(state->time_shift);
	if (shift > VPERFCTR_TIME_SHIFT_MAX ||
	    tsc_now(clock, now, have_now) < 0)
		return -1;
	*delta = vperfctr_scale_time(*now - load(pmc->start),
				     load(state->time_mult), shift);
	return 0;
}

/*
 * One consistent snapshot of the page into @sum: the TSC if @with_tsc,
 * and counters @first to @end - 1.  The other fields of @sum are left
 * alone.
 */
static always_inline int read_page(const struct vperfctr_state *state,
		     const struct vperfctr_clock *clock,
		     struct perfctr_sum_ctrs *sum, int with_tsc,
		     unsigned int first, unsigned int end)
{
	const struct perfctr_cpu_state *cpu = &state->cpu_state;
	unsigned int tries, i, nrctrs;
	__u32 seq, cstatus, flags;
	__u64 now = 0, delta;
	int live, have_now;

	for (tries = 0; tries < VPERFCTR_READ_RETRIES; tries++) {
		seq = __atomic_load_n(&state->seq, __ATOMIC_ACQUIRE);
		cstatus = load(cpu->cstatus);
		flags = load(state->flags);
		live = (flags & VPERFCTR_STATE_ONCPU) != 0;
		have_now = 0;

		if (with_tsc) {
			sum->tsc = load(cpu->tsc_sum);
			if (live && perfctr_cstatus_has_tsc(cstatus)) {
				if (tsc_now(clock, &now, &have_now) < 0)
					goto unsupported;
				sum->tsc += now - load(cpu->tsc_start);
			}
		}

		/*
		 * Counters not running now (after an overflow, or beyond
		 * the control) read as their sums, as vperfctr_read() has
		 * them.
		 */
		nrctrs = perfctr_cstatus_nrctrs(cstatus);
		for (i = first; i < end; i++) {
			const struct perfctr_pmc_state *pmc = &cpu->pmc[i];

			sum->pmc[i] = load(pmc->sum);
			/* nrctrs may be torn and too large: seq decides. */
			if (!live || i >= nrctrs)
				continue;
			if (live_delta(state, pmc, clock, &now, &have_now,
				       &delta) < 0)
				goto unsupported;
			sum->pmc[i] += delta;
		}

		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		if (!(seq & 1) && load(state->seq) == seq)
			return 0;
	}
	errno = EAGAIN;
	return -1;

unsupported:
	errno = EOPNOTSUPP;
	return -1;
}

/* The TSC alone, in one snapshot. */
static always_inline int read_tsc(const struct vperfctr_state *state,
				  const struct vperfctr_clock *clock,
				  __u64 *tsc)
{
	struct perfctr_sum_ctrs sum;

	if (read_page(state, clock, &sum, 1, 0, 0) < 0)
		return -1;
	*tsc = sum.tsc;
	return 0;
}

/* Counter @i alone, in one snapshot. */
static always_inline int read_pmc(const struct vperfctr_state *state,
				  const struct vperfctr_clock *clock,
				  unsigned int i, __u64 *value)
{
	struct perfctr_sum_ctrs sum;

	if (i >= PERFCTR_MAX_NRCTRS) {
		errno = EINVAL;
		return -1;
	}
	if (read_page(state, clock, &sum, 0, i, i + 1) < 0)
		return -1;
	*value = sum.pmc[i];
	return 0;
}

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
	return read_tsc(state, clock, tsc);
}

/**
 * vperfctr_state_read_ctrs - all counter sums from a state page
 * @state: the mapped page
 * @clock: the live counters of the CPU the caller runs on
 * @sum: where the values go; counters not running read as their sums
 *
 * Return: 0, or -1 with errno EAGAIN (the page kept changing) or
 * EOPNOTSUPP (counters are live but @clock cannot read them, or the
 * page's time_shift is beyond VPERFCTR_TIME_SHIFT_MAX).
 */
int vperfctr_state_read_ctrs(const struct vperfctr_state *state,
			     const struct vperfctr_clock *clock,
			     struct perfctr_sum_ctrs *sum)
{
	return read_page(state, clock, sum, 1, 0, PERFCTR_MAX_NRCTRS);
}

/**
 * vperfctr_state_read_pmc - one counter's sum from a state page
 * @state: the mapped page
 * @clock: the live counters of the CPU the caller runs on
 * @i: the counter, below PERFCTR_MAX_NRCTRS
 * @value: where the value goes
 *
 * The same as vperfctr_state_read_ctrs() for sum.pmc[@i], without
 * touching the other counters or the TSC (which task-clock still reads).
 *
 * Return: 0, or -1 with errno EINVAL (@i out of range), EAGAIN or
 * EOPNOTSUPP.
 */
int vperfctr_state_read_pmc(const struct vperfctr_state *state,
			    const struct vperfctr_clock *clock,
			    unsigned int i, __u64 *value)
{
	return read_pmc(state, clock, i, value);
}

/*
 * The CPU's own clock, as the library reads a page: with rdpmc only for
 * the caller's own state, whose counters are the ones on this CPU.
 */
static const struct vperfctr_clock cpu_clock_self = {
	.read_tsc = CPU_HAS_TSC ? cpu_clock_read_tsc : NULL,
	.read_pmc = CPU_HAS_PMC ? cpu_clock_read_pmc : NULL,
};

static __u64 cpu_clock_read_tsc_ordered(void *arg)
{
	(void)arg;
	return cpu_read_tsc_ordered();
}

/*
 * Another thread's page: its owner runs on another CPU, whose suspend
 * only a strictly ordered clock read is ordered against.
 */
static const struct vperfctr_clock cpu_clock_other = {
	.read_tsc = CPU_HAS_TSC ? cpu_clock_read_tsc_ordered : NULL,
};

/**
 * vperfctr_cpu_read_tsc - vperfctr_state_read_tsc() with the CPU's clock
 * @state: the mapped page
 * @is_self: the page is the calling thread's own
 * @tsc: where the value goes
 *
 * Return: as vperfctr_state_read_tsc().
 */
int vperfctr_cpu_read_tsc(const struct vperfctr_state *state, int is_self,
			  __u64 *tsc)
{
	if (is_self)
		return read_tsc(state, &cpu_clock_self, tsc);
	return read_tsc(state, &cpu_clock_other, tsc);
}

/**
 * vperfctr_cpu_read_ctrs - vperfctr_state_read_ctrs() with the CPU's clock
 * @state: the mapped page
 * @is_self: the page is the calling thread's own
 * @sum: where the values go
 *
 * Return: as vperfctr_state_read_ctrs().
 */
int vperfctr_cpu_read_ctrs(const struct vperfctr_state *state, int is_self,
			   struct perfctr_sum_ctrs *sum)
{
	if (is_self)
		return read_page(state, &cpu_clock_self, sum, 1, 0,
				 PERFCTR_MAX_NRCTRS);
	return read_page(state, &cpu_clock_other, sum, 1, 0,
			 PERFCTR_MAX_NRCTRS);
}

/**
 * vperfctr_cpu_read_pmc - vperfctr_state_read_pmc() with the CPU's clock
 * @state: the mapped page
 * @is_self: the page is the calling thread's own
 * @i: the counter, below PERFCTR_MAX_NRCTRS
 * @value: where the value goes
 *
 * Return: as vperfctr_state_read_pmc().
 */
int vperfctr_cpu_read_pmc(const struct vperfctr_state *state, int is_self,
			  unsigned int i, __u64 *value)
{
	if (is_self)
		return read_pmc(state, &cpu_clock_self, i, value);
	return read_pmc(state, &cpu_clock_other, i, value);
}
