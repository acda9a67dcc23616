// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of counting: the sums kept across suspend, resume, samples
 * and counter wrap-around, the sequence count of the shared page,
 * user-mode reads and forbidden CPUs.
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

static void suspend_counts_only_time_on_cpu(struct kunit *test)
{
	struct vperfctr_test_ctx *ctx = test->priv;
	struct vperfctr_state *userpg = ctx->perfctr->userpg;

	start_tsc(test, 1000);
	KUNIT_EXPECT_EQ(test, userpg->cpu_state.tsc_start, 1000);
	KUNIT_EXPECT_TRUE(test, vperfctr_is_oncpu(ctx->perfctr));

	ctx->tsc = 1600;
	test_suspend(ctx->perfctr);
	KUNIT_EXPECT_EQ(test, userpg->cpu_state.tsc_sum, 600);
	KUNIT_EXPECT_FALSE(test, vperfctr_is_oncpu(ctx->perfctr));

	/* 3400 cycles off the CPU are not the thread's. */
	ctx->tsc = 5000;
	test_resume(ctx->perfctr);
	ctx->tsc = 5100;
	test_suspend(ctx->perfctr);
	KUNIT_EXPECT_EQ(test, userpg->cpu_state.tsc_sum, 700);
}

static void sample_folds_count_and_keeps_running(struct kunit *test)
{
	struct vperfctr_test_ctx *ctx = test->priv;
	struct vperfctr_state *userpg = ctx->perfctr->userpg;

	start_tsc(test, 100);
	ctx->tsc = 250;
	irqs_off(vperfctr_sample(ctx->perfctr));
	KUNIT_EXPECT_EQ(test, userpg->cpu_state.tsc_sum, 150);
	KUNIT_EXPECT_EQ(test, userpg->cpu_state.tsc_start, 250);
	KUNIT_EXPECT_TRUE(test, vperfctr_is_oncpu(ctx->perfctr));
}

static void tsc_delta_is_modular_across_wrap(struct kunit *test)
{
	struct vperfctr_test_ctx *ctx = test->priv;

	start_tsc(test, U64_MAX - 9);
	ctx->tsc = 6;
	test_suspend(ctx->perfctr);
	KUNIT_EXPECT_EQ(test, ctx->perfctr->userpg->cpu_state.tsc_sum, 16);
}

static void every_update_moves_seq_and_leaves_it_even(struct kunit *test)
{
	struct vperfctr_test_ctx *ctx = test->priv;
	struct vperfctr_state *userpg = ctx->perfctr->userpg;
	u32 seq = userpg->seq;

	KUNIT_EXPECT_EQ(test, seq % 2, 0);
	start_tsc(test, 10);
	KUNIT_EXPECT_EQ(test, userpg->seq % 2, 0);
	KUNIT_EXPECT_GT(test, userpg->seq, seq);
	seq = userpg->seq;
	ctx->tsc = 20;
	test_suspend(ctx->perfctr);
	KUNIT_EXPECT_EQ(test, userpg->seq % 2, 0);
	KUNIT_EXPECT_GT(test, userpg->seq, seq);
}

static void hw_counter_delta_is_modular_at_counter_width(struct kunit *test)
{
	struct vperfctr_test_ctx *ctx = test->priv;
	struct perfctr_cpu_state *state = &ctx->perfctr->userpg->cpu_state;
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
	test_suspend(ctx->perfctr);
	KUNIT_EXPECT_FALSE(test, ctx->enabled);
	KUNIT_EXPECT_EQ(test, state->pmc[0].sum, 0x300);

	/* Counted by someone else while suspended: not the thread's. */
	ctx->hw[2] = 12345;
	test_resume(ctx->perfctr);
	fake_count(ctx, 2, 7);
	test_suspend(ctx->perfctr);
	KUNIT_EXPECT_EQ(test, state->pmc[0].sum, 0x307);
}

static void hw_counter_wraps_at_48_bits(struct kunit *test)
{
	struct vperfctr_test_ctx *ctx = test->priv;
	struct perfctr_cpu_state *state = &ctx->perfctr->userpg->cpu_state;
	struct vperfctr_control *control = new_control(test);

	use_fake_pmu(test, 48);
	ctx->hw[0] = BIT_ULL(48) - 0x100;
	control->cpu_control.nractrs = 1;
	start_control(test, ctx->perfctr, control);
	fake_count(ctx, 0, 0x300);	/* wraps to 0x200 */
	KUNIT_EXPECT_EQ(test, ctx->hw[0], 0x200);
	test_suspend(ctx->perfctr);
	KUNIT_EXPECT_EQ(test, state->pmc[0].sum, 0x300);
}

/*
 * A counter the driver restarts at every enable (an x86 TopDown metric)
 * starts from zero, whatever the hardware held before: what another
 * thread left there is not read as the start.
 */
