// SPDX-License-Identifier: GPL-2.0
/*
 * The processors the x86 KUnit suites imitate.  Each is one row of
 * x86_perfctr_test_cpus[]: its CPUID leaves as recorded on the real
 * processor (or one hypervisor without a virtual PMU), its
 * IA32_PERF_CAPABILITIES, and the description detection must make of it.
 * A parameterised case runs once for every row, so that a processor
 * added here is detected, programmed and reserved by every such case.
 *
 * Detection reads the kernel's identification of the processor, made
 * here from the recorded leaves as identify_cpu() makes it, and CPUID,
 * IA32_PERF_CAPABILITIES and the hybrid core type through static stubs
 * that answer from the row.
 */
#include <kunit/static_stub.h>
#include <kunit/test.h>
#include <linux/bits.h>
#include <linux/cpufeature.h>
#include <linux/limits.h>
#include <linux/perfctr.h>
#include <linux/processor.h>
#include <linux/string.h>
#include <asm/cpu.h>

#include "perfctr.h"
#include "test_cpus.h"

/* "GenuineIntel" and "AuthenticAMD" as CPUID leaf 0 returns them. */
#define INTEL_EBX	0x756e6547
#define INTEL_EDX	0x49656e69
#define INTEL_ECX	0x6c65746e
#define AMD_EBX		0x68747541
#define AMD_EDX		0x69746e65
#define AMD_ECX		0x444d4163

/*
 * Intel Core i7-6700K (Skylake-S, 06_5EH), hyper-threading on: perfmon
 * version 4, 4 general-purpose counters of 48 bits per logical CPU, all
 * 7 architectural events, 3 fixed counters of 48 bits.  Leaf 0xA and
 * IA32_PERF_CAPABILITIES (0x33c5: full-width writes) as recorded in
 * VirtualBox's CPU database for this processor.
 */
static const struct x86_perfctr_test_leaf skylake_i7_6700k[] = {
	{ 0x0, { 0x16, INTEL_EBX, INTEL_ECX, INTEL_EDX } },
	{ 0x1, { 0x000506e3, 0x02100800, 0x7ffafbbf, 0xbfebfbff } },
	{ 0xa, { 0x07300404, 0x00000000, 0x00000000, 0x00000603 } },
	{ TEST_CPUID_END },
};

/* The same processor with its local APIC off in CPUID.1:EDX (bit 9). */
static const struct x86_perfctr_test_leaf skylake_without_apic[] = {
	{ 0x0, { 0x16, INTEL_EBX, INTEL_ECX, INTEL_EDX } },
	{ 0x1, { 0x000506e3, 0x02100800, 0x7ffafbbf, 0xbfebf9ff } },
	{ 0xa, { 0x07300404, 0x00000000, 0x00000000, 0x00000603 } },
	{ TEST_CPUID_END },
};

/*
 * Intel Core i7-1065G7 (Ice Lake-U, 06_7EH, InstLatx64): version 5, 8
 * counters of 48 bits, 8 architectural events (topdown slots too), 4
 * fixed counters, the last one the slots counter; AnyThread deprecated.
 * Its IA32_PERF_CAPABILITIES announces PERF_METRICS (bit 15), as on every
 * core perf gives TopDown metrics but the hybrid ones: level 1 here, level
 * 2 from Golden Cove (Sapphire Rapids, the Alder Lake P-core) on.
 */
static const struct x86_perfctr_test_leaf icelake_i7_1065g7[] = {
	{ 0x0, { 0x1b, INTEL_EBX, INTEL_ECX, INTEL_EDX } },
	{ 0x1, { 0x000706e5, 0x00100800, 0x7ffafbbf, 0xbfebfbff } },
	{ 0xa, { 0x08300805, 0x00000000, 0x0000000f, 0x00008604 } },
	{ TEST_CPUID_END },
};

/*
 * Intel Xeon Platinum 8480+ (Sapphire Rapids, 06_8FH): version 5, 8
 * counters of 48 bits, 4 fixed counters of 48 bits (leaf 0xA as in the
 * Bochs emulator's Sapphire Rapids model, which follows the SDM).
 */
