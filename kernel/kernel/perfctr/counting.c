// SPDX-License-Identifier: GPL-2.0
/*
 * Virtual per-process performance counters: counting.  A thread's
 * counters run while it runs: suspend folds what they counted into the
 * 64-bit sums of the shared page, resume starts them again, and sample
 * does both without the thread noticing.  Every change to the page is
 * made inside its sequence count, so a reader never sees one half done.
 * The context-switch hook lives here too, so that suspend and resume are
 * inlined into it, and one clock read serves both.
 */
#include <linux/bitops.h>
#include <linux/bits.h>
#include <linux/cpumask.h>
#include <linux/hrtimer.h>
#include <linux/minmax.h>
#include <linux/sched.h>
#include <linux/string.h>
#include <linux/perfctr_pmu.h>

#include "internal.h"

/**
 * struct vperfctr_now - what a switch knows of this moment
 * @tsc:	the clock, read at most once for a switch
 * @valid:	whether @tsc was read
 * @hw_zero:	every hardware counter of this CPU reads zero: the driver
 *		just let the entering thread read them
 * @running:	for a hand-off, the outgoing thread's hardware counters,
 *		read but still running
 * @running_plan: the plan they were started from
 */
struct vperfctr_now {
	u64				tsc;
	bool				valid;
	bool				hw_zero;
	const struct perfctr_cpu_state	*running;
	const struct perfctr_plan	*running_plan;
};

/* Read the clock for this moment, once. */
static __always_inline u64 vperfctr_now_read(struct vperfctr_now *now)
{
	now->tsc = vperfctr_read_tsc();
	now->valid = true;
	return now->tsc;
}

/*
 * The clock that ends a running period, read once seq is odd and seen so
 * by every CPU: a reader on another CPU that still found seq even read
 * its own clock before this one, so no sum it computed from the running
 * counters exceeds the sum stored here, and a sum a reader has seen never
 * shrinks (but for an x86 TopDown metric, whose live share of the slots
 * may round lower as the slots grow).  The full barrier orders the store
 * of seq before the read of the clock, which no lighter barrier orders.
 * A resume that follows starts from the same clock: the time between the
 * two is the resumed thread's, and a sample loses none.
 */
static __always_inline u64
vperfctr_read_tsc_after_begin(struct vperfctr_now *now)
{
	/* Pairs with the reader's clock read before its second seq load. */
	mb();
	return vperfctr_now_read(now);
}

/* The clock a resume starts from: the suspend's, else a fresh one. */
static __always_inline u64 vperfctr_now_tsc(struct vperfctr_now *now)
{
	return now->valid ? now->tsc : vperfctr_now_read(now);
}

/**
 * __vperfctr_suspend - stop counting and fold the counts into the sums
 * @perfctr: a state whose counters run on this CPU
 * @now: where the clock that ends the period is left, if one is read
 * @hand_off: @perfctr is simple_switch, and the resume of the next thread
 *	stops its hardware counters, which are read running
 *
 * Only the TSC and task-clock read the clock: a thread that counts just
 * events does not pay for it.  A hardware counter adds what it counted
 * since it was resumed, modulo its width; an interrupt-mode one keeps its
 * raw value to be reloaded on resume.  The other software counters' sums
 * are current already.  Called with interrupts off on the owner's CPU.
 *
 * Return: the mask of interrupt-mode counters that overflowed.
 */
