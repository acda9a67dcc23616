// SPDX-License-Identifier: GPL-2.0
/*
 * perfex --topdown: Intel's TopDown breakdown of the pipeline slots
 * (Ice Lake and later), as perf stat --topdown shows it.
 *
 * perfex counts the slots and the categories the CPU has, with
 * libperfctr's names (slots, topdown-retiring, ...), after the events of
 * -e; the kernel keeps each category an exact count of slots.  The
 * report shows each category's share of the slots.  Level 2, where the
 * CPU has it, splits each level 1 category into the part the CPU counts
 * and the rest, as perf's Documentation/topdown.txt does:
 *
 *	light operations	= retiring - heavy operations
 *	machine clears		= bad speculation - branch mispredicts
 *	fetch bandwidth		= frontend bound - fetch latency
 *	core bound		= backend bound - memory bound
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "topdown.h"

/* What perfex counts, in this order: the slots, then category k. */
static const char *const topdown_events[] = {
	"slots",
	"topdown-retiring", "topdown-bad-spec", "topdown-fe-bound",
	"topdown-be-bound",
	"topdown-heavy-ops", "topdown-br-mispredict", "topdown-fetch-lat",
	"topdown-mem-bound",
};

/* What the report calls the rests of level 2, after libperfctr's names. */
static const char *const rest_events[] = {
	"topdown-light-ops", "topdown-machine-clears", "topdown-fetch-bw",
	"topdown-core-bound",
};

/* The headings of the report's table, by category. */
static const char *const labels[PERFEX_TOPDOWN_MAX] = {
	"retiring", "bad speculation", "frontend bound", "backend bound",
	"heavy operations", "branch mispredicts", "fetch latency",
	"memory bound",
	"light operations", "machine clears", "fetch bandwidth",
	"core bound",
};

#define NR_LEVEL1	4
#define NR_EVENTS(level2) \
	(1 + (level2 ? PERFCTR_X86_TOPDOWN_NR : NR_LEVEL1))

/* Can @info's machine count @name?  libperfctr's rule, not perfex's. */
static int counts(const struct perfctr_info *info, const char *name)
{
	struct perfctr_event_spec spec;

	return perfctr_event_parse(&spec, name, info, NULL, 0) == 0;
}

/**
 * perfex_topdown_check - can this machine do perfex --topdown?
 * @info: the machine
 * @error: if not, why, without a prefix
 * @error_size: its size
 *
 * Return: 0, or -1 if it has no TopDown metrics.
 */
int perfex_topdown_check(const struct perfctr_info *info, char *error,
			 size_t error_size)
{
	if (counts(info, topdown_events[1]))
		return 0;
	snprintf(error, error_size, "--topdown needs Intel TopDown metrics "
		 "(PERF_METRICS, Ice Lake or later); this CPU has none");
	return -1;
}

/* Does the event of @text use the slots, so that --topdown would too? */
static int uses_slots(const char *text, const struct perfctr_info *info)
{
	struct perfctr_event_spec spec;

	if (perfctr_event_parse(&spec, text, info, NULL, 0) < 0 ||
	    spec.kind != PERFCTR_EVENT_HARDWARE ||
	    spec.pmc_map == PERFCTR_EVENT_ANY_PMC)
		return 0;
	return spec.pmc_map == (PERFCTR_MAP_X86_FIXED |
				PERFCTR_X86_FIXED_SLOTS) ||
	       (spec.pmc_map & PERFCTR_MAP_X86_METRIC);
}

/**
 * perfex_topdown_add_events - the events of --topdown, after those of -e
 * @list: the events; the slots and the categories of @info's machine,
 *        level 2 too if it has it, are added, without a modifier
 * @info: the machine
 * @error: if it fails, what is wrong, without a prefix
 * @error_size: its size
 *
 * Return: the index in @list of the slots, the categories after it; or
 * -1 with errno EINVAL and nothing added, if -e names one of them too
 * or the list is full.
 */
int perfex_topdown_add_events(struct perfex_event_list *list,
			      const struct perfctr_info *info, char *error,
			      size_t error_size)
{
	unsigned int i, first = list->nr, nr;

	for (i = 0; i < list->nr; i++) {
		if (uses_slots(list->event[i].text, info)) {
			snprintf(error, error_size, "%s: --topdown counts the "
				 "slots and the TopDown categories itself: "
				 "leave it out of -e", list->event[i].text);
			errno = EINVAL;
			return -1;
		}
	}
	nr = NR_EVENTS(counts(info, topdown_events[1 + NR_LEVEL1]));
	for (i = 0; i < nr; i++) {
		if (perfex_add_events(list, topdown_events[i], error,
				      error_size) < 0) {
			list->nr = first;
			errno = EINVAL;
			return -1;
		}
	}
	return first;
}

