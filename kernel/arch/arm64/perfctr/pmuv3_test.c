// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of the arm64 PMUv3 driver.
 *
 * perfctr_arm64_pmuv3: every register write of the driver, checked against
 * the PMUv3 register layouts of the Arm ARM, with the registers replaced
 * by static stubs (a made-up PMU of six 32-bit event counters and the
 * cycle counter).
 *
 * perfctr_arm64_pmu_exact: the real PMU, where there is one: the core and
 * the driver count a kernel loop, with interrupts off, across the wrap of
 * a counter.  On an exactly counting PMU (QEMU with -icount) every count
 * is exact.
 */
#include <kunit/static_stub.h>
#include <kunit/test.h>
#include <linux/bits.h>
#include <linux/cpumask.h>
#include <linux/irqflags.h>
#include <linux/perf/arm_pmuv3.h>
#include <linux/sched.h>
#include <linux/perfctr_pmu.h>

#include "perfctr.h"
#include "../../../kernel/perfctr/internal.h"

#define FAKE_NRCTRS	6

/* ID_AA64DFR0_EL1.PMUVer values, as the Arm ARM numbers them. */
#define PMUVER_NI	0x0	/* no PMU */
#define PMUVER_V3	0x1
#define PMUVER_V3P4	0x5
#define PMUVER_V3P5	0x6
#define PMUVER_IMP_DEF	0xf	/* IMPLEMENTATION DEFINED, not PMUv3 */
#define MAX_WRITES	64

struct pmu_write {
	enum perfctr_pmu_reg reg;
	unsigned int n;
	u64 value;
};

struct pmuv3_test_ctx {
	struct perfctr_cpu_desc desc;
	struct pmu_write writes[MAX_WRITES];
	unsigned int nr_writes;
	u64 ovs;		/* what PMOVSCLR_EL0 reads as */
	unsigned int overflow_calls;
};

static struct pmuv3_test_ctx *ctx(void)
{
	return kunit_get_current_test()->priv;
}

static const struct perfctr_cpu_desc *fake_desc(void)
{
	return &ctx()->desc;
}

static void fake_write(enum perfctr_pmu_reg reg, unsigned int n, u64 value)
{
	struct pmuv3_test_ctx *c = ctx();

	if (c->nr_writes < MAX_WRITES)
		c->writes[c->nr_writes++] = (struct pmu_write){ reg, n, value };
}

static u64 fake_read(enum perfctr_pmu_reg reg, unsigned int n)
{
	return reg == PERFCTR_PMOVSCLR ? ctx()->ovs : 0;
}

static void fake_overflow_interrupt(void)
{
	ctx()->overflow_calls++;
}

static int pmuv3_test_init(struct kunit *test)
{
	struct pmuv3_test_ctx *c;
	int cpu;

	c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, c);
	test->priv = c;
	perfctr_cpu_describe(&c->desc, PMUVER_V3,
			     FIELD_PREP(ARMV8_PMU_PMCR_N, FAKE_NRCTRS));
	kunit_activate_static_stub(test, perfctr_cpu_active_desc, fake_desc);
	kunit_activate_static_stub(test, perfctr_pmu_write, fake_write);
	kunit_activate_static_stub(test, perfctr_pmu_read, fake_read);
	kunit_activate_static_stub(test, perfctr_overflow_interrupt,
				   fake_overflow_interrupt);
	/*
	 * The driver keeps per-CPU bits: the whole test on one CPU.  The
	 * test runs in a kernel thread of its own, which ends with it.
	 */
	cpu = raw_smp_processor_id();
	KUNIT_ASSERT_EQ(test, set_cpus_allowed_ptr(current, cpumask_of(cpu)), 0);
	perfctr_cpu_reset();
	c->nr_writes = 0;
	return 0;
}

static void expect_writes(struct kunit *test, const struct pmu_write *want,
			  unsigned int n)
{
	struct pmuv3_test_ctx *c = test->priv;
	unsigned int i;

	KUNIT_ASSERT_EQ(test, c->nr_writes, n);
	for (i = 0; i < n; i++) {
		KUNIT_EXPECT_EQ_MSG(test, c->writes[i].reg, want[i].reg,
				    "write %u", i);
		KUNIT_EXPECT_EQ_MSG(test, c->writes[i].n, want[i].n,
				    "write %u", i);
		KUNIT_EXPECT_EQ_MSG(test, c->writes[i].value, want[i].value,
				    "write %u", i);
	}
	c->nr_writes = 0;
}

