/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Virtual per-process performance counters: the contract between the
 * generic core in kernel/perfctr/ and an architecture's counter driver.
 *
 * The core owns every rule that is not about the hardware: the sums and
 * their width-aware arithmetic, software counters, which counters a
 * control may use together, the interrupt-mode reset range, and which
 * error wins.  The driver describes its hardware once in struct
 * perfctr_pmu, answers questions about one counter at a time, and moves
 * values in and out of the hardware.
 *
 * A hardware counter is named by its pmc_map[] entry, whose encoding is
 * the driver's: two counters of a control are the same counter exactly
 * when their pmc_map[] entries are equal, once the driver has accepted
 * both.
 */
#ifndef _LINUX_PERFCTR_PMU_H
#define _LINUX_PERFCTR_PMU_H

#include <linux/types.h>
#include <uapi/linux/perfctr.h>

struct cpumask;

/**
 * struct perfctr_pmu - what the counter hardware of this machine has
 * @name:	driver name, as shown to user space
 * @cpu_type:	PERFCTR_X86_* or PERFCTR_ARM64_* value
 * @nrctrs:	number of general-purpose counters
 * @ctr_width:	their width in bits
 * @nrfixed:	number of fixed-function counters
 * @fixed_width: their width in bits
 * @nrmetrics:	number of counters of derived metrics (x86 TopDown), which
 *		are hardware counters to the core
 * @features:	PERFCTR_FEATURE_* flags
 * @cpu_khz:	core clock, the fastest rate at which cycles are counted;
 *		0 if the architecture does not tell it
 * @tsc_khz:	rate at boot of the time-stamp counter (x86) or of the generic
 *		timer's virtual count (arm64); arch_perfctr_tsc_khz() gives
 *		the rate now
 *
 * Filled in once at boot by the driver and never changed afterwards.
 */
struct perfctr_pmu {
	const char	*name;
	u32		cpu_type;
	u32		nrctrs;
	u32		ctr_width;
	u32		nrfixed;
	u32		fixed_width;
	u32		nrmetrics;
	u32		features;
	u32		cpu_khz;
	u32		tsc_khz;
};

/**
 * struct perfctr_plan_write - one register write of a plan
 * @reg:	which register, in the driver's numbering
 * @value:	what is written to it
 */
struct perfctr_plan_write {
	u32	reg;
	u64	value;
};

/**
 * struct perfctr_plan - how the driver starts a control's hardware counters
 * @nr:		how many entries of @write are used
 * @flags:	the driver's
 * @enable:	the driver's bits of the counters it starts
 * @imode:	the driver's bits of those that count in interrupt mode
 * @config:	a value the driver writes once for all the counters
 * @write:	the registers the driver writes one by one, one at most for
 *		each hardware counter of the control
 *
 * arch_perfctr_prepare() computes it once, when the control is set, from
 * the control alone; arch_perfctr_enable() writes it at every resume, as
 * perf computes an event's hw_perf_event.config once and writes it at
 * every enable.  Its meaning is the driver's.
 */
struct perfctr_plan {
	u32				nr;
	u32				flags;
	u64				enable;
	u64				imode;
	u64				config;
	struct perfctr_plan_write	write[PERFCTR_MAX_NRCTRS];
};

/* An empty plan: the writes past @plan->nr are never read. */
static inline void perfctr_plan_init(struct perfctr_plan *plan)
{
	plan->nr = 0;
	plan->flags = 0;
	plan->enable = 0;
	plan->imode = 0;
	plan->config = 0;
}

/*
 * Implemented by the architecture's counter driver.  Unless a function
 * says otherwise, it runs with interrupts off on the CPU whose counters
 * it touches, and is called only for the hardware counters of a control,
 * never for its software counters.
 */

/**
 * arch_perfctr_pmu - the counter hardware of this machine
 *
 * Context: any; may sleep.
 * Return: the description, filled in at boot and never changed.
 */
const struct perfctr_pmu *arch_perfctr_pmu(void);

/**
 * arch_perfctr_tsc_khz - the time-stamp counter's rate now
 *
 * x86 refines the rate it calibrated at boot
 * (tsc_refine_calibration_work()), so it may differ from the rate at boot
 * in &struct perfctr_pmu.
 *
 * Context: any.
 * Return: the rate in kHz.
 */
u32 arch_perfctr_tsc_khz(void);

/**
 * arch_perfctr_read_tsc - read the time-stamp counter
 *
 * Context: any; the context switch reads it through
 * arch_perfctr_read_tsc_inline().
 * Return: its value.
 */
u64 arch_perfctr_read_tsc(void);

/**
 * arch_perfctr_check_counter - may a control count with this counter
 * @map: the counter, as named in pmc_map[]
 * @evntsel: its event selector
 * @ireset: 0 for an accumulation-mode counter, else the (negative) value
 *	an interrupt-mode counter is preset to; the core has checked it
 *	against the counter's width
 * @allow_kernel: whether the caller may count kernel-mode events
 *
 * Context: process; may sleep.
 * Return: 0; -EINVAL for what the hardware cannot do; -EACCES for what
 * it can do but needs the privilege the caller lacks.
 */
int arch_perfctr_check_counter(u32 map, u64 evntsel, s64 ireset,
			       bool allow_kernel);

/**
 * arch_perfctr_check_control - rules between the counters of a control
 * @control: a control whose every counter passed
 *	arch_perfctr_check_counter()
 *
 * Context: process; may sleep.
 * Return: 0, or -EINVAL.
 */
