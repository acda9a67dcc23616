// SPDX-License-Identifier: GPL-2.0
/*
 * arm64 driver for the virtual per-process performance counters: taking
 * the PMU from perf and giving it back, reading and programming the PMUv3
 * event counters and cycle counter, EL0 access, and the overflow
 * interrupt.
 *
 * Every register access goes through pmuv3_read_reg() and
 * pmuv3_write_reg(), but the counter and clock reads the core makes
 * inline (<asm/perfctr.h>), every question about the hardware through
 * pmuv3_active_desc, and the claim through pmuv3_claim() and
 * pmuv3_unclaim(): the driver's KUnit tests replace these, and nothing
 * else of the driver, with static stubs.  The arch_perfctr_*() functions
 * carry static-stub redirects too, for the core's KUnit tests, which
 * replace the whole driver with a made-up one.
 */
#include <linux/bitfield.h>
#include <linux/bitmap.h>
#include <linux/bits.h>
#include <linux/bug.h>
#include <linux/errno.h>
#include <linux/interrupt.h>
#include <linux/minmax.h>
#include <linux/percpu.h>
#include <linux/perf/arm_pmu.h>
#include <linux/perf/arm_pmuv3.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/perfctr_pmu.h>
#include <kunit/static_stub.h>
#include <kunit/visibility.h>
#include <asm/arch_timer.h>
#include <asm/arm_pmuv3.h>
#include <asm/virt.h>

#include "perfctr.h"

/**
 * struct pmuv3_cpu - what the driver left in the counters of one CPU
 * @imode:	interrupt-mode counters armed, as PMINTENSET_EL0 bits
 * @enabled:	counters the last arch_perfctr_enable() started
 * @dirty:	counters enabled since they were last zeroed
 * @clean_gen:	the claim the counters were last taken from perf for
 * @pmcr:	PMCR_EL0 as the driver counts, since they were taken
 *
 * Written with interrupts off on the CPU itself; the overflow interrupt
 * reads @imode.
 */
struct pmuv3_cpu {
	u32		imode;
	u32		enabled;
	u32		dirty;
	unsigned long	clean_gen;
	u64		pmcr;
};

static DEFINE_PER_CPU(struct pmuv3_cpu, pmuv3_cpu);

/* The event selector bits user space may set. */
#define PMUV3_EVNTSEL_USER	(PERFCTR_ARM64_EVENT_MASK | \
				 PERFCTR_ARM64_EXCLUDE_EL1 | \
				 PERFCTR_ARM64_EXCLUDE_EL0)

/**
 * pmuv3_read_reg - read a PMUv3 register of this CPU
 * @reg: which: PMCR_EL0 or PMOVSCLR_EL0; the counters themselves are
 *	read inline (<asm/perfctr.h>)
 * @n: not used by either
 *
 * Return: its value.
 */
VISIBLE_IF_KUNIT
u64 pmuv3_read_reg(enum pmuv3_reg reg, unsigned int n)
{
	KUNIT_STATIC_STUB_REDIRECT(pmuv3_read_reg, reg, n);
	switch (reg) {
	case PMUV3_PMCR:
		return read_pmcr();
	case PMUV3_PMOVSCLR:
		return read_pmovsclr();
	default:
		WARN_ONCE(1, "perfctr: PMU register %d is not read\n", reg);
		return 0;
	}
}

/**
 * pmuv3_write_reg - write a PMUv3 register of this CPU
 * @reg: which
 * @n: the event counter, for PMUV3_PMEVCNTR and PMUV3_PMEVTYPER
 * @value: what
 */
