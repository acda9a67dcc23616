// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of TopDown: the slots counter and PERF_METRICS on the
 * recorded processors that have them (Ice Lake, Sapphire Rapids, the
 * Alder Lake P-core) and on those that do not, the MSR writes that start
 * and stop them, the slot arithmetic, and the sums the core keeps of
 * them across many switches, samples, inheritance and propagation.
 *
 * The hardware is imitated at the MSR boundary: the slots counter counts
 * the slots a case runs, each of a known category, and PERF_METRICS
 * reads as each category's 8-bit share of the slots since both were
 * zeroed, as the SDM describes it.
 */
#include <kunit/static_stub.h>
#include <kunit/test.h>
#include <linux/bits.h>
#include <linux/irqflags.h>
#include <linux/prandom.h>
#include <linux/perfctr.h>

#include "perfctr.h"
#include "test_cpus.h"
#include "test_pmu.h"
#include "../../../kernel/perfctr/test_helpers.h"

#define MSR_SLOTS		0x30c	/* IA32_FIXED_CTR3 */
#define MSR_METRICS		0x329	/* PERF_METRICS */
#define MSR_FIXED_CTRL		0x38d
#define MSR_GLOBAL_CTRL		0x38f
#define GLOBAL_SLOTS		BIT_ULL(35)
#define GLOBAL_METRICS		BIT_ULL(48)
#define FIXED3_USR		(0x2ULL << 12)
#define FIXED3_OS		(0x1ULL << 12)
#define SLOTS_MAP		(PERFCTR_MAP_X86_FIXED | 3)
#define METRIC(k)		(PERFCTR_MAP_X86_METRIC | (k))

/* The imitated slots counter and what its slots were spent on. */
struct topdown_hw {
	u64 slots;
	u64 spent[PERFCTR_X86_TOPDOWN_NR];	/* since PERF_METRICS was 0 */
	bool counting;
};

static struct topdown_hw *hw(void)
{
	return ((struct program_test_ctx *)kunit_get_current_test()->priv)->hw;
}

/*
 * PERF_METRICS: each level 1 category's share in 1/255ths, rounded to
 * nearest, the last one taking what the others leave so the four make
 * 0xff; level 2 rounded to nearest.
 */
static u64 metrics_value(const struct topdown_hw *h)
{
	u64 value = 0, left = 0xff, byte;
	unsigned int k;

	if (!h->slots)
		return 0;
	for (k = 0; k < PERFCTR_X86_TOPDOWN_NR; k++) {
		byte = (h->spent[k] * 0xff + h->slots / 2) / h->slots;
		if (k < 4) {
			byte = k == 3 ? left : min(byte, left);
			left -= byte;
		}
		value |= byte << (8 * k);
	}
	return value;
}

static u64 topdown_rdmsr(u32 msr)
{
	struct program_test_ctx *c = kunit_get_current_test()->priv;

	c->last_read = msr;
	if (msr == MSR_SLOTS)
		return hw()->slots;
	if (msr == MSR_METRICS)
		return metrics_value(hw());
	return 0x1234;
}

static void topdown_wrmsr(u32 msr, u64 value)
{
	struct program_test_ctx *c = kunit_get_current_test()->priv;
	struct topdown_hw *h = hw();

	if (c->nr_writes < MAX_WRITES) {
		c->writes[c->nr_writes].msr = msr;
		c->writes[c->nr_writes].value = value;
	}
	c->nr_writes++;
	if (msr == MSR_SLOTS)
		h->slots = value;
	else if (msr == MSR_METRICS && !value)
		memset(h->spent, 0, sizeof(h->spent));
	else if (msr == MSR_GLOBAL_CTRL)
		h->counting = value & GLOBAL_SLOTS;
}

/* Run @n slots: @l1 of them per level 1 category, @l2 per level 2. */
static void run_slots(const u64 l1[4], const u64 l2[4])
{
	struct topdown_hw *h = hw();
	unsigned int k;

	if (!h->counting)
		return;
	for (k = 0; k < 4; k++) {
		h->slots += l1[k];
		h->spent[k] += l1[k];
		h->spent[k + 4] += l2 ? l2[k] : 0;
	}
}

