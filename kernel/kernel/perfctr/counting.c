// SPDX-License-Identifier: GPL-2.0
/*
 * Virtual per-process performance counters: counting.  A thread's
 * counters run while it runs: suspend folds what they counted into the
 * 64-bit sums of the shared page, resume starts them again, and sample
 * does both without the thread noticing.  Every change to the page is
 * made inside its sequence count, so a reader never sees one half done.
 */
#include <linux/bitops.h>
#include <linux/bits.h>
#include <linux/hrtimer.h>
#include <linux/minmax.h>
#include <linux/sched.h>
#include <linux/string.h>
#include <linux/perfctr_pmu.h>

#include "internal.h"

/*
 * The clock that ends a running period, read once seq is odd and seen so
 * by every CPU: a reader on another CPU that still found seq even read
 * its own clock before this one, so no sum it computed from the running
 * counters exceeds the sum stored here, and a sum a reader has seen never
 * shrinks (but for an x86 TopDown metric, whose live share of the slots
 * may round lower as the slots grow).  The full barrier orders the store
 * of seq before the read of the clock, which no lighter barrier orders.
 */
static u64 vperfctr_read_tsc_after_begin(void)
{
	/* Pairs with the reader's clock read before its second seq load. */
	mb();
	return arch_perfctr_read_tsc();
}

/*
 * Only the TSC and task-clock read the time-stamp counter: a thread that
 * counts just events does not pay for it at every switch.
 */
static bool vperfctr_needs_tsc(const struct vperfctr *perfctr, u32 cstatus)
{
	return perfctr_cstatus_has_tsc(cstatus) ||
	       (perfctr->sw_events & BIT(PERFCTR_SW_TASK_CLOCK));
}

/*
 * What a reader of the page must compute live while the counters run:
 * the TSC, and the user-readable hardware counters among the running
 * ones (task-clock has its own word); the other software counters' sums
 * are kept current.  Running hardware counters that user mode may not
 * read send readers to the system call.
 */
static u64 vperfctr_live(const struct vperfctr *perfctr, u32 running)
{
	const struct vperfctr_state *kstate = perfctr->kstate;
	u64 hw = perfctr->hw_pmcs & running, live = 0;

	if (kstate->flags & VPERFCTR_STATE_RDPMC)
		live = hw;
	else if (hw)
		live = VPERFCTR_LIVE_SYSCALL;
	if (perfctr_cstatus_has_tsc(kstate->cpu_state.cstatus))
		live |= VPERFCTR_LIVE_TSC;
	return live;
}

/**
 * vperfctr_suspend - stop counting and fold the counts into the sums
 * @perfctr: a state whose counters run on this CPU
 *
 * A hardware counter adds what it counted since it was resumed, modulo
 * its width; an interrupt-mode one keeps its raw value to be reloaded on
 * resume.  Called with interrupts off on the owner's CPU.
 *
 * Return: the mask of interrupt-mode counters that overflowed.
 */
