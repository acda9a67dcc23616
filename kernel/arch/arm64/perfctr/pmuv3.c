// SPDX-License-Identifier: GPL-2.0
/*
 * arm64 driver for the virtual per-process performance counters: the Arm
 * PMUv3 event counters and cycle counter.
 *
 * The PMU has one owner.  At boot this driver claims the PMU's per-CPU
 * interrupt from the device tree, before perf's armv8_pmuv3 driver probes;
 * if it gets it, the counters are perfctr's and perf's driver, refused the
 * same interrupt, registers no hardware PMU (perf keeps its software
 * events).  If it does not (no PMU node, a PMU with one interrupt per
 * CPU, ACPI, or the interrupt already taken), the PMU is left alone and
 * the driver is the timer-only one: every control that asks for a
 * hardware counter is refused.  Either way neither side ever programs a
 * counter the other one uses.
 *
 * The generic timer's virtual count, CNTVCT_EL0, which user space may
 * read, plays the part of the x86 TSC.
 */
#include <linux/bitfield.h>
#include <linux/bits.h>
#include <linux/cpuhotplug.h>
#include <linux/cpumask.h>
#include <linux/errno.h>
#include <linux/init.h>
#include <linux/interrupt.h>
#include <linux/irq.h>
#include <linux/of.h>
#include <linux/of_irq.h>
#include <linux/percpu.h>
#include <linux/perfctr.h>
#include <linux/perf/arm_pmuv3.h>
#include <linux/printk.h>
#include <kunit/static_stub.h>
#include <clocksource/arm_arch_timer.h>
#include <asm/arch_timer.h>
#include <asm/arm_pmuv3.h>
#include <linux/perfctr_pmu.h>
#include <asm/virt.h>

#include "perfctr.h"

struct perfctr_cpu_desc perfctr_cpu_desc __ro_after_init;

/* Interrupt-mode counters armed on this CPU, as PMINTENSET bits. */
static DEFINE_PER_CPU(u32, perfctr_imode_bits);
/* Counters enabled on this CPU since they were last zeroed. */
static DEFINE_PER_CPU(u32, perfctr_dirty_bits);
/* The per-CPU cookie request_percpu_irq() wants. */
static DEFINE_PER_CPU(u8, perfctr_pmu_cookie);

/* The event selector bits user space may set. */
#define PERFCTR_ARM64_EVNTSEL_USER	(PERFCTR_ARM64_EVENT_MASK | \
					 PERFCTR_ARM64_EXCLUDE_EL1 | \
					 PERFCTR_ARM64_EXCLUDE_EL0)

/**
 * arch_perfctr_read_tsc - read the generic timer's virtual count
 *
 * The counter user space reads as CNTVCT_EL0, ordered after earlier
 * instructions as the vDSO orders it.
 *
 * Return: the current count.
 */
u64 arch_perfctr_read_tsc(void)
{
	KUNIT_STATIC_STUB_REDIRECT(arch_perfctr_read_tsc);
	return __arch_counter_get_cntvct();
}

/**
 * perfctr_pmu_read - read a PMUv3 register of this CPU
 * @reg: which
 * @n: the event counter, for PERFCTR_PMEVCNTR and PERFCTR_PMEVTYPER
 *
 * Return: its value.
 */
u64 perfctr_pmu_read(enum perfctr_pmu_reg reg, unsigned int n)
{
	KUNIT_STATIC_STUB_REDIRECT(perfctr_pmu_read, reg, n);
	switch (reg) {
	case PERFCTR_PMEVCNTR:
		return read_pmevcntrn(n);
	case PERFCTR_PMCCNTR:
		return read_pmccntr();
	case PERFCTR_PMCR:
		return read_pmcr();
	case PERFCTR_PMOVSCLR:
		return read_pmovsclr();
	default:
		WARN_ONCE(1, "perfctr: PMU register %d is not read\n", reg);
		return 0;
	}
}

/**
 * perfctr_pmu_write - write a PMUv3 register of this CPU
 * @reg: which
 * @n: the event counter, for PERFCTR_PMEVCNTR and PERFCTR_PMEVTYPER
 * @value: what
 */
