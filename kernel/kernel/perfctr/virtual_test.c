// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of the counter virtualisation.  The TSC and the counter
 * hardware are replaced by static stubs (a fake PMU of four counters of
 * configurable width), so every count below is exact.
 */
#include <kunit/static_stub.h>
#include <kunit/test.h>
#include <linux/cpumask.h>
#include <linux/signal.h>
#include <linux/smp.h>
#include <linux/string.h>
#include <linux/perfctr_pmu.h>

#include "internal.h"

struct vperfctr_test_ctx {
	struct vperfctr *perfctr;
	u64 tsc;
	u64 hw[4];
	u32 width;
	bool enabled;
	bool user_read_ok;	/* what the driver says of rdpmc */
	int user_read;		/* -1: never asked, else the last answer */
	unsigned int user_read_calls;
	struct perfctr_pmu pmu;	/* four counters of @width bits */
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
	kunit_activate_static_stub(test, arch_perfctr_read_tsc, fake_read_tsc);
	return 0;
}

static u64 fake_read_counter(u32 map)
{
	return vperfctr_test_ctx()->hw[map & 3];
}

static void fake_write_counter(u32 map, u64 value)
{
	vperfctr_test_ctx()->hw[map & 3] = value;
}

static u32 fake_counter_width(u32 map)
{
	return vperfctr_test_ctx()->width;
}

static void fake_enable(const struct perfctr_cpu_state *state,
			const struct perfctr_cpu_control *control)
{
	vperfctr_test_ctx()->enabled = true;
}

static void fake_disable(const struct perfctr_cpu_state *state)
{
	vperfctr_test_ctx()->enabled = false;
}

static int fake_check_counter(u32 map, u64 evntsel, s64 ireset,
			      bool allow_kernel)
{
	return 0;
}

static const struct perfctr_pmu *fake_pmu(void)
{
	return &vperfctr_test_ctx()->pmu;
}

static bool fake_has_user_read(void)
{
	return vperfctr_test_ctx()->user_read_ok;
}

static void fake_user_read(bool allow)
{
	struct vperfctr_test_ctx *ctx = vperfctr_test_ctx();

	ctx->user_read = allow;
	ctx->user_read_calls++;
}

/* Counter hardware of @width bits in place of the real driver. */
static void use_fake_pmu(struct kunit *test, u32 width)
{
	struct vperfctr_test_ctx *ctx = test->priv;

	ctx->width = width;
	ctx->pmu = *arch_perfctr_pmu();
	ctx->pmu.nrctrs = ARRAY_SIZE(ctx->hw);
	ctx->pmu.ctr_width = width;
	kunit_activate_static_stub(test, arch_perfctr_read_counter,
				   fake_read_counter);
	kunit_activate_static_stub(test, arch_perfctr_write_counter,
				   fake_write_counter);
	kunit_activate_static_stub(test, arch_perfctr_counter_width,
				   fake_counter_width);
	kunit_activate_static_stub(test, arch_perfctr_enable, fake_enable);
	kunit_activate_static_stub(test, arch_perfctr_disable, fake_disable);
	kunit_activate_static_stub(test, arch_perfctr_check_counter,
				   fake_check_counter);
	kunit_activate_static_stub(test, arch_perfctr_pmu, fake_pmu);
	kunit_activate_static_stub(test, arch_perfctr_has_user_read,
				   fake_has_user_read);
	kunit_activate_static_stub(test, arch_perfctr_user_read, fake_user_read);
	ctx->user_read = -1;
}

