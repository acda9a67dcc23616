// SPDX-License-Identifier: GPL-2.0
/*
 * The events perfex counts: the names of -e, kept as written until the
 * machine is known, then parsed and given counters by libperfctr
 * (<perfctr/events.h>), which knows the events of each machine and says
 * what is wrong with a name.  What is perfex's own is here:
 *
 *  - the defaults, those of perf stat: task-clock, context-switches,
 *    cpu-migrations and page-faults, then cycles, instructions, branches
 *    and branch-misses, as many of those as this machine's hardware
 *    counters hold, and the TSC last;
 *  - the fallback: an event counting user and kernel mode because it
 *    has no modifier is counted in user mode, and named with ":u", if
 *    the kernel refuses kernel mode (EACCES) to an unprivileged user, as
 *    perf does;
 *  - the listing of -l.
 *
 * The report names each event as libperfctr does (perfctr_event_spec's
 * name): aliases resolved ("cs" is context-switches), the modifier as
 * ":u", ":k" or ":uk".  These are the names metrics.c knows.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "events.h"
#include "native.h"

/* The OS bit of an x86 selector, and PERFCTR_SW_OS of a fault event. */
#define KERNEL_MODE	PERFCTR_SW_OS

static const char *const software_defaults[] = {
	"task-clock", "context-switches", "cpu-migrations", "page-faults",
};

/* perf stat's, in its order. */
static const char *const hardware_defaults[] = {
	"cycles", "instructions", "branches", "branch-misses",
};

/* Add @len characters at @text as an event; 0, or -1 with a message. */
static int add_text(struct perfex_event_list *list, const char *text,
		    size_t len, char *error, size_t error_size)
{
	struct perfex_event *event;

	if (len == 0) {
		snprintf(error, error_size, "empty event name");
		return -1;
	}
	if (len >= sizeof(event->text)) {
		snprintf(error, error_size, "%.20s...: event name too long "
			 "(at most %zu characters)", text,
			 sizeof(event->text) - 1);
		return -1;
	}
	if (list->nr >= PERFEX_MAX_EVENTS) {
		snprintf(error, error_size, "too many events (at most %d)",
			 PERFEX_MAX_EVENTS);
		return -1;
	}
	event = &list->event[list->nr++];
	memset(event, 0, sizeof(*event));
	memcpy(event->text, text, len);
	return 0;
}

/**
 * perfex_add_events - add the events of an -e argument to a list
 * @list: the events so far
 * @spec: one or more events, separated by commas, as written; they are
 *        parsed by perfex_build_control(), once the machine is known
 * @error: if it fails, what was wrong, without a prefix
 * @error_size: its size
 *
 * Return: 0, or -1 with nothing added (an empty name, one too long, or
 * too many events).
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
		if (add_text(list, p, len, error, error_size) < 0) {
			list->nr = nr;
			return -1;
		}
		if (!comma)
			return 0;
		p = comma + 1;
	}
}

static void add_default(struct perfex_event_list *list, const char *name)
{
	char error[64];

	add_text(list, name, strlen(name), error, sizeof(error));
}

/**
 * perfex_default_events - what perfex counts without -e
 * @list: set to task-clock, context-switches, cpu-migrations,
 *        page-faults, the hardware events of perf stat that fit in the
 *        counters of @info (cycles, instructions, branches, branch-misses,
 *        in that order), and tsc
 * @info: the machine, or NULL if it is not known: no hardware events
 */
void perfex_default_events(struct perfex_event_list *list,
			   const struct perfctr_info *info)
{
	struct perfctr_event_spec spec;
	struct vperfctr_control trial;
	unsigned int i;

	list->nr = 0;
	memset(&trial, 0, sizeof(trial));
	for (i = 0; i < sizeof(software_defaults) / sizeof(*software_defaults);
	     i++) {
		add_default(list, software_defaults[i]);
		if (info &&
		    perfctr_event_parse(&spec, software_defaults[i], info,
					NULL, 0) == 0)
			perfctr_event_add(&trial, &spec, info, NULL, 0);
	}
	for (i = 0; info &&
	     i < sizeof(hardware_defaults) / sizeof(*hardware_defaults); i++) {
		if (perfctr_event_parse(&spec, hardware_defaults[i], info,
					NULL, 0) == 0 &&
		    perfctr_event_add(&trial, &spec, info, NULL, 0) >= 0)
			add_default(list, hardware_defaults[i]);
	}
	add_default(list, "tsc");
}