static __always_inline u32
__vperfctr_suspend(struct vperfctr *perfctr, struct vperfctr_now *now,
		   bool hand_off)
{
	struct vperfctr_state *userpg = perfctr->userpg;
	struct perfctr_cpu_state *state = &userpg->cpu_state;
	bool has_tsc = perfctr_cstatus_has_tsc(state->cstatus);
	u32 clocks = perfctr->run_clocks, hw = perfctr->run_hw;
	u32 imode = hand_off ? 0 : perfctr->run_imode;
	u32 ovf = 0, m;
	u64 ticks = 0, ns;

	lockdep_assert_irqs_disabled();
	/*
	 * Armed only for an i-mode task-clock, on this CPU, whose interrupts
	 * are off: queued or not, its callback cannot be running.
	 */
	if (!hand_off && hrtimer_is_queued(&perfctr->itimer))
		hrtimer_try_to_cancel(&perfctr->itimer);
	vperfctr_write_begin(userpg);
	/* The TSC and every task-clock started at tsc_start. */
	if (has_tsc || clocks)
		ticks = vperfctr_read_tsc_after_begin(now) - state->tsc_start;
	ns = clocks ? vperfctr_tsc_to_ns(userpg, ticks) : 0;
	for (m = clocks; m; m &= m - 1) {
		unsigned int i = __ffs(m);

		state->pmc[i].sum += ns;
		if ((imode & BIT(i)) && vperfctr_icount_add(perfctr, i, ns))
			ovf |= BIT(i);
	}
	if (hw && !hand_off)
		perfctr_driver(disable)(state);
	for (m = hw; m; m &= m - 1) {
		unsigned int i = __ffs(m);
		struct perfctr_pmc_state *pmc = &state->pmc[i];
		u64 hw_now = vperfctr_read_counter(pmc->map);

		pmc->sum += vperfctr_hw_delta(hw_now, pmc->start, pmc->width);
		if (!(imode & BIT(i))) {
			/* Where a resume that zeroes the counter starts it. */
			pmc->start = 0;
			continue;
		}
		pmc->start = hw_now;
		if (vperfctr_hw_overflowed(pmc))
			ovf |= BIT(i);
	}
	if (has_tsc)
		state->tsc_sum += ticks;
	userpg->flags &= ~VPERFCTR_STATE_ONCPU;
	userpg->live = 0;
	userpg->live_clock = 0;
	vperfctr_write_end(userpg);
	return ovf;
}

/**
 * vperfctr_suspend - stop counting and fold the counts into the sums
 * @perfctr: a state whose counters run on this CPU
 *
 * __vperfctr_suspend(), its clock not used again.
 *
 * Return: the mask of interrupt-mode counters that overflowed.
 */
u32 vperfctr_suspend(struct vperfctr *perfctr)
{
	struct vperfctr_now now = {};

	return __vperfctr_suspend(perfctr, &now, false);
}

/**
 * __vperfctr_resume - start counting from the current hardware values
 * @perfctr: a state with enabled counters, owned by the current thread
 * @now: the clock the period starts from, read here if no suspend just
 *	read it, and whether the counters read zero
 * @hand_off: @perfctr is simple_switch, its counters run, it may read
 *	them in user mode, and @now->running are the outgoing thread's:
 *	arch_perfctr_switch() stops those, zeroes all and starts these
 *
 * Accumulation-mode hardware counters start from whatever the hardware
 * holds, or from zero if the driver restarts them or has just zeroed
 * them all; interrupt-mode ones are loaded with their saved value, so
 * they overflow after the events still due.  Called with interrupts off
 * on the owner's CPU.
 */
static __always_inline void
__vperfctr_resume(struct vperfctr *perfctr, struct vperfctr_now *now,
		  bool hand_off)
{
	struct vperfctr_state *userpg = perfctr->userpg;
	struct perfctr_cpu_state *state = &userpg->cpu_state;
	u32 cstatus = state->cstatus;
	bool has_tsc = perfctr_cstatus_has_tsc(cstatus);
	/* All the control's counters, or none while an overflow stops them. */
	bool on = hand_off || perfctr_cstatus_nrctrs(cstatus);
	u32 clocks = on ? perfctr->setup.clock_pmcs : 0;
	u32 hw = on ? perfctr->setup.hw_pmcs : 0;
	u32 imode = on && !hand_off ? perfctr->setup.imode_pmcs : 0;
	u32 zero = hand_off || now->hw_zero ? hw : perfctr->setup.restart_pmcs;
	u64 tsc = 0, itimer_ns;
	u32 m;

	lockdep_assert_irqs_disabled();
	perfctr->run_clocks = clocks;
	perfctr->run_hw = hw;
	perfctr->run_imode = imode;
	if (has_tsc || clocks)
		tsc = vperfctr_now_tsc(now);
	vperfctr_write_begin(userpg);
	/* The TSC's start is task-clock's too, the TSC counted or not. */
	if (has_tsc || clocks)
		state->tsc_start = tsc;
	for (m = clocks; m; m &= m - 1)
		state->pmc[__ffs(m)].start = tsc;
	/*
	 * A suspended a-mode counter starts at 0 already: right for one the
	 * driver has zeroed, or will (arch_perfctr_switch(), a restart).
	 */
	for (m = hand_off ? 0 : hw & (imode | ~zero); m; m &= m - 1) {
		unsigned int i = __ffs(m);
		struct perfctr_pmc_state *pmc = &state->pmc[i];

		if (imode & BIT(i))
			perfctr_driver(write_counter)(pmc->map, pmc->start);
		else
			pmc->start = vperfctr_read_counter(pmc->map);
	}
	if (hand_off)
		perfctr_driver(switch)(now->running, now->running_plan,
				       &perfctr->setup.plan);
	else if (hw)
		perfctr_driver(enable)(&perfctr->setup.plan);
	userpg->flags |= VPERFCTR_STATE_ONCPU;
	userpg->live = on ? perfctr->live_on : has_tsc ? VPERFCTR_LIVE_TSC : 0;
	userpg->live_clock = clocks;
	vperfctr_write_end(userpg);

	/* Only an i-mode task-clock has a timer to arm. */
	itimer_ns = imode ? vperfctr_itimer_ns(perfctr) : 0;
	if (itimer_ns)
		hrtimer_start(&perfctr->itimer, ns_to_ktime(itimer_ns),
			      HRTIMER_MODE_REL_PINNED_HARD);
}