static const struct x86_perfctr_test_leaf sapphire_rapids_8480[] = {
	{ 0x0, { 0x20, INTEL_EBX, INTEL_ECX, INTEL_EDX } },
	{ 0x1, { 0x000806f8, 0x00800800, 0x7ffefbff, 0xbfebfbff } },
	{ 0xa, { 0x08300805, 0x00000000, 0x0000000f, 0x00008604 } },
	{ TEST_CPUID_END },
};

/*
 * Intel Core i9-12900K (Alder Lake-S, 06_97H), as recorded (InstLatx64)
 * on a P-core and on an E-core: leaf 0xA is the same on both, 6 counters
 * and 3 fixed ones, which both core types have; leaf 0x1A tells the core
 * types apart (0x40 Core, 0x20 Atom), and leaf 7 EDX bit 15 says hybrid.
 * Only the P-core has PERF_METRICS, and with it fixed counter 3; the bit
 * of IA32_PERF_CAPABILITIES that announces it reads 0 on both, as perf
 * says of hybrid parts.
 */
static const struct x86_perfctr_test_leaf alder_lake_p_core[] = {
	{ 0x0, { 0x20, INTEL_EBX, INTEL_ECX, INTEL_EDX } },
	{ 0x1, { 0x00090672, 0x00800800, 0x7ffafbff, 0xbfebfbff } },
	{ 0x7, { 0x00000002, 0x239ca7eb, 0x98c027ac, 0xfc1cc410 } },
	{ 0xa, { 0x07300605, 0x00000000, 0x00000007, 0x00008603 } },
	{ 0x1a, { 0x40000001, 0, 0, 0 } },
	{ TEST_CPUID_END },
};

static const struct x86_perfctr_test_leaf alder_lake_e_core[] = {
	{ 0x0, { 0x20, INTEL_EBX, INTEL_ECX, INTEL_EDX } },
	{ 0x1, { 0x00090672, 0x00800800, 0x7ffafbff, 0xbfebfbff } },
	{ 0x7, { 0x00000002, 0x239ca7eb, 0x98c027ac, 0xfc1cc410 } },
	{ 0xa, { 0x07300605, 0x00000000, 0x00000007, 0x00008603 } },
	{ 0x1a, { 0x20000001, 0, 0, 0 } },
	{ TEST_CPUID_END },
};

/* Version 1 (Core Solo/Duo era): counters, but no fixed ones or global. */
static const struct x86_perfctr_test_leaf perfmon_v1[] = {
	{ 0x0, { 0xa, INTEL_EBX, INTEL_ECX, INTEL_EDX } },
	{ 0x1, { 0x000006e8, 0x00020800, 0x000041a9, 0xbfe9fbff } },
	{ 0xa, { 0x07280201, 0x00000000, 0x00000000, 0x00000603 } },
	{ TEST_CPUID_END },
};

/*
 * Not recorded: a Core 2 (06_0FH) whose leaf 0xA, version 2, enumerates
 * no fixed counters in EDX, as perf's quirk in intel_pmu_init() expects
 * of version 2; and the same under a hypervisor (CPUID.1:ECX bit 31),
 * where perf assumes none.
 */
static const struct x86_perfctr_test_leaf perfmon_v2_no_edx[] = {
	{ 0x0, { 0xa, INTEL_EBX, INTEL_ECX, INTEL_EDX } },
	{ 0x1, { 0x000006f6, 0x00020800, 0x0000e3bd, 0xbfebfbff } },
	{ 0xa, { 0x07280202, 0x00000000, 0x00000000, 0x00000000 } },
	{ TEST_CPUID_END },
};

static const struct x86_perfctr_test_leaf perfmon_v2_no_edx_vm[] = {
	{ 0x0, { 0xa, INTEL_EBX, INTEL_ECX, INTEL_EDX } },
	{ 0x1, { 0x000006f6, 0x00020800, 0x8000e3bd, 0xbfebfbff } },
	{ 0xa, { 0x07280202, 0x00000000, 0x00000000, 0x00000000 } },
	{ TEST_CPUID_END },
};

/*
 * AMD Ryzen 7 3700X (Zen 2, family 17h model 71h; leaves as recorded on a
 * Ryzen 9 PRO 3900 of the same signature): the six core counters
 * (PerfCtrExtCore), no PerfMonV2 (no leaf 0x80000022).
 */