VISIBLE_IF_KUNIT
void pmuv3_write_reg(enum pmuv3_reg reg, unsigned int n, u64 value)
{
	KUNIT_STATIC_STUB_REDIRECT(pmuv3_write_reg, reg, n, value);
	switch (reg) {
	case PMUV3_PMEVCNTR:
		write_pmevcntrn(n, value);
		break;
	case PMUV3_PMEVTYPER:
		write_pmevtypern(n, value);
		break;
	case PMUV3_PMCCNTR:
		write_pmccntr(value);
		break;
	case PMUV3_PMCCFILTR:
		write_pmccfiltr(value);
		break;
	case PMUV3_PMCR:
		write_pmcr(value);
		break;
	case PMUV3_PMCNTENSET:
		write_pmcntenset(value);
		break;
	case PMUV3_PMCNTENCLR:
		write_pmcntenclr(value);
		break;
	case PMUV3_PMINTENSET:
		write_pmintenset(value);
		break;
	case PMUV3_PMINTENCLR:
		write_pmintenclr(value);
		break;
	case PMUV3_PMOVSCLR:
		write_pmovsclr(value);
		break;
	case PMUV3_PMUSERENR:
		write_pmuserenr(value);
		break;
	}
}

/* The counter's bit in PMCNTENSET_EL0 and the other bit-mask registers. */
static u32 pmuv3_map_bit(u32 map)
{
	return BIT(map);
}

static bool pmuv3_map_is_cycles(u32 map)
{
	return map == PERFCTR_MAP_ARM64_CYCLES;
}

/**
 * arch_perfctr_check_counter - may this machine count a hardware counter so
 * @map: the counter, as named in pmc_map[]: an event counter's index, or
 *	PERFCTR_MAP_ARM64_CYCLES for the cycle counter
 * @evntsel: its event selector
 * @ireset: 0 for an accumulation-mode counter, else the (negative) value an
 *	interrupt-mode counter is preset to; the core has checked it against
 *	the counter's width
 * @allow_kernel: whether the caller may count kernel-mode events
 *
 * Return: 0 if it may; -EINVAL for a counter out of range, an event
 * selector bit other than the event number and the EL0/EL1 exclusions,
 * both modes excluded, a cycle counter set to another event, or an
 * interrupt-mode counter without an overflow interrupt; -EACCES for
 * counting EL1 without the privilege.
 */
int arch_perfctr_check_counter(u32 map, u64 evntsel, s64 ireset,
			       bool allow_kernel)
{
	const struct pmuv3_desc *desc = pmuv3_active_desc;

	if (pmuv3_map_is_cycles(map)) {
		if (!desc->pmu.nrfixed ||
		    (evntsel & PERFCTR_ARM64_EVENT_MASK) !=
		    ARMV8_PMUV3_PERFCTR_CPU_CYCLES)
			return -EINVAL;
	} else if (map >= desc->pmu.nrctrs) {
		return -EINVAL;
	}
	if (evntsel & ~(u64)PMUV3_EVNTSEL_USER)
		return -EINVAL;
	/* Both modes excluded: the counter would count nothing. */
	if ((evntsel & PERFCTR_ARM64_EXCLUDE_EL1) &&
	    (evntsel & PERFCTR_ARM64_EXCLUDE_EL0))
		return -EINVAL;
	if (ireset && !(desc->pmu.features & PERFCTR_FEATURE_PCINT))
		return -EINVAL;
	if (!(evntsel & PERFCTR_ARM64_EXCLUDE_EL1) && !allow_kernel)
		return -EACCES;
	return 0;
}

/**
 * arch_perfctr_counter_width - how many bits a hardware counter has
 * @map: the counter, as named in pmc_map[]
 *
 * Return: the width in bits.
 */
u32 arch_perfctr_counter_width(u32 map)
{
	if (pmuv3_map_is_cycles(map))
		return pmuv3_active_desc->pmu.fixed_width;
	return pmuv3_active_desc->pmu.ctr_width;
}

/**
 * arch_perfctr_counter_restarts - does enabling restart a counter from zero
 * @map: the counter, as named in pmc_map[]
 * @control: the control it is counted in
 *
 * Return: false: every PMUv3 counter keeps its value.
 */
bool arch_perfctr_counter_restarts(u32 map,
				   const struct perfctr_cpu_control *control)
{
	return false;
}

/**
 * arch_perfctr_check_control - rules between the counters of a control
 * @control: a control whose every counter passed
 *	arch_perfctr_check_counter()
 *
 * Return: 0: PMUv3 counters are independent of each other.
 */
int arch_perfctr_check_control(const struct perfctr_cpu_control *control)
{
	return 0;
}

