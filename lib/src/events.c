// SPDX-License-Identifier: LGPL-2.1
/*
 * Event names: from the text a user writes to the counters of a control.
 *
 * Everything here is a function of its arguments and of the tables
 * below: the machine is the struct perfctr_info the caller passes, not
 * the one the library was built for, so the tests run on made-up Intel,
 * AMD, arm64 and timer-only machines.
 *
 * The hardware encodings are the architectural events of the Intel SDM
 * (volume 3, "Pre-defined Architectural Performance Events"), the core
 * events of AMD's PPRs for family 17h and later, and the common events of
 * the Arm PMUv3 (Arm ARM, D17 "The Performance Monitors Extension"), as
 * Linux's perf maps its generic hardware events to them; Intel's TopDown
 * slots and categories are perf's names for fixed counter 3 and the
 * PERF_METRICS fields (perf's Documentation/topdown.txt).
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "internal.h"

/* x86 event selector bits (Documentation/perfctr/low-level-x86.rst). */
#define EVNTSEL_USR	(1ull << 16)
#define EVNTSEL_OS	(1ull << 17)
#define EVNTSEL_PC	(1ull << 19)
#define EVNTSEL_INT	(1ull << 20)
#define EVNTSEL_ANY	(1ull << 21)
#define EVNTSEL_EN	(1ull << 22)
#define EVNTSEL_MODES	(EVNTSEL_USR | EVNTSEL_OS)

/* The bits a caller may set, per counter type; the rest must be clear. */
#define INTEL_GP_BITS	(0xffffffffull & ~(EVNTSEL_PC | EVNTSEL_INT | EVNTSEL_EN))
#define AMD_GP_BITS	((0xffffffffull & ~(EVNTSEL_PC | EVNTSEL_INT | \
					    EVNTSEL_ANY | EVNTSEL_EN)) | \
			 (0xfull << 32) | (3ull << 40))
#define FIXED_BITS	(EVNTSEL_USR | EVNTSEL_OS | EVNTSEL_ANY)

/*
 * arm64 PMEVTYPER<n>_EL0: the event number, and bits that leave a mode
 * out.  The cycle counter counts CPU_CYCLES and nothing else.
 */
#define ARM64_EXCLUDE	(PERFCTR_ARM64_EXCLUDE_EL1 | \
			 PERFCTR_ARM64_EXCLUDE_EL0)
#define ARM64_BITS	(PERFCTR_ARM64_EVENT_MASK | ARM64_EXCLUDE)
#define ARM64_CPU_CYCLES 0x11

/*
 * The modes of a modifier are the x86 USR and OS bits whatever the
 * machine; the fault events' modes are the same bits, which the code
 * relies on.
 */
_Static_assert(PERFCTR_SW_USR == EVNTSEL_USR && PERFCTR_SW_OS == EVNTSEL_OS,
	       "PERFCTR_SW_USR/OS are not the USR/OS bits");

struct event_def {
	struct perfctr_event_desc desc;
	unsigned int sw_event;	/* PERFCTR_SW_*, software events only */
	__u64 evntsel;		/* event and unit mask, hardware only */
	int fixed;		/* fixed counter (arm64: 0, cycles), or -1 */
	__u32 map;		/* its only counter (TopDown), or 0 */
};

#define TSC(n, d) \
	{ { n, NULL, PERFCTR_EVENT_TSC, 0, d }, 0, 0, -1, 0 }
#define SW(n, a, ev, modes, d) \
	{ { n, a, PERFCTR_EVENT_SOFTWARE, modes, d }, PERFCTR_SW_##ev, 0, \
	  -1, 0 }
#define HW(n, sel, fix, d) \
	{ { n, NULL, PERFCTR_EVENT_HARDWARE, 1, d }, 0, sel, fix, 0 }
#define HWA(n, a, sel, fix, d) \
	{ { n, a, PERFCTR_EVENT_HARDWARE, 1, d }, 0, sel, fix, 0 }
/* Intel TopDown: the slots counter, or category PERFCTR_X86_TOPDOWN_k. */
#define TD(n, map, d) \
	{ { n, NULL, PERFCTR_EVENT_HARDWARE, 1, d }, 0, 0, -1, map }
#define SLOTS_MAP	(PERFCTR_MAP_X86_FIXED | PERFCTR_X86_FIXED_SLOTS)
#define METRIC_MAP(k)	(PERFCTR_MAP_X86_METRIC | PERFCTR_X86_TOPDOWN_##k)

static const struct event_def common_events[] = {
	TSC("tsc", "time-stamp counter ticks"),
	SW("task-clock", NULL, TASK_CLOCK, 0, "time on a CPU, in ns"),
	SW("context-switches", "cs", CONTEXT_SWITCHES, 0,
	   "times switched out"),
	SW("cpu-migrations", "migrations", CPU_MIGRATIONS, 0,
	   "times resumed on another CPU"),
	SW("page-faults", "faults", PAGE_FAULTS, 1,
	   "page faults, minor and major"),
	SW("minor-faults", NULL, MINOR_FAULTS, 1,
	   "page faults resolved without I/O"),
	SW("major-faults", NULL, MAJOR_FAULTS, 1,
	   "page faults that needed I/O"),
};

/* On arm64 the TSC is the generic timer's count: said so in the list. */
static const struct event_def arm64_tsc =
	TSC("tsc", "generic timer ticks (CNTVCT_EL0)");

/*
 * Event select in bits 7:0, unit mask in bits 15:8.  The TopDown ones,
 * level 1 then level 2, each of the latter a part of the level 1
 * category four before it.
 */
static const struct event_def intel_events[] = {
	HW("cycles",		0x003c, 1, "core cycles, not halted"),
	HW("instructions",	0x00c0, 0, "instructions retired"),
	HW("ref-cycles",	0x013c, 2, "reference cycles, not halted"),
	HWA("branches", "branch-instructions",
				0x00c4, -1, "branch instructions retired"),
	HW("branch-misses",	0x00c5, -1, "mispredicted branches retired"),
	HW("cache-references",	0x4f2e, -1, "last-level cache references"),
	HW("cache-misses",	0x412e, -1, "last-level cache misses"),
	TD("slots",		SLOTS_MAP, "pipeline slots (TopDown)"),
	TD("topdown-retiring",	METRIC_MAP(RETIRING),
	   "slots that retired operations"),
	TD("topdown-bad-spec",	METRIC_MAP(BAD_SPEC),
	   "slots wasted by bad speculation"),
	TD("topdown-fe-bound",	METRIC_MAP(FE_BOUND),
	   "slots the frontend left empty"),
	TD("topdown-be-bound",	METRIC_MAP(BE_BOUND),
	   "slots stalled by the backend"),
	TD("topdown-heavy-ops",	METRIC_MAP(HEAVY_OPS),
	   "retiring slots of heavy operations"),
	TD("topdown-br-mispredict", METRIC_MAP(BR_MISPREDICT),
	   "bad speculation slots of mispredicted branches"),
	TD("topdown-fetch-lat",	METRIC_MAP(FETCH_LAT),
	   "frontend bound slots of fetch latency"),
	TD("topdown-mem-bound",	METRIC_MAP(MEM_BOUND),
	   "backend bound slots stalled on memory"),
};

