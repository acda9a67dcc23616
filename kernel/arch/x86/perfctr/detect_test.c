// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of the x86 counter detection, against CPUID values recorded
 * on real processors (and one hypervisor without a virtual PMU).  CPUID and
 * IA32_PERF_CAPABILITIES are replaced by static stubs that answer from
 * the recorded table; leaves not in the table read as zero.
 */
#include <kunit/static_stub.h>
#include <kunit/test.h>
#include <linux/cpumask.h>
#include <linux/perfctr.h>
#include <linux/string.h>
#include <linux/perfctr_pmu.h>

#include "perfctr.h"

struct cpuid_leaf {
	u32 leaf;
	u32 regs[4];		/* EAX, EBX, ECX, EDX */
};

/* Tables of recorded leaves end with this one. */
#define CPUID_END	0xffffffff

struct recorded_cpu {
	const struct cpuid_leaf *leaves;
	u64 perf_capabilities;
};

/* "GenuineIntel" and "AuthenticAMD" as CPUID leaf 0 returns them. */
#define INTEL_EBX	0x756e6547
#define INTEL_EDX	0x49656e69
#define INTEL_ECX	0x6c65746e
#define AMD_EBX		0x68747541
#define AMD_EDX		0x69746e65
#define AMD_ECX		0x444d4163

static const struct recorded_cpu *recorded(void)
{
	return kunit_get_current_test()->priv;
}

static void fake_cpuid(u32 leaf, u32 subleaf, u32 regs[4])
{
	const struct recorded_cpu *cpu = recorded();
	unsigned int i;

	memset(regs, 0, 4 * sizeof(u32));
	for (i = 0; cpu->leaves[i].leaf != CPUID_END; i++)
		if (cpu->leaves[i].leaf == leaf)
			memcpy(regs, cpu->leaves[i].regs, 4 * sizeof(u32));
}

static u64 fake_read_capabilities(void)
{
	return recorded()->perf_capabilities;
}

static void detect(struct kunit *test, const struct recorded_cpu *cpu,
		   struct perfctr_cpu_desc *desc)
{
	test->priv = (void *)cpu;
	kunit_activate_static_stub(test, perfctr_cpu_cpuid, fake_cpuid);
	kunit_activate_static_stub(test, perfctr_cpu_read_capabilities,
				   fake_read_capabilities);
	memset(desc, 0xa5, sizeof(*desc));
	perfctr_cpu_detect(desc);
}

/*
 * Intel Core i7-6700K (Skylake-S, 06_5EH), hyper-threading on: perfmon
 * version 4, 4 general-purpose counters of 48 bits per logical CPU, all
 * 7 architectural events, 3 fixed counters of 48 bits.  Leaf 0xA and
 * IA32_PERF_CAPABILITIES (0x33c5: full-width writes) as recorded in
 * VirtualBox's CPU database for this processor.
 */
static const struct cpuid_leaf skylake_i7_6700k[] = {
	{ 0x0, { 0x16, INTEL_EBX, INTEL_ECX, INTEL_EDX } },
	{ 0x1, { 0x000506e3, 0x02100800, 0x7ffafbbf, 0xbfebfbff } },
	{ 0xa, { 0x07300404, 0x00000000, 0x00000000, 0x00000603 } },
	{ CPUID_END },
};

static void detect_intel_skylake_i7_6700k(struct kunit *test)
{
	static const struct recorded_cpu cpu = {
		skylake_i7_6700k, 0x33c5
	};
	struct perfctr_cpu_desc desc;

	detect(test, &cpu, &desc);
	KUNIT_EXPECT_EQ(test, desc.pmu.cpu_type, PERFCTR_X86_INTEL_ARCH);
	KUNIT_EXPECT_EQ(test, desc.version, 4);
	KUNIT_EXPECT_EQ(test, desc.pmu.nrctrs, 4);
	KUNIT_EXPECT_EQ(test, desc.pmu.ctr_width, 48);
	KUNIT_EXPECT_EQ(test, desc.pmu.nrfixed, 3);
	KUNIT_EXPECT_EQ(test, desc.fixed_mask, 0x7);
	KUNIT_EXPECT_EQ(test, desc.pmu.fixed_width, 48);
	/* 7 events announced, all available; none beyond. */
	KUNIT_EXPECT_EQ(test, desc.events_unavailable, ~0x7fU);
	KUNIT_EXPECT_TRUE(test, desc.global_ctrl);
	KUNIT_EXPECT_TRUE(test, desc.full_width_write);
}