/**
 * arch_perfctr_read_tsc - read the generic timer's virtual count
 *
 * The counter user space reads as CNTVCT_EL0, read after earlier
 * instructions complete: arch_perfctr_read_tsc_inline().
 *
 * Return: the current count.
 */
u64 arch_perfctr_read_tsc(void)
{
	return arch_perfctr_read_tsc_inline();
}

/**
 * arch_perfctr_read_counter - read a hardware counter
 * @map: the counter, as named in pmc_map[]
 *
 * Return: its raw value.
 */
u64 arch_perfctr_read_counter(u32 map)
{
	return arch_perfctr_read_counter_inline(map);
}

/**
 * arch_perfctr_write_counter - preset a hardware counter
 * @map: the counter, as named in pmc_map[]
 * @value: the raw value to load, e.g. an interrupt-mode reset value
 */
void arch_perfctr_write_counter(u32 map, u64 value)
{
	lockdep_assert_irqs_disabled();

	if (pmuv3_map_is_cycles(map))
		pmuv3_write_reg(PMUV3_PMCCNTR, 0, value);
	else
		pmuv3_write_reg(PMUV3_PMEVCNTR, map, value);
}

/**
 * pmuv3_overflow_irq - the PMU's overflow interrupt, while claimed
 * @armpmu: perf's PMU of this CPU, whose interrupt it is
 *
 * Clears the overflow flags of the interrupt-mode counters armed on this
 * CPU and hands the rest to the core, which samples the counters and
 * finds the overflow from their values.  The arm_pmu framework calls it
 * instead of perf's handler while the counters are claimed, as an NMI
 * where the PMU interrupt is one.
 *
 * Return: IRQ_HANDLED if an armed counter overflowed, else IRQ_NONE.
 */
VISIBLE_IF_KUNIT irqreturn_t pmuv3_overflow_irq(struct arm_pmu *armpmu)
{
	u32 ovf = pmuv3_read_reg(PMUV3_PMOVSCLR, 0) &
		  this_cpu_read(pmuv3_cpu.imode);

	if (!ovf)
		return IRQ_NONE;
	pmuv3_write_reg(PMUV3_PMOVSCLR, 0, ovf);
	perfctr_overflow_interrupt();
	return IRQ_HANDLED;
}

/*
 * Taking turns with perf.  The counters are perf's while no control has
 * hardware counters.  The first such control claims them from perf
 * through the arm_pmu framework, which then refuses perf's hardware
 * events with EBUSY and sends the overflow interrupt here; a control that
 * comes while perf has a hardware event gets EBUSY.  The last one gives
 * them back.  perf's events leave the counters stopped and disarmed, but
 * with their counts and perhaps their overflow flags: each claim has a
 * number, and a CPU whose counters were last taken for an older claim is
 * cleaned, and zeroed, before EL0 may read them (pmuv3_take_cpu()).
 */
static DEFINE_SPINLOCK(pmuv3_claim_lock);
static unsigned int pmuv3_hw_users;
static unsigned long pmuv3_claim_gen;

/**
 * pmuv3_claim - take the counters of every CPU from perf
 *
 * Return: 0, or -EBUSY while perf has a hardware event.
 */
VISIBLE_IF_KUNIT int pmuv3_claim(void)
{
	KUNIT_STATIC_STUB_REDIRECT(pmuv3_claim);
	return armpmu_claim(pmuv3_overflow_irq);
}

/**
 * pmuv3_unclaim - give the counters back to perf
 */
VISIBLE_IF_KUNIT void pmuv3_unclaim(void)
{
	KUNIT_STATIC_STUB_REDIRECT(pmuv3_unclaim);
	armpmu_unclaim();
}

/**
 * arch_perfctr_reserve - the counters for one more control
 *
 * The first user claims them from perf; later ones only count themselves.
 * Any context; does not sleep.
 *
 * Return: 0, or -EBUSY while perf has a hardware event.
 */
