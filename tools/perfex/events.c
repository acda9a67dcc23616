// SPDX-License-Identifier: GPL-2.0
/*
 * The events perfex counts: their names on the command line (-e), the
 * control that counts them, and where their values are in the sums.
 *
 *	tsc                          the time-stamp counter
 *	task-clock                   ns on a CPU
 *	context-switches, cs         times switched out
 *	cpu-migrations, migrations   times resumed on another CPU
 *	page-faults, faults          minor + major faults
 *	minor-faults, major-faults
 *
 * The fault events take a modifier, as in perf: ":u" counts faults of
 * user-mode accesses, ":k" those of kernel accesses to user memory, ":uk"
 * both.  Without one they count both, and fall back to ":u" when the
 * kernel refuses kernel mode (EACCES) to an unprivileged user.
 */
#include <stdio.h>
#include <string.h>

#include "events.h"

struct event_name {
	const char *name;
	unsigned int type;
};

static const struct event_name event_names[] = {
	{ "tsc",		PERFEX_EVENT_TSC },
	{ "task-clock",		PERFCTR_SW_TASK_CLOCK },
	{ "context-switches",	PERFCTR_SW_CONTEXT_SWITCHES },
	{ "cs",			PERFCTR_SW_CONTEXT_SWITCHES },
	{ "cpu-migrations",	PERFCTR_SW_CPU_MIGRATIONS },
	{ "migrations",		PERFCTR_SW_CPU_MIGRATIONS },
	{ "page-faults",	PERFCTR_SW_PAGE_FAULTS },
	{ "faults",		PERFCTR_SW_PAGE_FAULTS },
	{ "minor-faults",	PERFCTR_SW_MINOR_FAULTS },
	{ "major-faults",	PERFCTR_SW_MAJOR_FAULTS },
};

static const char *const default_events[] = {
	"task-clock", "context-switches", "cpu-migrations", "page-faults",
	"tsc",
};

static int is_fault_event(unsigned int type)
{
	return type == PERFCTR_SW_PAGE_FAULTS ||
	       type == PERFCTR_SW_MINOR_FAULTS ||
	       type == PERFCTR_SW_MAJOR_FAULTS;
}

/* The modes a modifier ("u", "k", "uk" or "ku") selects; 0 if invalid. */
static unsigned int modifier_modes(const char *mod, size_t len)
{
	unsigned int modes = 0, bit;
	size_t i;

	for (i = 0; i < len; i++) {
		if (mod[i] == 'u')
			bit = PERFCTR_SW_USR;
		else if (mod[i] == 'k')
			bit = PERFCTR_SW_OS;
		else
			return 0;
		if (modes & bit)
			return 0;
		modes |= bit;
	}
	return modes;
}

/* One event, @len characters at @spec, into @event. */
static int parse_event(const char *spec, size_t len,
		       struct perfex_event *event, char *error,
		       size_t error_size)
{
	const char *colon = memchr(spec, ':', len);
	size_t name_len = colon ? (size_t)(colon - spec) : len;
	const struct event_name *known = NULL;
	size_t i;

	if (len == 0) {
		snprintf(error, error_size, "empty event name");
		return -1;
	}
	for (i = 0; i < sizeof(event_names) / sizeof(event_names[0]); i++) {
		if (strlen(event_names[i].name) == name_len &&
		    strncmp(event_names[i].name, spec, name_len) == 0)
			known = &event_names[i];
	}
	if (!known || len >= sizeof(event->name)) {
		snprintf(error, error_size, "unknown event '%.*s'", (int)len,
			 spec);
		return -1;
	}

	memset(event, 0, sizeof(*event));
	memcpy(event->name, spec, len);
	event->type = known->type;
	event->counter = -1;
	if (!is_fault_event(known->type)) {
		if (colon) {
			snprintf(error, error_size, "event '%.*s' takes no "
				 "modifier: only the fault events take :u, :k "
				 "or :uk", (int)name_len, spec);
			return -1;
		}
		return 0;
	}
	if (!colon) {
		event->modes = PERFCTR_SW_USR | PERFCTR_SW_OS;
		event->implicit_modes = 1;
		return 0;
	}
	event->modes = modifier_modes(colon + 1, len - name_len - 1);
	if (!event->modes) {
		snprintf(error, error_size, "unknown modifier in event '%.*s': "
			 "use :u, :k or :uk", (int)len, spec);
		return -1;
	}
	return 0;
}