static void describe_pmuv3_32bit(struct kunit *test)
{
	struct perfctr_cpu_desc d = {};

	perfctr_cpu_describe(&d, PMUVER_V3P4,
			     FIELD_PREP(ARMV8_PMU_PMCR_N, 6) | ARMV8_PMU_PMCR_E);
	KUNIT_EXPECT_STREQ(test, d.pmu.name, "arm64 PMUv3");
	KUNIT_EXPECT_EQ(test, d.pmu.cpu_type, PERFCTR_ARM64_PMUV3);
	KUNIT_EXPECT_EQ(test, d.pmu.nrctrs, 6);
	KUNIT_EXPECT_EQ(test, d.pmu.ctr_width, 32);
	KUNIT_EXPECT_EQ(test, d.pmu.nrfixed, 1);
	KUNIT_EXPECT_EQ(test, d.pmu.fixed_width, 64);
	KUNIT_EXPECT_EQ(test, d.pmu.features, PERFCTR_FEATURE_RDTSC |
			PERFCTR_FEATURE_RDPMC | PERFCTR_FEATURE_PCINT);
}

static void describe_pmuv3p5_64bit(struct kunit *test)
{
	struct perfctr_cpu_desc d = {};

	perfctr_cpu_describe(&d, PMUVER_V3P5,
			     FIELD_PREP(ARMV8_PMU_PMCR_N, 20));
	KUNIT_EXPECT_EQ(test, d.pmu.nrctrs, 20);
	KUNIT_EXPECT_EQ(test, d.pmu.ctr_width, 64);
}

static void describe_no_pmuv3_is_timer_only(struct kunit *test)
{
	static const u32 pmuvers[] = { PMUVER_NI,
				       PMUVER_IMP_DEF };
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(pmuvers); i++) {
		struct perfctr_cpu_desc d = {};

		perfctr_cpu_describe(&d, pmuvers[i],
				     FIELD_PREP(ARMV8_PMU_PMCR_N, 6));
		KUNIT_EXPECT_STREQ(test, d.pmu.name, "arm64 timer");
		KUNIT_EXPECT_EQ(test, d.pmu.cpu_type, PERFCTR_ARM64_GENERIC);
		KUNIT_EXPECT_EQ(test, d.pmu.nrctrs + d.pmu.nrfixed, 0);
		KUNIT_EXPECT_EQ(test, d.pmu.features, PERFCTR_FEATURE_RDTSC);
	}
}

#define INST_RETIRED	0x08
#define USER_ONLY	PERFCTR_ARM64_EXCLUDE_EL1

static void one_counter(struct perfctr_cpu_control *cc, u32 map, u64 evntsel)
{
	memset(cc, 0, sizeof(*cc));
	cc->nractrs = 1;
	cc->pmc_map[0] = map;
	cc->evntsel[0] = evntsel;
}

/* The whole control, as vperfctr_control() checks it. */
static int check_cpu_control(const struct perfctr_cpu_control *cc,
			     bool allow_kernel)
{
	struct vperfctr_control control = {
		.cpu_control = *cc,
		.si_signo = SIGIO,
	};

	return vperfctr_check_control(&control, allow_kernel);
}

