// SPDX-License-Identifier: GPL-2.0
/*
 * Detection of the x86 counter hardware, from CPUID alone.
 *
 * Intel: architectural performance monitoring, CPUID leaf 0xA (SDM vol. 3B,
 * "Performance Monitoring"): version, general-purpose counters and their
 * width, unavailable architectural events, fixed counters (a count from
 * version 2, a bitmap as well from version 5), global control from
 * version 2, and full-width counter writes through IA32_A_PMCx when
 * IA32_PERF_CAPABILITIES bit 13 says so.
 *
 * AMD (APM vol. 2, "Performance Monitor Counters"): from family 10h the
 * four legacy counters; with PerfCtrExtCore (CPUID 0x80000001 ECX bit 23)
 * the six core counters at 0xC0010200, control and counter interleaved;
 * with PerfMonV2 (CPUID 0x80000022 EAX bit 0) their number from EBX and
 * global control and status.
 *
 * Anything else (no architectural perfmon, version 0 as a hypervisor
 * without a virtual PMU reports it, P6 and Pentium 4, K7 and K8) gets the
 * TSC-only driver.  No model tables: what CPUID says is what is used.
 */
#include <linux/bits.h>
#include <linux/bitops.h>
#include <linux/cpumask.h>
#include <linux/perfctr.h>
#include <linux/string.h>
#include <kunit/static_stub.h>
#include <asm/cpuid.h>
#include <asm/msr.h>
#include <asm/msr-index.h>
#include <asm/perf_event.h>
#include <linux/perfctr_pmu.h>

#include "perfctr.h"

/* CPUID.1:EDX */
#define PERFCTR_CPUID1_APIC		BIT(9)
/* CPUID.1:ECX */
#define PERFCTR_CPUID1_PDCM		BIT(15)	/* IA32_PERF_CAPABILITIES */
#define PERFCTR_CPUID1_HYPERVISOR	BIT(31)
/* CPUID.(EAX=7,ECX=0):EDX */
#define PERFCTR_CPUID7_HYBRID		BIT(15)
/* CPUID.80000001H:ECX */
#define PERFCTR_AMD_PERFCTR_CORE	BIT(23)
/* CPUID.80000022H:EAX */
#define PERFCTR_AMD_PERFMON_V2		BIT(0)
/* IA32_PERF_CAPABILITIES: writes to IA32_A_PMCx set all counter bits */
#define PERFCTR_PERF_CAP_FW_WRITE	BIT_ULL(13)

/* The most counters this driver programs, of each kind. */
#define PERFCTR_X86_MAX_GP		16
#define PERFCTR_X86_MAX_FIXED		16
#define PERFCTR_AMD_LEGACY_CTRS		4
#define PERFCTR_AMD_CORE_CTRS		6
#define PERFCTR_AMD_WIDTH		48

/**
 * perfctr_cpu_cpuid - execute CPUID
 * @leaf: EAX input
 * @subleaf: ECX input
 * @regs: EAX, EBX, ECX and EDX output, in that order
 */
void perfctr_cpu_cpuid(u32 leaf, u32 subleaf, u32 regs[4])
{
	KUNIT_STATIC_STUB_REDIRECT(perfctr_cpu_cpuid, leaf, subleaf, regs);
	cpuid_count(leaf, subleaf, &regs[0], &regs[1], &regs[2], &regs[3]);
}

/**
 * perfctr_cpu_read_capabilities - read IA32_PERF_CAPABILITIES
 *
 * Only called when CPUID.1:ECX.PDCM says the MSR exists.
 *
 * Return: its value, or 0 if it cannot be read.
 */
u64 perfctr_cpu_read_capabilities(void)
{
	u64 caps;

	KUNIT_STATIC_STUB_REDIRECT(perfctr_cpu_read_capabilities);
	if (rdmsrl_safe(MSR_IA32_PERF_CAPABILITIES, &caps))
		return 0;
	return caps;
}

/**
 * perfctr_cpu_set_tsc_only - describe no counters but the TSC
 * @desc: the description; its clock rates are left alone
 */