static const struct x86_perfctr_test_leaf zen2_ryzen_3700x[] = {
	{ 0x0, { 0x10, AMD_EBX, AMD_ECX, AMD_EDX } },
	{ 0x1, { 0x00870f10, 0x00100800, 0x7ed8320b, 0x178bfbff } },
	{ 0x80000000, { 0x80000020, AMD_EBX, AMD_ECX, AMD_EDX } },
	{ 0x80000001, { 0x00870f10, 0x20000000, 0x75c237ff, 0x2fd3fbff } },
	{ TEST_CPUID_END },
};

/*
 * AMD Ryzen 5 7600X (Zen 4, family 19h model 61h, InstLatx64): core
 * counters and PerfMonV2, with 6 of them and global control.
 */
static const struct x86_perfctr_test_leaf zen4_ryzen_7600x[] = {
	{ 0x0, { 0x10, AMD_EBX, AMD_ECX, AMD_EDX } },
	{ 0x1, { 0x00a60f12, 0x00200800, 0x7ef8320b, 0x178bfbff } },
	{ 0x80000000, { 0x80000028, AMD_EBX, AMD_ECX, AMD_EDX } },
	{ 0x80000001, { 0x00a60f12, 0x00000000, 0x75c237ff, 0x2fd3fbff } },
	{ 0x80000022, { 0x00000003, 0x00084106, 0x00000003, 0x00000000 } },
	{ TEST_CPUID_END },
};

/*
 * AMD Phenom II X4 (family 10h): no PerfCtrExtCore, the four legacy
 * counters.
 */
static const struct x86_perfctr_test_leaf k10_phenom_ii[] = {
	{ 0x0, { 0x5, AMD_EBX, AMD_ECX, AMD_EDX } },
	{ 0x1, { 0x00100f42, 0x00040800, 0x00802009, 0x178bfbff } },
	{ 0x80000000, { 0x8000001b, AMD_EBX, AMD_ECX, AMD_EDX } },
	{ 0x80000001, { 0x00100f42, 0x10001b9c, 0x000037ff, 0xefd3fbff } },
	{ TEST_CPUID_END },
};

/* AMD Athlon 64 (K8, family 0Fh): TSC only, as for P6 and Pentium 4. */
static const struct x86_perfctr_test_leaf k8_athlon64[] = {
	{ 0x0, { 0x1, AMD_EBX, AMD_ECX, AMD_EDX } },
	{ 0x1, { 0x00020fb1, 0x00020800, 0x00000001, 0x178bfbff } },
	{ 0x80000000, { 0x80000018, AMD_EBX, AMD_ECX, AMD_EDX } },
	{ 0x80000001, { 0x00020fb1, 0x00000000, 0x00000003, 0xebd3fbff } },
	{ TEST_CPUID_END },
};

/*
 * A KVM guest without a virtual PMU (recorded in a Firecracker guest):
 * leaf 0xA reads zero and the hypervisor bit is set.  An AMD KVM guest
 * without one (an EPYC model, family 19h): hypervisor bit, and no
 * PerfCtrExtCore.  TSC only, both.
 */
static const struct x86_perfctr_test_leaf hypervisor_no_vpmu_intel[] = {
	{ 0x0, { 0xd, INTEL_EBX, INTEL_ECX, INTEL_EDX } },
	{ 0x1, { 0x000806f8, 0x00000800, 0xfffa3203, 0x0f8bfbff } },
	{ 0xa, { 0x00000000, 0x00000000, 0x00000000, 0x00000000 } },
	{ TEST_CPUID_END },
};

static const struct x86_perfctr_test_leaf hypervisor_no_vpmu_amd[] = {
	{ 0x0, { 0x10, AMD_EBX, AMD_ECX, AMD_EDX } },
	{ 0x1, { 0x00a00f11, 0x00000800, 0xfeda3203, 0x078bfbff } },
	{ 0x80000000, { 0x80000021, AMD_EBX, AMD_ECX, AMD_EDX } },
	{ 0x80000001, { 0x00a00f11, 0x00000000, 0x00000121, 0x2fd3fbff } },
	{ TEST_CPUID_END },
};

/*
 * QEMU TCG "-cpu max", the machine make check boots (from QEMU's TCG
 * feature lists): AMD family 0Fh, hypervisor bit, no PerfCtrExtCore.
 */
