/* SPDX-License-Identifier: GPL-2.0 */
/*
 * arm64 performance counter driver interface, used by the generic
 * virtual per-process counters in kernel/perfctr/.
 */
#ifndef _ASM_ARM64_PERFCTR_H
#define _ASM_ARM64_PERFCTR_H

#include <linux/types.h>
#include <uapi/linux/perfctr.h>

/**
 * struct perfctr_cpu_desc - what the counter hardware of this machine has
 * @name:	driver name, as shown to user space
 * @cpu_type:	PERFCTR_ARM64_* value
 * @nrctrs:	number of PMUv3 event counters (PMCR_EL0.N)
 * @ctr_width:	their width in bits: 32, or 64 from PMUv3p5 on
 * @nrfixed:	1 for the cycle counter, 0 without a PMU
 * @fixed_width: the cycle counter's width, 64
 * @features:	PERFCTR_FEATURE_* flags
 * @cpu_khz:	core clock; 0, the architecture does not tell it
 * @tsc_khz:	rate of the generic timer's virtual count, CNTVCT_EL0
 * @pmuver:	ID_AA64DFR0_EL1.PMUVer
 * @irq:	the PMU's per-CPU interrupt, 0 without one
 *
 * Filled in once at boot and never changed afterwards.
 */
struct perfctr_cpu_desc {
	const char	*name;
	u32		cpu_type;
	u32		nrctrs;
	u32		ctr_width;
	u32		nrfixed;
	u32		fixed_width;
	u32		features;
	u32		cpu_khz;
	u32		tsc_khz;
	u32		pmuver;
	int		irq;
};

extern struct perfctr_cpu_desc perfctr_cpu_desc;

/*
 * The counter driver, as on x86: the generic code keeps the sums and does
 * the width-aware arithmetic; the driver only checks controls and moves
 * values in and out of the hardware.  All but check_control(), reserve(),
 * release() and has_user_read() run with interrupts off on the CPU whose
 * counters they touch, and only for the hardware counters of a control.
 * user_read() lets the thread about to run on this CPU read the counters
 * in user mode, or takes that away again.
 */
u64 perfctr_cpu_read_tsc(void);
int perfctr_cpu_check_control(const struct perfctr_cpu_control *control,
			      bool allow_kernel);
u32 perfctr_cpu_counter_width(u32 map);
u64 perfctr_cpu_read_counter(u32 map);
void perfctr_cpu_write_counter(u32 map, u64 value);
void perfctr_cpu_enable(const struct perfctr_cpu_state *state,
			const struct perfctr_cpu_control *control);
void perfctr_cpu_disable(const struct perfctr_cpu_state *state);
int perfctr_cpu_reserve(void);
void perfctr_cpu_release(void);
bool perfctr_cpu_has_user_read(void);
void perfctr_cpu_user_read(bool allow);

#endif /* _ASM_ARM64_PERFCTR_H */
