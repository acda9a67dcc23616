// SPDX-License-Identifier: GPL-2.0
/*
 * perfex --topdown on made-up machines: whether the machine has the
 * metrics, the events it counts, and the breakdown of their counts into
 * shares of the slots.  The layout of the report is test_format's, its
 * forms for machines test_machine's.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "machines.h"
#include "tap.h"
#include "topdown.h"

#define COUNT(n, v, c) \
	{ .name = (n), .value = (v), .children = (c), \
	  .kind = PERFEX_COUNT_EVENTS }

static struct perfex_event_list list;
static char error[PERFCTR_EVENT_ERROR_SIZE + 64];

/* The texts of the list, blank-separated. */
static const char *joined(void)
{
	static char buf[512];
	size_t len = 0;
	unsigned int i;

	buf[0] = '\0';
	for (i = 0; i < list.nr; i++)
		len += snprintf(buf + len, sizeof(buf) - len, "%s%s",
				i ? " " : "", list.event[i].text);
	return buf;
}

static void test_check(void)
{
	static const struct {
		const struct perfctr_info *info;
		const char *machine;
	} without[] = {
		{ &intel, "Intel, 3 fixed" },
		{ &amd, "AMD" },
		{ &tsc_only, "TSC only" },
		{ &arm64_pmuv3, "arm64 PMUv3" },
		{ &arm64_timer, "arm64 timer" },
	};
	struct perfctr_info no_feature = icelake;
	unsigned int i;

	tap_ok(perfex_topdown_check(&icelake, error, sizeof(error)) == 0 &&
	       perfex_topdown_check(&sapphire_rapids, error,
				    sizeof(error)) == 0,
	       "check: Ice Lake and Sapphire Rapids have the metrics");
	for (i = 0; i < sizeof(without) / sizeof(without[0]); i++) {
		error[0] = '\0';
		tap_ok(perfex_topdown_check(without[i].info, error,
					    sizeof(error)) == -1,
		       "check: %s has none", without[i].machine);
		tap_is_str(error, "--topdown needs Intel TopDown metrics "
			   "(PERF_METRICS, Ice Lake or later); this CPU has "
			   "none", "check: %s: said plainly",
			   without[i].machine);
	}
	no_feature.cpu_features &= ~PERFCTR_FEATURE_TOPDOWN;
	tap_is_int(perfex_topdown_check(&no_feature, error, sizeof(error)), -1,
		   "check: fixed counter 3 without PERF_METRICS: none");
}

static void test_add_events(void)
{
	int first;

	list.nr = 0;
	perfex_add_events(&list, "instructions:u,task-clock", error,
			  sizeof(error));
	first = perfex_topdown_add_events(&list, &icelake, error,
					  sizeof(error));
	tap_is_int(first, 2, "events: after those of -e");
	tap_is_str(joined(), "instructions:u task-clock slots "
		   "topdown-retiring topdown-bad-spec topdown-fe-bound "
		   "topdown-be-bound", "events: Ice Lake: the slots, then "
		   "level 1, no modifier");

	list.nr = 0;
	first = perfex_topdown_add_events(&list, &sapphire_rapids, error,
					  sizeof(error));
	tap_is_int(first, 0, "events: alone, from 0");
	tap_is_str(joined(), "slots topdown-retiring topdown-bad-spec "
		   "topdown-fe-bound topdown-be-bound topdown-heavy-ops "
		   "topdown-br-mispredict topdown-fetch-lat topdown-mem-bound",
		   "events: Sapphire Rapids: level 2 too");

	/* What -e counts on the slots, --topdown would count again. */
	list.nr = 0;
	perfex_add_events(&list, "cycles,topdown-retiring:u", error,
			  sizeof(error));
	errno = 0;
	first = perfex_topdown_add_events(&list, &icelake, error,
					  sizeof(error));
	tap_ok(first == -1 && errno == EINVAL && list.nr == 2,
	       "events: -e topdown-retiring:u: EINVAL, nothing added");
	tap_is_str(error, "topdown-retiring:u: --topdown counts the slots and "
		   "the TopDown categories itself: leave it out of -e",
		   "events: -e topdown-retiring:u: which, and what to do");
	list.nr = 0;
	perfex_add_events(&list, "0x10000@0x40000003", error, sizeof(error));
	tap_is_int(perfex_topdown_add_events(&list, &icelake, error,
					     sizeof(error)), -1,
		   "events: -e fixed counter 3, the slots: refused");

	/* No room left for them all. */
	list.nr = 0;
	while (list.nr < PERFEX_MAX_EVENTS - 3)
		perfex_add_events(&list, "tsc", error, sizeof(error));
	errno = 0;
	first = perfex_topdown_add_events(&list, &icelake, error,
					  sizeof(error));
	tap_ok(first == -1 && errno == EINVAL &&
	       list.nr == PERFEX_MAX_EVENTS - 3,
	       "events: too many: EINVAL, nothing added");
	tap_is_str(error, "too many events (at most 32)",
		   "events: too many: said so");
}