static void check_control_rules(struct kunit *test)
{
	struct perfctr_cpu_control cc;

	one_counter(&cc, 0, INST_RETIRED | USER_ONLY);
	KUNIT_EXPECT_EQ(test, check_cpu_control(&cc, false), 0);
	one_counter(&cc, FAKE_NRCTRS - 1, INST_RETIRED | USER_ONLY);
	KUNIT_EXPECT_EQ(test, check_cpu_control(&cc, false), 0);
	one_counter(&cc, FAKE_NRCTRS, INST_RETIRED | USER_ONLY);
	KUNIT_EXPECT_EQ(test, check_cpu_control(&cc, false), -EINVAL);
	one_counter(&cc, PERFCTR_MAP_ARM64_CYCLES, 0x11 | USER_ONLY);
	KUNIT_EXPECT_EQ(test, check_cpu_control(&cc, false), 0);
	/* The cycle counter counts cycles and nothing else. */
	one_counter(&cc, PERFCTR_MAP_ARM64_CYCLES, INST_RETIRED | USER_ONLY);
	KUNIT_EXPECT_EQ(test, check_cpu_control(&cc, false), -EINVAL);
	/* The EL2, Secure/Non-secure and MT filter bits are the driver's. */
	one_counter(&cc, 0, INST_RETIRED | USER_ONLY | ARMV8_PMU_INCLUDE_EL2);
	KUNIT_EXPECT_EQ(test, check_cpu_control(&cc, true), -EINVAL);
	one_counter(&cc, 0, INST_RETIRED | USER_ONLY | BIT(25));
	KUNIT_EXPECT_EQ(test, check_cpu_control(&cc, true), -EINVAL);
	one_counter(&cc, 0, INST_RETIRED | USER_ONLY | BIT_ULL(32));
	KUNIT_EXPECT_EQ(test, check_cpu_control(&cc, true), -EINVAL);
	one_counter(&cc, 0, INST_RETIRED | PERFCTR_ARM64_EXCLUDE_EL1 |
			    PERFCTR_ARM64_EXCLUDE_EL0);
	KUNIT_EXPECT_EQ(test, check_cpu_control(&cc, true), -EINVAL);
	/* Counting EL1 needs the privilege. */
	one_counter(&cc, 0, INST_RETIRED);
	KUNIT_EXPECT_EQ(test, check_cpu_control(&cc, false), -EACCES);
	KUNIT_EXPECT_EQ(test, check_cpu_control(&cc, true), 0);
	one_counter(&cc, 0, INST_RETIRED | PERFCTR_ARM64_EXCLUDE_EL0);
	KUNIT_EXPECT_EQ(test, check_cpu_control(&cc, false), -EACCES);
}

static void check_control_counters(struct kunit *test)
{
	struct perfctr_cpu_control cc = {};
	unsigned int i;

	/* Every event counter and the cycle counter at once. */
	for (i = 0; i < FAKE_NRCTRS; i++) {
		cc.pmc_map[i] = i;
		cc.evntsel[i] = INST_RETIRED | USER_ONLY;
	}
	cc.pmc_map[i] = PERFCTR_MAP_ARM64_CYCLES;
	cc.evntsel[i] = 0x11 | USER_ONLY;
	cc.nractrs = FAKE_NRCTRS + 1;
	KUNIT_EXPECT_EQ(test, check_cpu_control(&cc, false), 0);
	/* One more is one too many. */
	cc.pmc_map[FAKE_NRCTRS + 1] = PERFCTR_MAP_SOFTWARE |
				      PERFCTR_SW_TASK_CLOCK;
	cc.nractrs++;
	KUNIT_EXPECT_EQ(test, check_cpu_control(&cc, false), 0);
	cc.pmc_map[FAKE_NRCTRS + 1] = 0;
	cc.evntsel[FAKE_NRCTRS + 1] = INST_RETIRED | USER_ONLY;
	KUNIT_EXPECT_EQ(test, check_cpu_control(&cc, false), -EINVAL);
	/* The same counter twice. */
	memset(&cc, 0, sizeof(cc));
	cc.nractrs = 2;
	cc.pmc_map[0] = 3;
	cc.pmc_map[1] = 3;
	cc.evntsel[0] = INST_RETIRED | USER_ONLY;
	cc.evntsel[1] = INST_RETIRED | USER_ONLY;
	KUNIT_EXPECT_EQ(test, check_cpu_control(&cc, false), -EINVAL);
}

static void check_control_imode(struct kunit *test)
{
	struct perfctr_cpu_control cc;

	one_counter(&cc, 0, INST_RETIRED | USER_ONLY);
	cc.nractrs = 0;
	cc.nrictrs = 1;
	cc.ireset[0] = -(s64)BIT_ULL(31);
	KUNIT_EXPECT_EQ(test, check_cpu_control(&cc, false), 0);
	/* More than half a 32-bit counter's range. */
	cc.ireset[0] = -(s64)BIT_ULL(31) - 1;
	KUNIT_EXPECT_EQ(test, check_cpu_control(&cc, false), -EINVAL);
	cc.ireset[0] = 0;
	KUNIT_EXPECT_EQ(test, check_cpu_control(&cc, false), -EINVAL);
	/* The 64-bit cycle counter takes any negative reset value. */
	cc.pmc_map[0] = PERFCTR_MAP_ARM64_CYCLES;
	cc.evntsel[0] = 0x11 | USER_ONLY;
	cc.ireset[0] = -(s64)BIT_ULL(40);
	KUNIT_EXPECT_EQ(test, check_cpu_control(&cc, false), 0);
	/* Without the overflow interrupt, no interrupt mode. */
	ctx()->desc.pmu.features &= ~PERFCTR_FEATURE_PCINT;
	KUNIT_EXPECT_EQ(test, check_cpu_control(&cc, false), -EINVAL);
}

