// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of the arm64 PMUv3 driver against made-up PMUs: the
 * description made of what perf's driver found, the control rules, the
 * claim from perf, and every register write of resume, suspend, EL0
 * access, taking a CPU's counters from perf and the interrupt, checked
 * against the PMUv3 register layouts of the Arm ARM.
 *
 * The registers, the description and the claim are static stubs: unless
 * a case says otherwise, a PMU of six 32-bit event counters and the cycle
 * counter, claimed from perf.  The PMUs of the description cases are rows
 * of a table.
 */
#include <kunit/static_stub.h>
#include <kunit/test.h>
#include <linux/bitfield.h>
#include <linux/bits.h>
#include <linux/cpumask.h>
#include <linux/irqflags.h>
#include <linux/perf/arm_pmu.h>
#include <linux/perf/arm_pmuv3.h>
#include <linux/perfctr_pmu.h>
#include <linux/sched.h>
#include <linux/string.h>

#include "perfctr.h"
#include "../../../kernel/perfctr/internal.h"

#define FAKE_NRCTRS	6
/* Its every counter, as bits of PMCNTENSET_EL0. */
#define FAKE_ALL	(BIT(31) | GENMASK(FAKE_NRCTRS - 1, 0))
#define MAX_WRITES	64

#define INST_RETIRED	ARMV8_PMUV3_PERFCTR_INST_RETIRED
#define CPU_CYCLES	ARMV8_PMUV3_PERFCTR_CPU_CYCLES
#define USER_ONLY	PERFCTR_ARM64_EXCLUDE_EL1

/* ID_AA64DFR0_EL1.PMUVer values, as the Arm ARM numbers them. */
#define PMUVER_V3	0x1
#define PMUVER_V3P4	0x5
#define PMUVER_V3P5	0x6
#define PMUVER_V3P9	0x9
#define PMUVER_IMP_DEF	0xf	/* IMPLEMENTATION DEFINED, not PMUv3 */

/* PMCR_EL0 of a PMU with @n event counters. */
#define PMCR_N(n)	FIELD_PREP_CONST(ARMV8_PMU_PMCR_N, n)

struct pmu_write {
	enum pmuv3_reg reg;
	unsigned int n;
	u64 value;
};

struct pmuv3_test_ctx {
	struct pmuv3_desc desc;
	struct pmu_write writes[MAX_WRITES];
	unsigned int nr_writes;
	u64 ovs;		/* what PMOVSCLR_EL0 reads as */
	unsigned int overflow_calls;
	int claim_err;		/* what claiming from perf returns */
	unsigned int claims, unclaims;
	struct arm_pmu armpmu;	/* what perf's driver found */
	struct perfctr_plan plan;
};

static struct pmuv3_test_ctx *ctx(void)
{
	return kunit_get_current_test()->priv;
}

/* The boot description back in place, at the end of every test. */
static void restore_active_desc(void *desc)
{
	pmuv3_active_desc = desc;
}

static void fake_write(enum pmuv3_reg reg, unsigned int n, u64 value)
{
	struct pmuv3_test_ctx *c = ctx();

	if (c->nr_writes < MAX_WRITES)
		c->writes[c->nr_writes++] = (struct pmu_write){ reg, n, value };
}

static u64 fake_read(enum pmuv3_reg reg, unsigned int n)
{
	if (reg == PMUV3_PMCR)
		return PMCR_N(FAKE_NRCTRS);
	return reg == PMUV3_PMOVSCLR ? ctx()->ovs : 0;
}

static void fake_overflow_interrupt(void)
{
	ctx()->overflow_calls++;
}

static int fake_claim(void)
{
	ctx()->claims++;
	return ctx()->claim_err;
}

static void fake_unclaim(void)
{
	ctx()->unclaims++;
}

