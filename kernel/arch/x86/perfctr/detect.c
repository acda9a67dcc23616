// SPDX-License-Identifier: GPL-2.0
/*
 * Detection of the x86 counter hardware: what the kernel's CPU feature
 * bits and CPUID say, made once into the data that program.c programs
 * the counters from (struct x86_perfctr_desc).  This is the one place
 * that asks which vendor made the processor.
 *
 * Intel: architectural performance monitoring (X86_FEATURE_ARCH_PERFMON),
 * CPUID leaf 0xA (SDM vol. 3B, "Performance Monitoring"): version,
 * general-purpose counters and their width, unavailable architectural
 * events, fixed counters (a count from version 2, a bitmap as well from
 * version 5), global control from version 2, and full-width counter
 * writes through IA32_A_PMCx when IA32_PERF_CAPABILITIES (X86_FEATURE_PDCM)
 * bit 13 says so, and TopDown's PERF_METRICS when its bit 15 says so.
 *
 * AMD (APM vol. 2, "Performance Monitor Counters"): from family 10h the
 * four legacy counters; with X86_FEATURE_PERFCTR_CORE the six core
 * counters at 0xC0010200, control and counter interleaved; with
 * X86_FEATURE_PERFMON_V2 their number from CPUID 0x80000022 EBX, and
 * global control and status.
 *
 * Anything else (no architectural perfmon, version 0 as a hypervisor
 * without a virtual PMU reports it, P6 and Pentium 4, K7 and K8) gets the
 * TSC-only driver.  No model tables: what the processor says is what is
 * used, except for TopDown level 2, which no CPUID leaf or MSR bit
 * announces: it is taken from perf's list of the cores that have it.
 */
#include <linux/bitops.h>
#include <linux/bits.h>
#include <linux/cpufeature.h>
#include <linux/cpumask.h>
#include <linux/limits.h>
#include <linux/minmax.h>
#include <linux/perfctr.h>
#include <linux/perfctr_pmu.h>
#include <linux/processor.h>
#include <kunit/static_stub.h>
#include <kunit/visibility.h>
#include <asm/cpu.h>
#include <asm/cpu_device_id.h>
#include <asm/cpuid.h>
#include <asm/intel-family.h>
#include <asm/msr.h>
#include <asm/msr-index.h>
#include <asm/perf_event.h>

#include "perfctr.h"

/* IA32_PERF_CAPABILITIES: writes to IA32_A_PMCx set all counter bits */
#define X86_PERFCTR_CAP_FW_WRITE	BIT_ULL(13)
/* ... and PERF_METRICS breaks fixed counter 3's slots down (TopDown) */
#define X86_PERFCTR_CAP_METRICS		BIT_ULL(PERF_CAP_METRICS_IDX)
/* CPUID.1AH:EAX[31:24] of a hybrid part's performance cores */
#define X86_PERFCTR_HYBRID_CORE		0x40

/* The most counters this driver programs, of each kind. */
#define X86_PERFCTR_MAX_GP		16
#define X86_PERFCTR_MAX_FIXED		16
#define X86_PERFCTR_AMD_WIDTH		48

/* Fixed counters 0 to 2: instructions, core cycles, reference cycles. */
#define X86_PERFCTR_ARCH_FIXED		3

/* What user space may set in an event selector, on each vendor's. */
#define X86_PERFCTR_INTEL_EVNTSEL					\
	(ARCH_PERFMON_EVENTSEL_EVENT | ARCH_PERFMON_EVENTSEL_UMASK |	\
	 ARCH_PERFMON_EVENTSEL_USR | ARCH_PERFMON_EVENTSEL_OS |		\
	 ARCH_PERFMON_EVENTSEL_EDGE | ARCH_PERFMON_EVENTSEL_INV |	\
	 ARCH_PERFMON_EVENTSEL_CMASK)
#define X86_PERFCTR_AMD_EVNTSEL						\
	(AMD64_EVENTSEL_EVENT | ARCH_PERFMON_EVENTSEL_UMASK |		\
	 ARCH_PERFMON_EVENTSEL_USR | ARCH_PERFMON_EVENTSEL_OS |		\
	 ARCH_PERFMON_EVENTSEL_EDGE | ARCH_PERFMON_EVENTSEL_INV |	\
	 ARCH_PERFMON_EVENTSEL_CMASK | AMD64_EVENTSEL_GUESTONLY |	\
	 AMD64_EVENTSEL_HOSTONLY)
/* ... and in an Intel fixed counter's, which counts one event only. */
#define X86_PERFCTR_FIXED_EVNTSEL					\
	(ARCH_PERFMON_EVENTSEL_USR | ARCH_PERFMON_EVENTSEL_OS)