static void check_control_timer_only(struct kunit *test)
{
	struct perfctr_cpu_control cc;

	perfctr_cpu_describe(&ctx()->desc, PMUVER_NI, 0);
	one_counter(&cc, 0, INST_RETIRED | USER_ONLY);
	KUNIT_EXPECT_EQ(test, check_cpu_control(&cc, false), -EINVAL);
	one_counter(&cc, PERFCTR_MAP_ARM64_CYCLES, 0x11 | USER_ONLY);
	KUNIT_EXPECT_EQ(test, check_cpu_control(&cc, false), -EINVAL);
	one_counter(&cc, PERFCTR_MAP_SOFTWARE | PERFCTR_SW_TASK_CLOCK, 0);
	KUNIT_EXPECT_EQ(test, check_cpu_control(&cc, false), 0);
}

/* Counter 0 a-mode instructions on event counter 2, counter 1 i-mode cycles. */
static void two_counters(struct perfctr_cpu_control *cc,
			 struct perfctr_cpu_state *state)
{
	memset(cc, 0, sizeof(*cc));
	memset(state, 0, sizeof(*state));
	cc->nractrs = 1;
	cc->nrictrs = 1;
	cc->pmc_map[0] = 2;
	cc->evntsel[0] = INST_RETIRED | USER_ONLY;
	cc->pmc_map[1] = PERFCTR_MAP_ARM64_CYCLES;
	cc->evntsel[1] = 0x11 | USER_ONLY;
	cc->ireset[1] = -100000;
	state->cstatus = (1 << 16) | 1;
	state->pmc[0].map = 2;
	state->pmc[1].map = PERFCTR_MAP_ARM64_CYCLES;
}

static void enable_programs_types_then_starts(struct kunit *test)
{
	struct perfctr_cpu_control cc;
	struct perfctr_cpu_state state;
	const struct pmu_write want[] = {
		{ PERFCTR_PMEVTYPER, 2, INST_RETIRED | USER_ONLY },
		{ PERFCTR_PMCCFILTR, 0, USER_ONLY },
		{ PERFCTR_PMINTENSET, 0, BIT(31) },
		{ PERFCTR_PMCNTENSET, 0, BIT(31) | BIT(2) },
	};

	two_counters(&cc, &state);
	arch_perfctr_enable(&state, &cc);
	expect_writes(test, want, ARRAY_SIZE(want));
}

static void disable_stops_disarms_and_clears(struct kunit *test)
{
	struct perfctr_cpu_control cc;
	struct perfctr_cpu_state state;
	const struct pmu_write want[] = {
		{ PERFCTR_PMCNTENCLR, 0, BIT(31) | BIT(2) },
		{ PERFCTR_PMINTENCLR, 0, BIT(31) },
		{ PERFCTR_PMOVSCLR, 0, BIT(31) | BIT(2) },
	};

	two_counters(&cc, &state);
	arch_perfctr_enable(&state, &cc);
	ctx()->nr_writes = 0;
	arch_perfctr_disable(&state);
	expect_writes(test, want, ARRAY_SIZE(want));
}

static void irq_acks_only_armed_counters(struct kunit *test)
{
	struct perfctr_cpu_control cc;
	struct perfctr_cpu_state state;
	const struct pmu_write want[] = {
		{ PERFCTR_PMOVSCLR, 0, BIT(31) },
	};

	two_counters(&cc, &state);
	arch_perfctr_enable(&state, &cc);
	ctx()->nr_writes = 0;
	/* The a-mode counter's flag is not this interrupt's business. */
	ctx()->ovs = BIT(31) | BIT(2);
	KUNIT_EXPECT_EQ(test, perfctr_cpu_pmu_irq(0, NULL), IRQ_HANDLED);
	expect_writes(test, want, ARRAY_SIZE(want));
	KUNIT_EXPECT_EQ(test, ctx()->overflow_calls, 1);
}