/*
 * Intel Core i7-1065G7 (Ice Lake-U, 06_7EH, InstLatx64): version 5, 8
 * counters of 48 bits, 8 architectural events (topdown slots too), 4
 * fixed counters, the last one the slots counter; AnyThread deprecated.
 */
static const struct cpuid_leaf icelake_i7_1065g7[] = {
	{ 0x0, { 0x1b, INTEL_EBX, INTEL_ECX, INTEL_EDX } },
	{ 0x1, { 0x000706e5, 0x00100800, 0x7ffafbbf, 0xbfebfbff } },
	{ 0xa, { 0x08300805, 0x00000000, 0x0000000f, 0x00008604 } },
	{ CPUID_END },
};

static void detect_intel_icelake_i7_1065g7(struct kunit *test)
{
	static const struct recorded_cpu cpu = {
		icelake_i7_1065g7, 0x000f33c5
	};
	struct perfctr_cpu_desc desc;

	detect(test, &cpu, &desc);
	KUNIT_EXPECT_EQ(test, desc.pmu.cpu_type, PERFCTR_X86_INTEL_ARCH);
	KUNIT_EXPECT_EQ(test, desc.version, 5);
	KUNIT_EXPECT_EQ(test, desc.pmu.nrctrs, 8);
	KUNIT_EXPECT_EQ(test, desc.pmu.ctr_width, 48);
	KUNIT_EXPECT_EQ(test, desc.pmu.nrfixed, 4);
	KUNIT_EXPECT_EQ(test, desc.fixed_mask, 0xf);
	KUNIT_EXPECT_EQ(test, desc.pmu.fixed_width, 48);
	KUNIT_EXPECT_EQ(test, desc.events_unavailable, ~0xffU);
	KUNIT_EXPECT_TRUE(test, desc.full_width_write);
}

/*
 * Intel Xeon Platinum 8480+ (Sapphire Rapids, 06_8FH): version 5, 8
 * counters of 48 bits, 4 fixed counters of 48 bits (leaf 0xA as in the
 * Bochs emulator's Sapphire Rapids model, which follows the SDM).
 */
static const struct cpuid_leaf sapphire_rapids_8480[] = {
	{ 0x0, { 0x20, INTEL_EBX, INTEL_ECX, INTEL_EDX } },
	{ 0x1, { 0x000806f8, 0x00800800, 0x7ffefbff, 0xbfebfbff } },
	{ 0xa, { 0x08300805, 0x00000000, 0x0000000f, 0x00008604 } },
	{ CPUID_END },
};

static void detect_intel_sapphire_rapids_xeon_8480(struct kunit *test)
{
	static const struct recorded_cpu cpu = {
		sapphire_rapids_8480, 0x000f33c5
	};
	struct perfctr_cpu_desc desc;

	detect(test, &cpu, &desc);
	KUNIT_EXPECT_EQ(test, desc.version, 5);
	KUNIT_EXPECT_EQ(test, desc.pmu.nrctrs, 8);
	KUNIT_EXPECT_EQ(test, desc.pmu.nrfixed, 4);
	KUNIT_EXPECT_EQ(test, desc.pmu.fixed_width, 48);
	KUNIT_EXPECT_TRUE(test, desc.global_ctrl);
}

