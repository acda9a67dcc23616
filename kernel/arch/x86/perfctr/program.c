// SPDX-License-Identifier: GPL-2.0
/*
 * Programming the x86 counters: event selector validation, and the MSR
 * writes that start and stop a thread's counters.
 *
 * A counter is named in pmc_map[] the way rdpmc names it: general-purpose
 * counter i as i, Intel fixed counter j as PERFCTR_MAP_X86_FIXED | j.  A
 * general-purpose counter's evntsel[] is the hardware event selector
 * without the enable and interrupt bits, which the driver owns.  A fixed
 * counter's evntsel[] uses the same USR, OS and AnyThread bits, which the
 * driver moves into its field of IA32_FIXED_CTR_CTRL.
 *
 * TopDown: a metric counter, PERFCTR_MAP_X86_METRIC | k, counts the slots
 * of category k.  The hardware has one slots counter (fixed counter 3)
 * and one PERF_METRICS register, whose byte k is category k's share of
 * the slots counted since both were last zeroed: in a control with
 * metric counters both restart from zero at enable, and a metric counter
 * reads as its category's share of the slots counted since
 * (perfctr_x86_topdown_slots()).  They count in the mode of fixed counter
 * 3's field, one mode for them all.
 *
 * Every MSR address comes from the description that detection made
 * (struct x86_perfctr_desc): a base plus an index times a stride, as perf's
 * x86_pmu_config_addr() and x86_pmu_event_addr() compute them (SDM vol. 3B
 * "Performance Monitoring", APM vol. 2 "Performance Monitor Counters").
 * Nothing here asks which vendor made the processor.
 */
#include <linux/bitops.h>
#include <linux/bits.h>
#include <linux/errno.h>
#include <linux/jiffies.h>
#include <linux/mmu_context.h>
#include <linux/nmi.h>
#include <linux/percpu.h>
#include <linux/perfctr.h>
#include <linux/perfctr_pmu.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <kunit/static_stub.h>
#include <kunit/visibility.h>
#include <asm/apic.h>
#include <asm/msr.h>
#include <asm/perf_event.h>
#include <asm/tlbflush.h>

#include "perfctr.h"

/*
 * Per CPU, in the bit numbering of the global control and status
 * registers: the counters the last enable on this CPU armed for overflow
 * interrupts, and the counters that may hold another thread's counts.
 */
static DEFINE_PER_CPU(unsigned long, x86_perfctr_imode_bits);
static DEFINE_PER_CPU(unsigned long, x86_perfctr_dirty_bits);

DEFINE_PER_CPU(struct x86_perfctr_pmi_window, x86_perfctr_pmi_window);

static void x86_perfctr_open_pmi_window(void)
{
	struct x86_perfctr_pmi_window *window =
		this_cpu_ptr(&x86_perfctr_pmi_window);

	window->end = jiffies + X86_PERFCTR_PMI_WINDOW;
	window->open = true;
}

/*
 * Generation of the reservation: a CPU that has not zeroed its counters
 * since the counters were last taken from perf zeroes them all before it
 * lets a thread read them, for what perf left in them.
 */
static unsigned long x86_perfctr_reserve_gen;
static DEFINE_PER_CPU(unsigned long, x86_perfctr_clean_gen);

/*
 * On a CPU that comes online, the counters hold what they held before it
 * went down, or what the firmware left: the first grant zeroes them all,
 * as after a reservation, for a thread takes a counter's value at its
 * resume after a grant to be zero.  Runs on the CPU itself.
 */
void x86_perfctr_forget_clean(void)
{
	this_cpu_write(x86_perfctr_clean_gen, ULONG_MAX);
}

/* Selectors that count kernel mode, or another thread's events. */
#define X86_PERFCTR_EVNTSEL_PRIVILEGED					\
	(ARCH_PERFMON_EVENTSEL_OS | ARCH_PERFMON_EVENTSEL_ANY)

/**
 * x86_perfctr_rdmsr - read a counter MSR
 * @msr: its address
 *
 * Return: its value.
 */
VISIBLE_IF_KUNIT u64 x86_perfctr_rdmsr(u32 msr)
{
	u64 value;

	KUNIT_STATIC_STUB_REDIRECT(x86_perfctr_rdmsr, msr);
	rdmsrl(msr, value);
	return value;
}