u32 vperfctr_suspend(struct vperfctr *perfctr)
{
	struct vperfctr_state *kstate = perfctr->kstate;
	struct perfctr_cpu_state *state = &kstate->cpu_state;
	u32 cstatus = state->cstatus;
	unsigned int i, nrctrs = perfctr_cstatus_nrctrs(cstatus);
	u64 tsc = 0;
	u32 ovf = 0;

	/*
	 * Armed only for an i-mode task-clock, on this CPU, whose interrupts
	 * are off: queued or not, its callback cannot be running.
	 */
	if (hrtimer_is_queued(&perfctr->itimer))
		hrtimer_try_to_cancel(&perfctr->itimer);
	vperfctr_write_begin(kstate);
	if (vperfctr_needs_tsc(perfctr, cstatus))
		tsc = vperfctr_read_tsc_after_begin();
	if (perfctr->nrhw && nrctrs)
		arch_perfctr_disable(state);
	for (i = 0; i < nrctrs; i++) {
		struct perfctr_pmc_state *pmc = &state->pmc[i];
		u64 now, delta;

		if (vperfctr_map_is_task_clock(pmc->map)) {
			delta = vperfctr_tsc_to_ns(kstate, tsc - pmc->start);
			pmc->sum += delta;
			if (vperfctr_is_imode(cstatus, i) &&
			    vperfctr_icount_add(perfctr, i, delta))
				ovf |= BIT(i);
			continue;
		}
		if (vperfctr_map_is_software(pmc->map))
			continue;
		now = arch_perfctr_read_counter(pmc->map);
		pmc->sum += (now - pmc->start) & vperfctr_width_mask(pmc->width);
		if (!vperfctr_is_imode(cstatus, i))
			continue;
		pmc->start = now;
		if (vperfctr_hw_overflowed(pmc))
			ovf |= BIT(i);
	}
	if (perfctr_cstatus_has_tsc(cstatus))
		state->tsc_sum += tsc - state->tsc_start;
	kstate->flags &= ~VPERFCTR_STATE_ONCPU;
	kstate->live = 0;
	kstate->live_clock = 0;
	vperfctr_write_end(kstate);
	return ovf;
}

/**
 * vperfctr_resume - start counting from the current hardware values
 * @perfctr: a state with enabled counters, owned by the current thread
 *
 * Accumulation-mode hardware counters start from whatever the hardware
 * holds, or from zero if the driver restarts them; interrupt-mode ones
 * are loaded with their saved value, so they overflow after the events
 * still due.  Called with interrupts off on the owner's CPU.
 */
void vperfctr_resume(struct vperfctr *perfctr)
{
	struct vperfctr_state *kstate = perfctr->kstate;
	struct perfctr_cpu_state *state = &kstate->cpu_state;
	u32 cstatus = state->cstatus;
	unsigned int i, nrctrs = perfctr_cstatus_nrctrs(cstatus);
	u64 tsc, itimer_ns;
	u32 running;

	tsc = vperfctr_needs_tsc(perfctr, cstatus) ? arch_perfctr_read_tsc() : 0;
	vperfctr_write_begin(kstate);
	if (perfctr_cstatus_has_tsc(cstatus))
		state->tsc_start = tsc;
	for (i = 0; i < nrctrs; i++) {
		struct perfctr_pmc_state *pmc = &state->pmc[i];

		if (vperfctr_map_is_task_clock(pmc->map))
			pmc->start = tsc;
		else if (vperfctr_map_is_software(pmc->map))
			continue;
		else if (vperfctr_is_imode(cstatus, i))
			arch_perfctr_write_counter(pmc->map, pmc->start);
		else if (perfctr->restart_pmcs & BIT(i))
			pmc->start = 0;	/* arch_perfctr_enable() zeroes it */
		else
			pmc->start = arch_perfctr_read_counter(pmc->map);
	}
	if (perfctr->nrhw && nrctrs)
		arch_perfctr_enable(state, &perfctr->control.cpu_control);
	kstate->flags |= VPERFCTR_STATE_ONCPU;
	running = BIT_ULL(nrctrs) - 1;
	kstate->live = vperfctr_live(perfctr, running);
	kstate->live_clock = perfctr->clock_pmcs & running;
	vperfctr_write_end(kstate);

	/* Only an i-mode task-clock has a timer to arm. */
	itimer_ns = perfctr_cstatus_nrictrs(cstatus) ?
		vperfctr_itimer_ns(perfctr) : 0;
	if (itimer_ns)
		hrtimer_start(&perfctr->itimer, ns_to_ktime(itimer_ns),
			      HRTIMER_MODE_REL_PINNED_HARD);
	perfctr->ticks_left = perfctr->sample_ticks;
}

