// SPDX-License-Identifier: GPL-2.0
/*
 * Virtual per-process performance counters: software counters.  They need
 * no counter hardware: task-clock is the time the thread ran, from the
 * time-stamp counter read at every switch; context switches, CPU
 * migrations and page faults are counted by the thread hooks.  They are
 * read from the shared page like the hardware counters.
 */
#include <linux/bits.h>
#include <linux/clocksource.h>
#include <linux/errno.h>
#include <linux/init.h>
#include <linux/irqflags.h>
#include <linux/math64.h>
#include <linux/ptrace.h>
#include <linux/perfctr_pmu.h>

#include "internal.h"

/*
 * TSC ticks to ns, for task-clock: (ticks * mult) >> shift, mult in the
 * low half, shift in the high, for the rate the TSC had when they were
 * worked out: x86 may refine it after boot.  A page takes them when its
 * control is set, and keeps them while it counts with them.
 */
static DEFINE_SPINLOCK(vperfctr_time_lock);
static u64 vperfctr_time_factors;
static u32 vperfctr_time_khz;	/* their rate: stored after them */

static void vperfctr_time_update(u32 khz)
{
	u32 mult = 0, shift = 0;

	/* Exact enough over 1000 s (10^6 ms) of ticks. */
	if (khz)
		clocks_calc_mult_shift(&mult, &shift, khz, NSEC_PER_MSEC,
				       1000000);
	spin_lock(&vperfctr_time_lock);
	WRITE_ONCE(vperfctr_time_factors, (u64)shift << 32 | mult);
	/* Pairs with the load in vperfctr_time_set(). */
	smp_store_release(&vperfctr_time_khz, khz);
	spin_unlock(&vperfctr_time_lock);
}

/**
 * vperfctr_time_set - give a page the factors of the TSC's rate now
 * @userpg: the page, inside its sequence count or not yet shown
 *
 * Both are 0 for a TSC of unknown rate.  Process context.
 */
void vperfctr_time_set(struct vperfctr_state *userpg)
{
	u32 khz = perfctr_driver(tsc_khz)();
	u64 factors;

	/* Pairs with vperfctr_time_update(): the factors of this rate. */
	if (khz != smp_load_acquire(&vperfctr_time_khz))
		vperfctr_time_update(khz);
	factors = READ_ONCE(vperfctr_time_factors);
	userpg->time_mult = (u32)factors;
	userpg->time_shift = factors >> 32;
}

/*
 * Count @n events into the running ones of counters @pmcs.  Inline: a
 * page fault, counted at every one, costs no call more than the hook.
 */
static __always_inline u32 vperfctr_count_pmcs(struct vperfctr *perfctr,
					       unsigned long pmcs, u64 n)
{
	struct vperfctr_state *userpg = perfctr->userpg;
	struct perfctr_cpu_state *state = &userpg->cpu_state;
	u32 cstatus = state->cstatus;
	unsigned int i;
	u32 ovf = 0;

	lockdep_assert_irqs_disabled();
	/* None run while an overflow has the counters stopped. */
	pmcs &= BIT_ULL(perfctr_cstatus_nrctrs(cstatus)) - 1;
	if (!pmcs)
		return 0;
	vperfctr_write_begin(userpg);
	for_each_set_bit(i, &pmcs, PERFCTR_MAX_NRCTRS) {
		state->pmc[i].sum += n;
		if (vperfctr_is_imode(cstatus, i) &&
		    vperfctr_icount_add(perfctr, i, n))
			ovf |= BIT(i);
	}
	vperfctr_write_end(userpg);
	return ovf;
}

/**
 * vperfctr_count_events - count software events of the owner
 * @perfctr: the owner's state, interrupts off
 * @events: bit mask of PERFCTR_SW_* events that happened
 * @mode: PERFCTR_SW_USR or PERFCTR_SW_OS, for the fault events
 * @n: how many
 *
 * Return: the mask of interrupt-mode counters that overflowed.
 */