int arch_perfctr_reserve(void)
{
	int err = 0;

	spin_lock(&pmuv3_claim_lock);
	if (!pmuv3_hw_users) {
		err = pmuv3_claim();
		if (!err)
			WRITE_ONCE(pmuv3_claim_gen, pmuv3_claim_gen + 1);
	}
	if (!err)
		pmuv3_hw_users++;
	spin_unlock(&pmuv3_claim_lock);
	return err;
}

/**
 * arch_perfctr_release - a control no longer has hardware counters
 *
 * The last user gives the counters back to perf.  Every counter a control
 * enabled is stopped by then, and its interrupt disarmed.  Any context;
 * does not sleep.
 */
void arch_perfctr_release(void)
{
	spin_lock(&pmuv3_claim_lock);
	if (!WARN_ON_ONCE(!pmuv3_hw_users) && !--pmuv3_hw_users)
		pmuv3_unclaim();
	spin_unlock(&pmuv3_claim_lock);
}

/* PMCR_EL0.N of this CPU: perf may have used more counters than described. */
static u32 pmuv3_this_cpu_counters(void)
{
	return min_t(u32, FIELD_GET(ARMV8_PMU_PMCR_N,
				    pmuv3_read_reg(PMUV3_PMCR, 0)),
		     ARMV8_PMU_MAX_GENERAL_COUNTERS);
}

/* PMCR_EL0 while the driver counts: 64-bit overflow where it can be. */
static u64 pmuv3_pmcr(const struct pmuv3_desc *desc)
{
	u64 pmcr = ARMV8_PMU_PMCR_E | ARMV8_PMU_PMCR_LC;

	if (desc->pmu.ctr_width == 64)
		pmcr |= ARMV8_PMU_PMCR_LP;
	return pmcr;
}

/**
 * pmuv3_take_cpu - make this CPU's counters the driver's after a claim
 * @cpu: the driver's record of this CPU's counters
 * @gen: the claim
 *
 * On the first grant of EL0 access since the counters were claimed from
 * perf, every counter of this CPU is stopped, its interrupt disarmed and
 * its overflow flag cleared, so that an overflow of perf's raises no
 * interrupt here; the caller zeroes them all, so that perf's counts stay
 * perf's.  Interrupts off.
 *
 * Return: every counter of this CPU, as PMCNTENSET_EL0 bits.
 */
static u32 pmuv3_take_cpu(struct pmuv3_cpu *cpu, unsigned long gen)
{
	u32 all = (u32)(BIT_ULL(pmuv3_this_cpu_counters()) - 1) |
		  pmuv3_map_bit(PERFCTR_MAP_ARM64_CYCLES);

	pmuv3_write_reg(PMUV3_PMCNTENCLR, 0, all);
	pmuv3_write_reg(PMUV3_PMINTENCLR, 0, all);
	isb();
	pmuv3_write_reg(PMUV3_PMOVSCLR, 0, all);
	cpu->imode = 0;
	cpu->enabled = 0;
	cpu->clean_gen = gen;
	cpu->pmcr = pmuv3_pmcr(pmuv3_active_desc);
	return all;
}

/*
 * The filter bits for @evntsel.  A kernel running at EL2 (VHE) is counted
 * only with the EL2 inclusion bit, which follows the EL1 exclusion:
 * @el2 is that bit on such a kernel, else 0.
 */
static u64 pmuv3_evtyper(u64 evntsel, u64 el2)
{
	u64 type = evntsel & PMUV3_EVNTSEL_USER;

	if (!(evntsel & PERFCTR_ARM64_EXCLUDE_EL1))
		type |= el2;
	return type;
}

/**
 * arch_perfctr_prepare - how the counters of a control are started
 * @control: a checked control with hardware counters
 * @plan: where to put it
 *
 * Each event counter gets its PMEVTYPER<n>_EL0, named by its map in
 * @plan->write; the cycle counter its filter PMCCFILTR_EL0, in
 * @plan->flags, written first.  The counters to start are PMCNTENSET_EL0
 * bits in @plan->enable, those to interrupt PMINTENSET_EL0 bits in
 * @plan->imode, and @plan->config is PMCR_EL0.
 */
