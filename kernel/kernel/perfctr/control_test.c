// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of the control: its validation, and what installing one does
 * to the sums.
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

static void new_state_is_inactive_and_zero(struct kunit *test)
{
	struct vperfctr *perfctr = vperfctr_test_ctx()->perfctr;
	struct perfctr_sum_ctrs sum;
	unsigned int i;

	KUNIT_EXPECT_EQ(test, perfctr->userpg->magic, VPERFCTR_STATE_MAGIC);
	KUNIT_EXPECT_EQ(test, perfctr->userpg->abi_version,
			PERFCTR_ABI_VERSION);
	KUNIT_EXPECT_EQ(test, perfctr->userpg->cpu_state.cstatus, 0);
	KUNIT_EXPECT_EQ(test, perfctr->userpg->flags, 0);
	KUNIT_EXPECT_EQ(test, refcount_read(&perfctr->refcount), 1);
	memset(&sum, 0xff, sizeof(sum));
	vperfctr_get_sums(perfctr, &sum);
	KUNIT_EXPECT_EQ(test, sum.tsc, 0);
	for (i = 0; i < PERFCTR_MAX_NRCTRS; i++)
		KUNIT_EXPECT_EQ(test, sum.pmc[i], 0);
}

static void check_control_accepts_tsc_and_empty(struct kunit *test)
{
	struct vperfctr_control control;

	tsc_control(&control, 0);
	KUNIT_EXPECT_EQ(test, vperfctr_check_control(&control, false), 0);
	tsc_control(&control, 1);
	control.si_signo = SIGIO;
	KUNIT_EXPECT_EQ(test, vperfctr_check_control(&control, false), 0);
}

static void check_control_rejects_unknown_flags(struct kunit *test)
{
	struct vperfctr_control control;

	tsc_control(&control, 1);
	control.flags = 1;
	KUNIT_EXPECT_EQ(test, vperfctr_check_control(&control, false), -EINVAL);
	control.flags = 0x80000000;
	KUNIT_EXPECT_EQ(test, vperfctr_check_control(&control, false), -EINVAL);
}

static void check_control_rejects_reserved_fields(struct kunit *test)
{
	struct vperfctr_control control;

	tsc_control(&control, 1);
	control._reserved0 = 1;
	KUNIT_EXPECT_EQ(test, vperfctr_check_control(&control, false), -EINVAL);
	tsc_control(&control, 1);
	control._reserved1[1] = 1;
	KUNIT_EXPECT_EQ(test, vperfctr_check_control(&control, false), -EINVAL);
	tsc_control(&control, 1);
	control.cpu_control._reserved0 = 1;
	KUNIT_EXPECT_EQ(test, vperfctr_check_control(&control, false), -EINVAL);
	tsc_control(&control, 1);
	control.cpu_control._reserved1[3] = 1;
	KUNIT_EXPECT_EQ(test, vperfctr_check_control(&control, false), -EINVAL);
}

static void check_control_rejects_bad_tsc_on_and_signal(struct kunit *test)
{
	struct vperfctr_control control;

	tsc_control(&control, 2);
	KUNIT_EXPECT_EQ(test, vperfctr_check_control(&control, false), -EINVAL);
	tsc_control(&control, 1);
	control.si_signo = -1;
	KUNIT_EXPECT_EQ(test, vperfctr_check_control(&control, false), -EINVAL);
	control.si_signo = _NSIG + 1;
	KUNIT_EXPECT_EQ(test, vperfctr_check_control(&control, false), -EINVAL);
}

static void check_control_rejects_more_counters_than_hardware(struct kunit *test)
{
	const struct perfctr_pmu *pmu = arch_perfctr_pmu();
	u32 avail = pmu->nrctrs + pmu->nrfixed + pmu->nrmetrics;
	struct vperfctr_control control;

	tsc_control(&control, 1);
	control.cpu_control.nractrs = avail + 1;
	KUNIT_EXPECT_EQ(test, vperfctr_check_control(&control, false), -EINVAL);
	tsc_control(&control, 1);
	control.cpu_control.nrictrs = avail + 1;
	control.si_signo = SIGIO;
	KUNIT_EXPECT_EQ(test, vperfctr_check_control(&control, false), -EINVAL);
	/* The sum must not wrap into a small number. */
	tsc_control(&control, 1);
	control.cpu_control.nractrs = 1;
	control.cpu_control.nrictrs = 0xffffffff;
	control.si_signo = SIGIO;
	KUNIT_EXPECT_EQ(test, vperfctr_check_control(&control, false), -EINVAL);
}