/* What perf's driver finds of a PMU with @n event counters, in @armpmu. */
static const struct arm_pmu *fake_armpmu(struct arm_pmu *armpmu, u32 pmuver,
					 u32 n)
{
	memset(armpmu, 0, sizeof(*armpmu));
	armpmu->pmuver = pmuver;
	bitmap_set(armpmu->cntr_mask, 0, n);
	set_bit(ARMV8_PMU_CYCLE_IDX, armpmu->cntr_mask);
	return armpmu;
}

/*
 * The driver's per-CPU calls, with interrupts off as the core makes them
 * (__switch_to(), or local_irq_save() around a control); the plan is
 * made first, as the core makes it when the control is set.
 */
static void enable_irqs_off(const struct perfctr_cpu_control *cc)
{
	arch_perfctr_prepare(cc, &ctx()->plan);
	local_irq_disable();
	arch_perfctr_enable(&ctx()->plan);
	local_irq_enable();
}

static void disable_irqs_off(const struct perfctr_cpu_state *state)
{
	local_irq_disable();
	arch_perfctr_disable(state);
	local_irq_enable();
}

static void user_read_irqs_off(bool allow)
{
	local_irq_disable();
	arch_perfctr_user_read(allow);
	local_irq_enable();
}

static int pmuv3_test_init(struct kunit *test)
{
	struct pmuv3_test_ctx *c;
	int cpu, err;

	c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, c);
	test->priv = c;
	pmuv3_describe(&c->desc,
		       fake_armpmu(&c->armpmu, PMUVER_V3, FAKE_NRCTRS));
	err = kunit_add_action_or_reset(test, restore_active_desc,
					(void *)pmuv3_active_desc);
	KUNIT_ASSERT_EQ(test, err, 0);
	pmuv3_active_desc = &c->desc;
	kunit_activate_static_stub(test, pmuv3_write_reg, fake_write);
	kunit_activate_static_stub(test, pmuv3_read_reg, fake_read);
	kunit_activate_static_stub(test, pmuv3_claim, fake_claim);
	kunit_activate_static_stub(test, pmuv3_unclaim, fake_unclaim);
	kunit_activate_static_stub(test, perfctr_overflow_interrupt,
				   fake_overflow_interrupt);
	/*
	 * The driver keeps per-CPU bits: the whole test on one CPU.  The
	 * test runs in a kernel thread of its own, which ends with it.
	 */
	cpu = raw_smp_processor_id();
	KUNIT_ASSERT_EQ(test, set_cpus_allowed_ptr(current, cpumask_of(cpu)), 0);
	/* Claimed, and this CPU's counters taken, as a control would. */
	KUNIT_ASSERT_EQ(test, arch_perfctr_reserve(), 0);
	user_read_irqs_off(true);
	user_read_irqs_off(false);
	c->nr_writes = 0;
	c->claims = 0;
	return 0;
}

static void pmuv3_test_exit(struct kunit *test)
{
	arch_perfctr_release();
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

/* What the core is told of a PMUv3 with @n event counters of @width bits. */
#define PMUV3(n, width) {						\
	.name = "arm64 PMUv3", .cpu_type = PERFCTR_ARM64_PMUV3,		\
	.nrctrs = (n), .ctr_width = (width),				\
	.nrfixed = 1, .fixed_width = 64,				\
	.features = PERFCTR_FEATURE_RDTSC | PERFCTR_FEATURE_RDPMC |	\
		    PERFCTR_FEATURE_PCINT,				\
}

/* ... and of a machine without one. */
#define TIMER_ONLY {							\
	.name = "arm64 timer", .cpu_type = PERFCTR_ARM64_GENERIC,	\
	.features = PERFCTR_FEATURE_RDTSC,				\
}

struct describe_case {
	const char *name;
	bool found;		/* perf found a PMU on the CPU */
	u32 pmuver;		/* its ID_AA64DFR0_EL1.PMUVer */
	u32 nrctrs;		/* its event counters, PMCR_EL0.N */
	struct perfctr_pmu want;
};