void perfctr_pmu_write(enum perfctr_pmu_reg reg, unsigned int n, u64 value)
{
	KUNIT_STATIC_STUB_REDIRECT(perfctr_pmu_write, reg, n, value);
	switch (reg) {
	case PERFCTR_PMEVCNTR:
		write_pmevcntrn(n, value);
		break;
	case PERFCTR_PMEVTYPER:
		write_pmevtypern(n, value);
		break;
	case PERFCTR_PMCCNTR:
		write_pmccntr(value);
		break;
	case PERFCTR_PMCCFILTR:
		write_pmccfiltr(value);
		break;
	case PERFCTR_PMCR:
		write_pmcr(value);
		break;
	case PERFCTR_PMCNTENSET:
		write_pmcntenset(value);
		break;
	case PERFCTR_PMCNTENCLR:
		write_pmcntenclr(value);
		break;
	case PERFCTR_PMINTENSET:
		write_pmintenset(value);
		break;
	case PERFCTR_PMINTENCLR:
		write_pmintenclr(value);
		break;
	case PERFCTR_PMOVSCLR:
		write_pmovsclr(value);
		break;
	case PERFCTR_PMUSERENR:
		write_pmuserenr(value);
		break;
	}
}

/**
 * perfctr_cpu_active_desc - the description the driver works from
 *
 * Return: &perfctr_cpu_desc; a KUnit test replaces it with a made-up PMU.
 */
const struct perfctr_cpu_desc *perfctr_cpu_active_desc(void)
{
	KUNIT_STATIC_STUB_REDIRECT(perfctr_cpu_active_desc);
	return &perfctr_cpu_desc;
}

/**
 * arch_perfctr_pmu - the description of the counter hardware
 *
 * Return: the part of the boot-time description the core uses.
 */
const struct perfctr_pmu *arch_perfctr_pmu(void)
{
	KUNIT_STATIC_STUB_REDIRECT(arch_perfctr_pmu);
	return &perfctr_cpu_active_desc()->pmu;
}

static void perfctr_cpu_set_timer_only(struct perfctr_cpu_desc *desc)
{
	desc->pmu.name = "arm64 timer";
	desc->pmu.cpu_type = PERFCTR_ARM64_GENERIC;
	desc->pmu.nrctrs = 0;
	desc->pmu.ctr_width = 0;
	desc->pmu.nrfixed = 0;
	desc->pmu.fixed_width = 0;
	desc->pmu.features = PERFCTR_FEATURE_RDTSC;
}

/**
 * perfctr_cpu_describe - describe the counters from the ID registers
 * @desc: filled in; cpu_khz, tsc_khz and irq are left alone
 * @pmuver: ID_AA64DFR0_EL1.PMUVer
 * @pmcr: PMCR_EL0, whose N field counts the event counters
 *
 * Without PMUv3 (not implemented, or IMPLEMENTATION DEFINED) the
 * description is the timer-only one.  From PMUv3p5 on, PMCR_EL0.LP makes
 * the event counters 64 bits wide; before, they have 32.
 */
void perfctr_cpu_describe(struct perfctr_cpu_desc *desc, u32 pmuver,
			  u64 pmcr)
{
	desc->pmuver = pmuver;
	if (!pmuv3_implemented(pmuver)) {
		perfctr_cpu_set_timer_only(desc);
		return;
	}
	desc->pmu.name = "arm64 PMUv3";
	desc->pmu.cpu_type = PERFCTR_ARM64_PMUV3;
	desc->pmu.nrctrs = min_t(u32, FIELD_GET(ARMV8_PMU_PMCR_N, pmcr),
			     ARMV8_PMU_MAX_GENERAL_COUNTERS);
	desc->pmu.ctr_width = is_pmuv3p5(pmuver) ? 64 : 32;
	desc->pmu.nrfixed = 1;
	desc->pmu.fixed_width = 64;
	desc->pmu.features = PERFCTR_FEATURE_RDTSC | PERFCTR_FEATURE_RDPMC |
			 PERFCTR_FEATURE_PCINT;
}

/* The counter's bit in PMCNTENSET_EL0 and the other bit-mask registers. */
static u32 perfctr_map_bit(u32 map)
{
	return BIT(map);
}

static bool perfctr_map_is_cycles(u32 map)
{
	return map == PERFCTR_MAP_ARM64_CYCLES;
}

