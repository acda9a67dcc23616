/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Virtual per-process performance counters: what the parts of the core
 * share with each other and with their KUnit tests.
 */
#ifndef _KERNEL_PERFCTR_INTERNAL_H
#define _KERNEL_PERFCTR_INTERNAL_H

#include <linux/bits.h>
#include <linux/compiler.h>
#include <linux/cpumask.h>
#include <linux/file.h>
#include <linux/hrtimer.h>
#include <linux/math64.h>
#include <linux/perf_event.h>
#include <linux/perfctr.h>
#include <linux/perfctr_pmu.h>
#include <linux/rcupdate.h>
#include <linux/refcount.h>
#include <linux/spinlock.h>
#include <linux/static_call.h>
#include <linux/types.h>

/**
 * struct vperfctr_setup - what a control implies, computed once
 * @nrhw:	how many of the control's counters are hardware counters
 * @sw_events:	bit mask of the software events the control counts
 * @clock_pmcs:	the control's task-clock counters
 * @event_pmcs:	the control's other software counters, which count events
 * @fault_pmcs:	those that count a page fault, by the mode it happened in
 *		(0: user, 1: kernel) and its kind (0: minor, 1: major)
 * @hw_pmcs:	the control's hardware counters
 * @restart_pmcs: those of them that the driver restarts from zero at
 *		every resume (arch_perfctr_counter_restarts())
 * @imode_pmcs: the control's interrupt-mode counters
 * @simple_switch: the control has hardware counters, none that restarts
 *	or counts in interrupt mode, and does not count context switches: a
 *	switch between two such may hand the counters from one to the other
 *	(counting.c)
 * @user_read:	the control has hardware counters and user mode may read
 *		them (arch_perfctr_has_user_read())
 * @sample_ticks: sampling timer interval in ticks, 0 for none
 * @width:	each counter's width in bits, 64 for a software counter
 * @plan:	how the driver starts the hardware counters
 *		(arch_perfctr_prepare()), if there are any
 *
 * vperfctr_setup_control() fills it from a checked control, in process
 * context, as perf's event_init fills struct hw_perf_event;
 * vperfctr_set_control() installs it with the control, and a fork copies
 * it whole.
 */
struct vperfctr_setup {
	u32			nrhw;
	u32			sw_events;
	u32			clock_pmcs;
	u32			event_pmcs;
	u32			fault_pmcs[2][2];
	u32			hw_pmcs;
	u32			restart_pmcs;
	u32			imode_pmcs;
	bool			simple_switch;
	bool			user_read;
	unsigned int		sample_ticks;
	u8			width[PERFCTR_MAX_NRCTRS];
	struct perfctr_plan	plan;
};

/* The bytes of @setup that count: its plan's writes past nr are never read. */
static inline size_t vperfctr_setup_size(const struct vperfctr_setup *setup)
{
	return offsetof(struct vperfctr_setup, plan.write[setup->plan.nr]);
}

/**
 * struct vperfctr - the virtual counter state of one thread
 * @refcount:	one reference for the thread it is attached to, one per
 *		open file, one per state that inherited from this one
 * @owner:	the thread while attached, NULL once detached; RCU so that a
 *		file holder can find the owner while it is being reaped
 * @userpg:	the counters and their sums, in a zeroed page of its own that
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
 * @setup:	what @control implies (vperfctr_setup_control())
 * @live_on:	the page's live word while all the control's counters run
 * @run_clocks:	the task-clock counters the last resume started
 * @run_hw:	the hardware counters it started
 * @run_imode:	the interrupt-mode counters it started
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
 *		(arch_perfctr_reserve()) until the control changes, the
 *		counters stop for good at exit or unlink, or the state is freed
 *
 * A fork allocates one: the fields are laid out so that the struct fits
 * in 2048 bytes, kmalloc-2k, in a kernel without lock debugging.
 *
 * The fields from @setup on are the owner's: they change with interrupts
 * off on the owner's CPU, or while the owner is frozen under ptrace.
 */
struct vperfctr {
	refcount_t			refcount;
	spinlock_t			children_lock;	/* children*, *_id, released */
	struct task_struct __rcu	*owner;
	struct vperfctr_state		*userpg;
	struct vperfctr_control		control;

	struct perfctr_sum_ctrs		children;
	unsigned int			children_nrsums;
	bool				released;
	u64				inheritance_id;
	struct vperfctr			*parent;
	u64				parent_id;
	struct rcu_head			rcu;

	struct vperfctr_setup		setup;
	u64				live_on;
	u32				run_clocks;
	u32				run_hw;
	u32				run_imode;
	unsigned int			ticks_left;
	int				last_cpu;
	u32				iresume_cstatus;
	u32				pending_ovf;
	bool				bad_cpus_allowed;
	bool				pending_sigill;
	bool				hw_reserved;
	s64				icount[PERFCTR_MAX_NRCTRS];
	struct hrtimer			itimer;
};

