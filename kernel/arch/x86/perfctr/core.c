// SPDX-License-Identifier: GPL-2.0
/*
 * x86 driver for the virtual per-process performance counters.
 *
 * The description of the counter hardware is made once at boot, from the
 * kernel's CPU feature bits and CPUID (detect.c), and read-only
 * afterwards.  Every x86-64 processor has the time-stamp counter, which
 * user space can read with rdtsc; the general-purpose and fixed counters,
 * where the processor describes them, are programmed by program.c, which
 * also takes their overflow interrupts.  Where there are none (no
 * architectural perfmon, a hypervisor without a virtual PMU, older
 * processors) the driver is the TSC-only one, and every control that asks
 * for a hardware counter is refused.
 */
#define pr_fmt(fmt) "perfctr: " fmt

#include <linux/cpuhotplug.h>
#include <linux/errno.h>
#include <linux/init.h>
#include <linux/nmi.h>
#include <linux/preempt.h>
#include <linux/perfctr_pmu.h>
#include <linux/printk.h>
#include <linux/processor.h>
#include <asm/msr.h>
#include <asm/tsc.h>

#include "perfctr.h"

static struct x86_perfctr_desc x86_perfctr_desc __ro_after_init;

/*
 * The description the counters are programmed from: the one made at
 * boot; the KUnit tests point it at an imitated processor's, and back.
 */
const struct x86_perfctr_desc *x86_perfctr_active_desc __read_mostly =
	&x86_perfctr_desc;

/**
 * arch_perfctr_pmu - the description of the counter hardware
 *
 * Return: the part of the boot-time description the core uses.
 */
const struct perfctr_pmu *arch_perfctr_pmu(void)
{
	return &x86_perfctr_active_desc->pmu;
}

/**
 * arch_perfctr_tsc_khz - the rate of the time-stamp counter now
 *
 * tsc_khz, which the kernel refines after boot where its first
 * calibration was a rough one.
 *
 * Return: the rate in kHz, 0 if unknown.
 */
u32 arch_perfctr_tsc_khz(void)
{
	return READ_ONCE(tsc_khz);
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
	return rdtsc_ordered();
}

/* Runs on each CPU as it comes online, and on those online at boot. */
static int x86_perfctr_online(unsigned int cpu)
{
	x86_perfctr_forget_clean();
	x86_perfctr_classify(cpu);
	if (x86_perfctr_desc.pmu.features & PERFCTR_FEATURE_PCINT)
		x86_perfctr_lvtpc_nmi();
	return 0;
}

/*
 * tsc_khz and cpu_khz are calibrated in tsc_init(), before any initcall;
 * the secondary CPUs are up by now, and the hotplug state below reaches
 * those that come later.
 */
static int __init x86_perfctr_init(void)
{
	struct x86_perfctr_desc *desc = &x86_perfctr_desc;
	int err;

	/* Leaf 0xA and the core type of one CPU: a hybrid's types differ. */
	preempt_disable();
	x86_perfctr_detect(desc, &boot_cpu_data);
	preempt_enable();
	desc->pmu.cpu_khz = cpu_khz;
	desc->pmu.tsc_khz = tsc_khz;
	/*
	 * Without the hotplug callback, CPUs of the other hybrid core type
	 * would not be forbidden, nor the interrupt set up: no counters.
	 */
	if (desc->hybrid_core_type ||
	    (desc->pmu.features & PERFCTR_FEATURE_PCINT)) {
		err = cpuhp_setup_state(CPUHP_AP_ONLINE_DYN, "perfctr:online",
					x86_perfctr_online, NULL);
		if (err < 0) {
			pr_warn("no CPU hotplug state (%d), TSC only\n", err);
			x86_perfctr_set_tsc_only(desc);
		}
	}
	if (desc->pmu.features & PERFCTR_FEATURE_PCINT &&
	    register_nmi_handler(NMI_LOCAL, x86_perfctr_nmi_handler, 0,
				 "perfctr"))
		desc->pmu.features &= ~PERFCTR_FEATURE_PCINT;
	pr_info("%s, %u counters of %u bits, %u fixed of %u bits\n",
		desc->pmu.name, desc->pmu.nrctrs, desc->pmu.ctr_width,
		desc->pmu.nrfixed, desc->pmu.fixed_width);
	return 0;
}
arch_initcall(x86_perfctr_init);
