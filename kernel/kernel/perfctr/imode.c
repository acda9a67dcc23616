// SPDX-License-Identifier: GPL-2.0
/*
 * Virtual per-process performance counters: interrupt mode.  An
 * interrupt-mode counter is preset to a negative value and overflows at
 * zero; the overflow stops the thread's counters and signals the thread,
 * whose handler restarts them with vperfctr_iresume().  A hardware counter's
 * overflow interrupt only brings the next sample forward; the sample finds
 * the overflow from the counter's value.  A task-clock counter overflows
 * on a timer.
 */
#include <linux/bits.h>
#include <linux/hrtimer.h>
#include <linux/irq_work.h>
#include <linux/percpu.h>
#include <linux/sched.h>
#include <linux/perfctr_pmu.h>
#include <kunit/static_stub.h>

#include "internal.h"

/*
 * Time until the first task-clock i-mode counter overflows, in ns, or 0
 * if none counts.
 */
u64 vperfctr_itimer_ns(const struct vperfctr *perfctr)
{
	const struct perfctr_cpu_state *state = &perfctr->userpg->cpu_state;
	u32 cstatus = state->cstatus;
	unsigned int i, nrctrs = perfctr_cstatus_nrctrs(cstatus);
	u64 min = 0;

	if (!(perfctr->setup.sw_events & BIT(PERFCTR_SW_TASK_CLOCK)))
		return 0;
	for (i = perfctr_cstatus_nractrs(cstatus); i < nrctrs; i++) {
		u64 left;

		/* One that reached zero waits for vperfctr_iresume(). */
		if (!vperfctr_map_is_task_clock(state->pmc[i].map) ||
		    perfctr->icount[i] >= 0)
			continue;
		left = -perfctr->icount[i];
		if (!min || left < min)
			min = left;
	}
	return min;
}

/*
 * Have the owner call __perfctr_notify_resume() on its way back to user
 * mode.  The owner is current, or being switched out on this CPU, so the
 * pointer needs no RCU protection; it is NULL only in the KUnit tests,
 * whose states have no owner.
 */
void vperfctr_notify_owner(struct vperfctr *perfctr)
{
	struct task_struct *owner = rcu_dereference_raw(perfctr->owner);

	if (owner)
		set_tsk_thread_flag(owner, TIF_NOTIFY_RESUME);
}

/**
 * vperfctr_overflow - stop the counters after an interrupt-mode overflow
 * @perfctr: the state, its counters suspended
 * @ovf_mask: the counters that overflowed
 *
 * Everything but the TSC stays stopped until vperfctr_iresume(), so the
 * signal handler does not count itself.  The signal is sent on the way
 * back to user mode: this runs in the context switch, the tick, the
 * task-clock timer, the page-fault hook and the overflow interrupt's
 * irq_work, where the signal lock cannot be taken.
 *
 * Context: interrupts off.
 */
void vperfctr_overflow(struct vperfctr *perfctr, u32 ovf_mask)
{
	struct vperfctr_state *userpg = perfctr->userpg;
	struct perfctr_cpu_state *state = &userpg->cpu_state;

	lockdep_assert_irqs_disabled();
	vperfctr_write_begin(userpg);
	if (!(userpg->flags & VPERFCTR_STATE_OVERFLOW))
		perfctr->iresume_cstatus = state->cstatus;
	state->cstatus = perfctr_cstatus_has_tsc(state->cstatus) ?
			 PERFCTR_CSTATUS_TSC_ON : 0;
	userpg->flags |= VPERFCTR_STATE_OVERFLOW;
	vperfctr_write_end(userpg);
	WRITE_ONCE(perfctr->pending_ovf, perfctr->pending_ovf | ovf_mask);
	vperfctr_notify_owner(perfctr);
}

/*
 * The overflow interrupt, deferred from NMI context.  It runs in hard
 * interrupt context on the CPU that took the interrupt; if the owner was
 * switched out meanwhile, its suspend found the overflow already, and a
 * sample of whichever thread runs now does no harm.
 */