static void restarting_counter_starts_from_zero_at_every_resume(struct kunit *test)
{
	struct vperfctr_test_ctx *ctx = test->priv;
	struct perfctr_cpu_state *state = &ctx->perfctr->userpg->cpu_state;
	struct vperfctr_control *control = new_control(test);

	use_fake_pmu(test, 64);
	ctx->restarts = BIT(1);
	ctx->hw[1] = 500;
	ctx->hw[2] = 900;
	control->cpu_control.nractrs = 2;
	control->cpu_control.pmc_map[0] = 1;
	control->cpu_control.pmc_map[1] = 2;
	start_control(test, ctx->perfctr, control);
	KUNIT_EXPECT_EQ(test, ctx->perfctr->setup.restart_pmcs, BIT(0));
	KUNIT_EXPECT_EQ(test, state->pmc[0].start, 0);
	KUNIT_EXPECT_EQ(test, state->pmc[1].start, 900);
	fake_count(ctx, 1, 70);
	fake_count(ctx, 2, 70);
	test_suspend(ctx->perfctr);
	KUNIT_EXPECT_EQ(test, state->pmc[0].sum, 70);
	KUNIT_EXPECT_EQ(test, state->pmc[1].sum, 70);

	/* Another thread's counts, then a sample in the middle. */
	ctx->hw[1] = 12345;
	test_resume(ctx->perfctr);
	fake_count(ctx, 1, 20);
	irqs_off(vperfctr_sample(ctx->perfctr));
	KUNIT_EXPECT_EQ(test, state->pmc[0].sum, 90);
	KUNIT_EXPECT_EQ(test, state->pmc[0].start, 0);
	fake_count(ctx, 1, 10);
	test_suspend(ctx->perfctr);
	KUNIT_EXPECT_EQ(test, state->pmc[0].sum, 100);
}

/*
 * Its counts are folded into the sum at least every 100 ms, even where
 * its width would let it run an hour unsampled.
 */
static void restarting_counter_is_sampled_at_least_every_100ms(struct kunit *test)
{
	struct vperfctr_test_ctx *ctx = test->priv;
	struct vperfctr_control *control = new_control(test);

	use_fake_pmu(test, 64);
	control->cpu_control.nractrs = 1;
	control->cpu_control.pmc_map[0] = 1;
	start_control(test, ctx->perfctr, control);
	KUNIT_EXPECT_EQ(test, ctx->perfctr->setup.sample_ticks, 0);
	test_suspend(ctx->perfctr);

	ctx->restarts = BIT(1);
	start_control(test, ctx->perfctr, control);
	KUNIT_EXPECT_GE(test, ctx->perfctr->setup.sample_ticks, 1);
	KUNIT_EXPECT_LE(test, ctx->perfctr->setup.sample_ticks, HZ / 10);
	test_suspend(ctx->perfctr);
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
	test_set_control(perfctr, control);
	KUNIT_EXPECT_FALSE(test, perfctr->userpg->flags & VPERFCTR_STATE_RDPMC);

	ctx->user_read_ok = true;
	test_set_control(perfctr, control);
	KUNIT_EXPECT_TRUE(test, perfctr->userpg->flags & VPERFCTR_STATE_RDPMC);

	/* Stopped by an overflow, the owner may still read. */
	local_irq_save(flags);
	irqs_off(vperfctr_overflow(perfctr, 0));
	__perfctr_switch_thread(NULL, perfctr);
	on_resume = ctx->user_read;
	__perfctr_switch_thread(perfctr, NULL);
	on_suspend = ctx->user_read;
	local_irq_restore(flags);
	KUNIT_EXPECT_EQ(test, on_resume, 1);
	KUNIT_EXPECT_EQ(test, on_suspend, 0);

	/* Software counters only: nothing to read with rdpmc. */
	sw_control(control, 0, PERFCTR_SW_PAGE_FAULTS, PERFCTR_SW_USR);
	test_set_control(perfctr, control);
	KUNIT_EXPECT_FALSE(test, perfctr->userpg->flags & VPERFCTR_STATE_RDPMC);
	calls = ctx->user_read_calls;
	local_irq_save(flags);
	__perfctr_switch_thread(NULL, perfctr);
	__perfctr_switch_thread(perfctr, NULL);
	local_irq_restore(flags);
	KUNIT_EXPECT_EQ(test, ctx->user_read_calls, calls);
}

/*
 * A switch between two threads that both read their counters in user
 * mode leaves that right in place: the next one's resume gives it again,
 * which has the driver clear the counters first, and nothing takes it
 * away in between.  A switch to a thread that may not read, or to one
 * without counters, takes it away.
 */
