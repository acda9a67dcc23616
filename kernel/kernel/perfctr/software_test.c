// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of the software counters: their validation, faults by mode
 * and kind, task-clock.
 */
#include <kunit/test.h>
#include <linux/cpumask.h>
#include <linux/math64.h>
#include <linux/signal.h>
#include <linux/smp.h>
#include <linux/string.h>
#include <linux/perfctr_pmu.h>

#include "internal.h"
#include "test_helpers.h"

static void check_control_validates_software_counters(struct kunit *test)
{
	struct vperfctr_control *control = new_control(test);

	control->cpu_control.nractrs = 1;
	sw_control(control, 0, PERFCTR_SW_CONTEXT_SWITCHES, 0);
	KUNIT_EXPECT_EQ(test, vperfctr_check_control(control, false), 0);
	sw_control(control, 0, 0, 0);
	KUNIT_EXPECT_EQ(test, vperfctr_check_control(control, false), -EINVAL);
	sw_control(control, 0, PERFCTR_SW_MAX + 1, 0);
	KUNIT_EXPECT_EQ(test, vperfctr_check_control(control, false), -EINVAL);
	sw_control(control, 0, PERFCTR_SW_TASK_CLOCK, PERFCTR_SW_USR);
	KUNIT_EXPECT_EQ(test, vperfctr_check_control(control, false), -EINVAL);
	sw_control(control, 0, PERFCTR_SW_PAGE_FAULTS, 0);
	KUNIT_EXPECT_EQ(test, vperfctr_check_control(control, false), -EINVAL);
	sw_control(control, 0, PERFCTR_SW_PAGE_FAULTS, PERFCTR_SW_USR | 1);
	KUNIT_EXPECT_EQ(test, vperfctr_check_control(control, false), -EINVAL);
	sw_control(control, 0, PERFCTR_SW_PAGE_FAULTS, PERFCTR_SW_USR);
	KUNIT_EXPECT_EQ(test, vperfctr_check_control(control, false), 0);
	control->cpu_control.ireset[0] = -5;	/* a-mode: no reset value */
	KUNIT_EXPECT_EQ(test, vperfctr_check_control(control, false), -EINVAL);
	control->cpu_control.nractrs = 0;
	control->cpu_control.nrictrs = 1;
	control->si_signo = SIGIO;
	KUNIT_EXPECT_EQ(test, vperfctr_check_control(control, false), 0);
	control->cpu_control.ireset[0] = 0;	/* i-mode: must be negative */
	KUNIT_EXPECT_EQ(test, vperfctr_check_control(control, false), -EINVAL);
}

static void kernel_mode_faults_need_privilege(struct kunit *test)
{
	struct vperfctr_control *control = new_control(test);

	control->cpu_control.nractrs = 2;
	sw_control(control, 0, PERFCTR_SW_TASK_CLOCK, 0);
	sw_control(control, 1, PERFCTR_SW_MINOR_FAULTS, PERFCTR_SW_OS);
	KUNIT_EXPECT_EQ(test, vperfctr_check_control(control, false), -EACCES);
	KUNIT_EXPECT_EQ(test, vperfctr_check_control(control, true), 0);
	/* A malformed control is EINVAL whatever the privilege. */
	control->flags = 1;
	KUNIT_EXPECT_EQ(test, vperfctr_check_control(control, false), -EINVAL);
}

/*
 * Counters 0 to 3: page faults in both modes, page faults in user mode,
 * minor faults in kernel mode, major faults in both.
 */
static void fault_counters(struct vperfctr_control *control)
{
	sw_control(control, 0, PERFCTR_SW_PAGE_FAULTS,
		   PERFCTR_SW_USR | PERFCTR_SW_OS);
	sw_control(control, 1, PERFCTR_SW_PAGE_FAULTS, PERFCTR_SW_USR);
	sw_control(control, 2, PERFCTR_SW_MINOR_FAULTS, PERFCTR_SW_OS);
	sw_control(control, 3, PERFCTR_SW_MAJOR_FAULTS,
		   PERFCTR_SW_USR | PERFCTR_SW_OS);
}