/**
 * x86_perfctr_wrmsr - write a counter MSR
 * @msr: its address
 * @value: what to write
 */
VISIBLE_IF_KUNIT void x86_perfctr_wrmsr(u32 msr, u64 value)
{
	KUNIT_STATIC_STUB_REDIRECT(x86_perfctr_wrmsr, msr, value);
	wrmsrl(msr, value);
}

static bool x86_perfctr_map_is_fixed(u32 map)
{
	return map & PERFCTR_MAP_X86_FIXED;
}

static u32 x86_perfctr_fixed_index(u32 map)
{
	return map & ~PERFCTR_MAP_X86_FIXED;
}

static bool x86_perfctr_map_is_metric(u32 map)
{
	return map & PERFCTR_MAP_X86_METRIC;
}

static u32 x86_perfctr_metric_index(u32 map)
{
	return map & ~PERFCTR_MAP_X86_METRIC;
}

/* Does counter @map use the slots counter, as TopDown does? */
static bool x86_perfctr_uses_slots(const struct x86_perfctr_desc *desc,
				   u32 map)
{
	return desc->perf_metrics && (x86_perfctr_map_is_metric(map) ||
				      map == X86_PERFCTR_FIXED_SLOTS);
}

/* The event selector MSR of general-purpose counter @i. */
static u32 x86_perfctr_evntsel_addr(const struct x86_perfctr_desc *desc,
				    u32 i)
{
	return desc->eventsel + i * desc->stride;
}

/* The MSR that counter @map is read and written through. */
static u32 x86_perfctr_counter_addr(const struct x86_perfctr_desc *desc,
				    u32 map)
{
	if (x86_perfctr_map_is_fixed(map))
		return desc->fixed_ctr + x86_perfctr_fixed_index(map);
	return desc->perfctr + map * desc->stride;
}

/*
 * The bit of counter @map in the global control and status registers: a
 * metric counter's is PERF_METRICS' (with the slots counter's).
 */
static u64 x86_perfctr_global_bit(u32 map)
{
	if (x86_perfctr_map_is_metric(map))
		return BIT_ULL(GLOBAL_CTRL_EN_PERF_METRICS) |
		       BIT_ULL(INTEL_PMC_IDX_FIXED + PERFCTR_X86_FIXED_SLOTS);
	if (x86_perfctr_map_is_fixed(map))
		return BIT_ULL(INTEL_PMC_IDX_FIXED +
			       x86_perfctr_fixed_index(map));
	return BIT_ULL(map);
}

/* The counter of global control and status bit @bit. */
static u32 x86_perfctr_map_of_bit(unsigned int bit)
{
	if (bit == GLOBAL_CTRL_EN_PERF_METRICS)
		return PERFCTR_MAP_X86_METRIC;
	if (bit >= INTEL_PMC_IDX_FIXED)
		return PERFCTR_MAP_X86_FIXED | (bit - INTEL_PMC_IDX_FIXED);
	return bit;
}

/*
 * Counter @map's 4-bit field of IA32_FIXED_CTR_CTRL, from its evntsel; a
 * metric counter's is the slots counter's.
 */
static u64 x86_perfctr_fixed_field(u32 map, u64 evntsel, bool imode)
{
	u64 bits = 0;

	if (x86_perfctr_map_is_metric(map))
		map = X86_PERFCTR_FIXED_SLOTS;

	if (evntsel & ARCH_PERFMON_EVENTSEL_OS)
		bits |= INTEL_FIXED_0_KERNEL;
	if (evntsel & ARCH_PERFMON_EVENTSEL_USR)
		bits |= INTEL_FIXED_0_USER;
	if (evntsel & ARCH_PERFMON_EVENTSEL_ANY)
		bits |= INTEL_FIXED_0_ANYTHREAD;
	if (imode)
		bits |= INTEL_FIXED_0_ENABLE_PMI;
	return intel_fixed_bits_by_idx(x86_perfctr_fixed_index(map), bits);
}

