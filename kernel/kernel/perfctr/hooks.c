// SPDX-License-Identifier: GPL-2.0
/*
 * Virtual per-process performance counters: the thread hooks.  The inline
 * wrappers in <linux/perfctr.h> call these only for a thread that has
 * counters: at the timer tick, on an affinity change, on the way back to
 * user mode, at fork, exit, reaping and a privileged exec.  The context
 * switch's is in counting.c, the page fault's in software.c.
 */
#include <linux/bits.h>
#include <linux/cpumask.h>
#include <linux/init.h>
#include <linux/irqflags.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/sched/signal.h>
#include <linux/signal.h>
#include <linux/syscore_ops.h>
#include <linux/perfctr_pmu.h>

#include "internal.h"

struct cpumask perfctr_cpus_forbidden_mask;

/*
 * The timer tick, interrupts off: sample before a counter can wrap.  The
 * ticks are those the thread ran, switches or not: a sample every
 * sample_ticks of them is as often as the widths need, and a switch
 * does not have to start the count again.
 */
void __perfctr_sample_thread(struct vperfctr *perfctr)
{
	lockdep_assert_irqs_disabled();

	if (!perfctr->setup.sample_ticks || !vperfctr_is_oncpu(perfctr))
		return;
	if (--perfctr->ticks_left == 0) {
		perfctr->ticks_left = perfctr->setup.sample_ticks;
		vperfctr_sample(perfctr);
	}
}

/*
 * Under the runqueue lock: no task_lock() here (it nests outside), so the
 * state is freed only after an RCU grace period, and this runs with
 * interrupts off, inside one.  Also from a fork, for the child nobody else
 * sees yet.
 */
void __perfctr_set_cpus_allowed(struct vperfctr *perfctr,
				const struct cpumask *new_mask)
{
	WRITE_ONCE(perfctr->bad_cpus_allowed,
		   cpumask_intersects(new_mask, &perfctr_cpus_forbidden_mask));
}

/* On the way back to user mode: send what the hooks above could not. */
void __perfctr_notify_resume(struct vperfctr *perfctr)
{
	u32 ovf = xchg(&perfctr->pending_ovf, 0);
	int signo = READ_ONCE(perfctr->control.si_signo);

	if (xchg(&perfctr->pending_sigill, false))
		send_sig(SIGILL, current, 1);
	if (ovf && signo) {
		struct kernel_siginfo info;

		clear_siginfo(&info);
		info.si_signo = signo;
		info.si_code = SI_PMC_OVF;
		info.si_pmc_ovf_mask = ovf;
		send_sig_info(signo, &info, current);
	}
}

/* The state, detached from its owner, lives on while files hold it. */
static void vperfctr_detach(struct vperfctr *perfctr)
{
	struct vperfctr_state *userpg = perfctr->userpg;

	RCU_INIT_POINTER(perfctr->owner, NULL);
	vperfctr_write_begin(userpg);
	userpg->flags |= VPERFCTR_STATE_DETACHED;
	vperfctr_write_end(userpg);
	vperfctr_put(perfctr);
}

/*
 * Take @perfctr off @tsk, unless someone else already did.  Whoever
 * clears the pointer under task_lock() has the thread's reference: an
 * unlink drops it, an exit hands it to release.
 */
static bool vperfctr_unlink_task(struct task_struct *tsk,
				 struct vperfctr *perfctr)
{
	bool detach;

	task_lock(tsk);
	detach = tsk->thread.perfctr == perfctr;
	if (detach)
		WRITE_ONCE(tsk->thread.perfctr, NULL);
	task_unlock(tsk);
	return detach;
}

/*
 * Stop @perfctr, attached to @tsk (current or frozen), and detach it.  Its
 * children stop propagating into it, and it propagates nothing.
 */
void vperfctr_remove(struct task_struct *tsk, struct vperfctr *perfctr)
{
	unsigned long flags;

	local_irq_save(flags);
	vperfctr_stop_counters(perfctr);
	local_irq_restore(flags);
	vperfctr_release_hw(perfctr);
	vperfctr_new_generation(perfctr, false);
	if (vperfctr_unlink_task(tsk, perfctr))
		vperfctr_detach(perfctr);
}