static void user_read_stays_between_two_reading_threads(struct kunit *test)
{
	struct vperfctr_test_ctx *ctx = test->priv;
	struct vperfctr *reader = ctx->perfctr, *other, *sw_only;
	struct vperfctr_control *control = new_control(test);
	unsigned long flags;
	int granted, kept, revoked, to_sw, to_none;
	unsigned int calls, grant_calls, none_calls;

	use_fake_pmu(test, 48);
	ctx->user_read_ok = true;
	other = vperfctr_alloc();
	KUNIT_ASSERT_NOT_NULL(test, other);
	sw_only = vperfctr_alloc();
	if (!sw_only)
		vperfctr_put(other);
	KUNIT_ASSERT_NOT_NULL(test, sw_only);

	/* Counting switches: the general path, not a hand-off. */
	control->cpu_control.nractrs = 2;
	sw_control(control, 1, PERFCTR_SW_CONTEXT_SWITCHES, 0);
	KUNIT_ASSERT_EQ(test, vperfctr_check_control(control, false), 0);
	test_set_control(reader, control);
	test_set_control(other, control);
	sw_control(control, 0, PERFCTR_SW_PAGE_FAULTS, PERFCTR_SW_USR);
	KUNIT_ASSERT_EQ(test, vperfctr_check_control(control, false), 0);
	test_set_control(sw_only, control);

	local_irq_save(flags);
	__perfctr_switch_thread(NULL, reader);
	granted = ctx->user_read;
	calls = ctx->user_read_calls;
	__perfctr_switch_thread(reader, other);
	kept = ctx->user_read;
	grant_calls = ctx->user_read_calls - calls;
	__perfctr_switch_thread(other, sw_only);
	to_sw = ctx->user_read;
	__perfctr_switch_thread(sw_only, reader);
	calls = ctx->user_read_calls;
	__perfctr_switch_thread(reader, NULL);
	to_none = ctx->user_read;
	none_calls = ctx->user_read_calls - calls;
	revoked = to_sw == 0 && to_none == 0;
	local_irq_restore(flags);

	KUNIT_EXPECT_EQ(test, granted, 1);
	/* One call, the grant: no revoke before it. */
	KUNIT_EXPECT_EQ(test, kept, 1);
	KUNIT_EXPECT_EQ(test, grant_calls, 1);
	KUNIT_EXPECT_TRUE(test, revoked);
	KUNIT_EXPECT_EQ(test, none_calls, 1);
	KUNIT_EXPECT_FALSE(test, vperfctr_is_oncpu(reader));
	KUNIT_EXPECT_FALSE(test, vperfctr_is_oncpu(other));
	KUNIT_EXPECT_FALSE(test, vperfctr_is_oncpu(sw_only));
	vperfctr_put(sw_only);
	vperfctr_put(other);
}

/*
 * A thread let read its counters in user mode finds them zeroed by the
 * driver: its resume takes 0 as their start without reading them, and
 * counts what they count from there.  A resume without a grant, that of
 * a sample, reads them.
 */
static void resume_after_grant_takes_zero_unread(struct kunit *test)
{
	struct vperfctr_test_ctx *ctx = test->priv;
	struct vperfctr *perfctr = ctx->perfctr;
	struct vperfctr_control *control = new_control(test);
	unsigned int reads, grant_reads, sample_reads;
	unsigned long flags;
	u64 start;

	use_fake_pmu(test, 48);
	ctx->user_read_ok = true;
	control->cpu_control.nractrs = 1;
	KUNIT_ASSERT_EQ(test, vperfctr_check_control(control, false), 0);
	test_set_control(perfctr, control);
	/* Left by another thread: the grant clears it. */
	ctx->hw[0] = 1000;

	local_irq_save(flags);
	reads = ctx->counter_reads;
	__perfctr_switch_thread(NULL, perfctr);
	grant_reads = ctx->counter_reads - reads;
	start = perfctr->userpg->cpu_state.pmc[0].start;
	fake_count(ctx, 0, 25);
	reads = ctx->counter_reads;
	irqs_off(vperfctr_sample(perfctr));
	sample_reads = ctx->counter_reads - reads;
	fake_count(ctx, 0, 5);
	__perfctr_switch_thread(perfctr, NULL);
	local_irq_restore(flags);

	KUNIT_EXPECT_EQ(test, grant_reads, 0);
	KUNIT_EXPECT_EQ(test, start, 0);
	KUNIT_EXPECT_EQ(test, sample_reads, 2);
	KUNIT_EXPECT_EQ(test, perfctr->userpg->cpu_state.pmc[0].sum, 30);
}

/*
 * @control, checked, set in the test's state and in a second state,
 * which is returned: the caller puts it.
 */
static struct vperfctr *second_thread(struct kunit *test,
				      const struct vperfctr_control *control)
{
	struct vperfctr_test_ctx *ctx = test->priv;
	struct vperfctr *second;

	KUNIT_ASSERT_EQ(test, vperfctr_check_control(control, false), 0);
	second = vperfctr_alloc();
	KUNIT_ASSERT_NOT_NULL(test, second);
	test_set_control(ctx->perfctr, control);
	test_set_control(second, control);
	return second;
}

/*
 * A switch between two threads that count time reads the clock once: the
 * outgoing thread's period ends where the incoming one's begins.  A
 * switch with counters on one side only reads it once too.
 */
static void switch_reads_the_clock_once(struct kunit *test)
{
	struct vperfctr_test_ctx *ctx = test->priv;
	struct vperfctr *first = ctx->perfctr, *second;
	struct vperfctr_control *control = new_control(test);
	unsigned long flags;
	unsigned int in_reads, between_reads, out_reads;

	tsc_control(control, 1);
	second = second_thread(test, control);

	local_irq_save(flags);
	ctx->tsc = 100;
	ctx->tsc_reads = 0;
	__perfctr_switch_thread(NULL, first);
	in_reads = ctx->tsc_reads;
	ctx->tsc = 400;
	__perfctr_switch_thread(first, second);
	between_reads = ctx->tsc_reads - in_reads;
	ctx->tsc = 1000;
	__perfctr_switch_thread(second, NULL);
	out_reads = ctx->tsc_reads - in_reads - between_reads;
	local_irq_restore(flags);

	KUNIT_EXPECT_EQ(test, in_reads, 1);
	KUNIT_EXPECT_EQ(test, between_reads, 1);
	KUNIT_EXPECT_EQ(test, out_reads, 1);
	KUNIT_EXPECT_EQ(test, first->userpg->cpu_state.tsc_sum, 300);
	KUNIT_EXPECT_EQ(test, second->userpg->cpu_state.tsc_sum, 600);
	KUNIT_EXPECT_FALSE(test, vperfctr_is_oncpu(first));
	KUNIT_EXPECT_FALSE(test, vperfctr_is_oncpu(second));
	vperfctr_put(second);
}