static int topdown_test_init(struct kunit *test)
{
	struct program_test_ctx *c;
	int err = x86_perfctr_test_init(test);

	if (err)
		return err;
	c = test->priv;
	c->hw = kunit_kzalloc(test, sizeof(struct topdown_hw), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, c->hw);
	kunit_activate_static_stub(test, x86_perfctr_rdmsr, topdown_rdmsr);
	kunit_activate_static_stub(test, x86_perfctr_wrmsr, topdown_wrmsr);
	return 0;
}

static void use_cpu(struct kunit *test, enum x86_perfctr_test_cpu_id id)
{
	struct program_test_ctx *c = test->priv;

	x86_perfctr_active_desc = cpu_desc(test, id);
	memset(&c->control, 0, sizeof(c->control));
}

/* Slots and the level 1 categories, all in user mode. */
static void add_level1(struct program_test_ctx *c)
{
	unsigned int k;

	add(c, SLOTS_MAP, SEL_USR, 0);
	for (k = 0; k < 4; k++)
		add(c, METRIC(k), SEL_USR, 0);
}

/* Which recorded processors have which metric counters. */
static void metric_counters_follow_the_processor(struct kunit *test)
{
	static const struct {
		enum x86_perfctr_test_cpu_id id;
		unsigned int nr;
	} cpus[] = {
		{ TEST_CPU_ICELAKE, 4 },
		{ TEST_CPU_SAPPHIRE_RAPIDS, 8 },
		{ TEST_CPU_ALDER_LAKE_P, 8 },
		{ TEST_CPU_ALDER_LAKE_E, 0 },
		{ TEST_CPU_SKYLAKE, 0 },
		{ TEST_CPU_QEMU_TCG, 0 },
	};
	struct program_test_ctx *c = test->priv;
	unsigned int i, k;
	bool restarts;

	for (i = 0; i < ARRAY_SIZE(cpus); i++) {
		use_cpu(test, cpus[i].id);
		KUNIT_EXPECT_EQ(test, x86_perfctr_active_desc->pmu.nrmetrics, cpus[i].nr);
		KUNIT_EXPECT_EQ(test, !!(x86_perfctr_active_desc->pmu.features &
					 PERFCTR_FEATURE_TOPDOWN), cpus[i].nr > 0);
		for (k = 0; k < PERFCTR_X86_TOPDOWN_NR; k++) {
			int err = arch_perfctr_check_counter(METRIC(k), SEL_USR,
							     0, false);

			KUNIT_EXPECT_EQ_MSG(test, err,
					    k < cpus[i].nr ? 0 : -EINVAL,
					    "%s, metric %u",
					    x86_perfctr_test_cpus[cpus[i].id].name,
					    k);
		}
		/* The slots counter restarts where metrics divide it. */
		memset(&c->control, 0, sizeof(c->control));
		add(c, SLOTS_MAP, SEL_USR, 0);
		restarts = arch_perfctr_counter_restarts(SLOTS_MAP, &c->control);
		KUNIT_EXPECT_FALSE(test, restarts);
		add(c, METRIC(0), SEL_USR, 0);
		restarts = arch_perfctr_counter_restarts(SLOTS_MAP, &c->control);
		KUNIT_EXPECT_EQ(test, restarts, cpus[i].nr > 0);
		restarts = arch_perfctr_counter_restarts(METRIC(0), &c->control);
		KUNIT_EXPECT_EQ(test, restarts, cpus[i].nr > 0);
	}
	use_cpu(test, TEST_CPU_ALDER_LAKE_P);
	KUNIT_EXPECT_EQ(test, arch_perfctr_check_counter(SLOTS_MAP, SEL_USR, 0,
							 false), 0);
	KUNIT_EXPECT_EQ(test, arch_perfctr_counter_width(METRIC(0)), 64);
	KUNIT_EXPECT_EQ(test, arch_perfctr_counter_width(SLOTS_MAP), 48);
}

/* Metric counter @k with @evntsel, a-mode or preset to @ireset. */
static int check_metric(u32 k, u64 evntsel, s64 ireset, bool allow_kernel)
{
	return arch_perfctr_check_counter(METRIC(k), evntsel, ireset,
					  allow_kernel);
}