static void fault_counters_count_by_mode_and_kind(struct kunit *test)
{
	struct vperfctr_test_ctx *ctx = test->priv;
	struct perfctr_cpu_state *state = &ctx->perfctr->userpg->cpu_state;
	struct vperfctr_control *control = new_control(test);
	u32 minor_usr = BIT(PERFCTR_SW_PAGE_FAULTS) |
			BIT(PERFCTR_SW_MINOR_FAULTS);
	u32 major_os = BIT(PERFCTR_SW_PAGE_FAULTS) |
		       BIT(PERFCTR_SW_MAJOR_FAULTS);

	control->cpu_control.nractrs = 4;
	fault_counters(control);
	start_control(test, ctx->perfctr, control);
	KUNIT_EXPECT_EQ(test, state->pmc[3].width, 64);

	local_irq_disable();
	vperfctr_count_events(ctx->perfctr, minor_usr, PERFCTR_SW_USR, 5);
	vperfctr_count_events(ctx->perfctr, minor_usr, PERFCTR_SW_OS, 2);
	vperfctr_count_events(ctx->perfctr, major_os, PERFCTR_SW_OS, 1);
	/* Not counted by any: a context switch. */
	vperfctr_count_events(ctx->perfctr, BIT(PERFCTR_SW_CONTEXT_SWITCHES),
			      0, 1);
	local_irq_enable();
	KUNIT_EXPECT_EQ(test, state->pmc[0].sum, 8);
	KUNIT_EXPECT_EQ(test, state->pmc[1].sum, 5);
	KUNIT_EXPECT_EQ(test, state->pmc[2].sum, 2);
	KUNIT_EXPECT_EQ(test, state->pmc[3].sum, 1);
	KUNIT_EXPECT_EQ(test, state->pmc[0].start, 0);
}

/*
 * A fault counts in the counters set aside for its mode and kind when the
 * control was set, as vperfctr_count_events() counts it; one that no
 * counter counts leaves the page alone.
 */
static void faults_count_in_their_own_counters(struct kunit *test)
{
	struct vperfctr_test_ctx *ctx = test->priv;
	struct vperfctr_state *userpg = ctx->perfctr->userpg;
	struct perfctr_cpu_state *state = &userpg->cpu_state;
	struct vperfctr_control *control = new_control(test);
	unsigned int i;
	u64 sum;
	u32 seq, ovf;

	control->cpu_control.nractrs = 5;
	fault_counters(control);
	sw_control(control, 4, PERFCTR_SW_CONTEXT_SWITCHES, 0);
	start_control(test, ctx->perfctr, control);

	for (i = 0; i < 5; i++)
		irqs_off(vperfctr_count_fault(ctx->perfctr, true, false));
	for (i = 0; i < 2; i++)
		irqs_off(vperfctr_count_fault(ctx->perfctr, false, false));
	irqs_off(vperfctr_count_fault(ctx->perfctr, false, true));
	KUNIT_EXPECT_EQ(test, state->pmc[0].sum, 8);
	KUNIT_EXPECT_EQ(test, state->pmc[1].sum, 5);
	KUNIT_EXPECT_EQ(test, state->pmc[2].sum, 2);
	KUNIT_EXPECT_EQ(test, state->pmc[3].sum, 1);
	KUNIT_EXPECT_EQ(test, state->pmc[4].sum, 0);

	/* Only user-mode minor faults now: a kernel-mode one counts nowhere. */
	test_suspend(ctx->perfctr);
	control = new_control(test);
	control->cpu_control.nractrs = 1;
	sw_control(control, 0, PERFCTR_SW_MINOR_FAULTS, PERFCTR_SW_USR);
	start_control(test, ctx->perfctr, control);
	seq = userpg->seq;
	sum = state->pmc[0].sum;
	irqs_off(ovf = vperfctr_count_fault(ctx->perfctr, false, false));
	KUNIT_EXPECT_EQ(test, ovf, 0);
	irqs_off(ovf = vperfctr_count_fault(ctx->perfctr, true, true));
	KUNIT_EXPECT_EQ(test, ovf, 0);
	KUNIT_EXPECT_EQ(test, userpg->seq, seq);
	KUNIT_EXPECT_EQ(test, state->pmc[0].sum, sum);
	irqs_off(vperfctr_count_fault(ctx->perfctr, true, false));
	KUNIT_EXPECT_EQ(test, state->pmc[0].sum, sum + 1);
}

