// SPDX-License-Identifier: GPL-2.0
/*
 * The derived figures, from made-up counts: keyed on the events'
 * canonical names, whatever counted them.
 */
#include <string.h>

#include "metrics.h"
#include "tap.h"

#define COUNT(n, v, c) \
	{ .name = (n), .value = (v), .children = (c), \
	  .kind = perfex_count_kind_of(n) }

static struct perfex_metric metric;
static char text[64];

/* The figure of counts[i] as the report says it; "" if none. */
static const char *figure(const struct perfex_count *counts, unsigned int nr,
			  unsigned int i, unsigned long long wall_ns)
{
	if (perfex_metric_of(counts, nr, i, wall_ns, &metric) < 0)
		return "";
	perfex_metric_text(text, sizeof(text), &metric);
	return text;
}

static void test_kinds(void)
{
	tap_is_int(perfex_count_kind_of("task-clock"), PERFEX_COUNT_TASK_CLOCK,
		   "kind: task-clock");
	tap_is_int(perfex_count_kind_of("tsc"), PERFEX_COUNT_PLAIN,
		   "kind: tsc");
	tap_is_int(perfex_count_kind_of("page-faults:u"), PERFEX_COUNT_EVENTS,
		   "kind: page-faults:u");
	tap_is_int(perfex_count_kind_of("cs"), PERFEX_COUNT_EVENTS,
		   "kind: cs");
	tap_is_int(perfex_count_kind_of("instructions"), PERFEX_COUNT_EVENTS,
		   "kind: instructions");
}

static void test_hardware(void)
{
	struct perfex_count c[] = {
		COUNT("instructions", 3000, 0),
		COUNT("cycles", 2000, 0),
		COUNT("branches", 400, 0),
		COUNT("branch-misses", 10, 0),
		COUNT("cache-references", 1000, 0),
		COUNT("cache-misses", 25, 0),
		COUNT("task-clock", 800, 0),
	};

	tap_is_str(figure(c, 7, 0, 1000), "   1.50  insn per cycle",
		   "instructions over cycles");
	tap_ok(metric.value == 1.5, "insn per cycle: the value");
	tap_is_str(figure(c, 7, 1, 1000), "   2.500 GHz",
		   "cycles over task-clock ns: GHz");
	tap_is_str(figure(c, 7, 3, 1000), "   2.50% of all branches",
		   "branch-misses over branches");
	tap_is_str(figure(c, 7, 5, 1000), "   2.50% of all cache refs",
		   "cache-misses over cache-references");
	tap_is_str(figure(c, 7, 2, 1000), " 500.000 M/sec",
		   "branches: a rate per second of task-clock");
	tap_is_str(figure(c, 7, 6, 1000), "   0.800 CPUs utilized",
		   "task-clock over elapsed: CPUs utilized");

	/* Children count too. */
	c[0].children = 1000;
	c[1].children = 2000;
	tap_is_str(figure(c, 7, 0, 1000), "   1.00  insn per cycle",
		   "insn per cycle of the totals");
}

static void test_partners(void)
{
	struct perfex_count c[] = {
		COUNT("instructions:u", 3000, 0),
		COUNT("cycles", 1000, 0),
		COUNT("cycles:u", 2000, 0),
		COUNT("branch-misses", 5, 0),
		COUNT("branch-instructions", 50, 0),
		COUNT("cpu-cycles:k", 10, 0),
		COUNT("instructions:k", 30, 0),
	};

	tap_is_str(figure(c, 7, 0, 1000000000), "   1.50  insn per cycle",
		   "instructions:u pairs with cycles:u, not cycles");
	tap_is_str(figure(c, 7, 3, 1000000000), "  10.00% of all branches",
		   "branch-instructions is branches");
	tap_is_str(figure(c, 7, 6, 1000000000), "   3.00  insn per cycle",
		   "cpu-cycles:k is cycles:k");
	tap_is_str(figure(c, 1, 0, 1000000000), "   3.000 K/sec",
		   "instructions without cycles: a rate per elapsed second");
	tap_is_str(figure(c, 2, 1, 1000000000), "   1.000 K/sec",
		   "cycles without task-clock: a rate");

	c[4].value = 0;
	tap_is_str(figure(c, 7, 3, 1000000000), "   5.000 /sec",
		   "branches counted none: a rate instead of a ratio");
}

static void test_software(void)
{
	struct perfex_count c[] = {
		COUNT("task-clock", 0, 0),
		COUNT("page-faults", 105918, 0),
		COUNT("tsc", 2998123456ull, 0),
		COUNT("cs", 2500000, 0),
		COUNT("faults:u", 7000000000ull, 0),
		COUNT("migrations", 7000000000000ull, 0),
	};

	tap_is_str(figure(c, 6, 0, 0), "", "task-clock, no elapsed: nothing");
	tap_is_str(figure(c, 6, 1, 0), "", "events, no time at all: nothing");
	tap_is_str(figure(c, 6, 2, 1000000000), "", "tsc: nothing");
	tap_is_str(figure(c, 6, 1, 1000000000), " 105.918 K/sec",
		   "page-faults: K/sec of elapsed without task-clock");
	tap_is_str(figure(c, 6, 3, 1000000000), "   2.500 M/sec",
		   "cs: M/sec");
	tap_is_str(figure(c, 6, 4, 1000000000), "   7.000 G/sec",
		   "faults:u: G/sec");
	tap_is_str(figure(c, 6, 5, 1000000000), "7000.000 G/sec",
		   "G is the largest prefix");
	c[0].value = 500000000;
	tap_is_str(figure(c, 6, 1, 1000000000), " 211.836 K/sec",
		   "rates per second of task-clock when it is counted");
}

static void test_numbers(void)
{
	struct perfex_count c[] = {
		COUNT("branch-misses", 1, 0),
		COUNT("branches", 8, 0),
		COUNT("instructions", 1, 0),
		COUNT("cycles", 3, 0),
	};
	char number[32];

	perfex_metric_of(c, 4, 0, 1, &metric);
	perfex_metric_number(number, sizeof(number), &metric);
	tap_is_str(number, "12.50", "number: a percentage without its '%%'");
	perfex_metric_of(c, 4, 2, 1, &metric);
	perfex_metric_number(number, sizeof(number), &metric);
	tap_is_str(number, "0.33", "number: insn per cycle, as shown");
}

int main(void)
{
	test_kinds();
	test_hardware();
	test_partners();
	test_software();
	test_numbers();
	return tap_done();
}
