// SPDX-License-Identifier: GPL-2.0
/*
 * arm64 driver for the virtual per-process performance counters: what the
 * machine has.
 *
 * perf's arm_pmu framework finds the PMUs, in the device tree or in ACPI's
 * MADT, probes their counters and requests their interrupts, a PPI or one
 * SPI per CPU.  This driver takes what it found: the PMUv3 of the CPU
 * that describes the counters at boot, and on every CPU as it comes
 * online, whether perf has a PMUv3 there as good.  The counters are
 * perf's until a control needs them (program.c).
 *
 * The generic timer's virtual count, CNTVCT_EL0, which user space may
 * read, plays the part of the x86 TSC.
 */
#define pr_fmt(fmt) "perfctr: " fmt

#include <linux/bitmap.h>
#include <linux/cpuhotplug.h>
#include <linux/cpumask.h>
#include <linux/init.h>
#include <linux/minmax.h>
#include <linux/perf/arm_pmu.h>
#include <linux/perf/arm_pmuv3.h>
#include <linux/perfctr_pmu.h>
#include <linux/printk.h>
#include <linux/smp.h>
#include <kunit/visibility.h>
#include <clocksource/arm_arch_timer.h>
#include <asm/arm_pmuv3.h>

#include "perfctr.h"

static struct pmuv3_desc pmuv3_desc __ro_after_init;

/*
 * The description the driver works from: the boot-time one; the KUnit
 * tests point it at a made-up PMU, and back.
 */
const struct pmuv3_desc *pmuv3_active_desc __read_mostly = &pmuv3_desc;

/**
 * arch_perfctr_pmu - the description of the counter hardware
 *
 * Return: the part of the boot-time description the core uses.
 */
const struct perfctr_pmu *arch_perfctr_pmu(void)
{
	return &pmuv3_active_desc->pmu;
}

/**
 * arch_perfctr_tsc_khz - the rate of the generic timer's virtual count
 *
 * The timer is not the PMU's: its rate is the same whatever the PMU.
 *
 * Return: the rate in kHz, fixed since boot.
 */
u32 arch_perfctr_tsc_khz(void)
{
	return arch_timer_get_rate() / 1000;
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
	desc->pmuver = 0;
}

/* The event counters of @armpmu: perf numbers them from 0, without holes. */
static u32 pmuv3_nr_event_counters(const struct arm_pmu *armpmu)
{
	return bitmap_weight(armpmu->cntr_mask,
			     ARMV8_PMU_MAX_GENERAL_COUNTERS);
}

/**
 * pmuv3_describe - describe the counters of the PMU perf found
 * @desc: filled in; cpu_khz and tsc_khz are left alone
 * @armpmu: the PMU of the CPU detection runs on, NULL if perf has none
 *
 * Without a PMU, or with one that is not PMUv3 (an IMPLEMENTATION DEFINED
 * one, say), the description is the timer-only one.  From PMUv3p5 on,
 * PMCR_EL0.LP makes the event counters 64 bits wide; before, they have 32.
 */
VISIBLE_IF_KUNIT
void pmuv3_describe(struct pmuv3_desc *desc, const struct arm_pmu *armpmu)
{
	if (!armpmu || !pmuv3_implemented(armpmu->pmuver)) {
		pmuv3_set_timer_only(desc);
		return;
	}
	desc->pmuver = armpmu->pmuver;
	desc->pmu.name = "arm64 PMUv3";
	desc->pmu.cpu_type = PERFCTR_ARM64_PMUV3;
	desc->pmu.nrctrs = pmuv3_nr_event_counters(armpmu);
	desc->pmu.ctr_width = is_pmuv3p5(armpmu->pmuver) ? 64 : 32;
	desc->pmu.nrfixed = 1;
	desc->pmu.fixed_width = 64;
	desc->pmu.features = PERFCTR_FEATURE_RDTSC | PERFCTR_FEATURE_RDPMC |
			     PERFCTR_FEATURE_PCINT;
}

/**
 * pmuv3_cpu_can_count - can a CPU count every control the description allows
 * @desc: the description
 * @armpmu: the PMU perf has on that CPU, NULL if none
 *
 * Return: true if @armpmu is a PMUv3 with counters as wide and at least as
 * many as described.
 */
VISIBLE_IF_KUNIT
bool pmuv3_cpu_can_count(const struct pmuv3_desc *desc,
			 const struct arm_pmu *armpmu)
{
	return armpmu && pmuv3_implemented(armpmu->pmuver) &&
	       is_pmuv3p5(armpmu->pmuver) == is_pmuv3p5(desc->pmuver) &&
	       pmuv3_nr_event_counters(armpmu) >= desc->pmu.nrctrs;
}

/*
 * Runs on each CPU as it comes online, after perf's PMU driver has set
 * the CPU up, and on those online at boot.  A CPU that cannot count every
 * control is forbidden to threads with hardware counters.
 */
static int pmuv3_cpu_online(unsigned int cpu)
{
	if (pmuv3_cpu_can_count(&pmuv3_desc, armpmu_get_cpu_pmu(cpu)))
		cpumask_clear_cpu(cpu, &perfctr_cpus_forbidden_mask);
	else
		cpumask_set_cpu(cpu, &perfctr_cpus_forbidden_mask);
	return 0;
}

/*
 * The timer, early: the software counters' clock is set up from its rate
 * in a subsys_initcall.  Until the PMU is known, the driver is the
 * timer-only one.
 */
static int __init pmuv3_timer_init(void)
{
	pmuv3_set_timer_only(&pmuv3_desc);
	pmuv3_desc.pmu.tsc_khz = arch_timer_get_rate() / 1000;
	return 0;
}
arch_initcall(pmuv3_timer_init);

/*
 * The PMU, once perf's driver has probed it: platform devices and ACPI
 * probe in device initcalls, and deferred probes have been retried by
 * the end of the late ones.
 */
static int __init pmuv3_init(void)
{
	struct pmuv3_desc *desc = &pmuv3_desc;
	int err;

	pmuv3_describe(desc, armpmu_get_cpu_pmu(get_cpu()));
	put_cpu();
	if (desc->pmu.cpu_type != PERFCTR_ARM64_PMUV3) {
		pr_info("%s: perf found no PMUv3, hardware counters unavailable\n",
			desc->pmu.name);
		return 0;
	}
	err = cpuhp_setup_state(CPUHP_AP_ONLINE_DYN, "perfctr:online",
				pmuv3_cpu_online, NULL);
	if (err < 0) {
		pmuv3_set_timer_only(desc);
		pr_warn("%s: no CPU hotplug state (%d), hardware counters unavailable\n",
			desc->pmu.name, err);
		return 0;
	}
	pr_info("%s: %u counters of %u bits and the cycle counter, shared with perf\n",
		desc->pmu.name, desc->pmu.nrctrs, desc->pmu.ctr_width);
	return 0;
}
late_initcall_sync(pmuv3_init);