/*
 * Two threads with TSC, a hardware counter and task-clock, taking turns
 * on this CPU, with @cs a context-switch counter as well, and @restart
 * the hardware counter one that restarts at every resume.  Each has run
 * here once before the switch from the first to the second: the first
 * counted 25 events, sampled after 20; the second counts 7 after it, and
 * the first 4 more when it runs again.  The switch from the first to the
 * second reads the clock once, hand-off or not.  Returns how many
 * arch_perfctr_switch() calls that switch made; the first's first
 * resume, after the second, hands off as that switch does, or not.
 */
/*
 * The second thread of switch_first_to_second(), counting the TSC,
 * hardware counter 1 (restarting at every enable if @restart), task-clock
 * and, if @cs, context switches, as the first does.
 */
static struct vperfctr *second_counting_thread(struct kunit *test, bool cs,
					       bool restart)
{
	struct vperfctr_test_ctx *ctx = test->priv;
	struct vperfctr_control *control = new_control(test);
	struct perfctr_cpu_control *cc = &control->cpu_control;

	use_fake_pmu(test, 48);
	ctx->user_read_ok = true;
	ctx->restarts = restart ? BIT(1) : 0;
	cc->tsc_on = 1;
	cc->nractrs = cs ? 3 : 2;
	cc->pmc_map[0] = 1;
	sw_control(control, 1, PERFCTR_SW_TASK_CLOCK, 0);
	if (cs)
		sw_control(control, 2, PERFCTR_SW_CONTEXT_SWITCHES, 0);
	return second_thread(test, control);
}

/* The sums of switch_first_to_second()'s two threads. */
static void expect_switched_sums(struct kunit *test,
				 const struct vperfctr *first,
				 const struct vperfctr *second, bool cs)
{
	const struct perfctr_cpu_state *one = &first->userpg->cpu_state;
	const struct perfctr_cpu_state *two = &second->userpg->cpu_state;

	KUNIT_EXPECT_EQ(test, one->tsc_sum, 400);
	/* 20 + 5, then 4 from zero, not from where the sample left it. */
	KUNIT_EXPECT_EQ(test, one->pmc[0].sum, 29);
	KUNIT_EXPECT_EQ(test, one->pmc[1].sum,
			vperfctr_tsc_to_ns(first->userpg, 300) +
			vperfctr_tsc_to_ns(first->userpg, 100));
	KUNIT_EXPECT_EQ(test, two->tsc_sum, 100);
	/* None of the first thread's 25: the counters were zeroed. */
	KUNIT_EXPECT_EQ(test, two->pmc[0].sum, 7);
	KUNIT_EXPECT_EQ(test, two->pmc[1].sum,
			2 * vperfctr_tsc_to_ns(second->userpg, 50));
	if (cs)
		KUNIT_EXPECT_EQ(test, two->pmc[2].sum, 2);
}

static unsigned int switch_first_to_second(struct kunit *test, bool cs,
					   bool restart)
{
	struct vperfctr_test_ctx *ctx = test->priv;
	struct vperfctr *first = ctx->perfctr;
	struct vperfctr *second = second_counting_thread(test, cs, restart);
	const struct perfctr_cpu_state *prev = NULL;
	unsigned int calls, first_calls, reads;
	unsigned long flags;
	bool counting;
	int cpu;

	local_irq_save(flags);
	cpu = smp_processor_id();
	ctx->tsc = 0;
	__perfctr_switch_thread(NULL, second);
	ctx->tsc = 50;
	first_calls = ctx->switch_calls;
	__perfctr_switch_thread(second, first);
	first_calls = ctx->switch_calls - first_calls;
	fake_count(ctx, 1, 20);
	irqs_off(vperfctr_sample(first));
	fake_count(ctx, 1, 5);
	ctx->tsc = 350;
	calls = ctx->switch_calls;
	reads = ctx->tsc_reads;
	__perfctr_switch_thread(first, second);
	calls = ctx->switch_calls - calls;
	if (calls)
		prev = ctx->switch_prev;
	reads = ctx->tsc_reads - reads;
	counting = ctx->enabled;
	fake_count(ctx, 1, 7);
	ctx->tsc = 400;
	__perfctr_switch_thread(second, first);
	fake_count(ctx, 1, 4);
	ctx->tsc = 500;
	__perfctr_switch_thread(first, NULL);
	local_irq_restore(flags);

	expect_switched_sums(test, first, second, cs);
	KUNIT_EXPECT_FALSE(test, vperfctr_is_oncpu(first));
	KUNIT_EXPECT_FALSE(test, vperfctr_is_oncpu(second));
	KUNIT_EXPECT_TRUE(test, counting);
	KUNIT_EXPECT_EQ(test, reads, 1);
	/* A first resume: the CPU recorded, no migration to count. */
	KUNIT_EXPECT_EQ(test, first_calls, calls);
	KUNIT_EXPECT_EQ(test, first->last_cpu, cpu);
	/* The driver stops what runs: the first thread's counters. */
	if (calls)
		KUNIT_EXPECT_PTR_EQ(test, prev, &first->userpg->cpu_state);
	vperfctr_put(second);
	return calls;
}

