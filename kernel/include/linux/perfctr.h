/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Virtual per-process performance counters: the thread management hooks.
 *
 * Each hook tests one pointer, the thread's vperfctr, and calls out of
 * line only for a thread that has counters.  With CONFIG_PERFCTR=n every
 * hook compiles to nothing.
 */
#ifndef _LINUX_PERFCTR_H
#define _LINUX_PERFCTR_H

#include <uapi/linux/perfctr.h>

struct cpumask;
struct kernel_clone_args;
struct pt_regs;
struct task_struct;
struct vperfctr;

#ifdef CONFIG_PERFCTR

#include <linux/sched.h>

void __perfctr_switch_thread(struct vperfctr *prev, struct vperfctr *next);
void __perfctr_sample_thread(struct vperfctr *perfctr);
int __perfctr_copy_task(struct task_struct *child,
			const struct kernel_clone_args *args);
void __perfctr_exit_thread(struct task_struct *tsk);
void __perfctr_release_task(struct task_struct *tsk);
void __perfctr_set_cpus_allowed(struct vperfctr *perfctr,
				const struct cpumask *new_mask);
void __perfctr_account_fault(struct vperfctr *perfctr,
			     struct pt_regs *regs, bool major);
void __perfctr_drop_thread(struct task_struct *tsk);
void __perfctr_notify_resume(struct vperfctr *perfctr);

/*
 * switch_to(): stop counting for the thread leaving the CPU and start for
 * the one entering it.  A switch between two threads without counters
 * tests their two pointers, as a hook for each would.
 */
static inline void perfctr_switch_thread(struct task_struct *prev,
					 struct task_struct *next)
{
	struct vperfctr *out = prev->thread.perfctr;
	struct vperfctr *in = next->thread.perfctr;

	if (out || in)
		__perfctr_switch_thread(out, in);
}

/*
 * update_process_times(): the sampling timer, so that no hardware counter
 * wraps more than once between two samples of a thread that runs long
 * without a context switch.
 */
static inline void perfctr_sample_thread(struct task_struct *tsk)
{
	struct vperfctr *perfctr = tsk->thread.perfctr;

	if (perfctr)
		__perfctr_sample_thread(perfctr);
}

/*
 * fork, after copy_thread(): the child's thread_struct is a copy of its
 * parent's, so its vperfctr pointers are the parent's until this hook
 * gives it a state of its own, or none.
 */
static inline int perfctr_copy_task(struct task_struct *child,
				    const struct kernel_clone_args *args)
{
	child->thread.perfctr = NULL;
	child->thread.perfctr_exited = NULL;
	if (current->thread.perfctr)
		return __perfctr_copy_task(child, args);
	return 0;
}

/*
 * exit_thread(): stop the counters for good, mark the state dead, and
 * take it off the thread's hooks, into thread.perfctr_exited.
 */
static inline void perfctr_exit_thread(struct task_struct *tsk)
{
	if (tsk->thread.perfctr)
		__perfctr_exit_thread(tsk);
}

/* release_task(): propagate the exited state's counts and detach it. */
static inline void perfctr_release_task(struct task_struct *tsk)
{
	if (tsk->thread.perfctr_exited)
		__perfctr_release_task(tsk);
}

/* set_cpus_allowed(): note an affinity that includes forbidden CPUs. */
static inline void perfctr_set_cpus_allowed(struct task_struct *tsk,
					    const struct cpumask *new_mask)
{
	struct vperfctr *perfctr = READ_ONCE(tsk->thread.perfctr);

	if (perfctr)
		__perfctr_set_cpus_allowed(perfctr, new_mask);
}

/* A page fault of the current thread was resolved. */
static inline void perfctr_account_fault(struct pt_regs *regs,
					 bool major)
{
	struct vperfctr *perfctr = current->thread.perfctr;

	if (perfctr)
		__perfctr_account_fault(perfctr, regs, major);
}

/* exec that raises privilege: the counters are dropped. */
static inline void perfctr_drop_thread(struct task_struct *tsk)
{
	if (tsk->thread.perfctr)
		__perfctr_drop_thread(tsk);
}

/* Return to user mode: deliver overflow and forbidden-CPU signals. */
static inline void perfctr_notify_resume(void)
{
	struct vperfctr *perfctr = current->thread.perfctr;

	if (perfctr)
		__perfctr_notify_resume(perfctr);
}

#else /* !CONFIG_PERFCTR */

static inline void perfctr_switch_thread(struct task_struct *prev,
					 struct task_struct *next) { }
static inline void perfctr_sample_thread(struct task_struct *tsk) { }
static inline int perfctr_copy_task(struct task_struct *child,
				    const struct kernel_clone_args *args)
{
	return 0;
}

static inline void perfctr_exit_thread(struct task_struct *tsk) { }
static inline void perfctr_release_task(struct task_struct *tsk) { }
static inline void perfctr_set_cpus_allowed(struct task_struct *tsk,
					    const struct cpumask *new_mask) { }
static inline void perfctr_account_fault(struct pt_regs *regs,
					 bool major) { }
static inline void perfctr_drop_thread(struct task_struct *tsk) { }
static inline void perfctr_notify_resume(void) { }

#endif /* CONFIG_PERFCTR */

#endif /* _LINUX_PERFCTR_H */
