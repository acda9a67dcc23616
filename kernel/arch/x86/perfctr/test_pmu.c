// SPDX-License-Identifier: GPL-2.0
/*
 * The counter hardware the programming suites run on.  The counter MSRs
 * record what is written to them and answer reads from a short table;
 * the reservation API holds the counters of a mask for perf; the CR4.PCE
 * writes and perfctr_overflow_interrupt() are counted.  All
 * are static stubs.  A case points the driver's description at the
 * processor of test_cpus.c it imitates (a K10 until it does).
 */
#include <kunit/static_stub.h>
#include <kunit/test.h>
#include <linux/bits.h>
#include <linux/cpumask.h>
#include <linux/perfctr.h>
#include <linux/sched.h>

#include "perfctr.h"
#include "test_pmu.h"

/**
 * x86_perfctr_test_msr_selector - whose event selector an MSR is
 * @msr: the address
 *
 * Return: the general-purpose counter whose event selector @msr is in
 * the SDM's or the APM's layout (IA32_PERFEVTSELx, AMD core or legacy
 * PerfEvtSeln), or -1.
 */
int x86_perfctr_test_msr_selector(u32 msr)
{
	if (msr >= 0x186 && msr < 0x186 + 16)
		return msr - 0x186;
	if (msr >= 0xc0010200 && msr < 0xc0010200 + 2 * 16 && !(msr & 1))
		return (msr - 0xc0010200) / 2;
	if (msr >= 0xc0010000 && msr < 0xc0010004)
		return msr - 0xc0010000;
	return -1;
}

/**
 * x86_perfctr_test_msr_counter - whose counter register an MSR is
 * @msr: the address
 *
 * Return: the counter, as pmc_map[] names it, whose register @msr is in
 * the SDM's or the APM's layout (IA32_PMCx, IA32_A_PMCx, IA32_FIXED_CTRx,
 * AMD core or legacy PerfCtrn), or -1.
 */
int x86_perfctr_test_msr_counter(u32 msr)
{
	if (msr >= 0xc1 && msr < 0xc1 + 16)
		return msr - 0xc1;
	if (msr >= 0x4c1 && msr < 0x4c1 + 16)
		return msr - 0x4c1;
	if (msr >= 0x309 && msr < 0x309 + 16)
		return PERFCTR_MAP_X86_FIXED | (msr - 0x309);
	if (msr >= 0xc0010201 && msr < 0xc0010201 + 2 * 16 && (msr & 1))
		return (msr - 0xc0010201) / 2;
	if (msr >= 0xc0010004 && msr < 0xc0010008)
		return msr - 0xc0010004;
	return -1;
}

static struct program_test_ctx *ctx(void)
{
	return kunit_get_current_test()->priv;
}

/* The boot description back in place, at the end of every case. */
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

static void fake_overflow_interrupt(void)
{
	ctx()->overflow_calls++;
}

static void fake_set_pce(bool allow)
{
	ctx()->pce = allow;
}

/*
 * The counter index of a reservation, from the MSR pair perf names it
 * by: Intel IA32_PMCx and IA32_PERFEVTSELx, AMD core counters (control
 * and count interleaved) or AMD legacy counters.  -1 for a pair that
 * does not belong together, or for the full-width alias IA32_A_PMCx,
 * which perf never names.
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

/**
 * x86_perfctr_test_reserve_counter - the reservation API, imitated
 * @ctr_msr: a counter MSR, as perf names it
 * @sel_msr: its event selector MSR
 *
 * The counters of the test's taken mask are held by perf.
 *
 * Return: true if both were free and are now reserved.
 */
bool x86_perfctr_test_reserve_counter(u32 ctr_msr, u32 sel_msr)
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

/**
 * x86_perfctr_test_init - imitate the counter hardware for one case
 * @test: the case
 *
 * The init of the programming suites: test->priv becomes a zeroed
 * struct program_test_ctx; the boot description is put back after it.
 *
 * Return: 0.
 */
int x86_perfctr_test_init(struct kunit *test)
{
	struct program_test_ctx *c;
	int cpu;

	c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, c);
	test->priv = c;
	c->skylake = cpu_desc(test, TEST_CPU_SKYLAKE);
	x86_perfctr_test_keep_desc(test);
	kunit_activate_static_stub(test, x86_perfctr_wrmsr, fake_wrmsr);
	kunit_activate_static_stub(test, x86_perfctr_rdmsr, fake_rdmsr);
	kunit_activate_static_stub(test, x86_perfctr_reserve_counter,
				   x86_perfctr_test_reserve_counter);
	kunit_activate_static_stub(test, x86_perfctr_release_counter,
				   fake_release_counter);
	kunit_activate_static_stub(test, perfctr_overflow_interrupt,
				   fake_overflow_interrupt);
	kunit_activate_static_stub(test, x86_perfctr_set_pce, fake_set_pce);
	/*
	 * The driver keeps per-CPU bits: the whole case on one CPU, even
	 * where it sleeps.  The case runs in a kernel thread of its own,
	 * which ends with it.
	 */
	cpu = raw_smp_processor_id();
	KUNIT_ASSERT_EQ(test, set_cpus_allowed_ptr(current, cpumask_of(cpu)), 0);
	/* And it finds the CPU disarmed: every case disarms what it arms. */
	x86_perfctr_active_desc = cpu_desc(test, TEST_CPU_K10);
	KUNIT_ASSERT_EQ_MSG(test, x86_perfctr_ack_overflow(), 0,
			    "an earlier case left counters armed");
	c->pce = -1;
	return 0;
}