/*
 * A switch between two threads that count in accumulation mode only
 * hands the counters over in one driver call, and one clock read, with
 * the sums the general path gives.
 */
static void switch_hands_off_between_simple_controls(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, switch_first_to_second(test, false, false), 1);
}

/* Counting the switch itself takes the general path, with the same sums. */
static void switch_counted_takes_the_general_path(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, switch_first_to_second(test, true, false), 0);
}

/*
 * So do counters that restart at every resume (x86 TopDown's), whose
 * metrics are read with their slots, the counters stopped.
 */
static void restarting_counters_take_the_general_path(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, switch_first_to_second(test, false, true), 0);
}

/*
 * Nor does a thread whose counters run without user-mode reads: the
 * driver's switch relies on them granted.  No control leaves a thread
 * so while it runs; the flag is taken away here by hand.
 */
static void unreadable_counters_take_the_general_path(struct kunit *test)
{
	struct vperfctr_test_ctx *ctx = test->priv;
	struct vperfctr *first = ctx->perfctr, *second;
	struct vperfctr_control *control = new_control(test);
	struct perfctr_cpu_control *cc = &control->cpu_control;
	unsigned long flags;

	use_fake_pmu(test, 48);
	ctx->user_read_ok = true;
	cc->tsc_on = 1;
	cc->nractrs = 1;
	cc->pmc_map[0] = 1;
	second = second_thread(test, control);

	local_irq_save(flags);
	__perfctr_switch_thread(NULL, first);
	first->userpg->flags &= ~VPERFCTR_STATE_RDPMC;
	__perfctr_switch_thread(first, second);
	__perfctr_switch_thread(second, NULL);
	local_irq_restore(flags);

	KUNIT_EXPECT_EQ(test, ctx->switch_calls, 0);
	vperfctr_put(second);
}

/*
 * Nor does a control with an interrupt-mode counter, whose interrupt the
 * driver's switch does not disarm: the two threads run such a control.
 */
static void imode_counters_take_the_general_path(struct kunit *test)
{
	struct vperfctr_test_ctx *ctx = test->priv;
	struct vperfctr *first = ctx->perfctr, *second;
	struct vperfctr_control *control = new_control(test);
	struct perfctr_cpu_control *cc = &control->cpu_control;
	unsigned long flags;

	use_fake_pmu(test, 48);
	ctx->user_read_ok = true;
	control->si_signo = SIGIO;
	cc->tsc_on = 1;
	cc->nractrs = 1;
	cc->nrictrs = 1;
	cc->pmc_map[0] = 0;
	cc->pmc_map[1] = 1;
	cc->ireset[1] = -1000;
	second = second_thread(test, control);
	KUNIT_EXPECT_FALSE(test, first->setup.simple_switch);

	local_irq_save(flags);
	__perfctr_switch_thread(NULL, first);
	__perfctr_switch_thread(first, second);
	__perfctr_switch_thread(second, first);
	__perfctr_switch_thread(first, NULL);
	local_irq_restore(flags);

	KUNIT_EXPECT_EQ(test, ctx->switch_calls, 0);
	vperfctr_put(second);
}

/*
 * A system sleep stops the running thread's counters as a switch away
 * would, without counting a switch, and takes user-mode reads away; the
 * wake grants them again, which zeroes the counters, and starts them:
 * what the hardware held across the sleep is not counted, nor is the
 * time asleep.
 */
static void sleep_stops_and_wake_restarts_the_counters(struct kunit *test)
{
	struct vperfctr_test_ctx *ctx = test->priv;
	struct vperfctr *perfctr = ctx->perfctr;
	struct perfctr_cpu_state *state = &perfctr->userpg->cpu_state;
	struct vperfctr_control *control = new_control(test);
	struct perfctr_cpu_control *cc = &control->cpu_control;
	int asleep_read, awake_read;
	bool asleep_oncpu, awake_oncpu;
	unsigned long flags;

	use_fake_pmu(test, 48);
	ctx->user_read_ok = true;
	cc->tsc_on = 1;
	cc->nractrs = 2;
	cc->pmc_map[0] = 1;
	sw_control(control, 1, PERFCTR_SW_CONTEXT_SWITCHES, 0);
	KUNIT_ASSERT_EQ(test, vperfctr_check_control(control, false), 0);
	test_set_control(perfctr, control);

	local_irq_save(flags);
	ctx->tsc = 0;
	__perfctr_switch_thread(NULL, perfctr);
	fake_count(ctx, 1, 10);
	ctx->tsc = 100;
	irqs_off(vperfctr_sleep(perfctr));
	asleep_read = ctx->user_read;
	asleep_oncpu = vperfctr_is_oncpu(perfctr);
	ctx->hw[1] = 12345;
	ctx->tsc = 1000;
	irqs_off(vperfctr_wake(perfctr));
	awake_read = ctx->user_read;
	awake_oncpu = vperfctr_is_oncpu(perfctr);
	fake_count(ctx, 1, 5);
	ctx->tsc = 1050;
	__perfctr_switch_thread(perfctr, NULL);
	local_irq_restore(flags);

	KUNIT_EXPECT_EQ(test, asleep_read, 0);
	KUNIT_EXPECT_FALSE(test, asleep_oncpu);
	KUNIT_EXPECT_EQ(test, awake_read, 1);
	KUNIT_EXPECT_TRUE(test, awake_oncpu);
	KUNIT_EXPECT_EQ(test, state->tsc_sum, 150);
	KUNIT_EXPECT_EQ(test, state->pmc[0].sum, 15);
	/* The switch to no thread at the end, not the sleep. */
	KUNIT_EXPECT_EQ(test, state->pmc[1].sum, 1);
}

