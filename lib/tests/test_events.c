// SPDX-License-Identifier: LGPL-2.1
/*
 * Event names and counter assignment, on made-up machines: an Intel one
 * with 4 general-purpose and 3 fixed counters, an AMD one with 6
 * general-purpose counters, one with the TSC only, an arm64 PMUv3 with 6
 * event counters and the cycle counter, and an arm64 one with the generic
 * timer only.  The events of each machine are chosen by its cpu_type, so
 * the arm64 ones are tested here, on whatever machine runs the tests.
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>

#include <libperfctr.h>
#include "machines.h"
#include "tap.h"

#define USR	0x10000ull
#define OS	0x20000ull
#define BOTH	(USR | OS)
#define ANY	PERFCTR_EVENT_ANY_PMC
#define FIXED	PERFCTR_MAP_X86_FIXED
#define SW(ev)	(PERFCTR_MAP_SOFTWARE | PERFCTR_SW_##ev)
#define CYCLES	PERFCTR_MAP_ARM64_CYCLES
#define NO_EL1	((__u64)PERFCTR_ARM64_EXCLUDE_EL1)	/* user mode */
#define NO_EL0	((__u64)PERFCTR_ARM64_EXCLUDE_EL0)	/* kernel mode */
#define SLOTS	(PERFCTR_MAP_X86_FIXED | PERFCTR_X86_FIXED_SLOTS)
#define METRIC(k) (PERFCTR_MAP_X86_METRIC | PERFCTR_X86_TOPDOWN_##k)

static struct perfctr_info intel_v1;	/* 2 counters of 40 bits, no fixed */
static struct perfctr_info intel_fixed_only;	/* 0 counters, 3 fixed */
static struct perfctr_info intel_no_pcint;
static struct perfctr_info arm64_cycles_only;	/* the cycle counter alone */
static struct perfctr_info intel_slots_only;	/* fixed 3, no PERF_METRICS */

static void make_infos(void)
{
	intel_v1 = intel;
	intel_v1.nrctrs = 2;
	intel_v1.ctr_width = 40;
	intel_v1.nrfixed = 0;
	intel_v1.fixed_width = 0;
	intel_fixed_only = intel;
	intel_fixed_only.nrctrs = 0;
	intel_no_pcint = intel;
	intel_no_pcint.cpu_features &= ~PERFCTR_FEATURE_PCINT;
	arm64_cycles_only = arm64_pmuv3;
	arm64_cycles_only.nrctrs = 0;
	arm64_cycles_only.ctr_width = 0;
	intel_slots_only = icelake;
	intel_slots_only.cpu_features &= ~PERFCTR_FEATURE_TOPDOWN;
	intel_slots_only.nrmetrics = 0;
}

struct want {
	const char *str;	/* as written */
	const char *name;	/* canonical */
	enum perfctr_event_kind kind;
	__u32 pmc_map;
	__u64 evntsel;
	int fixed;
	int implicit_modes;
};

static void parses(const struct perfctr_info *info, const char *machine,
		   const struct want *w)
{
	struct perfctr_event_spec ev;
	char err[PERFCTR_EVENT_ERROR_SIZE] = "";
	int ret;

	memset(&ev, 0x5a, sizeof(ev));
	ret = perfctr_event_parse(&ev, w->str, info, err, sizeof(err));
	if (!tap_ok(ret == 0, "%s: %s parses", machine, w->str)) {
		tap_diag(err);
		return;
	}
	tap_ok(!strcmp(ev.name, w->name) && ev.kind == w->kind &&
	       ev.pmc_map == w->pmc_map && ev.evntsel == w->evntsel &&
	       ev.fixed == w->fixed && ev.implicit_modes == w->implicit_modes,
	       "%s: %s is %s, kind %d, map 0x%x, evntsel 0x%llx, fixed %d%s",
	       machine, w->str, w->name, w->kind, w->pmc_map,
	       (unsigned long long)w->evntsel, w->fixed,
	       w->implicit_modes ? ", implicit modes" : "");
	if (strcmp(ev.name, w->name) || ev.kind != w->kind ||
	    ev.pmc_map != w->pmc_map || ev.evntsel != w->evntsel ||
	    ev.fixed != w->fixed || ev.implicit_modes != w->implicit_modes)
		printf("#   got: %s, kind %d, map 0x%x, evntsel 0x%llx, "
		       "fixed %d, implicit %d\n", ev.name, ev.kind,
		       ev.pmc_map, (unsigned long long)ev.evntsel, ev.fixed,
		       ev.implicit_modes);
}

/* Does parsing @str fail with @err_no and exactly @msg, @ev untouched? */
static void refuses(const struct perfctr_info *info, const char *machine,
		    const char *str, int err_no, const char *msg)
{
	struct perfctr_event_spec ev, before;
	char err[PERFCTR_EVENT_ERROR_SIZE] = "";
	int ret;

	memset(&ev, 0x5a, sizeof(ev));
	before = ev;
	errno = 0;
	ret = perfctr_event_parse(&ev, str, info, err, sizeof(err));
	tap_ok(ret == -1 && errno == err_no &&
	       !memcmp(&ev, &before, sizeof(ev)),
	       "%s: '%s' refused with %s, event untouched", machine, str,
	       strerror(err_no));
	/*
	 * An unknown name is unknown to libpfm4 too, or libpfm4 is not
	 * there: what follows says which (test_native.c).
	 */
	if (strstr(msg, ": unknown event") && !strncmp(err, msg, strlen(msg)) &&
	    !strncmp(err + strlen(msg), " (", 2))
		err[strlen(msg)] = '\0';
	tap_is_str(err, msg, "%s: '%s' message", machine, str);
}

/* The events every machine has. */
static const struct want common[] = {
	{ "tsc", "tsc", PERFCTR_EVENT_TSC, 0, 0, -1, 0 },
	{ "task-clock", "task-clock", PERFCTR_EVENT_SOFTWARE,
	  SW(TASK_CLOCK), 0, -1, 0 },
	{ "context-switches", "context-switches", PERFCTR_EVENT_SOFTWARE,
	  SW(CONTEXT_SWITCHES), 0, -1, 0 },
	{ "cs", "context-switches", PERFCTR_EVENT_SOFTWARE,
	  SW(CONTEXT_SWITCHES), 0, -1, 0 },
	{ "cpu-migrations", "cpu-migrations", PERFCTR_EVENT_SOFTWARE,
	  SW(CPU_MIGRATIONS), 0, -1, 0 },
	{ "migrations", "cpu-migrations", PERFCTR_EVENT_SOFTWARE,
	  SW(CPU_MIGRATIONS), 0, -1, 0 },
	{ "page-faults", "page-faults", PERFCTR_EVENT_SOFTWARE,
	  SW(PAGE_FAULTS), PERFCTR_SW_USR | PERFCTR_SW_OS, -1, 1 },
	{ "faults", "page-faults", PERFCTR_EVENT_SOFTWARE,
	  SW(PAGE_FAULTS), PERFCTR_SW_USR | PERFCTR_SW_OS, -1, 1 },
	{ "page-faults:u", "page-faults:u", PERFCTR_EVENT_SOFTWARE,
	  SW(PAGE_FAULTS), PERFCTR_SW_USR, -1, 0 },
	{ "faults:k", "page-faults:k", PERFCTR_EVENT_SOFTWARE,
	  SW(PAGE_FAULTS), PERFCTR_SW_OS, -1, 0 },
	{ "page-faults:ku", "page-faults:uk", PERFCTR_EVENT_SOFTWARE,
	  SW(PAGE_FAULTS), PERFCTR_SW_USR | PERFCTR_SW_OS, -1, 0 },
	{ "minor-faults", "minor-faults", PERFCTR_EVENT_SOFTWARE,
	  SW(MINOR_FAULTS), PERFCTR_SW_USR | PERFCTR_SW_OS, -1, 1 },
	{ "minor-faults:u", "minor-faults:u", PERFCTR_EVENT_SOFTWARE,
	  SW(MINOR_FAULTS), PERFCTR_SW_USR, -1, 0 },
	{ "major-faults", "major-faults", PERFCTR_EVENT_SOFTWARE,
	  SW(MAJOR_FAULTS), PERFCTR_SW_USR | PERFCTR_SW_OS, -1, 1 },
	{ "major-faults:uk", "major-faults:uk", PERFCTR_EVENT_SOFTWARE,
	  SW(MAJOR_FAULTS), PERFCTR_SW_USR | PERFCTR_SW_OS, -1, 0 },
};

#define HW	PERFCTR_EVENT_HARDWARE

