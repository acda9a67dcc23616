// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of the arm64 driver on the real PMU, where perf found one:
 * the core and the driver claim it from perf as a control would, and
 * count a kernel loop, with interrupts off, across the wrap of a counter.
 * On an exactly counting PMU (QEMU with -icount) every count is exact;
 * a PMU that does not count instructions (QEMU without -icount) skips.
 */
#include <kunit/test.h>
#include <linux/bits.h>
#include <linux/irqflags.h>
#include <linux/perf/arm_pmuv3.h>
#include <linux/perfctr_pmu.h>
#include <asm/sysreg.h>

#include "../../../kernel/perfctr/internal.h"
#include "../../../kernel/perfctr/test_helpers.h"

#define INST_RETIRED	ARMV8_PMUV3_PERFCTR_INST_RETIRED

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
	/* Nothing else uses perf's hardware events while KUnit runs. */
	KUNIT_ASSERT_EQ(test, arch_perfctr_reserve(), 0);
	perfctr->hw_reserved = true;
	test_set_control(perfctr, &control);

	local_irq_save(flags);
	arch_perfctr_write_counter(0, preset);
	test_resume(perfctr);
	loop10(n);
	test_suspend(perfctr);
	local_irq_restore(flags);

	vperfctr_get_sums(perfctr, &sum);
	vperfctr_put(perfctr);
	return sum.pmc[0];
}

static int pmu_exact_test_init(struct kunit *test)
{
	if (arch_perfctr_pmu()->cpu_type != PERFCTR_ARM64_PMUV3)
		kunit_skip(test, "perf found no PMUv3");
	/* QEMU counts instructions only with -icount, and says so here. */
	if (!(read_sysreg(pmceid0_el0) & BIT(INST_RETIRED)))
		kunit_skip(test, "the PMU does not count instructions retired");
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
	u32 width = arch_perfctr_pmu()->ctr_width;
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

kunit_test_suite(pmu_exact_test_suite);