/**
 * vperfctr_resume - start counting from the current hardware values
 * @perfctr: a state with enabled counters, owned by the current thread
 *
 * __vperfctr_resume() from a clock read now.
 */
void vperfctr_resume(struct vperfctr *perfctr)
{
	struct vperfctr_now now = {};

	__vperfctr_resume(perfctr, &now, false);
}

/* Suspend, handle an overflow, and resume what is still enabled. */
void vperfctr_sample_checked(struct vperfctr *perfctr, u32 ovf)
{
	struct vperfctr_now now = {};

	ovf |= __vperfctr_suspend(perfctr, &now, false);
	if (ovf)
		vperfctr_overflow(perfctr, ovf);
	if (perfctr_cstatus_enabled(perfctr->userpg->cpu_state.cstatus))
		__vperfctr_resume(perfctr, &now, false);
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
void vperfctr_stop_counters(struct vperfctr *perfctr)
{
	struct vperfctr_state *userpg = perfctr->userpg;
	bool user_read = userpg->flags & VPERFCTR_STATE_RDPMC;

	lockdep_assert_irqs_disabled();
	if (vperfctr_is_oncpu(perfctr))
		vperfctr_suspend(perfctr);
	vperfctr_write_begin(userpg);
	userpg->cpu_state.cstatus = 0;
	userpg->flags &= ~(VPERFCTR_STATE_OVERFLOW | VPERFCTR_STATE_RDPMC);
	vperfctr_write_end(userpg);
	if (user_read && current->thread.perfctr == perfctr)
		perfctr_driver(user_read)(false);
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
	const struct perfctr_cpu_state *state = &perfctr->userpg->cpu_state;
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
	const struct vperfctr_state *userpg = perfctr->userpg;
	const struct perfctr_cpu_state *state = &userpg->cpu_state;
	unsigned int i, n = min(userpg->nrsums, PERFCTR_MAX_NRCTRS);
	u64 live = userpg->live, tsc = 0;
	u32 clocks = userpg->live_clock, hw = 0;

	lockdep_assert_irqs_disabled();
	/* Only the first nrsums sums can be other than 0, and be live. */
	memset(sum, 0, sizeof(*sum));
	if (live || clocks) {
		tsc = vperfctr_read_tsc();
		/* The kernel reads every hardware counter, user mode or not. */
		hw = perfctr->setup.hw_pmcs &
		     (BIT_ULL(perfctr_cstatus_nrctrs(state->cstatus)) - 1);
	}
	sum->tsc = state->tsc_sum;
	if (live & VPERFCTR_LIVE_TSC)
		sum->tsc += tsc - state->tsc_start;
	for (i = 0; i < n; i++) {
		const struct perfctr_pmc_state *pmc = &state->pmc[i];
		u64 value = pmc->sum;

		if (clocks & BIT(i)) {
			value += vperfctr_tsc_to_ns(userpg, tsc - pmc->start);
		} else if (hw & BIT(i)) {
			u64 hw_now = vperfctr_read_counter(pmc->map);

			value += vperfctr_hw_delta(hw_now, pmc->start,
						   pmc->width);
		}
		sum->pmc[i] = value;
	}
}

/*
 * Interrupts are off: this is __switch_to().  User-mode reads of the
 * counters follow the thread, not its counters' state: they stay allowed
 * while an overflow has the counters stopped, so a reader that saw them
 * running a moment ago never faults.  They are not taken away when the
 * next thread may read too (@next_reads): its resume gives them again,
 * and clears what this thread counted first.  A context-switch counter
 * counts the switch if another thread takes the CPU (@switched).
 */
static void vperfctr_switch_out(struct vperfctr *perfctr, bool next_reads,
				bool switched, struct vperfctr_now *now)
{
	u32 ovf;

	if ((perfctr->userpg->flags & VPERFCTR_STATE_RDPMC) && !next_reads)
		perfctr_driver(user_read)(false);
	if (!vperfctr_is_oncpu(perfctr))
		return;
	ovf = __vperfctr_suspend(perfctr, now, false);
	/* Tested here too: most controls do not count switches. */
	if (switched &&
	    (perfctr->setup.sw_events & BIT(PERFCTR_SW_CONTEXT_SWITCHES)))
		ovf |= vperfctr_count_events(perfctr,
					     BIT(PERFCTR_SW_CONTEXT_SWITCHES),
					     0, 1);
	if (ovf)
		vperfctr_overflow(perfctr, ovf);
}

/*
 * Resuming on a forbidden CPU stops the counters, and user-mode reads of
 * them: the hardware there cannot count what the control asks for.
 */
static bool vperfctr_on_forbidden_cpu(struct vperfctr *perfctr, int cpu)
{
	struct vperfctr_state *userpg = perfctr->userpg;

	if (!READ_ONCE(perfctr->bad_cpus_allowed) || !perfctr->setup.nrhw ||
	    !cpumask_test_cpu(cpu, &perfctr_cpus_forbidden_mask))
		return false;
	if (userpg->flags & VPERFCTR_STATE_RDPMC)
		perfctr_driver(user_read)(false);
	vperfctr_write_begin(userpg);
	userpg->cpu_state.cstatus = 0;
	/* For good: an overflow awaiting its restart is not restarted. */
	userpg->flags &= ~(VPERFCTR_STATE_RDPMC | VPERFCTR_STATE_OVERFLOW);
	vperfctr_write_end(userpg);
	perfctr->iresume_cstatus = 0;
	WRITE_ONCE(perfctr->pending_sigill, true);
	vperfctr_notify_owner(perfctr);
	return true;
}

static void vperfctr_switch_in(struct vperfctr *perfctr,
			       struct vperfctr_now *now)
{
	int cpu = smp_processor_id();
	bool enabled = perfctr_cstatus_enabled(perfctr->userpg->cpu_state.cstatus);
	u32 ovf = 0;

	/*
	 * Not a word to the counters of a CPU that cannot count: they may
	 * lack some of the registers the driver clears for user reads.
	 */
	if (enabled && vperfctr_on_forbidden_cpu(perfctr, cpu))
		return;
	if (perfctr->userpg->flags & VPERFCTR_STATE_RDPMC) {
		perfctr_driver(user_read)(true);
		now->hw_zero = true;
	}
	if (!enabled)
		return;
	if (perfctr->last_cpu != cpu) {
		if (perfctr->last_cpu >= 0)
			ovf = vperfctr_count_events(perfctr,
						    BIT(PERFCTR_SW_CPU_MIGRATIONS),
						    0, 1);
		perfctr->last_cpu = cpu;
	}
	if (ovf)
		vperfctr_overflow(perfctr, ovf);
	if (perfctr_cstatus_enabled(perfctr->userpg->cpu_state.cstatus))
		__vperfctr_resume(perfctr, now, false);
}

/*
 * Whether @next may read its counters in user mode once it runs: a
 * resume on a forbidden CPU takes that away again, and says so to the
 * driver itself.
 */
static bool vperfctr_reads_in_user_mode(const struct vperfctr *next)
{
	return next && (next->userpg->flags & VPERFCTR_STATE_RDPMC);
}

/*
 * A hand-off: both threads count on the hardware, in accumulation mode
 * only, without counters that restart, and count no switches
 * (simple_switch); both read their counters in user mode; the outgoing
 * thread's counters run, and the incoming thread's run as soon as it
 * does, on @cpu, which it may use, and which is the CPU it last ran on:
 * a thread's first resume records @cpu as that, as the general path
 * would, no migration counted.  The outgoing thread's hardware counters
 * are then read running, and one driver call stops them, zeroes every
 * counter and starts the incoming thread's (or, where both threads'
 * counters are programmed alike, only zeroes them): what the counters
 * count in the few instructions between the read and the stop or the
 * zeroing counts for neither thread.  Its counters run as its resume
 * started them, after the grant of user-mode reads, or as a hand-off
 * from a thread so started gave them, and its reservation has held them
 * since: what arch_perfctr_switch() may rely on.  Any other switch takes
 * the general path below.
 */
static bool vperfctr_takes_hand_off(const struct vperfctr *prev,
				    struct vperfctr *next, int cpu)
{
	const u32 running = VPERFCTR_STATE_ONCPU | VPERFCTR_STATE_RDPMC;
	const struct vperfctr_state *userpg = next->userpg;

	if (!prev->setup.simple_switch || !next->setup.simple_switch ||
	    (prev->userpg->flags & running) != running ||
	    !(userpg->flags & VPERFCTR_STATE_RDPMC) ||
	    !(userpg->cpu_state.cstatus & VPERFCTR_CSTATUS_CTRS) ||
	    READ_ONCE(next->bad_cpus_allowed))
		return false;
	if (next->last_cpu == cpu)
		return true;
	if (next->last_cpu >= 0)
		return false;
	next->last_cpu = cpu;
	return true;
}

/* What the switch knows of the moment stays in registers here. */
static __always_inline void vperfctr_hand_off(struct vperfctr *prev,
					      struct vperfctr *next)
{
	struct vperfctr_now now = {};

	__vperfctr_suspend(prev, &now, true);
	now.running = &prev->userpg->cpu_state;
	now.running_plan = &prev->setup.plan;
	__vperfctr_resume(next, &now, true);
}

/*
 * The general path, out of line: what it needs of registers and stack,
 * and its calls, are not the hand-off's.  The incoming thread's counters
 * start from the clock at which the outgoing thread's stopped: one read
 * of it for both.
 */
static noinline void vperfctr_switch_general(struct vperfctr *prev,
					     struct vperfctr *next)
{
	struct vperfctr_now now = {};

	if (prev)
		vperfctr_switch_out(prev, vperfctr_reads_in_user_mode(next),
				    true, &now);
	if (next)
		vperfctr_switch_in(next, &now);
}

/**
 * vperfctr_sleep - the system sleeps while @perfctr's thread runs
 * @perfctr: the state of the current thread
 *
 * What the counters hold, and the grant of user-mode reads, may not
 * survive the sleep: counting stops as at a switch away, though no
 * other thread takes the CPU and no switch is counted.  Interrupts off.
 */
void vperfctr_sleep(struct vperfctr *perfctr)
{
	struct vperfctr_now now = {};

	vperfctr_switch_out(perfctr, false, false, &now);
}

/**
 * vperfctr_wake - the system is back from the sleep vperfctr_sleep() saw
 * @perfctr: the state of the current thread
 *
 * Counting starts again, user-mode reads granted again, as at a switch
 * back.  Interrupts off.
 */
void vperfctr_wake(struct vperfctr *perfctr)
{
	struct vperfctr_now now = {};

	lockdep_assert_irqs_disabled();
	/* Nothing resumes it in between: every caller keeps interrupts off. */
	if (WARN_ON_ONCE(vperfctr_is_oncpu(perfctr)))
		return;
	vperfctr_switch_in(perfctr, &now);
}

void __perfctr_switch_thread(struct vperfctr *prev, struct vperfctr *next)
{
	if (prev && next &&
	    vperfctr_takes_hand_off(prev, next, smp_processor_id()))
		vperfctr_hand_off(prev, next);
	else
		vperfctr_switch_general(prev, next);
}
