// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of the x86 counter programming: every MSR write of resume
 * and suspend, checked against the register layouts of the Intel SDM
 * (vol. 3B, "Performance Monitoring") and the AMD APM (vol. 2,
 * "Performance Monitor Counters"), every event selector rule, the
 * reservation against perf and the grant of rdpmc.  The processors are
 * those of test_cpus.c, as detection describes them; their MSRs record
 * what is written.
 */
#include <kunit/test.h>
#include <linux/bitops.h>
#include <linux/errno.h>
#include <linux/perfctr.h>
#include <linux/preempt.h>
#include <linux/string.h>

#include "perfctr.h"
#include "test_pmu.h"

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

	x86_perfctr_active_desc = c->skylake;
	add(c, 0, INST_RETIRED | SEL_USR, 0);
	add(c, PERFCTR_MAP_X86_FIXED | 1, SEL_USR, 0);
	add(c, 1, CORE_CYCLES | SEL_USR | SEL_OS, -1000);
	KUNIT_ASSERT_EQ(test, check(c, true), 0);
	setup_state(c);
	enable(c);
	expect_writes(test, resume, ARRAY_SIZE(resume));
	disable(c);
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

	x86_perfctr_active_desc = cpu_desc(test, TEST_CPU_ICELAKE);
	add(c, PERFCTR_MAP_X86_FIXED | 0, SEL_USR | SEL_OS, 0);
	add(c, PERFCTR_MAP_X86_FIXED | 3, SEL_USR, -100);
	KUNIT_ASSERT_EQ(test, check(c, true), 0);
	setup_state(c);
	enable(c);
	expect_writes(test, resume, ARRAY_SIZE(resume));
	disable(c);
}

static void perfmon_v1_has_no_global_control(struct kunit *test)
{
	struct program_test_ctx *c = test->priv;
	static const struct msr_write resume[] = {
		{ 0x187, INST_RETIRED | SEL_USR | SEL_EN },
	};
	static const struct msr_write suspend[] = { { 0x187, 0 } };

	x86_perfctr_active_desc = cpu_desc(test, TEST_CPU_PERFMON_V1);
	add(c, 1, INST_RETIRED | SEL_USR, 0);
	KUNIT_ASSERT_EQ(test, check(c, false), 0);
	setup_state(c);
	enable(c);
	expect_writes(test, resume, ARRAY_SIZE(resume));
	disable(c);
	expect_writes(test, suspend, ARRAY_SIZE(suspend));
}

static void intel_counter_msrs_from_base_and_index(struct kunit *test)
{
	struct program_test_ctx *c = test->priv;

	x86_perfctr_active_desc = c->skylake;	/* full-width writes: IA32_A_PMCx */
	irqs_off(arch_perfctr_write_counter(2, 0xffff00000000));
	KUNIT_EXPECT_EQ(test, c->writes[0].msr, 0x4c3);
	KUNIT_EXPECT_EQ(test, c->writes[0].value, 0xffff00000000);
	KUNIT_EXPECT_EQ(test, arch_perfctr_read_counter(3), 0x1234);
	KUNIT_EXPECT_EQ(test, c->last_read, 0x4c4);
	arch_perfctr_read_counter(PERFCTR_MAP_X86_FIXED | 2);
	KUNIT_EXPECT_EQ(test, c->last_read, 0x30b);
	KUNIT_EXPECT_EQ(test, arch_perfctr_counter_width(0), 48);
	KUNIT_EXPECT_EQ(test, arch_perfctr_counter_width(PERFCTR_MAP_X86_FIXED),
			48);

	/* No full-width writes: IA32_PMCx. */
	x86_perfctr_active_desc = cpu_desc(test, TEST_CPU_PERFMON_V1);
	irqs_off(arch_perfctr_write_counter(1, 5));
	KUNIT_EXPECT_EQ(test, c->writes[1].msr, 0xc2);
	KUNIT_EXPECT_EQ(test, arch_perfctr_counter_width(1), 40);
}