static unsigned long long less(unsigned long long a, unsigned long long b)
{
	return a > b ? a - b : 0;
}

/**
 * perfex_topdown_of - the TopDown breakdown of the counts
 * @td: set to it
 * @counts: those of the events perfex_topdown_add_events() added, in
 *          their order: the slots, then the categories
 * @nr: how many: 5, or 9 with level 2
 *
 * A rest of level 2 is counted if both that it is made of are, and is
 * 0 where the part is larger, as the means of -r may make it.
 */
void perfex_topdown_of(struct perfex_topdown *td,
		       const struct perfex_count *counts, unsigned int nr)
{
	const struct perfex_count *whole, *part;
	const char *mod;
	struct perfex_count *rest;
	unsigned int i;

	memset(td, 0, sizeof(*td));
	td->slots = counts[0];
	td->slots.kind = PERFEX_COUNT_PLAIN;
	for (i = 0; i + 1 < nr && i < PERFCTR_X86_TOPDOWN_NR; i++)
		td->category[i] = counts[1 + i];
	if (i < PERFCTR_X86_TOPDOWN_NR) {
		td->nr = NR_LEVEL1;
		return;
	}
	td->nr = PERFEX_TOPDOWN_MAX;
	mod = strchr(counts[0].name, ':');
	for (i = 0; i < NR_LEVEL1; i++) {
		whole = &td->category[i];
		part = &td->category[NR_LEVEL1 + i];
		rest = &td->category[2 * NR_LEVEL1 + i];
		snprintf(td->rest_name[i], sizeof(td->rest_name[i]), "%s%s",
			 rest_events[i], mod ? mod : "");
		rest->name = td->rest_name[i];
		rest->kind = PERFEX_COUNT_EVENTS;
		rest->not_counted = whole->not_counted || part->not_counted;
		rest->value = less(whole->value, part->value);
		rest->children = less(whole->children, part->children);
	}
}

/**
 * perfex_topdown_label - what the report's table calls category @i
 * @i: below PERFEX_TOPDOWN_MAX
 *
 * Return: "retiring", "bad speculation", ..., at most 20 characters.
 */
const char *perfex_topdown_label(unsigned int i)
{
	return i < PERFEX_TOPDOWN_MAX ? labels[i] : "";
}

static unsigned long long part_of(const struct perfex_count *count,
				  enum perfex_topdown_part part)
{
	switch (part) {
	case PERFEX_TOPDOWN_SELF:
		return count->value;
	case PERFEX_TOPDOWN_CHILDREN:
		return count->children;
	case PERFEX_TOPDOWN_TOTAL:
		break;
	}
	return perfex_count_total(count);
}

/**
 * perfex_topdown_share - category @i's share of the slots
 * @td: the breakdown
 * @i: the category, below td->nr
 * @part: of the command's own thread, of its children, or of both
 * @metric: the share in percent, as a figure of the report: "30.0%"
 *          and the category's name, "retiring"
 *
 * Return: 0 with @metric set, or -1 if the category or the slots were
 * not counted, or no slot was.
 */
int perfex_topdown_share(const struct perfex_topdown *td, unsigned int i,
			 enum perfex_topdown_part part,
			 struct perfex_metric *metric)
{
	if (i >= td->nr || td->category[i].not_counted ||
	    td->slots.not_counted)
		return -1;
	return perfex_metric_ratio(metric,
				   100.0 * part_of(&td->category[i], part),
				   part_of(&td->slots, part), "%.1f%%",
				   labels[i]);
}

/**
 * perfex_topdown_line - line @i of the CSV and JSON forms
 * @counts: the counts of the report or interval
 * @nr: how many
 * @td: their TopDown breakdown, or NULL
 * @i: the line: count @i, then with @td the slots and each category
 * @wall_ns: the elapsed time they were counted in
 * @metric: set to the line's figure, if it has one: a count's as
 *          perfex_metric_of() has it, a category's share of the slots
 * @has_metric: set to 1 if it has, 0 if not
 *
 * Return: the count of line @i, or NULL past the last line.
 */
const struct perfex_count *
perfex_topdown_line(const struct perfex_count *counts, unsigned int nr,
		    const struct perfex_topdown *td, unsigned int i,
		    unsigned long long wall_ns, struct perfex_metric *metric,
		    int *has_metric)
{
	if (i < nr) {
		*has_metric = !counts[i].not_counted &&
			      perfex_metric_of(counts, nr, i, wall_ns,
					       metric) == 0;
		return &counts[i];
	}
	if (!td || i - nr > td->nr)
		return NULL;
	if (i == nr) {
		*has_metric = 0;
		return &td->slots;
	}
	i -= nr + 1;
	*has_metric = perfex_topdown_share(td, i, PERFEX_TOPDOWN_TOTAL,
					   metric) == 0;
	return &td->category[i];
}