static const struct x86_perfctr_test_leaf qemu_tcg_cpu_max[] = {
	{ 0x0, { 0xd, AMD_EBX, AMD_ECX, AMD_EDX } },
	{ 0x1, { 0x00060fb1, 0x00000800, 0xfed8320b, 0x078bfbff } },
	{ 0x80000000, { 0x8000000a, AMD_EBX, AMD_ECX, AMD_EDX } },
	{ 0x80000001, { 0x00060fb1, 0x00000000, 0x00000175, 0x2fd3fbff } },
	{ TEST_CPUID_END },
};

/*
 * The descriptions, in the SDM's and the APM's terms: MSR addresses as
 * the manuals give them, not from the kernel's headers.
 */
#define FEATURES_ALL	(PERFCTR_FEATURE_RDTSC | PERFCTR_FEATURE_RDPMC | \
			 PERFCTR_FEATURE_PCINT)
#define FEATURES_NO_APIC (PERFCTR_FEATURE_RDTSC | PERFCTR_FEATURE_RDPMC)

/* Event select, unit mask, USR, OS, edge, invert, counter mask. */
#define SEL_INTEL_USER	0xff87ffffULL
/* And event select bits 11:8 (at 35:32), GuestOnly, HostOnly. */
#define SEL_AMD_USER	(SEL_INTEL_USER | 0xfULL << 32 | 0x3ULL << 40)

#define INTEL_ARCH(v, n, width)						\
	.pmu.name = "Intel architectural perfmon",			\
	.pmu.cpu_type = PERFCTR_X86_INTEL_ARCH,				\
	.version = (v), .pmu.nrctrs = (n), .pmu.ctr_width = (width),	\
	.eventsel = 0x186, .perfctr_reserve = 0xc1, .stride = 1
/* IA32_PMCx, which takes 32 bits on a write, or IA32_A_PMCx. */
#define INTEL_PMC	.perfctr = 0xc1, .ireset_min = S32_MIN
#define INTEL_A_PMC	.perfctr = 0x4c1, .ireset_min = S64_MIN
#define INTEL_FIXED(mask, n, width)					\
	.fixed_mask = (mask), .pmu.nrfixed = (n), .pmu.fixed_width = (width), \
	.fixed_ctr = 0x309, .fixed_ctrl = 0x38d
#define INTEL_GLOBAL							\
	.global_ctrl = 0x38f, .global_status = 0x38e, .global_ovf_ctrl = 0x390
/*
 * IA32_PERF_CAPABILITIES bit 15: PERF_METRICS (0x329) divides fixed
 * counter 3's slots into @n TopDown categories.
 */
#define CAP_METRICS	BIT_ULL(15)
#define TOPDOWN(n)							\
	.perf_metrics = 0x329, .pmu.nrmetrics = (n),			\
	.pmu.features = FEATURES_ALL | PERFCTR_FEATURE_TOPDOWN

#define AMD(name_, n)							\
	.pmu.name = (name_), .pmu.cpu_type = PERFCTR_X86_AMD,		\
	.pmu.nrctrs = (n), .pmu.ctr_width = 48,				\
	.evntsel_user = SEL_AMD_USER, .ireset_min = S64_MIN
#define AMD_LEGACY							\
	.eventsel = 0xc0010000, .perfctr = 0xc0010004,			\
	.perfctr_reserve = 0xc0010004, .stride = 1
#define AMD_CORE							\
	.eventsel = 0xc0010200, .perfctr = 0xc0010201,			\
	.perfctr_reserve = 0xc0010201, .stride = 2
#define AMD_GLOBAL							\
	.global_ctrl = 0xc0000301, .global_status = 0xc0000300,	\
	.global_ovf_ctrl = 0xc0000302

#define TSC_ONLY							\
	.pmu.name = "x86 TSC", .pmu.cpu_type = PERFCTR_X86_GENERIC,	\
	.pmu.features = PERFCTR_FEATURE_RDTSC