static void task_clock_counts_ns_on_cpu(struct kunit *test)
{
	struct vperfctr_test_ctx *ctx = test->priv;
	struct perfctr_cpu_state *state = &ctx->perfctr->userpg->cpu_state;
	struct vperfctr_control *control = new_control(test);
	u64 on_cpu = 0;

	control->cpu_control.nractrs = 1;
	sw_control(control, 0, PERFCTR_SW_TASK_CLOCK, 0);
	ctx->tsc = 1000000;
	start_control(test, ctx->perfctr, control);
	KUNIT_EXPECT_EQ(test, state->pmc[0].start, 1000000);
	ctx->tsc += 3000000;
	test_suspend(ctx->perfctr);
	on_cpu += 3000000;
	ctx->tsc += 50000000;		/* asleep */
	test_resume(ctx->perfctr);
	ctx->tsc += 2000000;
	test_suspend(ctx->perfctr);
	on_cpu += 2000000;
	KUNIT_EXPECT_NE(test, ctx->perfctr->userpg->time_mult, 0);
	KUNIT_EXPECT_LE(test, state->pmc[0].sum -
			vperfctr_tsc_to_ns(ctx->perfctr->userpg, on_cpu) + 1, 2);
	KUNIT_EXPECT_LT(test, state->pmc[0].sum,
			vperfctr_tsc_to_ns(ctx->perfctr->userpg, on_cpu * 2));
}

static u32 tsc_khz_for_test;

static u32 fake_tsc_khz(void)
{
	return tsc_khz_for_test;
}

/*
 * The TSC's rate refined after boot, as x86 does: a control set from then
 * on converts with the new rate; one set before keeps the factors of its
 * page, which user space converts with too.
 */
static void task_clock_follows_a_refined_tsc_rate(struct kunit *test)
{
	struct vperfctr_test_ctx *ctx = test->priv;
	struct vperfctr_state *userpg = ctx->perfctr->userpg;
	struct perfctr_cpu_state *state = &userpg->cpu_state;
	struct vperfctr_control *control = new_control(test);
	u64 sum;

	static_call_update(perfctr_tsc_khz, fake_tsc_khz);
	tsc_khz_for_test = 1000000;		/* 1 GHz: a tick is 1 ns */
	control->cpu_control.nractrs = 1;
	sw_control(control, 0, PERFCTR_SW_TASK_CLOCK, 0);
	ctx->tsc = 1000;
	start_control(test, ctx->perfctr, control);
	KUNIT_EXPECT_EQ(test, vperfctr_tsc_to_ns(userpg, 1000000), 1000000);

	tsc_khz_for_test = 2000000;		/* refined: 2 GHz */
	ctx->tsc += 4000;
	test_suspend(ctx->perfctr);
	test_resume(ctx->perfctr);
	ctx->tsc += 4000;
	test_suspend(ctx->perfctr);
	KUNIT_EXPECT_EQ(test, state->pmc[0].sum, 8000);

	/* A new control: the new rate, for the kernel and the page alike. */
	start_control(test, ctx->perfctr, control);
	KUNIT_EXPECT_EQ(test, vperfctr_tsc_to_ns(userpg, 1000000), 500000);
	sum = state->pmc[0].sum;
	ctx->tsc += 4000;
	test_suspend(ctx->perfctr);
	KUNIT_EXPECT_EQ(test, state->pmc[0].sum - sum, 2000);
	KUNIT_EXPECT_EQ(test, mul_u64_u32_shr(4000, userpg->time_mult,
					      userpg->time_shift), 2000);
}

static struct kunit_case perfctr_software_cases[] = {
	KUNIT_CASE(check_control_validates_software_counters),
	KUNIT_CASE(kernel_mode_faults_need_privilege),
	KUNIT_CASE(fault_counters_count_by_mode_and_kind),
	KUNIT_CASE(faults_count_in_their_own_counters),
	KUNIT_CASE(task_clock_follows_a_refined_tsc_rate),
	KUNIT_CASE(task_clock_counts_ns_on_cpu),
	{}
};

static struct kunit_suite perfctr_software_suite = {
	.name = "perfctr_software",
	.init = vperfctr_test_init,
	.exit = vperfctr_test_exit,
	.test_cases = perfctr_software_cases,
};

kunit_test_suite(perfctr_software_suite);
