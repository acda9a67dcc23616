/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the parts of the arm64 counter driver share with each other and
 * with their KUnit tests: detect.c describes the PMU perf found,
 * program.c takes it from perf and moves values in and out of its
 * registers.
 */
#ifndef _ARCH_ARM64_PERFCTR_PERFCTR_H
#define _ARCH_ARM64_PERFCTR_PERFCTR_H

#include <linux/interrupt.h>
#include <linux/types.h>
#include <linux/perfctr_pmu.h>

struct arm_pmu;

/**
 * struct pmuv3_desc - what the counter hardware of this machine has
 * @pmu:	what the generic core is told
 * @pmuver:	ID_AA64DFR0_EL1.PMUVer as perf's driver read it, 0 without
 *		a PMUv3
 *
 * Filled in once at boot and never changed afterwards.
 */
struct pmuv3_desc {
	struct perfctr_pmu	pmu;
	u32		pmuver;
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
extern const struct pmuv3_desc *pmuv3_active_desc;

/* Global only for the KUnit tests; static without KUnit. */
#if IS_ENABLED(CONFIG_KUNIT)
void pmuv3_describe(struct pmuv3_desc *desc, const struct arm_pmu *armpmu);
bool pmuv3_cpu_can_count(const struct pmuv3_desc *desc,
			 const struct arm_pmu *armpmu);
u64 pmuv3_read_reg(enum pmuv3_reg reg, unsigned int n);
void pmuv3_write_reg(enum pmuv3_reg reg, unsigned int n, u64 value);
int pmuv3_claim(void);
void pmuv3_unclaim(void);
irqreturn_t pmuv3_overflow_irq(struct arm_pmu *armpmu);
#endif

#endif /* _ARCH_ARM64_PERFCTR_PERFCTR_H */