static void zen2_core_counters_interleave_control_and_count(struct kunit *test)
{
	struct program_test_ctx *c = test->priv;
	/* Counter i's control at 0xc0010200 + 2i, its count right after. */
	static const struct msr_write resume[] = {
		{ 0xc0010200, 0x76 | SEL_USR | SEL_EN },
		{ 0xc001020a, 0xc0 | SEL_USR | SEL_EN | SEL_INT },
	};

	x86_perfctr_active_desc = cpu_desc(test, TEST_CPU_ZEN2);
	add(c, 0, 0x76 | SEL_USR, 0);
	add(c, 5, 0xc0 | SEL_USR, -5000);
	KUNIT_ASSERT_EQ(test, check(c, false), 0);
	setup_state(c);
	enable(c);
	expect_writes(test, resume, ARRAY_SIZE(resume));
	arch_perfctr_read_counter(5);
	KUNIT_EXPECT_EQ(test, c->last_read, 0xc001020b);
	disable(c);
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

	x86_perfctr_active_desc = cpu_desc(test, TEST_CPU_ZEN4);
	add(c, 1, 0x76 | SEL_USR, 0);
	KUNIT_ASSERT_EQ(test, check(c, false), 0);
	setup_state(c);
	enable(c);
	expect_writes(test, resume, ARRAY_SIZE(resume));
	disable(c);
	expect_writes(test, suspend, ARRAY_SIZE(suspend));
}

static void k10_legacy_counters(struct kunit *test)
{
	struct program_test_ctx *c = test->priv;
	static const struct msr_write resume[] = {
		{ 0xc0010003, 0x76 | SEL_USR | SEL_EN },
	};

	x86_perfctr_active_desc = cpu_desc(test, TEST_CPU_K10);
	add(c, 3, 0x76 | SEL_USR, 0);
	KUNIT_ASSERT_EQ(test, check(c, false), 0);
	setup_state(c);
	enable(c);
	expect_writes(test, resume, ARRAY_SIZE(resume));
	arch_perfctr_read_counter(3);
	KUNIT_EXPECT_EQ(test, c->last_read, 0xc0010007);
	disable(c);
	/* No fixed counters on AMD. */
	c->control.pmc_map[0] = PERFCTR_MAP_X86_FIXED;
	KUNIT_EXPECT_EQ(test, check(c, false), -EINVAL);
}

/*
 * On every recorded processor, each counter it has is programmed, read
 * and written at registers of its own, as the SDM and the APM lay them
 * out: general-purpose counter i's event selector and counter register
 * are counter i's, fixed counter j's register is IA32_FIXED_CTRj.
 */
static void every_counter_has_registers_of_its_own(struct kunit *test)
{
	const struct x86_perfctr_test_cpu *cpu = test->param_value;
	struct program_test_ctx *c = test->priv;
	unsigned long fixed = cpu->expected.fixed_mask;
	unsigned int j;
	int i;

	x86_perfctr_active_desc = x86_perfctr_test_desc(test, cpu);
	for (i = 0; i < (int)cpu->expected.pmu.nrctrs; i++) {
		memset(&c->control, 0, sizeof(c->control));
		add(c, i, INST_RETIRED | SEL_USR, 0);
		KUNIT_ASSERT_EQ(test, check(c, false), 0);
		setup_state(c);
		c->nr_writes = 0;
		enable(c);
		KUNIT_ASSERT_GE(test, c->nr_writes, 1);
		KUNIT_EXPECT_EQ(test,
				x86_perfctr_test_msr_selector(c->writes[0].msr),
				i);
		KUNIT_EXPECT_EQ(test, c->writes[0].value,
				INST_RETIRED | SEL_USR | SEL_EN);
		disable(c);
		arch_perfctr_read_counter(i);
		KUNIT_EXPECT_EQ(test, x86_perfctr_test_msr_counter(c->last_read),
				i);
		c->nr_writes = 0;
		irqs_off(arch_perfctr_write_counter(i, 0));
		KUNIT_EXPECT_EQ(test, c->writes[0].msr, c->last_read);
	}
	for_each_set_bit(j, &fixed, 32) {
		arch_perfctr_read_counter(PERFCTR_MAP_X86_FIXED | j);
		KUNIT_EXPECT_EQ(test, x86_perfctr_test_msr_counter(c->last_read),
				(int)(PERFCTR_MAP_X86_FIXED | j));
	}
}