void arch_perfctr_prepare(const struct perfctr_cpu_control *control,
			  struct perfctr_plan *plan)
{
	unsigned int i, nrctrs = control->nractrs + control->nrictrs;
	u64 el2 = is_kernel_in_hyp_mode() ? ARMV8_PMU_INCLUDE_EL2 : 0;

	perfctr_plan_init(plan);
	for (i = 0; i < nrctrs; i++) {
		u32 map = control->pmc_map[i];
		u64 type;

		if (map & PERFCTR_MAP_SOFTWARE)
			continue;
		type = pmuv3_evtyper(control->evntsel[i], el2);
		if (pmuv3_map_is_cycles(map))
			plan->flags = type & ~(u64)PERFCTR_ARM64_EVENT_MASK;
		else
			plan->write[plan->nr++] = (struct perfctr_plan_write){
				.reg = map, .value = type,
			};
		plan->enable |= pmuv3_map_bit(map);
		if (i >= control->nractrs)
			plan->imode |= pmuv3_map_bit(map);
	}
	plan->config = pmuv3_pmcr(pmuv3_active_desc);
}

/* The cycle counter's filter, then each event counter's type. */
static __always_inline void
pmuv3_write_types(const struct perfctr_plan *plan)
{
	const struct perfctr_plan_write *write = plan->write;
	unsigned int i;

	if (plan->enable & pmuv3_map_bit(PERFCTR_MAP_ARM64_CYCLES))
		pmuv3_write_reg(PMUV3_PMCCFILTR, 0, plan->flags);
	for (i = 0; i < plan->nr; i++)
		pmuv3_write_reg(PMUV3_PMEVTYPER, write[i].reg, write[i].value);
}

/**
 * arch_perfctr_enable - program the event types and start counting
 * @plan: what arch_perfctr_prepare() made of the control
 *
 * The event types are written, the interrupt-mode counters' interrupts
 * armed; PMCR_EL0 is set, for perf's driver clears its enable bit when
 * it resets the PMU (a CPU coming out of a power-down state, say); then
 * all start together through PMCNTENSET_EL0.
 */
void arch_perfctr_enable(const struct perfctr_plan *plan)
{
	struct pmuv3_cpu *cpu;

	lockdep_assert_irqs_disabled();
	pmuv3_write_types(plan);
	if (plan->imode)
		pmuv3_write_reg(PMUV3_PMINTENSET, 0, plan->imode);
	cpu = this_cpu_ptr(&pmuv3_cpu);
	cpu->imode = plan->imode;
	cpu->enabled = plan->enable;
	cpu->dirty |= plan->enable;
	pmuv3_write_reg(PMUV3_PMCR, 0, plan->config);
	pmuv3_write_reg(PMUV3_PMCNTENSET, 0, plan->enable);
	isb();
}

/**
 * arch_perfctr_disable - stop the hardware counters of a state
 * @state: the counters, the last this CPU enabled
 *
 * The counters stop, their interrupts are disarmed and their overflow
 * flags cleared, so that the interrupt line drops and nothing stays armed
 * for the next thread on this CPU.  An overflow is not lost: the core
 * finds it from the counter's value.  Which counters run is what the last
 * arch_perfctr_enable() on this CPU left: @state's.
 */
void arch_perfctr_disable(const struct perfctr_cpu_state *state)
{
	struct pmuv3_cpu *cpu;
	u32 used, imode;

	lockdep_assert_irqs_disabled();
	cpu = this_cpu_ptr(&pmuv3_cpu);
	used = cpu->enabled;
	imode = cpu->imode;
	pmuv3_write_reg(PMUV3_PMCNTENCLR, 0, used);
	cpu->enabled = 0;
	/* The overflow interrupt only reads the bits: no xchg needed. */
	if (imode) {
		cpu->imode = 0;
		pmuv3_write_reg(PMUV3_PMINTENCLR, 0, imode);
	}
	isb();
	pmuv3_write_reg(PMUV3_PMOVSCLR, 0, used);
}