static const struct event_def amd_events[] = {
	HW("cycles",		0x0076, -1, "core cycles, not halted"),
	HW("instructions",	0x00c0, -1, "instructions retired"),
	HWA("branches", "branch-instructions",
				0x00c2, -1, "branch instructions retired"),
	HW("branch-misses",	0x00c3, -1, "mispredicted branches retired"),
	HW("cache-references",	0xff60, -1, "L2 cache accesses"),
	HW("cache-misses",	0x0964, -1, "L2 cache misses"),
};

/* PMUv3 common event numbers; cycles prefer the cycle counter. */
static const struct event_def arm64_events[] = {
	HW("cycles",		ARM64_CPU_CYCLES, 0, "CPU cycles"),
	HW("instructions",	0x08, -1, "instructions architecturally "
					  "executed"),
	HWA("branches", "branch-instructions",
				0x21, -1, "branches architecturally executed"),
	HW("branch-misses",	0x10, -1, "branches mispredicted or not "
					  "predicted"),
	HW("cache-references",	0x04, -1, "L1 data cache accesses"),
	HW("cache-misses",	0x03, -1, "L1 data cache refills"),
};

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

struct event_table {
	const struct event_def *defs;
	size_t nr;
};

static struct event_table hardware_table(const struct perfctr_info *info)
{
	switch (info->cpu_type) {
	case PERFCTR_X86_INTEL_ARCH:
		return (struct event_table){ intel_events,
					     ARRAY_SIZE(intel_events) };
	case PERFCTR_X86_AMD:
		return (struct event_table){ amd_events,
					     ARRAY_SIZE(amd_events) };
	case PERFCTR_ARM64_PMUV3:
		return (struct event_table){ arm64_events,
					     ARRAY_SIZE(arm64_events) };
	}
	return (struct event_table){ NULL, 0 };
}

static int is_arm64(const struct perfctr_info *info)
{
	return info->cpu_type == PERFCTR_ARM64_GENERIC ||
	       info->cpu_type == PERFCTR_ARM64_PMUV3;
}

/* What the counters that any event may use are called here. */
static const char *gp_name(const struct perfctr_info *info)
{
	return is_arm64(info) ? "event" : "general-purpose";
}

/* Is @map the fixed counter of an arm64 machine, or an Intel one? */
static int is_fixed_map(__u32 map, const struct perfctr_info *info)
{
	if (is_arm64(info))
		return map == PERFCTR_MAP_ARM64_CYCLES;
	return (map & PERFCTR_MAP_X86_FIXED) != 0;
}

static int has_hardware(const struct perfctr_info *info)
{
	return hardware_table(info).nr && info->nrctrs + info->nrfixed;
}

/* Has this machine Intel's fixed counter 3, which counts the slots? */
static int has_slots(const struct perfctr_info *info)
{
	return info->cpu_type == PERFCTR_X86_INTEL_ARCH &&
	       info->nrfixed > PERFCTR_X86_FIXED_SLOTS;
}

/* How many TopDown categories this machine counts: 0, 4 or 8. */
static unsigned int nr_metrics(const struct perfctr_info *info)
{
	if (!has_slots(info) ||
	    !(info->cpu_features & PERFCTR_FEATURE_TOPDOWN))
		return 0;
	return info->nrmetrics < PERFCTR_X86_TOPDOWN_NR ? info->nrmetrics :
	       PERFCTR_X86_TOPDOWN_NR;
}

static int is_metric_map(__u32 map)
{
	return (map & ~(PERFCTR_X86_TOPDOWN_NR - 1)) == PERFCTR_MAP_X86_METRIC;
}

/* Is @map a TopDown category this machine counts? */
static int has_metric(__u32 map, const struct perfctr_info *info)
{
	return is_metric_map(map) &&
	       (map & ~PERFCTR_MAP_X86_METRIC) < nr_metrics(info);
}

static int is_slots_map(__u32 map)
{
	return map == SLOTS_MAP;
}

/* Does @map use the slots: fixed counter 3 or a TopDown category? */
static int uses_slots(__u32 map)
{
	return is_slots_map(map) || is_metric_map(map);
}

/* Can this machine count TopDown event @def (def->map set)? */
static int has_topdown(const struct event_def *def,
		       const struct perfctr_info *info)
{
	if (def->map == SLOTS_MAP)
		return has_slots(info);
	return has_metric(def->map, info);
}

/* Can this machine count @def, a hardware event of its table? */
static int countable(const struct event_def *def,
		     const struct perfctr_info *info)
{
	if (def->map)
		return has_topdown(def, info);
	return info->nrctrs ||
	       (def->fixed >= 0 && (__u32)def->fixed < info->nrfixed);
}

static __u64 gp_bits(const struct perfctr_info *info)
{
	if (is_arm64(info))
		return ARM64_BITS;
	return info->cpu_type == PERFCTR_X86_AMD ? AMD_GP_BITS : INTEL_GP_BITS;
}

static int no_hardware(const char *what, const struct perfctr_info *info,
		       char *err, size_t err_size)
{
	return fail(EOPNOTSUPP, err, err_size,
		    "%s: this CPU has no hardware counters (driver: %s)",
		    what, perfctr_info_cpu_name(info));
}

/* An event that needs a general-purpose counter (arm64: an event one). */
static int no_gp_counters(const char *what, const struct perfctr_info *info,
			  char *err, size_t err_size)
{
	return fail(EOPNOTSUPP, err, err_size, "%s: this CPU has no %s "
		    "counters (driver: %s)", what, gp_name(info),
		    perfctr_info_cpu_name(info));
}

/* TopDown event @def on a machine that lacks what it counts on. */
static int no_topdown(const char *what, const struct event_def *def,
		      const struct perfctr_info *info, char *err,
		      size_t err_size)
{
	if (def->map == SLOTS_MAP)
		return fail(EOPNOTSUPP, err, err_size, "%s: needs Intel fixed "
			    "counter 3 (TopDown slots: Ice Lake or later); "
			    "this CPU has none", what);
	if (nr_metrics(info))
		return fail(EOPNOTSUPP, err, err_size, "%s: needs TopDown "
			    "level 2 (Intel Sapphire Rapids or later); this "
			    "CPU has level 1 only", what);
	return fail(EOPNOTSUPP, err, err_size, "%s: needs TopDown metrics "
		    "(PERF_METRICS: Intel Ice Lake or later); this CPU has "
		    "none", what);
}

/* Look a name up in @defs, by name or alias. */
static const struct event_def *find(const struct event_def *defs, size_t nr,
				    const char *name, size_t len)
{
	size_t i;

	for (i = 0; i < nr; i++) {
		const struct perfctr_event_desc *d = &defs[i].desc;

		if ((strlen(d->name) == len && !strncmp(d->name, name, len)) ||
		    (d->alias && strlen(d->alias) == len &&
		     !strncmp(d->alias, name, len)))
			return &defs[i];
	}
	return NULL;
}

/* "u", "k", "uk" or "ku" as USR/OS bits; 0 if it is none of them. */
static __u64 parse_modifier(const char *mod)
{
	__u64 modes = 0, bit;

	for (; *mod; mod++) {
		if (*mod == 'u')
			bit = EVNTSEL_USR;
		else if (*mod == 'k')
			bit = EVNTSEL_OS;
		else
			return 0;
		if (modes & bit)
			return 0;
		modes |= bit;
	}
	return modes;
}