/*
 * On every recorded processor, the first user reserves every
 * general-purpose counter as perf names it (on Intel IA32_PMCx, not
 * IA32_A_PMCx), later ones only count themselves, and the last one
 * gives them back.
 */
static void first_user_reserves_every_counter_last_releases(struct kunit *test)
{
	const struct x86_perfctr_test_cpu *cpu = test->param_value;
	struct program_test_ctx *c = test->priv;
	u64 all = BIT_ULL(cpu->expected.pmu.nrctrs) - 1;

	x86_perfctr_active_desc = x86_perfctr_test_desc(test, cpu);
	KUNIT_ASSERT_EQ(test, arch_perfctr_reserve(), 0);
	KUNIT_EXPECT_EQ(test, c->reserved, all);
	KUNIT_ASSERT_EQ(test, arch_perfctr_reserve(), 0);
	KUNIT_EXPECT_EQ(test, c->reserve_calls, cpu->expected.pmu.nrctrs);
	arch_perfctr_release();
	KUNIT_EXPECT_EQ(test, c->reserved, all);
	arch_perfctr_release();
	KUNIT_EXPECT_EQ(test, c->reserved, 0);
}

/* On every recorded processor, any one counter held by perf is EBUSY. */
static void counter_held_by_perf_is_ebusy(struct kunit *test)
{
	const struct x86_perfctr_test_cpu *cpu = test->param_value;
	const struct x86_perfctr_desc *want = &cpu->expected;
	struct program_test_ctx *c = test->priv;
	u32 i;

	x86_perfctr_active_desc = x86_perfctr_test_desc(test, cpu);
	for (i = 0; i < want->pmu.nrctrs; i++) {
		c->taken = BIT_ULL(i);	/* e.g. the NMI watchdog */
		KUNIT_EXPECT_EQ(test, arch_perfctr_reserve(), -EBUSY);
		/* What was taken before the busy one is given back. */
		KUNIT_EXPECT_EQ(test, c->reserved, 0);
	}
	c->taken = 0;
	KUNIT_ASSERT_EQ(test, arch_perfctr_reserve(), 0);
	KUNIT_EXPECT_EQ(test, c->reserved, BIT_ULL(want->pmu.nrctrs) - 1);
	/* And perf, asking now, finds every counter taken. */
	for (i = 0; i < want->pmu.nrctrs; i++) {
		u32 ctr = want->perfctr_reserve + i * want->stride;
		u32 sel = want->eventsel + i * want->stride;

		KUNIT_EXPECT_FALSE(test,
				   x86_perfctr_test_reserve_counter(ctr, sel));
	}
	arch_perfctr_release();
	KUNIT_EXPECT_EQ(test, c->reserved, 0);
}

/* One rejected control: @evntsel on counter @map of a Skylake. */
static int skylake_check_one(struct kunit *test, u32 map, u64 evntsel,
			     s64 ireset, bool allow_kernel)
{
	struct program_test_ctx *c = test->priv;

	memset(&c->control, 0, sizeof(c->control));
	x86_perfctr_active_desc = c->skylake;
	add(c, map, evntsel, ireset);
	return check(c, allow_kernel);
}

