// SPDX-License-Identifier: LGPL-2.1
/*
 * Building controls with software counters: no kernel involved.
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include <libperfctr.h>
#include "tap.h"

#define SW(event)	(PERFCTR_MAP_SOFTWARE | PERFCTR_SW_##event)

static struct vperfctr_control control;

static void fresh(void)
{
	memset(&control, 0, sizeof(control));
}

/* Did the call fail with @err and leave the control as @before? */
static int refused(int ret, int err, const struct vperfctr_control *before)
{
	return ret == -1 && errno == err &&
	       memcmp(before, &control, sizeof(control)) == 0;
}

static void test_add_amode(void)
{
	const struct perfctr_cpu_control *cpu = &control.cpu_control;
	int a, b, c;

	fresh();
	control.cpu_control.tsc_on = 1;
	a = vperfctr_control_add_sw(&control, PERFCTR_SW_TASK_CLOCK, 0);
	b = vperfctr_control_add_sw(&control, PERFCTR_SW_PAGE_FAULTS,
				    PERFCTR_SW_USR | PERFCTR_SW_OS);
	c = vperfctr_control_add_sw(&control, PERFCTR_SW_MINOR_FAULTS,
				    PERFCTR_SW_USR);
	tap_ok(a == 0 && b == 1 && c == 2, "add_sw: indices 0, 1, 2");
	tap_ok(cpu->nractrs == 3 && cpu->nrictrs == 0 && cpu->tsc_on == 1,
	       "add_sw: three a-mode counters, TSC untouched");
	tap_ok(cpu->pmc_map[0] == SW(TASK_CLOCK) &&
	       cpu->pmc_map[1] == SW(PAGE_FAULTS) &&
	       cpu->pmc_map[2] == SW(MINOR_FAULTS),
	       "add_sw: pmc_map is PERFCTR_MAP_SOFTWARE | event");
	tap_ok(cpu->evntsel[0] == 0 &&
	       cpu->evntsel[1] == (PERFCTR_SW_USR | PERFCTR_SW_OS) &&
	       cpu->evntsel[2] == PERFCTR_SW_USR,
	       "add_sw: evntsel holds the modes");
	tap_ok(cpu->ireset[0] == 0 && cpu->ireset[1] == 0 &&
	       cpu->ireset[2] == 0, "add_sw: a-mode ireset is 0");
}

static void test_add_imode(void)
{
	const struct perfctr_cpu_control *cpu = &control.cpu_control;
	int a, i, j;

	fresh();
	control.si_signo = 10;
	a = vperfctr_control_add_sw(&control, PERFCTR_SW_CONTEXT_SWITCHES, 0);
	i = vperfctr_control_add_sw_irq(&control, PERFCTR_SW_TASK_CLOCK, 0,
					1000000);
	j = vperfctr_control_add_sw_irq(&control, PERFCTR_SW_MAJOR_FAULTS,
					PERFCTR_SW_OS, INT64_MAX);
	tap_ok(a == 0 && i == 1 && j == 2, "add_sw_irq: after the a-mode ones");
	tap_ok(cpu->nractrs == 1 && cpu->nrictrs == 2,
	       "add_sw_irq: one a-mode, two i-mode counters");
	tap_ok(cpu->ireset[1] == -1000000 && cpu->ireset[2] == -INT64_MAX,
	       "add_sw_irq: ireset is -period");
	tap_ok(cpu->pmc_map[2] == SW(MAJOR_FAULTS) &&
	       cpu->evntsel[2] == PERFCTR_SW_OS && control.si_signo == 10,
	       "add_sw_irq: map and modes; si_signo left to the caller");
}

static void test_refusals(void)
{
	struct vperfctr_control before;
	int ret;

	fresh();
	before = control;
	errno = 0;
	ret = vperfctr_control_add_sw(&control, 0, 0);
	tap_ok(refused(ret, EINVAL, &before), "add_sw: event 0: EINVAL");
	ret = vperfctr_control_add_sw(&control, PERFCTR_SW_MAX + 1, 0);
	tap_ok(refused(ret, EINVAL, &before), "add_sw: event past MAX: EINVAL");
	ret = vperfctr_control_add_sw(&control, PERFCTR_SW_PAGE_FAULTS, 0);
	tap_ok(refused(ret, EINVAL, &before),
	       "add_sw: fault event without modes: EINVAL");
	ret = vperfctr_control_add_sw(&control, PERFCTR_SW_PAGE_FAULTS, 1);
	tap_ok(refused(ret, EINVAL, &before),
	       "add_sw: fault event with an unknown mode bit: EINVAL");
	ret = vperfctr_control_add_sw(&control, PERFCTR_SW_TASK_CLOCK,
				      PERFCTR_SW_USR);
	tap_ok(refused(ret, EINVAL, &before),
	       "add_sw: modes on task-clock: EINVAL");
	ret = vperfctr_control_add_sw_irq(&control, PERFCTR_SW_TASK_CLOCK, 0,
					  0);
	tap_ok(refused(ret, EINVAL, &before), "add_sw_irq: period 0: EINVAL");
	ret = vperfctr_control_add_sw_irq(&control, PERFCTR_SW_TASK_CLOCK, 0,
					  (unsigned long long)INT64_MAX + 1);
	tap_ok(refused(ret, EINVAL, &before),
	       "add_sw_irq: period above INT64_MAX: EINVAL");

	vperfctr_control_add_sw_irq(&control, PERFCTR_SW_TASK_CLOCK, 0, 1);
	before = control;
	ret = vperfctr_control_add_sw(&control, PERFCTR_SW_CPU_MIGRATIONS, 0);
	tap_ok(refused(ret, EINVAL, &before),
	       "add_sw after an i-mode counter: EINVAL");

	fresh();
	control.cpu_control.nractrs = PERFCTR_MAX_NRCTRS + 1;
	before = control;
	ret = vperfctr_control_add_sw(&control, PERFCTR_SW_CPU_MIGRATIONS, 0);
	tap_ok(refused(ret, EINVAL, &before),
	       "add_sw on a bad control: EINVAL");
}

static void test_full(void)
{
	struct vperfctr_control before;
	int i, ret = 0;

	fresh();
	for (i = 0; i < PERFCTR_MAX_NRCTRS; i++) {
		ret = vperfctr_control_add_sw(&control,
					      PERFCTR_SW_CONTEXT_SWITCHES, 0);
		if (ret != i)
			break;
	}
	tap_is_int(ret, PERFCTR_MAX_NRCTRS - 1, "add_sw: fills all %d slots",
		   PERFCTR_MAX_NRCTRS);
	before = control;
	errno = 0;
	ret = vperfctr_control_add_sw(&control, PERFCTR_SW_TASK_CLOCK, 0);
	tap_ok(refused(ret, ENOSPC, &before), "add_sw when full: ENOSPC");
	ret = vperfctr_control_add_sw_irq(&control, PERFCTR_SW_TASK_CLOCK, 0,
					  10);
	tap_ok(refused(ret, ENOSPC, &before), "add_sw_irq when full: ENOSPC");
}

int main(void)
{
	test_add_amode();
	test_add_imode();
	test_refusals();
	test_full();
	return tap_done();
}