static const char *modifier_name(__u64 modes)
{
	switch (modes) {
	case EVNTSEL_USR:
		return ":u";
	case EVNTSEL_OS:
		return ":k";
	case EVNTSEL_MODES:
		return ":uk";
	}
	return "";
}

/*
 * A number of @len characters at @s: hexadecimal if @hex, else decimal
 * or, after 0x, hexadecimal.  At most 64 bits; no sign, no blanks.
 */
static int parse_number(const char *s, size_t len, int hex, __u64 *value)
{
	__u64 v = 0;
	unsigned int base = 10, d;
	size_t i = 0;

	if (!hex && len > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		hex = 1;
		i = 2;
	}
	if (hex)
		base = 16;
	if (i == len)
		return -1;
	for (; i < len; i++) {
		if (s[i] >= '0' && s[i] <= '9')
			d = s[i] - '0';
		else if (hex && s[i] >= 'a' && s[i] <= 'f')
			d = s[i] - 'a' + 10;
		else if (hex && s[i] >= 'A' && s[i] <= 'F')
			d = s[i] - 'A' + 10;
		else
			return -1;
		if (v > (UINT64_MAX - d) / base)
			return -1;
		v = v * base + d;
	}
	*value = v;
	return 0;
}

/*
 * The USR/OS bits of a hardware selector: those of the modifier, those
 * the selector has, or both.
 */
static __u64 with_modes(struct perfctr_event_spec *event, __u64 evntsel,
			__u64 modes)
{
	if (modes)
		return (evntsel & ~EVNTSEL_MODES) | modes;
	if (evntsel & EVNTSEL_MODES)
		return evntsel;
	event->implicit_modes = 1;
	return evntsel | EVNTSEL_MODES;
}

/*
 * with_modes() for a hardware selector of @info's machine.  An arm64
 * selector names the modes it leaves out, and one that leaves out neither
 * counts both: an event without a modifier gets that, with
 * implicit_modes to tell it from :uk.
 */
static __u64 hw_with_modes(struct perfctr_event_spec *event,
			   const struct perfctr_info *info, __u64 evntsel,
			   __u64 modes)
{
	if (!is_arm64(info))
		return with_modes(event, evntsel, modes);
	if (modes) {
		evntsel &= ~ARM64_EXCLUDE;
		if (!(modes & EVNTSEL_OS))
			evntsel |= PERFCTR_ARM64_EXCLUDE_EL1;
		if (!(modes & EVNTSEL_USR))
			evntsel |= PERFCTR_ARM64_EXCLUDE_EL0;
		return evntsel;
	}
	if (!(evntsel & ARM64_EXCLUDE))
		event->implicit_modes = 1;
	return evntsel;
}

/* An arm64 selector must leave a mode to count. */
static int check_modes(const char *str, __u64 evntsel,
		       const struct perfctr_info *info, char *err,
		       size_t err_size)
{
	if (is_arm64(info) && (evntsel & ARM64_EXCLUDE) == ARM64_EXCLUDE)
		return fail(EINVAL, err, err_size, "%s: both EL0 and EL1 are "
			    "excluded: it would count nothing", str);
	return 0;
}

/* Bits of @evntsel outside @allowed, named for the message. */
static int check_bits(const char *str, __u64 evntsel, __u64 allowed,
		      const struct perfctr_info *info, char *err,
		      size_t err_size)
{
	__u64 bad = evntsel & ~allowed;

	if (!bad)
		return 0;
	/* EN and INT are x86's: on arm64 they are bits like any other. */
	if ((bad & EVNTSEL_EN) && !is_arm64(info))
		return fail(EINVAL, err, err_size, "%s: bit 22 (EN) is set by "
			    "the driver, not in the selector", str);
	if ((bad & EVNTSEL_INT) && !is_arm64(info))
		return fail(EINVAL, err, err_size, "%s: bit 20 (INT) is set by "
			    "the driver: count in i-mode instead", str);
	return fail(EINVAL, err, err_size, "%s: selector bits 0x%llx are "
		    "not allowed on this counter", str,
		    (unsigned long long)bad);
}

static int parse_named(struct perfctr_event_spec *event, const char *str,
		       const struct event_def *def, const char *mod,
		       const struct perfctr_info *info, char *err,
		       size_t err_size)
{
	const struct perfctr_event_desc *desc = &def->desc;
	struct event_table hw;
	__u64 modes = 0;

	if (mod && !desc->takes_modes)
		return fail(EINVAL, err, err_size, "%s: %s takes no modifier "
			    "(only hardware and fault events do)", str,
			    desc->name);
	if (mod) {
		modes = parse_modifier(mod);
		if (!modes)
			return fail(EINVAL, err, err_size, "%s: unknown modifier "
				    "':%s': use :u, :k or :uk", str, mod);
	}
	event->kind = desc->kind;
	snprintf(event->name, sizeof(event->name), "%s%s", desc->name,
		 modifier_name(modes));

	switch (desc->kind) {
	case PERFCTR_EVENT_TSC:
		return 0;
	case PERFCTR_EVENT_SOFTWARE:
		event->pmc_map = PERFCTR_MAP_SOFTWARE | def->sw_event;
		if (desc->takes_modes)
			/* PERFCTR_SW_USR/OS are the USR/OS bits. */
			event->evntsel = with_modes(event, 0, modes);
		return 0;
	case PERFCTR_EVENT_HARDWARE:
		break;
	}

	/* TopDown: its own counter, the USR and OS bits its selector. */
	if (def->map) {
		if (!has_topdown(def, info))
			return no_topdown(str, def, info, err, err_size);
		event->pmc_map = def->map;
		event->evntsel = with_modes(event, 0, modes);
		return 0;
	}
	if (!has_hardware(info))
		return no_hardware(str, info, err, err_size);
	hw = hardware_table(info);
	def = find(hw.defs, hw.nr, desc->name, strlen(desc->name));
	if (!def)
		return fail(EOPNOTSUPP, err, err_size, "%s: not an event of "
			    "this CPU (driver: %s)", str,
			    perfctr_info_cpu_name(info));
	event->fixed = def->fixed >= 0 && (__u32)def->fixed < info->nrfixed ?
		       def->fixed : -1;
	if (!countable(def, info))
		return no_gp_counters(str, info, err, err_size);
	event->pmc_map = PERFCTR_EVENT_ANY_PMC;
	event->evntsel = hw_with_modes(event, info, def->evntsel, modes);
	return 0;
}

/*
 * rNNNN: a general-purpose counter's selector, in hexadecimal; on arm64
 * a PMEVTYPER value, an event number with or without exclude bits.
 */
static int parse_raw(struct perfctr_event_spec *event, const char *str,
		     size_t len, const char *mod,
		     const struct perfctr_info *info, char *err,
		     size_t err_size)
{
	__u64 evntsel, modes = 0;

	if (len > 17 || parse_number(str + 1, len - 1, 1, &evntsel) < 0)
		return fail(EINVAL, err, err_size, "%s: unknown event", str);
	if (!has_hardware(info))
		return no_hardware(str, info, err, err_size);
	if (info->nrctrs == 0)
		return no_gp_counters(str, info, err, err_size);
	if (mod) {
		modes = parse_modifier(mod);
		if (!modes)
			return fail(EINVAL, err, err_size, "%s: unknown modifier "
				    "':%s': use :u, :k or :uk", str, mod);
	}
	if (check_bits(str, evntsel, gp_bits(info), info, err,
		       err_size) < 0)
		return -1;
	event->kind = PERFCTR_EVENT_HARDWARE;
	event->pmc_map = PERFCTR_EVENT_ANY_PMC;
	event->evntsel = hw_with_modes(event, info, evntsel, modes);
	if (check_modes(str, event->evntsel, info, err, err_size) < 0)
		return -1;
	snprintf(event->name, sizeof(event->name), "r%llx%s",
		 (unsigned long long)evntsel, modifier_name(modes));
	return 0;
}

