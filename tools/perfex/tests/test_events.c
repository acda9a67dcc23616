// SPDX-License-Identifier: GPL-2.0
/*
 * perfex's events on made-up machines: the names of -e, the defaults of
 * each machine, the controls and their user-mode fallback, the values in
 * the sums, and the listing of -l.  What the names mean is libperfctr's,
 * tested in lib/tests; here, what perfex makes of it.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "events.h"
#include "metrics.h"
#include "machines.h"
#include "tap.h"
#include "parse.h"

#define SW(event)	(PERFCTR_MAP_SOFTWARE | PERFCTR_SW_##event)
#define FIXED(j)	(PERFCTR_MAP_X86_FIXED | (j))
#define USR		0x10000ull	/* PERFCTR_SW_USR, bit 16 */
#define OS		0x20000ull	/* PERFCTR_SW_OS, bit 17 */
#define BOTH		(USR | OS)
#define TSC_INDEX	PERFCTR_EVENT_TSC_INDEX
#define CYCLES		PERFCTR_MAP_ARM64_CYCLES
#define NO_EL1		((__u64)PERFCTR_ARM64_EXCLUDE_EL1)
#define NO_EL0		((__u64)PERFCTR_ARM64_EXCLUDE_EL0)

/* The machine perfex assumes is that of the architecture it runs on. */
#if defined(__aarch64__)
#define ASSUMED_TYPE	PERFCTR_ARM64_GENERIC
#define ASSUMED_NAME	"arm64 timer"
#else
#define ASSUMED_TYPE	PERFCTR_X86_GENERIC
#define ASSUMED_NAME	"x86 TSC"
#endif

static struct perfex_event_list list;
static struct vperfctr_control control, fallback;
static char error[PERFCTR_EVENT_ERROR_SIZE + 64];

static int add(const char *spec)
{
	error[0] = '\0';
	return perfex_add_events(&list, spec, error, sizeof(error));
}

/* The texts of the list, or its names once built, blank-separated. */
static const char *joined(int names)
{
	static char buf[1024];
	size_t len = 0;
	unsigned int i;

	buf[0] = '\0';
	for (i = 0; i < list.nr; i++)
		len += snprintf(buf + len, sizeof(buf) - len, "%s%s",
				i ? " " : "", names ? list.event[i].spec.name :
						      list.event[i].text);
	return buf;
}

/* The list is @spec alone, built for @info. */
static int build(const char *spec, const struct perfctr_info *info,
		 unsigned int *bad)
{
	unsigned int unused;

	list.nr = 0;
	if (add(spec) < 0)
		return -2;
	return perfex_build_control(&list, info, &control, &fallback, error,
				    sizeof(error), bad ? bad : &unused);
}

static void test_add_events(void)
{
	char name[300];
	unsigned int i;

	list.nr = 0;
	tap_ok(add("tsc,cs") == 0 && add("faults:ku") == 0 &&
	       add("r1C2,0xc0@1,bogus") == 0 && list.nr == 6,
	       "add: two lists and one event: six events");
	tap_is_str(joined(0), "tsc cs faults:ku r1C2 0xc0@1 bogus",
		   "add: kept as written, in order, until the machine is "
		   "known");

	list.nr = 1;
	tap_ok(add("") == -1 && list.nr == 1, "add: '' refused, list as it "
	       "was");
	tap_is_str(error, "empty event name", "add: '': message");
	tap_ok(add("tsc,,cs") == -1 && list.nr == 1,
	       "add: 'tsc,,cs' refused, nothing added");
	tap_is_str(error, "empty event name", "add: 'tsc,,cs': message");
	tap_ok(add("tsc,") == -1 && list.nr == 1,
	       "add: 'tsc,' refused, nothing added");
	memset(name, 'u', sizeof(name));
	memcpy(name, "page-faults:", 12);
	name[256] = '\0';
	tap_ok(add(name) == -1 && list.nr == 1, "add: 256 characters refused");
	tap_is_str(error, "page-faults:uuuuuuuu...: event name too long (at "
		   "most 255 characters)", "add: too long: message");
	name[255] = '\0';
	tap_ok(add(name) == 0 && list.nr == 2 &&
	       strlen(list.event[1].text) == 255, "add: 255 characters taken");

	list.nr = 0;
	for (i = 0; i < PERFEX_MAX_EVENTS; i++)
		add("cs");
	tap_is_int(list.nr, PERFEX_MAX_EVENTS, "add: up to %d events",
		   PERFEX_MAX_EVENTS);
	tap_ok(add("tsc") == -1 && list.nr == PERFEX_MAX_EVENTS,
	       "add: one more is refused");
	tap_is_str(error, "too many events (at most 32)", "too many: message");
	list.nr = PERFEX_MAX_EVENTS - 1;
	tap_ok(add("tsc,tsc") == -1 && list.nr == PERFEX_MAX_EVENTS - 1,
	       "add: a list that does not fit adds nothing");
}