/* Intel: the SDM's architectural encodings, fixed counters preferred. */
static const struct want intel_named[] = {
	{ "cycles", "cycles", HW, ANY, BOTH | 0x3c, 1, 1 },
	{ "cycles:u", "cycles:u", HW, ANY, USR | 0x3c, 1, 0 },
	{ "cycles:k", "cycles:k", HW, ANY, OS | 0x3c, 1, 0 },
	{ "cycles:uk", "cycles:uk", HW, ANY, BOTH | 0x3c, 1, 0 },
	{ "instructions", "instructions", HW, ANY, BOTH | 0xc0, 0, 1 },
	{ "instructions:u", "instructions:u", HW, ANY, USR | 0xc0, 0, 0 },
	{ "ref-cycles", "ref-cycles", HW, ANY, BOTH | 0x013c, 2, 1 },
	{ "ref-cycles:ku", "ref-cycles:uk", HW, ANY, BOTH | 0x013c, 2, 0 },
	{ "branches", "branches", HW, ANY, BOTH | 0xc4, -1, 1 },
	{ "branch-misses:u", "branch-misses:u", HW, ANY, USR | 0xc5, -1, 0 },
	{ "cache-references", "cache-references", HW, ANY, BOTH | 0x4f2e,
	  -1, 1 },
	{ "cache-misses:k", "cache-misses:k", HW, ANY, OS | 0x412e, -1, 0 },
};

/* AMD: the core events, no fixed counters, no ref-cycles. */
static const struct want amd_named[] = {
	{ "cycles", "cycles", HW, ANY, BOTH | 0x76, -1, 1 },
	{ "cycles:u", "cycles:u", HW, ANY, USR | 0x76, -1, 0 },
	{ "instructions", "instructions", HW, ANY, BOTH | 0xc0, -1, 1 },
	{ "instructions:k", "instructions:k", HW, ANY, OS | 0xc0, -1, 0 },
	{ "branches", "branches", HW, ANY, BOTH | 0xc2, -1, 1 },
	{ "branch-misses", "branch-misses", HW, ANY, BOTH | 0xc3, -1, 1 },
	{ "cache-references:u", "cache-references:u", HW, ANY, USR | 0xff60,
	  -1, 0 },
	{ "cache-misses", "cache-misses", HW, ANY, BOTH | 0x0964, -1, 1 },
};

/* rNNNN: hexadecimal selectors. */
static const struct want intel_raw[] = {
	{ "r1c2", "r1c2", HW, ANY, BOTH | 0x1c2, -1, 1 },
	{ "r01C2", "r1c2", HW, ANY, BOTH | 0x1c2, -1, 1 },
	{ "r101c2", "r101c2", HW, ANY, USR | 0x1c2, -1, 0 },
	{ "r2003c", "r2003c", HW, ANY, OS | 0x3c, -1, 0 },
	{ "r301c2:u", "r301c2:u", HW, ANY, USR | 0x1c2, -1, 0 },
	{ "r1c2:k", "r1c2:k", HW, ANY, OS | 0x1c2, -1, 0 },
	{ "r1c2:uk", "r1c2:uk", HW, ANY, BOTH | 0x1c2, -1, 0 },
	/* AnyThread, edge, invert, counter mask: Intel takes them. */
	{ "r1a403c4", "r1a403c4", HW, ANY, 0x1a403c4 | BOTH, -1, 1 },
	{ "r2100c0", "r2100c0", HW, ANY, 0x2100c0, -1, 0 },
};

static const struct want amd_raw[] = {
	{ "r76", "r76", HW, ANY, BOTH | 0x76, -1, 1 },
	/* Event select bits 11:8 and Guest/HostOnly are AMD's. */
	{ "r1000000c0", "r1000000c0", HW, ANY, 0x1000000c0ull | BOTH, -1, 1 },
	{ "r200000100c0", "r200000100c0", HW, ANY, 0x200000100c0ull, -1, 0 },
	{ "r1c2:u", "r1c2:u", HW, ANY, USR | 0x1c2, -1, 0 },
};

/* perfctr 2.7's SEL[@PMC]. */
static const struct want intel_legacy[] = {
	{ "0x4100c0", "0x4100c0", HW, ANY, USR | 0xc0, -1, 0 },
	{ "0x5300c0", "0x5300c0", HW, ANY, BOTH | 0xc0, -1, 0 },
	{ "0xc0", "0xc0", HW, ANY, BOTH | 0xc0, -1, 1 },
	{ "192", "0xc0", HW, ANY, BOTH | 0xc0, -1, 1 },
	{ "0XC0", "0xc0", HW, ANY, BOTH | 0xc0, -1, 1 },
	{ "0xc0@1", "0xc0@1", HW, 1, BOTH | 0xc0, -1, 1 },
	{ "0x4100c0@3", "0x4100c0@3", HW, 3, USR | 0xc0, -1, 0 },
	{ "0xc0@0x3", "0xc0@3", HW, 3, BOTH | 0xc0, -1, 1 },
	{ "0xc0@1:k", "0xc0@1:k", HW, 1, OS | 0xc0, -1, 0 },
	{ "0x10000@0x40000001", "0x10000@0x40000001", HW, FIXED | 1, USR,
	  -1, 0 },
	{ "0x430000@1073741826", "0x430000@0x40000002", HW, FIXED | 2, BOTH,
	  -1, 0 },
	{ "0@0x40000000", "0x0@0x40000000", HW, FIXED | 0, BOTH, -1, 1 },
	{ "0x200000@0x40000000:u", "0x200000@0x40000000:u", HW, FIXED | 0,
	  0x200000 | USR, -1, 0 },
};

/*
 * arm64: the PMUv3 common events, PMEVTYPER's layout; :u excludes EL1,
 * :k EL0, and no modifier, both modes, excludes neither.
 */
static const struct want arm64_named[] = {
	{ "cycles", "cycles", HW, ANY, 0x11, 0, 1 },
	{ "cycles:u", "cycles:u", HW, ANY, NO_EL1 | 0x11, 0, 0 },
	{ "cycles:k", "cycles:k", HW, ANY, NO_EL0 | 0x11, 0, 0 },
	{ "cycles:uk", "cycles:uk", HW, ANY, 0x11, 0, 0 },
	{ "cycles:ku", "cycles:uk", HW, ANY, 0x11, 0, 0 },
	{ "instructions", "instructions", HW, ANY, 0x08, -1, 1 },
	{ "instructions:u", "instructions:u", HW, ANY, NO_EL1 | 0x08, -1, 0 },
	{ "branches", "branches", HW, ANY, 0x21, -1, 1 },
	{ "branch-instructions", "branches", HW, ANY, 0x21, -1, 1 },
	{ "branch-instructions:k", "branches:k", HW, ANY, NO_EL0 | 0x21,
	  -1, 0 },
	{ "branch-misses", "branch-misses", HW, ANY, 0x10, -1, 1 },
	{ "branch-misses:u", "branch-misses:u", HW, ANY, NO_EL1 | 0x10, -1,
	  0 },
	{ "cache-references", "cache-references", HW, ANY, 0x04, -1, 1 },
	{ "cache-references:uk", "cache-references:uk", HW, ANY, 0x04, -1,
	  0 },
	{ "cache-misses", "cache-misses", HW, ANY, 0x03, -1, 1 },
	{ "cache-misses:k", "cache-misses:k", HW, ANY, NO_EL0 | 0x03, -1, 0 },
};

/* arm64 rNNNN: an event number, with exclude bits if it says so. */
static const struct want arm64_raw[] = {
	{ "r8", "r8", HW, ANY, 0x08, -1, 1 },
	{ "r11", "r11", HW, ANY, 0x11, -1, 1 },
	{ "rFFFF", "rffff", HW, ANY, 0xffff, -1, 1 },
	{ "r1b:u", "r1b:u", HW, ANY, NO_EL1 | 0x1b, -1, 0 },
	{ "r1b:k", "r1b:k", HW, ANY, NO_EL0 | 0x1b, -1, 0 },
	{ "r1b:uk", "r1b:uk", HW, ANY, 0x1b, -1, 0 },
	{ "r80000008", "r80000008", HW, ANY, NO_EL1 | 0x08, -1, 0 },
	{ "r40000008", "r40000008", HW, ANY, NO_EL0 | 0x08, -1, 0 },
	/* The modifier decides, as on x86. */
	{ "r80000008:k", "r80000008:k", HW, ANY, NO_EL0 | 0x08, -1, 0 },
};

/* arm64 SEL[@PMC]: PMC 31 is the cycle counter. */
static const struct want arm64_legacy[] = {
	{ "0x8", "0x8", HW, ANY, 0x08, -1, 1 },
	{ "0x80000008@2", "0x80000008@2", HW, 2, NO_EL1 | 0x08, -1, 0 },
	{ "0x8@5:u", "0x8@5:u", HW, 5, NO_EL1 | 0x08, -1, 0 },
	{ "0x11@31", "0x11@31", HW, CYCLES, 0x11, -1, 1 },
	{ "17@0x1f:u", "0x11@31:u", HW, CYCLES, NO_EL1 | 0x11, -1, 0 },
	{ "0x40000011@31", "0x40000011@31", HW, CYCLES, NO_EL0 | 0x11, -1,
	  0 },
};

