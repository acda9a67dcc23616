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
 * @cpu_khz:	core clock, the fastest rate at which cycles are counted
 * @tsc_khz:	rate of the time-stamp counter
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
	const char	*name;
	u32		cpu_type;
	u32		nrctrs;
	u32		ctr_width;
	u32		nrfixed;
	u32		fixed_width;
	u32		features;
	u32		cpu_khz;
	u32		tsc_khz;
	u32		version;
	u32		fixed_mask;
	u32		events_unavailable;
	bool		global_ctrl;
	bool		full_width_write;
	bool		amd_core;
	u8		hybrid_core_type;
};

extern struct perfctr_cpu_desc perfctr_cpu_desc;

/*
 * The counter driver.  The generic code keeps the sums and does the
 * width-aware arithmetic; the driver only checks controls and moves values
 * in and out of the hardware.  All but check_control(), reserve(),
 * release() and has_user_read() run with interrupts off on the CPU whose
 * counters they touch, and only for the hardware counters of a control
 * (never for software counters).  reserve() and release() bracket the
 * life of every control with hardware counters.  user_read() lets the
 * thread about to run on this CPU read the counters in user mode, or
 * takes that away again; it is called only when has_user_read() said
 * yes when the control was set.
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

#endif /* _ASM_X86_PERFCTR_H */