/**
 * x86_perfctr_cpuid - execute CPUID on this CPU
 * @leaf: EAX input
 * @subleaf: ECX input
 * @regs: EAX, EBX, ECX and EDX output, in that order
 *
 * For what the kernel keeps no feature bit of: the contents of leaf 0xA
 * and the number of AMD core counters.
 */
VISIBLE_IF_KUNIT void x86_perfctr_cpuid(u32 leaf, u32 subleaf, u32 regs[4])
{
	KUNIT_STATIC_STUB_REDIRECT(x86_perfctr_cpuid, leaf, subleaf, regs);
	cpuid_count(leaf, subleaf, &regs[0], &regs[1], &regs[2], &regs[3]);
}

/**
 * x86_perfctr_read_capabilities - read IA32_PERF_CAPABILITIES
 *
 * Only called when X86_FEATURE_PDCM says the MSR exists.
 *
 * Return: its value, or 0 if it cannot be read.
 */
VISIBLE_IF_KUNIT u64 x86_perfctr_read_capabilities(void)
{
	u64 caps;

	KUNIT_STATIC_STUB_REDIRECT(x86_perfctr_read_capabilities);
	if (rdmsrl_safe(MSR_IA32_PERF_CAPABILITIES, &caps))
		return 0;
	return caps;
}

/*
 * The hybrid core type of this CPU, CPUID.1AH:EAX[31:24] (0x20 Atom, 0x40
 * Core), as get_this_hybrid_cpu_type() reads it: only on a hybrid
 * processor.
 */
static u8 x86_perfctr_core_type(void)
{
	u32 regs[4];

	x86_perfctr_cpuid(0x1a, 0, regs);
	return regs[0] >> 24;
}

/**
 * x86_perfctr_set_tsc_only - describe no counters but the TSC
 * @desc: the description; its clock rates are left alone
 */
void x86_perfctr_set_tsc_only(struct x86_perfctr_desc *desc)
{
	u32 cpu_khz = desc->pmu.cpu_khz, tsc_khz = desc->pmu.tsc_khz;

	*desc = (struct x86_perfctr_desc){
		.pmu.name	= "x86 TSC",
		.pmu.cpu_type	= PERFCTR_X86_GENERIC,
		.pmu.features	= PERFCTR_FEATURE_RDTSC,
		.pmu.cpu_khz	= cpu_khz,
		.pmu.tsc_khz	= tsc_khz,
	};
}

/*
 * Fixed counters, from version 2: EDX gives their number, counters 0 to
 * N-1, and their width; from version 5 ECX is a bitmap of those present,
 * which is added to those.  None if their width is 0.
 */
static void x86_perfctr_detect_fixed(struct x86_perfctr_desc *desc,
				     const struct cpuinfo_x86 *c,
				     union cpuid10_edx edx, u32 ecx, u64 any)
{
	u32 nr = edx.split.num_counters_fixed;
	u32 width = edx.split.bit_width_fixed;
	u32 mask;

	/*
	 * perf's quirk (intel_pmu_init()): versions 2 to 4 may enumerate
	 * fewer fixed counters than the architectural three, or none.  perf
	 * assumes the three unless under a hypervisor, and every counter as
	 * wide as the general-purpose ones.
	 */
	if (desc->version < 5 && nr < X86_PERFCTR_ARCH_FIXED &&
	    !cpu_has(c, X86_FEATURE_HYPERVISOR)) {
		nr = X86_PERFCTR_ARCH_FIXED;
		if (!width)
			width = desc->pmu.ctr_width;
	}
	mask = nr ? GENMASK(nr - 1, 0) : 0;
	if (desc->version >= 5)
		mask |= ecx;
	mask &= GENMASK(X86_PERFCTR_MAX_FIXED - 1, 0);
	desc->pmu.fixed_width = width;
	if (!width || !mask)
		return;
	desc->fixed_mask = mask;
	desc->pmu.nrfixed = hweight32(mask);
	desc->fixed_ctr = MSR_CORE_PERF_FIXED_CTR0;
	desc->fixed_ctrl = MSR_CORE_PERF_FIXED_CTR_CTRL;
	desc->fixed_evntsel_user = X86_PERFCTR_FIXED_EVNTSEL | any;
}

/*
 * TopDown level 2 (the upper four bytes of PERF_METRICS): Golden Cove and
 * later performance cores, as perf lists them (intel_pmu_init_glc() and
 * its callers: num_topdown_events 8).
 */