static void test_parse_every_event(void)
{
	size_t i;

	for (i = 0; i < sizeof(common) / sizeof(common[0]); i++) {
		parses(&intel, "Intel", &common[i]);
		parses(&amd, "AMD", &common[i]);
		parses(&tsc_only, "TSC only", &common[i]);
		parses(&arm64_pmuv3, "arm64 PMUv3", &common[i]);
		parses(&arm64_timer, "arm64 timer", &common[i]);
	}
	for (i = 0; i < sizeof(intel_named) / sizeof(intel_named[0]); i++)
		parses(&intel, "Intel", &intel_named[i]);
	for (i = 0; i < sizeof(amd_named) / sizeof(amd_named[0]); i++)
		parses(&amd, "AMD", &amd_named[i]);
	for (i = 0; i < sizeof(intel_raw) / sizeof(intel_raw[0]); i++)
		parses(&intel, "Intel", &intel_raw[i]);
	for (i = 0; i < sizeof(amd_raw) / sizeof(amd_raw[0]); i++)
		parses(&amd, "AMD", &amd_raw[i]);
	for (i = 0; i < sizeof(intel_legacy) / sizeof(intel_legacy[0]); i++)
		parses(&intel, "Intel", &intel_legacy[i]);
	for (i = 0; i < sizeof(arm64_named) / sizeof(arm64_named[0]); i++)
		parses(&arm64_pmuv3, "arm64 PMUv3", &arm64_named[i]);
	for (i = 0; i < sizeof(arm64_raw) / sizeof(arm64_raw[0]); i++)
		parses(&arm64_pmuv3, "arm64 PMUv3", &arm64_raw[i]);
	for (i = 0; i < sizeof(arm64_legacy) / sizeof(arm64_legacy[0]); i++)
		parses(&arm64_pmuv3, "arm64 PMUv3", &arm64_legacy[i]);
}

static void test_parse_arm64_errors(void)
{
	static const char *const hardware[] = {
		"cycles", "instructions", "branches", "branch-instructions",
		"branch-misses", "cache-references", "cache-misses",
		"cycles:u", "instructions:k", "r8", "r11:uk", "0x8", "0x11@31",
	};
	char msg[PERFCTR_EVENT_ERROR_SIZE];
	size_t i;

	for (i = 0; i < sizeof(hardware) / sizeof(hardware[0]); i++) {
		snprintf(msg, sizeof(msg), "%s: this CPU has no hardware "
			 "counters (driver: arm64 timer)", hardware[i]);
		refuses(&arm64_timer, "arm64 timer", hardware[i], EOPNOTSUPP,
			msg);
	}
	refuses(&arm64_pmuv3, "arm64 PMUv3", "ref-cycles", EOPNOTSUPP,
		"ref-cycles: not an event of this CPU (driver: arm64 PMUv3)");
	refuses(&arm64_pmuv3, "arm64 PMUv3", "cycles:x", EINVAL,
		"cycles:x: unknown modifier ':x': use :u, :k or :uk");
	refuses(&arm64_pmuv3, "arm64 PMUv3", "r10008", EINVAL,
		"r10008: selector bits 0x10000 are not allowed on this "
		"counter");
	/* x86's EN and INT are nothing on arm64, not the driver's. */
	refuses(&arm64_pmuv3, "arm64 PMUv3", "r4100c0", EINVAL,
		"r4100c0: selector bits 0x410000 are not allowed on this "
		"counter");
	refuses(&arm64_pmuv3, "arm64 PMUv3", "rc0000008", EINVAL,
		"rc0000008: both EL0 and EL1 are excluded: it would count "
		"nothing");
	refuses(&arm64_pmuv3, "arm64 PMUv3", "0xc0000011@31", EINVAL,
		"0xc0000011@31: both EL0 and EL1 are excluded: it would count "
		"nothing");
	refuses(&arm64_pmuv3, "arm64 PMUv3", "0x8@31", EINVAL,
		"0x8@31: the cycle counter counts only event 0x11 "
		"(CPU_CYCLES)");
	refuses(&arm64_pmuv3, "arm64 PMUv3", "0x8@6", EINVAL,
		"0x8@6: this CPU has no event counter 6 (it has 6)");
	refuses(&arm64_pmuv3, "arm64 PMUv3", "0x8@30", EINVAL,
		"0x8@30: this CPU has no event counter 30 (it has 6)");
	refuses(&arm64_pmuv3, "arm64 PMUv3", "0x11@0x40000000", EINVAL,
		"0x11@0x40000000: this CPU has no event counter 1073741824 "
		"(it has 6)");
	refuses(&arm64_cycles_only, "arm64, cycle counter only", "branches",
		EOPNOTSUPP, "branches: this CPU has no event counters "
		"(driver: arm64 PMUv3)");
	refuses(&arm64_cycles_only, "arm64, cycle counter only", "r11",
		EOPNOTSUPP, "r11: this CPU has no event counters (driver: "
		"arm64 PMUv3)");
	refuses(&intel, "Intel", "0x11@31", EINVAL, "0x11@31: this CPU has "
		"no general-purpose counter 31 (it has 4)");
}

static void test_parse_other_intels(void)
{
	static const struct want v1[] = {
		{ "cycles", "cycles", HW, ANY, BOTH | 0x3c, -1, 1 },
		{ "instructions:u", "instructions:u", HW, ANY, USR | 0xc0,
		  -1, 0 },
		{ "ref-cycles", "ref-cycles", HW, ANY, BOTH | 0x013c, -1, 1 },
	};
	static const struct want fixed_only[] = {
		{ "cycles", "cycles", HW, ANY, BOTH | 0x3c, 1, 1 },
		{ "instructions", "instructions", HW, ANY, BOTH | 0xc0, 0, 1 },
		{ "ref-cycles", "ref-cycles", HW, ANY, BOTH | 0x013c, 2, 1 },
		{ "0x20000@0x40000002", "0x20000@0x40000002", HW, FIXED | 2,
		  OS, -1, 0 },
	};
	size_t i;

	for (i = 0; i < sizeof(v1) / sizeof(v1[0]); i++)
		parses(&intel_v1, "Intel v1, no fixed", &v1[i]);
	for (i = 0; i < sizeof(fixed_only) / sizeof(fixed_only[0]); i++)
		parses(&intel_fixed_only, "Intel, fixed only", &fixed_only[i]);
	refuses(&intel_fixed_only, "Intel, fixed only", "branches",
		EOPNOTSUPP, "branches: this CPU has no general-purpose "
		"counters (driver: Intel architectural perfmon)");
	refuses(&intel_fixed_only, "Intel, fixed only", "r1c2", EOPNOTSUPP,
		"r1c2: this CPU has no general-purpose counters (driver: "
		"Intel architectural perfmon)");
	refuses(&intel_fixed_only, "Intel, fixed only", "0xc0", EOPNOTSUPP,
		"0xc0: this CPU has no general-purpose counters (driver: "
		"Intel architectural perfmon)");
	refuses(&intel_v1, "Intel v1, no fixed", "0x10000@0x40000000",
		EINVAL, "0x10000@0x40000000: this CPU has no fixed counter 0 "
		"(it has 0)");
}

/* Intel TopDown: the slots counter and the categories, by perf's names. */
static const struct want topdown_named[] = {
	{ "slots", "slots", HW, SLOTS, BOTH, -1, 1 },
	{ "slots:u", "slots:u", HW, SLOTS, USR, -1, 0 },
	{ "slots:ku", "slots:uk", HW, SLOTS, BOTH, -1, 0 },
	{ "topdown-retiring", "topdown-retiring", HW, METRIC(RETIRING), BOTH,
	  -1, 1 },
	{ "topdown-retiring:u", "topdown-retiring:u", HW, METRIC(RETIRING),
	  USR, -1, 0 },
	{ "topdown-bad-spec:k", "topdown-bad-spec:k", HW, METRIC(BAD_SPEC),
	  OS, -1, 0 },
	{ "topdown-fe-bound:u", "topdown-fe-bound:u", HW, METRIC(FE_BOUND),
	  USR, -1, 0 },
	{ "topdown-be-bound:uk", "topdown-be-bound:uk", HW, METRIC(BE_BOUND),
	  BOTH, -1, 0 },
	/* The 2.7 form names a category by its map. */
	{ "0x10000@0x20000001", "0x10000@0x20000001", HW, METRIC(BAD_SPEC),
	  USR, -1, 0 },
	{ "0@0x20000003", "0x0@0x20000003", HW, METRIC(BE_BOUND), BOTH, -1,
	  1 },
};

static const struct want topdown_level2[] = {
	{ "topdown-heavy-ops:u", "topdown-heavy-ops:u", HW, METRIC(HEAVY_OPS),
	  USR, -1, 0 },
	{ "topdown-br-mispredict", "topdown-br-mispredict", HW,
	  METRIC(BR_MISPREDICT), BOTH, -1, 1 },
	{ "topdown-fetch-lat:k", "topdown-fetch-lat:k", HW, METRIC(FETCH_LAT),
	  OS, -1, 0 },
	{ "topdown-mem-bound:u", "topdown-mem-bound:u", HW, METRIC(MEM_BOUND),
	  USR, -1, 0 },
	{ "0x30000@0x20000007", "0x30000@0x20000007", HW, METRIC(MEM_BOUND),
	  BOTH, -1, 0 },
};

#define NO_METRICS(ev)	ev ": needs TopDown metrics (PERF_METRICS: Intel " \
			"Ice Lake or later); this CPU has none"