static void metric_counter_selectors_and_modes(struct kunit *test)
{
	use_cpu(test, TEST_CPU_ICELAKE);
	KUNIT_EXPECT_EQ(test, check_metric(1, SEL_USR | SEL_OS, 0, true), 0);
	/* Kernel mode needs the privilege; one of the modes is needed. */
	KUNIT_EXPECT_EQ(test, check_metric(1, SEL_OS, 0, false), -EACCES);
	KUNIT_EXPECT_EQ(test, check_metric(1, 0, 0, true), -EINVAL);
	/* No event, AnyThread, enable or interrupt bit: only the modes. */
	KUNIT_EXPECT_EQ(test, check_metric(1, SEL_USR | 0xc0, 0, true), -EINVAL);
	KUNIT_EXPECT_EQ(test, check_metric(1, SEL_USR | SEL_ANY, 0, true),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, check_metric(1, SEL_USR | SEL_EN, 0, true),
			-EINVAL);
	/* Accumulation mode only. */
	KUNIT_EXPECT_EQ(test, check_metric(1, SEL_USR, -1000, true), -EINVAL);
	/* Past the categories there are. */
	KUNIT_EXPECT_EQ(test, check_metric(8, SEL_USR, 0, true), -EINVAL);
	KUNIT_EXPECT_EQ(test, check_metric(0x1000, SEL_USR, 0, true), -EINVAL);
}

/*
 * The slots counter and the metrics share fixed counter 3's field: one
 * mode for them all, checked on the whole control.  The slots counter
 * may interrupt, but not where metrics restart it under its preset.
 */
static void slots_users_count_in_one_mode(struct kunit *test)
{
	struct program_test_ctx *c = test->priv;
	struct x86_perfctr_desc *no_metrics;

	use_cpu(test, TEST_CPU_SAPPHIRE_RAPIDS);
	add_level1(c);
	add(c, 0, SEL_USR | SEL_OS | INST_RETIRED, 0);
	KUNIT_EXPECT_EQ(test, check(c, true), 0);
	c->control.evntsel[3] = SEL_USR | SEL_OS;
	KUNIT_EXPECT_EQ(test, check(c, true), -EINVAL);
	c->control.evntsel[3] = SEL_USR;
	c->control.evntsel[0] = SEL_OS;
	KUNIT_EXPECT_EQ(test, check(c, true), -EINVAL);

	use_cpu(test, TEST_CPU_SAPPHIRE_RAPIDS);
	add(c, METRIC(0), SEL_USR, 0);
	add(c, SLOTS_MAP, SEL_USR, -1000);
	KUNIT_EXPECT_EQ(test, check(c, true), -EINVAL);
	use_cpu(test, TEST_CPU_SAPPHIRE_RAPIDS);
	add(c, SLOTS_MAP, SEL_USR, -1000);
	KUNIT_EXPECT_EQ(test, check(c, true), 0);
	/* Without the metrics, the slots counter is a fixed counter. */
	use_cpu(test, TEST_CPU_ICELAKE);
	no_metrics = kunit_kmalloc(test, sizeof(*no_metrics), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, no_metrics);
	*no_metrics = *x86_perfctr_active_desc;
	no_metrics->perf_metrics = 0;
	no_metrics->pmu.nrmetrics = 0;
	x86_perfctr_active_desc = no_metrics;
	add(c, SLOTS_MAP, SEL_USR, 0);
	add(c, METRIC(0), SEL_USR, 0);
	KUNIT_EXPECT_EQ(test, check(c, true), -EINVAL);
	KUNIT_EXPECT_FALSE(test, arch_perfctr_counter_restarts(SLOTS_MAP,
							       &c->control));
}

/*
 * Enable zeroes the slots counter, then PERF_METRICS, before it starts
 * them with fixed counter 3's field and both global bits; disable stops
 * them.  A control without them touches neither.
 */
