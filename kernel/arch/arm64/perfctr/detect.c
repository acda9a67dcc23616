// SPDX-License-Identifier: GPL-2.0
/*
 * arm64 driver for the virtual per-process performance counters: what the
 * machine has, and whether perfctr gets it.
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
#define pr_fmt(fmt) "perfctr: " fmt

#include <linux/bitfield.h>
#include <linux/cpuhotplug.h>
#include <linux/cpumask.h>
#include <linux/init.h>
#include <linux/interrupt.h>
#include <linux/irq.h>
#include <linux/minmax.h>
#include <linux/of.h>
#include <linux/of_irq.h>
#include <linux/percpu.h>
#include <linux/perf/arm_pmuv3.h>
#include <linux/perfctr_pmu.h>
#include <linux/printk.h>
#include <kunit/static_stub.h>
#include <kunit/visibility.h>
#include <clocksource/arm_arch_timer.h>
#include <asm/arm_pmuv3.h>

#include "perfctr.h"

static struct pmuv3_desc pmuv3_desc __ro_after_init;

/* The per-CPU cookie request_percpu_irq() wants. */
static DEFINE_PER_CPU(u8, pmuv3_irq_cookie);

/**
 * pmuv3_active_desc - the description the driver works from
 *
 * Return: the boot-time description; a KUnit test replaces it with a
 * made-up PMU.
 */
const struct pmuv3_desc *pmuv3_active_desc(void)
{
	KUNIT_STATIC_STUB_REDIRECT(pmuv3_active_desc);
	return &pmuv3_desc;
}

/**
 * arch_perfctr_pmu - the description of the counter hardware
 *
 * Return: the part of the boot-time description the core uses.
 */
const struct perfctr_pmu *arch_perfctr_pmu(void)
{
	/* The core's KUnit tests replace the driver here. */
	KUNIT_STATIC_STUB_REDIRECT(arch_perfctr_pmu);
	return &pmuv3_active_desc()->pmu;
}

static void pmuv3_set_timer_only(struct pmuv3_desc *desc)
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
 * pmuv3_describe - describe the counters from the ID registers
 * @desc: filled in; cpu_khz, tsc_khz and irq are left alone
 * @pmuver: ID_AA64DFR0_EL1.PMUVer
 * @pmcr: PMCR_EL0, whose N field counts the event counters
 *
 * Without PMUv3 (not implemented, or IMPLEMENTATION DEFINED) the
 * description is the timer-only one.  From PMUv3p5 on, PMCR_EL0.LP makes
 * the event counters 64 bits wide; before, they have 32.
 */
VISIBLE_IF_KUNIT
void pmuv3_describe(struct pmuv3_desc *desc, u32 pmuver, u64 pmcr)
{
	desc->pmuver = pmuver;
	if (!pmuv3_implemented(pmuver)) {
		pmuv3_set_timer_only(desc);
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

/*
 * Runs on each CPU as it comes online, and on those online at boot.  A CPU
 * with fewer event counters than the boot CPU cannot count every control:
 * it is forbidden to threads with hardware counters.
 */
static int pmuv3_cpu_online(unsigned int cpu)
{
	const struct pmuv3_desc *desc = &pmuv3_desc;
	u32 n = FIELD_GET(ARMV8_PMU_PMCR_N, read_pmcr());

	if (n < desc->pmu.nrctrs || read_pmuver() != desc->pmuver)
		cpumask_set_cpu(cpu, &perfctr_cpus_forbidden_mask);
	pmuv3_reset();
	enable_percpu_irq(desc->irq, IRQ_TYPE_NONE);
	return 0;
}

static int pmuv3_cpu_offline(unsigned int cpu)
{
	disable_percpu_irq(pmuv3_desc.irq);
	pmuv3_reset();
	return 0;
}

static const struct of_device_id pmuv3_of_ids[] = {
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
static int __init pmuv3_claim_irq(const char **why)
{
	struct device_node *np;
	int irq, err;

	np = of_find_matching_node(NULL, pmuv3_of_ids);
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
	err = request_percpu_irq(irq, pmuv3_overflow_irq, "perfctr",
				 &pmuv3_irq_cookie);
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
static int __init pmuv3_init(void)
{
	struct pmuv3_desc *desc = &pmuv3_desc;
	const char *why = NULL;
	int err;

	pmuv3_describe(desc, read_pmuver(), read_pmcr());
	desc->pmu.tsc_khz = arch_timer_get_rate() / 1000;
	if (desc->pmu.nrfixed) {
		desc->irq = pmuv3_claim_irq(&why);
		if (!desc->irq)
			pmuv3_set_timer_only(desc);
	} else {
		why = "no PMUv3";
	}
	if (desc->irq) {
		err = cpuhp_setup_state(CPUHP_AP_ONLINE_DYN, "perfctr:online",
					pmuv3_cpu_online, pmuv3_cpu_offline);
		if (err < 0) {
			free_percpu_irq(desc->irq, &pmuv3_irq_cookie);
			desc->irq = 0;
			pmuv3_set_timer_only(desc);
			why = "no CPU hotplug state";
		}
	}
	if (why)
		pr_info("%s: %s, PMU left to perf\n", desc->pmu.name, why);
	else
		pr_info("%s owns the PMU: %u counters of %u bits and the cycle counter\n",
			desc->pmu.name, desc->pmu.nrctrs, desc->pmu.ctr_width);
	return 0;
}
arch_initcall(pmuv3_init);