#define SOFTWARE	"task-clock context-switches cpu-migrations page-faults"

static void defaults_are(const struct perfctr_info *info, const char *machine,
			 const char *want)
{
	perfex_default_events(&list, info);
	tap_is_str(joined(0), want, "defaults: %s", machine);
}

static void test_defaults(void)
{
	struct perfctr_info info;

	defaults_are(NULL, "machine not known: today's", SOFTWARE " tsc");
	defaults_are(&tsc_only, "TSC only: the same", SOFTWARE " tsc");
	defaults_are(&intel, "Intel, 4+3 counters: perf stat's",
		     SOFTWARE " cycles instructions branches branch-misses "
		     "tsc");
	defaults_are(&amd, "AMD, 6 counters: perf stat's",
		     SOFTWARE " cycles instructions branches branch-misses "
		     "tsc");

	info = intel;
	info.nrctrs = 0;
	defaults_are(&info, "Intel, fixed counters only: cycles, "
		     "instructions", SOFTWARE " cycles instructions tsc");
	info = intel;
	info.nrctrs = 1;
	info.nrfixed = 0;
	defaults_are(&info, "Intel, 1 counter, no fixed: cycles",
		     SOFTWARE " cycles tsc");
	info = amd;
	info.nrctrs = 3;
	defaults_are(&info, "AMD, 3 counters: the first three",
		     SOFTWARE " cycles instructions branches tsc");
	info = amd;
	info.nrctrs = 0;
	defaults_are(&info, "AMD driver, no counters: today's",
		     SOFTWARE " tsc");
	defaults_are(&arm64_pmuv3, "arm64 PMUv3, 6+1 counters: perf stat's",
		     SOFTWARE " cycles instructions branches branch-misses "
		     "tsc");
	defaults_are(&arm64_timer, "arm64 timer only: today's",
		     SOFTWARE " tsc");
	info = arm64_pmuv3;
	info.nrctrs = 0;
	defaults_are(&info, "arm64, the cycle counter only: cycles",
		     SOFTWARE " cycles tsc");
	info = arm64_pmuv3;
	info.nrctrs = 2;
	defaults_are(&info, "arm64, 2 event counters: cycles on the cycle "
		     "counter and two more", SOFTWARE " cycles instructions "
		     "branches tsc");
	perfex_assumed_machine(&info);
	defaults_are(&info, "the machine assumed when not known: today's",
		     SOFTWARE " tsc");
	tap_ok(info.cpu_type == ASSUMED_TYPE && info.nrctrs == 0 &&
	       info.nrfixed == 0 &&
	       !strcmp(perfctr_info_cpu_name(&info), ASSUMED_NAME),
	       "the machine assumed: TSC only (%s)", ASSUMED_NAME);
}

static int same_maps(void)
{
	return fallback.cpu_control.tsc_on == control.cpu_control.tsc_on &&
	       fallback.cpu_control.nractrs == control.cpu_control.nractrs &&
	       fallback.cpu_control.nrictrs == 0 &&
	       !memcmp(fallback.cpu_control.pmc_map,
		       control.cpu_control.pmc_map,
		       sizeof(control.cpu_control.pmc_map));
}