void perfctr_cpu_set_tsc_only(struct perfctr_cpu_desc *desc)
{
	desc->pmu.name = "x86 TSC";
	desc->pmu.cpu_type = PERFCTR_X86_GENERIC;
	desc->version = 0;
	desc->pmu.nrctrs = 0;
	desc->pmu.ctr_width = 0;
	desc->pmu.nrfixed = 0;
	desc->pmu.fixed_width = 0;
	desc->fixed_mask = 0;
	desc->events_unavailable = 0;
	desc->global_ctrl = false;
	desc->full_width_write = false;
	desc->amd_core = false;
	desc->hybrid_core_type = 0;
	desc->pmu.features = PERFCTR_FEATURE_RDTSC;
}

static void perfctr_detect_intel(struct perfctr_cpu_desc *desc, u32 max_leaf,
				 u32 cpuid1_ecx)
{
	union cpuid10_eax eax;
	union cpuid10_edx edx;
	u32 regs[4], len;

	if (max_leaf < 0xa)
		return;
	perfctr_cpu_cpuid(0xa, 0, regs);
	eax.full = regs[0];
	edx.full = regs[3];
	if (!eax.split.version_id || !eax.split.num_counters ||
	    !eax.split.bit_width)
		return;

	desc->pmu.name = "Intel architectural perfmon";
	desc->pmu.cpu_type = PERFCTR_X86_INTEL_ARCH;
	desc->version = eax.split.version_id;
	desc->pmu.nrctrs = min_t(u32, eax.split.num_counters, PERFCTR_X86_MAX_GP);
	desc->pmu.ctr_width = eax.split.bit_width;
	/* Events beyond the vector's length are not available either. */
	len = eax.split.mask_length;
	desc->events_unavailable = regs[1];
	if (len < 32)
		desc->events_unavailable |= ~0U << len;
	if (desc->version >= 2) {
		desc->global_ctrl = true;
		desc->pmu.fixed_width = edx.split.bit_width_fixed;
		if (edx.split.num_counters_fixed)
			desc->fixed_mask =
				GENMASK(edx.split.num_counters_fixed - 1, 0);
		/* Version 5: fixed counters may be present out of order. */
		if (desc->version >= 5)
			desc->fixed_mask |= regs[2];
		desc->fixed_mask &= GENMASK(PERFCTR_X86_MAX_FIXED - 1, 0);
		if (!desc->pmu.fixed_width)
			desc->fixed_mask = 0;
		desc->pmu.nrfixed = hweight32(desc->fixed_mask);
	}
	if (cpuid1_ecx & PERFCTR_CPUID1_PDCM)
		desc->full_width_write = perfctr_cpu_read_capabilities() &
					 PERFCTR_PERF_CAP_FW_WRITE;
	/* Hybrid: the type of the core this runs on, CPUID.1AH:EAX[31:24]. */
	if (max_leaf >= 0x1a) {
		perfctr_cpu_cpuid(0x7, 0, regs);
		if (regs[3] & PERFCTR_CPUID7_HYBRID) {
			perfctr_cpu_cpuid(0x1a, 0, regs);
			desc->hybrid_core_type = regs[0] >> 24;
		}
	}
}

