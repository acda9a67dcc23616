/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the parts of the x86 counter driver share with each other and with
 * their KUnit tests.
 */
#ifndef _ARCH_X86_PERFCTR_PERFCTR_H
#define _ARCH_X86_PERFCTR_PERFCTR_H

#include <linux/types.h>
#include <asm/perfctr.h>

void perfctr_cpu_cpuid(u32 leaf, u32 subleaf, u32 regs[4]);
u64 perfctr_cpu_read_capabilities(void);
void perfctr_cpu_detect(struct perfctr_cpu_desc *desc);
const struct perfctr_cpu_desc *perfctr_cpu_active_desc(void);
u64 perfctr_cpu_rdmsr(u32 msr);
void perfctr_cpu_wrmsr(u32 msr, u64 value);
bool perfctr_cpu_reserve_counter(u32 ctr_msr, u32 sel_msr);
void perfctr_cpu_release_counter(u32 ctr_msr, u32 sel_msr);

#endif /* _ARCH_X86_PERFCTR_PERFCTR_H */