static void test_defaults_control(void)
{
	const struct perfctr_cpu_control *c = &control.cpu_control;
	const struct perfctr_cpu_control *f = &fallback.cpu_control;
	unsigned int bad = 99, i;
	static const int index[] = { 0, 1, 2, 3, 4, 5, 6, 7, TSC_INDEX };
	int ok = 1;

	perfex_default_events(&list, &intel);
	tap_is_int(perfex_build_control(&list, &intel, &control, &fallback,
					error, sizeof(error), &bad), 1,
		   "Intel defaults: built, with a fallback");
	tap_ok(c->tsc_on == 1 && c->nractrs == 8 && c->nrictrs == 0 &&
	       control.si_signo == 0 && control.preserve == 0 &&
	       c->pmc_map[0] == SW(TASK_CLOCK) && c->evntsel[0] == 0 &&
	       c->pmc_map[1] == SW(CONTEXT_SWITCHES) && c->evntsel[1] == 0 &&
	       c->pmc_map[2] == SW(CPU_MIGRATIONS) && c->evntsel[2] == 0 &&
	       c->pmc_map[3] == SW(PAGE_FAULTS) && c->evntsel[3] == BOTH &&
	       c->pmc_map[4] == FIXED(1) && c->evntsel[4] == BOTH &&
	       c->pmc_map[5] == FIXED(0) && c->evntsel[5] == BOTH &&
	       c->pmc_map[6] == 0 && c->evntsel[6] == (BOTH | 0xc4) &&
	       c->pmc_map[7] == 1 && c->evntsel[7] == (BOTH | 0xc5),
	       "Intel defaults: 4 software counters, cycles and instructions "
	       "on fixed counters 1 and 0, branches and branch-misses on "
	       "counters 0 and 1, both modes; the TSC");
	tap_ok(same_maps() && f->evntsel[0] == 0 && f->evntsel[1] == 0 &&
	       f->evntsel[2] == 0 && f->evntsel[3] == USR &&
	       f->evntsel[4] == USR && f->evntsel[5] == USR &&
	       f->evntsel[6] == (USR | 0xc4) && f->evntsel[7] == (USR | 0xc5),
	       "Intel defaults: the fallback, the same counters in user "
	       "mode");
	for (i = 0; i < list.nr; i++)
		ok &= list.event[i].index == index[i];
	tap_ok(list.nr == 9 && ok, "Intel defaults: the indices of the "
	       "values, the TSC's last");
	tap_is_str(joined(1), SOFTWARE " cycles instructions branches "
		   "branch-misses tsc", "Intel defaults: named");
	tap_is_str(perfex_kernel_mode_event(&list, &intel), "an event",
		   "Intel defaults: none asks for kernel mode itself");

	perfex_events_fall_back(&list);
	tap_is_str(joined(1), "task-clock context-switches cpu-migrations "
		   "page-faults:u cycles:u instructions:u branches:u "
		   "branch-misses:u tsc",
		   "fall back: the events without a modifier are :u");
	tap_ok(list.event[3].spec.evntsel == USR &&
	       !list.event[3].spec.implicit_modes &&
	       list.event[4].spec.evntsel == (USR | 0x3c) &&
	       list.event[4].spec.fixed == 1 &&
	       list.event[7].spec.evntsel == (USR | 0xc5) &&
	       list.event[0].spec.evntsel == 0,
	       "fall back: user mode only, as the fallback control counts");

	perfex_default_events(&list, &amd);
	tap_is_int(perfex_build_control(&list, &amd, &control, &fallback,
					error, sizeof(error), &bad), 1,
		   "AMD defaults: built, with a fallback");
	tap_ok(c->tsc_on == 1 && c->nractrs == 8 &&
	       c->pmc_map[4] == 0 && c->evntsel[4] == (BOTH | 0x76) &&
	       c->pmc_map[5] == 1 && c->evntsel[5] == (BOTH | 0xc0) &&
	       c->pmc_map[6] == 2 && c->evntsel[6] == (BOTH | 0xc2) &&
	       c->pmc_map[7] == 3 && c->evntsel[7] == (BOTH | 0xc3) &&
	       same_maps() && f->evntsel[4] == (USR | 0x76) &&
	       f->evntsel[7] == (USR | 0xc3),
	       "AMD defaults: the hardware events on counters 0 to 3");

	perfex_default_events(&list, &tsc_only);
	tap_is_int(perfex_build_control(&list, &tsc_only, &control,
					&fallback, error, sizeof(error), &bad),
		   1, "TSC-only defaults: built, with a fallback");
	tap_ok(c->tsc_on == 1 && c->nractrs == 4 && c->nrictrs == 0 &&
	       c->pmc_map[3] == SW(PAGE_FAULTS) && c->evntsel[3] == BOTH &&
	       same_maps() && f->evntsel[3] == USR,
	       "TSC-only defaults: today's control, page faults :u in the "
	       "fallback");
}