/**
 * arch_perfctr_check_counter - may this machine count a hardware counter so
 * @map: the counter, as named in pmc_map[]: a general-purpose counter's
 *	index, or PERFCTR_MAP_X86_FIXED with a fixed counter's index
 * @evntsel: its event selector
 * @ireset: 0 for an accumulation-mode counter, else the (negative) value an
 *	interrupt-mode counter is preset to; the core checks it against the
 *	counter's width
 * @allow_kernel: whether the caller may count kernel-mode events
 *
 * A general-purpose selector may carry the enable bit, and an interrupt-mode
 * one the interrupt bit, as perfctr 2.7's did; the driver sets them anyway.
 *
 * Return: 0 if it may; -EINVAL for a counter the processor does not have,
 * an event selector bit it does not let user space set, neither user nor
 * kernel mode, or an interrupt-mode counter that cannot interrupt or
 * cannot be preset to @ireset, as a metric counter cannot; -EACCES for
 * kernel-mode or AnyThread counting without the privilege.
 */
int arch_perfctr_check_counter(u32 map, u64 evntsel, s64 ireset,
			       bool allow_kernel)
{
	const struct x86_perfctr_desc *desc = x86_perfctr_active_desc;
	s64 ireset_min = S64_MIN;
	u64 allowed;

	if (x86_perfctr_map_is_metric(map)) {
		if (x86_perfctr_metric_index(map) >= desc->pmu.nrmetrics ||
		    ireset)
			return -EINVAL;
		allowed = desc->fixed_evntsel_user &
			  (ARCH_PERFMON_EVENTSEL_USR | ARCH_PERFMON_EVENTSEL_OS);
	} else if (x86_perfctr_map_is_fixed(map)) {
		u32 j = x86_perfctr_fixed_index(map);

		if (j >= 32 || !(desc->fixed_mask & BIT(j)))
			return -EINVAL;
		allowed = desc->fixed_evntsel_user;
	} else {
		if (map >= desc->pmu.nrctrs)
			return -EINVAL;
		/*
		 * perfctr 2.7's selectors carry the enable bit, and the
		 * interrupt bit in interrupt mode: the driver sets both
		 * itself, so they are accepted where it would.
		 */
		allowed = desc->evntsel_user | ARCH_PERFMON_EVENTSEL_ENABLE;
		if (ireset)
			allowed |= ARCH_PERFMON_EVENTSEL_INT;
		ireset_min = desc->ireset_min;
	}
	if (evntsel & ~allowed)
		return -EINVAL;
	/* Neither USR nor OS: AMD would count both, Intel nothing. */
	if (!(evntsel & (ARCH_PERFMON_EVENTSEL_USR | ARCH_PERFMON_EVENTSEL_OS)))
		return -EINVAL;
	if (ireset && (!(desc->pmu.features & PERFCTR_FEATURE_PCINT) ||
		       ireset < ireset_min))
		return -EINVAL;
	if ((evntsel & X86_PERFCTR_EVNTSEL_PRIVILEGED) && !allow_kernel)
		return -EACCES;
	return 0;
}

/**
 * arch_perfctr_counter_width - how many bits a hardware counter has
 * @map: the counter, as named in pmc_map[]
 *
 * Return: the width in bits; 64 for a metric counter, which is a share
 * of the slots, never a register that wraps.
 */
u32 arch_perfctr_counter_width(u32 map)
{
	const struct x86_perfctr_desc *desc = x86_perfctr_active_desc;

	if (x86_perfctr_map_is_metric(map))
		return 64;
	if (x86_perfctr_map_is_fixed(map))
		return desc->pmu.fixed_width;
	return desc->pmu.ctr_width;
}

/* Does @control count TopDown metrics? */
static bool x86_perfctr_has_metrics(const struct perfctr_cpu_control *control)
{
	unsigned int i, n = control->nractrs + control->nrictrs;

	for (i = 0; i < n; i++)
		if (x86_perfctr_map_is_metric(control->pmc_map[i]))
			return true;
	return false;
}

/**
 * arch_perfctr_counter_restarts - does enabling restart a counter from zero
 * @map: the counter, as named in pmc_map[]
 * @control: the control it is counted in
 *
 * Return: true for the counters of TopDown: the metric counters, and the
 * slots counter of a control that counts metrics, which divide it.
 */
bool arch_perfctr_counter_restarts(u32 map,
				   const struct perfctr_cpu_control *control)
{
	return x86_perfctr_uses_slots(x86_perfctr_active_desc, map) &&
	       x86_perfctr_has_metrics(control);
}

