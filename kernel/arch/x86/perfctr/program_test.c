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
#include <linux/cpumask.h>
#include <linux/delay.h>
#include <linux/irqflags.h>
#include <linux/jiffies.h>
#include <linux/nmi.h>
#include <linux/perfctr.h>
#include <linux/preempt.h>
#include <linux/sched.h>
#include <linux/signal.h>
#include <linux/string.h>
#include <linux/perfctr_pmu.h>

#include "perfctr.h"
#include "../../../kernel/perfctr/internal.h"

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
	struct msr_write reads[4];	/* what rdmsr returns, 0x1234 else */
	unsigned int lvtpc_writes;
	unsigned int overflow_calls;
	int pce;			/* -1: untouched, else last set */
	struct perfctr_cpu_control control;
	struct perfctr_cpu_state state;
};

#define ALL_FEATURES	(PERFCTR_FEATURE_RDTSC | PERFCTR_FEATURE_RDPMC | \
			 PERFCTR_FEATURE_PCINT)

/* What detection finds on the processors of detect_test.c. */
static const struct perfctr_cpu_desc skylake = {
	.pmu.cpu_type = PERFCTR_X86_INTEL_ARCH,
	.version = 4, .pmu.nrctrs = 4, .pmu.ctr_width = 48, .pmu.nrfixed = 3,
	.fixed_mask = 0x7, .pmu.fixed_width = 48, .global_ctrl = true,
	.full_width_write = true, .pmu.features = ALL_FEATURES,
};

static const struct perfctr_cpu_desc icelake = {
	.pmu.cpu_type = PERFCTR_X86_INTEL_ARCH,
	.version = 5, .pmu.nrctrs = 8, .pmu.ctr_width = 48, .pmu.nrfixed = 4,
	.fixed_mask = 0xf, .pmu.fixed_width = 48, .global_ctrl = true,
	.full_width_write = true, .pmu.features = ALL_FEATURES,
};

static const struct perfctr_cpu_desc perfmon_v1 = {
	.pmu.cpu_type = PERFCTR_X86_INTEL_ARCH,
	.version = 1, .pmu.nrctrs = 2, .pmu.ctr_width = 40, .pmu.features = ALL_FEATURES,
};

static const struct perfctr_cpu_desc zen2 = {
	.pmu.cpu_type = PERFCTR_X86_AMD,
	.pmu.nrctrs = 6, .pmu.ctr_width = 48, .amd_core = true,
	.pmu.features = ALL_FEATURES,
};

static const struct perfctr_cpu_desc zen4 = {
	.pmu.cpu_type = PERFCTR_X86_AMD, .version = 2,
	.pmu.nrctrs = 6, .pmu.ctr_width = 48, .amd_core = true, .global_ctrl = true,
	.pmu.features = ALL_FEATURES,
};

static const struct perfctr_cpu_desc k10 = {
	.pmu.cpu_type = PERFCTR_X86_AMD,
	.pmu.nrctrs = 4, .pmu.ctr_width = 48, .pmu.features = ALL_FEATURES,
};

/* Counters to read, but no local APIC for their interrupt. */
static const struct perfctr_cpu_desc skylake_no_apic = {
	.pmu.cpu_type = PERFCTR_X86_INTEL_ARCH,
	.version = 4, .pmu.nrctrs = 4, .pmu.ctr_width = 48, .pmu.nrfixed = 3,
	.fixed_mask = 0x7, .pmu.fixed_width = 48, .global_ctrl = true,
	.full_width_write = true,
	.pmu.features = PERFCTR_FEATURE_RDTSC | PERFCTR_FEATURE_RDPMC,
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
	struct program_test_ctx *c = ctx();
	unsigned int i;

	c->last_read = msr;
	for (i = 0; i < ARRAY_SIZE(c->reads); i++)
		if (c->reads[i].msr == msr)
			return c->reads[i].value;
	return 0x1234;
}

static void fake_lvtpc_nmi(void)
{
	ctx()->lvtpc_writes++;
}