static void test_arm64_control(void)
{
	const struct perfctr_cpu_control *c = &control.cpu_control;
	const struct perfctr_cpu_control *f = &fallback.cpu_control;
	unsigned int bad = 99;

	perfex_default_events(&list, &arm64_pmuv3);
	tap_is_int(perfex_build_control(&list, &arm64_pmuv3, &control,
					&fallback, error, sizeof(error), &bad),
		   1, "arm64 defaults: built, with a fallback");
	tap_ok(c->tsc_on == 1 && c->nractrs == 8 && c->nrictrs == 0 &&
	       c->pmc_map[3] == SW(PAGE_FAULTS) && c->evntsel[3] == BOTH &&
	       c->pmc_map[4] == CYCLES && c->evntsel[4] == 0x11 &&
	       c->pmc_map[5] == 0 && c->evntsel[5] == 0x08 &&
	       c->pmc_map[6] == 1 && c->evntsel[6] == 0x21 &&
	       c->pmc_map[7] == 2 && c->evntsel[7] == 0x10,
	       "arm64 defaults: cycles on the cycle counter, instructions, "
	       "branches and branch-misses on event counters 0 to 2, both "
	       "modes; the TSC");
	tap_ok(same_maps() && f->evntsel[3] == USR &&
	       f->evntsel[4] == (NO_EL1 | 0x11) &&
	       f->evntsel[5] == (NO_EL1 | 0x08) &&
	       f->evntsel[6] == (NO_EL1 | 0x21) &&
	       f->evntsel[7] == (NO_EL1 | 0x10),
	       "arm64 defaults: the fallback, the same counters excluding "
	       "EL1");
	tap_is_str(perfex_kernel_mode_event(&list, &arm64_pmuv3), "an event",
		   "arm64 defaults: none asks for kernel mode itself");
	perfex_events_fall_back(&list);
	tap_is_str(joined(1), "task-clock context-switches cpu-migrations "
		   "page-faults:u cycles:u instructions:u branches:u "
		   "branch-misses:u tsc",
		   "arm64 fall back: the events without a modifier are :u");

	tap_is_int(build("0x80000011@31,cycles:k,r8,branch-instructions:u,"
			 "faults", &arm64_pmuv3, NULL), 1,
		   "arm64 mixed: built");
	tap_ok(c->nractrs == 5 &&
	       c->pmc_map[0] == CYCLES && c->evntsel[0] == (NO_EL1 | 0x11) &&
	       c->pmc_map[1] == 0 && c->evntsel[1] == (NO_EL0 | 0x11) &&
	       c->pmc_map[2] == 1 && c->evntsel[2] == 0x08 &&
	       c->pmc_map[3] == 2 && c->evntsel[3] == (NO_EL1 | 0x21) &&
	       c->pmc_map[4] == SW(PAGE_FAULTS) && c->evntsel[4] == BOTH,
	       "arm64 mixed: cycles:k on an event counter, the cycle counter "
	       "being taken");
	tap_ok(same_maps() && f->evntsel[0] == (NO_EL1 | 0x11) &&
	       f->evntsel[1] == (NO_EL0 | 0x11) &&
	       f->evntsel[2] == (NO_EL1 | 0x08) &&
	       f->evntsel[3] == (NO_EL1 | 0x21) && f->evntsel[4] == USR,
	       "arm64 mixed: the fallback changes only r8 and faults");
	tap_is_str(perfex_kernel_mode_event(&list, &arm64_pmuv3), "cycles:k",
		   "arm64 mixed: cycles:k asks for kernel mode");
	tap_is_str(joined(1), "0x80000011@31 cycles:k r8 branches:u "
		   "page-faults", "arm64 mixed: libperfctr's names");

	tap_is_int(build("r40000008,cycles:u", &arm64_pmuv3, NULL), 0,
		   "arm64, raw selector excluding EL0: built, no fallback");
	tap_is_str(perfex_kernel_mode_event(&list, &arm64_pmuv3), "r40000008",
		   "arm64, raw selector excluding EL0: it asks for kernel "
		   "mode");
	tap_is_int(build("cycles:uk", &arm64_pmuv3, NULL), 0,
		   "arm64, cycles:uk: built");
	tap_is_str(perfex_kernel_mode_event(&list, &arm64_pmuv3), "cycles:uk",
		   "arm64, cycles:uk: it asks for kernel mode");
}