static void enable_zeroes_slots_then_metrics_and_starts_both(struct kunit *test)
{
	static const struct msr_write on[] = {
		{ MSR_SLOTS, 0 }, { MSR_METRICS, 0 },
		{ MSR_FIXED_CTRL, FIXED3_USR },
		{ MSR_GLOBAL_CTRL, GLOBAL_SLOTS | GLOBAL_METRICS },
	};
	static const struct msr_write off[] = {
		{ MSR_GLOBAL_CTRL, 0 }, { MSR_FIXED_CTRL, 0 },
	};
	static const struct msr_write gp_on[] = {
		{ 0x186, SEL_EN | SEL_USR | SEL_OS | INST_RETIRED },
		{ MSR_GLOBAL_CTRL, BIT_ULL(0) },
	};
	struct program_test_ctx *c = test->priv;

	use_cpu(test, TEST_CPU_ICELAKE);
	add_level1(c);
	KUNIT_ASSERT_EQ(test, check(c, false), 0);
	setup_state(c);
	enable(c);
	expect_writes(test, on, ARRAY_SIZE(on));
	disable(c);
	expect_writes(test, off, ARRAY_SIZE(off));

	/* The metrics alone still run the slots counter. */
	use_cpu(test, TEST_CPU_ICELAKE);
	add(c, METRIC(2), SEL_USR, 0);
	setup_state(c);
	enable(c);
	expect_writes(test, on, ARRAY_SIZE(on));
	disable(c);
	c->nr_writes = 0;

	use_cpu(test, TEST_CPU_ICELAKE);
	add(c, 0, SEL_USR | SEL_OS | INST_RETIRED, 0);
	setup_state(c);
	enable(c);
	expect_writes(test, gp_on, ARRAY_SIZE(gp_on));
	disable(c);
	disarm(c);
}

/*
 * rdpmc shows a thread no counts but its own: the slots counter and
 * PERF_METRICS that another thread ran are zeroed, in that order.
 */
static void user_read_zeroes_slots_then_metrics(struct kunit *test)
{
	struct program_test_ctx *c = test->priv;
	unsigned int i, slots = 0, metrics = 0;

	use_cpu(test, TEST_CPU_ICELAKE);
	add(c, METRIC(0), SEL_USR, 0);
	setup_state(c);
	irqs_off(arch_perfctr_user_read(true));	/* clean since the reservation */
	enable(c);
	disable(c);
	c->nr_writes = 0;
	irqs_off(arch_perfctr_user_read(true));
	for (i = 0; i < min(c->nr_writes, MAX_WRITES); i++) {
		if (c->writes[i].msr == MSR_SLOTS)
			slots = i + 1;
		if (c->writes[i].msr == MSR_METRICS)
			metrics = i + 1;
	}
	KUNIT_EXPECT_NE(test, slots, 0);
	KUNIT_EXPECT_GT(test, metrics, slots);
	disarm(c);
}

/*
 * The level 1 categories of any interval add up to its slots, to the
 * slot; each is within one slot of its exact share; level 2 never
 * exceeds its level 1 category.
 */
static void level1_categories_add_up_to_the_slots(struct kunit *test)
{
	struct rnd_state rnd;
	unsigned int n, k;

	/* 0x40, 0x40, 0x3f, 0x40 of 1000 slots: 250, 251, 248, 251. */
	KUNIT_EXPECT_EQ(test, perfctr_x86_topdown_slots(1000, 0x403f4040, 0),
			250);
	KUNIT_EXPECT_EQ(test, perfctr_x86_topdown_slots(1000, 0x403f4040, 1),
			251);
	KUNIT_EXPECT_EQ(test, perfctr_x86_topdown_slots(1000, 0x403f4040, 2),
			248);
	KUNIT_EXPECT_EQ(test, perfctr_x86_topdown_slots(1000, 0x403f4040, 3),
			251);
	/* No share to go by: nothing. */
	KUNIT_EXPECT_EQ(test, perfctr_x86_topdown_slots(1000, 0, 0), 0);
	KUNIT_EXPECT_EQ(test, perfctr_x86_topdown_slots(1000, 0xff, 8), 0);

	prandom_seed_state(&rnd, 20261124);
	for (n = 0; n < 10000; n++) {
		u64 slots = prandom_u32_state(&rnd) |
			    (u64)(prandom_u32_state(&rnd) & 0xffff) << 32;
		u64 metrics = prandom_u32_state(&rnd) |
			      (u64)prandom_u32_state(&rnd) << 32;
		u64 total = 0, sum = 0;

		if (n & 1)
			slots >>= n % 40;
		for (k = 0; k < 4; k++)
			total += (metrics >> (8 * k)) & 0xff;
		if (!total) {
			for (k = 0; k < PERFCTR_X86_TOPDOWN_NR; k++)
				sum |= perfctr_x86_topdown_slots(slots, metrics,
								 k);
			KUNIT_EXPECT_EQ(test, sum, 0);
			continue;
		}
		for (k = 0; k < 4; k++) {
			u64 v = perfctr_x86_topdown_slots(slots, metrics, k);
			u64 l2 = perfctr_x86_topdown_slots(slots, metrics, k + 4);
			u64 exact = slots * ((metrics >> (8 * k)) & 0xff);

			sum += v;
			/* |v * total - exact| < total */
			KUNIT_EXPECT_LT(test, v * total, exact + total);
			KUNIT_EXPECT_LT(test, exact, v * total + total);
			KUNIT_EXPECT_LE(test, l2, v);
		}
		KUNIT_ASSERT_EQ_MSG(test, sum, slots,
				    "slots %llu metrics %#llx", slots, metrics);
	}
}

