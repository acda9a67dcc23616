/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the parts of the arm64 counter driver share with each other and
 * with their KUnit tests: detect.c describes the PMU and claims it,
 * program.c moves values in and out of its registers.
 */
#ifndef _ARCH_ARM64_PERFCTR_PERFCTR_H
#define _ARCH_ARM64_PERFCTR_PERFCTR_H

#include <linux/interrupt.h>
#include <linux/types.h>
#include <linux/perfctr_pmu.h>

/**
 * struct pmuv3_desc - what the counter hardware of this machine has
 * @pmu:	what the generic core is told
 * @pmuver:	ID_AA64DFR0_EL1.PMUVer
 * @irq:	the PMU's per-CPU interrupt, 0 without one
 *
 * Filled in once at boot and never changed afterwards.
 */
struct pmuv3_desc {
	struct perfctr_pmu	pmu;
	u32		pmuver;
	int		irq;
};

/* The PMUv3 registers the driver uses; n is the counter for the first two. */
enum pmuv3_reg {
	PMUV3_PMEVCNTR,		/* PMEVCNTR<n>_EL0 */
	PMUV3_PMEVTYPER,	/* PMEVTYPER<n>_EL0 */
	PMUV3_PMCCNTR,
	PMUV3_PMCCFILTR,
	PMUV3_PMCR,
	PMUV3_PMCNTENSET,
	PMUV3_PMCNTENCLR,
	PMUV3_PMINTENSET,
	PMUV3_PMINTENCLR,
	PMUV3_PMOVSCLR,
	PMUV3_PMUSERENR,
};

/* detect.c */
const struct pmuv3_desc *pmuv3_active_desc(void);

/* program.c */
void pmuv3_reset(void);
irqreturn_t pmuv3_overflow_irq(int irq, void *dev_id);

/* Global only for the KUnit tests; static without KUnit. */
#if IS_ENABLED(CONFIG_KUNIT)
void pmuv3_describe(struct pmuv3_desc *desc, u32 pmuver, u64 pmcr);
u64 pmuv3_read_reg(enum pmuv3_reg reg, unsigned int n);
void pmuv3_write_reg(enum pmuv3_reg reg, unsigned int n, u64 value);
#endif

#endif /* _ARCH_ARM64_PERFCTR_PERFCTR_H */