/*
 * Intel Core i9-12900K (Alder Lake-S, 06_97H), as recorded (InstLatx64)
 * on a P-core and on an E-core: leaf 0xA is the same on both, 6 counters
 * and 3 fixed ones, which both core types have; leaf 0x1A tells the core
 * types apart (0x40 Core, 0x20 Atom), and leaf 7 EDX bit 15 says hybrid.
 */
static const struct cpuid_leaf alder_lake_p_core[] = {
	{ 0x0, { 0x20, INTEL_EBX, INTEL_ECX, INTEL_EDX } },
	{ 0x1, { 0x00090672, 0x00800800, 0x7ffafbff, 0xbfebfbff } },
	{ 0x7, { 0x00000002, 0x239ca7eb, 0x98c027ac, 0xfc1cc410 } },
	{ 0xa, { 0x07300605, 0x00000000, 0x00000007, 0x00008603 } },
	{ 0x1a, { 0x40000001, 0, 0, 0 } },
	{ CPUID_END },
};

static const struct cpuid_leaf alder_lake_e_core[] = {
	{ 0x0, { 0x20, INTEL_EBX, INTEL_ECX, INTEL_EDX } },
	{ 0x1, { 0x00090672, 0x00800800, 0x7ffafbff, 0xbfebfbff } },
	{ 0x7, { 0x00000002, 0x239ca7eb, 0x98c027ac, 0xfc1cc410 } },
	{ 0xa, { 0x07300605, 0x00000000, 0x00000007, 0x00008603 } },
	{ 0x1a, { 0x20000001, 0, 0, 0 } },
	{ CPUID_END },
};

static void detect_intel_alder_lake_i9_12900k_p_core(struct kunit *test)
{
	static const struct recorded_cpu cpu = {
		alder_lake_p_core, 0x000f33c5
	};
	struct perfctr_cpu_desc desc;

	detect(test, &cpu, &desc);
	KUNIT_EXPECT_EQ(test, desc.version, 5);
	KUNIT_EXPECT_EQ(test, desc.pmu.nrctrs, 6);
	KUNIT_EXPECT_EQ(test, desc.pmu.nrfixed, 3);
	KUNIT_EXPECT_EQ(test, desc.fixed_mask, 0x7);
	KUNIT_EXPECT_EQ(test, desc.events_unavailable, ~0x7fU);
	KUNIT_EXPECT_EQ(test, desc.hybrid_core_type, 0x40);
}

static void detect_intel_alder_lake_i9_12900k_e_core(struct kunit *test)
{
	static const struct recorded_cpu cpu = {
		alder_lake_e_core, 0x000f33c5
	};
	struct perfctr_cpu_desc desc;

	detect(test, &cpu, &desc);
	KUNIT_EXPECT_EQ(test, desc.version, 5);
	KUNIT_EXPECT_EQ(test, desc.pmu.nrctrs, 6);
	KUNIT_EXPECT_EQ(test, desc.pmu.nrfixed, 3);
	KUNIT_EXPECT_EQ(test, desc.hybrid_core_type, 0x20);
}

/*
 * AMD Ryzen 7 3700X (Zen 2, family 17h model 71h; leaves as recorded on a
 * Ryzen 9 PRO 3900 of the same signature): the six core counters
 * (PerfCtrExtCore), no PerfMonV2 (no leaf 0x80000022).
 */
static const struct cpuid_leaf zen2_ryzen_3700x[] = {
	{ 0x0, { 0x10, AMD_EBX, AMD_ECX, AMD_EDX } },
	{ 0x1, { 0x00870f10, 0x00100800, 0x7ed8320b, 0x178bfbff } },
	{ 0x80000000, { 0x80000020, AMD_EBX, AMD_ECX, AMD_EDX } },
	{ 0x80000001, { 0x00870f10, 0x20000000, 0x75c237ff, 0x2fd3fbff } },
	{ CPUID_END },
};