u32 vperfctr_count_events(struct vperfctr *perfctr, u32 events, u32 mode,
			  u64 n)
{
	const u64 *evntsel = perfctr->control.cpu_control.evntsel;
	unsigned long candidates = perfctr->setup.event_pmcs, pmcs = 0;
	unsigned int i;

	if (!(perfctr->setup.sw_events & events))
		return 0;
	for_each_set_bit(i, &candidates, PERFCTR_MAX_NRCTRS) {
		u32 event = perfctr->userpg->cpu_state.pmc[i].map &
			    ~PERFCTR_MAP_SOFTWARE;

		if ((events & BIT(event)) &&
		    (!evntsel[i] || (evntsel[i] & mode)))
			pmcs |= BIT(i);
	}
	return vperfctr_count_pmcs(perfctr, pmcs, n);
}

/**
 * vperfctr_count_fault - count a page fault of the owner
 * @perfctr: the owner's state, interrupts off
 * @user: the fault happened in user mode
 * @major: it needed I/O
 *
 * What vperfctr_count_events() counts for the fault, from the counters
 * set aside for it when the control was set.
 *
 * Return: the mask of interrupt-mode counters that overflowed.
 */
u32 vperfctr_count_fault(struct vperfctr *perfctr, bool user, bool major)
{
	return vperfctr_count_pmcs(perfctr, perfctr->setup.fault_pmcs[!user][major],
				   1);
}

/*
 * The page-fault hook, interrupts on: only a fault that a counter counts
 * turns them off, to count it inside the page's sequence count.
 */
void __perfctr_account_fault(struct vperfctr *perfctr,
			     struct pt_regs *regs, bool major)
{
	bool user = regs && user_mode(regs);
	u32 pmcs = perfctr->setup.fault_pmcs[!user][major];
	unsigned long flags;
	u32 ovf;

	if (!pmcs)
		return;
	local_irq_save(flags);
	ovf = vperfctr_count_pmcs(perfctr, pmcs, 1);
	if (ovf && vperfctr_is_oncpu(perfctr))
		vperfctr_sample_checked(perfctr, ovf);
	else if (ovf)
		vperfctr_overflow(perfctr, ovf);
	local_irq_restore(flags);
}

static bool vperfctr_sw_is_fault(u32 event)
{
	return event == PERFCTR_SW_PAGE_FAULTS ||
	       event == PERFCTR_SW_MINOR_FAULTS ||
	       event == PERFCTR_SW_MAJOR_FAULTS;
}

/**
 * vperfctr_add_fault_pmc - set a counter aside for the faults it counts
 * @setup: the setup of the control being set up
 * @i: the counter, a software one
 * @event: its PERFCTR_SW_* event
 * @evntsel: its mode bits
 */
void vperfctr_add_fault_pmc(struct vperfctr_setup *setup, unsigned int i,
			    u32 event, u64 evntsel)
{
	unsigned int user;

	if (!vperfctr_sw_is_fault(event))
		return;
	for (user = 0; user < 2; user++) {
		if (!(evntsel & (user ? PERFCTR_SW_USR : PERFCTR_SW_OS)))
			continue;
		if (event != PERFCTR_SW_MAJOR_FAULTS)
			setup->fault_pmcs[!user][0] |= BIT(i);
		if (event != PERFCTR_SW_MINOR_FAULTS)
			setup->fault_pmcs[!user][1] |= BIT(i);
	}
}

/* A software counter: a known event, its mode bits, its reset value. */
int vperfctr_check_software(const struct perfctr_cpu_control *cc,
			    unsigned int i, bool allow_kernel)
{
	u32 event = cc->pmc_map[i] & ~PERFCTR_MAP_SOFTWARE;
	u64 evntsel = cc->evntsel[i];
	bool imode = i >= cc->nractrs;

	if (event < 1 || event > PERFCTR_SW_MAX)
		return -EINVAL;
	if (event == PERFCTR_SW_TASK_CLOCK && !perfctr_driver(tsc_khz)())
		return -EINVAL;
	if (vperfctr_sw_is_fault(event)) {
		if (!evntsel ||
		    (evntsel & ~(u64)(PERFCTR_SW_USR | PERFCTR_SW_OS)))
			return -EINVAL;
	} else if (evntsel) {
		return -EINVAL;
	}
	/* vperfctr_check_control() has checked the a-mode counters' ireset. */
	if (imode && cc->ireset[i] >= 0)
		return -EINVAL;
	if ((evntsel & PERFCTR_SW_OS) && !allow_kernel)
		return -EACCES;
	return 0;
}
