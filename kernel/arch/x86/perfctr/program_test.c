// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of the x86 counter programming: every MSR write of resume
 * and suspend, checked against the register layouts of the Intel SDM
 * (vol. 3B, "Performance Monitoring") and the AMD APM (vol. 2,
 * "Performance Monitor Counters"), and every event selector rule.  The
 * MSR accessors and the processor description are static stubs.
 */
#include <kunit/static_stub.h>
#include <kunit/test.h>
#include <linux/signal.h>
#include <linux/string.h>
#include <asm/perfctr.h>

#include "perfctr.h"

#define MAX_WRITES	16

struct msr_write {
	u32 msr;
	u64 value;
};

struct program_test_ctx {
	const struct perfctr_cpu_desc *desc;
	u64 reserved;		/* bit i: counter i reserved by us */
	u64 taken;		/* bit i: counter i held by perf */
	unsigned int reserve_calls;
	struct msr_write writes[MAX_WRITES];
	unsigned int nr_writes;
	u32 last_read;
	struct perfctr_cpu_control control;
	struct perfctr_cpu_state state;
};

/* What detection finds on the processors of detect_test.c. */
static const struct perfctr_cpu_desc skylake = {
	.cpu_type = PERFCTR_X86_INTEL_ARCH,
	.version = 4, .nrctrs = 4, .ctr_width = 48, .nrfixed = 3,
	.fixed_mask = 0x7, .fixed_width = 48, .global_ctrl = true,
	.full_width_write = true,
};

static const struct perfctr_cpu_desc icelake = {
	.cpu_type = PERFCTR_X86_INTEL_ARCH,
	.version = 5, .nrctrs = 8, .ctr_width = 48, .nrfixed = 4,
	.fixed_mask = 0xf, .fixed_width = 48, .global_ctrl = true,
	.full_width_write = true,
};

static const struct perfctr_cpu_desc perfmon_v1 = {
	.cpu_type = PERFCTR_X86_INTEL_ARCH,
	.version = 1, .nrctrs = 2, .ctr_width = 40,
};

static const struct perfctr_cpu_desc zen2 = {
	.cpu_type = PERFCTR_X86_AMD,
	.nrctrs = 6, .ctr_width = 48, .amd_core = true,
};

static const struct perfctr_cpu_desc zen4 = {
	.cpu_type = PERFCTR_X86_AMD, .version = 2,
	.nrctrs = 6, .ctr_width = 48, .amd_core = true, .global_ctrl = true,
};

static const struct perfctr_cpu_desc k10 = {
	.cpu_type = PERFCTR_X86_AMD,
	.nrctrs = 4, .ctr_width = 48,
};

/* Event selector bits, as the SDM and APM number them. */
#define SEL_USR		BIT_ULL(16)
#define SEL_OS		BIT_ULL(17)
#define SEL_PC		BIT_ULL(19)
#define SEL_INT		BIT_ULL(20)
#define SEL_ANY		BIT_ULL(21)
#define SEL_EN		BIT_ULL(22)
/* INST_RETIRED.ANY_P and UNHALTED_CORE_CYCLES, architectural events. */
#define INST_RETIRED	0x00c0
#define CORE_CYCLES	0x003c

static struct program_test_ctx *ctx(void)
{
	return kunit_get_current_test()->priv;
}

static const struct perfctr_cpu_desc *fake_desc(void)
{
	return ctx()->desc;
}

static void fake_wrmsr(u32 msr, u64 value)
{
	struct program_test_ctx *c = ctx();

	if (c->nr_writes < MAX_WRITES) {
		c->writes[c->nr_writes].msr = msr;
		c->writes[c->nr_writes].value = value;
	}
	c->nr_writes++;
}

static u64 fake_rdmsr(u32 msr)
{
	ctx()->last_read = msr;
	return 0x1234;
}

/* The reservation API, with counters in c->taken held by perf. */
static bool fake_reserve_counter(u32 ctr_msr, u32 sel_msr)
{
	struct program_test_ctx *c = ctx();
	u32 i = ctr_msr - 0xc1;

	c->reserve_calls++;
	if (sel_msr != 0x186 + i || (c->taken | c->reserved) & BIT_ULL(i))
		return false;
	c->reserved |= BIT_ULL(i);
	return true;
}

static void fake_release_counter(u32 ctr_msr, u32 sel_msr)
{
	struct program_test_ctx *c = ctx();
	u32 i = ctr_msr - 0xc1;

	KUNIT_EXPECT_TRUE(kunit_get_current_test(), c->reserved & BIT_ULL(i));
	c->reserved &= ~BIT_ULL(i);
}