static void fake_overflow_interrupt(void)
{
	ctx()->overflow_calls++;
}

static void fake_set_pce(bool allow)
{
	ctx()->pce = allow;
}

/* The reservation API, with counters in c->taken held by perf. */
/*
 * The counter index of a reservation, from the MSR pair perf names it
 * by: Intel IA32_PMCx and IA32_PERFEVTSELx, AMD core counters (control
 * and count interleaved) or AMD legacy counters.  -1 for a pair that
 * does not belong together.
 */
static int reserved_index(u32 ctr_msr, u32 sel_msr)
{
	if (ctr_msr >= 0xc1 && ctr_msr < 0xc1 + 16)
		return sel_msr == 0x186 + ctr_msr - 0xc1 ? ctr_msr - 0xc1 : -1;
	if (ctr_msr >= 0xc0010201 && ctr_msr < 0xc0010201 + 32)
		return sel_msr == ctr_msr - 1 && !((ctr_msr - 0xc0010201) & 1) ?
		       (ctr_msr - 0xc0010201) / 2 : -1;
	if (ctr_msr >= 0xc0010004 && ctr_msr < 0xc0010008)
		return sel_msr == ctr_msr - 4 ? ctr_msr - 0xc0010004 : -1;
	return -1;
}

static bool fake_reserve_counter(u32 ctr_msr, u32 sel_msr)
{
	struct program_test_ctx *c = ctx();
	int i = reserved_index(ctr_msr, sel_msr);

	c->reserve_calls++;
	if (i < 0 || (c->taken | c->reserved) & BIT_ULL(i))
		return false;
	c->reserved |= BIT_ULL(i);
	return true;
}

static void fake_release_counter(u32 ctr_msr, u32 sel_msr)
{
	struct program_test_ctx *c = ctx();
	int i = reserved_index(ctr_msr, sel_msr);

	KUNIT_ASSERT_GE(kunit_get_current_test(), i, 0);
	KUNIT_EXPECT_TRUE(kunit_get_current_test(), c->reserved & BIT_ULL(i));
	c->reserved &= ~BIT_ULL(i);
}

