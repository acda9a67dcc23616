// SPDX-License-Identifier: GPL-2.0
/*
 * The derived figures of a report, perf stat's "shadow" metrics, worked
 * out from the counts alone, whatever counted them.  Events are known by
 * their canonical names (those of perf: "instructions", "cycles", ...),
 * with perf's aliases, and an event pairs only with a partner counted
 * with the same modifier ("instructions:u" with "cycles:u"):
 *
 *	task-clock      CPUs utilized: task-clock over the elapsed time
 *	instructions    insn per cycle: instructions over cycles
 *	cycles          GHz: cycles over task-clock
 *	branch-misses   % of all branches: over branches
 *	cache-misses    % of all cache refs: over cache-references
 *
 * Any other event, or one whose partner is missing or zero, gets its
 * rate per second of task-clock (of the elapsed time without it), with
 * a K, M or G prefix from a thousand up.  The time-stamp counter gets
 * nothing: its rate is the TSC frequency.
 *
 * The figures are about the totals, the command's and its children's.
 */
#include <stdio.h>
#include <string.h>

#include "metrics.h"

#define NAME_SIZE	64

static const struct {
	const char *alias;
	const char *name;
} aliases[] = {
	{ "cpu-cycles",			"cycles" },
	{ "branch-instructions",	"branches" },
	{ "cs",				"context-switches" },
	{ "migrations",			"cpu-migrations" },
	{ "faults",			"page-faults" },
};

/*
 * @name's event without its modifier, under its canonical name, into
 * @base; the modifier, ":u" say, or "" is returned.
 */
static const char *split_name(const char *name, char base[NAME_SIZE])
{
	const char *colon = strchr(name, ':');
	size_t len = colon ? (size_t)(colon - name) : strlen(name);
	unsigned int i;

	if (len >= NAME_SIZE)
		len = NAME_SIZE - 1;
	memcpy(base, name, len);
	base[len] = '\0';
	for (i = 0; i < sizeof(aliases) / sizeof(aliases[0]); i++) {
		if (strcmp(base, aliases[i].alias) == 0) {
			strcpy(base, aliases[i].name);
			break;
		}
	}
	return colon ? colon : "";
}

/**
 * perfex_count_kind_of - how a report shows an event, from its name
 * @name: as reported, modifier and all
 *
 * Return: PERFEX_COUNT_TASK_CLOCK for task-clock, PERFEX_COUNT_PLAIN for
 * the time-stamp counter, PERFEX_COUNT_EVENTS for anything else.
 */
enum perfex_count_kind perfex_count_kind_of(const char *name)
{
	char base[NAME_SIZE];

	split_name(name, base);
	if (strcmp(base, "task-clock") == 0)
		return PERFEX_COUNT_TASK_CLOCK;
	if (strcmp(base, "tsc") == 0)
		return PERFEX_COUNT_PLAIN;
	return PERFEX_COUNT_EVENTS;
}

static double total_of(const struct perfex_count *count)
{
	return (double)count->value + count->children;
}

/* The total of event @want counted with modifier @mod; 0 if none. */
static double partner(const struct perfex_count *counts, unsigned int nr,
		      const char *want, const char *mod)
{
	char base[NAME_SIZE];
	unsigned int i;

	for (i = 0; i < nr; i++) {
		if (strcmp(split_name(counts[i].name, base), mod) == 0 &&
		    strcmp(base, want) == 0)
			return total_of(&counts[i]);
	}
	return 0;
}

/* The task-clock total, in ns; 0 if task-clock is not counted. */
static double task_clock_ns(const struct perfex_count *counts,
			    unsigned int nr)
{
	unsigned int i;

	for (i = 0; i < nr; i++) {
		if (counts[i].kind == PERFEX_COUNT_TASK_CLOCK &&
		    total_of(&counts[i]))
			return total_of(&counts[i]);
	}
	return 0;
}

static void set(struct perfex_metric *metric, double value, const char *fmt,
		const char *unit)
{
	metric->value = value;
	metric->fmt = fmt;
	snprintf(metric->unit, sizeof(metric->unit), "%s", unit);
}

