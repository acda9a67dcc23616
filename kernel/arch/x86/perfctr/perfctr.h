/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the parts of the x86 counter driver share with each other and with
 * their KUnit tests.
 */
#ifndef _ARCH_X86_PERFCTR_PERFCTR_H
#define _ARCH_X86_PERFCTR_PERFCTR_H

#include <linux/percpu-defs.h>
#include <linux/types.h>
#include <linux/perfctr_pmu.h>

struct cpuinfo_x86;
struct pt_regs;

/**
 * struct x86_perfctr_desc - the counter hardware of this machine, as data
 * @pmu:	what the generic core is told
 * @version:	Intel architectural perfmon version; 2 for AMD PerfMonV2
 * @events_unavailable: Intel: bit i set: architectural event i cannot be
 *		counted (CPUID.0AH:EBX, extended to the vector's length)
 * @eventsel:	event selector MSR of general-purpose counter 0
 * @perfctr:	counter MSR of general-purpose counter 0, as it is read and
 *		written: IA32_A_PMC0 where Intel has full-width writes
 * @perfctr_reserve: counter MSR of general-purpose counter 0, as perf's
 *		reservation API names it
 * @stride:	from the MSRs of general-purpose counter i to those of
 *		counter i + 1
 * @evntsel_user: the bits of a general-purpose counter's event selector
 *		that user space may set
 * @ireset_min:	the lowest interrupt-mode preset that a write loads whole
 *		into a general-purpose counter: S32_MIN where a write takes
 *		32 bits and sign-extends them
 * @fixed_mask:	bit j set: fixed counter j exists
 * @fixed_ctr:	MSR of fixed counter 0
 * @fixed_ctrl:	MSR of the fixed counters' control fields
 * @fixed_evntsel_user: the bits of a fixed counter's evntsel that user
 *		space may set
 * @global_ctrl: MSR that enables the counters together, 0 if none
 * @global_status: MSR with a bit for each counter that overflowed
 * @global_ovf_ctrl: MSR that clears the @global_status bits written to it
 * @perf_metrics: Intel TopDown: MSR PERF_METRICS, whose bytes break fixed
 *		counter 3's slots down into @pmu.nrmetrics categories; 0 if
 *		none
 * @hybrid_core_type: Intel hybrid: core type of the CPU that was detected
 *		(0x20 Atom, 0x40 Core), 0 if not hybrid
 *
 * Filled in once at boot by detection, and never changed afterwards.  The
 * programming code finds every difference between processors here, and
 * never asks which vendor it runs on.  Counter i's MSRs are a base plus
 * i * @stride, fixed counter j's @fixed_ctr + j; bit i of the global
 * registers is general-purpose counter i, bit 32 + j fixed counter j.
 */
struct x86_perfctr_desc {
	struct perfctr_pmu	pmu;
	u32		version;
	u32		events_unavailable;
	u32		eventsel;
	u32		perfctr;
	u32		perfctr_reserve;
	u32		stride;
	u64		evntsel_user;
	s64		ireset_min;
	u32		fixed_mask;
	u32		fixed_ctr;
	u32		fixed_ctrl;
	u64		fixed_evntsel_user;
	u32		global_ctrl;
	u32		global_status;
	u32		global_ovf_ctrl;
	u32		perf_metrics;
	u8		hybrid_core_type;
};

/* Intel TopDown: fixed counter 3 counts the slots PERF_METRICS divides. */
#define X86_PERFCTR_FIXED_SLOTS	(PERFCTR_MAP_X86_FIXED | PERFCTR_X86_FIXED_SLOTS)

/* A PMI whose overflow another PMI already handled: up to this long. */
#define X86_PERFCTR_PMI_WINDOW	2	/* jiffies */

/*
 * Until @end, a PMI with no overflow to find is taken as a late one for
 * an overflow already dealt with: the second of two overflows that one
 * PMI handled, or one of counters disabled before their PMI arrived.
 */
struct x86_perfctr_pmi_window {
	unsigned long	end;
	bool		open;
};

DECLARE_PER_CPU(struct x86_perfctr_pmi_window, x86_perfctr_pmi_window);

extern const struct x86_perfctr_desc *x86_perfctr_active_desc;
void x86_perfctr_detect(struct x86_perfctr_desc *desc,
			const struct cpuinfo_x86 *c);
void x86_perfctr_set_tsc_only(struct x86_perfctr_desc *desc);
void x86_perfctr_classify(unsigned int cpu);
void x86_perfctr_lvtpc_nmi(void);
void x86_perfctr_forget_clean(void);
int x86_perfctr_nmi_handler(unsigned int cmd, struct pt_regs *regs);

#if IS_ENABLED(CONFIG_KUNIT)
/* The hardware boundary, which the tests replace, and what they call. */
void x86_perfctr_cpuid(u32 leaf, u32 subleaf, u32 regs[4]);
u64 x86_perfctr_read_capabilities(void);
u64 x86_perfctr_rdmsr(u32 msr);
void x86_perfctr_wrmsr(u32 msr, u64 value);
bool x86_perfctr_reserve_counter(u32 ctr_msr, u32 sel_msr);
void x86_perfctr_release_counter(u32 ctr_msr, u32 sel_msr);
void x86_perfctr_set_pce(bool allow);
unsigned long x86_perfctr_ack_overflow(void);
#endif

#endif /* _ARCH_X86_PERFCTR_PERFCTR_H */