/* PMCR_EL0.N may be 0: a PMU with the cycle counter alone. */
static u32 perfctr_all_bits(const struct perfctr_cpu_desc *desc)
{
	if (!desc->pmu.nrfixed)
		return 0;
	return (u32)(BIT_ULL(desc->pmu.nrctrs) - 1) |
	       perfctr_map_bit(PERFCTR_MAP_ARM64_CYCLES);
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
	const struct perfctr_cpu_desc *desc = perfctr_cpu_active_desc();

	KUNIT_STATIC_STUB_REDIRECT(arch_perfctr_check_counter, map, evntsel,
				   ireset, allow_kernel);
	if (perfctr_map_is_cycles(map)) {
		if (!desc->pmu.nrfixed ||
		    (evntsel & PERFCTR_ARM64_EVENT_MASK) !=
		    PERFCTR_ARM64_CPU_CYCLES)
			return -EINVAL;
	} else if (map >= desc->pmu.nrctrs) {
		return -EINVAL;
	}
	if (evntsel & ~(u64)PERFCTR_ARM64_EVNTSEL_USER)
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
	KUNIT_STATIC_STUB_REDIRECT(arch_perfctr_counter_width, map);
	if (perfctr_map_is_cycles(map))
		return perfctr_cpu_active_desc()->pmu.fixed_width;
	return perfctr_cpu_active_desc()->pmu.ctr_width;
}

/**
 * arch_perfctr_read_counter - read a hardware counter
 * @map: the counter, as named in pmc_map[]
 *
 * Return: its raw value.
 */
u64 arch_perfctr_read_counter(u32 map)
{
	KUNIT_STATIC_STUB_REDIRECT(arch_perfctr_read_counter, map);
	if (perfctr_map_is_cycles(map))
		return perfctr_pmu_read(PERFCTR_PMCCNTR, 0);
	return perfctr_pmu_read(PERFCTR_PMEVCNTR, map);
}

/**
 * arch_perfctr_write_counter - preset a hardware counter
 * @map: the counter, as named in pmc_map[]
 * @value: the raw value to load, e.g. an interrupt-mode reset value
 */
void arch_perfctr_write_counter(u32 map, u64 value)
{
	KUNIT_STATIC_STUB_REDIRECT(arch_perfctr_write_counter, map, value);
	if (perfctr_map_is_cycles(map))
		perfctr_pmu_write(PERFCTR_PMCCNTR, 0, value);
	else
		perfctr_pmu_write(PERFCTR_PMEVCNTR, map, value);
}

/*
 * The filter bits for @evntsel.  A kernel running at EL2 (VHE) is counted
 * only with the EL2 inclusion bit, which follows the EL1 exclusion.
 */
static u64 perfctr_evtyper(u64 evntsel)
{
	u64 type = evntsel & PERFCTR_ARM64_EVNTSEL_USER;

	if (is_kernel_in_hyp_mode() && !(evntsel & PERFCTR_ARM64_EXCLUDE_EL1))
		type |= ARMV8_PMU_INCLUDE_EL2;
	return type;
}

/**
 * arch_perfctr_enable - program the event types and start counting
 * @state: the counters, their start values already loaded
 * @control: the event selectors
 *
 * Each event counter gets its PMEVTYPER<n>_EL0, the cycle counter its
 * filter PMCCFILTR_EL0; interrupt-mode counters their PMINTENSET_EL0 bit;
 * then all start together through PMCNTENSET_EL0.
 */
void arch_perfctr_enable(const struct perfctr_cpu_state *state,
			const struct perfctr_cpu_control *control)
{
	u32 cstatus = state->cstatus;
	unsigned int i, nrctrs = perfctr_cstatus_nrctrs(cstatus);
	u32 enable = 0, imode = 0;

	KUNIT_STATIC_STUB_REDIRECT(arch_perfctr_enable, state, control);
	for (i = 0; i < nrctrs; i++) {
		u32 map = state->pmc[i].map;
		u64 type;

		if (map & PERFCTR_MAP_SOFTWARE)
			continue;
		type = perfctr_evtyper(control->evntsel[i]);
		if (perfctr_map_is_cycles(map))
			perfctr_pmu_write(PERFCTR_PMCCFILTR, 0,
					  type & ~(u64)PERFCTR_ARM64_EVENT_MASK);
		else
			perfctr_pmu_write(PERFCTR_PMEVTYPER, map, type);
		enable |= perfctr_map_bit(map);
		if (i >= perfctr_cstatus_nractrs(cstatus))
			imode |= perfctr_map_bit(map);
	}
	if (imode)
		perfctr_pmu_write(PERFCTR_PMINTENSET, 0, imode);
	this_cpu_write(perfctr_imode_bits, imode);
	this_cpu_or(perfctr_dirty_bits, enable);
	perfctr_pmu_write(PERFCTR_PMCNTENSET, 0, enable);
	isb();
}

/**
 * arch_perfctr_disable - stop the hardware counters of a state
 * @state: the counters
 *
 * The counters stop, their interrupts are disarmed and their overflow
 * flags cleared, so that the interrupt line drops and nothing stays armed
 * for the next thread on this CPU.  An overflow is not lost: the core
 * finds it from the counter's value.  Interrupts off.
 */