/* The fake hardware counts @n events on counter @map, wrapping. */
static void fake_count(struct vperfctr_test_ctx *ctx, u32 map, u64 n)
{
	u64 mask = ctx->width >= 64 ? ~0ULL : BIT_ULL(ctx->width) - 1;

	if (ctx->enabled)
		ctx->hw[map & 3] = (ctx->hw[map & 3] + n) & mask;
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
	KUNIT_ASSERT_EQ(test, vperfctr_check_control(&control, false), 0);
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
	u32 avail = arch_perfctr_pmu()->nrctrs + arch_perfctr_pmu()->nrfixed;
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

/* A zeroed control, too big for a test's stack frame. */
static struct vperfctr_control *new_control(struct kunit *test)
{
	struct vperfctr_control *control;

	control = kunit_kzalloc(test, sizeof(*control), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, control);
	return control;
}

/* Set @control as vperfctr_control() does and start counting. */
static void start_control(struct kunit *test, struct vperfctr *perfctr,
			  struct vperfctr_control *control)
{
	KUNIT_ASSERT_EQ(test, vperfctr_check_control(control, true), 0);
	vperfctr_set_control(perfctr, control);
	vperfctr_resume(perfctr);
}

static void hw_counter_delta_is_modular_at_counter_width(struct kunit *test)
{
	struct vperfctr_test_ctx *ctx = test->priv;
	struct perfctr_cpu_state *state = &ctx->perfctr->kstate->cpu_state;
	struct vperfctr_control *control = new_control(test);

	use_fake_pmu(test, 32);
	ctx->hw[2] = 0xffffff00;
	control->cpu_control.nractrs = 1;
	control->cpu_control.pmc_map[0] = 2;
	start_control(test, ctx->perfctr, control);
	KUNIT_EXPECT_TRUE(test, ctx->enabled);
	KUNIT_EXPECT_EQ(test, state->pmc[0].width, 32);
	KUNIT_EXPECT_EQ(test, state->pmc[0].start, 0xffffff00);

	fake_count(ctx, 2, 0x300);	/* wraps to 0x200 */
	vperfctr_suspend(ctx->perfctr);
	KUNIT_EXPECT_FALSE(test, ctx->enabled);
	KUNIT_EXPECT_EQ(test, state->pmc[0].sum, 0x300);

	/* Counted by someone else while suspended: not the thread's. */
	ctx->hw[2] = 12345;
	vperfctr_resume(ctx->perfctr);
	fake_count(ctx, 2, 7);
	vperfctr_suspend(ctx->perfctr);
	KUNIT_EXPECT_EQ(test, state->pmc[0].sum, 0x307);
}

static void imode_hw_counter_keeps_its_value_across_switches(struct kunit *test)
{
	struct vperfctr_test_ctx *ctx = test->priv;
	struct perfctr_cpu_state *state = &ctx->perfctr->kstate->cpu_state;
	struct vperfctr_control *control = new_control(test);

	use_fake_pmu(test, 48);
	control->si_signo = SIGIO;
	control->cpu_control.nrictrs = 1;
	control->cpu_control.pmc_map[0] = 1;
	control->cpu_control.ireset[0] = -1000;
	start_control(test, ctx->perfctr, control);
	KUNIT_EXPECT_EQ(test, ctx->hw[1], BIT_ULL(48) - 1000);

	fake_count(ctx, 1, 400);
	KUNIT_EXPECT_EQ(test, vperfctr_suspend(ctx->perfctr), 0);
	KUNIT_EXPECT_EQ(test, state->pmc[0].sum, 400);
	/* Another thread used the counter; ours is reloaded on resume. */
	ctx->hw[1] = 5;
	vperfctr_resume(ctx->perfctr);
	KUNIT_EXPECT_EQ(test, ctx->hw[1], BIT_ULL(48) - 600);
	fake_count(ctx, 1, 700);	/* overflows past zero */
	/* The value tells, with or without the interrupt. */
	KUNIT_EXPECT_EQ(test, vperfctr_suspend(ctx->perfctr), BIT(0));
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
	struct perfctr_cpu_state *state = &perfctr->kstate->cpu_state;
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
	vperfctr_sample(perfctr);
	KUNIT_EXPECT_EQ(test, perfctr->pending_ovf, 0);
	fake_count(ctx, 3, 2);
	fake_count(ctx, 0, 2);
	vperfctr_sample(perfctr);
	KUNIT_EXPECT_EQ(test, perfctr->pending_ovf, BIT(1));
	KUNIT_EXPECT_TRUE(test, perfctr->kstate->flags &
				VPERFCTR_STATE_OVERFLOW);
	KUNIT_EXPECT_EQ(test, state->cstatus, PERFCTR_CSTATUS_TSC_ON);
	KUNIT_EXPECT_FALSE(test, ctx->enabled);
	KUNIT_EXPECT_EQ(test, state->pmc[0].sum, 51);
	KUNIT_EXPECT_EQ(test, state->pmc[1].sum, 51);

	/* iresume reloads the preset and counts on. */
	vperfctr_suspend(perfctr);
	KUNIT_ASSERT_EQ(test, vperfctr_ireload(perfctr), 0);
	vperfctr_resume(perfctr);
	KUNIT_EXPECT_EQ(test, ctx->hw[3], BIT_ULL(48) - 50);
	fake_count(ctx, 3, 10);
	KUNIT_EXPECT_EQ(test, vperfctr_suspend(perfctr), 0);
	KUNIT_EXPECT_EQ(test, state->pmc[1].sum, 61);
}

static void hw_counter_wraps_at_48_bits(struct kunit *test)
{
	struct vperfctr_test_ctx *ctx = test->priv;
	struct perfctr_cpu_state *state = &ctx->perfctr->kstate->cpu_state;
	struct vperfctr_control *control = new_control(test);

	use_fake_pmu(test, 48);
	ctx->hw[0] = BIT_ULL(48) - 0x100;
	control->cpu_control.nractrs = 1;
	start_control(test, ctx->perfctr, control);
	fake_count(ctx, 0, 0x300);	/* wraps to 0x200 */
	KUNIT_EXPECT_EQ(test, ctx->hw[0], 0x200);
	vperfctr_suspend(ctx->perfctr);
	KUNIT_EXPECT_EQ(test, state->pmc[0].sum, 0x300);
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

static void sampling_timer_samples_when_it_expires(struct kunit *test)
{
	struct vperfctr_test_ctx *ctx = test->priv;
	struct vperfctr *perfctr = ctx->perfctr;
	struct perfctr_cpu_state *state = &perfctr->kstate->cpu_state;
	struct vperfctr_control *control = new_control(test);
	unsigned int i;

	use_fake_pmu(test, 32);
	control->cpu_control.nractrs = 1;
	start_control(test, perfctr, control);
	KUNIT_ASSERT_GT(test, perfctr->sample_ticks, 0);

	for (i = 1; i < perfctr->sample_ticks; i++) {
		fake_count(ctx, 0, 1000);
		__perfctr_sample_thread(perfctr);
	}
	KUNIT_EXPECT_EQ(test, state->pmc[0].sum, 0);
	fake_count(ctx, 0, 1000);
	__perfctr_sample_thread(perfctr);
	KUNIT_EXPECT_EQ(test, state->pmc[0].sum, 1000ULL * i);
	KUNIT_EXPECT_TRUE(test, vperfctr_is_oncpu(perfctr));
	KUNIT_EXPECT_EQ(test, perfctr->ticks_left, perfctr->sample_ticks);
}

static void sw_control(struct vperfctr_control *control, unsigned int i,
		       u32 event, u64 evntsel)
{
	control->cpu_control.pmc_map[i] = PERFCTR_MAP_SOFTWARE | event;
	control->cpu_control.evntsel[i] = evntsel;
}

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

static void fault_counters_count_by_mode_and_kind(struct kunit *test)
{
	struct vperfctr_test_ctx *ctx = test->priv;
	struct perfctr_cpu_state *state = &ctx->perfctr->kstate->cpu_state;
	struct vperfctr_control *control = new_control(test);
	u32 minor_usr = BIT(PERFCTR_SW_PAGE_FAULTS) |
			BIT(PERFCTR_SW_MINOR_FAULTS);
	u32 major_os = BIT(PERFCTR_SW_PAGE_FAULTS) |
		       BIT(PERFCTR_SW_MAJOR_FAULTS);

	control->cpu_control.nractrs = 4;
	sw_control(control, 0, PERFCTR_SW_PAGE_FAULTS,
		   PERFCTR_SW_USR | PERFCTR_SW_OS);
	sw_control(control, 1, PERFCTR_SW_PAGE_FAULTS, PERFCTR_SW_USR);
	sw_control(control, 2, PERFCTR_SW_MINOR_FAULTS, PERFCTR_SW_OS);
	sw_control(control, 3, PERFCTR_SW_MAJOR_FAULTS,
		   PERFCTR_SW_USR | PERFCTR_SW_OS);
	start_control(test, ctx->perfctr, control);
	KUNIT_EXPECT_EQ(test, state->pmc[3].width, 64);

	vperfctr_count_events(ctx->perfctr, minor_usr, PERFCTR_SW_USR, 5);
	vperfctr_count_events(ctx->perfctr, minor_usr, PERFCTR_SW_OS, 2);
	vperfctr_count_events(ctx->perfctr, major_os, PERFCTR_SW_OS, 1);
	/* Not counted by any: a context switch. */
	vperfctr_count_events(ctx->perfctr, BIT(PERFCTR_SW_CONTEXT_SWITCHES),
			      0, 1);
	KUNIT_EXPECT_EQ(test, state->pmc[0].sum, 8);
	KUNIT_EXPECT_EQ(test, state->pmc[1].sum, 5);
	KUNIT_EXPECT_EQ(test, state->pmc[2].sum, 2);
	KUNIT_EXPECT_EQ(test, state->pmc[3].sum, 1);
	KUNIT_EXPECT_EQ(test, state->pmc[0].start, 0);
}

static void task_clock_counts_ns_on_cpu(struct kunit *test)
{
	struct vperfctr_test_ctx *ctx = test->priv;
	struct perfctr_cpu_state *state = &ctx->perfctr->kstate->cpu_state;
	struct vperfctr_control *control = new_control(test);
	u64 on_cpu = 0;

	control->cpu_control.nractrs = 1;
	sw_control(control, 0, PERFCTR_SW_TASK_CLOCK, 0);
	ctx->tsc = 1000000;
	start_control(test, ctx->perfctr, control);
	KUNIT_EXPECT_EQ(test, state->pmc[0].start, 1000000);
	ctx->tsc += 3000000;
	vperfctr_suspend(ctx->perfctr);
	on_cpu += 3000000;
	ctx->tsc += 50000000;		/* asleep */
	vperfctr_resume(ctx->perfctr);
	ctx->tsc += 2000000;
	vperfctr_suspend(ctx->perfctr);
	on_cpu += 2000000;
	KUNIT_EXPECT_NE(test, ctx->perfctr->kstate->time_mult, 0);
	KUNIT_EXPECT_LE(test, state->pmc[0].sum - vperfctr_tsc_to_ns(on_cpu) +
			1, 2);
	KUNIT_EXPECT_LT(test, state->pmc[0].sum, vperfctr_tsc_to_ns(on_cpu * 2));
}

static void imode_overflow_stops_all_but_tsc_until_iresume(struct kunit *test)
{
	struct vperfctr_test_ctx *ctx = test->priv;
	struct vperfctr *perfctr = ctx->perfctr;
	struct vperfctr_state *kstate = perfctr->kstate;
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
	cstatus = kstate->cpu_state.cstatus;

	ovf = vperfctr_count_events(perfctr, faults, PERFCTR_SW_USR, 2);
	KUNIT_EXPECT_EQ(test, ovf, 0);
	ovf = vperfctr_count_events(perfctr, faults, PERFCTR_SW_USR, 1);
	KUNIT_EXPECT_EQ(test, ovf, BIT(1));

	ovf |= vperfctr_suspend(perfctr);
	vperfctr_overflow(perfctr, ovf);
	KUNIT_EXPECT_EQ(test, kstate->cpu_state.cstatus, PERFCTR_CSTATUS_TSC_ON);
	KUNIT_EXPECT_TRUE(test, kstate->flags & VPERFCTR_STATE_OVERFLOW);
	KUNIT_EXPECT_EQ(test, perfctr->pending_ovf, BIT(1));
	/* Counts up to the overflow are kept, nothing counts after it. */
	vperfctr_resume(perfctr);
	vperfctr_count_events(perfctr, faults, PERFCTR_SW_USR, 10);
	KUNIT_EXPECT_EQ(test, kstate->cpu_state.pmc[0].sum, 3);
	KUNIT_EXPECT_EQ(test, kstate->cpu_state.pmc[1].sum, 3);

	vperfctr_suspend(perfctr);
	KUNIT_EXPECT_EQ(test, vperfctr_ireload(perfctr), 0);
	KUNIT_EXPECT_EQ(test, kstate->cpu_state.cstatus, cstatus);
	KUNIT_EXPECT_FALSE(test, kstate->flags & VPERFCTR_STATE_OVERFLOW);
	KUNIT_EXPECT_EQ(test, perfctr->icount[1], -3);
	/* The overflow's signal, not sent yet, is sent all the same. */
	KUNIT_EXPECT_EQ(test, perfctr->pending_ovf, BIT(1));
	KUNIT_EXPECT_EQ(test, vperfctr_ireload(perfctr), -EINVAL);
	vperfctr_resume(perfctr);
	vperfctr_count_events(perfctr, faults, PERFCTR_SW_USR, 1);
	KUNIT_EXPECT_EQ(test, kstate->cpu_state.pmc[0].sum, 4);
}

static void set_sums(struct vperfctr *perfctr, u64 tsc, u64 pmc0)
{
	perfctr->kstate->cpu_state.tsc_sum = tsc;
	perfctr->kstate->cpu_state.pmc[0].sum = pmc0;
}

static void inherited_state_has_control_and_zero_sums(struct kunit *test)
{
	struct vperfctr *parent = vperfctr_test_ctx()->perfctr;
	struct vperfctr_control *control = new_control(test);
	struct vperfctr *child;

	control->cpu_control.tsc_on = 1;
	control->cpu_control.nractrs = 1;
	sw_control(control, 0, PERFCTR_SW_PAGE_FAULTS, PERFCTR_SW_USR);
	vperfctr_set_control(parent, control);
	set_sums(parent, 100, 10);

	child = vperfctr_inherit(parent);
	KUNIT_ASSERT_NOT_NULL(test, child);
	KUNIT_EXPECT_EQ(test, memcmp(&child->control, control,
				     sizeof(*control)), 0);
	KUNIT_EXPECT_EQ(test, child->kstate->cpu_state.cstatus,
			parent->kstate->cpu_state.cstatus);
	KUNIT_EXPECT_EQ(test, child->kstate->cpu_state.tsc_sum, 0);
	KUNIT_EXPECT_EQ(test, child->kstate->cpu_state.pmc[0].sum, 0);
	KUNIT_EXPECT_PTR_EQ(test, child->parent, parent);
	KUNIT_EXPECT_EQ(test, child->parent_id, parent->inheritance_id);
	KUNIT_EXPECT_NE(test, child->inheritance_id, parent->inheritance_id);
	KUNIT_EXPECT_EQ(test, refcount_read(&parent->refcount), 2);
	vperfctr_put(child);
	KUNIT_EXPECT_EQ(test, refcount_read(&parent->refcount), 1);
}

static void propagation_adds_child_and_grandchildren(struct kunit *test)
{
	struct vperfctr *root = vperfctr_test_ctx()->perfctr;
	struct vperfctr_control *control = new_control(test);
	struct vperfctr *child, *grandchild;

	control->cpu_control.tsc_on = 1;
	vperfctr_set_control(root, control);
	child = vperfctr_inherit(root);
	KUNIT_ASSERT_NOT_NULL(test, child);
	grandchild = vperfctr_inherit(child);
	KUNIT_ASSERT_NOT_NULL(test, grandchild);

	set_sums(grandchild, 5, 1);
	vperfctr_propagate(grandchild);
	KUNIT_EXPECT_EQ(test, child->children.tsc, 5);
	KUNIT_EXPECT_EQ(test, root->children.tsc, 0);
	set_sums(child, 70, 2);
	vperfctr_propagate(child);
	KUNIT_EXPECT_EQ(test, root->children.tsc, 75);
	KUNIT_EXPECT_EQ(test, root->children.pmc[0], 3);
	KUNIT_EXPECT_EQ(test, root->kstate->cpu_state.tsc_sum, 0);
	vperfctr_put(grandchild);
	vperfctr_put(child);
}

static void late_grandchild_is_forwarded_to_root(struct kunit *test)
{
	struct vperfctr *root = vperfctr_test_ctx()->perfctr;
	struct vperfctr_control *control = new_control(test);
	struct vperfctr *child, *grandchild;

	control->cpu_control.tsc_on = 1;
	vperfctr_set_control(root, control);
	child = vperfctr_inherit(root);
	KUNIT_ASSERT_NOT_NULL(test, child);
	grandchild = vperfctr_inherit(child);
	KUNIT_ASSERT_NOT_NULL(test, grandchild);

	/* The child is reaped first; the grandchild outlives it. */
	set_sums(child, 70, 0);
	vperfctr_propagate(child);
	vperfctr_put(child);
	set_sums(grandchild, 5, 0);
	vperfctr_propagate(grandchild);
	KUNIT_EXPECT_EQ(test, root->children.tsc, 75);
	vperfctr_put(grandchild);
	KUNIT_EXPECT_EQ(test, refcount_read(&root->refcount), 1);
}

static void new_control_stops_propagation_and_clears_children(struct kunit *test)
{
	struct vperfctr *root = vperfctr_test_ctx()->perfctr;
	struct vperfctr_control *control = new_control(test);
	struct vperfctr *early, *late;

	control->cpu_control.tsc_on = 1;
	vperfctr_set_control(root, control);
	early = vperfctr_inherit(root);
	KUNIT_ASSERT_NOT_NULL(test, early);
	set_sums(early, 40, 0);
	vperfctr_propagate(early);
	KUNIT_EXPECT_EQ(test, root->children.tsc, 40);
	vperfctr_put(early);

	early = vperfctr_inherit(root);
	KUNIT_ASSERT_NOT_NULL(test, early);
	vperfctr_new_generation(root, true);
	KUNIT_EXPECT_EQ(test, root->children.tsc, 0);
	late = vperfctr_inherit(root);
	KUNIT_ASSERT_NOT_NULL(test, late);
	set_sums(early, 7, 0);
	vperfctr_propagate(early);
	set_sums(late, 9, 0);
	vperfctr_propagate(late);
	KUNIT_EXPECT_EQ(test, root->children.tsc, 9);
	vperfctr_put(early);
	vperfctr_put(late);
}

static void child_with_own_control_propagates_nothing(struct kunit *test)
{
	struct vperfctr *root = vperfctr_test_ctx()->perfctr;
	struct vperfctr_control *control = new_control(test);
	struct vperfctr *child;

	control->cpu_control.tsc_on = 1;
	vperfctr_set_control(root, control);
	child = vperfctr_inherit(root);
	KUNIT_ASSERT_NOT_NULL(test, child);
	vperfctr_new_generation(child, true);
	set_sums(child, 11, 0);
	vperfctr_propagate(child);
	KUNIT_EXPECT_EQ(test, root->children.tsc, 0);
	vperfctr_put(child);
}

/*
 * User-mode reads of the counters (rdpmc) go with a control that has
 * hardware counters, on a driver that allows them, and follow the owner
 * on and off the CPU, overflow or not.
 */
static void rdpmc_follows_hardware_control_and_owner(struct kunit *test)
{
	struct vperfctr_test_ctx *ctx = test->priv;
	struct vperfctr *perfctr = ctx->perfctr;
	struct vperfctr_control *control = new_control(test);
	unsigned long flags;
	int on_resume, on_suspend;
	unsigned int calls;

	use_fake_pmu(test, 48);
	control->cpu_control.nractrs = 1;
	KUNIT_ASSERT_EQ(test, vperfctr_check_control(control, false), 0);
	vperfctr_set_control(perfctr, control);
	KUNIT_EXPECT_FALSE(test, perfctr->kstate->flags & VPERFCTR_STATE_RDPMC);

	ctx->user_read_ok = true;
	vperfctr_set_control(perfctr, control);
	KUNIT_EXPECT_TRUE(test, perfctr->kstate->flags & VPERFCTR_STATE_RDPMC);

	/* Stopped by an overflow, the owner may still read. */
	local_irq_save(flags);
	vperfctr_overflow(perfctr, 0);
	__perfctr_resume_thread(perfctr);
	on_resume = ctx->user_read;
	__perfctr_suspend_thread(perfctr);
	on_suspend = ctx->user_read;
	local_irq_restore(flags);
	KUNIT_EXPECT_EQ(test, on_resume, 1);
	KUNIT_EXPECT_EQ(test, on_suspend, 0);

	/* Software counters only: nothing to read with rdpmc. */
	sw_control(control, 0, PERFCTR_SW_PAGE_FAULTS, PERFCTR_SW_USR);
	vperfctr_set_control(perfctr, control);
	KUNIT_EXPECT_FALSE(test, perfctr->kstate->flags & VPERFCTR_STATE_RDPMC);
	calls = ctx->user_read_calls;
	local_irq_save(flags);
	__perfctr_resume_thread(perfctr);
	__perfctr_suspend_thread(perfctr);
	local_irq_restore(flags);
	KUNIT_EXPECT_EQ(test, ctx->user_read_calls, calls);
}

static void resume_on_forbidden_cpu_stops_and_flags_sigill(struct kunit *test)
{
	struct vperfctr_test_ctx *ctx = test->priv;
	struct vperfctr *perfctr = ctx->perfctr;
	struct vperfctr_control *control = new_control(test);
	unsigned long flags;
	int cpu;

	use_fake_pmu(test, 48);
	ctx->user_read_ok = true;
	control->cpu_control.nractrs = 1;
	KUNIT_ASSERT_EQ(test, vperfctr_check_control(control, false), 0);
	vperfctr_set_control(perfctr, control);

	local_irq_save(flags);
	cpu = smp_processor_id();
	/* Allowed everywhere, forbidden nowhere: resumes. */
	__perfctr_set_cpus_allowed(perfctr, cpu_possible_mask);
	KUNIT_EXPECT_FALSE(test, perfctr->bad_cpus_allowed);
	__perfctr_resume_thread(perfctr);
	KUNIT_EXPECT_TRUE(test, vperfctr_is_oncpu(perfctr));
	vperfctr_suspend(perfctr);

	cpumask_set_cpu(cpu, &perfctr_cpus_forbidden_mask);
	__perfctr_set_cpus_allowed(perfctr, cpu_possible_mask);
	KUNIT_EXPECT_TRUE(test, perfctr->bad_cpus_allowed);
	__perfctr_resume_thread(perfctr);
	cpumask_clear_cpu(cpu, &perfctr_cpus_forbidden_mask);
	local_irq_restore(flags);

	KUNIT_EXPECT_FALSE(test, vperfctr_is_oncpu(perfctr));
	KUNIT_EXPECT_EQ(test, perfctr->kstate->cpu_state.cstatus, 0);
	KUNIT_EXPECT_TRUE(test, perfctr->pending_sigill);
	/* Nor may the owner read the counters of a CPU that cannot count. */
	KUNIT_EXPECT_FALSE(test, perfctr->kstate->flags & VPERFCTR_STATE_RDPMC);
	KUNIT_EXPECT_EQ(test, ctx->user_read, 0);
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
	KUNIT_CASE(hw_counter_delta_is_modular_at_counter_width),
	KUNIT_CASE(imode_hw_counter_keeps_its_value_across_switches),
	KUNIT_CASE(hw_overflow_found_by_sample_stops_counters),
	KUNIT_CASE(hw_counter_wraps_at_48_bits),
	KUNIT_CASE(rdpmc_follows_hardware_control_and_owner),
	KUNIT_CASE(sample_interval_follows_width_and_clock),
	KUNIT_CASE(sampling_timer_samples_when_it_expires),
	KUNIT_CASE(check_control_validates_software_counters),
	KUNIT_CASE(kernel_mode_faults_need_privilege),
	KUNIT_CASE(fault_counters_count_by_mode_and_kind),
	KUNIT_CASE(task_clock_counts_ns_on_cpu),
	KUNIT_CASE(imode_overflow_stops_all_but_tsc_until_iresume),
	KUNIT_CASE(inherited_state_has_control_and_zero_sums),
	KUNIT_CASE(propagation_adds_child_and_grandchildren),
	KUNIT_CASE(late_grandchild_is_forwarded_to_root),
	KUNIT_CASE(new_control_stops_propagation_and_clears_children),
	KUNIT_CASE(child_with_own_control_propagates_nothing),
	KUNIT_CASE(resume_on_forbidden_cpu_stops_and_flags_sigill),
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
