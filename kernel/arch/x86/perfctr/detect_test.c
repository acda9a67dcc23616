// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of the x86 counter detection, against the CPUID values
 * recorded on the processors of test_cpus.c (and hypervisors without a
 * virtual PMU): each must be described exactly as its row says.
 */
#include <kunit/static_stub.h>
#include <kunit/test.h>
#include <linux/cpumask.h>
#include <linux/perfctr.h>
#include <linux/string.h>

#include "perfctr.h"
#include "test_cpus.h"

/*
 * Every field of the description, from a description filled with junk:
 * detection sets each, or clears it, and leaves the clock rates alone.
 */
static void detection_of_recorded_cpu(struct kunit *test)
{
	const struct x86_perfctr_test_cpu *cpu = test->param_value;
	const struct x86_perfctr_desc *want = &cpu->expected;
	struct x86_perfctr_desc desc;

	memset(&desc, 0xa5, sizeof(desc));
	x86_perfctr_test_detect(test, cpu, &desc);

	KUNIT_EXPECT_STREQ(test, desc.pmu.name, want->pmu.name);
	KUNIT_EXPECT_EQ(test, desc.pmu.cpu_type, want->pmu.cpu_type);
	KUNIT_EXPECT_EQ(test, desc.pmu.nrctrs, want->pmu.nrctrs);
	KUNIT_EXPECT_EQ(test, desc.pmu.ctr_width, want->pmu.ctr_width);
	KUNIT_EXPECT_EQ(test, desc.pmu.nrfixed, want->pmu.nrfixed);
	KUNIT_EXPECT_EQ(test, desc.pmu.fixed_width, want->pmu.fixed_width);
	KUNIT_EXPECT_EQ(test, desc.pmu.nrmetrics, want->pmu.nrmetrics);
	KUNIT_EXPECT_EQ(test, desc.pmu.features, want->pmu.features);
	KUNIT_EXPECT_EQ(test, desc.pmu.cpu_khz, 0xa5a5a5a5);
	KUNIT_EXPECT_EQ(test, desc.pmu.tsc_khz, 0xa5a5a5a5);

	KUNIT_EXPECT_EQ(test, desc.version, want->version);
	KUNIT_EXPECT_EQ(test, desc.events_unavailable, want->events_unavailable);
	KUNIT_EXPECT_EQ(test, desc.eventsel, want->eventsel);
	KUNIT_EXPECT_EQ(test, desc.perfctr, want->perfctr);
	KUNIT_EXPECT_EQ(test, desc.perfctr_reserve, want->perfctr_reserve);
	KUNIT_EXPECT_EQ(test, desc.stride, want->stride);
	KUNIT_EXPECT_EQ(test, desc.evntsel_user, want->evntsel_user);
	KUNIT_EXPECT_EQ(test, desc.ireset_min, want->ireset_min);
	KUNIT_EXPECT_EQ(test, desc.fixed_mask, want->fixed_mask);
	KUNIT_EXPECT_EQ(test, desc.fixed_ctr, want->fixed_ctr);
	KUNIT_EXPECT_EQ(test, desc.fixed_ctrl, want->fixed_ctrl);
	KUNIT_EXPECT_EQ(test, desc.fixed_evntsel_user,
			want->fixed_evntsel_user);
	KUNIT_EXPECT_EQ(test, desc.global_ctrl, want->global_ctrl);
	KUNIT_EXPECT_EQ(test, desc.global_status, want->global_status);
	KUNIT_EXPECT_EQ(test, desc.global_ovf_ctrl, want->global_ovf_ctrl);
	KUNIT_EXPECT_EQ(test, desc.perf_metrics, want->perf_metrics);
	KUNIT_EXPECT_EQ(test, desc.hybrid_core_type, want->hybrid_core_type);
}

struct classify_ctx {
	const struct x86_perfctr_test_cpu *cpu;
	struct x86_perfctr_desc desc;
};

static void cpuid_of(u32 leaf, u32 subleaf, u32 regs[4])
{
	struct classify_ctx *c = kunit_get_current_test()->priv;

	x86_perfctr_test_cpuid(c->cpu, leaf, regs);
}

/*
 * Alder Lake: counters described on a P core (type 0x40) may not be used
 * on an E core (type 0x20), and the other way round.  The CPU number is
 * the highest possible one; its bit is put back as it was.
 */
static void alder_lake_other_core_type_is_forbidden(struct kunit *test)
{
	const struct x86_perfctr_test_cpu *p_core =
		&x86_perfctr_test_cpus[TEST_CPU_ALDER_LAKE_P];
	const struct x86_perfctr_test_cpu *e_core =
		&x86_perfctr_test_cpus[TEST_CPU_ALDER_LAKE_E];
	unsigned int cpu = nr_cpu_ids - 1;
	bool was = cpumask_test_cpu(cpu, &perfctr_cpus_forbidden_mask);
	struct classify_ctx *c;
	bool on_e, on_p, e_desc_on_p, untouched;

	c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, c);
	c->desc.hybrid_core_type = 0x40;
	test->priv = c;
	kunit_activate_static_stub(test, x86_perfctr_cpuid, cpuid_of);
	x86_perfctr_test_keep_desc(test);
	x86_perfctr_active_desc = &c->desc;

	c->cpu = e_core;
	x86_perfctr_classify(cpu);
	on_e = cpumask_test_cpu(cpu, &perfctr_cpus_forbidden_mask);
	c->cpu = p_core;
	x86_perfctr_classify(cpu);
	on_p = cpumask_test_cpu(cpu, &perfctr_cpus_forbidden_mask);
	c->desc.hybrid_core_type = 0x20;
	x86_perfctr_classify(cpu);
	e_desc_on_p = cpumask_test_cpu(cpu, &perfctr_cpus_forbidden_mask);
	/* Not hybrid: the mask is left alone. */
	c->desc.hybrid_core_type = 0;
	c->cpu = e_core;
	x86_perfctr_classify(cpu);
	untouched = cpumask_test_cpu(cpu, &perfctr_cpus_forbidden_mask);

	if (was)
		cpumask_set_cpu(cpu, &perfctr_cpus_forbidden_mask);
	else
		cpumask_clear_cpu(cpu, &perfctr_cpus_forbidden_mask);
	KUNIT_EXPECT_TRUE(test, on_e);
	KUNIT_EXPECT_FALSE(test, on_p);
	KUNIT_EXPECT_TRUE(test, e_desc_on_p);
	KUNIT_EXPECT_TRUE(test, untouched);
}

static struct kunit_case perfctr_x86_detect_cases[] = {
	KUNIT_CASE_PARAM(detection_of_recorded_cpu,
			 x86_perfctr_test_cpu_params),
	KUNIT_CASE(alder_lake_other_core_type_is_forbidden),
	{}
};

static struct kunit_suite perfctr_x86_detect_suite = {
	.name = "perfctr_x86_detect",
	.test_cases = perfctr_x86_detect_cases,
};

kunit_test_suite(perfctr_x86_detect_suite);

MODULE_DESCRIPTION("KUnit tests for the x86 perfctr counter detection");
MODULE_LICENSE("GPL");