const struct x86_perfctr_test_cpu x86_perfctr_test_cpus[TEST_NR_CPUS] = {
	[TEST_CPU_SKYLAKE] = {
		"Core i7-6700K (Skylake-S)", skylake_i7_6700k, 0x33c5, {
			INTEL_ARCH(4, 4, 48), INTEL_A_PMC,
			/* 7 events announced, all available; none beyond. */
			.events_unavailable = ~0x7fU,
			.evntsel_user = SEL_INTEL_USER | SEL_ANY,
			INTEL_FIXED(0x7, 3, 48),
			.fixed_evntsel_user = SEL_USR | SEL_OS | SEL_ANY,
			INTEL_GLOBAL, .pmu.features = FEATURES_ALL,
		},
	},
	[TEST_CPU_SKYLAKE_NO_APIC] = {
		"Core i7-6700K without local APIC", skylake_without_apic,
		0x33c5, {
			INTEL_ARCH(4, 4, 48), INTEL_A_PMC,
			.events_unavailable = ~0x7fU,
			.evntsel_user = SEL_INTEL_USER | SEL_ANY,
			INTEL_FIXED(0x7, 3, 48),
			.fixed_evntsel_user = SEL_USR | SEL_OS | SEL_ANY,
			/* Counters to read, but no interrupt for them. */
			INTEL_GLOBAL, .pmu.features = FEATURES_NO_APIC,
		},
	},
	[TEST_CPU_ICELAKE] = {
		"Core i7-1065G7 (Ice Lake-U)", icelake_i7_1065g7,
		0x000f33c5 | CAP_METRICS, {
			INTEL_ARCH(5, 8, 48), INTEL_A_PMC,
			.events_unavailable = ~0xffU,
			.evntsel_user = SEL_INTEL_USER,
			INTEL_FIXED(0xf, 4, 48),
			.fixed_evntsel_user = SEL_USR | SEL_OS,
			INTEL_GLOBAL, TOPDOWN(4),
		},
	},
	[TEST_CPU_SAPPHIRE_RAPIDS] = {
		"Xeon Platinum 8480+ (Sapphire Rapids)", sapphire_rapids_8480,
		0x000f33c5 | CAP_METRICS, {
			INTEL_ARCH(5, 8, 48), INTEL_A_PMC,
			.events_unavailable = ~0xffU,
			.evntsel_user = SEL_INTEL_USER,
			INTEL_FIXED(0xf, 4, 48),
			.fixed_evntsel_user = SEL_USR | SEL_OS,
			INTEL_GLOBAL, TOPDOWN(8),
		},
	},
	[TEST_CPU_ALDER_LAKE_P] = {
		"Core i9-12900K (Alder Lake-S) P-core", alder_lake_p_core,
		0x000f33c5, {
			INTEL_ARCH(5, 6, 48), INTEL_A_PMC,
			.events_unavailable = ~0x7fU,
			.evntsel_user = SEL_INTEL_USER,
			/* Fixed counter 3, which PERF_METRICS implies. */
			INTEL_FIXED(0xf, 4, 48),
			.fixed_evntsel_user = SEL_USR | SEL_OS,
			INTEL_GLOBAL, TOPDOWN(8),
			.hybrid_core_type = 0x40,
		},
	},
	[TEST_CPU_ALDER_LAKE_E] = {
		"Core i9-12900K (Alder Lake-S) E-core", alder_lake_e_core,
		0x000f33c5, {
			INTEL_ARCH(5, 6, 48), INTEL_A_PMC,
			.events_unavailable = ~0x7fU,
			.evntsel_user = SEL_INTEL_USER,
			INTEL_FIXED(0x7, 3, 48),
			.fixed_evntsel_user = SEL_USR | SEL_OS,
			INTEL_GLOBAL, .pmu.features = FEATURES_ALL,
			.hybrid_core_type = 0x20,
		},
	},
	[TEST_CPU_PERFMON_V1] = {
		/* No PDCM, so IA32_PERF_CAPABILITIES is not read. */
		"Perfmon version 1 (Core Solo/Duo era)", perfmon_v1, ~0ULL, {
			INTEL_ARCH(1, 2, 40), INTEL_PMC,
			.events_unavailable = ~0x7fU,
			.evntsel_user = SEL_INTEL_USER,
			.pmu.features = FEATURES_ALL,
		},
	},
	[TEST_CPU_PERFMON_V2_UNENUMERATED_FIXED] = {
		"Perfmon version 2, fixed counters not in CPUID",
		perfmon_v2_no_edx, 0, {
			INTEL_ARCH(2, 2, 40), INTEL_PMC,
			.events_unavailable = ~0x7fU,
			.evntsel_user = SEL_INTEL_USER,
			/* As wide as the general-purpose counters. */
			INTEL_FIXED(0x7, 3, 40),
			.fixed_evntsel_user = SEL_USR | SEL_OS,
			INTEL_GLOBAL, .pmu.features = FEATURES_ALL,
		},
	},
	[TEST_CPU_PERFMON_V2_UNENUMERATED_FIXED_VM] = {
		"Perfmon version 2, fixed counters not in CPUID, guest",
		perfmon_v2_no_edx_vm, 0, {
			INTEL_ARCH(2, 2, 40), INTEL_PMC,
			.events_unavailable = ~0x7fU,
			.evntsel_user = SEL_INTEL_USER,
			INTEL_GLOBAL, .pmu.features = FEATURES_ALL,
		},
	},
	[TEST_CPU_ZEN2] = {
		"Ryzen 7 3700X (Zen 2)", zen2_ryzen_3700x, 0, {
			AMD("AMD core counters", 6), AMD_CORE,
			.pmu.features = FEATURES_ALL,
		},
	},
	[TEST_CPU_ZEN4] = {
		"Ryzen 5 7600X (Zen 4)", zen4_ryzen_7600x, 0, {
			AMD("AMD PerfMonV2", 6), AMD_CORE, .version = 2,
			AMD_GLOBAL, .pmu.features = FEATURES_ALL,
		},
	},
	[TEST_CPU_K10] = {
		"Phenom II X4 (K10)", k10_phenom_ii, 0, {
			AMD("AMD legacy counters", 4), AMD_LEGACY,
			.pmu.features = FEATURES_ALL,
		},
	},
	[TEST_CPU_K8] = {
		"Athlon 64 (K8)", k8_athlon64, 0, { TSC_ONLY },
	},
	[TEST_CPU_KVM_INTEL_NO_VPMU] = {
		"KVM guest without a virtual PMU, Intel",
		hypervisor_no_vpmu_intel, 0, { TSC_ONLY },
	},
	[TEST_CPU_KVM_AMD_NO_VPMU] = {
		"KVM guest without a virtual PMU, AMD",
		hypervisor_no_vpmu_amd, 0, { TSC_ONLY },
	},
	[TEST_CPU_QEMU_TCG] = {
		"QEMU TCG -cpu max", qemu_tcg_cpu_max, 0, { TSC_ONLY },
	},
};