/*
 * The page's live words name exactly what a reader computes live: the
 * TSC and hardware counters in live, task-clock in live_clock, while
 * they run; nothing once suspended, and only the TSC once an
 * interrupt-mode overflow has stopped the counters.
 */
static void live_names_what_runs_and_nothing_else(struct kunit *test)
{
	struct vperfctr_test_ctx *ctx = test->priv;
	struct vperfctr_state *userpg = ctx->perfctr->userpg;
	struct vperfctr_control *control = new_control(test);
	struct perfctr_cpu_control *cc = &control->cpu_control;

	use_fake_pmu(test, 48);
	ctx->user_read_ok = true;
	cc->tsc_on = 1;
	cc->nractrs = 3;
	cc->pmc_map[0] = 1;
	sw_control(control, 1, PERFCTR_SW_TASK_CLOCK, 0);
	sw_control(control, 2, PERFCTR_SW_PAGE_FAULTS, PERFCTR_SW_USR);
	start_control(test, ctx->perfctr, control);
	KUNIT_EXPECT_EQ(test, userpg->live, VPERFCTR_LIVE_TSC | BIT(0));
	KUNIT_EXPECT_EQ(test, userpg->live_clock, BIT(1));

	test_suspend(ctx->perfctr);
	KUNIT_EXPECT_EQ(test, userpg->live, 0);
	KUNIT_EXPECT_EQ(test, userpg->live_clock, 0);

	/* An overflow stops the counters: only the TSC runs on. */
	irqs_off(vperfctr_overflow(ctx->perfctr, 0));
	test_resume(ctx->perfctr);
	KUNIT_EXPECT_EQ(test, userpg->live, VPERFCTR_LIVE_TSC);
	KUNIT_EXPECT_EQ(test, userpg->live_clock, 0);
}

/*
 * A hardware counter that user mode may not read is not live on the
 * page: its bit stays clear and VPERFCTR_LIVE_SYSCALL sends readers to
 * the system call.  task-clock is live all the same.
 */
static void live_sends_unreadable_hardware_to_the_syscall(struct kunit *test)
{
	struct vperfctr_test_ctx *ctx = test->priv;
	struct vperfctr_state *userpg = ctx->perfctr->userpg;
	struct vperfctr_control *control = new_control(test);
	struct perfctr_cpu_control *cc = &control->cpu_control;

	use_fake_pmu(test, 48);
	ctx->user_read_ok = false;
	cc->tsc_on = 1;
	cc->nractrs = 2;
	cc->pmc_map[0] = 1;
	sw_control(control, 1, PERFCTR_SW_TASK_CLOCK, 0);
	start_control(test, ctx->perfctr, control);
	KUNIT_EXPECT_EQ(test, userpg->live,
			VPERFCTR_LIVE_TSC | VPERFCTR_LIVE_SYSCALL);
	KUNIT_EXPECT_EQ(test, userpg->live_clock, BIT(1));

	test_suspend(ctx->perfctr);
	KUNIT_EXPECT_EQ(test, userpg->live, 0);

	/* Without hardware counters running, nothing is the kernel's. */
	irqs_off(vperfctr_overflow(ctx->perfctr, 0));
	test_resume(ctx->perfctr);
	KUNIT_EXPECT_EQ(test, userpg->live, VPERFCTR_LIVE_TSC);
}

/*
 * The owner's read computes the sums in place, from the page and the
 * running counters: the same sums a sample would fold, the page and the
 * counters left as they were.
 */
static void live_sums_are_what_a_sample_gives(struct kunit *test)
{
	struct vperfctr_test_ctx *ctx = test->priv;
	struct vperfctr_state *userpg = ctx->perfctr->userpg;
	struct vperfctr_control *control = new_control(test);
	struct perfctr_cpu_control *cc = &control->cpu_control;
	struct perfctr_sum_ctrs live, sampled;
	u32 seq;

	use_fake_pmu(test, 32);
	cc->tsc_on = 1;
	cc->nractrs = 3;
	cc->pmc_map[0] = 1;
	sw_control(control, 1, PERFCTR_SW_TASK_CLOCK, 0);
	sw_control(control, 2, PERFCTR_SW_PAGE_FAULTS, PERFCTR_SW_USR);
	ctx->tsc = 1000;
	ctx->hw[1] = 0xfffffff0;
	start_control(test, ctx->perfctr, control);
	userpg->cpu_state.pmc[2].sum = 7;
	ctx->tsc = 4000;
	fake_count(ctx, 1, 0x20);	/* wraps at 32 bits */

	seq = userpg->seq;
	irqs_off(vperfctr_get_live_sums(ctx->perfctr, &live));
	KUNIT_EXPECT_EQ(test, userpg->seq, seq);
	KUNIT_EXPECT_EQ(test, userpg->cpu_state.pmc[0].start, 0xfffffff0);

	irqs_off(vperfctr_sample(ctx->perfctr));
	vperfctr_get_sums(ctx->perfctr, &sampled);
	KUNIT_EXPECT_EQ(test, live.tsc, 3000);
	KUNIT_EXPECT_EQ(test, live.pmc[0], 0x20);
	KUNIT_EXPECT_EQ(test, live.pmc[2], 7);
	KUNIT_EXPECT_MEMEQ(test, &live, &sampled, sizeof(live));
}