/**
 * perfex_metric_ratio - a figure that is a ratio
 * @metric: set to @num over @den, printed with @fmt, and @unit
 * @num: the numerator
 * @den: the divisor
 * @fmt: as perfex_metric.fmt
 * @unit: as perfex_metric.unit
 *
 * Return: 0 with @metric set, or -1 if @den is 0.
 */
int perfex_metric_ratio(struct perfex_metric *metric, double num, double den,
			const char *fmt, const char *unit)
{
	if (!den)
		return -1;
	set(metric, num / den, fmt, unit);
	return 0;
}

static int rate(struct perfex_metric *metric, double events, double per_ns)
{
	static const char *const prefix[] = { "", "K", "M", "G" };
	double per_second;
	unsigned int i = 0;

	if (!per_ns)
		return -1;
	per_second = events * 1e9 / per_ns;
	while (per_second >= 1000 && i < 3) {
		per_second /= 1000;
		i++;
	}
	set(metric, per_second, "%8.3f", prefix[i]);
	strcat(metric->unit, "/sec");
	return 0;
}

/**
 * perfex_metric_of - the figure derived from a count
 * @counts: every count of the report, or of the interval
 * @nr: how many
 * @i: which one
 * @wall_ns: the elapsed time they were counted in
 * @metric: the figure
 *
 * Return: 0 with @metric set, or -1 if there is nothing to say, for
 * want of a divisor or because the event has no figure.
 */
int perfex_metric_of(const struct perfex_count *counts, unsigned int nr,
		     unsigned int i, unsigned long long wall_ns,
		     struct perfex_metric *metric)
{
	const struct perfex_count *count = &counts[i];
	double total = total_of(count), clock = task_clock_ns(counts, nr);
	char base[NAME_SIZE];
	const char *mod = split_name(count->name, base);

	if (count->kind == PERFEX_COUNT_TASK_CLOCK)
		return perfex_metric_ratio(metric, total, wall_ns, "%8.3f",
					   "CPUs utilized");
	if (count->kind != PERFEX_COUNT_EVENTS)
		return -1;
	if (strcmp(base, "instructions") == 0 &&
	    perfex_metric_ratio(metric, total,
				partner(counts, nr, "cycles", mod),
				"%7.2f ", "insn per cycle") == 0)
		return 0;
	if (strcmp(base, "cycles") == 0 &&
	    perfex_metric_ratio(metric, total, clock, "%8.3f", "GHz") == 0)
		return 0;
	if (strcmp(base, "branch-misses") == 0 &&
	    perfex_metric_ratio(metric, 100 * total,
				partner(counts, nr, "branches", mod),
				"%7.2f%%", "of all branches") == 0)
		return 0;
	if (strcmp(base, "cache-misses") == 0 &&
	    perfex_metric_ratio(metric, 100 * total,
				partner(counts, nr, "cache-references", mod),
				"%7.2f%%", "of all cache refs") == 0)
		return 0;
	return rate(metric, total, clock ? clock : wall_ns);
}

/**
 * perfex_metric_text - a figure as the report's comment shows it
 * @buf: where the text goes, e.g. "   0.999 CPUs utilized"
 * @size: its size
 * @metric: the figure
 *
 * Return: what snprintf() returns.
 */
int perfex_metric_text(char *buf, size_t size,
		       const struct perfex_metric *metric)
{
	char number[32];

	snprintf(number, sizeof(number), metric->fmt, metric->value);
	return snprintf(buf, size, "%s %s", number, metric->unit);
}

/**
 * perfex_metric_number - a figure's number alone, as perf stat -x has it
 * @buf: where the text goes: the digits and decimal point of the
 *       comment's number, "0.999" or "2.34" (no '%')
 * @size: its size
 * @metric: the figure
 *
 * Return: the length of the text.
 */
int perfex_metric_number(char *buf, size_t size,
			 const struct perfex_metric *metric)
{
	char number[32];
	const char *p;
	size_t len;

	snprintf(number, sizeof(number), metric->fmt, metric->value);
	for (p = number; *p == ' '; p++)
		;
	len = strspn(p, "0123456789.");
	return snprintf(buf, size, "%.*s", (int)len, p);
}