/* check_counter() on arm64: an event counter, or the cycle counter. */
static int check_arm64_counter(const char *str, __u32 pmc_map,
			       const struct perfctr_info *info, char *err,
			       size_t err_size)
{
	if (pmc_map == PERFCTR_MAP_ARM64_CYCLES) {
		if (info->nrfixed == 0)
			return fail(EINVAL, err, err_size, "%s: this CPU has no "
				    "cycle counter", str);
		return 0;
	}
	if (pmc_map >= info->nrctrs || pmc_map >= PERFCTR_MAP_ARM64_CYCLES)
		return fail(EINVAL, err, err_size, "%s: this CPU has no event "
			    "counter %u (it has %u)", str, pmc_map,
			    info->nrctrs);
	return 0;
}

/* Is @pmc_map a counter of this machine?  0, or -1 with the message. */
static int check_counter(const char *str, __u32 pmc_map,
			 const struct perfctr_info *info, char *err,
			 size_t err_size)
{
	__u32 index = pmc_map & ~PERFCTR_MAP_X86_FIXED;

	if (is_arm64(info))
		return check_arm64_counter(str, pmc_map, info, err, err_size);

	if (pmc_map & PERFCTR_MAP_X86_METRIC) {
		index = pmc_map & ~PERFCTR_MAP_X86_METRIC;
		if (has_metric(pmc_map, info))
			return 0;
		return fail(EINVAL, err, err_size, "%s: this CPU has no "
			    "TopDown metric %u (it has %u)", str, index,
			    nr_metrics(info));
	}
	if (pmc_map & PERFCTR_MAP_X86_FIXED) {
		if (info->cpu_type != PERFCTR_X86_INTEL_ARCH ||
		    index >= info->nrfixed || index >= 32)
			return fail(EINVAL, err, err_size, "%s: this CPU has no "
				    "fixed counter %u (it has %u)", str, index,
				    info->cpu_type == PERFCTR_X86_INTEL_ARCH ?
				    info->nrfixed : 0);
		return 0;
	}
	if (pmc_map >= info->nrctrs || pmc_map >= PERFCTR_MAX_NRCTRS)
		return fail(EINVAL, err, err_size, "%s: this CPU has no "
			    "general-purpose counter %u (it has %u)", str,
			    pmc_map, info->nrctrs);
	return 0;
}

/*
 * SEL[@PMC], perfctr 2.7's form: decimal, or hexadecimal after 0x.  On
 * arm64, SEL is a PMEVTYPER value and PMC a counter index, 31 for the
 * cycle counter.  On x86, PMC may be a TopDown category, whose selector
 * has the USR and OS bits only.
 */
static int parse_legacy(struct perfctr_event_spec *event, const char *str,
			size_t len, const char *mod,
			const struct perfctr_info *info, char *err,
			size_t err_size)
{
	const char *at = memchr(str, '@', len);
	size_t sel_len = at ? (size_t)(at - str) : len;
	__u64 evntsel, sel, pmc = 0, modes = 0, allowed;
	__u32 pmc_map = PERFCTR_EVENT_ANY_PMC;
	char where[16] = "";

	if (parse_number(str, sel_len, 0, &evntsel) < 0 ||
	    (at && (parse_number(at + 1, len - sel_len - 1, 0, &pmc) < 0 ||
		    pmc > UINT32_MAX)))
		return fail(EINVAL, err, err_size, "%s: unknown event", str);
	if (!has_hardware(info))
		return no_hardware(str, info, err, err_size);
	if (mod) {
		modes = parse_modifier(mod);
		if (!modes)
			return fail(EINVAL, err, err_size, "%s: unknown modifier "
				    "':%s': use :u, :k or :uk", str, mod);
	}
	if (at) {
		pmc_map = pmc;
		if (check_counter(str, pmc_map, info, err, err_size) < 0)
			return -1;
		snprintf(where, sizeof(where), !is_arm64(info) &&
			 (pmc_map & (PERFCTR_MAP_X86_FIXED |
				     PERFCTR_MAP_X86_METRIC)) ?
			 "@0x%x" : "@%u", pmc_map);
	} else if (info->nrctrs == 0) {
		return no_gp_counters(str, info, err, err_size);
	}
	/* The x86 driver's bits, which 2.7 selectors carried. */
	sel = is_arm64(info) ? evntsel : evntsel & ~(EVNTSEL_EN | EVNTSEL_INT);
	allowed = gp_bits(info);
	if (at && !is_arm64(info) && (pmc_map & PERFCTR_MAP_X86_FIXED))
		allowed = FIXED_BITS;
	else if (at && !is_arm64(info) && is_metric_map(pmc_map))
		allowed = EVNTSEL_MODES;
	if (check_bits(str, sel, allowed, info, err, err_size) < 0)
		return -1;
	if (at && is_arm64(info) && pmc_map == PERFCTR_MAP_ARM64_CYCLES &&
	    (sel & PERFCTR_ARM64_EVENT_MASK) != ARM64_CPU_CYCLES)
		return fail(EINVAL, err, err_size, "%s: the cycle counter "
			    "counts only event 0x11 (CPU_CYCLES)", str);
	event->kind = PERFCTR_EVENT_HARDWARE;
	event->pmc_map = pmc_map;
	event->evntsel = hw_with_modes(event, info, sel, modes);
	if (check_modes(str, event->evntsel, info, err, err_size) < 0)
		return -1;
	snprintf(event->name, sizeof(event->name), "0x%llx%s%s",
		 (unsigned long long)evntsel, where, modifier_name(modes));
	return 0;
}

static int is_hex(const char *s, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (!isxdigit((unsigned char)s[i]))
			return 0;
	return 1;
}

/*
 * A native event's modifier @tok (@len characters), if it is a mode:
 * u, k, uk, ku, u=0|1 or k=0|1, in any case.  Its modes go into *@modes,
 * with NATIVE_MODES_SET and which modes it spoke of, so that a mode given
 * twice is refused.  Return: 1 if it is a mode, 0 if not, -1 if it gives
 * a mode given before.
 */
int native_mode_token(const char *tok, size_t len, __u64 *modes)
{
	__u64 given = 0, set = 0, bit;
	size_t i;

	if (len == 3 && tok[1] == '=' && (tok[2] == '0' || tok[2] == '1')) {
		bit = tolower((unsigned char)tok[0]) == 'u' ? NATIVE_USR :
		      tolower((unsigned char)tok[0]) == 'k' ? NATIVE_OS : 0;
		given = bit;
		set = tok[2] == '1' ? bit : 0;
	} else if (len == 1 || len == 2) {
		for (i = 0; i < len; i++) {
			bit = tolower((unsigned char)tok[i]) == 'u' ? NATIVE_USR :
			      tolower((unsigned char)tok[i]) == 'k' ? NATIVE_OS :
			      0;
			if (!bit || (given & bit))
				return 0;
			given |= bit;
		}
		set = given;
	}
	if (!given)
		return 0;
	if (*modes & NATIVE_GIVEN(given))
		return -1;
	*modes |= set | NATIVE_GIVEN(given) | NATIVE_MODES_SET;
	return 1;
}

