/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the parts of the x86 counter driver share with each other and with
 * their KUnit tests.
 */
#ifndef _ARCH_X86_PERFCTR_PERFCTR_H
#define _ARCH_X86_PERFCTR_PERFCTR_H

#include <linux/types.h>
#include <asm/perfctr.h>

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
