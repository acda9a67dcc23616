// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of interrupt mode: overflow found from the counter value,
 * the counters stopped until vperfctr_iresume().
 */
#include <kunit/static_stub.h>
#include <kunit/test.h>
#include <linux/cpumask.h>
#include <linux/signal.h>
#include <linux/smp.h>
#include <linux/string.h>
#include <linux/perfctr_pmu.h>

#include "internal.h"
#include "test_helpers.h"

static void imode_hw_counter_keeps_its_value_across_switches(struct kunit *test)
{
	struct vperfctr_test_ctx *ctx = test->priv;
	struct perfctr_cpu_state *state = &ctx->perfctr->userpg->cpu_state;
	struct vperfctr_control *control = new_control(test);

	use_fake_pmu(test, 48);
	control->si_signo = SIGIO;
	control->cpu_control.nrictrs = 1;
	control->cpu_control.pmc_map[0] = 1;
	control->cpu_control.ireset[0] = -1000;
	start_control(test, ctx->perfctr, control);
	KUNIT_EXPECT_EQ(test, ctx->hw[1], BIT_ULL(48) - 1000);

	fake_count(ctx, 1, 400);
	KUNIT_EXPECT_EQ(test, test_suspend(ctx->perfctr), 0);
	KUNIT_EXPECT_EQ(test, state->pmc[0].sum, 400);
	/* Another thread used the counter; ours is reloaded on resume. */
	ctx->hw[1] = 5;
	test_resume(ctx->perfctr);
	KUNIT_EXPECT_EQ(test, ctx->hw[1], BIT_ULL(48) - 600);
	fake_count(ctx, 1, 700);	/* overflows past zero */
	/* The value tells, with or without the interrupt. */
	KUNIT_EXPECT_EQ(test, test_suspend(ctx->perfctr), BIT(0));
	KUNIT_EXPECT_EQ(test, state->pmc[0].sum, 1100);
}

/*
 * The overflow interrupt only makes the owner sample: the sample finds
 * the overflow, stops the counters and leaves the signal pending.
 */
static void hw_overflow_found_by_sample_stops_counters(struct kunit *test)
{
	struct vperfctr_test_ctx *ctx = test->priv;
	struct vperfctr *perfctr = ctx->perfctr;
	struct perfctr_cpu_state *state = &perfctr->userpg->cpu_state;
	struct vperfctr_control *control = new_control(test);

	use_fake_pmu(test, 48);
	control->si_signo = SIGIO;
	control->cpu_control.tsc_on = 1;
	control->cpu_control.nractrs = 1;
	control->cpu_control.nrictrs = 1;
	control->cpu_control.pmc_map[0] = 0;
	control->cpu_control.pmc_map[1] = 3;
	control->cpu_control.ireset[1] = -50;
	start_control(test, perfctr, control);

	fake_count(ctx, 3, 49);
	fake_count(ctx, 0, 49);
	irqs_off(vperfctr_sample(perfctr));
	KUNIT_EXPECT_EQ(test, perfctr->pending_ovf, 0);
	fake_count(ctx, 3, 2);
	fake_count(ctx, 0, 2);
	irqs_off(vperfctr_sample(perfctr));
	KUNIT_EXPECT_EQ(test, perfctr->pending_ovf, BIT(1));
	KUNIT_EXPECT_TRUE(test, perfctr->userpg->flags &
				VPERFCTR_STATE_OVERFLOW);
	KUNIT_EXPECT_EQ(test, state->cstatus, PERFCTR_CSTATUS_TSC_ON);
	KUNIT_EXPECT_FALSE(test, ctx->enabled);
	KUNIT_EXPECT_EQ(test, state->pmc[0].sum, 51);
	KUNIT_EXPECT_EQ(test, state->pmc[1].sum, 51);

	/* iresume reloads the preset and counts on. */
	test_suspend(perfctr);
	KUNIT_ASSERT_EQ(test, vperfctr_ireload(perfctr), 0);
	test_resume(perfctr);
	KUNIT_EXPECT_EQ(test, ctx->hw[3], BIT_ULL(48) - 50);
	fake_count(ctx, 3, 10);
	KUNIT_EXPECT_EQ(test, test_suspend(perfctr), 0);
	KUNIT_EXPECT_EQ(test, state->pmc[1].sum, 61);
}