/**
 * arch_perfctr_check_control - rules between the counters of a control
 * @control: a control whose every counter passed
 *	arch_perfctr_check_counter()
 *
 * The slots counter and the metric counters share fixed counter 3's
 * field of IA32_FIXED_CTR_CTRL: they must count in the same modes (and
 * AnyThread, which no processor with PERF_METRICS has).
 *
 * Return: 0, or -EINVAL if two of them ask for different modes.
 */
int arch_perfctr_check_control(const struct perfctr_cpu_control *control)
{
	const struct x86_perfctr_desc *desc = x86_perfctr_active_desc;
	unsigned int i, n = control->nractrs + control->nrictrs;
	u64 mode, first = 0;

	for (i = 0; i < n; i++) {
		if (!x86_perfctr_uses_slots(desc, control->pmc_map[i]))
			continue;
		mode = control->evntsel[i] &
		       (ARCH_PERFMON_EVENTSEL_USR | ARCH_PERFMON_EVENTSEL_OS |
			ARCH_PERFMON_EVENTSEL_ANY);
		if (first && mode != first)
			return -EINVAL;
		first = mode;
	}
	return 0;
}

/* Category @k's slots since the slots counter and PERF_METRICS restarted. */
static u64 x86_perfctr_read_metric(const struct x86_perfctr_desc *desc,
				   u32 k)
{
	u32 slots_msr = x86_perfctr_counter_addr(desc, X86_PERFCTR_FIXED_SLOTS);
	u64 slots = x86_perfctr_rdmsr(slots_msr);

	return perfctr_x86_topdown_slots(slots,
					 x86_perfctr_rdmsr(desc->perf_metrics),
					 k);
}

/**
 * arch_perfctr_read_counter - read a hardware counter
 * @map: the counter, as named in pmc_map[]
 *
 * Return: its raw value; for a metric counter, its category's slots.
 */
u64 arch_perfctr_read_counter(u32 map)
{
	const struct x86_perfctr_desc *desc = x86_perfctr_active_desc;

	if (x86_perfctr_map_is_metric(map))
		return x86_perfctr_read_metric(desc,
					       x86_perfctr_metric_index(map));
	return x86_perfctr_rdmsr(x86_perfctr_counter_addr(desc, map));
}

/**
 * arch_perfctr_write_counter - preset a hardware counter
 * @map: the counter, as named in pmc_map[]
 * @value: the raw value to load, e.g. an interrupt-mode reset value;
 *	for a metric counter, what PERF_METRICS is set to (only ever 0)
 */
void arch_perfctr_write_counter(u32 map, u64 value)
{
	const struct x86_perfctr_desc *desc = x86_perfctr_active_desc;

	lockdep_assert_irqs_disabled();
	if (x86_perfctr_map_is_metric(map))
		x86_perfctr_wrmsr(desc->perf_metrics, value);
	else
		x86_perfctr_wrmsr(x86_perfctr_counter_addr(desc, map), value);
}

static bool x86_perfctr_pmc_is_hw(const struct perfctr_cpu_state *state,
				  unsigned int i)
{
	return !(state->pmc[i].map & PERFCTR_MAP_SOFTWARE);
}

/*
 * Zero the slots counter and PERF_METRICS, the counter first, as the SDM
 * has it and perf does it (icl_update_topdown_event()).
 */
static void x86_perfctr_restart_slots(const struct x86_perfctr_desc *desc)
{
	x86_perfctr_wrmsr(x86_perfctr_counter_addr(desc, X86_PERFCTR_FIXED_SLOTS), 0);
	x86_perfctr_wrmsr(desc->perf_metrics, 0);
}

static bool x86_perfctr_map_in_fixed_ctrl(u32 map)
{
	return x86_perfctr_map_is_fixed(map) || x86_perfctr_map_is_metric(map);
}

/* perfctr_plan.flags: the fixed counters' control, the TopDown restart. */
#define X86_PERFCTR_PLAN_FIXED		BIT(0)
#define X86_PERFCTR_PLAN_RESTART	BIT(1)

