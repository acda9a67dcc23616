/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the parts of the x86 counter driver share with each other and with
 * their KUnit tests.
 */
#ifndef _ARCH_X86_PERFCTR_PERFCTR_H
#define _ARCH_X86_PERFCTR_PERFCTR_H

#include <linux/types.h>
#include <linux/perfctr_pmu.h>

/**
 * struct perfctr_cpu_desc - what the counter hardware of this machine has
 * @pmu:	what the generic core is told
 * @version:	Intel architectural perfmon version; 2 for AMD PerfMonV2
 * @fixed_mask:	bit i set: fixed counter i exists
 * @events_unavailable: Intel: bit i set: architectural event i cannot be
 *		counted (CPUID.0AH:EBX, extended to the vector's length)
 * @global_ctrl: counters are enabled through a global control register
 * @full_width_write: Intel: counters are written in full through
 *		IA32_A_PMCx
 * @amd_core:	AMD: the six core counters at 0xC0010200, not the legacy
 *		four
 * @hybrid_core_type: Intel hybrid: CPUID.1AH core type of the CPU that was
 *		detected (0x20 Atom, 0x40 Core), 0 if not hybrid
 *
 * Filled in once at boot and never changed afterwards.
 */
struct perfctr_cpu_desc {
	struct perfctr_pmu	pmu;
	u32		version;
	u32		fixed_mask;
	u32		events_unavailable;
	bool		global_ctrl;
	bool		full_width_write;
	bool		amd_core;
	u8		hybrid_core_type;
};

extern struct perfctr_cpu_desc perfctr_cpu_desc;

struct pt_regs;

/* A PMI whose overflow another PMI already handled: up to this long. */
#define PERFCTR_PMI_WINDOW	2	/* jiffies */

void perfctr_cpu_cpuid(u32 leaf, u32 subleaf, u32 regs[4]);
u64 perfctr_cpu_read_capabilities(void);
void perfctr_cpu_detect(struct perfctr_cpu_desc *desc);
void perfctr_cpu_set_tsc_only(struct perfctr_cpu_desc *desc);
const struct perfctr_cpu_desc *perfctr_cpu_active_desc(void);
u64 perfctr_cpu_rdmsr(u32 msr);
void perfctr_cpu_wrmsr(u32 msr, u64 value);
bool perfctr_cpu_reserve_counter(u32 ctr_msr, u32 sel_msr);
void perfctr_cpu_release_counter(u32 ctr_msr, u32 sel_msr);
void perfctr_cpu_set_pce(bool allow);
void perfctr_cpu_lvtpc_nmi(void);
unsigned long perfctr_cpu_ack_overflow(void);
int perfctr_cpu_nmi_handler(unsigned int cmd, struct pt_regs *regs);
void perfctr_cpu_classify(unsigned int cpu);

#endif /* _ARCH_X86_PERFCTR_PERFCTR_H */