static bool x86_perfctr_has_topdown_l2(const struct cpuinfo_x86 *c)
{
	switch (c->x86_vfm) {
	case INTEL_SAPPHIRERAPIDS_X:
	case INTEL_EMERALDRAPIDS_X:
	case INTEL_GRANITERAPIDS_X:
	case INTEL_GRANITERAPIDS_D:
	case INTEL_ALDERLAKE:
	case INTEL_ALDERLAKE_L:
	case INTEL_RAPTORLAKE:
	case INTEL_RAPTORLAKE_P:
	case INTEL_RAPTORLAKE_S:
	case INTEL_METEORLAKE:
	case INTEL_METEORLAKE_L:
	case INTEL_ARROWLAKE_U:
	case INTEL_ARROWLAKE:
	case INTEL_LUNARLAKE_M:
		return true;
	}
	return false;
}

/*
 * TopDown (SDM vol. 3B, "Performance Metrics"): PERF_METRICS divides the
 * slots of fixed counter 3, so where it exists, fixed counter 3 exists,
 * even where leaf 0xA enumerates only the fixed counters that every core
 * type of a hybrid part has.  IA32_PERF_CAPABILITIES announces it, except
 * on a hybrid part, where the bit reads 0 as the efficient cores have no
 * metrics: perf gives them to the performance cores of the parts of its
 * list (intel_pmu_init_hybrid()), and so does this driver.
 */
static void x86_perfctr_detect_topdown(struct x86_perfctr_desc *desc,
				       const struct cpuinfo_x86 *c, u64 caps)
{
	bool l2 = x86_perfctr_has_topdown_l2(c);
	bool big_core = desc->hybrid_core_type == X86_PERFCTR_HYBRID_CORE && l2;

	if (!desc->fixed_mask ||
	    (!(caps & X86_PERFCTR_CAP_METRICS) && !big_core))
		return;
	desc->fixed_mask |= BIT(PERFCTR_X86_FIXED_SLOTS);
	desc->pmu.nrfixed = hweight32(desc->fixed_mask);
	desc->perf_metrics = MSR_PERF_METRICS;
	desc->pmu.nrmetrics = l2 ? 8 : 4;
	desc->pmu.features |= PERFCTR_FEATURE_TOPDOWN;
}

static void x86_perfctr_detect_intel(struct x86_perfctr_desc *desc,
				     const struct cpuinfo_x86 *c)
{
	union cpuid10_eax eax;
	union cpuid10_edx edx;
	u32 regs[4], len;
	u64 any = 0, caps = 0;

	if (!cpu_has(c, X86_FEATURE_ARCH_PERFMON))
		return;
	x86_perfctr_cpuid(0xa, 0, regs);
	eax.full = regs[0];
	edx.full = regs[3];
	if (!eax.split.version_id || !eax.split.num_counters ||
	    !eax.split.bit_width)
		return;

	desc->pmu.name = "Intel architectural perfmon";
	desc->pmu.cpu_type = PERFCTR_X86_INTEL_ARCH;
	desc->version = eax.split.version_id;
	desc->pmu.nrctrs = min_t(u32, eax.split.num_counters,
				 X86_PERFCTR_MAX_GP);
	desc->pmu.ctr_width = eax.split.bit_width;
	/* Events beyond the vector's length are not available either. */
	len = eax.split.mask_length;
	desc->events_unavailable = regs[1];
	if (len < 32)
		desc->events_unavailable |= ~0U << len;
	/*
	 * AnyThread exists from perfmon version 3 (SDM 19.2.3) and is gone
	 * again from version 5.
	 */
	if (desc->version >= 3 && desc->version < 5)
		any = ARCH_PERFMON_EVENTSEL_ANY;

	desc->eventsel = MSR_ARCH_PERFMON_EVENTSEL0;
	desc->perfctr = MSR_ARCH_PERFMON_PERFCTR0;
	desc->perfctr_reserve = MSR_ARCH_PERFMON_PERFCTR0;
	desc->stride = 1;
	desc->evntsel_user = X86_PERFCTR_INTEL_EVNTSEL | any;
	/* IA32_PMCx takes 32 bits on a write, and sign-extends them. */
	desc->ireset_min = S32_MIN;
	if (cpu_has(c, X86_FEATURE_PDCM))
		caps = x86_perfctr_read_capabilities();
	if (caps & X86_PERFCTR_CAP_FW_WRITE) {
		desc->perfctr = MSR_IA32_PMC0;
		desc->ireset_min = S64_MIN;
	}
	if (cpu_has(c, X86_FEATURE_HYBRID_CPU))
		desc->hybrid_core_type = x86_perfctr_core_type();
	if (desc->version >= 2) {
		desc->global_ctrl = MSR_CORE_PERF_GLOBAL_CTRL;
		desc->global_status = MSR_CORE_PERF_GLOBAL_STATUS;
		desc->global_ovf_ctrl = MSR_CORE_PERF_GLOBAL_OVF_CTRL;
		x86_perfctr_detect_fixed(desc, c, edx, regs[2], any);
		x86_perfctr_detect_topdown(desc, c, caps);
	}
}