static void evntsel_reserved_and_driver_bits_are_einval(struct kunit *test)
{
	u64 sel = INST_RETIRED | SEL_USR;

	KUNIT_EXPECT_EQ(test, skylake_check_one(test, 0, sel, 0, true), 0);
	KUNIT_EXPECT_EQ(test, skylake_check_one(test, 0, sel | SEL_PC, 0, true),
			-EINVAL);
	/* INT only on an interrupt-mode counter, where the driver sets it. */
	KUNIT_EXPECT_EQ(test, skylake_check_one(test, 0, sel | SEL_INT, 0, true),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, skylake_check_one(test, 0, sel | SEL_EN | SEL_INT,
						0, true), -EINVAL);
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
	x86_perfctr_active_desc = cpu_desc(test, TEST_CPU_ICELAKE);
	add(c, 0, sel | SEL_ANY, 0);
	KUNIT_EXPECT_EQ(test, check(c, true), -EINVAL);
	x86_perfctr_active_desc = cpu_desc(test, TEST_CPU_PERFMON_V1);
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
	/* A software counter in its place takes no hardware counter. */
	c->control.pmc_map[7] = PERFCTR_MAP_SOFTWARE | PERFCTR_SW_TASK_CLOCK;
	c->control.evntsel[7] = 0;
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
	/* Half the range at most: the top bit tells an overflow. */
	KUNIT_EXPECT_EQ(test, skylake_check_one(test, 0, sel,
						-(1LL << 47) - 1, true),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, skylake_check_one(test, 0, sel, -(1LL << 47),
						true), 0);
	KUNIT_EXPECT_EQ(test, skylake_check_one(test, 0, sel, -(1LL << 40),
						true), 0);
	/* No local APIC, no interrupt: no interrupt-mode counters. */
	x86_perfctr_active_desc = cpu_desc(test, TEST_CPU_SKYLAKE_NO_APIC);
	KUNIT_EXPECT_EQ(test, check(c, true), -EINVAL);
	c->control.ireset[0] = 0;
	c->control.nrictrs = 0;
	c->control.nractrs = 1;
	KUNIT_EXPECT_EQ(test, check(c, true), 0);
	/* Without full-width writes only 32 bits, sign-extended, load. */
	memset(&c->control, 0, sizeof(c->control));
	x86_perfctr_active_desc = cpu_desc(test, TEST_CPU_PERFMON_V1);
	add(c, 0, sel, -(1LL << 33));
	KUNIT_EXPECT_EQ(test, check(c, true), -EINVAL);
	c->control.ireset[0] = S32_MIN;
	KUNIT_EXPECT_EQ(test, check(c, true), 0);
}

static int zen2_check_one(struct kunit *test, u32 map, u64 evntsel,
			  s64 ireset, bool allow_kernel)
{
	struct program_test_ctx *c = test->priv;

	memset(&c->control, 0, sizeof(c->control));
	x86_perfctr_active_desc = cpu_desc(test, TEST_CPU_ZEN2);
	add(c, map, evntsel, ireset);
	return check(c, allow_kernel);
}

static void zen2_evntsel_rules(struct kunit *test)
{
	u64 sel = 0xc0 | SEL_USR;

	KUNIT_EXPECT_EQ(test, zen2_check_one(test, 0, sel, 0, false), 0);
	/* EventSelect[11:8] at bits 35:32, HostOnly and GuestOnly. */
	KUNIT_EXPECT_EQ(test, zen2_check_one(test, 0, sel | 0xfULL << 32, 0,
					     false), 0);
	KUNIT_EXPECT_EQ(test, zen2_check_one(test, 0, sel | 0x3ULL << 40, 0,
					     false), 0);
	/* The interrupt bit on an accumulation-mode counter. */
	KUNIT_EXPECT_EQ(test, zen2_check_one(test, 0, sel | SEL_INT, 0, true),
			-EINVAL);
	/* Reserved: bit 19, bit 21 (no AnyThread), 39:36, 63:42. */
	KUNIT_EXPECT_EQ(test, zen2_check_one(test, 0, sel | SEL_PC, 0, true),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, zen2_check_one(test, 0, sel | SEL_ANY, 0, true),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, zen2_check_one(test, 0, sel | BIT_ULL(36), 0,
					     true), -EINVAL);
	KUNIT_EXPECT_EQ(test, zen2_check_one(test, 0, sel | BIT_ULL(42), 0,
					     true), -EINVAL);
	/* Neither mode: AMD would count both, so it is refused. */
	KUNIT_EXPECT_EQ(test, zen2_check_one(test, 0, 0xc0, 0, true), -EINVAL);
	/* Kernel mode needs the privilege. */
	KUNIT_EXPECT_EQ(test, zen2_check_one(test, 0, sel | SEL_OS, 0, false),
			-EACCES);
	KUNIT_EXPECT_EQ(test, zen2_check_one(test, 0, sel | SEL_OS, 0, true),
			0);
	/* Six counters, no fixed ones; 48-bit i-mode presets. */
	KUNIT_EXPECT_EQ(test, zen2_check_one(test, 6, sel, 0, true), -EINVAL);
	KUNIT_EXPECT_EQ(test, zen2_check_one(test, PERFCTR_MAP_X86_FIXED, SEL_USR,
					     0, true), -EINVAL);
	KUNIT_EXPECT_EQ(test, zen2_check_one(test, 5, sel, -(1LL << 47), true),
			0);
	KUNIT_EXPECT_EQ(test, zen2_check_one(test, 5, sel, -(1LL << 47) - 1,
					     true), -EINVAL);
	KUNIT_EXPECT_EQ(test, arch_perfctr_counter_width(5), 48);
}

