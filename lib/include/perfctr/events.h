/* SPDX-License-Identifier: LGPL-2.1 */
/*
 * libperfctr events: what to count, by name, and the counters of a
 * control that count it.  <libperfctr.h> includes this header.
 *
 * perfctr_event_parse() reads one event as a user writes it, for the
 * machine that a struct perfctr_info describes (perfctr_info_read()), and
 * perfctr_event_add() gives it a free counter of a control:
 *
 *	struct perfctr_event_spec event;
 *	char err[PERFCTR_EVENT_ERROR_SIZE];
 *	int i;
 *
 *	if (perfctr_event_parse(&event, "instructions:u", &info,
 *				err, sizeof(err)) < 0 ||
 *	    (i = perfctr_event_add(&control, &event, &info,
 *				   err, sizeof(err))) < 0)
 *		fprintf(stderr, "%s\n", err);
 *	...	vperfctr_control(), the work, vperfctr_read_ctrs(&sum) ...
 *	count = perfctr_event_value(&sum, i);
 *
 * Events:
 *
 *	tsc				the time-stamp counter (arm64: the
 *					generic timer's count, CNTVCT_EL0)
 *	task-clock			ns on a CPU			software
 *	context-switches, cs		times switched out		software
 *	cpu-migrations, migrations	times resumed on another CPU	software
 *	page-faults, faults		minor and major faults		software
 *	minor-faults, major-faults					software
 *	cycles, instructions, branches (branch-instructions),
 *	branch-misses, cache-references, cache-misses,
 *	ref-cycles (Intel only)						hardware
 *	slots, topdown-retiring, topdown-bad-spec, topdown-fe-bound,
 *	topdown-be-bound, and on level 2 topdown-heavy-ops,
 *	topdown-br-mispredict, topdown-fetch-lat, topdown-mem-bound
 *			Intel TopDown (Ice Lake or later)		hardware
 *	rNNNN		raw: event selector NNNN, hexadecimal		hardware
 *	SEL[@PMC]	perfctr 2.7's form: selector SEL on counter PMC	hardware
 *	EVENT.UMASK, EVENT:UMASK...
 *			the CPU's own events by libpfm4's names (below)	hardware
 *
 * The named hardware events are Intel's architectural events, AMD's core
 * events and the Arm PMUv3 common events, chosen by the machine's
 * cpu_type.  On Intel, instructions, cycles and ref-cycles count on fixed
 * counters 0, 1 and 2 when the machine has them and they are free, on
 * general-purpose counters otherwise.  On AMD, cache-references and
 * cache-misses are the L2 events of family 17h and later.  On arm64
 * (PERFCTR_ARM64_PMUV3) they are CPU_CYCLES (0x11), INST_RETIRED (0x08),
 * BR_RETIRED (0x21), BR_MIS_PRED (0x10), L1D_CACHE (0x04) and
 * L1D_CACHE_REFILL (0x03); cycles count on the cycle counter
 * (PERFCTR_MAP_ARM64_CYCLES) when it is free, on an event counter
 * otherwise, and the event counters are the general-purpose ones.
 *
 * TopDown (perf's names): slots counts pipeline slots on Intel fixed
 * counter 3, and topdown-NAME the slots of one category on its own
 * counter, PERFCTR_MAP_X86_METRIC | k (<linux/perfctr.h>).  The slots
 * need fixed counter 3 (nrfixed above 3), the four level 1 categories
 * PERFCTR_FEATURE_TOPDOWN and nrmetrics 4, the four level 2 ones, each
 * a part of a level 1 one, nrmetrics 8 (Sapphire Rapids and later).
 * They count in a-mode only, and the slots counter and the categories of
 * one control count the same modes: the kernel splits one count of the
 * slots among the categories.
 *
 * A raw selector is the event selector register less EN (bit 22) and INT
 * (bit 20), which the driver sets; they are refused.  SEL and PMC of the
 * 2.7 form are decimal or, with 0x, hexadecimal; EN and INT in SEL, which
 * 2.7 selectors carried, are dropped.  PMC is a general-purpose counter's
 * index or, for Intel fixed counter j, 0x40000000 + j
 * (PERFCTR_MAP_X86_FIXED | j), whose selector may only have bits 16, 17
 * and 21.  Without @PMC the event takes any free general-purpose counter.
 * On arm64 a raw selector and SEL are laid out as PMEVTYPER<n>_EL0: the
 * event number in bits 0..15, and PERFCTR_ARM64_EXCLUDE_EL1 (bit 31) and
 * PERFCTR_ARM64_EXCLUDE_EL0 (bit 30), not both; nothing else.  PMC is an
 * event counter's index, or 31 for the cycle counter, whose event must be
 * 0x11.
 *
 * Modifiers: ":u" counts user mode, ":k" kernel mode, ":uk" both (the
 * USR and OS bits 16 and 17 of an x86 hardware selector; on arm64 ":u"
 * sets PERFCTR_ARM64_EXCLUDE_EL1, ":k" PERFCTR_ARM64_EXCLUDE_EL0, ":uk"
 * neither; PERFCTR_SW_USR and PERFCTR_SW_OS of a fault event).  Counting
 * kernel mode needs privilege: without it vperfctr_control() fails with
 * EACCES.  Without a modifier a hardware or fault event counts both
 * modes, except a raw or 2.7 selector that has bit 16 or 17 (arm64: an
 * exclude bit) set itself, and the spec says implicit_modes so that a
 * tool can retry in user mode.  The other events take none.  PMC of the
 * 2.7 form may also be a TopDown category's map, 0x20000000 + k, whose
 * selector may only have bits 16 and 17.
 *
 * Errors: -1 with errno, and in @err (if not NULL) one line that names
 * the event as written, e.g. "bogus: unknown event" (EINVAL) or
 * "cycles: this CPU has no hardware counters (driver: x86 TSC)" or
 * "(driver: arm64 timer)", or "topdown-retiring: needs TopDown metrics
 * (PERF_METRICS: Intel Ice Lake or later); this CPU has none"
 * (EOPNOTSUPP).  EINVAL: the text is no event, or an event this machine's
 * counters cannot be set up for (a selector bit they lack, a counter they
 * do not have, a counter already taken, an a-mode counter after an i-mode
 * one, a period out of range, a TopDown counter in i-mode or in other
 * modes than the control's other TopDown counters).  EOPNOTSUPP: the
 * machine cannot count the event at all (no hardware counters, no such
 * event on this CPU, no overflow interrupt for an i-mode hardware
 * counter).  ENOSPC: every counter that could count it is taken.
 * Nothing is changed on failure.
 */
