// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of the counter virtualisation.  The TSC is replaced by a
 * static stub, so every count below is exact.
 */
#include <kunit/static_stub.h>
#include <kunit/test.h>
#include <linux/signal.h>
#include <linux/string.h>
#include <asm/perfctr.h>

#include "internal.h"

struct vperfctr_test_ctx {
	struct vperfctr *perfctr;
	u64 tsc;
};

static struct vperfctr_test_ctx *vperfctr_test_ctx(void)
{
	return kunit_get_current_test()->priv;
}

static u64 fake_read_tsc(void)
{
	return vperfctr_test_ctx()->tsc;
}

static int vperfctr_test_init(struct kunit *test)
{
	struct vperfctr_test_ctx *ctx;

	ctx = kunit_kzalloc(test, sizeof(*ctx), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, ctx);
	ctx->perfctr = vperfctr_alloc();
	KUNIT_ASSERT_NOT_NULL(test, ctx->perfctr);
	test->priv = ctx;
	kunit_activate_static_stub(test, perfctr_cpu_read_tsc, fake_read_tsc);
	return 0;
}

static void vperfctr_test_exit(struct kunit *test)
{
	struct vperfctr_test_ctx *ctx = test->priv;

	vperfctr_put(ctx->perfctr);
}

static void tsc_control(struct vperfctr_control *control, u32 tsc_on)
{
	memset(control, 0, sizeof(*control));
	control->cpu_control.tsc_on = tsc_on;
}

/* Set a control as vperfctr_control() does for the calling thread. */
static void start_tsc(struct kunit *test, u64 at)
{
	struct vperfctr_test_ctx *ctx = test->priv;
	struct vperfctr_control control;

	tsc_control(&control, 1);
	KUNIT_ASSERT_EQ(test, vperfctr_check_control(&control), 0);
	vperfctr_set_control(ctx->perfctr, &control);
	ctx->tsc = at;
	vperfctr_resume(ctx->perfctr);
}

static void new_state_is_inactive_and_zero(struct kunit *test)
{
	struct vperfctr *perfctr = vperfctr_test_ctx()->perfctr;
	struct perfctr_sum_ctrs sum;
	unsigned int i;

	KUNIT_EXPECT_EQ(test, perfctr->kstate->magic, VPERFCTR_STATE_MAGIC);
	KUNIT_EXPECT_EQ(test, perfctr->kstate->abi_version,
			PERFCTR_ABI_VERSION);
	KUNIT_EXPECT_EQ(test, perfctr->kstate->cpu_state.cstatus, 0);
	KUNIT_EXPECT_EQ(test, perfctr->kstate->flags, 0);
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
	KUNIT_EXPECT_EQ(test, vperfctr_check_control(&control), 0);
	tsc_control(&control, 1);
	control.si_signo = SIGIO;
	KUNIT_EXPECT_EQ(test, vperfctr_check_control(&control), 0);
}

static void check_control_rejects_unknown_flags(struct kunit *test)
{
	struct vperfctr_control control;

	tsc_control(&control, 1);
	control.flags = 1;
	KUNIT_EXPECT_EQ(test, vperfctr_check_control(&control), -EINVAL);
	control.flags = 0x80000000;
	KUNIT_EXPECT_EQ(test, vperfctr_check_control(&control), -EINVAL);
}

static void check_control_rejects_reserved_fields(struct kunit *test)
{
	struct vperfctr_control control;

	tsc_control(&control, 1);
	control._reserved0 = 1;
	KUNIT_EXPECT_EQ(test, vperfctr_check_control(&control), -EINVAL);
	tsc_control(&control, 1);
	control._reserved1[1] = 1;
	KUNIT_EXPECT_EQ(test, vperfctr_check_control(&control), -EINVAL);
	tsc_control(&control, 1);
	control.cpu_control._reserved0 = 1;
	KUNIT_EXPECT_EQ(test, vperfctr_check_control(&control), -EINVAL);
	tsc_control(&control, 1);
	control.cpu_control._reserved1[3] = 1;
	KUNIT_EXPECT_EQ(test, vperfctr_check_control(&control), -EINVAL);
}