/*
 * rdpmc: before a thread may read the counters, those another thread
 * used on this CPU are zeroed; then CR4.PCE is set.
 */
/*
 * perfctr 2.7's clients set EN (bit 22) in every general-purpose selector
 * and INT (bit 20) in the interrupt-mode ones.  Both are accepted there and
 * change nothing: the MSRs are written as for a selector without them.
 */
static void perfctr27_enable_and_interrupt_bits_are_accepted(struct kunit *test)
{
	struct program_test_ctx *c = test->priv;
	u64 sel = INST_RETIRED | SEL_USR;
	static const struct msr_write resume[] = {
		{ 0x186, INST_RETIRED | SEL_USR | SEL_EN },
		{ 0x187, CORE_CYCLES | SEL_USR | SEL_EN | SEL_INT },
		{ 0x38f, BIT_ULL(0) | BIT_ULL(1) },
	};

	KUNIT_EXPECT_EQ(test, skylake_check_one(test, 0, sel | SEL_EN, 0, true),
			0);
	KUNIT_EXPECT_EQ(test, skylake_check_one(test, 0, sel | SEL_INT, -1000,
						true), 0);
	KUNIT_EXPECT_EQ(test, skylake_check_one(test, 0, sel | SEL_EN | SEL_INT,
						-1000, true), 0);
	/* Not on a fixed counter, which 2.7 did not know. */
	KUNIT_EXPECT_EQ(test, skylake_check_one(test, PERFCTR_MAP_X86_FIXED,
						SEL_USR | SEL_EN, 0, true),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, zen2_check_one(test, 0, 0xc0 | SEL_USR | SEL_EN,
					     0, false), 0);
	KUNIT_EXPECT_EQ(test, zen2_check_one(test, 0, 0xc0 | SEL_USR | SEL_EN |
					     SEL_INT, -1000, false), 0);

	memset(&c->control, 0, sizeof(c->control));
	x86_perfctr_active_desc = c->skylake;
	add(c, 0, sel | SEL_EN, 0);
	add(c, 1, CORE_CYCLES | SEL_USR | SEL_EN | SEL_INT, -1000);
	KUNIT_ASSERT_EQ(test, check(c, true), 0);
	setup_state(c);
	enable(c);
	expect_writes(test, resume, ARRAY_SIZE(resume));
	disable(c);
}

static void user_read_zeroes_counters_others_used(struct kunit *test)
{
	struct program_test_ctx *c = test->priv;
	static const struct msr_write zero[] = { { 0x4c3, 0 }, { 0x30a, 0 } };
	unsigned int again;
	int pce;

	x86_perfctr_active_desc = c->skylake;
	add(c, 2, INST_RETIRED | SEL_USR, 0);
	add(c, PERFCTR_MAP_X86_FIXED | 1, SEL_USR, 0);
	migrate_disable();
	disarm(c);
	arm(test);
	irqs_off(arch_perfctr_user_read(true));
	pce = c->pce;
	again = c->nr_writes;
	irqs_off(arch_perfctr_user_read(true));
	again = c->nr_writes - again;
	irqs_off(arch_perfctr_user_read(false));
	migrate_enable();

	KUNIT_EXPECT_EQ(test, pce, 1);
	KUNIT_EXPECT_EQ(test, c->pce, 0);
	/* Nothing used since: nothing to zero the second time. */
	KUNIT_EXPECT_EQ(test, again, 0);
	expect_writes(test, zero, ARRAY_SIZE(zero));
}

