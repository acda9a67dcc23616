// SPDX-License-Identifier: GPL-2.0
/*
 * x86 driver for the virtual per-process performance counters.
 *
 * The description of the counter hardware is chosen once at boot and
 * read-only afterwards.  Every x86-64 processor has the time-stamp
 * counter, which user space can read with rdtsc.  The general-purpose and
 * fixed counters are detected (detect.c) and can be programmed
 * (program.c), but are not used yet: that waits for their reservation
 * against perf and the NMI watchdog, and for the overflow interrupt.
 * Until then the description in use is the TSC-only one, which has no
 * counters, so every control that asks for one is refused.
 */
#include <linux/errno.h>
#include <linux/init.h>
#include <linux/printk.h>
#include <kunit/static_stub.h>
#include <asm/perfctr.h>
#include <asm/msr.h>
#include <asm/tsc.h>

#include "perfctr.h"

struct perfctr_cpu_desc perfctr_cpu_desc __ro_after_init = {
	.name		= "x86 TSC",
	.cpu_type	= PERFCTR_X86_GENERIC,
	.features	= PERFCTR_FEATURE_RDTSC,
};

/**
 * perfctr_cpu_read_tsc - read the time-stamp counter of this CPU
 *
 * Ordered against earlier loads, so the count a thread sees for a code
 * section does not include instructions retired before it.
 *
 * Return: the current TSC value.
 */
u64 perfctr_cpu_read_tsc(void)
{
	KUNIT_STATIC_STUB_REDIRECT(perfctr_cpu_read_tsc);
	return rdtsc_ordered();
}

/*
 * tsc_khz and cpu_khz are calibrated in tsc_init(), before any initcall.
 * The counters CPUID describes are reported; until they can be reserved
 * against perf and deliver overflow interrupts, the driver in use stays
 * the TSC-only one.
 */
static int __init perfctr_cpu_init(void)
{
	struct perfctr_cpu_desc found = {};

	perfctr_cpu_desc.cpu_khz = cpu_khz;
	perfctr_cpu_desc.tsc_khz = tsc_khz;
	perfctr_cpu_detect(&found);
	pr_info("perfctr: %s, %u counters of %u bits, %u fixed of %u bits\n",
		found.name, found.nrctrs, found.ctr_width, found.nrfixed,
		found.fixed_width);
	return 0;
}
arch_initcall(perfctr_cpu_init);