#ifndef PERFCTR_EVENTS_H
#define PERFCTR_EVENTS_H

#include <stddef.h>
#include <linux/perfctr.h>

#ifdef __cplusplus
extern "C" {
#endif

enum perfctr_event_kind {
	PERFCTR_EVENT_TSC = 1,		/* the TSC: control tsc_on */
	PERFCTR_EVENT_SOFTWARE,		/* a PERFCTR_SW_* kernel event */
	PERFCTR_EVENT_HARDWARE,		/* a hardware counter */
};

#define PERFCTR_EVENT_NAME_SIZE		64
#define PERFCTR_EVENT_ERROR_SIZE	256	/* enough for any message */

/* pmc_map of a hardware event that any general-purpose counter counts */
#define PERFCTR_EVENT_ANY_PMC		0xffffffffu

/* perfctr_event_add()'s answer for the TSC, whose value is sum.tsc */
#define PERFCTR_EVENT_TSC_INDEX		PERFCTR_MAX_NRCTRS

/* One event, parsed. */
struct perfctr_event_spec {
	/*
	 * One spelling: aliases resolved, hexadecimal, ":u", ":k", ":uk"
	 * last; a native name as written, shortened with ".." to fit.
	 */
	char name[PERFCTR_EVENT_NAME_SIZE];
	enum perfctr_event_kind kind;
	/*
	 * Software: PERFCTR_MAP_SOFTWARE | PERFCTR_SW_*.  Hardware: the
	 * counter it must use, as pmc_map[] names it, or
	 * PERFCTR_EVENT_ANY_PMC.  TSC: 0.
	 */
	__u32 pmc_map;
	/*
	 * Hardware: the selector for that counter, or for a general-purpose
	 * counter when pmc_map is PERFCTR_EVENT_ANY_PMC.  Software: the
	 * PERFCTR_SW_USR/OS modes.  TSC: 0.
	 */
	__u64 evntsel;
	/*
	 * The fixed counter to prefer to a general-purpose one (Intel fixed
	 * counter j; arm64: 0, the cycle counter), or -1.
	 */
	int fixed;
	/* No modifier made it count user and kernel mode: may retry :u. */
	int implicit_modes;
};

/*
 * Parse @str for the machine @info describes into @event.
 * Return: 0, or -1 with errno EINVAL or EOPNOTSUPP.
 */
int perfctr_event_parse(struct perfctr_event_spec *event, const char *str,
			const struct perfctr_info *info,
			char *err, size_t err_size);

/*
 * Add @event to @control on a counter that is free in it, in a-mode, or
 * with perfctr_event_add_irq() in i-mode with an overflow every @period
 * events (ns for task-clock); the caller sets control->si_signo.  Add
 * every a-mode event before the first i-mode one.  The TSC may be added
 * any number of times, in a-mode only.
 * Return: the index i of the counter, whose value is sum.pmc[i], or
 * PERFCTR_EVENT_TSC_INDEX; or -1 with errno EINVAL, EOPNOTSUPP or ENOSPC.
 */
int perfctr_event_add(struct vperfctr_control *control,
		      const struct perfctr_event_spec *event,
		      const struct perfctr_info *info,
		      char *err, size_t err_size);
int perfctr_event_add_irq(struct vperfctr_control *control,
			  const struct perfctr_event_spec *event,
			  const struct perfctr_info *info,
			  unsigned long long period,
			  char *err, size_t err_size);

/* The value of the counter perfctr_event_add() returned @index for. */
static __inline__ __u64 perfctr_event_value(const struct perfctr_sum_ctrs *sum,
					    int index)
{
	return index == PERFCTR_EVENT_TSC_INDEX ? sum->tsc : sum->pmc[index];
}

/* What perfctr_event_list() says of one named event. */
struct perfctr_event_desc {
	const char *name;
	const char *alias;		/* another name for it, or NULL */
	enum perfctr_event_kind kind;
	int takes_modes;		/* it takes :u, :k and :uk */
	const char *description;	/* a few words, no period */
};

/*
 * The named events the machine @info describes can count, for @index 0,
 * 1, ... until it returns NULL.
 */
const struct perfctr_event_desc *
perfctr_event_list(const struct perfctr_info *info, unsigned int index);

/*
 * Native events: the CPU's own events by the names of its vendor, from
 * libpfm4's tables (perfmon2's libpfm, version 4), for the PMU libpfm4
 * finds on the running CPU or the one the environment variable
 * LIBPFM_FORCE_PMU names.  perfctr_event_parse() takes them after the
 * names above, so that those keep their meaning: EVENT[:UMASK...] in
 * libpfm4's spelling (INST_RETIRED:ANY_P) or perf's (INST_RETIRED.ANY_P,
 * the first "." for a ":"), in any case, then modifiers: ours, :u, :k and
 * :uk, libpfm4's u=0|1 and k=0|1, and libpfm4's others of the event (on
 * x86 c=N counter mask, e edge, i invert, t any thread), which set the
 * bits of the selector they name.  The selector is libpfm4's less the
 * bits the driver sets (EN and INT on x86), then as a raw one: the same
 * bits allowed, the same modes.  Intel's fixed-counter events, event 0
 * with unit mask 1 to 4 (INST_RETIRED.ANY, CPU_CLK_UNHALTED.THREAD,
 * CPU_CLK_UNHALTED.REF_TSC, TOPDOWN.SLOTS), go on their fixed counter
 * and nothing else.  Refused: events that need a register besides the
 * selector (Intel's offcore response and load latency, EOPNOTSUPP),
 * libpfm4's hypervisor modifier (EINVAL), a PMU of another vendor than
 * the machine's (EOPNOTSUPP).  A name the PMU lacks is EINVAL, with the
 * PMU's name and the closest of its names in the message.
 *
 * perfctr_event_add() places every hardware event, native or raw, as
 * perf's scheduler would: on the Intel models whose event constraints in
 * Linux 6.12 (arch/x86/events/intel/core.c, libpfm4's PMUs nhm to spr)
 * restrict it by its code, or code and unit mask, to some general-purpose
 * counters, only on those, whatever its modifiers; without libpfm4 or on
 * other models, on any.  AMD's events that count more than one a cycle
 * (0x003 from family 17h, on two counters paired in perf) are refused.
 *
 * perfctr_native_pmu() describes the PMU; perfctr_native_event() gives
 * its events, for @index 0, 1, ... until it fails with ENOENT, and
 * perfctr_native_attr() the unit masks and modifiers of event @index.
 * perfctr_native_pmu_supported() gives the core PMUs libpfm4 knows, for
 * @index 0, 1, ... until ENOENT, the names LIBPFM_FORCE_PMU takes (with
 * it set, libpfm4 knows only those before the forced one).
 * Return: 0, or -1 with errno: ENOSYS if the library was built without
 * libpfm4, ENODEV if libpfm4 knows no PMU of this CPU (or none of the
 * name LIBPFM_FORCE_PMU gives), ENOENT past the last; @err says which
 * and what to do.  The strings are libpfm4's, valid until exit.
 */
struct perfctr_native_pmu {
	const char *name;		/* libpfm4's: "skl", "arm_n1" */
	const char *description;	/* "Intel Skylake" */
	unsigned int nevents;
	int forced;			/* named by LIBPFM_FORCE_PMU */
};

struct perfctr_native_event {
	const char *name;		/* "INST_RETIRED" */
	const char *description;
	unsigned int nattrs;		/* its unit masks and modifiers */
};

enum perfctr_native_attr_type {
	PERFCTR_NATIVE_UMASK = 1,	/* a unit mask: EVENT:UMASK */
	PERFCTR_NATIVE_FLAG,		/* a modifier: EVENT:e, EVENT:e=0 */
	PERFCTR_NATIVE_NUMBER,		/* a modifier: EVENT:c=N */
};

struct perfctr_native_attr {
	const char *name;		/* "ANY_P", "c" */
	const char *description;
	enum perfctr_native_attr_type type;
	int is_default;			/* the unit mask used if none is */
};

int perfctr_native_pmu(struct perfctr_native_pmu *pmu,
		       char *err, size_t err_size);
int perfctr_native_event(unsigned int index,
			 struct perfctr_native_event *event);
int perfctr_native_attr(unsigned int index, unsigned int attr,
			struct perfctr_native_attr *out);
int perfctr_native_pmu_supported(unsigned int index,
				 struct perfctr_native_pmu *pmu);

#ifdef __cplusplus
}
#endif

#endif /* PERFCTR_EVENTS_H */