static int program_test_init(struct kunit *test)
{
	struct program_test_ctx *c;

	c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, c);
	test->priv = c;
	kunit_activate_static_stub(test, perfctr_cpu_active_desc, fake_desc);
	kunit_activate_static_stub(test, perfctr_cpu_wrmsr, fake_wrmsr);
	kunit_activate_static_stub(test, perfctr_cpu_rdmsr, fake_rdmsr);
	kunit_activate_static_stub(test, perfctr_cpu_reserve_counter,
				   fake_reserve_counter);
	kunit_activate_static_stub(test, perfctr_cpu_release_counter,
				   fake_release_counter);
	return 0;
}

/* Add counter @map with @evntsel to the control, a-mode or i-mode. */
static void add(struct program_test_ctx *c, u32 map, u64 evntsel, s64 ireset)
{
	struct perfctr_cpu_control *cc = &c->control;
	unsigned int i = cc->nractrs + cc->nrictrs;

	cc->pmc_map[i] = map;
	cc->evntsel[i] = evntsel;
	cc->ireset[i] = ireset;
	if (ireset)
		cc->nrictrs++;
	else
		cc->nractrs++;
}

/* The state as the core sets it up from the control. */
static void setup_state(struct program_test_ctx *c)
{
	const struct perfctr_cpu_control *cc = &c->control;
	unsigned int i;

	c->state.cstatus = (cc->nrictrs << 16) | cc->nractrs;
	for (i = 0; i < cc->nractrs + cc->nrictrs; i++)
		c->state.pmc[i].map = cc->pmc_map[i];
}

static void expect_writes(struct kunit *test, const struct msr_write *want,
			  unsigned int n)
{
	struct program_test_ctx *c = test->priv;
	unsigned int i;

	KUNIT_ASSERT_EQ(test, c->nr_writes, n);
	for (i = 0; i < n; i++) {
		KUNIT_EXPECT_EQ_MSG(test, c->writes[i].msr, want[i].msr,
				    "write %u", i);
		KUNIT_EXPECT_EQ_MSG(test, c->writes[i].value, want[i].value,
				    "write %u to %#x", i, want[i].msr);
	}
	c->nr_writes = 0;
}

static int check(struct program_test_ctx *c, bool allow_kernel)
{
	return perfctr_cpu_check_control(&c->control, allow_kernel);
}

static void skylake_resume_and_suspend_write_sequence(struct kunit *test)
{
	struct program_test_ctx *c = test->priv;
	static const struct msr_write resume[] = {
		{ 0x186, INST_RETIRED | SEL_USR | SEL_EN },
		{ 0x187, CORE_CYCLES | SEL_USR | SEL_OS | SEL_EN | SEL_INT },
		{ 0x38d, 0x2 << 4 },		/* fixed 1: user mode */
		{ 0x38f, BIT_ULL(0) | BIT_ULL(1) | BIT_ULL(33) },
	};
	static const struct msr_write suspend[] = {
		{ 0x38f, 0 }, { 0x186, 0 }, { 0x187, 0 }, { 0x38d, 0 },
	};

	c->desc = &skylake;
	add(c, 0, INST_RETIRED | SEL_USR, 0);
	add(c, PERFCTR_MAP_X86_FIXED | 1, SEL_USR, 0);
	add(c, 1, CORE_CYCLES | SEL_USR | SEL_OS, -1000);
	KUNIT_ASSERT_EQ(test, check(c, true), 0);
	setup_state(c);
	perfctr_cpu_enable(&c->state, &c->control);
	expect_writes(test, resume, ARRAY_SIZE(resume));
	perfctr_cpu_disable(&c->state);
	expect_writes(test, suspend, ARRAY_SIZE(suspend));
}

static void icelake_fixed_counters_get_pmi_and_global_bits(struct kunit *test)
{
	struct program_test_ctx *c = test->priv;
	static const struct msr_write resume[] = {
		/* fixed 0: OS+USR; fixed 3 (slots): USR and PMI */
		{ 0x38d, (0x3ULL << 0) | (0xaULL << 12) },
		{ 0x38f, BIT_ULL(32) | BIT_ULL(35) },
	};

	c->desc = &icelake;
	add(c, PERFCTR_MAP_X86_FIXED | 0, SEL_USR | SEL_OS, 0);
	add(c, PERFCTR_MAP_X86_FIXED | 3, SEL_USR, -100);
	KUNIT_ASSERT_EQ(test, check(c, true), 0);
	setup_state(c);
	perfctr_cpu_enable(&c->state, &c->control);
	expect_writes(test, resume, ARRAY_SIZE(resume));
}

