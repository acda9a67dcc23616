/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Virtual per-process performance counters: what the parts of the core
 * share with each other and with their KUnit tests.
 */
#ifndef _KERNEL_PERFCTR_INTERNAL_H
#define _KERNEL_PERFCTR_INTERNAL_H

#include <linux/perfctr.h>
#include <linux/refcount.h>
#include <linux/types.h>

/**
 * struct vperfctr - the virtual counter state of one thread
 * @refcount:	one reference for the thread it is attached to, one per
 *		open file
 * @owner:	the thread while attached, NULL once detached; RCU so that a
 *		file holder can find the owner while it is being reaped
 * @kstate:	the counters and their sums, in a zeroed page of its own that
 *		user space may map read-only; no kernel pointer lives there
 * @control:	the control last set by vperfctr_control()
 * @children:	the final sums of reaped children that inherited @control
 */
struct vperfctr {
	refcount_t			refcount;
	struct task_struct __rcu	*owner;
	struct vperfctr_state		*kstate;
	struct vperfctr_control		control;
	struct perfctr_sum_ctrs		children;
};

struct vperfctr *vperfctr_alloc(void);
void vperfctr_put(struct vperfctr *perfctr);
int vperfctr_check_control(const struct vperfctr_control *control);
void vperfctr_set_control(struct vperfctr *perfctr,
			  const struct vperfctr_control *control);
void vperfctr_suspend(struct vperfctr *perfctr);
void vperfctr_resume(struct vperfctr *perfctr);
void vperfctr_sample(struct vperfctr *perfctr);
void vperfctr_get_sums(const struct vperfctr *perfctr,
		       struct perfctr_sum_ctrs *sum);

static inline bool vperfctr_is_oncpu(const struct vperfctr *perfctr)
{
	return perfctr->kstate->flags & VPERFCTR_STATE_ONCPU;
}

#endif /* _KERNEL_PERFCTR_INTERNAL_H */