static void x86_perfctr_detect_amd(struct x86_perfctr_desc *desc,
				   const struct cpuinfo_x86 *c)
{
	bool core = cpu_has(c, X86_FEATURE_PERFCTR_CORE);
	union cpuid_0x80000022_ebx ebx;
	u32 regs[4];

	/* K7 and K8: TSC only.  Family 10h on: at least the legacy four. */
	if (c->x86 < 0x10)
		return;
	/*
	 * Nothing announces the legacy counters, and a hypervisor without a
	 * virtual PMU does not emulate them.
	 */
	if (!core && cpu_has(c, X86_FEATURE_HYPERVISOR))
		return;

	desc->pmu.cpu_type = PERFCTR_X86_AMD;
	desc->pmu.ctr_width = X86_PERFCTR_AMD_WIDTH;
	desc->evntsel_user = X86_PERFCTR_AMD_EVNTSEL;
	desc->ireset_min = S64_MIN;
	if (!core) {
		desc->pmu.name = "AMD legacy counters";
		desc->pmu.nrctrs = AMD64_NUM_COUNTERS;
		desc->eventsel = MSR_K7_EVNTSEL0;
		desc->perfctr = MSR_K7_PERFCTR0;
		desc->perfctr_reserve = MSR_K7_PERFCTR0;
		desc->stride = 1;
		return;
	}
	desc->pmu.name = "AMD core counters";
	desc->pmu.nrctrs = AMD64_NUM_COUNTERS_CORE;
	desc->eventsel = MSR_F15H_PERF_CTL;
	desc->perfctr = MSR_F15H_PERF_CTR;
	desc->perfctr_reserve = MSR_F15H_PERF_CTR;
	desc->stride = 2;
	if (!cpu_has(c, X86_FEATURE_PERFMON_V2))
		return;

	desc->pmu.name = "AMD PerfMonV2";
	desc->version = 2;
	x86_perfctr_cpuid(0x80000022, 0, regs);
	ebx.full = regs[1];
	if (ebx.split.num_core_pmc)
		desc->pmu.nrctrs = min_t(u32, ebx.split.num_core_pmc,
					 X86_PERFCTR_MAX_GP);
	desc->global_ctrl = MSR_AMD64_PERF_CNTR_GLOBAL_CTL;
	desc->global_status = MSR_AMD64_PERF_CNTR_GLOBAL_STATUS;
	desc->global_ovf_ctrl = MSR_AMD64_PERF_CNTR_GLOBAL_STATUS_CLR;
}

/**
 * x86_perfctr_detect - describe the counter hardware of a processor
 * @desc: filled in; its clock rates are left alone
 * @c: the processor, as the kernel identified it: &boot_cpu_data
 *
 * Uses the kernel's CPU feature bits, CPUID where the kernel keeps no
 * feature bit, and IA32_PERF_CAPABILITIES where X86_FEATURE_PDCM says it
 * exists.
 */
void x86_perfctr_detect(struct x86_perfctr_desc *desc,
			const struct cpuinfo_x86 *c)
{
	x86_perfctr_set_tsc_only(desc);
	switch (c->x86_vendor) {
	case X86_VENDOR_INTEL:
		x86_perfctr_detect_intel(desc, c);
		break;
	case X86_VENDOR_AMD:
	case X86_VENDOR_HYGON:
		x86_perfctr_detect_amd(desc, c);
		break;
	}
	/*
	 * Counters can be read with rdpmc; their overflow interrupt needs
	 * the local APIC (which "nolapic" takes away).
	 */
	if (desc->pmu.nrctrs) {
		desc->pmu.features |= PERFCTR_FEATURE_RDPMC;
		if (cpu_has(c, X86_FEATURE_APIC))
			desc->pmu.features |= PERFCTR_FEATURE_PCINT;
	}
}

/**
 * x86_perfctr_classify - note whether this CPU can count as described
 * @cpu: the CPU this runs on
 *
 * On a hybrid processor the counters are described for the core type of
 * the CPU that was detected; CPUs of another type go into
 * perfctr_cpus_forbidden_mask, and threads with hardware counters are
 * kept off them.
 */
void x86_perfctr_classify(unsigned int cpu)
{
	u8 type = x86_perfctr_active_desc->hybrid_core_type;

	if (!type)
		return;
	if (x86_perfctr_core_type() == type)
		cpumask_clear_cpu(cpu, &perfctr_cpus_forbidden_mask);
	else
		cpumask_set_cpu(cpu, &perfctr_cpus_forbidden_mask);
}