static void test_mixed_control(void)
{
	const struct perfctr_cpu_control *c = &control.cpu_control;
	const struct perfctr_cpu_control *f = &fallback.cpu_control;

	tap_is_int(build("cs,cycles:u,tsc,r1c2,0xc0@3:k,faults,ref-cycles:ku",
			 &intel, NULL), 1,
		   "mixed: hardware, software and the TSC built");
	tap_ok(c->tsc_on == 1 && c->nractrs == 6 && c->nrictrs == 0 &&
	       c->pmc_map[0] == SW(CONTEXT_SWITCHES) && c->evntsel[0] == 0 &&
	       c->pmc_map[1] == FIXED(1) && c->evntsel[1] == USR &&
	       c->pmc_map[2] == 0 && c->evntsel[2] == (BOTH | 0x1c2) &&
	       c->pmc_map[3] == 3 && c->evntsel[3] == (OS | 0xc0) &&
	       c->pmc_map[4] == SW(PAGE_FAULTS) && c->evntsel[4] == BOTH &&
	       c->pmc_map[5] == FIXED(2) && c->evntsel[5] == BOTH,
	       "mixed: each on its counter, modes as written");
	tap_ok(same_maps() && f->evntsel[0] == 0 && f->evntsel[1] == USR &&
	       f->evntsel[2] == (USR | 0x1c2) && f->evntsel[3] == (OS | 0xc0) &&
	       f->evntsel[4] == USR && f->evntsel[5] == BOTH,
	       "mixed: the fallback changes only r1c2 and faults");
	tap_ok(list.event[0].index == 0 && list.event[1].index == 1 &&
	       list.event[2].index == TSC_INDEX && list.event[3].index == 2 &&
	       list.event[4].index == 3 && list.event[5].index == 4 &&
	       list.event[6].index == 5, "mixed: the indices");
	tap_is_str(joined(1), "context-switches cycles:u tsc r1c2 0xc0@3:k "
		   "page-faults ref-cycles:uk",
		   "mixed: libperfctr's names, aliases resolved");
	tap_is_str(perfex_kernel_mode_event(&list, &intel), "0xc0@3:k",
		   "mixed: 0xc0@3:k asks for kernel mode");
	perfex_events_fall_back(&list);
	tap_is_str(joined(1), "context-switches cycles:u tsc r1c2:u 0xc0@3:k "
		   "page-faults:u ref-cycles:uk",
		   "mixed: fall back: r1c2:u and page-faults:u");

	tap_is_int(build("r2003c,cycles", &intel, NULL), 1,
		   "raw selector with OS: built");
	tap_ok(c->evntsel[0] == (OS | 0x3c) && f->evntsel[0] == (OS | 0x3c) &&
	       c->evntsel[1] == BOTH && f->evntsel[1] == USR,
	       "raw selector with OS: no fallback for it");
	tap_is_str(perfex_kernel_mode_event(&list, &intel), "r2003c",
		   "raw selector with OS: it asks for kernel mode");

	tap_is_int(build("page-faults:k,faults:u,tsc", &tsc_only, NULL), 0,
		   "explicit modifiers: no fallback");
	tap_ok(c->tsc_on == 1 && c->nractrs == 2 &&
	       c->evntsel[0] == OS && c->evntsel[1] == USR &&
	       !memcmp(&control, &fallback, sizeof(control)),
	       "explicit modifiers: as given, the fallback the same");
	tap_is_str(perfex_kernel_mode_event(&list, &tsc_only), "page-faults:k",
		   "explicit modifiers: page-faults:k asks for kernel mode");

	tap_ok(build("cs", &tsc_only, NULL) == 0 && c->tsc_on == 0 &&
	       c->nractrs == 1 && list.event[0].index == 0,
	       "no tsc asked for: TSC off");
}