/*
 * The spec's name of native event @str: without its mode modifiers, then
 * ours.  One that does not fit keeps its start and its end, with ".." in
 * between, so that it still ends in its modes.
 */
static void native_name(char *name, size_t size, const char *str,
			__u64 modes)
{
	const char *tok = str, *end, *mod = modifier_name(modes);
	char full[256];
	__u64 ignored = 0;
	size_t len = 0, room, tail;

	full[0] = '\0';
	for (; tok && len < sizeof(full); tok = *end ? end + 1 : NULL) {
		end = tok + strcspn(tok, ":");
		if (tok != str && native_mode_token(tok, end - tok, &ignored))
			continue;
		len += snprintf(full + len, sizeof(full) - len, "%s%.*s",
				tok == str ? "" : ":", (int)(end - tok), tok);
	}
	len = strlen(full);
	room = size - 1 - strlen(mod);
	if (len > room) {
		tail = room / 3;
		memcpy(name, full, room - tail - 2);
		memcpy(name + room - tail - 2, "..", 2);
		memcpy(name + room - tail, full + len - tail, tail);
		len = room;
	} else {
		memcpy(name, full, len);
	}
	snprintf(name + len, size - len, "%s", mod);
}

/* Is libpfm4's PMU one of the vendor of @info's counters? */
static int native_vendor_ok(enum native_vendor vendor,
			    const struct perfctr_info *info)
{
	switch (info->cpu_type) {
	case PERFCTR_X86_INTEL_ARCH:
		return vendor == NATIVE_INTEL;
	case PERFCTR_X86_AMD:
		return vendor == NATIVE_AMD;
	case PERFCTR_ARM64_PMUV3:
		return vendor == NATIVE_ARM64;
	}
	return 0;
}

/*
 * An Intel fixed counter's event, code 0 and unit mask j + 1, on fixed
 * counter j only: j 3 is the TopDown slots.
 */
static int parse_fixed_only(struct perfctr_event_spec *event,
			    const char *str, __u64 sel, __u64 modes,
			    const struct perfctr_info *info, char *err,
			    size_t err_size)
{
	unsigned int j = ((sel >> 8) & 0xff) - 1;

	if ((sel & ~0xff00ull) || j > PERFCTR_X86_FIXED_SLOTS)
		return fail(EINVAL, err, err_size, "%s: event 0 counts on a "
			    "fixed counter, and with unit mask 1 to 4 only",
			    str);
	if (j == PERFCTR_X86_FIXED_SLOTS && !has_slots(info))
		return fail(EOPNOTSUPP, err, err_size, "%s: needs Intel fixed "
			    "counter 3 (TopDown slots: Ice Lake or later); "
			    "this CPU has none", str);
	if (j >= info->nrfixed)
		return fail(EOPNOTSUPP, err, err_size, "%s: counts on Intel "
			    "fixed counter %u only, which this CPU lacks (it has "
			    "%u)", str, j, info->nrfixed);
	event->pmc_map = PERFCTR_MAP_X86_FIXED | j;
	event->evntsel = with_modes(event, 0, modes);
	return 0;
}

/*
 * The fixed counter that counts what general-purpose event @sel does,
 * selector bits and all: Intel's instructions and core cycles, arm64's
 * CPU_CYCLES; or -1.
 */
static int native_fixed(__u64 sel, const struct perfctr_info *info)
{
	int fixed = -1;

	if (is_arm64(info))
		fixed = (sel & ~ARM64_EXCLUDE) == ARM64_CPU_CYCLES ? 0 : -1;
	else if (info->cpu_type == PERFCTR_X86_INTEL_ARCH &&
		 (sel & ~EVNTSEL_MODES) == 0x00c0)
		fixed = 0;
	else if (info->cpu_type == PERFCTR_X86_INTEL_ARCH &&
		 (sel & ~EVNTSEL_MODES) == 0x003c)
		fixed = 1;
	return fixed >= 0 && (__u32)fixed < info->nrfixed ? fixed : -1;
}

/*
 * perf's names of the events of Intel's fixed counters, event 0 and unit
 * mask j + 1 for fixed counter j, which libpfm4 names otherwise or not.
 */
static const char *const intel_fixed_names[] = {
	"INST_RETIRED.ANY", "CPU_CLK_UNHALTED.THREAD",
	"CPU_CLK_UNHALTED.REF_TSC", "TOPDOWN.SLOTS",
};

/*
 * Is @str one of intel_fixed_names[] (a ":" for the "." will do) and
 * mode modifiers?  1 with its selector, event 0 and the unit mask, and
 * the modes in *@enc; 0 if it is none of them; -1 with the message if
 * it is one with other modifiers.
 */
static int intel_fixed_name(const char *str, struct native_encoding *enc,
			    char *err, size_t err_size)
{
	size_t len = strcspn(str, ":"), i, n;
	const char *tok, *end;
	__u64 sel = 0;
	int ret;

	/* EVENT:UMASK as EVENT.UMASK */
	if (!memchr(str, '.', len) && str[len] == ':')
		len += 1 + strcspn(str + len + 1, ":");

	for (i = 0; i < ARRAY_SIZE(intel_fixed_names) && !sel; i++) {
		const char *name = intel_fixed_names[i];
		const char *dot = strchr(name, '.');

		n = dot - name;
		if (len == strlen(name) && !strncasecmp(str, name, n) &&
		    (str[n] == '.' || str[n] == ':') &&
		    !strncasecmp(str + n + 1, dot + 1, len - n - 1))
			sel = (i + 1) << 8;
	}
	if (!sel)
		return 0;
	memset(enc, 0, sizeof(*enc));
	enc->vendor = NATIVE_INTEL;
	enc->pmu = "perf";
	enc->code = sel;
	for (tok = str + len; *tok; tok = end) {
		tok++;
		end = tok + strcspn(tok, ":");
		ret = native_mode_token(tok, end - tok, &enc->modes);
		if (ret < 0)
			return fail(EINVAL, err, err_size, "%s: a mode is given "
				    "twice", str);
		if (ret == 0)
			return fail(EINVAL, err, err_size, "%s: a fixed "
				    "counter's event takes :u, :k or :uk only",
				    str);
	}
	return 1;
}

/*
 * Events whose libpfm4 4.13 encoding is not perf's because perf programs
 * a register besides the selector for them: refused, as the offcore
 * response events are.
 */
static const struct {
	const char *pmu, *event;
} needs_msr_3f7[] = {
	{ "spr", "INT_MISC:UNKNOWN_BRANCH_CYCLES" },
	{ "spr", "UOPS_RETIRED:MS" },
};

/* Is libpfm4's PMU @pmu one of AMD's family 17h or later? */
static int amd_zen(const char *pmu)
{
	return !strncmp(pmu, "amd64_fam17h", 12) ||
	       !strncmp(pmu, "amd64_fam19h", 12) ||
	       !strncmp(pmu, "amd64_fam1a", 11);
}