static void detect_amd_zen2_ryzen_7_3700x(struct kunit *test)
{
	static const struct recorded_cpu cpu = { zen2_ryzen_3700x, 0 };
	struct perfctr_cpu_desc desc;

	detect(test, &cpu, &desc);
	KUNIT_EXPECT_EQ(test, desc.pmu.cpu_type, PERFCTR_X86_AMD);
	KUNIT_EXPECT_TRUE(test, desc.amd_core);
	KUNIT_EXPECT_EQ(test, desc.pmu.nrctrs, 6);
	KUNIT_EXPECT_EQ(test, desc.pmu.ctr_width, 48);
	KUNIT_EXPECT_EQ(test, desc.pmu.nrfixed, 0);
	KUNIT_EXPECT_EQ(test, desc.version, 0);
	KUNIT_EXPECT_FALSE(test, desc.global_ctrl);
}

/*
 * AMD Ryzen 5 7600X (Zen 4, family 19h model 61h, InstLatx64): core
 * counters and PerfMonV2, with 6 of them and global control.
 */
static const struct cpuid_leaf zen4_ryzen_7600x[] = {
	{ 0x0, { 0x10, AMD_EBX, AMD_ECX, AMD_EDX } },
	{ 0x1, { 0x00a60f12, 0x00200800, 0x7ef8320b, 0x178bfbff } },
	{ 0x80000000, { 0x80000028, AMD_EBX, AMD_ECX, AMD_EDX } },
	{ 0x80000001, { 0x00a60f12, 0x00000000, 0x75c237ff, 0x2fd3fbff } },
	{ 0x80000022, { 0x00000003, 0x00084106, 0x00000003, 0x00000000 } },
	{ CPUID_END },
};

static void detect_amd_zen4_ryzen_5_7600x(struct kunit *test)
{
	static const struct recorded_cpu cpu = { zen4_ryzen_7600x, 0 };
	struct perfctr_cpu_desc desc;

	detect(test, &cpu, &desc);
	KUNIT_EXPECT_EQ(test, desc.pmu.cpu_type, PERFCTR_X86_AMD);
	KUNIT_EXPECT_TRUE(test, desc.amd_core);
	KUNIT_EXPECT_EQ(test, desc.version, 2);
	KUNIT_EXPECT_TRUE(test, desc.global_ctrl);
	KUNIT_EXPECT_EQ(test, desc.pmu.nrctrs, 6);
	KUNIT_EXPECT_EQ(test, desc.pmu.ctr_width, 48);
}

/*
 * AMD Phenom II X4 (family 10h): no PerfCtrExtCore, the four legacy
 * counters.
 */
static const struct cpuid_leaf k10_phenom_ii[] = {
	{ 0x0, { 0x5, AMD_EBX, AMD_ECX, AMD_EDX } },
	{ 0x1, { 0x00100f42, 0x00040800, 0x00802009, 0x178bfbff } },
	{ 0x80000000, { 0x8000001b, AMD_EBX, AMD_ECX, AMD_EDX } },
	{ 0x80000001, { 0x00100f42, 0x10001b9c, 0x000037ff, 0xefd3fbff } },
	{ CPUID_END },
};

static void detect_amd_k10_phenom_ii_legacy_counters(struct kunit *test)
{
	static const struct recorded_cpu cpu = { k10_phenom_ii, 0 };
	struct perfctr_cpu_desc desc;

	detect(test, &cpu, &desc);
	KUNIT_EXPECT_EQ(test, desc.pmu.cpu_type, PERFCTR_X86_AMD);
	KUNIT_EXPECT_FALSE(test, desc.amd_core);
	KUNIT_EXPECT_EQ(test, desc.pmu.nrctrs, 4);
	KUNIT_EXPECT_EQ(test, desc.pmu.ctr_width, 48);
}