static void check_control_rejects_entries_beyond_counters(struct kunit *test)
{
	struct vperfctr_control control;

	tsc_control(&control, 1);
	control.cpu_control.pmc_map[PERFCTR_MAX_NRCTRS - 1] = 1;
	KUNIT_EXPECT_EQ(test, vperfctr_check_control(&control, false), -EINVAL);
	tsc_control(&control, 1);
	control.cpu_control.evntsel[0] = 0xc0;
	KUNIT_EXPECT_EQ(test, vperfctr_check_control(&control, false), -EINVAL);
	tsc_control(&control, 1);
	control.cpu_control.ireset[2] = -100;
	KUNIT_EXPECT_EQ(test, vperfctr_check_control(&control, false), -EINVAL);
}

static void control_keeps_tsc_sum_unless_tsc_turned_off(struct kunit *test)
{
	struct vperfctr_test_ctx *ctx = test->priv;
	struct perfctr_cpu_state *state = &ctx->perfctr->userpg->cpu_state;
	struct vperfctr_control control;

	start_tsc(test, 0);
	ctx->tsc = 700;
	test_suspend(ctx->perfctr);

	tsc_control(&control, 1);
	test_set_control(ctx->perfctr, &control);
	KUNIT_EXPECT_EQ(test, state->tsc_sum, 700);
	KUNIT_EXPECT_TRUE(test, perfctr_cstatus_has_tsc(state->cstatus));

	/* TSC off, a counter on: the counters restart, the TSC's from 0. */
	tsc_control(&control, 0);
	sw_control(&control, 0, PERFCTR_SW_PAGE_FAULTS, PERFCTR_SW_USR);
	control.cpu_control.nractrs = 1;
	test_set_control(ctx->perfctr, &control);
	KUNIT_EXPECT_EQ(test, state->tsc_sum, 0);
	KUNIT_EXPECT_FALSE(test, perfctr_cstatus_has_tsc(state->cstatus));
}

/*
 * A control that enables nothing restarts nothing, so it resets no sum
 * (virtual.txt resets them "before restarting"): perfctr 2.7's
 * vperfctr_stop_counters().  The next control that restarts resets as usual.
 */
static void control_enabling_nothing_keeps_every_sum(struct kunit *test)
{
	struct vperfctr_test_ctx *ctx = test->priv;
	struct vperfctr_state *userpg = ctx->perfctr->userpg;
	struct perfctr_cpu_state *state = &userpg->cpu_state;
	struct vperfctr_control *control = new_control(test);

	tsc_control(control, 1);
	sw_control(control, 0, PERFCTR_SW_PAGE_FAULTS, PERFCTR_SW_USR);
	sw_control(control, 1, PERFCTR_SW_PAGE_FAULTS, PERFCTR_SW_USR);
	control->cpu_control.nractrs = 2;
	test_set_control(ctx->perfctr, control);
	state->tsc_sum = 700;
	state->pmc[0].sum = 5;
	state->pmc[1].sum = 6;

	tsc_control(control, 0);
	test_set_control(ctx->perfctr, control);
	KUNIT_EXPECT_FALSE(test, perfctr_cstatus_enabled(state->cstatus));
	KUNIT_EXPECT_EQ(test, state->tsc_sum, 700);
	KUNIT_EXPECT_EQ(test, state->pmc[0].sum, 5);
	KUNIT_EXPECT_EQ(test, state->pmc[1].sum, 6);
	KUNIT_EXPECT_EQ(test, userpg->nrsums, 2);
	KUNIT_EXPECT_EQ(test, userpg->live, 0);
	KUNIT_EXPECT_EQ(test, userpg->live_clock, 0);

	/* Stopped again: still kept. */
	test_set_control(ctx->perfctr, control);
	KUNIT_EXPECT_EQ(test, state->tsc_sum, 700);
	KUNIT_EXPECT_EQ(test, state->pmc[1].sum, 6);

	/* Restarted with the TSC and counter 1 kept: counter 0 restarts. */
	tsc_control(control, 1);
	sw_control(control, 0, PERFCTR_SW_PAGE_FAULTS, PERFCTR_SW_USR);
	control->cpu_control.nractrs = 1;
	control->preserve = BIT(1);
	test_set_control(ctx->perfctr, control);
	KUNIT_EXPECT_EQ(test, state->tsc_sum, 700);
	KUNIT_EXPECT_EQ(test, state->pmc[0].sum, 0);
	KUNIT_EXPECT_EQ(test, state->pmc[1].sum, 6);
}