static int needs_other_register(const struct native_encoding *enc)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(needs_msr_3f7); i++)
		if (!strcmp(enc->pmu, needs_msr_3f7[i].pmu) &&
		    !strcasecmp(enc->event, needs_msr_3f7[i].event))
			return 1;
	return 0;
}

/*
 * A native event: libpfm4's selector less the driver's bits (x86: EN
 * and INT; arm64: all but the event number), then as a raw one.
 */
static int parse_native(struct perfctr_event_spec *event, const char *str,
			const struct perfctr_info *info, char *err,
			size_t err_size)
{
	struct native_encoding enc;
	__u64 sel, modes;
	int ret;

	ret = info->cpu_type == PERFCTR_X86_INTEL_ARCH ||
	      info->cpu_type == PERFCTR_X86_GENERIC ?
	      intel_fixed_name(str, &enc, err, err_size) : 0;
	if (ret == 0)
		ret = native_encode(str, &enc, err, err_size);
	if (ret < 0)
		return -1;
	if (!has_hardware(info))
		return no_hardware(str, info, err, err_size);
	/*
	 * AMD's event 0x003 counts up to 64 a cycle from family 17h on:
	 * perf pairs two counters for it (amd_is_pair_event_code()), which
	 * perfctr does not.
	 */
	if (enc.vendor == NATIVE_AMD && amd_zen(enc.pmu) &&
	    (enc.code & 0xf000000ffull) == 0x003)
		return fail(EOPNOTSUPP, err, err_size, "%s: counts more than "
			    "one a cycle, on two counters paired, which "
			    "perfctr does not program", str);
	if (needs_other_register(&enc))
		return fail(EOPNOTSUPP, err, err_size, "%s: needs MSR 0x3F7 "
			    "besides the selector (perf's tables), which perfctr "
			    "does not program", str);
	if (!native_vendor_ok(enc.vendor, info))
		return fail(EOPNOTSUPP, err, err_size, "%s: an event of PMU %s, "
			    "not of these counters (driver: %s)", str, enc.pmu,
			    perfctr_info_cpu_name(info));
	modes = enc.modes & EVNTSEL_MODES;
	if ((enc.modes & NATIVE_MODES_SET) && !modes)
		return fail(EINVAL, err, err_size, "%s: its modifiers leave no "
			    "mode to count", str);
	event->kind = PERFCTR_EVENT_HARDWARE;
	native_name(event->name, sizeof(event->name), str, modes);
	if (is_arm64(info))
		sel = enc.code & PERFCTR_ARM64_EVENT_MASK;
	else
		sel = enc.code & ~(EVNTSEL_EN | EVNTSEL_INT | EVNTSEL_MODES);
	/*
	 * libpfm4 4.13 gives TOPDOWN's unit masks but SLOTS event 0, as if
	 * they were fixed counter 3's: perf's tables have them as event A4H.
	 */
	if (enc.vendor == NATIVE_INTEL && (sel & 0xff) == 0 &&
	    !strncasecmp(enc.event, "TOPDOWN:", 8) &&
	    strcasecmp(enc.event, "TOPDOWN:SLOTS"))
		sel |= 0xa4;
	if (enc.vendor == NATIVE_INTEL && (sel & 0xff) == 0)
		return parse_fixed_only(event, str, sel, modes, info, err,
					err_size);
	if (info->nrctrs == 0)
		return no_gp_counters(str, info, err, err_size);
	if (check_bits(str, sel, gp_bits(info), info, err, err_size) < 0)
		return -1;
	event->pmc_map = PERFCTR_EVENT_ANY_PMC;
	event->evntsel = hw_with_modes(event, info, sel, modes);
	event->fixed = native_fixed(event->evntsel, info);
	return 0;
}

int perfctr_event_parse(struct perfctr_event_spec *event, const char *str,
			const struct perfctr_info *info,
			char *err, size_t err_size)
{
	const char *colon = strchr(str, ':');
	size_t len = colon ? (size_t)(colon - str) : strlen(str);
	const char *mod = colon ? colon + 1 : NULL;
	const struct event_def *def;
	struct perfctr_event_spec parsed;
	int ret;

	if (!*str)
		return fail(EINVAL, err, err_size, "empty event name");
	if (len == 0)
		return fail(EINVAL, err, err_size, "%s: no event name before "
			    "the modifier", str);

	memset(&parsed, 0, sizeof(parsed));
	parsed.fixed = -1;
	/* Any machine's name, so that the message can say it is not ours. */
	def = find(common_events, ARRAY_SIZE(common_events), str, len);
	if (!def)
		def = find(intel_events, ARRAY_SIZE(intel_events), str, len);
	if (!def)
		def = find(amd_events, ARRAY_SIZE(amd_events), str, len);
	if (!def)
		def = find(arm64_events, ARRAY_SIZE(arm64_events), str, len);

	if (def)
		ret = parse_named(&parsed, str, def, mod, info, err, err_size);
	else if (str[0] == 'r' && len > 1 && is_hex(str + 1, len - 1))
		ret = parse_raw(&parsed, str, len, mod, info, err, err_size);
	else if (str[0] >= '0' && str[0] <= '9')
		ret = parse_legacy(&parsed, str, len, mod, info, err,
				   err_size);
	else
		ret = parse_native(&parsed, str, info, err, err_size);
	if (ret == 0)
		*event = parsed;
	return ret;
}

/*
 * The hardware counters @control uses: general-purpose counter i is bit i
 * of *@gp, fixed counter j bit j of *@fixed, TopDown category k bit k of
 * *@metrics; on arm64, event counter n is bit n of *@gp and the cycle
 * counter bit 0 of *@fixed.
 */
static void used_counters(const struct perfctr_cpu_control *cpu,
			  const struct perfctr_info *info,
			  __u32 *gp, __u32 *fixed, __u32 *metrics)
{
	unsigned int i, n = cpu->nractrs + cpu->nrictrs;
	__u32 map, index;

	*gp = 0;
	*fixed = 0;
	*metrics = 0;
	for (i = 0; i < n && i < PERFCTR_MAX_NRCTRS; i++) {
		map = cpu->pmc_map[i];
		if (is_arm64(info)) {
			if (map == PERFCTR_MAP_ARM64_CYCLES)
				*fixed |= 1;
			else if (map < PERFCTR_MAP_ARM64_CYCLES)
				*gp |= 1u << map;
			continue;
		}
		if (is_metric_map(map)) {
			*metrics |= 1u << (map & ~PERFCTR_MAP_X86_METRIC);
			continue;
		}
		index = map & ~PERFCTR_MAP_X86_FIXED;
		if (map & PERFCTR_MAP_SOFTWARE || index >= 32)
			continue;
		if (map & PERFCTR_MAP_X86_FIXED)
			*fixed |= 1u << index;
		else
			*gp |= 1u << index;
	}
}

/* Room for one more counter, of the mode asked, after those there? */
static int check_room(const struct vperfctr_control *control, int imode,
		      const char *name, char *err, size_t err_size)
{
	const struct perfctr_cpu_control *cpu = &control->cpu_control;

	if (cpu->nractrs > PERFCTR_MAX_NRCTRS ||
	    cpu->nrictrs > PERFCTR_MAX_NRCTRS - cpu->nractrs)
		return fail(EINVAL, err, err_size, "%s: the control has more "
			    "counters than a control can", name);
	if (!imode && cpu->nrictrs)
		return fail(EINVAL, err, err_size, "%s: a-mode counters come "
			    "before i-mode ones: add it first", name);
	if (cpu->nractrs + cpu->nrictrs == PERFCTR_MAX_NRCTRS)
		return fail(ENOSPC, err, err_size, "%s: the control has all "
			    "%d counters in use", name, PERFCTR_MAX_NRCTRS);
	return 0;
}