static int program_test_init(struct kunit *test)
{
	struct program_test_ctx *c;
	int cpu;

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
	kunit_activate_static_stub(test, perfctr_cpu_lvtpc_nmi, fake_lvtpc_nmi);
	kunit_activate_static_stub(test, perfctr_overflow_interrupt,
				   fake_overflow_interrupt);
	kunit_activate_static_stub(test, perfctr_cpu_set_pce, fake_set_pce);
	/*
	 * The driver keeps per-CPU bits: the whole case on one CPU, even
	 * where it sleeps.  The case runs in a kernel thread of its own,
	 * which ends with it.
	 */
	cpu = raw_smp_processor_id();
	KUNIT_ASSERT_EQ(test, set_cpus_allowed_ptr(current, cpumask_of(cpu)), 0);
	/* And it finds the CPU disarmed: every case disarms what it arms. */
	c->desc = &k10;
	KUNIT_ASSERT_EQ_MSG(test, perfctr_cpu_ack_overflow(), 0,
			    "an earlier case left counters armed");
	c->desc = NULL;
	c->pce = -1;
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

/* Start and stop the counters as the core does: interrupts off. */
static void enable(struct program_test_ctx *c)
{
	unsigned long flags;

	local_irq_save(flags);
	arch_perfctr_enable(&c->state, &c->control);
	local_irq_restore(flags);
}

static void disable(struct program_test_ctx *c)
{
	unsigned long flags;

	local_irq_save(flags);
	arch_perfctr_disable(&c->state);
	local_irq_restore(flags);
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

static int check(struct program_test_ctx *c, bool allow_kernel)
{
	return check_cpu_control(&c->control, allow_kernel);
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

	c->desc = &icelake;
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

	c->desc = &perfmon_v1;
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

	c->desc = &skylake;	/* full-width writes: IA32_A_PMCx */
	arch_perfctr_write_counter(2, 0xffff00000000);
	KUNIT_EXPECT_EQ(test, c->writes[0].msr, 0x4c3);
	KUNIT_EXPECT_EQ(test, c->writes[0].value, 0xffff00000000);
	KUNIT_EXPECT_EQ(test, arch_perfctr_read_counter(3), 0x1234);
	KUNIT_EXPECT_EQ(test, c->last_read, 0x4c4);
	arch_perfctr_read_counter(PERFCTR_MAP_X86_FIXED | 2);
	KUNIT_EXPECT_EQ(test, c->last_read, 0x30b);
	KUNIT_EXPECT_EQ(test, arch_perfctr_counter_width(0), 48);
	KUNIT_EXPECT_EQ(test, arch_perfctr_counter_width(PERFCTR_MAP_X86_FIXED),
			48);

	c->desc = &perfmon_v1;	/* no full-width writes: IA32_PMCx */
	arch_perfctr_write_counter(1, 5);
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

	c->desc = &zen2;
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

	c->desc = &zen4;
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

	c->desc = &k10;
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
	c->desc = &skylake_no_apic;
	KUNIT_EXPECT_EQ(test, check(c, true), -EINVAL);
	c->control.ireset[0] = 0;
	c->control.nrictrs = 0;
	c->control.nractrs = 1;
	KUNIT_EXPECT_EQ(test, check(c, true), 0);
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
	KUNIT_ASSERT_EQ(test, arch_perfctr_reserve(), 0);
	KUNIT_EXPECT_EQ(test, c->reserved, 0xf);
	KUNIT_ASSERT_EQ(test, arch_perfctr_reserve(), 0);
	KUNIT_EXPECT_EQ(test, c->reserve_calls, 4);
	arch_perfctr_release();
	KUNIT_EXPECT_EQ(test, c->reserved, 0xf);
	arch_perfctr_release();
	KUNIT_EXPECT_EQ(test, c->reserved, 0);
}

static void counter_held_by_perf_is_ebusy(struct kunit *test)
{
	struct program_test_ctx *c = test->priv;

	c->desc = &skylake;
	c->taken = BIT_ULL(2);	/* e.g. the NMI watchdog */
	KUNIT_EXPECT_EQ(test, arch_perfctr_reserve(), -EBUSY);
	/* What was taken before the busy one is given back. */
	KUNIT_EXPECT_EQ(test, c->reserved, 0);
	c->taken = 0;
	KUNIT_ASSERT_EQ(test, arch_perfctr_reserve(), 0);
	KUNIT_EXPECT_EQ(test, c->reserved, 0xf);
	/* And perf, asking now, finds every counter taken. */
	c->reserve_calls = 0;
	KUNIT_EXPECT_FALSE(test, fake_reserve_counter(0xc1, 0x186));
	arch_perfctr_release();
	KUNIT_EXPECT_EQ(test, c->reserved, 0);
}

/*
 * The overflow interrupt.  The counters are taken through the reservation
 * API as a Skylake has them, whatever the processor imitated, so that the
 * NMI handler knows them to be ours.
 */
static void take_counters(struct kunit *test)
{
	struct program_test_ctx *c = test->priv;
	const struct perfctr_cpu_desc *desc = c->desc;

	c->desc = &skylake;
	KUNIT_ASSERT_EQ(test, arch_perfctr_reserve(), 0);
	c->desc = desc;
}

static void give_back_counters(struct kunit *test)
{
	struct program_test_ctx *c = test->priv;
	const struct perfctr_cpu_desc *desc = c->desc;

	c->desc = &skylake;
	arch_perfctr_release();
	c->desc = desc;
}

/* Arm the control's counters on this CPU, and forget the writes. */
static void arm(struct kunit *test)
{
	struct program_test_ctx *c = test->priv;

	KUNIT_ASSERT_EQ(test, check(c, true), 0);
	setup_state(c);
	arch_perfctr_enable(&c->state, &c->control);
	c->nr_writes = 0;
}

/* Disarm this CPU again, nothing armed or dirty; writes are kept. */
static void disarm(struct program_test_ctx *c)
{
	unsigned int nr_writes = c->nr_writes;
	struct msr_write writes[MAX_WRITES];

	memcpy(writes, c->writes, sizeof(writes));
	memset(&c->state, 0, sizeof(c->state));
	arch_perfctr_enable(&c->state, &c->control);
	arch_perfctr_user_read(true);
	memcpy(c->writes, writes, sizeof(writes));
	c->nr_writes = nr_writes;
}

static void skylake_pmi_clears_counter_status_bits_only(struct kunit *test)
{
	struct program_test_ctx *c = test->priv;
	/* Counter 1 and fixed counter 1 overflowed, and Intel PT's ToPA. */
	u64 status = BIT_ULL(1) | BIT_ULL(33) | BIT_ULL(55);
	static const struct msr_write ack[] = {
		{ 0x390, BIT_ULL(1) | BIT_ULL(33) },
	};
	int handled;

	c->desc = &skylake;
	add(c, 0, INST_RETIRED | SEL_USR, 0);
	add(c, 1, CORE_CYCLES | SEL_USR, -1000);
	add(c, PERFCTR_MAP_X86_FIXED | 1, SEL_USR, -1000);
	c->reads[0] = (struct msr_write){ 0x38e, status };
	take_counters(test);
	preempt_disable();
	arm(test);
	handled = perfctr_cpu_nmi_handler(NMI_LOCAL, NULL);
	disarm(c);
	preempt_enable();
	give_back_counters(test);

	KUNIT_EXPECT_EQ(test, handled, NMI_HANDLED);
	/* Cleared through IA32_PERF_GLOBAL_OVF_CTRL; PT's bit is perf's. */
	expect_writes(test, ack, ARRAY_SIZE(ack));
	KUNIT_EXPECT_EQ(test, c->lvtpc_writes, 1);
	KUNIT_EXPECT_EQ(test, c->overflow_calls, 1);
}

static void zen4_pmi_clears_through_global_status_clr(struct kunit *test)
{
	struct program_test_ctx *c = test->priv;
	static const struct msr_write ack[] = { { 0xc0000302, BIT_ULL(5) } };
	unsigned long ovf;

	c->desc = &zen4;
	add(c, 5, 0xc0 | SEL_USR, -5000);
	/* Bit 6 is beyond the six counters: not ours to clear. */
	c->reads[0] = (struct msr_write){ 0xc0000300, BIT_ULL(5) | BIT_ULL(6) };
	preempt_disable();
	arm(test);
	ovf = perfctr_cpu_ack_overflow();
	disarm(c);
	preempt_enable();

	KUNIT_EXPECT_EQ(test, ovf, BIT(5));
	expect_writes(test, ack, ARRAY_SIZE(ack));
}

/* No global status before PerfMonV2: the counter's top bit tells. */
static void zen2_pmi_finds_overflow_from_counter_value(struct kunit *test)
{
	struct program_test_ctx *c = test->priv;
	unsigned long running, wrapped;
	int handled;

	c->desc = &zen2;
	add(c, 0, 0x76 | SEL_USR, 0);
	add(c, 2, 0xc0 | SEL_USR, -5000);
	c->reads[0] = (struct msr_write){ 0xc0010205, BIT_ULL(48) - 10 };
	preempt_disable();
	arm(test);
	running = perfctr_cpu_ack_overflow();
	c->reads[0].value = 10;		/* counted past zero */
	wrapped = perfctr_cpu_ack_overflow();
	disarm(c);
	preempt_enable();

	KUNIT_EXPECT_EQ(test, running, 0);
	KUNIT_EXPECT_EQ(test, wrapped, BIT(2));
	/* Nothing to clear: no MSR written. */
	KUNIT_EXPECT_EQ(test, c->nr_writes, 0);

	/* With the counters held, the interrupt is claimed and passed on. */
	take_counters(test);
	preempt_disable();
	arm(test);
	handled = perfctr_cpu_nmi_handler(NMI_LOCAL, NULL);
	disarm(c);
	preempt_enable();
	give_back_counters(test);
	KUNIT_EXPECT_EQ(test, handled, NMI_HANDLED);
	KUNIT_EXPECT_EQ(test, c->overflow_calls, 1);
}

/*
 * Counters disabled when their thread leaves the CPU are not taken for
 * overflowed, whatever they hold; a PMI they raised just before is
 * still claimed, within the window.
 */
static void zen2_disabled_counters_are_not_looked_at(struct kunit *test)
{
	struct program_test_ctx *c = test->priv;
	unsigned long after_disable;
	int late, unrelated;

	c->desc = &zen2;
	add(c, 2, 0xc0 | SEL_USR, -5000);
	c->reads[0] = (struct msr_write){ 0xc0010205, 10 };
	take_counters(test);
	preempt_disable();
	arm(test);
	arch_perfctr_disable(&c->state);
	after_disable = perfctr_cpu_ack_overflow();
	late = perfctr_cpu_nmi_handler(NMI_LOCAL, NULL);
	preempt_enable();
	msleep(jiffies_to_msecs(PERFCTR_PMI_WINDOW + 1) + 1);
	preempt_disable();
	unrelated = perfctr_cpu_nmi_handler(NMI_LOCAL, NULL);
	preempt_enable();
	give_back_counters(test);

	KUNIT_EXPECT_EQ(test, after_disable, 0);
	KUNIT_EXPECT_EQ(test, late, NMI_HANDLED);
	KUNIT_EXPECT_EQ(test, unrelated, NMI_DONE);
	KUNIT_EXPECT_EQ(test, c->overflow_calls, 0);
}

/*
 * While no control holds the counters they are perf's, and so is every
 * PMI; while one does, a PMI with nothing left to find is claimed only
 * right after one that found something.
 */
static void pmi_is_ours_only_while_we_hold_the_counters(struct kunit *test)
{
	struct program_test_ctx *c = test->priv;
	int perfs, first, second, unrelated;

	c->desc = &skylake;
	add(c, 0, INST_RETIRED | SEL_USR, -100);
	c->reads[0] = (struct msr_write){ 0x38e, BIT_ULL(0) };
	c->reads[1] = (struct msr_write){ 0x4c1, BIT_ULL(47) };
	preempt_disable();
	arm(test);
	perfs = perfctr_cpu_nmi_handler(NMI_LOCAL, NULL);
	disarm(c);
	preempt_enable();
	KUNIT_EXPECT_EQ(test, perfs, NMI_DONE);
	KUNIT_EXPECT_EQ(test, c->nr_writes, 0);
	KUNIT_EXPECT_EQ(test, c->overflow_calls, 0);

	take_counters(test);
	preempt_disable();
	arm(test);
	first = perfctr_cpu_nmi_handler(NMI_LOCAL, NULL);
	c->reads[0].value = 0;
	second = perfctr_cpu_nmi_handler(NMI_LOCAL, NULL);
	disarm(c);
	preempt_enable();
	KUNIT_EXPECT_EQ(test, first, NMI_HANDLED);
	KUNIT_EXPECT_EQ(test, second, NMI_HANDLED);
	KUNIT_EXPECT_EQ(test, c->overflow_calls, 1);

	/* Long after, an NMI with no overflow is someone else's. */
	msleep(jiffies_to_msecs(PERFCTR_PMI_WINDOW + 1) + 1);
	preempt_disable();
	arm(test);
	unrelated = perfctr_cpu_nmi_handler(NMI_LOCAL, NULL);
	disarm(c);
	preempt_enable();
	give_back_counters(test);
	KUNIT_EXPECT_EQ(test, unrelated, NMI_DONE);
	KUNIT_EXPECT_EQ(test, c->overflow_calls, 1);
}

/*
 * rdpmc: before a thread may read the counters, those another thread
 * used on this CPU are zeroed; then CR4.PCE is set.
 */
static void user_read_zeroes_counters_others_used(struct kunit *test)
{
	struct program_test_ctx *c = test->priv;
	static const struct msr_write zero[] = { { 0x4c3, 0 }, { 0x30a, 0 } };
	unsigned int again;
	int pce;

	c->desc = &skylake;
	add(c, 2, INST_RETIRED | SEL_USR, 0);
	add(c, PERFCTR_MAP_X86_FIXED | 1, SEL_USR, 0);
	preempt_disable();
	disarm(c);
	arm(test);
	arch_perfctr_user_read(true);
	pce = c->pce;
	again = c->nr_writes;
	arch_perfctr_user_read(true);
	again = c->nr_writes - again;
	arch_perfctr_user_read(false);
	preempt_enable();

	KUNIT_EXPECT_EQ(test, pce, 1);
	KUNIT_EXPECT_EQ(test, c->pce, 0);
	/* Nothing used since: nothing to zero the second time. */
	KUNIT_EXPECT_EQ(test, again, 0);
	expect_writes(test, zero, ARRAY_SIZE(zero));
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

	c->desc = &skylake;
	preempt_disable();
	disarm(c);
	preempt_enable();
	take_counters(test);
	preempt_disable();
	arch_perfctr_user_read(true);
	again = c->nr_writes;
	arch_perfctr_user_read(true);
	again = c->nr_writes - again;
	preempt_enable();
	give_back_counters(test);

	KUNIT_EXPECT_EQ(test, again, 0);
	expect_writes(test, zero, ARRAY_SIZE(zero));
}

/* AMD: the core counters are reserved as perf names them, pair by pair. */
static void zen2_reserves_core_counters_busy_is_ebusy(struct kunit *test)
{
	struct program_test_ctx *c = test->priv;

	c->desc = &zen2;
	KUNIT_ASSERT_EQ(test, arch_perfctr_reserve(), 0);
	KUNIT_EXPECT_EQ(test, c->reserved, 0x3f);
	arch_perfctr_release();
	KUNIT_EXPECT_EQ(test, c->reserved, 0);

	c->taken = BIT_ULL(4);
	KUNIT_EXPECT_EQ(test, arch_perfctr_reserve(), -EBUSY);
	KUNIT_EXPECT_EQ(test, c->reserved, 0);

	c->desc = &k10;
	c->taken = 0;
	KUNIT_ASSERT_EQ(test, arch_perfctr_reserve(), 0);
	KUNIT_EXPECT_EQ(test, c->reserved, 0xf);
	arch_perfctr_release();
	KUNIT_EXPECT_EQ(test, c->reserved, 0);
}

/* One control on a Zen 2: @evntsel on core counter @map. */
static int zen2_check_one(struct kunit *test, u32 map, u64 evntsel,
			  s64 ireset, bool allow_kernel)
{
	struct program_test_ctx *c = test->priv;

	memset(&c->control, 0, sizeof(c->control));
	c->desc = &zen2;
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
	/* The driver's enable and interrupt bits. */
	KUNIT_EXPECT_EQ(test, zen2_check_one(test, 0, sel | SEL_EN, 0, true),
			-EINVAL);
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
	KUNIT_CASE(skylake_pmi_clears_counter_status_bits_only),
	KUNIT_CASE(zen4_pmi_clears_through_global_status_clr),
	KUNIT_CASE(zen2_pmi_finds_overflow_from_counter_value),
	KUNIT_CASE(zen2_disabled_counters_are_not_looked_at),
	KUNIT_CASE(pmi_is_ours_only_while_we_hold_the_counters),
	KUNIT_CASE(user_read_zeroes_counters_others_used),
	KUNIT_CASE(user_read_after_reservation_zeroes_every_counter),
	KUNIT_CASE(zen2_reserves_core_counters_busy_is_ebusy),
	KUNIT_CASE(zen2_evntsel_rules),
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