static void check_control_rejects_bad_tsc_on_and_signal(struct kunit *test)
{
	struct vperfctr_control control;

	tsc_control(&control, 2);
	KUNIT_EXPECT_EQ(test, vperfctr_check_control(&control), -EINVAL);
	tsc_control(&control, 1);
	control.si_signo = -1;
	KUNIT_EXPECT_EQ(test, vperfctr_check_control(&control), -EINVAL);
	control.si_signo = _NSIG + 1;
	KUNIT_EXPECT_EQ(test, vperfctr_check_control(&control), -EINVAL);
}

static void check_control_rejects_more_counters_than_hardware(struct kunit *test)
{
	u32 avail = perfctr_cpu_desc.nrctrs + perfctr_cpu_desc.nrfixed;
	struct vperfctr_control control;

	tsc_control(&control, 1);
	control.cpu_control.nractrs = avail + 1;
	KUNIT_EXPECT_EQ(test, vperfctr_check_control(&control), -EINVAL);
	tsc_control(&control, 1);
	control.cpu_control.nrictrs = avail + 1;
	control.si_signo = SIGIO;
	KUNIT_EXPECT_EQ(test, vperfctr_check_control(&control), -EINVAL);
	/* The sum must not wrap into a small number. */
	tsc_control(&control, 1);
	control.cpu_control.nractrs = 1;
	control.cpu_control.nrictrs = 0xffffffff;
	control.si_signo = SIGIO;
	KUNIT_EXPECT_EQ(test, vperfctr_check_control(&control), -EINVAL);
}

static void check_control_rejects_entries_beyond_counters(struct kunit *test)
{
	struct vperfctr_control control;

	tsc_control(&control, 1);
	control.cpu_control.pmc_map[PERFCTR_MAX_NRCTRS - 1] = 1;
	KUNIT_EXPECT_EQ(test, vperfctr_check_control(&control), -EINVAL);
	tsc_control(&control, 1);
	control.cpu_control.evntsel[0] = 0xc0;
	KUNIT_EXPECT_EQ(test, vperfctr_check_control(&control), -EINVAL);
	tsc_control(&control, 1);
	control.cpu_control.ireset[2] = -100;
	KUNIT_EXPECT_EQ(test, vperfctr_check_control(&control), -EINVAL);
}

static void suspend_counts_only_time_on_cpu(struct kunit *test)
{
	struct vperfctr_test_ctx *ctx = test->priv;
	struct vperfctr_state *kstate = ctx->perfctr->kstate;

	start_tsc(test, 1000);
	KUNIT_EXPECT_EQ(test, kstate->cpu_state.tsc_start, 1000);
	KUNIT_EXPECT_TRUE(test, vperfctr_is_oncpu(ctx->perfctr));

	ctx->tsc = 1600;
	vperfctr_suspend(ctx->perfctr);
	KUNIT_EXPECT_EQ(test, kstate->cpu_state.tsc_sum, 600);
	KUNIT_EXPECT_FALSE(test, vperfctr_is_oncpu(ctx->perfctr));

	/* 3400 cycles off the CPU are not the thread's. */
	ctx->tsc = 5000;
	vperfctr_resume(ctx->perfctr);
	ctx->tsc = 5100;
	vperfctr_suspend(ctx->perfctr);
	KUNIT_EXPECT_EQ(test, kstate->cpu_state.tsc_sum, 700);
}

static void sample_folds_count_and_keeps_running(struct kunit *test)
{
	struct vperfctr_test_ctx *ctx = test->priv;
	struct vperfctr_state *kstate = ctx->perfctr->kstate;

	start_tsc(test, 100);
	ctx->tsc = 250;
	vperfctr_sample(ctx->perfctr);
	KUNIT_EXPECT_EQ(test, kstate->cpu_state.tsc_sum, 150);
	KUNIT_EXPECT_EQ(test, kstate->cpu_state.tsc_start, 250);
	KUNIT_EXPECT_TRUE(test, vperfctr_is_oncpu(ctx->perfctr));
}

static void tsc_delta_is_modular_across_wrap(struct kunit *test)
{
	struct vperfctr_test_ctx *ctx = test->priv;

	start_tsc(test, U64_MAX - 9);
	ctx->tsc = 6;
	vperfctr_suspend(ctx->perfctr);
	KUNIT_EXPECT_EQ(test, ctx->perfctr->kstate->cpu_state.tsc_sum, 16);
}