static void irq_after_disable_is_not_ours(struct kunit *test)
{
	struct perfctr_cpu_control cc;
	struct perfctr_cpu_state state;

	two_counters(&cc, &state);
	arch_perfctr_enable(&state, &cc);
	arch_perfctr_disable(&state);
	ctx()->nr_writes = 0;
	ctx()->ovs = BIT(31);
	KUNIT_EXPECT_EQ(test, perfctr_cpu_pmu_irq(0, NULL), IRQ_NONE);
	KUNIT_EXPECT_EQ(test, ctx()->nr_writes, 0);
	KUNIT_EXPECT_EQ(test, ctx()->overflow_calls, 0);
}

static void user_read_zeroes_used_counters(struct kunit *test)
{
	struct perfctr_cpu_control cc;
	struct perfctr_cpu_state state;
	const struct pmu_write grant[] = {
		{ PERFCTR_PMEVCNTR, 2, 0 },
		{ PERFCTR_PMCCNTR, 0, 0 },
		{ PERFCTR_PMUSERENR, 0, ARMV8_PMU_USERENR_ER |
					 ARMV8_PMU_USERENR_CR },
	};
	const struct pmu_write regrant[] = {
		{ PERFCTR_PMUSERENR, 0, ARMV8_PMU_USERENR_ER |
					 ARMV8_PMU_USERENR_CR },
	};
	const struct pmu_write revoke[] = {
		{ PERFCTR_PMUSERENR, 0, 0 },
	};

	two_counters(&cc, &state);
	arch_perfctr_enable(&state, &cc);
	arch_perfctr_disable(&state);
	ctx()->nr_writes = 0;
	arch_perfctr_user_read(true);
	expect_writes(test, grant, ARRAY_SIZE(grant));
	/* Nothing counted since: nothing to zero. */
	arch_perfctr_user_read(true);
	expect_writes(test, regrant, ARRAY_SIZE(regrant));
	arch_perfctr_user_read(false);
	expect_writes(test, revoke, ARRAY_SIZE(revoke));
}

static void reset_stops_everything(struct kunit *test)
{
	const struct pmu_write want[] = {
		{ PERFCTR_PMCNTENCLR, 0, BIT(31) | GENMASK(5, 0) },
		{ PERFCTR_PMINTENCLR, 0, BIT(31) | GENMASK(5, 0) },
		{ PERFCTR_PMOVSCLR, 0, BIT(31) | GENMASK(5, 0) },
		{ PERFCTR_PMUSERENR, 0, 0 },
		{ PERFCTR_PMCR, 0, ARMV8_PMU_PMCR_E | ARMV8_PMU_PMCR_P |
				   ARMV8_PMU_PMCR_C | ARMV8_PMU_PMCR_LC },
	};

	perfctr_cpu_reset();
	expect_writes(test, want, ARRAY_SIZE(want));
	/* PMUv3p5: 64-bit event counters. */
	perfctr_cpu_describe(&ctx()->desc, PMUVER_V3P5,
			     FIELD_PREP(ARMV8_PMU_PMCR_N, FAKE_NRCTRS));
	perfctr_cpu_reset();
	KUNIT_ASSERT_EQ(test, ctx()->nr_writes, 5);
	KUNIT_EXPECT_TRUE(test, ctx()->writes[4].value & ARMV8_PMU_PMCR_LP);
}

/* PMCR_EL0.N = 0: the cycle counter alone is reset. */
static void reset_with_no_event_counter(struct kunit *test)
{
	const struct pmu_write want[] = {
		{ PERFCTR_PMCNTENCLR, 0, BIT(31) },
		{ PERFCTR_PMINTENCLR, 0, BIT(31) },
		{ PERFCTR_PMOVSCLR, 0, BIT(31) },
		{ PERFCTR_PMUSERENR, 0, 0 },
		{ PERFCTR_PMCR, 0, ARMV8_PMU_PMCR_E | ARMV8_PMU_PMCR_P |
				   ARMV8_PMU_PMCR_C | ARMV8_PMU_PMCR_LC },
	};

	perfctr_cpu_describe(&ctx()->desc, PMUVER_V3, 0);
	KUNIT_ASSERT_EQ(test, ctx()->desc.pmu.nrctrs, 0);
	KUNIT_ASSERT_EQ(test, ctx()->desc.pmu.nrfixed, 1);
	ctx()->nr_writes = 0;
	perfctr_cpu_reset();
	expect_writes(test, want, ARRAY_SIZE(want));
}

