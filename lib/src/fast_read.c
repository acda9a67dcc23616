// SPDX-License-Identifier: LGPL-2.1
/*
 * The fast read: counter values from the mapped state page, no system call.
 *
 * While the owner runs, the kernel keeps in the page, per counter, the sum
 * up to the last suspend and the hardware value at the last resume, so
 *
 *	value = sum + (now - start)
 *
 * with "now" read from the hardware.  While the owner is suspended (or
 * gone), value = sum.  The kernel makes 'seq' odd while it rewrites the
 * page and even again after; a read that saw 'seq' odd, or changed, raced
 * with an update and is done again.
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

const struct vperfctr_clock vperfctr_cpu_clock = {
	.read_tsc = CPU_HAS_TSC ? cpu_clock_read_tsc : NULL,
	.read_pmc = NULL,	/* no rdpmc until the driver has counters */
	.arg = NULL,
};

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
 * One consistent snapshot of the page into @sum: the TSC, and when
 * @with_pmcs the programmable counters too.
 */
static int read_page(const struct vperfctr_state *state,
		     const struct vperfctr_clock *clock,
		     struct perfctr_sum_ctrs *sum, int with_pmcs)
{
	const struct perfctr_cpu_state *cpu = &state->cpu_state;
	unsigned int tries, i, nrctrs;
	__u32 seq, cstatus, flags;
	int live;

	for (tries = 0; tries < VPERFCTR_READ_RETRIES; tries++) {
		seq = __atomic_load_n(&state->seq, __ATOMIC_ACQUIRE);
		cstatus = load(cpu->cstatus);
		flags = load(state->flags);
		live = (flags & VPERFCTR_STATE_ONCPU) != 0;

		sum->tsc = load(cpu->tsc_sum);
		if (live && perfctr_cstatus_has_tsc(cstatus)) {
			if (!clock->read_tsc)
				goto unsupported;
			sum->tsc += clock->read_tsc(clock->arg) -
				    load(cpu->tsc_start);
		}

		nrctrs = with_pmcs ? perfctr_cstatus_nrctrs(cstatus) : 0;
		if (nrctrs > PERFCTR_MAX_NRCTRS)
			nrctrs = PERFCTR_MAX_NRCTRS;	/* torn: seq decides */
		if (nrctrs && live && !clock->read_pmc)
			goto unsupported;
		for (i = 0; i < nrctrs; i++) {
			const struct perfctr_pmc_state *pmc = &cpu->pmc[i];

			sum->pmc[i] = load(pmc->sum);
			if (live)
				sum->pmc[i] += clock->read_pmc(clock->arg,
							       load(pmc->map)) -
					       load(pmc->start);
		}
		if (with_pmcs)
			memset(&sum->pmc[nrctrs], 0,
			       (PERFCTR_MAX_NRCTRS - nrctrs) *
			       sizeof(sum->pmc[0]));

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
	struct perfctr_sum_ctrs sum;

	if (read_page(state, clock, &sum, 0) < 0)
		return -1;
	*tsc = sum.tsc;
	return 0;
}

/**
 * vperfctr_state_read_ctrs - all counter sums from a state page
 * @state: the mapped page
 * @clock: the live counters of the CPU the caller runs on
 * @sum: where the values go; counters beyond those enabled read as 0
 *
 * Return: 0, or -1 with errno EAGAIN (the page kept changing) or
 * EOPNOTSUPP (counters are live but @clock cannot read them).
 */
int vperfctr_state_read_ctrs(const struct vperfctr_state *state,
			     const struct vperfctr_clock *clock,
			     struct perfctr_sum_ctrs *sum)
{
	return read_page(state, clock, sum, 1);
}
