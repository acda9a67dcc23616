// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of the x86 overflow interrupt: how the NMI handler finds
 * and acknowledges the overflows, with global status and without, and
 * when a PMI is its to claim.  The processors are those of test_cpus.c,
 * as detection describes them; their MSRs record what is written.
 */
#include <kunit/test.h>
#include <linux/bitops.h>
#include <linux/nmi.h>
#include <linux/perfctr.h>
#include <linux/preempt.h>
#include <asm/apic.h>

#include "perfctr.h"
#include "test_pmu.h"

/*
 * One PMI while the control's counters are ours and armed on this CPU:
 * what the NMI handler returns; the CPU is disarmed again after it.  The
 * LVT entry is masked first, as Intel processors mask it when they
 * deliver a PMI, and what the handler left there is in c->lvtpc.
 */
static int one_pmi(struct kunit *test)
{
	struct program_test_ctx *c = test->priv;
	int handled;

	take_counters(test);
	migrate_disable();
	arm(test);
	apic_write(APIC_LVTPC, APIC_LVT_MASKED | APIC_DM_NMI);
	handled = x86_perfctr_nmi_handler(NMI_LOCAL, NULL);
	c->lvtpc = apic_read(APIC_LVTPC);
	apic_write(APIC_LVTPC, APIC_DM_NMI);
	disarm(c);
	migrate_enable();
	give_back_counters(test);
	return handled;
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

	x86_perfctr_active_desc = c->skylake;
	add(c, 0, INST_RETIRED | SEL_USR, 0);
	add(c, 1, CORE_CYCLES | SEL_USR, -1000);
	add(c, PERFCTR_MAP_X86_FIXED | 1, SEL_USR, -1000);
	c->reads[0] = (struct msr_write){ 0x38e, status };
	handled = one_pmi(test);

	KUNIT_EXPECT_EQ(test, handled, NMI_HANDLED);
	/* Cleared through IA32_PERF_GLOBAL_OVF_CTRL; PT's bit is perf's. */
	expect_writes(test, ack, ARRAY_SIZE(ack));
	KUNIT_EXPECT_EQ(test, c->lvtpc, APIC_DM_NMI);
	KUNIT_EXPECT_EQ(test, c->overflow_calls, 1);
}

/*
 * TopDown: the PERF_METRICS overflow bit (48) is ours with the counters
 * and is cleared with them, but interrupts no counter: nothing is
 * signalled, and the next sample restarts the metrics.
 */
static void icelake_pmi_clears_perf_metrics_status_bit(struct kunit *test)
{
	struct program_test_ctx *c = test->priv;
	static const struct msr_write ack[] = { { 0x390, BIT_ULL(48) } };
	int handled;

	x86_perfctr_active_desc = cpu_desc(test, TEST_CPU_ICELAKE);
	add(c, PERFCTR_MAP_X86_FIXED | 3, SEL_USR, 0);
	add(c, PERFCTR_MAP_X86_METRIC | 0, SEL_USR, 0);
	c->reads[0] = (struct msr_write){ 0x38e, BIT_ULL(48) | BIT_ULL(55) };
	handled = one_pmi(test);

	KUNIT_EXPECT_EQ(test, handled, NMI_HANDLED);
	expect_writes(test, ack, ARRAY_SIZE(ack));
	KUNIT_EXPECT_EQ(test, c->lvtpc, APIC_DM_NMI);
	KUNIT_EXPECT_EQ(test, c->overflow_calls, 0);
}

static void zen4_pmi_clears_through_global_status_clr(struct kunit *test)
{
	struct program_test_ctx *c = test->priv;
	static const struct msr_write ack[] = { { 0xc0000302, BIT_ULL(5) } };
	unsigned long ovf;

	x86_perfctr_active_desc = cpu_desc(test, TEST_CPU_ZEN4);
	add(c, 5, 0xc0 | SEL_USR, -5000);
	/* Bit 6 is beyond the six counters: not ours to clear. */
	c->reads[0] = (struct msr_write){ 0xc0000300, BIT_ULL(5) | BIT_ULL(6) };
	migrate_disable();
	arm(test);
	ovf = x86_perfctr_ack_overflow();
	disarm(c);
	migrate_enable();

	KUNIT_EXPECT_EQ(test, ovf, BIT(5));
	expect_writes(test, ack, ARRAY_SIZE(ack));
}

