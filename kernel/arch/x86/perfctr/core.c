// SPDX-License-Identifier: GPL-2.0
/*
 * x86 driver for the virtual per-process performance counters.
 *
 * The description of the counter hardware is made once at boot, from
 * CPUID (detect.c), and read-only afterwards.  Every x86-64 processor has
 * the time-stamp counter, which user space can read with rdtsc; the
 * general-purpose and fixed counters, where CPUID describes them, are
 * programmed by program.c, which also takes their overflow interrupts.
 * Where there are none (no architectural perfmon, a hypervisor without a
 * virtual PMU, older processors) the driver is the TSC-only one, and
 * every control that asks for a hardware counter is refused.
 */
#include <linux/cpufeature.h>
#include <linux/cpuhotplug.h>
#include <linux/errno.h>
#include <linux/init.h>
#include <linux/nmi.h>
#include <linux/printk.h>
#include <kunit/static_stub.h>
#include <linux/perfctr_pmu.h>
#include <asm/msr.h>
#include <asm/tsc.h>

#include "perfctr.h"

struct perfctr_cpu_desc perfctr_cpu_desc __ro_after_init;

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

/**
 * arch_perfctr_read_tsc - read the time-stamp counter of this CPU
 *
 * Ordered against earlier loads, so the count a thread sees for a code
 * section does not include instructions retired before it.
 *
 * Return: the current TSC value.
 */
u64 arch_perfctr_read_tsc(void)
{
	KUNIT_STATIC_STUB_REDIRECT(arch_perfctr_read_tsc);
	return rdtsc_ordered();
}

/* Runs on each CPU as it comes online, and on those online at boot. */
static int perfctr_cpu_online(unsigned int cpu)
{
	perfctr_cpu_classify(cpu);
	if (perfctr_cpu_desc.pmu.features & PERFCTR_FEATURE_PCINT)
		perfctr_cpu_lvtpc_nmi();
	return 0;
}

/*
 * tsc_khz and cpu_khz are calibrated in tsc_init(), before any initcall;
 * the secondary CPUs are up by now, and the hotplug state below reaches
 * those that come later.
 */
static int __init perfctr_cpu_init(void)
{
	struct perfctr_cpu_desc *desc = &perfctr_cpu_desc;
	int err;

	perfctr_cpu_detect(desc);
	desc->pmu.cpu_khz = cpu_khz;
	desc->pmu.tsc_khz = tsc_khz;
	if (!boot_cpu_has(X86_FEATURE_APIC))
		desc->pmu.features &= ~PERFCTR_FEATURE_PCINT;
	/*
	 * Without the hotplug callback, CPUs of the other hybrid core type
	 * would not be forbidden, nor the interrupt set up: no counters.
	 */
	if (desc->hybrid_core_type ||
	    (desc->pmu.features & PERFCTR_FEATURE_PCINT)) {
		err = cpuhp_setup_state(CPUHP_AP_ONLINE_DYN, "perfctr:online",
					perfctr_cpu_online, NULL);
		if (err < 0) {
			pr_warn("perfctr: no CPU hotplug state (%d), TSC only\n",
				err);
			perfctr_cpu_set_tsc_only(desc);
		}
	}
	if (desc->pmu.features & PERFCTR_FEATURE_PCINT &&
	    register_nmi_handler(NMI_LOCAL, perfctr_cpu_nmi_handler, 0,
				 "perfctr"))
		desc->pmu.features &= ~PERFCTR_FEATURE_PCINT;
	pr_info("perfctr: %s, %u counters of %u bits, %u fixed of %u bits\n",
		desc->pmu.name, desc->pmu.nrctrs, desc->pmu.ctr_width, desc->pmu.nrfixed,
		desc->pmu.fixed_width);
	return 0;
}
arch_initcall(perfctr_cpu_init);