/* @event in user mode, into event->user_mode: 1 if it differs, 0, -1. */
static int user_mode_of(struct perfex_event *event,
			const struct perfctr_info *info, char *error,
			size_t error_size)
{
	char text[PERFEX_EVENT_TEXT_SIZE + 2];

	event->user_mode = event->spec;
	if (!event->spec.implicit_modes)
		return 0;
	/* The text, not the name: a long native name is shortened. */
	snprintf(text, sizeof(text), "%s:u", event->text);
	if (perfctr_event_parse(&event->user_mode, text, info, error,
				error_size) < 0)
		return -1;
	return 1;
}

/**
 * perfex_build_control - parse the events, and the control counting them
 * @list: the events; their spec, user_mode and index are set
 * @info: the machine
 * @control: set to count them
 * @fallback: set to the same, with the events that have no modifier
 *            (spec.implicit_modes) counting user mode only
 * @error: if it fails, libperfctr's message, which names the event
 * @error_size: its size
 * @bad: if it fails, the index in @list of the event at fault
 *
 * Return: 1 if @fallback differs from @control, 0 if it does not, -1
 * with errno set as libperfctr sets it: EINVAL (not an event, or one the
 * counters cannot be set up for), EOPNOTSUPP (one this machine cannot
 * count) or ENOSPC (no counter left for it).
 */