static void test_values(void)
{
	struct perfctr_sum_ctrs sum;
	unsigned int i;

	build("task-clock,tsc,cycles,cs,instructions", &intel, NULL);
	memset(&sum, 0, sizeof(sum));
	sum.tsc = 1000;
	for (i = 0; i < PERFCTR_MAX_NRCTRS; i++)
		sum.pmc[i] = 100 + i;
	tap_ok(perfex_event_value(&list.event[0], &sum) == 100 &&
	       perfex_event_value(&list.event[1], &sum) == 1000 &&
	       perfex_event_value(&list.event[2], &sum) == 101 &&
	       perfex_event_value(&list.event[3], &sum) == 102 &&
	       perfex_event_value(&list.event[4], &sum) == 103,
	       "values: the TSC from sum.tsc, the others from their counter");
	tap_ok(perfex_event_kind(&list.event[0]) == PERFEX_COUNT_TASK_CLOCK &&
	       perfex_event_kind(&list.event[1]) == PERFEX_COUNT_PLAIN &&
	       perfex_event_kind(&list.event[2]) == PERFEX_COUNT_EVENTS &&
	       perfex_event_kind(&list.event[3]) == PERFEX_COUNT_EVENTS,
	       "kinds: task-clock, plain TSC, events");
}

/* Building @spec for @info fails with @err_no, @msg, event @bad. */
static void refused(const char *spec, const struct perfctr_info *info,
		    const char *machine, int err_no, unsigned int bad,
		    const char *msg)
{
	unsigned int got = 99;
	int ret;

	errno = 0;
	ret = build(spec, info, &got);
	tap_ok(ret == -1 && errno == err_no && got == bad,
	       "%s: '%s' refused with %s, event %u", machine, spec,
	       strerror(err_no), bad);
	tap_is_str(error, msg, "%s: '%s': message", machine, spec);
}

static void test_errors(void)
{
	char unknown[2 * PERFCTR_EVENT_ERROR_SIZE];

	snprintf(unknown, sizeof(unknown), "bogus: unknown event (%s)",
		 native_why());
	refused("tsc,bogus", &intel, "Intel", EINVAL, 1, unknown);
	refused("cycles", &tsc_only, "TSC only", EOPNOTSUPP, 0,
		"cycles: this CPU has no hardware counters (driver: x86 TSC)");
	refused("task-clock,r1c2", &tsc_only, "TSC only", EOPNOTSUPP, 1,
		"r1c2: this CPU has no hardware counters (driver: x86 TSC)");
	refused("ref-cycles:u", &amd, "AMD", EOPNOTSUPP, 0,
		"ref-cycles:u: not an event of this CPU (driver: AMD)");
	refused("r1c2,r1c3,r1c4,r1c5,branches", &intel, "Intel", ENOSPC, 4,
		"branches: all 4 general-purpose counters are in use");
	refused("0xc0@1,0xc4@1", &intel, "Intel", EINVAL, 1,
		"0xc4@1: general-purpose counter 1 is in use");
	refused("task-clock:u", &intel, "Intel", EINVAL, 0,
		"task-clock:u: task-clock takes no modifier (only hardware "
		"and fault events do)");
	refused("cs,cycles:x", &intel, "Intel", EINVAL, 1,
		"cycles:x: unknown modifier ':x': use :u, :k or :uk");
	refused("r4100c0", &intel, "Intel", EINVAL, 0,
		"r4100c0: bit 22 (EN) is set by the driver, not in the "
		"selector");
	refused("tsc,cycles", &arm64_timer, "arm64 timer", EOPNOTSUPP, 1,
		"cycles: this CPU has no hardware counters (driver: arm64 "
		"timer)");
	refused("r8:u", &arm64_timer, "arm64 timer", EOPNOTSUPP, 0,
		"r8:u: this CPU has no hardware counters (driver: arm64 "
		"timer)");
	refused("r1,r2,r3,r4,r5,r6,cycles,branches", &arm64_pmuv3,
		"arm64 PMUv3", ENOSPC, 7,
		"branches: all 6 event counters are in use");
	refused("r1,r2,r3,r4,r5,r6,cycles,cycles:u", &arm64_pmuv3,
		"arm64 PMUv3", ENOSPC, 7,
		"cycles:u: all 6 event counters are in use");
	refused("ref-cycles", &arm64_pmuv3, "arm64 PMUv3", EOPNOTSUPP, 0,
		"ref-cycles: not an event of this CPU (driver: arm64 PMUv3)");
}