KUNIT_ARRAY_PARAM_DESC(recorded_cpus, x86_perfctr_test_cpus, name);

/**
 * x86_perfctr_test_cpu_params - every recorded processor, for
 *	KUNIT_CASE_PARAM()
 * @prev: the processor of the previous run, NULL for the first
 * @desc: its name, for the test log
 *
 * Return: the next processor, or NULL after the last.
 */
const void *x86_perfctr_test_cpu_params(const void *prev, char *desc)
{
	return recorded_cpus_gen_params(prev, desc);
}

/**
 * x86_perfctr_test_cpuid - what CPUID leaf @leaf reads on @cpu
 * @cpu: the recorded processor
 * @leaf: EAX input; every subleaf reads the same
 * @regs: EAX, EBX, ECX and EDX, zero for a leaf not recorded
 */
void x86_perfctr_test_cpuid(const struct x86_perfctr_test_cpu *cpu, u32 leaf,
			    u32 regs[4])
{
	unsigned int i;

	memset(regs, 0, 4 * sizeof(u32));
	for (i = 0; cpu->leaves[i].leaf != TEST_CPUID_END; i++)
		if (cpu->leaves[i].leaf == leaf)
			memcpy(regs, cpu->leaves[i].regs, 4 * sizeof(u32));
}

/* The kernel's identification of @cpu, as identify_cpu() makes it. */
static void identify(const struct x86_perfctr_test_cpu *cpu,
		     struct cpuinfo_x86 *c)
{
	u32 regs[4];

	memset(c, 0, sizeof(*c));
	x86_perfctr_test_cpuid(cpu, 0, regs);
	c->cpuid_level = regs[0];
	if (regs[1] == INTEL_EBX && regs[3] == INTEL_EDX && regs[2] == INTEL_ECX)
		c->x86_vendor = X86_VENDOR_INTEL;
	else if (regs[1] == AMD_EBX && regs[3] == AMD_EDX && regs[2] == AMD_ECX)
		c->x86_vendor = X86_VENDOR_AMD;
	else
		c->x86_vendor = X86_VENDOR_UNKNOWN;