static struct vperfctr *new_state(struct kunit *test,
				  const struct perfctr_cpu_control *cc)
{
	struct vperfctr_control *control;
	struct vperfctr *perfctr;

	control = kunit_kzalloc(test, sizeof(*control), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, control);
	control->cpu_control = *cc;
	KUNIT_ASSERT_EQ(test, vperfctr_check_control(control, false), 0);
	perfctr = vperfctr_alloc();
	KUNIT_ASSERT_NOT_NULL(test, perfctr);
	test_set_control(perfctr, control);
	return perfctr;
}

/* Switch @perfctr in, run @l1 (and @l2) slots, switch it out. */
static void run_period(struct vperfctr *perfctr, const u64 l1[4],
		       const u64 l2[4], bool sample)
{
	unsigned long flags;

	local_irq_save(flags);
	test_resume(perfctr);
	run_slots(l1, l2);
	if (sample) {
		irqs_off(vperfctr_sample(perfctr));
		run_slots(l1, l2);
	}
	test_suspend(perfctr);
	local_irq_restore(flags);
}

/*
 * Many switches and samples: every period's slots are added whole, each
 * category's sum is the sum of its shares of the periods, and the level
 * 1 sums add up to the slots counter's sum exactly, however many periods.
 */
static void many_switches_lose_no_slot(struct kunit *test)
{
	struct program_test_ctx *c = test->priv;
	const struct perfctr_pmc_state *pmc;
	u64 want[PERFCTR_X86_TOPDOWN_NR] = {}, slots = 0, sum;
	struct vperfctr *perfctr;
	struct rnd_state rnd;
	unsigned int n, k;

	use_cpu(test, TEST_CPU_SAPPHIRE_RAPIDS);
	add_level1(c);
	for (k = 4; k < 8; k++)
		add(c, METRIC(k), SEL_USR, 0);
	perfctr = new_state(test, &c->control);
	KUNIT_EXPECT_EQ(test, perfctr->setup.restart_pmcs, GENMASK(8, 0));
	KUNIT_EXPECT_GE(test, perfctr->setup.sample_ticks, 1);
	pmc = perfctr->userpg->cpu_state.pmc;

	prandom_seed_state(&rnd, 18);
	for (n = 0; n < 2000; n++) {
		u64 l1[4], l2[4], period = 0;
		bool sample = n % 7 == 0;

		for (k = 0; k < 4; k++) {
			l1[k] = prandom_u32_state(&rnd) % 100000;
			l2[k] = l1[k] / (1 + k + n % 3);
			period += l1[k];
		}
		run_period(perfctr, l1, l2, sample);
		/* What the hardware shows for one run of these slots. */
		hw()->slots = 0;
		memset(hw()->spent, 0, sizeof(hw()->spent));
		hw()->counting = true;
		run_slots(l1, l2);
		for (k = 0; k < 8; k++)
			want[k] += (sample ? 2 : 1) *
				perfctr_x86_topdown_slots(period,
							  metrics_value(hw()),
							  k);
		hw()->counting = false;
		slots += (sample ? 2 : 1) * period;
	}
	KUNIT_EXPECT_EQ(test, pmc[0].sum, slots);
	for (k = 0, sum = 0; k < 8; k++) {
		KUNIT_EXPECT_EQ_MSG(test, pmc[1 + k].sum, want[k], "metric %u",
				    k);
		if (k < 4)
			sum += pmc[1 + k].sum;
	}
	KUNIT_EXPECT_EQ(test, sum, slots);
	vperfctr_put(perfctr);
	disarm(c);
}