/* The names metrics.c pairs events by are those libperfctr gives. */
static void test_metric_names(void)
{
	struct perfex_count counts[PERFEX_MAX_EVENTS];
	struct perfex_metric metric;
	static const unsigned long long value[] = {
		2000000000, 1000000000, 100000, 2000, 1000, 10,
	};
	char text[64];
	unsigned int i;
	int ok = 1;

	build("instructions:u,cycles:u,cache-references,cache-misses,"
	      "branches:k,branch-misses:k", &intel, NULL);
	for (i = 0; i < list.nr; i++) {
		memset(&counts[i], 0, sizeof(counts[i]));
		counts[i].name = list.event[i].spec.name;
		counts[i].kind = perfex_event_kind(&list.event[i]);
		counts[i].value = value[i];
	}
	ok &= perfex_metric_of(counts, list.nr, 0, 1000000000, &metric) == 0;
	perfex_metric_text(text, sizeof(text), &metric);
	tap_is_str(text, "   2.00  insn per cycle",
		   "metrics: instructions:u over cycles:u");
	ok &= perfex_metric_of(counts, list.nr, 3, 1000000000, &metric) == 0;
	perfex_metric_text(text, sizeof(text), &metric);
	tap_is_str(text, "   2.00% of all cache refs",
		   "metrics: cache-misses over cache-references");
	ok &= perfex_metric_of(counts, list.nr, 5, 1000000000, &metric) == 0;
	perfex_metric_text(text, sizeof(text), &metric);
	tap_is_str(text, "   1.00% of all branches",
		   "metrics: branch-misses:k over branches:k");
	tap_ok(ok, "metrics: a figure for each");

	build("cs,migrations,faults,task-clock", &tsc_only, NULL);
	for (i = 0; i < list.nr; i++)
		ok &= perfex_count_kind_of(list.event[i].spec.name) ==
		      perfex_event_kind(&list.event[i]);
	tap_is_str(joined(1), "context-switches cpu-migrations page-faults "
		   "task-clock", "metrics: the software events' names");
	tap_ok(ok, "metrics: the kinds from the names those of the events");
}

static void test_drop_hardware(void)
{
	const struct perfctr_cpu_control *c = &control.cpu_control;
	unsigned int bad;

	perfex_default_events(&list, &intel);
	perfex_build_control(&list, &intel, &control, &fallback, error,
			     sizeof(error), &bad);
	tap_is_int(perfex_events_drop_hardware(&list), 4,
		   "drop hardware: the four of the Intel defaults");
	tap_is_str(joined(0), SOFTWARE " tsc",
		   "drop hardware: the rest, in order");
	tap_ok(perfex_build_control(&list, &intel, &control, &fallback,
				    error, sizeof(error), &bad) == 1 &&
	       c->tsc_on == 1 && c->nractrs == 4 &&
	       c->pmc_map[3] == SW(PAGE_FAULTS) &&
	       list.event[4].index == TSC_INDEX,
	       "drop hardware: rebuilt, today's control");
	tap_is_int(perfex_events_drop_hardware(&list), 0,
		   "drop hardware: none left");
}

static char *listing(const struct perfctr_info *info)
{
	char *text = NULL;
	size_t size = 0;
	FILE *out = open_memstream(&text, &size);

	perfex_list_events(out, info, NULL);
	fclose(out);
	return text;
}

/* How many lines of @text name an event, "[...]" at their end. */
static unsigned int events_listed(const char *text)
{
	unsigned int n = 0;
	const char *eol;

	for (; (eol = strchr(text, '\n')); text = eol + 1)
		n += eol > text && eol[-1] == ']';
	return n;
}