/**
 * arch_perfctr_prepare - how the counters of a control are started
 * @control: a checked control with hardware counters
 * @plan: where to put it
 *
 * Each general-purpose counter's event selector, with the enable bit and
 * the interrupt bit for an interrupt-mode counter, is a write of
 * @plan->write, named by its MSR.  The fixed counters' fields make up
 * @plan->config, for IA32_FIXED_CTR_CTRL.  @plan->enable holds the
 * counters' global control bits, @plan->imode those of the
 * interrupt-mode ones.
 */
void arch_perfctr_prepare(const struct perfctr_cpu_control *control,
			  struct perfctr_plan *plan)
{
	const struct x86_perfctr_desc *desc = x86_perfctr_active_desc;
	unsigned int i, nrctrs = control->nractrs + control->nrictrs;

	perfctr_plan_init(plan);
	for (i = 0; i < nrctrs; i++) {
		u32 map = control->pmc_map[i];
		bool imode = i >= control->nractrs;
		u64 evntsel = control->evntsel[i];

		if (map & PERFCTR_MAP_SOFTWARE)
			continue;
		plan->enable |= x86_perfctr_global_bit(map);
		if (imode)
			plan->imode |= x86_perfctr_global_bit(map);
		if (x86_perfctr_map_is_metric(map))
			plan->flags |= X86_PERFCTR_PLAN_RESTART;
		if (x86_perfctr_map_in_fixed_ctrl(map)) {
			plan->config |= x86_perfctr_fixed_field(map, evntsel,
								imode);
			plan->flags |= X86_PERFCTR_PLAN_FIXED;
			continue;
		}
		evntsel |= ARCH_PERFMON_EVENTSEL_ENABLE;
		if (imode)
			evntsel |= ARCH_PERFMON_EVENTSEL_INT;
		plan->write[plan->nr++] = (struct perfctr_plan_write){
			.reg = x86_perfctr_evntsel_addr(desc, map),
			.value = evntsel,
		};
	}
}

/**
 * arch_perfctr_enable - program the event selectors and start counting
 * @plan: what arch_perfctr_prepare() made of the control
 *
 * The event selectors are written, then the fixed counters' fields at
 * once; with global control, the counters start together when it is
 * written.  The slots counter and PERF_METRICS restart from zero for a
 * control that counts TopDown metrics.
 */
void arch_perfctr_enable(const struct perfctr_plan *plan)
{
	const struct x86_perfctr_desc *desc = x86_perfctr_active_desc;
	unsigned int i;

	lockdep_assert_irqs_disabled();
	for (i = 0; i < plan->nr; i++)
		x86_perfctr_wrmsr(plan->write[i].reg, plan->write[i].value);
	if (plan->flags & X86_PERFCTR_PLAN_RESTART)
		x86_perfctr_restart_slots(desc);
	if (plan->flags & X86_PERFCTR_PLAN_FIXED)
		x86_perfctr_wrmsr(desc->fixed_ctrl, plan->config);
	this_cpu_write(x86_perfctr_imode_bits, plan->imode);
	this_cpu_or(x86_perfctr_dirty_bits, plan->enable);
	if (desc->global_ctrl)
		x86_perfctr_wrmsr(desc->global_ctrl, plan->enable);
}

/**
 * arch_perfctr_disable - stop the hardware counters of a state
 * @state: the counters
 *
 * With global control, all stop at once when it is cleared; then every
 * selector the state used is cleared, so that nothing stays armed for the
 * next thread on this CPU.
 */
void arch_perfctr_disable(const struct perfctr_cpu_state *state)
{
	const struct x86_perfctr_desc *desc = x86_perfctr_active_desc;
	unsigned int i, nrctrs = perfctr_cstatus_nrctrs(state->cstatus);
	bool has_fixed = false;

	lockdep_assert_irqs_disabled();
	if (desc->global_ctrl)
		x86_perfctr_wrmsr(desc->global_ctrl, 0);
	/*
	 * Disabled counters are no longer the interrupt handler's to look
	 * at; an overflow of theirs is found from the value saved at
	 * suspend, and its PMI may still be on its way.
	 */
	if (this_cpu_xchg(x86_perfctr_imode_bits, 0))
		x86_perfctr_open_pmi_window();
	for (i = 0; i < nrctrs; i++) {
		u32 map = state->pmc[i].map;

		if (!x86_perfctr_pmc_is_hw(state, i))
			continue;
		if (x86_perfctr_map_in_fixed_ctrl(map))
			has_fixed = true;
		else
			x86_perfctr_wrmsr(x86_perfctr_evntsel_addr(desc, map), 0);
	}
	if (has_fixed)
		x86_perfctr_wrmsr(desc->fixed_ctrl, 0);
}