static void vperfctr_pmi_work_fn(struct irq_work *work)
{
	struct vperfctr *perfctr = current->thread.perfctr;

	if (perfctr && vperfctr_is_oncpu(perfctr))
		vperfctr_sample(perfctr);
}

static DEFINE_PER_CPU(struct irq_work, vperfctr_pmi_work) =
	IRQ_WORK_INIT_HARD(vperfctr_pmi_work_fn);

/**
 * perfctr_overflow_interrupt - a counter overflow interrupt was taken
 *
 * Called by the counter driver's interrupt handler, in NMI context, when
 * an interrupt-mode counter of this CPU overflowed.  The counters are
 * sampled as soon as interrupts are enabled again; the sample finds which
 * counters overflowed from their values, and the owner gets its signal on
 * the way back to user mode.
 */
void perfctr_overflow_interrupt(void)
{
	KUNIT_STATIC_STUB_REDIRECT(perfctr_overflow_interrupt);
	irq_work_queue(this_cpu_ptr(&vperfctr_pmi_work));
}

static enum hrtimer_restart vperfctr_itimer_fn(struct hrtimer *timer)
{
	struct vperfctr *perfctr = container_of(timer, struct vperfctr, itimer);

	/* Cancelled at every suspend: the owner is running here. */
	if (current->thread.perfctr == perfctr && vperfctr_is_oncpu(perfctr))
		vperfctr_sample(perfctr);
	return HRTIMER_NORESTART;
}

/**
 * vperfctr_init_itimer - set up the task-clock overflow timer of a state
 * @perfctr: the new state
 */
void vperfctr_init_itimer(struct vperfctr *perfctr)
{
	hrtimer_init(&perfctr->itimer, CLOCK_MONOTONIC,
		     HRTIMER_MODE_REL_PINNED_HARD);
	perfctr->itimer.function = vperfctr_itimer_fn;
}

/* Reload the interrupt-mode counters from their reset values. */
void vperfctr_load_ireset(struct vperfctr *perfctr)
{
	const struct perfctr_cpu_control *cc = &perfctr->control.cpu_control;
	struct perfctr_cpu_state *state = &perfctr->userpg->cpu_state;
	unsigned int i, nrctrs = cc->nractrs + cc->nrictrs;

	for (i = cc->nractrs; i < nrctrs; i++) {
		struct perfctr_pmc_state *pmc = &state->pmc[i];

		if (vperfctr_map_is_software(pmc->map))
			perfctr->icount[i] = cc->ireset[i];
		else
			pmc->start = (u64)cc->ireset[i] &
				     vperfctr_width_mask(pmc->width);
	}
}

/* An interrupt-mode overflow stopped the counters and awaits a restart. */
bool vperfctr_ireload_pending(const struct vperfctr *perfctr)
{
	return (perfctr->userpg->flags & VPERFCTR_STATE_OVERFLOW) &&
	       perfctr->control.cpu_control.nrictrs;
}

/**
 * vperfctr_ireload - restart the counters after an overflow
 * @perfctr: the state, its counters suspended
 *
 * A signal still to be sent for the overflow is sent all the same: every
 * overflow gets its signal, even one restarted before it arrived.
 *
 * Return: 0, or -EINVAL if no interrupt-mode overflow awaits a restart.
 */
int vperfctr_ireload(struct vperfctr *perfctr)
{
	struct vperfctr_state *userpg = perfctr->userpg;

	if (!vperfctr_ireload_pending(perfctr))
		return -EINVAL;
	vperfctr_write_begin(userpg);
	userpg->cpu_state.cstatus = perfctr->iresume_cstatus;
	userpg->flags &= ~VPERFCTR_STATE_OVERFLOW;
	vperfctr_load_ireset(perfctr);
	vperfctr_write_end(userpg);
	return 0;
}