int perfex_build_control(struct perfex_event_list *list,
			 const struct perfctr_info *info,
			 struct vperfctr_control *control,
			 struct vperfctr_control *fallback,
			 char *error, size_t error_size, unsigned int *bad)
{
	struct perfex_event *event;
	int differs = 0, ret, index;
	unsigned int i;

	memset(control, 0, sizeof(*control));
	memset(fallback, 0, sizeof(*fallback));
	for (i = 0; i < list->nr; i++) {
		event = &list->event[i];
		*bad = i;
		if (perfctr_event_parse(&event->spec, event->text, info, error,
					error_size) < 0)
			return -1;
		ret = user_mode_of(event, info, error, error_size);
		if (ret < 0)
			return -1;
		differs |= ret;
		event->index = perfctr_event_add(control, &event->spec, info,
						 error, error_size);
		if (event->index < 0)
			return -1;
		index = perfctr_event_add(fallback, &event->user_mode, info,
					  error, error_size);
		if (index < 0)
			return -1;
		/* The modes choose no counter: both go on the same one. */
		if (index != event->index) {
			snprintf(error, error_size, "%s: counted on counter "
				 "%d, and on %d in user mode",
				 event->spec.name, event->index, index);
			errno = EINVAL;
			return -1;
		}
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
	unsigned int i;

	for (i = 0; i < list->nr; i++)
		list->event[i].spec = list->event[i].user_mode;
}

/**
 * perfex_events_drop_hardware - take the hardware events off a list
 * @list: the events, in their order; rebuild the control after
 *
 * Return: how many there were.
 */
unsigned int perfex_events_drop_hardware(struct perfex_event_list *list)
{
	unsigned int i, kept = 0, dropped;

	for (i = 0; i < list->nr; i++) {
		if (list->event[i].spec.kind == PERFCTR_EVENT_HARDWARE)
			continue;
		if (kept != i)
			list->event[kept] = list->event[i];
		kept++;
	}
	dropped = list->nr - kept;
	list->nr = kept;
	return dropped;
}

/*
 * Does @spec count kernel mode?  An arm64 hardware selector says so by
 * not excluding EL1; the others, x86 selectors and fault events, by
 * their OS bit.
 */
static int counts_kernel_mode(const struct perfctr_event_spec *spec,
			      const struct perfctr_info *info)
{
	if (spec->kind == PERFCTR_EVENT_TSC)
		return 0;
	if (spec->kind == PERFCTR_EVENT_HARDWARE &&
	    (info->cpu_type == PERFCTR_ARM64_PMUV3 ||
	     info->cpu_type == PERFCTR_ARM64_GENERIC))
		return !(spec->evntsel & PERFCTR_ARM64_EXCLUDE_EL1);
	return (spec->evntsel & KERNEL_MODE) != 0;
}

/**
 * perfex_kernel_mode_event - the event that asked for kernel mode
 * @list: the events, parsed
 * @info: the machine they were parsed for
 *
 * Return: the name of the first event that counts kernel mode because
 * its modifier (or its raw selector) says so, or "an event".
 */
const char *perfex_kernel_mode_event(const struct perfex_event_list *list,
				     const struct perfctr_info *info)
{
	const struct perfctr_event_spec *spec;
	unsigned int i;

	for (i = 0; i < list->nr; i++) {
		spec = &list->event[i].spec;
		if (counts_kernel_mode(spec, info) && !spec->implicit_modes)
			return spec->name;
	}
	return "an event";
}

/* How the report shows an event. */
enum perfex_count_kind perfex_event_kind(const struct perfex_event *event)
{
	if (event->spec.kind == PERFCTR_EVENT_TSC)
		return PERFEX_COUNT_PLAIN;
	if (event->spec.kind == PERFCTR_EVENT_SOFTWARE &&
	    event->spec.pmc_map ==
	    (PERFCTR_MAP_SOFTWARE | PERFCTR_SW_TASK_CLOCK))
		return PERFEX_COUNT_TASK_CLOCK;
	return PERFEX_COUNT_EVENTS;
}

/* The event's value in @sum. */
unsigned long long perfex_event_value(const struct perfex_event *event,
				      const struct perfctr_sum_ctrs *sum)
{
	return perfctr_event_value(sum, event->index);
}

/**
 * perfex_event_count - an event's line of a report, from sums
 * @event: the event
 * @sum: sums of the counters of the control it was built into, in the
 *       control's order: a final read's, or a region's
 * @count: set to the event's name, kind and value in @sum, the rest 0
 */
void perfex_event_count(const struct perfex_event *event,
			const struct perfctr_sum_ctrs *sum,
			struct perfex_count *count)
{
	memset(count, 0, sizeof(*count));
	count->name = event->spec.name;
	count->kind = perfex_event_kind(event);
	count->value = perfex_event_value(event, sum);
}

/**
 * perfex_assumed_machine - the machine perfex assumes when it cannot
 *                          read this one's description
 * @info: set to one with the TSC only (on arm64, the generic timer),
 *        which every machine has, and which counts the software events
 */
void perfex_assumed_machine(struct perfctr_info *info)
{
	memset(info, 0, sizeof(*info));
	info->abi_version = PERFCTR_ABI_VERSION;
#if defined(__aarch64__)
	info->cpu_type = PERFCTR_ARM64_GENERIC;
#else
	info->cpu_type = PERFCTR_X86_GENERIC;
#endif
	info->cpu_features = PERFCTR_FEATURE_RDTSC;
}

static const char *kind_name(enum perfctr_event_kind kind)
{
	switch (kind) {
	case PERFCTR_EVENT_TSC:
		return "Time-stamp counter";
	case PERFCTR_EVENT_SOFTWARE:
		return "Software event";
	case PERFCTR_EVENT_HARDWARE:
		return "Hardware event";
	}
	return "Event";
}

/**
 * perfex_list_events - perfex -l: the named events of a machine
 * @out: where to
 * @info: the machine
 * @word: only the events whose name or alias holds it; NULL: all
 *
 * As perf list has them, a line each, with libperfctr's description
 * under it:
 *
 *	  context-switches OR cs                             [Software event]
 *	       times switched out
 *
 * then how to write a modifier, and on a machine with hardware counters
 * a raw event: an x86 event selector, or an arm64 event number.
 */
void perfex_list_events(FILE *out, const struct perfctr_info *info,
			const char *word)
{
	const struct perfctr_event_desc *desc;
	char names[2 * PERFCTR_EVENT_NAME_SIZE];
	int hardware = 0;
	unsigned int i;

	fprintf(out, "\nList of pre-defined events (to be used in -e):\n\n");
	for (i = 0; (desc = perfctr_event_list(info, i)); i++) {
		if (!perfex_name_holds(desc->name, word) &&
		    !(desc->alias && perfex_name_holds(desc->alias, word)))
			continue;
		snprintf(names, sizeof(names), "%s%s%s", desc->name,
			 desc->alias ? " OR " : "",
			 desc->alias ? desc->alias : "");
		fprintf(out, "  %-50s [%s]\n", names, kind_name(desc->kind));
		fprintf(out, "       %s\n", desc->description);
		hardware |= desc->kind == PERFCTR_EVENT_HARDWARE;
	}
	fprintf(out, "\n");
	if (word)
		return;
	if (hardware && info->cpu_type == PERFCTR_ARM64_PMUV3)
		fprintf(out,
			"  Hardware and fault events take a modifier: "
			":u counts user mode,\n"
			"  :k kernel mode, :uk both.  Raw hardware events: "
			"rNNNN, a PMUv3 event\n"
			"  number in hexadecimal, or SEL or SEL@PMC, with "
			"PMC 31 the cycle\n"
			"  counter.\n\n");
	else if (hardware)
		fprintf(out,
			"  Hardware and fault events take a modifier: "
			":u counts user mode,\n"
			"  :k kernel mode, :uk both.  Raw hardware events: "
			"rNNNN, an event\n"
			"  selector in hexadecimal, or perfctr 2.7's SEL or "
			"SEL@PMC.\n\n");
	else
		fprintf(out,
			"  Fault events take a modifier: :u counts user mode, "
			":k kernel\n"
			"  mode, :uk both.\n\n");
}