static void perfmon_v1_has_no_global_control(struct kunit *test)
{
	struct program_test_ctx *c = test->priv;
	static const struct msr_write resume[] = {
		{ 0x187, INST_RETIRED | SEL_USR | SEL_EN },
	};
	static const struct msr_write suspend[] = { { 0x187, 0 } };

	c->desc = &perfmon_v1;
	add(c, 1, INST_RETIRED | SEL_USR, 0);
	KUNIT_ASSERT_EQ(test, check(c, false), 0);
	setup_state(c);
	perfctr_cpu_enable(&c->state, &c->control);
	expect_writes(test, resume, ARRAY_SIZE(resume));
	perfctr_cpu_disable(&c->state);
	expect_writes(test, suspend, ARRAY_SIZE(suspend));
}

static void intel_counter_msrs_from_base_and_index(struct kunit *test)
{
	struct program_test_ctx *c = test->priv;

	c->desc = &skylake;	/* full-width writes: IA32_A_PMCx */
	perfctr_cpu_write_counter(2, 0xffff00000000);
	KUNIT_EXPECT_EQ(test, c->writes[0].msr, 0x4c3);
	KUNIT_EXPECT_EQ(test, c->writes[0].value, 0xffff00000000);
	KUNIT_EXPECT_EQ(test, perfctr_cpu_read_counter(3), 0x1234);
	KUNIT_EXPECT_EQ(test, c->last_read, 0x4c4);
	perfctr_cpu_read_counter(PERFCTR_MAP_X86_FIXED | 2);
	KUNIT_EXPECT_EQ(test, c->last_read, 0x30b);
	KUNIT_EXPECT_EQ(test, perfctr_cpu_counter_width(0), 48);
	KUNIT_EXPECT_EQ(test, perfctr_cpu_counter_width(PERFCTR_MAP_X86_FIXED),
			48);

	c->desc = &perfmon_v1;	/* no full-width writes: IA32_PMCx */
	perfctr_cpu_write_counter(1, 5);
	KUNIT_EXPECT_EQ(test, c->writes[1].msr, 0xc2);
	KUNIT_EXPECT_EQ(test, perfctr_cpu_counter_width(1), 40);
}

static void zen2_core_counters_interleave_control_and_count(struct kunit *test)
{
	struct program_test_ctx *c = test->priv;
	/* Counter i's control at 0xc0010200 + 2i, its count right after. */
	static const struct msr_write resume[] = {
		{ 0xc0010200, 0x76 | SEL_USR | SEL_EN },
		{ 0xc001020a, 0xc0 | SEL_USR | SEL_EN | SEL_INT },
	};

	c->desc = &zen2;
	add(c, 0, 0x76 | SEL_USR, 0);
	add(c, 5, 0xc0 | SEL_USR, -5000);
	KUNIT_ASSERT_EQ(test, check(c, false), 0);
	setup_state(c);
	perfctr_cpu_enable(&c->state, &c->control);
	expect_writes(test, resume, ARRAY_SIZE(resume));
	perfctr_cpu_read_counter(5);
	KUNIT_EXPECT_EQ(test, c->last_read, 0xc001020b);
}

static void zen4_perfmon_v2_global_control(struct kunit *test)
{
	struct program_test_ctx *c = test->priv;
	static const struct msr_write resume[] = {
		{ 0xc0010202, 0x76 | SEL_USR | SEL_EN },
		{ 0xc0000301, BIT_ULL(1) },
	};
	static const struct msr_write suspend[] = {
		{ 0xc0000301, 0 }, { 0xc0010202, 0 },
	};

	c->desc = &zen4;
	add(c, 1, 0x76 | SEL_USR, 0);
	KUNIT_ASSERT_EQ(test, check(c, false), 0);
	setup_state(c);
	perfctr_cpu_enable(&c->state, &c->control);
	expect_writes(test, resume, ARRAY_SIZE(resume));
	perfctr_cpu_disable(&c->state);
	expect_writes(test, suspend, ARRAY_SIZE(suspend));
}