/* Suspend, handle an overflow, and resume what is still enabled. */
void vperfctr_sample_checked(struct vperfctr *perfctr, u32 ovf)
{
	ovf |= vperfctr_suspend(perfctr);
	if (ovf)
		vperfctr_overflow(perfctr, ovf);
	if (perfctr_cstatus_enabled(perfctr->kstate->cpu_state.cstatus))
		vperfctr_resume(perfctr);
}

/**
 * vperfctr_sample - bring the sums up to date without stopping
 * @perfctr: a state whose counters run on this CPU
 *
 * Called with interrupts off on the owner's CPU.
 */
void vperfctr_sample(struct vperfctr *perfctr)
{
	vperfctr_sample_checked(perfctr, 0);
}

/*
 * Stop the counters for good, keeping the sums, and end user-mode reads
 * of the hardware counters.  Interrupts off.
 */
void vperfctr_stop(struct vperfctr *perfctr)
{
	struct vperfctr_state *kstate = perfctr->kstate;
	bool user_read = kstate->flags & VPERFCTR_STATE_RDPMC;

	if (vperfctr_is_oncpu(perfctr))
		vperfctr_suspend(perfctr);
	vperfctr_write_begin(kstate);
	kstate->cpu_state.cstatus = 0;
	kstate->flags &= ~(VPERFCTR_STATE_OVERFLOW | VPERFCTR_STATE_RDPMC);
	vperfctr_write_end(kstate);
	if (user_read && current->thread.perfctr == perfctr)
		arch_perfctr_user_read(false);
	perfctr->iresume_cstatus = 0;
	WRITE_ONCE(perfctr->pending_ovf, 0);
}

/**
 * vperfctr_get_sums - copy the counter sums
 * @perfctr: the state, suspended or just sampled
 * @sum: where to put them
 */
void vperfctr_get_sums(const struct vperfctr *perfctr,
		       struct perfctr_sum_ctrs *sum)
{
	const struct perfctr_cpu_state *state = &perfctr->kstate->cpu_state;
	unsigned int i;

	sum->tsc = state->tsc_sum;
	for (i = 0; i < PERFCTR_MAX_NRCTRS; i++)
		sum->pmc[i] = state->pmc[i].sum;
}

/**
 * vperfctr_get_live_sums - the sums as of now, the counters left running
 * @perfctr: a state whose counters run on this CPU, without i-mode ones
 * @sum: where to put them
 *
 * What a sample followed by vperfctr_get_sums() gives, computed as the
 * fast read computes it: the page, the hardware and the running counters
 * are left alone.  Interrupts off on the owner's CPU.
 */
void vperfctr_get_live_sums(const struct vperfctr *perfctr,
			    struct perfctr_sum_ctrs *sum)
{
	const struct vperfctr_state *kstate = perfctr->kstate;
	const struct perfctr_cpu_state *state = &kstate->cpu_state;
	unsigned int i, n = min(kstate->nrsums, PERFCTR_MAX_NRCTRS);
	u64 live = kstate->live, tsc = 0;
	u32 clocks = kstate->live_clock, hw = 0;

	/* Only the first nrsums sums can be other than 0, and be live. */
	memset(sum, 0, sizeof(*sum));
	if (live || clocks) {
		tsc = arch_perfctr_read_tsc();
		/* The kernel reads every hardware counter, user mode or not. */
		hw = perfctr->hw_pmcs &
		     (BIT_ULL(perfctr_cstatus_nrctrs(state->cstatus)) - 1);
	}
	sum->tsc = state->tsc_sum;
	if (live & VPERFCTR_LIVE_TSC)
		sum->tsc += tsc - state->tsc_start;
	for (i = 0; i < n; i++) {
		const struct perfctr_pmc_state *pmc = &state->pmc[i];
		u64 value = pmc->sum;

		if (clocks & BIT(i))
			value += vperfctr_tsc_to_ns(kstate, tsc - pmc->start);
		else if (hw & BIT(i))
			value += (arch_perfctr_read_counter(pmc->map) -
				  pmc->start) & vperfctr_width_mask(pmc->width);
		sum->pmc[i] = value;
	}
}