/*
 * While the owner runs, the kernel's read (vperfctr_read()) adds each
 * category's share of the live slots to its sum; the counters run on.
 */
static void live_read_adds_the_running_share(struct kunit *test)
{
	/* Shares a byte tells exactly: 153, 51, 26 and 25 of 255. */
	static const u64 l1[4] = { 612, 204, 104, 100 };
	struct program_test_ctx *c = test->priv;
	struct perfctr_sum_ctrs *sum;
	struct vperfctr *perfctr;
	unsigned long flags;
	unsigned int k;

	sum = kunit_kzalloc(test, sizeof(*sum), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, sum);
	use_cpu(test, TEST_CPU_ICELAKE);
	add_level1(c);
	perfctr = new_state(test, &c->control);
	run_period(perfctr, l1, NULL, false);

	local_irq_save(flags);
	test_resume(perfctr);
	run_slots(l1, NULL);
	irqs_off(vperfctr_get_live_sums(perfctr, sum));
	KUNIT_EXPECT_TRUE(test, hw()->counting);
	test_suspend(perfctr);
	local_irq_restore(flags);

	KUNIT_EXPECT_EQ(test, sum->pmc[0], 2040);
	for (k = 0; k < 4; k++)
		KUNIT_EXPECT_EQ(test, sum->pmc[1 + k], 2 * l1[k]);
	vperfctr_put(perfctr);
	disarm(c);
}

/*
 * A child inherits the metric counters, restarting as its parent's, and
 * its sums reach the parent's children sums when it is reaped.
 */
static void metric_sums_are_inherited_and_propagated(struct kunit *test)
{
	/* 128, 64, 32 and 31 of 255. */
	static const u64 l1[4] = { 512, 256, 128, 124 };
	struct program_test_ctx *c = test->priv;
	struct vperfctr *parent, *child;
	unsigned int k;

	use_cpu(test, TEST_CPU_ALDER_LAKE_P);
	add_level1(c);
	parent = new_state(test, &c->control);
	child = vperfctr_inherit(parent);
	KUNIT_ASSERT_NOT_NULL(test, child);
	KUNIT_EXPECT_EQ(test, child->setup.restart_pmcs, parent->setup.restart_pmcs);
	run_period(child, l1, NULL, false);
	run_period(child, l1, NULL, true);
	vperfctr_propagate(child);
	KUNIT_EXPECT_EQ(test, parent->children.pmc[0], 3060);
	for (k = 0; k < 4; k++)
		KUNIT_EXPECT_EQ(test, parent->children.pmc[1 + k], 3 * l1[k]);
	KUNIT_EXPECT_EQ(test, parent->userpg->cpu_state.pmc[0].sum, 0);
	vperfctr_put(child);
	vperfctr_put(parent);
	disarm(c);
}

static struct kunit_case perfctr_x86_topdown_cases[] = {
	KUNIT_CASE(metric_counters_follow_the_processor),
	KUNIT_CASE(metric_counter_selectors_and_modes),
	KUNIT_CASE(slots_users_count_in_one_mode),
	KUNIT_CASE(enable_zeroes_slots_then_metrics_and_starts_both),
	KUNIT_CASE(user_read_zeroes_slots_then_metrics),
	KUNIT_CASE(level1_categories_add_up_to_the_slots),
	KUNIT_CASE(many_switches_lose_no_slot),
	KUNIT_CASE(live_read_adds_the_running_share),
	KUNIT_CASE(metric_sums_are_inherited_and_propagated),
	{}
};

static struct kunit_suite perfctr_x86_topdown_suite = {
	.name = "perfctr_x86_topdown",
	.init = topdown_test_init,
	.test_cases = perfctr_x86_topdown_cases,
};

kunit_test_suite(perfctr_x86_topdown_suite);