/**
 * arch_perfctr_switch - hand this CPU's counters to the next thread
 * @prev: the counters running, the last this CPU enabled, already read
 * @prev_plan: the plan they were started from, not read: the per-CPU
 *	record of the counters enabled tells this driver what runs
 * @plan: the next thread's, without interrupt-mode counters
 *
 * What arch_perfctr_disable(), arch_perfctr_user_read(true) and
 * arch_perfctr_enable() do in a row, with one PMCR_EL0 write for two:
 * the running counters stop and their overflow flags clear, the next
 * thread's types are written, PMCR_EL0 zeroes every counter as it is set
 * as enable sets it, and the next thread's counters start.  It relies
 * on what the core promises of a hand-off: the claim holds, no interrupt
 * is armed and EL0 may read the counters already.
 */
void arch_perfctr_switch(const struct perfctr_cpu_state *prev,
			 const struct perfctr_plan *prev_plan,
			 const struct perfctr_plan *plan)
{
	struct pmuv3_cpu *cpu;
	u64 enable, pmcr;
	u32 used;

	lockdep_assert_irqs_disabled();
	cpu = this_cpu_ptr(&pmuv3_cpu);
	used = cpu->enabled;
	enable = plan->enable;
	pmcr = plan->config | ARMV8_PMU_PMCR_P | ARMV8_PMU_PMCR_C;
	cpu->enabled = enable;
	cpu->dirty = enable;
	pmuv3_write_reg(PMUV3_PMCNTENCLR, 0, used);
	isb();
	pmuv3_write_reg(PMUV3_PMOVSCLR, 0, used);
	pmuv3_write_types(plan);
	pmuv3_write_reg(PMUV3_PMCR, 0, pmcr);
	pmuv3_write_reg(PMUV3_PMCNTENSET, 0, enable);
	isb();
}

/**
 * arch_perfctr_has_user_read - can threads read their counters at EL0?
 *
 * Return: true if this machine has counters to read.
 */
bool arch_perfctr_has_user_read(void)
{
	return pmuv3_active_desc->pmu.features & PERFCTR_FEATURE_RDPMC;
}

/**
 * arch_perfctr_user_read - let the thread about to run read the counters
 * @allow: whether it may
 *
 * PMUSERENR_EL0.ER and .CR let EL0 read the event counters and the cycle
 * counter, and read and write PMSELR_EL0, with which a fast read in user
 * space picks the counter PMXEVCNTR_EL0 reads.  The selection is harmless:
 * it gives EL0 no counter it could not read directly, and no kernel code
 * relies on it, since this driver, like perf's, reaches every counter and
 * event type through its own PMEVCNTR<n>_EL0 or PMEVTYPER<n>_EL0, and KVM
 * sets PMSELR_EL0 before it enters a guest.  EN and SW stay clear: EL0
 * writes no counter, event type or control register, and no software
 * increment.  EL0 may read every counter, not only the thread's own, so
 * if any counter was used on this CPU since they were last zeroed, by
 * perf or by another thread, all are zeroed first, through PMCR_EL0.P
 * and .C: a thread sees no counts but its own.
 */
void arch_perfctr_user_read(bool allow)
{
	struct pmuv3_cpu *cpu;
	unsigned long gen;
	u32 dirty;

	lockdep_assert_irqs_disabled();
	if (allow) {
		cpu = this_cpu_ptr(&pmuv3_cpu);
		gen = READ_ONCE(pmuv3_claim_gen);
		dirty = cpu->dirty;
		cpu->dirty = 0;
		/* Granted before its counters are preset at resume. */
		if (cpu->clean_gen != gen)
			dirty = pmuv3_take_cpu(cpu, gen);
		/*
		 * None counts now, and none holds a count still to be read:
		 * one write zeroes them all, however many were used.  The
		 * resume that follows may preset some, which the reset must
		 * not overtake: hence the isb.
		 */
		if (dirty) {
			pmuv3_write_reg(PMUV3_PMCR, 0, cpu->pmcr |
					ARMV8_PMU_PMCR_P | ARMV8_PMU_PMCR_C);
			isb();
		}
	}
	pmuv3_write_reg(PMUV3_PMUSERENR, 0,
			allow ? ARMV8_PMU_USERENR_ER | ARMV8_PMU_USERENR_CR : 0);
}