/* AMD Athlon 64 (K8, family 0Fh): TSC only, as for P6 and Pentium 4. */
static const struct cpuid_leaf k8_athlon64[] = {
	{ 0x0, { 0x1, AMD_EBX, AMD_ECX, AMD_EDX } },
	{ 0x1, { 0x00020fb1, 0x00020800, 0x00000001, 0x178bfbff } },
	{ 0x80000000, { 0x80000018, AMD_EBX, AMD_ECX, AMD_EDX } },
	{ 0x80000001, { 0x00020fb1, 0x00000000, 0x00000003, 0xebd3fbff } },
	{ CPUID_END },
};

static void detect_amd_k8_athlon64_is_tsc_only(struct kunit *test)
{
	static const struct recorded_cpu cpu = { k8_athlon64, 0 };
	struct perfctr_cpu_desc desc;

	detect(test, &cpu, &desc);
	KUNIT_EXPECT_EQ(test, desc.pmu.cpu_type, PERFCTR_X86_GENERIC);
	KUNIT_EXPECT_EQ(test, desc.pmu.nrctrs, 0);
}

/*
 * A KVM guest without a virtual PMU (recorded in a Firecracker guest):
 * leaf 0xA reads zero and the hypervisor bit is set.  An AMD KVM guest
 * without one (an EPYC model, family 19h): hypervisor bit, and no
 * PerfCtrExtCore.  TSC only, both.
 */
static const struct cpuid_leaf hypervisor_no_vpmu_intel[] = {
	{ 0x0, { 0xd, INTEL_EBX, INTEL_ECX, INTEL_EDX } },
	{ 0x1, { 0x000806f8, 0x00000800, 0xfffa3203, 0x0f8bfbff } },
	{ 0xa, { 0x00000000, 0x00000000, 0x00000000, 0x00000000 } },
	{ CPUID_END },
};

static const struct cpuid_leaf hypervisor_no_vpmu_amd[] = {
	{ 0x0, { 0x10, AMD_EBX, AMD_ECX, AMD_EDX } },
	{ 0x1, { 0x00a00f11, 0x00000800, 0xfeda3203, 0x078bfbff } },
	{ 0x80000000, { 0x80000021, AMD_EBX, AMD_ECX, AMD_EDX } },
	{ 0x80000001, { 0x00a00f11, 0x00000000, 0x00000121, 0x2fd3fbff } },
	{ CPUID_END },
};

/*
 * QEMU TCG "-cpu max", the machine make check boots (from QEMU's TCG
 * feature lists): AMD family 0Fh, hypervisor bit, no PerfCtrExtCore.
 */
static const struct cpuid_leaf qemu_tcg_cpu_max[] = {
	{ 0x0, { 0xd, AMD_EBX, AMD_ECX, AMD_EDX } },
	{ 0x1, { 0x00060fb1, 0x00000800, 0xfed8320b, 0x078bfbff } },
	{ 0x80000000, { 0x8000000a, AMD_EBX, AMD_ECX, AMD_EDX } },
	{ 0x80000001, { 0x00060fb1, 0x00000000, 0x00000175, 0x2fd3fbff } },
	{ CPUID_END },
};

static void detect_qemu_tcg_cpu_max_is_tsc_only(struct kunit *test)
{
	static const struct recorded_cpu cpu = { qemu_tcg_cpu_max, 0 };
	struct perfctr_cpu_desc desc;

	detect(test, &cpu, &desc);
	KUNIT_EXPECT_EQ(test, desc.pmu.cpu_type, PERFCTR_X86_GENERIC);
	KUNIT_EXPECT_EQ(test, desc.pmu.nrctrs, 0);
	KUNIT_EXPECT_STREQ(test, desc.pmu.name, "x86 TSC");
}