static struct kunit_case pmuv3_test_cases[] = {
	KUNIT_CASE(describe_pmuv3_32bit),
	KUNIT_CASE(describe_pmuv3p5_64bit),
	KUNIT_CASE(describe_no_pmuv3_is_timer_only),
	KUNIT_CASE(check_control_rules),
	KUNIT_CASE(check_control_counters),
	KUNIT_CASE(check_control_imode),
	KUNIT_CASE(check_control_timer_only),
	KUNIT_CASE(enable_programs_types_then_starts),
	KUNIT_CASE(disable_stops_disarms_and_clears),
	KUNIT_CASE(irq_acks_only_armed_counters),
	KUNIT_CASE(irq_after_disable_is_not_ours),
	KUNIT_CASE(user_read_zeroes_used_counters),
	KUNIT_CASE(reset_stops_everything),
	KUNIT_CASE(reset_with_no_event_counter),
	{}
};

static struct kunit_suite pmuv3_test_suite = {
	.name = "perfctr_arm64_pmuv3",
	.init = pmuv3_test_init,
	.test_cases = pmuv3_test_cases,
};

/* The real PMU. */

/* n turns of ten instructions: eight nops, a subtract and a branch. */
static noinline void loop10(unsigned long n)
{
	if (n)
		asm volatile("1:\n\t"
			     "nop\n\tnop\n\tnop\n\tnop\n\t"
			     "nop\n\tnop\n\tnop\n\tnop\n\t"
			     "subs %0, %0, #1\n\t"
			     "b.ne 1b"
			     : "+r" (n) : : "cc");
}

/*
 * The kernel instructions retired by loop10(@n), counted by the core on
 * event counter 0 preset to @preset, with interrupts off.
 */
static u64 count_loop(struct kunit *test, unsigned long n, u64 preset)
{
	struct vperfctr_control control = {};
	struct perfctr_cpu_control *cc = &control.cpu_control;
	struct perfctr_sum_ctrs sum;
	struct vperfctr *perfctr;
	unsigned long flags;

	perfctr = vperfctr_alloc();
	KUNIT_ASSERT_NOT_NULL(test, perfctr);
	cc->nractrs = 1;
	cc->pmc_map[0] = 0;
	cc->evntsel[0] = INST_RETIRED | PERFCTR_ARM64_EXCLUDE_EL0;
	KUNIT_ASSERT_EQ(test, vperfctr_check_control(&control, true), 0);
	vperfctr_set_control(perfctr, &control);

	local_irq_save(flags);
	arch_perfctr_write_counter(0, preset);
	vperfctr_resume(perfctr);
	loop10(n);
	vperfctr_suspend(perfctr);
	local_irq_restore(flags);

	vperfctr_get_sums(perfctr, &sum);
	vperfctr_put(perfctr);
	return sum.pmc[0];
}

static int pmu_exact_test_init(struct kunit *test)
{
	if (perfctr_cpu_desc.pmu.cpu_type != PERFCTR_ARM64_PMUV3)
		kunit_skip(test, "the PMU is not perfctr's");
	return 0;
}

static void exact_ten_per_turn(struct kunit *test)
{
	u64 base = count_loop(test, 0, 0);

	KUNIT_EXPECT_EQ(test, count_loop(test, 1000, 0) - base, 10000);
	KUNIT_EXPECT_EQ(test, count_loop(test, 100000, 0) - base, 1000000);
}

static void exact_across_the_wrap(struct kunit *test)
{
	u32 width = perfctr_cpu_desc.pmu.ctr_width;
	u64 top = width >= 64 ? 0 : BIT_ULL(width);
	u64 straight = count_loop(test, 100000, 0);

	/* Preset half the loop below the wrap point: it crosses it. */
	KUNIT_EXPECT_EQ(test, count_loop(test, 100000, top - straight / 2),
			straight);
	KUNIT_EXPECT_EQ(test, count_loop(test, 100000, top - 1), straight);
}

static struct kunit_case pmu_exact_test_cases[] = {
	KUNIT_CASE(exact_ten_per_turn),
	KUNIT_CASE(exact_across_the_wrap),
	{}
};

static struct kunit_suite pmu_exact_test_suite = {
	.name = "perfctr_arm64_pmu_exact",
	.init = pmu_exact_test_init,
	.test_cases = pmu_exact_test_cases,
};

kunit_test_suites(&pmuv3_test_suite, &pmu_exact_test_suite);
