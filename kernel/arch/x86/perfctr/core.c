// SPDX-License-Identifier: GPL-2.0
/*
 * x86 driver for the virtual per-process performance counters.
 *
 * The description of the counter hardware is chosen once at boot and
 * read-only afterwards.  This driver knows the time-stamp counter, which
 * every x86-64 processor has and user space can read with rdtsc; the
 * general-purpose and fixed counters are not driven yet, so a control
 * that asks for any of them is refused.
 */
#include <linux/errno.h>
#include <linux/init.h>
#include <kunit/static_stub.h>
#include <asm/perfctr.h>
#include <asm/msr.h>

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
 *
 * Return: 0 if this machine can count what @control asks for, -EINVAL if
 * it asks for more counters than there are.
 */
int perfctr_cpu_check_control(const struct perfctr_cpu_control *control)
{
	u32 avail = perfctr_cpu_desc.nrctrs + perfctr_cpu_desc.nrfixed;

	if (control->nractrs > avail || control->nrictrs > avail ||
	    control->nractrs + control->nrictrs > avail)
		return -EINVAL;
	return 0;
}

/*
 * Save and restore the programmable counters.  The core calls these only
 * when the control has counters besides the TSC, which check_control()
 * does not let through while no counter hardware is driven.
 */
void perfctr_cpu_suspend(struct perfctr_cpu_state *state)
{
}

void perfctr_cpu_resume(struct perfctr_cpu_state *state)
{
}