	/* get_cpu_cap(): the feature words, straight from CPUID. */
	x86_perfctr_test_cpuid(cpu, 1, regs);
	c->x86 = x86_family(regs[0]);
	c->x86_model = x86_model(regs[0]);
	c->x86_capability[CPUID_1_ECX] = regs[2];
	c->x86_capability[CPUID_1_EDX] = regs[3];
	if (c->cpuid_level >= 7) {
		x86_perfctr_test_cpuid(cpu, 7, regs);
		c->x86_capability[CPUID_7_EDX] = regs[3];
	}
	x86_perfctr_test_cpuid(cpu, 0x80000000, regs);
	c->extended_cpuid_level = regs[0];
	if (c->extended_cpuid_level >= 0x80000001) {
		x86_perfctr_test_cpuid(cpu, 0x80000001, regs);
		c->x86_capability[CPUID_8000_0001_ECX] = regs[2];
	}
	/* init_scattered_cpuid_features(): PerfMonV2. */
	if (c->extended_cpuid_level >= 0x80000022) {
		x86_perfctr_test_cpuid(cpu, 0x80000022, regs);
		if (regs[0] & BIT(0))
			set_cpu_cap(c, X86_FEATURE_PERFMON_V2);
	}
	/* init_intel(): a version and more than one counter. */
	if (c->x86_vendor == X86_VENDOR_INTEL && c->cpuid_level > 9) {
		x86_perfctr_test_cpuid(cpu, 0xa, regs);
		if ((regs[0] & 0xff) && ((regs[0] >> 8) & 0xff) > 1)
			set_cpu_cap(c, X86_FEATURE_ARCH_PERFMON);
	}
}

/* The processor detection runs on, in x86_perfctr_test_detect(). */
static const struct x86_perfctr_test_cpu *imitated;

static void imitated_cpuid(u32 leaf, u32 subleaf, u32 regs[4])
{
	x86_perfctr_test_cpuid(imitated, leaf, regs);
}

static u64 imitated_capabilities(void)
{
	return imitated->perf_capabilities;
}

static void restore_active_desc(void *desc)
{
	x86_perfctr_active_desc = desc;
}

/**
 * x86_perfctr_test_keep_desc - put the description in use back after a case
 * @test: the case, which may point x86_perfctr_active_desc elsewhere
 */
void x86_perfctr_test_keep_desc(struct kunit *test)
{
	void *desc = (void *)x86_perfctr_active_desc;
	int err = kunit_add_action_or_reset(test, restore_active_desc, desc);

	KUNIT_ASSERT_EQ(test, err, 0);
}

/**
 * x86_perfctr_test_detect - run the detection on a recorded processor
 * @test: the test case
 * @cpu: the processor
 * @desc: the description to fill in
 */
void x86_perfctr_test_detect(struct kunit *test,
			     const struct x86_perfctr_test_cpu *cpu,
			     struct x86_perfctr_desc *desc)
{
	struct cpuinfo_x86 *c = kunit_kzalloc(test, sizeof(*c), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, c);
	identify(cpu, c);
	imitated = cpu;
	kunit_activate_static_stub(test, x86_perfctr_cpuid, imitated_cpuid);
	kunit_activate_static_stub(test, x86_perfctr_read_capabilities,
				   imitated_capabilities);
	x86_perfctr_detect(desc, c);
	kunit_deactivate_static_stub(test, x86_perfctr_read_capabilities);
	kunit_deactivate_static_stub(test, x86_perfctr_cpuid);
	imitated = NULL;
}

/**
 * x86_perfctr_test_desc - the description detection makes of a processor
 * @test: the test case, which owns the description
 * @cpu: the recorded processor
 *
 * Return: the description.
 */
const struct x86_perfctr_desc *
x86_perfctr_test_desc(struct kunit *test, const struct x86_perfctr_test_cpu *cpu)
{
	struct x86_perfctr_desc *desc = kunit_kzalloc(test, sizeof(*desc),
						      GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, desc);
	x86_perfctr_test_detect(test, cpu, desc);
	return desc;
}