static const struct describe_case describe_cases[] = {
	{ "PMUv3p4, 6 counters", true, PMUVER_V3P4, 6, PMUV3(6, 32) },
	{ "PMUv3p5, 20 counters", true, PMUVER_V3P5, 20, PMUV3(20, 64) },
	{ "PMUv3p9, 31 counters", true, PMUVER_V3P9, 31, PMUV3(31, 64) },
	{ "PMUv3, the cycle counter alone", true, PMUVER_V3, 0,
	  PMUV3(0, 32) },
	/* As QEMU 7.2 has them: PMCR_EL0.N = 6 on both. */
	{ "QEMU -cpu cortex-a57", true, PMUVER_V3, 6, PMUV3(6, 32) },
	{ "QEMU -cpu max", true, PMUVER_V3P5, 6, PMUV3(6, 64) },
	{ "no PMU found by perf", false, 0, 0, TIMER_ONLY },
	/* Apple's, say: perf drives it, but it is not PMUv3. */
	{ "IMPLEMENTATION DEFINED PMU", true, PMUVER_IMP_DEF, 10,
	  TIMER_ONLY },
};

KUNIT_ARRAY_PARAM_DESC(describe_cases, describe_cases, name);

static void describe_from_perfs_pmu(struct kunit *test)
{
	const struct describe_case *p = test->param_value;
	struct pmuv3_desc d = {
		.pmu = { .cpu_khz = 1, .tsc_khz = 2 },
	};
	const struct arm_pmu *found = NULL;

	if (p->found)
		found = fake_armpmu(&ctx()->armpmu, p->pmuver, p->nrctrs);
	pmuv3_describe(&d, found);
	KUNIT_EXPECT_STREQ(test, d.pmu.name, p->want.name);
	KUNIT_EXPECT_EQ(test, d.pmu.cpu_type, p->want.cpu_type);
	KUNIT_EXPECT_EQ(test, d.pmu.nrctrs, p->want.nrctrs);
	KUNIT_EXPECT_EQ(test, d.pmu.ctr_width, p->want.ctr_width);
	KUNIT_EXPECT_EQ(test, d.pmu.nrfixed, p->want.nrfixed);
	KUNIT_EXPECT_EQ(test, d.pmu.fixed_width, p->want.fixed_width);
	KUNIT_EXPECT_EQ(test, d.pmu.features, p->want.features);
	KUNIT_EXPECT_EQ(test, d.pmuver,
			p->want.nrfixed ? p->pmuver : 0);
	/* Left to the caller. */
	KUNIT_EXPECT_EQ(test, d.pmu.cpu_khz, 1);
	KUNIT_EXPECT_EQ(test, d.pmu.tsc_khz, 2);
}

/*
 * A CPU counts for a control only with a PMUv3 of the described width and
 * at least the described counters; the others are forbidden.
 */
static void cpu_can_count_what_is_described(struct kunit *test)
{
	const struct pmuv3_desc *d = &ctx()->desc;	/* PMUv3, 6 of 32 bits */
	struct arm_pmu *a = &ctx()->armpmu;

	fake_armpmu(a, PMUVER_V3, FAKE_NRCTRS);
	KUNIT_EXPECT_TRUE(test, pmuv3_cpu_can_count(d, a));
	fake_armpmu(a, PMUVER_V3P4, FAKE_NRCTRS + 2);
	KUNIT_EXPECT_TRUE(test, pmuv3_cpu_can_count(d, a));
	fake_armpmu(a, PMUVER_V3, FAKE_NRCTRS - 1);
	KUNIT_EXPECT_FALSE(test, pmuv3_cpu_can_count(d, a));
	/* 64-bit event counters where 32-bit ones are described. */
	fake_armpmu(a, PMUVER_V3P5, FAKE_NRCTRS);
	KUNIT_EXPECT_FALSE(test, pmuv3_cpu_can_count(d, a));
	fake_armpmu(a, PMUVER_IMP_DEF, FAKE_NRCTRS);
	KUNIT_EXPECT_FALSE(test, pmuv3_cpu_can_count(d, a));
	KUNIT_EXPECT_FALSE(test, pmuv3_cpu_can_count(d, NULL));
}

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
	one_counter(&cc, PERFCTR_MAP_ARM64_CYCLES, CPU_CYCLES | USER_ONLY);
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
	cc.evntsel[i] = CPU_CYCLES | USER_ONLY;
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
	cc.evntsel[0] = CPU_CYCLES | USER_ONLY;
	cc.ireset[0] = -(s64)BIT_ULL(40);
	KUNIT_EXPECT_EQ(test, check_cpu_control(&cc, false), 0);
	/* Without the overflow interrupt, no interrupt mode. */
	ctx()->desc.pmu.features &= ~PERFCTR_FEATURE_PCINT;
	KUNIT_EXPECT_EQ(test, check_cpu_control(&cc, false), -EINVAL);
}

