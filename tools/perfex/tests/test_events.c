// SPDX-License-Identifier: GPL-2.0
/*
 * perfex's event names, and the controls that count them.
 */
#include <string.h>

#include "events.h"
#include "tap.h"

#define SW(event)	(PERFCTR_MAP_SOFTWARE | PERFCTR_SW_##event)
#define BOTH		(PERFCTR_SW_USR | PERFCTR_SW_OS)

static struct perfex_event_list list;
static char error[128];

static int add(const char *spec)
{
	error[0] = '\0';
	return perfex_add_events(&list, spec, error, sizeof(error));
}

/* @spec alone is event @type with @modes, shown as @spec. */
static void one(const char *spec, unsigned int type, unsigned int modes,
		int implicit)
{
	const struct perfex_event *event = &list.event[0];

	list.nr = 0;
	tap_ok(add(spec) == 0 && list.nr == 1 && event->type == type &&
	       event->modes == modes && event->implicit_modes == implicit &&
	       strcmp(event->name, spec) == 0, "event '%s'", spec);
}

static void test_names(void)
{
	one("tsc", PERFEX_EVENT_TSC, 0, 0);
	one("task-clock", PERFCTR_SW_TASK_CLOCK, 0, 0);
	one("context-switches", PERFCTR_SW_CONTEXT_SWITCHES, 0, 0);
	one("cs", PERFCTR_SW_CONTEXT_SWITCHES, 0, 0);
	one("cpu-migrations", PERFCTR_SW_CPU_MIGRATIONS, 0, 0);
	one("migrations", PERFCTR_SW_CPU_MIGRATIONS, 0, 0);
	one("page-faults", PERFCTR_SW_PAGE_FAULTS, BOTH, 1);
	one("faults", PERFCTR_SW_PAGE_FAULTS, BOTH, 1);
	one("minor-faults", PERFCTR_SW_MINOR_FAULTS, BOTH, 1);
	one("major-faults", PERFCTR_SW_MAJOR_FAULTS, BOTH, 1);
	one("page-faults:u", PERFCTR_SW_PAGE_FAULTS, PERFCTR_SW_USR, 0);
	one("page-faults:k", PERFCTR_SW_PAGE_FAULTS, PERFCTR_SW_OS, 0);
	one("page-faults:uk", PERFCTR_SW_PAGE_FAULTS, BOTH, 0);
	one("faults:ku", PERFCTR_SW_PAGE_FAULTS, BOTH, 0);
	one("minor-faults:k", PERFCTR_SW_MINOR_FAULTS, PERFCTR_SW_OS, 0);
	one("major-faults:u", PERFCTR_SW_MAJOR_FAULTS, PERFCTR_SW_USR, 0);
}

/* @spec is refused with @message, and the list is left alone. */
static void bad(const char *spec, const char *message)
{
	list.nr = 1;
	tap_ok(add(spec) == -1 && list.nr == 1, "refused: '%s'", spec);
	tap_is_str(error, message, "refused: '%s': message", spec);
}

static void test_errors(void)
{
	bad("cycles", "unknown event 'cycles'");
	bad("TSC", "unknown event 'TSC'");
	bad("page-fault", "unknown event 'page-fault'");
	bad("tsc,bogus", "unknown event 'bogus'");
	bad("bogus:u", "unknown event 'bogus:u'");
	bad("", "empty event name");
	bad("tsc,,cs", "empty event name");
	bad("tsc,", "empty event name");
	bad("task-clock:u", "event 'task-clock' takes no modifier: only the "
	    "fault events take :u, :k or :uk");
	bad("page-faults:", "unknown modifier in event 'page-faults:': use "
	    ":u, :k or :uk");
	bad("page-faults:x", "unknown modifier in event 'page-faults:x': use "
	    ":u, :k or :uk");
	bad("page-faults:uu", "unknown modifier in event 'page-faults:uu': "
	    "use :u, :k or :uk");
	bad("page-faults:u:k", "unknown modifier in event 'page-faults:u:k': "
	    "use :u, :k or :uk");
	bad("page-faults:uuuuuuuuuuuuuuuuuuuuuuuuuuuuuu",
	    "unknown event 'page-faults:uuuuuuuuuuuuuuuuuuuuuuuuuuuuuu'");
}

