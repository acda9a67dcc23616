// SPDX-License-Identifier: GPL-2.0
/*
 * x86 driver for the virtual per-process performance counters.
 *
 * The description of the counter hardware is chosen once at boot and
 * read-only afterwards.  This driver knows the time-stamp counter, which
 * every x86-64 processor has and user space can read with rdtsc; the
 * general-purpose and fixed counters are not driven yet, so a control
 * that asks for any of them is refused and the accessors below are never
 * reached except from the KUnit tests, which replace them.
 */
#include <linux/errno.h>
#include <linux/init.h>
#include <kunit/static_stub.h>
#include <asm/perfctr.h>
#include <asm/msr.h>
#include <asm/tsc.h>

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

/**
 * perfctr_cpu_check_control - validate the hardware part of a control
 * @control: the control as copied from user space
 * @allow_kernel: whether the caller may count kernel-mode events
 *
 * Software counters have been checked by the caller and are skipped.
 *
 * Return: 0 if this machine can count what @control asks for, -EINVAL if
 * it asks for more counters than there are.
 */
int perfctr_cpu_check_control(const struct perfctr_cpu_control *control,
			      bool allow_kernel)
{
	u32 avail = perfctr_cpu_desc.nrctrs + perfctr_cpu_desc.nrfixed;
	u32 i, nrctrs = control->nractrs + control->nrictrs, nrhw = 0;

	KUNIT_STATIC_STUB_REDIRECT(perfctr_cpu_check_control, control,
				   allow_kernel);
	for (i = 0; i < nrctrs; i++)
		if (!(control->pmc_map[i] & PERFCTR_MAP_SOFTWARE))
			nrhw++;
	return nrhw > avail ? -EINVAL : 0;
}

/**
 * perfctr_cpu_counter_width - how many bits a hardware counter has
 * @map: the counter, as named in pmc_map[]
 *
 * Return: the width in bits.
 */
u32 perfctr_cpu_counter_width(u32 map)
{
	KUNIT_STATIC_STUB_REDIRECT(perfctr_cpu_counter_width, map);
	return perfctr_cpu_desc.ctr_width;
}

/**
 * perfctr_cpu_read_counter - read a hardware counter
 * @map: the counter, as named in pmc_map[]
 *
 * Return: its raw value.
 */
u64 perfctr_cpu_read_counter(u32 map)
{
	KUNIT_STATIC_STUB_REDIRECT(perfctr_cpu_read_counter, map);
	return 0;
}

/**
 * perfctr_cpu_write_counter - preset a hardware counter
 * @map: the counter, as named in pmc_map[]
 * @value: the raw value to load, e.g. an interrupt-mode reset value
 */
void perfctr_cpu_write_counter(u32 map, u64 value)
{
	KUNIT_STATIC_STUB_REDIRECT(perfctr_cpu_write_counter, map, value);
}

/**
 * perfctr_cpu_enable - program the event selectors and start counting
 * @state: the counters, their start values already loaded
 * @control: the event selectors
 */
void perfctr_cpu_enable(const struct perfctr_cpu_state *state,
			const struct perfctr_cpu_control *control)
{
	KUNIT_STATIC_STUB_REDIRECT(perfctr_cpu_enable, state, control);
}

/**
 * perfctr_cpu_disable - stop the hardware counters of a state
 * @state: the counters
 */
void perfctr_cpu_disable(const struct perfctr_cpu_state *state)
{
	KUNIT_STATIC_STUB_REDIRECT(perfctr_cpu_disable, state);
}

/* tsc_khz and cpu_khz are calibrated in tsc_init(), before any initcall. */
static int __init perfctr_cpu_init(void)
{
	perfctr_cpu_desc.cpu_khz = cpu_khz;
	perfctr_cpu_desc.tsc_khz = tsc_khz;
	return 0;
}
arch_initcall(perfctr_cpu_init);
