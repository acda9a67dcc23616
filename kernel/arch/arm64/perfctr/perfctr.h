/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the arm64 counter driver shares with its KUnit tests.
 */
#ifndef _ARCH_ARM64_PERFCTR_PERFCTR_H
#define _ARCH_ARM64_PERFCTR_PERFCTR_H

#include <linux/interrupt.h>
#include <linux/types.h>
#include <linux/perfctr_pmu.h>

/**
 * struct perfctr_cpu_desc - what the counter hardware of this machine has
 * @pmu:	what the generic core is told
 * @pmuver:	ID_AA64DFR0_EL1.PMUVer
 * @irq:	the PMU's per-CPU interrupt, 0 without one
 *
 * Filled in once at boot and never changed afterwards.
 */
struct perfctr_cpu_desc {
	struct perfctr_pmu	pmu;
	u32		pmuver;
	int		irq;
};

extern struct perfctr_cpu_desc perfctr_cpu_desc;

/* The PMUv3 registers the driver uses; n is the counter for the first two. */
enum perfctr_pmu_reg {
	PERFCTR_PMEVCNTR,	/* PMEVCNTR<n>_EL0 */
	PERFCTR_PMEVTYPER,	/* PMEVTYPER<n>_EL0 */
	PERFCTR_PMCCNTR,
	PERFCTR_PMCCFILTR,
	PERFCTR_PMCR,
	PERFCTR_PMCNTENSET,
	PERFCTR_PMCNTENCLR,
	PERFCTR_PMINTENSET,
	PERFCTR_PMINTENCLR,
	PERFCTR_PMOVSCLR,
	PERFCTR_PMUSERENR,
};

/* PMCEID: the common event counting CPU cycles. */
#define PERFCTR_ARM64_CPU_CYCLES	0x11

u64 perfctr_pmu_read(enum perfctr_pmu_reg reg, unsigned int n);
void perfctr_pmu_write(enum perfctr_pmu_reg reg, unsigned int n, u64 value);
const struct perfctr_cpu_desc *perfctr_cpu_active_desc(void);
void perfctr_cpu_describe(struct perfctr_cpu_desc *desc, u32 pmuver,
			  u64 pmcr);
void perfctr_cpu_reset(void);
irqreturn_t perfctr_cpu_pmu_irq(int irq, void *dev_id);

#endif /* _ARCH_ARM64_PERFCTR_PERFCTR_H */