static void check_control_timer_only(struct kunit *test)
{
	struct perfctr_cpu_control cc;

	pmuv3_describe(&ctx()->desc, NULL);
	one_counter(&cc, 0, INST_RETIRED | USER_ONLY);
	KUNIT_EXPECT_EQ(test, check_cpu_control(&cc, false), -EINVAL);
	one_counter(&cc, PERFCTR_MAP_ARM64_CYCLES, CPU_CYCLES | USER_ONLY);
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
	cc->evntsel[1] = CPU_CYCLES | USER_ONLY;
	cc->ireset[1] = -100000;
	state->cstatus = (1 << 16) | 1;
	state->pmc[0].map = 2;
	state->pmc[1].map = PERFCTR_MAP_ARM64_CYCLES;
}

/* PMCR_EL0 as enable sets it: counting, the cycle counter at 64 bits. */
#define PMCR_32		(ARMV8_PMU_PMCR_E | ARMV8_PMU_PMCR_LC)

/*
 * two_counters() enabled: the cycle counter's filter and the event
 * counter's type, then PMCR_EL0 as @pmcr, then start.
 */
static void expect_two_counters_enabled(struct kunit *test, u64 pmcr)
{
	struct perfctr_cpu_control cc;
	struct perfctr_cpu_state state;
	const struct pmu_write want[] = {
		{ PMUV3_PMCCFILTR, 0, USER_ONLY },
		{ PMUV3_PMEVTYPER, 2, INST_RETIRED | USER_ONLY },
		{ PMUV3_PMINTENSET, 0, BIT(31) },
		{ PMUV3_PMCR, 0, pmcr },
		{ PMUV3_PMCNTENSET, 0, BIT(31) | BIT(2) },
	};

	two_counters(&cc, &state);
	enable_irqs_off(&cc);
	expect_writes(test, want, ARRAY_SIZE(want));
}

static void enable_programs_types_then_starts(struct kunit *test)
{
	expect_two_counters_enabled(test, PMCR_32);
}

/* Event counters of 64 bits: PMCR_EL0.LP too. */
static void enable_sets_long_event_counters(struct kunit *test)
{
	pmuv3_describe(&ctx()->desc,
		       fake_armpmu(&ctx()->armpmu, PMUVER_V3P5, FAKE_NRCTRS));
	expect_two_counters_enabled(test, PMCR_32 | ARMV8_PMU_PMCR_LP);
}

/*
 * Which counters run is the CPU's to know: disable stops what the last
 * enable started, from a bookkeeping the overflow interrupt shares, even
 * if the state no longer says which; a second disable has nothing left
 * to stop.
 */