#define NO_SLOTS(ev)	ev ": needs Intel fixed counter 3 (TopDown slots: " \
			"Ice Lake or later); this CPU has none"

/*
 * The TopDown names where the machine has them, and where it has not,
 * what it lacks: fixed counter 3, PERF_METRICS, or its level 2.
 */
static void test_parse_topdown(void)
{
	static const struct {
		const struct perfctr_info *info;
		const char *machine;
	} without[] = {
		{ &intel, "Intel, 3 fixed" },
		{ &amd, "AMD" },
		{ &tsc_only, "TSC only" },
		{ &arm64_pmuv3, "arm64 PMUv3" },
		{ &intel_slots_only, "Intel, fixed 3, no PERF_METRICS" },
	};
	size_t i;

	for (i = 0; i < sizeof(topdown_named) / sizeof(topdown_named[0]); i++) {
		parses(&icelake, "Ice Lake", &topdown_named[i]);
		parses(&sapphire_rapids, "Sapphire Rapids", &topdown_named[i]);
	}
	for (i = 0; i < sizeof(topdown_level2) / sizeof(topdown_level2[0]);
	     i++)
		parses(&sapphire_rapids, "Sapphire Rapids", &topdown_level2[i]);
	parses(&intel_slots_only, "Intel, fixed 3, no PERF_METRICS",
	       &topdown_named[1]);

	for (i = 0; i < sizeof(without) / sizeof(without[0]); i++) {
		refuses(without[i].info, without[i].machine,
			"topdown-retiring:u", EOPNOTSUPP,
			NO_METRICS("topdown-retiring:u"));
		refuses(without[i].info, without[i].machine,
			"topdown-mem-bound", EOPNOTSUPP,
			NO_METRICS("topdown-mem-bound"));
	}
	refuses(&intel, "Intel, 3 fixed", "slots", EOPNOTSUPP,
		NO_SLOTS("slots"));
	refuses(&amd, "AMD", "slots:u", EOPNOTSUPP, NO_SLOTS("slots:u"));
	refuses(&tsc_only, "TSC only", "slots", EOPNOTSUPP, NO_SLOTS("slots"));
	refuses(&icelake, "Ice Lake", "topdown-heavy-ops:u", EOPNOTSUPP,
		"topdown-heavy-ops:u: needs TopDown level 2 (Intel Sapphire "
		"Rapids or later); this CPU has level 1 only");
	refuses(&icelake, "Ice Lake", "topdown-fetch-lat", EOPNOTSUPP,
		"topdown-fetch-lat: needs TopDown level 2 (Intel Sapphire "
		"Rapids or later); this CPU has level 1 only");
	refuses(&icelake, "Ice Lake", "0x10000@0x20000004", EINVAL,
		"0x10000@0x20000004: this CPU has no TopDown metric 4 (it has "
		"4)");
	refuses(&sapphire_rapids, "Sapphire Rapids", "0x10000@0x20000008",
		EINVAL, "0x10000@0x20000008: this CPU has no TopDown metric 8 "
		"(it has 8)");
	refuses(&intel, "Intel, 3 fixed", "0x10000@0x20000000", EINVAL,
		"0x10000@0x20000000: this CPU has no TopDown metric 0 (it has "
		"0)");
	refuses(&sapphire_rapids, "Sapphire Rapids", "0x100c0@0x20000000",
		EINVAL, "0x100c0@0x20000000: selector bits 0xc0 are not "
		"allowed on this counter");
	refuses(&sapphire_rapids, "Sapphire Rapids", "topdown-retiring:x",
		EINVAL, "topdown-retiring:x: unknown modifier ':x': use :u, :k "
		"or :uk");
	refuses(&sapphire_rapids, "Sapphire Rapids", "topdown-retired",
		EINVAL, "topdown-retired: unknown event");
}

static void test_parse_no_hardware(void)
{
	static const char *const hardware[] = {
		"cycles", "instructions", "ref-cycles", "branches",
		"branch-misses", "cache-references", "cache-misses",
		"cycles:u", "r1c2", "0xc0", "0x4100c0@0",
	};
	struct perfctr_info unknown = tsc_only;
	char msg[PERFCTR_EVENT_ERROR_SIZE];
	size_t i;

	for (i = 0; i < sizeof(hardware) / sizeof(hardware[0]); i++) {
		snprintf(msg, sizeof(msg), "%s: this CPU has no hardware "
			 "counters (driver: x86 TSC)", hardware[i]);
		refuses(&tsc_only, "TSC only", hardware[i], EOPNOTSUPP, msg);
	}
	/* Counters the library has no driver for are none. */
	unknown.cpu_type = 99;
	unknown.nrctrs = 4;
	refuses(&unknown, "unknown cpu_type", "cycles", EOPNOTSUPP,
		"cycles: this CPU has no hardware counters (driver: unknown)");
	/* An Intel or AMD driver with no counters at all. */
	unknown = intel;
	unknown.nrctrs = 0;
	unknown.nrfixed = 0;
	refuses(&unknown, "Intel, no counters", "instructions", EOPNOTSUPP,
		"instructions: this CPU has no hardware counters (driver: "
		"Intel architectural perfmon)");
	refuses(&amd, "AMD", "ref-cycles", EOPNOTSUPP,
		"ref-cycles: not an event of this CPU (driver: AMD)");
	refuses(&amd, "AMD", "ref-cycles:u", EOPNOTSUPP,
		"ref-cycles:u: not an event of this CPU (driver: AMD)");
}

static void test_parse_errors(void)
{
	refuses(&intel, "Intel", "bogus", EINVAL, "bogus: unknown event");
	refuses(&intel, "Intel", "bogus:u", EINVAL, "bogus:u: unknown event");
	refuses(&intel, "Intel", "Cycles", EINVAL, "Cycles: unknown event");
	refuses(&intel, "Intel", "cycles ", EINVAL, "cycles : unknown event");
	refuses(&intel, "Intel", "", EINVAL, "empty event name");
	refuses(&intel, "Intel", ":u", EINVAL,
		":u: no event name before the modifier");
	refuses(&tsc_only, "TSC only", "bogus", EINVAL, "bogus: unknown event");

	/* Modifiers. */
	refuses(&intel, "Intel", "tsc:u", EINVAL, "tsc:u: tsc takes no "
		"modifier (only hardware and fault events do)");
	refuses(&intel, "Intel", "task-clock:k", EINVAL, "task-clock:k: "
		"task-clock takes no modifier (only hardware and fault events "
		"do)");
	refuses(&intel, "Intel", "cs:u", EINVAL, "cs:u: context-switches "
		"takes no modifier (only hardware and fault events do)");
	refuses(&intel, "Intel", "migrations:uk", EINVAL, "migrations:uk: "
		"cpu-migrations takes no modifier (only hardware and fault "
		"events do)");
	refuses(&intel, "Intel", "cycles:x", EINVAL,
		"cycles:x: unknown modifier ':x': use :u, :k or :uk");
	refuses(&intel, "Intel", "cycles:", EINVAL,
		"cycles:: unknown modifier ':': use :u, :k or :uk");
	refuses(&intel, "Intel", "cycles:uu", EINVAL,
		"cycles:uu: unknown modifier ':uu': use :u, :k or :uk");
	refuses(&intel, "Intel", "cycles:u:k", EINVAL,
		"cycles:u:k: unknown modifier ':u:k': use :u, :k or :uk");
	refuses(&intel, "Intel", "page-faults:h", EINVAL,
		"page-faults:h: unknown modifier ':h': use :u, :k or :uk");
	refuses(&intel, "Intel", "faults:kk", EINVAL,
		"faults:kk: unknown modifier ':kk': use :u, :k or :uk");
	refuses(&intel, "Intel", "r1c2:K", EINVAL,
		"r1c2:K: unknown modifier ':K': use :u, :k or :uk");
	refuses(&intel, "Intel", "0xc0@1:x", EINVAL,
		"0xc0@1:x: unknown modifier ':x': use :u, :k or :uk");
}

static void test_parse_raw_errors(void)
{
	refuses(&intel, "Intel", "r", EINVAL, "r: unknown event");
	refuses(&intel, "Intel", "rxyz", EINVAL, "rxyz: unknown event");
	refuses(&intel, "Intel", "r0x1c2", EINVAL, "r0x1c2: unknown event");
	refuses(&intel, "Intel", "r-1", EINVAL, "r-1: unknown event");
	refuses(&intel, "Intel", "r12345678901234567", EINVAL,
		"r12345678901234567: unknown event");
	refuses(&intel, "Intel", "r4100c0", EINVAL, "r4100c0: bit 22 (EN) "
		"is set by the driver, not in the selector");
	refuses(&intel, "Intel", "r1100c0", EINVAL, "r1100c0: bit 20 (INT) "
		"is set by the driver: count in i-mode instead");
	refuses(&intel, "Intel", "r900c0", EINVAL,
		"r900c0: selector bits 0x80000 are not allowed on this "
		"counter");
	refuses(&intel, "Intel", "r1000000c0", EINVAL,
		"r1000000c0: selector bits 0x100000000 are not allowed on "
		"this counter");
	refuses(&amd, "AMD", "r2100c0", EINVAL,
		"r2100c0: selector bits 0x200000 are not allowed on this "
		"counter");
	refuses(&amd, "AMD", "r10000000c0", EINVAL,
		"r10000000c0: selector bits 0x1000000000 are not allowed "
		"on this counter");
	refuses(&amd, "AMD", "r40000000000c0", EINVAL,
		"r40000000000c0: selector bits 0x4000000000000 are not "
		"allowed on this counter");
}