static void k10_legacy_counters(struct kunit *test)
{
	struct program_test_ctx *c = test->priv;
	static const struct msr_write resume[] = {
		{ 0xc0010003, 0x76 | SEL_USR | SEL_EN },
	};

	c->desc = &k10;
	add(c, 3, 0x76 | SEL_USR, 0);
	KUNIT_ASSERT_EQ(test, check(c, false), 0);
	setup_state(c);
	perfctr_cpu_enable(&c->state, &c->control);
	expect_writes(test, resume, ARRAY_SIZE(resume));
	perfctr_cpu_read_counter(3);
	KUNIT_EXPECT_EQ(test, c->last_read, 0xc0010007);
	/* No fixed counters on AMD. */
	c->control.pmc_map[0] = PERFCTR_MAP_X86_FIXED;
	KUNIT_EXPECT_EQ(test, check(c, false), -EINVAL);
}

/* One rejected control: @evntsel on counter @map of a Skylake. */
static int skylake_check_one(struct kunit *test, u32 map, u64 evntsel,
			     s64 ireset, bool allow_kernel)
{
	struct program_test_ctx *c = test->priv;

	memset(&c->control, 0, sizeof(c->control));
	c->desc = &skylake;
	add(c, map, evntsel, ireset);
	return check(c, allow_kernel);
}

static void evntsel_reserved_and_driver_bits_are_einval(struct kunit *test)
{
	u64 sel = INST_RETIRED | SEL_USR;

	KUNIT_EXPECT_EQ(test, skylake_check_one(test, 0, sel, 0, true), 0);
	KUNIT_EXPECT_EQ(test, skylake_check_one(test, 0, sel | SEL_PC, 0, true),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, skylake_check_one(test, 0, sel | SEL_INT, 0, true),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, skylake_check_one(test, 0, sel | SEL_EN, 0, true),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, skylake_check_one(test, 0, sel | BIT_ULL(32), 0,
						true), -EINVAL);
	KUNIT_EXPECT_EQ(test, skylake_check_one(test, 0, BIT_ULL(63) | sel, 0,
						true), -EINVAL);
	/* Neither user nor kernel mode. */
	KUNIT_EXPECT_EQ(test, skylake_check_one(test, 0, INST_RETIRED, 0, true),
			-EINVAL);
	/* A fixed counter takes only the mode bits. */
	KUNIT_EXPECT_EQ(test, skylake_check_one(test, PERFCTR_MAP_X86_FIXED,
						sel, 0, true), -EINVAL);
}

static void kernel_mode_and_anythread_need_privilege(struct kunit *test)
{
	struct program_test_ctx *c = test->priv;
	u64 sel = INST_RETIRED | SEL_USR;

	KUNIT_EXPECT_EQ(test, skylake_check_one(test, 0, sel | SEL_OS, 0, false),
			-EACCES);
	KUNIT_EXPECT_EQ(test, skylake_check_one(test, 0, sel | SEL_OS, 0, true),
			0);
	KUNIT_EXPECT_EQ(test, skylake_check_one(test, 0, sel | SEL_ANY, 0,
						false), -EACCES);
	KUNIT_EXPECT_EQ(test, skylake_check_one(test, PERFCTR_MAP_X86_FIXED,
						SEL_OS, 0, false), -EACCES);
	/* Ice Lake deprecates AnyThread, version 1 predates it. */
	memset(&c->control, 0, sizeof(c->control));
	c->desc = &icelake;
	add(c, 0, sel | SEL_ANY, 0);
	KUNIT_EXPECT_EQ(test, check(c, true), -EINVAL);
	c->desc = &perfmon_v1;
	KUNIT_EXPECT_EQ(test, check(c, true), -EINVAL);
}

static void counter_ranges_and_reuse_are_einval(struct kunit *test)
{
	struct program_test_ctx *c = test->priv;
	u64 sel = INST_RETIRED | SEL_USR;
	unsigned int i;

	KUNIT_EXPECT_EQ(test, skylake_check_one(test, 4, sel, 0, true), -EINVAL);
	KUNIT_EXPECT_EQ(test, skylake_check_one(test, PERFCTR_MAP_X86_FIXED | 3,
						SEL_USR, 0, true), -EINVAL);
	/* The same counter twice. */
	memset(&c->control, 0, sizeof(c->control));
	add(c, 2, sel, 0);
	add(c, 2, sel, 0);
	KUNIT_EXPECT_EQ(test, check(c, true), -EINVAL);
	/* More counters than the 4 + 3 the CPU has. */
	memset(&c->control, 0, sizeof(c->control));
	for (i = 0; i < 4; i++)
		add(c, i, sel, 0);
	for (i = 0; i < 3; i++)
		add(c, PERFCTR_MAP_X86_FIXED | i, SEL_USR, 0);
	KUNIT_EXPECT_EQ(test, check(c, true), 0);
	add(c, 0, sel, 0);
	KUNIT_EXPECT_EQ(test, check(c, true), -EINVAL);
	/* Software counters are the core's business, not the driver's. */
	c->control.pmc_map[7] = PERFCTR_MAP_SOFTWARE | PERFCTR_SW_TASK_CLOCK;
	KUNIT_EXPECT_EQ(test, check(c, true), 0);
}