/*
 * A hand-off between two threads of one plan leaves the selectors and
 * the global control as they are and only zeroes the counters used, at
 * every such switch: two writes here, where disable, a grant and enable
 * would make eight.
 */
static void switch_to_the_same_plan_zeroes_only_the_counters_used(struct kunit *test)
{
	struct program_test_ctx *c = test->priv;
	static const struct msr_write zero[] = {
		{ 0x4c3, 0 }, { 0x30a, 0 },
	};
	struct msr_write first[MAX_WRITES];
	unsigned int n;

	x86_perfctr_active_desc = c->skylake;
	add(c, 2, INST_RETIRED | SEL_USR, 0);
	add(c, PERFCTR_MAP_X86_FIXED | 1, SEL_USR, 0);
	migrate_disable();
	disarm(c);
	arm(test);
	irqs_off(arch_perfctr_switch(&c->state, &c->plan, &c->plan));
	n = c->nr_writes;
	memcpy(first, c->writes, sizeof(first));
	c->nr_writes = 0;
	irqs_off(arch_perfctr_switch(&c->state, &c->plan, &c->plan));
	migrate_enable();

	KUNIT_EXPECT_EQ(test, c->pce, 1);
	expect_writes(test, zero, ARRAY_SIZE(zero));
	c->nr_writes = n;
	memcpy(c->writes, first, sizeof(first));
	expect_writes(test, zero, ARRAY_SIZE(zero));
	migrate_disable();
	disarm(c);
	migrate_enable();
}

/* To another plan, a hand-off writes what disable, a grant and enable do. */
static void switch_to_another_plan_is_disable_grant_enable(struct kunit *test)
{
	struct program_test_ctx *c = test->priv;
	struct perfctr_cpu_control *other;
	struct msr_write three[MAX_WRITES];
	struct perfctr_plan *next;
	unsigned int n;

	other = kunit_kmalloc(test, sizeof(*other), GFP_KERNEL);
	next = kunit_kmalloc(test, sizeof(*next), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, other);
	KUNIT_ASSERT_NOT_NULL(test, next);
	x86_perfctr_active_desc = c->skylake;
	add(c, 2, INST_RETIRED | SEL_USR, 0);
	add(c, PERFCTR_MAP_X86_FIXED | 1, SEL_USR, 0);
	*other = c->control;
	other->pmc_map[0] = 3;
	arch_perfctr_prepare(other, next);
	migrate_disable();
	disarm(c);
	arm(test);
	irqs_off(arch_perfctr_disable(&c->state));
	irqs_off(arch_perfctr_user_read(true));
	irqs_off(arch_perfctr_enable(next));
	n = c->nr_writes;
	memcpy(three, c->writes, sizeof(three));
	disarm(c);
	arm(test);
	irqs_off(arch_perfctr_switch(&c->state, &c->plan, next));
	migrate_enable();

	KUNIT_EXPECT_EQ(test, c->pce, 1);
	/* Stop, zero what counted, program, start: not nothing. */
	KUNIT_EXPECT_GE(test, n, 6);
	expect_writes(test, three, n);
	migrate_disable();
	disarm(c);
	migrate_enable();
}