static void sampling_timer_samples_when_it_expires(struct kunit *test)
{
	struct vperfctr_test_ctx *ctx = test->priv;
	struct vperfctr *perfctr = ctx->perfctr;
	struct perfctr_cpu_state *state = &perfctr->userpg->cpu_state;
	struct vperfctr_control *control = new_control(test);
	unsigned int i;

	use_fake_pmu(test, 32);
	control->cpu_control.nractrs = 1;
	start_control(test, perfctr, control);
	KUNIT_ASSERT_GT(test, perfctr->setup.sample_ticks, 0);

	for (i = 1; i < perfctr->setup.sample_ticks; i++) {
		fake_count(ctx, 0, 1000);
		irqs_off(__perfctr_sample_thread(perfctr));
	}
	KUNIT_EXPECT_EQ(test, state->pmc[0].sum, 0);
	fake_count(ctx, 0, 1000);
	irqs_off(__perfctr_sample_thread(perfctr));
	KUNIT_EXPECT_EQ(test, state->pmc[0].sum, 1000ULL * i);
	KUNIT_EXPECT_TRUE(test, vperfctr_is_oncpu(perfctr));
	KUNIT_EXPECT_EQ(test, perfctr->ticks_left, perfctr->setup.sample_ticks);
}

/*
 * The ticks a thread runs count towards its next sample across its
 * switches: the last of them samples, however often it was resumed.
 */
static void sampling_timer_counts_ticks_across_switches(struct kunit *test)
{
	struct vperfctr_test_ctx *ctx = test->priv;
	struct vperfctr *perfctr = ctx->perfctr;
	struct perfctr_cpu_state *state = &perfctr->userpg->cpu_state;
	struct vperfctr_control *control = new_control(test);
	unsigned int i;

	use_fake_pmu(test, 32);
	/* 1 GHz: 32 bits wrap in a fraction of a second, many ticks. */
	ctx->pmu.cpu_khz = 1000000;
	control->cpu_control.nractrs = 1;
	start_control(test, perfctr, control);
	KUNIT_ASSERT_GT(test, perfctr->setup.sample_ticks, 1);

	for (i = 1; i < perfctr->setup.sample_ticks; i++) {
		irqs_off(__perfctr_sample_thread(perfctr));
		test_suspend(perfctr);
		test_resume(perfctr);
	}
	fake_count(ctx, 0, 1000);
	KUNIT_EXPECT_EQ(test, state->pmc[0].sum, 0);
	irqs_off(__perfctr_sample_thread(perfctr));
	KUNIT_EXPECT_EQ(test, state->pmc[0].sum, 1000);
	KUNIT_EXPECT_EQ(test, perfctr->ticks_left, perfctr->setup.sample_ticks);
}

static void resume_on_forbidden_cpu_stops_and_flags_sigill(struct kunit *test)
{
	struct vperfctr_test_ctx *ctx = test->priv;
	struct vperfctr *perfctr = ctx->perfctr;
	struct vperfctr_control *control = new_control(test);
	unsigned int calls;
	unsigned long flags;
	int cpu;

	use_fake_pmu(test, 48);
	ctx->user_read_ok = true;
	control->cpu_control.nractrs = 1;
	KUNIT_ASSERT_EQ(test, vperfctr_check_control(control, false), 0);
	test_set_control(perfctr, control);

	local_irq_save(flags);
	cpu = smp_processor_id();
	/* Allowed everywhere, forbidden nowhere: resumes. */
	__perfctr_set_cpus_allowed(perfctr, cpu_possible_mask);
	KUNIT_EXPECT_FALSE(test, perfctr->bad_cpus_allowed);
	__perfctr_switch_thread(NULL, perfctr);
	KUNIT_EXPECT_TRUE(test, vperfctr_is_oncpu(perfctr));
	test_suspend(perfctr);

	cpumask_set_cpu(cpu, &perfctr_cpus_forbidden_mask);
	__perfctr_set_cpus_allowed(perfctr, cpu_possible_mask);
	KUNIT_EXPECT_TRUE(test, perfctr->bad_cpus_allowed);
	calls = ctx->user_read_calls;
	__perfctr_switch_thread(NULL, perfctr);
	cpumask_clear_cpu(cpu, &perfctr_cpus_forbidden_mask);
	local_irq_restore(flags);
	/*
	 * Its counters are not cleared for a user read first: the driver
	 * is asked only to take user reads away.
	 */
	KUNIT_EXPECT_EQ(test, ctx->user_read_calls, calls + 1);

	KUNIT_EXPECT_FALSE(test, vperfctr_is_oncpu(perfctr));
	KUNIT_EXPECT_EQ(test, perfctr->userpg->cpu_state.cstatus, 0);
	KUNIT_EXPECT_TRUE(test, perfctr->pending_sigill);
	/* Nor may the owner read the counters of a CPU that cannot count. */
	KUNIT_EXPECT_FALSE(test, perfctr->userpg->flags & VPERFCTR_STATE_RDPMC);
	KUNIT_EXPECT_EQ(test, ctx->user_read, 0);
}