/*
 * The counter driver: perfctr_driver(enable)(plan) is a direct call of
 * arch_perfctr_enable(plan).  With the KUnit tests built, it is a static
 * call instead (a direct call too where the architecture patches call
 * sites), which the core's suites point at a fake driver
 * (test_helpers.c, which defines them).
 */
#ifdef CONFIG_PERFCTR_KUNIT_TEST
DECLARE_STATIC_CALL(perfctr_pmu, arch_perfctr_pmu);
DECLARE_STATIC_CALL(perfctr_tsc_khz, arch_perfctr_tsc_khz);
DECLARE_STATIC_CALL(perfctr_read_tsc, arch_perfctr_read_tsc);
DECLARE_STATIC_CALL(perfctr_check_counter, arch_perfctr_check_counter);
DECLARE_STATIC_CALL(perfctr_check_control, arch_perfctr_check_control);
DECLARE_STATIC_CALL(perfctr_counter_width, arch_perfctr_counter_width);
DECLARE_STATIC_CALL(perfctr_counter_restarts, arch_perfctr_counter_restarts);
DECLARE_STATIC_CALL(perfctr_read_counter, arch_perfctr_read_counter);
DECLARE_STATIC_CALL(perfctr_write_counter, arch_perfctr_write_counter);
DECLARE_STATIC_CALL(perfctr_prepare, arch_perfctr_prepare);
DECLARE_STATIC_CALL(perfctr_enable, arch_perfctr_enable);
DECLARE_STATIC_CALL(perfctr_disable, arch_perfctr_disable);
DECLARE_STATIC_CALL(perfctr_switch, arch_perfctr_switch);
DECLARE_STATIC_CALL(perfctr_reserve, arch_perfctr_reserve);
DECLARE_STATIC_CALL(perfctr_release, arch_perfctr_release);
DECLARE_STATIC_CALL(perfctr_has_user_read, arch_perfctr_has_user_read);
DECLARE_STATIC_CALL(perfctr_user_read, arch_perfctr_user_read);
#define perfctr_driver(fn)	static_call(perfctr_##fn)
#else
#define perfctr_driver(fn)	arch_perfctr_##fn
#endif

/*
 * The clock and a hardware counter as the context switch reads them:
 * inline where the architecture can (KUnit's stubs of
 * arch_perfctr_read_tsc() and arch_perfctr_read_counter() replace the
 * register reads there), else from the driver.
 */
static __always_inline u64 vperfctr_read_tsc(void)
{
#ifdef CONFIG_HAVE_PERFCTR_INLINE_READS
	return arch_perfctr_read_tsc_inline();
#else
	return perfctr_driver(read_tsc)();
#endif
}

static __always_inline u64 vperfctr_read_counter(u32 map)
{
#ifdef CONFIG_HAVE_PERFCTR_INLINE_READS
	return arch_perfctr_read_counter_inline(map);
#else
	return perfctr_driver(read_counter)(map);
#endif
}

/* state.c */
struct vperfctr *vperfctr_alloc(void);
void vperfctr_put(struct vperfctr *perfctr);
void vperfctr_release_hw(struct vperfctr *perfctr);
struct task_struct *vperfctr_get_owner(struct vperfctr *perfctr);

static inline void vperfctr_get(struct vperfctr *perfctr)
{
	refcount_inc(&perfctr->refcount);
}

/*
 * The page's sequence count, as in seqcount_t but shared with user space:
 * only the owner's CPU (or a ptracer while the owner is frozen) writes.
 */
static inline void vperfctr_write_begin(struct vperfctr_state *userpg)
{
	WRITE_ONCE(userpg->seq, userpg->seq + 1);
	/* An odd seq is visible before any change to the page. */
	smp_wmb();
}

static inline void vperfctr_write_end(struct vperfctr_state *userpg)
{
	/* Every change to the page is visible before seq is even again. */
	smp_wmb();
	WRITE_ONCE(userpg->seq, userpg->seq + 1);
}

/* counting.c */
u32 vperfctr_suspend(struct vperfctr *perfctr);
void vperfctr_resume(struct vperfctr *perfctr);
void vperfctr_sample(struct vperfctr *perfctr);
void vperfctr_sample_checked(struct vperfctr *perfctr, u32 ovf);
void vperfctr_stop_counters(struct vperfctr *perfctr);
void vperfctr_sleep(struct vperfctr *perfctr);
void vperfctr_wake(struct vperfctr *perfctr);
void vperfctr_get_sums(const struct vperfctr *perfctr,
		       struct perfctr_sum_ctrs *sum);
void vperfctr_get_live_sums(const struct vperfctr *perfctr,
			    struct perfctr_sum_ctrs *sum);

static inline bool vperfctr_is_oncpu(const struct vperfctr *perfctr)
{
	return perfctr->userpg->flags & VPERFCTR_STATE_ONCPU;
}

/* The nractrs and nrictrs fields of cstatus: 0 when no counter runs. */
#define VPERFCTR_CSTATUS_CTRS	0x007f007fU