/* No global status before PerfMonV2: the counter's top bit tells. */
static void zen2_pmi_finds_overflow_from_counter_value(struct kunit *test)
{
	struct program_test_ctx *c = test->priv;
	unsigned long running, wrapped;
	int handled;

	x86_perfctr_active_desc = cpu_desc(test, TEST_CPU_ZEN2);
	add(c, 0, 0x76 | SEL_USR, 0);
	add(c, 2, 0xc0 | SEL_USR, -5000);
	c->reads[0] = (struct msr_write){ 0xc0010205, BIT_ULL(48) - 10 };
	migrate_disable();
	arm(test);
	running = x86_perfctr_ack_overflow();
	c->reads[0].value = 10;		/* counted past zero */
	wrapped = x86_perfctr_ack_overflow();
	disarm(c);
	migrate_enable();

	KUNIT_EXPECT_EQ(test, running, 0);
	KUNIT_EXPECT_EQ(test, wrapped, BIT(2));
	/* Nothing to clear: no MSR written. */
	KUNIT_EXPECT_EQ(test, c->nr_writes, 0);

	/* With the counters held, the interrupt is claimed and passed on. */
	handled = one_pmi(test);
	KUNIT_EXPECT_EQ(test, handled, NMI_HANDLED);
	KUNIT_EXPECT_EQ(test, c->overflow_calls, 1);
}

/*
 * The PMI window of this CPU held open as long as a case needs, since a
 * host that holds the guest up between two PMIs must not close it
 * between them; and closed as if its time had passed.
 */
static void hold_pmi_window(void)
{
	this_cpu_ptr(&x86_perfctr_pmi_window)->end = jiffies + 3600 * HZ;
}

static void pass_pmi_window(void)
{
	this_cpu_ptr(&x86_perfctr_pmi_window)->end = jiffies - 1;
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

	x86_perfctr_active_desc = cpu_desc(test, TEST_CPU_ZEN2);
	add(c, 2, 0xc0 | SEL_USR, -5000);
	c->reads[0] = (struct msr_write){ 0xc0010205, 10 };
	take_counters(test);
	migrate_disable();
	arm(test);
	local_irq_disable();
	arch_perfctr_disable(&c->state);
	local_irq_enable();
	hold_pmi_window();
	after_disable = x86_perfctr_ack_overflow();
	late = x86_perfctr_nmi_handler(NMI_LOCAL, NULL);
	pass_pmi_window();
	unrelated = x86_perfctr_nmi_handler(NMI_LOCAL, NULL);
	migrate_enable();
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

	x86_perfctr_active_desc = c->skylake;
	add(c, 0, INST_RETIRED | SEL_USR, -100);
	c->reads[0] = (struct msr_write){ 0x38e, BIT_ULL(0) };
	c->reads[1] = (struct msr_write){ 0x4c1, BIT_ULL(47) };
	migrate_disable();
	arm(test);
	perfs = x86_perfctr_nmi_handler(NMI_LOCAL, NULL);
	disarm(c);
	migrate_enable();
	KUNIT_EXPECT_EQ(test, perfs, NMI_DONE);
	KUNIT_EXPECT_EQ(test, c->nr_writes, 0);
	KUNIT_EXPECT_EQ(test, c->overflow_calls, 0);

	take_counters(test);
	migrate_disable();
	arm(test);
	first = x86_perfctr_nmi_handler(NMI_LOCAL, NULL);
	hold_pmi_window();
	c->reads[0].value = 0;
	second = x86_perfctr_nmi_handler(NMI_LOCAL, NULL);
	disarm(c);
	migrate_enable();
	KUNIT_EXPECT_EQ(test, first, NMI_HANDLED);
	KUNIT_EXPECT_EQ(test, second, NMI_HANDLED);
	KUNIT_EXPECT_EQ(test, c->overflow_calls, 1);

	/* Long after, an NMI with no overflow is someone else's. */
	migrate_disable();
	pass_pmi_window();
	arm(test);
	unrelated = x86_perfctr_nmi_handler(NMI_LOCAL, NULL);
	disarm(c);
	migrate_enable();
	give_back_counters(test);
	KUNIT_EXPECT_EQ(test, unrelated, NMI_DONE);
	KUNIT_EXPECT_EQ(test, c->overflow_calls, 1);
}

static struct kunit_case perfctr_x86_pmi_cases[] = {
	KUNIT_CASE(skylake_pmi_clears_counter_status_bits_only),
	KUNIT_CASE(icelake_pmi_clears_perf_metrics_status_bit),
	KUNIT_CASE(zen4_pmi_clears_through_global_status_clr),
	KUNIT_CASE(zen2_pmi_finds_overflow_from_counter_value),
	KUNIT_CASE(zen2_disabled_counters_are_not_looked_at),
	KUNIT_CASE(pmi_is_ours_only_while_we_hold_the_counters),
	{}
};

static struct kunit_suite perfctr_x86_pmi_suite = {
	.name = "perfctr_x86_pmi",
	.init = x86_perfctr_test_init,
	.test_cases = perfctr_x86_pmi_cases,
};

kunit_test_suite(perfctr_x86_pmi_suite);

MODULE_DESCRIPTION("KUnit tests for the x86 perfctr overflow interrupt");
MODULE_LICENSE("GPL");