static void test_parse_legacy_errors(void)
{
	refuses(&intel, "Intel", "0x", EINVAL, "0x: unknown event");
	refuses(&intel, "Intel", "0xg", EINVAL, "0xg: unknown event");
	refuses(&intel, "Intel", "12ab", EINVAL, "12ab: unknown event");
	refuses(&intel, "Intel", "0xc0@", EINVAL, "0xc0@: unknown event");
	refuses(&intel, "Intel", "0xc0@x", EINVAL, "0xc0@x: unknown event");
	refuses(&intel, "Intel", "0xc0@1@2", EINVAL,
		"0xc0@1@2: unknown event");
	refuses(&intel, "Intel", "0xc0@0x100000000", EINVAL,
		"0xc0@0x100000000: unknown event");
	refuses(&intel, "Intel", "0x10000000000000000", EINVAL,
		"0x10000000000000000: unknown event");
	refuses(&intel, "Intel", "0xc0@4", EINVAL,
		"0xc0@4: this CPU has no general-purpose counter 4 (it has 4)");
	refuses(&amd, "AMD", "0xc0@6", EINVAL,
		"0xc0@6: this CPU has no general-purpose counter 6 (it has 6)");
	refuses(&intel, "Intel", "0x10000@0x40000003", EINVAL,
		"0x10000@0x40000003: this CPU has no fixed counter 3 (it has "
		"3)");
	refuses(&amd, "AMD", "0x10000@0x40000000", EINVAL,
		"0x10000@0x40000000: this CPU has no fixed counter 0 (it has "
		"0)");
	refuses(&intel, "Intel", "0xc0@0x80000001", EINVAL,
		"0xc0@0x80000001: this CPU has no general-purpose counter "
		"2147483649 (it has 4)");
	refuses(&intel, "Intel", "0x4300c0@0x40000000", EINVAL,
		"0x4300c0@0x40000000: selector bits 0xc0 are not allowed on "
		"this counter");
	refuses(&intel, "Intel", "0x80000", EINVAL,
		"0x80000: selector bits 0x80000 are not allowed on this "
		"counter");
}

static void test_parse_no_err_buffer(void)
{
	struct perfctr_event_spec ev;
	char err[8];

	errno = 0;
	tap_ok(perfctr_event_parse(&ev, "bogus", &intel, NULL, 0) == -1 &&
	       errno == EINVAL, "no error buffer: -1 with errno all the same");
	memset(err, 'x', sizeof(err));
	perfctr_event_parse(&ev, "cycles", &tsc_only, err, sizeof(err));
	tap_is_str(err, "cycles:", "a short error buffer gets a truncated, "
		   "terminated message");
}

/* The control the tests add events to. */
static struct vperfctr_control control;

static void fresh(void)
{
	memset(&control, 0, sizeof(control));
}

static struct perfctr_event_spec event(const struct perfctr_info *info,
				       const char *str)
{
	struct perfctr_event_spec ev;
	char err[PERFCTR_EVENT_ERROR_SIZE];

	memset(&ev, 0, sizeof(ev));
	if (perfctr_event_parse(&ev, str, info, err, sizeof(err)) < 0)
		tap_diag(err);
	return ev;
}

/* Add @str to the control; is it counter @index with @map and @evntsel? */
static void adds(const struct perfctr_info *info, const char *machine,
		 const char *str, int index, __u32 map, __u64 evntsel)
{
	struct perfctr_event_spec ev = event(info, str);
	const struct perfctr_cpu_control *cpu = &control.cpu_control;
	char err[PERFCTR_EVENT_ERROR_SIZE] = "";
	int i = perfctr_event_add(&control, &ev, info, err, sizeof(err));

	if (!tap_is_int(i, index, "%s: %s added as counter %d", machine, str,
			index)) {
		tap_diag(err);
		return;
	}
	tap_ok(cpu->pmc_map[i] == map && cpu->evntsel[i] == evntsel &&
	       cpu->ireset[i] == 0 && cpu->nractrs == (unsigned int)i + 1,
	       "%s: %s on map 0x%x, evntsel 0x%llx, a-mode", machine, str,
	       map, (unsigned long long)evntsel);
}

/* Does adding @ev fail with @err_no and @msg, the control unchanged? */
static void add_refused(const struct perfctr_info *info, const char *machine,
			const struct perfctr_event_spec *ev, int imode,
			unsigned long long period, int err_no, const char *msg)
{
	struct vperfctr_control before = control;
	char err[PERFCTR_EVENT_ERROR_SIZE] = "";
	int ret;

	errno = 0;
	if (imode)
		ret = perfctr_event_add_irq(&control, ev, info, period, err,
					    sizeof(err));
	else
		ret = perfctr_event_add(&control, ev, info, err, sizeof(err));
	tap_ok(ret == -1 && errno == err_no &&
	       !memcmp(&before, &control, sizeof(control)),
	       "%s: adding %s%s refused with %s, control unchanged", machine,
	       ev->name, imode ? " in i-mode" : "", strerror(err_no));
	tap_is_str(err, msg, "%s: adding %s: message", machine, ev->name);
}

static void test_add_intel(void)
{
	struct perfctr_event_spec ev;

	fresh();
	adds(&intel, "Intel", "instructions:u", 0, FIXED | 0, USR);
	adds(&intel, "Intel", "cycles", 1, FIXED | 1, BOTH);
	adds(&intel, "Intel", "ref-cycles:k", 2, FIXED | 2, OS);
	/* The fixed counter is taken: a general-purpose one takes over. */
	adds(&intel, "Intel", "instructions:k", 3, 0, OS | 0xc0);
	adds(&intel, "Intel", "cache-misses", 4, 1, BOTH | 0x412e);
	adds(&intel, "Intel", "0xc0@3", 5, 3, BOTH | 0xc0);
	adds(&intel, "Intel", "task-clock", 6, SW(TASK_CLOCK), 0);
	adds(&intel, "Intel", "r1c2:u", 7, 2, USR | 0x1c2);
	tap_ok(control.cpu_control.tsc_on == 0 &&
	       control.cpu_control.nrictrs == 0,
	       "Intel: TSC off, no i-mode counters");

	ev = event(&intel, "branches");
	add_refused(&intel, "Intel", &ev, 0, 0, ENOSPC,
		    "branches: all 4 general-purpose counters are in use");
	ev = event(&intel, "cycles:u");
	add_refused(&intel, "Intel", &ev, 0, 0, ENOSPC,
		    "cycles:u: all 4 general-purpose counters are in use");
	ev = event(&intel, "0xc0@1");
	add_refused(&intel, "Intel", &ev, 0, 0, EINVAL,
		    "0xc0@1: general-purpose counter 1 is in use");
	ev = event(&intel, "0x10000@0x40000002");
	add_refused(&intel, "Intel", &ev, 0, 0, EINVAL,
		    "0x10000@0x40000002: fixed counter 2 is in use");

	/* A 2.7 selector pinned to a counter named later. */
	fresh();
	adds(&intel, "Intel", "0x4100c0@2", 0, 2, USR | 0xc0);
	adds(&intel, "Intel", "branches", 1, 0, BOTH | 0xc4);
	adds(&intel, "Intel", "branch-misses", 2, 1, BOTH | 0xc5);
	adds(&intel, "Intel", "cache-references", 3, 3, BOTH | 0x4f2e);
	adds(&intel, "Intel", "0x30000@0x40000001", 4, FIXED | 1, BOTH);
	adds(&intel, "Intel", "instructions", 5, FIXED | 0, BOTH);
	ev = event(&intel, "cycles:u");
	add_refused(&intel, "Intel", &ev, 0, 0, ENOSPC,
		    "cycles:u: all 4 general-purpose counters are in use");
}

static void test_add_intel_fixed_busy(void)
{
	struct perfctr_event_spec ev;

	fresh();
	adds(&intel, "Intel", "0x30000@0x40000001", 0, FIXED | 1, BOTH);
	/* cycles finds fixed 1 taken and uses a general-purpose counter. */
	adds(&intel, "Intel", "cycles:u", 1, 0, USR | 0x3c);
	adds(&intel, "Intel", "ref-cycles", 2, FIXED | 2, BOTH);

	/* Fixed counters only. */
	fresh();
	adds(&intel_fixed_only, "Intel, fixed only", "cycles:u", 0, FIXED | 1,
	     USR);
	ev = event(&intel_fixed_only, "cycles:k");
	add_refused(&intel_fixed_only, "Intel, fixed only", &ev, 0, 0, ENOSPC,
		    "cycles:k: fixed counter 1 is in use and this CPU has no "
		    "general-purpose counters");
	ev = event(&intel, "branches");
	add_refused(&intel_fixed_only, "Intel, fixed only", &ev, 0, 0,
		    EOPNOTSUPP, "branches: this CPU has no general-purpose "
		    "counters (driver: Intel architectural perfmon)");

	/* No fixed counters: the general-purpose ones. */
	fresh();
	adds(&intel_v1, "Intel v1", "instructions", 0, 0, BOTH | 0xc0);
	adds(&intel_v1, "Intel v1", "cycles", 1, 1, BOTH | 0x3c);
}