static void disable_stops_disarms_and_clears(struct kunit *test)
{
	struct perfctr_cpu_control cc;
	struct perfctr_cpu_state state;
	const struct pmu_write want[] = {
		{ PMUV3_PMCNTENCLR, 0, BIT(31) | BIT(2) },
		{ PMUV3_PMINTENCLR, 0, BIT(31) },
		{ PMUV3_PMOVSCLR, 0, BIT(31) | BIT(2) },
		{ PMUV3_PMCNTENCLR, 0, 0 },
		{ PMUV3_PMOVSCLR, 0, 0 },
	};

	two_counters(&cc, &state);
	enable_irqs_off(&cc);
	ctx()->nr_writes = 0;
	state.cstatus = 0;
	disable_irqs_off(&state);
	disable_irqs_off(&state);
	expect_writes(test, want, ARRAY_SIZE(want));
}

static void irq_acks_only_armed_counters(struct kunit *test)
{
	struct perfctr_cpu_control cc;
	struct perfctr_cpu_state state;
	const struct pmu_write want[] = {
		{ PMUV3_PMOVSCLR, 0, BIT(31) },
	};

	two_counters(&cc, &state);
	enable_irqs_off(&cc);
	ctx()->nr_writes = 0;
	/* The a-mode counter's flag is not this interrupt's business. */
	ctx()->ovs = BIT(31) | BIT(2);
	KUNIT_EXPECT_EQ(test, pmuv3_overflow_irq(NULL), IRQ_HANDLED);
	expect_writes(test, want, ARRAY_SIZE(want));
	KUNIT_EXPECT_EQ(test, ctx()->overflow_calls, 1);
}

static void irq_after_disable_is_not_ours(struct kunit *test)
{
	struct perfctr_cpu_control cc;
	struct perfctr_cpu_state state;

	two_counters(&cc, &state);
	enable_irqs_off(&cc);
	disable_irqs_off(&state);
	ctx()->nr_writes = 0;
	ctx()->ovs = BIT(31);
	KUNIT_EXPECT_EQ(test, pmuv3_overflow_irq(NULL), IRQ_NONE);
	KUNIT_EXPECT_EQ(test, ctx()->nr_writes, 0);
	KUNIT_EXPECT_EQ(test, ctx()->overflow_calls, 0);
}

/*
 * PMCR_EL0 as a grant sets it to zero every counter at once: P for the
 * event counters, C for the cycle counter.
 */
#define PMCR_ZERO	(PMCR_32 | ARMV8_PMU_PMCR_P | ARMV8_PMU_PMCR_C)

static void user_read_zeroes_used_counters(struct kunit *test)
{
	struct perfctr_cpu_control cc;
	struct perfctr_cpu_state state;
	const struct pmu_write grant[] = {
		{ PMUV3_PMCR, 0, PMCR_ZERO },
		{ PMUV3_PMUSERENR, 0, ARMV8_PMU_USERENR_ER |
				      ARMV8_PMU_USERENR_CR },
	};
	const struct pmu_write regrant[] = {
		{ PMUV3_PMUSERENR, 0, ARMV8_PMU_USERENR_ER |
				      ARMV8_PMU_USERENR_CR },
	};
	const struct pmu_write revoke[] = {
		{ PMUV3_PMUSERENR, 0, 0 },
	};

	two_counters(&cc, &state);
	enable_irqs_off(&cc);
	disable_irqs_off(&state);
	ctx()->nr_writes = 0;
	user_read_irqs_off(true);
	expect_writes(test, grant, ARRAY_SIZE(grant));
	/* Nothing counted since: nothing to zero. */
	user_read_irqs_off(true);
	expect_writes(test, regrant, ARRAY_SIZE(regrant));
	user_read_irqs_off(false);
	expect_writes(test, revoke, ARRAY_SIZE(revoke));
}

/* arch_perfctr_switch() to @cc's plan, as a hand-off makes it. */
static void switch_irqs_off(const struct perfctr_cpu_state *prev,
			    const struct perfctr_cpu_control *cc)
{
	struct perfctr_plan plan;

	arch_perfctr_prepare(cc, &plan);
	local_irq_disable();
	arch_perfctr_switch(prev, NULL, &plan);
	local_irq_enable();
}