static void control_resets_sums_except_preserved(struct kunit *test)
{
	struct vperfctr_test_ctx *ctx = test->priv;
	struct perfctr_cpu_state *state = &ctx->perfctr->userpg->cpu_state;
	struct vperfctr_control control;

	/* Sums as a control of 32 counters leaves them. */
	state->pmc[0].sum = 5;
	state->pmc[1].sum = 6;
	state->pmc[31].sum = 7;
	ctx->perfctr->userpg->nrsums = 32;
	tsc_control(&control, 1);
	control.preserve = BIT(1) | BIT(31);
	test_set_control(ctx->perfctr, &control);
	KUNIT_EXPECT_EQ(test, state->pmc[0].sum, 0);
	KUNIT_EXPECT_EQ(test, state->pmc[1].sum, 6);
	KUNIT_EXPECT_EQ(test, state->pmc[31].sum, 7);
	KUNIT_EXPECT_EQ(test, ctx->perfctr->control.preserve, BIT(1) | BIT(31));
	KUNIT_EXPECT_EQ(test, ctx->perfctr->userpg->nrsums, 32);
}

/* nrsums covers the control's counters and every non-zero sum kept. */
static void nrsums_bounds_the_sums_that_may_be_nonzero(struct kunit *test)
{
	struct vperfctr_test_ctx *ctx = test->priv;
	struct vperfctr_state *userpg = ctx->perfctr->userpg;
	struct vperfctr_control control;

	tsc_control(&control, 1);
	sw_control(&control, 0, PERFCTR_SW_PAGE_FAULTS, PERFCTR_SW_USR);
	sw_control(&control, 1, PERFCTR_SW_PAGE_FAULTS, PERFCTR_SW_USR);
	control.cpu_control.nractrs = 2;
	test_set_control(ctx->perfctr, &control);
	KUNIT_EXPECT_EQ(test, userpg->nrsums, 2);

	/* A kept sum of 0 needs no reading; a kept non-zero one does. */
	userpg->cpu_state.pmc[5].sum = 9;
	userpg->nrsums = 8;
	control.preserve = BIT(5) | BIT(7);
	test_set_control(ctx->perfctr, &control);
	KUNIT_EXPECT_EQ(test, userpg->nrsums, 6);

	control.preserve = 0;
	test_set_control(ctx->perfctr, &control);
	KUNIT_EXPECT_EQ(test, userpg->nrsums, 2);
	KUNIT_EXPECT_EQ(test, userpg->cpu_state.pmc[5].sum, 0);
}

/* A smaller control clears every counter the bigger one before it used. */
static void control_clears_what_the_old_control_used(struct kunit *test)
{
	struct vperfctr_test_ctx *ctx = test->priv;
	struct vperfctr_state *userpg = ctx->perfctr->userpg;
	struct vperfctr_control *control = new_control(test);
	unsigned int i;

	tsc_control(control, 1);
	for (i = 0; i < 6; i++)
		sw_control(control, i, PERFCTR_SW_PAGE_FAULTS, PERFCTR_SW_USR);
	control->cpu_control.nractrs = 6;
	test_set_control(ctx->perfctr, control);
	for (i = 0; i < 6; i++) {
		userpg->cpu_state.pmc[i].sum = 10 + i;
		userpg->cpu_state.pmc[i].start = 20 + i;
	}

	tsc_control(control, 1);
	sw_control(control, 0, PERFCTR_SW_PAGE_FAULTS, PERFCTR_SW_USR);
	control->cpu_control.nractrs = 1;
	test_set_control(ctx->perfctr, control);
	KUNIT_EXPECT_EQ(test, userpg->nrsums, 1);
	for (i = 0; i < PERFCTR_MAX_NRCTRS; i++) {
		KUNIT_EXPECT_EQ(test, userpg->cpu_state.pmc[i].sum, 0);
		KUNIT_EXPECT_EQ(test, userpg->cpu_state.pmc[i].start, 0);
		KUNIT_EXPECT_EQ(test, userpg->cpu_state.pmc[i].width,
				i ? 0 : 64);
		KUNIT_EXPECT_EQ(test, userpg->cpu_state.pmc[i].map,
				i ? 0 : PERFCTR_MAP_SOFTWARE |
					PERFCTR_SW_PAGE_FAULTS);
	}
}

