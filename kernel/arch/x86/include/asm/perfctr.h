/* SPDX-License-Identifier: GPL-2.0 */
/*
 * x86 performance counter driver interface, used by the generic
 * virtual per-process counters in kernel/perfctr/.
 */
#ifndef _ASM_X86_PERFCTR_H
#define _ASM_X86_PERFCTR_H

#include <linux/types.h>
#include <uapi/linux/perfctr.h>

/**
 * struct perfctr_cpu_desc - what the counter hardware of this machine has
 * @name:	driver name, as shown to user space
 * @cpu_type:	PERFCTR_X86_* value
 * @nrctrs:	number of general-purpose counters
 * @ctr_width:	their width in bits
 * @nrfixed:	number of fixed-function counters
 * @fixed_width: their width in bits
 * @features:	PERFCTR_FEATURE_* flags
 *
 * Filled in once at boot from CPUID and never changed afterwards.
 */
struct perfctr_cpu_desc {
	const char	*name;
	u32		cpu_type;
	u32		nrctrs;
	u32		ctr_width;
	u32		nrfixed;
	u32		fixed_width;
	u32		features;
};

extern struct perfctr_cpu_desc perfctr_cpu_desc;

u64 perfctr_cpu_read_tsc(void);
int perfctr_cpu_check_control(const struct perfctr_cpu_control *control);
void perfctr_cpu_suspend(struct perfctr_cpu_state *state);
void perfctr_cpu_resume(struct perfctr_cpu_state *state);

#endif /* _ASM_X86_PERFCTR_H */