/**
 * perfex_add_events - add the events of an -e argument to a list
 * @list: the events so far
 * @spec: one or more events, separated by commas
 * @error: if it fails, what was wrong, without a prefix
 * @error_size: its size
 *
 * Return: 0, or -1 with nothing added.
 */
int perfex_add_events(struct perfex_event_list *list, const char *spec,
		      char *error, size_t error_size)
{
	unsigned int nr = list->nr;
	const char *p = spec, *comma;
	size_t len;

	for (;;) {
		comma = strchr(p, ',');
		len = comma ? (size_t)(comma - p) : strlen(p);
		if (nr >= PERFEX_MAX_EVENTS) {
			snprintf(error, error_size,
				 "too many events (at most %d)",
				 PERFEX_MAX_EVENTS);
			return -1;
		}
		if (parse_event(p, len, &list->event[nr], error,
				error_size) < 0)
			return -1;
		nr++;
		if (!comma)
			break;
		p = comma + 1;
	}
	list->nr = nr;
	return 0;
}

/**
 * perfex_default_events - what perfex counts without -e
 * @list: set to task-clock, context-switches, cpu-migrations,
 *        page-faults (user and kernel mode, or user mode only for an
 *        unprivileged user) and tsc
 */
void perfex_default_events(struct perfex_event_list *list)
{
	char error[64];
	unsigned int i;

	list->nr = 0;
	for (i = 0; i < sizeof(default_events) / sizeof(default_events[0]);
	     i++)
		perfex_add_events(list, default_events[i], error,
				  sizeof(error));
}

/**
 * perfex_build_control - the control that counts a list of events
 * @list: the events; their counter fields are set
 * @control: set to count them
 * @fallback: set to the same, with the fault events that have no
 *            modifier counting user mode only
 *
 * Return: 1 if @fallback differs from @control, 0 if it does not, -1
 * with errno set if the events do not fit one control.
 */
int perfex_build_control(struct perfex_event_list *list,
			 struct vperfctr_control *control,
			 struct vperfctr_control *fallback)
{
	struct perfex_event *event;
	int differs = 0, counter;
	unsigned int i;

	memset(control, 0, sizeof(*control));
	memset(fallback, 0, sizeof(*fallback));
	for (i = 0; i < list->nr; i++) {
		event = &list->event[i];
		event->counter = -1;
		if (event->type == PERFEX_EVENT_TSC) {
			control->cpu_control.tsc_on = 1;
			fallback->cpu_control.tsc_on = 1;
			continue;
		}
		counter = vperfctr_control_add_sw(control, event->type,
						  event->modes);
		if (counter < 0 ||
		    vperfctr_control_add_sw(fallback, event->type,
					    event->implicit_modes ?
					    PERFCTR_SW_USR : event->modes) < 0)
			return -1;
		event->counter = counter;
		differs |= event->implicit_modes;
	}
	return differs;
}

/**
 * perfex_events_fall_back - the fallback control was used: say so
 * @list: the events; those without a modifier now count user mode only,
 *        and their names end in ":u", as perf names them
 */
void perfex_events_fall_back(struct perfex_event_list *list)
{
	struct perfex_event *event;
	unsigned int i;
	size_t len;

	for (i = 0; i < list->nr; i++) {
		event = &list->event[i];
		if (!event->implicit_modes)
			continue;
		event->modes = PERFCTR_SW_USR;
		event->implicit_modes = 0;
		len = strlen(event->name);
		if (len + 3 <= sizeof(event->name))
			memcpy(event->name + len, ":u", 3);
	}
}

/* How the report shows an event. */
enum perfex_count_kind perfex_event_kind(const struct perfex_event *event)
{
	if (event->type == PERFEX_EVENT_TSC)
		return PERFEX_COUNT_PLAIN;
	if (event->type == PERFCTR_SW_TASK_CLOCK)
		return PERFEX_COUNT_TASK_CLOCK;
	return PERFEX_COUNT_EVENTS;
}

/* The event's value in @sum. */
unsigned long long perfex_event_value(const struct perfex_event *event,
				      const struct perfctr_sum_ctrs *sum)
{
	if (event->counter < 0)
		return sum->tsc;
	return sum->pmc[event->counter];
}