static void imode_overflow_stops_all_but_tsc_until_iresume(struct kunit *test)
{
	struct vperfctr_test_ctx *ctx = test->priv;
	struct vperfctr *perfctr = ctx->perfctr;
	struct vperfctr_state *userpg = perfctr->userpg;
	struct vperfctr_control *control = new_control(test);
	u32 faults = BIT(PERFCTR_SW_PAGE_FAULTS);
	u32 cstatus, ovf;

	control->si_signo = SIGUSR2;
	control->cpu_control.tsc_on = 1;
	control->cpu_control.nractrs = 1;
	control->cpu_control.nrictrs = 1;
	sw_control(control, 0, PERFCTR_SW_PAGE_FAULTS, PERFCTR_SW_USR);
	sw_control(control, 1, PERFCTR_SW_PAGE_FAULTS, PERFCTR_SW_USR);
	control->cpu_control.ireset[1] = -3;
	start_control(test, perfctr, control);
	cstatus = userpg->cpu_state.cstatus;

	irqs_off(ovf = vperfctr_count_events(perfctr, faults, PERFCTR_SW_USR, 2));
	KUNIT_EXPECT_EQ(test, ovf, 0);
	irqs_off(ovf = vperfctr_count_events(perfctr, faults, PERFCTR_SW_USR, 1));
	KUNIT_EXPECT_EQ(test, ovf, BIT(1));

	ovf |= test_suspend(perfctr);
	irqs_off(vperfctr_overflow(perfctr, ovf));
	KUNIT_EXPECT_EQ(test, userpg->cpu_state.cstatus, PERFCTR_CSTATUS_TSC_ON);
	KUNIT_EXPECT_TRUE(test, userpg->flags & VPERFCTR_STATE_OVERFLOW);
	KUNIT_EXPECT_EQ(test, perfctr->pending_ovf, BIT(1));
	/* Counts up to the overflow are kept, nothing counts after it. */
	test_resume(perfctr);
	irqs_off(vperfctr_count_events(perfctr, faults, PERFCTR_SW_USR, 10));
	KUNIT_EXPECT_EQ(test, userpg->cpu_state.pmc[0].sum, 3);
	KUNIT_EXPECT_EQ(test, userpg->cpu_state.pmc[1].sum, 3);

	test_suspend(perfctr);
	KUNIT_EXPECT_EQ(test, vperfctr_ireload(perfctr), 0);
	KUNIT_EXPECT_EQ(test, userpg->cpu_state.cstatus, cstatus);
	KUNIT_EXPECT_FALSE(test, userpg->flags & VPERFCTR_STATE_OVERFLOW);
	KUNIT_EXPECT_EQ(test, perfctr->icount[1], -3);
	/* The overflow's signal, not sent yet, is sent all the same. */
	KUNIT_EXPECT_EQ(test, perfctr->pending_ovf, BIT(1));
	KUNIT_EXPECT_EQ(test, vperfctr_ireload(perfctr), -EINVAL);
	test_resume(perfctr);
	irqs_off(vperfctr_count_events(perfctr, faults, PERFCTR_SW_USR, 1));
	KUNIT_EXPECT_EQ(test, userpg->cpu_state.pmc[0].sum, 4);
}

static struct kunit_case perfctr_imode_cases[] = {
	KUNIT_CASE(imode_hw_counter_keeps_its_value_across_switches),
	KUNIT_CASE(hw_overflow_found_by_sample_stops_counters),
	KUNIT_CASE(imode_overflow_stops_all_but_tsc_until_iresume),
	{}
};

static struct kunit_suite perfctr_imode_suite = {
	.name = "perfctr_imode",
	.init = vperfctr_test_init,
	.exit = vperfctr_test_exit,
	.test_cases = perfctr_imode_cases,
};

kunit_test_suite(perfctr_imode_suite);