/* Whether two plans program the counters alike, register for register. */
static bool x86_perfctr_same_plan(const struct perfctr_plan *a,
				  const struct perfctr_plan *b)
{
	unsigned int i;

	if (a->nr != b->nr || a->flags != b->flags || a->enable != b->enable ||
	    a->config != b->config)
		return false;
	for (i = 0; i < a->nr; i++)
		if (a->write[i].reg != b->write[i].reg ||
		    a->write[i].value != b->write[i].value)
			return false;
	return true;
}

/**
 * arch_perfctr_switch - hand this CPU's counters to the next thread
 * @prev: the counters running, the last this CPU enabled, already read
 * @prev_plan: the plan they were started from
 * @plan: the next thread's, without interrupt-mode counters
 *
 * From a plan to the same, as between two threads of one program: the
 * selectors and the global control stay as they are, the counters keep
 * running, and only those used since they were last zeroed are zeroed,
 * as arch_perfctr_user_read(true) does; each MSR access costs a hundred
 * cycles or more.  To another plan, or one that restarts the TopDown
 * counters: arch_perfctr_disable(), arch_perfctr_user_read(true) and
 * arch_perfctr_enable(), in a row.
 */
void arch_perfctr_switch(const struct perfctr_cpu_state *prev,
			 const struct perfctr_plan *prev_plan,
			 const struct perfctr_plan *plan)
{
	lockdep_assert_irqs_disabled();
	if (x86_perfctr_same_plan(prev_plan, plan) &&
	    !(plan->flags & X86_PERFCTR_PLAN_RESTART)) {
		arch_perfctr_user_read(true);
		this_cpu_or(x86_perfctr_dirty_bits, plan->enable);
		return;
	}
	arch_perfctr_disable(prev);
	arch_perfctr_user_read(true);
	arch_perfctr_enable(plan);
}

/*
 * Reservation against perf and the NMI watchdog.  perf reserves every
 * general-purpose counter and event selector through the x86 reservation
 * API before it programs any counter, fixed ones included, and gives up
 * if one is taken.  So does this driver, for as long as any thread has a
 * control with hardware counters: each side then finds the other's
 * reservation and fails with EBUSY instead of corrupting its counts.
 */
static DEFINE_SPINLOCK(x86_perfctr_reserve_lock);
/* Read locklessly by the NMI handler: nonzero, the counters are ours. */
static unsigned int x86_perfctr_hw_users;

/* Counter @i's MSR as the reservation API names it. */
static u32 x86_perfctr_reserve_addr(const struct x86_perfctr_desc *desc,
				    u32 i)
{
	return desc->perfctr_reserve + i * desc->stride;
}

/**
 * x86_perfctr_reserve_counter - take a counter and its event selector
 * @ctr_msr: the counter's MSR, as the reservation API names it
 * @sel_msr: its event selector's MSR
 *
 * Return: true if both were free and are now ours.
 */
VISIBLE_IF_KUNIT bool x86_perfctr_reserve_counter(u32 ctr_msr, u32 sel_msr)
{
	KUNIT_STATIC_STUB_REDIRECT(x86_perfctr_reserve_counter, ctr_msr,
				   sel_msr);
	if (!reserve_perfctr_nmi(ctr_msr))
		return false;
	if (!reserve_evntsel_nmi(sel_msr)) {
		release_perfctr_nmi(ctr_msr);
		return false;
	}
	return true;
}

/**
 * x86_perfctr_release_counter - give back what
 *	x86_perfctr_reserve_counter() took
 * @ctr_msr: the counter's MSR
 * @sel_msr: its event selector's MSR
 */
VISIBLE_IF_KUNIT void x86_perfctr_release_counter(u32 ctr_msr, u32 sel_msr)
{
	KUNIT_STATIC_STUB_REDIRECT(x86_perfctr_release_counter, ctr_msr,
				   sel_msr);
	release_evntsel_nmi(sel_msr);
	release_perfctr_nmi(ctr_msr);
}