static void sample_interval_follows_width_and_clock(struct kunit *test)
{
	u32 widths[] = { 31, 32, 40, 48 };
	u32 khz = 3000000;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(widths); i++) {
		u64 ticks = vperfctr_sample_interval(widths[i], khz);
		u64 rate = (u64)khz * 1000 * 8;

		if (!ticks)
			continue;	/* more than an hour */
		/* Sampled no later than half the fastest wrap time. */
		KUNIT_EXPECT_LE(test, ticks * rate / HZ,
				BIT_ULL(widths[i] - 1) + rate / HZ);
		if (ticks > 1)
			KUNIT_EXPECT_GT(test, (ticks + 1) * rate / HZ,
					BIT_ULL(widths[i] - 1));
	}
	KUNIT_EXPECT_GE(test, vperfctr_sample_interval(32, khz), 1);
	KUNIT_EXPECT_GT(test, vperfctr_sample_interval(40, khz),
			vperfctr_sample_interval(32, khz));
	KUNIT_EXPECT_EQ(test, vperfctr_sample_interval(64, khz), 0);
	KUNIT_EXPECT_EQ(test, vperfctr_sample_interval(32, 0), 1);
}

/*
 * The driver's rules between counters are asked once the counters pass
 * one by one, and a counter it restarts at every resume cannot interrupt.
 */
static void check_control_asks_the_driver_about_the_whole(struct kunit *test)
{
	struct vperfctr_test_ctx *ctx = test->priv;
	struct vperfctr_control *control = new_control(test);

	use_fake_pmu(test, 48);
	control->cpu_control.nractrs = 2;
	control->cpu_control.pmc_map[0] = 0;
	control->cpu_control.pmc_map[1] = 1;
	KUNIT_EXPECT_EQ(test, vperfctr_check_control(control, true), 0);
	ctx->control_err = -EINVAL;
	KUNIT_EXPECT_EQ(test, vperfctr_check_control(control, true), -EINVAL);
	/* Not asked about a control without hardware counters. */
	control->cpu_control.nractrs = 0;
	control->cpu_control.pmc_map[0] = 0;
	control->cpu_control.pmc_map[1] = 0;
	control->cpu_control.tsc_on = 1;
	KUNIT_EXPECT_EQ(test, vperfctr_check_control(control, true), 0);
}

static void check_control_rejects_restarting_counter_in_imode(struct kunit *test)
{
	struct vperfctr_test_ctx *ctx = test->priv;
	struct vperfctr_control *control = new_control(test);

	use_fake_pmu(test, 48);
	ctx->restarts = BIT(1);
	control->si_signo = SIGIO;
	control->cpu_control.nrictrs = 1;
	control->cpu_control.pmc_map[0] = 2;
	control->cpu_control.ireset[0] = -100;
	KUNIT_EXPECT_EQ(test, vperfctr_check_control(control, true), 0);
	control->cpu_control.pmc_map[0] = 1;
	KUNIT_EXPECT_EQ(test, vperfctr_check_control(control, true), -EINVAL);
	/* In accumulation mode it counts. */
	control->si_signo = 0;
	control->cpu_control.nrictrs = 0;
	control->cpu_control.nractrs = 1;
	control->cpu_control.ireset[0] = 0;
	KUNIT_EXPECT_EQ(test, vperfctr_check_control(control, true), 0);
}

static struct kunit_case perfctr_control_cases[] = {
	KUNIT_CASE(check_control_asks_the_driver_about_the_whole),
	KUNIT_CASE(check_control_rejects_restarting_counter_in_imode),
	KUNIT_CASE(new_state_is_inactive_and_zero),
	KUNIT_CASE(check_control_accepts_tsc_and_empty),
	KUNIT_CASE(check_control_rejects_unknown_flags),
	KUNIT_CASE(check_control_rejects_reserved_fields),
	KUNIT_CASE(check_control_rejects_bad_tsc_on_and_signal),
	KUNIT_CASE(check_control_rejects_more_counters_than_hardware),
	KUNIT_CASE(check_control_rejects_entries_beyond_counters),
	KUNIT_CASE(control_keeps_tsc_sum_unless_tsc_turned_off),
	KUNIT_CASE(control_enabling_nothing_keeps_every_sum),
	KUNIT_CASE(control_clears_what_the_old_control_used),
	KUNIT_CASE(control_resets_sums_except_preserved),
	KUNIT_CASE(nrsums_bounds_the_sums_that_may_be_nonzero),
	KUNIT_CASE(sample_interval_follows_width_and_clock),
	{}
};

static struct kunit_suite perfctr_control_suite = {
	.name = "perfctr_control",
	.init = vperfctr_test_init,
	.exit = vperfctr_test_exit,
	.test_cases = perfctr_control_cases,
};

kunit_test_suite(perfctr_control_suite);