static void test_add_amd(void)
{
	struct perfctr_event_spec ev;

	fresh();
	adds(&amd, "AMD", "cycles", 0, 0, BOTH | 0x76);
	adds(&amd, "AMD", "instructions:u", 1, 1, USR | 0xc0);
	adds(&amd, "AMD", "0xc2@5", 2, 5, BOTH | 0xc2);
	adds(&amd, "AMD", "branch-misses", 3, 2, BOTH | 0xc3);
	adds(&amd, "AMD", "page-faults:u", 4, SW(PAGE_FAULTS), PERFCTR_SW_USR);
	adds(&amd, "AMD", "cache-references", 5, 3, BOTH | 0xff60);
	adds(&amd, "AMD", "r1000000c0:u", 6, 4, 0x1000000c0ull | USR);
	ev = event(&amd, "cache-misses");
	add_refused(&amd, "AMD", &ev, 0, 0, ENOSPC,
		    "cache-misses: all 6 general-purpose counters are in use");
	ev = event(&amd, "0xc0@1");
	add_refused(&amd, "AMD", &ev, 0, 0, EINVAL,
		    "0xc0@1: general-purpose counter 1 is in use");
}

static void test_add_arm64(void)
{
	struct perfctr_event_spec ev;

	/* cycles on the cycle counter, the rest from event counter 0 up. */
	fresh();
	adds(&arm64_pmuv3, "arm64", "cycles", 0, CYCLES, 0x11);
	adds(&arm64_pmuv3, "arm64", "instructions:u", 1, 0, NO_EL1 | 0x08);
	adds(&arm64_pmuv3, "arm64", "task-clock", 2, SW(TASK_CLOCK), 0);
	/* The cycle counter is taken: an event counter counts CPU_CYCLES. */
	adds(&arm64_pmuv3, "arm64", "cycles:u", 3, 1, NO_EL1 | 0x11);
	adds(&arm64_pmuv3, "arm64", "branches:k", 4, 2, NO_EL0 | 0x21);
	adds(&arm64_pmuv3, "arm64", "branch-misses", 5, 3, 0x10);
	adds(&arm64_pmuv3, "arm64", "0x80000004@5", 6, 5, NO_EL1 | 0x04);
	adds(&arm64_pmuv3, "arm64", "r3:uk", 7, 4, 0x03);
	tap_ok(control.cpu_control.tsc_on == 0 &&
	       control.cpu_control.nractrs == 8,
	       "arm64: 6 event counters, the cycle counter, task-clock");

	ev = event(&arm64_pmuv3, "cache-misses");
	add_refused(&arm64_pmuv3, "arm64", &ev, 0, 0, ENOSPC,
		    "cache-misses: all 6 event counters are in use");
	ev = event(&arm64_pmuv3, "cycles:k");
	add_refused(&arm64_pmuv3, "arm64", &ev, 0, 0, ENOSPC,
		    "cycles:k: all 6 event counters are in use");
	ev = event(&arm64_pmuv3, "0x11@31:u");
	add_refused(&arm64_pmuv3, "arm64", &ev, 0, 0, EINVAL,
		    "0x11@31:u: the cycle counter is in use");
	ev = event(&arm64_pmuv3, "0x8@1");
	add_refused(&arm64_pmuv3, "arm64", &ev, 0, 0, EINVAL,
		    "0x8@1: event counter 1 is in use");
	ev = event(&intel, "0x10000@0x40000001");
	add_refused(&arm64_pmuv3, "arm64", &ev, 0, 0, EINVAL,
		    "0x10000@0x40000001: this CPU has no event counter "
		    "1073741825 (it has 6)");

	/* The cycle counter pinned first: cycles goes elsewhere. */
	fresh();
	adds(&arm64_pmuv3, "arm64", "0x80000011@31", 0, CYCLES,
	     NO_EL1 | 0x11);
	adds(&arm64_pmuv3, "arm64", "cycles", 1, 0, 0x11);
	adds(&arm64_pmuv3, "arm64", "cache-references:u", 2, 1,
	     NO_EL1 | 0x04);

	/* The cycle counter alone. */
	fresh();
	adds(&arm64_cycles_only, "arm64, cycle counter only", "cycles:u", 0,
	     CYCLES, NO_EL1 | 0x11);
	ev = event(&arm64_cycles_only, "cycles");
	add_refused(&arm64_cycles_only, "arm64, cycle counter only", &ev, 0,
		    0, ENOSPC, "cycles: the cycle counter is in use and this "
		    "CPU has no event counters");

	/* A timer-only machine counts the timer and the software events. */
	fresh();
	adds(&arm64_timer, "arm64 timer", "faults:u", 0, SW(PAGE_FAULTS),
	     PERFCTR_SW_USR);
	ev = event(&arm64_pmuv3, "cycles:u");
	add_refused(&arm64_timer, "arm64 timer", &ev, 0, 0, EOPNOTSUPP,
		    "cycles:u: this CPU has no hardware counters (driver: "
		    "arm64 timer)");
}

static void test_add_arm64_irq(void)
{
	const struct perfctr_cpu_control *cpu = &control.cpu_control;
	struct perfctr_event_spec ev;
	char err[PERFCTR_EVENT_ERROR_SIZE] = "";
	int i, j;

	fresh();
	ev = event(&arm64_pmuv3, "cycles:u");
	i = perfctr_event_add_irq(&control, &ev, &arm64_pmuv3, 1ull << 40,
				  err, sizeof(err));
	ev = event(&arm64_pmuv3, "instructions:u");
	j = perfctr_event_add_irq(&control, &ev, &arm64_pmuv3, 1ull << 31,
				  err, sizeof(err));
	tap_ok(i == 0 && j == 1 && cpu->nrictrs == 2 &&
	       cpu->pmc_map[0] == CYCLES && cpu->ireset[0] == -(1ll << 40) &&
	       cpu->pmc_map[1] == 0 && cpu->ireset[1] == -(1ll << 31),
	       "arm64 i-mode: the 64-bit cycle counter, a 32-bit event "
	       "counter, half its range");
	add_refused(&arm64_pmuv3, "arm64", &ev, 1, (1ull << 31) + 1, EINVAL,
		    "instructions:u: period 2147483649 is not between 1 and "
		    "2147483648");
}

static void test_add_tsc(void)
{
	struct perfctr_event_spec ev = event(&tsc_only, "tsc");
	char err[PERFCTR_EVENT_ERROR_SIZE];
	struct perfctr_sum_ctrs sum;
	int a, b, c;

	fresh();
	a = perfctr_event_add(&control, &ev, &tsc_only, err, sizeof(err));
	b = perfctr_event_add(&control, &ev, &tsc_only, err, sizeof(err));
	tap_ok(a == PERFCTR_EVENT_TSC_INDEX && b == PERFCTR_EVENT_TSC_INDEX &&
	       control.cpu_control.tsc_on == 1 &&
	       control.cpu_control.nractrs == 0,
	       "TSC: tsc_on, no counter, PERFCTR_EVENT_TSC_INDEX, twice");
	ev = event(&tsc_only, "minor-faults:u");
	c = perfctr_event_add(&control, &ev, &tsc_only, err, sizeof(err));
	memset(&sum, 0, sizeof(sum));
	sum.tsc = 111;
	sum.pmc[0] = 222;
	tap_ok(c == 0 && perfctr_event_value(&sum, a) == 111 &&
	       perfctr_event_value(&sum, c) == 222,
	       "perfctr_event_value: sum.tsc for the TSC, sum.pmc[i] else");
	ev = event(&tsc_only, "tsc");
	add_refused(&tsc_only, "TSC only", &ev, 1, 1000, EINVAL,
		    "tsc: the TSC cannot be an i-mode counter");
}

static void test_add_tsc_only(void)
{
	struct perfctr_event_spec ev;

	fresh();
	adds(&tsc_only, "TSC only", "task-clock", 0, SW(TASK_CLOCK), 0);
	adds(&tsc_only, "TSC only", "cs", 1, SW(CONTEXT_SWITCHES), 0);
	adds(&tsc_only, "TSC only", "migrations", 2, SW(CPU_MIGRATIONS), 0);
	adds(&tsc_only, "TSC only", "faults", 3, SW(PAGE_FAULTS),
	     PERFCTR_SW_USR | PERFCTR_SW_OS);
	adds(&tsc_only, "TSC only", "major-faults:k", 4, SW(MAJOR_FAULTS),
	     PERFCTR_SW_OS);
	/* An event parsed for another machine. */
	ev = event(&intel, "cycles:u");
	add_refused(&tsc_only, "TSC only", &ev, 0, 0, EOPNOTSUPP,
		    "cycles:u: this CPU has no hardware counters (driver: "
		    "x86 TSC)");
	ev = event(&amd, "0xc0@5");
	add_refused(&intel, "Intel", &ev, 0, 0, EINVAL,
		    "0xc0@5: this CPU has no general-purpose counter 5 (it "
		    "has 4)");
}