static void imode_reset_value_must_fit_the_counter(struct kunit *test)
{
	struct program_test_ctx *c = test->priv;
	u64 sel = INST_RETIRED | SEL_USR;

	KUNIT_EXPECT_EQ(test, skylake_check_one(test, 0, sel, -1, true), 0);
	KUNIT_EXPECT_EQ(test, skylake_check_one(test, 0, sel, 5, true), -EINVAL);
	KUNIT_EXPECT_EQ(test, skylake_check_one(test, 0, sel, -(1LL << 48),
						true), -EINVAL);
	KUNIT_EXPECT_EQ(test, skylake_check_one(test, 0, sel, -(1LL << 40),
						true), 0);
	/* Without full-width writes only 32 bits, sign-extended, load. */
	memset(&c->control, 0, sizeof(c->control));
	c->desc = &perfmon_v1;
	add(c, 0, sel, -(1LL << 33));
	KUNIT_EXPECT_EQ(test, check(c, true), -EINVAL);
	c->control.ireset[0] = S32_MIN;
	KUNIT_EXPECT_EQ(test, check(c, true), 0);
}

static void first_user_reserves_every_counter_last_releases(struct kunit *test)
{
	struct program_test_ctx *c = test->priv;

	c->desc = &skylake;	/* reserved as IA32_PMCx, not IA32_A_PMCx */
	KUNIT_ASSERT_EQ(test, perfctr_cpu_reserve(), 0);
	KUNIT_EXPECT_EQ(test, c->reserved, 0xf);
	KUNIT_ASSERT_EQ(test, perfctr_cpu_reserve(), 0);
	KUNIT_EXPECT_EQ(test, c->reserve_calls, 4);
	perfctr_cpu_release();
	KUNIT_EXPECT_EQ(test, c->reserved, 0xf);
	perfctr_cpu_release();
	KUNIT_EXPECT_EQ(test, c->reserved, 0);
}

static void counter_held_by_perf_is_ebusy(struct kunit *test)
{
	struct program_test_ctx *c = test->priv;

	c->desc = &skylake;
	c->taken = BIT_ULL(2);	/* e.g. the NMI watchdog */
	KUNIT_EXPECT_EQ(test, perfctr_cpu_reserve(), -EBUSY);
	/* What was taken before the busy one is given back. */
	KUNIT_EXPECT_EQ(test, c->reserved, 0);
	c->taken = 0;
	KUNIT_ASSERT_EQ(test, perfctr_cpu_reserve(), 0);
	KUNIT_EXPECT_EQ(test, c->reserved, 0xf);
	/* And perf, asking now, finds every counter taken. */
	c->reserve_calls = 0;
	KUNIT_EXPECT_FALSE(test, fake_reserve_counter(0xc1, 0x186));
	perfctr_cpu_release();
	KUNIT_EXPECT_EQ(test, c->reserved, 0);
}

static struct kunit_case perfctr_x86_program_cases[] = {
	KUNIT_CASE(skylake_resume_and_suspend_write_sequence),
	KUNIT_CASE(icelake_fixed_counters_get_pmi_and_global_bits),
	KUNIT_CASE(perfmon_v1_has_no_global_control),
	KUNIT_CASE(intel_counter_msrs_from_base_and_index),
	KUNIT_CASE(zen2_core_counters_interleave_control_and_count),
	KUNIT_CASE(zen4_perfmon_v2_global_control),
	KUNIT_CASE(k10_legacy_counters),
	KUNIT_CASE(evntsel_reserved_and_driver_bits_are_einval),
	KUNIT_CASE(kernel_mode_and_anythread_need_privilege),
	KUNIT_CASE(counter_ranges_and_reuse_are_einval),
	KUNIT_CASE(imode_reset_value_must_fit_the_counter),
	KUNIT_CASE(first_user_reserves_every_counter_last_releases),
	KUNIT_CASE(counter_held_by_perf_is_ebusy),
	{}
};

static struct kunit_suite perfctr_x86_program_suite = {
	.name = "perfctr_x86_program",
	.init = program_test_init,
	.test_cases = perfctr_x86_program_cases,
};

kunit_test_suite(perfctr_x86_program_suite);

MODULE_DESCRIPTION("KUnit tests for the x86 perfctr counter programming");
MODULE_LICENSE("GPL");