/* The largest i-mode period of a counter @width bits wide. */
static __u64 max_period(__u32 width)
{
	if (width == 0 || width >= 64)
		return INT64_MAX;
	return 1ull << (width - 1);
}

/*
 * The general-purpose counters that can count x86 selector @evntsel on
 * this machine, bit i for counter i, and the PMU that says so into
 * *@pmu: an Intel model's tables restrict some events, and every other
 * event, machine and PMU takes any counter (~0, *@pmu NULL).
 */
static __u32 allowed_counters(const struct perfctr_info *info,
			      __u64 evntsel, const char **pmu)
{
	enum native_vendor vendor;
	__u32 mask;

	*pmu = NULL;
	if (info->cpu_type != PERFCTR_X86_INTEL_ARCH)
		return ~0u;
	*pmu = native_pmu_name(&vendor);
	mask = vendor == NATIVE_INTEL ? intel_counter_mask(*pmu, evntsel) : 0;
	if (!mask)
		*pmu = NULL;
	return mask ? mask : ~0u;
}

/* Counters @mask as a list, "0-3" or "1,3", into @buf. */
static const char *counter_list(__u32 mask, char *buf, size_t size)
{
	unsigned int i, j;
	size_t len = 0;

	buf[0] = '\0';
	for (i = 0; i < 32 && len < size; i = j) {
		if (!(mask & (1u << i))) {
			j = i + 1;
			continue;
		}
		for (j = i + 1; j < 32 && (mask & (1u << j)); j++)
			;
		len += snprintf(buf + len, size - len, j - i > 2 ?
				"%s%u-%u" : j - i > 1 ? "%s%u,%u" : "%s%u",
				len ? "," : "", i, j - 1);
	}
	return buf;
}

/* An event restricted to counters @allowed that this CPU cannot place. */
static int no_allowed_counter(const struct perfctr_event_spec *event,
			      __u32 allowed, const char *pmu,
			      unsigned int nrctrs, char *err, size_t err_size)
{
	char list[48];

	int one = !(allowed & (allowed - 1));

	counter_list(allowed, list, sizeof(list));
	if (!(allowed & ((nrctrs < 32 ? 1u << nrctrs : 0) - 1)))
		return fail(EOPNOTSUPP, err, err_size, "%s: only general-purpose "
			    "counter%s %s count%s it on %s; this CPU has %u",
			    event->name, one ? "" : "s", list, one ? "s" : "",
			    pmu, nrctrs);
	return fail(ENOSPC, err, err_size, "%s: only general-purpose counter%s "
		    "%s count%s it on %s, and %s in use", event->name,
		    one ? "" : "s", list, one ? "s" : "", pmu,
		    one ? "it is" : "they are");
}

/*
 * The counter that hardware event @event names (pmc_map), into *@map and
 * *@evntsel, if it is free in the counters @used_counters() gave and can
 * count the event (@allowed and @pmu of allowed_counters()).
 */
static int take_named_counter(const struct perfctr_event_spec *event,
			      const struct perfctr_info *info,
			      const __u32 used[3], __u32 allowed,
			      const char *pmu, __u32 *map, __u64 *evntsel,
			      char *err, size_t err_size)
{
	__u32 index = event->pmc_map & ~PERFCTR_MAP_X86_FIXED;
	int fixed = is_fixed_map(event->pmc_map, info);
	int arm64 = is_arm64(info);
	char list[48];

	if (check_counter(event->name, event->pmc_map, info, err,
			  err_size) < 0)
		return -1;
	if (!arm64 && is_metric_map(event->pmc_map)) {
		index = event->pmc_map & ~PERFCTR_MAP_X86_METRIC;
		if (used[2] & (1u << index))
			return fail(EINVAL, err, err_size, "%s: TopDown metric "
				    "%u is in use", event->name, index);
	} else if (arm64 && fixed && (used[1] & 1)) {
		return fail(EINVAL, err, err_size, "%s: the cycle counter is in "
			    "use", event->name);
	} else if (!(arm64 && fixed) && (used[fixed] & (1u << index))) {
		return fail(EINVAL, err, err_size, "%s: %s counter %u is in use",
			    event->name, fixed ? "fixed" : gp_name(info),
			    index);
	} else if (!fixed && index < 32 && !(allowed & (1u << index))) {
		return fail(EINVAL, err, err_size, "%s: general-purpose counter "
			    "%u cannot count it on %s (only %s)", event->name,
			    index, pmu,
			    counter_list(allowed, list, sizeof(list)));
	}
	*map = event->pmc_map;
	*evntsel = event->evntsel;
	return 0;
}

/*
 * The counter for hardware event @event, into *@map and *@evntsel: the
 * one it asks for, its fixed counter if free (arm64: the cycle counter,
 * whose selector is that of an event counter counting CPU_CYCLES), or the
 * first free general-purpose counter of those that can count it.
 */
static int choose_counter(const struct vperfctr_control *control,
			  const struct perfctr_event_spec *event,
			  const struct perfctr_info *info, __u32 *map,
			  __u64 *evntsel, char *err, size_t err_size)
{
	unsigned int i, nrctrs = info->nrctrs;
	int arm64 = is_arm64(info);
	__u32 used[3], allowed;		/* general-purpose, fixed, metrics */
	const char *pmu;
	int has_fixed;

	used_counters(&control->cpu_control, info, &used[0], &used[1],
		      &used[2]);
	allowed = allowed_counters(info, event->evntsel, &pmu);
	if (event->pmc_map != PERFCTR_EVENT_ANY_PMC)
		return take_named_counter(event, info, used, allowed, pmu, map,
					  evntsel, err, err_size);
	has_fixed = event->fixed >= 0 && event->fixed < 32 &&
		    (__u32)event->fixed < info->nrfixed &&
		    (info->cpu_type == PERFCTR_X86_INTEL_ARCH ||
		     info->cpu_type == PERFCTR_ARM64_PMUV3);
	if (has_fixed && !(used[1] & (1u << event->fixed))) {
		if (arm64) {
			*map = PERFCTR_MAP_ARM64_CYCLES;
			*evntsel = event->evntsel;
		} else {
			*map = PERFCTR_MAP_X86_FIXED | event->fixed;
			*evntsel = event->evntsel & FIXED_BITS;
		}
		return 0;
	}
	/* On arm64 the index after the event counters is the cycle counter. */
	if (nrctrs > (arm64 ? PERFCTR_MAP_ARM64_CYCLES : PERFCTR_MAX_NRCTRS))
		nrctrs = arm64 ? PERFCTR_MAP_ARM64_CYCLES : PERFCTR_MAX_NRCTRS;
	for (i = 0; i < nrctrs; i++) {
		if (!(used[0] & (1u << i)) && (allowed & (1u << i))) {
			*map = i;
			*evntsel = event->evntsel;
			return 0;
		}
	}
	if (pmu && nrctrs)
		return no_allowed_counter(event, allowed, pmu, nrctrs, err,
					  err_size);
	if (nrctrs == 0 && has_fixed && arm64)
		return fail(ENOSPC, err, err_size, "%s: the cycle counter is in "
			    "use and this CPU has no event counters",
			    event->name);
	if (nrctrs == 0 && has_fixed)
		return fail(ENOSPC, err, err_size, "%s: fixed counter %d is in "
			    "use and this CPU has no general-purpose counters",
			    event->name, event->fixed);
	if (nrctrs == 0)
		return no_gp_counters(event->name, info, err, err_size);
	return fail(ENOSPC, err, err_size, "%s: all %u %s counters are in "
		    "use", event->name, nrctrs, gp_name(info));
}