static void control_keeps_tsc_sum_unless_tsc_turned_off(struct kunit *test)
{
	struct vperfctr_test_ctx *ctx = test->priv;
	struct perfctr_cpu_state *state = &ctx->perfctr->kstate->cpu_state;
	struct vperfctr_control control;

	start_tsc(test, 0);
	ctx->tsc = 700;
	vperfctr_suspend(ctx->perfctr);

	tsc_control(&control, 1);
	vperfctr_set_control(ctx->perfctr, &control);
	KUNIT_EXPECT_EQ(test, state->tsc_sum, 700);
	KUNIT_EXPECT_TRUE(test, perfctr_cstatus_has_tsc(state->cstatus));

	tsc_control(&control, 0);
	vperfctr_set_control(ctx->perfctr, &control);
	KUNIT_EXPECT_EQ(test, state->tsc_sum, 0);
	KUNIT_EXPECT_FALSE(test, perfctr_cstatus_enabled(state->cstatus));
}

static void control_resets_sums_except_preserved(struct kunit *test)
{
	struct vperfctr_test_ctx *ctx = test->priv;
	struct perfctr_cpu_state *state = &ctx->perfctr->kstate->cpu_state;
	struct vperfctr_control control;

	state->pmc[0].sum = 5;
	state->pmc[1].sum = 6;
	state->pmc[31].sum = 7;
	tsc_control(&control, 1);
	control.preserve = BIT(1) | BIT(31);
	vperfctr_set_control(ctx->perfctr, &control);
	KUNIT_EXPECT_EQ(test, state->pmc[0].sum, 0);
	KUNIT_EXPECT_EQ(test, state->pmc[1].sum, 6);
	KUNIT_EXPECT_EQ(test, state->pmc[31].sum, 7);
	KUNIT_EXPECT_EQ(test, ctx->perfctr->control.preserve, BIT(1) | BIT(31));
}

static void every_update_moves_seq_and_leaves_it_even(struct kunit *test)
{
	struct vperfctr_test_ctx *ctx = test->priv;
	struct vperfctr_state *kstate = ctx->perfctr->kstate;
	u32 seq = kstate->seq;

	KUNIT_EXPECT_EQ(test, seq % 2, 0);
	start_tsc(test, 10);
	KUNIT_EXPECT_EQ(test, kstate->seq % 2, 0);
	KUNIT_EXPECT_GT(test, kstate->seq, seq);
	seq = kstate->seq;
	ctx->tsc = 20;
	vperfctr_suspend(ctx->perfctr);
	KUNIT_EXPECT_EQ(test, kstate->seq % 2, 0);
	KUNIT_EXPECT_GT(test, kstate->seq, seq);
}

static struct kunit_case vperfctr_test_cases[] = {
	KUNIT_CASE(new_state_is_inactive_and_zero),
	KUNIT_CASE(check_control_accepts_tsc_and_empty),
	KUNIT_CASE(check_control_rejects_unknown_flags),
	KUNIT_CASE(check_control_rejects_reserved_fields),
	KUNIT_CASE(check_control_rejects_bad_tsc_on_and_signal),
	KUNIT_CASE(check_control_rejects_more_counters_than_hardware),
	KUNIT_CASE(check_control_rejects_entries_beyond_counters),
	KUNIT_CASE(suspend_counts_only_time_on_cpu),
	KUNIT_CASE(sample_folds_count_and_keeps_running),
	KUNIT_CASE(tsc_delta_is_modular_across_wrap),
	KUNIT_CASE(control_keeps_tsc_sum_unless_tsc_turned_off),
	KUNIT_CASE(control_resets_sums_except_preserved),
	KUNIT_CASE(every_update_moves_seq_and_leaves_it_even),
	{}
};

static struct kunit_suite vperfctr_test_suite = {
	.name = "perfctr_virtual",
	.init = vperfctr_test_init,
	.exit = vperfctr_test_exit,
	.test_cases = vperfctr_test_cases,
};

kunit_test_suite(vperfctr_test_suite);

MODULE_DESCRIPTION("KUnit tests for the virtual per-process counters");
MODULE_LICENSE("GPL");