static void test_add_irq(void)
{
	const struct perfctr_cpu_control *cpu = &control.cpu_control;
	struct perfctr_event_spec ev;
	char err[PERFCTR_EVENT_ERROR_SIZE] = "";
	int a, i, j, k;

	fresh();
	control.si_signo = 29;
	ev = event(&intel, "instructions:u");
	a = perfctr_event_add(&control, &ev, &intel, err, sizeof(err));
	ev = event(&intel, "cycles:u");
	i = perfctr_event_add_irq(&control, &ev, &intel, 1000000, err,
				  sizeof(err));
	ev = event(&intel, "branches:u");
	j = perfctr_event_add_irq(&control, &ev, &intel, 1ull << 47, err,
				  sizeof(err));
	ev = event(&intel, "task-clock");
	k = perfctr_event_add_irq(&control, &ev, &intel, 250000, err,
				  sizeof(err));
	tap_ok(a == 0 && i == 1 && j == 2 && k == 3 && cpu->nractrs == 1 &&
	       cpu->nrictrs == 3, "i-mode: three after one a-mode counter");
	tap_ok(cpu->pmc_map[1] == (FIXED | 1) && cpu->evntsel[1] == USR &&
	       cpu->ireset[1] == -1000000,
	       "i-mode: cycles:u on fixed 1, ireset -period");
	tap_ok(cpu->pmc_map[2] == 0 && cpu->evntsel[2] == (USR | 0xc4) &&
	       cpu->ireset[2] == -(1ll << 47),
	       "i-mode: branches:u on counter 0, period 2^47 (half the "
	       "range)");
	tap_ok(cpu->pmc_map[3] == SW(TASK_CLOCK) && cpu->evntsel[3] == 0 &&
	       cpu->ireset[3] == -250000 && control.si_signo == 29,
	       "i-mode: task-clock, ireset -period; si_signo the caller's");

	ev = event(&intel, "cache-misses");
	add_refused(&intel, "Intel", &ev, 0, 0, EINVAL,
		    "cache-misses: a-mode counters come before i-mode ones: "
		    "add it first");
	ev = event(&intel, "page-faults:u");
	add_refused(&intel, "Intel", &ev, 0, 0, EINVAL,
		    "page-faults:u: a-mode counters come before i-mode ones: "
		    "add it first");
	ev = event(&intel, "cache-misses");
	add_refused(&intel, "Intel", &ev, 1, 0, EINVAL,
		    "cache-misses: period 0 is not between 1 and "
		    "140737488355328");
	add_refused(&intel, "Intel", &ev, 1, (1ull << 47) + 1, EINVAL,
		    "cache-misses: period 140737488355329 is not between 1 "
		    "and 140737488355328");
	ev = event(&intel, "instructions");
	add_refused(&intel_v1, "Intel v1", &ev, 1, (1ull << 39) + 1, EINVAL,
		    "instructions: period 549755813889 is not between 1 and "
		    "549755813888");
	ev = event(&intel, "task-clock");
	add_refused(&intel, "Intel", &ev, 1, 0, EINVAL,
		    "task-clock: period 0 is not between 1 and "
		    "9223372036854775807");
	add_refused(&intel, "Intel", &ev, 1, (unsigned long long)INT64_MAX + 1,
		    EINVAL, "task-clock: period 9223372036854775808 is not "
		    "between 1 and 9223372036854775807");

	fresh();
	ev = event(&intel, "cycles");
	add_refused(&intel_no_pcint, "Intel, no PCINT", &ev, 1, 1000,
		    EOPNOTSUPP, "cycles: this CPU has no overflow interrupts: "
		    "count it in a-mode");
	ev = event(&tsc_only, "page-faults:u");
	tap_is_int(perfctr_event_add_irq(&control, &ev, &tsc_only, 64, err,
					 sizeof(err)), 0,
		   "TSC only: page-faults:u in i-mode");
	tap_ok(control.cpu_control.ireset[0] == -64 &&
	       control.cpu_control.evntsel[0] == PERFCTR_SW_USR,
	       "TSC only: i-mode page-faults:u, ireset -64");
}

/*
 * TopDown counters: each on its own counter, once; those that share the
 * slots count the same modes, in a-mode.
 */
static void test_add_topdown(void)
{
	static const char *const level1[] = {
		"topdown-retiring:u", "topdown-bad-spec:u",
		"topdown-fe-bound:u", "topdown-be-bound:u",
	};
	static const char *const level2[] = {
		"topdown-heavy-ops:u", "topdown-br-mispredict:u",
		"topdown-fetch-lat:u", "topdown-mem-bound:u",
	};
	const struct perfctr_info *spr = &sapphire_rapids;
	struct perfctr_event_spec ev;
	unsigned int k;

	fresh();
	adds(spr, "Sapphire Rapids", "slots:u", 0, SLOTS, USR);
	for (k = 0; k < 4; k++)
		adds(spr, "Sapphire Rapids", level1[k], 1 + k,
		     PERFCTR_MAP_X86_METRIC | k, USR);
	for (k = 0; k < 4; k++)
		adds(spr, "Sapphire Rapids", level2[k], 5 + k,
		     PERFCTR_MAP_X86_METRIC | (4 + k), USR);
	/* The other fixed counters, and the other modes, beside them. */
	adds(spr, "Sapphire Rapids", "instructions", 9, FIXED | 0, BOTH);
	adds(spr, "Sapphire Rapids", "cycles:k", 10, FIXED | 1, OS);
	adds(spr, "Sapphire Rapids", "branches:u", 11, 0, USR | 0xc4);

	ev = event(spr, "topdown-retiring:u");
	add_refused(spr, "Sapphire Rapids", &ev, 0, 0, EINVAL,
		    "topdown-retiring:u: TopDown metric 0 is in use");
	ev = event(spr, "slots:u");
	add_refused(spr, "Sapphire Rapids", &ev, 0, 0, EINVAL,
		    "slots:u: fixed counter 3 is in use");
	ev = event(spr, "0x10000@0x40000003");
	add_refused(spr, "Sapphire Rapids", &ev, 0, 0, EINVAL,
		    "0x10000@0x40000003: fixed counter 3 is in use");

	/* The modes of the first that uses the slots, whichever it is. */
	fresh();
	adds(spr, "Sapphire Rapids", "topdown-fe-bound:k", 0,
	     METRIC(FE_BOUND), OS);
	ev = event(spr, "slots:u");
	add_refused(spr, "Sapphire Rapids", &ev, 0, 0, EINVAL,
		    "slots:u: counts other modes than counter 0: TopDown "
		    "counters must count the same");
	ev = event(spr, "topdown-retiring");
	add_refused(spr, "Sapphire Rapids", &ev, 0, 0, EINVAL,
		    "topdown-retiring: counts other modes than counter 0: "
		    "TopDown counters must count the same");
	adds(spr, "Sapphire Rapids", "slots:k", 1, SLOTS, OS);
	adds(spr, "Sapphire Rapids", "cycles:u", 2, FIXED | 1, USR);

	/*
	 * In a-mode only: the kernel restarts them at every resume.  The
	 * slots alone may interrupt, as any fixed counter.
	 */
	fresh();
	control.si_signo = 29;
	ev = event(spr, "topdown-be-bound:u");
	add_refused(spr, "Sapphire Rapids", &ev, 1, 1000, EINVAL,
		    "topdown-be-bound:u: a TopDown category counts in a-mode "
		    "only");
	adds(spr, "Sapphire Rapids", "topdown-retiring:u", 0,
	     METRIC(RETIRING), USR);
	ev = event(spr, "slots:u");
	add_refused(spr, "Sapphire Rapids", &ev, 1, 1000, EINVAL,
		    "slots:u: the slots count in a-mode only beside TopDown "
		    "categories");
	fresh();
	control.si_signo = 29;
	ev = event(spr, "slots:u");
	tap_is_int(perfctr_event_add_irq(&control, &ev, spr, 1000, NULL, 0),
		   0, "Sapphire Rapids: slots:u alone in i-mode");
	ev = event(spr, "topdown-retiring:u");
	add_refused(spr, "Sapphire Rapids", &ev, 0, 0, EINVAL,
		    "topdown-retiring:u: TopDown categories need the slots in "
		    "a-mode, not i-mode");

	/* Parsed for one machine, added for another that lacks it. */
	fresh();
	ev = event(spr, "topdown-heavy-ops:u");
	add_refused(&icelake, "Ice Lake", &ev, 0, 0, EINVAL,
		    "topdown-heavy-ops:u: this CPU has no TopDown metric 4 "
		    "(it has 4)");
	ev = event(spr, "topdown-retiring:u");
	add_refused(&intel, "Intel, 3 fixed", &ev, 0, 0, EINVAL,
		    "topdown-retiring:u: this CPU has no TopDown metric 0 (it "
		    "has 0)");

	/* Fixed counter 3 without PERF_METRICS: a counter like the others. */
	fresh();
	control.si_signo = 29;
	ev = event(&intel_slots_only, "slots:u");
	tap_is_int(perfctr_event_add_irq(&control, &ev, &intel_slots_only,
					 1000, NULL, 0), 0,
		   "Intel, fixed 3, no PERF_METRICS: slots:u in i-mode");
}