/* After the counters come from perf, whatever it left is zeroed. */
static void user_read_after_reservation_zeroes_every_counter(struct kunit *test)
{
	struct program_test_ctx *c = test->priv;
	static const struct msr_write zero[] = {
		{ 0x4c1, 0 }, { 0x4c2, 0 }, { 0x4c3, 0 }, { 0x4c4, 0 },
		{ 0x309, 0 }, { 0x30a, 0 }, { 0x30b, 0 },
	};
	unsigned int again;

	x86_perfctr_active_desc = c->skylake;
	migrate_disable();
	disarm(c);
	migrate_enable();
	take_counters(test);
	migrate_disable();
	irqs_off(arch_perfctr_user_read(true));
	again = c->nr_writes;
	irqs_off(arch_perfctr_user_read(true));
	again = c->nr_writes - again;
	migrate_enable();
	give_back_counters(test);

	KUNIT_EXPECT_EQ(test, again, 0);
	expect_writes(test, zero, ARRAY_SIZE(zero));
}

/*
 * A CPU that comes online zeroes every counter at its next grant, as
 * after a reservation: the counters hold what the CPU left in them.
 */
static void user_read_after_cpu_online_zeroes_every_counter(struct kunit *test)
{
	struct program_test_ctx *c = test->priv;
	static const struct msr_write zero[] = {
		{ 0x4c1, 0 }, { 0x4c2, 0 }, { 0x4c3, 0 }, { 0x4c4, 0 },
		{ 0x309, 0 }, { 0x30a, 0 }, { 0x30b, 0 },
	};
	unsigned int before;

	x86_perfctr_active_desc = c->skylake;
	take_counters(test);
	migrate_disable();
	irqs_off(arch_perfctr_user_read(true));
	before = c->nr_writes;
	irqs_off(arch_perfctr_user_read(true));
	before = c->nr_writes - before;
	c->nr_writes = 0;
	x86_perfctr_forget_clean();
	irqs_off(arch_perfctr_user_read(true));
	migrate_enable();
	give_back_counters(test);

	KUNIT_EXPECT_EQ(test, before, 0);
	expect_writes(test, zero, ARRAY_SIZE(zero));
}

/* AMD: the core counters are reserved as perf names them, pair by pair. */
static struct kunit_case perfctr_x86_program_cases[] = {
	KUNIT_CASE(skylake_resume_and_suspend_write_sequence),
	KUNIT_CASE(icelake_fixed_counters_get_pmi_and_global_bits),
	KUNIT_CASE(perfmon_v1_has_no_global_control),
	KUNIT_CASE(intel_counter_msrs_from_base_and_index),
	KUNIT_CASE(zen2_core_counters_interleave_control_and_count),
	KUNIT_CASE(zen4_perfmon_v2_global_control),
	KUNIT_CASE(k10_legacy_counters),
	KUNIT_CASE_PARAM(every_counter_has_registers_of_its_own,
			 x86_perfctr_test_cpu_params),
	KUNIT_CASE(evntsel_reserved_and_driver_bits_are_einval),
	KUNIT_CASE(perfctr27_enable_and_interrupt_bits_are_accepted),
	KUNIT_CASE(kernel_mode_and_anythread_need_privilege),
	KUNIT_CASE(counter_ranges_and_reuse_are_einval),
	KUNIT_CASE(imode_reset_value_must_fit_the_counter),
	KUNIT_CASE(zen2_evntsel_rules),
	KUNIT_CASE_PARAM(first_user_reserves_every_counter_last_releases,
			 x86_perfctr_test_cpu_params),
	KUNIT_CASE_PARAM(counter_held_by_perf_is_ebusy,
			 x86_perfctr_test_cpu_params),
	KUNIT_CASE(user_read_zeroes_counters_others_used),
	KUNIT_CASE(switch_to_the_same_plan_zeroes_only_the_counters_used),
	KUNIT_CASE(switch_to_another_plan_is_disable_grant_enable),
	KUNIT_CASE(user_read_after_reservation_zeroes_every_counter),
	KUNIT_CASE(user_read_after_cpu_online_zeroes_every_counter),
	{}
};

static struct kunit_suite perfctr_x86_program_suite = {
	.name = "perfctr_x86_program",
	.init = x86_perfctr_test_init,
	.test_cases = perfctr_x86_program_cases,
};

kunit_test_suite(perfctr_x86_program_suite);

MODULE_DESCRIPTION("KUnit tests for the x86 perfctr counter programming");
MODULE_LICENSE("GPL");