/*
 * Counters stop here, in the owner itself, and the counter hardware is
 * given back.  It is also called for a child whose fork failed after
 * perfctr_copy_task(): that child never ran and is never reaped, so its
 * state is freed here and propagates nothing.
 */
void __perfctr_exit_thread(struct task_struct *tsk)
{
	struct vperfctr *perfctr = tsk->thread.perfctr;
	unsigned long flags;

	if (tsk != current) {
		tsk->thread.perfctr = NULL;
		vperfctr_detach(perfctr);
		return;
	}
	local_irq_save(flags);
	vperfctr_stop_counters(perfctr);
	vperfctr_write_begin(perfctr->userpg);
	perfctr->userpg->flags |= VPERFCTR_STATE_DEAD;
	vperfctr_write_end(perfctr->userpg);
	local_irq_restore(flags);
	/* Not when the files on the state close: perf may use them now. */
	vperfctr_release_hw(perfctr);
	/*
	 * Before exit_notify() lets another thread reap this one: this
	 * thread's last context switches and ticks, which may run on its
	 * CPU after the reaper has freed the state's page, read the state
	 * without a reference.  Their hooks now find none; the reaper finds
	 * it in perfctr_exited, which nothing else reads.
	 */
	task_lock(tsk);
	tsk->thread.perfctr_exited = perfctr;
	WRITE_ONCE(tsk->thread.perfctr, NULL);
	task_unlock(tsk);
}

/*
 * A child inherits a state only from a thread whose counters are on, and
 * kernel threads and user workers (args->fn) never do.
 */
int __perfctr_copy_task(struct task_struct *child,
			const struct kernel_clone_args *args)
{
	struct vperfctr *parent = current->thread.perfctr;
	const struct perfctr_cpu_control *cc = &parent->control.cpu_control;
	struct vperfctr *perfctr;

	if (args->fn || (!cc->tsc_on && !cc->nractrs && !cc->nrictrs))
		return 0;
	perfctr = vperfctr_inherit(parent);
	if (!perfctr)
		return -ENOMEM;
	RCU_INIT_POINTER(perfctr->owner, child);
	/* Its affinity, copied from its creator's, reached no hook. */
	__perfctr_set_cpus_allowed(perfctr, &child->cpus_mask);
	child->thread.perfctr = perfctr;
	return 0;
}

/* The thread's reference to its exited state goes with its counts. */
void __perfctr_release_task(struct task_struct *tsk)
{
	struct vperfctr *perfctr = tsk->thread.perfctr_exited;

	tsk->thread.perfctr_exited = NULL;
	vperfctr_propagate(perfctr);
	vperfctr_detach(perfctr);
}

/* exec of a setuid program: what runs with privilege is not counted. */
void __perfctr_drop_thread(struct task_struct *tsk)
{
	vperfctr_remove(tsk, tsk->thread.perfctr);
}

/*
 * Suspend to memory or disk (not to idle, which switches threads), and
 * kexec that preserves the context: in the thread that asks for it, on
 * the last CPU online, interrupts off.  The counters may lose what they
 * hold, and arm64's resume takes user-mode reads away (PMUSERENR_EL0):
 * the thread's counters stop before and start again after, as at a
 * switch away and back.  Registered after the CPU PM operations (a
 * core_initcall) and timekeeping's (kernel/time/ links first), these
 * run before those and after those on the way back, when the PMU has
 * been reset and an interrupt-mode task-clock's timer can be armed.
 */
static int perfctr_syscore_suspend(void *data)
{
	struct vperfctr *perfctr = current->thread.perfctr;

	if (perfctr)
		vperfctr_sleep(perfctr);
	return 0;
}

static void perfctr_syscore_resume(void *data)
{
	struct vperfctr *perfctr = current->thread.perfctr;

	if (perfctr)
		vperfctr_wake(perfctr);
}

static const struct syscore_ops perfctr_syscore_ops = {
	.suspend	= perfctr_syscore_suspend,
	.resume		= perfctr_syscore_resume,
};

static struct syscore perfctr_syscore = {
	.ops		= &perfctr_syscore_ops,
};

static int __init perfctr_syscore_init(void)
{
	register_syscore(&perfctr_syscore);
	return 0;
}
device_initcall(perfctr_syscore_init);