static void detect_hypervisor_without_vpmu_is_tsc_only(struct kunit *test)
{
	static const struct recorded_cpu intel = {
		hypervisor_no_vpmu_intel, 0
	};
	static const struct recorded_cpu amd = {
		hypervisor_no_vpmu_amd, 0
	};
	struct perfctr_cpu_desc desc;

	detect(test, &intel, &desc);
	KUNIT_EXPECT_EQ(test, desc.pmu.cpu_type, PERFCTR_X86_GENERIC);
	KUNIT_EXPECT_EQ(test, desc.pmu.nrctrs, 0);
	KUNIT_EXPECT_EQ(test, desc.pmu.nrfixed, 0);
	KUNIT_EXPECT_FALSE(test, desc.global_ctrl);
	detect(test, &amd, &desc);
	KUNIT_EXPECT_EQ(test, desc.pmu.cpu_type, PERFCTR_X86_GENERIC);
	KUNIT_EXPECT_EQ(test, desc.pmu.nrctrs, 0);
}

/* Version 1 (Core Solo/Duo era): counters, but no fixed ones or global. */
static const struct cpuid_leaf perfmon_v1[] = {
	{ 0x0, { 0xa, INTEL_EBX, INTEL_ECX, INTEL_EDX } },
	{ 0x1, { 0x000006e8, 0x00020800, 0x000041a9, 0xbfe9fbff } },
	{ 0xa, { 0x07280201, 0x00000000, 0x00000000, 0x00000603 } },
	{ CPUID_END },
};

static void detect_intel_perfmon_v1_has_no_fixed_counters(struct kunit *test)
{
	static const struct recorded_cpu cpu = { perfmon_v1, 0 };
	struct perfctr_cpu_desc desc;

	detect(test, &cpu, &desc);
	KUNIT_EXPECT_EQ(test, desc.version, 1);
	KUNIT_EXPECT_EQ(test, desc.pmu.nrctrs, 2);
	KUNIT_EXPECT_EQ(test, desc.pmu.ctr_width, 40);
	KUNIT_EXPECT_EQ(test, desc.pmu.nrfixed, 0);
	KUNIT_EXPECT_FALSE(test, desc.global_ctrl);
	/* No PDCM in CPUID.1:ECX, so IA32_PERF_CAPABILITIES is not read. */
	KUNIT_EXPECT_FALSE(test, desc.full_width_write);
}

/* A processor whose local APIC is off in CPUID.1:EDX (bit 9). */
static const struct cpuid_leaf skylake_without_apic[] = {
	{ 0x0, { 0x16, INTEL_EBX, INTEL_ECX, INTEL_EDX } },
	{ 0x1, { 0x000506e3, 0x02100800, 0x7ffafbbf, 0xbfebf9ff } },
	{ 0xa, { 0x07300404, 0x00000000, 0x00000000, 0x00000603 } },
	{ CPUID_END },
};

static void features_follow_counters_and_local_apic(struct kunit *test)
{
	static const struct recorded_cpu skylake = { skylake_i7_6700k, 0 };
	static const struct recorded_cpu zen2 = { zen2_ryzen_3700x, 0 };
	static const struct recorded_cpu no_apic = { skylake_without_apic, 0 };
	static const struct recorded_cpu qemu = { qemu_tcg_cpu_max, 0 };
	static const struct recorded_cpu k8 = { k8_athlon64, 0 };
	const u32 all = PERFCTR_FEATURE_RDTSC | PERFCTR_FEATURE_RDPMC |
			PERFCTR_FEATURE_PCINT;
	struct perfctr_cpu_desc desc;

	detect(test, &skylake, &desc);
	KUNIT_EXPECT_EQ(test, desc.pmu.features, all);
	detect(test, &zen2, &desc);
	KUNIT_EXPECT_EQ(test, desc.pmu.features, all);
	/* Counters to read, but no interrupt to deliver their overflow. */
	detect(test, &no_apic, &desc);
	KUNIT_EXPECT_EQ(test, desc.pmu.nrctrs, 4);
	KUNIT_EXPECT_EQ(test, desc.pmu.features,
			PERFCTR_FEATURE_RDTSC | PERFCTR_FEATURE_RDPMC);
	detect(test, &qemu, &desc);
	KUNIT_EXPECT_EQ(test, desc.pmu.features, PERFCTR_FEATURE_RDTSC);
	detect(test, &k8, &desc);
	KUNIT_EXPECT_EQ(test, desc.pmu.features, PERFCTR_FEATURE_RDTSC);
}

