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

struct task_struct;
struct kernel_clone_args;
struct vperfctr;

#ifdef CONFIG_PERFCTR

#include <linux/sched.h>

void __perfctr_suspend_thread(struct vperfctr *perfctr);
void __perfctr_resume_thread(struct vperfctr *perfctr);
void __perfctr_copy_task(struct task_struct *child,
			 const struct kernel_clone_args *args);
void __perfctr_exit_thread(struct task_struct *tsk);
void __perfctr_release_task(struct task_struct *tsk);

/* switch_to(): stop counting for the thread leaving the CPU. */
static inline void perfctr_suspend_thread(struct task_struct *prev)
{
	struct vperfctr *perfctr = prev->thread.perfctr;

	if (perfctr)
		__perfctr_suspend_thread(perfctr);
}

/* switch_to(): start counting for the thread entering the CPU. */
static inline void perfctr_resume_thread(struct task_struct *next)
{
	struct vperfctr *perfctr = next->thread.perfctr;

	if (perfctr)
		__perfctr_resume_thread(perfctr);
}

/*
 * copy_thread(): the child's thread_struct is a copy of its parent's,
 * so its vperfctr pointer is the parent's until this hook replaces it.
 */
static inline void perfctr_copy_task(struct task_struct *child,
				     const struct kernel_clone_args *args)
{
	if (child->thread.perfctr)
		__perfctr_copy_task(child, args);
}

/* exit_thread(): stop the counters for good and mark the state dead. */
static inline void perfctr_exit_thread(struct task_struct *tsk)
{
	if (tsk->thread.perfctr)
		__perfctr_exit_thread(tsk);
}

/* release_task(): detach the state from the reaped thread. */
static inline void perfctr_release_task(struct task_struct *tsk)
{
	if (tsk->thread.perfctr)
		__perfctr_release_task(tsk);
}

#else /* !CONFIG_PERFCTR */

static inline void perfctr_suspend_thread(struct task_struct *prev) { }
static inline void perfctr_resume_thread(struct task_struct *next) { }
static inline void perfctr_copy_task(struct task_struct *child,
				     const struct kernel_clone_args *args) { }
static inline void perfctr_exit_thread(struct task_struct *tsk) { }
static inline void perfctr_release_task(struct task_struct *tsk) { }

#endif /* CONFIG_PERFCTR */

#endif /* _LINUX_PERFCTR_H */