/*
 * Counters a forbidden CPU stopped stay stopped: an interrupt-mode
 * overflow that was awaiting its restart is not restarted any more, and
 * no resume tells the owner it may read hardware counters in user mode.
 */
static void forbidden_cpu_stop_ends_the_overflow_restart(struct kunit *test)
{
	struct vperfctr_test_ctx *ctx = test->priv;
	struct vperfctr *perfctr = ctx->perfctr;
	struct vperfctr_state *userpg = perfctr->userpg;
	struct vperfctr_control *control = new_control(test);
	unsigned long flags;
	int cpu, err;
	u32 ovf;

	use_fake_pmu(test, 48);
	ctx->user_read_ok = true;
	control->si_signo = SIGIO;
	control->cpu_control.tsc_on = 1;
	control->cpu_control.nrictrs = 1;
	control->cpu_control.pmc_map[0] = 1;
	control->cpu_control.ireset[0] = -10;
	KUNIT_ASSERT_EQ(test, vperfctr_check_control(control, false), 0);
	test_set_control(perfctr, control);

	local_irq_save(flags);
	cpu = smp_processor_id();
	__perfctr_switch_thread(NULL, perfctr);
	fake_count(ctx, 1, 20);
	ovf = test_suspend(perfctr);
	irqs_off(vperfctr_overflow(perfctr, ovf));
	cpumask_set_cpu(cpu, &perfctr_cpus_forbidden_mask);
	__perfctr_set_cpus_allowed(perfctr, cpu_possible_mask);
	__perfctr_switch_thread(NULL, perfctr);
	cpumask_clear_cpu(cpu, &perfctr_cpus_forbidden_mask);
	__perfctr_set_cpus_allowed(perfctr, cpu_possible_mask);
	__perfctr_switch_thread(perfctr, NULL);
	err = vperfctr_ireload(perfctr);
	if (perfctr_cstatus_enabled(userpg->cpu_state.cstatus))
		__perfctr_switch_thread(NULL, perfctr);
	local_irq_restore(flags);

	KUNIT_EXPECT_EQ(test, ovf, BIT(0));
	KUNIT_EXPECT_TRUE(test, perfctr->pending_sigill);
	KUNIT_EXPECT_EQ(test, err, -EINVAL);
	KUNIT_EXPECT_EQ(test, userpg->cpu_state.cstatus, 0);
	KUNIT_EXPECT_FALSE(test, userpg->flags & VPERFCTR_STATE_OVERFLOW);
	KUNIT_EXPECT_EQ(test, userpg->live, 0);
	KUNIT_EXPECT_FALSE(test, vperfctr_is_oncpu(perfctr));
	if (vperfctr_is_oncpu(perfctr))
		test_suspend(perfctr);
}

static struct kunit_case perfctr_counting_cases[] = {
	KUNIT_CASE(restarting_counter_starts_from_zero_at_every_resume),
	KUNIT_CASE(restarting_counter_is_sampled_at_least_every_100ms),
	KUNIT_CASE(suspend_counts_only_time_on_cpu),
	KUNIT_CASE(sample_folds_count_and_keeps_running),
	KUNIT_CASE(tsc_delta_is_modular_across_wrap),
	KUNIT_CASE(every_update_moves_seq_and_leaves_it_even),
	KUNIT_CASE(hw_counter_delta_is_modular_at_counter_width),
	KUNIT_CASE(hw_counter_wraps_at_48_bits),
	KUNIT_CASE(rdpmc_follows_hardware_control_and_owner),
	KUNIT_CASE(user_read_stays_between_two_reading_threads),
	KUNIT_CASE(switch_reads_the_clock_once),
	KUNIT_CASE(resume_after_grant_takes_zero_unread),
	KUNIT_CASE(switch_hands_off_between_simple_controls),
	KUNIT_CASE(switch_counted_takes_the_general_path),
	KUNIT_CASE(restarting_counters_take_the_general_path),
	KUNIT_CASE(unreadable_counters_take_the_general_path),
	KUNIT_CASE(imode_counters_take_the_general_path),
	KUNIT_CASE(sleep_stops_and_wake_restarts_the_counters),
	KUNIT_CASE(live_names_what_runs_and_nothing_else),
	KUNIT_CASE(live_sends_unreadable_hardware_to_the_syscall),
	KUNIT_CASE(live_sums_are_what_a_sample_gives),
	KUNIT_CASE(sampling_timer_samples_when_it_expires),
	KUNIT_CASE(sampling_timer_counts_ticks_across_switches),
	KUNIT_CASE(resume_on_forbidden_cpu_stops_and_flags_sigill),
	KUNIT_CASE(forbidden_cpu_stop_ends_the_overflow_restart),
	{}
};

static struct kunit_suite perfctr_counting_suite = {
	.name = "perfctr_counting",
	.init = vperfctr_test_init,
	.exit = vperfctr_test_exit,
	.test_cases = perfctr_counting_cases,
};

kunit_test_suite(perfctr_counting_suite);
