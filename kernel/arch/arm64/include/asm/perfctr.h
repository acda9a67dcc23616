/* SPDX-License-Identifier: GPL-2.0 */
/*
 * arm64: the clock and counter reads of the virtual per-process
 * counters, inline in the core's context switch.
 */
#ifndef __ASM_PERFCTR_H
#define __ASM_PERFCTR_H

#include <linux/perf/arm_pmuv3.h>
#include <linux/types.h>
#include <kunit/static_stub.h>
#include <uapi/linux/perfctr.h>
#include <asm/arch_timer.h>
#include <asm/arm_pmuv3.h>

u64 arch_perfctr_read_tsc(void);
u64 arch_perfctr_read_counter(u32 map);

/*
 * arch_perfctr_read_tsc(), which KUnit's stub of it replaces.  The count
 * is read after earlier instructions complete, which the core's sequence
 * count needs; later loads, unlike the vDSO's, need not wait for it.
 */
static __always_inline u64 arch_perfctr_read_tsc_inline(void)
{
	KUNIT_STATIC_STUB_REDIRECT(arch_perfctr_read_tsc);
	return arch_timer_read_cntvct_el0();
}

/* arch_perfctr_read_counter(), which KUnit's stub of it replaces. */
static __always_inline u64 arch_perfctr_read_counter_inline(u32 map)
{
	KUNIT_STATIC_STUB_REDIRECT(arch_perfctr_read_counter, map);
	if (map == PERFCTR_MAP_ARM64_CYCLES)
		return read_pmccntr();
	return read_pmevcntrn(map);
}

#endif /* __ASM_PERFCTR_H */
