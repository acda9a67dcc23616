/* SPDX-License-Identifier: GPL-2.0 */
#ifndef PERFEX_FORMAT_H
#define PERFEX_FORMAT_H

#include <stddef.h>
#include <stdio.h>

/* Long enough for 2^64-1 with separators: 26 characters and a NUL. */
#define THOUSANDS_BUF_SIZE	32

/* How a count is shown, and what is said about it after the '#'. */
enum perfex_count_kind {
	PERFEX_COUNT_PLAIN,		/* a number, nothing more */
	PERFEX_COUNT_EVENTS,		/* events: their rate per second */
	PERFEX_COUNT_TASK_CLOCK,	/* ns on a CPU: msec, CPUs utilized */
};

struct perfex_count {
	const char *name;
	unsigned long long value;	/* the command's own thread */
	unsigned long long children;	/* its other threads, children */
	enum perfex_count_kind kind;
	double noise;		/* -r: relative stddev of the mean, in % */
	int not_counted;	/* could not be read: no value */
};

/*
 * perfex --topdown: the slots, and the TopDown categories that share
 * them.  category[] holds level 1 (retiring, bad speculation, frontend
 * bound, backend bound), then with level 2 the part of each that the CPU
 * counts (heavy operations, branch mispredicts, fetch latency, memory
 * bound) and the rest of each (light operations, machine clears, fetch
 * bandwidth, core bound): category i is a part of level 1 category
 * i % 4.  perfex_topdown_of() makes it from the counts (topdown.c); the
 * names of the rests are inside it, so it is not to be copied.
 */
#define PERFEX_TOPDOWN_MAX		12
#define PERFEX_TOPDOWN_NAME_SIZE	80

struct perfex_topdown {
	struct perfex_count slots;
	unsigned int nr;		/* 4, or 12 with level 2 */
	struct perfex_count category[PERFEX_TOPDOWN_MAX];
	char rest_name[4][PERFEX_TOPDOWN_NAME_SIZE];
};

struct perfex_report {
	char *const *command;	/* NULL-terminated; NULL for a thread */
	int tid;		/* without a command: the thread counted */
	const struct perfex_count *counts;
	unsigned int nr_counts;
	const struct perfex_topdown *topdown;	/* --topdown, or NULL */
	unsigned int runs;	/* -r: how many; 0 or 1 for one */
	unsigned long long elapsed_ns;	/* the mean, for several runs */
	double elapsed_stddev_ns;	/* of the mean, for several runs */
	unsigned long long user_ns;	/* of a command run once */
	unsigned long long sys_ns;
};

/* One line per count of perfex -I, every interval. */
struct perfex_interval {
	unsigned long long time_ns;	/* since counting started */
	unsigned long long length_ns;	/* of this interval */
	unsigned int index;		/* 0 for the first */
	const struct perfex_count *counts;	/* what it counted */
	unsigned int nr_counts;
	const struct perfex_topdown *topdown;	/* --topdown, or NULL */
};

size_t format_thousands(char *buf, size_t size, unsigned long long value);
size_t format_seconds(char *buf, size_t size, unsigned long long ns);
size_t format_msec(char *buf, size_t size, unsigned long long ns);
size_t format_msec_plain(char *buf, size_t size, unsigned long long ns);
int format_rate(char *buf, size_t size, double per_second);
unsigned long long perfex_count_total(const struct perfex_count *count);
int perfex_report_has_children(const struct perfex_report *report);
void perfex_print_report(FILE *out, const struct perfex_report *report);
void perfex_print_interval(FILE *out, const struct perfex_interval *iv);

/* perfex -x SEP */
void perfex_print_report_csv(FILE *out, const struct perfex_report *report,
			     const char *sep);
void perfex_print_interval_csv(FILE *out, const struct perfex_interval *iv,
			       const char *sep);

/* perfex --json */
void perfex_print_report_json(FILE *out, const struct perfex_report *report);
void perfex_print_interval_json(FILE *out, const struct perfex_interval *iv);

#endif /* PERFEX_FORMAT_H */