/*
 * On a TopDown machine, the counters of a control that use the slots,
 * fixed counter 3 and the categories, count the same modes: the kernel
 * splits one count of the slots among them.
 */
static int check_slots_modes(const struct vperfctr_control *control,
			     const char *name, __u64 evntsel, char *err,
			     size_t err_size)
{
	const struct perfctr_cpu_control *cpu = &control->cpu_control;
	unsigned int i, n = cpu->nractrs + cpu->nrictrs;

	for (i = 0; i < n && i < PERFCTR_MAX_NRCTRS; i++) {
		if (uses_slots(cpu->pmc_map[i]) &&
		    (cpu->evntsel[i] & EVNTSEL_MODES) !=
		    (evntsel & EVNTSEL_MODES))
			return fail(EINVAL, err, err_size, "%s: counts other "
				    "modes than counter %u: TopDown counters "
				    "must count the same", name, i);
	}
	return 0;
}

/*
 * Has @control a counter, from counter @from on, whose map @match takes?
 * From 0 that is any counter, from cpu_control.nractrs an i-mode one.
 */
static int control_has(const struct vperfctr_control *control,
		       unsigned int from, int (*match)(__u32 map))
{
	const struct perfctr_cpu_control *cpu = &control->cpu_control;
	unsigned int i, n = cpu->nractrs + cpu->nrictrs;

	for (i = from; i < n && i < PERFCTR_MAX_NRCTRS; i++)
		if (match(cpu->pmc_map[i]))
			return 1;
	return 0;
}

static int add_hardware(struct vperfctr_control *control,
			const struct perfctr_event_spec *event,
			const struct perfctr_info *info, int imode,
			unsigned long long period, char *err, size_t err_size)
{
	__u64 evntsel = 0, limit;
	__u32 map = 0;

	if (!has_hardware(info))
		return no_hardware(event->name, info, err, err_size);
	/*
	 * The kernel restarts the slots at every resume for a control with
	 * TopDown categories: then none of them may be an i-mode counter.
	 */
	if (imode && is_metric_map(event->pmc_map))
		return fail(EINVAL, err, err_size, "%s: a TopDown category "
			    "counts in a-mode only", event->name);
	if (imode && nr_metrics(info) && is_slots_map(event->pmc_map) &&
	    control_has(control, 0, is_metric_map))
		return fail(EINVAL, err, err_size, "%s: the slots count in "
			    "a-mode only beside TopDown categories",
			    event->name);
	if (is_metric_map(event->pmc_map) &&
	    control_has(control, control->cpu_control.nractrs, is_slots_map))
		return fail(EINVAL, err, err_size, "%s: TopDown categories "
			    "need the slots in a-mode, not i-mode",
			    event->name);
	if (imode && !(info->cpu_features & PERFCTR_FEATURE_PCINT))
		return fail(EOPNOTSUPP, err, err_size, "%s: this CPU has no "
			    "overflow interrupts: count it in a-mode",
			    event->name);
	if (check_room(control, imode, event->name, err, err_size) < 0 ||
	    choose_counter(control, event, info, &map, &evntsel, err,
			   err_size) < 0)
		return -1;
	if (nr_metrics(info) && uses_slots(map) &&
	    check_slots_modes(control, event->name, evntsel, err,
			      err_size) < 0)
		return -1;
	limit = max_period(is_fixed_map(map, info) ? info->fixed_width :
			   info->ctr_width);
	if (imode && (period == 0 || period > limit))
		return fail(EINVAL, err, err_size, "%s: period %llu is not "
			    "between 1 and %llu", event->name, period,
			    (unsigned long long)limit);
	return vperfctr_control_append(control, map, evntsel,
				       imode ? -(__s64)period : 0, imode);
}

static int add_software(struct vperfctr_control *control,
			const struct perfctr_event_spec *event, int imode,
			unsigned long long period, char *err, size_t err_size)
{
	unsigned int sw = event->pmc_map & ~PERFCTR_MAP_SOFTWARE;
	int i;

	if (check_room(control, imode, event->name, err, err_size) < 0)
		return -1;
	if (imode && (period == 0 || period > INT64_MAX))
		return fail(EINVAL, err, err_size, "%s: period %llu is not "
			    "between 1 and %lld", event->name, period,
			    (long long)INT64_MAX);
	if (imode)
		i = vperfctr_control_add_sw_irq(control, sw, event->evntsel,
						period);
	else
		i = vperfctr_control_add_sw(control, sw, event->evntsel);
	if (i < 0)
		return fail(EINVAL, err, err_size, "%s: not a software event "
			    "perfctr_event_parse() made", event->name);
	return i;
}

static int add_event(struct vperfctr_control *control,
		     const struct perfctr_event_spec *event,
		     const struct perfctr_info *info, int imode,
		     unsigned long long period, char *err, size_t err_size)
{
	switch (event->kind) {
	case PERFCTR_EVENT_TSC:
		if (imode)
			return fail(EINVAL, err, err_size, "%s: the TSC cannot "
				    "be an i-mode counter", event->name);
		control->cpu_control.tsc_on = 1;
		return PERFCTR_EVENT_TSC_INDEX;
	case PERFCTR_EVENT_SOFTWARE:
		return add_software(control, event, imode, period, err,
				    err_size);
	case PERFCTR_EVENT_HARDWARE:
		return add_hardware(control, event, info, imode, period, err,
				    err_size);
	}
	return fail(EINVAL, err, err_size, "%.*s: not an event "
		    "perfctr_event_parse() made",
		    (int)sizeof(event->name), event->name);
}

int perfctr_event_add(struct vperfctr_control *control,
		      const struct perfctr_event_spec *event,
		      const struct perfctr_info *info,
		      char *err, size_t err_size)
{
	return add_event(control, event, info, 0, 0, err, err_size);
}

int perfctr_event_add_irq(struct vperfctr_control *control,
			  const struct perfctr_event_spec *event,
			  const struct perfctr_info *info,
			  unsigned long long period,
			  char *err, size_t err_size)
{
	return add_event(control, event, info, 1, period, err, err_size);
}

const struct perfctr_event_desc *
perfctr_event_list(const struct perfctr_info *info, unsigned int index)
{
	struct event_table hw = hardware_table(info);
	size_t i;

	if (index == 0 && is_arm64(info))
		return &arm64_tsc.desc;
	if (index < ARRAY_SIZE(common_events))
		return &common_events[index].desc;
	index -= ARRAY_SIZE(common_events);
	if (!has_hardware(info))
		return NULL;
	for (i = 0; i < hw.nr; i++) {
		if (!countable(&hw.defs[i], info))
			continue;
		if (index-- == 0)
			return &hw.defs[i].desc;
	}
	return NULL;
}