static void perfctr_detect_amd(struct perfctr_cpu_desc *desc, u32 family,
			       u32 cpuid1_ecx)
{
	u32 regs[4], max_ext, ext_ecx = 0;

	perfctr_cpu_cpuid(0x80000000, 0, regs);
	max_ext = regs[0];
	if (max_ext >= 0x80000001) {
		perfctr_cpu_cpuid(0x80000001, 0, regs);
		ext_ecx = regs[2];
	}
	/* K7 and K8: TSC only.  Family 10h on: at least the legacy four. */
	if (family < 0x10)
		return;
	if (!(ext_ecx & PERFCTR_AMD_PERFCTR_CORE)) {
		/*
		 * Nothing in CPUID announces the legacy counters, and a
		 * hypervisor without a virtual PMU does not emulate them.
		 */
		if (cpuid1_ecx & PERFCTR_CPUID1_HYPERVISOR)
			return;
		desc->pmu.name = "AMD legacy counters";
		desc->pmu.cpu_type = PERFCTR_X86_AMD;
		desc->pmu.nrctrs = PERFCTR_AMD_LEGACY_CTRS;
		desc->pmu.ctr_width = PERFCTR_AMD_WIDTH;
		desc->amd_core = false;
		return;
	}
	desc->pmu.name = "AMD core counters";
	desc->pmu.cpu_type = PERFCTR_X86_AMD;
	desc->pmu.nrctrs = PERFCTR_AMD_CORE_CTRS;
	desc->pmu.ctr_width = PERFCTR_AMD_WIDTH;
	desc->amd_core = true;
	if (max_ext >= 0x80000022) {
		union cpuid_0x80000022_ebx ebx;

		perfctr_cpu_cpuid(0x80000022, 0, regs);
		ebx.full = regs[1];
		if (regs[0] & PERFCTR_AMD_PERFMON_V2) {
			desc->pmu.name = "AMD PerfMonV2";
			desc->version = 2;
			desc->global_ctrl = true;
			if (ebx.split.num_core_pmc)
				desc->pmu.nrctrs = min_t(u32, ebx.split.num_core_pmc,
						     PERFCTR_X86_MAX_GP);
		}
	}
}

/**
 * perfctr_cpu_detect - describe the counter hardware of this CPU
 * @desc: filled in; its clock rates are left alone
 *
 * Uses only CPUID (and IA32_PERF_CAPABILITIES where CPUID announces it).
 */
void perfctr_cpu_detect(struct perfctr_cpu_desc *desc)
{
	u32 regs[4], max_leaf, family, cpuid1_ecx = 0, cpuid1_edx;
	char vendor[12];

	perfctr_cpu_set_tsc_only(desc);
	perfctr_cpu_cpuid(0, 0, regs);
	max_leaf = regs[0];
	memcpy(vendor, &regs[1], 4);
	memcpy(vendor + 4, &regs[3], 4);
	memcpy(vendor + 8, &regs[2], 4);
	if (max_leaf < 1)
		return;
	perfctr_cpu_cpuid(1, 0, regs);
	cpuid1_ecx = regs[2];
	cpuid1_edx = regs[3];
	family = (regs[0] >> 8) & 0xf;
	if (family == 0xf)
		family += (regs[0] >> 20) & 0xff;

	if (!memcmp(vendor, "GenuineIntel", 12))
		perfctr_detect_intel(desc, max_leaf, cpuid1_ecx);
	else if (!memcmp(vendor, "AuthenticAMD", 12) ||
		 !memcmp(vendor, "HygonGenuine", 12))
		perfctr_detect_amd(desc, family, cpuid1_ecx);
	/*
	 * Counters can be read with rdpmc; their overflow interrupt needs
	 * the local APIC.
	 */
	if (desc->pmu.nrctrs) {
		desc->pmu.features |= PERFCTR_FEATURE_RDPMC;
		if (cpuid1_edx & PERFCTR_CPUID1_APIC)
			desc->pmu.features |= PERFCTR_FEATURE_PCINT;
	}
}

/**
 * perfctr_cpu_classify - note whether this CPU can count as described
 * @cpu: the CPU this runs on
 *
 * On a hybrid processor the counters are described for the core type of
 * the boot CPU; CPUs of another type (CPUID.1AH:EAX[31:24]) go into
 * perfctr_cpus_forbidden_mask, and threads with hardware counters are
 * kept off them.
 */
void perfctr_cpu_classify(unsigned int cpu)
{
	const struct perfctr_cpu_desc *desc = perfctr_cpu_active_desc();
	u32 regs[4];

	if (!desc->hybrid_core_type)
		return;
	perfctr_cpu_cpuid(0x1a, 0, regs);
	if (regs[0] >> 24 == desc->hybrid_core_type)
		cpumask_clear_cpu(cpu, &perfctr_cpus_forbidden_mask);
	else
		cpumask_set_cpu(cpu, &perfctr_cpus_forbidden_mask);
}