/*
 * A hand-off from a-mode instructions on event counter 2 to a-mode
 * cycles stops the one, writes the other's filter, and zeroes all with
 * the PMCR_EL0 write that enable makes anyway.  EL0 may read the
 * counters before and after: PMUSERENR_EL0 is not written.
 */
static void switch_hands_off_in_one_pmcr_write(struct kunit *test)
{
	struct perfctr_cpu_control *cc = kunit_kzalloc(test, sizeof(*cc),
						       GFP_KERNEL);
	struct perfctr_cpu_state *state = kunit_kzalloc(test, sizeof(*state),
							GFP_KERNEL);
	static const struct pmu_write want[] = {
		{ PMUV3_PMCNTENCLR, 0, BIT(2) },
		{ PMUV3_PMOVSCLR, 0, BIT(2) },
		{ PMUV3_PMCCFILTR, 0, USER_ONLY },
		{ PMUV3_PMCR, 0, PMCR_ZERO },
		{ PMUV3_PMCNTENSET, 0, BIT(31) },
	};

	/* What runs now, and was used since the last zeroing: cycles. */
	static const struct pmu_write after[] = {
		{ PMUV3_PMCNTENCLR, 0, BIT(31) },
		{ PMUV3_PMOVSCLR, 0, BIT(31) },
		{ PMUV3_PMCR, 0, PMCR_ZERO },
		{ PMUV3_PMUSERENR, 0, ARMV8_PMU_USERENR_ER |
				      ARMV8_PMU_USERENR_CR },
	};

	KUNIT_ASSERT_NOT_NULL(test, cc);
	KUNIT_ASSERT_NOT_NULL(test, state);
	/* As the core starts what it hands off from. */
	user_read_irqs_off(true);
	one_counter(cc, 2, INST_RETIRED | USER_ONLY);
	enable_irqs_off(cc);
	ctx()->nr_writes = 0;
	one_counter(cc, PERFCTR_MAP_ARM64_CYCLES, CPU_CYCLES | USER_ONLY);
	switch_irqs_off(state, cc);
	expect_writes(test, want, ARRAY_SIZE(want));
	disable_irqs_off(state);
	user_read_irqs_off(true);
	expect_writes(test, after, ARRAY_SIZE(after));
}

/* The first reserve claims from perf, the last release gives back. */
static void reserve_claims_once_release_gives_back(struct kunit *test)
{
	/* The claim of the test's init holds: more users, no more claims. */
	KUNIT_ASSERT_EQ(test, arch_perfctr_reserve(), 0);
	KUNIT_EXPECT_EQ(test, ctx()->claims, 0);
	arch_perfctr_release();
	KUNIT_EXPECT_EQ(test, ctx()->unclaims, 0);
	arch_perfctr_release();
	KUNIT_EXPECT_EQ(test, ctx()->unclaims, 1);
	KUNIT_ASSERT_EQ(test, arch_perfctr_reserve(), 0);
	KUNIT_EXPECT_EQ(test, ctx()->claims, 1);
	KUNIT_ASSERT_EQ(test, arch_perfctr_reserve(), 0);
	KUNIT_EXPECT_EQ(test, ctx()->claims, 1);
	arch_perfctr_release();
	KUNIT_EXPECT_EQ(test, ctx()->unclaims, 1);
}

/* While perf has a hardware event: EBUSY, and nothing held. */
static void reserve_is_ebusy_while_perf_has_events(struct kunit *test)
{
	arch_perfctr_release();
	ctx()->claim_err = -EBUSY;
	KUNIT_EXPECT_EQ(test, arch_perfctr_reserve(), -EBUSY);
	KUNIT_EXPECT_EQ(test, arch_perfctr_reserve(), -EBUSY);
	KUNIT_EXPECT_EQ(test, ctx()->claims, 2);
	ctx()->claim_err = 0;
	KUNIT_ASSERT_EQ(test, arch_perfctr_reserve(), 0);
	KUNIT_EXPECT_EQ(test, ctx()->claims, 3);
	/* The one release of the test's exit gives it back. */
	KUNIT_EXPECT_EQ(test, ctx()->unclaims, 1);
}