static inline bool vperfctr_is_imode(u32 cstatus, unsigned int i)
{
	return i >= perfctr_cstatus_nractrs(cstatus);
}

static inline u64 vperfctr_width_mask(u32 width)
{
	return width >= 64 ? ~0ULL : BIT_ULL(width) - 1;
}

/* What a counter of @width bits, 1 to 64, counted from @start to @now. */
static inline u64 vperfctr_hw_delta(u64 now, u64 start, u32 width)
{
	return (now - start) << (64 - width) >> (64 - width);
}

/* control.c */
bool vperfctr_allow_kernel(void);

/* perf's paranoia level, which decides kernel-mode counting for both. */
#ifdef CONFIG_PERF_EVENTS
static inline int vperfctr_perf_paranoid(void)
{
	return READ_ONCE(sysctl_perf_event_paranoid);
}
#else
static inline int vperfctr_perf_paranoid(void)
{
	return 2;	/* perf's default: no kernel mode without privilege */
}
#endif

int vperfctr_check_control(const struct vperfctr_control *control,
			   bool allow_kernel);
void vperfctr_setup_control(const struct perfctr_cpu_control *cc,
			    struct vperfctr_setup *setup);
void vperfctr_set_control(struct vperfctr *perfctr,
			  const struct vperfctr_control *control,
			  const struct vperfctr_setup *setup);
void vperfctr_inherit_control(struct vperfctr *perfctr,
			      const struct vperfctr *from);
unsigned int vperfctr_sample_interval(u32 width, u32 khz);

/* software.c */
void vperfctr_time_set(struct vperfctr_state *userpg);

/*
 * A TSC interval in ns, with the factors of the page, as user space
 * computes it.
 */
static inline u64 vperfctr_tsc_to_ns(const struct vperfctr_state *userpg,
				     u64 delta)
{
	/* The same value: a 64-bit product holds a period below 2^32 ticks. */
	if (delta <= U32_MAX)
		return delta * userpg->time_mult >> userpg->time_shift;
	return mul_u64_u32_shr(delta, userpg->time_mult, userpg->time_shift);
}

int vperfctr_check_software(const struct perfctr_cpu_control *cc,
			    unsigned int i, bool allow_kernel);
u32 vperfctr_count_events(struct vperfctr *perfctr, u32 events, u32 mode,
			  u64 n);
u32 vperfctr_count_fault(struct vperfctr *perfctr, bool user, bool major);
void vperfctr_add_fault_pmc(struct vperfctr_setup *setup, unsigned int i,
			    u32 event, u64 evntsel);

static inline bool vperfctr_map_is_software(u32 map)
{
	return map & PERFCTR_MAP_SOFTWARE;
}

static inline bool vperfctr_map_is_task_clock(u32 map)
{
	return map == (PERFCTR_MAP_SOFTWARE | PERFCTR_SW_TASK_CLOCK);
}

/* imode.c */
void vperfctr_init_itimer(struct vperfctr *perfctr);
u64 vperfctr_itimer_ns(const struct vperfctr *perfctr);
void vperfctr_notify_owner(struct vperfctr *perfctr);
void vperfctr_overflow(struct vperfctr *perfctr, u32 ovf_mask);
void vperfctr_load_ireset(struct vperfctr *perfctr);
bool vperfctr_ireload_pending(const struct vperfctr *perfctr);
int vperfctr_ireload(struct vperfctr *perfctr);

/*
 * A hardware interrupt-mode counter starts from its negative ireset, top
 * bit set, and has overflowed once that bit is clear: the value says so
 * whether or not the overflow interrupt has been taken yet, so a late or
 * lost interrupt loses no overflow.
 */
static inline bool vperfctr_hw_overflowed(const struct perfctr_pmc_state *pmc)
{
	return !(pmc->start & BIT_ULL(pmc->width - 1));
}

/* Count @n events into software i-mode counter @i; true on overflow. */
static inline bool vperfctr_icount_add(struct vperfctr *perfctr,
				       unsigned int i, u64 n)
{
	s64 before = perfctr->icount[i];

	perfctr->icount[i] = before + n;
	return before < 0 && perfctr->icount[i] >= 0;
}

/* hooks.c */
void vperfctr_remove(struct task_struct *tsk, struct vperfctr *perfctr);

/* file.c */
extern const struct file_operations vperfctr_fops;
struct vperfctr *vperfctr_of(struct fd f);
struct file *vperfctr_new_file(void);

/* inherit.c */
void vperfctr_new_generation(struct vperfctr *perfctr, bool reset_children);
struct vperfctr *vperfctr_inherit(struct vperfctr *parent);
void vperfctr_propagate(struct vperfctr *child);

/* info.c */
#define PERFCTR_DRIVER_VERSION	"6.0"
void perfctr_get_info(struct perfctr_info *info);

#endif /* _KERNEL_PERFCTR_INTERNAL_H */