struct classify_ctx {
	const struct recorded_cpu *cpu;
	struct perfctr_cpu_desc desc;
};

static void fake_cpuid_of(u32 leaf, u32 subleaf, u32 regs[4])
{
	struct classify_ctx *c = kunit_get_current_test()->priv;
	unsigned int i;

	memset(regs, 0, 4 * sizeof(u32));
	for (i = 0; c->cpu->leaves[i].leaf != CPUID_END; i++)
		if (c->cpu->leaves[i].leaf == leaf)
			memcpy(regs, c->cpu->leaves[i].regs, 4 * sizeof(u32));
}

static const struct perfctr_cpu_desc *classify_desc(void)
{
	struct classify_ctx *c = kunit_get_current_test()->priv;

	return &c->desc;
}

/*
 * Alder Lake: counters described on a P core (type 0x40) may not be used
 * on an E core (type 0x20), and the other way round.  The CPU number is
 * the highest possible one; its bit is put back as it was.
 */
static void alder_lake_other_core_type_is_forbidden(struct kunit *test)
{
	static const struct recorded_cpu p_core = { alder_lake_p_core, 0 };
	static const struct recorded_cpu e_core = { alder_lake_e_core, 0 };
	unsigned int cpu = nr_cpu_ids - 1;
	bool was = cpumask_test_cpu(cpu, &perfctr_cpus_forbidden_mask);
	struct classify_ctx *c;
	bool on_e, on_p, e_desc_on_p, untouched;

	c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, c);
	c->desc.hybrid_core_type = 0x40;
	test->priv = c;
	kunit_activate_static_stub(test, perfctr_cpu_cpuid, fake_cpuid_of);
	kunit_activate_static_stub(test, perfctr_cpu_active_desc,
				   classify_desc);

	c->cpu = &e_core;
	perfctr_cpu_classify(cpu);
	on_e = cpumask_test_cpu(cpu, &perfctr_cpus_forbidden_mask);
	c->cpu = &p_core;
	perfctr_cpu_classify(cpu);
	on_p = cpumask_test_cpu(cpu, &perfctr_cpus_forbidden_mask);
	c->desc.hybrid_core_type = 0x20;
	perfctr_cpu_classify(cpu);
	e_desc_on_p = cpumask_test_cpu(cpu, &perfctr_cpus_forbidden_mask);
	/* Not hybrid: the mask is left alone. */
	c->desc.hybrid_core_type = 0;
	c->cpu = &e_core;
	perfctr_cpu_classify(cpu);
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
	KUNIT_CASE(detect_intel_skylake_i7_6700k),
	KUNIT_CASE(detect_intel_icelake_i7_1065g7),
	KUNIT_CASE(detect_intel_sapphire_rapids_xeon_8480),
	KUNIT_CASE(detect_intel_alder_lake_i9_12900k_p_core),
	KUNIT_CASE(detect_intel_alder_lake_i9_12900k_e_core),
	KUNIT_CASE(detect_amd_zen2_ryzen_7_3700x),
	KUNIT_CASE(detect_amd_zen4_ryzen_5_7600x),
	KUNIT_CASE(detect_amd_k10_phenom_ii_legacy_counters),
	KUNIT_CASE(detect_amd_k8_athlon64_is_tsc_only),
	KUNIT_CASE(detect_hypervisor_without_vpmu_is_tsc_only),
	KUNIT_CASE(detect_qemu_tcg_cpu_max_is_tsc_only),
	KUNIT_CASE(detect_intel_perfmon_v1_has_no_fixed_counters),
	KUNIT_CASE(features_follow_counters_and_local_apic),
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