static void x86_perfctr_release_counters(const struct x86_perfctr_desc *desc,
					 u32 n)
{
	while (n--)
		x86_perfctr_release_counter(x86_perfctr_reserve_addr(desc, n),
					    x86_perfctr_evntsel_addr(desc, n));
}

/**
 * arch_perfctr_reserve - reserve the counter hardware for one more state
 *
 * The first user reserves every general-purpose counter and selector;
 * later ones only count themselves.  Any context; does not sleep.
 *
 * Return: 0, or -EBUSY if perf or the NMI watchdog holds a counter.
 */
int arch_perfctr_reserve(void)
{
	const struct x86_perfctr_desc *desc = x86_perfctr_active_desc;
	int err = 0;
	u32 i;

	spin_lock(&x86_perfctr_reserve_lock);
	if (x86_perfctr_hw_users) {
		WRITE_ONCE(x86_perfctr_hw_users, x86_perfctr_hw_users + 1);
		goto out;
	}
	for (i = 0; i < desc->pmu.nrctrs; i++) {
		if (!x86_perfctr_reserve_counter(x86_perfctr_reserve_addr(desc, i),
						 x86_perfctr_evntsel_addr(desc, i))) {
			x86_perfctr_release_counters(desc, i);
			err = -EBUSY;
			goto out;
		}
	}
	WRITE_ONCE(x86_perfctr_reserve_gen, x86_perfctr_reserve_gen + 1);
	WRITE_ONCE(x86_perfctr_hw_users, 1);
out:
	spin_unlock(&x86_perfctr_reserve_lock);
	return err;
}

/**
 * arch_perfctr_release - a state no longer has hardware counters
 *
 * The last user gives the counters back.  Any context; does not sleep.
 */
void arch_perfctr_release(void)
{
	const struct x86_perfctr_desc *desc = x86_perfctr_active_desc;

	spin_lock(&x86_perfctr_reserve_lock);
	if (!WARN_ON_ONCE(!x86_perfctr_hw_users)) {
		WRITE_ONCE(x86_perfctr_hw_users, x86_perfctr_hw_users - 1);
		if (!x86_perfctr_hw_users)
			x86_perfctr_release_counters(desc, desc->pmu.nrctrs);
	}
	spin_unlock(&x86_perfctr_reserve_lock);
}

/*
 * User-mode rdpmc.  CR4.PCE is set while a thread whose control has
 * hardware counters runs, and given back to perf's rule (rdpmc for the
 * mm's mapped perf events, or never, or always, as its rdpmc sysfs file
 * says) when it leaves the CPU.
 */

/**
 * x86_perfctr_set_pce - allow or forbid rdpmc in user mode on this CPU
 * @allow: set CR4.PCE, or leave it as perf has it for the mm running next
 */
VISIBLE_IF_KUNIT void x86_perfctr_set_pce(bool allow)
{
	KUNIT_STATIC_STUB_REDIRECT(x86_perfctr_set_pce, allow);
	if (allow)
		cr4_set_bits_irqsoff(X86_CR4_PCE);
	else
		cr4_update_pce(NULL);
}

/**
 * arch_perfctr_has_user_read - can threads read their counters with rdpmc?
 *
 * Return: true if this machine has counters to read.
 */
bool arch_perfctr_has_user_read(void)
{
	return x86_perfctr_active_desc->pmu.features & PERFCTR_FEATURE_RDPMC;
}

/*
 * Every counter, in the global control and status bit numbering, and
 * PERF_METRICS.
 */
static unsigned long x86_perfctr_all_bits(const struct x86_perfctr_desc *desc)
{
	return (BIT_ULL(desc->pmu.nrctrs) - 1) |
	       (u64)desc->fixed_mask << INTEL_PMC_IDX_FIXED |
	       (desc->perf_metrics ? BIT_ULL(GLOBAL_CTRL_EN_PERF_METRICS) : 0);
}

/**
 * arch_perfctr_user_read - let the thread about to run read the counters
 * @allow: whether it may
 *
 * Counters used on this CPU since they were last cleared, by another
 * thread or by the same one, and all of them after the counters were
 * taken from perf, are cleared first, so that rdpmc shows a thread no
 * counts but its own: PERF_METRICS after the slots counter, its bit
 * being above the fixed counters'.
 */