void arch_perfctr_disable(const struct perfctr_cpu_state *state)
{
	unsigned int i, nrctrs = perfctr_cstatus_nrctrs(state->cstatus);
	u32 used = 0, imode;

	KUNIT_STATIC_STUB_REDIRECT(arch_perfctr_disable, state);
	for (i = 0; i < nrctrs; i++) {
		u32 map = state->pmc[i].map;

		if (!(map & PERFCTR_MAP_SOFTWARE))
			used |= perfctr_map_bit(map);
	}
	perfctr_pmu_write(PERFCTR_PMCNTENCLR, 0, used);
	imode = this_cpu_xchg(perfctr_imode_bits, 0);
	if (imode)
		perfctr_pmu_write(PERFCTR_PMINTENCLR, 0, imode);
	isb();
	perfctr_pmu_write(PERFCTR_PMOVSCLR, 0, used);
}

/**
 * arch_perfctr_reserve - make the counters this driver's for a control
 *
 * The PMU was claimed at boot, or is not used at all: nothing to do.
 *
 * Return: 0.
 */
int arch_perfctr_reserve(void)
{
	return 0;
}

/**
 * arch_perfctr_release - end a arch_perfctr_reserve()
 */
void arch_perfctr_release(void)
{
}

/**
 * arch_perfctr_has_user_read - can threads read their counters at EL0?
 *
 * Return: true if this machine has counters to read.
 */
bool arch_perfctr_has_user_read(void)
{
	KUNIT_STATIC_STUB_REDIRECT(arch_perfctr_has_user_read);
	return perfctr_cpu_active_desc()->pmu.features & PERFCTR_FEATURE_RDPMC;
}

/**
 * arch_perfctr_user_read - let the thread about to run read the counters
 * @allow: whether it may
 *
 * PMUSERENR_EL0.ER and .CR let EL0 read the event counters and the cycle
 * counter, and nothing else: no writes, no PMSELR_EL0, no software
 * increment.  EL0 may read every counter, not only the thread's own, so
 * the counters used on this CPU since they were last zeroed are zeroed
 * first: a thread sees no counts but its own.  Interrupts off.
 */
void arch_perfctr_user_read(bool allow)
{
	unsigned long dirty;
	unsigned int bit;

	KUNIT_STATIC_STUB_REDIRECT(arch_perfctr_user_read, allow);
	if (allow) {
		dirty = this_cpu_xchg(perfctr_dirty_bits, 0);
		for_each_set_bit(bit, &dirty, 32)
			arch_perfctr_write_counter(bit, 0);
	}
	perfctr_pmu_write(PERFCTR_PMUSERENR, 0,
			  allow ? ARMV8_PMU_USERENR_ER | ARMV8_PMU_USERENR_CR :
				  0);
}

/**
 * perfctr_cpu_pmu_irq - the PMU's overflow interrupt
 * @irq: its number
 * @dev_id: the per-CPU cookie
 *
 * Clears the overflow flags of the interrupt-mode counters armed on this
 * CPU and hands the rest to the core, which samples the counters and
 * finds the overflow from their values.
 *
 * Return: IRQ_HANDLED if an armed counter overflowed, else IRQ_NONE.
 */
irqreturn_t perfctr_cpu_pmu_irq(int irq, void *dev_id)
{
	u32 ovf = perfctr_pmu_read(PERFCTR_PMOVSCLR, 0) &
		  this_cpu_read(perfctr_imode_bits);

	if (!ovf)
		return IRQ_NONE;
	perfctr_pmu_write(PERFCTR_PMOVSCLR, 0, ovf);
	perfctr_overflow_interrupt();
	return IRQ_HANDLED;
}

/**
 * perfctr_cpu_reset - put this CPU's PMU in the state the driver expects
 *
 * Every counter stopped, zeroed, its interrupt off and its overflow flag
 * clear, no access from EL0; PMCR_EL0 enabling the counters, the cycle
 * counter counting every cycle and overflowing at 64 bits, and the event
 * counters at 64 bits where they can be.
 */