/*
 * After a new claim, the first grant of EL0 access on a CPU stops,
 * disarms, clears and zeroes every counter it has, perf's counts
 * included; the next grant does not, and neither does a resume.
 */
static void first_grant_after_a_claim_takes_the_cpu(struct kunit *test)
{
	struct perfctr_cpu_control cc;
	struct perfctr_cpu_state state;
	static const struct pmu_write take[] = {
		{ PMUV3_PMCNTENCLR, 0, FAKE_ALL },
		{ PMUV3_PMINTENCLR, 0, FAKE_ALL },
		{ PMUV3_PMOVSCLR, 0, FAKE_ALL },
		{ PMUV3_PMCR, 0, PMCR_ZERO },
		{ PMUV3_PMUSERENR, 0, ARMV8_PMU_USERENR_ER |
				      ARMV8_PMU_USERENR_CR },
	};
	static const struct pmu_write grant[] = {
		{ PMUV3_PMUSERENR, 0, ARMV8_PMU_USERENR_ER |
				      ARMV8_PMU_USERENR_CR },
	};
	unsigned int i;

	arch_perfctr_release();
	KUNIT_ASSERT_EQ(test, arch_perfctr_reserve(), 0);
	ctx()->nr_writes = 0;
	user_read_irqs_off(true);
	expect_writes(test, take, ARRAY_SIZE(take));
	user_read_irqs_off(true);
	expect_writes(test, grant, ARRAY_SIZE(grant));
	/* A resume after a new claim leaves the counts to the core. */
	arch_perfctr_release();
	KUNIT_ASSERT_EQ(test, arch_perfctr_reserve(), 0);
	two_counters(&cc, &state);
	enable_irqs_off(&cc);
	for (i = 0; i < ctx()->nr_writes; i++) {
		const struct pmu_write *w = &ctx()->writes[i];

		KUNIT_EXPECT_NE(test, w->reg, PMUV3_PMEVCNTR);
		KUNIT_EXPECT_NE(test, w->reg, PMUV3_PMCCNTR);
		if (w->reg == PMUV3_PMCR)
			KUNIT_EXPECT_FALSE(test, w->value &
					   (ARMV8_PMU_PMCR_P | ARMV8_PMU_PMCR_C));
	}
}

static struct kunit_case pmuv3_test_cases[] = {
	KUNIT_CASE_PARAM(describe_from_perfs_pmu, describe_cases_gen_params),
	KUNIT_CASE(cpu_can_count_what_is_described),
	KUNIT_CASE(check_control_rules),
	KUNIT_CASE(check_control_counters),
	KUNIT_CASE(check_control_imode),
	KUNIT_CASE(check_control_timer_only),
	KUNIT_CASE(enable_programs_types_then_starts),
	KUNIT_CASE(enable_sets_long_event_counters),
	KUNIT_CASE(disable_stops_disarms_and_clears),
	KUNIT_CASE(irq_acks_only_armed_counters),
	KUNIT_CASE(irq_after_disable_is_not_ours),
	KUNIT_CASE(user_read_zeroes_used_counters),
	KUNIT_CASE(switch_hands_off_in_one_pmcr_write),
	KUNIT_CASE(reserve_claims_once_release_gives_back),
	KUNIT_CASE(reserve_is_ebusy_while_perf_has_events),
	KUNIT_CASE(first_grant_after_a_claim_takes_the_cpu),
	{}
};

static struct kunit_suite pmuv3_test_suite = {
	.name = "perfctr_arm64_pmuv3",
	.init = pmuv3_test_init,
	.exit = pmuv3_test_exit,
	.test_cases = pmuv3_test_cases,
};

kunit_test_suite(pmuv3_test_suite);