void arch_perfctr_user_read(bool allow)
{
	unsigned long dirty, gen = READ_ONCE(x86_perfctr_reserve_gen);
	unsigned int bit;

	lockdep_assert_irqs_disabled();
	if (allow) {
		dirty = this_cpu_xchg(x86_perfctr_dirty_bits, 0);
		if (this_cpu_read(x86_perfctr_clean_gen) != gen) {
			dirty = x86_perfctr_all_bits(x86_perfctr_active_desc);
			this_cpu_write(x86_perfctr_clean_gen, gen);
		}
		for_each_set_bit(bit, &dirty, BITS_PER_LONG)
			arch_perfctr_write_counter(x86_perfctr_map_of_bit(bit),
						   0);
	}
	x86_perfctr_set_pce(allow);
}

/*
 * Overflow interrupts.  A counter with the interrupt bit in its selector
 * (or its fixed counter control field) raises a PMI through the local
 * APIC's performance counter LVT entry, programmed as an NMI as perf does
 * it.  The handler only finds and clears the overflow, and defers the
 * rest to perfctr_overflow_interrupt(): no lock can be taken here.
 */

/**
 * x86_perfctr_lvtpc_nmi - deliver counter overflows as NMIs on this CPU
 *
 * Also unmasks the LVT entry, which Intel processors mask when they
 * deliver a PMI.
 */
void x86_perfctr_lvtpc_nmi(void)
{
	apic_write(APIC_LVTPC, APIC_DM_NMI);
}

/**
 * x86_perfctr_ack_overflow - find and clear the counter overflows of this CPU
 *
 * With global status (Intel version 2 on, AMD PerfMonV2) the counters'
 * overflow bits are read and cleared; bits of other PMI sources (Intel
 * PT's, say) are left to their owners.  Without it (Intel version 1, AMD
 * before PerfMonV2), and in case another handler cleared a bit first, an
 * armed counter has overflowed when its top bit is clear: it was preset
 * to a negative value.  NMI context.
 *
 * Return: the counters that overflowed, as global status bits.
 */
VISIBLE_IF_KUNIT unsigned long x86_perfctr_ack_overflow(void)
{
	const struct x86_perfctr_desc *desc = x86_perfctr_active_desc;
	unsigned long armed = this_cpu_read(x86_perfctr_imode_bits);
	unsigned long ovf = 0;
	unsigned int bit;

	if (desc->global_status) {
		ovf = x86_perfctr_rdmsr(desc->global_status) &
		      x86_perfctr_all_bits(desc);
		if (ovf)
			x86_perfctr_wrmsr(desc->global_ovf_ctrl, ovf);
	}
	armed &= ~ovf;
	for_each_set_bit(bit, &armed, BITS_PER_LONG) {
		u32 map = x86_perfctr_map_of_bit(bit);
		u32 width = arch_perfctr_counter_width(map);

		if (!(arch_perfctr_read_counter(map) & BIT_ULL(width - 1)))
			ovf |= BIT(bit);
	}
	return ovf;
}

/**
 * x86_perfctr_nmi_handler - the NMI handler for counter overflows
 * @cmd: NMI_LOCAL
 * @regs: the interrupted context
 *
 * Only while a control holds the counters: otherwise they are perf's,
 * and so are their interrupts.  A PMI with no overflow left to find
 * shortly after one that had some is the second of two overflows that
 * the first handled, and is claimed too, as perf does on AMD.
 *
 * Return: NMI_HANDLED or NMI_DONE.
 */
int x86_perfctr_nmi_handler(unsigned int cmd, struct pt_regs *regs)
{
	struct x86_perfctr_pmi_window *window =
		this_cpu_ptr(&x86_perfctr_pmi_window);
	unsigned long ovf;

	if (!READ_ONCE(x86_perfctr_hw_users))
		return NMI_DONE;
	ovf = x86_perfctr_ack_overflow();
	if (!ovf && (!window->open ||
		     time_after(jiffies, window->end)))
		return NMI_DONE;
	x86_perfctr_lvtpc_nmi();
	if (ovf)
		x86_perfctr_open_pmi_window();
	if (ovf & this_cpu_read(x86_perfctr_imode_bits))
		perfctr_overflow_interrupt();
	return NMI_HANDLED;
}