void perfctr_cpu_reset(void)
{
	const struct perfctr_cpu_desc *desc = perfctr_cpu_active_desc();
	u32 all = perfctr_all_bits(desc);
	u64 pmcr = ARMV8_PMU_PMCR_E | ARMV8_PMU_PMCR_P | ARMV8_PMU_PMCR_C |
		   ARMV8_PMU_PMCR_LC;

	if (desc->pmu.ctr_width == 64)
		pmcr |= ARMV8_PMU_PMCR_LP;
	perfctr_pmu_write(PERFCTR_PMCNTENCLR, 0, all);
	perfctr_pmu_write(PERFCTR_PMINTENCLR, 0, all);
	perfctr_pmu_write(PERFCTR_PMOVSCLR, 0, all);
	perfctr_pmu_write(PERFCTR_PMUSERENR, 0, 0);
	perfctr_pmu_write(PERFCTR_PMCR, 0, pmcr);
	isb();
	this_cpu_write(perfctr_imode_bits, 0);
	this_cpu_write(perfctr_dirty_bits, 0);
}

/*
 * Runs on each CPU as it comes online, and on those online at boot.  A CPU
 * with fewer event counters than the boot CPU cannot count every control:
 * it is forbidden to threads with hardware counters.
 */
static int perfctr_cpu_online(unsigned int cpu)
{
	const struct perfctr_cpu_desc *desc = &perfctr_cpu_desc;
	u32 n = FIELD_GET(ARMV8_PMU_PMCR_N, read_pmcr());

	if (n < desc->pmu.nrctrs || read_pmuver() != desc->pmuver)
		cpumask_set_cpu(cpu, &perfctr_cpus_forbidden_mask);
	perfctr_cpu_reset();
	enable_percpu_irq(desc->irq, IRQ_TYPE_NONE);
	return 0;
}

static int perfctr_cpu_offline(unsigned int cpu)
{
	disable_percpu_irq(perfctr_cpu_desc.irq);
	perfctr_cpu_reset();
	return 0;
}

static const struct of_device_id perfctr_pmu_of_ids[] = {
	{ .compatible = "arm,armv8-pmuv3" },
	{ .compatible = "arm,cortex-a53-pmu" },
	{ .compatible = "arm,cortex-a55-pmu" },
	{ .compatible = "arm,cortex-a57-pmu" },
	{ .compatible = "arm,cortex-a72-pmu" },
	{ .compatible = "arm,cortex-a76-pmu" },
	{ .compatible = "arm,neoverse-n1-pmu" },
	{ }
};

/* The PMU's per-CPU interrupt, taken for good; 0 with a reason if not. */
static int __init perfctr_cpu_claim_irq(const char **why)
{
	struct device_node *np;
	int irq, err;

	np = of_find_matching_node(NULL, perfctr_pmu_of_ids);
	if (!np) {
		*why = "no PMUv3 node in the device tree";
		return 0;
	}
	irq = of_irq_get(np, 0);
	of_node_put(np);
	if (irq <= 0) {
		*why = "the PMU node has no interrupt";
		return 0;
	}
	if (!irq_is_percpu_devid(irq)) {
		*why = "the PMU has one interrupt per CPU, not a PPI";
		return 0;
	}
	err = request_percpu_irq(irq, perfctr_cpu_pmu_irq, "perfctr",
				 &perfctr_pmu_cookie);
	if (err) {
		*why = "its interrupt is taken";
		return 0;
	}
	return irq;
}

/*
 * An arch_initcall: the interrupt controller and the timer are set up by
 * now, and perf's PMU driver, a device_initcall, has not probed yet.
 */
static int __init perfctr_cpu_init(void)
{
	struct perfctr_cpu_desc *desc = &perfctr_cpu_desc;
	const char *why = NULL;
	int err;

	perfctr_cpu_describe(desc, read_pmuver(), read_pmcr());
	desc->pmu.tsc_khz = arch_timer_get_rate() / 1000;
	if (desc->pmu.nrfixed) {
		desc->irq = perfctr_cpu_claim_irq(&why);
		if (!desc->irq)
			perfctr_cpu_set_timer_only(desc);
	} else {
		why = "no PMUv3";
	}
	if (desc->irq) {
		err = cpuhp_setup_state(CPUHP_AP_ONLINE_DYN, "perfctr:online",
					perfctr_cpu_online,
					perfctr_cpu_offline);
		if (err < 0) {
			free_percpu_irq(desc->irq, &perfctr_pmu_cookie);
			desc->irq = 0;
			perfctr_cpu_set_timer_only(desc);
			why = "no CPU hotplug state";
		}
	}
	if (why)
		pr_info("perfctr: %s: %s, PMU left to perf\n", desc->pmu.name, why);
	else
		pr_info("perfctr: %s owns the PMU: %u counters of %u bits and the cycle counter\n",
			desc->pmu.name, desc->pmu.nrctrs, desc->pmu.ctr_width);
	return 0;
}
arch_initcall(perfctr_cpu_init);