/*
 * The breakdown: level 1 as counted, level 2's parts as counted and
 * their rests the difference, the shares of each part of the counts.
 */
static void test_breakdown(void)
{
	struct perfex_count counts[] = {
		COUNT("slots:u", 1000, 400),
		COUNT("topdown-retiring:u", 200, 100),
		COUNT("topdown-bad-spec:u", 133, 100),
		COUNT("topdown-fe-bound:u", 67, 100),
		COUNT("topdown-be-bound:u", 600, 100),
		COUNT("topdown-heavy-ops:u", 125, 0),
		COUNT("topdown-br-mispredict:u", 133, 0),
		COUNT("topdown-fetch-lat:u", 19, 0),
		COUNT("topdown-mem-bound:u", 600, 0),
	};
	struct perfex_topdown td;
	struct perfex_metric m;
	int ret;

	perfex_topdown_of(&td, counts, 5);
	tap_ok(td.nr == 4 && td.slots.value == 1000 &&
	       td.slots.kind == PERFEX_COUNT_PLAIN &&
	       td.category[0].value == 200 && td.category[3].value == 600 &&
	       !strcmp(td.category[2].name, "topdown-fe-bound:u"),
	       "breakdown: level 1, the counts as they are");

	perfex_topdown_of(&td, counts, 9);
	tap_ok(td.nr == 12 && td.category[4].value == 125 &&
	       td.category[8].value == 75 && td.category[9].value == 0 &&
	       td.category[10].value == 48 && td.category[11].value == 0 &&
	       td.category[8].children == 100,
	       "breakdown: level 2, the rests the level 1 less the parts");
	tap_ok(!strcmp(td.category[8].name, "topdown-light-ops:u") &&
	       !strcmp(td.category[9].name, "topdown-machine-clears:u") &&
	       !strcmp(td.category[10].name, "topdown-fetch-bw:u") &&
	       !strcmp(td.category[11].name, "topdown-core-bound:u"),
	       "breakdown: the rests named with the slots' modifier");
	tap_ok(!strcmp(perfex_topdown_label(0), "retiring") &&
	       !strcmp(perfex_topdown_label(7), "memory bound") &&
	       !strcmp(perfex_topdown_label(8), "light operations") &&
	       !strcmp(perfex_topdown_label(12), ""),
	       "breakdown: the labels of the report's table");

	ret = perfex_topdown_share(&td, 0, PERFEX_TOPDOWN_SELF, &m);
	tap_ok(ret == 0 && m.value == 20.0 && !strcmp(m.unit, "retiring") &&
	       !strcmp(m.fmt, "%.1f%%"),
	       "share: retiring, 20%% of the thread's slots");
	ret = perfex_topdown_share(&td, 3, PERFEX_TOPDOWN_CHILDREN, &m);
	tap_ok(ret == 0 && m.value == 25.0, "share: of the children's slots");
	ret = perfex_topdown_share(&td, 11, PERFEX_TOPDOWN_TOTAL, &m);
	tap_ok(ret == 0 && m.value == 100.0 * 100 / 1400 &&
	       !strcmp(m.unit, "core bound"),
	       "share: of the total; core bound the children's rest");

	/* Rounded means of -r may make a part exceed its whole: 0. */
	counts[5].value = 201;
	counts[2].not_counted = 1;
	perfex_topdown_of(&td, counts, 9);
	tap_ok(td.category[8].value == 0 && !td.category[8].not_counted &&
	       td.category[9].not_counted,
	       "breakdown: a part above its whole: a rest of 0; a whole not "
	       "counted: its rest neither");
	tap_is_int(perfex_topdown_share(&td, 1, PERFEX_TOPDOWN_TOTAL, &m), -1,
		   "share: not counted: none");
	counts[0].value = counts[0].children = 0;
	perfex_topdown_of(&td, counts, 5);
	tap_is_int(perfex_topdown_share(&td, 0, PERFEX_TOPDOWN_TOTAL, &m), -1,
		   "share: no slots: none");
	tap_is_int(perfex_topdown_share(&td, 4, PERFEX_TOPDOWN_TOTAL, &m), -1,
		   "share: beyond level 1 without level 2: none");
}

int main(void)
{
	test_check();
	test_add_events();
	test_breakdown();
	return tap_done();
}
