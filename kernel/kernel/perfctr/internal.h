/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Virtual per-process performance counters: what the parts of the core
 * share with each other and with their KUnit tests.
 */
#ifndef _KERNEL_PERFCTR_INTERNAL_H
#define _KERNEL_PERFCTR_INTERNAL_H

#include <linux/cpumask.h>
#include <linux/hrtimer.h>
#include <linux/perfctr.h>
#include <linux/rcupdate.h>
#include <linux/refcount.h>
#include <linux/spinlock.h>
#include <linux/types.h>

/**
 * struct vperfctr - the virtual counter state of one thread
 * @refcount:	one reference for the thread it is attached to, one per
 *		open file, one per state that inherited from this one
 * @owner:	the thread while attached, NULL once detached; RCU so that a
 *		file holder can find the owner while it is being reaped
 * @kstate:	the counters and their sums, in a zeroed page of its own that
 *		user space may map read-only; no kernel pointer lives there
 * @control:	the control last set by vperfctr_control()
 * @children_lock: protects @children, @inheritance_id and @released
 * @children:	the final sums of reaped descendants that inherited @control
 * @inheritance_id: identifies @control; renewed when it changes or when the
 *		state is unlinked, so that children inherited from an older
 *		control propagate nothing
 * @released:	the owner has been reaped and this state's sums propagated;
 *		later arrivals are forwarded to @parent
 * @parent:	the state this one was inherited from (holding a reference),
 *		or NULL
 * @parent_id:	@parent's inheritance id at fork, 0 once this state's own
 *		control changed
 * @rcu:	to free the state after a grace period, for
 *		perfctr_set_cpus_allowed(), which runs under the runqueue lock
 * @nrhw:	how many of the control's counters are hardware counters
 * @sw_events:	bit mask of the software events the control counts
 * @sample_ticks: sampling timer interval in ticks, 0 for none
 * @ticks_left:	ticks until the next sample
 * @last_cpu:	CPU the owner last resumed on, -1 before the first resume
 * @iresume_cstatus: cstatus to restore on vperfctr_iresume()
 * @icount:	value of each software interrupt-mode counter, counting up
 *		from its (negative) ireset to the overflow at zero
 * @itimer:	fires when a task-clock interrupt-mode counter overflows
 * @bad_cpus_allowed: the owner's affinity includes a forbidden CPU
 * @pending_ovf: counters whose overflow signal is not yet sent
 * @pending_sigill: a SIGILL for resuming on a forbidden CPU is not yet sent
 * @hw_reserved: the counter hardware is reserved for this state's control
 *		(arch_perfctr_reserve()) until the control changes or the state
 *		is freed
 *
 * The fields from @nrhw on are the owner's: they change with interrupts
 * off on the owner's CPU, or while the owner is frozen under ptrace.
 */
struct vperfctr {
	refcount_t			refcount;
	struct task_struct __rcu	*owner;
	struct vperfctr_state		*kstate;
	struct vperfctr_control		control;

	spinlock_t			children_lock;	/* children, *_id, released */
	struct perfctr_sum_ctrs		children;
	u64				inheritance_id;
	bool				released;
	struct vperfctr			*parent;
	u64				parent_id;
	struct rcu_head			rcu;

	u32				nrhw;
	u32				sw_events;
	unsigned int			sample_ticks;
	unsigned int			ticks_left;
	int				last_cpu;
	u32				iresume_cstatus;
	s64				icount[PERFCTR_MAX_NRCTRS];
	struct hrtimer			itimer;
	bool				bad_cpus_allowed;
	u32				pending_ovf;
	bool				pending_sigill;
	bool				hw_reserved;
};

struct vperfctr *vperfctr_alloc(void);
void vperfctr_put(struct vperfctr *perfctr);
int vperfctr_check_control(const struct vperfctr_control *control,
			   bool allow_kernel);
void vperfctr_set_control(struct vperfctr *perfctr,
			  const struct vperfctr_control *control);
u32 vperfctr_suspend(struct vperfctr *perfctr);
void vperfctr_resume(struct vperfctr *perfctr);
void vperfctr_sample(struct vperfctr *perfctr);
void vperfctr_overflow(struct vperfctr *perfctr, u32 ovf_mask);
int vperfctr_ireload(struct vperfctr *perfctr);
u32 vperfctr_count_events(struct vperfctr *perfctr, u32 events, u32 mode,
			  u64 n);
void vperfctr_get_sums(const struct vperfctr *perfctr,
		       struct perfctr_sum_ctrs *sum);
unsigned int vperfctr_sample_interval(u32 width, u32 khz);
u64 vperfctr_tsc_to_ns(u64 delta);

/* info.c */
#define PERFCTR_DRIVER_VERSION	"6.0"
void perfctr_get_info(struct perfctr_info *info);

/* inherit.c */
void vperfctr_new_generation(struct vperfctr *perfctr, bool reset_children);
struct vperfctr *vperfctr_inherit(struct vperfctr *parent);
void vperfctr_propagate(struct vperfctr *child);

static inline bool vperfctr_is_oncpu(const struct vperfctr *perfctr)
{
	return perfctr->kstate->flags & VPERFCTR_STATE_ONCPU;
}

static inline bool vperfctr_map_is_software(u32 map)
{
	return map & PERFCTR_MAP_SOFTWARE;
}

static inline bool vperfctr_map_is_task_clock(u32 map)
{
	return map == (PERFCTR_MAP_SOFTWARE | PERFCTR_SW_TASK_CLOCK);
}

#endif /* _KERNEL_PERFCTR_INTERNAL_H */