int arch_perfctr_check_control(const struct perfctr_cpu_control *control);

/**
 * arch_perfctr_counter_width - how many bits a hardware counter has
 * @map: an accepted counter
 *
 * Context: process; may sleep.
 * Return: the width in bits, at most 64.
 */
u32 arch_perfctr_counter_width(u32 map);

/**
 * arch_perfctr_counter_restarts - does enabling restart a counter from zero
 * @map: an accepted counter
 * @control: the control it counts in
 *
 * A counter for which this is true counts from zero at every
 * arch_perfctr_enable(), in accumulation mode only: the core takes 0 as
 * its start value instead of reading it.
 *
 * Context: process; may sleep.
 */
bool arch_perfctr_counter_restarts(u32 map,
				   const struct perfctr_cpu_control *control);

/**
 * arch_perfctr_read_counter - read a hardware counter
 * @map: the counter
 *
 * Context: interrupts off; the context switch reads through
 * arch_perfctr_read_counter_inline().
 * Return: its raw value, of arch_perfctr_counter_width() bits.
 */
u64 arch_perfctr_read_counter(u32 map);

/**
 * arch_perfctr_write_counter - preset a hardware counter
 * @map: the counter
 * @value: the raw value, e.g. an interrupt-mode counter's reset value
 *
 * Context: interrupts off.
 */
void arch_perfctr_write_counter(u32 map, u64 value);

/**
 * arch_perfctr_prepare - plan how a control's counters are started
 * @control: a control that passed both checks and has hardware counters
 * @plan: filled in, for arch_perfctr_enable()
 *
 * Touches no hardware.
 *
 * Context: any.
 */
void arch_perfctr_prepare(const struct perfctr_cpu_control *control,
			  struct perfctr_plan *plan);

/**
 * arch_perfctr_enable - program the counters of a plan and start them
 * @plan: what arch_perfctr_prepare() made of the control
 *
 * Context: interrupts off.
 */
void arch_perfctr_enable(const struct perfctr_plan *plan);

/**
 * arch_perfctr_disable - stop the counters a state runs
 * @state: the counters, the last this CPU enabled
 *
 * Nothing stays armed for the next thread on this CPU.
 *
 * Context: interrupts off.
 */
void arch_perfctr_disable(const struct perfctr_cpu_state *state);

/**
 * arch_perfctr_switch - hand this CPU's counters to the next thread
 * @prev: the counters running, already read
 * @prev_plan: the plan they were started from
 * @plan: the next thread's, without interrupt-mode counters
 *
 * Does what arch_perfctr_disable(@prev), arch_perfctr_user_read(true) and
 * arch_perfctr_enable(@plan) do in a row, in fewer steps: it may leave
 * programmed what both plans program alike.  The core calls it only while
 * the counters running are the outgoing thread's, none in interrupt mode,
 * started by its resume after arch_perfctr_user_read(true) on this CPU,
 * or handed to it by this call from a thread so started, and its
 * reservation has held since: no interrupt is armed, the counters are
 * still claimed as they were then, and user mode may read them already.
 * A system sleep or a kexec that preserves the context, which may reset
 * the counters and take the reads away, is a switch away and back for
 * the thread that asks for it.
 *
 * Context: interrupts off.
 */
void arch_perfctr_switch(const struct perfctr_cpu_state *prev,
			 const struct perfctr_plan *prev_plan,
			 const struct perfctr_plan *plan);

/**
 * arch_perfctr_reserve - take the counter hardware from perf
 *
 * arch_perfctr_reserve() and arch_perfctr_release() bracket the life of
 * every control with hardware counters.
 *
 * Context: process; may sleep.
 * Return: 0, or -EBUSY if perf holds counters now.
 */
int arch_perfctr_reserve(void);

/**
 * arch_perfctr_release - give the counter hardware back to perf
 *
 * Context: process; may sleep.
 */
void arch_perfctr_release(void);

/**
 * arch_perfctr_has_user_read - can user mode read the counters itself
 *
 * Context: process; may sleep.
 */
bool arch_perfctr_has_user_read(void);

/**
 * arch_perfctr_user_read - let user mode read this CPU's counters, or not
 * @allow: whether the thread about to run may
 *
 * Called only where arch_perfctr_has_user_read() said yes when the
 * control was set.  Once it has let a thread read, every hardware counter
 * of the CPU reads zero until arch_perfctr_write_counter() presets it or
 * arch_perfctr_enable() starts it, so that the thread sees no counts but
 * its own: the core then takes 0 as the start value of an
 * accumulation-mode counter instead of reading it.
 *
 * Context: interrupts off.
 */
void arch_perfctr_user_read(bool allow);

/*
 * The clock and a hardware counter as the context switch reads them: an
 * architecture whose reads are a few instructions selects
 * HAVE_PERFCTR_INLINE_READS and has <asm/perfctr.h> define
 * arch_perfctr_read_tsc_inline() and arch_perfctr_read_counter_inline().
 */
#ifdef CONFIG_HAVE_PERFCTR_INLINE_READS
#include <asm/perfctr.h>
#endif

/**
 * perfctr_overflow_interrupt - a counter in interrupt mode overflowed
 *
 * Provided by the core, for the driver's overflow interrupt.
 *
 * Context: hard interrupt or NMI.
 */
void perfctr_overflow_interrupt(void);
/* CPUs on which the hardware counters cannot be used, set by the driver. */
extern struct cpumask perfctr_cpus_forbidden_mask;

#endif /* _LINUX_PERFCTR_PMU_H */