static void test_add_bad_control(void)
{
	struct perfctr_event_spec ev = event(&intel, "faults:u");
	int i, ret = 0;

	fresh();
	control.cpu_control.nractrs = PERFCTR_MAX_NRCTRS + 1;
	add_refused(&intel, "Intel", &ev, 0, 0, EINVAL,
		    "page-faults:u: the control has more counters than a "
		    "control can");
	fresh();
	for (i = 0; i < PERFCTR_MAX_NRCTRS; i++) {
		ret = perfctr_event_add(&control, &ev, &intel, NULL, 0);
		if (ret != i)
			break;
	}
	tap_is_int(ret, PERFCTR_MAX_NRCTRS - 1, "%d software counters fit",
		   PERFCTR_MAX_NRCTRS);
	add_refused(&intel, "Intel", &ev, 0, 0, ENOSPC,
		    "page-faults:u: the control has all 32 counters in use");
	ev = event(&intel, "cycles");
	add_refused(&intel, "Intel", &ev, 0, 0, ENOSPC,
		    "cycles: the control has all 32 counters in use");

	fresh();
	memset(&ev, 0, sizeof(ev));
	strcpy(ev.name, "made-up");
	add_refused(&intel, "Intel", &ev, 0, 0, EINVAL,
		    "made-up: not an event perfctr_event_parse() made");
	ev.kind = PERFCTR_EVENT_SOFTWARE;
	ev.pmc_map = PERFCTR_MAP_SOFTWARE | 99;
	add_refused(&intel, "Intel", &ev, 0, 0, EINVAL,
		    "made-up: not a software event perfctr_event_parse() "
		    "made");
}

/* The listing: names for each machine, each of which parses there. */
static void lists(const struct perfctr_info *info, const char *machine,
		  const char *const *names, unsigned int nr)
{
	const struct perfctr_event_desc *d;
	struct perfctr_event_spec ev;
	unsigned int i, bad = 0;

	for (i = 0; (d = perfctr_event_list(info, i)); i++) {
		if (i >= nr || strcmp(d->name, names[i]) || !d->description ||
		    !*d->description ||
		    perfctr_event_parse(&ev, d->name, info, NULL, 0) < 0 ||
		    ev.kind != d->kind) {
			printf("#   %s: entry %u: %s\n", machine, i, d->name);
			bad++;
		}
	}
	tap_ok(i == nr && !bad, "%s: lists its %u events, each parses",
	       machine, nr);
}

static void test_list(void)
{
	static const char *const common_names[] = {
		"tsc", "task-clock", "context-switches", "cpu-migrations",
		"page-faults", "minor-faults", "major-faults",
	};
	static const char *const intel_names[] = {
		"tsc", "task-clock", "context-switches", "cpu-migrations",
		"page-faults", "minor-faults", "major-faults",
		"cycles", "instructions", "ref-cycles", "branches",
		"branch-misses", "cache-references", "cache-misses",
	};
	static const char *const amd_names[] = {
		"tsc", "task-clock", "context-switches", "cpu-migrations",
		"page-faults", "minor-faults", "major-faults",
		"cycles", "instructions", "branches", "branch-misses",
		"cache-references", "cache-misses",
	};
	static const char *const fixed_only_names[] = {
		"tsc", "task-clock", "context-switches", "cpu-migrations",
		"page-faults", "minor-faults", "major-faults",
		"cycles", "instructions", "ref-cycles",
	};
	const struct perfctr_event_desc *d;
	unsigned int i;
	int ok = 1;

	lists(&intel, "Intel", intel_names, 14);
	lists(&amd, "AMD", amd_names, 13);
	lists(&tsc_only, "TSC only", common_names, 7);
	lists(&intel_fixed_only, "Intel, fixed only", fixed_only_names, 10);

	for (i = 0; (d = perfctr_event_list(&intel, i)); i++) {
		int modes = d->kind == PERFCTR_EVENT_HARDWARE ||
			    strstr(d->name, "faults") != NULL;

		if (d->takes_modes != modes)
			ok = 0;
	}
	tap_ok(ok, "list: hardware and fault events take modifiers");
	d = perfctr_event_list(&intel, 2);
	tap_ok(d && d->alias && !strcmp(d->alias, "cs") &&
	       d->kind == PERFCTR_EVENT_SOFTWARE,
	       "list: context-switches has the alias cs");
	d = perfctr_event_list(&intel, 7);
	tap_ok(d && !d->alias && d->kind == PERFCTR_EVENT_HARDWARE,
	       "list: cycles is hardware, no alias");
	tap_ok(perfctr_event_list(&tsc_only, 1000) == NULL &&
	       perfctr_event_list(&intel, ~0u) == NULL,
	       "list: NULL far past the end");
	d = perfctr_event_list(&intel, 10);
	tap_ok(d && !strcmp(d->name, "branches") && d->alias &&
	       !strcmp(d->alias, "branch-instructions"),
	       "list: branches has the alias branch-instructions");
}

/* The TopDown names are listed where the machine counts them. */
static void test_list_topdown(void)
{
	static const char *const icelake_names[] = {
		"tsc", "task-clock", "context-switches", "cpu-migrations",
		"page-faults", "minor-faults", "major-faults",
		"cycles", "instructions", "ref-cycles", "branches",
		"branch-misses", "cache-references", "cache-misses",
		"slots", "topdown-retiring", "topdown-bad-spec",
		"topdown-fe-bound", "topdown-be-bound",
	};
	static const char *const spr_names[] = {
		"tsc", "task-clock", "context-switches", "cpu-migrations",
		"page-faults", "minor-faults", "major-faults",
		"cycles", "instructions", "ref-cycles", "branches",
		"branch-misses", "cache-references", "cache-misses",
		"slots", "topdown-retiring", "topdown-bad-spec",
		"topdown-fe-bound", "topdown-be-bound", "topdown-heavy-ops",
		"topdown-br-mispredict", "topdown-fetch-lat",
		"topdown-mem-bound",
	};

	lists(&icelake, "Ice Lake", icelake_names, 19);
	lists(&sapphire_rapids, "Sapphire Rapids", spr_names, 23);
	lists(&intel_slots_only, "Intel, fixed 3, no PERF_METRICS",
	      icelake_names, 15);
}

static void test_list_arm64(void)
{
	static const char *const arm64_names[] = {
		"tsc", "task-clock", "context-switches", "cpu-migrations",
		"page-faults", "minor-faults", "major-faults",
		"cycles", "instructions", "branches", "branch-misses",
		"cache-references", "cache-misses",
	};
	static const char *const cycles_only_names[] = {
		"tsc", "task-clock", "context-switches", "cpu-migrations",
		"page-faults", "minor-faults", "major-faults", "cycles",
	};
	const struct perfctr_event_desc *d;

	lists(&arm64_pmuv3, "arm64 PMUv3", arm64_names, 13);
	lists(&arm64_timer, "arm64 timer", arm64_names, 7);
	lists(&arm64_cycles_only, "arm64, cycle counter only",
	      cycles_only_names, 8);
	d = perfctr_event_list(&arm64_timer, 0);
	tap_ok(d && !strcmp(d->name, "tsc") && d->kind == PERFCTR_EVENT_TSC &&
	       !strcmp(d->description, "generic timer ticks (CNTVCT_EL0)"),
	       "list, arm64: tsc is the generic timer's count");
	d = perfctr_event_list(&tsc_only, 0);
	tap_ok(d && !strcmp(d->description, "time-stamp counter ticks"),
	       "list, x86: tsc is the time-stamp counter");
	d = perfctr_event_list(&arm64_pmuv3, 9);
	tap_ok(d && !strcmp(d->name, "branches") && d->alias &&
	       !strcmp(d->alias, "branch-instructions") &&
	       !strcmp(d->description, "branches architecturally executed"),
	       "list, arm64: branches, alias branch-instructions, BR_RETIRED");
}

int main(void)
{
	/* No PMU for libpfm4 to find: this host's must not count. */
	setenv("LIBPFM_FORCE_PMU", "nosuch", 1);
	make_infos();
	test_parse_every_event();
	test_parse_other_intels();
	test_parse_topdown();
	test_parse_no_hardware();
	test_parse_errors();
	test_parse_raw_errors();
	test_parse_legacy_errors();
	test_parse_no_err_buffer();
	test_parse_arm64_errors();
	test_add_intel();
	test_add_intel_fixed_busy();
	test_add_amd();
	test_add_arm64();
	test_add_arm64_irq();
	test_add_tsc();
	test_add_tsc_only();
	test_add_irq();
	test_add_topdown();
	test_add_bad_control();
	test_list();
	test_list_topdown();
	test_list_arm64();
	return tap_done();
}