static void test_list(void)
{
	unsigned int i;

	list.nr = 0;
	tap_ok(add("tsc,cs") == 0 && add("faults:u") == 0 && list.nr == 3 &&
	       !strcmp(list.event[0].name, "tsc") &&
	       !strcmp(list.event[1].name, "cs") &&
	       !strcmp(list.event[2].name, "faults:u"),
	       "a list, then one more: three events in order");

	list.nr = 0;
	for (i = 0; i < PERFEX_MAX_EVENTS; i++)
		add("cs");
	tap_is_int(list.nr, PERFEX_MAX_EVENTS, "up to %d events",
		   PERFEX_MAX_EVENTS);
	tap_ok(add("tsc") == -1 && list.nr == PERFEX_MAX_EVENTS,
	       "one more is refused");
	tap_is_str(error, "too many events (at most 32)", "too many: message");

	list.nr = PERFEX_MAX_EVENTS - 1;
	tap_ok(add("tsc,tsc") == -1 && list.nr == PERFEX_MAX_EVENTS - 1,
	       "a list that does not fit adds nothing");
}

static void test_defaults(void)
{
	static const char *const names[] = {
		"task-clock", "context-switches", "cpu-migrations",
		"page-faults", "tsc",
	};
	unsigned int i;
	int same = 1;

	perfex_default_events(&list);
	for (i = 0; i < 5 && list.nr == 5; i++)
		same &= !strcmp(list.event[i].name, names[i]);
	tap_ok(list.nr == 5 && same, "defaults: task-clock, context-switches, "
	       "cpu-migrations, page-faults, tsc");
	tap_ok(list.event[3].modes == BOTH && list.event[3].implicit_modes,
	       "defaults: page-faults in both modes, may fall back");
}

static void test_control(void)
{
	struct vperfctr_control control, fallback;
	const struct perfctr_cpu_control *c = &control.cpu_control;
	const struct perfctr_cpu_control *f = &fallback.cpu_control;
	struct perfctr_sum_ctrs sum;

	perfex_default_events(&list);
	tap_is_int(perfex_build_control(&list, &control, &fallback), 1,
		   "defaults: a fallback control");
	tap_ok(c->tsc_on == 1 && c->nractrs == 4 && c->nrictrs == 0 &&
	       c->pmc_map[0] == SW(TASK_CLOCK) &&
	       c->pmc_map[1] == SW(CONTEXT_SWITCHES) &&
	       c->pmc_map[2] == SW(CPU_MIGRATIONS) &&
	       c->pmc_map[3] == SW(PAGE_FAULTS) &&
	       c->evntsel[0] == 0 && c->evntsel[3] == BOTH &&
	       control.si_signo == 0 && control.preserve == 0,
	       "defaults: TSC and four a-mode software counters");
	tap_ok(f->tsc_on == 1 && f->nractrs == 4 &&
	       f->pmc_map[3] == SW(PAGE_FAULTS) &&
	       f->evntsel[3] == PERFCTR_SW_USR &&
	       !memcmp(f->pmc_map, c->pmc_map, sizeof(c->pmc_map)),
	       "defaults: the fallback counts page faults in user mode only");
	tap_ok(list.event[0].counter == 0 && list.event[3].counter == 3 &&
	       list.event[4].counter == -1, "defaults: counter indices");

	memset(&sum, 0, sizeof(sum));
	sum.tsc = 1000;
	sum.pmc[3] = 44;
	tap_ok(perfex_event_value(&list.event[4], &sum) == 1000 &&
	       perfex_event_value(&list.event[3], &sum) == 44,
	       "values: tsc from sum.tsc, others from their counter");
	tap_ok(perfex_event_kind(&list.event[0]) == PERFEX_COUNT_TASK_CLOCK &&
	       perfex_event_kind(&list.event[1]) == PERFEX_COUNT_EVENTS &&
	       perfex_event_kind(&list.event[3]) == PERFEX_COUNT_EVENTS &&
	       perfex_event_kind(&list.event[4]) == PERFEX_COUNT_PLAIN,
	       "kinds: task-clock, events, plain");

	perfex_events_fall_back(&list);
	tap_ok(!strcmp(list.event[3].name, "page-faults:u") &&
	       list.event[3].modes == PERFCTR_SW_USR &&
	       !strcmp(list.event[0].name, "task-clock") &&
	       !strcmp(list.event[4].name, "tsc"),
	       "fall back: page-faults becomes page-faults:u, others stay");

	list.nr = 0;
	add("page-faults:k,faults:u,tsc");
	tap_is_int(perfex_build_control(&list, &control, &fallback), 0,
		   "explicit modifiers: no fallback");
	tap_ok(c->nractrs == 2 && c->evntsel[0] == PERFCTR_SW_OS &&
	       c->evntsel[1] == PERFCTR_SW_USR && c->tsc_on == 1,
	       "explicit modifiers: as given");

	list.nr = 0;
	add("cs");
	tap_ok(perfex_build_control(&list, &control, &fallback) == 0 &&
	       c->tsc_on == 0 && c->nractrs == 1,
	       "no tsc asked for: TSC off");
}

int main(void)
{
	test_names();
	test_errors();
	test_list();
	test_defaults();
	test_control();
	return tap_done();
}