static void test_list_word(void)
{
	char *text = NULL;
	size_t size = 0;
	FILE *out = open_memstream(&text, &size);

	perfex_list_events(out, &intel, "MISS");
	fclose(out);
	tap_ok(events_listed(text) == 2 && strstr(text, "\n  branch-misses ") &&
	       strstr(text, "\n  cache-misses ") &&
	       !strstr(text, "take a modifier"),
	       "-l MISS, Intel: branch-misses and cache-misses alone");
	free(text);
}

static void test_list(void)
{
	char *text;

	text = listing(&tsc_only);
	tap_is_str(text,
		"\nList of pre-defined events (to be used in -e):\n\n"
		"  tsc                                                [Time-stamp counter]\n"
		"       time-stamp counter ticks\n"
		"  task-clock                                         [Software event]\n"
		"       time on a CPU, in ns\n"
		"  context-switches OR cs                             [Software event]\n"
		"       times switched out\n"
		"  cpu-migrations OR migrations                       [Software event]\n"
		"       times resumed on another CPU\n"
		"  page-faults OR faults                              [Software event]\n"
		"       page faults, minor and major\n"
		"  minor-faults                                       [Software event]\n"
		"       page faults resolved without I/O\n"
		"  major-faults                                       [Software event]\n"
		"       page faults that needed I/O\n"
		"\n"
		"  Fault events take a modifier: :u counts user mode, :k kernel\n"
		"  mode, :uk both.\n\n",
		"-l, TSC only: name, alias, kind and description of each");
	free(text);

	text = listing(&intel);
	tap_ok(events_listed(text) == 14 &&
	       strstr(text, "\n  cycles                                     "
		      "        [Hardware event]\n"
		      "       core cycles, not halted\n") &&
	       strstr(text, "\n  ref-cycles  ") &&
	       strstr(text, "\n  Hardware and fault events take a modifier: "
		      ":u counts user mode,\n  :k kernel mode, :uk both.  "
		      "Raw hardware events: rNNNN, an event\n  selector in "
		      "hexadecimal, or perfctr 2.7's SEL or SEL@PMC.\n\n"),
	       "-l, Intel: 14 events, the hardware ones, raw events said");
	free(text);
	text = listing(&arm64_pmuv3);
	tap_ok(events_listed(text) == 13 && !strstr(text, "ref-cycles") &&
	       strstr(text, "\n  tsc                                        "
		      "        [Time-stamp counter]\n"
		      "       generic timer ticks (CNTVCT_EL0)\n") &&
	       strstr(text, "\n  branches OR branch-instructions            "
		      "        [Hardware event]\n"
		      "       branches architecturally executed\n") &&
	       strstr(text, "\n  Hardware and fault events take a modifier: "
		      ":u counts user mode,\n  :k kernel mode, :uk both.  "
		      "Raw hardware events: rNNNN, a PMUv3 event\n  number in "
		      "hexadecimal, or SEL or SEL@PMC, with PMC 31 the cycle\n"
		      "  counter.\n\n"),
	       "-l, arm64 PMUv3: 13 events, the timer, the PMUv3 events, "
	       "raw events said");
	free(text);
	text = listing(&arm64_timer);
	tap_ok(events_listed(text) == 7 &&
	       strstr(text, "       generic timer ticks (CNTVCT_EL0)\n") &&
	       strstr(text, "\n  Fault events take a modifier: "),
	       "-l, arm64 timer: the 7 events of every machine");
	free(text);
	text = listing(&amd);
	tap_ok(events_listed(text) == 13 && !strstr(text, "ref-cycles") &&
	       strstr(text, "\n  cache-misses                               "
		      "        [Hardware event]\n       L2 cache misses\n"),
	       "-l, AMD: 13 events, no ref-cycles, the L2 cache events");
	free(text);
}

int main(void)
{
	setenv("LIBPFM_FORCE_PMU", "nosuch", 1);
	test_add_events();
	test_list_word();
	test_defaults();
	test_defaults_control();
	test_mixed_control();
	test_arm64_control();
	test_values();
	test_errors();
	test_metric_names();
	test_drop_hardware();
	test_list();
	return tap_done();
}
